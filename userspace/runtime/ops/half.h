/* SPDX-License-Identifier: MIT */
/*
 * IEEE float16 and bfloat16 <-> float32 conversions, bit exact with
 * numpy's (and ONNX's reference): float16 rounds to nearest even with
 * subnormals and overflow to infinity; bfloat16 rounds to nearest even
 * (the ONNX reference since onnx 1.12 truncates only in its test data
 * generator for Cast; the Cast op documents which rule it follows).
 * NaN stays NaN (quiet) in both directions.
 */
#ifndef ENPU_RT_HALF_H
#define ENPU_RT_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t rt_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float rt_bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline float rt_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;

	if (exp == 0x1f)		/* inf / NaN */
		return rt_bits_f32(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		if (!man)
			return rt_bits_f32(sign);
		/* Subnormal: man * 2^-24, exact in float. */
		float v = (float)man * (1.0f / 16777216.0f);

		return sign ? -v : v;
	}
	return rt_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t rt_f32_to_f16(float f)
{
	uint32_t u = rt_f32_bits(f);
	uint32_t sign = (u >> 16) & 0x8000;
	uint32_t abs = u & 0x7fffffffu;

	if (abs >= 0x7f800000u)		/* inf / NaN */
		return (uint16_t)(sign | 0x7c00 |
				  (abs > 0x7f800000u ? 0x200 |
				   ((abs >> 13) & 0x3ff) : 0));
	if (abs >= 0x477ff000u)		/* rounds to >= 65520: inf */
		return (uint16_t)(sign | 0x7c00);
	if (abs < 0x38800000u) {	/* below 2^-14: subnormal or 0 */
		/* Adding 0.5 makes the FPU round man at 2^-24, to even. */
		float v = rt_bits_f32(abs) + 0.5f;

		return (uint16_t)(sign | (rt_f32_bits(v) - 0x3f000000u));
	}
	/* Normal: rebias and round the 13 dropped bits to nearest even. */
	uint32_t odd = (abs >> 13) & 1;

	abs += ((uint32_t)(15 - 127) << 23) + 0xfff + odd;
	return (uint16_t)(sign | (abs >> 13));
}

static inline float rt_bf16_to_f32(uint16_t h)
{
	return rt_bits_f32((uint32_t)h << 16);
}

static inline uint16_t rt_f32_to_bf16(float f)
{
	uint32_t u = rt_f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);	/* quiet NaN */
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

#endif /* ENPU_RT_HALF_H */
