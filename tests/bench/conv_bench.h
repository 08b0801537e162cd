/* SPDX-License-Identifier: MIT */
/* Shared pieces of the convolution benchmark (conv-bench). */
#ifndef ENPU_CONV_BENCH_H
#define ENPU_CONV_BENCH_H

#include <stddef.h>

/* One convolution layer, batch 1, square kernel, symmetric padding. */
struct conv_layer {
	const char *name;
	size_t height, width, input_channels, output_channels, groups;
	size_t kernel, stride, pad;
};

/* Output extent of one dimension. */
static inline size_t conv_layer_output(const struct conv_layer *l, size_t in)
{
	return (in + 2 * l->pad - l->kernel) / l->stride + 1;
}

/* 2 * multiply-adds of one call. */
static inline double conv_layer_ops(const struct conv_layer *l)
{
	return 2.0 * (double)conv_layer_output(l, l->height) *
	       (double)conv_layer_output(l, l->width) *
	       (double)l->output_channels *
	       (double)(l->input_channels / l->groups) *
	       (double)(l->kernel * l->kernel);
}

/*
 * oneDNN u8 NHWC convolution with the same quantization as ours (weights
 * reordered once). Returns seconds per call, or < 0 when oneDNN has no
 * implementation or fails.
 */
double bench_onednn_conv(const struct conv_layer *layer, int threads,
			 double min_seconds);

#endif /* ENPU_CONV_BENCH_H */
