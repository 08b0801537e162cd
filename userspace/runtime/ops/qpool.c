// SPDX-License-Identifier: MIT
/*
 * Integer pooling on the kernels of userspace/runtime/cpu (NHWC):
 *   ai.enpu QMaxPool(x)                       MaxPool on 8-bit data (the
 *                                             lowering checks the input and
 *                                             output quantization agree)
 *   ai.enpu QAveragePool(x, xs, xz, ys, yz)   = com.microsoft
 *                                             QLinearAveragePool
 *   ai.enpu QGlobalAveragePool(x, xs, xz, ys, yz) = com.microsoft
 *                                             QLinearGlobalAveragePool
 * Attributes: MaxPool/AveragePool's (kernel_shape, strides, pads,
 * dilations, auto_pad, ceil_mode, count_include_pad) and channels_last
 * (qnhwc.h). Max and average pooling take 2-D windows; the global average
 * any number of spatial axes. The average's rounding is the fixed-point
 * rule of enpu_cpu.h (may differ by one from ONNX Runtime's float path).
 */
#include <stdlib.h>
#include <string.h>

#include "qnhwc.h"
#include "rt_qparams.h"
#include "spatial.h"


static const struct rt_tensor *opt(const struct rt_tensor *const *in,
				   size_t n_in, size_t i)
{
	return i < n_in ? in[i] : NULL;
}

/* Reads the input's geometry and attributes; @in may lack data (infer). */
int rt_qpool_params(struct rt_kernel *k, enum rt_qpool_kind kind,
		    const struct rt_tensor *const *in, size_t n_in,
		    struct rt_qpool_params *p)
{
	const struct rt_tensor *x = in[0];
	struct rt_tensor nchw = *x;
	int r = x->rank, status;

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->rank = r;
	status = rt_q_channels_last(k, &p->channels_last);
	if (status)
		return status;
	if (!rt_q_is_8bit(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not uint8 or int8",
				   rt_dtype_name(x->dtype));
	if (r < 3 || (kind != RT_QPOOL_GLOBAL && r != 4))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input rank %d is not supported (%s)", r,
				   kind == RT_QPOOL_GLOBAL ? "N, C and spatial axes" :
				   "2-D pooling: rank 4");
	if (p->channels_last) {
		nchw.dims[1] = x->dims[r - 1];
		for (int d = 1; d < r - 1; d++)
			nchw.dims[d + 1] = x->dims[d];
	}
	p->args.batch = (size_t)nchw.dims[0];
	p->args.channels = (size_t)nchw.dims[1];
	p->args.type = rt_q_cpu_type(x->dtype);
	p->spatial_in = 1;
	for (int d = 2; d < r; d++)
		p->spatial_in *= (size_t)nchw.dims[d];
	p->out_dims[0] = nchw.dims[0];
	if (kind == RT_QPOOL_GLOBAL) {
		p->args.input_height = 1;
		p->args.input_width = p->spatial_in;
		p->spatial_out = 1;
		for (int d = 1; d < r; d++)
			p->out_dims[d] = 1;
		p->out_dims[p->channels_last ? r - 1 : 1] = nchw.dims[1];
	} else {
		const int64_t *kernel;
		size_t count;
		int64_t count_include_pad = 0;
		struct rt_spatial s;

		status = rt_attr_ints(k, "kernel_shape", &kernel, &count);
		if (!status && kind == RT_QPOOL_AVERAGE)
			status = rt_attr_int(k, "count_include_pad", 0,
					     &count_include_pad);
		if (status)
			return status;
		if (!kernel || count != 2)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "kernel_shape must have 2 values");
		status = rt_spatial_init(k, &nchw, kernel, 1, &s);
		if (status)
			return status;
		p->shape = (struct enpu_cpu_pool_shape){
			(size_t)s.kernel[1], (size_t)s.kernel[2],
			(size_t)s.stride[1], (size_t)s.stride[2],
			(size_t)s.dilation[1], (size_t)s.dilation[2],
			(size_t)s.pad_begin[1], (size_t)s.pad_begin[2],
			(size_t)s.pad_end[1], (size_t)s.pad_end[2], 0,
			(int)count_include_pad,
		};
		{
			int64_t ceil_mode = 0;

			status = rt_attr_int(k, "ceil_mode", 0, &ceil_mode);
			if (status)
				return status;
			p->shape.ceil_mode = (int)ceil_mode;
		}
		p->args.input_height = (size_t)s.in[1];
		p->args.input_width = (size_t)s.in[2];
		p->spatial_out = (size_t)(s.out[1] * s.out[2]);
		if (p->channels_last) {
			p->out_dims[1] = s.out[1];
			p->out_dims[2] = s.out[2];
			p->out_dims[3] = nchw.dims[1];
		} else {
			p->out_dims[1] = nchw.dims[1];
			p->out_dims[2] = s.out[1];
			p->out_dims[3] = s.out[2];
		}
	}
	if (kind != RT_QPOOL_MAX) {
		double xs, ys;

		if (n_in < 4 || !in[1] || !in[3])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "x_scale and y_scale are required");
		if (!in[1]->data || !in[3]->data)
			return 0;	/* infer before the values are known */
		status = rt_q_scale(k, in[1], "x_scale", &xs);
		if (!status)
			status = rt_q_scale(k, in[3], "y_scale", &ys);
		if (!status)
			status = rt_q_zero_point(k, opt(in, n_in, 2),
						 "x_zero_point", x->dtype,
						 &p->args.input_zero_point);
		if (!status)
			status = rt_q_zero_point(k, opt(in, n_in, 4),
						 "y_zero_point", x->dtype,
						 &p->args.output_zero_point);
		if (status)
			return status;
		p->args.scale = xs / ys;
		p->have_scales = 1;
	}
	rt_q_range(x->dtype, &p->args.min, &p->args.max);
	return 0;
}

static int pool_infer(struct rt_kernel *k, enum rt_qpool_kind kind,
		      const struct rt_tensor *const *in, size_t n_in,
		      struct rt_tensor *out)
{
	struct rt_qpool_params p;
	int status = rt_qpool_params(k, kind, in, n_in, &p);

	if (status)
		return status;
	return rt_tensor_set_shape(k, out, in[0]->dtype, p.rank, p.out_dims);
}

static int pool_run(struct rt_kernel *k, enum rt_qpool_kind kind,
		    const struct rt_tensor *const *in, size_t n_in,
		    struct rt_tensor *out)
{
	struct rt_qpool_params p;
	uint8_t *scratch = NULL;
	size_t in_bytes = in[0]->byte_size;
	int status = rt_qpool_params(k, kind, in, n_in, &p), err;

	if (status)
		return status;
	p.args.input = in[0]->data;
	p.args.output = out->data;
	if (!p.channels_last) {
		scratch = malloc(in_bytes + out->byte_size + 1);
		if (!scratch)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		rt_q_to_nhwc(in[0]->data, scratch, p.args.batch,
			     p.args.channels, p.spatial_in, 1);
		p.args.input = scratch;
		p.args.output = scratch + in_bytes;
	}
	if (kind == RT_QPOOL_MAX)
		err = enpu_cpu_max_pool(k->cpu, &p.shape, &p.args);
	else if (kind == RT_QPOOL_AVERAGE)
		err = enpu_cpu_average_pool(k->cpu, &p.shape, &p.args);
	else
		err = enpu_cpu_global_average_pool(k->cpu, &p.args);
	if (!err && scratch)
		rt_q_to_nchw(p.args.output, out->data, p.args.batch,
			     p.args.channels, p.spatial_out, 1);
	free(scratch);
	return err ? rt_q_cpu_fail(k, err, "pooling") : 0;
}

#define POOL_OP(name, kind)						\
static int name##_infer(struct rt_kernel *k,				\
			const struct rt_tensor *const *in, size_t n_in,	\
			struct rt_tensor *const *out, size_t n_out)	\
{									\
	(void)n_out;							\
	return pool_infer(k, kind, in, n_in, out[0]);			\
}									\
static int name##_run(struct rt_kernel *k,				\
		      const struct rt_tensor *const *in, size_t n_in,	\
		      struct rt_tensor *const *out, size_t n_out)	\
{									\
	(void)n_out;							\
	return pool_run(k, kind, in, n_in, out[0]);			\
}

POOL_OP(max, RT_QPOOL_MAX)
POOL_OP(average, RT_QPOOL_AVERAGE)
POOL_OP(global, RT_QPOOL_GLOBAL)

const struct rt_op_def rt_ops_qpool[] = {
	{ "QMaxPool", RT_ENPU_DOMAIN, 1, 1, 1, 1, 1, 1, 0, max_infer, NULL,
	  max_run, NULL },
	{ "QAveragePool", RT_ENPU_DOMAIN, 1, 1, 4, 5, 1, 1, 0, average_infer,
	  NULL, average_run, NULL },
	{ "QGlobalAveragePool", RT_ENPU_DOMAIN, 1, 1, 4, 5, 1, 1, 0,
	  global_infer, NULL, global_run, NULL },
	{ "QLinearAveragePool", "com.microsoft", 1, 1, 4, 5, 1, 1, 0,
	  average_infer, NULL, average_run, NULL },
	{ "QLinearGlobalAveragePool", "com.microsoft", 1, 1, 4, 5, 1, 1, 0,
	  global_infer, NULL, global_run, NULL },
	{ 0 },
};
