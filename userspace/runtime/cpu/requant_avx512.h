/* SPDX-License-Identifier: MIT */
/*
 * enpu_requantize() on 16 int32 lanes with AVX-512, shared by every kernel
 * family that ends in a requantization. Only include from files compiled
 * with -mavx512f -mavx512bw -mavx512vl (see runtime.mk).
 */
#ifndef ENPU_REQUANT_AVX512_H
#define ENPU_REQUANT_AVX512_H

#include <immintrin.h>
#include <stdint.h>

struct enpu_requant_avx512 {
	__m512i multiplier_even, multiplier_odd;
	__m512i shift_even, shift_odd;
	__m512i round_even, round_odd;
	__m512i low, high, zero_point;
};

/*
 * Per-channel parameters are read for the lanes in @mask from @multiplier
 * and @shift; per-tensor ones from multiplier[0] and shift[0].
 */
static inline __attribute__((always_inline)) struct enpu_requant_avx512
enpu_requant_avx512_setup(const int32_t *multiplier, const int32_t *shift,
			  int per_channel, int32_t zero_point, int32_t min,
			  int32_t max, __mmask16 mask)
{
	const __m512i low32 = _mm512_set1_epi64(0xffffffff);
	const __m512i one = _mm512_set1_epi64(1);
	struct enpu_requant_avx512 v;
	__m512i m, s;

	if (per_channel) {
		m = _mm512_maskz_loadu_epi32(mask, multiplier);
		s = _mm512_maskz_loadu_epi32(mask, shift);
	} else {
		m = _mm512_set1_epi32(multiplier[0]);
		s = _mm512_set1_epi32(shift[0]);
	}
	v.multiplier_even = m;
	v.multiplier_odd = _mm512_srli_epi64(m, 32);
	v.shift_even = _mm512_and_si512(s, low32);
	v.shift_odd = _mm512_srli_epi64(s, 32);
	v.round_even = _mm512_sllv_epi64(one, _mm512_sub_epi64(v.shift_even, one));
	v.round_odd = _mm512_sllv_epi64(one, _mm512_sub_epi64(v.shift_odd, one));
	v.low = _mm512_set1_epi32(min - zero_point);
	v.high = _mm512_set1_epi32(max - zero_point);
	v.zero_point = _mm512_set1_epi32(zero_point);
	return v;
}

/* enpu_requantize() on 16 lanes; see enpu_quantization.h for the rule. */
static inline __attribute__((always_inline)) __m512i
enpu_requantize_avx512(__m512i acc, const struct enpu_requant_avx512 *v)
{
	__m512i even = _mm512_mul_epi32(acc, v->multiplier_even);
	__m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32),
				       v->multiplier_odd);
	__m512i out;

	even = _mm512_srav_epi64(_mm512_add_epi64(even, v->round_even),
				 v->shift_even);
	odd = _mm512_srav_epi64(_mm512_add_epi64(odd, v->round_odd),
				v->shift_odd);
	out = _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
	out = _mm512_max_epi32(out, v->low);
	out = _mm512_min_epi32(out, v->high);
	return _mm512_add_epi32(out, v->zero_point);
}

#endif /* ENPU_REQUANT_AVX512_H */
