// SPDX-License-Identifier: MIT
/*
 * AVX2 pooling microkernels. Max: 32 channels per vpmaxub/vpmaxsb.
 * Average: 8 channels per int32 sum, then the zero point correction, the
 * left shift and enpu_requantize() on 8 lanes. Channel tails go through a
 * small copy, so no byte past the channels is read or written.
 * Compiled with -mavx2 -mfma.
 */
#include "kernels_internal.h"
#include "requant_avx2.h"

#include <string.h>

void enpu_max_pool_avx2(const struct enpu_pool_pass *pass)
{
	const __m256i lowest = _mm256_set1_epi8(pass->is_signed ? (char)0x80 : 0);

	for (size_t c = 0; c < pass->channels; c += 32) {
		size_t count = pass->channels - c < 32 ? pass->channels - c : 32;
		__m256i value = lowest;
		uint8_t bytes[32];

		for (size_t t = 0; t < pass->taps; t++) {
			const uint8_t *p = pass->inputs[t] + pass->input_offset + c;
			__m256i x;

			if (count == 32) {
				x = _mm256_loadu_si256((const __m256i *)p);
			} else {
				memcpy(bytes, p, count);
				x = _mm256_loadu_si256((const __m256i *)bytes);
			}
			value = pass->is_signed ? _mm256_max_epi8(value, x) :
						  _mm256_max_epu8(value, x);
		}
		if (count == 32) {
			_mm256_storeu_si256((__m256i *)((uint8_t *)pass->output + c),
					    value);
		} else {
			_mm256_storeu_si256((__m256i *)bytes, value);
			memcpy((uint8_t *)pass->output + c, bytes, count);
		}
	}
}

static inline __attribute__((always_inline)) void
average(const struct enpu_pool_pass *pass, const int is_signed)
{
	const __m256i correction = _mm256_set1_epi32(
		(int32_t)((uint32_t)pass->input_zero_point * (uint32_t)pass->taps));
	const __m128i left = _mm_cvtsi32_si128(pass->left_shift);
	const __m256i multiplier = _mm256_set1_epi32(pass->multiplier);
	const __m256i shift = _mm256_set1_epi32(pass->shift);

	for (size_t c = 0; c < pass->channels; c += 8) {
		size_t count = pass->channels - c < 8 ? pass->channels - c : 8;
		__m256i sum = _mm256_setzero_si256();

		for (size_t t = 0; t < pass->taps; t++) {
			const uint8_t *p = pass->inputs[t] + pass->input_offset + c;
			uint8_t bytes[8] = { 0 };
			__m128i x;

			if (count == 8) {
				x = _mm_loadl_epi64((const __m128i *)p);
			} else {
				memcpy(bytes, p, count);
				x = _mm_loadl_epi64((const __m128i *)bytes);
			}
			sum = _mm256_add_epi32(sum, is_signed ?
					       _mm256_cvtepi8_epi32(x) :
					       _mm256_cvtepu8_epi32(x));
		}
		sum = _mm256_sll_epi32(_mm256_sub_epi32(sum, correction), left);
		sum = enpu_requantize_avx2(sum, multiplier, shift,
					   pass->output_zero_point, pass->min,
					   pass->max);
		enpu_store8_avx2((uint8_t *)pass->output + c, sum, !is_signed,
				 count);
	}
}

void enpu_average_pool_avx2(const struct enpu_pool_pass *pass)
{
	if (pass->is_signed)
		average(pass, 1);
	else
		average(pass, 0);
}
