// SPDX-License-Identifier: MIT
/*
 * Runs the published models of tests/models/models.conf through the ENPU
 * runtime and compares them with ONNX Runtime (tests/common/ort_worker.js,
 * in a child process) on the same deterministic inputs; also quantizes
 * each with the enpu-quantize library and compares the quantized model in
 * both runtimes.
 *
 *   model-check MANIFEST CACHE WORK --ort-script FILE [--threads N]
 *
 * WORK/<name>/ receives the inputs, the calibration set, int8.onnx and
 * ONNX Runtime's outputs.
 *
 * A float output passes when every element is within
 * 1e-3 * |ort| + 1e-4 * max|ort| of ONNX Runtime's. A quantized output is
 * held to two rules, because the same QDQ model is not bit-exact between
 * two runtimes: our requantization rounds half up where ORT rounds to
 * even (docs/quantization.md), so an int8 tensor may differ by one step,
 * and a float layer between quantized ones (PaddleOCR's ConvTranspose)
 * amplifies that step for a few elements. It passes when
 *  - agreement: at least 99.9 % of its elements are within 2 % of the
 *    range of ORT's output for the same int8 model, and
 *  - accuracy: its mean |error| against ORT's float output is at most
 *    1.1 times that of ORT's int8 output (+1e-6): quantized here, it is
 *    as close to the float model as ORT running the same file.
 * Ends with "N passed, N failed"; a model that fails to load or run is a
 * failure.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu/enpu_rt.h"
#include "enpu_quantize.h"
#include "model_io.h"

#define CALIB_SAMPLES 4

struct model {
	char name[64], package[128], path[256], sha[80];
	int inputs;
	struct mio_input in[MIO_MAX_INPUTS];
};

static int read_manifest(const char *path, struct model *models, int max)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0;

	if (!f) {
		fprintf(stderr, "model-check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && n < max) {
		char inputs[1024];
		struct model *m = &models[n];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %127s %255s %79s %1023s", m->name,
			   m->package, m->path, m->sha, inputs) != 5 ||
		    (m->inputs = mio_parse_inputs(inputs, m->in,
						  MIO_MAX_INPUTS)) < 0) {
			fprintf(stderr, "model-check: bad manifest line: %s", line);
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n;
}

static char *path_of(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static char *path_of(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

/* Inputs and the calibration set of every model. */
static int write_inputs(const struct model *models, int n, const char *work)
{
	char dir[4096], calib[4096];

	mkdir(work, 0755);
	for (int m = 0; m < n; m++) {
		path_of(dir, sizeof(dir), "%s/%s", work, models[m].name);
		path_of(calib, sizeof(calib), "%s/calib", dir);
		if (mio_write_inputs(dir, models[m].name, models[m].in,
				     models[m].inputs) ||
		    mio_write_calibration(calib, models[m].name, models[m].in,
					  models[m].inputs, CALIB_SAMPLES)) {
			fprintf(stderr, "model-check: writing inputs of %s failed\n",
				models[m].name);
			return -1;
		}
	}
	return 0;
}

/* ONNX Runtime's outputs of @file into DIR/<prefix>_<o>.bin. */
static int ort_outputs(const char *script, const char *file, const char *dir,
		       const char *prefix)
{
	struct mio_ort ort;
	int status;

	if (mio_ort_start(&ort, script, file, dir, 1))
		return -1;
	status = mio_ort_dump(&ort, dir, prefix);
	mio_ort_stop(&ort);
	return status;
}

static void quantize_all(const struct model *models, int n, const char *cache,
			 const char *work, int *passed, int *failed)
{
	char model[4096], calib[4096], out[4096];

	for (int m = 0; m < n; m++) {
		struct enpu_quantize_options o;
		struct enpu_quantize_report r;
		int status;

		enpu_quantize_options_init(&o);
		status = enpu_quantize_file(
			path_of(model, sizeof(model), "%s/%s.onnx", cache,
				models[m].name),
			path_of(calib, sizeof(calib), "%s/%s/calib", work,
				models[m].name),
			path_of(out, sizeof(out), "%s/%s/int8.onnx", work,
				models[m].name), &o, &r);
		if (status) {
			printf("quantize %-20s FAIL %s\n", models[m].name, r.error);
			(*failed)++;
		} else {
			printf("quantize %-20s ok (%zu samples)", models[m].name,
			       r.samples);
			/* Notes are one per line: print them on one. */
			for (const char *p = r.notes; p && *p;) {
				const char *end = strchr(p, '\n');
				int len = end ? (int)(end - p) : (int)strlen(p);

				printf("%s%.*s", p == r.notes ? ": " : "; ", len, p);
				p = end ? end + 1 : p + len;
			}
			printf("\n");
			(*passed)++;
		}
		enpu_quantize_report_free(&r);
	}
}

struct compare {
	double worst;		/* max |a - b| / allowed */
	double max_abs, ref_max;
	size_t count;
	size_t within;		/* elements inside their allowed difference */
	int shape_ok;
};

static void compare_float(const float *a, const float *b, size_t n,
			  double rtol, double range_tol, struct compare *c)
{
	double ref_max = 0;

	for (size_t i = 0; i < n; i++)
		ref_max = fmax(ref_max, fabs(b[i]));
	c->ref_max = ref_max;
	c->worst = 0;
	c->max_abs = 0;
	c->within = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]);
		double allowed = rtol * fabs(b[i]) + range_tol * ref_max + 1e-7;

		if (isnan(a[i]) != isnan(b[i]))
			d = INFINITY;
		else if (isnan(a[i]))
			d = 0;
		c->max_abs = fmax(c->max_abs, d);
		c->worst = fmax(c->worst, d / allowed);
		c->within += d <= allowed;
	}
}

/* Agreement and accuracy rules of the header comment for quantized @ours. */
#define INT8_RANGE_SHARE 0.02
#define INT8_AGREEMENT 0.999
#define INT8_ERROR_RATIO 1.1

static double mean_error(const float *a, const float *b, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += fabs((double)a[i] - b[i]);
	return n ? sum / (double)n : 0;
}

static int compare_quantized(const struct model *m, const char *work,
			     size_t o, const float *ours, const float *ort_int8,
			     size_t n)
{
	char p[4096];
	size_t bytes = 0;
	float *ort_float = mio_read_file(path_of(p, sizeof(p), "%s/%s/ort_%zu.bin",
						 work, m->name, o), &bytes);
	struct compare c = { 0 };
	double ours_error, ort_error, agreement;
	int ok;

	if (!ort_float || bytes != n * sizeof(float)) {
		printf("%-24s int8  output %zu: no ONNX Runtime float output "
		       "of that size\n", m->name, o);
		free(ort_float);
		return 0;
	}
	compare_float(ours, ort_int8, n, 0, INT8_RANGE_SHARE, &c);
	agreement = n ? (double)c.within / (double)n : 1;
	ours_error = mean_error(ours, ort_float, n);
	ort_error = mean_error(ort_int8, ort_float, n);
	ok = agreement >= INT8_AGREEMENT &&
	     ours_error <= INT8_ERROR_RATIO * ort_error + 1e-6;
	printf("%-24s int8  output %zu: %zu values, max |diff| %.3g (max |ort| "
	       "%.3g), %.3f %% within %.0f %% of it; mean |error| vs float %.3g "
	       "(ORT's int8 %.3g), %s\n", m->name, o, n, c.max_abs, c.ref_max,
	       100 * agreement, 100 * INT8_RANGE_SHARE, ours_error, ort_error,
	       ok ? "within tolerance" : "FAIL");
	free(ort_float);
	return ok;
}

/* Runs @file on the inputs of @m; compares each output with @ort_prefix. */
static int run_and_compare(const struct model *m, const char *file,
			   const char *work, const char *ort_prefix,
			   unsigned threads, int quantized, int *passed,
			   int *failed)
{
	enpu_rt_options *options = NULL;
	enpu_rt_session *s = NULL;
	void *data[MIO_MAX_INPUTS] = { 0 };
	char p[4096];
	int ok = 1;

	enpu_rt_options_create(&options);
	enpu_rt_options_set_threads(options, threads);
	if (enpu_rt_session_create_from_file(file, options, &s)) {
		printf("%-24s %s FAIL load: %s\n", m->name,
		       quantized ? "int8 " : "float", enpu_rt_options_error(options));
		enpu_rt_options_destroy(options);
		(*failed)++;
		return -1;
	}
	enpu_rt_options_destroy(options);
	for (int i = 0; i < m->inputs; i++) {
		size_t bytes, index = (size_t)i;

		data[i] = mio_read_file(path_of(p, sizeof(p),
						"%s/%s/input_%d.bin", work,
						m->name, i), &bytes);
		enpu_rt_session_find_input(s, m->in[i].name, &index);
		if (!data[i] || enpu_rt_session_bind_input(s, index,
				m->in[i].dtype, (size_t)m->in[i].rank,
				m->in[i].dims, data[i], bytes)) {
			printf("%-24s FAIL bind %s: %s\n", m->name,
			       m->in[i].name, enpu_rt_session_error(s));
			ok = 0;
		}
	}
	if (ok && enpu_rt_session_run(s)) {
		printf("%-24s %s FAIL run: %s\n", m->name,
		       quantized ? "int8 " : "float", enpu_rt_session_error(s));
		ok = 0;
	}
	for (size_t o = 0; ok && o < enpu_rt_session_output_count(s); o++) {
		struct enpu_rt_output out;
		struct compare c = { 0 };
		size_t bytes;
		float *ref = mio_read_file(path_of(p, sizeof(p),
						   "%s/%s/%s_%zu.bin", work,
						   m->name, ort_prefix, o),
					   &bytes);

		enpu_rt_session_output(s, o, &out);
		if (!ref || out.dtype != ENPU_RT_FLOAT ||
		    bytes != out.byte_size) {
			printf("%-24s output %zu: %s\n", m->name, o,
			       !ref ? "no ONNX Runtime output" :
			       "type or size differs from ONNX Runtime");
			free(ref);
			ok = 0;
			break;
		}
		if (quantized) {
			ok &= compare_quantized(m, work, o, out.data, ref,
						bytes / 4);
			free(ref);
			continue;
		}
		compare_float(out.data, ref, bytes / 4, 1e-3, 1e-4, &c);
		printf("%-24s float output %zu: %zu values, max |diff| %.3g (max "
		       "|ort| %.3g), %s\n", m->name, o, bytes / 4, c.max_abs,
		       c.ref_max, c.worst <= 1 ? "within tolerance" : "FAIL");
		ok &= c.worst <= 1;
		free(ref);
	}
	for (int i = 0; i < m->inputs; i++)
		free(data[i]);
	enpu_rt_session_destroy(s);
	if (ok)
		(*passed)++;
	else
		(*failed)++;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct model models[64];
	const char *script = NULL;
	int n, passed = 0, failed = 0;
	unsigned threads = 1;
	char file[4096], q[4096], dir[4096];

	for (int i = 4; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--threads"))
			threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ort-script"))
			script = argv[++i];
	}
	if (argc < 4 || !script) {
		fprintf(stderr, "usage: %s MANIFEST CACHE WORK --ort-script FILE "
			"[--threads N]\n", argv[0]);
		return 2;
	}
	n = read_manifest(argv[1], models, 64);
	if (n < 0 || write_inputs(models, n, argv[3]))
		return 2;
	quantize_all(models, n, argv[2], argv[3], &passed, &failed);
	for (int m = 0; m < n; m++) {
		struct stat st;

		path_of(file, sizeof(file), "%s/%s.onnx", argv[2], models[m].name);
		path_of(dir, sizeof(dir), "%s/%s", argv[3], models[m].name);
		path_of(q, sizeof(q), "%s/int8.onnx", dir);
		if (ort_outputs(script, file, dir, "ort"))
			printf("%-24s ONNX Runtime cannot run it\n",
			       models[m].name);
		run_and_compare(&models[m], file, argv[3], "ort", threads, 0,
				&passed, &failed);
		if (stat(q, &st))
			continue;
		if (ort_outputs(script, q, dir, "ort_int8"))
			printf("%-24s ONNX Runtime cannot run the int8 model\n",
			       models[m].name);
		run_and_compare(&models[m], q, argv[3], "ort_int8", threads, 1,
				&passed, &failed);
	}
	printf("model-check: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
