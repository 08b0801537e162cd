// SPDX-License-Identifier: MIT
/*
 * Softmax, LogSoftmax and Hardmax.
 *
 * Before opset 13 the input is coerced to 2-D at `axis` (default 1): every
 * row of prod(dims[axis:]) elements is normalized as one. From opset 13
 * only the single axis (default -1) is. Both reduce to the same kernel over
 * a [outer][n][inner] view: the legacy form is inner = 1.
 *
 * inner == 1 walks contiguous rows on the CPU runtime's row kernels (max,
 * exp with the sum, scale; vectorized per ISA, rows shared by threads);
 * inner > 1 keeps the running max and sum for a whole [inner] slice so
 * every loop is contiguous, exp four lanes at a time (vector_math.h).
 * Rows are shifted by their max before exp, so large inputs do not overflow.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "rt_op.h"
#include "vector_math.h"

struct softmax_view {
	size_t outer;
	size_t n;		/* elements normalized together */
	size_t inner;		/* distance between them */
	int is_log;
};

static int softmax_view_of(struct rt_kernel *k, const struct rt_tensor *x,
			   struct softmax_view *v)
{
	int legacy = k->opset < 13;
	int64_t axis, rank = x->rank;
	int status;

	status = rt_attr_int(k, "axis", legacy ? 1 : -1, &axis);
	if (status)
		return status;
	/* Coercion allows axis == rank (one-element rows). */
	if (axis < -rank || axis > rank - !legacy || rank == 0)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis %" PRId64 " is out of range for rank %" PRId64,
				   axis, rank);
	if (axis < 0)
		axis += rank;
	v->outer = 1;
	v->n = 1;
	v->inner = 1;
	for (int64_t d = 0; d < rank; d++) {
		size_t dim = (size_t)x->dims[d];

		if (d < axis)
			v->outer *= dim;
		else if (d == axis || legacy)
			v->n *= dim;
		else
			v->inner *= dim;
	}
	v->is_log = !strcmp(k->op_type, "LogSoftmax");
	return 0;
}

static int softmax_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	struct softmax_view v;
	int status;

	(void)n_in;
	(void)n_out;
	if (in[0]->dtype != ENPU_RT_FLOAT && in[0]->dtype != ENPU_RT_DOUBLE)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported (float, double)",
				   rt_dtype_name(in[0]->dtype));
	status = softmax_view_of(k, in[0], &v);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

/* Rows (inner == 1): the CPU runtime's row kernels, rows shared by threads. */
struct softmax_rows {
	const struct softmax_view *v;
	const struct enpu_fmath_kernels *f;
	const float *x;
	float *y;
	size_t per_task;
};

static void softmax_rows_task(void *argument, size_t task)
{
	const struct softmax_rows *r = argument;
	size_t n = r->v->n, first = task * r->per_task;

	for (size_t o = first; o < first + r->per_task && o < r->v->outer; o++) {
		const float *x = r->x + o * n;
		float *y = r->y + o * n;
		float max = r->f->max(n, x);
		float sum = r->f->exp_shift_sum(n, x, max, y);

		if (r->v->is_log) {
			float shift = max + logf(sum);

			for (size_t i = 0; i < n; i++)
				y[i] = x[i] - shift;
		} else {
			r->f->scale(n, y, 1.0f / sum, y);
		}
	}
}

static void softmax_rows_f32(struct rt_kernel *k,
			     const struct softmax_view *v, const float *x,
			     float *y)
{
	struct softmax_rows r = { v, enpu_cpu_fmath(k->cpu), x, y, 1 };
	size_t tasks;

	/* About 16K elements per task. */
	r.per_task = 16384 / (v->n ? v->n : 1);
	r.per_task = r.per_task ? r.per_task : 1;
	tasks = (v->outer + r.per_task - 1) / r.per_task;
	/* max, exp and sum, scale: a little more than an exp's 80 */
	enpu_cpu_parallel_for_work(k->cpu, tasks, (uint64_t)v->outer * v->n * 8,
				   (uint64_t)v->outer * v->n * 96,
				   softmax_rows_task, &r);
}

/*
 * Columns: every j < inner is its own softmax over n rows of stride
 * inner. Vectors run along j, so loads stay contiguous. scratch holds
 * 2 * inner floats rounded up to whole vectors.
 */
static void softmax_columns_f32(const struct softmax_view *v, const float *x,
				float *y, float *scratch)
{
	size_t n = v->n, inner = v->inner, block = n * inner;
	size_t padded = (inner + 3) & ~(size_t)3;
	float *max = scratch, *sum = scratch + padded;

	for (size_t o = 0; o < v->outer; o++, x += block, y += block) {
		memcpy(max, x, inner * sizeof(*max));
		for (size_t i = 1; i < n; i++) {
			const float *row = x + i * inner;

			for (size_t j = 0; j < inner; j++)
				max[j] = row[j] > max[j] ? row[j] : max[j];
		}
		memset(sum, 0, padded * sizeof(*sum));
		for (size_t i = 0; i < n; i++) {
			const float *row = x + i * inner;
			float *out = y + i * inner;
			size_t j = 0;

			for (; j + 4 <= inner; j += 4) {
				rt_f32x4 e = rt_v4_exp(rt_v4_load(row + j) -
						       rt_v4_load(max + j));

				rt_v4_store(out + j, e);
				rt_v4_store(sum + j, rt_v4_load(sum + j) + e);
			}
			for (; j < inner; j++) {
				out[j] = rt_expf(row[j] - max[j]);
				sum[j] += out[j];
			}
		}
		for (size_t j = 0; j < inner; j++)
			sum[j] = v->is_log ? max[j] + logf(sum[j]) :
				1.0f / sum[j];
		for (size_t i = 0; i < n; i++) {
			const float *row = x + i * inner;
			float *out = y + i * inner;

			if (v->is_log)
				for (size_t j = 0; j < inner; j++)
					out[j] = row[j] - sum[j];
			else
				for (size_t j = 0; j < inner; j++)
					out[j] *= sum[j];
		}
	}
}

/* Double: rare, plain strided loops with libm. */
static void softmax_f64(const struct softmax_view *v, const double *x,
			double *y)
{
	size_t n = v->n, inner = v->inner;

	for (size_t o = 0; o < v->outer; o++)
		for (size_t j = 0; j < inner; j++) {
			size_t base = o * n * inner + j;
			double max = x[base], sum = 0;

			for (size_t i = 1; i < n; i++)
				if (x[base + i * inner] > max)
					max = x[base + i * inner];
			for (size_t i = 0; i < n; i++)
				sum += exp(x[base + i * inner] - max);
			for (size_t i = 0; i < n; i++) {
				double d = x[base + i * inner] - max;

				y[base + i * inner] = v->is_log ?
					d - log(sum) : exp(d) / sum;
			}
		}
}

static int softmax_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct softmax_view v;
	float *scratch;
	int status;

	(void)n_in;
	(void)n_out;
	status = softmax_view_of(k, in[0], &v);
	if (status)
		return status;
	if (!rt_tensor_elements(in[0]))
		return 0;
	if (in[0]->dtype == ENPU_RT_DOUBLE) {
		softmax_f64(&v, in[0]->data, out[0]->data);
		return 0;
	}
	if (v.inner == 1) {
		softmax_rows_f32(k, &v, in[0]->data, out[0]->data);
		return 0;
	}
	scratch = malloc(2 * ((v.inner + 3) & ~(size_t)3) * sizeof(*scratch));
	if (!scratch)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu column sums", v.inner);
	softmax_columns_f32(&v, in[0]->data, out[0]->data, scratch);
	free(scratch);
	return 0;
}

/* Hardmax: 1 at the first maximum of each normalized group, 0 elsewhere. */
static int hardmax_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct softmax_view v;
	int status = softmax_view_of(k, in[0], &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	memset(out[0]->data, 0, out[0]->byte_size);
	for (size_t o = 0; o < v.outer; o++)
	for (size_t i = 0; i < v.inner; i++) {
		size_t base = o * v.n * v.inner + i, best = 0;
		double top = -INFINITY;

		for (size_t j = 0; j < v.n; j++) {
			double x = rt_tensor_get_double(in[0], base + j * v.inner);

			if (x > top) {
				top = x;
				best = j;
			}
		}
		if (v.n)
			rt_tensor_set_double(out[0], base + best * v.inner, 1);
	}
	return 0;
}

const struct rt_op_def rt_ops_softmax[] = {
	{ "Hardmax", "", 1, 21, 1, 1, 1, 1, 0, softmax_infer, NULL,
	  hardmax_run, NULL },
	{ "Softmax", "", 1, 21, 1, 1, 1, 1, 0, softmax_infer, NULL,
	  softmax_run, NULL },
	{ "LogSoftmax", "", 1, 21, 1, 1, 1, 1, 0, softmax_infer, NULL,
	  softmax_run, NULL },
	{ 0 },
};
