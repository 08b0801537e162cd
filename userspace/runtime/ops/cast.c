// SPDX-License-Identifier: MIT
/*
 * Cast and CastLike between every fixed-size type: float, double,
 * float16, bfloat16, the integers and bool. Integer and bool sources
 * convert exactly (integers wrap to the target's width, as numpy's
 * astype does; anything non-zero is true); float sources round to the
 * nearest representable float (to even) or truncate toward zero into
 * integers, with NaN and out-of-range values saturated before the wrap
 * (C leaves those undefined). double -> float16 rounds once: the float
 * intermediate is rounded to odd, so no double rounding can occur.
 * String tensors are not supported.
 */
#include <math.h>
#include <string.h>

#include "half.h"
#include "rt_op.h"

static int castable(int32_t t)
{
	return rt_dtype_is_float(t) || rt_dtype_is_integer(t) ||
	       t == ENPU_RT_BOOL;
}

static int cast_target(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, int32_t *to)
{
	int64_t value;
	int status;

	if (!strcmp(k->op_type, "CastLike")) {
		if (n_in < 2 || !in[1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "target_type input is missing");
		*to = in[1]->dtype;
	} else {
		status = rt_attr_int(k, "to", 0, &value);
		if (status)
			return status;
		*to = (int32_t)value;
	}
	if (!castable(in[0]->dtype) || !castable(*to))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "cast from %s to %s is not supported",
				   rt_dtype_name(in[0]->dtype),
				   rt_dtype_name(*to));
	return 0;
}

static int cast_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int32_t to;
	int status = cast_target(k, in, n_in, &to);

	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], to, in[0]->rank, in[0]->dims);
}

/* double -> float rounded to odd: exact for the second rounding. */
static float to_float_odd(double d)
{
	float f = (float)d;
	uint32_t bits;

	if (!isfinite(d) || (double)f == d)
		return f;
	if (fabs((double)f) > fabs(d))
		f = nextafterf(f, 0.0f);
	bits = rt_f32_bits(f) | 1;
	return rt_bits_f32(bits);
}

static int cast_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct rt_tensor *y = out[0];
	size_t n = rt_tensor_elements(x);
	int32_t from = x->dtype, to;
	int status = cast_target(k, in, n_in, &to);

	(void)n_out;
	if (status)
		return status;
	if (from == to) {
		memcpy(y->data, x->data, y->byte_size);
		return 0;
	}
	if (!rt_dtype_is_float(from)) {
		/* Exact: through int64 (uint64 keeps its bits). */
		for (size_t i = 0; i < n; i++) {
			int64_t v = rt_tensor_get_int(x, i);

			if (rt_dtype_is_float(to))
				rt_tensor_set_double(y, i, from == ENPU_RT_UINT64 ?
						     (double)(uint64_t)v :
						     (double)v);
			else if (to == ENPU_RT_BOOL)
				((uint8_t *)y->data)[i] = v != 0;
			else if (rt_dtype_size(to) == 8)
				((int64_t *)y->data)[i] = v;
			else if (rt_dtype_size(to) == 4)
				((uint32_t *)y->data)[i] = (uint32_t)v;
			else if (rt_dtype_size(to) == 2)
				((uint16_t *)y->data)[i] = (uint16_t)v;
			else
				((uint8_t *)y->data)[i] = (uint8_t)v;
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		double v = rt_tensor_get_double(x, i);

		if (to == ENPU_RT_FLOAT16 && from == ENPU_RT_DOUBLE)
			((uint16_t *)y->data)[i] = rt_f32_to_f16(to_float_odd(v));
		else if (to == ENPU_RT_BFLOAT16 && from == ENPU_RT_DOUBLE)
			((uint16_t *)y->data)[i] = rt_f32_to_bf16(to_float_odd(v));
		else
			rt_tensor_set_double(y, i, v);
	}
	return 0;
}

const struct rt_op_def rt_ops_cast[] = {
	{ "Cast", "", 1, 21, 1, 1, 1, 1, 0, cast_infer, NULL, cast_run, NULL },
	{ "CastLike", "", 15, 21, 2, 2, 1, 1, 0, cast_infer, NULL, cast_run,
	  NULL },
	{ 0 },
};
