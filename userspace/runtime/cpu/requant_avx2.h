/* SPDX-License-Identifier: MIT */
/*
 * enpu_requantize() on 8 int32 lanes with AVX2, shared by every kernel
 * family that ends in a requantization. Only include from files compiled
 * with -mavx2 (see runtime.mk).
 */
#ifndef ENPU_REQUANT_AVX2_H
#define ENPU_REQUANT_AVX2_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/*
 * @multiplier and @shift hold one value per lane. AVX2 has no 64-bit
 * arithmetic shift: bias by 2^62 before a logical shift (see the rule).
 */
static inline __m256i enpu_requantize_avx2(__m256i acc, __m256i multiplier,
					   __m256i shift, int32_t zero_point,
					   int32_t min, int32_t max)
{
	const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
	const __m256i one = _mm256_set1_epi64x(1);
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
	out = _mm256_max_epi32(out, _mm256_set1_epi32(min - zero_point));
	out = _mm256_min_epi32(out, _mm256_set1_epi32(max - zero_point));
	return _mm256_add_epi32(out, _mm256_set1_epi32(zero_point));
}

/* Eight int32 lanes, already clamped to the 8-bit range, to 8 bytes. */
static inline void enpu_store8_avx2(void *out, __m256i lanes, int is_unsigned,
				    size_t count)
{
	__m128i words = _mm_packs_epi32(_mm256_castsi256_si128(lanes),
					_mm256_extracti128_si256(lanes, 1));
	uint8_t bytes[16];

	if (is_unsigned)
		words = _mm_packus_epi16(words, words);
	else
		words = _mm_packs_epi16(words, words);
	if (count == 8) {
		_mm_storel_epi64((__m128i *)out, words);
		return;
	}
	_mm_storeu_si128((__m128i *)bytes, words);
	for (size_t i = 0; i < count; i++)
		((uint8_t *)out)[i] = bytes[i];
}

#endif /* ENPU_REQUANT_AVX2_H */
