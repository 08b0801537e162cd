// SPDX-License-Identifier: MIT
/*
 * End-to-end float and int8 latency of the three models of
 * float_models.h (MobileNetV2-shaped, transformer encoder, U-Net-shaped)
 * through the ENPU runtime next to ONNX Runtime, measured alternately in
 * one run: ours at 1 thread, ORT at 1, ours at 2, ORT at 2, ours at 1, ...
 * (ORT in worker processes, tests/common/ort_worker.js), so that both
 * runtimes and both thread counts see the same machine load.
 *
 *   float-bench --write DIR       write the float models, their inputs,
 *                                 calibration sets and, through the
 *                                 enpu-quantize library, the int8 QDQ
 *                                 versions (DIR/<model>/...)
 *   float-bench --dir DIR --ort-script FILE [--models LIST]
 *               [--threads 1,2] [--runs N] [--warmup N] [--gap-ms N]
 *               [--profile [--nodes N]]
 *                                 the table: per model, precision and
 *                                 thread count the median of N runs each,
 *                                 the ratio ours / ORT, and the largest
 *                                 output difference against ORT
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "enpu/enpu_rt.h"
#include "enpu_quantize.h"
#include "float_models.h"
#include "model_io.h"

#define CALIB_SAMPLES 8
#define MAX_RUNS 1000

static const struct {
	const char *name, *inputs;
	int opset;
} models[] = {
	{ "mobilenetv2", "input:float:1x3x224x224:u-1,1", 13 },
	{ "transformer", "tokens:int64:1x128:u0,4095.99", 20 },
	{ "unet", "image:float:1x3x256x256:u-1,1", 13 },
};

#define MODEL_COUNT (sizeof(models) / sizeof(models[0]))

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double best(const double *v, int n)
{
	double b = v[0];

	for (int i = 1; i < n; i++)
		b = v[i] < b ? v[i] : b;
	return b;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int write_models(const char *dir)
{
	char path[4096], calib[4096], out[4096];

	mkdir(dir, 0755);
	for (size_t m = 0; m < MODEL_COUNT; m++) {
		struct model_builder mb;
		struct mio_input in[MIO_MAX_INPUTS];
		struct enpu_quantize_options o;
		struct enpu_quantize_report r;
		uint8_t *bytes;
		size_t size;
		int count = mio_parse_inputs(models[m].inputs, in,
					     MIO_MAX_INPUTS);

		mb_init(&mb, models[m].opset);
		if (m == 0)
			float_mobilenet_build(&mb, 224, 7);
		else if (m == 1)
			float_transformer_build(&mb, 128, 4, 7);
		else
			float_unet_build(&mb, 256, 7);
		bytes = mb_pack(&mb, &size);
		snprintf(path, sizeof(path), "%s/%s", dir, models[m].name);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/float.onnx", dir,
			 models[m].name);
		if (mio_write_file(path, bytes, size)) {
			fprintf(stderr, "float-bench: writing %s failed\n", path);
			mb_free(&mb);
			return 1;
		}
		mb_free(&mb);
		snprintf(out, sizeof(out), "%s/%s", dir, models[m].name);
		snprintf(calib, sizeof(calib), "%s/%s/calib", dir,
			 models[m].name);
		if (count < 0 || mio_write_inputs(out, models[m].name, in, count) ||
		    mio_write_calibration(calib, models[m].name, in, count,
					  CALIB_SAMPLES)) {
			fprintf(stderr, "float-bench: inputs of %s\n",
				models[m].name);
			return 1;
		}
		snprintf(out, sizeof(out), "%s/%s/int8.onnx", dir,
			 models[m].name);
		enpu_quantize_options_init(&o);
		if (enpu_quantize_file(path, calib, out, &o, &r)) {
			fprintf(stderr, "float-bench: quantizing %s: %s\n",
				models[m].name, r.error);
			enpu_quantize_report_free(&r);
			return 1;
		}
		enpu_quantize_report_free(&r);
		printf("float-bench: wrote %s (float and int8)\n",
		       models[m].name);
	}
	return 0;
}

struct row {
	const char *model, *precision;
	int threads;
	double ours, ort, diff;
	/* int8 rows: each side against the float model's outputs */
	double ours_to_float, ort_to_float;
	double ours_best, ort_best;	/* fastest run: robust to load */
	int ok;
};

/*
 * Largest |y - ref| over one output, relative to max |ref|, where ref is
 * the float32 file @dir/@prefix_@o.bin; INFINITY if it does not match.
 */
static double diff_to_file(const float *y, size_t bytes, const char *dir,
			   const char *prefix, size_t o)
{
	double max_ref = 0, max_diff = 0;
	char path[4096];
	size_t ref_bytes;
	float *ref;

	snprintf(path, sizeof(path), "%s/%s_%zu.bin", dir, prefix, o);
	ref = mio_read_file(path, &ref_bytes);
	if (!ref || ref_bytes != bytes) {
		free(ref);
		return INFINITY;
	}
	for (size_t i = 0; i < bytes / 4; i++) {
		max_ref = fmax(max_ref, fabs(ref[i]));
		max_diff = fmax(max_diff, fabs(ref[i] - y[i]));
	}
	free(ref);
	return max_ref > 0 ? max_diff / max_ref : max_diff;
}

/* The worst diff_to_file() of the session's last outputs. */
static double output_diff(enpu_rt_session *s, const char *dir,
			  const char *prefix)
{
	double worst = 0;

	for (size_t o = 0; o < enpu_rt_session_output_count(s); o++) {
		struct enpu_rt_output out;

		if (enpu_rt_session_output(s, o, &out) ||
		    out.dtype != ENPU_RT_FLOAT)
			return INFINITY;
		worst = fmax(worst, diff_to_file(out.data, out.byte_size, dir,
						 prefix, o));
	}
	return worst;
}

/* The same for ONNX Runtime's last outputs, dumped as @dir/ort_<o>.bin. */
static double ort_diff(size_t outputs, const char *dir, const char *prefix)
{
	double worst = 0;
	char path[4096];

	for (size_t o = 0; o < outputs; o++) {
		size_t bytes;
		float *y;

		snprintf(path, sizeof(path), "%s/ort_%zu.bin", dir, o);
		y = mio_read_file(path, &bytes);
		worst = fmax(worst, y ? diff_to_file(y, bytes, dir, prefix, o) :
			     INFINITY);
		free(y);
	}
	return worst;
}

/*
 * Per-node times of every timed run (--profile), so the table can say
 * where a run's median goes: the median and the fastest of each node,
 * summed per op type, against the median of the whole run. What the
 * nodes' medians do not cover is the time outside the kernels (the run
 * loop, buffer handling, the engine's seams).
 */
struct node_times {
	size_t nodes;
	int runs;
	double *ms;		/* [run][node] */
	double *run_ms;		/* [run]: node times summed */
	long faults;		/* minor page faults over the runs */
};

static int node_times_init(struct node_times *t, enpu_rt_session *s,
			   int runs)
{
	t->nodes = enpu_rt_session_node_count(s);
	t->runs = 0;
	t->faults = 0;
	t->ms = calloc((size_t)runs * (t->nodes + 1), sizeof(double));
	t->run_ms = calloc((size_t)runs, sizeof(double));
	return t->ms && t->run_ms ? 0 : -1;
}

static void node_times_record(struct node_times *t, enpu_rt_session *s)
{
	double *row = t->ms + (size_t)t->runs * t->nodes;

	t->run_ms[t->runs] = 0;
	for (size_t i = 0; i < t->nodes; i++) {
		uint64_t ns = 0;

		enpu_rt_session_node_timing(s, i, NULL, NULL, &ns);
		row[i] = ns / 1e6;
		t->run_ms[t->runs] += row[i];
	}
	t->runs++;
}

/* How many of the slowest nodes --profile prints (--nodes N). */
static int slowest = 12;

/* The slowest nodes by median (scratch: v, one double per run). */
static void print_slowest(enpu_rt_session *s, const struct node_times *t,
			  double *v)
{
	struct top { size_t node; double median, best; } *top;
	int count = 0;

	top = calloc((size_t)slowest, sizeof(*top));
	if (!top)
		return;

	for (size_t i = 0; i < t->nodes; i++) {
		double med, fast;
		int at;

		for (int r = 0; r < t->runs; r++)
			v[r] = t->ms[(size_t)r * t->nodes + i];
		fast = best(v, t->runs);
		med = median(v, t->runs);
		for (at = count; at > 0 && top[at - 1].median < med; at--)
			if (at < slowest)
				top[at] = top[at - 1];
		if (at < slowest) {
			top[at].node = i;
			top[at].median = med;
			top[at].best = fast;
			if (count < slowest)
				count++;
		}
	}
	printf("    slowest nodes:\n");
	for (int i = 0; i < count; i++) {
		const char *name, *op;

		enpu_rt_session_node_timing(s, top[i].node, &name, &op, NULL);
		printf("      %-30.30s %-14s %9.3f %9.3f\n", name, op,
		       top[i].median, top[i].best);
	}
	free(top);
}

static void print_profile(enpu_rt_session *s, struct node_times *t,
			  double run_median)
{
	struct { const char *op; double median, best; int nodes; } types[64];
	double *v = malloc((size_t)t->runs * sizeof(double));
	double median_sum = 0, best_sum = 0;
	int count = 0;

	if (!v || !t->runs) {
		free(v);
		return;
	}
	for (size_t i = 0; i < t->nodes; i++) {
		const char *op;
		int n = 0;
		double med;

		if (enpu_rt_session_node_timing(s, i, NULL, &op, NULL))
			continue;
		while (n < count && strcmp(types[n].op, op))
			n++;
		if (n == count) {
			if (count == 64)
				continue;
			types[count].op = op;
			types[count].median = types[count].best = 0;
			types[count++].nodes = 0;
		}
		for (int r = 0; r < t->runs; r++)
			v[r] = t->ms[(size_t)r * t->nodes + i];
		types[n].best += best(v, t->runs);
		med = median(v, t->runs);
		types[n].median += med;
		types[n].nodes++;
		median_sum += med;
		best_sum += best(v, t->runs);
	}
	for (int i = 0; i < count; i++)
		for (int j = i + 1; j < count; j++)
			if (types[j].median > types[i].median) {
				__typeof__(types[0]) tmp = types[i];

				types[i] = types[j];
				types[j] = tmp;
			}
	printf("    %-24s %9s %9s %9s\n", "op (per-node sums)", "median",
	       "best", "share");
	for (int i = 0; i < count; i++)
		printf("    %-18s %3d nodes %9.3f %9.3f %8.1f %%\n", types[i].op,
		       types[i].nodes, types[i].median, types[i].best,
		       median_sum > 0 ? 100 * types[i].median / median_sum : 0);
	print_slowest(s, t, v);
	memcpy(v, t->run_ms, (size_t)t->runs * sizeof(double));
	printf("    nodes' medians %.3f ms, bests %.3f ms, median of the "
	       "per-run node sums %.3f ms;\n    run median %.3f ms: %.3f ms "
	       "(%.1f %%) outside the nodes\n", median_sum, best_sum,
	       median(v, t->runs), run_median, run_median - median(v, t->runs),
	       run_median > 0 ? 100 * (run_median - median(v, t->runs)) /
	       run_median : 0);
	printf("    minor page faults per run: %.1f\n",
	       (double)t->faults / t->runs);
	free(v);
}

static int profile;
static const char *script_path;
static int gap_ms = 20;

/*
 * An idle pause before each timed run. A thread pool spins for a while
 * after its work before it sleeps, so without the pause the side that
 * just ran keeps a core busy through the start of the other side's run,
 * which a 2-thread run needs all of.
 */
static void idle_gap(void)
{
	struct timespec ts = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };

	if (gap_ms > 0)
		nanosleep(&ts, NULL);
}

/* One thread count of one model: our session and an ORT worker. */
struct side {
	enpu_rt_session *s;
	enpu_rt_options *options;
	struct mio_ort ort;
	int ort_started;
	struct node_times times;
	double ours[MAX_RUNS], theirs[MAX_RUNS];
};

static int side_open(struct side *sd, const char *model,
		     const char *input_dir, size_t m, int threads,
		     void **data, size_t *bytes, int runs)
{
	struct mio_input in[MIO_MAX_INPUTS];
	int count = mio_parse_inputs(models[m].inputs, in, MIO_MAX_INPUTS);
	char path[4096];

	if (mio_ort_start(&sd->ort, script_path, model, input_dir, threads))
		return -1;
	sd->ort_started = 1;
	enpu_rt_options_create(&sd->options);
	enpu_rt_options_set_threads(sd->options, (unsigned)threads);
	if (enpu_rt_session_create_from_file(model, sd->options, &sd->s)) {
		fprintf(stderr, "float-bench: %s: %s\n", model,
			enpu_rt_options_error(sd->options));
		return -1;
	}
	for (int i = 0; i < count; i++) {
		size_t index = (size_t)i;

		snprintf(path, sizeof(path), "%s/input_%d.bin", input_dir, i);
		if (!data[i])
			data[i] = mio_read_file(path, &bytes[i]);
		enpu_rt_session_find_input(sd->s, in[i].name, &index);
		if (!data[i] || enpu_rt_session_bind_input(sd->s, index,
				in[i].dtype, (size_t)in[i].rank, in[i].dims,
				data[i], bytes[i])) {
			fprintf(stderr, "float-bench: %s: bind: %s\n", model,
				enpu_rt_session_error(sd->s));
			return -1;
		}
	}
	if (profile && node_times_init(&sd->times, sd->s, runs))
		return -1;
	return 0;
}

static void side_close(struct side *sd)
{
	free(sd->times.ms);
	free(sd->times.run_ms);
	enpu_rt_session_destroy(sd->s);
	enpu_rt_options_destroy(sd->options);
	if (sd->ort_started)
		mio_ort_stop(&sd->ort);
}

/* One timed run of ours, then one of ORT's, each after an idle gap. */
static int side_run(struct side *sd, int i)
{
	struct rusage before, after;
	double start;

	idle_gap();
	getrusage(RUSAGE_SELF, &before);
	start = now_ms();
	if (enpu_rt_session_run(sd->s))
		return -1;
	sd->ours[i] = now_ms() - start;
	getrusage(RUSAGE_SELF, &after);
	sd->times.faults += after.ru_minflt - before.ru_minflt;
	if (profile)
		node_times_record(&sd->times, sd->s);
	idle_gap();
	sd->theirs[i] = mio_ort_run(&sd->ort);
	return sd->theirs[i] < 0 ? -1 : 0;
}

/*
 * Every thread count of one model and precision in one loop (ours at 1
 * thread, ORT at 1, ours at 2, ORT at 2, ...), so that the speed-up from
 * 1 to 2 threads compares runs under the same load, as the ratio to ORT
 * does.
 */
static int bench_model(const char *dir, size_t m, const char *precision,
		       const int *threads, int n_threads, int runs,
		       int warmup, struct row *rows)
{
	char model[4096], input_dir[4096];
	void *data[MIO_MAX_INPUTS] = { 0 };
	size_t bytes[MIO_MAX_INPUTS] = { 0 };
	struct side *sides = calloc((size_t)n_threads, sizeof(*sides));
	int status = -1;

	snprintf(input_dir, sizeof(input_dir), "%s/%s", dir, models[m].name);
	snprintf(model, sizeof(model), "%s/%s.onnx", input_dir, precision);
	for (int t = 0; t < n_threads; t++) {
		memset(&rows[t], 0, sizeof(rows[t]));
		rows[t].model = models[m].name;
		rows[t].precision = precision;
		rows[t].threads = threads[t];
	}
	if (!sides)
		return -1;
	for (int t = 0; t < n_threads; t++)
		if (side_open(&sides[t], model, input_dir, m, threads[t], data,
			      bytes, runs))
			goto out;
	for (int i = 0; i < warmup; i++)
		for (int t = 0; t < n_threads; t++)
			if (enpu_rt_session_run(sides[t].s) ||
			    mio_ort_run(&sides[t].ort) < 0) {
				fprintf(stderr, "float-bench: %s: %s\n", model,
					enpu_rt_session_error(sides[t].s));
				goto out;
			}
	for (int i = 0; i < runs; i++)
		for (int t = 0; t < n_threads; t++)
			if (side_run(&sides[t], i)) {
				fprintf(stderr, "float-bench: %s: %s\n", model,
					enpu_rt_session_error(sides[t].s));
				goto out;
			}
	for (int t = 0; t < n_threads; t++) {
		struct side *sd = &sides[t];
		struct row *row = &rows[t];

		row->ours_best = best(sd->ours, runs);
		row->ort_best = best(sd->theirs, runs);
		row->ours = median(sd->ours, runs);
		row->ort = median(sd->theirs, runs);
		if (mio_ort_dump(&sd->ort, input_dir, "ort"))
			goto out;
		row->diff = output_diff(sd->s, input_dir, "ort");
		/*
		 * The float model's outputs (ORT's, 1 thread) are what both
		 * int8 runs approximate: dumped by the float rows (which run
		 * first), read by the int8 rows.
		 */
		if (!strcmp(precision, "float") && t == 0 &&
		    mio_ort_dump(&sd->ort, input_dir, "float"))
			goto out;
		if (!strcmp(precision, "int8")) {
			row->ours_to_float = output_diff(sd->s, input_dir,
							 "float");
			row->ort_to_float = ort_diff(
				enpu_rt_session_output_count(sd->s),
				input_dir, "float");
		}
		row->ok = 1;
		if (profile) {
			printf("  profile of the %d runs, %s %s, %d thread(s), "
			       "ms:\n", runs, models[m].name, precision,
			       threads[t]);
			print_profile(sd->s, &sd->times, row->ours);
		}
	}
	status = 0;
out:
	for (int t = 0; t < n_threads; t++)
		side_close(&sides[t]);
	for (int i = 0; i < MIO_MAX_INPUTS; i++)
		free(data[i]);
	free(sides);
	return status;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *only = NULL;
	int threads[8] = { 1, 2 }, n_threads = 2, runs = 20, warmup = 3;
	static struct row rows[64];
	int n_rows = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--write") && i + 1 < argc)
			return write_models(argv[++i]);
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--ort-script") && i + 1 < argc)
			script_path = argv[++i];
		else if (!strcmp(argv[i], "--models") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
			warmup = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--gap-ms") && i + 1 < argc)
			gap_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
			slowest = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			char *p = argv[++i];

			for (n_threads = 0; *p && n_threads < 8; n_threads++) {
				threads[n_threads] = (int)strtol(p, &p, 10);
				if (*p == ',')
					p++;
			}
		} else {
			fprintf(stderr, "usage: %s --write DIR | --dir DIR "
				"--ort-script FILE [--models LIST] [--threads "
				"LIST] [--runs N] [--warmup N] [--gap-ms N] "
				"[--profile [--nodes N]]\n", argv[0]);
			return 2;
		}
	}
	if (!dir || !script_path || runs < 1 || runs > MAX_RUNS ||
	    slowest < 1) {
		fprintf(stderr, "float-bench: --dir and --ort-script are needed\n");
		return 2;
	}
	printf("End to end, median of %d alternating runs (ours, ONNX Runtime, "
	       "...) after %d warm-ups; ratio = ours / ORT (< 1: ours faster);\n"
	       "best = the fastest of the runs (what a loaded machine moves "
	       "least); diff = largest |ours - ORT|\nover the outputs, "
	       "relative to the largest |ORT| output.\n\n", runs, warmup);
	printf("%-12s %-6s %7s %10s %10s %7s %10s %10s %7s %10s\n", "model",
	       "type", "threads", "ours ms", "ORT ms", "ratio", "ours best",
	       "ORT best", "ratio", "diff");
	for (size_t m = 0; m < MODEL_COUNT; m++) {
		if (only && !strstr(only, models[m].name))
			continue;
		for (int p = 0; p < 2; p++) {
			struct row *r0 = &rows[n_rows];

			n_rows += n_threads;
			if (bench_model(dir, m, p ? "int8" : "float", threads,
					n_threads, runs, warmup, r0)) {
				printf("%-12s %-6s   failed\n", models[m].name,
				       p ? "int8" : "float");
				continue;
			}
			for (struct row *r = r0; r < r0 + n_threads; r++)
				printf("%-12s %-6s %7d %10.3f %10.3f %7.2f "
				       "%10.3f %10.3f %7.2f %10.2e\n",
				       r->model, r->precision, r->threads,
				       r->ours, r->ort, r->ours / r->ort,
				       r->ours_best, r->ort_best,
				       r->ours_best / r->ort_best, r->diff);
			fflush(stdout);
		}
	}
	printf("\nint8 against the float model (ONNX Runtime's float "
	       "outputs), largest |d| relative to the\nlargest |float| output "
	       "(the int8 rows' diff above is the two int8 runs' against "
	       "each other):\n");
	for (int i = 0; i < n_rows; i++)
		if (rows[i].ok && !strcmp(rows[i].precision, "int8"))
			printf("%-12s %d thread(s): ours %.2e, ORT %.2e\n",
			       rows[i].model, rows[i].threads,
			       rows[i].ours_to_float, rows[i].ort_to_float);
	printf("\nSpeed-up from 1 to %d threads (1-thread / %d-thread time, "
	       "median and best):\n", threads[n_threads - 1],
	       threads[n_threads - 1]);
	for (int i = 0; i + n_threads - 1 < n_rows; i += n_threads) {
		const struct row *a = &rows[i], *b = &rows[i + n_threads - 1];

		if (a->ok && b->ok)
			printf("%-12s %-6s ours %.2fx (best %.2fx), ORT %.2fx "
			       "(best %.2fx)\n", a->model, a->precision,
			       a->ours / b->ours, a->ours_best / b->ours_best,
			       a->ort / b->ort, a->ort_best / b->ort_best);
	}
	return 0;
}
