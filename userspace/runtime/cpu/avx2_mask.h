/* SPDX-License-Identifier: MIT */
/*
 * Lane masks and masked row access for the AVX2 kernels (the twin of
 * avx512_mask.h): vmaskmovps reads and writes nothing on the lanes left
 * out and does not fault on them, which is what lets a kernel read a row
 * that starts in the padding, or its last partial vector, in place.
 * Included only by files built with -mavx2.
 */
#ifndef ENPU_AVX2_MASK_H
#define ENPU_AVX2_MASK_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* The first @left of 8 lanes (all 8 when at least that many are left). */
static inline __m256i enpu_mask8(size_t left)
{
	if (left >= 8)
		return _mm256_set1_epi32(-1);
	return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left),
				  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/*
 * 8 floats of @row from column @col (negative in the left padding), the
 * lanes whose column is outside [0, width) as 0. Inside the row a plain
 * load; otherwise a masked one, its address formed as an integer since
 * it may lie before the row (masked-off lanes are never read).
 */
static inline __m256 enpu_load_cols8(const float *row, ptrdiff_t col,
				     size_t width)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i c, m;

	if (col >= 0 && col + 8 <= (ptrdiff_t)width)
		return _mm256_loadu_ps(row + col);
	if (col + 8 <= 0 || col >= (ptrdiff_t)width)
		return _mm256_setzero_ps();
	c = _mm256_add_epi32(_mm256_set1_epi32((int)col), lane);
	m = _mm256_and_si256(_mm256_cmpgt_epi32(c, _mm256_set1_epi32(-1)),
			     _mm256_cmpgt_epi32(_mm256_set1_epi32((int)width),
						c));
	return _mm256_maskload_ps((const float *)((uintptr_t)row +
				  (uintptr_t)(col * (ptrdiff_t)sizeof(float))),
				  m);
}

/* The first @n of 8 lanes of @v to @out (all 8 when n >= 8). */
static inline void enpu_store_first8(float *out, __m256 v, size_t n)
{
	if (n >= 8)
		_mm256_storeu_ps(out, v);
	else
		_mm256_maskstore_ps(out, enpu_mask8(n), v);
}

#endif /* ENPU_AVX2_MASK_H */
