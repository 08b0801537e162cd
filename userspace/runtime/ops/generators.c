// SPDX-License-Identifier: MIT
/*
 * Ops that make a tensor from a shape or a few scalars rather than from
 * an input's elements: ConstantOfShape, Size, EyeLike, Range.
 * ConstantOfShape and Range size their output from input values, so they
 * return RT_OP_NEEDS_VALUES until the values exist; every count read
 * from the model is checked before it sizes an allocation.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

static int constant_of_shape_infer(struct rt_kernel *k,
				   const struct rt_tensor *const *in,
				   size_t n_in, struct rt_tensor *const *out,
				   size_t n_out)
{
	const struct rt_tensor *value;
	int64_t dims[RT_MAX_RANK];
	size_t count;
	int status;

	(void)n_in;
	(void)n_out;
	if (!in[0]->data)
		return RT_OP_NEEDS_VALUES;
	status = rt_attr_tensor(k, "value", &value);
	if (!status)
		status = rt_tensor_read_ints(k, in[0], RT_MAX_RANK, dims, &count);
	if (status)
		return status;
	if (value && rt_tensor_elements(value) != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "value must hold one element");
	return rt_tensor_set_shape(k, out[0], value ? value->dtype :
				   ENPU_RT_FLOAT, (int32_t)count, dims);
}

static int constant_of_shape_run(struct rt_kernel *k,
				 const struct rt_tensor *const *in,
				 size_t n_in, struct rt_tensor *const *out,
				 size_t n_out)
{
	const struct rt_tensor *value;
	size_t n = rt_tensor_elements(out[0]), size;
	int status = rt_attr_tensor(k, "value", &value);

	(void)in;
	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	size = rt_dtype_size(out[0]->dtype);
	if (!value) {
		memset(out[0]->data, 0, out[0]->byte_size);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		memcpy((char *)out[0]->data + i * size, value->data, size);
	return 0;
}

static int size_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)in;
	(void)n_in;
	(void)n_out;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, 0, NULL);
}

static int size_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)k;
	(void)n_in;
	(void)n_out;
	*(int64_t *)out[0]->data = (int64_t)rt_tensor_elements(in[0]);
	return 0;
}

static int eye_like_type(struct rt_kernel *k, const struct rt_tensor *x,
			 int32_t *dtype)
{
	int64_t value;
	int status = rt_attr_int(k, "dtype", x->dtype, &value);

	if (status)
		return status;
	*dtype = (int32_t)value;
	if (x->rank != 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is not 2", x->rank);
	if (!rt_dtype_size(*dtype) || *dtype == ENPU_RT_COMPLEX64)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(*dtype));
	return 0;
}

static int eye_like_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	int32_t dtype;
	int status = eye_like_type(k, in[0], &dtype);

	(void)n_in;
	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], dtype, 2,
						     in[0]->dims);
}

static int eye_like_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int64_t diagonal, rows = in[0]->dims[0], cols = in[0]->dims[1];
	int status = rt_attr_int(k, "k", 0, &diagonal);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	memset(out[0]->data, 0, out[0]->byte_size);
	for (int64_t r = 0; r < rows; r++) {
		int64_t c = r + diagonal;

		if (c >= 0 && c < cols)
			rt_tensor_set_double(out[0], (size_t)(r * cols + c), 1);
	}
	return 0;
}

/* ---- Range ------------------------------------------------------------- */

static int range_count(struct rt_kernel *k, const struct rt_tensor *const *in,
		       int64_t *count)
{
	double start, limit, delta, n;

	for (int i = 0; i < 3; i++) {
		if (!in[i]->data)
			return RT_OP_NEEDS_VALUES;
		if (rt_tensor_elements(in[i]) != 1 ||
		    in[i]->dtype != in[0]->dtype)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "start, limit and delta must be "
					   "scalars of one type");
	}
	if (!rt_dtype_is_float(in[0]->dtype) &&
	    !rt_dtype_is_integer(in[0]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(in[0]->dtype));
	start = rt_tensor_get_double(in[0], 0);
	limit = rt_tensor_get_double(in[1], 0);
	delta = rt_tensor_get_double(in[2], 0);
	if (delta == 0)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "delta is 0");
	n = ceil((limit - start) / delta);
	if (!(n < 1e12))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "range of %g elements", n);
	*count = n > 0 ? (int64_t)n : 0;
	return 0;
}

static int range_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t count;
	int status = range_count(k, in, &count);

	(void)n_in;
	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], in[0]->dtype,
						     1, &count);
}

static int range_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t count;
	int status = range_count(k, in, &count);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (rt_dtype_is_integer(in[0]->dtype)) {
		int64_t v = rt_tensor_get_int(in[0], 0);
		int64_t d = rt_tensor_get_int(in[2], 0);

		for (int64_t i = 0; i < count; i++, v += d)
			rt_tensor_set_double(out[0], (size_t)i, (double)v);
		return 0;
	}
	/* The spec's loop: accumulate in the element type. */
	double v = rt_tensor_get_double(in[0], 0), d = rt_tensor_get_double(in[2], 0);

	for (int64_t i = 0; i < count; i++) {
		rt_tensor_set_double(out[0], (size_t)i, v);
		v = rt_tensor_get_double(out[0], (size_t)i) + d;
		if (in[0]->dtype == ENPU_RT_FLOAT)
			v = (float)v;
	}
	return 0;
}

const struct rt_op_def rt_ops_generators[] = {
	{ "ConstantOfShape", "", 9, 21, 1, 1, 1, 1, 0,
	  constant_of_shape_infer, NULL, constant_of_shape_run, NULL },
	{ "Size", "", 1, 21, 1, 1, 1, 1, 0, size_infer, NULL, size_run, NULL },
	{ "EyeLike", "", 9, 21, 1, 1, 1, 1, 0, eye_like_infer, NULL,
	  eye_like_run, NULL },
	{ "Range", "", 11, 21, 3, 3, 1, 1, 0, range_infer, NULL, range_run,
	  NULL },
	{ 0 },
};
