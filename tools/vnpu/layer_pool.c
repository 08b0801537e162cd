// SPDX-License-Identifier: GPL-2.0
/*
 * MAX_POOL and AVG_POOL with ONNX semantics, the rules of
 * enpu_cpu_max_pool() / enpu_cpu_average_pool()
 * (userspace/runtime/cpu/enpu_cpu.h):
 *
 * - max pooling ignores padding; a window without input pixels gives the
 *   type's minimum.
 * - average pooling sums (in - in_zp) over the window's input pixels;
 *   count is that many pixels, or with COUNT_INCLUDE_PAD the window taps
 *   inside the padded input (a ceil-mode window may reach past it). Then
 *   out = enpu_requantize(sum << L, M, S, out_zp, min, max), with (M, S, L)
 *   the command's or entry count - 1 of its table. A window with count 0
 *   gives the output zero point (clamped to [min, max]); one with taps
 *   only in the padding gives that too, since its sum is 0.
 *
 * The sum is kept in uint32 (int32 with wrap-around); << L wraps too. The
 * compiler picks L so that a real window's sum << L fits in int32.
 */
#include "layer.h"

struct window {
	int64_t y0, x0;
};

static bool tap_inside(int64_t at, uint32_t size)
{
	return at >= 0 && at < size;
}

/* Inside the padded input: [-pad_begin, size + pad_end). */
static bool tap_in_padded(int64_t at, uint32_t size, uint32_t pad_begin,
			  uint32_t pad_end)
{
	return at >= -(int64_t)pad_begin && at < (int64_t)size + pad_end;
}

static int32_t max_window(const struct layer *l, const int32_t *input,
			  uint64_t n, struct window w, uint32_t c)
{
	int32_t lo, hi, best;
	bool any = false;

	dtype_range(l->in.dtype, &lo, &hi);
	best = lo;
	for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
		int64_t iy = w.y0 + (int64_t)ky * l->dilation_h;

		if (!tap_inside(iy, l->in.h))
			continue;
		for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
			int64_t ix = w.x0 + (int64_t)kx * l->dilation_w;
			int32_t v;

			if (!tap_inside(ix, l->in.w))
				continue;
			v = input[((n * l->in.h + (uint64_t)iy) * l->in.w +
				   (uint64_t)ix) * l->in.c + c];
			if (!any || v > best)
				best = v;
			any = true;
		}
	}
	return best;
}

static int32_t average_window(const struct layer *l, const int32_t *input,
			      const struct enpu_pool_param *params,
			      uint64_t n, struct window w, uint32_t c)
{
	bool include_pad = l->flags & ENPU_POOL_COUNT_INCLUDE_PAD;
	uint32_t sum = 0;
	uint64_t pixels = 0, count = 0;
	int32_t m = l->multiplier, s = l->shift, left = l->left_shift;

	for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
		int64_t iy = w.y0 + (int64_t)ky * l->dilation_h;
		bool y_in = tap_inside(iy, l->in.h);
		bool y_padded = tap_in_padded(iy, l->in.h, l->pad_top,
					      l->pad_bottom);

		for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
			int64_t ix = w.x0 + (int64_t)kx * l->dilation_w;

			if (y_padded && tap_in_padded(ix, l->in.w, l->pad_left,
						      l->pad_right))
				count++;
			if (!y_in || !tap_inside(ix, l->in.w))
				continue;
			pixels++;
			sum += (uint32_t)(input[((n * l->in.h + (uint64_t)iy) *
						 l->in.w + (uint64_t)ix) *
						l->in.c + c] - l->in.zero_point);
		}
	}
	if (!include_pad)
		count = pixels;
	if (!count)	/* the output zero point, clamped */
		return enpu_requantize(0, 0, ENPU_REQUANT_SHIFT_MIN,
				       l->out.zero_point, l->min, l->max);
	if (params) {
		m = params[count - 1].multiplier;
		s = params[count - 1].shift;
		left = params[count - 1].left_shift;
	}
	return enpu_requantize((int32_t)(sum << left), m, s, l->out.zero_point,
			       l->min, l->max);
}

/* Output elements [first, end) in NHWC order. */
void pool_compute(const struct layer *l, const int32_t *input,
		  const struct enpu_pool_param *params, uint64_t first,
		  uint64_t end, int32_t *out)
{
	for (uint64_t at = first; at < end; at++) {
		struct out_index i = out_index_of(&l->out, at);
		struct window w = {
			.y0 = (int64_t)i.y * l->stride_h - l->pad_top,
			.x0 = (int64_t)i.x * l->stride_w - l->pad_left,
		};

		out[at] = l->opcode == ENPU_CMD_MAX_POOL ?
			  max_window(l, input, i.n, w, i.c) :
			  average_window(l, input, params, i.n, w, i.c);
	}
}
