// SPDX-License-Identifier: MIT
/*
 * enpu-run: runs an ONNX model on the CPU runtime and prints its outputs
 * and timings.
 *
 *   enpu-run model.onnx [--input name=file.pb]... [--threads N]
 *            [--isa auto|scalar|avx2|avx512vnni|neon|neondot|neoni8mm] [--repeat N]
 *            [--no-optimize] [--profile]
 *
 * Inputs without a file are zero-filled (symbolic dims taken as 1).
 * Input files are serialized ONNX TensorProtos, as in the ONNX test suite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu/enpu_rt.h"
#include "onnx_loader.h"
#include "rt_op.h"

struct input_file {
	const char *name;
	const char *path;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s model.onnx [--input name=file.pb]... "
		"[--threads N] [--isa NAME] [--repeat N] [--no-optimize] "
		"[--profile]\n", argv0);
}

static void print_output(const char *name, const struct enpu_rt_output *out)
{
	struct rt_tensor t = {
		.dtype = out->dtype, .rank = (int32_t)out->rank,
		.data = (void *)out->data, .byte_size = out->byte_size,
	};
	size_t n = 0;
	char shape[256];

	memcpy(t.dims, out->dims, sizeof(t.dims));
	n = rt_tensor_elements(&t);
	printf("output '%s': %s %s\n  ", name, enpu_rt_dtype_name(out->dtype),
	       rt_shape_string(&t, shape, sizeof(shape)));
	for (size_t i = 0; i < n && i < 16; i++)
		printf("%s%.6g", i ? " " : "", rt_tensor_get_double(&t, i));
	printf("%s\n", n > 16 ? " ..." : "");
}

int main(int argc, char **argv)
{
	struct input_file files[64];
	size_t file_count = 0;
	const char *model = NULL, *isa = NULL;
	unsigned int threads = 1;
	int repeat = 1, optimize = 1, profile = 0, rc = 1;
	enpu_rt_options *options = NULL;
	enpu_rt_session *session = NULL;
	struct rt_arena arena = { 0 };
	void **zeroed = NULL;
	size_t inputs;
	double load_start, load_ms, best = 1e300, total = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--input") && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');

			if (!eq || file_count == 64) {
				usage(argv[0]);
				return 2;
			}
			*eq = 0;
			files[file_count].name = argv[i];
			files[file_count++].path = eq + 1;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
			isa = argv[++i];
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			repeat = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--no-optimize")) {
			optimize = 0;
		} else if (!strcmp(argv[i], "--profile")) {
			profile = 1;
		} else if (argv[i][0] != '-' && !model) {
			model = argv[i];
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	if (!model || repeat < 1) {
		usage(argv[0]);
		return 2;
	}
	if (enpu_rt_options_create(&options) ||
	    enpu_rt_options_set_threads(options, threads) ||
	    (isa && enpu_rt_options_set_isa(options, isa)) ||
	    enpu_rt_options_set_optimize(options, optimize)) {
		fprintf(stderr, "enpu-run: %s\n", enpu_rt_options_error(options));
		goto out;
	}
	load_start = now_ms();
	if (enpu_rt_session_create_from_file(model, options, &session)) {
		fprintf(stderr, "enpu-run: %s: %s\n", model,
			enpu_rt_options_error(options));
		goto out;
	}
	load_ms = now_ms() - load_start;
	arena.limit = (size_t)1 << 32;
	inputs = enpu_rt_session_input_count(session);
	zeroed = calloc(inputs + 1, sizeof(*zeroed));
	if (!zeroed)
		goto out;
	for (size_t f = 0; f < file_count; f++) {
		struct rt_error_sink errors = { .status = 0 };
		struct rt_tensor t;
		void *data;
		size_t size, index;
		int status;

		if (enpu_rt_session_find_input(session, files[f].name,
					       &index)) {
			fprintf(stderr, "enpu-run: the model has no input "
				"'%s'\n", files[f].name);
			goto out;
		}
		status = rt_read_file(files[f].path, (size_t)1 << 31, &data,
				      &size, &errors);
		if (!status) {
			status = rt_onnx_parse_tensor(data, size, &arena, &t,
						      &errors);
			free(data);
		}
		if (status) {
			fprintf(stderr, "enpu-run: %s: %s\n", files[f].path,
				errors.message);
			goto out;
		}
		if (enpu_rt_session_bind_input(session, index, t.dtype,
					       (size_t)t.rank, t.dims, t.data,
					       t.byte_size)) {
			fprintf(stderr, "enpu-run: %s\n",
				enpu_rt_session_error(session));
			goto out;
		}
		zeroed[index] = (void *)1;	/* bound from a file */
	}
	for (size_t i = 0; i < inputs; i++) {
		struct enpu_rt_tensor_info info;
		size_t elements = 1;

		if (zeroed[i])
			continue;
		enpu_rt_session_input_info(session, i, &info);
		if (info.rank < 0)
			info.rank = 0;
		for (int d = 0; d < info.rank; d++) {
			if (info.dims[d] < 0)
				info.dims[d] = 1;
			elements *= (size_t)info.dims[d];
		}
		size_t size = elements * enpu_rt_dtype_size(info.dtype);

		zeroed[i] = rt_arena_alloc(&arena, size + 1);
		if (!zeroed[i] ||
		    enpu_rt_session_bind_input(session, i, info.dtype,
					       (size_t)info.rank, info.dims,
					       zeroed[i], size)) {
			fprintf(stderr, "enpu-run: input '%s': %s\n", info.name,
				enpu_rt_session_error(session));
			goto out;
		}
		printf("input '%s': zero-filled\n", info.name);
	}
	for (int r = 0; r < repeat; r++) {
		double start = now_ms(), ms;

		if (enpu_rt_session_run(session)) {
			fprintf(stderr, "enpu-run: %s\n",
				enpu_rt_session_error(session));
			goto out;
		}
		ms = now_ms() - start;
		total += ms;
		if (ms < best)
			best = ms;
	}
	for (size_t o = 0; o < enpu_rt_session_output_count(session); o++) {
		struct enpu_rt_tensor_info info;
		struct enpu_rt_output out;

		enpu_rt_session_output_info(session, o, &info);
		enpu_rt_session_output(session, o, &out);
		print_output(info.name, &out);
	}
	if (profile) {
		for (size_t n = 0; n < enpu_rt_session_node_count(session);
		     n++) {
			const char *name, *op;
			uint64_t ns;

			enpu_rt_session_node_timing(session, n, &name, &op,
						    &ns);
			printf("  %10.3f ms  %-20s %s\n", (double)ns / 1e6, op,
			       name);
		}
	}
	printf("load %.3f ms, %zu nodes after optimization, run best %.3f ms, "
	       "mean %.3f ms over %d run(s), %u thread(s)\n", load_ms,
	       enpu_rt_session_node_count(session), best, total / repeat,
	       repeat, threads);
	rc = 0;
out:
	free(zeroed);
	rt_arena_free_all(&arena);
	enpu_rt_session_destroy(session);
	enpu_rt_options_destroy(options);
	return rc;
}
