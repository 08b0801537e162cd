// SPDX-License-Identifier: MIT
/*
 * Pooling on NCHW-style tensors with 1 to 3 spatial axes: MaxPool (with the
 * optional Indices output), AveragePool, GlobalAveragePool and
 * GlobalMaxPool. Float and double everywhere; MaxPool also takes int8 and
 * uint8 (opset 12). Padding never wins a max; AveragePool counts it only
 * with count_include_pad, and never beyond the padded input.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "spatial.h"

static int pool_kernel(struct rt_kernel *k, const struct rt_tensor *x,
		       int64_t *kernel)
{
	const int64_t *values;
	size_t count;
	int status = rt_attr_ints(k, "kernel_shape", &values, &count);

	if (status)
		return status;
	if (!values)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "attribute kernel_shape is required");
	if (x->rank < 3 || count != (size_t)(x->rank - 2))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "kernel_shape has %zu values for an input "
				   "of rank %d", count, x->rank);
	memcpy(kernel, values, count * sizeof(*kernel));
	return 0;
}

static int pool_geometry(struct rt_kernel *k, const struct rt_tensor *x,
			 struct rt_spatial *s)
{
	int64_t kernel[RT_MAX_RANK];
	int status = pool_kernel(k, x, kernel);

	if (status)
		return status;
	/* dilations arrived in MaxPool-10 and AveragePool-19. */
	return rt_spatial_init(k, x, kernel, 1, s);
}

static int pool_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out,
		      int allow_8bit)
{
	const struct rt_tensor *x = in[0];
	struct rt_spatial s;
	int64_t dims[RT_MAX_RANK];
	int32_t rank;
	int status;

	(void)n_in;
	if (x->dtype != ENPU_RT_FLOAT && x->dtype != ENPU_RT_DOUBLE &&
	    !(allow_8bit && (x->dtype == ENPU_RT_UINT8 ||
			     x->dtype == ENPU_RT_INT8)))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	status = pool_geometry(k, x, &s);
	if (status)
		return status;
	rank = rt_spatial_output_dims(&s, s.channels, dims);
	status = rt_tensor_set_shape(k, out[0], x->dtype, rank, dims);
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_INT64, rank,
					     dims);
	return status;
}

static int max_pool_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	int64_t storage_order;
	int status = rt_attr_int(k, "storage_order", 0, &storage_order);

	if (status)
		return status;
	if (storage_order != 0 && storage_order != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "storage_order %lld is not 0 or 1",
				   (long long)storage_order);
	return pool_infer(k, in, n_in, out, n_out, k->opset >= 12);
}

static int average_pool_infer(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	return pool_infer(k, in, n_in, out, n_out, 0);
}

/* Offset of an input element in the layout the Indices output names. */
static int64_t index_offset(const struct rt_spatial *s, int column_major,
			    int64_t iz, int64_t iy, int64_t ix)
{
	if (column_major)
		return (ix * s->in[1] + iy) * s->in[0] + iz;
	return (iz * s->in[1] + iy) * s->in[2] + ix;
}

/*
 * One max pool per element type. The window walk is the same for all
 * pooling ops; for max the value type matters, so it is stamped out here.
 */
#define DEFINE_MAX_POOL(NAME, TYPE, LOWEST)				\
static void NAME(const struct rt_spatial *s, const TYPE *x, TYPE *y,	\
		 int64_t *indices, int column_major)			\
{									\
	int64_t in_plane = rt_spatial_in_size(s);			\
	int64_t planes = s->batch * s->channels;			\
									\
	for (int64_t plane = 0; plane < planes; plane++) {		\
		const TYPE *src = x + plane * in_plane;			\
									\
		for (int64_t oz = 0; oz < s->out[0]; oz++)		\
		for (int64_t oy = 0; oy < s->out[1]; oy++)		\
		for (int64_t ox = 0; ox < s->out[2]; ox++) {		\
			TYPE best = LOWEST;				\
			int64_t where = -1;				\
									\
			for (int64_t kz = 0; kz < s->kernel[0]; kz++) {	\
				int64_t iz = oz * s->stride[0] -	\
					s->pad_begin[0] + kz * s->dilation[0]; \
				if (iz < 0 || iz >= s->in[0])		\
					continue;			\
				for (int64_t ky = 0; ky < s->kernel[1]; ky++) { \
					int64_t iy = oy * s->stride[1] - \
						s->pad_begin[1] +	\
						ky * s->dilation[1];	\
					if (iy < 0 || iy >= s->in[1])	\
						continue;		\
					for (int64_t kx = 0; kx < s->kernel[2]; kx++) { \
						int64_t ix = ox * s->stride[2] - \
							s->pad_begin[2] + \
							kx * s->dilation[2]; \
						TYPE v;			\
						if (ix < 0 || ix >= s->in[2]) \
							continue;	\
						v = src[(iz * s->in[1] + iy) * \
							s->in[2] + ix];	\
						if (where < 0 || v > best) { \
							best = v;	\
							where = index_offset(s, \
								column_major, \
								iz, iy, ix); \
						}			\
					}				\
				}					\
			}						\
			*y++ = best;					\
			if (indices)					\
				*indices++ = where < 0 ? -1 :		\
					plane * in_plane + where;	\
		}							\
	}								\
}

DEFINE_MAX_POOL(max_pool_float, float, -FLT_MAX)
DEFINE_MAX_POOL(max_pool_double, double, -DBL_MAX)
DEFINE_MAX_POOL(max_pool_uint8, uint8_t, 0)
DEFINE_MAX_POOL(max_pool_int8, int8_t, INT8_MIN)

/*
 * float32, one or two spatial axes, no Indices output: the CPU runtime's
 * vectorized pooling. 0 done, 1 when the geometry is not its (ceil_mode
 * windows beyond the floor size), negative on a kernel error.
 */
static int max_pool_fast(struct rt_kernel *k, const struct rt_spatial *s,
			 const float *x, float *y)
{
	struct enpu_cpu_fconv_shape f = {
		.batch = (size_t)s->batch, .in_channels = (size_t)s->channels,
		.height = (size_t)s->in[1], .width = (size_t)s->in[2],
		.out_channels = (size_t)s->channels, .group = 1,
		.kernel_height = (size_t)s->kernel[1],
		.kernel_width = (size_t)s->kernel[2],
		.stride_height = (size_t)s->stride[1],
		.stride_width = (size_t)s->stride[2],
		.dilation_height = (size_t)s->dilation[1],
		.dilation_width = (size_t)s->dilation[2],
		.pad_top = (size_t)s->pad_begin[1],
		.pad_left = (size_t)s->pad_begin[2],
		.pad_bottom = (size_t)s->pad_end[1],
		.pad_right = (size_t)s->pad_end[2],
	};
	size_t oh, ow;

	if (s->axes > 2 || !s->batch || !s->channels ||
	    enpu_cpu_fconv_output_size(k->cpu, &f, &oh, &ow) ||
	    (int64_t)oh != s->out[1] || (int64_t)ow != s->out[2])
		return 1;
	return enpu_cpu_max_pool_f32(k->cpu, &f, x, y) ? -1 : 0;
}

static int max_pool_run(struct rt_kernel *k,
			const struct rt_tensor *const *in, size_t n_in,
			struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t *indices = n_out > 1 && out[1] ? out[1]->data : NULL;
	int64_t storage_order;
	struct rt_spatial s;
	int status;

	(void)n_in;
	status = rt_attr_int(k, "storage_order", 0, &storage_order);
	if (!status)
		status = pool_geometry(k, x, &s);
	if (status)
		return status;
	switch (x->dtype) {
	case ENPU_RT_FLOAT:
		if (!indices) {
			status = max_pool_fast(k, &s, x->data, out[0]->data);
			if (status < 0)
				return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "%s",
						   enpu_cpu_context_error(k->cpu));
			if (!status)
				break;
		}
		max_pool_float(&s, x->data, out[0]->data, indices,
			       storage_order == 1);
		break;
	case ENPU_RT_DOUBLE:
		max_pool_double(&s, x->data, out[0]->data, indices,
				storage_order == 1);
		break;
	case ENPU_RT_UINT8:
		max_pool_uint8(&s, x->data, out[0]->data, indices,
			       storage_order == 1);
		break;
	case ENPU_RT_INT8:
		max_pool_int8(&s, x->data, out[0]->data, indices,
			      storage_order == 1);
		break;
	default:
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	}
	return 0;
}

/* Window positions [lo, hi) along one axis that count as the divisor. */
static int64_t window_count(const struct rt_spatial *s, int axis, int64_t o,
			    int include_pad)
{
	int64_t count = 0;
	int64_t lo = include_pad ? -s->pad_begin[axis] : 0;
	int64_t hi = s->in[axis] + (include_pad ? s->pad_end[axis] : 0);

	for (int64_t t = 0; t < s->kernel[axis]; t++) {
		int64_t i = o * s->stride[axis] - s->pad_begin[axis] +
			    t * s->dilation[axis];

		if (i >= lo && i < hi)
			count++;
	}
	return count;
}

static int average_pool_run(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t include_pad, in_plane, planes;
	struct rt_spatial s;
	size_t e = 0;
	int status;

	(void)n_in;
	(void)n_out;
	status = rt_attr_int(k, "count_include_pad", 0, &include_pad);
	if (!status)
		status = pool_geometry(k, x, &s);
	if (status)
		return status;
	in_plane = rt_spatial_in_size(&s);
	planes = s.batch * s.channels;
	for (int64_t plane = 0; plane < planes; plane++) {
		size_t base = (size_t)(plane * in_plane);

		for (int64_t oz = 0; oz < s.out[0]; oz++)
		for (int64_t oy = 0; oy < s.out[1]; oy++)
		for (int64_t ox = 0; ox < s.out[2]; ox++) {
			int64_t count = window_count(&s, 0, oz, include_pad) *
					window_count(&s, 1, oy, include_pad) *
					window_count(&s, 2, ox, include_pad);
			double sum = 0;

			for (int64_t kz = 0; kz < s.kernel[0]; kz++) {
				int64_t iz = oz * s.stride[0] - s.pad_begin[0] +
					     kz * s.dilation[0];

				if (iz < 0 || iz >= s.in[0])
					continue;
				for (int64_t ky = 0; ky < s.kernel[1]; ky++) {
					int64_t iy = oy * s.stride[1] -
						     s.pad_begin[1] +
						     ky * s.dilation[1];

					if (iy < 0 || iy >= s.in[1])
						continue;
					for (int64_t kx = 0; kx < s.kernel[2];
					     kx++) {
						int64_t ix = ox * s.stride[2] -
							     s.pad_begin[2] +
							     kx * s.dilation[2];

						if (ix < 0 || ix >= s.in[2])
							continue;
						sum += rt_tensor_get_double(x,
							base + (size_t)((iz * s.in[1] + iy) *
									s.in[2] + ix));
					}
				}
			}
			rt_tensor_set_double(out[0], e++,
					     count ? sum / (double)count : 0);
		}
	}
	return 0;
}

static int global_pool_infer(struct rt_kernel *k,
			     const struct rt_tensor *const *in, size_t n_in,
			     struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t dims[RT_MAX_RANK];

	(void)n_in;
	(void)n_out;
	if (x->dtype != ENPU_RT_FLOAT && x->dtype != ENPU_RT_DOUBLE)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	if (x->rank < 3)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input rank %d is below 3 (N, C, spatial)",
				   x->rank);
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int i = 2; i < x->rank; i++)
		dims[i] = 1;
	return rt_tensor_set_shape(k, out[0], x->dtype, x->rank, dims);
}

static int global_pool_run(struct rt_kernel *k,
			   const struct rt_tensor *const *in,
			   struct rt_tensor *const *out, int take_max)
{
	const struct rt_tensor *x = in[0];
	size_t planes = (size_t)(x->dims[0] * x->dims[1]);
	size_t plane = planes ? rt_tensor_elements(x) / planes : 0;

	(void)k;
	if (!take_max && x->dtype == ENPU_RT_FLOAT) {
		/* Four partial sums in double: no per-element conversion
		 * call, and the order stays fixed. */
		const float *xs = x->data;
		float *ys = out[0]->data;

		for (size_t p = 0; p < planes; p++, xs += plane) {
			double s[4] = { 0, 0, 0, 0 };
			size_t i = 0;

			for (; i + 4 <= plane; i += 4)
				for (int j = 0; j < 4; j++)
					s[j] += xs[i + j];
			for (; i < plane; i++)
				s[0] += xs[i];
			ys[p] = plane ? (float)((s[0] + s[1] + s[2] + s[3]) /
					       (double)plane) : 0.0f;
		}
		return 0;
	}
	for (size_t p = 0; p < planes; p++) {
		double acc = take_max ? -INFINITY : 0;

		for (size_t i = 0; i < plane; i++) {
			double v = rt_tensor_get_double(x, p * plane + i);

			if (!take_max)
				acc += v;
			else if (v > acc || isnan(v))
				acc = v;
		}
		if (!take_max)
			acc = plane ? acc / (double)plane : 0;
		rt_tensor_set_double(out[0], p, acc);
	}
	return 0;
}

static int global_average_pool_run(struct rt_kernel *k,
				   const struct rt_tensor *const *in,
				   size_t n_in, struct rt_tensor *const *out,
				   size_t n_out)
{
	(void)n_in;
	(void)n_out;
	return global_pool_run(k, in, out, 0);
}

static int global_max_pool_run(struct rt_kernel *k,
			       const struct rt_tensor *const *in, size_t n_in,
			       struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in;
	(void)n_out;
	return global_pool_run(k, in, out, 1);
}

const struct rt_op_def rt_ops_pool[] = {
	{
		.op_type = "MaxPool", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 2,
		.infer = max_pool_infer, .run = max_pool_run,
	},
	{
		.op_type = "AveragePool", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.infer = average_pool_infer, .run = average_pool_run,
	},
	{
		.op_type = "GlobalAveragePool", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.infer = global_pool_infer, .run = global_average_pool_run,
	},
	{
		.op_type = "GlobalMaxPool", .domain = "",
		.opset_min = 1, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.infer = global_pool_infer, .run = global_max_pool_run,
	},
	{ 0 },
};
