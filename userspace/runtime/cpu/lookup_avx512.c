// SPDX-License-Identifier: MIT
/*
 * Byte lookup with AVX-512 VBMI: the 256-byte table sits in four zmm
 * registers; per 64 input bytes two vpermi2b look up the low 128 and the
 * high 128 entries by the low 7 bits and the top bit picks between them.
 * A row's tail is a masked load and store, so nothing outside the row is
 * read or written (the gaps of a channel slice stay untouched). Only
 * chosen where CPUID reports VBMI (kernels.c).
 */
#include <immintrin.h>

#include "kernels_internal.h"

void enpu_lookup_avx512_vbmi(const uint8_t *table, const uint8_t *x,
			     size_t x_stride, uint8_t *y, size_t y_stride,
			     size_t rows, size_t row_bytes)
{
	const __m512i t0 = _mm512_loadu_si512(table);
	const __m512i t1 = _mm512_loadu_si512(table + 64);
	const __m512i t2 = _mm512_loadu_si512(table + 128);
	const __m512i t3 = _mm512_loadu_si512(table + 192);
	size_t tail = row_bytes % 64, whole = row_bytes - tail;
	__mmask64 tail_mask = tail ? ((__mmask64)1 << tail) - 1 : 0;

	for (size_t r = 0; r < rows; r++, x += x_stride, y += y_stride) {
		size_t i = 0;

		for (; i < whole; i += 64) {
			__m512i v = _mm512_loadu_si512(x + i);
			__m512i lo = _mm512_permutex2var_epi8(t0, v, t1);
			__m512i hi = _mm512_permutex2var_epi8(t2, v, t3);

			_mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(
				_mm512_movepi8_mask(v), lo, hi));
		}
		if (tail_mask) {
			__m512i v = _mm512_maskz_loadu_epi8(tail_mask, x + i);
			__m512i lo = _mm512_permutex2var_epi8(t0, v, t1);
			__m512i hi = _mm512_permutex2var_epi8(t2, v, t3);

			_mm512_mask_storeu_epi8(y + i, tail_mask,
				_mm512_mask_blend_epi8(_mm512_movepi8_mask(v),
						       lo, hi));
		}
	}
}
