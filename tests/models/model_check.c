// SPDX-License-Identifier: MIT
/*
 * Runs the published models of tests/models/models.conf through the ENPU
 * runtime and compares them with ONNX Runtime (tests/models/ort_models.js)
 * on the same deterministic inputs; also quantizes each with the
 * enpu-quantize library and compares the quantized model in both runtimes.
 *
 *   model-check inputs  MANIFEST CACHE WORK   write WORK/<name>/input_<i>.bin
 *                                             (+ inputs.txt for the ORT side)
 *                                             and calibration sets
 *   model-check quantize MANIFEST CACHE WORK  write WORK/<name>/int8.onnx
 *   model-check compare MANIFEST CACHE WORK [--threads N]
 *                                             run ours, compare with
 *                                             WORK/<name>/ort_*.bin
 *
 * A float output passes when every element is within
 * 1e-3 * |ort| + 1e-4 * max|ort| of ONNX Runtime's; a quantized output
 * when within 2 % of the float output's range (the int8 rule rounds half
 * up where ORT rounds to even, docs/quantization.md). Ends with
 * "N passed, N failed"; a model that fails to load or run is a failure.
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

#define MAX_INPUTS 8
#define CALIB_SAMPLES 4

struct input_spec {
	char name[128];
	int32_t dtype;
	int rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	int constant;
	double lo, hi;		/* uniform range, or lo = the constant */
};

struct model {
	char name[64], package[128], path[256], sha[80];
	int inputs;
	struct input_spec in[MAX_INPUTS];
};

static int parse_inputs(const char *text, struct model *m)
{
	char buf[1024], *save = NULL, *item;

	snprintf(buf, sizeof(buf), "%s", text);
	m->inputs = 0;
	for (item = strtok_r(buf, ";", &save); item && m->inputs < MAX_INPUTS;
	     item = strtok_r(NULL, ";", &save)) {
		struct input_spec *s = &m->in[m->inputs++];
		char *type, *dims, *values, *p;

		/* name may itself hold ':' (onnx::Flatten_0): split from the end */
		values = strrchr(item, ':');
		if (!values)
			return -1;
		*values++ = 0;
		dims = strrchr(item, ':');
		if (!dims)
			return -1;
		*dims++ = 0;
		type = strrchr(item, ':');
		if (!type)
			return -1;
		*type++ = 0;
		snprintf(s->name, sizeof(s->name), "%s", item);
		s->dtype = !strcmp(type, "float") ? ENPU_RT_FLOAT :
			   !strcmp(type, "int64") ? ENPU_RT_INT64 : 0;
		if (!s->dtype)
			return -1;
		s->rank = 0;
		for (p = dims; *p && s->rank < ENPU_RT_MAX_RANK;) {
			s->dims[s->rank++] = strtoll(p, &p, 10);
			if (*p == 'x')
				p++;
		}
		s->constant = values[0] == 'c';
		if (s->constant)
			s->lo = strtod(values + 1, NULL);
		else if (sscanf(values + 1, "%lf,%lf", &s->lo, &s->hi) != 2)
			return -1;
	}
	return 0;
}

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
		    parse_inputs(inputs, m)) {
			fprintf(stderr, "model-check: bad manifest line: %s", line);
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n;
}

static size_t elements(const struct input_spec *s)
{
	size_t n = 1;

	for (int d = 0; d < s->rank; d++)
		n *= (size_t)s->dims[d];
	return n;
}

/* xorshift64*, seeded per model, input and sample. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

static uint64_t seed_of(const char *name, int input, int sample)
{
	uint64_t h = 1469598103934665603ull;

	while (*name)
		h = (h ^ (uint8_t)*name++) * 1099511628211ull;
	return h ^ ((uint64_t)input << 32) ^ ((uint64_t)sample << 48) ^ 1;
}

static void *make_input(const struct model *m, int i, int sample,
			size_t *bytes)
{
	const struct input_spec *s = &m->in[i];
	size_t n = elements(s), size = s->dtype == ENPU_RT_FLOAT ? 4 : 8;
	uint64_t state = seed_of(m->name, i, sample);
	void *data = malloc(n * size + 1);

	if (!data)
		return NULL;
	for (size_t e = 0; e < n; e++) {
		double u = (double)(next_random(&state) >> 11) / 9007199254740992.0;
		double v = s->constant ? s->lo : s->lo + (s->hi - s->lo) * u;

		if (s->dtype == ENPU_RT_FLOAT)
			((float *)data)[e] = (float)v;
		else
			((int64_t *)data)[e] = (int64_t)v;
	}
	*bytes = n * size;
	return data;
}

static int write_file(const char *path, const void *data, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, bytes, f) == bytes;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static void *read_all(const char *path, size_t *bytes)
{
	FILE *f = fopen(path, "rb");
	void *data = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		data = malloc((size_t)size + 1);
		if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
			free(data);
			data = NULL;
		}
		*bytes = (size_t)size;
	}
	fclose(f);
	return data;
}

/* Appends a little-endian field to a protobuf buffer. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* A TensorProto file for the calibration set (the ONNX test layout). */
static int write_tensor_pb(const char *path, const struct input_spec *s,
			   const void *data, size_t bytes)
{
	size_t name_len = strlen(s->name), n = 0;
	uint8_t *buf = malloc(bytes + name_len + 32 + 11 * ENPU_RT_MAX_RANK);
	int status;

	if (!buf)
		return -1;
	for (int d = 0; d < s->rank; d++) {	/* dims = 1, varint */
		buf[n++] = 0x08;
		n += put_varint(buf + n, (uint64_t)s->dims[d]);
	}
	buf[n++] = 0x10;			/* data_type = 2 */
	n += put_varint(buf + n, (uint64_t)s->dtype);
	buf[n++] = 0x42;			/* name = 8 */
	n += put_varint(buf + n, name_len);
	memcpy(buf + n, s->name, name_len);
	n += name_len;
	buf[n++] = 0x4a;			/* raw_data = 9 */
	n += put_varint(buf + n, bytes);
	memcpy(buf + n, data, bytes);
	n += bytes;
	status = write_file(path, buf, n);
	free(buf);
	return status;
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

static int cmd_inputs(const struct model *models, int n, const char *work)
{
	char p[4096];

	mkdir(work, 0755);
	for (int m = 0; m < n; m++) {
		const struct model *md = &models[m];
		FILE *list;

		mkdir(path_of(p, sizeof(p), "%s/%s", work, md->name), 0755);
		list = fopen(path_of(p, sizeof(p), "%s/%s/inputs.txt", work,
				     md->name), "w");
		if (!list)
			return -1;
		for (int i = 0; i < md->inputs; i++) {
			size_t bytes;
			void *data = make_input(md, i, 0, &bytes);

			if (!data || write_file(path_of(p, sizeof(p),
					"%s/%s/input_%d.bin", work, md->name, i),
					data, bytes)) {
				free(data);
				fclose(list);
				return -1;
			}
			free(data);
			fprintf(list, "%s %s %d", md->in[i].name,
				md->in[i].dtype == ENPU_RT_FLOAT ? "float32" :
				"int64", md->in[i].rank);
			for (int d = 0; d < md->in[i].rank; d++)
				fprintf(list, " %lld", (long long)md->in[i].dims[d]);
			fprintf(list, "\n");
		}
		fclose(list);
		/* Calibration: other samples of the same distribution. */
		mkdir(path_of(p, sizeof(p), "%s/%s/calib", work, md->name), 0755);
		for (int s = 1; s <= CALIB_SAMPLES; s++) {
			mkdir(path_of(p, sizeof(p), "%s/%s/calib/%d", work,
				      md->name, s), 0755);
			for (int i = 0; i < md->inputs; i++) {
				size_t bytes;
				void *data = make_input(md, i, s, &bytes);
				int status = data ? write_tensor_pb(path_of(p,
					sizeof(p), "%s/%s/calib/%d/input_%d.pb",
					work, md->name, s, i), &md->in[i],
					data, bytes) : -1;

				free(data);
				if (status)
					return -1;
			}
		}
	}
	return 0;
}

static int cmd_quantize(const struct model *models, int n, const char *cache,
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
			printf("quantize %-20s ok (%zu samples)%s%s\n",
			       models[m].name, r.samples, r.notes ? ": " : "",
			       r.notes ? r.notes : "");
			(*passed)++;
		}
		enpu_quantize_report_free(&r);
	}
	return 0;
}

struct compare {
	double worst;		/* max |a - b| / allowed */
	double max_abs, ref_max;
	size_t count;
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
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]);
		double allowed = rtol * fabs(b[i]) + range_tol * ref_max + 1e-7;

		if (isnan(a[i]) != isnan(b[i]))
			d = INFINITY;
		else if (isnan(a[i]))
			d = 0;
		c->max_abs = fmax(c->max_abs, d);
		c->worst = fmax(c->worst, d / allowed);
	}
}

/* Runs @file on the inputs of @m; compares each output with @ort_prefix. */
static int run_and_compare(const struct model *m, const char *file,
			   const char *work, const char *ort_prefix,
			   unsigned threads, int quantized, int *passed,
			   int *failed)
{
	enpu_rt_options *options = NULL;
	enpu_rt_session *s = NULL;
	void *data[MAX_INPUTS] = { 0 };
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

		data[i] = read_all(path_of(p, sizeof(p), "%s/%s/input_%d.bin",
					   work, m->name, i), &bytes);
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
		float *ref = read_all(path_of(p, sizeof(p), "%s/%s/%s_%zu.bin",
					      work, m->name, ort_prefix, o),
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
		if (quantized)
			compare_float(out.data, ref, bytes / 4, 0, 0.02, &c);
		else
			compare_float(out.data, ref, bytes / 4, 1e-3, 1e-4, &c);
		printf("%-24s %s output %zu: %zu values, max |diff| %.3g (max "
		       "|ort| %.3g), %s\n", m->name, quantized ? "int8 " : "float",
		       o, bytes / 4, c.max_abs, c.ref_max,
		       c.worst <= 1 ? "within tolerance" : "FAIL");
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
	int n, passed = 0, failed = 0;
	unsigned threads = 1;
	char file[4096];

	if (argc < 5) {
		fprintf(stderr, "usage: %s inputs|quantize|compare MANIFEST "
			"CACHE WORK [--threads N]\n", argv[0]);
		return 2;
	}
	for (int i = 5; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--threads"))
			threads = (unsigned)atoi(argv[++i]);
	n = read_manifest(argv[2], models, 64);
	if (n < 0)
		return 2;
	if (!strcmp(argv[1], "inputs"))
		return cmd_inputs(models, n, argv[4]) ? 1 : 0;
	if (!strcmp(argv[1], "quantize"))
		cmd_quantize(models, n, argv[3], argv[4], &passed, &failed);
	else
		for (int m = 0; m < n; m++) {
			char q[4096];
			struct stat st;

			run_and_compare(&models[m], path_of(file, sizeof(file),
					"%s/%s.onnx", argv[3], models[m].name),
					argv[4], "ort", threads, 0, &passed,
					&failed);
			if (!stat(path_of(q, sizeof(q), "%s/%s/int8.onnx",
					  argv[4], models[m].name), &st))
				run_and_compare(&models[m], q, argv[4],
						"ort_int8", threads, 1, &passed,
						&failed);
		}
	printf("model-check %s: %d passed, %d failed\n", argv[1], passed,
	       failed);
	return failed ? 1 : 0;
}
