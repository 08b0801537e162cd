// SPDX-License-Identifier: MIT
/*
 * Normalizations over groups of elements: LayerNormalization (the last
 * axes from `axis`, with the optional Mean and InvStdDev outputs),
 * InstanceNormalization (per sample and channel), GroupNormalization
 * (per sample and group of channels; opset 18 scales per group, 21 per
 * channel), MeanVarianceNormalization (over `axes`) and LRN (across
 * channels).
 *
 * Statistics take two passes over each group (mean, then the variance
 * of x - mean), so the result does not lose digits when the mean is
 * large against the spread: in double in general, in float lanes on the
 * CPU runtime's row kernels for float32 LayerNormalization (rows shared
 * by threads). The output is written in the input's type.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "rt_op.h"

static int float_type(struct rt_kernel *k, const struct rt_tensor *t)
{
	if (!rt_dtype_is_float(t->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported (float types)",
				   rt_dtype_name(t->dtype));
	return 0;
}

/* Mean and 1/sqrt(var + eps) of @n elements of @x at @base, stride 1. */
static void moments(const struct rt_tensor *x, size_t base, size_t n,
		    double epsilon, double *mean, double *inv_std)
{
	double sum = 0, sq = 0;

	if (x->dtype == ENPU_RT_FLOAT) {
		const float *p = (const float *)x->data + base;

		for (size_t i = 0; i < n; i++)
			sum += p[i];
		*mean = n ? sum / (double)n : 0;
		for (size_t i = 0; i < n; i++) {
			double d = p[i] - *mean;

			sq += d * d;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			sum += rt_tensor_get_double(x, base + i);
		*mean = n ? sum / (double)n : 0;
		for (size_t i = 0; i < n; i++) {
			double d = rt_tensor_get_double(x, base + i) - *mean;

			sq += d * d;
		}
	}
	*inv_std = 1.0 / sqrt((n ? sq / (double)n : 0) + epsilon);
}

/* ---- LayerNormalization ------------------------------------------------ */

struct layer_norm {
	size_t rows, n;
	int64_t axis;
	double epsilon;
};

static int layer_norm_view(struct rt_kernel *k,
			   const struct rt_tensor *const *in, size_t n_in,
			   struct layer_norm *v)
{
	const struct rt_tensor *x = in[0];
	int64_t axis;
	float eps;
	int status = rt_attr_int(k, "axis", -1, &axis);

	if (!status)
		status = rt_attr_float(k, "epsilon", 1e-5f, &eps);
	if (!status)
		status = rt_axis(k, axis, x->rank, &v->axis);
	if (!status)
		status = float_type(k, x);
	if (status)
		return status;
	v->epsilon = eps;
	v->rows = v->n = 1;
	for (int d = 0; d < x->rank; d++) {
		if (d < v->axis)
			v->rows *= (size_t)x->dims[d];
		else
			v->n *= (size_t)x->dims[d];
	}
	for (size_t i = 1; i < n_in && i < 3; i++) {
		const struct rt_tensor *p = in[i];
		size_t count;

		if (!p)
			continue;
		count = rt_tensor_elements(p);
		/* Scale and B broadcast onto the normalized axes. */
		if (count != v->n && count != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "%s has %zu elements for %zu "
					   "normalized", i == 1 ? "Scale" : "B",
					   count, v->n);
	}
	return 0;
}

static int layer_norm_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct layer_norm v;
	int64_t dims[RT_MAX_RANK];
	int status = layer_norm_view(k, in, n_in, &v);

	if (!status)
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype,
					     in[0]->rank, in[0]->dims);
	memcpy(dims, in[0]->dims, sizeof(dims));
	for (int d = (int)v.axis; !status && d < in[0]->rank; d++)
		dims[d] = 1;
	/* Mean and InvStdDev: float by default (stash_type 1). */
	for (size_t o = 1; !status && o < n_out; o++)
		if (out[o])
			status = rt_tensor_set_shape(k, out[o], ENPU_RT_FLOAT,
						     in[0]->rank, dims);
	return status;
}

static double param_at(const struct rt_tensor *p, size_t i, double fallback)
{
	if (!p)
		return fallback;
	return rt_tensor_get_double(p, rt_tensor_elements(p) == 1 ? 0 : i);
}

/* float32 rows with full Scale/B: the CPU runtime's row kernels, threaded. */
struct ln_rows {
	const struct layer_norm *v;
	const struct enpu_fmath_kernels *f;
	const float *x, *gamma, *beta;
	float *y, *mean, *inv;
	size_t per_task;
};

static void ln_task(void *argument, size_t task)
{
	const struct ln_rows *r = argument;
	size_t n = r->v->n, first = task * r->per_task;

	for (size_t row = first; row < first + r->per_task && row < r->v->rows;
	     row++) {
		const float *x = r->x + row * n;
		float mean = r->f->sum(n, x) / (float)n;
		float var = r->f->sum_squares(n, x, mean) / (float)n;
		float inv = 1.0f / sqrtf(var + (float)r->v->epsilon);

		r->f->normalize(n, x, mean, inv, r->gamma, r->beta, r->y + row * n);
		if (r->mean)
			r->mean[row] = mean;
		if (r->inv)
			r->inv[row] = inv;
	}
}

static int layer_norm_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0], *scale = in[1];
	const struct rt_tensor *bias = n_in > 2 ? in[2] : NULL;
	struct layer_norm v;
	int status = layer_norm_view(k, in, n_in, &v);

	if (status)
		return status;
	if (x->dtype == ENPU_RT_FLOAT && scale->dtype == ENPU_RT_FLOAT &&
	    rt_tensor_elements(scale) == v.n && v.n &&
	    (!bias || (bias->dtype == ENPU_RT_FLOAT &&
		       rt_tensor_elements(bias) == v.n))) {
		struct ln_rows r = {
			&v, enpu_cpu_fmath(k->cpu), x->data, scale->data,
			bias ? bias->data : NULL, out[0]->data,
			n_out > 1 && out[1] ? out[1]->data : NULL,
			n_out > 2 && out[2] ? out[2]->data : NULL, 1,
		};

		r.per_task = 16384 / v.n ? 16384 / v.n : 1;
		/* mean, squares, normalize: three passes, 8 bytes moved */
		enpu_cpu_parallel_for_work(k->cpu, (v.rows + r.per_task - 1) /
					   r.per_task, (uint64_t)v.rows * v.n * 8,
					   (uint64_t)v.rows * v.n * 24, ln_task,
					   &r);
		return 0;
	}
	for (size_t r = 0; r < v.rows; r++) {
		double mean, inv;
		size_t base = r * v.n;

		moments(x, base, v.n, v.epsilon, &mean, &inv);
		for (size_t i = 0; i < v.n; i++)
			rt_tensor_set_double(out[0], base + i,
				(rt_tensor_get_double(x, base + i) - mean) *
				inv * param_at(scale, i, 1) +
				param_at(bias, i, 0));
		if (n_out > 1 && out[1])
			((float *)out[1]->data)[r] = (float)mean;
		if (n_out > 2 && out[2])
			((float *)out[2]->data)[r] = (float)inv;
	}
	return 0;
}

/* ---- InstanceNormalization, GroupNormalization ------------------------- */

static int channel_norm_infer(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	int status = float_type(k, in[0]);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (in[0]->rank < 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is below 2", in[0]->rank);
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

/*
 * Normalizes each of batch x groups runs of (channels / groups) x spatial
 * elements; scale and bias per channel (or per group, @per_group).
 */
static int channel_norm(struct rt_kernel *k, const struct rt_tensor *const *in,
			struct rt_tensor *y, int64_t groups, int per_group)
{
	const struct rt_tensor *x = in[0], *scale = in[1], *bias = in[2];
	size_t batch = (size_t)x->dims[0], channels = (size_t)x->dims[1];
	size_t spatial = 1, per, params;
	float eps;
	int status = rt_attr_float(k, "epsilon", 1e-5f, &eps);

	if (status)
		return status;
	for (int d = 2; d < x->rank; d++)
		spatial *= (size_t)x->dims[d];
	if (groups < 1 || channels % (size_t)groups)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%zu channels do not split into %" PRId64
				   " groups", channels, groups);
	per = channels / (size_t)groups;
	params = per_group ? (size_t)groups : channels;
	if (rt_tensor_elements(scale) != params ||
	    rt_tensor_elements(bias) != params)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scale and bias need %zu elements", params);
	for (size_t n = 0; n < batch; n++)
	for (size_t g = 0; g < (size_t)groups; g++) {
		size_t base = (n * channels + g * per) * spatial;
		double mean, inv;

		moments(x, base, per * spatial, eps, &mean, &inv);
		for (size_t c = 0; c < per; c++) {
			size_t p = per_group ? g : g * per + c;
			double s = rt_tensor_get_double(scale, p) * inv;
			double b = rt_tensor_get_double(bias, p) - mean * s;
			size_t at = base + c * spatial;

			if (x->dtype == ENPU_RT_FLOAT) {
				const float *px = (const float *)x->data + at;
				float *py = (float *)y->data + at;

				for (size_t i = 0; i < spatial; i++)
					py[i] = (float)(px[i] * s + b);
			} else {
				for (size_t i = 0; i < spatial; i++)
					rt_tensor_set_double(y, at + i,
						rt_tensor_get_double(x, at + i) *
						s + b);
			}
		}
	}
	return 0;
}

static int instance_norm_run(struct rt_kernel *k,
			     const struct rt_tensor *const *in, size_t n_in,
			     struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in;
	(void)n_out;
	return channel_norm(k, in, out[0], in[0]->dims[1], 0);
}

static int group_norm_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	int64_t groups;
	int status = rt_attr_int(k, "num_groups", 0, &groups);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	/*
	 * Opset 18 scaled per group; 21 corrected that to per channel. A
	 * per-group tensor is taken as such at either opset.
	 */
	return channel_norm(k, in, out[0], groups,
			    k->opset < 21 &&
			    rt_tensor_elements(in[1]) == (size_t)groups &&
			    groups != in[0]->dims[1]);
}

/* ---- MeanVarianceNormalization ----------------------------------------- */

/* The group of element @e: its coordinates on the kept axes. */
static size_t group_of(const struct rt_tensor *x, const int *reduced,
		       const int64_t *strides, size_t e)
{
	size_t g = 0;

	for (int d = 0; d < x->rank; d++)
		if (!reduced[d])
			g = g * (size_t)x->dims[d] +
			    (size_t)(((int64_t)e / strides[d]) % x->dims[d]);
	return g;
}

static int mvn_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	static const int64_t default_axes[] = { 0, 2, 3 };
	const struct rt_tensor *x = in[0];
	const int64_t *axes;
	size_t count, n = rt_tensor_elements(x), groups = 1;
	int reduced[RT_MAX_RANK] = { 0 };
	int64_t strides[RT_MAX_RANK];
	double *sum, *sq;
	size_t *members;
	int status = rt_attr_ints(k, "axes", &axes, &count);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (!axes) {
		axes = default_axes;
		count = 3;
	}
	for (size_t i = 0; i < count; i++) {
		int64_t a;

		status = rt_axis(k, axes[i], x->rank, &a);
		if (status)
			return status;
		reduced[a] = 1;
	}
	rt_contiguous_strides(x, strides);
	for (int d = 0; d < x->rank; d++)
		if (!reduced[d])
			groups *= (size_t)x->dims[d];
	sum = calloc(groups + 1, sizeof(double));
	sq = calloc(groups + 1, sizeof(double));
	members = calloc(groups + 1, sizeof(size_t));
	if (!sum || !sq || !members) {
		free(sum);
		free(sq);
		free(members);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (size_t e = 0; e < n; e++) {
		size_t g = group_of(x, reduced, strides, e);

		sum[g] += rt_tensor_get_double(x, e);
		members[g]++;
	}
	for (size_t e = 0; e < n; e++) {
		size_t g = group_of(x, reduced, strides, e);
		double d = rt_tensor_get_double(x, e) - sum[g] / (double)members[g];

		sq[g] += d * d;
	}
	for (size_t e = 0; e < n; e++) {
		size_t g = group_of(x, reduced, strides, e);
		double mean = sum[g] / (double)members[g];

		rt_tensor_set_double(out[0], e, (rt_tensor_get_double(x, e) - mean) /
				     (sqrt(sq[g] / (double)members[g]) + 1e-9));
	}
	free(sum);
	free(sq);
	free(members);
	return 0;
}

/* ---- LRN --------------------------------------------------------------- */

static int lrn_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t batch = (size_t)x->dims[0], channels = (size_t)x->dims[1];
	size_t spatial = 1;
	float alpha, beta, bias;
	int64_t size;
	int status = rt_attr_float(k, "alpha", 1e-4f, &alpha);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = rt_attr_float(k, "beta", 0.75f, &beta);
	if (!status)
		status = rt_attr_float(k, "bias", 1.0f, &bias);
	if (!status)
		status = rt_attr_int(k, "size", 0, &size);
	if (status)
		return status;
	if (size < 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "size %" PRId64 " is below 1", size);
	for (int d = 2; d < x->rank; d++)
		spatial *= (size_t)x->dims[d];
	for (size_t n = 0; n < batch; n++)
	for (size_t c = 0; c < channels; c++)
	for (size_t i = 0; i < spatial; i++) {
		/* The window [c - floor((size-1)/2), c + ceil((size-1)/2)]. */
		int64_t lo = (int64_t)c - (size - 1) / 2;
		int64_t hi = (int64_t)c + size / 2;
		double sq = 0;
		size_t at = (n * channels + c) * spatial + i;

		for (int64_t j = lo < 0 ? 0 : lo;
		     j <= hi && j < (int64_t)channels; j++) {
			double v = rt_tensor_get_double(x,
				(n * channels + (size_t)j) * spatial + i);

			sq += v * v;
		}
		rt_tensor_set_double(out[0], at, rt_tensor_get_double(x, at) /
				     pow(bias + alpha / (double)size * sq, beta));
	}
	return 0;
}

const struct rt_op_def rt_ops_norms[] = {
	{ "LayerNormalization", "", 17, 21, 2, 3, 1, 3, 0, layer_norm_infer,
	  NULL, layer_norm_run, NULL },
	{ "InstanceNormalization", "", 6, 21, 3, 3, 1, 1, 0,
	  channel_norm_infer, NULL, instance_norm_run, NULL },
	{ "GroupNormalization", "", 18, 21, 3, 3, 1, 1, 0, channel_norm_infer,
	  NULL, group_norm_run, NULL },
	{ "MeanVarianceNormalization", "", 9, 21, 1, 1, 1, 1, 0,
	  channel_norm_infer, NULL, mvn_run, NULL },
	{ "LRN", "", 1, 21, 1, 1, 1, 1, 0, channel_norm_infer, NULL, lrn_run,
	  NULL },
	{ 0 },
};
