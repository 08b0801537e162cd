// SPDX-License-Identifier: GPL-2.0
/*
 * The device's convolution and fully-connected arithmetic
 * (docs/quantization.md): int32 accumulation that wraps around (done in
 * uint32, where wrapping is defined), padding reading as the input zero
 * point (so it adds nothing), then enpu_requantize() per output channel or
 * per tensor. Weights are int8 OIHW in the BO; each group's taps are
 * regrouped once per command so the innermost loop walks input channels
 * contiguously in both operands.
 */
#include <stdlib.h>

#include "layer.h"

/* weights[o][i][ky][kx] -> taps[o][ky][kx][i], as int32. Returns NULL
 * when the host has no memory, in which case the slow path is used. */
static int32_t *regroup_weights(const struct layer *l, const int8_t *weights,
				uint32_t cin_g)
{
	uint64_t kk = (uint64_t)l->kernel_h * l->kernel_w;
	uint64_t total = (uint64_t)l->out.c * cin_g * kk;
	int32_t *taps = malloc(total * sizeof(*taps));
	uint64_t o, i, k;

	if (!taps)
		return NULL;
	for (o = 0; o < l->out.c; o++)
		for (i = 0; i < cin_g; i++)
			for (k = 0; k < kk; k++)
				taps[(o * kk + k) * cin_g + i] =
					weights[(o * cin_g + i) * kk + k];
	return taps;
}

/* One output element with the weights still in OIHW order. */
static uint32_t conv_one_oihw(const struct layer *l, const int32_t *input,
			      const int8_t *weights, uint64_t n, int64_t y0,
			      int64_t x0, uint32_t o, uint32_t cin_g)
{
	uint32_t first = o / (l->out.c / l->groups) * cin_g, acc = 0;
	uint64_t kk = (uint64_t)l->kernel_h * l->kernel_w;

	for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
		int64_t iy = y0 + (int64_t)ky * l->dilation_h;

		if (iy < 0 || iy >= l->in.h)
			continue;
		for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
			int64_t ix = x0 + (int64_t)kx * l->dilation_w;
			const int32_t *px;

			if (ix < 0 || ix >= l->in.w)
				continue;
			px = input + ((n * l->in.h + (uint64_t)iy) * l->in.w +
				      (uint64_t)ix) * l->in.c + first;
			for (uint32_t i = 0; i < cin_g; i++)
				acc += (uint32_t)((px[i] - l->in.zero_point) *
						  weights[(o * cin_g + i) * kk +
							  ky * l->kernel_w + kx]);
		}
	}
	return acc;
}

void conv_accumulate(const struct layer *l, const int32_t *input,
		     const int8_t *weights, const int32_t *bias,
		     uint32_t out_h, uint32_t out_w, int32_t *acc)
{
	uint32_t cin_g = l->in.c / l->groups, cout_g = l->out.c / l->groups;
	uint64_t kk = (uint64_t)l->kernel_h * l->kernel_w;
	int32_t *taps = regroup_weights(l, weights, cin_g);
	int32_t zp = l->in.zero_point;
	uint64_t at = 0;

	for (uint64_t n = 0; n < l->in.n; n++)
	for (uint32_t y = 0; y < out_h; y++)
	for (uint32_t x = 0; x < out_w; x++) {
		int64_t y0 = (int64_t)y * l->stride_h - l->pad_top;
		int64_t x0 = (int64_t)x * l->stride_w - l->pad_left;

		for (uint32_t o = 0; o < l->out.c; o++, at++) {
			uint32_t sum = bias ? (uint32_t)bias[o] : 0;
			uint32_t first = o / cout_g * cin_g;

			if (!taps) {
				acc[at] = (int32_t)(sum + conv_one_oihw(
					l, input, weights, n, y0, x0, o, cin_g));
				continue;
			}
			for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
				int64_t iy = y0 + (int64_t)ky * l->dilation_h;

				if (iy < 0 || iy >= l->in.h)
					continue;
				for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
					int64_t ix = x0 +
						     (int64_t)kx * l->dilation_w;
					const int32_t *px, *w;

					if (ix < 0 || ix >= l->in.w)
						continue;
					px = input + ((n * l->in.h + (uint64_t)iy) *
						      l->in.w + (uint64_t)ix) *
						     l->in.c + first;
					w = taps + ((uint64_t)o * kk +
						    (uint64_t)ky * l->kernel_w +
						    kx) * cin_g;
					for (uint32_t i = 0; i < cin_g; i++)
						sum += (uint32_t)((px[i] - zp) *
								  w[i]);
				}
			}
			acc[at] = (int32_t)sum;
		}
	}
	free(taps);
}

/* out[m][n] = bias[n] + sum_k (in[m][k] - zp) * weights[n][k]. */
void fc_accumulate(const struct layer *l, const int32_t *input,
		   const int8_t *weights, const int32_t *bias, int32_t *acc)
{
	uint32_t rows = l->in.w, k_count = l->in.c, cols = l->out.c;
	int32_t zp = l->in.zero_point;

	for (uint64_t m = 0; m < rows; m++) {
		const int32_t *row = input + m * k_count;

		for (uint64_t n = 0; n < cols; n++) {
			const int8_t *w = weights + n * k_count;
			uint32_t sum = bias ? (uint32_t)bias[n] : 0;

			for (uint32_t k = 0; k < k_count; k++)
				sum += (uint32_t)((row[k] - zp) * w[k]);
			acc[m * cols + n] = (int32_t)sum;
		}
	}
}

void requantize_all(const struct layer *l, int32_t *values, uint64_t pixels,
		    uint32_t channels, const struct requant_channel *rq,
		    bool per_channel)
{
	for (uint64_t p = 0; p < pixels; p++)
		for (uint32_t c = 0; c < channels; c++) {
			const struct requant_channel *q = &rq[per_channel ? c : 0];
			int32_t *v = &values[p * channels + c];

			*v = enpu_requantize(*v, q->multiplier, q->shift,
					     l->out.zero_point, l->min, l->max);
		}
}
