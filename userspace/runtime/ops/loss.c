// SPDX-License-Identifier: MIT
/*
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (which is the
 * former over LogSoftmax along axis 1, returning the log-probabilities
 * as its optional second output). Input [N, C, d1...], integer target
 * [N, d1...], optional per-class weight [C], ignore_index, reduction
 * none (per element), sum, or mean (divided by the weights of the
 * elements not ignored, or their count without weights).
 *
 * Accumulation in double; a target outside [0, C) that is not the
 * ignore_index is a run-time error naming it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

enum loss_reduction { LOSS_NONE, LOSS_SUM, LOSS_MEAN };

struct loss_view {
	size_t batch, classes, inner;
	enum loss_reduction reduction;
	int has_ignore;
	int64_t ignore;
	int softmax;
};

static int loss_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct loss_view *v)
{
	const struct rt_tensor *x = in[0], *target = in[1];
	const struct rt_attr *ignore = rt_attr_find(k, "ignore_index");
	const char *reduction;
	int status = rt_attr_string(k, "reduction", "mean", &reduction);

	if (status)
		return status;
	v->softmax = !strcmp(k->op_type, "SoftmaxCrossEntropyLoss");
	if (!strcmp(reduction, "none"))
		v->reduction = LOSS_NONE;
	else if (!strcmp(reduction, "sum"))
		v->reduction = LOSS_SUM;
	else if (!strcmp(reduction, "mean"))
		v->reduction = LOSS_MEAN;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "reduction '%s' is unknown", reduction);
	v->has_ignore = ignore != NULL;
	v->ignore = ignore ? ignore->i : 0;
	if (!rt_dtype_is_float(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "input type %s",
				   rt_dtype_name(x->dtype));
	if (target->dtype != ENPU_RT_INT64 && target->dtype != ENPU_RT_INT32)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "target type %s is not int32/int64",
				   rt_dtype_name(target->dtype));
	if (x->rank < 2 || target->rank != x->rank - 1 ||
	    target->dims[0] != x->dims[0] ||
	    memcmp(target->dims + 1, x->dims + 2,
		   (size_t)(x->rank - 2) * sizeof(x->dims[0])))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "target shape does not match input [N, C, ...]");
	v->batch = (size_t)x->dims[0];
	v->classes = (size_t)x->dims[1];
	v->inner = 1;
	for (int d = 2; d < x->rank; d++)
		v->inner *= (size_t)x->dims[d];
	if (n_in > 2 && in[2] && rt_tensor_elements(in[2]) != v->classes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "weight has %zu elements for %zu classes",
				   rt_tensor_elements(in[2]), v->classes);
	return 0;
}

static int loss_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct loss_view v;
	int status = loss_view_of(k, in, n_in, &v);

	if (status)
		return status;
	if (v.reduction == LOSS_NONE)
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype,
					     in[1]->rank, in[1]->dims);
	else
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype, 0, NULL);
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], in[0]->dtype,
					     in[0]->rank, in[0]->dims);
	return status;
}

static int loss_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0], *target = in[1];
	const struct rt_tensor *weight = n_in > 2 ? in[2] : NULL;
	struct loss_view v;
	double *logp = NULL, total = 0, weights = 0;
	int status = loss_view_of(k, in, n_in, &v);

	if (status)
		return status;
	if (v.softmax) {
		size_t n = rt_tensor_elements(x);

		logp = malloc((n + 1) * sizeof(*logp));
		if (!logp)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		for (size_t b = 0; b < v.batch; b++)
		for (size_t i = 0; i < v.inner; i++) {
			double top = -INFINITY, sum = 0;
			size_t base = b * v.classes * v.inner + i;

			for (size_t c = 0; c < v.classes; c++)
				top = fmax(top, rt_tensor_get_double(x,
					   base + c * v.inner));
			for (size_t c = 0; c < v.classes; c++)
				sum += exp(rt_tensor_get_double(x,
					   base + c * v.inner) - top);
			for (size_t c = 0; c < v.classes; c++)
				logp[base + c * v.inner] =
					rt_tensor_get_double(x, base + c * v.inner) -
					top - log(sum);
		}
		if (n_out > 1 && out[1])
			for (size_t e = 0; e < n; e++)
				rt_tensor_set_double(out[1], e, logp[e]);
	}
	for (size_t b = 0; b < v.batch; b++)
	for (size_t i = 0; i < v.inner; i++) {
		size_t t_at = b * v.inner + i;
		int64_t t = rt_tensor_get_int(target, t_at);
		double loss = 0, w = 0;

		if (!(v.has_ignore && t == v.ignore)) {
			size_t at;

			if (t < 0 || t >= (int64_t)v.classes) {
				free(logp);
				return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
						   "target %" PRId64 " outside "
						   "0..%zu", t, v.classes - 1);
			}
			at = (b * v.classes + (size_t)t) * v.inner + i;
			w = weight ? rt_tensor_get_double(weight, (size_t)t) : 1;
			loss = -(logp ? logp[at] : rt_tensor_get_double(x, at)) * w;
		}
		if (v.reduction == LOSS_NONE)
			rt_tensor_set_double(out[0], t_at, loss);
		total += loss;
		weights += w;
	}
	if (v.reduction == LOSS_SUM)
		rt_tensor_set_double(out[0], 0, total);
	else if (v.reduction == LOSS_MEAN)
		rt_tensor_set_double(out[0], 0, weights != 0 ? total / weights :
				     0.0);
	free(logp);
	return 0;
}

const struct rt_op_def rt_ops_loss[] = {
	{ "NegativeLogLikelihoodLoss", "", 12, 21, 2, 3, 1, 1, 0, loss_infer,
	  NULL, loss_run, NULL },
	{ "SoftmaxCrossEntropyLoss", "", 12, 21, 2, 3, 1, 2, 0, loss_infer,
	  NULL, loss_run, NULL },
	{ 0 },
};
