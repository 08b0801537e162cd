// SPDX-License-Identifier: MIT
/*
 * NEON depthwise microkernel: 16 channels per step, 2 output pixels at a
 * time sharing the weight loads. Activations (flipped to uint8) are
 * zero-extended to int32 and MLA multiplies them by the int32 weights;
 * int32 lanes wrap like every other path. Channel tails go through a small
 * copy, so no byte past the channels is read or written. Plain AArch64
 * NEON: used on every arm64 ISA level (depthwise is bound by loads).
 */
#include "kernels_internal.h"
#include "requant_neon.h"

#define PIXELS 2

static inline __attribute__((always_inline)) void
accumulate(int32x4_t acc[4], const uint8_t *p, size_t count, uint8x16_t flip,
	   const int32x4_t w[4])
{
	int32x4_t x[4];

	enpu_widen16_neon(veorq_u8(enpu_load16_neon(p, count), flip), 0, x);
	for (int q = 0; q < 4; q++)
		acc[q] = vmlaq_s32(acc[q], x[q], w[q]);
}

static void store(const struct enpu_dwconv_pass *pass, size_t pixel,
		  size_t c, size_t count, const int32x4_t acc[4],
		  const int32x4_t multiplier[4], const int32x4_t neg_shift[4])
{
	size_t at = pixel * pass->output_pixel_stride + c;
	int32x4_t out[4];

	if (pass->output_type == ENPU_CPU_INT32) {
		int32_t lanes[16];

		for (int q = 0; q < 4; q++)
			vst1q_s32(lanes + 4 * q, acc[q]);
		memcpy((int32_t *)pass->output + at, lanes,
		       count * sizeof(int32_t));
		return;
	}
	for (int q = 0; q < 4; q++)
		out[q] = enpu_requantize_neon(acc[q], multiplier[q],
					      neg_shift[q], pass->zero_point,
					      pass->min, pass->max);
	enpu_store16_neon((uint8_t *)pass->output + at, out[0], out[1],
			  out[2], out[3], count);
}

static void channel_block(const struct enpu_dwconv_pass *pass, size_t c,
			  size_t count)
{
	const size_t taps = pass->taps;
	const uint8x16_t flip = vdupq_n_u8(pass->flip);
	int32x4_t init[4], multiplier[4], neg_shift[4];
	size_t p = 0;

	for (int q = 0; q < 4; q++) {
		init[q] = vld1q_s32(pass->init + c + 4 * q);
		multiplier[q] = neg_shift[q] = vdupq_n_s32(0);
	}
	if (pass->output_type != ENPU_CPU_INT32) {
		if (pass->per_channel) {
			int32_t m[16] = { 0 }, s[16] = { 0 };

			memcpy(m, pass->multiplier + c, count * sizeof(int32_t));
			memcpy(s, pass->shift + c, count * sizeof(int32_t));
			for (int q = 0; q < 4; q++) {
				multiplier[q] = vld1q_s32(m + 4 * q);
				neg_shift[q] = vnegq_s32(vld1q_s32(s + 4 * q));
			}
		} else {
			for (int q = 0; q < 4; q++) {
				multiplier[q] = vdupq_n_s32(pass->multiplier[0]);
				neg_shift[q] = vdupq_n_s32(-pass->shift[0]);
			}
		}
	}
	for (; p < pass->pixels; p += PIXELS) {
		const uint8_t *const *in = pass->inputs + p * taps;
		int two = p + 1 < pass->pixels;
		int32x4_t acc0[4], acc1[4];

		for (int q = 0; q < 4; q++)
			acc0[q] = acc1[q] = init[q];
		for (size_t t = 0; t < taps; t++) {
			/* Weights are padded to channels_padded: full loads. */
			const int32_t *wp = pass->weights +
					    t * pass->channels_padded + c;
			int32x4_t w[4];

			for (int q = 0; q < 4; q++)
				w[q] = vld1q_s32(wp + 4 * q);
			accumulate(acc0, in[t] + c, count, flip, w);
			if (two)
				accumulate(acc1, in[taps + t] + c, count, flip,
					   w);
		}
		store(pass, p, c, count, acc0, multiplier, neg_shift);
		if (two)
			store(pass, p + 1, c, count, acc1, multiplier,
			      neg_shift);
	}
}

void enpu_dwconv_neon(const struct enpu_dwconv_pass *pass)
{
	size_t c = 0;

	for (; c + 16 <= pass->channels; c += 16)
		channel_block(pass, c, 16);
	if (c < pass->channels)
		channel_block(pass, c, pass->channels - c);
}
