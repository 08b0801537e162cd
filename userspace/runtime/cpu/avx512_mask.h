/* SPDX-License-Identifier: MIT */
/*
 * The lane mask of a row tail for the AVX-512 kernels: the first @left of
 * 16 lanes (all 16 when at least that many are left). Masked loads do not
 * fault on the lanes left out, which is what lets a kernel read and write
 * the last partial vector of a row in place. Also the mask of the lanes
 * inside a row that starts in the padding, and the load under it.
 */
#ifndef ENPU_AVX512_MASK_H
#define ENPU_AVX512_MASK_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline __mmask16 enpu_mask16(size_t left)
{
	return left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
}

/*
 * The lanes j < 16 whose input column base + j lies in [0, width): a row
 * read from column base (negative in the left padding) under this mask
 * loads the padding as zeros.
 */
static inline __mmask16 enpu_mask16_inside(ptrdiff_t base, size_t width)
{
	ptrdiff_t first = base >= 0 ? 0 : -base;
	ptrdiff_t end = (ptrdiff_t)width - base;

	if (end > 16)
		end = 16;
	if (first >= end)
		return 0;
	return (__mmask16)(((1u << end) - 1) & ~((1u << first) - 1));
}

/*
 * 16 floats at row + offset, lanes outside @m zero. The address may lie
 * before the row where the left padding is: masked-off lanes are never
 * read (AVX-512 suppresses their faults), so the pointer is formed as an
 * integer.
 */
static inline __m512 enpu_load_cols(const float *row, ptrdiff_t offset,
				    __mmask16 m)
{
	return _mm512_maskz_loadu_ps(m, (const void *)((uintptr_t)row +
				     (uintptr_t)(offset * (ptrdiff_t)sizeof(float))));
}

#endif /* ENPU_AVX512_MASK_H */
