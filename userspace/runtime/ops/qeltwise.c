// SPDX-License-Identifier: MIT
/*
 * Integer elementwise ops on enpu_cpu_add() / enpu_cpu_mul():
 *   ai.enpu QAdd, QMul (opset 1) = com.microsoft QLinearAdd, QLinearMul:
 *   (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
 *    C_zero_point) with numpy broadcasting; A, B and C share one 8-bit
 *   type. The quantized lowering sets k->activation for a Relu/Clip that
 *   followed the float op (narrowing the clamp); the ops never take part
 *   in the generic activation fusion, whose Relu would act on raw integers.
 * Elementwise ops do not care about layout: the layout pass feeds them
 * NHWC tensors when every input is NHWC (same rank, so broadcasting is
 * unchanged by the permutation).
 */
#include <string.h>

#include "frows.h"
#include "qnhwc.h"
#include "rt_qparams.h"

static const struct rt_tensor *opt(const struct rt_tensor *const *in,
				   size_t n_in, size_t i)
{
	return i < n_in ? in[i] : NULL;
}

static int eltwise_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct rt_tensor *const *out,
			 size_t n_out)
{
	const struct rt_tensor *ab[2] = { in[0], in[3] };
	int status;

	(void)n_in;
	(void)n_out;
	if (!rt_q_is_8bit(in[0]->dtype) || in[3]->dtype != in[0]->dtype)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "A (%s) and B (%s) must share one 8-bit type",
				   rt_dtype_name(in[0]->dtype),
				   rt_dtype_name(in[3]->dtype));
	status = rt_broadcast_shape(k, ab, 2, out[0]);
	if (status)
		return status;
	if (out[0]->rank > ENPU_CPU_MAX_DIMS)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "rank %d exceeds %d", out[0]->rank,
				   ENPU_CPU_MAX_DIMS);
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, out[0]->rank,
				   out[0]->dims);
}

int rt_qeltwise_params(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, int mul,
		       struct enpu_cpu_eltwise_params *params)
{
	struct enpu_cpu_eltwise_quant q = { .type = rt_q_cpu_type(in[0]->dtype) };
	int status, err;

	status = rt_q_scale(k, in[1], "A_scale", &q.a_scale);
	if (!status)
		status = rt_q_zero_point(k, opt(in, n_in, 2), "A_zero_point",
					 in[0]->dtype, &q.a_zero_point);
	if (!status)
		status = rt_q_scale(k, in[4], "B_scale", &q.b_scale);
	if (!status)
		status = rt_q_zero_point(k, opt(in, n_in, 5), "B_zero_point",
					 in[0]->dtype, &q.b_zero_point);
	if (!status)
		status = rt_q_scale(k, in[6], "C_scale", &q.output_scale);
	if (!status)
		status = rt_q_zero_point(k, opt(in, n_in, 7), "C_zero_point",
					 in[0]->dtype, &q.output_zero_point);
	if (status)
		return status;
	rt_q_range(in[0]->dtype, &q.min, &q.max);
	rt_q_activation_clamp(k, q.output_scale, q.output_zero_point,
			      &q.min, &q.max);
	err = mul ? enpu_cpu_mul_params(k->cpu, &q, params) :
		    enpu_cpu_add_params(k->cpu, &q, params);
	return err ? rt_q_cpu_fail(k, err, "quantization parameters") : 0;
}

static int eltwise_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, int mul)
{
	const struct rt_tensor *y = out[0];
	struct enpu_cpu_eltwise_params params;
	struct enpu_cpu_eltwise_args args;
	size_t in_shape[2][ENPU_CPU_MAX_DIMS];
	size_t *strides[2];
	int status, err;

	status = rt_qeltwise_params(k, in, n_in, mul, &params);
	if (status)
		return status;
	memset(&args, 0, sizeof(args));
	args.dims = y->rank ? (size_t)y->rank : 1;
	args.shape[0] = 1;
	for (int d = 0; d < y->rank; d++)
		args.shape[d] = (size_t)y->dims[d];
	args.a = in[0]->data;
	args.b = in[3]->data;
	args.output = y->data;
	args.params = &params;
	strides[0] = args.a_strides;
	strides[1] = args.b_strides;
	for (int i = 0; i < 2; i++) {
		const struct rt_tensor *x = in[i * 3];

		for (int d = 0; d < x->rank; d++)
			in_shape[i][d] = (size_t)x->dims[d];
		err = enpu_cpu_broadcast_strides(k->cpu, args.dims, args.shape,
						 (size_t)x->rank, in_shape[i],
						 strides[i]);
		if (err)
			return rt_q_cpu_fail(k, err, "broadcasting");
	}
	err = mul ? enpu_cpu_mul(k->cpu, &args) : enpu_cpu_add(k->cpu, &args);
	return err ? rt_q_cpu_fail(k, err, mul ? "mul" : "add") : 0;
}

static int add_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)n_out;
	return eltwise_run(k, in, n_in, out, 0);
}

static int mul_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)n_out;
	return eltwise_run(k, in, n_in, out, 1);
}

/*
 * ai.enpu Quantize8(x float, scale, zero_point): QuantizeLinear with a
 * per-tensor constant scale and an 8-bit zero point, exactly ONNX's
 * rint(x / scale) + zero_point (float division, ties to even,
 * saturated; NaN gives 0 like the QuantizeLinear op), on the float
 * kernel table's quantize rows (the context's ISA) shared by its
 * threads. With channels_last = 1 it also transposes NCHW to NHWC, so
 * the graph input enters the integer region in one pass (frows.c:
 * tiles of 16 channels, transposed 16 x 16 bytes at a time).
 */
static int quantize_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t dims[RT_MAX_RANK];
	int channels_last, status = rt_q_channels_last(k, &channels_last);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (x->dtype != ENPU_RT_FLOAT || !rt_q_is_8bit(in[2]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "types %s -> %s are not float -> 8-bit",
				   rt_dtype_name(x->dtype),
				   rt_dtype_name(in[2]->dtype));
	memcpy(dims, x->dims, sizeof(dims));
	if (channels_last) {
		if (x->rank < 3)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "rank %d is below 3", x->rank);
		for (int d = 2; d < x->rank; d++)
			dims[d - 1] = x->dims[d];
		dims[x->rank - 1] = x->dims[1];
	}
	return rt_tensor_set_shape(k, out[0], in[2]->dtype, x->rank, dims);
}

static int quantize_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t count = rt_tensor_elements(x);
	int is_signed = out[0]->dtype == ENPU_RT_INT8;
	int32_t zero;
	double scale;
	int channels_last, status = rt_q_channels_last(k, &channels_last);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = rt_q_quantize_params(k, in, &scale, &zero);
	if (status)
		return status;
	/* The row kernels of the context's ISA, on its threads. */
	if (!channels_last) {
		rt_frows_quantize(k, count, x->data, (float)scale, zero,
				  is_signed, out[0]->data);
	} else {
		size_t images = (size_t)x->dims[0];
		size_t channels = (size_t)x->dims[1];
		size_t planes = images * channels;

		rt_frows_quantize_nhwc(k, images, channels,
				       planes ? count / planes : 0, x->data,
				       (float)scale, zero, is_signed,
				       out[0]->data);
	}
	return 0;
}

const struct rt_op_def rt_ops_qeltwise[] = {
	{ "Quantize8", RT_ENPU_DOMAIN, 1, 1, 3, 3, 1, 1, 0, quantize_infer,
	  NULL, quantize_run, NULL },
	{ "QAdd", RT_ENPU_DOMAIN, 1, 1, 7, 8, 1, 1, 0, eltwise_infer, NULL,
	  add_run, NULL },
	{ "QMul", RT_ENPU_DOMAIN, 1, 1, 7, 8, 1, 1, 0, eltwise_infer, NULL,
	  mul_run, NULL },
	{ "QLinearAdd", "com.microsoft", 1, 1, 7, 8, 1, 1, 0, eltwise_infer,
	  NULL, add_run, NULL },
	{ "QLinearMul", "com.microsoft", 1, 1, 7, 8, 1, 1, 0, eltwise_infer,
	  NULL, mul_run, NULL },
	{ 0 },
};
