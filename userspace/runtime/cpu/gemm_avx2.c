// SPDX-License-Identifier: MIT
/*
 * AVX2 GEMM microkernel for CPUs without VNNI: up to 4 rows x 16 columns,
 * done as two halves of 8 columns. vpmaddubsw would saturate on u8 x s8
 * pairs, so both operands are widened to int16 and multiplied with vpmaddwd,
 * which is exact: each 32-bit lane holds two partial sums of one column
 * (k0*b0 + k1*b1 and k2*b2 + k3*b3) that are added pairwise at the end.
 * With an indirection buffer (convolution) each row's K comes in taps
 * pieces from one pointer per row and tap (see struct enpu_gemm_tile).
 * Compiled with -mavx2 -mfma.
 */
#include "gemm_epilogue.h"
#include "requant_avx2.h"

#include <immintrin.h>
#include <string.h>

#define ROWS 4
#define HALF 8

static inline uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* 4 activation bytes -> 4 int16, repeated over the 4 column slots. */
static inline __m256i broadcast_a(uint32_t word)
{
	__m128i bytes = _mm_cvtsi32_si128((int)word);

	return _mm256_broadcastq_epi64(_mm_cvtepu8_epi16(bytes));
}

static void store_row(const struct enpu_gemm_tile *t, size_t r, size_t first,
		      size_t count, __m256i acc, __m256i multiplier,
		      __m256i shift)
{
	if (t->c_type == ENPU_CPU_INT32) {
		int32_t lanes[HALF];

		_mm256_storeu_si256((__m256i *)lanes, acc);
		memcpy((int32_t *)t->c + r * t->ldc + first, lanes,
		       count * sizeof(int32_t));
		return;
	}
	acc = enpu_requantize_avx2(acc, multiplier, shift, t->zero_point,
				   t->min, t->max);
	enpu_store8_avx2((uint8_t *)t->c + r * t->ldc + first, acc,
			 t->c_type == ENPU_CPU_UINT8, count);
}

static void gemm_avx2_half(const struct enpu_gemm_tile *t, size_t half)
{
	__m256i acc[ROWS][2];
	/* Group g of K is at row[r] + 4 * (g - tap_first_group). */
	const uint8_t *row[ROWS];
	size_t tap_first_group = 0;
	size_t full_groups = t->k / 4;
	size_t groups_per_tap = t->indirection ? t->tap_bytes / 4 : t->k_groups;
	size_t first = half * HALF;
	size_t count;
	const int8_t *b = t->panel + half * 32;
	__m256i multiplier = _mm256_setzero_si256();
	__m256i shift = _mm256_setzero_si256();
	__m256i init;

	if (first >= t->columns)
		return;
	count = t->columns - first < HALF ? t->columns - first : HALF;
	for (size_t r = 0; r < ROWS; r++) {
		acc[r][0] = acc[r][1] = _mm256_setzero_si256();
		row[r] = t->indirection ? NULL : t->a + r * t->lda;
	}

	for (size_t g = 0; g < t->k_groups; g++) {
		/* Columns 0-3 and 4-7 of this half, 4 k each, as int16. */
		__m256i w0 = _mm256_cvtepi8_epi16(
			_mm_loadu_si128((const __m128i *)(b + g * 64)));
		__m256i w1 = _mm256_cvtepi8_epi16(
			_mm_loadu_si128((const __m128i *)(b + g * 64 + 16)));

		if (g % groups_per_tap == 0 && t->indirection) {
			size_t tap = g / groups_per_tap;

			tap_first_group = g;
			for (size_t r = 0; r < t->rows && r < ROWS; r++)
				row[r] = t->indirection[r * t->taps + tap] +
					 t->a_offset;
		}
		for (size_t r = 0; r < t->rows && r < ROWS; r++) {
			uint32_t word = g < full_groups ?
					load_u32(row[r] + 4 * (g - tap_first_group)) :
					enpu_gemm_load_a_tail(row[r], t->k);
			__m256i x = broadcast_a(word ^ t->a_flip);

			acc[r][0] = _mm256_add_epi32(acc[r][0],
						     _mm256_madd_epi16(x, w0));
			acc[r][1] = _mm256_add_epi32(acc[r][1],
						     _mm256_madd_epi16(x, w1));
		}
	}

	init = _mm256_sub_epi32(
		_mm256_loadu_si256((const __m256i *)(t->bias + first)),
		_mm256_mullo_epi32(
			_mm256_loadu_si256((const __m256i *)(t->column_sum + first)),
			_mm256_set1_epi32(t->a_zero_point)));
	if (t->c_type != ENPU_CPU_INT32) {
		if (t->per_channel) {
			int32_t m[HALF] = { 0 }, s[HALF] = { 0 };

			memcpy(m, t->multiplier + first, count * sizeof(int32_t));
			memcpy(s, t->shift + first, count * sizeof(int32_t));
			multiplier = _mm256_loadu_si256((const __m256i *)m);
			shift = _mm256_loadu_si256((const __m256i *)s);
		} else {
			multiplier = _mm256_set1_epi32(t->multiplier[0]);
			shift = _mm256_set1_epi32(t->shift[0]);
		}
	}
	for (size_t r = 0; r < t->rows && r < ROWS; r++) {
		/* Pairwise sums come out as columns 0 1 4 5 | 2 3 6 7. */
		__m256i sums = _mm256_hadd_epi32(acc[r][0], acc[r][1]);

		sums = _mm256_permute4x64_epi64(sums, 0xd8);
		store_row(t, r, first, count, _mm256_add_epi32(sums, init),
			  multiplier, shift);
	}
}

static void gemm_avx2(const struct enpu_gemm_tile *t)
{
	gemm_avx2_half(t, 0);
	gemm_avx2_half(t, 1);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_avx2 = {
	.kernel = gemm_avx2,
	.rows = ROWS,
	.columns = ENPU_GEMM_PANEL_COLUMNS,
};
