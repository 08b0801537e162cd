// SPDX-License-Identifier: MIT
/*
 * DynamicQuantizeLinear (opset 11+): float x -> uint8 y, scale, zero point,
 * computed exactly as the ONNX definition does in float32:
 *   min = min(0, min(x)), max = max(0, max(x))
 *   scale = (max - min) / 255
 *   zero_point = saturate(round(0 - min / scale))
 *   y = saturate(round(x / scale) + zero_point)
 * with round-half-to-even and saturation to [0, 255]. An all-zero input
 * (max == min) would divide by zero; it gets scale 1 and zero point 0, so
 * y is 0 and dequantizes exactly, like ONNX Runtime does. NaN in x is an
 * error: it has no uint8 value and would poison the range.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "rt_op.h"
#include "vector_math.h"

/*
 * Round half to even for |v| < 2^22: adding 1.5 * 2^23 pushes the fraction
 * out of the mantissa under the default rounding mode (IEEE arithmetic, no
 * -ffast-math, which would fold the two additions away).
 */
static inline rt_f32x4 round_half_even(rt_f32x4 v)
{
	const float magic = 12582912.0f;	/* 1.5 * 2^23 */

	return (v + magic) - magic;
}

/* saturate(round(x / scale) + zero_point) for four values. */
static inline void quantize4(const float *x, size_t n, float scale,
			     float zero_point, uint8_t *y)
{
	/* Clamping first keeps the rounding trick in range. */
	rt_f32x4 q = rt_v4_clamp(rt_v4_load_partial(x, n) / scale, -512.0f,
				 512.0f);
	rt_i32x4 v;

	q = rt_v4_clamp(round_half_even(q) + zero_point, 0.0f, 255.0f);
	v = __builtin_convertvector(q, rt_i32x4);
	for (size_t i = 0; i < n; i++)
		y[i] = (uint8_t)v[i];
}

static int dql_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int status;

	(void)n_in;
	status = rt_expect_dtype(k, in[0], 0, ENPU_RT_FLOAT);
	if (status)
		return status;
	status = rt_tensor_set_shape(k, out[0], ENPU_RT_UINT8, in[0]->rank,
				     in[0]->dims);
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_FLOAT, 0, NULL);
	if (!status && n_out > 2 && out[2])
		status = rt_tensor_set_shape(k, out[2], ENPU_RT_UINT8, 0, NULL);
	return status;
}

static int dql_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const float *x = in[0]->data;
	uint8_t *y = out[0]->data;
	size_t n = rt_tensor_elements(in[0]), i = 0;
	rt_f32x4 lo = rt_v4_splat(0.0f), hi = lo;
	rt_i32x4 nan = { 0 };
	float min = 0.0f, max = 0.0f, scale, zero_point;
	bool has_nan = false;

	(void)n_in;
	for (; i + 4 <= n; i += 4) {
		rt_f32x4 v = rt_v4_load(x + i);

		lo = rt_v4_select(v < lo, v, lo);
		hi = rt_v4_select(v > hi, v, hi);
		nan |= v != v;
	}
	for (int lane = 0; lane < 4; lane++) {
		min = lo[lane] < min ? lo[lane] : min;
		max = hi[lane] > max ? hi[lane] : max;
		has_nan |= nan[lane] != 0;
	}
	for (; i < n; i++) {
		min = x[i] < min ? x[i] : min;
		max = x[i] > max ? x[i] : max;
		has_nan |= x[i] != x[i];
	}
	if (has_nan)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "input contains NaN, which has no quantized value");
	if (isinf(min) || isinf(max))
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "input contains infinity; the scale would be infinite");
	scale = (max - min) / 255.0f;
	if (scale == 0.0f)
		scale = 1.0f;
	/* 0 - min / scale is in [0, 255] up to rounding; saturate anyway. */
	zero_point = rt_v4_clamp(round_half_even(rt_v4_splat(0.0f - min /
							     scale)),
				 0.0f, 255.0f)[0];
	for (i = 0; i + 4 <= n; i += 4)
		quantize4(x + i, 4, scale, zero_point, y + i);
	if (i < n)
		quantize4(x + i, n - i, scale, zero_point, y + i);
	if (n_out > 1 && out[1])
		*(float *)out[1]->data = scale;
	if (n_out > 2 && out[2])
		*(uint8_t *)out[2]->data = (uint8_t)zero_point;
	return 0;
}

const struct rt_op_def rt_ops_dynamic_quantize[] = {
	{ "DynamicQuantizeLinear", "", 11, 21, 1, 1, 1, 3, 0, dql_infer, NULL,
	  dql_run, NULL },
	{ 0 },
};
