// SPDX-License-Identifier: MIT
/*
 * Float depthwise convolution, AVX2 + FMA build. The 3x3 window at
 * stride 2 (MobileNet's, dilation 1) has its own loop here, reading the
 * input in place: 8 output columns per vector from the 16 input columns
 * under them, split into even and odd columns with one in-lane shuffle
 * each; the shuffles leave the outputs in the lane order 0 1 4 5 2 3 6 7,
 * the same for every tap, so one cross-lane permute per output vector
 * puts them back. A vector that reaches into the padding columns loads
 * under a lane mask (vmaskmovps reads nothing and does not fault on the
 * lanes left out, which come out 0), a padding row is skipped. Taps
 * accumulate bias first, then row by row, column by column, one FMA
 * each. The generic kernel (fdwconv_impl.h, built for this ISA) copies
 * each band into a padded scratch and deinterleaves through the
 * compiler's strided loads: MobileNetV2's 96 x 112 x 112 stride-2 layer
 * took 0.72-0.81 ms there (node bests, 1 thread), 0.43 here, ONNX
 * Runtime 0.21. Stride 1 stays on the generic kernel: the same in-place
 * loop at stride 1 (nine loads per vector, masked at both ends of every
 * row) was slower on the 14- to 56-wide planes than the generic
 * kernel's flat run over a padded band (192 @28 0.15 -> 0.20 ms, 576
 * @14 0.18 -> 0.23), and was dropped. Every other geometry, and max
 * pooling, runs the generic kernel.
 */
#include <immintrin.h>
#include <stdint.h>

#include "avx2_mask.h"
#include "fmath_internal.h"

#define FDWCONV_NAME fdwconv_avx2_generic
static void fdwconv_avx2_generic(const struct enpu_fdwconv_pass *p);
#include "fdwconv_impl.h"

/*
 * Input rows asked into L1 ahead of the output row that reads them,
 * counted in output rows (as fdwconv_avx512.c: a plane written by the
 * layer before is past L2, and the stream prefetcher stops at each 4 KiB
 * page of it).
 */
#define DW_AHEAD 3

/* Widths the lane masks' 32-bit column arithmetic takes. */
#define WIDTH_LIMIT ((size_t)1 << 28)

static inline void prefetch_rows(const struct enpu_fdwconv_pass *p,
				 ptrdiff_t row, size_t rows)
{
	const char *from;

	if (row >= (ptrdiff_t)p->height)
		return;
	row = row < 0 ? 0 : row;
	from = (const char *)(p->x + (size_t)row * p->width);
	for (size_t q = 0; q < rows * p->width * sizeof(float); q += 64)
		_mm_prefetch(from + q, _MM_HINT_T0);
}

/* The input row of padded row iy, NULL for a padding row. */
static inline const float *input_row(const struct enpu_fdwconv_pass *p,
				     ptrdiff_t iy)
{
	return iy >= 0 && iy < (ptrdiff_t)p->height ?
	       p->x + (size_t)iy * p->width : NULL;
}

static inline void store_cols(const struct enpu_fdwconv_pass *p, float *out,
			      __m256 acc, size_t left, __m256 lo, __m256 hi)
{
	/* max(lo, x), then min(hi, x): a NaN accumulator comes out. */
	if (p->clamp)
		acc = _mm256_min_ps(hi, _mm256_max_ps(lo, acc));
	enpu_store_first8(out, acc, left);
}

static void dw3x3_s2(const struct enpu_fdwconv_pass *p, const __m256 *w,
		     __m256 bias, __m256 lo, __m256 hi)
{
	size_t ow = p->out_width, width = p->width;
	ptrdiff_t pl = (ptrdiff_t)p->pad_left;

	for (size_t y = p->row0; y < p->row1; y++) {
		ptrdiff_t iy = (ptrdiff_t)(2 * y) - (ptrdiff_t)p->pad_top;
		const float *r[3] = {
			input_row(p, iy), input_row(p, iy + 1),
			input_row(p, iy + 2),
		};
		float *out = p->y + y * ow;

		prefetch_rows(p, iy + 2 * DW_AHEAD + 1, 2);
		for (size_t x0 = 0; x0 < ow; x0 += 8) {
			/*
			 * Input columns base + 2j + kx: the 16 from base hold
			 * kx = 0 (even) and 1 (odd), the 16 from base + 2
			 * kx = 2 (even).
			 */
			ptrdiff_t base = (ptrdiff_t)(2 * x0) - pl;
			__m256 acc = bias;

			for (int ky = 0; ky < 3; ky++) {
				__m256 a0, a1, b0, b1;

				if (!r[ky])
					continue;
				a0 = enpu_load_cols8(r[ky], base, width);
				a1 = enpu_load_cols8(r[ky], base + 8, width);
				b0 = enpu_load_cols8(r[ky], base + 2, width);
				b1 = enpu_load_cols8(r[ky], base + 10, width);
				acc = _mm256_fmadd_ps(w[3 * ky],
					_mm256_shuffle_ps(a0, a1, 0x88), acc);
				acc = _mm256_fmadd_ps(w[3 * ky + 1],
					_mm256_shuffle_ps(a0, a1, 0xdd), acc);
				acc = _mm256_fmadd_ps(w[3 * ky + 2],
					_mm256_shuffle_ps(b0, b1, 0x88), acc);
			}
			/* Lanes 0 1 4 5 2 3 6 7 back into order. */
			acc = _mm256_castpd_ps(_mm256_permute4x64_pd(
				_mm256_castps_pd(acc), 0xd8));
			store_cols(p, out + x0, acc, ow - x0, lo, hi);
		}
	}
}

void enpu_fdwconv_avx2(const struct enpu_fdwconv_pass *p)
{
	__m256 w[9], bias, lo, hi;

	if (p->max_pool || p->kernel_h != 3 || p->kernel_w != 3 ||
	    p->dilation_h != 1 || p->dilation_w != 1 ||
	    p->stride_h != 2 || p->stride_w != 2 ||
	    p->width >= WIDTH_LIMIT || p->pad_left >= WIDTH_LIMIT ||
	    p->out_width >= WIDTH_LIMIT) {
		fdwconv_avx2_generic(p);
		return;
	}
	for (int i = 0; i < 9; i++)
		w[i] = _mm256_set1_ps(p->w[i]);
	bias = _mm256_set1_ps(p->bias);
	lo = _mm256_set1_ps(p->clamp ? p->clamp[0] : 0.0f);
	hi = _mm256_set1_ps(p->clamp ? p->clamp[1] : 0.0f);
	dw3x3_s2(p, w, bias, lo, hi);
}
