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
	/*
	 * enpu_requantize_avx512_high()'s shift - 32 and 2^(shift - 33)
	 * per lane, and whether every lane of the setup's mask has a shift
	 * of at least ENPU_REQUANT_AVX512_HIGH_SHIFT (only then are they
	 * meaningful).
	 */
	__m512i shift_high, round_high;
	int high_ok;
	/* enpu_requant_avx512_narrow4(): zero point in int16 lanes, clamp
	 * bounds in byte lanes. */
	__m512i zero_point16, min8, max8;
};

/* The lowest shift enpu_requantize_avx512_high() takes. */
#define ENPU_REQUANT_AVX512_HIGH_SHIFT 33

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
	v.zero_point16 = _mm512_set1_epi16((short)zero_point);
	v.min8 = _mm512_set1_epi8((char)min);
	v.max8 = _mm512_set1_epi8((char)max);
	/* Lanes outside @mask hold shift 0 (per channel): they do not count. */
	v.high_ok = _mm512_mask_reduce_min_epi32(mask, s) >=
		    ENPU_REQUANT_AVX512_HIGH_SHIFT;
	v.shift_high = _mm512_sub_epi32(s, _mm512_set1_epi32(32));
	v.round_high = _mm512_sllv_epi32(
		_mm512_set1_epi32(1),
		_mm512_sub_epi32(s, _mm512_set1_epi32(33)));
	return v;
}

/* The rule up to the clamp: the int32 scaled value (it fits). */
static inline __attribute__((always_inline)) __m512i
enpu_requant_avx512_scaled(__m512i acc, const struct enpu_requant_avx512 *v)
{
	__m512i even = _mm512_mul_epi32(acc, v->multiplier_even);
	__m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32),
				       v->multiplier_odd);

	even = _mm512_srav_epi64(_mm512_add_epi64(even, v->round_even),
				 v->shift_even);
	odd = _mm512_srav_epi64(_mm512_add_epi64(odd, v->round_odd),
				v->shift_odd);
	return _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
}

/* The rule's clamp and zero point on scaled values. */
static inline __attribute__((always_inline)) __m512i
enpu_requant_avx512_clamp(__m512i scaled, const struct enpu_requant_avx512 *v)
{
	scaled = _mm512_max_epi32(scaled, v->low);
	scaled = _mm512_min_epi32(scaled, v->high);
	return _mm512_add_epi32(scaled, v->zero_point);
}

/* enpu_requantize() on 16 lanes; see enpu_quantization.h for the rule. */
static inline __attribute__((always_inline)) __m512i
enpu_requantize_avx512(__m512i acc, const struct enpu_requant_avx512 *v)
{
	return enpu_requant_avx512_clamp(enpu_requant_avx512_scaled(acc, v), v);
}

/*
 * enpu_requantize_avx512() for parameters whose every lane has a shift of
 * at least 33 (v->high_ok; scales below 1/4, which is nearly every
 * layer): floor((p + 2^(s-1)) / 2^s) = floor((floor(p / 2^32) +
 * 2^(s-33)) / 2^(s-32)), since 2^(s-1) is a multiple of 2^32 and floor
 * divisions compose. floor(p / 2^32) is the high dword of the 64-bit
 * product, so both products' high dwords are gathered into one vector
 * (vpermt2d) and the rounding and shift run on 16 int32 lanes: 6
 * instructions where enpu_requantize_avx512() takes 9, and only one of
 * them a shift (shifts issue on one port of the two that take 512-bit
 * operations).
 */
static inline __attribute__((always_inline)) __m512i
enpu_requant_avx512_scaled_high(__m512i acc,
				const struct enpu_requant_avx512 *v)
{
	const __m512i high_dwords = _mm512_set_epi32(31, 15, 29, 13, 27, 11,
						     25, 9, 23, 7, 21, 5, 19,
						     3, 17, 1);
	__m512i even = _mm512_mul_epi32(acc, v->multiplier_even);
	__m512i odd = _mm512_mul_epi32(
		_mm512_shuffle_epi32(acc, _MM_PERM_DDBB), v->multiplier_odd);
	__m512i out = _mm512_permutex2var_epi32(even, high_dwords, odd);

	return _mm512_srav_epi32(_mm512_add_epi32(out, v->round_high),
				 v->shift_high);
}

/* The whole rule (clamp and zero point too) on the path above. */
static inline __attribute__((always_inline)) __m512i
enpu_requantize_avx512_high(__m512i acc, const struct enpu_requant_avx512 *v)
{
	return enpu_requant_avx512_clamp(enpu_requant_avx512_scaled_high(acc, v),
					 v);
}

/*
 * Four vectors of scaled values (before clamp and zero point) to 64
 * output bytes, int8 when @is_signed, else uint8, in the packs' order:
 * 128-bit lane L holds lanes 4L..4L+3 of @a, then of @b, @c and @d.
 * Exactly clamp(scaled + zero_point, min, max): the int16 saturation of
 * scaled and of the zero point's addition, and the byte saturation, only
 * ever move a value beyond [min, max] further beyond it (min, max and the
 * zero point lie in the output type, kernel_checks.c), and the clamp on
 * bytes gives the bound either way. 2 instructions per vector where
 * clamp, zero point and vpmovdb take 5.
 */
static inline __attribute__((always_inline)) __m512i
enpu_requant_avx512_narrow4(__m512i a, __m512i b, __m512i c, __m512i d,
			    const struct enpu_requant_avx512 *v,
			    const int is_signed)
{
	__m512i ab = _mm512_adds_epi16(_mm512_packs_epi32(a, b),
				       v->zero_point16);
	__m512i cd = _mm512_adds_epi16(_mm512_packs_epi32(c, d),
				       v->zero_point16);

	if (is_signed)
		return _mm512_min_epi8(_mm512_max_epi8(
			_mm512_packs_epi16(ab, cd), v->min8), v->max8);
	return _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(ab, cd),
					       v->min8), v->max8);
}

/* The same bytes in source order: 16 of @a, then of @b, @c, @d. */
static inline __attribute__((always_inline)) __m512i
enpu_requant_avx512_narrow4_ordered(__m512i a, __m512i b, __m512i c,
				    __m512i d,
				    const struct enpu_requant_avx512 *v,
				    const int is_signed)
{
	const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2,
					       13, 9, 5, 1, 12, 8, 4, 0);

	return _mm512_permutexvar_epi32(order, enpu_requant_avx512_narrow4(
		a, b, c, d, v, is_signed));
}

#endif /* ENPU_REQUANT_AVX512_H */
