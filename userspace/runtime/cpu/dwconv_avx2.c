// SPDX-License-Identifier: MIT
/*
 * AVX2 depthwise microkernel: 8 channels per ymm, 4 output pixels at a
 * time. Activations are zero-extended to dwords and vpmaddwd multiplies
 * them by the sign-extended int32 weights: the high int16 of each
 * activation lane is 0, so the lane gets exactly x * w. Channel tails go
 * through a small copy, so no byte past the channels is read or written.
 * Compiled with -mavx2 -mfma.
 */
#include "kernels_internal.h"
#include "requant_avx2.h"

#include <string.h>

#define PIXELS 4

static inline __attribute__((always_inline)) __m256i
load_activations(const uint8_t *p, size_t count, const int full,
		 const int flip)
{
	__m128i x;

	if (full) {
		x = _mm_loadl_epi64((const __m128i *)p);
	} else {
		uint8_t bytes[8] = { 0 };

		memcpy(bytes, p, count);
		x = _mm_loadl_epi64((const __m128i *)bytes);
	}
	if (flip)
		x = _mm_xor_si128(x, _mm_set1_epi8((char)0x80));
	return _mm256_cvtepu8_epi32(x);
}

static inline __attribute__((always_inline)) __m256i
multiply(__m256i x, const int32_t *w)
{
	return _mm256_madd_epi16(x, _mm256_load_si256((const __m256i *)w));
}

/* The output rule of one channel block, set up once per pass. */
struct block_end {
	struct enpu_requant8_avx2 requant;
	struct enpu_requant_clamp_avx2 clamp;
};

static inline __attribute__((always_inline)) void
store(const struct enpu_dwconv_pass *pass, size_t pixel, size_t c,
      size_t count, __m256i acc, const struct block_end *e)
{
	size_t at = pixel * pass->output_pixel_stride + c;
	__m256i scaled;
	__m128i bytes;

	if (pass->output_type == ENPU_CPU_INT32) {
		int32_t lanes[8];

		_mm256_storeu_si256((__m256i *)lanes, acc);
		memcpy((int32_t *)pass->output + at, lanes,
		       count * sizeof(int32_t));
		return;
	}
	scaled = enpu_requant8_avx2_scaled(acc, &e->requant);
	bytes = enpu_requant16_avx2_bytes(scaled, scaled, &e->clamp);
	if (count == 8) {
		_mm_storel_epi64((__m128i *)((uint8_t *)pass->output + at),
				 bytes);
	} else {
		uint8_t lanes[16];

		_mm_storeu_si128((__m128i *)lanes, bytes);
		memcpy((uint8_t *)pass->output + at, lanes, count);
	}
}

static inline __attribute__((always_inline)) void
channel_block(const struct enpu_dwconv_pass *pass, size_t c, size_t count,
	      const int full, const int flip)
{
	const size_t taps = pass->taps;
	const int32_t *weights = pass->weights + c;
	const __m256i init = _mm256_load_si256((const __m256i *)(pass->init + c));
	struct block_end end;
	size_t p = 0;

	end.clamp = enpu_requant_clamp_avx2_setup(
		pass->zero_point, pass->min, pass->max,
		pass->output_type == ENPU_CPU_UINT8);
	if (pass->output_type != ENPU_CPU_INT32) {
		size_t first = pass->per_channel ? c : 0;

		end.requant = enpu_requant8_avx2_load(pass->multiplier + first,
						      pass->shift + first,
						      pass->per_channel, count);
	} else {
		/* Not used: int32 outputs are stored as they are. */
		end.requant = enpu_requant8_avx2_setup(_mm256_setzero_si256(),
						       _mm256_set1_epi32(31));
	}
	for (; p + PIXELS <= pass->pixels; p += PIXELS) {
		const uint8_t *const *in = pass->inputs + p * taps;
		__m256i acc0 = init, acc1 = init, acc2 = init, acc3 = init;

		for (size_t t = 0; t < taps; t++) {
			const int32_t *w = weights + t * pass->channels_padded;

			acc0 = _mm256_add_epi32(acc0, multiply(load_activations(
				in[t] + c, count, full, flip), w));
			acc1 = _mm256_add_epi32(acc1, multiply(load_activations(
				in[taps + t] + c, count, full, flip), w));
			acc2 = _mm256_add_epi32(acc2, multiply(load_activations(
				in[2 * taps + t] + c, count, full, flip), w));
			acc3 = _mm256_add_epi32(acc3, multiply(load_activations(
				in[3 * taps + t] + c, count, full, flip), w));
		}
		store(pass, p, c, count, acc0, &end);
		store(pass, p + 1, c, count, acc1, &end);
		store(pass, p + 2, c, count, acc2, &end);
		store(pass, p + 3, c, count, acc3, &end);
	}
	for (; p < pass->pixels; p++) {
		const uint8_t *const *in = pass->inputs + p * taps;
		__m256i acc = init;

		for (size_t t = 0; t < taps; t++)
			acc = _mm256_add_epi32(acc, multiply(load_activations(
				in[t] + c, count, full, flip),
				weights + t * pass->channels_padded));
		store(pass, p, c, count, acc, &end);
	}
}

static void run(const struct enpu_dwconv_pass *pass, const int flip)
{
	size_t c = 0;

	for (; c + 8 <= pass->channels; c += 8)
		channel_block(pass, c, 8, 1, flip);
	if (c < pass->channels)
		channel_block(pass, c, pass->channels - c, 0, flip);
}

void enpu_dwconv_avx2(const struct enpu_dwconv_pass *pass)
{
	if (pass->flip)
		run(pass, 1);
	else
		run(pass, 0);
}
