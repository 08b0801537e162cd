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
 *
 * Convolution first tries the padded path: the band's input rows are
 * copied once into a zero-padded scratch, so no output needs an edge
 * case; at stride 1 the band's rows are then one flat run (row stride
 * of the scratch), which keeps the vectors full on 7- and 14-wide
 * planes where a loop per row would be mostly remainder.
 */
#include <float.h>
#include <stddef.h>
#include <string.h>

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

/* Scratch of the padded path, in floats (input rows, output run). */
#define PAD_SCRATCH 8192

/*
 * Padded rows [r0, r0 + rows) of the plane (padded row r is input row
 * r - pad_top, column c input column c - pad_left) into buf, stride wp.
 */
static void pad_rows(const struct enpu_fdwconv_pass *p, size_t r0,
		     size_t rows, size_t wp, float *buf)
{
	size_t pl = p->pad_left, w = p->width;

	for (size_t r = 0; r < rows; r++) {
		ptrdiff_t iy = (ptrdiff_t)(r0 + r) - (ptrdiff_t)p->pad_top;
		float *dst = buf + r * wp;

		if (iy < 0 || iy >= (ptrdiff_t)p->height) {
			memset(dst, 0, wp * sizeof(float));
			continue;
		}
		memset(dst, 0, pl * sizeof(float));
		memcpy(dst + pl, p->x + (size_t)iy * w, w * sizeof(float));
		memset(dst + pl + w, 0, (wp - pl - w) * sizeof(float));
	}
}

/*
 * t[i] = bias + sum of w[tap] * src[i * step + off[tap]] for i < n: a
 * 3x3 window as one expression (nine loads and FMAs per vector; stride 2
 * deinterleaves), anything else tap by tap over t. Written once per
 * step so that each loop has a constant stride.
 */
#define TAPS(NAME, STEP)						\
static void NAME(const struct enpu_fdwconv_pass *p, const float *src,	\
		 size_t wp, size_t n, float *restrict t)		\
{									\
	const float *restrict w = p->w;					\
	size_t dh = p->dilation_h * wp, dw = p->dilation_w;		\
	float bias = p->bias;						\
									\
	if (p->kernel_h == 3 && p->kernel_w == 3) {			\
		const float *restrict a = src, *restrict b = src + dh,	\
			    *restrict c = src + 2 * dh;			\
		float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3],	\
		      w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7],	\
		      w8 = w[8];					\
									\
		for (size_t i = 0; i < n; i++) {			\
			size_t o = i * (STEP);				\
									\
			t[i] = bias + w0 * a[o] + w1 * a[o + dw] +	\
			       w2 * a[o + 2 * dw] + w3 * b[o] +		\
			       w4 * b[o + dw] + w5 * b[o + 2 * dw] +	\
			       w6 * c[o] + w7 * c[o + dw] +		\
			       w8 * c[o + 2 * dw];			\
		}							\
		return;							\
	}								\
	for (size_t i = 0; i < n; i++)					\
		t[i] = bias;						\
	for (size_t ky = 0; ky < p->kernel_h; ky++)			\
		for (size_t kx = 0; kx < p->kernel_w; kx++) {		\
			const float *restrict s = src + ky * dh + kx * dw; \
			float wk = w[ky * p->kernel_w + kx];		\
									\
			for (size_t i = 0; i < n; i++)			\
				t[i] += wk * s[i * (STEP)];		\
		}							\
}
TAPS(taps1, 1)
TAPS(taps2, 2)
TAPS(taps_any, p->stride_w)

/* One output row from t, clamped when asked. */
static void store(const struct enpu_fdwconv_pass *p, const float *t,
		  float *out)
{
	if (!p->clamp) {
		memcpy(out, t, p->out_width * sizeof(float));
		return;
	}
	float lo = p->clamp[0], hi = p->clamp[1];

	for (size_t x = 0; x < p->out_width; x++) {
		float v = t[x] < lo ? lo : t[x];

		out[x] = v > hi ? hi : v;
	}
}

/*
 * The padded path; 0 when the band does not fit the scratch. Row by row
 * at the column stride; at stride 1 in both axes the band's rows run as
 * one flat range of the scratch (the wp - out_width columns past each
 * row's end are computed and dropped).
 */
static int padded(const struct enpu_fdwconv_pass *p)
{
	float in[PAD_SCRATCH], t[PAD_SCRATCH];
	size_t sh = p->stride_h, sw = p->stride_w;
	size_t span_h = (p->kernel_h - 1) * p->dilation_h;
	size_t span_w = (p->kernel_w - 1) * p->dilation_w;
	size_t cols = (p->out_width - 1) * sw + 1;	/* stride-1 columns */
	size_t wp = cols + span_w, rows, r0 = p->row0 * sh;
	size_t bands = p->row1 - p->row0;

	if (wp < p->pad_left + p->width)
		wp = p->pad_left + p->width;
	rows = (bands - 1) * sh + span_h + 1;
	if (rows * wp > PAD_SCRATCH || bands * wp > PAD_SCRATCH ||
	    cols > PAD_SCRATCH)
		return 0;
	pad_rows(p, r0, rows, wp, in);
	if (sh == 1 && sw == 1) {
		taps1(p, in, wp, (bands - 1) * wp + cols, t);
		for (size_t y = 0; y < bands; y++)
			store(p, t + y * wp,
			      p->y + (p->row0 + y) * p->out_width);
		return 1;
	}
	for (size_t y = 0; y < bands; y++) {
		const float *src = in + y * sh * wp;

		if (sw == 1)
			taps1(p, src, wp, p->out_width, t);
		else if (sw == 2)
			taps2(p, src, wp, p->out_width, t);
		else
			taps_any(p, src, wp, p->out_width, t);
		store(p, t, p->y + (p->row0 + y) * p->out_width);
	}
	return 1;
}

void FDWCONV_NAME(const struct enpu_fdwconv_pass *p)
{
	float acc[ROW_CHUNK];

	if (!p->max_pool && p->row1 > p->row0 && p->out_width && padded(p))
		return;

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
					if (p->max_pool && s == 2) {
						/* Constant stride: vectorized. */
						for (size_t i = lo; i < hi; i++) {
							float v = src[2 * (i - lo)];

							acc[i] = v > acc[i] ? v : acc[i];
						}
					} else if (p->max_pool && s == 1) {
						for (size_t i = lo; i < hi; i++) {
							float v = src[i - lo];

							acc[i] = v > acc[i] ? v : acc[i];
						}
					} else if (p->max_pool) {
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
