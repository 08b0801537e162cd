// SPDX-License-Identifier: MIT
/*
 * Float scale -> (multiplier, shift) for enpu_requantize(). See
 * docs/quantization.md for the rule and why it was chosen.
 */
#include "enpu_cpu.h"

#include <errno.h>
#include <math.h>

int enpu_requant_from_scale(double scale, int32_t *multiplier, int32_t *shift)
{
	int exponent;
	double fraction;
	long long q;
	int total;

	if (!multiplier || !shift || !isfinite(scale) || scale <= 0.0 ||
	    scale >= 1.0)
		return -EINVAL;
	/* scale = fraction * 2^exponent, fraction in [0.5, 1), exponent <= 0. */
	fraction = frexp(scale, &exponent);
	q = llround(fraction * 2147483648.0);   /* half away from zero */
	if (q == 2147483648LL) {
		/* fraction rounded up to 1.0: renormalize. */
		q = 1LL << 30;
		exponent++;
	}
	total = 31 - exponent;
	if (total < ENPU_REQUANT_SHIFT_MIN) {
		/* scale rounded to exactly 1.0: the closest value below it. */
		q = 2147483647LL;
		total = ENPU_REQUANT_SHIFT_MIN;
	}
	if (total > ENPU_REQUANT_SHIFT_MAX) {
		/* Tiny scale: keep the largest shift and lose mantissa bits. */
		q = llround(ldexp(scale, ENPU_REQUANT_SHIFT_MAX));
		total = ENPU_REQUANT_SHIFT_MAX;
		if (q == 0)
			return -ERANGE;
	}
	*multiplier = (int32_t)q;
	*shift = total;
	return 0;
}
