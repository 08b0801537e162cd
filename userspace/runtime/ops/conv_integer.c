// SPDX-License-Identifier: MIT
/*
 * ConvInteger and QLinearConv: 8-bit convolutions with zero points,
 * following ONNX's reference semantics exactly:
 *   acc[m][p] = sum (x - x_zero_point) * (w - w_zero_point[m])   (int32)
 *   ConvInteger:  y = acc
 *   QLinearConv:  y = saturate(round_half_even((acc + B[m]) *
 *                     (x_scale * w_scale[m] / y_scale)) + y_zero_point)
 * The scale product is formed in float and applied in double, as ONNX's
 * reference does, so outputs match it bit for bit. This is the portable
 * path for any weight type and zero point; the graph's quantized lowering
 * is what moves symmetric int8 models onto the packed NHWC kernels of
 * userspace/runtime/cpu, whose fixed-point rounding (docs/quantization.md)
 * may differ from this by one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv_window.h"

static int is_8bit(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 || dtype == ENPU_RT_INT8;
}

static int32_t load_8bit(const struct rt_tensor *t, size_t i)
{
	if (t->dtype == ENPU_RT_UINT8)
		return ((const uint8_t *)t->data)[i];
	return ((const int8_t *)t->data)[i];
}

/*
 * A zero point or scale is per tensor (one element) or, where allowed, per
 * output channel (1-D of @channels).
 */
static int check_param(struct rt_kernel *k, const struct rt_tensor *t,
		       int index, int32_t dtype, int64_t channels)
{
	size_t n;
	int status = rt_expect_dtype(k, t, index, dtype);

	if (status)
		return status;
	n = rt_tensor_elements(t);
	if (t->rank > 1 || (n != 1 && (channels < 0 || (int64_t)n != channels)))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input %d ('%s') must be a scalar%s", index,
				   t->name ? t->name : "",
				   channels < 0 ? "" :
				   " or hold one value per output channel");
	return 0;
}

static int param_count(const struct rt_tensor *t)
{
	return t ? (int)rt_tensor_elements(t) : 0;
}

/*
 * Shared shape checks. @qlinear selects the QLinearConv input layout
 * (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B).
 */
static int integer_conv_infer(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, int qlinear)
{
	const struct rt_tensor *x = in[0], *w = in[qlinear ? 3 : 1];
	struct rt_conv_shape shape;
	int64_t dims[RT_MAX_RANK];
	int32_t out_type = ENPU_RT_INT32;
	int status;

	if (!is_8bit(x->dtype) || !is_8bit(w->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input types %s and %s are not 8-bit "
				   "integers", rt_dtype_name(x->dtype),
				   rt_dtype_name(w->dtype));
	status = rt_conv_shape_init(k, x, w, &shape);
	if (status)
		return status;
	if (qlinear) {
		const struct rt_tensor *b = n_in > 8 ? in[8] : NULL;

		if (!in[1] || !in[4] || !in[6])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "x_scale, w_scale and y_scale are "
					   "required");
		status = check_param(k, in[1], 1, ENPU_RT_FLOAT, -1);
		if (!status && in[2])
			status = check_param(k, in[2], 2, x->dtype, -1);
		if (!status)
			status = check_param(k, in[4], 4, ENPU_RT_FLOAT,
					     shape.out_channels);
		if (!status && in[5])
			status = check_param(k, in[5], 5, w->dtype,
					     shape.out_channels);
		if (!status)
			status = check_param(k, in[6], 6, ENPU_RT_FLOAT, -1);
		if (!status && in[7]) {
			status = check_param(k, in[7], 7, in[7]->dtype, -1);
			if (!status && !is_8bit(in[7]->dtype))
				status = rt_op_error(k, ENPU_RT_UNSUPPORTED,
						     "output type %s is not "
						     "an 8-bit integer",
						     rt_dtype_name(in[7]->dtype));
		}
		if (status)
			return status;
		out_type = in[7] ? in[7]->dtype : ENPU_RT_UINT8;
		if (b) {
			status = rt_expect_dtype(k, b, 8, ENPU_RT_INT32);
			if (status)
				return status;
			if (b->rank != 1 || b->dims[0] != shape.out_channels)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "bias must have %lld elements",
						   (long long)shape.out_channels);
		}
	} else {
		if (n_in > 2 && in[2]) {
			status = check_param(k, in[2], 2, x->dtype, -1);
			if (status)
				return status;
		}
		if (n_in > 3 && in[3]) {
			status = check_param(k, in[3], 3, w->dtype,
					     shape.out_channels);
			if (status)
				return status;
		}
	}
	return rt_tensor_set_shape(k, out[0], out_type,
				   rt_spatial_output_dims(&shape.geometry,
							  shape.out_channels,
							  dims), dims);
}

static int conv_integer_infer(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	(void)n_out;
	return integer_conv_infer(k, in, n_in, out, 0);
}

static int qlinear_conv_infer(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	(void)n_out;
	return integer_conv_infer(k, in, n_in, out, 1);
}

static void igemm(size_t rows, size_t depth, size_t p, const int32_t *w,
		  const int32_t *col, int32_t *y)
{
	for (size_t r = 0; r < rows; r++) {
		int32_t *restrict yr = y + r * p;

		memset(yr, 0, p * sizeof(*yr));
		for (size_t d = 0; d < depth; d++) {
			const int32_t *restrict src = col + d * p;
			int32_t a = w[r * depth + d];

			if (!a)
				continue;
			for (size_t j = 0; j < p; j++)
				yr[j] += a * src[j];
		}
	}
}

/*
 * Computes the int32 accumulators of every image into @acc
 * (N, M, positions). Zero points absent count as 0.
 */
static int accumulate(struct rt_kernel *k, const struct rt_conv_shape *shape,
		      const struct rt_tensor *x, const struct rt_tensor *x_zp,
		      const struct rt_tensor *w, const struct rt_tensor *w_zp,
		      int32_t *acc)
{
	size_t m = (size_t)shape->group_out_channels;
	size_t kd = (size_t)shape->patch, p = (size_t)shape->positions;
	size_t plane = (size_t)rt_spatial_in_size(&shape->geometry);
	size_t in_group = (size_t)shape->group_in_channels * plane;
	size_t weight_count = (size_t)shape->out_channels * kd;
	int32_t x_zero = x_zp ? load_8bit(x_zp, 0) : 0;
	int per_channel = param_count(w_zp) > 1;
	int32_t *weights, *shifted, *col;

	weights = malloc(weight_count * sizeof(*weights));
	shifted = malloc((in_group ? in_group : 1) * sizeof(*shifted));
	col = malloc((kd * p > 0 ? kd * p : 1) * sizeof(*col));
	if (!weights || !shifted || !col) {
		free(weights);
		free(shifted);
		free(col);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for a %zux%zu unfolded input",
				   kd, p);
	}
	for (size_t i = 0; i < weight_count; i++) {
		size_t channel = i / kd;
		int32_t zero = w_zp ? load_8bit(w_zp, per_channel ? channel : 0)
				    : 0;

		weights[i] = load_8bit(w, i) - zero;
	}
	for (int64_t n = 0; n < shape->geometry.batch; n++) {
		for (int64_t g = 0; g < shape->group; g++) {
			size_t base = ((size_t)n * (size_t)shape->group +
				       (size_t)g) * in_group;

			for (size_t i = 0; i < in_group; i++)
				shifted[i] = load_8bit(x, base + i) - x_zero;
			rt_conv_im2col(shape, shifted, col);
			igemm(m, kd, p, weights + (size_t)g * m * kd, col,
			      acc + ((size_t)n * (size_t)shape->out_channels +
				     (size_t)g * m) * p);
		}
	}
	free(weights);
	free(shifted);
	free(col);
	return 0;
}

static int conv_integer_run(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct rt_conv_shape shape;
	int status;

	(void)n_out;
	status = rt_conv_shape_init(k, in[0], in[1], &shape);
	if (status)
		return status;
	return accumulate(k, &shape, in[0], n_in > 2 ? in[2] : NULL, in[1],
			  n_in > 3 ? in[3] : NULL, out[0]->data);
}

static int qlinear_conv_run(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *b = n_in > 8 ? in[8] : NULL, *y_zp = in[7];
	struct rt_conv_shape shape;
	float x_scale = *(const float *)in[1]->data;
	float y_scale = *(const float *)in[6]->data;
	int32_t zero = y_zp ? load_8bit(y_zp, 0) : 0;
	int32_t lo = out[0]->dtype == ENPU_RT_UINT8 ? 0 : -128;
	int32_t hi = out[0]->dtype == ENPU_RT_UINT8 ? 255 : 127;
	int per_channel = param_count(in[4]) > 1;
	size_t p, channels;
	int32_t *acc;
	int status;

	(void)n_out;
	status = rt_conv_shape_init(k, in[0], in[3], &shape);
	if (status)
		return status;
	p = (size_t)shape.positions;
	channels = (size_t)shape.out_channels;
	acc = malloc((out[0]->byte_size ? out[0]->byte_size : 1) *
		     sizeof(*acc));
	if (!acc)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for %zu accumulators",
				   out[0]->byte_size);
	status = accumulate(k, &shape, in[0], in[2], in[3], in[5], acc);
	if (status) {
		free(acc);
		return status;
	}
	/* One byte per element: byte_size is the element count. */
	for (size_t i = 0; i < out[0]->byte_size; i++) {
		size_t channel = (i / p) % channels;
		float w_scale = ((const float *)in[4]->data)[per_channel ?
							      channel : 0];
		float multiplier = x_scale * w_scale / y_scale;
		int32_t sum = acc[i];
		double value;

		if (b)
			sum += ((const int32_t *)b->data)[channel];
		value = nearbyint((double)sum * (double)multiplier) + zero;
		/* NaN (0 x an infinite multiplier, or NaN scales) converts
		 * to no integer: give the zero point, as for 0. */
		if (isnan(value))
			value = zero;
		if (value < lo)
			value = lo;
		if (value > hi)
			value = hi;
		if (out[0]->dtype == ENPU_RT_UINT8)
			((uint8_t *)out[0]->data)[i] = (uint8_t)value;
		else
			((int8_t *)out[0]->data)[i] = (int8_t)value;
	}
	free(acc);
	return 0;
}

const struct rt_op_def rt_ops_conv_integer[] = {
	{
		.op_type = "ConvInteger", .domain = "",
		.opset_min = 10, .opset_max = 21,
		.min_inputs = 2, .max_inputs = 4,
		.min_outputs = 1, .max_outputs = 1,
		.infer = conv_integer_infer, .run = conv_integer_run,
	},
	{
		.op_type = "QLinearConv", .domain = "",
		.opset_min = 10, .opset_max = 21,
		.min_inputs = 8, .max_inputs = 9,
		.min_outputs = 1, .max_outputs = 1,
		.infer = qlinear_conv_infer, .run = qlinear_conv_run,
	},
	{ 0 },
};
