// SPDX-License-Identifier: MIT
/*
 * Float depthwise convolution, AVX-512 build. The 3x3 window at stride 1
 * or 2 (MobileNet's, dilation 1) has its own loop here: 16 output columns
 * per vector, each tap one load of the input row and one FMA, the image
 * edges as load masks (a lane whose input column is padding loads 0), so
 * the input is read in place: no padded copy, no staging row, and 7- and
 * 14-wide planes are one masked vector per row. Stride 2 loads the 32
 * input columns under 16 outputs and keeps the even or odd ones with a
 * two-source permute. Taps accumulate in the generic kernel's order
 * (bias, then row by row, column by column, one FMA each), a padding row
 * is skipped. Every other geometry, and max pooling, runs the generic
 * kernel (fdwconv_impl.h) built for this ISA.
 */
#include <float.h>
#include <immintrin.h>
#include <stdint.h>

#include "fmath_internal.h"

#define FDWCONV_NAME fdwconv_avx512_generic
static void fdwconv_avx512_generic(const struct enpu_fdwconv_pass *p);
#include "fdwconv_impl.h"
#include "avx512_mask.h"

/*
 * Input rows asked into L1 ahead of the output row that reads them,
 * counted in output rows. A model's layer reads an input its producer
 * just wrote past L2 (MobileNetV2's 96 x 112 x 112 is 4.8 MB), and the
 * hardware's stream prefetcher starts over at each 4 KiB page of a
 * plane: 96 @112 stride 2 after a 1x1 conv and 64 MB written between
 * runs (what the rest of the model and the ONNX Runtime run between ours
 * do), best of 200, 0.35-0.38 -> 0.28-0.29 ms for 1 to 6 rows ahead,
 * 0.27 with nothing written between. Past the band the rows are the next
 * band's or plane's; past the tensor a prefetch never faults.
 */
#define DW_AHEAD 3

/* Rows [row, row + rows) of the plane, from where they are, into L1. */
static inline void prefetch_rows(const struct enpu_fdwconv_pass *p,
				 ptrdiff_t row, size_t rows)
{
	const char *from;

	row = row < 0 ? 0 : row;
	from = (const char *)p->x + row * (ptrdiff_t)p->width *
	       (ptrdiff_t)sizeof(float);

	for (size_t q = 0; q < rows * p->width * sizeof(float); q += 64)
		_mm_prefetch(from + q, _MM_HINT_T0);
}

/* The three input rows of output row y (NULL: a padding row). */
static inline void window_rows(const struct enpu_fdwconv_pass *p, size_t y,
			       const float *r[3])
{
	ptrdiff_t iy = (ptrdiff_t)(y * p->stride_h) - (ptrdiff_t)p->pad_top;

	for (int ky = 0; ky < 3; ky++)
		r[ky] = iy + ky >= 0 && iy + ky < (ptrdiff_t)p->height ?
			p->x + (size_t)(iy + ky) * p->width : NULL;
}

static inline __m512 finish(__m512 acc, const float *clamp, __m512 lo,
			    __m512 hi)
{
	/* max(lo, x), then min(hi, x): a NaN accumulator comes out. */
	return clamp ? _mm512_min_ps(hi, _mm512_max_ps(lo, acc)) : acc;
}

static void dw3x3_s1(const struct enpu_fdwconv_pass *p, const __m512 *w,
		     __m512 bias, __m512 lo, __m512 hi)
{
	size_t ow = p->out_width;
	ptrdiff_t pl = (ptrdiff_t)p->pad_left;

	for (size_t y = p->row0; y < p->row1; y++) {
		const float *r[3];
		float *out = p->y + y * ow;

		prefetch_rows(p, (ptrdiff_t)(y + DW_AHEAD) + 2 -
			      (ptrdiff_t)p->pad_top, 1);
		window_rows(p, y, r);
		for (size_t x0 = 0; x0 < ow; x0 += 16) {
			ptrdiff_t base = (ptrdiff_t)x0 - pl;
			__mmask16 store = enpu_mask16(ow - x0);
			__mmask16 m0 = enpu_mask16_inside(base, p->width) & store;
			__mmask16 m1 = enpu_mask16_inside(base + 1, p->width) & store;
			__mmask16 m2 = enpu_mask16_inside(base + 2, p->width) & store;
			__m512 acc = bias;

			for (int ky = 0; ky < 3; ky++) {
				if (!r[ky])
					continue;
				acc = _mm512_fmadd_ps(w[3 * ky],
					enpu_load_cols(r[ky], base, m0), acc);
				acc = _mm512_fmadd_ps(w[3 * ky + 1],
					enpu_load_cols(r[ky], base + 1, m1), acc);
				acc = _mm512_fmadd_ps(w[3 * ky + 2],
					enpu_load_cols(r[ky], base + 2, m2), acc);
			}
			_mm512_mask_storeu_ps(out + x0, store,
					      finish(acc, p->clamp, lo, hi));
		}
	}
}

/* valignd on float vectors: lanes imm.. of lo, then hi's, 16 of them. */
static inline __m512 align_lanes(__m512 hi, __m512 lo, const int imm)
{
	return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi),
						       _mm512_castps_si512(lo),
						       imm));
}

/*
 * The three taps' inputs of 16 output columns from x0 in one input row
 * (NULL: a padding row, all zeros): v[1] its columns x0.., v[0] and v[2]
 * the same shifted one column right and left, i.e. columns x0 - 1.. and
 * x0 + 1... The row is loaded once per 16 columns (its neighbouring
 * vectors give the one lane shifted in; past either end of the row that
 * lane is 0, the padding column), where three masked loads at column
 * offsets -1, 0 and +1 read it three times.
 */
static inline void shifted_row(const float *row, size_t x0, size_t width,
			       __m512 v[3])
{
	const __m512 zero = _mm512_setzero_ps();
	__m512 cur, prev, next;

	if (!row) {
		for (int i = 0; i < 3; i++)
			v[i] = zero;
		return;
	}
	cur = _mm512_maskz_loadu_ps(enpu_mask16(width - x0), row + x0);
	prev = x0 ? _mm512_loadu_ps(row + x0 - 16) : zero;
	next = x0 + 16 < width ?
	       _mm512_maskz_loadu_ps(enpu_mask16(width - x0 - 16),
				     row + x0 + 16) : zero;
	v[0] = align_lanes(cur, prev, 15);
	v[1] = cur;
	v[2] = align_lanes(next, cur, 1);
}

static inline const float *input_row(const struct enpu_fdwconv_pass *p,
				     ptrdiff_t iy)
{
	return iy >= 0 && iy < (ptrdiff_t)p->height ?
	       p->x + (size_t)iy * p->width : NULL;
}

/*
 * Stride 1 with one padding column on the left and at most one on the
 * right (pad 1: MobileNet's, output width <= input width), by shifted
 * rows: down each strip of 16 output columns, every input row is turned
 * into its three shifted vectors once (shifted_row()) and they stay in
 * registers for the three output rows that read them, so an output row
 * costs one row load, two lane shifts and nine FMAs instead of nine
 * masked loads and their masks. A padding row is zeros (adding w * 0
 * leaves the sum as it is); the taps accumulate in dw3x3_s1's order.
 */
static void dw3x3_s1_shifted(const struct enpu_fdwconv_pass *p,
			     const __m512 *w, __m512 bias, __m512 lo,
			     __m512 hi)
{
	size_t ow = p->out_width;
	ptrdiff_t top = (ptrdiff_t)p->row0 - (ptrdiff_t)p->pad_top;

	for (size_t x0 = 0; x0 < ow; x0 += 16) {
		__mmask16 store = enpu_mask16(ow - x0);
		__m512 r0[3], r1[3], r2[3];

		shifted_row(input_row(p, top), x0, p->width, r0);
		shifted_row(input_row(p, top + 1), x0, p->width, r1);
		for (size_t y = p->row0; y < p->row1; y++) {
			ptrdiff_t iy = (ptrdiff_t)y - (ptrdiff_t)p->pad_top;
			__m512 acc = bias;

			/* The first strip reads each row first. */
			if (!x0)
				prefetch_rows(p, iy + 2 + DW_AHEAD, 1);
			shifted_row(input_row(p, iy + 2), x0, p->width, r2);
			acc = _mm512_fmadd_ps(w[0], r0[0], acc);
			acc = _mm512_fmadd_ps(w[1], r0[1], acc);
			acc = _mm512_fmadd_ps(w[2], r0[2], acc);
			acc = _mm512_fmadd_ps(w[3], r1[0], acc);
			acc = _mm512_fmadd_ps(w[4], r1[1], acc);
			acc = _mm512_fmadd_ps(w[5], r1[2], acc);
			acc = _mm512_fmadd_ps(w[6], r2[0], acc);
			acc = _mm512_fmadd_ps(w[7], r2[1], acc);
			acc = _mm512_fmadd_ps(w[8], r2[2], acc);
			_mm512_mask_storeu_ps(p->y + y * ow + x0, store,
					      finish(acc, p->clamp, lo, hi));
			for (int i = 0; i < 3; i++) {
				r0[i] = r1[i];
				r1[i] = r2[i];
			}
		}
	}
}

static void dw3x3_s2(const struct enpu_fdwconv_pass *p, const __m512 *w,
		     __m512 bias, __m512 lo, __m512 hi)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
					       18, 20, 22, 24, 26, 28, 30);
	const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
					      19, 21, 23, 25, 27, 29, 31);
	size_t ow = p->out_width;
	ptrdiff_t pl = (ptrdiff_t)p->pad_left;

	for (size_t y = p->row0; y < p->row1; y++) {
		const float *r[3];
		float *out = p->y + y * ow;
		prefetch_rows(p, (ptrdiff_t)(2 * (y + DW_AHEAD)) + 1 -
			      (ptrdiff_t)p->pad_top, 2);
		window_rows(p, y, r);
		for (size_t x0 = 0; x0 < ow; x0 += 16) {
			/*
			 * Input columns base + 2j + kx: the 32 from base hold
			 * kx = 0 (even) and 1 (odd), the 32 from base + 2
			 * kx = 2 (even).
			 */
			ptrdiff_t base = (ptrdiff_t)(2 * x0) - pl;
			__mmask16 store = enpu_mask16(ow - x0);
			__mmask16 m0 = enpu_mask16_inside(base, p->width);
			__mmask16 m1 = enpu_mask16_inside(base + 16, p->width);
			__mmask16 m2 = enpu_mask16_inside(base + 2, p->width);
			__mmask16 m3 = enpu_mask16_inside(base + 18, p->width);
			__m512 acc = bias;

			for (int ky = 0; ky < 3; ky++) {
				__m512 a0, a1, b0, b1;

				if (!r[ky])
					continue;
				a0 = enpu_load_cols(r[ky], base, m0);
				a1 = enpu_load_cols(r[ky], base + 16, m1);
				b0 = enpu_load_cols(r[ky], base + 2, m2);
				b1 = enpu_load_cols(r[ky], base + 18, m3);
				acc = _mm512_fmadd_ps(w[3 * ky],
					_mm512_permutex2var_ps(a0, even, a1), acc);
				acc = _mm512_fmadd_ps(w[3 * ky + 1],
					_mm512_permutex2var_ps(a0, odd, a1), acc);
				acc = _mm512_fmadd_ps(w[3 * ky + 2],
					_mm512_permutex2var_ps(b0, even, b1), acc);
			}
			_mm512_mask_storeu_ps(out + x0, store,
					      finish(acc, p->clamp, lo, hi));
		}
	}
}

/*
 * Max pooling 2x2 at stride 2 with every window inside the image (no
 * top or left padding, none of the bottom or right padding read: U-Net's
 * pools; a window reaching into padding would take the 0 a masked load
 * gives for it). Per 16 output columns the 32 input columns of both
 * input rows, split into even and odd columns with two-source permutes,
 * then the four taps in the generic kernel's order (row by row, column
 * by column) from -FLT_MAX with max(v, acc), which is its
 * v > acc ? v : acc: a NaN input is skipped and ties keep the first, so
 * the output is the same bit for bit. Lanes past the row are loaded as
 * 0; they only reach output columns past out_width, which are not
 * stored.
 */
static void max2x2_s2(const struct enpu_fdwconv_pass *p)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
					       18, 20, 22, 24, 26, 28, 30);
	const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
					      19, 21, 23, 25, 27, 29, 31);
	const __m512 least = _mm512_set1_ps(-FLT_MAX);
	size_t ow = p->out_width, w = p->width;

	for (size_t y = p->row0; y < p->row1; y++) {
		const float *r0 = p->x + 2 * y * w, *r1 = r0 + w;
		float *out = p->y + y * ow;

		prefetch_rows(p, (ptrdiff_t)(2 * (y + DW_AHEAD)), 2);

		for (size_t x0 = 0; x0 < ow; x0 += 16) {
			size_t c = 2 * x0;
			__mmask16 m0 = enpu_mask16(w - c);
			__mmask16 m1 = w - c > 16 ? enpu_mask16(w - c - 16) : 0;
			__m512 a0 = _mm512_maskz_loadu_ps(m0, r0 + c);
			__m512 a1 = _mm512_maskz_loadu_ps(m1, r0 + c + 16);
			__m512 b0 = _mm512_maskz_loadu_ps(m0, r1 + c);
			__m512 b1 = _mm512_maskz_loadu_ps(m1, r1 + c + 16);
			__m512 acc = least;

			acc = _mm512_max_ps(_mm512_permutex2var_ps(a0, even, a1), acc);
			acc = _mm512_max_ps(_mm512_permutex2var_ps(a0, odd, a1), acc);
			acc = _mm512_max_ps(_mm512_permutex2var_ps(b0, even, b1), acc);
			acc = _mm512_max_ps(_mm512_permutex2var_ps(b0, odd, b1), acc);
			_mm512_mask_storeu_ps(out + x0, enpu_mask16(ow - x0), acc);
		}
	}
}

void enpu_fdwconv_avx512(const struct enpu_fdwconv_pass *p)
{
	__m512 w[9], bias, lo, hi;

	if (p->max_pool && p->kernel_h == 2 && p->kernel_w == 2 &&
	    p->stride_h == 2 && p->stride_w == 2 && p->dilation_h == 1 &&
	    p->dilation_w == 1 && !p->pad_top && !p->pad_left &&
	    2 * p->out_height <= p->height && 2 * p->out_width <= p->width) {
		max2x2_s2(p);
		return;
	}
	if (p->max_pool || p->kernel_h != 3 || p->kernel_w != 3 ||
	    p->dilation_h != 1 || p->dilation_w != 1 ||
	    p->stride_h != p->stride_w ||
	    (p->stride_w != 1 && p->stride_w != 2)) {
		fdwconv_avx512_generic(p);
		return;
	}
	for (int i = 0; i < 9; i++)
		w[i] = _mm512_set1_ps(p->w[i]);
	bias = _mm512_set1_ps(p->bias);
	lo = _mm512_set1_ps(p->clamp ? p->clamp[0] : 0.0f);
	hi = _mm512_set1_ps(p->clamp ? p->clamp[1] : 0.0f);
	if (p->stride_w == 1 && p->pad_left == 1 && p->out_width <= p->width)
		dw3x3_s1_shifted(p, w, bias, lo, hi);
	else if (p->stride_w == 1)
		dw3x3_s1(p, w, bias, lo, hi);
	else
		dw3x3_s2(p, w, bias, lo, hi);
}
