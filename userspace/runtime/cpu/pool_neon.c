// SPDX-License-Identifier: MIT
/*
 * NEON pooling microkernels. Max: 16 channels per UMAX/SMAX. Average: 16
 * channels summed as four int32x4, then the zero point correction, the
 * left shift and enpu_requantize() per lane. Channel tails go through a
 * small copy, so no byte past the channels is read or written. Plain
 * AArch64 NEON.
 */
#include "kernels_internal.h"
#include "requant_neon.h"

void enpu_max_pool_neon(const struct enpu_pool_pass *pass)
{
	for (size_t c = 0; c < pass->channels; c += 16) {
		size_t count = pass->channels - c < 16 ? pass->channels - c : 16;
		uint8x16_t value = vdupq_n_u8(pass->is_signed ? 0x80 : 0);

		for (size_t t = 0; t < pass->taps; t++) {
			uint8x16_t x = enpu_load16_neon(
				pass->inputs[t] + pass->input_offset + c, count);

			value = pass->is_signed ?
				vreinterpretq_u8_s8(vmaxq_s8(
					vreinterpretq_s8_u8(value),
					vreinterpretq_s8_u8(x))) :
				vmaxq_u8(value, x);
		}
		enpu_store_bytes_neon((uint8_t *)pass->output + c, value, count);
	}
}

void enpu_average_pool_neon(const struct enpu_pool_pass *pass)
{
	const int32x4_t correction = vdupq_n_s32(
		(int32_t)((uint32_t)pass->input_zero_point * (uint32_t)pass->taps));
	const int32x4_t left = vdupq_n_s32(pass->left_shift);
	const int32x4_t multiplier = vdupq_n_s32(pass->multiplier);
	const int32x4_t neg_shift = vdupq_n_s32(-pass->shift);

	for (size_t c = 0; c < pass->channels; c += 16) {
		size_t count = pass->channels - c < 16 ? pass->channels - c : 16;
		int32x4_t sum[4], out[4];

		for (int q = 0; q < 4; q++)
			sum[q] = vdupq_n_s32(0);
		for (size_t t = 0; t < pass->taps; t++) {
			int32x4_t x[4];

			enpu_widen16_neon(enpu_load16_neon(pass->inputs[t] +
							   pass->input_offset + c,
							   count),
					  pass->is_signed, x);
			for (int q = 0; q < 4; q++)
				sum[q] = vaddq_s32(sum[q], x[q]);
		}
		for (int q = 0; q < 4; q++)
			out[q] = enpu_requantize_neon(
				vshlq_s32(vsubq_s32(sum[q], correction), left),
				multiplier, neg_shift, pass->output_zero_point,
				pass->min, pass->max);
		enpu_store16_neon((uint8_t *)pass->output + c, out[0], out[1],
				  out[2], out[3], count);
	}
}
