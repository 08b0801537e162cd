// SPDX-License-Identifier: MIT
/* Sliding-window geometry: see spatial.h. */
#include <inttypes.h>
#include <string.h>

#include "spatial.h"

/* Reads an ints attribute of exactly @count values, or fills @fallback. */
static int read_axes_attr(struct rt_kernel *k, const char *name, int count,
			  int64_t fallback, int64_t minimum, int64_t *values)
{
	const int64_t *ints;
	size_t n;
	int status = rt_attr_ints(k, name, &ints, &n);

	if (status)
		return status;
	if (!ints) {
		for (int i = 0; i < count; i++)
			values[i] = fallback;
		return 0;
	}
	if (n != (size_t)count)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "attribute %s has %zu values, expected %d",
				   name, n, count);
	for (int i = 0; i < count; i++) {
		if (ints[i] < minimum || ints[i] > INT32_MAX)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "attribute %s[%d] = %" PRId64
					   " is out of range", name, i,
					   ints[i]);
		values[i] = ints[i];
	}
	return 0;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int rt_spatial_init(struct rt_kernel *k, const struct rt_tensor *x,
		    const int64_t *kernel, int allow_ceil_mode,
		    struct rt_spatial *s)
{
	int64_t stride[RT_SPATIAL_MAX], dilation[RT_SPATIAL_MAX];
	int64_t pads[2 * RT_SPATIAL_MAX], ceil_mode = 0;
	const char *auto_pad;
	int axes = x->rank - 2, status;

	if (x->rank < 3 || axes > RT_SPATIAL_MAX)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input rank %d is not supported (need N, C "
				   "and 1 to %d spatial axes)", x->rank,
				   RT_SPATIAL_MAX);
	status = rt_attr_string(k, "auto_pad", "NOTSET", &auto_pad);
	if (!status)
		status = read_axes_attr(k, "strides", axes, 1, 1, stride);
	if (!status)
		status = read_axes_attr(k, "dilations", axes, 1, 1, dilation);
	if (!status)
		status = read_axes_attr(k, "pads", 2 * axes, 0, 0, pads);
	if (!status && allow_ceil_mode)
		status = rt_attr_int(k, "ceil_mode", 0, &ceil_mode);
	if (status)
		return status;
	if (strcmp(auto_pad, "NOTSET") && strcmp(auto_pad, "VALID") &&
	    strcmp(auto_pad, "SAME_UPPER") && strcmp(auto_pad, "SAME_LOWER"))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "auto_pad '%s' is not NOTSET, VALID, "
				   "SAME_UPPER or SAME_LOWER", auto_pad);

	memset(s, 0, sizeof(*s));
	s->axes = axes;
	s->batch = x->dims[0];
	s->channels = x->dims[1];
	for (int i = 0; i < RT_SPATIAL_MAX; i++) {
		s->in[i] = s->kernel[i] = s->stride[i] = s->dilation[i] = 1;
		s->out[i] = 1;
	}
	for (int a = 0; a < axes; a++) {
		int i = RT_SPATIAL_MAX - axes + a;
		int64_t in = x->dims[2 + a], extent, total;

		if (kernel[a] < 1 || kernel[a] > INT32_MAX)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "kernel size %" PRId64
					   " on spatial axis %d is invalid",
					   kernel[a], a);
		s->in[i] = in;
		s->kernel[i] = kernel[a];
		s->stride[i] = stride[a];
		s->dilation[i] = dilation[a];
		extent = (kernel[a] - 1) * dilation[a] + 1;
		if (!strcmp(auto_pad, "SAME_UPPER") ||
		    !strcmp(auto_pad, "SAME_LOWER")) {
			s->out[i] = ceil_div(in, stride[a]);
			total = (s->out[i] - 1) * stride[a] + extent - in;
			if (total < 0)
				total = 0;
			if (!strcmp(auto_pad, "SAME_UPPER")) {
				s->pad_begin[i] = total / 2;
				s->pad_end[i] = total - total / 2;
			} else {
				s->pad_end[i] = total / 2;
				s->pad_begin[i] = total - total / 2;
			}
		} else {
			if (!strcmp(auto_pad, "NOTSET")) {
				s->pad_begin[i] = pads[a];
				s->pad_end[i] = pads[axes + a];
			}
			total = in + s->pad_begin[i] + s->pad_end[i] - extent;
			if (total < 0)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "kernel extent %" PRId64
						   " exceeds padded input %"
						   PRId64 " on spatial axis %d",
						   extent, total + extent, a);
			if (ceil_mode) {
				s->out[i] = ceil_div(total, stride[a]) + 1;
				/* A window starting in the end padding is dropped. */
				if ((s->out[i] - 1) * stride[a] >=
				    in + s->pad_begin[i])
					s->out[i]--;
			} else {
				s->out[i] = floor_div(total, stride[a]) + 1;
			}
		}
	}
	return 0;
}

int32_t rt_spatial_output_dims(const struct rt_spatial *s,
			       int64_t out_channels, int64_t *dims)
{
	dims[0] = s->batch;
	dims[1] = out_channels;
	for (int a = 0; a < s->axes; a++)
		dims[2 + a] = s->out[RT_SPATIAL_MAX - s->axes + a];
	return 2 + s->axes;
}

int64_t rt_spatial_in_size(const struct rt_spatial *s)
{
	return s->in[0] * s->in[1] * s->in[2];
}

int64_t rt_spatial_out_size(const struct rt_spatial *s)
{
	return s->out[0] * s->out[1] * s->out[2];
}
