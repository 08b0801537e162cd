// SPDX-License-Identifier: MIT
/*
 * Resize (every opset: 10, 11-17, 18+ with `axes` and
 * keep_aspect_ratio_policy) and Upsample (7: scales attribute, 9: scales
 * input) on tensors of any rank and numeric type: nearest (all four
 * rounding modes), n-linear and cubic interpolation, with the coordinate
 * transformations half_pixel, pytorch_half_pixel, align_corners,
 * asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize and (18)
 * half_pixel_symmetric. Resize-10 and Upsample are asymmetric with floor
 * rounding for nearest. Integer outputs of linear or cubic interpolation
 * round half to even and saturate. antialias=1 (18) is refused.
 *
 * Interpolation is separable: for every axis and output index a short list
 * of (input index, weight) taps is computed once, and each output element
 * is the weighted sum over the product of its axes' taps. Arithmetic is in
 * double, as in ONNX's reference.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "rt_op.h"

#define MAX_TAPS 4

enum resize_mode { MODE_NEAREST, MODE_LINEAR, MODE_CUBIC };
enum coordinate_mode {
	COORD_HALF_PIXEL,
	COORD_PYTORCH_HALF_PIXEL,
	COORD_ALIGN_CORNERS,
	COORD_ASYMMETRIC,
	COORD_TF_HALF_PIXEL_FOR_NN,
	COORD_TF_CROP_AND_RESIZE,
	COORD_HALF_PIXEL_SYMMETRIC,
};
enum nearest_mode {
	NEAREST_ROUND_PREFER_FLOOR,
	NEAREST_ROUND_PREFER_CEIL,
	NEAREST_FLOOR,
	NEAREST_CEIL,
};

struct resize_config {
	enum resize_mode mode;
	enum coordinate_mode coordinates;
	enum nearest_mode nearest;
	float cubic_a;
	int64_t exclude_outside;
	float extrapolation;
	int64_t dims[RT_MAX_RANK];	/* output */
	double scale[RT_MAX_RANK];
	double roi_start[RT_MAX_RANK];
	double roi_end[RT_MAX_RANK];
};

static int pick(struct rt_kernel *k, const char *attr, const char *fallback,
		const char *const *names, int count, int *value)
{
	const char *name;
	int status = rt_attr_string(k, attr, fallback, &name);

	if (status)
		return status;
	for (int i = 0; i < count; i++) {
		if (!strcmp(name, names[i])) {
			*value = i;
			return 0;
		}
	}
	return rt_op_error(k, ENPU_RT_UNSUPPORTED, "%s '%s' is not supported",
			   attr, name);
}

static int read_attributes(struct rt_kernel *k, struct resize_config *c)
{
	static const char *const modes[] = { "nearest", "linear", "cubic" };
	static const char *const coordinates[] = {
		"half_pixel", "pytorch_half_pixel", "align_corners",
		"asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize",
		"half_pixel_symmetric",
	};
	static const char *const nearest[] = {
		"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
	};
	static const char *const legacy_modes[] = {
		"nearest", "linear", "bilinear",
	};
	int mode = 0, coordinate = 0, rounding = 0, status;

	if (k->opset < 11) {
		/* Resize-10, Upsample: asymmetric, nearest rounds down. */
		status = pick(k, "mode", "nearest", legacy_modes, 3, &mode);
		c->mode = mode ? MODE_LINEAR : MODE_NEAREST;
		c->coordinates = COORD_ASYMMETRIC;
		c->nearest = NEAREST_FLOOR;
		c->cubic_a = -0.75f;
		c->exclude_outside = 0;
		c->extrapolation = 0;
		return status;
	}
	status = pick(k, "mode", "nearest", modes, 3, &mode);
	if (!status)
		status = pick(k, "coordinate_transformation_mode", "half_pixel",
			      coordinates, k->opset >= 18 ? 7 : 6,
			      &coordinate);
	if (!status)
		status = pick(k, "nearest_mode", "round_prefer_floor", nearest,
			      4, &rounding);
	if (!status && k->opset >= 18) {
		int64_t antialias;

		status = rt_attr_int(k, "antialias", 0, &antialias);
		if (!status && antialias)
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "antialias=1 is not supported");
	}
	if (!status)
		status = rt_attr_float(k, "cubic_coeff_a", -0.75f, &c->cubic_a);
	if (!status)
		status = rt_attr_int(k, "exclude_outside", 0,
				     &c->exclude_outside);
	if (!status)
		status = rt_attr_float(k, "extrapolation_value", 0.0f,
				       &c->extrapolation);
	c->mode = (enum resize_mode)mode;
	c->coordinates = (enum coordinate_mode)coordinate;
	c->nearest = (enum nearest_mode)rounding;
	return status;
}

static int present(const struct rt_tensor *const *in, size_t n_in, size_t i)
{
	return i < n_in && in[i] && rt_tensor_elements(in[i]) > 0;
}

/* Output size and scale of axis @d from a scale factor. */
static int axis_from_scale(struct rt_kernel *k, const struct rt_tensor *x,
			   int d, double s, struct resize_config *c)
{
	double extent = c->roi_end[d] - c->roi_start[d];

	if (!(s > 0) || !isfinite(s))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scale %g on axis %d is not positive", s, d);
	c->scale[d] = s;
	c->dims[d] = (int64_t)floor((double)x->dims[d] * extent * s);
	return 0;
}

static void full_roi(struct resize_config *c, int rank)
{
	for (int d = 0; d < rank; d++) {
		c->roi_start[d] = 0;
		c->roi_end[d] = 1;
		c->scale[d] = 1;
	}
}

/* Upsample-7 (scales attribute), Upsample-9 and Resize-10 (input 1). */
static int configure_legacy(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct resize_config *c)
{
	const struct rt_tensor *x = in[0];
	const float *attr;
	size_t count;
	int status;

	full_roi(c, x->rank);
	if (n_in < 2 || !in[1]) {
		status = rt_attr_floats(k, "scales", &attr, &count);
		if (status)
			return status;
		if (!attr || count != (size_t)x->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "scales must have %d values",
					   x->rank);
		for (int d = 0; d < x->rank && !status; d++)
			status = axis_from_scale(k, x, d, attr[d], c);
		return status;
	}
	if (in[1]->dtype != ENPU_RT_FLOAT ||
	    rt_tensor_elements(in[1]) != (size_t)x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scales must be %d floats", x->rank);
	if (!in[1]->data)
		return RT_OP_NEEDS_VALUES;
	status = 0;
	for (int d = 0; d < x->rank && !status; d++)
		status = axis_from_scale(k, x, d,
					 ((const float *)in[1]->data)[d], c);
	return status;
}

/*
 * Resize-18+: scales or sizes for the `axes` listed (all by default);
 * with sizes, keep_aspect_ratio_policy not_larger / not_smaller uses one
 * scale for all of them (the smallest / largest size ratio).
 */
static int configure_axes(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct resize_config *c)
{
	static const char *const policies[] = {
		"stretch", "not_larger", "not_smaller",
	};
	const struct rt_tensor *x = in[0];
	int has_scales = present(in, n_in, 2), has_sizes = present(in, n_in, 3);
	int64_t axes[RT_MAX_RANK], values[RT_MAX_RANK];
	const int64_t *attr;
	size_t count, n_axes;
	int policy = 0, status;

	status = rt_attr_ints(k, "axes", &attr, &n_axes);
	if (!status)
		status = pick(k, "keep_aspect_ratio_policy", "stretch",
			      policies, 3, &policy);
	if (status)
		return status;
	if (!attr)
		n_axes = (size_t)x->rank;
	if (n_axes > (size_t)x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%zu axes for rank %d", n_axes, x->rank);
	for (size_t i = 0; i < n_axes; i++) {
		status = rt_axis(k, attr ? attr[i] : (int64_t)i, x->rank,
				 &axes[i]);
		if (status)
			return status;
	}
	if (has_scales == has_sizes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "exactly one of scales and sizes must be "
				   "given");
	full_roi(c, x->rank);
	for (int d = 0; d < x->rank; d++)
		c->dims[d] = x->dims[d];
	if (c->coordinates == COORD_TF_CROP_AND_RESIZE) {
		const struct rt_tensor *roi = n_in > 1 ? in[1] : NULL;

		if (!roi || rt_tensor_elements(roi) != 2 * n_axes)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "tf_crop_and_resize needs a roi of "
					   "%zu values", 2 * n_axes);
		if (!roi->data)
			return RT_OP_NEEDS_VALUES;
		for (size_t i = 0; i < n_axes; i++) {
			c->roi_start[axes[i]] = rt_tensor_get_double(roi, i);
			c->roi_end[axes[i]] = rt_tensor_get_double(roi,
								   n_axes + i);
		}
	}
	if (has_scales) {
		const struct rt_tensor *scales = in[2];

		if (scales->dtype != ENPU_RT_FLOAT ||
		    rt_tensor_elements(scales) != n_axes)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "scales must be %zu floats", n_axes);
		if (!scales->data)
			return RT_OP_NEEDS_VALUES;
		for (size_t i = 0; i < n_axes && !status; i++)
			status = axis_from_scale(k, x, (int)axes[i],
				((const float *)scales->data)[i], c);
		return status;
	}
	if (!in[3]->data)
		return RT_OP_NEEDS_VALUES;
	status = rt_tensor_read_ints(k, in[3], RT_MAX_RANK, values, &count);
	if (status)
		return status;
	if (count != n_axes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "sizes has %zu values for %zu axes", count,
				   n_axes);
	if (policy) {
		double pick_scale = policy == 1 ? INFINITY : 0;

		for (size_t i = 0; i < n_axes; i++) {
			double r = (double)values[i] /
				   (double)x->dims[axes[i]];

			pick_scale = policy == 1 ? fmin(pick_scale, r) :
				     fmax(pick_scale, r);
		}
		for (size_t i = 0; i < n_axes; i++) {
			c->scale[axes[i]] = pick_scale;
			c->dims[axes[i]] = (int64_t)nearbyint(pick_scale *
				(double)x->dims[axes[i]]);
		}
		return 0;
	}
	for (size_t i = 0; i < n_axes; i++) {
		if (values[i] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "size %lld is negative",
					   (long long)values[i]);
		c->dims[axes[i]] = values[i];
		c->scale[axes[i]] = x->dims[axes[i]] ?
			(double)values[i] / (double)x->dims[axes[i]] : 1.0;
	}
	return 0;
}

static int configure(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct resize_config *c)
{
	const struct rt_tensor *x = in[0];
	int has_scales = present(in, n_in, 2), has_sizes = present(in, n_in, 3);
	int32_t rank = x->rank;
	int status;

	status = read_attributes(k, c);
	if (status)
		return status;
	if (!rt_dtype_is_float(x->dtype) && !rt_dtype_is_integer(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(x->dtype));
	if (k->opset < 11)
		return configure_legacy(k, in, n_in, c);
	if (k->opset >= 18)
		return configure_axes(k, in, n_in, c);
	if (has_scales == has_sizes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "exactly one of scales and sizes must be "
				   "given");
	for (int d = 0; d < rank; d++) {
		c->roi_start[d] = 0;
		c->roi_end[d] = 1;
	}
	if (c->coordinates == COORD_TF_CROP_AND_RESIZE) {
		const struct rt_tensor *roi = n_in > 1 ? in[1] : NULL;

		if (!roi || rt_tensor_elements(roi) != (size_t)(2 * rank))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "tf_crop_and_resize needs a roi of "
					   "%d values", 2 * rank);
		if (roi->dtype != ENPU_RT_FLOAT && roi->dtype != ENPU_RT_DOUBLE)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "roi has type %s, not float",
					   rt_dtype_name(roi->dtype));
		if (!roi->data)
			return RT_OP_NEEDS_VALUES;
		for (int d = 0; d < rank; d++) {
			c->roi_start[d] = rt_tensor_get_double(roi, (size_t)d);
			c->roi_end[d] = rt_tensor_get_double(roi,
							     (size_t)(rank + d));
		}
	}
	if (has_scales) {
		const struct rt_tensor *scales = in[2];

		if (scales->dtype != ENPU_RT_FLOAT ||
		    rt_tensor_elements(scales) != (size_t)rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "scales must be %d floats", rank);
		if (!scales->data)
			return RT_OP_NEEDS_VALUES;
		for (int d = 0; d < rank; d++) {
			double s = ((const float *)scales->data)[d];
			double extent = c->roi_end[d] - c->roi_start[d];

			if (!(s > 0) || !isfinite(s))
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "scale %g on axis %d is not "
						   "positive", s, d);
			c->scale[d] = s;
			c->dims[d] = (int64_t)floor((double)x->dims[d] *
						    extent * s);
		}
	} else {
		int64_t sizes[RT_MAX_RANK];
		size_t count;

		if (!in[3]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[3], RT_MAX_RANK, sizes,
					     &count);
		if (status)
			return status;
		if (count != (size_t)rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "sizes has %zu values for rank %d",
					   count, rank);
		for (int d = 0; d < rank; d++) {
			if (sizes[d] < 0)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "size %lld on axis %d is "
						   "negative",
						   (long long)sizes[d], d);
			c->dims[d] = sizes[d];
			c->scale[d] = x->dims[d] ?
				(double)sizes[d] / (double)x->dims[d] : 1.0;
		}
	}
	return 0;
}

static int resize_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct resize_config c;
	int status = configure(k, in, n_in, &c);

	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   c.dims);
}

/* Input coordinate of output index @o; *outside for tf_crop_and_resize. */
static double source_coordinate(const struct resize_config *c, int axis,
				int64_t o, int64_t in_len, int *outside)
{
	/*
	 * ONNX's reference measures the output in unrounded input * scale,
	 * which differs from the floored output size when scales are given.
	 */
	double scale = c->scale[axis], out_len = (double)in_len * scale;
	double x = (double)o, start, end, v;

	*outside = 0;
	switch (c->coordinates) {
	case COORD_HALF_PIXEL:
		return (x + 0.5) / scale - 0.5;
	case COORD_PYTORCH_HALF_PIXEL:
		return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0;
	case COORD_ALIGN_CORNERS:
		return out_len > 1 ? x * (double)(in_len - 1) / (out_len - 1)
				   : 0;
	case COORD_ASYMMETRIC:
		return x / scale;
	case COORD_TF_HALF_PIXEL_FOR_NN:
		return (x + 0.5) / scale;
	case COORD_HALF_PIXEL_SYMMETRIC: {
		double adjustment = (double)c->dims[axis] / out_len;
		double offset = (double)in_len / 2 * (1 - adjustment);

		return offset + (x + 0.5) / scale - 0.5;
	}
	case COORD_TF_CROP_AND_RESIZE:
		start = c->roi_start[axis];
		end = c->roi_end[axis];
		v = out_len > 1 ?
			start * (double)(in_len - 1) +
			x * (end - start) * (double)(in_len - 1) / (out_len - 1) :
			0.5 * (start + end) * (double)(in_len - 1);
		*outside = v < 0 || v > (double)(in_len - 1);
		return v;
	}
	return x;
}

static int64_t clamp_index(int64_t i, int64_t n)
{
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int64_t nearest_index(enum nearest_mode mode, double x)
{
	double f = floor(x);

	switch (mode) {
	case NEAREST_FLOOR:
		return (int64_t)f;
	case NEAREST_CEIL:
		return (int64_t)ceil(x);
	case NEAREST_ROUND_PREFER_CEIL:
		return (int64_t)(x - f == 0.5 ? f + 1 : round(x));
	default:
		return (int64_t)(x - f == 0.5 ? f : round(x));
	}
}

static void cubic_coefficients(double a, double t, double *w)
{
	double s = t + 1, u = 1 - t, v = 2 - t;

	w[0] = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
	w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
	w[2] = ((a + 2) * u - (a + 3)) * u * u + 1;
	w[3] = ((a * v - 5 * a) * v + 8 * a) * v - 4 * a;
}

struct tap {
	int count;		/* 0: outside (extrapolation value) */
	int64_t index[MAX_TAPS];
	double weight[MAX_TAPS];
};

static void axis_taps(const struct resize_config *c, int axis, int64_t o,
		      int64_t n, struct tap *tap)
{
	int outside;
	double x = source_coordinate(c, axis, o, n, &outside);
	double f = floor(x), w[MAX_TAPS], sum = 0;

	if (outside) {
		tap->count = 0;
		return;
	}
	switch (c->mode) {
	case MODE_NEAREST:
		tap->count = 1;
		tap->index[0] = clamp_index(nearest_index(c->nearest, x), n);
		tap->weight[0] = 1;
		return;
	case MODE_LINEAR:
		tap->count = 2;
		tap->index[0] = clamp_index((int64_t)f, n);
		tap->index[1] = clamp_index((int64_t)f + 1, n);
		tap->weight[0] = 1 - (x - f);
		tap->weight[1] = x - f;
		return;
	case MODE_CUBIC:
		cubic_coefficients(c->cubic_a, x - f, w);
		tap->count = 4;
		for (int i = 0; i < 4; i++) {
			int64_t index = (int64_t)f - 1 + i;

			if (c->exclude_outside && (index < 0 || index >= n))
				w[i] = 0;
			sum += w[i];
			tap->index[i] = clamp_index(index, n);
			tap->weight[i] = w[i];
		}
		if (c->exclude_outside && sum != 0)
			for (int i = 0; i < 4; i++)
				tap->weight[i] /= sum;
		return;
	}
}

/* All of the tap's weight on input index @o. */
static int identity_tap(const struct tap *t, int64_t o)
{
	double on = 0;

	for (int q = 0; q < t->count; q++) {
		if (t->index[q] == o)
			on += t->weight[q];
		else if (t->weight[q] != 0)
			return 0;
	}
	return t->count && on == 1.0;
}

/* Output rows of one resize_planes task: enough tasks for the pool. */
#define PLANE_ROWS 16

/* A tap list in float, as the separable path uses it. */
struct ftaps {
	int count;		/* 0: outside */
	float weight[MAX_TAPS];
	size_t index[MAX_TAPS];
};

struct plane_job {
	const struct resize_config *c;
	const float *src;
	float *dst;
	const struct ftaps *ty, *tx;
	/* Every column has two taps (linear): them as arrays, else NULL. */
	const size_t *x0, *x1;
	const float *w0, *w1;
	/*
	 * Columns [pair_lo, pair_hi) repeat their first two columns' taps
	 * one input column further every two outputs (2x upsampling away
	 * from the edges): those run on the row kernels' lerp_pairs.
	 */
	size_t pair_lo, pair_hi;
	const struct enpu_fmath_kernels *f;
	size_t ih, iw, oh, ow, bands;
	atomic_int failed;	/* a task had no memory for its row */
};

static void ftaps_of(const struct tap *t, struct ftaps *f)
{
	f->count = t->count;
	for (int q = 0; q < t->count; q++) {
		f->weight[q] = (float)t->weight[q];
		f->index[q] = (size_t)t->index[q];
	}
}

/* Rows [band * PLANE_ROWS, ...) of one plane. */
static void plane_band(void *argument, size_t task)
{
	struct plane_job *j = argument;
	size_t p = task / j->bands, y0 = task % j->bands * PLANE_ROWS;
	size_t y1 = y0 + PLANE_ROWS < j->oh ? y0 + PLANE_ROWS : j->oh;
	float stack[1024], *row = stack;

	if (j->iw > sizeof(stack) / sizeof(stack[0])) {
		row = malloc(j->iw * sizeof(float));
		if (!row) {
			atomic_store(&j->failed, 1);
			return;
		}
	}
	for (size_t y = y0; y < y1; y++) {
		const struct ftaps *t = &j->ty[y];
		float *out = j->dst + (p * j->oh + y) * j->ow;

		/*
		 * The row taps on the row kernels: this file's -O2 left the
		 * loop scalar, 3/4 of the node's time in U-Net's 2x Resize.
		 */
		memset(row, 0, j->iw * sizeof(float));
		for (int q = 0; q < t->count; q++)
			j->f->axpy(j->iw, t->weight[q], j->src + (p * j->ih +
				   t->index[q]) * j->iw, row);
		if (t->count && j->x0) {
			size_t lo = j->pair_lo, hi = j->pair_hi;
			float w[4];

			for (size_t xo = 0; xo < j->ow; xo++) {
				float v = 0.0f;

				if (xo == lo && hi > lo) {
					w[0] = j->w0[lo];
					w[1] = j->w1[lo];
					w[2] = j->w0[lo + 1];
					w[3] = j->w1[lo + 1];
					j->f->lerp_pairs((hi - lo) / 2,
							 row + j->x0[lo],
							 row + j->x1[lo],
							 row + j->x0[lo + 1],
							 row + j->x1[lo + 1], w,
							 out + lo);
					xo = hi - 1;
					continue;
				}
				v += j->w0[xo] * row[j->x0[xo]];
				v += j->w1[xo] * row[j->x1[xo]];
				out[xo] = v;
			}
			continue;
		}
		for (size_t xo = 0; xo < j->ow; xo++) {
			const struct ftaps *u = &j->tx[xo];
			float v = 0.0f;

			if (!t->count || !u->count) {
				out[xo] = j->c->extrapolation;
				continue;
			}
			for (int q = 0; q < u->count; q++)
				v += u->weight[q] * row[u->index[q]];
			out[xo] = v;
		}
	}
	if (row != stack)
		free(row);
}

/* The widest run of columns from 2 on whose taps follow the 2x pattern. */
static void pair_range(struct plane_job *j)
{
	size_t lo = 2, hi = 2;

	j->pair_lo = j->pair_hi = 0;
	while (hi + 2 <= j->ow) {
		size_t m = (hi - lo) / 2;
		int same = 1;

		for (size_t e = 0; e < 2; e++)
			same &= j->x0[hi + e] == j->x0[lo + e] + m &&
				j->x1[hi + e] == j->x1[lo + e] + m &&
				j->w0[hi + e] == j->w0[lo + e] &&
				j->w1[hi + e] == j->w1[lo + e];
		if (!same)
			break;
		hi += 2;
	}
	if (hi - lo >= 4) {
		j->pair_lo = lo;
		j->pair_hi = hi;
	}
}

/*
 * float32 with only the last two axes resized (images, NCHW): separable.
 * Each output row is the weighted sum of its input rows (the row taps),
 * then each output column the weighted sum of that row's columns; the
 * same taps and weights as the general path, in float instead of double
 * (converted once per call), bands of rows shared by the context's pool.
 * 0 when it handled the call; 1 when the general path must.
 */
static int resize_planes(struct rt_kernel *k, const struct resize_config *c,
			 const struct rt_tensor *x, const struct tap *ty,
			 const struct tap *tx, float *dst)
{
	int32_t r = x->rank;
	size_t planes = 1;
	struct plane_job j = {
		.c = c, .src = x->data, .dst = dst,
		.ih = (size_t)x->dims[r - 2], .iw = (size_t)x->dims[r - 1],
		.oh = (size_t)c->dims[r - 2], .ow = (size_t)c->dims[r - 1],
	};
	struct ftaps *f = malloc((j.oh + j.ow) * sizeof(*f));
	size_t *xi = malloc(2 * j.ow * sizeof(*xi));
	float *xw = malloc(2 * j.ow * sizeof(*xw));
	int two = 1;

	if (!f || !xi || !xw) {
		free(f);
		free(xi);
		free(xw);
		return 1;
	}
	for (size_t y = 0; y < j.oh; y++)
		ftaps_of(&ty[y], &f[y]);
	for (size_t xo = 0; xo < j.ow; xo++) {
		ftaps_of(&tx[xo], &f[j.oh + xo]);
		two &= tx[xo].count == 2;
	}
	j.ty = f;
	j.tx = f + j.oh;
	if (two) {
		for (size_t xo = 0; xo < j.ow; xo++) {
			xi[xo] = j.tx[xo].index[0];
			xi[j.ow + xo] = j.tx[xo].index[1];
			xw[xo] = j.tx[xo].weight[0];
			xw[j.ow + xo] = j.tx[xo].weight[1];
		}
		j.x0 = xi;
		j.x1 = xi + j.ow;
		j.w0 = xw;
		j.w1 = xw + j.ow;
		pair_range(&j);
	}
	j.f = enpu_cpu_fmath(k->cpu);
	atomic_init(&j.failed, 0);
	for (int d = 0; d < r - 2; d++)
		planes *= (size_t)x->dims[d];
	j.bands = (j.oh + PLANE_ROWS - 1) / PLANE_ROWS;
	enpu_cpu_parallel_for(k->cpu, planes * j.bands, plane_band, &j);
	free(f);
	free(xi);
	free(xw);
	return atomic_load(&j.failed);
}

static int resize_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	const float *src = x->dtype == ENPU_RT_FLOAT ? x->data : NULL;
	float *dst = x->dtype == ENPU_RT_FLOAT ? out[0]->data : NULL;
	struct tap *taps[RT_MAX_RANK], *all;
	int64_t stride[RT_MAX_RANK], index[RT_MAX_RANK] = { 0 };
	struct resize_config c;
	int32_t rank = x->rank;
	size_t total = rt_tensor_elements(out[0]), count = 0;
	int status;

	(void)n_out;
	status = configure(k, in, n_in, &c);
	if (status)
		return status;
	if (!total)
		return 0;
	if (rank && !rt_tensor_elements(x))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "cannot resize an empty input to a "
				   "non-empty output");
	for (int d = 0; d < rank; d++)
		count += (size_t)c.dims[d];
	all = malloc((count ? count : 1) * sizeof(*all));
	if (!all)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "no memory for interpolation taps");
	count = 0;
	for (int d = rank - 1; d >= 0; d--) {
		stride[d] = d == rank - 1 ? 1 : stride[d + 1] * x->dims[d + 1];
		taps[d] = all + count;
		count += (size_t)c.dims[d];
		for (int64_t o = 0; o < c.dims[d]; o++)
			axis_taps(&c, d, o, x->dims[d], &taps[d][o]);
	}
	if (src && rank >= 2) {
		int images = 1;

		/* The leading axes must map each index onto itself. */
		for (int d = 0; d < rank - 2; d++)
			for (int64_t o = 0; images && o < c.dims[d]; o++)
				images = c.dims[d] == x->dims[d] &&
					 identity_tap(&taps[d][o], o);
		if (images && !resize_planes(k, &c, x, taps[rank - 2],
					     taps[rank - 1], dst)) {
			free(all);
			return 0;
		}
	}
	for (size_t e = 0; e < total; e++) {
		int choice[RT_MAX_RANK] = { 0 }, outside = 0;
		double sum = 0;

		for (int d = 0; d < rank; d++)
			if (!taps[d][index[d]].count)
				outside = 1;
		if (outside) {
			if (dst)
				dst[e] = c.extrapolation;
			else
				rt_tensor_set_rounded(out[0], e, c.extrapolation);
		} else {
			/* Odometer over the product of the axes' taps. */
			for (;;) {
				double weight = 1;
				int64_t offset = 0;
				int d;

				for (d = 0; d < rank; d++) {
					const struct tap *t = &taps[d][index[d]];

					weight *= t->weight[choice[d]];
					offset += t->index[choice[d]] * stride[d];
				}
				sum += weight * (src ? src[offset] :
					rt_tensor_get_double(x, (size_t)offset));
				for (d = rank - 1; d >= 0; d--) {
					if (++choice[d] < taps[d][index[d]].count)
						break;
					choice[d] = 0;
				}
				if (d < 0)
					break;
			}
			if (dst)
				dst[e] = (float)sum;
			else
				rt_tensor_set_rounded(out[0], e, sum);
		}
		for (int d = rank - 1; d >= 0; d--) {
			if (++index[d] < c.dims[d])
				break;
			index[d] = 0;
		}
	}
	free(all);
	return 0;
}

const struct rt_op_def rt_ops_resize[] = {
	{
		.op_type = "Resize", .domain = "",
		.opset_min = 11, .opset_max = 21,
		.min_inputs = 1, .max_inputs = 4,
		.min_outputs = 1, .max_outputs = 1,
		.infer = resize_infer, .run = resize_run,
	},
	{ "Resize", "", 10, 10, 2, 2, 1, 1, 0, resize_infer, NULL,
	  resize_run, NULL },
	{ "Upsample", "", 7, 9, 1, 2, 1, 1, 0, resize_infer, NULL,
	  resize_run, NULL },
	{ 0 },
};
