// SPDX-License-Identifier: MIT
/*
 * AVX2 elementwise microkernels, 8 int32 lanes per step (the same
 * arithmetic as the AVX-512 ones); clamp on 32 bytes at a time. Tails go
 * through a small copy. Compiled with -mavx2 -mfma.
 */
#include "kernels_internal.h"
#include "requant_avx2.h"

#include <string.h>

static inline __attribute__((always_inline)) __m256i
operand(const uint8_t *p, size_t step, size_t count, int is_signed)
{
	uint8_t bytes[8] = { 0 };
	__m128i x;

	if (step == 0)
		return _mm256_set1_epi32(is_signed ? *(const int8_t *)p : *p);
	if (count == 8) {
		x = _mm_loadl_epi64((const __m128i *)p);
	} else {
		memcpy(bytes, p, count);
		x = _mm_loadl_epi64((const __m128i *)bytes);
	}
	return is_signed ? _mm256_cvtepi8_epi32(x) : _mm256_cvtepu8_epi32(x);
}

void enpu_add_avx2(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const __m256i ma = _mm256_set1_epi32(p->a_multiplier);
	const __m256i mb = _mm256_set1_epi32(p->b_multiplier);
	const __m256i constant = _mm256_set1_epi32((int32_t)(
		(1u << (p->add_shift - 1)) -
		(uint32_t)p->a_zero_point * (uint32_t)p->a_multiplier -
		(uint32_t)p->b_zero_point * (uint32_t)p->b_multiplier));
	const __m128i shift = _mm_cvtsi32_si128(p->add_shift);
	const __m256i zero_point = _mm256_set1_epi32(p->output_zero_point);
	const __m256i low = _mm256_set1_epi32(p->min);
	const __m256i high = _mm256_set1_epi32(p->max);

	for (size_t i = 0; i < pass->count; i += 8) {
		size_t count = pass->count - i < 8 ? pass->count - i : 8;
		__m256i a = operand(pass->a + i * pass->a_step, pass->a_step,
				    count, pass->is_signed);
		__m256i b = operand(pass->b + i * pass->b_step, pass->b_step,
				    count, pass->is_signed);
		__m256i acc = _mm256_add_epi32(
			_mm256_add_epi32(_mm256_mullo_epi32(a, ma),
					 _mm256_mullo_epi32(b, mb)), constant);

		acc = _mm256_add_epi32(_mm256_sra_epi32(acc, shift), zero_point);
		acc = _mm256_min_epi32(_mm256_max_epi32(acc, low), high);
		enpu_store8_avx2(pass->out + i, acc, !pass->is_signed, count);
	}
}

void enpu_mul_avx2(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const __m256i za = _mm256_set1_epi32(p->a_zero_point);
	const __m256i zb = _mm256_set1_epi32(p->b_zero_point);
	const __m128i left = _mm_cvtsi32_si128(p->left_shift);
	const __m256i multiplier = _mm256_set1_epi32(p->multiplier);
	const __m256i shift = _mm256_set1_epi32(p->shift);

	for (size_t i = 0; i < pass->count; i += 8) {
		size_t count = pass->count - i < 8 ? pass->count - i : 8;
		__m256i a = operand(pass->a + i * pass->a_step, pass->a_step,
				    count, pass->is_signed);
		__m256i b = operand(pass->b + i * pass->b_step, pass->b_step,
				    count, pass->is_signed);
		__m256i product = _mm256_mullo_epi32(_mm256_sub_epi32(a, za),
						     _mm256_sub_epi32(b, zb));

		product = enpu_requantize_avx2(_mm256_sll_epi32(product, left),
					       multiplier, shift,
					       p->output_zero_point, p->min,
					       p->max);
		enpu_store8_avx2(pass->out + i, product, !pass->is_signed, count);
	}
}

void enpu_clamp_avx2(const struct enpu_eltwise_pass *pass)
{
	const __m256i low = _mm256_set1_epi8((char)pass->params->min);
	const __m256i high = _mm256_set1_epi8((char)pass->params->max);
	size_t i = 0;

	for (; i < pass->count; i += 32) {
		size_t count = pass->count - i < 32 ? pass->count - i : 32;
		uint8_t bytes[32];
		__m256i x;

		if (count == 32) {
			x = _mm256_loadu_si256((const __m256i *)(pass->a + i));
		} else {
			memcpy(bytes, pass->a + i, count);
			x = _mm256_loadu_si256((const __m256i *)bytes);
		}
		if (pass->is_signed)
			x = _mm256_min_epi8(_mm256_max_epi8(x, low), high);
		else
			x = _mm256_min_epu8(_mm256_max_epu8(x, low), high);
		if (count == 32) {
			_mm256_storeu_si256((__m256i *)(pass->out + i), x);
		} else {
			_mm256_storeu_si256((__m256i *)bytes, x);
			memcpy(pass->out + i, bytes, count);
		}
	}
}
