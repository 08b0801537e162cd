// SPDX-License-Identifier: MIT
/*
 * Data movement of the integer region (ai.enpu, opset 1):
 *   NchwToNhwc(x)  [N, C, S...] -> [N, S..., C]
 *   NhwcToNchw(x)  [N, S..., C] -> [N, C, S...]
 *   QConcat(x...)  Concat of tensors sharing one type and quantization
 *                  (the lowering checks the scales agree), attribute
 *                  `axis` in ONNX (NCHW) numbering; with channels_last = 1
 *                  the inputs are NHWC and the axis is mapped onto them.
 * The transposes are what graph/layout.c puts at the boundaries between
 * NHWC integer ops and everything else; any element size works, so they
 * also serve float tensors.
 */
#include <string.h>

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

static int concat_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int64_t dims[RT_MAX_RANK];
	int axis, status = concat_axis(k, in[0], &axis);

	(void)n_out;
	if (status)
		return status;
	memcpy(dims, in[0]->dims, sizeof(dims));
	for (size_t i = 1; i < n_in; i++) {
		const struct rt_tensor *x = in[i];

		if (!x || x->dtype != in[0]->dtype || x->rank != in[0]->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu differs from input 0 in "
					   "type or rank", i);
		for (int d = 0; d < x->rank; d++)
			if (d != axis && x->dims[d] != dims[d])
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "input %zu differs from "
						   "input 0 on axis %d", i, d);
		dims[axis] += x->dims[axis];
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
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
		size_t row = spatial_size(in[i], axis, in[i]->rank) * size;
		const uint8_t *src = in[i]->data;
		uint8_t *dst = (uint8_t *)out[0]->data + offset;

		for (size_t o = 0; o < outer; o++)
			memcpy(dst + o * out_row, src + o * row, row);
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
	{ 0 },
};
