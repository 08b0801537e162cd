// SPDX-License-Identifier: MIT
/*
 * ConvTranspose, float32, 1 to 3 spatial axes: for each image and group,
 * cols = W_g^T x X_g (a [C_out/g * kernel] x [input pixels] product on
 * the CPU runtime's GEMM, X read in place) and then col2im adds every
 * column into the output window it came from. The transposed weights are built once at prepare
 * when W is a constant. Where the kernel tiles the output (kernel ==
 * stride, no padding or dilation: every output element takes one tap)
 * the columns are instead interleaved into the output rows, bias and
 * activation on the way, on the context's pool: no zeroed output, no
 * adds, and one pass over it instead of four.
 *
 * Output size per axis: stride * (in - 1) + output_padding +
 * dilation * (kernel - 1) + 1 - pad_begin - pad_end, or output_shape
 * when given (or in * stride with auto_pad SAME_*), the total padding
 * then split as the ONNX reference does: SAME_UPPER begins with
 * floor(total / 2), the others end with it. Bias is added last.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conv_window.h"
#include "enpu_cpu_float.h"

#define AXES RT_SPATIAL_MAX

struct convt_shape {
	int axes;			/* spatial axes used, 1..3 */
	int64_t batch, in_channels, out_channels, group;
	int64_t in[AXES], out[AXES], kernel[AXES], stride[AXES];
	int64_t dilation[AXES], pad_begin[AXES];
	size_t kernel_volume, in_volume, out_volume;
};

static int ints_attr(struct rt_kernel *k, const char *name, int axes,
		     int64_t fallback, int64_t *values, int pairs)
{
	const int64_t *v;
	size_t count;
	int status = rt_attr_ints(k, name, &v, &count);

	if (status)
		return status;
	for (int i = 0; i < axes * pairs; i++)
		values[i] = fallback;
	if (!v)
		return 0;
	if (count != (size_t)(axes * pairs))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%s has %zu values for %d spatial axes",
				   name, count, axes);
	memcpy(values, v, count * sizeof(*v));
	return 0;
}

static int convt_shape_of(struct rt_kernel *k, const struct rt_tensor *x,
			  const struct rt_tensor *w, struct convt_shape *s)
{
	int64_t strides[AXES], dilations[AXES], pads[2 * AXES];
	int64_t out_pad[AXES], kernel[AXES], out_shape[AXES];
	const int64_t *given;
	size_t given_count;
	const char *auto_pad;
	int axes = x->rank - 2, status;

	memset(s, 0, sizeof(*s));
	if (x->dtype != ENPU_RT_FLOAT || w->dtype != ENPU_RT_FLOAT)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "types %s, %s are not supported (float only)",
				   rt_dtype_name(x->dtype),
				   rt_dtype_name(w->dtype));
	if (axes < 1 || axes > AXES || w->rank != x->rank)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input rank %d, weight rank %d: 1 to 3 "
				   "spatial axes", x->rank, w->rank);
	status = rt_attr_int(k, "group", 1, &s->group);
	if (!status)
		status = ints_attr(k, "strides", axes, 1, strides, 1);
	if (!status)
		status = ints_attr(k, "dilations", axes, 1, dilations, 1);
	if (!status)
		status = ints_attr(k, "pads", axes, 0, pads, 2);
	if (!status)
		status = ints_attr(k, "output_padding", axes, 0, out_pad, 1);
	if (!status)
		status = ints_attr(k, "kernel_shape", axes, 0, kernel, 1);
	if (!status)
		status = rt_attr_string(k, "auto_pad", "NOTSET", &auto_pad);
	if (!status)
		status = rt_attr_ints(k, "output_shape", &given, &given_count);
	if (status)
		return status;
	s->axes = axes;
	s->batch = x->dims[0];
	s->in_channels = x->dims[1];
	if (s->group < 1 || s->in_channels % s->group ||
	    w->dims[0] != s->in_channels)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "weight [%" PRId64 ", ...] and group %" PRId64
				   " do not match %" PRId64 " input channels",
				   w->dims[0], s->group, s->in_channels);
	s->out_channels = w->dims[1] * s->group;
	if (given && given_count != (size_t)axes &&
	    given_count != (size_t)x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "output_shape has %zu values", given_count);
	for (int i = 0; i < axes; i++)
		out_shape[i] = given ? given[given_count - (size_t)axes + (size_t)i] : 0;
	s->kernel_volume = s->in_volume = s->out_volume = 1;
	for (int j = 0; j < AXES; j++) {
		int i = j - (AXES - axes);	/* model axis, <0: padding axis */
		int64_t span, total;

		if (i < 0) {
			s->in[j] = s->out[j] = s->kernel[j] = 1;
			s->stride[j] = s->dilation[j] = 1;
			continue;
		}
		s->in[j] = x->dims[2 + i];
		s->kernel[j] = kernel[i] ? kernel[i] : w->dims[2 + i];
		if (s->kernel[j] != w->dims[2 + i] || strides[i] < 1 ||
		    dilations[i] < 1 || out_pad[i] < 0 ||
		    out_pad[i] >= (strides[i] > dilations[i] ? strides[i] :
				   dilations[i]))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "kernel, stride, dilation or "
					   "output_padding of axis %d is invalid",
					   i);
		s->stride[j] = strides[i];
		s->dilation[j] = dilations[i];
		span = dilations[i] * (s->kernel[j] - 1) + 1;
		total = strides[i] * (s->in[j] - 1) + out_pad[i] + span;
		if (given || strcmp(auto_pad, "NOTSET")) {
			int64_t want = given ? out_shape[i] : s->in[j] * strides[i];
			int64_t padding = total - want;

			/* Floor division: the padding may be negative. */
			int64_t half = padding >= 0 ? padding / 2 :
				       -((1 - padding) / 2);

			if (strcmp(auto_pad, "SAME_UPPER"))
				s->pad_begin[j] = padding - half;
			else
				s->pad_begin[j] = half;
			if (!strcmp(auto_pad, "VALID") && !given) {
				s->pad_begin[j] = 0;
				want = total;
			}
			s->out[j] = want;
		} else {
			s->pad_begin[j] = pads[i];
			s->out[j] = total - pads[i] - pads[axes + i];
		}
		if (s->out[j] < 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output axis %d would be %" PRId64, i,
					   s->out[j]);
		s->kernel_volume *= (size_t)s->kernel[j];
		s->in_volume *= (size_t)s->in[j];
		s->out_volume *= (size_t)s->out[j];
	}
	return 0;
}

static int convt_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct convt_shape s;
	int64_t dims[RT_MAX_RANK];
	int status = convt_shape_of(k, in[0], in[1], &s);

	(void)n_out;
	if (status)
		return status;
	if (n_in > 2 && in[2] && rt_tensor_elements(in[2]) !=
	    (size_t)s.out_channels)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "bias must have %" PRId64 " elements",
				   s.out_channels);
	dims[0] = s.batch;
	dims[1] = s.out_channels;
	for (int i = 0; i < s.axes; i++)
		dims[2 + i] = s.out[AXES - s.axes + i];
	return rt_tensor_set_shape(k, out[0], ENPU_RT_FLOAT, in[0]->rank, dims);
}

/* W [C_in][C_out/g][kv] -> per group Wt [C_out/g * kv][C_in/g]. */
static float *transpose_weights(const struct convt_shape *s, const float *w)
{
	size_t cin = (size_t)(s->in_channels / s->group);
	size_t cout = (size_t)(s->out_channels / s->group), kv = s->kernel_volume;
	float *t = malloc((size_t)s->in_channels * cout * kv * sizeof(*t) + 1);

	if (!t)
		return NULL;
	for (size_t g = 0; g < (size_t)s->group; g++)
	for (size_t ic = 0; ic < cin; ic++)
	for (size_t oc = 0; oc < cout; oc++)
	for (size_t q = 0; q < kv; q++)
		t[g * cout * kv * cin + (oc * kv + q) * cin + ic] =
			w[((g * cin + ic) * cout + oc) * kv + q];
	return t;
}

static int convt_prepare(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in)
{
	struct convt_shape s;

	(void)n_in;
	if (!in[1]->data || in[0]->rank < 0)
		return 0;
	if (convt_shape_of(k, in[0], in[1], &s))
		return 0;	/* infer reports it */
	k->state = transpose_weights(&s, in[1]->data);
	if (!k->state)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	return 0;
}

static void convt_release(struct rt_kernel *k)
{
	free(k->state);
	k->state = NULL;
}

/* Input indices [lo, hi) whose output i * stride + offset is in [0, out). */
static void valid_range(int64_t in, int64_t out, int64_t stride,
			int64_t offset, int64_t *lo, int64_t *hi)
{
	*lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
	*hi = out - offset <= 0 ? 0 : (out - offset + stride - 1) / stride;
	if (*hi > in)
		*hi = in;
	if (*lo > *hi)
		*lo = *hi;
}

/* Adds cols [C_out/g][kv][P_in] into y [C_out/g][out volume]. */
static void col2im(const struct convt_shape *s, size_t channels,
		   const float *cols, float *y)
{
	for (size_t c = 0; c < channels; c++)
	for (int64_t k0 = 0; k0 < s->kernel[0]; k0++)
	for (int64_t k1 = 0; k1 < s->kernel[1]; k1++)
	for (int64_t k2 = 0; k2 < s->kernel[2]; k2++) {
		size_t q = (size_t)((k0 * s->kernel[1] + k1) * s->kernel[2] + k2);
		const float *row = cols + (c * s->kernel_volume + q) * s->in_volume;
		float *plane = y + c * s->out_volume;
		int64_t off[3], lo[3], hi[3];

		off[0] = k0 * s->dilation[0] - s->pad_begin[0];
		off[1] = k1 * s->dilation[1] - s->pad_begin[1];
		off[2] = k2 * s->dilation[2] - s->pad_begin[2];
		for (int a = 0; a < 3; a++)
			valid_range(s->in[a], s->out[a], s->stride[a], off[a],
				    &lo[a], &hi[a]);
		for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
		for (int64_t i1 = lo[1]; i1 < hi[1]; i1++) {
			int64_t o0 = i0 * s->stride[0] + off[0];
			int64_t o1 = i1 * s->stride[1] + off[1];
			const float *src = row + (size_t)((i0 * s->in[1] + i1) *
							  s->in[2]);
			float *dst = plane + (size_t)((o0 * s->out[1] + o1) *
						      s->out[2]);
			int64_t st = s->stride[2];

			/* i2 >= lo: the output column i2 * st + off is >= 0. */
			for (int64_t i2 = lo[2]; i2 < hi[2]; i2++)
				dst[i2 * st + off[2]] += src[i2];
		}
	}
}

/*
 * Whether every output element takes exactly one tap: kernel == stride,
 * dilation 1, no padding and no output_padding on every axis (U-Net's
 * 2x2/2 upsampling). Then col2im needs no zeroed output and no adds.
 */
static int taps_tile_output(const struct convt_shape *s)
{
	for (int a = 0; a < AXES; a++)
		if (s->kernel[a] != s->stride[a] || s->dilation[a] != 1 ||
		    s->pad_begin[a] || s->out[a] != s->in[a] * s->stride[a])
			return 0;
	return 1;
}

struct tile_job {
	const struct convt_shape *s;
	const float *cols;		/* [channels][kv][P_in] */
	const float *bias;		/* NULL or [channels] */
	const struct rt_activation *activation;
	float *y;			/* [channels][out volume] */
};

/*
 * Task c * out[0] + o0: the output rows of channel c at outer index o0,
 * each written once from the s[2] kernel columns' rows (interleaved),
 * bias and the activation added on the way.
 */
static void tile_rows(void *argument, size_t task)
{
	const struct tile_job *j = argument;
	const struct convt_shape *s = j->s;
	size_t c = task / (size_t)s->out[0], o0 = task % (size_t)s->out[0];
	size_t in2 = (size_t)s->in[2], s2 = (size_t)s->stride[2];
	size_t k0 = o0 % (size_t)s->stride[0], i0 = o0 / (size_t)s->stride[0];
	float b = j->bias ? j->bias[c] : 0.0f;

	for (size_t o1 = 0; o1 < (size_t)s->out[1]; o1++) {
		size_t k1 = o1 % (size_t)s->stride[1];
		size_t i1 = o1 / (size_t)s->stride[1];
		size_t q = (k0 * (size_t)s->kernel[1] + k1) * s2;
		const float *src = j->cols + (c * s->kernel_volume + q) *
				   s->in_volume + (i0 * (size_t)s->in[1] + i1) *
				   in2;
		float *dst = j->y + c * s->out_volume +
			     (o0 * (size_t)s->out[1] + o1) * in2 * s2;

		if (s2 == 1) {
			for (size_t i = 0; i < in2; i++)
				dst[i] = src[i] + b;
		} else if (s2 == 2) {
			const float *src1 = src + s->in_volume;

			/* Constant stride: one interleaving store. */
			for (size_t i = 0; i < in2; i++) {
				dst[2 * i] = src[i] + b;
				dst[2 * i + 1] = src1[i] + b;
			}
		} else {
			for (size_t k2 = 0; k2 < s2; k2++)
				for (size_t i = 0; i < in2; i++)
					dst[i * s2 + k2] =
						src[k2 * s->in_volume + i] + b;
		}
		rt_activation_apply_f32(j->activation, dst, in2 * s2);
	}
}

static int convt_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	const float *bias = n_in > 2 && in[2] ? in[2]->data : NULL;
	struct convt_shape s;
	float *wt = k->state, *cols;
	float *y = out[0]->data;
	size_t cin, cout, rows;
	int tiles, status = convt_shape_of(k, x, in[1], &s);

	(void)n_out;
	if (status)
		return status;
	cin = (size_t)(s.in_channels / s.group);
	cout = (size_t)(s.out_channels / s.group);
	rows = cout * s.kernel_volume;
	if (!wt)
		wt = transpose_weights(&s, in[1]->data);
	cols = malloc(rows * s.in_volume * sizeof(*cols) + 1);
	if (!wt || !cols) {
		if (wt != k->state)
			free(wt);
		free(cols);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	tiles = taps_tile_output(&s);
	if (!tiles)
		memset(y, 0, out[0]->byte_size);
	for (int64_t n = 0; n < s.batch; n++)
	for (int64_t g = 0; g < s.group; g++) {
		const float *xg = (const float *)x->data +
				  ((size_t)n * (size_t)s.in_channels +
				   (size_t)g * cin) * s.in_volume;
		float *yg = y + ((size_t)n * (size_t)s.out_channels +
				 (size_t)g * cout) * s.out_volume;

		struct enpu_cpu_sgemm_args a = {
			.m = rows, .n = s.in_volume, .k = cin,
			.a = wt + (size_t)g * rows * cin, .lda = cin,
			.b = xg, .ldb = s.in_volume, .c = cols,
			.ldc = s.in_volume,
		};

		if (enpu_cpu_sgemm(k->cpu, &a)) {
			if (wt != k->state)
				free(wt);
			free(cols);
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "%s",
					   enpu_cpu_context_error(k->cpu));
		}
		if (tiles) {
			struct tile_job job = {
				&s, cols, bias ? bias + (size_t)g * cout : NULL,
				&k->activation, yg,
			};

			enpu_cpu_parallel_for(k->cpu, cout * (size_t)s.out[0],
					      tile_rows, &job);
			continue;
		}
		col2im(&s, cout, cols, yg);
	}
	if (tiles) {
		free(cols);
		if (wt != k->state)
			free(wt);
		return 0;
	}
	if (bias)
		for (int64_t n = 0; n < s.batch; n++)
		for (int64_t c = 0; c < s.out_channels; c++) {
			float *plane = y + ((size_t)n * (size_t)s.out_channels +
					    (size_t)c) * s.out_volume;

			for (size_t i = 0; i < s.out_volume; i++)
				plane[i] += bias[c];
		}
	if (wt != k->state)
		free(wt);
	free(cols);
	rt_activation_apply_f32(&k->activation, y,
				out[0]->byte_size / sizeof(float));
	return 0;
}

const struct rt_op_def rt_ops_conv_transpose[] = {
	{ "ConvTranspose", "", 1, 21, 2, 3, 1, 1, RT_OP_FUSES_ACTIVATION,
	  convt_infer, convt_prepare, convt_run, convt_release },
	{ 0 },
};
