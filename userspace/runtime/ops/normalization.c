// SPDX-License-Identifier: MIT
/*
 * BatchNormalization in inference mode, opsets 6 to 15:
 *   y = (x - mean) / sqrt(var + epsilon) * scale + bias, per channel.
 *
 * Training mode (batch statistics and running-statistics outputs) is
 * rejected: with opset 14+ through training_mode=1, before that through
 * any of the optional mean/var/saved_mean/saved_var outputs. Opset 6's
 * is_test=0 alone (its default) still means inference here, which is how
 * exporters of that era used it.
 *
 * Opsets 6-8 also have spatial=0, where the statistics are per element of
 * a sample (shape [C, D1, ...]) rather than per channel; that is the same
 * loop with the whole sample as "channels" of one element each.
 *
 * The per-channel factor scale / sqrt(var + epsilon) is computed in double
 * once per run; subtracting the mean before scaling keeps the result
 * accurate when x is close to the mean.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "rt_op.h"

static const char *const param_names[4] = { "scale", "bias", "mean", "var" };

/* Channels C (statistics count) and elements per channel per sample. */
struct batch_norm_view {
	size_t batch;
	size_t channels;
	size_t inner;
};

static int batch_norm_view_of(struct rt_kernel *k,
			      const struct rt_tensor *const *in,
			      struct batch_norm_view *v)
{
	const struct rt_tensor *x = in[0];
	int64_t spatial = 1;
	char shape[96];
	int status;

	if (k->opset < 9) {
		status = rt_attr_int(k, "spatial", 1, &spatial);
		if (status)
			return status;
	}
	if (x->rank < 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input %s must have at least 2 dimensions (N, C, ...)",
				   rt_shape_string(x, shape, sizeof(shape)));
	v->batch = (size_t)x->dims[0];
	v->channels = (size_t)x->dims[1];
	v->inner = 1;
	for (int d = 2; d < x->rank; d++)
		v->inner *= (size_t)x->dims[d];
	if (!spatial) {
		v->channels *= v->inner;
		v->inner = 1;
	}
	for (int i = 1; i <= 4; i++) {
		const struct rt_tensor *p = in[i];

		if (p->dtype != ENPU_RT_FLOAT && p->dtype != ENPU_RT_DOUBLE)
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "%s has type %s (float, double supported)",
					   param_names[i - 1],
					   rt_dtype_name(p->dtype));
		if (p->rank >= 0 && rt_tensor_elements(p) != v->channels)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "%s has shape %s, expected %zu elements (channels%s)",
					   param_names[i - 1],
					   rt_shape_string(p, shape,
							   sizeof(shape)),
					   v->channels,
					   spatial ? "" : " x spatial, spatial=0");
	}
	return 0;
}

static int batch_norm_check_mode(struct rt_kernel *k,
				 struct rt_tensor *const *out, size_t n_out)
{
	int64_t training = 0;
	int status;

	if (k->opset >= 14) {
		status = rt_attr_int(k, "training_mode", 0, &training);
		if (status)
			return status;
		if (training)
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "training_mode=1 is not supported (inference only)");
		if (n_out > 3)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "%zu outputs, at most 3 at opset %" PRId64,
					   n_out, k->opset);
	}
	for (size_t i = 1; i < n_out; i++)
		if (out[i])
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "output %zu ('%s') is a training-mode output; only inference (output Y) is supported",
					   i, out[i]->name ? out[i]->name : "");
	return 0;
}

static int batch_norm_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct batch_norm_view v;
	int status;

	(void)n_in;
	if (in[0]->dtype != ENPU_RT_FLOAT && in[0]->dtype != ENPU_RT_DOUBLE)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported (float, double)",
				   rt_dtype_name(in[0]->dtype));
	status = batch_norm_check_mode(k, out, n_out);
	if (!status)
		status = batch_norm_view_of(k, in, &v);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

static void batch_norm_f32(const struct batch_norm_view *v, const float *x,
			   float *y, const float *factor, const float *mean,
			   const float *bias)
{
	for (size_t b = 0; b < v->batch; b++)
		for (size_t c = 0; c < v->channels; c++) {
			float f = factor[c], m = mean[c], add = bias[c];

			for (size_t i = 0; i < v->inner; i++)
				y[i] = (x[i] - m) * f + add;
			x += v->inner;
			y += v->inner;
		}
}

static void batch_norm_f64(const struct batch_norm_view *v, const double *x,
			   double *y, const struct rt_tensor *const *in,
			   double epsilon)
{
	for (size_t b = 0; b < v->batch; b++)
		for (size_t c = 0; c < v->channels; c++) {
			double f = rt_tensor_get_double(in[1], c) /
				sqrt(rt_tensor_get_double(in[4], c) + epsilon);
			double m = rt_tensor_get_double(in[3], c);
			double add = rt_tensor_get_double(in[2], c);

			for (size_t i = 0; i < v->inner; i++)
				y[i] = (x[i] - m) * f + add;
			x += v->inner;
			y += v->inner;
		}
}

static int batch_norm_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	struct batch_norm_view v;
	float epsilon, *params;
	int status;

	(void)n_in;
	status = batch_norm_check_mode(k, out, n_out);
	if (!status)
		status = batch_norm_view_of(k, in, &v);
	if (!status)
		status = rt_attr_float(k, "epsilon", 1e-5f, &epsilon);
	if (status)
		return status;
	if (in[0]->dtype == ENPU_RT_DOUBLE) {
		batch_norm_f64(&v, in[0]->data, out[0]->data, in, epsilon);
		return 0;
	}
	params = malloc(3 * (v.channels ? v.channels : 1) * sizeof(*params));
	if (!params)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu channel factors",
				   v.channels);
	for (size_t c = 0; c < v.channels; c++) {
		double var = rt_tensor_get_double(in[4], c);

		params[c] = (float)(rt_tensor_get_double(in[1], c) /
				    sqrt(var + epsilon));
		params[v.channels + c] = (float)rt_tensor_get_double(in[3], c);
		params[2 * v.channels + c] =
			(float)rt_tensor_get_double(in[2], c);
	}
	batch_norm_f32(&v, in[0]->data, out[0]->data, params,
		       params + v.channels, params + 2 * v.channels);
	free(params);
	return 0;
}

const struct rt_op_def rt_ops_normalization[] = {
	{ "BatchNormalization", "", 6, 21, 5, 5, 1, 5, 0, batch_norm_infer,
	  NULL, batch_norm_run, NULL },
	{ 0 },
};
