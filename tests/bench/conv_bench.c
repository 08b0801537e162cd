// SPDX-License-Identifier: MIT
/*
 * Convolution benchmark: the conv and depthwise layers of a MobileNetV2-
 * shaped network (batch 1), our conv2d on the AVX-512 VNNI and AVX2 paths,
 * oneDNN and (from a file written by ort_conv_bench.js) ONNX Runtime's
 * QLinearConv, at 1 and 2 threads, in GOPS (2 * multiply-adds per call) and
 * as a share of this CPU's AVX-512 VNNI peak.
 *
 *   conv-bench [--ort FILE] [--ort-version V] [--seconds S]
 */
#include "bench.h"
#include "conv_bench.h"
#include "enpu_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* name, H, W, Cin, Cout, groups, kernel, stride, pad */
static const struct conv_layer layers[] = {
	{ "conv 3x3 s2 224x224x3->32", 224, 224, 3, 32, 1, 3, 2, 1 },
	{ "dw 3x3 112x112x32", 112, 112, 32, 32, 32, 3, 1, 1 },
	{ "1x1 112x112x32->16", 112, 112, 32, 16, 1, 1, 1, 0 },
	{ "1x1 56x56x24->144", 56, 56, 24, 144, 1, 1, 1, 0 },
	{ "dw 3x3 s2 56x56x144", 56, 56, 144, 144, 144, 3, 2, 1 },
	{ "1x1 28x28x32->192", 28, 28, 32, 192, 1, 1, 1, 0 },
	{ "dw 3x3 28x28x192", 28, 28, 192, 192, 192, 3, 1, 1 },
	{ "1x1 14x14x96->576", 14, 14, 96, 576, 1, 1, 1, 0 },
	{ "dw 3x3 14x14x576", 14, 14, 576, 576, 576, 3, 1, 1 },
	{ "1x1 7x7x160->960", 7, 7, 160, 960, 1, 1, 1, 0 },
	{ "dw 3x3 7x7x960", 7, 7, 960, 960, 960, 3, 1, 1 },
	{ "1x1 7x7x960->160", 7, 7, 960, 160, 1, 1, 1, 0 },
};

static const int thread_counts[] = { 1, 2 };

#define MAX_ORT 64

struct ort_result {
	size_t index;
	int threads;
	double seconds;
};

struct our_run {
	enpu_cpu_context *context;
	struct enpu_cpu_conv_args args;
};

static int run_ours(void *argument)
{
	struct our_run *r = argument;

	return enpu_cpu_conv2d(r->context, &r->args);
}

static double bench_ours(const struct conv_layer *l, enum enpu_cpu_isa isa,
			 int threads, double min_seconds)
{
	size_t oh = conv_layer_output(l, l->height);
	size_t ow = conv_layer_output(l, l->width);
	size_t cin_g = l->input_channels / l->groups;
	size_t in_size = l->height * l->width * l->input_channels;
	size_t depth = cin_g * l->kernel * l->kernel;
	size_t w_size = l->output_channels * depth;
	struct enpu_cpu_conv_shape shape = {
		.input_channels = l->input_channels,
		.output_channels = l->output_channels, .groups = l->groups,
		.kernel_height = l->kernel, .kernel_width = l->kernel,
		.stride_height = l->stride, .stride_width = l->stride,
		.dilation_height = 1, .dilation_width = 1,
		.pad_top = l->pad, .pad_left = l->pad, .pad_bottom = l->pad,
		.pad_right = l->pad,
	};
	enpu_cpu_context *context = NULL;
	enpu_cpu_conv_weights *weights = NULL;
	uint8_t *a = malloc(in_size);
	int8_t *b = malloc(w_size);
	uint8_t *c = malloc(oh * ow * l->output_channels);
	int32_t *multiplier = malloc(l->output_channels * sizeof(int32_t));
	int32_t *shift = malloc(l->output_channels * sizeof(int32_t));
	int32_t *bias = calloc(l->output_channels, sizeof(int32_t));
	struct enpu_cpu_requant requant = {
		.multiplier = multiplier, .shift = shift, .per_channel = 1,
		.zero_point = BENCH_OUTPUT_ZERO_POINT, .min = 0, .max = 255,
	};
	struct our_run run;
	double seconds = -1.0;

	if (!a || !b || !c || !multiplier || !shift || !bias)
		goto out;
	bench_fill(a, in_size, b, w_size);
	for (size_t i = 0; i < l->output_channels; i++)
		if (enpu_requant_from_scale(bench_output_scale(i, depth),
					    &multiplier[i], &shift[i]))
			goto out;
	if (enpu_cpu_context_create((unsigned int)threads, &context) ||
	    enpu_cpu_context_set_isa(context, isa) ||
	    enpu_cpu_conv_weights_pack(context, &shape, b, bias, &weights))
		goto out;
	run.context = context;
	run.args = (struct enpu_cpu_conv_args){
		.batch = 1, .input_height = l->height, .input_width = l->width,
		.input = a, .input_type = ENPU_CPU_UINT8,
		.input_zero_point = BENCH_INPUT_ZERO_POINT, .weights = weights,
		.output = c,
		.output_type = ENPU_CPU_UINT8, .requant = &requant,
	};
	seconds = bench_time(run_ours, &run, min_seconds, 5);
out:
	if (seconds < 0 && context)
		fprintf(stderr, "conv-bench: %s: %s\n", enpu_cpu_isa_name(isa),
			enpu_cpu_context_error(context));
	enpu_cpu_conv_weights_destroy(weights);
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
		fprintf(stderr, "conv-bench: cannot open ONNX Runtime results %s\n",
			path);
		return 0;
	}
	while (count < MAX_ORT && fgets(line, sizeof(line), f)) {
		struct ort_result *r = &results[count];

		if (sscanf(line, "ort_conv %zu %d %lf", &r->index, &r->threads,
			   &r->seconds) == 3)
			count++;
	}
	fclose(f);
	return count;
}

static void print_cell(double seconds, double ops, double peak)
{
	char cell[32];

	if (seconds <= 0) {
		printf(" %15s", "n/a");
		return;
	}
	snprintf(cell, sizeof(cell), "%.1f (%.0f%%)", ops / seconds / 1e9,
		 100.0 * ops / seconds / 1e9 / peak);
	printf(" %15s", cell);
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
	printf("\nint8 convolution layers of a MobileNetV2-shaped network, batch 1 (peak %.1f GOPS per core,\n",
	       peak.gops_per_core);
	printf("measured as above). GOPS = 2 * multiply-adds / time, best of 5 batches; (%%) = share of the\n");
	printf("peak of the threads used. u8 NHWC input (zero point 128), s8 per-channel weights, s32 bias,\n");
	printf("u8 output (zero point 131); weights packed once. oneDNN: NHWC u8 convolution with the same\n");
	printf("zero points and scales. ONNX Runtime%s%s: QLinearConv (NCHW model; ORT may convert to NHWC).\n\n",
	       version[0] ? " " : "", version);
	printf("%-27s %3s %15s %15s %15s %15s %9s\n", "layer", "thr", "avx512vnni",
	       "avx2", "oneDNN 2.6", "ONNX Runtime", "ours/ORT");

	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		const struct conv_layer *l = &layers[i];
		double ops = conv_layer_ops(l);

		for (size_t t = 0; t < sizeof(thread_counts) / sizeof(int); t++) {
			int threads = thread_counts[t];
			double limit = peak.gops_per_core * threads;
			double best = -1.0, ort_seconds = -1.0;

			printf("%-27s %3d", l->name, threads);
			for (int isa = ENPU_CPU_ISA_AVX512_VNNI;
			     isa >= ENPU_CPU_ISA_AVX2; isa--) {
				double seconds = -1.0;

				if (enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
					seconds = bench_ours(l, (enum enpu_cpu_isa)isa,
							     threads, min_seconds);
				if (seconds > 0 && (best < 0 || seconds < best))
					best = seconds;
				print_cell(seconds, ops, limit);
				fflush(stdout);
			}
			print_cell(bench_onednn_conv(l, threads, min_seconds), ops,
				   limit);
			for (size_t o = 0; o < ort_count; o++)
				if (ort[o].index == i && ort[o].threads == threads)
					ort_seconds = ort[o].seconds;
			print_cell(ort_seconds, ops, limit);
			if (best > 0 && ort_seconds > 0)
				printf(" %8.2fx", ort_seconds / best);
			printf("\n");
			fflush(stdout);
		}
	}
	return 0;
}
