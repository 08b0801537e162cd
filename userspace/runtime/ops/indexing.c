// SPDX-License-Identifier: MIT
/*
 * Index-driven ops: GatherElements, GatherND, ScatterElements (and the
 * older Scatter), ScatterND, OneHot, Compress, NonZero, TopK, Unique.
 * Every index read from a tensor is checked against the axis it
 * addresses (negative ones count from the end) before it is used; a bad
 * index is a run-time error naming it, never an out-of-bounds access.
 * Ops whose output size depends on values (Compress, NonZero, Unique,
 * OneHot's depth, TopK's K) infer from the values when they are known.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

static int index_at(struct rt_kernel *k, const struct rt_tensor *indices,
		    size_t i, int64_t extent, int64_t *out)
{
	int64_t v = rt_tensor_get_int(indices, i);

	*out = 0;
	if (v < -extent || v >= extent)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "index %" PRId64 " is out of range for an "
				   "axis of %" PRId64, v, extent);
	*out = v < 0 ? v + extent : v;
	return 0;
}

static int index_type(struct rt_kernel *k, const struct rt_tensor *t)
{
	if (t->dtype != ENPU_RT_INT64 && t->dtype != ENPU_RT_INT32)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "indices are %s, not int32 or int64",
				   rt_dtype_name(t->dtype));
	return 0;
}

/* ---- GatherElements, ScatterElements, Scatter ------------------------- */

static int elements_check(struct rt_kernel *k, const struct rt_tensor *data,
			  const struct rt_tensor *indices, int64_t *axis)
{
	int64_t a;
	int status = rt_attr_int(k, "axis", 0, &a);

	if (!status)
		status = index_type(k, indices);
	if (!status)
		status = rt_axis(k, a, data->rank, axis);
	if (status)
		return status;
	if (!rt_dtype_size(data->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(data->dtype));
	if (indices->rank != data->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "indices rank %d differs from data rank %d",
				   indices->rank, data->rank);
	return 0;
}

static int gather_elements_infer(struct rt_kernel *k,
				 const struct rt_tensor *const *in,
				 size_t n_in, struct rt_tensor *const *out,
				 size_t n_out)
{
	int64_t axis;
	int status = elements_check(k, in[0], in[1], &axis);

	(void)n_in;
	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], in[0]->dtype,
						     in[1]->rank, in[1]->dims);
}

/* Element offset in @data of index tensor element @e with axis value @v. */
static size_t element_offset(const struct rt_tensor *data,
			     const struct rt_tensor *indices, size_t e,
			     int64_t axis, int64_t v)
{
	size_t offset = 0, rest = e;
	int64_t coord[RT_MAX_RANK];

	for (int d = indices->rank - 1; d >= 0; d--) {
		coord[d] = (int64_t)(rest % (size_t)indices->dims[d]);
		rest /= (size_t)indices->dims[d];
	}
	coord[axis] = v;
	for (int d = 0; d < data->rank; d++)
		offset = offset * (size_t)data->dims[d] + (size_t)coord[d];
	return offset;
}

static int gather_elements_run(struct rt_kernel *k,
			       const struct rt_tensor *const *in, size_t n_in,
			       struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *data = in[0], *indices = in[1];
	size_t size = rt_dtype_size(data->dtype), n = rt_tensor_elements(indices);
	int64_t axis;
	int status = elements_check(k, data, indices, &axis);

	(void)n_in;
	(void)n_out;
	for (int d = 0; !status && d < data->rank; d++)
		if (d != axis && indices->dims[d] > data->dims[d])
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
					     "indices exceed data on axis %d", d);
	for (size_t e = 0; !status && e < n; e++) {
		int64_t v;

		status = index_at(k, indices, e, data->dims[axis], &v);
		if (!status)
			memcpy((char *)out[0]->data + e * size,
			       (const char *)data->data +
			       element_offset(data, indices, e, axis, v) * size,
			       size);
	}
	return status;
}

enum reduction { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static int reduction_of(struct rt_kernel *k, enum reduction *r)
{
	const char *name;
	int status = rt_attr_string(k, "reduction", "none", &name);

	if (status)
		return status;
	if (!strcmp(name, "none"))
		*r = RED_NONE;
	else if (!strcmp(name, "add"))
		*r = RED_ADD;
	else if (!strcmp(name, "mul"))
		*r = RED_MUL;
	else if (!strcmp(name, "max"))
		*r = RED_MAX;
	else if (!strcmp(name, "min"))
		*r = RED_MIN;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "reduction '%s' is unknown", name);
	return 0;
}

static void reduce_into(struct rt_tensor *t, size_t at,
			const struct rt_tensor *updates, size_t from,
			enum reduction r)
{
	size_t size = rt_dtype_size(t->dtype);
	char *dst = (char *)t->data + at * size;

	if (r == RED_NONE) {
		memcpy(dst, (const char *)updates->data + from * size, size);
		return;
	}
	if (rt_dtype_is_integer(t->dtype)) {
		int64_t a = rt_tensor_get_int(t, at), b = rt_tensor_get_int(updates, from);
		uint64_t v = r == RED_ADD ? (uint64_t)a + (uint64_t)b :
			     r == RED_MUL ? (uint64_t)a * (uint64_t)b :
			     (uint64_t)(r == RED_MAX ? (a > b ? a : b) :
					(a < b ? a : b));

		memcpy(dst, &v, size);	/* little-endian: the low bytes */
		return;
	}
	double a = rt_tensor_get_double(t, at), b = rt_tensor_get_double(updates, from);

	rt_tensor_set_double(t, at, r == RED_ADD ? a + b : r == RED_MUL ? a * b :
			     r == RED_MAX ? fmax(a, b) : fmin(a, b));
}

static int scatter_elements_infer(struct rt_kernel *k,
				  const struct rt_tensor *const *in,
				  size_t n_in, struct rt_tensor *const *out,
				  size_t n_out)
{
	int64_t axis;
	int status = elements_check(k, in[0], in[1], &axis);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (in[2]->dtype != in[0]->dtype || in[2]->rank != in[1]->rank ||
	    memcmp(in[2]->dims, in[1]->dims,
		   (size_t)in[1]->rank * sizeof(in[1]->dims[0])))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "updates must have the type of data and "
				   "the shape of indices");
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

static int scatter_elements_run(struct rt_kernel *k,
				const struct rt_tensor *const *in, size_t n_in,
				struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *data = in[0], *indices = in[1];
	size_t n = rt_tensor_elements(indices);
	enum reduction r = RED_NONE;
	int64_t axis;
	int status = elements_check(k, data, indices, &axis);

	(void)n_in;
	(void)n_out;
	if (!status && k->opset >= 16)
		status = reduction_of(k, &r);
	for (int d = 0; !status && d < data->rank; d++)
		if (d != axis && indices->dims[d] > data->dims[d])
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
					     "indices exceed data on axis %d", d);
	if (status)
		return status;
	memcpy(out[0]->data, data->data, out[0]->byte_size);
	for (size_t e = 0; e < n; e++) {
		int64_t v;

		status = index_at(k, indices, e, data->dims[axis], &v);
		if (status)
			return status;
		reduce_into(out[0], element_offset(data, indices, e, axis, v),
			    in[2], e, r);
	}
	return 0;
}

/* ---- GatherND, ScatterND ---------------------------------------------- */

struct nd_view {
	int64_t batch_dims, batch, tuple, slices, slice_elems;
	int32_t out_rank;
	int64_t out_dims[RT_MAX_RANK];
};

static int nd_view_of(struct rt_kernel *k, const struct rt_tensor *data,
		      const struct rt_tensor *indices, struct nd_view *v)
{
	int status = rt_attr_int(k, "batch_dims", 0, &v->batch_dims);
	int r = 0;

	if (!status)
		status = index_type(k, indices);
	if (status)
		return status;
	if (!rt_dtype_size(data->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(data->dtype));
	if (indices->rank < 1 || v->batch_dims < 0 ||
	    v->batch_dims >= indices->rank || v->batch_dims >= data->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "batch_dims %" PRId64 " does not fit ranks "
				   "%d and %d", v->batch_dims, data->rank,
				   indices->rank);
	v->tuple = indices->dims[indices->rank - 1];
	if (v->tuple < 1 || v->tuple > data->rank - v->batch_dims)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "index tuples of %" PRId64 " for data rank %d",
				   v->tuple, data->rank);
	v->batch = 1;
	for (int64_t d = 0; d < v->batch_dims; d++) {
		if (indices->dims[d] != data->dims[d])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "batch axis %" PRId64 " differs", d);
		v->batch *= data->dims[d];
		v->out_dims[r++] = data->dims[d];
	}
	v->slices = 1;
	for (int d = (int)v->batch_dims; d < indices->rank - 1; d++) {
		v->slices *= indices->dims[d];
		v->out_dims[r++] = indices->dims[d];
	}
	v->slice_elems = 1;
	for (int d = (int)(v->batch_dims + v->tuple); d < data->rank; d++) {
		v->slice_elems *= data->dims[d];
		if (r < RT_MAX_RANK)
			v->out_dims[r++] = data->dims[d];
		else
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "output rank exceeds %d",
					   RT_MAX_RANK);
	}
	v->out_rank = r;
	return 0;
}

/* Element offset within one batch of @data of slice @s, or an error. */
static int nd_offset(struct rt_kernel *k, const struct rt_tensor *data,
		     const struct rt_tensor *indices,
		     const struct nd_view *v, int64_t b, int64_t s,
		     size_t *offset)
{
	size_t base = (size_t)((b * v->slices + s) * v->tuple), o = 0;

	for (int64_t t = 0; t < v->tuple; t++) {
		int64_t extent = data->dims[v->batch_dims + t], idx;
		int status = index_at(k, indices, base + (size_t)t, extent, &idx);

		if (status)
			return status;
		o = o * (size_t)extent + (size_t)idx;
	}
	*offset = o * (size_t)v->slice_elems;
	return 0;
}

static int gather_nd_infer(struct rt_kernel *k,
			   const struct rt_tensor *const *in, size_t n_in,
			   struct rt_tensor *const *out, size_t n_out)
{
	struct nd_view v;
	int status = nd_view_of(k, in[0], in[1], &v);

	(void)n_in;
	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], in[0]->dtype,
						     v.out_rank, v.out_dims);
}

static int gather_nd_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct rt_tensor *const *out,
			 size_t n_out)
{
	const struct rt_tensor *data = in[0];
	size_t size = rt_dtype_size(data->dtype), batch_elems;
	struct nd_view v;
	int status = nd_view_of(k, data, in[1], &v);
	char *y = out[0]->data;

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	batch_elems = rt_tensor_elements(data) / (size_t)(v.batch ? v.batch : 1);
	for (int64_t b = 0; b < v.batch; b++)
	for (int64_t s = 0; s < v.slices; s++) {
		size_t off;

		status = nd_offset(k, data, in[1], &v, b, s, &off);
		if (status)
			return status;
		memcpy(y, (const char *)data->data +
		       ((size_t)b * batch_elems + off) * size,
		       (size_t)v.slice_elems * size);
		y += (size_t)v.slice_elems * size;
	}
	return 0;
}

static int scatter_nd_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct nd_view v;
	int status = nd_view_of(k, in[0], in[1], &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (in[2]->dtype != in[0]->dtype ||
	    rt_tensor_elements(in[2]) !=
	    (size_t)(v.batch * v.slices * v.slice_elems))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "updates do not match data and indices");
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

static int scatter_nd_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *data = in[0];
	struct nd_view v;
	enum reduction r = RED_NONE;
	size_t from = 0;
	int status = nd_view_of(k, data, in[1], &v);

	(void)n_in;
	(void)n_out;
	if (!status && k->opset >= 16)
		status = reduction_of(k, &r);
	if (status)
		return status;
	memcpy(out[0]->data, data->data, out[0]->byte_size);
	for (int64_t s = 0; s < v.slices; s++) {
		size_t off;

		status = nd_offset(k, data, in[1], &v, 0, s, &off);
		if (status)
			return status;
		for (int64_t e = 0; e < v.slice_elems; e++)
			reduce_into(out[0], off + (size_t)e, in[2], from++, r);
	}
	return 0;
}

/* ---- OneHot ------------------------------------------------------------ */

static int one_hot_view(struct rt_kernel *k, const struct rt_tensor *const *in,
			int64_t *depth, int64_t *axis)
{
	int64_t a;
	int status;

	if (!in[1]->data)
		return RT_OP_NEEDS_VALUES;
	if (rt_tensor_elements(in[1]) != 1 || rt_tensor_elements(in[2]) != 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "depth must be one value and values two");
	*depth = (int64_t)rt_tensor_get_double(in[1], 0);
	if (*depth < 1 || *depth > ((int64_t)1 << 32))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "depth %" PRId64 " is out of range", *depth);
	status = rt_attr_int(k, "axis", -1, &a);
	if (!status)
		status = rt_axis(k, a, in[0]->rank + 1, axis);
	return status;
}

static int one_hot_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int64_t depth, axis, dims[RT_MAX_RANK];
	int status = one_hot_view(k, in, &depth, &axis);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (in[0]->rank + 1 > RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "rank too high");
	for (int d = 0, s = 0; d <= in[0]->rank; d++)
		dims[d] = d == axis ? depth : in[0]->dims[s++];
	return rt_tensor_set_shape(k, out[0], in[2]->dtype, in[0]->rank + 1,
				   dims);
}

static int one_hot_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t depth, axis;
	size_t size = rt_dtype_size(in[2]->dtype), outer = 1, inner = 1;
	const char *off = in[2]->data, *on = off + size;
	int status = one_hot_view(k, in, &depth, &axis);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	for (int d = 0; d < in[0]->rank; d++) {
		if (d < axis)
			outer *= (size_t)in[0]->dims[d];
		else
			inner *= (size_t)in[0]->dims[d];
	}
	for (size_t o = 0; o < outer; o++)
	for (int64_t c = 0; c < depth; c++)
	for (size_t i = 0; i < inner; i++) {
		double raw = rt_tensor_get_double(in[0], o * inner + i);
		int64_t idx = (int64_t)raw;

		if (idx < 0)
			idx += depth;
		memcpy((char *)out[0]->data +
		       ((o * (size_t)depth + (size_t)c) * inner + i) * size,
		       idx == c ? on : off, size);
	}
	return 0;
}

/* ---- Compress, NonZero ------------------------------------------------- */

static int compress_view(struct rt_kernel *k, const struct rt_tensor *const *in,
			 int *has_axis, int64_t *axis, int64_t *kept)
{
	const struct rt_attr *a = rt_attr_find(k, "axis");
	size_t n = rt_tensor_elements(in[1]), extent;
	int status = 0;

	if (!in[1]->data)
		return RT_OP_NEEDS_VALUES;
	if (in[1]->dtype != ENPU_RT_BOOL || in[1]->rank != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "condition must be a 1-D bool tensor");
	*has_axis = a != NULL;
	if (a)
		status = rt_axis(k, a->i, in[0]->rank, axis);
	if (status)
		return status;
	extent = a ? (size_t)in[0]->dims[*axis] : rt_tensor_elements(in[0]);
	if (n > extent)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "condition has %zu values for %zu", n,
				   extent);
	*kept = 0;
	for (size_t i = 0; i < n; i++)
		*kept += ((const uint8_t *)in[1]->data)[i] != 0;
	return 0;
}

static int compress_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	int64_t axis, kept, dims[RT_MAX_RANK];
	int has_axis, status = compress_view(k, in, &has_axis, &axis, &kept);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (!has_axis)
		return rt_tensor_set_shape(k, out[0], in[0]->dtype, 1, &kept);
	memcpy(dims, in[0]->dims, sizeof(dims));
	dims[axis] = kept;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
}

static int compress_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const uint8_t *cond = in[1]->data;
	size_t size = rt_dtype_size(in[0]->dtype), outer = 1, inner = size;
	size_t n = rt_tensor_elements(in[1]), extent;
	int64_t axis = 0, kept;
	int has_axis, status = compress_view(k, in, &has_axis, &axis, &kept);
	char *y = out[0]->data;

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (!has_axis) {
		for (size_t i = 0; i < n; i++)
			if (cond[i]) {
				memcpy(y, (const char *)in[0]->data + i * size, size);
				y += size;
			}
		return 0;
	}
	for (int d = 0; d < in[0]->rank; d++) {
		if (d < axis)
			outer *= (size_t)in[0]->dims[d];
		else if (d > axis)
			inner *= (size_t)in[0]->dims[d];
	}
	extent = (size_t)in[0]->dims[axis];
	for (size_t o = 0; o < outer; o++)
		for (size_t i = 0; i < n; i++)
			if (cond[i]) {
				memcpy(y, (const char *)in[0]->data +
				       (o * extent + i) * inner, inner);
				y += inner;
			}
	return 0;
}

static size_t count_nonzero(const struct rt_tensor *x)
{
	size_t n = rt_tensor_elements(x), count = 0;

	for (size_t i = 0; i < n; i++)
		count += rt_tensor_get_double(x, i) != 0;
	return count;
}

static int nonzero_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int64_t dims[2];

	(void)n_in;
	(void)n_out;
	if (!in[0]->data)
		return RT_OP_NEEDS_VALUES;
	dims[0] = in[0]->rank;
	dims[1] = (int64_t)count_nonzero(in[0]);
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, 2, dims);
}

static int nonzero_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t n = rt_tensor_elements(x), nnz = (size_t)out[0]->dims[1], j = 0;
	int64_t *y = out[0]->data;

	(void)k;
	(void)n_in;
	(void)n_out;
	for (size_t i = 0; i < n; i++) {
		size_t rest = i;

		if (rt_tensor_get_double(x, i) == 0)
			continue;
		for (int d = x->rank - 1; d >= 0; d--) {
			y[(size_t)d * nnz + j] = (int64_t)(rest % (size_t)x->dims[d]);
			rest /= (size_t)x->dims[d];
		}
		j++;
	}
	return 0;
}

/* ---- TopK -------------------------------------------------------------- */

struct topk_view {
	int64_t axis, k;
	size_t outer, len, inner;
	int largest, sorted;
};

static int topk_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct topk_view *v)
{
	const struct rt_tensor *x = in[0];
	int64_t a, largest, sorted;
	int status = rt_attr_int(k, "axis", -1, &a);

	if (!status)
		status = rt_attr_int(k, "largest", 1, &largest);
	if (!status)
		status = rt_attr_int(k, "sorted", 1, &sorted);
	if (!status)
		status = rt_axis(k, a, x->rank, &v->axis);
	if (status)
		return status;
	if (k->opset < 10) {
		status = rt_attr_int(k, "k", 1, &v->k);
		if (status)
			return status;
	} else {
		if (n_in < 2 || !in[1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "K missing");
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		if (rt_tensor_elements(in[1]) != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "K must be one value");
		v->k = rt_tensor_get_int(in[1], 0);
	}
	if (!rt_dtype_is_float(x->dtype) && !rt_dtype_is_integer(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(x->dtype));
	if (v->k < 0 || v->k > x->dims[v->axis])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "K %" PRId64 " outside 0..%" PRId64, v->k,
				   x->dims[v->axis]);
	v->outer = v->inner = 1;
	for (int d = 0; d < x->rank; d++) {
		if (d < v->axis)
			v->outer *= (size_t)x->dims[d];
		else if (d > v->axis)
			v->inner *= (size_t)x->dims[d];
	}
	v->len = (size_t)x->dims[v->axis];
	v->largest = largest != 0;
	v->sorted = sorted != 0;
	return 0;
}

static int topk_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct topk_view v;
	int64_t dims[RT_MAX_RANK];
	int status = topk_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	memcpy(dims, in[0]->dims, sizeof(dims));
	dims[v.axis] = v.k;
	status = rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
	if (!status && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_INT64,
					     in[0]->rank, dims);
	return status;
}

struct ranked {
	double value;
	int64_t index;
};

static int by_largest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	/* NaN counts as the largest, as in ONNX Runtime; ties: lower index. */
	if (isnan(x->value) != isnan(y->value))
		return isnan(x->value) ? -1 : 1;
	if (x->value != y->value && !isnan(x->value))
		return x->value > y->value ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_smallest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (isnan(x->value) != isnan(y->value))
		return isnan(x->value) ? 1 : -1;
	if (x->value != y->value && !isnan(x->value))
		return x->value < y->value ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_index(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int topk_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct topk_view v;
	struct ranked *row;
	size_t size = rt_dtype_size(x->dtype);
	int status = topk_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	row = malloc((v.len + 1) * sizeof(*row));
	if (!row)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	/*
	 * int64 values beyond 2^53 compare through double; exact ties there
	 * fall back to the index order, which keeps the result deterministic.
	 */
	for (size_t o = 0; o < v.outer; o++)
	for (size_t i = 0; i < v.inner; i++) {
		for (size_t a = 0; a < v.len; a++) {
			row[a].value = rt_tensor_get_double(x,
				(o * v.len + a) * v.inner + i);
			row[a].index = (int64_t)a;
		}
		qsort(row, v.len, sizeof(*row), v.largest ? by_largest :
		      by_smallest);
		if (!v.sorted)
			qsort(row, (size_t)v.k, sizeof(*row), by_index);
		for (int64_t j = 0; j < v.k; j++) {
			size_t dst = (o * (size_t)v.k + (size_t)j) * v.inner + i;
			size_t src = (o * v.len + (size_t)row[j].index) * v.inner + i;

			memcpy((char *)out[0]->data + dst * size,
			       (const char *)x->data + src * size, size);
			if (out[1])
				((int64_t *)out[1]->data)[dst] = row[j].index;
		}
	}
	free(row);
	return 0;
}

/* ---- Unique ------------------------------------------------------------ */

struct unique_plan {
	size_t slices, slice_bytes, unique;
	size_t *first;		/* per unique value: its first slice */
	int64_t *inverse;	/* per slice: its unique index */
	int64_t *counts;
	int has_axis;
	int64_t axis;
	size_t outer, inner;	/* around the axis, in elements */
};

/* Compares slices @a and @b: along the axis, or single elements. */
static int slice_cmp(const struct rt_tensor *x, const struct unique_plan *p,
		     size_t a, size_t b)
{
	size_t len = p->has_axis ? (size_t)x->dims[p->axis] : 1;

	for (size_t o = 0; o < p->outer; o++)
	for (size_t i = 0; i < p->inner; i++) {
		size_t ea = (o * len + a) * p->inner + i;
		size_t eb = (o * len + b) * p->inner + i;
		double va = rt_tensor_get_double(x, ea), vb = rt_tensor_get_double(x, eb);

		if (rt_dtype_is_integer(x->dtype)) {
			int64_t ia = rt_tensor_get_int(x, ea), ib = rt_tensor_get_int(x, eb);

			if (ia != ib)
				return ia < ib ? -1 : 1;
		} else if (va != vb) {
			return va < vb ? -1 : 1;
		}
	}
	return 0;
}

static void unique_free(struct unique_plan *p)
{
	free(p->first);
	free(p->inverse);
	free(p->counts);
}

static int unique_plan_of(struct rt_kernel *k, const struct rt_tensor *x,
			  struct unique_plan *p)
{
	const struct rt_attr *a = rt_attr_find(k, "axis");
	int64_t sorted;
	int status = rt_attr_int(k, "sorted", 1, &sorted);
	size_t *order;

	memset(p, 0, sizeof(*p));
	if (status)
		return status;
	if (!x->data)
		return RT_OP_NEEDS_VALUES;
	if (!rt_dtype_is_float(x->dtype) && !rt_dtype_is_integer(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(x->dtype));
	p->has_axis = a != NULL;
	p->outer = p->inner = 1;
	if (a) {
		status = rt_axis(k, a->i, x->rank, &p->axis);
		if (status)
			return status;
		for (int d = 0; d < x->rank; d++) {
			if (d < p->axis)
				p->outer *= (size_t)x->dims[d];
			else if (d > p->axis)
				p->inner *= (size_t)x->dims[d];
		}
		p->slices = (size_t)x->dims[p->axis];
	} else {
		p->slices = rt_tensor_elements(x);
	}
	p->first = malloc((p->slices + 1) * sizeof(*p->first));
	p->inverse = malloc((p->slices + 1) * sizeof(*p->inverse));
	p->counts = malloc((p->slices + 1) * sizeof(*p->counts));
	order = malloc((p->slices + 1) * sizeof(*order));
	if (!p->first || !p->inverse || !p->counts || !order) {
		free(order);
		unique_free(p);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	/* Quadratic in the slices: Unique's inputs are small in practice. */
	for (size_t s = 0; s < p->slices; s++) {
		size_t u = 0;

		while (u < p->unique && slice_cmp(x, p, p->first[u], s))
			u++;
		if (u == p->unique) {
			p->first[u] = s;
			p->counts[u] = 0;
			p->unique++;
		}
		p->inverse[s] = (int64_t)u;
		p->counts[u]++;
	}
	if (sorted) {
		/* Insertion sort of the unique values, remapping the indices. */
		size_t *rank = order;

		for (size_t u = 0; u < p->unique; u++)
			rank[u] = u;
		for (size_t i = 1; i < p->unique; i++)
			for (size_t j = i; j > 0 &&
			     slice_cmp(x, p, p->first[rank[j - 1]],
				       p->first[rank[j]]) > 0; j--) {
				size_t t = rank[j];

				rank[j] = rank[j - 1];
				rank[j - 1] = t;
			}
		size_t *first = malloc((p->unique + 1) * sizeof(*first));
		int64_t *counts = malloc((p->unique + 1) * sizeof(*counts));
		int64_t *where = malloc((p->unique + 1) * sizeof(*where));

		if (!first || !counts || !where) {
			free(first);
			free(counts);
			free(where);
			free(order);
			unique_free(p);
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		}
		for (size_t i = 0; i < p->unique; i++) {
			first[i] = p->first[rank[i]];
			counts[i] = p->counts[rank[i]];
			where[rank[i]] = (int64_t)i;
		}
		for (size_t s = 0; s < p->slices; s++)
			p->inverse[s] = where[p->inverse[s]];
		memcpy(p->first, first, p->unique * sizeof(*first));
		memcpy(p->counts, counts, p->unique * sizeof(*counts));
		free(first);
		free(counts);
		free(where);
	}
	free(order);
	return 0;
}

static int unique_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct unique_plan p;
	int64_t dims[RT_MAX_RANK], u, s;
	int status = unique_plan_of(k, in[0], &p);

	(void)n_in;
	if (status)
		return status;
	u = (int64_t)p.unique;
	s = (int64_t)p.slices;
	if (p.has_axis) {
		memcpy(dims, in[0]->dims, sizeof(dims));
		dims[p.axis] = u;
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype,
					     in[0]->rank, dims);
	} else {
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype, 1, &u);
	}
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_INT64, 1, &u);
	if (!status && n_out > 2 && out[2])
		status = rt_tensor_set_shape(k, out[2], ENPU_RT_INT64, 1, &s);
	if (!status && n_out > 3 && out[3])
		status = rt_tensor_set_shape(k, out[3], ENPU_RT_INT64, 1, &u);
	unique_free(&p);
	return status;
}

static int unique_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct unique_plan p;
	size_t size = rt_dtype_size(x->dtype);
	int status = unique_plan_of(k, x, &p);

	(void)n_in;
	if (status)
		return status;
	for (size_t u = 0; u < p.unique; u++) {
		size_t len = p.has_axis ? (size_t)x->dims[p.axis] : 1;

		for (size_t o = 0; o < p.outer; o++)
			memcpy((char *)out[0]->data +
			       ((o * p.unique + u) * p.inner) * size,
			       (const char *)x->data +
			       ((o * len + p.first[u]) * p.inner) * size,
			       p.inner * size);
		if (n_out > 1 && out[1])
			((int64_t *)out[1]->data)[u] = (int64_t)p.first[u];
		if (n_out > 3 && out[3])
			((int64_t *)out[3]->data)[u] = p.counts[u];
	}
	if (n_out > 2 && out[2])
		memcpy(out[2]->data, p.inverse, p.slices * sizeof(int64_t));
	unique_free(&p);
	return 0;
}

const struct rt_op_def rt_ops_indexing[] = {
	{ "GatherElements", "", 11, 21, 2, 2, 1, 1, 0, gather_elements_infer,
	  NULL, gather_elements_run, NULL },
	{ "ScatterElements", "", 11, 21, 3, 3, 1, 1, 0,
	  scatter_elements_infer, NULL, scatter_elements_run, NULL },
	{ "Scatter", "", 9, 10, 3, 3, 1, 1, 0, scatter_elements_infer, NULL,
	  scatter_elements_run, NULL },
	{ "GatherND", "", 11, 21, 2, 2, 1, 1, 0, gather_nd_infer, NULL,
	  gather_nd_run, NULL },
	{ "ScatterND", "", 11, 21, 3, 3, 1, 1, 0, scatter_nd_infer, NULL,
	  scatter_nd_run, NULL },
	{ "OneHot", "", 9, 21, 3, 3, 1, 1, 0, one_hot_infer, NULL, one_hot_run,
	  NULL },
	{ "Compress", "", 9, 21, 2, 2, 1, 1, 0, compress_infer, NULL,
	  compress_run, NULL },
	{ "NonZero", "", 9, 21, 1, 1, 1, 1, 0, nonzero_infer, NULL,
	  nonzero_run, NULL },
	{ "TopK", "", 1, 21, 1, 2, 1, 2, 0, topk_infer, NULL, topk_run, NULL },
	{ "Unique", "", 11, 21, 1, 1, 1, 4, 0, unique_infer, NULL, unique_run,
	  NULL },
	{ 0 },
};
