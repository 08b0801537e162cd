// SPDX-License-Identifier: GPL-2.0
/*
 * The device's convolution and fully-connected arithmetic
 * (docs/quantization.md): int32 accumulation that wraps around (done in
 * uint32, where wrapping is defined), padding reading as the input zero
 * point (so it adds nothing), then enpu_requantize() per output channel or
 * per tensor. Weights are int8 OIHW in the BO; each group's taps are
 * regrouped once per command so the innermost loop walks input channels
 * contiguously in both operands. Every function computes a range of
 * output elements (NHWC order), so a layer can run tile by tile between
 * preemption points; the values do not depend on how it is cut.
 */

#include "layer.h"

/* weights[o][i][ky][kx] -> taps[o][ky][kx][i], as int32, into @taps
 * (Cout * Cin/groups * kh * kw entries), once per command. */
void conv_regroup_weights(const struct layer *l, const int8_t *weights,
			  int32_t *taps)
{
	uint32_t cin_g = l->in.c / l->groups;
	uint64_t kk = (uint64_t)l->kernel_h * l->kernel_w;
	uint64_t o, i, k;

	for (o = 0; o < l->out.c; o++)
		for (i = 0; i < cin_g; i++)
			for (k = 0; k < kk; k++)
				taps[(o * kk + k) * cin_g + i] =
					weights[(o * cin_g + i) * kk + k];
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

/* One output element from the regrouped taps. */
static uint32_t conv_one_taps(const struct layer *l, const int32_t *input,
			      const int32_t *taps, uint64_t n, int64_t y0,
			      int64_t x0, uint32_t o, uint32_t cin_g)
{
	uint32_t first = o / (l->out.c / l->groups) * cin_g, sum = 0;
	uint64_t kk = (uint64_t)l->kernel_h * l->kernel_w;
	int32_t zp = l->in.zero_point;

	for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
		int64_t iy = y0 + (int64_t)ky * l->dilation_h;

		if (iy < 0 || iy >= l->in.h)
			continue;
		for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
			int64_t ix = x0 + (int64_t)kx * l->dilation_w;
			const int32_t *px, *w;

			if (ix < 0 || ix >= l->in.w)
				continue;
			px = input + ((n * l->in.h + (uint64_t)iy) * l->in.w +
				      (uint64_t)ix) * l->in.c + first;
			w = taps + ((uint64_t)o * kk +
				    (uint64_t)ky * l->kernel_w + kx) * cin_g;
			for (uint32_t i = 0; i < cin_g; i++)
				sum += (uint32_t)((px[i] - zp) * w[i]);
		}
	}
	return sum;
}

/*
 * Output elements [first, end) in NHWC order: acc[at] for each. @taps is
 * conv_regroup_weights()'s result, or NULL (the host had no memory for
 * it) for the slow path over the OIHW weights.
 */
void conv_accumulate(const struct layer *l, const int32_t *input,
		     const int8_t *weights, const int32_t *taps,
		     const int32_t *bias, uint64_t first, uint64_t end,
		     int32_t *acc)
{
	uint32_t cin_g = l->in.c / l->groups;

	for (uint64_t at = first; at < end; at++) {
		struct out_index i = out_index_of(&l->out, at);
		int64_t y0 = (int64_t)i.y * l->stride_h - l->pad_top;
		int64_t x0 = (int64_t)i.x * l->stride_w - l->pad_left;
		uint32_t sum = bias ? (uint32_t)bias[i.c] : 0;

		sum += taps ? conv_one_taps(l, input, taps, i.n, y0, x0, i.c,
					    cin_g) :
			      conv_one_oihw(l, input, weights, i.n, y0, x0, i.c,
					    cin_g);
		acc[at] = (int32_t)sum;
	}
}

/* out[m][n] = bias[n] + sum_k (in[m][k] - zp) * weights[n][k], for the
 * output elements [first, end) (at = m * N + n). */
void fc_accumulate(const struct layer *l, const int32_t *input,
		   const int8_t *weights, const int32_t *bias, uint64_t first,
		   uint64_t end, int32_t *acc)
{
	uint32_t k_count = l->in.c, cols = l->out.c;
	int32_t zp = l->in.zero_point;

	for (uint64_t at = first; at < end; at++) {
		uint64_t m = at / cols, n = at % cols;
		const int32_t *row = input + m * k_count;
		const int8_t *w = weights + n * k_count;
		uint32_t sum = bias ? (uint32_t)bias[n] : 0;

		for (uint32_t k = 0; k < k_count; k++)
			sum += (uint32_t)((row[k] - zp) * w[k]);
		acc[at] = (int32_t)sum;
	}
}

/* Requantizes the elements [first, end) of @values in place. */
void requantize_all(const struct layer *l, int32_t *values, uint64_t first,
		    uint64_t end, const struct requant_channel *rq,
		    bool per_channel)
{
	for (uint64_t at = first; at < end; at++) {
		const struct requant_channel *q =
			&rq[per_channel ? at % l->out.c : 0];

		values[at] = enpu_requantize(values[at], q->multiplier,
					     q->shift, l->out.zero_point,
					     l->min, l->max);
	}
}
