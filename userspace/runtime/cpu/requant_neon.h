/* SPDX-License-Identifier: MIT */
/*
 * enpu_requantize() on 4 int32 lanes with NEON, shared by every arm64
 * kernel family that ends in a requantization, plus the narrowing stores.
 * Only include from files compiled for aarch64 (see runtime.mk).
 */
#ifndef ENPU_REQUANT_NEON_H
#define ENPU_REQUANT_NEON_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * SMULL gives the exact 64-bit product; SRSHL by -shift is a rounding
 * arithmetic shift right, (x + 2^(shift-1)) >> shift computed without
 * intermediate overflow: exactly the rule's round half up. The result fits
 * in int32 (see enpu_quantization.h), so XTN narrows it losslessly; the
 * clamp happens before adding the zero point so the addition cannot
 * overflow. @neg_shift holds -shift per lane.
 */
static inline int32x4_t enpu_requantize_neon(int32x4_t acc,
					     int32x4_t multiplier,
					     int32x4_t neg_shift,
					     int32_t zero_point, int32_t min,
					     int32_t max)
{
	int64x2_t low = vmull_s32(vget_low_s32(acc), vget_low_s32(multiplier));
	int64x2_t high = vmull_high_s32(acc, multiplier);
	int32x4_t out;

	low = vrshlq_s64(low, vmovl_s32(vget_low_s32(neg_shift)));
	high = vrshlq_s64(high, vmovl_high_s32(neg_shift));
	out = vcombine_s32(vmovn_s64(low), vmovn_s64(high));
	out = vmaxq_s32(out, vdupq_n_s32(min - zero_point));
	out = vminq_s32(out, vdupq_n_s32(max - zero_point));
	return vaddq_s32(out, vdupq_n_s32(zero_point));
}

/*
 * Four vectors of int32 lanes, already clamped to the 8-bit range, to the
 * first @count of their 16 bytes. Truncating narrows are exact for values
 * in range, whether the type is int8 or uint8.
 */
static inline void enpu_store16_neon(void *out, int32x4_t l0, int32x4_t l1,
				     int32x4_t l2, int32x4_t l3, size_t count)
{
	int16x8_t w0 = vcombine_s16(vmovn_s32(l0), vmovn_s32(l1));
	int16x8_t w1 = vcombine_s16(vmovn_s32(l2), vmovn_s32(l3));
	int8x16_t bytes = vcombine_s8(vmovn_s16(w0), vmovn_s16(w1));
	int8_t tmp[16];

	if (count == 16) {
		vst1q_s8((int8_t *)out, bytes);
		return;
	}
	vst1q_s8(tmp, bytes);
	memcpy(out, tmp, count);
}

/* Loads @count (< 16 allowed) bytes, the rest zero; never reads past. */
static inline uint8x16_t enpu_load16_neon(const uint8_t *p, size_t count)
{
	uint8_t tmp[16] = { 0 };

	if (count == 16)
		return vld1q_u8(p);
	memcpy(tmp, p, count);
	return vld1q_u8(tmp);
}

/* Stores the first @count bytes of @bytes. */
static inline void enpu_store_bytes_neon(uint8_t *out, uint8x16_t bytes,
					 size_t count)
{
	uint8_t tmp[16];

	if (count == 16) {
		vst1q_u8(out, bytes);
		return;
	}
	vst1q_u8(tmp, bytes);
	memcpy(out, tmp, count);
}

/* 16 bytes to four int32x4, sign- or zero-extended. */
static inline void enpu_widen16_neon(uint8x16_t x, int is_signed,
				     int32x4_t out[4])
{
	int16x8_t low, high;

	if (is_signed) {
		low = vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(x)));
		high = vmovl_high_s8(vreinterpretq_s8_u8(x));
	} else {
		low = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(x)));
		high = vreinterpretq_s16_u16(vmovl_high_u8(x));
	}
	out[0] = vmovl_s16(vget_low_s16(low));
	out[1] = vmovl_high_s16(low);
	out[2] = vmovl_s16(vget_low_s16(high));
	out[3] = vmovl_high_s16(high);
}

#endif /* ENPU_REQUANT_NEON_H */
