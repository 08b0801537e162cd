// SPDX-License-Identifier: MIT
/*
 * enpu-run: runs an ONNX model with the runtime, placed on the backends
 * asked for (the NPU through the kernel driver, the CPU for the rest),
 * and prints its outputs, its plan and its timings.
 *
 *   enpu-run model.onnx [--input [name=]file.pb]... [--random [SEED]]
 *            [--backends npu,cpu] [--strict] [--plan] [--iterations N]
 *            [--compare cpu] [--top K] [--threads N] [--isa NAME]
 *            [--no-optimize] [--profile] [--min-partition N]
 *            [--max-partitions N] [--device PATH] [--cache-dir DIR]
 *            [--no-cost] [--pipeline] [--input-buffer vgem|udmabuf]
 *            [--thermal [--thermal-root DIR] [--thermal-poll-ms N]
 *             [--latency-target-ms N] [--prefer latency|balanced|energy]]
 *            [--verbose]
 *
 * --pipeline runs the iterations again double-buffered on two sessions
 * (frame N+1's CPU work and submit while the NPU runs frame N) and checks
 * every frame against the sequential run; --input-buffer KIND runs them
 * again with input 0 bound as a dma-buf of that exporter (the NPU
 * imports it: no copy at the seam) and checks the outputs against the
 * run with the input in host memory (copied into a staging BO).
 * Inputs without a file are zero-filled, or random with --random (symbolic
 * dims taken as 1). Input files are serialized ONNX TensorProtos, as in
 * the ONNX test suite; --input FILE without a name binds the first input.
 * Exit status: 0, 1 on any error (message on stderr), 2 on bad usage, 3
 * when --compare, --pipeline or --input-buffer finds a difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

struct args {
	const char *model, *isa, *backends, *compare, *device, *cache_dir;
	struct run_input_file files[RUN_MAX_FILES];
	size_t file_count;
	unsigned int threads;
	int iterations, optimize, profile, plan, strict, random, no_cost;
	int pipeline, input_buffer;
	enum run_buffer_kind buffer_kind;
	uint32_t seed;
	size_t top_k;
	long min_partition, max_partitions;
	struct run_thermal_args thermal;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s model.onnx [--input [name=]file.pb]... "
		"[--random [SEED]] [--backends npu,cpu] [--strict] [--plan] "
		"[--iterations N] [--compare cpu] [--top K] [--threads N] "
		"[--isa NAME] [--no-optimize] [--profile] "
		"[--min-partition N] [--max-partitions N] [--device PATH] "
		"[--cache-dir DIR] [--no-cost] [--pipeline] "
		"[--input-buffer vgem|udmabuf] "
		"[--thermal [--thermal-root DIR] [--thermal-poll-ms N] "
		"[--latency-target-ms N] [--prefer latency|balanced|energy]] "
		"[--verbose]\n", argv0);
}

static int parse(int argc, char **argv, struct args *a)
{
	memset(a, 0, sizeof(*a));
	a->threads = 1;
	a->iterations = 1;
	a->optimize = 1;
	a->seed = 1;
	a->min_partition = -1;
	a->max_partitions = -1;
	a->thermal.poll_ms = 1000;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int more = i + 1 < argc;

		if (!strcmp(arg, "--input") && more) {
			char *eq = strchr(argv[++i], '=');

			if (a->file_count == RUN_MAX_FILES)
				return -1;
			a->files[a->file_count].name = eq ? argv[i] : NULL;
			a->files[a->file_count++].path = eq ? eq + 1 : argv[i];
			if (eq)
				*eq = 0;
		} else if (!strcmp(arg, "--random")) {
			a->random = 1;
			if (more && argv[i + 1][0] >= '0' &&
			    argv[i + 1][0] <= '9')
				a->seed = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(arg, "--backends") && more) {
			a->backends = argv[++i];
		} else if (!strcmp(arg, "--device") && more) {
			a->device = argv[++i];
		} else if (!strcmp(arg, "--cache-dir") && more) {
			a->cache_dir = argv[++i];
		} else if (!strcmp(arg, "--compare") && more) {
			a->compare = argv[++i];
		} else if (!strcmp(arg, "--top") && more) {
			a->top_k = (size_t)atoi(argv[++i]);
		} else if (!strcmp(arg, "--strict")) {
			a->strict = 1;
		} else if (!strcmp(arg, "--plan")) {
			a->plan = 1;
		} else if ((!strcmp(arg, "--iterations") ||
			    !strcmp(arg, "--repeat")) && more) {
			a->iterations = atoi(argv[++i]);
		} else if (!strcmp(arg, "--threads") && more) {
			a->threads = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(arg, "--isa") && more) {
			a->isa = argv[++i];
		} else if (!strcmp(arg, "--min-partition") && more) {
			a->min_partition = atol(argv[++i]);
		} else if (!strcmp(arg, "--max-partitions") && more) {
			a->max_partitions = atol(argv[++i]);
		} else if (!strcmp(arg, "--thermal")) {
			a->thermal.enabled = 1;
		} else if (!strcmp(arg, "--verbose")) {
			a->thermal.verbose = 1;
		} else if (!strcmp(arg, "--thermal-root") && more) {
			a->thermal.root = argv[++i];
		} else if (!strcmp(arg, "--thermal-poll-ms") && more) {
			a->thermal.poll_ms = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(arg, "--latency-target-ms") && more) {
			a->thermal.latency_target_us =
				(uint32_t)(strtod(argv[++i], NULL) * 1000);
		} else if (!strcmp(arg, "--prefer") && more) {
			const char *p = argv[++i];

			if (!strcmp(p, "balanced"))
				a->thermal.preference = 0;
			else if (!strcmp(p, "latency"))
				a->thermal.preference = 1;
			else if (!strcmp(p, "energy"))
				a->thermal.preference = 2;
			else
				return -1;
		} else if (!strcmp(arg, "--pipeline")) {
			a->pipeline = 1;
		} else if (!strcmp(arg, "--input-buffer") && more) {
			a->input_buffer = 1;
			if (run_buffer_kind_parse(argv[++i], &a->buffer_kind))
				return -1;
		} else if (!strcmp(arg, "--no-cost")) {
			a->no_cost = 1;
		} else if (!strcmp(arg, "--no-optimize")) {
			a->optimize = 0;
		} else if (!strcmp(arg, "--profile")) {
			a->profile = 1;
		} else if (arg[0] != '-' && !a->model) {
			a->model = arg;
		} else {
			return -1;
		}
	}
	return a->model && a->iterations >= 1 ? 0 : -1;
}

static enpu_rt_session *load(const struct args *a, const char *backends,
			     double *ms)
{
	enpu_rt_options *o = NULL;
	enpu_rt_session *s = NULL;
	double start = now_ms();

	if (enpu_rt_options_create(&o) ||
	    enpu_rt_options_set_threads(o, a->threads) ||
	    (a->isa && enpu_rt_options_set_isa(o, a->isa)) ||
	    enpu_rt_options_set_optimize(o, a->optimize) ||
	    (backends && enpu_rt_options_set_backends(o, backends)) ||
	    enpu_rt_options_set_strict(o, a->strict) ||
	    enpu_rt_options_set_device_time(o, 1) ||
	    (a->device && enpu_rt_options_set_device(o, a->device)) ||
	    enpu_rt_options_set_cost_placement(o, !a->no_cost) ||
	    (a->cache_dir && enpu_rt_options_set_cache_dir(o, a->cache_dir)) ||
	    ((a->min_partition >= 0 || a->max_partitions >= 0) &&
	     enpu_rt_options_set_partitioning(
		o, a->min_partition >= 0 ? (size_t)a->min_partition : 2,
		a->max_partitions >= 0 ? (size_t)a->max_partitions : 16))) {
		fprintf(stderr, "enpu-run: %s\n", enpu_rt_options_error(o));
		enpu_rt_options_destroy(o);
		return NULL;
	}
	if (enpu_rt_session_create_from_file(a->model, o, &s))
		fprintf(stderr, "enpu-run: %s: %s\n", a->model,
			enpu_rt_options_error(o));
	enpu_rt_options_destroy(o);
	if (ms)
		*ms = now_ms() - start;
	return s;
}

static int run_times(enpu_rt_session *s, int iterations, double *best,
		     double *mean)
{
	double total = 0;

	*best = 1e300;
	for (int r = 0; r < iterations; r++) {
		double start = now_ms(), ms;

		if (enpu_rt_session_run(s)) {
			fprintf(stderr, "enpu-run: %s\n",
				enpu_rt_session_error(s));
			return -1;
		}
		ms = now_ms() - start;
		total += ms;
		if (ms < *best)
			*best = ms;
	}
	*mean = total / iterations;
	return 0;
}

/* Copies of the first outputs of a run, to compare frames with. */
#define SNAPSHOT_MAX 64
struct snapshot {
	size_t count;
	void *data[SNAPSHOT_MAX];
	size_t size[SNAPSHOT_MAX];
};

static void snapshot_free(struct snapshot *snap)
{
	for (size_t i = 0; i < snap->count; i++)
		free(snap->data[i]);
	snap->count = 0;
}

static int snapshot_take(const enpu_rt_session *s, struct snapshot *snap)
{
	snap->count = 0;
	for (size_t i = 0; i < enpu_rt_session_output_count(s) &&
	     i < SNAPSHOT_MAX; i++) {
		struct enpu_rt_output out;

		if (enpu_rt_session_output(s, i, &out))
			return -1;
		snap->data[i] = malloc(out.byte_size ? out.byte_size : 1);
		if (!snap->data[i])
			return -1;
		memcpy(snap->data[i], out.data, out.byte_size);
		snap->size[i] = out.byte_size;
		snap->count = i + 1;
	}
	return 0;
}

/* Index of the first output of @s that differs from @snap, or -1. */
static long snapshot_differs(const enpu_rt_session *s,
			     const struct snapshot *snap)
{
	for (size_t i = 0; i < snap->count; i++) {
		struct enpu_rt_output out;

		if (enpu_rt_session_output(s, i, &out) ||
		    out.byte_size != snap->size[i] ||
		    memcmp(out.data, snap->data[i], out.byte_size))
			return (long)i;
	}
	return -1;
}

/*
 * Double buffering on two sessions: frame i's run_async (CPU work before
 * the NPU, then its submit) on one while the other's NPU job of frame i-1
 * runs, then frame i-1's run_wait. Every frame's outputs must equal
 * @want (the same input ran sequentially). ms per frame; the number of
 * frames that differed in @bad.
 */
static int run_pipelined(enpu_rt_session *const s[2], int iterations,
			 const struct snapshot *want, double *per_frame,
			 int *bad)
{
	double start = now_ms();

	*bad = 0;
	for (int i = 0; i <= iterations; i++) {
		enpu_rt_session *prev = s[(i + 1) % 2];
		long differs;

		if (i < iterations && enpu_rt_session_run_async(s[i % 2])) {
			fprintf(stderr, "enpu-run: pipelined frame %d: %s\n",
				i, enpu_rt_session_error(s[i % 2]));
			if (i)
				enpu_rt_session_run_wait(prev);
			return -1;
		}
		if (!i)
			continue;
		if (enpu_rt_session_run_wait(prev)) {
			fprintf(stderr, "enpu-run: pipelined frame %d: %s\n",
				i - 1, enpu_rt_session_error(prev));
			if (i < iterations)
				enpu_rt_session_run_wait(s[i % 2]);
			return -1;
		}
		differs = snapshot_differs(prev, want);
		if (differs >= 0) {
			fprintf(stderr, "enpu-run: pipelined frame %d: output "
				"%ld differs from the sequential run\n", i - 1,
				differs);
			++*bad;
		}
	}
	*per_frame = (now_ms() - start) / iterations;
	return 0;
}

/*
 * --input-buffer: the iterations again with input 0 bound as a dma-buf
 * of @a's kind instead of the host memory the first run staged. Prints
 * what each way copied at the seams; best and mean become the dma-buf
 * run's. 1 when every output equals the host-memory run's bit for bit,
 * 0 when one differs, -1 on an error.
 */
static int input_buffer_run(const struct args *a, enpu_rt_session *s,
			    const struct run_inputs *inputs,
			    struct run_dmabuf *d, double *best, double *mean)
{
	struct snapshot copied = { 0 };
	uint64_t host_bytes = run_seam_copies(s);
	long differs;

	if (snapshot_take(s, &copied)) {
		snapshot_free(&copied);
		fprintf(stderr, "enpu-run: out of memory\n");
		return -1;
	}
	if (run_inputs_bind_dmabuf(inputs, s, a->buffer_kind, d) ||
	    run_times(s, a->iterations, best, mean)) {
		snapshot_free(&copied);
		return -1;
	}
	differs = snapshot_differs(s, &copied);
	snapshot_free(&copied);
	printf("input 0 bound as a dma-buf (%s, %zu bytes): %llu bytes "
	       "copied at seams, %llu with the input in host memory\n",
	       run_buffer_kind_name(a->buffer_kind), inputs->inputs[0].byte_size,
	       (unsigned long long)run_seam_copies(s),
	       (unsigned long long)host_bytes);
	if (differs >= 0) {
		printf("dma-buf input: output %ld differs from the host-memory "
		       "input's run\n", differs);
		return 0;
	}
	printf("dma-buf input: outputs equal the host-memory input's run\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct run_inputs inputs = { 0 };
	enpu_rt_session *session = NULL, *reference = NULL, *second = NULL;
	struct run_dmabuf dmabuf = RUN_DMABUF_INIT;
	double load_ms, best, mean;
	struct args a;
	int rc = 1, differs = 0;

	if (parse(argc, argv, &a)) {
		usage(argv[0]);
		return 2;
	}
	if (a.thermal.enabled)
		return run_thermal(&a.thermal, a.model, a.files, a.file_count,
				   a.random, a.seed, a.threads, a.iterations);
	session = load(&a, a.backends, &load_ms);
	if (!session)
		goto out;
	run_print_backends(session);
	if (a.plan)
		run_print_plan(session);
	if (run_inputs_bind(session, a.files, a.file_count, a.random, a.seed,
			    &inputs) ||
	    run_times(session, a.iterations, &best, &mean))
		goto out;
	if (a.input_buffer) {
		int same = input_buffer_run(&a, session, &inputs, &dmabuf,
					    &best, &mean);

		if (same < 0)
			goto out;
		differs |= !same;
	}
	run_print_outputs(session, a.top_k);
	run_print_partition_times(session);
	if (a.profile)
		run_print_profile(session);
	printf("load %.3f ms, %zu nodes in %zu partition(s), run best %.3f ms,"
	       " mean %.3f ms over %d run(s), %u thread(s)\n", load_ms,
	       enpu_rt_session_node_count(session),
	       enpu_rt_session_partition_count(session), best, mean,
	       a.iterations, a.threads);
	if (a.pipeline) {
		enpu_rt_session *pair[2];
		struct snapshot want = { 0 };
		double per_frame, sequential = mean;
		int bad;

		second = load(&a, a.backends, NULL);
		if (!second || run_inputs_rebind(&inputs, second) ||
		    (a.input_buffer &&
		     run_inputs_bind_dmabuf(&inputs, second, a.buffer_kind,
					    &dmabuf)))
			goto out;
		pair[0] = session;
		pair[1] = second;
		if (snapshot_take(session, &want) ||
		    run_pipelined(pair, a.iterations, &want, &per_frame,
				  &bad)) {
			snapshot_free(&want);
			goto out;
		}
		snapshot_free(&want);
		printf("pipeline (2 sessions, %d frames): %.3f ms per frame, "
		       "sequential %.3f ms: %.2fx the throughput\n",
		       a.iterations, per_frame, sequential,
		       per_frame > 0 ? sequential / per_frame : 0.0);
		if (bad) {
			printf("pipelined outputs: %d of %d frames differ from "
			       "the sequential run\n", bad, a.iterations);
			rc = 3;
			goto out;
		}
		printf("pipelined outputs equal the sequential run (%d "
		       "frames)\n", a.iterations);
	}
	rc = 0;
	if (a.compare) {
		struct args ref = a;

		ref.strict = 0;
		reference = load(&ref, a.compare, NULL);
		if (!reference || run_inputs_rebind(&inputs, reference) ||
		    enpu_rt_session_run(reference)) {
			if (reference)
				fprintf(stderr, "enpu-run: %s\n",
					enpu_rt_session_error(reference));
			rc = 1;
			goto out;
		}
		switch (run_compare(session, reference, a.compare)) {
		case 0:
			break;
		case 1:
			rc = 3;
			break;
		default:
			rc = 1;
		}
	}
	if (differs && !rc)
		rc = 3;
out:
	enpu_rt_session_destroy(second);
	enpu_rt_session_destroy(reference);
	enpu_rt_session_destroy(session);
	run_inputs_free(&inputs);
	run_dmabuf_destroy(&dmabuf);
	return rc;
}
