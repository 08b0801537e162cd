// SPDX-License-Identifier: MIT
/*
 * AVX-512 elementwise microkernels, 16 int32 lanes per step: operands are
 * widened from bytes (or broadcast when their step is 0), the add rule is
 * two vpmulld and an arithmetic shift, the mul rule one vpmulld and
 * enpu_requantize() on 16 lanes. Clamp works on 64 bytes at a time.
 * Tails use masked loads and stores. Compiled with -mavx512f -mavx512bw
 * -mavx512vl.
 */
#include "kernels_internal.h"
#include "avx512_mask.h"
#include "requant_avx512.h"

static inline __attribute__((always_inline)) __m512i
operand(const uint8_t *p, size_t step, __mmask16 mask, int is_signed)
{
	__m128i x;

	if (step == 0)
		return _mm512_set1_epi32(is_signed ? *(const int8_t *)p : *p);
	x = _mm_maskz_loadu_epi8(mask, p);
	return is_signed ? _mm512_cvtepi8_epi32(x) : _mm512_cvtepu8_epi32(x);
}

void enpu_add_avx512(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const __m512i ma = _mm512_set1_epi32(p->a_multiplier);
	const __m512i mb = _mm512_set1_epi32(p->b_multiplier);
	/* Zero points and the rounding term folded into one constant. */
	const __m512i constant = _mm512_set1_epi32((int32_t)(
		(1u << (p->add_shift - 1)) -
		(uint32_t)p->a_zero_point * (uint32_t)p->a_multiplier -
		(uint32_t)p->b_zero_point * (uint32_t)p->b_multiplier));
	const __m128i shift = _mm_cvtsi32_si128(p->add_shift);
	const __m512i zero_point = _mm512_set1_epi32(p->output_zero_point);
	const __m512i low = _mm512_set1_epi32(p->min);
	const __m512i high = _mm512_set1_epi32(p->max);

	for (size_t i = 0; i < pass->count; i += 16) {
		__mmask16 mask = enpu_mask16(pass->count - i);
		__m512i a = operand(pass->a + i * pass->a_step, pass->a_step,
				    mask, pass->is_signed);
		__m512i b = operand(pass->b + i * pass->b_step, pass->b_step,
				    mask, pass->is_signed);
		__m512i acc = _mm512_add_epi32(
			_mm512_add_epi32(_mm512_mullo_epi32(a, ma),
					 _mm512_mullo_epi32(b, mb)), constant);

		acc = _mm512_add_epi32(_mm512_sra_epi32(acc, shift), zero_point);
		acc = _mm512_min_epi32(_mm512_max_epi32(acc, low), high);
		_mm512_mask_cvtepi32_storeu_epi8(pass->out + i, mask, acc);
	}
}

void enpu_mul_avx512(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const __m512i za = _mm512_set1_epi32(p->a_zero_point);
	const __m512i zb = _mm512_set1_epi32(p->b_zero_point);
	const __m128i left = _mm_cvtsi32_si128(p->left_shift);
	struct enpu_requant_avx512 v = enpu_requant_avx512_setup(
		&p->multiplier, &p->shift, 0, p->output_zero_point, p->min,
		p->max, 0xffff);

	for (size_t i = 0; i < pass->count; i += 16) {
		__mmask16 mask = enpu_mask16(pass->count - i);
		__m512i a = operand(pass->a + i * pass->a_step, pass->a_step,
				    mask, pass->is_signed);
		__m512i b = operand(pass->b + i * pass->b_step, pass->b_step,
				    mask, pass->is_signed);
		__m512i product = _mm512_mullo_epi32(_mm512_sub_epi32(a, za),
						     _mm512_sub_epi32(b, zb));

		_mm512_mask_cvtepi32_storeu_epi8(
			pass->out + i, mask,
			enpu_requantize_avx512(_mm512_sll_epi32(product, left), &v));
	}
}

void enpu_clamp_avx512(const struct enpu_eltwise_pass *pass)
{
	const __m512i low = _mm512_set1_epi8((char)pass->params->min);
	const __m512i high = _mm512_set1_epi8((char)pass->params->max);

	for (size_t i = 0; i < pass->count; i += 64) {
		size_t left = pass->count - i;
		__mmask64 mask = left >= 64 ? ~(__mmask64)0 :
			((__mmask64)1 << left) - 1;
		__m512i x = _mm512_maskz_loadu_epi8(mask, pass->a + i);

		if (pass->is_signed)
			x = _mm512_min_epi8(_mm512_max_epi8(x, low), high);
		else
			x = _mm512_min_epu8(_mm512_max_epu8(x, low), high);
		_mm512_mask_storeu_epi8(pass->out + i, mask, x);
	}
}
