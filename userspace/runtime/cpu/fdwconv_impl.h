/* SPDX-License-Identifier: MIT */
/*
 * Float depthwise convolution of one channel plane (fmath_internal.h),
 * written once and compiled per ISA (the includer defines FDWCONV_NAME
 * and is built with the ISA's -m flags): for each output row, a row of
 * accumulators starts at the bias, each kernel tap adds weight * input
 * over the output columns whose input column is inside the image (the
 * padding contributes nothing, so no padded copy is made), then the row
 * is clamped and stored. The tap loop is a plain strided loop that -O3
 * vectorizes (stride 1: contiguous, stride 2: deinterleaving loads).
 * Max pooling is the same walk with max for the multiply-add.
 */
#include <float.h>
#include <stddef.h>

#include "fmath_internal.h"

#define ROW_CHUNK 512

/* First output column whose input column x * s + off is >= 0 ... */
static size_t first_inside(ptrdiff_t off, size_t s)
{
	return off >= 0 ? 0 : (size_t)((-off + (ptrdiff_t)s - 1) / (ptrdiff_t)s);
}

/* ... and the end of those with input column < width. */
static size_t end_inside(ptrdiff_t off, size_t s, size_t width, size_t out)
{
	ptrdiff_t last = (ptrdiff_t)width - 1 - off;	/* x * s <= last */
	size_t end;

	if (last < 0)
		return 0;
	end = (size_t)(last / (ptrdiff_t)s) + 1;
	return end < out ? end : out;
}

/* One output pixel, any geometry: the edges of the 3x3 path. */
static float pixel(const struct enpu_fdwconv_pass *p, size_t y, size_t x)
{
	float acc = p->bias;

	for (size_t ky = 0; ky < p->kernel_h; ky++) {
		ptrdiff_t iy = (ptrdiff_t)(y * p->stride_h + ky * p->dilation_h) -
			       (ptrdiff_t)p->pad_top;

		if (iy < 0 || iy >= (ptrdiff_t)p->height)
			continue;
		for (size_t kx = 0; kx < p->kernel_w; kx++) {
			ptrdiff_t ix = (ptrdiff_t)(x * p->stride_w +
						   kx * p->dilation_w) -
				       (ptrdiff_t)p->pad_left;

			if (ix >= 0 && ix < (ptrdiff_t)p->width)
				acc += p->w[ky * p->kernel_w + kx] *
				       p->x[(size_t)iy * p->width + (size_t)ix];
		}
	}
	if (p->clamp) {
		acc = acc < p->clamp[0] ? p->clamp[0] : acc;
		acc = acc > p->clamp[1] ? p->clamp[1] : acc;
	}
	return acc;
}

/*
 * 3x3, dilation 1, stride 1 or 2 (MobileNet's): all nine taps in one
 * pass over the interior columns, whose window lies inside the row; a
 * missing input row (padding) reads a row of zeros.
 */
static void dw3x3(const struct enpu_fdwconv_pass *p, const float *zeros)
{
	size_t s = p->stride_w, pl = p->pad_left;
	size_t xa = (pl + s - 1) / s, xb;
	const float *w = p->w;

	/* Interior: x * s - pl >= 0 and x * s - pl + 2 <= width - 1. */
	xb = p->width + pl >= 3 ? (p->width + pl - 3) / s + 1 : 0;
	xb = xb < p->out_width ? xb : p->out_width;
	if (xa > xb)
		xa = xb;
	for (size_t y = p->row0; y < p->row1; y++) {
		ptrdiff_t iy = (ptrdiff_t)(y * p->stride_h) - (ptrdiff_t)p->pad_top;
		const float *r[3];
		float *out = p->y + y * p->out_width;

		for (int i = 0; i < 3; i++)
			r[i] = iy + i >= 0 && iy + i < (ptrdiff_t)p->height ?
			       p->x + (size_t)(iy + i) * p->width : zeros;
		for (size_t x = 0; x < xa; x++)
			out[x] = pixel(p, y, x);
		/* Input column of output x, tap 0: x * s - pl >= 0 here. */
		if (s == 1)
			for (size_t x = xa; x < xb; x++) {
				size_t o = x - pl;

				out[x] = p->bias +
					w[0] * r[0][o] + w[1] * r[0][o + 1] + w[2] * r[0][o + 2] +
					w[3] * r[1][o] + w[4] * r[1][o + 1] + w[5] * r[1][o + 2] +
					w[6] * r[2][o] + w[7] * r[2][o + 1] + w[8] * r[2][o + 2];
			}
		else
			for (size_t x = xa; x < xb; x++) {
				size_t o = 2 * x - pl;

				out[x] = p->bias +
					w[0] * r[0][o] + w[1] * r[0][o + 1] + w[2] * r[0][o + 2] +
					w[3] * r[1][o] + w[4] * r[1][o + 1] + w[5] * r[1][o + 2] +
					w[6] * r[2][o] + w[7] * r[2][o + 1] + w[8] * r[2][o + 2];
			}
		if (p->clamp) {
			float lo = p->clamp[0], hi = p->clamp[1];

			for (size_t x = xa; x < xb; x++) {
				float v = out[x] < lo ? lo : out[x];

				out[x] = v > hi ? hi : v;
			}
		}
		for (size_t x = xb; x < p->out_width; x++)
			out[x] = pixel(p, y, x);
	}
}

void FDWCONV_NAME(const struct enpu_fdwconv_pass *p)
{
	float acc[ROW_CHUNK];

	if (!p->max_pool && p->kernel_h == 3 && p->kernel_w == 3 &&
	    p->dilation_h == 1 &&
	    p->dilation_w == 1 && (p->stride_w == 1 || p->stride_w == 2) &&
	    p->width <= ROW_CHUNK) {
		/* A row of zeros stands in for the padding rows. */
		for (size_t i = 0; i < ROW_CHUNK; i++)
			acc[i] = 0.0f;
		dw3x3(p, acc);
		return;
	}

	for (size_t y = p->row0; y < p->row1; y++) {
		for (size_t c0 = 0; c0 < p->out_width; c0 += ROW_CHUNK) {
			size_t cn = p->out_width - c0 < ROW_CHUNK ?
				    p->out_width - c0 : ROW_CHUNK;
			float *out = p->y + y * p->out_width + c0;

			for (size_t i = 0; i < cn; i++)
				acc[i] = p->max_pool ? -FLT_MAX : p->bias;
			for (size_t ky = 0; ky < p->kernel_h; ky++) {
				ptrdiff_t iy = (ptrdiff_t)(y * p->stride_h +
							   ky * p->dilation_h) -
					       (ptrdiff_t)p->pad_top;
				const float *row;

				if (iy < 0 || iy >= (ptrdiff_t)p->height)
					continue;
				row = p->x + (size_t)iy * p->width;
				for (size_t kx = 0; kx < p->kernel_w; kx++) {
					float w = p->max_pool ? 0.0f :
						  p->w[ky * p->kernel_w + kx];
					ptrdiff_t off = (ptrdiff_t)(kx * p->dilation_w) -
							(ptrdiff_t)p->pad_left +
							(ptrdiff_t)(c0 * p->stride_w);
					size_t lo = first_inside(off, p->stride_w);
					size_t hi = end_inside(off, p->stride_w,
							       p->width, cn);
					size_t s = p->stride_w;
					/* i >= lo: i * s + off >= 0 is a column. */
					const float *src;

					if (lo >= hi)
						continue;
					src = row + (ptrdiff_t)(lo * s) + off;
					if (p->max_pool) {
						for (size_t i = lo; i < hi; i++) {
							float v = src[(i - lo) * s];

							acc[i] = v > acc[i] ? v : acc[i];
						}
					} else if (s == 1) {
						for (size_t i = lo; i < hi; i++)
							acc[i] += w * src[i - lo];
					} else if (s == 2) {
						for (size_t i = lo; i < hi; i++)
							acc[i] += w * src[2 * (i - lo)];
					} else {
						for (size_t i = lo; i < hi; i++)
							acc[i] += w * src[(i - lo) * s];
					}
				}
			}
			if (p->clamp) {
				float lo = p->clamp[0], hi = p->clamp[1];

				for (size_t i = 0; i < cn; i++) {
					float v = acc[i] < lo ? lo : acc[i];

					out[i] = v > hi ? hi : v;
				}
			} else {
				for (size_t i = 0; i < cn; i++)
					out[i] = acc[i];
			}
		}
	}
}
