// SPDX-License-Identifier: MIT
/*
 * NEON elementwise microkernels, 16 elements per step as four int32x4 (the
 * same arithmetic as the x86 ones: the add's constant folds the zero
 * points and the rounding term, wrapping like the rule's int32); clamp on
 * 16 bytes at a time. Tails go through a small copy. Plain AArch64 NEON.
 */
#include "kernels_internal.h"
#include "requant_neon.h"

static inline __attribute__((always_inline)) void
operand(const uint8_t *p, size_t step, size_t count, int is_signed,
	int32x4_t out[4])
{
	if (step == 0) {
		int32x4_t v = vdupq_n_s32(is_signed ? *(const int8_t *)p : *p);

		out[0] = out[1] = out[2] = out[3] = v;
		return;
	}
	enpu_widen16_neon(enpu_load16_neon(p, count), is_signed, out);
}

void enpu_add_neon(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const int32x4_t ma = vdupq_n_s32(p->a_multiplier);
	const int32x4_t mb = vdupq_n_s32(p->b_multiplier);
	const int32x4_t constant = vdupq_n_s32((int32_t)(
		(1u << (p->add_shift - 1)) -
		(uint32_t)p->a_zero_point * (uint32_t)p->a_multiplier -
		(uint32_t)p->b_zero_point * (uint32_t)p->b_multiplier));
	/* SSHL by a negative count: arithmetic shift right, i.e. floor. */
	const int32x4_t neg_shift = vdupq_n_s32(-p->add_shift);
	const int32x4_t low = vdupq_n_s32(p->min - p->output_zero_point);
	const int32x4_t high = vdupq_n_s32(p->max - p->output_zero_point);
	const int32x4_t zero_point = vdupq_n_s32(p->output_zero_point);

	for (size_t i = 0; i < pass->count; i += 16) {
		size_t count = pass->count - i < 16 ? pass->count - i : 16;
		int32x4_t a[4], b[4], out[4];

		operand(pass->a + i * pass->a_step, pass->a_step, count,
			pass->is_signed, a);
		operand(pass->b + i * pass->b_step, pass->b_step, count,
			pass->is_signed, b);
		for (int q = 0; q < 4; q++) {
			int32x4_t acc = vmlaq_s32(vmlaq_s32(constant, a[q], ma),
						  b[q], mb);

			acc = vshlq_s32(acc, neg_shift);
			acc = vminq_s32(vmaxq_s32(acc, low), high);
			out[q] = vaddq_s32(acc, zero_point);
		}
		enpu_store16_neon(pass->out + i, out[0], out[1], out[2], out[3],
				  count);
	}
}

void enpu_mul_neon(const struct enpu_eltwise_pass *pass)
{
	const struct enpu_cpu_eltwise_params *p = pass->params;
	const int32x4_t za = vdupq_n_s32(p->a_zero_point);
	const int32x4_t zb = vdupq_n_s32(p->b_zero_point);
	const int32x4_t left = vdupq_n_s32(p->left_shift);
	const int32x4_t multiplier = vdupq_n_s32(p->multiplier);
	const int32x4_t neg_shift = vdupq_n_s32(-p->shift);

	for (size_t i = 0; i < pass->count; i += 16) {
		size_t count = pass->count - i < 16 ? pass->count - i : 16;
		int32x4_t a[4], b[4], out[4];

		operand(pass->a + i * pass->a_step, pass->a_step, count,
			pass->is_signed, a);
		operand(pass->b + i * pass->b_step, pass->b_step, count,
			pass->is_signed, b);
		for (int q = 0; q < 4; q++) {
			/* SSHL left by 0..15 drops the high bits: the rule's wrap. */
			int32x4_t product = vshlq_s32(
				vmulq_s32(vsubq_s32(a[q], za),
					  vsubq_s32(b[q], zb)), left);

			out[q] = enpu_requantize_neon(product, multiplier,
						      neg_shift,
						      p->output_zero_point,
						      p->min, p->max);
		}
		enpu_store16_neon(pass->out + i, out[0], out[1], out[2], out[3],
				  count);
	}
}

void enpu_clamp_neon(const struct enpu_eltwise_pass *pass)
{
	const uint8x16_t low_u = vdupq_n_u8((uint8_t)pass->params->min);
	const uint8x16_t high_u = vdupq_n_u8((uint8_t)pass->params->max);
	const int8x16_t low_s = vdupq_n_s8((int8_t)pass->params->min);
	const int8x16_t high_s = vdupq_n_s8((int8_t)pass->params->max);

	for (size_t i = 0; i < pass->count; i += 16) {
		size_t count = pass->count - i < 16 ? pass->count - i : 16;
		uint8x16_t x = enpu_load16_neon(pass->a + i, count);

		if (pass->is_signed)
			x = vreinterpretq_u8_s8(vminq_s8(vmaxq_s8(
				vreinterpretq_s8_u8(x), low_s), high_s));
		else
			x = vminq_u8(vmaxq_u8(x, low_u), high_u);
		enpu_store_bytes_neon(pass->out + i, x, count);
	}
}
