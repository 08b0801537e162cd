// SPDX-License-Identifier: MIT
/*
 * Conv, float32. One and two spatial axes run on the CPU runtime's NCHW
 * convolution (enpu_cpu_conv2d_f32: the packed GEMM with the unfolding
 * built per task, or the depthwise kernel), bias and a fused activation
 * in its store; the weights that kernel packs (enpu_cpu_fconv_weights)
 * are packed once at prepare. Three axes: the input is unfolded (im2col) one group of
 * one image at a time and multiplied by the weights with
 * rt_conv_sgemm(); pointwise convolutions skip the unfolding.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "conv_window.h"
#include "enpu_cpu_float.h"

/* The geometry's two innermost axes (1-D: height 1) for the CPU kernel. */
static void cpu_shape(const struct rt_conv_shape *shape,
		      struct enpu_cpu_fconv_shape *s)
{
	const struct rt_spatial *g = &shape->geometry;

	*s = (struct enpu_cpu_fconv_shape) {
		.batch = (size_t)g->batch, .in_channels = (size_t)g->channels,
		.height = (size_t)g->in[1], .width = (size_t)g->in[2],
		.out_channels = (size_t)shape->out_channels,
		.group = (size_t)shape->group,
		.kernel_height = (size_t)g->kernel[1],
		.kernel_width = (size_t)g->kernel[2],
		.stride_height = (size_t)g->stride[1],
		.stride_width = (size_t)g->stride[2],
		.dilation_height = (size_t)g->dilation[1],
		.dilation_width = (size_t)g->dilation[2],
		.pad_top = (size_t)g->pad_begin[1],
		.pad_left = (size_t)g->pad_begin[2],
		.pad_bottom = (size_t)g->pad_end[1],
		.pad_right = (size_t)g->pad_end[2],
	};
}

static int conv_2d(struct rt_kernel *k, const struct rt_conv_shape *shape,
		   const float *x, const float *w, const float *bias,
		   float *y)
{
	struct enpu_cpu_fconv_shape s;
	float clamp[2];
	const float *c = NULL;

	cpu_shape(shape, &s);
	if (k->activation.kind == RT_ACTIVATION_RELU) {
		clamp[0] = 0.0f;
		clamp[1] = INFINITY;
		c = clamp;
	} else if (k->activation.kind == RT_ACTIVATION_CLIP) {
		clamp[0] = k->activation.min;
		clamp[1] = k->activation.max;
		c = clamp;
	}
	if (enpu_cpu_conv2d_f32_packed(k->cpu, &s, x, w, k->state, bias, c,
				       y))
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "%s",
				   enpu_cpu_context_error(k->cpu));
	return 0;
}

static int conv_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0], *w = in[1];
	const struct rt_tensor *b = n_in > 2 ? in[2] : NULL;
	struct rt_conv_shape shape;
	int64_t dims[RT_MAX_RANK];
	int status;

	(void)n_out;
	if (x->dtype != ENPU_RT_FLOAT)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported (float only)",
				   rt_dtype_name(x->dtype));
	status = rt_expect_dtype(k, w, 1, ENPU_RT_FLOAT);
	if (status)
		return status;
	status = rt_conv_shape_init(k, x, w, &shape);
	if (status)
		return status;
	if (b) {
		status = rt_expect_dtype(k, b, 2, ENPU_RT_FLOAT);
		if (status)
			return status;
		if (b->rank != 1 || b->dims[0] != shape.out_channels)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "bias must have %lld elements",
					   (long long)shape.out_channels);
	}
	return rt_tensor_set_shape(k, out[0], ENPU_RT_FLOAT,
				   rt_spatial_output_dims(&shape.geometry,
							  shape.out_channels,
							  dims), dims);
}

/*
 * Constant weights of a 1-D or 2-D convolution: packed once for the CPU
 * kernel (NULL state where it packs nothing). A shape not known yet, or
 * one the kernel rejects, is left to run(), which packs per call or
 * reports it.
 */
static int conv_prepare(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in)
{
	struct rt_conv_shape shape;
	struct enpu_cpu_fconv_shape s;
	enpu_cpu_fconv_weights *packed = NULL;

	(void)n_in;
	if (!in[1]->data || in[0]->rank < 0 ||
	    in[0]->dtype != ENPU_RT_FLOAT || in[1]->dtype != ENPU_RT_FLOAT)
		return 0;
	for (int i = 0; i < in[0]->rank; i++)
		if (in[0]->dims[i] < 0)
			return 0;
	if (rt_conv_shape_init(k, in[0], in[1], &shape) ||
	    shape.geometry.axes > 2 || !shape.patch)
		return 0;	/* infer() or run() reports it */
	cpu_shape(&shape, &s);
	if (enpu_cpu_fconv_weights_pack(k->cpu, &s, in[1]->data, &packed) ==
	    -ENOMEM)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "%s",
				   enpu_cpu_context_error(k->cpu));
	k->state = packed;
	return 0;
}

static void conv_release(struct rt_kernel *k)
{
	enpu_cpu_fconv_weights_destroy(k->state);
	k->state = NULL;
}

static int conv_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0], *w = in[1];
	const float *bias = n_in > 2 && in[2] ? in[2]->data : NULL;
	struct rt_conv_shape shape;
	int pointwise, status;
	size_t in_image, out_image, in_group, m = 0, kd, p;
	float *col = NULL;
	float *y = out[0]->data;

	(void)n_out;
	status = rt_conv_shape_init(k, x, w, &shape);
	if (status)
		return status;
	if (!rt_tensor_elements(out[0]))
		return 0;
	if (shape.geometry.axes <= 2 && shape.patch)
		return conv_2d(k, &shape, x->data, w->data, bias, y);
	pointwise = rt_conv_is_pointwise(&shape);
	m = (size_t)shape.group_out_channels;
	kd = (size_t)shape.patch;
	p = (size_t)shape.positions;
	in_group = (size_t)(shape.group_in_channels *
			    rt_spatial_in_size(&shape.geometry));
	in_image = in_group * (size_t)shape.group;
	out_image = p * (size_t)shape.out_channels;
	if (!pointwise && kd && p) {
		col = malloc(kd * p * sizeof(*col));
		if (!col)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "no memory for a %zux%zu unfolded "
					   "input", kd, p);
	}
	for (int64_t n = 0; n < shape.geometry.batch; n++) {
		for (int64_t g = 0; g < shape.group; g++) {
			const float *xg = (const float *)x->data +
					  (size_t)n * in_image +
					  (size_t)g * in_group;
			const float *source = xg;

			if (!pointwise) {
				rt_conv_im2col(&shape, xg, col);
				source = col;
			}
			rt_conv_sgemm(m, kd, p,
				      (const float *)w->data + (size_t)g * m * kd,
				      kd, source, p,
				      bias ? bias + (size_t)g * m : NULL,
				      y + (size_t)n * out_image +
				      (size_t)g * m * p, p);
		}
	}
	free(col);
	rt_activation_apply_f32(&k->activation, y,
				out[0]->byte_size / sizeof(float));
	return 0;
}

const struct rt_op_def rt_ops_conv[] = {
	{
		.op_type = "Conv", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 2, .max_inputs = 3,
		.min_outputs = 1, .max_outputs = 1,
		.flags = RT_OP_FUSES_ACTIVATION,
		.infer = conv_infer, .prepare = conv_prepare,
		.run = conv_run, .release = conv_release,
	},
	{ 0 },
};
