// SPDX-License-Identifier: MIT
/*
 * Ops that move elements without computing on them: Concat, Transpose,
 * Squeeze, Unsqueeze, Gather, Slice. They work on any fixed-size element
 * type by copying bytes. Axes and indices from the model are checked
 * against the shapes; out-of-range values are errors, never reads past a
 * buffer.
 */
#include <inttypes.h>
#include <string.h>

#include "rt_op.h"

static int element_size(struct rt_kernel *k, const struct rt_tensor *t,
			size_t *size)
{
	*size = rt_dtype_size(t->dtype);
	if (!*size)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "element type %s is not supported",
				   rt_dtype_name(t->dtype));
	return 0;
}

/* Maps @axis in [-rank, rank) to [0, rank). */
static int normalize_axis(struct rt_kernel *k, int64_t axis, int32_t rank,
			  int64_t *out)
{
	*out = 0;
	if (axis < -(int64_t)rank || axis >= rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis %" PRId64 " is out of range for rank %d",
				   axis, rank);
	*out = axis < 0 ? axis + rank : axis;
	return 0;
}

/*
 * out[i0..in] = in[offset + sum i_d * strides[d]] for every index of
 * @dims, strides in elements and possibly negative.
 */
static void copy_strided(size_t size, int32_t rank, const int64_t *dims,
			 const char *in, int64_t offset,
			 const int64_t *strides, char *out)
{
	int64_t index[RT_MAX_RANK] = { 0 };
	int64_t inner, total = 1;

	for (int d = 0; d < rank; d++)
		total *= dims[d];
	if (!total)
		return;
	if (!rank) {
		memcpy(out, in + offset * (int64_t)size, size);
		return;
	}
	inner = dims[rank - 1];
	for (int64_t done = 0; done < total; done += inner) {
		const char *src = in + offset * (int64_t)size;

		if (strides[rank - 1] == 1) {
			memcpy(out, src, (size_t)inner * size);
			out += (size_t)inner * size;
		} else {
			for (int64_t i = 0; i < inner; i++) {
				memcpy(out, src + i * strides[rank - 1] *
				       (int64_t)size, size);
				out += size;
			}
		}
		for (int d = rank - 2; d >= 0; d--) {
			index[d]++;
			offset += strides[d];
			if (index[d] < dims[d])
				break;
			offset -= strides[d] * dims[d];
			index[d] = 0;
		}
	}
}

static void contiguous_strides(const struct rt_tensor *t, int64_t *strides)
{
	int64_t stride = 1;

	for (int d = t->rank - 1; d >= 0; d--) {
		strides[d] = stride;
		stride *= t->dims[d];
	}
}

static int copy_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)k;
	(void)n_in;
	(void)n_out;
	if (out[0]->byte_size)
		memcpy(out[0]->data, in[0]->data, out[0]->byte_size);
	return 0;
}

/* ---- Concat ---------------------------------------------------------- */

static int concat_axis(struct rt_kernel *k, const struct rt_tensor *x,
		       int64_t *axis)
{
	const struct rt_attr *attr = rt_attr_find(k, "axis");
	int64_t value;
	int status;

	if (!attr && k->opset >= 4)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "attribute axis is required");
	/* Concat-1 defaulted to axis 1. */
	status = rt_attr_int(k, "axis", 1, &value);
	if (status)
		return status;
	return normalize_axis(k, value, x->rank, axis);
}

static int concat_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const struct rt_tensor *first = in[0];
	int64_t axis, dims[RT_MAX_RANK];
	int status;
	size_t size;

	(void)n_out;
	for (size_t i = 0; i < n_in; i++)
		if (!in[i])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu is missing", i);
	status = element_size(k, first, &size);
	if (!status)
		status = concat_axis(k, first, &axis);
	if (status)
		return status;
	memcpy(dims, first->dims, sizeof(dims));
	for (size_t i = 1; i < n_in; i++) {
		const struct rt_tensor *t = in[i];
		char a[96], b[96];

		if (t->dtype != first->dtype)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu has type %s, input 0 %s",
					   i, rt_dtype_name(t->dtype),
					   rt_dtype_name(first->dtype));
		if (t->rank != first->rank)
			goto mismatch;
		for (int d = 0; d < t->rank; d++)
			if (d != axis && t->dims[d] != first->dims[d])
				goto mismatch;
		dims[axis] += t->dims[axis];
		continue;
mismatch:
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input %zu shape %s does not match input 0 "
				   "shape %s off axis %" PRId64, i,
				   rt_shape_string(t, a, sizeof(a)),
				   rt_shape_string(first, b, sizeof(b)), axis);
	}
	return rt_tensor_set_shape(k, out[0], first->dtype, first->rank, dims);
}

static int concat_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t size = rt_dtype_size(out[0]->dtype), outer = 1, inner = 1;
	char *dst = out[0]->data;
	int64_t axis;
	int status;

	(void)n_out;
	status = concat_axis(k, in[0], &axis);
	if (status)
		return status;
	for (int d = 0; d < axis; d++)
		outer *= (size_t)out[0]->dims[d];
	for (int d = (int)axis + 1; d < out[0]->rank; d++)
		inner *= (size_t)out[0]->dims[d];
	for (size_t o = 0; o < outer; o++) {
		for (size_t i = 0; i < n_in; i++) {
			size_t block = (size_t)in[i]->dims[axis] * inner * size;

			if (!block)
				continue;
			memcpy(dst, (const char *)in[i]->data + o * block,
			       block);
			dst += block;
		}
	}
	return 0;
}

/* ---- Transpose ------------------------------------------------------- */

static int transpose_perm(struct rt_kernel *k, const struct rt_tensor *x,
			  int64_t *perm)
{
	const int64_t *values;
	size_t count;
	int seen[RT_MAX_RANK] = { 0 };
	int status = rt_attr_ints(k, "perm", &values, &count);

	if (status)
		return status;
	if (!values) {
		for (int d = 0; d < x->rank; d++)
			perm[d] = x->rank - 1 - d;
		return 0;
	}
	if (count != (size_t)x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "perm has %zu values for rank %d", count,
				   x->rank);
	for (size_t d = 0; d < count; d++) {
		if (values[d] < 0 || values[d] >= x->rank ||
		    seen[values[d]]++)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "perm is not a permutation of 0..%d",
					   x->rank - 1);
		perm[d] = values[d];
	}
	return 0;
}

static int transpose_infer(struct rt_kernel *k,
			   const struct rt_tensor *const *in, size_t n_in,
			   struct rt_tensor *const *out, size_t n_out)
{
	int64_t perm[RT_MAX_RANK], dims[RT_MAX_RANK];
	size_t size;
	int status;

	(void)n_in;
	(void)n_out;
	status = element_size(k, in[0], &size);
	if (!status)
		status = transpose_perm(k, in[0], perm);
	if (status)
		return status;
	for (int d = 0; d < in[0]->rank; d++)
		dims[d] = in[0]->dims[perm[d]];
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
}

static int transpose_run(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int64_t perm[RT_MAX_RANK], in_strides[RT_MAX_RANK];
	int64_t strides[RT_MAX_RANK];
	int status = transpose_perm(k, in[0], perm);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	contiguous_strides(in[0], in_strides);
	for (int d = 0; d < in[0]->rank; d++)
		strides[d] = in_strides[perm[d]];
	copy_strided(rt_dtype_size(in[0]->dtype), out[0]->rank, out[0]->dims,
		     in[0]->data, 0, strides, out[0]->data);
	return 0;
}

/* ---- Squeeze / Unsqueeze --------------------------------------------- */

/*
 * Axes come from the attribute before opset 13 and from input 1 since.
 * *count = -1 when there are none (Squeeze then drops every 1).
 */
static int read_axes(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, int64_t *axes, int *count)
{
	if (k->opset >= 13) {
		size_t n;
		int status;

		if (n_in < 2 || !in[1]) {
			*count = -1;
			return 0;
		}
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[1], RT_MAX_RANK, axes, &n);
		*count = (int)n;
		return status;
	}
	const int64_t *values;
	size_t n;
	int status = rt_attr_ints(k, "axes", &values, &n);

	if (status)
		return status;
	if (!values) {
		*count = -1;
		return 0;
	}
	if (n > RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axes has %zu values, at most %d allowed",
				   n, RT_MAX_RANK);
	memcpy(axes, values, n * sizeof(*axes));
	*count = (int)n;
	return 0;
}

static int squeeze_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t axes[RT_MAX_RANK], dims[RT_MAX_RANK];
	int drop[RT_MAX_RANK] = { 0 }, count, rank = 0;
	size_t size;
	int status;

	(void)n_out;
	status = element_size(k, x, &size);
	if (!status)
		status = read_axes(k, in, n_in, axes, &count);
	if (status)
		return status;
	for (int i = 0; i < count; i++) {
		int64_t axis;

		status = normalize_axis(k, axes[i], x->rank, &axis);
		if (status)
			return status;
		if (x->dims[axis] != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " has size %" PRId64
					   ", not 1", axes[i], x->dims[axis]);
		drop[axis] = 1;
	}
	for (int d = 0; d < x->rank; d++) {
		if (count < 0 ? x->dims[d] == 1 : drop[d])
			continue;
		dims[rank++] = x->dims[d];
	}
	return rt_tensor_set_shape(k, out[0], x->dtype, rank, dims);
}

static int unsqueeze_infer(struct rt_kernel *k,
			   const struct rt_tensor *const *in, size_t n_in,
			   struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t axes[RT_MAX_RANK], dims[RT_MAX_RANK];
	int insert[RT_MAX_RANK] = { 0 }, count, rank, next = 0;
	size_t size;
	int status;

	(void)n_out;
	status = element_size(k, x, &size);
	if (!status)
		status = read_axes(k, in, n_in, axes, &count);
	if (status)
		return status;
	if (count < 0)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "axes are required");
	rank = x->rank + count;
	if (rank > RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "output rank %d exceeds %d", rank,
				   RT_MAX_RANK);
	for (int i = 0; i < count; i++) {
		int64_t axis;

		status = normalize_axis(k, axes[i], rank, &axis);
		if (status)
			return status;
		if (insert[axis]++)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " appears twice",
					   axes[i]);
	}
	for (int d = 0; d < rank; d++)
		dims[d] = insert[d] ? 1 : x->dims[next++];
	return rt_tensor_set_shape(k, out[0], x->dtype, rank, dims);
}

/* ---- Gather ---------------------------------------------------------- */

static int gather_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const struct rt_tensor *data = in[0], *indices = in[1];
	int64_t axis, value, dims[RT_MAX_RANK];
	int32_t rank = 0;
	size_t size;
	int status;

	(void)n_in;
	(void)n_out;
	status = element_size(k, data, &size);
	if (!status)
		status = rt_attr_int(k, "axis", 0, &value);
	if (!status)
		status = normalize_axis(k, value, data->rank, &axis);
	if (status)
		return status;
	if (indices->dtype != ENPU_RT_INT64 && indices->dtype != ENPU_RT_INT32)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "indices have type %s, not int32 or int64",
				   rt_dtype_name(indices->dtype));
	if (data->rank - 1 + indices->rank > RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "output rank exceeds %d", RT_MAX_RANK);
	for (int d = 0; d < axis; d++)
		dims[rank++] = data->dims[d];
	for (int d = 0; d < indices->rank; d++)
		dims[rank++] = indices->dims[d];
	for (int d = (int)axis + 1; d < data->rank; d++)
		dims[rank++] = data->dims[d];
	return rt_tensor_set_shape(k, out[0], data->dtype, rank, dims);
}

static int64_t gather_index(const struct rt_tensor *indices, size_t i)
{
	if (indices->dtype == ENPU_RT_INT64)
		return ((const int64_t *)indices->data)[i];
	return ((const int32_t *)indices->data)[i];
}

static int gather_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *data = in[0], *indices = in[1];
	size_t size = rt_dtype_size(data->dtype), outer = 1, inner = 1;
	size_t count = rt_tensor_elements(indices);
	int64_t axis, value, extent;
	char *dst = out[0]->data;
	int status;

	(void)n_in;
	(void)n_out;
	status = rt_attr_int(k, "axis", 0, &value);
	if (!status)
		status = normalize_axis(k, value, data->rank, &axis);
	if (status)
		return status;
	extent = data->dims[axis];
	for (int d = 0; d < axis; d++)
		outer *= (size_t)data->dims[d];
	for (int d = (int)axis + 1; d < data->rank; d++)
		inner *= (size_t)data->dims[d];
	for (size_t i = 0; i < count; i++) {
		int64_t index = gather_index(indices, i);

		if (index < -extent || index >= extent)
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
					   "index %" PRId64 " is out of range "
					   "for axis size %" PRId64, index,
					   extent);
	}
	for (size_t o = 0; o < outer; o++) {
		const char *block = (const char *)data->data +
				    o * (size_t)extent * inner * size;

		for (size_t i = 0; i < count; i++) {
			int64_t index = gather_index(indices, i);

			if (index < 0)
				index += extent;
			memcpy(dst, block + (size_t)index * inner * size,
			       inner * size);
			dst += inner * size;
		}
	}
	return 0;
}

/* ---- Slice ----------------------------------------------------------- */

struct slice_plan {
	int64_t start[RT_MAX_RANK];
	int64_t step[RT_MAX_RANK];
	int64_t dims[RT_MAX_RANK];
};

static int slice_read(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, int index, const char *attr,
		      int64_t *values, size_t *count, int *present)
{
	*present = 0;
	if (k->opset < 10) {
		const int64_t *ints;
		int status = rt_attr_ints(k, attr, &ints, count);

		if (status || !ints)
			return status;
		if (*count > RT_MAX_RANK)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "%s has %zu values, at most %d",
					   attr, *count, RT_MAX_RANK);
		memcpy(values, ints, *count * sizeof(*values));
		*present = 1;
		return 0;
	}
	if ((size_t)index >= n_in || !in[index])
		return 0;
	if (!in[index]->data)
		return RT_OP_NEEDS_VALUES;
	*present = 1;
	return rt_tensor_read_ints(k, in[index], RT_MAX_RANK, values, count);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int slice_plan(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct slice_plan *plan)
{
	const struct rt_tensor *x = in[0];
	int64_t starts[RT_MAX_RANK], ends[RT_MAX_RANK], axes[RT_MAX_RANK];
	int64_t steps[RT_MAX_RANK];
	size_t n_starts, n_ends, n_axes = 0, n_steps = 0;
	int has_starts, has_ends, has_axes, has_steps, seen[RT_MAX_RANK] = { 0 };
	int status;

	status = slice_read(k, in, n_in, 1, "starts", starts, &n_starts,
			    &has_starts);
	if (!status)
		status = slice_read(k, in, n_in, 2, "ends", ends, &n_ends,
				    &has_ends);
	if (!status)
		status = slice_read(k, in, n_in, 3, "axes", axes, &n_axes,
				    &has_axes);
	if (!status && k->opset >= 10)
		status = slice_read(k, in, n_in, 4, "steps", steps, &n_steps,
				    &has_steps);
	else
		has_steps = 0;
	if (status)
		return status;
	if (!has_starts || !has_ends || n_starts != n_ends)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "starts and ends are required and must "
				   "have the same length");
	if ((has_axes && n_axes != n_starts) ||
	    (has_steps && n_steps != n_starts))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axes and steps must have as many values "
				   "as starts (%zu)", n_starts);
	for (int d = 0; d < x->rank; d++) {
		plan->start[d] = 0;
		plan->step[d] = 1;
		plan->dims[d] = x->dims[d];
	}
	for (size_t i = 0; i < n_starts; i++) {
		int64_t axis = has_axes ? axes[i] : (int64_t)i, dim, start, end;
		int64_t step = has_steps ? steps[i] : 1;

		status = normalize_axis(k, axis, x->rank, &axis);
		if (status)
			return status;
		if (seen[axis]++)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " is sliced twice",
					   axis);
		if (step == 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "step on axis %" PRId64 " is 0",
					   axis);
		dim = x->dims[axis];
		start = starts[i] < 0 ? starts[i] + dim : starts[i];
		end = ends[i] < 0 ? ends[i] + dim : ends[i];
		if (step > 0) {
			start = clamp64(start, 0, dim);
			end = clamp64(end, 0, dim);
			plan->dims[axis] = end > start ?
				(end - start + step - 1) / step : 0;
		} else {
			start = clamp64(start, 0, dim - 1);
			end = clamp64(end, -1, dim - 1);
			plan->dims[axis] = start > end ?
				(start - end - step - 1) / -step : 0;
		}
		plan->start[axis] = start;
		plan->step[axis] = step;
	}
	return 0;
}

static int slice_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	struct slice_plan plan;
	size_t size;
	int status;

	(void)n_out;
	status = element_size(k, in[0], &size);
	if (!status)
		status = slice_plan(k, in, n_in, &plan);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   plan.dims);
}

static int slice_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t in_strides[RT_MAX_RANK], strides[RT_MAX_RANK], offset = 0;
	struct slice_plan plan;
	int status;

	(void)n_out;
	status = slice_plan(k, in, n_in, &plan);
	if (status)
		return status;
	contiguous_strides(in[0], in_strides);
	for (int d = 0; d < in[0]->rank; d++) {
		strides[d] = in_strides[d] * plan.step[d];
		offset += in_strides[d] * plan.start[d];
	}
	copy_strided(rt_dtype_size(in[0]->dtype), out[0]->rank, out[0]->dims,
		     in[0]->data, offset, strides, out[0]->data);
	return 0;
}

const struct rt_op_def rt_ops_shape_ops[] = {
	{
		.op_type = "Concat", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 65535,
		.min_outputs = 1, .max_outputs = 1,
		.infer = concat_infer, .run = concat_run,
	},
	{
		.op_type = "Transpose", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.infer = transpose_infer, .run = transpose_run,
	},
	{
		.op_type = "Squeeze", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 2,
		.min_outputs = 1, .max_outputs = 1,
		.infer = squeeze_infer, .run = copy_run,
	},
	{
		.op_type = "Unsqueeze", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 2,
		.min_outputs = 1, .max_outputs = 1,
		.infer = unsqueeze_infer, .run = copy_run,
	},
	{
		.op_type = "Gather", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 2, .max_inputs = 2,
		.min_outputs = 1, .max_outputs = 1,
		.infer = gather_infer, .run = gather_run,
	},
	{
		.op_type = "Slice", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 5,
		.min_outputs = 1, .max_outputs = 1,
		.infer = slice_infer, .run = slice_run,
	},
	{ 0 },
};
