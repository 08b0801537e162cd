// SPDX-License-Identifier: MIT
/*
 * Dense float convolution at stride 2 with few taps (fmath_internal.h:
 * at most ENPU_FCONV_FEW_TAPS input channels x kernel positions), AVX-512:
 * MobileNet's first layer, 3->32 3x3/2, which the GEMM path runs over an
 * unfolding of 27 rows per output pixel. Here, per output row and strip
 * of 16 output columns, each tap's 16 inputs are gathered once (two
 * loads of the 32 input columns under them, the even ones kept with a
 * two-source permute, the padding as load masks so the input is read in
 * place) into a panel of taps x 16 floats in L1, and then every block of
 * 16 output channels runs over the panel: 16 accumulators, one FMA per
 * tap each with the weight broadcast from the transposed weights. The
 * gather is paid once per strip for all output channels, where the GEMM
 * wrote and read back the unfolding.
 */
#include <immintrin.h>
#include <stdint.h>

#include "avx512_mask.h"
#include "fmath_internal.h"

#define BLOCK ENPU_FCONV_FEW_TAPS_BLOCK

/* The panel of output row @oy, columns x0..x0 + 15: one vector per tap. */
static void gather(const struct enpu_fconv_few_taps_pass *p, size_t oy,
		   size_t x0, __m512 *panel)
{
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
					       18, 20, 22, 24, 26, 28, 30);
	size_t t = 0;

	for (size_t r = 0; r < p->channels * p->kernel_h; r++) {
		const float *row = enpu_fconv_few_taps_row(p, r, oy);

		if (!row) {
			for (size_t kx = 0; kx < p->kernel_w; kx++)
				panel[t++] = _mm512_setzero_ps();
			continue;
		}
		for (size_t kx = 0; kx < p->kernel_w; kx++) {
			ptrdiff_t base = (ptrdiff_t)(2 * x0 + kx) -
					 (ptrdiff_t)p->pad_left;
			__m512 lo = enpu_load_cols(row, base, enpu_mask16_inside(base, p->width));
			__m512 hi = enpu_load_cols(row, base + 16,
					      enpu_mask16_inside(base + 16, p->width));

			panel[t++] = _mm512_permutex2var_ps(lo, even, hi);
		}
	}
}

void enpu_fconv_few_taps_avx512(const struct enpu_fconv_few_taps_pass *p)
{
	size_t taps = p->channels * p->kernel_h * p->kernel_w;
	size_t ldw = (p->out_channels + BLOCK - 1) / BLOCK * BLOCK;
	size_t plane = p->out_height * p->out_width;
	__m512 lo = _mm512_set1_ps(p->clamp ? p->clamp[0] : 0.0f);
	__m512 hi = _mm512_set1_ps(p->clamp ? p->clamp[1] : 0.0f);
	__m512 panel[ENPU_FCONV_FEW_TAPS];
	size_t strips = (p->out_width + 15) / 16;

	for (size_t i = p->row0 * strips; i < p->row1 * strips; i++) {
		size_t oy = i / strips, x0 = i % strips * 16;
		__mmask16 store = enpu_mask16(p->out_width - x0);
		float *y = p->y + oy * p->out_width + x0;

		gather(p, oy, x0, panel);
		for (size_t m0 = 0; m0 < p->out_channels; m0 += BLOCK) {
			size_t mb = p->out_channels - m0 < BLOCK ?
				    p->out_channels - m0 : BLOCK;
			__m512 acc[BLOCK];

			for (size_t j = 0; j < BLOCK; j++)
				acc[j] = _mm512_set1_ps(p->bias && j < mb ?
							p->bias[m0 + j] : 0.0f);
			for (size_t t = 0; t < taps; t++) {
				const float *w = p->wt + t * ldw + m0;

				for (size_t j = 0; j < BLOCK; j++)
					acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(w[j]),
								 panel[t], acc[j]);
			}
			for (size_t j = 0; j < mb; j++) {
				__m512 v = acc[j];

				/* max(lo, x), then min(hi, x): NaN stays. */
				if (p->clamp)
					v = _mm512_min_ps(hi,
							  _mm512_max_ps(lo, v));
				_mm512_mask_storeu_ps(y + (m0 + j) * plane,
						      store, v);
			}
		}
	}
}
