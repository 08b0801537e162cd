// SPDX-License-Identifier: MIT
/*
 * Data movement of the integer region (ai.enpu, opset 1):
 *   NchwToNhwc(x)  [N, C, S...] -> [N, S..., C]
 *   NhwcToNchw(x)  [N, S..., C] -> [N, C, S...]
 *   QConcat(x...)  Concat of tensors sharing one type and quantization
 *                  (the lowering checks the scales agree), attribute
 *                  `axis` in ONNX (NCHW) numbering; with channels_last = 1
 *                  the inputs are NHWC and the axis is mapped onto them.
 *   com.microsoft QLinearConcat(Y_scale, Y_zero_point, X1, X1_scale,
 *                  X1_zero_point, ...): the concatenation of 8-bit tensors
 *                  of one type, each requantized to Y's per-tensor
 *                  quantization; what the lowering makes of a QDQ Concat
 *                  whose inputs are quantized differently. Each input
 *                  that differs goes through a 256-byte table filled by
 *                  the float kernel table's DequantizeLinear and
 *                  QuantizeLinear rows (the float path's arithmetic, so
 *                  the same bytes), an input quantized like Y is copied.
 *                  channels_last as QConcat.
 * The transposes are what graph/layout.c puts at the boundaries between
 * NHWC integer ops and everything else; any element size works, so they
 * also serve float tensors.
 */
#include <string.h>

#include "enpu_cpu_float.h"
#include "qnhwc.h"

static int layout_infer(struct rt_kernel *k, const struct rt_tensor *x,
			struct rt_tensor *y, int to_nhwc)
{
	int64_t dims[RT_MAX_RANK];
	int r = x->rank;

	if (r < 3)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is below 3 (N, C, spatial)",
				   r);
	dims[0] = x->dims[0];
	if (to_nhwc) {
		for (int d = 2; d < r; d++)
			dims[d - 1] = x->dims[d];
		dims[r - 1] = x->dims[1];
	} else {
		dims[1] = x->dims[r - 1];
		for (int d = 1; d < r - 1; d++)
			dims[d + 1] = x->dims[d];
	}
	if (!rt_dtype_size(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	return rt_tensor_set_shape(k, y, x->dtype, r, dims);
}

static int to_nhwc_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct rt_tensor *const *out,
			 size_t n_out)
{
	(void)n_in;
	(void)n_out;
	return layout_infer(k, in[0], out[0], 1);
}

static int to_nchw_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct rt_tensor *const *out,
			 size_t n_out)
{
	(void)n_in;
	(void)n_out;
	return layout_infer(k, in[0], out[0], 0);
}

static size_t spatial_size(const struct rt_tensor *t, int first, int last)
{
	size_t s = 1;

	for (int d = first; d < last; d++)
		s *= (size_t)t->dims[d];
	return s;
}

static int to_nhwc_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];

	(void)k;
	(void)n_in;
	(void)n_out;
	rt_q_to_nhwc(x->data, out[0]->data, (size_t)x->dims[0],
		     (size_t)x->dims[1], spatial_size(x, 2, x->rank),
		     rt_dtype_size(x->dtype));
	return 0;
}

static int to_nchw_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];

	(void)k;
	(void)n_in;
	(void)n_out;
	rt_q_to_nchw(x->data, out[0]->data, (size_t)x->dims[0],
		     (size_t)x->dims[x->rank - 1],
		     spatial_size(x, 1, x->rank - 1),
		     rt_dtype_size(x->dtype));
	return 0;
}

/* The concatenation axis in the stored layout. */
static int concat_axis(struct rt_kernel *k, const struct rt_tensor *x,
		       int *axis)
{
	int64_t a;
	int channels_last, status = rt_attr_int(k, "axis", 0, &a);

	if (!status)
		status = rt_q_channels_last(k, &channels_last);
	if (status)
		return status;
	if (a < 0)
		a += x->rank;
	if (a < 0 || a >= x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis is outside the input's rank %d",
				   x->rank);
	if (channels_last && x->rank >= 3 && a >= 1)
		a = a == 1 ? x->rank - 1 : a - 1;
	*axis = (int)a;
	return 0;
}

/*
 * The output shape of concatenating @x[0..n) along @axis (stored
 * layout); every input of type @dtype.
 */
static int concat_shape(struct rt_kernel *k, const struct rt_tensor *const *x,
			size_t n, int axis, int32_t dtype,
			struct rt_tensor *out)
{
	int64_t dims[RT_MAX_RANK];

	memcpy(dims, x[0]->dims, sizeof(dims));
	for (size_t i = 0; i < n; i++) {
		if (!x[i] || x[i]->dtype != dtype || x[i]->rank != x[0]->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu differs from input 0 in "
					   "type or rank", i);
		for (int d = 0; d < x[i]->rank; d++)
			if (i && d != axis && x[i]->dims[d] != dims[d])
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "input %zu differs from "
						   "input 0 on axis %d", i, d);
		if (i)
			dims[axis] += x[i]->dims[axis];
	}
	return rt_tensor_set_shape(k, out, dtype, x[0]->rank, dims);
}

static int concat_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int axis, status = concat_axis(k, in[0], &axis);

	(void)n_out;
	return status ? status : concat_shape(k, in, n_in, axis, in[0]->dtype,
					      out[0]);
}

/* Input @i's rows: @outer of them, each @row bytes, at out_row apart. */
static void concat_copy(const struct rt_tensor *x, int axis, size_t offset,
			size_t outer, size_t out_row, uint8_t *y)
{
	size_t row = spatial_size(x, axis, x->rank) * rt_dtype_size(x->dtype);
	const uint8_t *src = x->data;

	for (size_t o = 0; o < outer; o++)
		memcpy(y + offset + o * out_row, src + o * row, row);
}

static int concat_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t outer, out_row, offset = 0, size = rt_dtype_size(in[0]->dtype);
	int axis, status = concat_axis(k, in[0], &axis);

	(void)n_out;
	if (status)
		return status;
	outer = spatial_size(in[0], 0, axis);
	out_row = spatial_size(out[0], axis, out[0]->rank) * size;
	for (size_t i = 0; i < n_in; i++) {
		concat_copy(in[i], axis, offset, outer, out_row, out[0]->data);
		offset += spatial_size(in[i], axis, in[i]->rank) * size;
	}
	return 0;
}

/* QLinearConcat: Y's parameters first, then (X, X_scale, X_zero) each. */
#define QLC_FIRST RT_QCONCAT_LINEAR_FIRST
#define QLC_STRIDE RT_QCONCAT_LINEAR_STRIDE
#define QLC_MAX_INPUTS RT_QCONCAT_LINEAR_MAX

static int qlinear_concat_inputs(struct rt_kernel *k, size_t n_in,
				 const struct rt_tensor *const *in,
				 const struct rt_tensor **x, size_t *n)
{
	if (n_in < QLC_FIRST + QLC_STRIDE ||
	    (n_in - QLC_FIRST) % QLC_STRIDE)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%zu inputs are not Y_scale, Y_zero_point "
				   "and (X, X_scale, X_zero_point) triples",
				   n_in);
	*n = (n_in - QLC_FIRST) / QLC_STRIDE;
	for (size_t i = 0; i < *n; i++) {
		x[i] = in[QLC_FIRST + QLC_STRIDE * i];
		if (!x[i] || !in[QLC_FIRST + QLC_STRIDE * i + 1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu or its scale is absent",
					   i);
	}
	return 0;
}

static int qlinear_concat_infer(struct rt_kernel *k,
				const struct rt_tensor *const *in,
				size_t n_in, struct rt_tensor *const *out,
				size_t n_out)
{
	const struct rt_tensor *x[QLC_MAX_INPUTS];
	size_t n;
	int axis, status = qlinear_concat_inputs(k, n_in, in, x, &n);

	(void)n_out;
	if (status)
		return status;
	if (!in[RT_QCONCAT_LINEAR_Y_ZERO] ||
	    !rt_q_is_8bit(in[RT_QCONCAT_LINEAR_Y_ZERO]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "Y_zero_point must be uint8 or int8");
	status = concat_axis(k, x[0], &axis);
	return status ? status :
	       concat_shape(k, x, n, axis,
			    in[RT_QCONCAT_LINEAR_Y_ZERO]->dtype, out[0]);
}

static int qlinear_concat_run(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	const struct enpu_fmath_kernels *f = enpu_cpu_fmath(k->cpu);
	const struct rt_tensor *x[QLC_MAX_INPUTS];
	int32_t dtype = out[0]->dtype, y_zero;
	int is_signed = dtype == ENPU_RT_INT8;
	size_t n, outer, out_row, offset = 0;
	double y_scale;
	int axis, status = qlinear_concat_inputs(k, n_in, in, x, &n);

	(void)n_out;
	if (!status)
		status = concat_axis(k, x[0], &axis);
	if (!status)
		status = rt_q_scale(k, in[RT_QCONCAT_LINEAR_Y_SCALE], "Y_scale",
				    &y_scale);
	if (!status)
		status = rt_q_zero_point(k, in[RT_QCONCAT_LINEAR_Y_ZERO],
					 "Y_zero_point", dtype,
					 &y_zero);
	if (status)
		return status;
	outer = spatial_size(x[0], 0, axis);
	out_row = spatial_size(out[0], axis, out[0]->rank);
	for (size_t i = 0; i < n; i++) {
		const struct rt_tensor *const *t = in + QLC_FIRST + QLC_STRIDE * i;
		size_t row = spatial_size(x[i], axis, x[i]->rank);
		uint8_t bytes[256], table[256];
		float values[256];
		double scale;
		int32_t zero;
		struct enpu_cpu_lookup_args args;
		int err;

		status = rt_q_scale(k, t[1], "X_scale", &scale);
		if (!status)
			status = rt_q_zero_point(k, t[2], "X_zero_point", dtype,
						 &zero);
		if (status)
			return status;
		if ((float)scale == (float)y_scale && zero == y_zero) {
			/* DQ then Q with the same parameters is the identity. */
			concat_copy(x[i], axis, offset, outer, out_row,
				    out[0]->data);
			offset += row;
			continue;
		}
		for (int v = 0; v < 256; v++)
			bytes[v] = (uint8_t)v;
		f->dequantize(256, bytes, (float)scale, zero, is_signed, values);
		f->quantize(256, values, (float)y_scale, y_zero, is_signed,
			    table);
		args = (struct enpu_cpu_lookup_args){
			.table = table, .input = x[i]->data, .input_stride = row,
			.output = (uint8_t *)out[0]->data + offset,
			.output_stride = out_row, .rows = outer,
			.row_bytes = row,
		};
		err = enpu_cpu_lookup(k->cpu, &args);
		if (err)
			return rt_q_cpu_fail(k, err, "requantization");
		offset += row;
	}
	return 0;
}

const struct rt_op_def rt_ops_layout[] = {
	{ "NchwToNhwc", RT_ENPU_DOMAIN, 1, 1, 1, 1, 1, 1, 0, to_nhwc_infer,
	  NULL, to_nhwc_run, NULL },
	{ "NhwcToNchw", RT_ENPU_DOMAIN, 1, 1, 1, 1, 1, 1, 0, to_nchw_infer,
	  NULL, to_nchw_run, NULL },
	{ "QConcat", RT_ENPU_DOMAIN, 1, 1, 1, 4096, 1, 1, 0, concat_infer,
	  NULL, concat_run, NULL },
	{ RT_QCONCAT_LINEAR_OP, RT_QCONCAT_LINEAR_DOMAIN, 1, 1, QLC_FIRST + QLC_STRIDE,
	  QLC_FIRST + QLC_STRIDE * QLC_MAX_INPUTS, 1, 1, 0,
	  qlinear_concat_infer, NULL, qlinear_concat_run, NULL },
	{ 0 },
};
