// SPDX-License-Identifier: MIT
/*
 * int8 GEMM benchmark: our GEMM on each ISA path, oneDNN and (from a file
 * written by ort_gemm_bench.js) ONNX Runtime's QLinearMatMul, at 1 and 2
 * threads, in GOPS (2 * M * N * K operations per call) and as a fraction of
 * this CPU's AVX-512 VNNI peak.
 *
 *   gemm-bench [--ort FILE] [--seconds S]
 */
#include "bench.h"
#include "enpu_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gemm_shape shapes[] = {
	{ 1024, 1024, 1024, "square" },
	{ 256, 256, 256, "square" },
	{ 49, 1280, 320, "MobileNetV2 last 1x1" },
	{ 1, 1000, 1280, "MobileNetV2 classifier" },
	{ 3136, 24, 144, "MobileNetV2 block 2 project" },
	{ 3136, 144, 24, "MobileNetV2 block 3 expand" },
	{ 12544, 32, 27, "MobileNetV2 first conv (im2col)" },
};

static const int thread_counts[] = { 1, 2 };

#define MAX_ORT 64

struct ort_result {
	size_t m, n, k;
	int threads;
	double seconds;
};

struct our_run {
	enpu_cpu_context *context;
	struct enpu_cpu_gemm_args args;
};

static int run_ours(void *argument)
{
	struct our_run *r = argument;

	return enpu_cpu_gemm(r->context, &r->args);
}

static double gops(const struct gemm_shape *s, double seconds)
{
	return seconds > 0 ? 2.0 * (double)s->m * (double)s->n * (double)s->k /
			     seconds / 1e9 : 0.0;
}

static double bench_ours(const struct gemm_shape *s, enum enpu_cpu_isa isa,
			 int threads, double min_seconds)
{
	enpu_cpu_context *context = NULL;
	enpu_cpu_gemm_weights *weights = NULL;
	uint8_t *a = malloc(s->m * s->k);
	int8_t *b = malloc(s->k * s->n);
	uint8_t *c = malloc(s->m * s->n);
	int32_t *multiplier = malloc(s->n * sizeof(int32_t));
	int32_t *shift = malloc(s->n * sizeof(int32_t));
	int32_t *bias = calloc(s->n, sizeof(int32_t));
	struct enpu_cpu_requant requant = {
		.multiplier = multiplier, .shift = shift, .per_channel = 1,
		.zero_point = BENCH_OUTPUT_ZERO_POINT, .min = 0, .max = 255,
	};
	struct our_run run;
	double seconds = -1.0;

	if (!a || !b || !c || !multiplier || !shift || !bias)
		goto out;
	bench_fill(a, s->m * s->k, b, s->k * s->n);
	for (size_t i = 0; i < s->n; i++)
		if (enpu_requant_from_scale(bench_output_scale(i, s->k),
					    &multiplier[i], &shift[i]))
			goto out;
	if (enpu_cpu_context_create((unsigned int)threads, &context) ||
	    enpu_cpu_context_set_isa(context, isa) ||
	    enpu_cpu_gemm_weights_pack(context, s->k, s->n, b, s->n, bias,
				       &weights))
		goto out;
	run.context = context;
	run.args = (struct enpu_cpu_gemm_args){
		.m = s->m, .a = a, .lda = s->k, .a_type = ENPU_CPU_UINT8,
		.a_zero_point = BENCH_INPUT_ZERO_POINT, .weights = weights,
		.c = c, .ldc = s->n,
		.c_type = ENPU_CPU_UINT8, .requant = &requant,
	};
	seconds = bench_time(run_ours, &run, min_seconds,
			     isa == ENPU_CPU_ISA_SCALAR ? 1 : 5);
out:
	if (seconds < 0 && context)
		fprintf(stderr, "gemm-bench: %s: %s\n", enpu_cpu_isa_name(isa),
			enpu_cpu_context_error(context));
	enpu_cpu_gemm_weights_destroy(weights);
	enpu_cpu_context_destroy(context);
	free(a);
	free(b);
	free(c);
	free(multiplier);
	free(shift);
	free(bias);
	return seconds;
}

static size_t read_ort(const char *path, struct ort_result *results)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t count = 0;

	if (!f) {
		fprintf(stderr, "gemm-bench: cannot open ONNX Runtime results %s\n",
			path);
		return 0;
	}
	while (count < MAX_ORT && fgets(line, sizeof(line), f)) {
		struct ort_result *r = &results[count];

		if (sscanf(line, "ort %zu %zu %zu %d %lf", &r->m, &r->n, &r->k,
			   &r->threads, &r->seconds) == 5)
			count++;
	}
	fclose(f);
	return count;
}

static void print_cell(double seconds, const struct gemm_shape *s,
		       double peak)
{
	char cell[32];

	if (seconds <= 0) {
		printf(" %17s", "n/a");
		return;
	}
	snprintf(cell, sizeof(cell), "%.1f (%.0f%%)", gops(s, seconds),
		 100.0 * gops(s, seconds) / peak);
	printf(" %17s", cell);
}

int main(int argc, char **argv)
{
	struct ort_result ort[MAX_ORT];
	size_t ort_count = 0;
	double min_seconds = 0.2;
	struct peak peak;
	char version[128] = "";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ort") && i + 1 < argc) {
			ort_count = read_ort(argv[++i], ort);
		} else if (!strcmp(argv[i], "--ort-version") && i + 1 < argc) {
			snprintf(version, sizeof(version), "%s", argv[++i]);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			min_seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--ort FILE] [--ort-version V] [--seconds S]\n",
				argv[0]);
			return 2;
		}
	}

	bench_measure_peak(&peak);
	printf("int8 peak of one core (AVX-512 VNNI):\n");
	printf("  clock, from a dependent add chain:      %.2f GHz\n", peak.ghz);
	printf("  vpdpbusd zmm per cycle, measured:       %.2f (assumed %.0f: ports 0 and 5)\n",
	       peak.vnni_per_cycle, peak.assumed_per_cycle);
	printf("  peak = %.2f GHz x %.0f vpdpbusd/cycle x 64 MAC x 2 ops = %.1f GOPS per core\n",
	       peak.ghz, peak.assumed_per_cycle, peak.gops_per_core);
	printf("  (AMX-INT8 is not exposed to this VM: CPUID.7.0:EDX bits 24/25 are clear)\n\n");
	printf("GOPS = 2*M*N*K / time, best of 5 batches; (%%) = share of the peak of the threads used.\n");
	printf("u8 A (zero point 128) x s8 B (per-column scale) + s32 bias -> u8 C (zero point 131); ours and oneDNN\n");
	printf("pack B once; ONNX Runtime%s%s: QLinearMatMul, B an initializer, timed through node.\n\n",
	       version[0] ? " " : "", version);
	printf("%-22s %3s", "M x N x K", "thr");
	for (int isa = ENPU_CPU_ISA_AVX512_VNNI; isa >= ENPU_CPU_ISA_SCALAR; isa--)
		printf(" %17s", enpu_cpu_isa_name((enum enpu_cpu_isa)isa));
	printf(" %17s %17s %9s\n", "oneDNN 2.6", "ONNX Runtime", "ours/ORT");

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct gemm_shape *s = &shapes[i];

		for (size_t t = 0; t < sizeof(thread_counts) / sizeof(int); t++) {
			int threads = thread_counts[t];
			double limit = peak.gops_per_core * threads;
			double best = -1.0, ort_seconds = -1.0;
			char name[32];

			snprintf(name, sizeof(name), "%zux%zux%zu", s->m, s->n, s->k);
			printf("%-22s %3d", name, threads);
			for (int isa = ENPU_CPU_ISA_AVX512_VNNI;
			     isa >= ENPU_CPU_ISA_SCALAR; isa--) {
				double seconds = -1.0;

				if (enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
					seconds = bench_ours(s, (enum enpu_cpu_isa)isa,
							     threads,
							     isa == ENPU_CPU_ISA_SCALAR ?
							     min_seconds / 4 :
							     min_seconds);
				if (seconds > 0 && (best < 0 || seconds < best))
					best = seconds;
				print_cell(seconds, s, limit);
				fflush(stdout);
			}
			print_cell(bench_onednn(s, threads, min_seconds), s, limit);
			for (size_t o = 0; o < ort_count; o++)
				if (ort[o].m == s->m && ort[o].n == s->n &&
				    ort[o].k == s->k && ort[o].threads == threads)
					ort_seconds = ort[o].seconds;
			print_cell(ort_seconds, s, limit);
			if (best > 0 && ort_seconds > 0)
				printf(" %8.2fx", ort_seconds / best);
			printf("\n");
			fflush(stdout);
		}
	}
	return 0;
}
