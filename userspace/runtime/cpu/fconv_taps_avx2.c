// SPDX-License-Identifier: MIT
/*
 * Dense float convolution at stride 2 with few taps (fmath_internal.h),
 * AVX2 + FMA: the twin of fconv_taps_avx512.c for CPUs without AVX-512.
 * Per output row, strips of 8 output columns: each tap's 8 inputs are
 * gathered once (two masked loads of the 16 input columns under them,
 * the even ones picked by an in-lane shuffle and one cross-lane permute;
 * masked lanes are neither read nor faulted on, so the padding is read
 * as zeros in place) into a panel in L1. Then blocks of 4 output
 * channels run over three strips at once: 12 accumulators, and per tap
 * 3 panel loads and 4 weight broadcasts for 12 FMAs (one strip at a time
 * would be about one load per FMA, and AVX2 has only 16 registers).
 * Every output sums its taps in the same order as the AVX-512 kernel
 * (from the bias, tap ascending, one FMA each), so the two agree bit for
 * bit; the unfolded GEMM adds the bias last, so it differs by rounding.
 */
#include <immintrin.h>
#include <stdint.h>

#include "avx2_mask.h"
#include "fmath_internal.h"

#define STRIP 8
#define STRIPS 3
#define CHANNELS 4
/* Blocks of CHANNELS stay inside wt's zero-padded rows. */
_Static_assert(ENPU_FCONV_FEW_TAPS_BLOCK % CHANNELS == 0,
	       "channel blocks must divide the weights' padding");

/* The panel of output row @oy, columns x0..x0 + 7: one vector per tap. */
static void gather(const struct enpu_fconv_few_taps_pass *p, size_t oy,
		   size_t x0, __m256 *panel)
{
	size_t t = 0;

	for (size_t r = 0; r < p->channels * p->kernel_h; r++) {
		const float *row = enpu_fconv_few_taps_row(p, r, oy);

		if (!row) {
			for (size_t kx = 0; kx < p->kernel_w; kx++)
				panel[t++] = _mm256_setzero_ps();
			continue;
		}
		for (size_t kx = 0; kx < p->kernel_w; kx++) {
			ptrdiff_t base = (ptrdiff_t)(2 * x0 + kx) -
					 (ptrdiff_t)p->pad_left;
			__m256 lo = enpu_load_cols8(row, base, p->width);
			__m256 hi = enpu_load_cols8(row, base + 8, p->width);
			/* lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6 */
			__m256 even = _mm256_shuffle_ps(lo, hi,
							_MM_SHUFFLE(2, 0, 2, 0));

			panel[t++] = _mm256_castpd_ps(_mm256_permute4x64_pd(
				_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
		}
	}
}

void enpu_fconv_few_taps_avx2(const struct enpu_fconv_few_taps_pass *p)
{
	size_t taps = p->channels * p->kernel_h * p->kernel_w;
	size_t ldw = (p->out_channels + ENPU_FCONV_FEW_TAPS_BLOCK - 1) /
		     ENPU_FCONV_FEW_TAPS_BLOCK * ENPU_FCONV_FEW_TAPS_BLOCK;
	size_t plane = p->out_height * p->out_width;
	size_t strips = (p->out_width + STRIP - 1) / STRIP;
	__m256 lo = _mm256_set1_ps(p->clamp ? p->clamp[0] : 0.0f);
	__m256 hi = _mm256_set1_ps(p->clamp ? p->clamp[1] : 0.0f);
	__m256 panel[STRIPS][ENPU_FCONV_FEW_TAPS];

	for (size_t oy = p->row0; oy < p->row1; oy++) {
		for (size_t s0 = 0; s0 < strips; s0 += STRIPS) {
			size_t ns = strips - s0 < STRIPS ? strips - s0 : STRIPS;
			float *y = p->y + oy * p->out_width + s0 * STRIP;

			for (size_t q = 0; q < STRIPS; q++) {
				if (q < ns) {
					gather(p, oy, (s0 + q) * STRIP,
					       panel[q]);
					continue;
				}
				for (size_t t = 0; t < taps; t++)
					panel[q][t] = _mm256_setzero_ps();
			}
			/*
			 * ldw is a multiple of 16, so every block of 4 lies
			 * in the zero-padded weights; channels past
			 * out_channels are computed and not stored.
			 */
			for (size_t m0 = 0; m0 < p->out_channels;
			     m0 += CHANNELS) {
				size_t mb = p->out_channels - m0 < CHANNELS ?
					    p->out_channels - m0 : CHANNELS;
				__m256 acc[CHANNELS][STRIPS];
				__m256 a00, a01, a02, a10, a11, a12;
				__m256 a20, a21, a22, a30, a31, a32;

				/*
				 * Named accumulators: with acc[][] in the loop
				 * GCC stored all 12 to the stack every tap.
				 */
#define BIAS(j) (p->bias && (j) < mb ? p->bias[m0 + (j)] : 0.0f)
				a00 = a01 = a02 = _mm256_set1_ps(BIAS(0));
				a10 = a11 = a12 = _mm256_set1_ps(BIAS(1));
				a20 = a21 = a22 = _mm256_set1_ps(BIAS(2));
				a30 = a31 = a32 = _mm256_set1_ps(BIAS(3));
#undef BIAS
				for (size_t t = 0; t < taps; t++) {
					const float *w = p->wt + t * ldw + m0;
					__m256 x0 = panel[0][t];
					__m256 x1 = panel[1][t];
					__m256 x2 = panel[2][t];
					__m256 wj;

#define TAP(j)								\
					wj = _mm256_broadcast_ss(w + (j));	\
					a##j##0 = _mm256_fmadd_ps(wj, x0, a##j##0); \
					a##j##1 = _mm256_fmadd_ps(wj, x1, a##j##1); \
					a##j##2 = _mm256_fmadd_ps(wj, x2, a##j##2);
					TAP(0) TAP(1) TAP(2) TAP(3)
#undef TAP
				}
				acc[0][0] = a00; acc[0][1] = a01; acc[0][2] = a02;
				acc[1][0] = a10; acc[1][1] = a11; acc[1][2] = a12;
				acc[2][0] = a20; acc[2][1] = a21; acc[2][2] = a22;
				acc[3][0] = a30; acc[3][1] = a31; acc[3][2] = a32;
				for (size_t j = 0; j < mb; j++) {
					float *yj = y + (m0 + j) * plane;

					for (size_t q = 0; q < ns; q++) {
						__m256 v = acc[j][q];
						size_t x0 = (s0 + q) * STRIP;

						/* max(lo, x), min(hi, x): NaN stays. */
						if (p->clamp)
							v = _mm256_min_ps(hi,
								_mm256_max_ps(lo, v));
						enpu_store_first8(yj + q * STRIP, v,
							  p->out_width - x0);
					}
				}
			}
		}
	}
}
