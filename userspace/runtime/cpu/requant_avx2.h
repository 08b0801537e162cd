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
#include <string.h>

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

/*
 * The same rule in two steps, for kernels that requantize many rows with
 * one set of channels: what depends only on the (multiplier, shift) of 8
 * lanes is computed once (enpu_requant8_avx2_setup), and each vector of
 * accumulators then costs two multiplies, two adds, two variable shifts,
 * a blend and a subtraction (enpu_requant8_avx2_scaled). Same integers as
 * enpu_requantize(): (product + 2^(shift-1)) + 2^62 is one 64-bit add of
 * a per-lane constant (the sum wraps the same way in two's complement),
 * and since the scaled value fits int32 (enpu_quantization.h), removing
 * 2^(62-shift) from the low 32 bits alone gives it exactly.
 */
struct enpu_requant8_avx2 {
	__m256i multiplier;	/* even lanes read by vpmuldq */
	__m256i multiplier_odd;	/* odd lanes' multipliers, moved down */
	__m256i round_even;	/* 2^(shift-1) + 2^62 per 64-bit lane */
	__m256i round_odd;
	__m256i shift_even;
	__m256i shift_odd;
	__m256i post;		/* low 32 bits of 2^(62-shift) per lane */
};

static inline struct enpu_requant8_avx2
enpu_requant8_avx2_setup(__m256i multiplier, __m256i shift)
{
	const __m256i one = _mm256_set1_epi64x(1);
	const __m256i bias = _mm256_set1_epi64x((long long)1 << 62);
	struct enpu_requant8_avx2 r;

	r.multiplier = multiplier;
	r.multiplier_odd = _mm256_srli_epi64(multiplier, 32);
	r.shift_even = _mm256_and_si256(shift, _mm256_set1_epi64x(0xffffffff));
	r.shift_odd = _mm256_srli_epi64(shift, 32);
	r.round_even = _mm256_add_epi64(bias, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(r.shift_even, one)));
	r.round_odd = _mm256_add_epi64(bias, _mm256_sllv_epi64(one,
			_mm256_sub_epi64(r.shift_odd, one)));
	r.post = _mm256_sllv_epi32(_mm256_set1_epi32(1),
			_mm256_sub_epi32(_mm256_set1_epi32(62), shift));
	return r;
}

/* round_half_up(acc * multiplier / 2^shift) per lane, before the zero point. */
static inline __m256i enpu_requant8_avx2_scaled(__m256i acc,
						const struct enpu_requant8_avx2 *r)
{
	__m256i even = _mm256_mul_epi32(acc, r->multiplier);
	__m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(acc, 32),
				       r->multiplier_odd);

	even = _mm256_srlv_epi64(_mm256_add_epi64(even, r->round_even),
				 r->shift_even);
	odd = _mm256_srlv_epi64(_mm256_add_epi64(odd, r->round_odd),
				r->shift_odd);
	return _mm256_sub_epi32(_mm256_blend_epi32(even,
					_mm256_slli_epi64(odd, 32), 0xaa),
				r->post);
}

/*
 * Channels [0, @count) of @multiplier and @shift (per channel), or their
 * first pair for all lanes (per tensor); lanes past @count get a valid
 * pair (multiplier 0, shift 31) whose outputs nobody stores.
 */
static inline struct enpu_requant8_avx2
enpu_requant8_avx2_load(const int32_t *multiplier, const int32_t *shift,
			int per_channel, size_t count)
{
	if (!per_channel)
		return enpu_requant8_avx2_setup(_mm256_set1_epi32(multiplier[0]),
						_mm256_set1_epi32(shift[0]));
	if (count >= 8)
		return enpu_requant8_avx2_setup(
			_mm256_loadu_si256((const __m256i *)multiplier),
			_mm256_loadu_si256((const __m256i *)shift));
	{
		int32_t m[8] = { 0 };
		int32_t s[8] = { 31, 31, 31, 31, 31, 31, 31, 31 };

		memcpy(m, multiplier, count * sizeof(int32_t));
		memcpy(s, shift, count * sizeof(int32_t));
		return enpu_requant8_avx2_setup(
			_mm256_loadu_si256((const __m256i *)m),
			_mm256_loadu_si256((const __m256i *)s));
	}
}

/* The rest of the rule: zero point, clamp, 8-bit type. */
struct enpu_requant_clamp_avx2 {
	__m256i zero_point16;
	__m128i min, max;
	int is_unsigned;
};

static inline struct enpu_requant_clamp_avx2
enpu_requant_clamp_avx2_setup(int32_t zero_point, int32_t min, int32_t max,
			      int is_unsigned)
{
	struct enpu_requant_clamp_avx2 c;

	c.zero_point16 = _mm256_set1_epi16((short)zero_point);
	c.min = _mm_set1_epi8((char)min);
	c.max = _mm_set1_epi8((char)max);
	c.is_unsigned = is_unsigned;
	return c;
}

/*
 * Sixteen scaled values (lanes 0-7 of @low, then of @high) to 16 bytes:
 * clamp(scaled + zero_point, min, max) through saturating packs. That is
 * the rule's clamp exactly: int16 saturation of the scaled value and of
 * its sum with the zero point (|zero_point| <= 255) only ever moves a
 * value that is already outside the 8-bit range further out on the same
 * side, the 8-bit pack saturates to the type's range, and [min, max] lies
 * inside that range (enpu_cpu_check_output), so the last clamp gives
 * what clamping the exact sum would. With @low == @high (8 values) the
 * first 8 bytes are theirs.
 */
static inline __m128i
enpu_requant16_avx2_bytes(__m256i low, __m256i high,
			  const struct enpu_requant_clamp_avx2 *c)
{
	/* Words: 0-3, 8-11 | 4-7, 12-15. */
	__m256i words = _mm256_adds_epi16(_mm256_packs_epi32(low, high),
					  c->zero_point16);
	__m256i bytes = c->is_unsigned ? _mm256_packus_epi16(words, words) :
					 _mm256_packs_epi16(words, words);
	__m128i out = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes),
					 _mm256_extracti128_si256(bytes, 1));

	if (c->is_unsigned)
		return _mm_min_epu8(_mm_max_epu8(out, c->min), c->max);
	return _mm_min_epi8(_mm_max_epi8(out, c->min), c->max);
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
