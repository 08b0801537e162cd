// SPDX-License-Identifier: GPL-2.0
/*
 * QUANTIZE (interface 1.6) and DEQUANTIZE (1.7) the device's own way, the
 * oracles of FAST mode (which runs the CPU runtime's quantize and
 * dequantize rows). QUANTIZE: one binary32 division,
 * rint in the default rounding mode (half to even), the zero point added
 * and saturated in double, where no integer can overflow. A NaN quotient
 * stores 0; an infinite one, the type's bound. DEQUANTIZE: the product
 * (x - zero point) * scale taken exactly in double (a 9-bit integer times
 * a 24-bit significand), then rounded once to binary32, which is what one
 * binary32 multiplication rounds to (overflow to infinity and subnormal
 * results included). Written from the commands' specification
 * (uapi/enpu_cmd.h), not from the CPU kernel.
 */
#include <math.h>
#include <string.h>

#include "layer.h"

void quantize_compute(const struct layer *l, const int32_t *in,
		      uint64_t first, uint64_t end, int32_t *out)
{
	int32_t lo, hi;

	dtype_range(l->out.dtype, &lo, &hi);
	for (uint64_t i = first; i < end; i++) {
		float x, v;
		double q;

		memcpy(&x, &in[i], sizeof(x));
		v = x / l->scale;
		if (isnan(v)) {
			out[i] = 0;
			continue;
		}
		q = (double)rintf(v) + l->out.zero_point;
		out[i] = q < lo ? lo : q > hi ? hi : (int32_t)q;
	}
}

void dequantize_compute(const struct layer *l, const int32_t *in,
			uint64_t first, uint64_t end, int32_t *out)
{
	for (uint64_t i = first; i < end; i++) {
		double exact = (double)(in[i] - l->in.zero_point) *
			       (double)l->scale;
		float y = (float)exact;

		memcpy(&out[i], &y, sizeof(y));
	}
}
