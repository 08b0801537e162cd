// SPDX-License-Identifier: GPL-2.0
/*
 * MAX_POOL and AVG_POOL with ONNX semantics (the oracle, and the FAST
 * mode's loops at the end), the rules of
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

/* The window's divisor: input pixels, or with COUNT_INCLUDE_PAD its taps
 * inside the padded input. */
static uint64_t window_count(const struct layer *l, struct window w)
{
	bool include_pad = l->flags & ENPU_POOL_COUNT_INCLUDE_PAD;
	uint64_t pixels = 0, count = 0;

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
			if (y_in && tap_inside(ix, l->in.w))
				pixels++;
		}
	}
	return include_pad ? count : pixels;
}

/* enpu_requantize(sum << L, ...) with the window's (M, S, L). */
static int32_t average_of(const struct layer *l,
			  const struct enpu_pool_param *params,
			  uint64_t count, uint32_t sum)
{
	int32_t m = l->multiplier, s = l->shift, left = l->left_shift;

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

static int32_t average_window(const struct layer *l, const int32_t *input,
			      const struct enpu_pool_param *params,
			      uint64_t n, struct window w, uint32_t c)
{
	uint32_t sum = 0;

	for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
		int64_t iy = w.y0 + (int64_t)ky * l->dilation_h;

		if (!tap_inside(iy, l->in.h))
			continue;
		for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
			int64_t ix = w.x0 + (int64_t)kx * l->dilation_w;

			if (!tap_inside(ix, l->in.w))
				continue;
			sum += (uint32_t)(input[((n * l->in.h + (uint64_t)iy) *
						 l->in.w + (uint64_t)ix) *
						l->in.c + c] - l->in.zero_point);
		}
	}
	return average_of(l, params, window_count(l, w), sum);
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

/*
 * FAST mode's pooling (layer_exec.c): the same rules, a window at a time
 * but all channels of a tap together on the stored bytes (loops the
 * compiler vectorizes), so a global pool over thousands of pixels costs one
 * pass over the input, not one per channel. @image is one image of the
 * input (dense bytes); output rows [first, end) of that image go to @out.
 * Average sums wrap in uint32 as above; the zero point comes off once per
 * window (pixels * zp), the same modulo 2^32.
 */
void pool_fast_rows(const struct layer *l, const uint8_t *image,
		    const struct enpu_pool_param *params, uint32_t first,
		    uint32_t end, uint8_t *out, uint32_t *restrict sum)
{
	uint32_t channels = l->out.c;
	bool is_signed = l->in.dtype == ENPU_DTYPE_INT8;
	bool average = l->opcode == ENPU_CMD_AVG_POOL;
	/* Signed bytes compare as unsigned with the sign bit flipped; the
	 * type's minimum is 0 either way. */
	uint8_t flip = is_signed ? 0x80 : 0;

	for (uint32_t y = first; y < end; y++)
	for (uint32_t x = 0; x < l->out.w; x++, out += channels) {
		struct window w = {
			.y0 = (int64_t)y * l->stride_h - l->pad_top,
			.x0 = (int64_t)x * l->stride_w - l->pad_left,
		};
		uint32_t pixels = 0;

		for (uint32_t c = 0; c < channels; c++)
			sum[c] = 0;
		for (uint32_t ky = 0; ky < l->kernel_h; ky++) {
			int64_t iy = w.y0 + (int64_t)ky * l->dilation_h;

			if (!tap_inside(iy, l->in.h))
				continue;
			for (uint32_t kx = 0; kx < l->kernel_w; kx++) {
				int64_t ix = w.x0 + (int64_t)kx * l->dilation_w;
				const uint8_t *restrict px;

				if (!tap_inside(ix, l->in.w))
					continue;
				px = image + ((uint64_t)iy * l->in.w +
					      (uint64_t)ix) * channels;
				pixels++;
				if (!average)
					for (uint32_t c = 0; c < channels; c++) {
						uint32_t v = px[c] ^ flip;

						sum[c] = v > sum[c] ? v : sum[c];
					}
				else if (is_signed)
					for (uint32_t c = 0; c < channels; c++)
						sum[c] += (uint32_t)(int8_t)px[c];
				else
					for (uint32_t c = 0; c < channels; c++)
						sum[c] += px[c];
			}
		}
		if (!average) {
			for (uint32_t c = 0; c < channels; c++)
				out[c] = (uint8_t)sum[c] ^ flip;
		} else {
			uint64_t count = window_count(l, w);

			for (uint32_t c = 0; c < channels; c++)
				out[c] = (uint8_t)average_of(
					l, params, count, sum[c] - pixels *
					(uint32_t)l->in.zero_point);
		}
	}
}
