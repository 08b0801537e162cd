// SPDX-License-Identifier: MIT
/*
 * ai.enpu QConv (opset 1): the integer convolution quantized Conv forms
 * are lowered to (graph/lower_qdq.c). Inputs as ONNX QLinearConv:
 *   x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
 *   y_zero_point, B
 * with the restrictions of the NPU's form: w int8 OIHW with a zero point
 * of 0 (absent or all zeros), w_scale per tensor or per output channel, B
 * int32 in units of x_scale * w_scale[m], every parameter constant,
 * 2-D kernels. Attributes: Conv's (group, kernel_shape, strides, pads,
 * dilations, auto_pad) and channels_last (qnhwc.h). The lowering sets
 * k->activation for a Relu/Clip that followed the float Conv; it
 * narrows the output clamp.
 *
 * Runs on enpu_cpu_conv2d() (dense, grouped and depthwise) with weights
 * packed once and the ENPU requantization rule per output channel:
 * multiplier/shift from x_scale * w_scale[m] / y_scale, round half up in
 * fixed point (ONNX's reference rounds half to even in float: outputs may
 * differ by one, docs/runtime.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qnhwc.h"
#include "rt_qparams.h"
#include "spatial.h"

enum {
	IN_X, IN_XS, IN_XZ, IN_W, IN_WS, IN_WZ, IN_YS, IN_YZ, IN_B,
};

struct qconv_state {
	enpu_cpu_conv_weights *weights;
	struct rt_qconv_params params;
};

static const struct rt_tensor *opt(const struct rt_tensor *const *in,
				   size_t n_in, int i)
{
	return (size_t)i < n_in ? in[i] : NULL;
}

static int32_t output_type(const struct rt_tensor *const *in, size_t n_in)
{
	const struct rt_tensor *yz = opt(in, n_in, IN_YZ);

	return yz ? yz->dtype : ENPU_RT_UINT8;
}

int rt_qconv_geometry(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_qconv_params *p)
{
	const struct rt_tensor *x = in[IN_X], *w = in[IN_W];
	const struct rt_tensor *b = opt(in, n_in, IN_B);
	struct rt_tensor nchw = *x;
	struct rt_spatial s;
	int64_t group;
	int status;

	memset(p, 0, sizeof(*p));
	p->x_type = x->dtype;
	p->y_type = output_type(in, n_in);
	if (!rt_q_is_8bit(x->dtype) || w->dtype != ENPU_RT_INT8 ||
	    !rt_q_is_8bit(p->y_type))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "types x %s, w %s, y %s are not supported "
				   "(8-bit x and y, int8 w)",
				   rt_dtype_name(x->dtype),
				   rt_dtype_name(w->dtype),
				   rt_dtype_name(p->y_type));
	status = rt_q_channels_last(k, &p->channels_last);
	if (!status)
		status = rt_attr_int(k, "group", 1, &group);
	if (status)
		return status;
	if (x->rank != 4 || w->rank != 4)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "only 2-D convolutions are supported (x rank "
				   "%d, w rank %d)", x->rank, w->rank);
	if (p->channels_last) {
		nchw.dims[1] = x->dims[3];
		nchw.dims[2] = x->dims[1];
		nchw.dims[3] = x->dims[2];
	}
	if (group < 1 || nchw.dims[1] % group || w->dims[0] % group ||
	    w->dims[1] * group != nchw.dims[1])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "group %lld does not fit %lld input and "
				   "%lld output channels with weights of %lld "
				   "per group", (long long)group,
				   (long long)nchw.dims[1],
				   (long long)w->dims[0], (long long)w->dims[1]);
	status = rt_spatial_init(k, &nchw, &w->dims[2], 0, &s);
	if (status)
		return status;
	p->shape.input_channels = (size_t)nchw.dims[1];
	p->shape.output_channels = (size_t)w->dims[0];
	p->shape.groups = (size_t)group;
	p->shape.kernel_height = (size_t)s.kernel[1];
	p->shape.kernel_width = (size_t)s.kernel[2];
	p->shape.stride_height = (size_t)s.stride[1];
	p->shape.stride_width = (size_t)s.stride[2];
	p->shape.dilation_height = (size_t)s.dilation[1];
	p->shape.dilation_width = (size_t)s.dilation[2];
	p->shape.pad_top = (size_t)s.pad_begin[1];
	p->shape.pad_left = (size_t)s.pad_begin[2];
	p->shape.pad_bottom = (size_t)s.pad_end[1];
	p->shape.pad_right = (size_t)s.pad_end[2];
	p->batch = (size_t)s.batch;
	p->height = (size_t)s.in[1];
	p->width = (size_t)s.in[2];
	p->out_height = (size_t)s.out[1];
	p->out_width = (size_t)s.out[2];
	p->out_dims[0] = s.batch;
	if (p->channels_last) {
		p->out_dims[1] = s.out[1];
		p->out_dims[2] = s.out[2];
		p->out_dims[3] = w->dims[0];
	} else {
		p->out_dims[1] = w->dims[0];
		p->out_dims[2] = s.out[1];
		p->out_dims[3] = s.out[2];
	}
	if (b && (b->dtype != ENPU_RT_INT32 ||
		  rt_tensor_elements(b) != p->shape.output_channels))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "B must be int32 with %zu elements",
				   p->shape.output_channels);
	return 0;
}

void rt_qconv_params_free(struct rt_qconv_params *p)
{
	free(p->multiplier);
	free(p->shift);
	p->multiplier = NULL;
	p->shift = NULL;
}

int rt_qconv_params(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_qconv_params *p)
{
	const struct rt_tensor *ws = in[IN_WS], *wz = opt(in, n_in, IN_WZ);
	const struct rt_tensor *b = opt(in, n_in, IN_B);
	size_t m, nws = rt_tensor_elements(ws);
	double xs, ys;
	int status = rt_qconv_geometry(k, in, n_in, p);

	if (status)
		return status;
	m = p->shape.output_channels;
	status = rt_q_scale(k, in[IN_XS], "x_scale", &xs);
	if (!status)
		status = rt_q_scale(k, in[IN_YS], "y_scale", &ys);
	if (!status)
		status = rt_q_zero_point(k, opt(in, n_in, IN_XZ),
					 "x_zero_point", in[IN_X]->dtype,
					 &p->x_zero);
	if (!status)
		status = rt_q_zero_point(k, opt(in, n_in, IN_YZ),
					 "y_zero_point", p->y_type, &p->y_zero);
	if (status)
		return status;
	if (!in[IN_W]->data || !ws->data || (wz && !wz->data) ||
	    (b && !b->data))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "weights, their parameters and B must be "
				   "constants");
	if (ws->dtype != ENPU_RT_FLOAT || (nws != 1 && nws != m))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "w_scale must be float, per tensor or per "
				   "output channel (%zu elements)", m);
	if (wz) {
		size_t nwz = rt_tensor_elements(wz);

		if (wz->dtype != ENPU_RT_INT8 || (nwz != 1 && nwz != m))
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "w_zero_point must be int8, per "
					   "tensor or per output channel");
		for (size_t i = 0; i < nwz; i++)
			if (((const int8_t *)wz->data)[i])
				return rt_op_error(k, ENPU_RT_UNSUPPORTED,
						   "w_zero_point must be 0 "
						   "(symmetric weights)");
	}
	p->multiplier = calloc(m + 1, sizeof(int32_t));
	p->shift = calloc(m + 1, sizeof(int32_t));
	if (!p->multiplier || !p->shift) {
		rt_qconv_params_free(p);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (size_t c = 0; c < m; c++) {
		double scale = xs * ((const float *)ws->data)[nws == 1 ? 0 : c] /
			       ys;

		if (!(scale > 0 && scale < 1) ||
		    enpu_requant_from_scale(scale, &p->multiplier[c],
					    &p->shift[c])) {
			rt_qconv_params_free(p);
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "output channel %zu: requantization "
					   "scale %g is outside what the "
					   "fixed-point rule represents", c,
					   scale);
		}
	}
	rt_q_range(p->y_type, &p->lo, &p->hi);
	rt_q_activation_clamp(k, ys, p->y_zero, &p->lo, &p->hi);
	return 0;
}

static int qconv_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_qconv_params p;
	int status = rt_qconv_geometry(k, in, n_in, &p);

	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], p.y_type, 4, p.out_dims);
}

static void state_free(struct qconv_state *st)
{
	if (!st)
		return;
	enpu_cpu_conv_weights_destroy(st->weights);
	rt_qconv_params_free(&st->params);
	free(st);
}

static int build_state(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct qconv_state **out)
{
	const struct rt_tensor *b = opt(in, n_in, IN_B);
	struct qconv_state *st = calloc(1, sizeof(*st));
	int err, status;

	if (!st)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	status = rt_qconv_params(k, in, n_in, &st->params);
	if (status) {
		free(st);
		return status;
	}
	err = enpu_cpu_conv_weights_pack(k->cpu, &st->params.shape,
					 in[IN_W]->data, b ? b->data : NULL,
					 &st->weights);
	if (err) {
		status = rt_q_cpu_fail(k, err, "packing the weights");
		state_free(st);
		return status;
	}
	*out = st;
	return 0;
}

static int qconv_prepare(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in)
{
	/* Pack now when the input shape is known; else on the first run. */
	if (in[IN_X]->rank != 4)
		return 0;
	return build_state(k, in, n_in, (struct qconv_state **)&k->state);
}

static void qconv_release(struct rt_kernel *k)
{
	state_free(k->state);
	k->state = NULL;
}

static int qconv_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[IN_X];
	struct qconv_state *st = k->state;
	struct rt_qconv_params g;
	struct enpu_cpu_requant requant;
	struct enpu_cpu_conv_args args;
	void *scratch = NULL;
	size_t in_bytes, out_bytes;
	int status, err;

	(void)n_out;
	status = rt_qconv_geometry(k, in, n_in, &g);
	if (status)
		return status;
	if (!st || memcmp(&st->params.shape, &g.shape, sizeof(g.shape))) {
		/* First run with a symbolic shape, or new padding (auto_pad). */
		state_free(st);
		k->state = NULL;
		status = build_state(k, in, n_in, &st);
		if (status)
			return status;
		k->state = st;
	}
	requant = (struct enpu_cpu_requant){
		st->params.multiplier, st->params.shift, 1, st->params.y_zero,
		st->params.lo, st->params.hi,
	};
	args = (struct enpu_cpu_conv_args){
		.batch = g.batch, .input_height = g.height,
		.input_width = g.width, .input = x->data,
		.input_type = rt_q_cpu_type(x->dtype),
		.input_zero_point = st->params.x_zero, .weights = st->weights,
		.output = out[0]->data,
		.output_type = rt_q_cpu_type(out[0]->dtype),
		.requant = &requant,
	};
	in_bytes = x->byte_size;
	out_bytes = out[0]->byte_size;
	if (!g.channels_last) {
		scratch = malloc(in_bytes + out_bytes + 1);
		if (!scratch)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		rt_q_to_nhwc(x->data, scratch, g.batch,
			     g.shape.input_channels, g.height * g.width, 1);
		args.input = scratch;
		args.output = (uint8_t *)scratch + in_bytes;
	}
	err = enpu_cpu_conv2d(k->cpu, &args);
	if (err) {
		free(scratch);
		return rt_q_cpu_fail(k, err, "convolution");
	}
	if (!g.channels_last) {
		rt_q_to_nchw(args.output, out[0]->data, g.batch,
			     g.shape.output_channels,
			     (size_t)(g.out_dims[2] * g.out_dims[3]), 1);
		free(scratch);
	}
	return 0;
}

const struct rt_op_def rt_ops_qconv[] = {
	{ "QConv", RT_ENPU_DOMAIN, 1, 1, 8, 9, 1, 1, 0,
	  qconv_infer, qconv_prepare, qconv_run, qconv_release },
	{ 0 },
};
