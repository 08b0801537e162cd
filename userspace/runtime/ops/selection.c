// SPDX-License-Identifier: MIT
/*
 * Ops that lay their output out by the values of an index or condition
 * tensor: OneHot (its depth), Compress and NonZero (the kept elements).
 * Their output sizes depend on values, so they infer from the values
 * when those are known; a bad index or depth is a run-time error naming
 * it, never an out-of-bounds access.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

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

const struct rt_op_def rt_ops_selection[] = {
	{ "OneHot", "", 9, 21, 3, 3, 1, 1, 0, one_hot_infer, NULL, one_hot_run,
	  NULL },
	{ "Compress", "", 9, 21, 2, 2, 1, 1, 0, compress_infer, NULL,
	  compress_run, NULL },
	{ "NonZero", "", 9, 21, 1, 1, 1, 1, 0, nonzero_infer, NULL,
	  nonzero_run, NULL },
	{ 0 },
};
