// SPDX-License-Identifier: MIT
/*
 * AVX2 GEMM microkernel for CPUs without VNNI: up to 4 rows x 16 columns,
 * done as two halves of 8 columns. vpmaddubsw would saturate on u8 x s8
 * pairs, so both operands are widened to int16 and multiplied with vpmaddwd,
 * which is exact: each 32-bit lane holds two partial sums of one column
 * (k0*b0 + k1*b1 and k2*b2 + k3*b3) that are added pairwise at the end.
 * Compiled with -mavx2 -mfma.
 */
#include "gemm_epilogue.h"

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

/* enpu_requantize() on 8 lanes; see enpu_quantization.h for the rule. */
static inline __m256i requantize8(__m256i acc, __m256i multiplier,
				  __m256i shift, const struct enpu_gemm_tile *t)
{
	const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
	const __m256i one = _mm256_set1_epi64x(1);
	/* AVX2 has no 64-bit arithmetic shift: bias by 2^62 (see the rule). */
	const __m256i bias = _mm256_set1_epi64x((long long)1 << 62);
	const __m256i sixty_two = _mm256_set1_epi64x(62);
	__m256i shift_even = _mm256_and_si256(shift, low32);
	__m256i shift_odd = _mm256_srli_epi64(shift, 32);
	__m256i even = _mm256_mul_epi32(acc, multiplier);
	__m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(acc, 32),
				       _mm256_srli_epi64(multiplier, 32));
	__m256i out;

	even = _mm256_add_epi64(even, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(shift_even, one)));
	even = _mm256_srlv_epi64(_mm256_add_epi64(even, bias), shift_even);
	even = _mm256_sub_epi64(even, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(sixty_two, shift_even)));
	odd = _mm256_add_epi64(odd, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(shift_odd, one)));
	odd = _mm256_srlv_epi64(_mm256_add_epi64(odd, bias), shift_odd);
	odd = _mm256_sub_epi64(odd, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(sixty_two, shift_odd)));
	out = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
	out = _mm256_max_epi32(out, _mm256_set1_epi32(t->min - t->zero_point));
	out = _mm256_min_epi32(out, _mm256_set1_epi32(t->max - t->zero_point));
	return _mm256_add_epi32(out, _mm256_set1_epi32(t->zero_point));
}

static void store_row(const struct enpu_gemm_tile *t, size_t r, size_t first,
		      size_t count, __m256i acc, __m256i multiplier,
		      __m256i shift)
{
	uint8_t bytes[16];
	__m128i words;

	if (t->c_type == ENPU_CPU_INT32) {
		int32_t lanes[HALF];

		_mm256_storeu_si256((__m256i *)lanes, acc);
		memcpy((int32_t *)t->c + r * t->ldc + first, lanes,
		       count * sizeof(int32_t));
		return;
	}
	acc = requantize8(acc, multiplier, shift, t);
	words = _mm_packs_epi32(_mm256_castsi256_si128(acc),
				_mm256_extracti128_si256(acc, 1));
	if (t->c_type == ENPU_CPU_UINT8)
		words = _mm_packus_epi16(words, words);
	else
		words = _mm_packs_epi16(words, words);
	_mm_storeu_si128((__m128i *)bytes, words);
	memcpy((uint8_t *)t->c + r * t->ldc + first, bytes, count);
}

static void gemm_avx2_half(const struct enpu_gemm_tile *t, size_t half)
{
	__m256i acc[ROWS][2];
	size_t full_groups = t->k / 4;
	size_t first = half * HALF;
	size_t count;
	const int8_t *b = t->panel + half * 32;
	__m256i multiplier = _mm256_setzero_si256();
	__m256i shift = _mm256_setzero_si256();
	__m256i init;

	if (first >= t->columns)
		return;
	count = t->columns - first < HALF ? t->columns - first : HALF;
	for (size_t r = 0; r < ROWS; r++)
		acc[r][0] = acc[r][1] = _mm256_setzero_si256();

	for (size_t g = 0; g < t->k_groups; g++) {
		/* Columns 0-3 and 4-7 of this half, 4 k each, as int16. */
		__m256i w0 = _mm256_cvtepi8_epi16(
			_mm_loadu_si128((const __m128i *)(b + g * 64)));
		__m256i w1 = _mm256_cvtepi8_epi16(
			_mm_loadu_si128((const __m128i *)(b + g * 64 + 16)));

		for (size_t r = 0; r < t->rows && r < ROWS; r++) {
			const uint8_t *row = t->a + r * t->lda;
			uint32_t word = g < full_groups ?
					load_u32(row + 4 * g) :
					enpu_gemm_load_a_tail(row, t->k);
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
