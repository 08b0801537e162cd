// SPDX-License-Identifier: MIT
/*
 * Structural ops that move or describe data without arithmetic:
 * Identity, Constant, Reshape, Flatten, Shape.
 */
#include <inttypes.h>
#include <string.h>

#include "rt_op.h"

#define OPSET_MAX 21

static int copy_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)k, (void)n_in, (void)n_out;
	if (out[0]->byte_size)
		memcpy(out[0]->data, in[0]->data, out[0]->byte_size);
	return 0;
}

static int identity_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in, (void)n_out;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

/* Constant: value (tensor) or one of the value_* attributes (opset 12+). */
static int constant_value(struct rt_kernel *k, struct rt_tensor *scratch,
			  const struct rt_tensor **value)
{
	const struct rt_attr *attr;
	int status = rt_attr_tensor(k, "value", value);

	if (status || *value)
		return status;
	memset(scratch, 0, sizeof(*scratch));
	if ((attr = rt_attr_find(k, "value_float")) &&
	    attr->type == RT_ATTR_FLOAT) {
		scratch->dtype = ENPU_RT_FLOAT;
		scratch->data = (void *)&attr->f;
		scratch->byte_size = 4;
	} else if ((attr = rt_attr_find(k, "value_int")) &&
		   attr->type == RT_ATTR_INT) {
		scratch->dtype = ENPU_RT_INT64;
		scratch->data = (void *)&attr->i;
		scratch->byte_size = 8;
	} else if ((attr = rt_attr_find(k, "value_floats")) &&
		   attr->type == RT_ATTR_FLOATS) {
		scratch->dtype = ENPU_RT_FLOAT;
		scratch->rank = 1;
		scratch->dims[0] = (int64_t)attr->count;
		scratch->data = (void *)attr->floats;
		scratch->byte_size = attr->count * 4;
	} else if ((attr = rt_attr_find(k, "value_ints")) &&
		   attr->type == RT_ATTR_INTS) {
		scratch->dtype = ENPU_RT_INT64;
		scratch->rank = 1;
		scratch->dims[0] = (int64_t)attr->count;
		scratch->data = (void *)attr->ints;
		scratch->byte_size = attr->count * 8;
	} else if (rt_attr_find(k, "sparse_value") ||
		   rt_attr_find(k, "value_string") ||
		   rt_attr_find(k, "value_strings")) {
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "sparse and string constants are not "
				   "supported");
	} else {
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "has no value attribute");
	}
	*value = scratch;
	return 0;
}

static int constant_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor scratch;
	const struct rt_tensor *value;
	int status = constant_value(k, &scratch, &value);

	(void)in, (void)n_in, (void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], value->dtype, value->rank,
				   value->dims);
}

static int constant_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct rt_tensor scratch;
	const struct rt_tensor *value;
	int status = constant_value(k, &scratch, &value);

	(void)in, (void)n_in, (void)n_out;
	if (status)
		return status;
	if (value->byte_size != out[0]->byte_size)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "value size changed");
	if (value->byte_size)
		memcpy(out[0]->data, value->data, value->byte_size);
	return 0;
}

static int reshape_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int64_t shape[RT_MAX_RANK + 1], allow_zero = 0;
	size_t count, known = 1, total = rt_tensor_elements(in[0]);
	int infer_axis = -1, status;

	(void)n_out;
	if (k->opset < 5) {
		const int64_t *attr;

		status = rt_attr_ints(k, "shape", &attr, &count);
		if (status)
			return status;
		if (count > RT_MAX_RANK)
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "target rank %zu exceeds %d", count,
					   RT_MAX_RANK);
		if (count)
			memcpy(shape, attr, count * sizeof(shape[0]));
	} else {
		if (n_in < 2 || !in[1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "missing the shape input");
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[1], RT_MAX_RANK, shape,
					     &count);
		if (status)
			return status;
		if (k->opset >= 14) {
			status = rt_attr_int(k, "allowzero", 0, &allow_zero);
			if (status)
				return status;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (shape[i] == 0 && !allow_zero) {
			if ((int)i >= in[0]->rank)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "shape[%zu] = 0 copies a "
						   "dimension the input lacks", i);
			shape[i] = in[0]->dims[i];
		}
		if (shape[i] == -1) {
			if (infer_axis >= 0)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "shape has two -1 entries");
			infer_axis = (int)i;
			continue;
		}
		if (shape[i] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shape[%zu] = %" PRId64 " is invalid",
					   i, shape[i]);
		if (shape[i] && known > SIZE_MAX / 16 / (size_t)shape[i])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "target shape overflows");
		known *= (size_t)shape[i];
	}
	if (infer_axis >= 0) {
		if (!known || total % known)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "cannot infer the -1 dimension: %zu "
					   "elements into parts of %zu", total,
					   known);
		shape[infer_axis] = (int64_t)(total / known);
		known = total;
	}
	if (known != total) {
		char a[128];

		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "cannot reshape %s (%zu elements) to %zu "
				   "elements", rt_shape_string(in[0], a,
							       sizeof(a)),
				   total, known);
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, (int32_t)count,
				   shape);
}

static int flatten_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int64_t axis, shape[2] = { 1, 1 };
	int status = rt_attr_int(k, "axis", 1, &axis);

	(void)n_in, (void)n_out;
	if (status)
		return status;
	if (axis < 0)
		axis += in[0]->rank;
	if (axis < 0 || axis > in[0]->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis is outside [-%d, %d]", in[0]->rank,
				   in[0]->rank);
	for (int d = 0; d < in[0]->rank; d++)
		shape[d < axis ? 0 : 1] *= in[0]->dims[d];
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 2, shape);
}

static int shape_range(struct rt_kernel *k, const struct rt_tensor *in,
		       int64_t *start, int64_t *end)
{
	int64_t rank = in->rank;
	int status;

	*start = 0;
	*end = rank;
	if (k->opset >= 15) {
		status = rt_attr_int(k, "start", 0, start);
		if (!status)
			status = rt_attr_int(k, "end", rank, end);
		if (status)
			return status;
	}
	if (*start < 0)
		*start += rank;
	if (*end < 0)
		*end += rank;
	*start = *start < 0 ? 0 : *start > rank ? rank : *start;
	*end = *end < 0 ? 0 : *end > rank ? rank : *end;
	if (*end < *start)
		*end = *start;
	return 0;
}

static int shape_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	int64_t start, end, length;
	int status = shape_range(k, in[0], &start, &end);

	(void)n_in, (void)n_out;
	if (status)
		return status;
	length = end - start;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, 1, &length);
}

static int shape_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t start, end;
	int status = shape_range(k, in[0], &start, &end);

	(void)n_in, (void)n_out;
	if (status)
		return status;
	for (int64_t d = start; d < end; d++)
		((int64_t *)out[0]->data)[d - start] = in[0]->dims[d];
	return 0;
}

const struct rt_op_def rt_ops_core[] = {
	{ "Identity", "", 1, OPSET_MAX, 1, 1, 1, 1, 0, identity_infer, NULL,
	  copy_run, NULL },
	{ "Constant", "", 1, OPSET_MAX, 0, 0, 1, 1, 0, constant_infer, NULL,
	  constant_run, NULL },
	{ "Reshape", "", 1, OPSET_MAX, 1, 2, 1, 1, 0, reshape_infer, NULL,
	  copy_run, NULL },
	{ "Flatten", "", 1, OPSET_MAX, 1, 1, 1, 1, 0, flatten_infer, NULL,
	  copy_run, NULL },
	{ "Shape", "", 1, OPSET_MAX, 1, 1, 1, 1, 0, shape_infer, NULL,
	  shape_run, NULL },
	{ 0 },
};
