/* SPDX-License-Identifier: MIT */
/*
 * ENPU quantization rule: how an int32 accumulator becomes an 8-bit output.
 * The CPU kernels and the NPU device model must agree on this bit for bit,
 * so the rule lives in one header-only function with no dependencies.
 * docs/quantization.md is the prose version of the same rule.
 *
 *   product = (int64)acc * multiplier              multiplier in [0, 2^31)
 *   scaled  = floor((product + 2^(shift-1)) / 2^shift)   shift in [31, 62]
 *   out     = clamp(scaled + zero_point, qmin, qmax)
 *
 * That is "round half up" (ties go toward +infinity) of acc * multiplier /
 * 2^shift. With multiplier < 2^31 and shift >= 31, |scaled| < 2^31, so SIMD
 * code may narrow to int32 before adding the zero point.
 */
#ifndef ENPU_QUANTIZATION_H
#define ENPU_QUANTIZATION_H

#include <stdint.h>

#define ENPU_REQUANT_SHIFT_MIN 31
#define ENPU_REQUANT_SHIFT_MAX 62

/**
 * enpu_requantize() - apply the ENPU requantization rule to one accumulator.
 * @acc: int32 accumulator (sum of products plus bias)
 * @multiplier: fixed-point multiplier, 0 <= multiplier < 2^31
 * @shift: total right shift, ENPU_REQUANT_SHIFT_MIN..ENPU_REQUANT_SHIFT_MAX
 * @zero_point: output zero point
 * @qmin: lowest output value (-128 for int8, 0 for uint8, or a fused clamp)
 * @qmax: highest output value
 *
 * Callers must pass parameters in range (see enpu_requant_from_scale());
 * this function does not check them, because it sits in inner loops.
 */
static inline int32_t enpu_requantize(int32_t acc, int32_t multiplier,
				      int32_t shift, int32_t zero_point,
				      int32_t qmin, int32_t qmax)
{
	int64_t product = (int64_t)acc * multiplier;
	/*
	 * Right-shifting a negative int64 is implementation-defined in C, so
	 * bias the sum into the non-negative range, shift it as unsigned and
	 * remove the shifted bias; 2^62 >> shift is exact for shift <= 62.
	 */
	uint64_t biased = (uint64_t)(product + ((int64_t)1 << (shift - 1))) +
			  ((uint64_t)1 << 62);
	int64_t scaled = (int64_t)(biased >> shift) -
			 ((int64_t)1 << (62 - shift));
	int64_t out = scaled + zero_point;

	if (out < qmin)
		out = qmin;
	if (out > qmax)
		out = qmax;
	return (int32_t)out;
}

/*
 * Converts a real scale (input_scale * weight_scale / output_scale) to the
 * (multiplier, shift) pair of enpu_requantize(). The scale must be finite and
 * in (0, 1); returns -EINVAL otherwise, -ERANGE when it is below what the
 * rule can represent (< 2^-62 rounds to a zero multiplier, reported).
 * Part of the rule, so declared here for everyone who derives parameters
 * (graph passes, the NPU compiler); implemented once, in quantization.c
 * of libenpu-cpu. The device model only applies parameters and needs
 * nothing but enpu_requantize().
 */
int enpu_requant_from_scale(double scale, int32_t *multiplier,
			    int32_t *shift);

#endif /* ENPU_QUANTIZATION_H */
