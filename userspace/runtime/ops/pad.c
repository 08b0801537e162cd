// SPDX-License-Identifier: MIT
/*
 * Pad: constant, edge, reflect and (opset 19) wrap modes on any
 * fixed-size element type. Pads come from the attribute before opset 11
 * and from input 1 since; opset 18 adds the optional axes input. Negative
 * pads crop. Every output index is mapped back to an input index (or to
 * the constant) one axis at a time.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

enum pad_mode { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT, PAD_WRAP };

struct pad_plan {
	enum pad_mode mode;
	int64_t begin[RT_MAX_RANK];
	int64_t end[RT_MAX_RANK];
	int64_t dims[RT_MAX_RANK];
};

static int pad_mode(struct rt_kernel *k, enum pad_mode *mode)
{
	const char *name;
	int status = rt_attr_string(k, "mode", "constant", &name);

	if (status)
		return status;
	if (!strcmp(name, "constant"))
		*mode = PAD_CONSTANT;
	else if (!strcmp(name, "edge"))
		*mode = PAD_EDGE;
	else if (!strcmp(name, "reflect"))
		*mode = PAD_REFLECT;
	else if (!strcmp(name, "wrap") && k->opset >= 19)
		*mode = PAD_WRAP;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "mode '%s' is not supported", name);
	return 0;
}

static int pad_plan(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct pad_plan *plan)
{
	const struct rt_tensor *x = in[0];
	int64_t pads[2 * RT_MAX_RANK], axes[RT_MAX_RANK];
	size_t n_pads, n_axes;
	int status = pad_mode(k, &plan->mode);

	if (status)
		return status;
	if (!rt_dtype_size(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "element type %s is not supported",
				   rt_dtype_name(x->dtype));
	if (k->opset < 11) {
		const int64_t *values;

		status = rt_attr_ints(k, "pads", &values, &n_pads);
		if (status)
			return status;
		if (!values || n_pads > 2 * RT_MAX_RANK)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "attribute pads is missing or too "
					   "long");
		memcpy(pads, values, n_pads * sizeof(*pads));
	} else {
		if (n_in < 2 || !in[1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input pads is required");
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[1], 2 * RT_MAX_RANK, pads,
					     &n_pads);
		if (status)
			return status;
	}
	if (n_in > 3 && in[3]) {
		if (!in[3]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[3], RT_MAX_RANK, axes,
					     &n_axes);
		if (status)
			return status;
	} else {
		n_axes = (size_t)x->rank;
		for (size_t i = 0; i < n_axes; i++)
			axes[i] = (int64_t)i;
	}
	if (n_pads != 2 * n_axes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "pads has %zu values for %zu axes", n_pads,
				   n_axes);
	memset(plan->begin, 0, sizeof(plan->begin));
	memset(plan->end, 0, sizeof(plan->end));
	for (size_t i = 0; i < n_axes; i++) {
		int64_t axis = axes[i];

		if (axis < -(int64_t)x->rank || axis >= x->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " is out of range "
					   "for rank %d", axis, x->rank);
		if (axis < 0)
			axis += x->rank;
		plan->begin[axis] = pads[i];
		plan->end[axis] = pads[n_axes + i];
	}
	for (int d = 0; d < x->rank; d++) {
		plan->dims[d] = x->dims[d] + plan->begin[d] + plan->end[d];
		if (plan->dims[d] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "pads crop axis %d below zero", d);
		if (plan->mode != PAD_CONSTANT && !x->dims[d] &&
		    plan->dims[d])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "cannot pad empty axis %d in a "
					   "non-constant mode", d);
	}
	return 0;
}

static int pad_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct pad_plan plan;
	int status;

	(void)n_out;
	if (k->opset >= 11 && n_in > 2 && in[2]) {
		if (in[2]->dtype != in[0]->dtype ||
		    rt_tensor_elements(in[2]) != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "constant_value must be one %s",
					   rt_dtype_name(in[0]->dtype));
	}
	status = pad_plan(k, in, n_in, &plan);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   plan.dims);
}

/* Input index for output index @o on an axis of @n elements, or -1. */
static int64_t source_index(enum pad_mode mode, int64_t o, int64_t begin,
			    int64_t n)
{
	int64_t i = o - begin, period;

	if (i >= 0 && i < n)
		return i;
	switch (mode) {
	case PAD_EDGE:
		return i < 0 ? 0 : n - 1;
	case PAD_REFLECT:
		if (n == 1)
			return 0;
		period = 2 * (n - 1);
		i = ((i % period) + period) % period;
		return i < n ? i : period - i;
	case PAD_WRAP:
		return ((i % n) + n) % n;
	default:
		return -1;
	}
}

static int pad_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t size = rt_dtype_size(x->dtype), total, used = 0;
	int64_t *map[RT_MAX_RANK], stride[RT_MAX_RANK], index[RT_MAX_RANK];
	int32_t rank = x->rank;
	unsigned char value[16] = { 0 };
	struct rt_tensor constant = { .dtype = x->dtype, .rank = 0,
				      .data = value, .byte_size = size };
	struct pad_plan plan;
	char *dst = out[0]->data;
	int64_t *maps;
	int status;

	(void)n_out;
	status = pad_plan(k, in, n_in, &plan);
	if (status)
		return status;
	if (k->opset < 11) {
		float v;

		status = rt_attr_float(k, "value", 0.0f, &v);
		if (status)
			return status;
		rt_tensor_set_double(&constant, 0, v);
	} else if (n_in > 2 && in[2]) {
		memcpy(value, in[2]->data, size);
	}
	total = rt_tensor_elements(out[0]);
	if (!total)
		return 0;
	if (!rank) {
		memcpy(dst, x->data, size);
		return 0;
	}
	for (int d = 0; d < rank; d++)
		used += (size_t)plan.dims[d];
	maps = malloc(used * sizeof(*maps));
	if (!maps)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for the index maps");
	used = 0;
	for (int d = rank - 1; d >= 0; d--) {
		stride[d] = d == rank - 1 ? 1 : stride[d + 1] * x->dims[d + 1];
		map[d] = maps + used;
		used += (size_t)plan.dims[d];
		for (int64_t o = 0; o < plan.dims[d]; o++)
			map[d][o] = source_index(plan.mode, o, plan.begin[d],
						 x->dims[d]);
		index[d] = 0;
	}
	for (size_t e = 0; e < total; e += (size_t)plan.dims[rank - 1]) {
		int64_t offset = 0, outside = 0;

		for (int d = 0; d < rank - 1; d++) {
			int64_t i = map[d][index[d]];

			if (i < 0)
				outside = 1;
			offset += i * stride[d];
		}
		for (int64_t o = 0; o < plan.dims[rank - 1]; o++) {
			int64_t i = map[rank - 1][o];

			if (outside || i < 0)
				memcpy(dst, value, size);
			else
				memcpy(dst, (const char *)x->data +
				       (size_t)(offset + i) * size, size);
			dst += size;
		}
		for (int d = rank - 2; d >= 0; d--) {
			if (++index[d] < plan.dims[d])
				break;
			index[d] = 0;
		}
	}
	free(maps);
	return 0;
}

const struct rt_op_def rt_ops_pad[] = {
	{
		.op_type = "Pad", .domain = "",
		.opset_min = 2, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 4,
		.min_outputs = 1, .max_outputs = 1,
		.infer = pad_infer, .run = pad_run,
	},
	{ 0 },
};
