// SPDX-License-Identifier: MIT
/*
 * AVX-512 pooling microkernels. Max: 64 channels per vpmaxub/vpmaxsb.
 * Average: 64 channels per step as four int32 sums (vpmovzxbd/vpmovsxbd +
 * vpaddd), then the zero point correction, the left shift and
 * enpu_requantize() on 16 lanes. Tails use masked loads and stores.
 * Compiled with -mavx512f -mavx512bw -mavx512vl.
 */
#include "kernels_internal.h"
#include "avx512_mask.h"
#include "requant_avx512.h"

static inline __mmask64 tail_mask64(size_t count)
{
	return count >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << count) - 1;
}

void enpu_max_pool_avx512(const struct enpu_pool_pass *pass)
{
	const __m512i lowest = _mm512_set1_epi8(pass->is_signed ? (char)0x80 : 0);

	for (size_t c = 0; c < pass->channels; c += 64) {
		__mmask64 mask = tail_mask64(pass->channels - c);
		__m512i value = lowest;

		for (size_t t = 0; t < pass->taps; t++) {
			__m512i x = _mm512_maskz_loadu_epi8(
				mask, pass->inputs[t] + pass->input_offset + c);

			value = pass->is_signed ? _mm512_max_epi8(value, x) :
						  _mm512_max_epu8(value, x);
		}
		_mm512_mask_storeu_epi8((uint8_t *)pass->output + c, mask, value);
	}
}

static inline __attribute__((always_inline)) __m512i
widen(__m128i x, const int is_signed)
{
	return is_signed ? _mm512_cvtepi8_epi32(x) : _mm512_cvtepu8_epi32(x);
}

static inline __attribute__((always_inline)) void
average(const struct enpu_pool_pass *pass, const int is_signed)
{
	const __m512i correction = _mm512_set1_epi32(
		(int32_t)((uint32_t)pass->input_zero_point * (uint32_t)pass->taps));
	const __m128i left = _mm_cvtsi32_si128(pass->left_shift);
	struct enpu_requant_avx512 v = enpu_requant_avx512_setup(
		&pass->multiplier, &pass->shift, 0, pass->output_zero_point,
		pass->min, pass->max, 0xffff);

	for (size_t c = 0; c < pass->channels; c += 64) {
		__mmask64 mask = tail_mask64(pass->channels - c);
		__m512i sum[4] = { _mm512_setzero_si512(), _mm512_setzero_si512(),
				   _mm512_setzero_si512(), _mm512_setzero_si512() };

		for (size_t t = 0; t < pass->taps; t++) {
			__m512i x = _mm512_maskz_loadu_epi8(
				mask, pass->inputs[t] + pass->input_offset + c);

			sum[0] = _mm512_add_epi32(sum[0], widen(
				_mm512_castsi512_si128(x), is_signed));
			sum[1] = _mm512_add_epi32(sum[1], widen(
				_mm512_extracti32x4_epi32(x, 1), is_signed));
			sum[2] = _mm512_add_epi32(sum[2], widen(
				_mm512_extracti32x4_epi32(x, 2), is_signed));
			sum[3] = _mm512_add_epi32(sum[3], widen(
				_mm512_extracti32x4_epi32(x, 3), is_signed));
		}
		for (size_t q = 0; q < 4 && c + 16 * q < pass->channels; q++) {
			size_t left_over = pass->channels - c - 16 * q;
			__mmask16 m = enpu_mask16(left_over);
			__m512i acc = _mm512_sll_epi32(
				_mm512_sub_epi32(sum[q], correction), left);

			_mm512_mask_cvtepi32_storeu_epi8(
				(uint8_t *)pass->output + c + 16 * q, m,
				enpu_requantize_avx512(acc, &v));
		}
	}
}

void enpu_average_pool_avx512(const struct enpu_pool_pass *pass)
{
	if (pass->is_signed)
		average(pass, 1);
	else
		average(pass, 0);
}
