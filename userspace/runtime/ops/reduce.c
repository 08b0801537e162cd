// SPDX-License-Identifier: MIT
/*
 * ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
 * ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, and ArgMax /
 * ArgMin. Axes come from the `axes` attribute before opset 18 (13 for
 * ReduceSum) and from the optional second input since; no axes means all
 * of them, unless noop_with_empty_axes=1, which makes the op an identity.
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
	if (k->opset < (strcmp(k->op_type, "ReduceSum") ? 18 : 13)) {
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
	return rt_dtype_is_float(dtype) || rt_dtype_is_integer(dtype);
}

/* The sum kernels below (ReduceMean, ReduceSum) take these directly. */
static bool sum_type(int32_t dtype)
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

enum reduce_kind {
	R_MEAN, R_SUM, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOG_SUM,
	R_LOG_SUM_EXP, R_SUM_SQUARE,
};

static const char *const reduce_names[] = {
	"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
	"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
	"ReduceSumSquare",
};

static enum reduce_kind reduce_kind_of(const struct rt_kernel *k)
{
	for (size_t i = 0; i < sizeof(reduce_names) / sizeof(reduce_names[0]);
	     i++)
		if (!strcmp(k->op_type, reduce_names[i]))
			return (enum reduce_kind)i;
	return R_MEAN;
}

/*
 * Any kind, any numeric type: floats accumulate in double (LogSumExp as a
 * running maximum and a sum of exp(x - max)), integers exactly in 64 bits
 * (Max/Min/Prod/L1/SumSquare; L2, LogSum and LogSumExp of integers go
 * through double and truncate, as a cast of numpy's result would).
 */
struct generic_acc {
	double f, m;		/* m: LogSumExp's running maximum */
	int64_t i;
	uint64_t u;
};

static void acc_init(enum reduce_kind kind, struct generic_acc *a)
{
	a->m = -INFINITY;
	a->f = kind == R_PROD ? 1 : kind == R_MAX ? -INFINITY :
	       kind == R_MIN ? INFINITY : 0;
	a->i = kind == R_PROD ? 1 : kind == R_MAX ? INT64_MIN :
	       kind == R_MIN ? INT64_MAX : 0;
	a->u = kind == R_PROD ? 1 : kind == R_MIN ? UINT64_MAX : 0;
}

static void acc_float(enum reduce_kind kind, struct generic_acc *a, double x)
{
	switch (kind) {
	case R_MAX: a->f = isnan(x) || x > a->f ? x : a->f; break;
	case R_MIN: a->f = isnan(x) || x < a->f ? x : a->f; break;
	case R_PROD: a->f *= x; break;
	case R_L1: a->f += fabs(x); break;
	case R_L2: case R_SUM_SQUARE: a->f += x * x; break;
	case R_LOG_SUM_EXP:
		if (x > a->m) {
			a->f = a->f * exp(a->m - x) + 1.0;
			a->m = x;
		} else {
			a->f += exp(x - a->m);
		}
		break;
	default: a->f += x; break;
	}
	if (isnan(x) && kind != R_LOG_SUM_EXP)
		a->f = x;
	else if (isnan(x))
		a->m = x;
}

static void acc_signed(enum reduce_kind kind, struct generic_acc *a, int64_t x)
{
	uint64_t u = (uint64_t)a->i;

	switch (kind) {
	case R_MAX: a->i = x > a->i ? x : a->i; break;
	case R_MIN: a->i = x < a->i ? x : a->i; break;
	case R_PROD: a->i = (int64_t)(u * (uint64_t)x); break;
	case R_L1: a->i = (int64_t)(u + (uint64_t)(x < 0 ? -x : x)); break;
	case R_SUM_SQUARE: a->i = (int64_t)(u + (uint64_t)x * (uint64_t)x); break;
	default: a->i = (int64_t)(u + (uint64_t)x); break;
	}
	acc_float(kind == R_LOG_SUM_EXP ? kind : R_SUM, a,
		  kind == R_L2 ? (double)x * (double)x :
		  kind == R_LOG_SUM_EXP ? (double)x : (double)x);
}

static void acc_unsigned(enum reduce_kind kind, struct generic_acc *a,
			 uint64_t x)
{
	switch (kind) {
	case R_MAX: a->u = x > a->u ? x : a->u; break;
	case R_MIN: a->u = x < a->u ? x : a->u; break;
	case R_PROD: a->u *= x; break;
	case R_SUM_SQUARE: a->u += x * x; break;
	default: a->u += x; break;
	}
	acc_float(kind == R_LOG_SUM_EXP ? kind : R_SUM, a,
		  kind == R_L2 ? (double)x * (double)x : (double)x);
}

static double acc_final_float(enum reduce_kind kind,
			      const struct generic_acc *a, size_t count)
{
	switch (kind) {
	case R_MEAN: return a->f / (double)count;
	case R_L2: return sqrt(a->f);
	case R_LOG_SUM: return log(a->f);
	case R_LOG_SUM_EXP: return isnan(a->m) ? a->m : a->m + log(a->f);
	default: return a->f;
	}
}

static int reduce_generic(struct rt_kernel *k, enum reduce_kind kind,
			  const struct rt_tensor *x,
			  const struct reduce_plan *plan, struct rt_tensor *y)
{
	enum { FLOAT, SIGNED, UNSIGNED } cls = rt_dtype_is_float(x->dtype) ?
		FLOAT : (x->dtype == ENPU_RT_UINT8 || x->dtype == ENPU_RT_UINT16 ||
			 x->dtype == ENPU_RT_UINT32 || x->dtype == ENPU_RT_UINT64) ?
		UNSIGNED : SIGNED;
	struct generic_acc *acc = malloc((plan->out_count + 1) * sizeof(*acc));
	int inner = plan->rank - 1;
	size_t n = (size_t)plan->dims[inner], rows = 1, out = 0, e = 0;
	int64_t index[RT_MAX_RANK] = { 0 };

	if (!acc)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu accumulators",
				   plan->out_count);
	for (size_t i = 0; i < plan->out_count; i++)
		acc_init(kind, &acc[i]);
	for (int d = 0; d < inner; d++)
		rows *= (size_t)plan->dims[d];
	for (size_t r = 0; r < rows && plan->count; r++) {
		for (size_t i = 0; i < n; i++, e++) {
			struct generic_acc *a = &acc[out +
				(plan->reduced[inner] ? 0 : i)];

			if (cls == FLOAT)
				acc_float(kind, a, rt_tensor_get_double(x, e));
			else if (cls == SIGNED)
				acc_signed(kind, a, rt_tensor_get_int(x, e));
			else
				acc_unsigned(kind, a,
					     (uint64_t)rt_tensor_get_int(x, e));
		}
		for (int d = inner - 1; d >= 0; d--) {
			out += (size_t)plan->out_stride[d];
			if (++index[d] < plan->dims[d])
				break;
			out -= (size_t)(plan->out_stride[d] * plan->dims[d]);
			index[d] = 0;
		}
	}
	for (size_t i = 0; i < plan->out_count; i++) {
		const struct generic_acc *a = &acc[i];
		int via_float = cls == FLOAT || kind == R_L2 ||
				kind == R_LOG_SUM || kind == R_LOG_SUM_EXP;

		if (via_float) {
			rt_tensor_set_double(y, i,
					     acc_final_float(kind, a, plan->count));
		} else {
			int64_t v = cls == SIGNED ? a->i : (int64_t)a->u;

			if (kind == R_MEAN && plan->count)
				v = cls == SIGNED ? v / (int64_t)plan->count :
				    (int64_t)((uint64_t)v / plan->count);
			switch (rt_dtype_size(y->dtype)) {
			case 1: ((uint8_t *)y->data)[i] = (uint8_t)v; break;
			case 2: ((uint16_t *)y->data)[i] = (uint16_t)v; break;
			case 4: ((uint32_t *)y->data)[i] = (uint32_t)v; break;
			default: ((int64_t *)y->data)[i] = v; break;
			}
		}
	}
	free(acc);
	return 0;
}

static int reduce_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	enum reduce_kind kind = reduce_kind_of(k);
	struct reduce_plan plan;
	bool reduced[RT_MAX_RANK];
	void *acc;
	size_t count;
	int status, sum = kind == R_SUM;

	(void)n_out;
	status = reduce_axes(k, in, n_in, reduced, &plan.identity);
	if (status)
		return status;
	if (plan.identity || (rt_tensor_elements(x) == rt_tensor_elements(out[0]) &&
			      (kind == R_MEAN || kind == R_SUM || kind == R_MAX ||
			       kind == R_MIN || kind == R_PROD))) {
		/* Reducing only 1-sized axes (or nothing) copies. */
		memcpy(out[0]->data, x->data, out[0]->byte_size);
		return 0;
	}
	plan_reduce(x, reduced, &plan);
	count = plan.count;
	if ((kind != R_MEAN && kind != R_SUM) || !sum_type(x->dtype) || !count)
		return reduce_generic(k, kind, x, &plan, out[0]);
	/* 8 bytes per output: double, int64_t or uint64_t sums. */
	acc = calloc(plan.out_count, sizeof(uint64_t));
	if (!acc)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu accumulators",
				   plan.out_count);
	if (sum)
		count = 1;
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

/* ---- ArgMax, ArgMin ------------------------------------------------- */

struct arg_view {
	size_t outer, axis, inner;
	int64_t dims[RT_MAX_RANK];
	int rank;
	bool last;
};

static int arg_view_of(struct rt_kernel *k, const struct rt_tensor *x,
		       struct arg_view *v)
{
	int64_t axis, keepdims, last;
	int status = rt_attr_int(k, "axis", 0, &axis);

	if (!status)
		status = rt_attr_int(k, "keepdims", 1, &keepdims);
	if (!status)
		status = rt_attr_int(k, "select_last_index", 0, &last);
	if (!status)
		status = rt_axis(k, axis, x->rank, &axis);
	if (status)
		return status;
	if (!reduce_type_supported(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	v->outer = v->inner = 1;
	v->rank = 0;
	for (int d = 0; d < x->rank; d++) {
		if (d < axis)
			v->outer *= (size_t)x->dims[d];
		else if (d > axis)
			v->inner *= (size_t)x->dims[d];
		if (d != axis)
			v->dims[v->rank++] = x->dims[d];
		else if (keepdims)
			v->dims[v->rank++] = 1;
	}
	v->axis = (size_t)x->dims[axis];
	v->last = last != 0;
	if (!v->axis && v->outer && v->inner)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis %" PRId64 " is empty", axis);
	return 0;
}

static int arg_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct arg_view v;
	int status = arg_view_of(k, in[0], &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, v.rank, v.dims);
}

static int arg_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct arg_view v;
	int is_max = !strcmp(k->op_type, "ArgMax");
	int is_float = rt_dtype_is_float(x->dtype);
	int64_t *y = out[0]->data;
	int status = arg_view_of(k, x, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	for (size_t o = 0; o < v.outer; o++)
	for (size_t i = 0; i < v.inner; i++) {
		size_t base = o * v.axis * v.inner + i, best = 0;

		for (size_t a = 1; a < v.axis; a++) {
			size_t e = base + a * v.inner, b = base + best * v.inner;
			int better, equal;

			if (is_float) {
				double cur = rt_tensor_get_double(x, e);
				double top = rt_tensor_get_double(x, b);

				if (isnan(top))
					break;	/* numpy: the first NaN wins */
				if (isnan(cur)) {
					best = a;
					break;
				}
				better = is_max ? cur > top : cur < top;
				equal = cur == top;
			} else {
				int64_t cur = rt_tensor_get_int(x, e);
				int64_t top = rt_tensor_get_int(x, b);

				if (x->dtype == ENPU_RT_UINT64)
					better = is_max ? (uint64_t)cur > (uint64_t)top :
						 (uint64_t)cur < (uint64_t)top;
				else
					better = is_max ? cur > top : cur < top;
				equal = cur == top;
			}
			if (better || (equal && v.last))
				best = a;
		}
		y[o * v.inner + i] = (int64_t)best;
	}
	return 0;
}

#define REDUCE(name, split)							{ name, "", 1, split - 1, 1, 1, 1, 1, 0, reduce_infer, NULL,		  reduce_run, NULL },							{ name, "", split, 21, 1, 2, 1, 1, 0, reduce_infer, NULL,		  reduce_run, NULL }

const struct rt_op_def rt_ops_reduce[] = {
	REDUCE("ReduceMean", 18),
	REDUCE("ReduceSum", 13),
	REDUCE("ReduceMax", 18),
	REDUCE("ReduceMin", 18),
	REDUCE("ReduceProd", 18),
	REDUCE("ReduceL1", 18),
	REDUCE("ReduceL2", 18),
	REDUCE("ReduceLogSum", 18),
	REDUCE("ReduceLogSumExp", 18),
	REDUCE("ReduceSumSquare", 18),
	{ "ArgMax", "", 1, 21, 1, 1, 1, 1, 0, arg_infer, NULL, arg_run, NULL },
	{ "ArgMin", "", 1, 21, 1, 1, 1, 1, 0, arg_infer, NULL, arg_run, NULL },
	{ 0 },
};
