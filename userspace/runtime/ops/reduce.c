// SPDX-License-Identifier: MIT
/*
 * ReduceMean. Axes come from the `axes` attribute before opset 18 and from
 * the optional second input since; no axes means all of them, unless
 * noop_with_empty_axes=1 (opset 18+), which makes the op an identity.
 *
 * Neighbouring axes that are both reduced or both kept are merged, so the
 * input is walked once, contiguously, with the innermost run either summed
 * into one accumulator (reduced) or added onto a row of accumulators
 * (kept). Float sums accumulate in double: means over large axes (global
 * pooling) stay accurate to the last float bit.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

struct reduce_plan {
	int rank;			/* merged axes */
	int64_t dims[RT_MAX_RANK];
	bool reduced[RT_MAX_RANK];
	int64_t out_stride[RT_MAX_RANK];	/* 0 on reduced axes */
	size_t out_count;
	size_t count;			/* input elements per output */
	bool identity;
};

/* Which input axes are reduced, and the output shape. */
static int reduce_axes(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, bool reduced[RT_MAX_RANK], bool *identity)
{
	const struct rt_tensor *x = in[0];
	int64_t values[RT_MAX_RANK], noop = 0;
	const int64_t *axes = NULL;
	size_t count = 0;
	int status;

	*identity = false;
	if (k->opset < 18) {
		status = rt_attr_ints(k, "axes", &axes, &count);
		if (status)
			return status;
	} else {
		status = rt_attr_int(k, "noop_with_empty_axes", 0, &noop);
		if (status)
			return status;
		if (n_in > 1 && in[1]) {
			if (!in[1]->data)
				return RT_OP_NEEDS_VALUES;
			status = rt_tensor_read_ints(k, in[1], RT_MAX_RANK,
						     values, &count);
			if (status)
				return status;
			axes = values;
		}
	}
	for (int d = 0; d < x->rank; d++)
		reduced[d] = count == 0;
	if (count == 0 && noop) {
		*identity = true;
		for (int d = 0; d < x->rank; d++)
			reduced[d] = false;
		return 0;
	}
	for (size_t i = 0; i < count; i++) {
		int64_t axis = axes[i];

		if (axis < -x->rank || axis >= x->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " is out of range for rank %d",
					   axis, x->rank);
		if (axis < 0)
			axis += x->rank;
		if (reduced[axis])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "axis %" PRId64 " is listed twice",
					   axes[i]);
		reduced[axis] = true;
	}
	return 0;
}

static bool reduce_type_supported(int32_t dtype)
{
	return dtype == ENPU_RT_FLOAT || dtype == ENPU_RT_DOUBLE ||
	       dtype == ENPU_RT_INT32 || dtype == ENPU_RT_INT64 ||
	       dtype == ENPU_RT_UINT32 || dtype == ENPU_RT_UINT64;
}

static int reduce_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	bool reduced[RT_MAX_RANK], identity;
	int64_t keepdims, dims[RT_MAX_RANK];
	int rank = 0, status;

	(void)n_out;
	if (!reduce_type_supported(in[0]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(in[0]->dtype));
	status = rt_attr_int(k, "keepdims", 1, &keepdims);
	if (status)
		return status;
	status = reduce_axes(k, in, n_in, reduced, &identity);
	if (status)
		return status;
	for (int d = 0; d < in[0]->rank; d++) {
		if (!reduced[d])
			dims[rank++] = in[0]->dims[d];
		else if (keepdims)
			dims[rank++] = 1;
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, rank, dims);
}

static void plan_reduce(const struct rt_tensor *x,
			const bool reduced[RT_MAX_RANK],
			struct reduce_plan *plan)
{
	int r = 0;

	plan->count = 1;
	plan->out_count = 1;
	for (int d = 0; d < x->rank; d++) {
		if (reduced[d])
			plan->count *= (size_t)x->dims[d];
		else
			plan->out_count *= (size_t)x->dims[d];
		if (x->dims[d] == 1)
			continue;
		if (r && plan->reduced[r - 1] == reduced[d]) {
			plan->dims[r - 1] *= x->dims[d];
			continue;
		}
		plan->dims[r] = x->dims[d];
		plan->reduced[r] = reduced[d];
		r++;
	}
	if (!r) {
		plan->dims[0] = 1;
		plan->reduced[0] = false;
		r = 1;
	}
	plan->rank = r;
	for (int64_t d = r - 1, stride = 1; d >= 0; d--) {
		plan->out_stride[d] = plan->reduced[d] ? 0 : stride;
		if (!plan->reduced[d])
			stride *= plan->dims[d];
	}
}

/*
 * Sums every input element into acc[output index]. ACC is double for
 * floats, int64_t/uint64_t for integers.
 */
#define REDUCE_SUM(suffix, type, acc_type)				\
static void reduce_sum_##suffix(const struct reduce_plan *plan,		\
				const type *x, acc_type *acc)		\
{									\
	int inner = plan->rank - 1;					\
	size_t n = (size_t)plan->dims[inner], rows = 1, out = 0;	\
	int64_t index[RT_MAX_RANK] = { 0 };				\
									\
	for (int d = 0; d < inner; d++)					\
		rows *= (size_t)plan->dims[d];				\
	for (size_t r = 0; r < rows; r++, x += n) {			\
		if (plan->reduced[inner]) {				\
			acc_type s = 0;					\
									\
			for (size_t i = 0; i < n; i++)			\
				s += x[i];				\
			acc[out] += s;					\
		} else {						\
			for (size_t i = 0; i < n; i++)			\
				acc[out + i] += x[i];			\
		}							\
		for (int d = inner - 1; d >= 0; d--) {			\
			out += (size_t)plan->out_stride[d];		\
			if (++index[d] < plan->dims[d])			\
				break;					\
			out -= (size_t)(plan->out_stride[d] * plan->dims[d]);\
			index[d] = 0;					\
		}							\
	}								\
}

REDUCE_SUM(f32, float, double)
REDUCE_SUM(f64, double, double)
REDUCE_SUM(i32, int32_t, int64_t)
REDUCE_SUM(i64, int64_t, int64_t)
REDUCE_SUM(u32, uint32_t, uint64_t)
REDUCE_SUM(u64, uint64_t, uint64_t)

static int reduce_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct reduce_plan plan;
	bool reduced[RT_MAX_RANK];
	void *acc;
	size_t count;
	int status;

	(void)n_out;
	status = reduce_axes(k, in, n_in, reduced, &plan.identity);
	if (status)
		return status;
	if (plan.identity || rt_tensor_elements(x) == rt_tensor_elements(out[0])) {
		/* Reducing only 1-sized axes (or nothing) copies. */
		memcpy(out[0]->data, x->data, out[0]->byte_size);
		return 0;
	}
	plan_reduce(x, reduced, &plan);
	count = plan.count;
	if (!count) {
		/* The mean of nothing: NaN for floats like numpy, 0 for ints. */
		for (size_t i = 0; i < plan.out_count; i++)
			rt_tensor_set_double(out[0], i,
					     x->dtype == ENPU_RT_FLOAT ||
					     x->dtype == ENPU_RT_DOUBLE ?
					     NAN : 0);
		return 0;
	}
	/* 8 bytes per output: double, int64_t or uint64_t sums. */
	acc = calloc(plan.out_count, sizeof(uint64_t));
	if (!acc)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu accumulators",
				   plan.out_count);
	switch (x->dtype) {
	case ENPU_RT_FLOAT:
		reduce_sum_f32(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((float *)out[0]->data)[i] =
				(float)(((double *)acc)[i] / (double)count);
		break;
	case ENPU_RT_DOUBLE:
		reduce_sum_f64(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((double *)out[0]->data)[i] =
				((double *)acc)[i] / (double)count;
		break;
	case ENPU_RT_INT32:
		reduce_sum_i32(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((int32_t *)out[0]->data)[i] = (int32_t)
				(((int64_t *)acc)[i] / (int64_t)count);
		break;
	case ENPU_RT_INT64:
		reduce_sum_i64(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((int64_t *)out[0]->data)[i] =
				((int64_t *)acc)[i] / (int64_t)count;
		break;
	case ENPU_RT_UINT32:
		reduce_sum_u32(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((uint32_t *)out[0]->data)[i] = (uint32_t)
				(((uint64_t *)acc)[i] / count);
		break;
	default:
		reduce_sum_u64(&plan, x->data, acc);
		for (size_t i = 0; i < plan.out_count; i++)
			((uint64_t *)out[0]->data)[i] =
				((uint64_t *)acc)[i] / count;
		break;
	}
	free(acc);
	return 0;
}

const struct rt_op_def rt_ops_reduce[] = {
	{ "ReduceMean", "", 1, 17, 1, 1, 1, 1, 0, reduce_infer, NULL,
	  reduce_run, NULL },
	{ "ReduceMean", "", 18, 21, 1, 2, 1, 1, 0, reduce_infer, NULL,
	  reduce_run, NULL },
	{ 0 },
};
