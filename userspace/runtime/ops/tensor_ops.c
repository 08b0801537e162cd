// SPDX-License-Identifier: MIT
/*
 * Ops that rearrange or pass on an input's elements: Expand, Tile,
 * Split, Trilu, DepthToSpace, SpaceToDepth, Dropout (inference), CumSum,
 * ReverseSequence (the ones that make a tensor from a shape or scalars
 * are in generators.c). Ops whose output shape depends on an input's
 * values (Expand, Tile, Split with a computed split) return
 * RT_OP_NEEDS_VALUES until the values exist; every count read from the
 * model is checked before it sizes an allocation.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"

static int fixed_size(struct rt_kernel *k, const struct rt_tensor *t)
{
	if (!rt_dtype_size(t->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "element type %s is not supported",
				   rt_dtype_name(t->dtype));
	return 0;
}

/* ---- Expand ------------------------------------------------------------ */

static int expand_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int64_t dims[RT_MAX_RANK];
	size_t count;
	struct rt_tensor shape = { 0 }, target = { 0 };
	const struct rt_tensor *pair[2] = { in[0], &target };
	int status;

	(void)n_in;
	(void)n_out;
	if (!in[1]->data)
		return RT_OP_NEEDS_VALUES;
	status = fixed_size(k, in[0]);
	if (!status)
		status = rt_tensor_read_ints(k, in[1], RT_MAX_RANK, dims, &count);
	if (status)
		return status;
	target.rank = (int32_t)count;
	for (size_t i = 0; i < count; i++) {
		if (dims[i] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shape value %" PRId64 " is negative",
					   dims[i]);
		target.dims[i] = dims[i];
	}
	status = rt_broadcast_shape(k, pair, 2, &shape);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, shape.rank,
				   shape.dims);
}

#define COPY_ROW(name, type)						\
static void name(void *ctx, size_t n, void *out,			\
		 const void *const *in, const size_t *step)		\
{									\
	const type *x = in[0];						\
	type *y = out;							\
									\
	(void)ctx;							\
	if (step[0])							\
		memcpy(y, x, n * sizeof(type));				\
	else								\
		for (size_t i = 0; i < n; i++)				\
			y[i] = x[0];					\
}

COPY_ROW(copy_8, uint8_t)
COPY_ROW(copy_16, uint16_t)
COPY_ROW(copy_32, uint32_t)
COPY_ROW(copy_64, uint64_t)

static int expand_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	static const rt_bcast_row_fn rows[9] = {
		[1] = copy_8, [2] = copy_16, [4] = copy_32, [8] = copy_64,
	};
	size_t size = rt_dtype_size(in[0]->dtype);

	(void)n_in;
	(void)n_out;
	if (size > 8 || !rows[size])
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "element size %zu is not supported", size);
	rt_bcast_apply(in, 1, out[0], rows[size], NULL);
	return 0;
}

/* ---- Tile -------------------------------------------------------------- */

static int tile_repeats(struct rt_kernel *k, const struct rt_tensor *const *in,
			int64_t *repeats)
{
	size_t count;
	int status;

	if (!in[1]->data)
		return RT_OP_NEEDS_VALUES;
	status = rt_tensor_read_ints(k, in[1], RT_MAX_RANK, repeats, &count);
	if (status)
		return status;
	if ((int)count != in[0]->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%zu repeats for rank %d", count,
				   in[0]->rank);
	for (size_t i = 0; i < count; i++)
		if (repeats[i] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "repeat %" PRId64 " is negative",
					   repeats[i]);
	return 0;
}

static int tile_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t repeats[RT_MAX_RANK], dims[RT_MAX_RANK];
	int status = fixed_size(k, in[0]);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = tile_repeats(k, in, repeats);
	if (status)
		return status;
	for (int d = 0; d < in[0]->rank; d++) {
		if (repeats[d] && in[0]->dims[d] > INT64_MAX / repeats[d])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output size overflows");
		dims[d] = in[0]->dims[d] * repeats[d];
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
}

static int tile_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct rt_tensor *y = out[0];
	size_t size = rt_dtype_size(x->dtype), total = rt_tensor_elements(y);
	int64_t index[RT_MAX_RANK] = { 0 }, xs[RT_MAX_RANK];
	int r = x->rank;

	(void)k;
	(void)n_in;
	(void)n_out;
	if (!total)
		return 0;
	if (!r) {
		memcpy(y->data, x->data, size);
		return 0;
	}
	rt_contiguous_strides(x, xs);
	/* One output row (last axis) at a time: repeats of one input row. */
	for (size_t done = 0; done < total; done += (size_t)y->dims[r - 1]) {
		size_t src = 0, row = (size_t)x->dims[r - 1] * size;
		char *dst = (char *)y->data + done * size;

		for (int d = 0; d < r - 1; d++)
			src += (size_t)((index[d] % x->dims[d]) * xs[d]);
		for (int64_t t = 0; t < y->dims[r - 1] / x->dims[r - 1]; t++)
			memcpy(dst + (size_t)t * row,
			       (const char *)x->data + src * size, row);
		for (int d = r - 2; d >= 0; d--) {
			if (++index[d] < y->dims[d])
				break;
			index[d] = 0;
		}
	}
	return 0;
}

/* ---- Split ------------------------------------------------------------- */

static int split_plan(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, size_t n_out, int64_t *axis,
		      int64_t *sizes)
{
	const struct rt_tensor *x = in[0];
	int64_t a, total, parts = (int64_t)n_out, sum = 0;
	const int64_t *attr;
	size_t count = 0;
	int status = rt_attr_int(k, "axis", 0, &a);

	if (!status)
		status = rt_axis(k, a, x->rank, axis);
	if (status)
		return status;
	total = x->dims[*axis];
	if (k->opset < 13 && !(n_in > 1 && in[1])) {
		status = rt_attr_ints(k, "split", &attr, &count);
		if (status)
			return status;
		for (size_t i = 0; i < count && i < n_out; i++)
			sizes[i] = attr[i];
	} else if (n_in > 1 && in[1]) {
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		if (rt_tensor_elements(in[1]) != n_out)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "split has %zu values for %zu outputs",
					   rt_tensor_elements(in[1]), n_out);
		status = rt_tensor_read_ints(k, in[1], n_out, sizes, &count);
		if (status)
			return status;
	}
	if (count) {
		if (count != n_out)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "split has %zu values for %zu outputs",
					   count, n_out);
		for (size_t i = 0; i < count; i++) {
			if (sizes[i] < 0)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "split %" PRId64 " is negative",
						   sizes[i]);
			sum += sizes[i];
		}
		if (sum != total)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "splits add up to %" PRId64 ", axis "
					   "is %" PRId64, sum, total);
		return 0;
	}
	if (k->opset >= 18) {
		int64_t num;

		status = rt_attr_int(k, "num_outputs", (int64_t)n_out, &num);
		if (status)
			return status;
		if (num != (int64_t)n_out)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "num_outputs %" PRId64 " but %zu "
					   "outputs", num, n_out);
		/* Opset 18: ceil(total / n) each, the last one smaller. */
		int64_t chunk = (total + parts - 1) / parts;

		for (int64_t i = 0; i < parts; i++) {
			sizes[i] = total - i * chunk < chunk ?
				   (total - i * chunk > 0 ? total - i * chunk : 0) :
				   chunk;
		}
		return 0;
	}
	if (total % parts)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis of %" PRId64 " does not split into %zu "
				   "equal parts", total, n_out);
	for (int64_t i = 0; i < parts; i++)
		sizes[i] = total / parts;
	return 0;
}

static int split_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t axis, *sizes = malloc(n_out * sizeof(*sizes));
	int status = sizes ? fixed_size(k, in[0]) :
		     rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");

	if (!status)
		status = split_plan(k, in, n_in, n_out, &axis, sizes);
	for (size_t o = 0; !status && o < n_out; o++) {
		int64_t dims[RT_MAX_RANK];

		if (!out[o])
			continue;
		memcpy(dims, in[0]->dims, sizeof(dims));
		dims[axis] = sizes[o];
		status = rt_tensor_set_shape(k, out[o], in[0]->dtype,
					     in[0]->rank, dims);
	}
	free(sizes);
	return status;
}

static int split_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t size = rt_dtype_size(x->dtype), outer = 1, inner = size;
	int64_t axis, offset = 0, *sizes = malloc(n_out * sizeof(*sizes));
	int status = sizes ? split_plan(k, in, n_in, n_out, &axis, sizes) :
		     rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");

	if (status) {
		free(sizes);
		return status;
	}
	for (int d = 0; d < x->rank; d++) {
		if (d < axis)
			outer *= (size_t)x->dims[d];
		else if (d > axis)
			inner *= (size_t)x->dims[d];
	}
	for (size_t o = 0; o < n_out; o++) {
		size_t chunk = (size_t)sizes[o] * inner;

		if (out[o])
			for (size_t i = 0; i < outer; i++)
				memcpy((char *)out[o]->data + i * chunk,
				       (const char *)x->data +
				       (i * (size_t)x->dims[axis] +
					(size_t)offset) * inner, chunk);
		offset += sizes[o];
	}
	free(sizes);
	return 0;
}

/* ---- Trilu ------------------------------------------------------------- */

static int same_shape_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	int status = fixed_size(k, in[0]);

	(void)n_in;
	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], in[0]->dtype,
						     in[0]->rank, in[0]->dims);
}

static int trilu_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	if (in[0]->rank < 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is below 2", in[0]->rank);
	return same_shape_infer(k, in, n_in, out, n_out);
}

static int trilu_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t size = rt_dtype_size(x->dtype), mats = 1;
	int64_t upper, diagonal = 0, rows = x->dims[x->rank - 2],
		cols = x->dims[x->rank - 1];
	int status = rt_attr_int(k, "upper", 1, &upper);

	(void)n_out;
	if (status)
		return status;
	if (n_in > 1 && in[1]) {
		if (rt_tensor_elements(in[1]) != 1 || !in[1]->data)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "k must be one value");
		diagonal = rt_tensor_get_int(in[1], 0);
	}
	for (int d = 0; d < x->rank - 2; d++)
		mats *= (size_t)x->dims[d];
	memcpy(out[0]->data, x->data, out[0]->byte_size);
	for (size_t m = 0; m < mats; m++)
	for (int64_t r = 0; r < rows; r++)
	for (int64_t c = 0; c < cols; c++) {
		/* Keep c - r >= k (upper) or c - r <= k (lower). */
		int keep = upper ? c - r >= diagonal : c - r <= diagonal;

		if (!keep)
			memset((char *)out[0]->data +
			       ((m * (size_t)rows + (size_t)r) * (size_t)cols +
				(size_t)c) * size, 0, size);
	}
	return 0;
}

/* ---- DepthToSpace, SpaceToDepth ---------------------------------------- */

struct d2s {
	int64_t n, c, h, w, b;
	int crd;
};

static int d2s_view(struct rt_kernel *k, const struct rt_tensor *x,
		    int to_space, struct d2s *v)
{
	const char *mode = "DCR";
	int status = rt_attr_int(k, "blocksize", 0, &v->b);

	if (!status && to_space)
		status = rt_attr_string(k, "mode", "DCR", &mode);
	if (!status)
		status = fixed_size(k, x);
	if (status)
		return status;
	if (x->rank != 4)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is not 4", x->rank);
	if (v->b < 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "blocksize %" PRId64 " is below 1", v->b);
	if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "mode '%s' is neither DCR nor CRD", mode);
	v->crd = !strcmp(mode, "CRD");
	v->n = x->dims[0];
	v->c = x->dims[1];
	v->h = x->dims[2];
	v->w = x->dims[3];
	if (to_space ? v->c % (v->b * v->b) : v->h % v->b || v->w % v->b)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "shape does not divide by blocksize %" PRId64,
				   v->b);
	return 0;
}

static int d2s_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int to_space = !strcmp(k->op_type, "DepthToSpace");
	struct d2s v;
	int status = d2s_view(k, in[0], to_space, &v);
	int64_t dims[4];

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	dims[0] = v.n;
	if (to_space) {
		dims[1] = v.c / (v.b * v.b);
		dims[2] = v.h * v.b;
		dims[3] = v.w * v.b;
	} else {
		dims[1] = v.c * v.b * v.b;
		dims[2] = v.h / v.b;
		dims[3] = v.w / v.b;
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 4, dims);
}

static int d2s_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int to_space = !strcmp(k->op_type, "DepthToSpace");
	size_t size = rt_dtype_size(in[0]->dtype);
	struct d2s v;
	int status = d2s_view(k, in[0], to_space, &v);
	/* The "space" side: channels C', height H*b, width W*b. */
	int64_t cs, hs, ws;

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	cs = to_space ? v.c / (v.b * v.b) : v.c;
	hs = to_space ? v.h * v.b : v.h;
	ws = to_space ? v.w * v.b : v.w;
	for (int64_t n = 0; n < v.n; n++)
	for (int64_t c = 0; c < cs; c++)
	for (int64_t y = 0; y < hs; y++)
	for (int64_t x = 0; x < ws; x++) {
		int64_t by = y % v.b, bx = x % v.b;
		int64_t depth = v.crd ? (c * v.b + by) * v.b + bx :
				(by * v.b + bx) * cs + c;
		size_t space = (size_t)(((n * cs + c) * hs + y) * ws + x);
		size_t packed = (size_t)(((n * cs * v.b * v.b + depth) *
					  (hs / v.b) + y / v.b) *
					 (ws / v.b) + x / v.b);

		if (to_space)
			memcpy((char *)out[0]->data + space * size,
			       (const char *)in[0]->data + packed * size, size);
		else
			memcpy((char *)out[0]->data + packed * size,
			       (const char *)in[0]->data + space * size, size);
	}
	return 0;
}

/* ---- Dropout ----------------------------------------------------------- */

/* Inference is the identity; training with a non-zero ratio is random. */
static int dropout_check(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in)
{
	double ratio = 0.5;
	int training = 0;

	if (k->opset >= 12) {
		if (n_in > 2 && in[2]) {
			if (!in[2]->data)
				return RT_OP_NEEDS_VALUES;
			training = rt_tensor_get_double(in[2], 0) != 0;
		}
		if (n_in > 1 && in[1]) {
			if (!in[1]->data)
				return RT_OP_NEEDS_VALUES;
			ratio = rt_tensor_get_double(in[1], 0);
		}
	}
	if (training && ratio != 0)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "training mode with ratio %g draws a random "
				   "mask (training is out of scope)", ratio);
	return 0;
}

static int dropout_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	int status = dropout_check(k, in, n_in);

	if (!status)
		status = same_shape_infer(k, in, n_in, out, 1);
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], k->opset >= 10 ?
					     ENPU_RT_BOOL : in[0]->dtype,
					     in[0]->rank, in[0]->dims);
	return status;
}

static int dropout_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	int status = dropout_check(k, in, n_in);

	if (status)
		return status;
	memcpy(out[0]->data, in[0]->data, out[0]->byte_size);
	if (n_out > 1 && out[1])
		for (size_t i = 0; i < rt_tensor_elements(out[1]); i++)
			rt_tensor_set_double(out[1], i, 1);
	return 0;
}

/* ---- CumSum ------------------------------------------------------------ */

/* An integer element from 64 bits, wrapped to the type's width. */
static void store_wrapped(struct rt_tensor *t, size_t i, uint64_t v)
{
	switch (rt_dtype_size(t->dtype)) {
	case 1: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
	case 2: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
	case 4: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
	default: ((uint64_t *)t->data)[i] = v; break;
	}
}

static int cumsum_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int32_t t = in[0]->dtype;

	if (!rt_dtype_is_float(t) && !rt_dtype_is_integer(t))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(t));
	return same_shape_infer(k, in, n_in, out, n_out);
}

static int cumsum_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct rt_tensor *y = out[0];
	int64_t axis, exclusive, reverse;
	size_t outer = 1, len, inner = 1;
	int is_int = rt_dtype_is_integer(x->dtype);
	int status;

	(void)n_in;
	(void)n_out;
	if (!in[1]->data || rt_tensor_elements(in[1]) != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis must be one known value");
	status = rt_axis(k, rt_tensor_get_int(in[1], 0), x->rank, &axis);
	if (!status)
		status = rt_attr_int(k, "exclusive", 0, &exclusive);
	if (!status)
		status = rt_attr_int(k, "reverse", 0, &reverse);
	if (status)
		return status;
	for (int d = 0; d < x->rank; d++) {
		if (d < axis)
			outer *= (size_t)x->dims[d];
		else if (d > axis)
			inner *= (size_t)x->dims[d];
	}
	len = (size_t)x->dims[axis];
	for (size_t o = 0; o < outer; o++)
	for (size_t i = 0; i < inner; i++) {
		double fsum = 0;
		uint64_t isum = 0;

		for (size_t step = 0; step < len; step++) {
			size_t a = reverse ? len - 1 - step : step;
			size_t e = (o * len + a) * inner + i;
			double fx = is_int ? 0 : rt_tensor_get_double(x, e);
			uint64_t ix = is_int ? (uint64_t)rt_tensor_get_int(x, e) : 0;

			if (!exclusive) {
				fsum += fx;
				isum += ix;
			}
			if (is_int)
				store_wrapped(y, e, isum);
			else
				rt_tensor_set_double(y, e, fsum);
			if (exclusive) {
				fsum += fx;
				isum += ix;
			}
		}
	}
	return 0;
}

/* ---- ReverseSequence --------------------------------------------------- */

static int reverse_sequence_run(struct rt_kernel *k,
				const struct rt_tensor *const *in, size_t n_in,
				struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t batch_axis, time_axis, strides[RT_MAX_RANK];
	size_t size = rt_dtype_size(x->dtype), n = rt_tensor_elements(x);
	int status = rt_attr_int(k, "batch_axis", 1, &batch_axis);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = rt_attr_int(k, "time_axis", 0, &time_axis);
	if (status)
		return status;
	if (x->rank < 2 || batch_axis < 0 || batch_axis > 1 ||
	    time_axis < 0 || time_axis > 1 || batch_axis == time_axis)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "batch_axis and time_axis must be 0 and 1");
	if (rt_tensor_elements(in[1]) != (size_t)x->dims[batch_axis])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "sequence_lens has %zu values for batch %"
				   PRId64, rt_tensor_elements(in[1]),
				   x->dims[batch_axis]);
	rt_contiguous_strides(x, strides);
	for (size_t e = 0; e < n; e++) {
		int64_t b = ((int64_t)e / strides[batch_axis]) %
			    x->dims[batch_axis];
		int64_t t = ((int64_t)e / strides[time_axis]) %
			    x->dims[time_axis];
		int64_t len = rt_tensor_get_int(in[1], (size_t)b), src = (int64_t)e;

		if (len < 0 || len > x->dims[time_axis])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "sequence length %" PRId64
					   " outside 0..%" PRId64, len,
					   x->dims[time_axis]);
		if (t < len)
			src += (len - 1 - 2 * t) * strides[time_axis];
		memcpy((char *)out[0]->data + e * size,
		       (const char *)x->data + (size_t)src * size, size);
	}
	return 0;
}

const struct rt_op_def rt_ops_tensor_ops[] = {
	{ "Expand", "", 8, 21, 2, 2, 1, 1, 0, expand_infer, NULL, expand_run,
	  NULL },
	{ "Tile", "", 6, 21, 2, 2, 1, 1, 0, tile_infer, NULL, tile_run, NULL },
	{ "Split", "", 1, 21, 1, 2, 1, 4096, 0, split_infer, NULL, split_run,
	  NULL },
	{ "Trilu", "", 14, 21, 1, 2, 1, 1, 0, trilu_infer, NULL, trilu_run,
	  NULL },
	{ "DepthToSpace", "", 1, 21, 1, 1, 1, 1, 0, d2s_infer, NULL, d2s_run,
	  NULL },
	{ "SpaceToDepth", "", 1, 21, 1, 1, 1, 1, 0, d2s_infer, NULL, d2s_run,
	  NULL },
	{ "Dropout", "", 1, 21, 1, 3, 1, 2, 0, dropout_infer, NULL,
	  dropout_run, NULL },
	{ "CumSum", "", 11, 21, 2, 2, 1, 1, 0, cumsum_infer, NULL, cumsum_run,
	  NULL },
	{ "ReverseSequence", "", 10, 21, 2, 2, 1, 1, 0, same_shape_infer, NULL,
	  reverse_sequence_run, NULL },
	{ 0 },
};
