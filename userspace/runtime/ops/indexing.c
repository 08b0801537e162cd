// SPDX-License-Identifier: MIT
/*
 * Index-driven ops: GatherElements, GatherND, ScatterElements (and the
 * older Scatter), ScatterND. Every index read from a tensor is checked
 * against the axis it addresses (negative ones count from the end)
 * before it is used; a bad index is a run-time error naming it, never an
 * out-of-bounds access.
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
	{ 0 },
};
