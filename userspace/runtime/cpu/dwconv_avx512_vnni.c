// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI depthwise microkernel: 16 channels per zmm, 4 output pixels
 * at a time (4 independent accumulator chains hide vpdpbusd's latency;
 * a row's last 1-3 pixels too).
 * Each activation byte is zero-extended to a dword (vpmovzxbd) and
 * vpdpbusd multiplies it by the sign-extended int32 weight: the activation's
 * upper bytes are 0, so the lane gets exactly x * w, in one instruction
 * instead of vpmaddwd + vpaddd. Channel tails use masked loads, so no byte
 * past the channels is read. Compiled with -mavx512f -mavx512bw -mavx512vl
 * -mavx512vnni.
 */
#include "kernels_internal.h"
#include "requant_avx512.h"

#define PIXELS 4

static inline __attribute__((always_inline)) __m512i
load_activations(const uint8_t *p, __mmask16 mask, const int full,
		 const int flip)
{
	__m128i x = full ? _mm_loadu_si128((const __m128i *)p) :
			   _mm_maskz_loadu_epi8(mask, p);

	if (flip)
		x = _mm_xor_si128(x, _mm_set1_epi8((char)0x80));
	return _mm512_cvtepu8_epi32(x);
}

static inline __attribute__((always_inline)) void
channel_block(const struct enpu_dwconv_pass *pass, size_t c, __mmask16 mask,
	      const int full, const int flip)
{
	const size_t taps = pass->taps;
	const int32_t *weights = pass->weights + c;
	const __m512i init = _mm512_load_si512(pass->init + c);
	struct enpu_requant_avx512 v;
	size_t p = 0;

	if (pass->output_type != ENPU_CPU_INT32)
		v = enpu_requant_avx512_setup(
			pass->multiplier + (pass->per_channel ? c : 0),
			pass->shift + (pass->per_channel ? c : 0),
			pass->per_channel, pass->zero_point, pass->min,
			pass->max, mask);

#define STORE(acc, pixel)                                                 \
	do {                                                              \
		size_t at = (pixel) * pass->output_pixel_stride + c;      \
		if (pass->output_type == ENPU_CPU_INT32)                  \
			_mm512_mask_storeu_epi32((int32_t *)pass->output + at, \
						 mask, acc);              \
		else                                                      \
			_mm512_mask_cvtepi32_storeu_epi8(                 \
				(uint8_t *)pass->output + at, mask,       \
				enpu_requantize_avx512(acc, &v));         \
	} while (0)

	/*
	 * A last group of 1-3 pixels runs as a group of 4 too, its missing
	 * pixels repeating the last one (computed, not stored): one pixel
	 * alone would be a chain of dependent vpdpbusd, several times
	 * slower than four interleaved (a 7x7 layer has 3 such pixels per
	 * row for every 4 in groups).
	 */
	for (; p < pass->pixels; p += PIXELS) {
		size_t left = pass->pixels - p, k;
		const uint8_t *const *in[PIXELS];
		__m512i acc0 = init, acc1 = init, acc2 = init, acc3 = init;

		for (k = 0; k < PIXELS; k++)
			in[k] = pass->inputs +
				(p + (k < left ? k : left - 1)) * taps;

		for (size_t t = 0; t < taps; t++) {
			__m512i w = _mm512_load_si512(weights +
						      t * pass->channels_padded);

			acc0 = _mm512_dpbusd_epi32(acc0, load_activations(
				in[0][t] + c, mask, full, flip), w);
			acc1 = _mm512_dpbusd_epi32(acc1, load_activations(
				in[1][t] + c, mask, full, flip), w);
			acc2 = _mm512_dpbusd_epi32(acc2, load_activations(
				in[2][t] + c, mask, full, flip), w);
			acc3 = _mm512_dpbusd_epi32(acc3, load_activations(
				in[3][t] + c, mask, full, flip), w);
		}
		STORE(acc0, p);
		if (left > 1)
			STORE(acc1, p + 1);
		if (left > 2)
			STORE(acc2, p + 2);
		if (left > 3)
			STORE(acc3, p + 3);
	}
#undef STORE
}

static void run(const struct enpu_dwconv_pass *pass, const int flip)
{
	size_t c = 0;

	for (; c + 16 <= pass->channels; c += 16)
		channel_block(pass, c, 0xffff, 1, flip);
	if (c < pass->channels)
		channel_block(pass, c,
			      (__mmask16)((1u << (pass->channels - c)) - 1), 0,
			      flip);
}

void enpu_dwconv_avx512_vnni(const struct enpu_dwconv_pass *pass)
{
	if (pass->flip)
		run(pass, 1);
	else
		run(pass, 0);
}
