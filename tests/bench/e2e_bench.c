// SPDX-License-Identifier: MIT
/*
 * End-to-end latency of the int8 MobileNetV2-shaped QDQ model
 * (tests/rt/mobilenet_model.h) through the ENPU runtime, next to ONNX
 * Runtime's numbers (ort_e2e_bench.js, read with --ort).
 *
 *   e2e-bench --write-model PATH [--size N] [--width W] [--classes N]
 *             [--uint8-input]           (uint8 frame in, no QuantizeLinear)
 *             [--last N]                write the model and exit
 *   e2e-bench --model PATH [--threads LIST] [--runs N] [--warmup N]
 *             [--profile] [--ort FILE --ort-version V] [--compare FILE]
 *
 * Latency is the median of --runs single-image runs after --warmup runs.
 * --profile adds, per thread count, the time per op type (sum over the
 * runs of enpu_rt_session_node_timing(), as a share of the total) and
 * the slowest nodes. --compare FILE checks our logits against ONNX
 * Runtime's (ort_e2e_bench.js --dump) for the same input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu/enpu_rt.h"
#include "mobilenet_model.h"

#define MAX_THREADS 8
#define MAX_TYPES 64

struct ort_result {
	int threads;
	double ms, best;
};

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

static int write_model(const char *path, const struct mobilenet_config *cfg)
{
	struct model_builder mb;
	uint8_t *bytes;
	size_t size;
	FILE *f;
	int ok;

	mb_init(&mb, 13);
	mobilenet_build(&mb, cfg);
	bytes = mb_pack(&mb, &size);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "e2e-bench: %s: %s\n", path, strerror(errno));
		mb_free(&mb);
		return 1;
	}
	ok = fwrite(bytes, 1, size, f) == size;
	ok &= fclose(f) == 0;
	mb_free(&mb);
	if (!ok) {
		fprintf(stderr, "e2e-bench: writing %s failed\n", path);
		return 1;
	}
	return 0;
}

struct type_time {
	const char *op;
	double ns;
	int nodes;
};

static int add_profile(enpu_rt_session *s, struct type_time *types,
		       int *count, double *total)
{
	size_t n = enpu_rt_session_node_count(s);

	for (size_t i = 0; i < n; i++) {
		const char *name, *op;
		uint64_t ns;
		int t;

		if (enpu_rt_session_node_timing(s, i, &name, &op, &ns))
			return 1;
		for (t = 0; t < *count && strcmp(types[t].op, op); t++)
			;
		if (t == *count) {
			if (*count == MAX_TYPES)
				continue;
			types[t].op = op;
			types[t].ns = 0;
			types[t].nodes = 0;
			(*count)++;
		}
		types[t].ns += (double)ns;
		types[t].nodes++;
		*total += (double)ns;
	}
	return 0;
}

/* Per node: the fastest of the runs, robust against a busy machine. */
struct node_min {
	const char *name, *op;
	double ns;
};

static int cmp_node(const void *a, const void *b)
{
	const struct node_min *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static int track_nodes(enpu_rt_session *s, struct node_min **nodes,
		       size_t *count)
{
	size_t n = enpu_rt_session_node_count(s);

	if (!*nodes) {
		*nodes = calloc(n + 1, sizeof(**nodes));
		if (!*nodes)
			return 1;
		*count = n;
		for (size_t i = 0; i < n; i++)
			(*nodes)[i].ns = 1e30;
	}
	for (size_t i = 0; i < n && i < *count; i++) {
		uint64_t ns;

		if (enpu_rt_session_node_timing(s, i, &(*nodes)[i].name,
						&(*nodes)[i].op, &ns))
			return 1;
		if ((double)ns < (*nodes)[i].ns)
			(*nodes)[i].ns = (double)ns;
	}
	return 0;
}

static int cmp_type(const void *a, const void *b)
{
	const struct type_time *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* Median latency in ms at @threads; prints the profile when asked. */
static int time_model(const char *path, unsigned int threads, int runs,
		      int warmup, int profile, double *median, double *best,
		      float *logits, size_t logit_count)
{
	enpu_rt_options *options = NULL;
	enpu_rt_session *s = NULL;
	struct enpu_rt_tensor_info info;
	struct type_time types[MAX_TYPES];
	int type_count = 0, status = 1;
	struct node_min *nodes = NULL;
	size_t node_count = 0;
	double *times = calloc((size_t)runs, sizeof(double)), total = 0;
	float *input = NULL;
	size_t count = 1;

	if (!times || enpu_rt_options_create(&options) ||
	    enpu_rt_options_set_threads(options, threads))
		goto out;
	if (enpu_rt_session_create_from_file(path, options, &s)) {
		fprintf(stderr, "e2e-bench: %s\n",
			enpu_rt_options_error(options));
		goto out;
	}
	if (enpu_rt_session_input_info(s, 0, &info))
		goto fail;
	for (int d = 0; d < info.rank; d++)
		count *= (size_t)info.dims[d];
	input = malloc(count * sizeof(float));
	if (!input)
		goto out;
	mobilenet_input(input, count, 1);
	if (enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, (size_t)info.rank,
				       info.dims, input,
				       count * sizeof(float)))
		goto fail;
	for (int i = 0; i < warmup; i++)
		if (enpu_rt_session_run(s))
			goto fail;
	for (int i = 0; i < runs; i++) {
		double start = now_ms();

		if (enpu_rt_session_run(s))
			goto fail;
		times[i] = now_ms() - start;
		if (profile && (add_profile(s, types, &type_count, &total) ||
				track_nodes(s, &nodes, &node_count)))
			goto fail;
	}
	if (logits) {
		struct enpu_rt_output out;

		if (enpu_rt_session_output(s, 0, &out))
			goto fail;
		if (out.dtype != ENPU_RT_FLOAT ||
		    out.byte_size != logit_count * sizeof(float)) {
			fprintf(stderr, "e2e-bench: output is not %zu floats\n",
				logit_count);
			goto out;
		}
		memcpy(logits, out.data, out.byte_size);
	}
	qsort(times, (size_t)runs, sizeof(double), cmp_double);
	*median = runs % 2 ? times[runs / 2] :
		  (times[runs / 2 - 1] + times[runs / 2]) / 2;
	if (best)
		*best = times[0];
	if (profile) {
		qsort(types, (size_t)type_count, sizeof(types[0]), cmp_type);
		printf("profile, %u thread%s (median %.3f ms; per run, by op "
		       "type):\n", threads, threads > 1 ? "s" : "", *median);
		for (int t = 0; t < type_count; t++)
			printf("  %-26s %4d nodes %9.3f ms %5.1f %%\n",
			       types[t].op, types[t].nodes / runs,
			       types[t].ns / runs / 1e6,
			       100.0 * types[t].ns / total);
		{
			double sum = 0;

			for (size_t i = 0; i < node_count; i++)
				sum += nodes[i].ns;
			qsort(nodes, node_count, sizeof(nodes[0]), cmp_node);
			printf("  slowest nodes (fastest of the runs; all nodes "
			       "sum to %.3f ms):\n", sum / 1e6);
			for (size_t i = 0; i < node_count && i < 12; i++)
				printf("    %-24s %-20s %8.3f ms\n",
				       nodes[i].name, nodes[i].op,
				       nodes[i].ns / 1e6);
		}
	}
	status = 0;
	goto out;
fail:
	fprintf(stderr, "e2e-bench: %s\n", enpu_rt_session_error(s));
out:
	enpu_rt_session_destroy(s);
	enpu_rt_options_destroy(options);
	free(input);
	free(times);
	free(nodes);
	return status;
}

/*
 * Our logits against ONNX Runtime's (float32 LE file from
 * ort_e2e_bench.js --dump), in steps of the int8 output's scale.
 */
static int compare(const char *model, const char *path, int64_t classes)
{
	float *ours = calloc((size_t)classes, sizeof(float));
	float *theirs = calloc((size_t)classes, sizeof(float));
	double step = mobilenet_output_scale(), worst = 0, m;
	size_t differ = 0, top_ours = 0, top_theirs = 0;
	FILE *f = fopen(path, "rb");
	int status = 1;

	if (!ours || !theirs || !f) {
		fprintf(stderr, "e2e-bench: %s: %s\n", path,
			f ? "out of memory" : strerror(errno));
		goto out;
	}
	if (fread(theirs, sizeof(float), (size_t)classes, f) !=
	    (size_t)classes) {
		fprintf(stderr, "e2e-bench: %s holds fewer than %lld floats\n",
			path, (long long)classes);
		goto out;
	}
	if (time_model(model, 1, 1, 0, 0, &m, NULL, ours, (size_t)classes))
		goto out;
	for (int64_t i = 0; i < classes; i++) {
		double d = fabs((double)ours[i] - theirs[i]) / step;

		differ += d > 0.5;
		worst = d > worst ? d : worst;
		if (ours[i] > ours[top_ours])
			top_ours = (size_t)i;
		if (theirs[i] > theirs[top_theirs])
			top_theirs = (size_t)i;
	}
	printf("logits vs ONNX Runtime (same input): %zu of %lld int8 outputs "
	       "differ, by at most %.0f quantization step%s; top-1 class %zu "
	       "vs %zu\n", differ, (long long)classes, worst,
	       worst == 1 ? "" : "s", top_ours, top_theirs);
	status = 0;
out:
	if (f)
		fclose(f);
	free(ours);
	free(theirs);
	return status;
}

static int read_ort(const char *path, struct ort_result *ort, int *count)
{
	FILE *f = fopen(path, "r");
	char line[256];

	*count = 0;
	if (!f) {
		fprintf(stderr, "e2e-bench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f) && *count < MAX_THREADS) {
		struct ort_result r;

		r.best = 0;
		if (sscanf(line, "ort_e2e %d %lf %lf", &r.threads, &r.ms,
			   &r.best) >= 2)
			ort[(*count)++] = r;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	struct mobilenet_config cfg = { 224, 1.0, 1280, 1000, 0, 0 };
	const char *model = NULL, *write = NULL, *ort_path = NULL;
	const char *ort_version = "?", *thread_list = "1,2", *cmp = NULL;
	struct ort_result ort[MAX_THREADS];
	int runs = 50, warmup = 5, profile = 0, ort_count = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--profile")) {
			profile = 1;
			continue;
		}
		if (!strcmp(a, "--uint8-input")) {
			cfg.uint8_input = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "e2e-bench: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--model"))
			model = v;
		else if (!strcmp(a, "--write-model"))
			write = v;
		else if (!strcmp(a, "--size"))
			cfg.size = atoi(v);
		else if (!strcmp(a, "--width"))
			cfg.width = atof(v);
		else if (!strcmp(a, "--classes"))
			cfg.classes = atoi(v);
		else if (!strcmp(a, "--last"))
			cfg.last_channels = atoi(v);
		else if (!strcmp(a, "--threads"))
			thread_list = v;
		else if (!strcmp(a, "--runs"))
			runs = atoi(v);
		else if (!strcmp(a, "--warmup"))
			warmup = atoi(v);
		else if (!strcmp(a, "--ort"))
			ort_path = v;
		else if (!strcmp(a, "--compare"))
			cmp = v;
		else if (!strcmp(a, "--ort-version"))
			ort_version = v;
		else {
			fprintf(stderr, "e2e-bench: unknown option %s\n", a);
			return 2;
		}
	}
	if (write)
		return write_model(write, &cfg);
	if (!model || runs < 1 || warmup < 0 || cfg.size < 1) {
		fprintf(stderr, "usage: e2e-bench --model PATH | --write-model "
			"PATH (see the source)\n");
		return 2;
	}
	if (ort_path && read_ort(ort_path, ort, &ort_count))
		return 1;
	printf("\nEnd to end: int8 MobileNetV2-shaped QDQ model (224x224x3, "
	       "uint8 activations, per-channel int8 weights), batch 1\n");
	printf("latency = median of %d runs after %d warm-up runs; ONNX "
	       "Runtime %s, CPU provider, graph optimizations all\n\n", runs,
	       warmup, ort_path ? ort_version : "not run");
	printf("%-8s %12s %12s %10s %-14s %12s %12s\n", "threads",
	       "ENPU median", "ORT median", "ORT/ENPU", "", "ENPU best",
	       "ORT best");
	for (const char *p = thread_list; *p;) {
		unsigned int threads = (unsigned int)strtoul(p, NULL, 10);
		double ours, ours_best, theirs = 0, theirs_best = 0;

		if (!threads || threads > MAX_THREADS) {
			fprintf(stderr, "e2e-bench: bad thread list %s\n",
				thread_list);
			return 2;
		}
		if (time_model(model, threads, runs, warmup, 0, &ours,
			       &ours_best, NULL, 0))
			return 1;
		for (int i = 0; i < ort_count; i++)
			if (ort[i].threads == (int)threads) {
				theirs = ort[i].ms;
				theirs_best = ort[i].best;
			}
		if (theirs > 0)
			printf("%-8u %9.3f ms %9.3f ms %9.2fx %-14s "
			       "%9.3f ms %9.3f ms\n", threads, ours, theirs,
			       theirs / ours, ours <= theirs ?
			       "(ENPU faster)" : "(ENPU SLOWER)", ours_best,
			       theirs_best);
		else
			printf("%-8u %9.3f ms %12s %10s %-14s %9.3f ms %12s\n",
			       threads, ours, "-", "-", "", ours_best, "-");
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	printf("(ratio > 1: ENPU is faster; median is the verdict, best shows "
	       "the machine's noise)\n");
	if (cmp && compare(model, cmp, cfg.classes))
		return 1;
	if (profile) {
		printf("\n");
		for (const char *p = thread_list; *p;) {
			double m;

			if (time_model(model, (unsigned int)strtoul(p, NULL, 10),
				       runs, warmup, 1, &m, NULL, NULL, 0))
				return 1;
			p = strchr(p, ',');
			if (!p)
				break;
			p++;
		}
	}
	return 0;
}
