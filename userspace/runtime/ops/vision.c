// SPDX-License-Identifier: MIT
/*
 * Detection and sampling ops: GridSample (bilinear, nearest, bicubic;
 * zeros, border, reflection padding; both align_corners), RoiAlign (avg
 * and max, both coordinate modes), NonMaxSuppression (corner and center
 * boxes) and MaxUnpool. They follow PyTorch's grid_sampler and ONNX
 * Runtime's RoiAlign / NonMaxSuppression kernels, the reference the ONNX
 * tests were generated against; arithmetic is in double on float data.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

static int float_input(struct rt_kernel *k, const struct rt_tensor *t,
		       const char *what)
{
	if (!rt_dtype_is_float(t->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "%s type %s", what,
				   rt_dtype_name(t->dtype));
	return 0;
}

/* ---- GridSample -------------------------------------------------------- */

enum grid_mode { GRID_BILINEAR, GRID_NEAREST, GRID_BICUBIC };
enum grid_pad { PAD_ZEROS, PAD_BORDER, PAD_REFLECTION };

struct grid_view {
	enum grid_mode mode;
	enum grid_pad pad;
	int align;
	int64_t n, c, h, w, oh, ow;
};

static int grid_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			struct grid_view *v)
{
	const char *mode, *pad;
	int64_t align;
	int status = rt_attr_string(k, "mode", "bilinear", &mode);

	if (!status)
		status = rt_attr_string(k, "padding_mode", "zeros", &pad);
	if (!status)
		status = rt_attr_int(k, "align_corners", 0, &align);
	if (!status)
		status = float_input(k, in[0], "X");
	if (!status)
		status = float_input(k, in[1], "grid");
	if (status)
		return status;
	if (!strcmp(mode, "bilinear") || !strcmp(mode, "linear"))
		v->mode = GRID_BILINEAR;
	else if (!strcmp(mode, "nearest"))
		v->mode = GRID_NEAREST;
	else if (!strcmp(mode, "bicubic") || !strcmp(mode, "cubic"))
		v->mode = GRID_BICUBIC;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "mode '%s'", mode);
	if (!strcmp(pad, "zeros"))
		v->pad = PAD_ZEROS;
	else if (!strcmp(pad, "border"))
		v->pad = PAD_BORDER;
	else if (!strcmp(pad, "reflection"))
		v->pad = PAD_REFLECTION;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "padding_mode '%s'", pad);
	if (in[0]->rank != 4 || in[1]->rank != 4 || in[1]->dims[3] != 2 ||
	    in[1]->dims[0] != in[0]->dims[0])
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "2-D sampling only: X [N,C,H,W], grid "
				   "[N,Ho,Wo,2]");
	v->align = align != 0;
	v->n = in[0]->dims[0];
	v->c = in[0]->dims[1];
	v->h = in[0]->dims[2];
	v->w = in[0]->dims[3];
	v->oh = in[1]->dims[1];
	v->ow = in[1]->dims[2];
	return 0;
}

static int grid_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct grid_view v;
	int status = grid_view_of(k, in, &v);
	int64_t dims[4];

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	dims[0] = v.n;
	dims[1] = v.c;
	dims[2] = v.oh;
	dims[3] = v.ow;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 4, dims);
}

static double unnormalize(double g, int64_t size, int align)
{
	return align ? (g + 1) / 2 * (double)(size - 1) :
		       ((g + 1) * (double)size - 1) / 2;
}

static double reflect(double x, double twice_low, double twice_high)
{
	double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
	double extra, flips;

	if (twice_low == twice_high)
		return 0;
	x = fabs(x - lo);
	extra = fmod(x, span);
	flips = floor(x / span);
	return fmod(flips, 2) == 0 ? extra + lo : span - extra + lo;
}

static double clip(double x, int64_t size)
{
	return fmin(fmax(x, 0), (double)(size - 1));
}

/* Border clamps, reflection mirrors and clamps; zeros leaves it. */
static double pad_coordinate(const struct grid_view *v, double x,
			     int64_t size)
{
	if (v->pad == PAD_BORDER)
		return clip(x, size);
	if (v->pad == PAD_REFLECTION) {
		x = v->align ? reflect(x, 0, 2.0 * (double)(size - 1)) :
			       reflect(x, -1, 2.0 * (double)size - 1);
		return clip(x, size);
	}
	return x;
}

static double pixel(const struct rt_tensor *x, size_t plane,
		    const struct grid_view *v, int64_t yy, int64_t xx)
{
	if (yy < 0 || yy >= v->h || xx < 0 || xx >= v->w)
		return 0;
	return rt_tensor_get_double(x, plane + (size_t)(yy * v->w + xx));
}

/* Bicubic taps read through the padding rule one by one. */
static double padded_pixel(const struct rt_tensor *x, size_t plane,
			   const struct grid_view *v, int64_t yy, int64_t xx)
{
	double py = pad_coordinate(v, (double)yy, v->h);
	double px = pad_coordinate(v, (double)xx, v->w);

	return pixel(x, plane, v, (int64_t)py, (int64_t)px);
}

static void cubic_weights(double t, double w[4])
{
	const double a = -0.75;
	double x;

	x = t + 1;
	w[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	x = t;
	w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
	x = 1 - t;
	w[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
	x = 2 - t;
	w[3] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

static double grid_sample_one(const struct rt_tensor *x, size_t plane,
			      const struct grid_view *v, double gx, double gy)
{
	double ix = unnormalize(gx, v->w, v->align);
	double iy = unnormalize(gy, v->h, v->align);

	if (v->mode == GRID_BICUBIC) {
		double x0 = floor(ix), y0 = floor(iy), wx[4], wy[4], sum = 0;

		cubic_weights(ix - x0, wx);
		cubic_weights(iy - y0, wy);
		for (int j = 0; j < 4; j++)
			for (int i = 0; i < 4; i++)
				sum += wy[j] * wx[i] *
				       padded_pixel(x, plane, v,
						    (int64_t)y0 - 1 + j,
						    (int64_t)x0 - 1 + i);
		return sum;
	}
	ix = pad_coordinate(v, ix, v->w);
	iy = pad_coordinate(v, iy, v->h);
	if (v->mode == GRID_NEAREST)
		return pixel(x, plane, v, (int64_t)nearbyint(iy),
			     (int64_t)nearbyint(ix));
	double x0 = floor(ix), y0 = floor(iy), fx = ix - x0, fy = iy - y0;
	int64_t a = (int64_t)x0, b = (int64_t)y0;

	return (1 - fy) * ((1 - fx) * pixel(x, plane, v, b, a) +
			   fx * pixel(x, plane, v, b, a + 1)) +
	       fy * ((1 - fx) * pixel(x, plane, v, b + 1, a) +
		     fx * pixel(x, plane, v, b + 1, a + 1));
}

static int grid_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct grid_view v;
	int status = grid_view_of(k, in, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	for (int64_t n = 0; n < v.n; n++)
	for (int64_t c = 0; c < v.c; c++)
	for (int64_t y = 0; y < v.oh; y++)
	for (int64_t xx = 0; xx < v.ow; xx++) {
		size_t g = (size_t)(((n * v.oh + y) * v.ow + xx) * 2);
		size_t plane = (size_t)((n * v.c + c) * v.h * v.w);
		double value = grid_sample_one(in[0], plane, &v,
					       rt_tensor_get_double(in[1], g),
					       rt_tensor_get_double(in[1], g + 1));

		rt_tensor_set_double(out[0], (size_t)(((n * v.c + c) * v.oh + y) *
						      v.ow + xx), value);
	}
	return 0;
}

/* ---- RoiAlign ---------------------------------------------------------- */

struct roi_view {
	int64_t oh, ow, sampling, rois;
	float scale;
	int max, half_pixel;
};

static int roi_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
		       struct roi_view *v)
{
	const char *mode, *coords;
	int status = rt_attr_string(k, "mode", "avg", &mode);

	if (!status)
		status = rt_attr_int(k, "output_height", 1, &v->oh);
	if (!status)
		status = rt_attr_int(k, "output_width", 1, &v->ow);
	if (!status)
		status = rt_attr_int(k, "sampling_ratio", 0, &v->sampling);
	if (!status)
		status = rt_attr_float(k, "spatial_scale", 1.0f, &v->scale);
	if (!status)
		status = rt_attr_string(k, "coordinate_transformation_mode",
					k->opset >= 16 ? "half_pixel" :
					"output_half_pixel", &coords);
	if (!status)
		status = float_input(k, in[0], "X");
	if (status)
		return status;
	if (strcmp(mode, "avg") && strcmp(mode, "max"))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "mode '%s'", mode);
	v->max = !strcmp(mode, "max");
	v->half_pixel = !strcmp(coords, "half_pixel");
	if (in[0]->rank != 4 || in[1]->rank != 2 || in[1]->dims[1] != 4 ||
	    rt_tensor_elements(in[2]) != (size_t)in[1]->dims[0])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "X [N,C,H,W], rois [R,4], batch_indices [R]");
	if (v->oh < 1 || v->ow < 1 || v->sampling < 0)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "output size or sampling_ratio invalid");
	v->rois = in[1]->dims[0];
	return 0;
}

static int roi_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct roi_view v;
	int64_t dims[4];
	int status = roi_view_of(k, in, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	dims[0] = v.rois;
	dims[1] = in[0]->dims[1];
	dims[2] = v.oh;
	dims[3] = v.ow;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 4, dims);
}

static int roi_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	int64_t channels = x->dims[1], height = x->dims[2], width = x->dims[3];
	struct roi_view v;
	int status = roi_view_of(k, in, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	for (int64_t r = 0; r < v.rois; r++) {
		int64_t b = rt_tensor_get_int(in[2], (size_t)r);
		double offset = v.half_pixel ? 0.5 : 0;
		double x0 = rt_tensor_get_double(in[1], (size_t)r * 4) * v.scale - offset;
		double y0 = rt_tensor_get_double(in[1], (size_t)r * 4 + 1) * v.scale - offset;
		double x1 = rt_tensor_get_double(in[1], (size_t)r * 4 + 2) * v.scale - offset;
		double y1 = rt_tensor_get_double(in[1], (size_t)r * 4 + 3) * v.scale - offset;
		double rw = x1 - x0, rh = y1 - y0, bw, bh;
		int64_t gh, gw;

		if (b < 0 || b >= x->dims[0])
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
					   "batch index %" PRId64 " out of range",
					   b);
		if (!v.half_pixel) {
			rw = fmax(rw, 1.0);
			rh = fmax(rh, 1.0);
		}
		bw = rw / (double)v.ow;
		bh = rh / (double)v.oh;
		gh = v.sampling > 0 ? v.sampling : (int64_t)ceil(rh / (double)v.oh);
		gw = v.sampling > 0 ? v.sampling : (int64_t)ceil(rw / (double)v.ow);
		for (int64_t c = 0; c < channels; c++)
		for (int64_t ph = 0; ph < v.oh; ph++)
		for (int64_t pw = 0; pw < v.ow; pw++) {
			size_t plane = (size_t)((b * channels + c) * height * width);
			double acc = 0, best = -INFINITY;
			int64_t count = gh * gw > 1 ? gh * gw : 1;

			for (int64_t iy = 0; iy < gh; iy++)
			for (int64_t ix = 0; ix < gw; ix++) {
				double yy = y0 + (double)ph * bh +
					    ((double)iy + 0.5) * bh / (double)gh;
				double xx = x0 + (double)pw * bw +
					    ((double)ix + 0.5) * bw / (double)gw;
				double w[4] = { 0, 0, 0, 0 }, p[4] = { 0, 0, 0, 0 };
				int64_t yl, xl, yh, xh;

				if (!(yy < -1.0 || yy > (double)height ||
				      xx < -1.0 || xx > (double)width)) {
					yy = fmax(yy, 0);
					xx = fmax(xx, 0);
					yl = (int64_t)yy;
					xl = (int64_t)xx;
					if (yl >= height - 1) {
						yh = yl = height - 1;
						yy = (double)yl;
					} else {
						yh = yl + 1;
					}
					if (xl >= width - 1) {
						xh = xl = width - 1;
						xx = (double)xl;
					} else {
						xh = xl + 1;
					}
					double ly = yy - (double)yl, lx = xx - (double)xl;

					w[0] = (1 - ly) * (1 - lx);
					w[1] = (1 - ly) * lx;
					w[2] = ly * (1 - lx);
					w[3] = ly * lx;
					p[0] = rt_tensor_get_double(x, plane + (size_t)(yl * width + xl));
					p[1] = rt_tensor_get_double(x, plane + (size_t)(yl * width + xh));
					p[2] = rt_tensor_get_double(x, plane + (size_t)(yh * width + xl));
					p[3] = rt_tensor_get_double(x, plane + (size_t)(yh * width + xh));
				}
				if (v.max) {
					/* ONNX Runtime: the largest weighted corner. */
					for (int q = 0; q < 4; q++)
						best = fmax(best, w[q] * p[q]);
				} else {
					for (int q = 0; q < 4; q++)
						acc += w[q] * p[q];
				}
			}
			rt_tensor_set_double(out[0],
				(size_t)(((r * channels + c) * v.oh + ph) * v.ow + pw),
				v.max ? best : acc / (double)count);
		}
	}
	return 0;
}

/* ---- NonMaxSuppression ------------------------------------------------- */

struct nms_params {
	int64_t max_per_class;
	double iou, score;
	int has_score, center;
	int64_t batches, classes, boxes;
};

static int nms_params_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct nms_params *p)
{
	int64_t center;
	int status = rt_attr_int(k, "center_point_box", 0, &center);

	if (status)
		return status;
	for (size_t i = 2; i < n_in; i++)
		if (in[i] && !in[i]->data)
			return RT_OP_NEEDS_VALUES;
	if (!in[0]->data || !in[1]->data)
		return RT_OP_NEEDS_VALUES;
	if (in[0]->rank != 3 || in[0]->dims[2] != 4 || in[1]->rank != 3 ||
	    in[1]->dims[0] != in[0]->dims[0] ||
	    in[1]->dims[2] != in[0]->dims[1])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "boxes [B,N,4] and scores [B,C,N] expected");
	p->center = center != 0;
	p->max_per_class = n_in > 2 && in[2] && rt_tensor_elements(in[2]) ?
			   rt_tensor_get_int(in[2], 0) : 0;
	p->iou = n_in > 3 && in[3] && rt_tensor_elements(in[3]) ?
		 rt_tensor_get_double(in[3], 0) : 0;
	p->has_score = n_in > 4 && in[4] && rt_tensor_elements(in[4]);
	p->score = p->has_score ? rt_tensor_get_double(in[4], 0) : 0;
	p->batches = in[0]->dims[0];
	p->classes = in[1]->dims[1];
	p->boxes = in[0]->dims[1];
	if (p->iou < 0 || p->iou > 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "iou_threshold %g outside [0, 1]", p->iou);
	return 0;
}

static void corners(const struct rt_tensor *b, size_t at, int center,
		    double c[4])
{
	double v[4];

	for (int i = 0; i < 4; i++)
		v[i] = rt_tensor_get_double(b, at + (size_t)i);
	if (center) {	/* x_center, y_center, width, height */
		c[0] = v[1] - v[3] / 2;
		c[1] = v[0] - v[2] / 2;
		c[2] = v[1] + v[3] / 2;
		c[3] = v[0] + v[2] / 2;
		return;
	}
	/* y1, x1, y2, x2 in any corner order */
	c[0] = fmin(v[0], v[2]);
	c[1] = fmin(v[1], v[3]);
	c[2] = fmax(v[0], v[2]);
	c[3] = fmax(v[1], v[3]);
}

static double iou(const double a[4], const double b[4])
{
	double h = fmin(a[2], b[2]) - fmax(a[0], b[0]);
	double w = fmin(a[3], b[3]) - fmax(a[1], b[1]);
	double inter, uni;

	if (h <= 0 || w <= 0)
		return 0;
	inter = h * w;
	uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) -
	      inter;
	return uni > 0 ? inter / uni : 0;
}

struct candidate {
	double score;
	int64_t index;
};

static int by_score(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Selected (batch, class, box) triples into @sel (NULL: count only). */
static int nms_select(struct rt_kernel *k, const struct rt_tensor *const *in,
		      const struct nms_params *p, int64_t *sel, size_t *count)
{
	struct candidate *cand = malloc(((size_t)p->boxes + 1) * sizeof(*cand));
	int64_t *kept = malloc(((size_t)p->boxes + 1) * sizeof(*kept));

	*count = 0;
	if (!cand || !kept) {
		free(cand);
		free(kept);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (int64_t b = 0; b < p->batches; b++)
	for (int64_t c = 0; c < p->classes; c++) {
		size_t n = 0, nk = 0;

		for (int64_t i = 0; i < p->boxes; i++) {
			double s = rt_tensor_get_double(in[1],
				(size_t)((b * p->classes + c) * p->boxes + i));

			if (!p->has_score || s > p->score) {
				cand[n].score = s;
				cand[n++].index = i;
			}
		}
		qsort(cand, n, sizeof(*cand), by_score);
		for (size_t i = 0; i < n && (int64_t)nk < p->max_per_class; i++) {
			double a[4];
			int keep = 1;

			corners(in[0], (size_t)((b * p->boxes + cand[i].index) * 4),
				p->center, a);
			for (size_t j = 0; j < nk && keep; j++) {
				double o[4];

				corners(in[0], (size_t)((b * p->boxes + kept[j]) * 4),
					p->center, o);
				keep = iou(a, o) <= p->iou;
			}
			if (!keep)
				continue;
			kept[nk++] = cand[i].index;
			if (sel) {
				sel[*count * 3] = b;
				sel[*count * 3 + 1] = c;
				sel[*count * 3 + 2] = cand[i].index;
			}
			(*count)++;
		}
	}
	free(cand);
	free(kept);
	return 0;
}

static int nms_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct nms_params p;
	size_t count;
	int64_t dims[2];
	int status = nms_params_of(k, in, n_in, &p);

	(void)n_out;
	if (!status)
		status = nms_select(k, in, &p, NULL, &count);
	if (status)
		return status;
	dims[0] = (int64_t)count;
	dims[1] = 3;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, 2, dims);
}

static int nms_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct nms_params p;
	size_t count;
	int status = nms_params_of(k, in, n_in, &p);

	(void)n_out;
	return status ? status : nms_select(k, in, &p, out[0]->data, &count);
}

/* ---- MaxUnpool --------------------------------------------------------- */

/*
 * Output dims: output_shape when given (@dims), and always the default
 * (in - 1) * stride + kernel - pads into @natural: the indices MaxPool
 * wrote address that shape, and are re-encoded into output_shape's.
 */
static int unpool_dims(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, int64_t *dims, int64_t *natural)
{
	const struct rt_tensor *x = in[0];
	const int64_t *kernel, *strides, *pads;
	size_t nk, ns, np;
	int axes = x->rank - 2;
	int status = rt_attr_ints(k, "kernel_shape", &kernel, &nk);

	if (!status)
		status = rt_attr_ints(k, "strides", &strides, &ns);
	if (!status)
		status = rt_attr_ints(k, "pads", &pads, &np);
	if (status)
		return status;
	if (axes < 1 || nk != (size_t)axes || (strides && ns != nk) ||
	    (pads && np != 2 * nk))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "kernel_shape, strides and pads do not "
				   "match %d spatial axes", axes);
	if (rt_dtype_size(x->dtype) == 0 || in[1]->rank != x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "X and I must have the same shape");
	natural[0] = x->dims[0];
	natural[1] = x->dims[1];
	for (int i = 0; i < axes; i++)
		natural[2 + i] = (x->dims[2 + i] - 1) *
				 (strides ? strides[i] : 1) + kernel[i] -
				 (pads ? pads[i] + pads[axes + i] : 0);
	memcpy(dims, natural, (size_t)x->rank * sizeof(*dims));
	if (n_in > 2 && in[2]) {
		size_t count;

		if (!in[2]->data)
			return RT_OP_NEEDS_VALUES;
		status = rt_tensor_read_ints(k, in[2], RT_MAX_RANK, dims, &count);
		if (!status && (count != (size_t)x->rank || dims[0] != natural[0] ||
				dims[1] != natural[1]))
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
					     "output_shape does not match N, C "
					     "and the rank");
		for (int i = 2; !status && i < x->rank; i++)
			if (dims[i] < natural[i])
				status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
						     "output_shape is smaller "
						     "than the unpooled input");
	}
	return status;
}

static int unpool_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int64_t dims[RT_MAX_RANK], natural[RT_MAX_RANK];
	int status = unpool_dims(k, in, n_in, dims, natural);

	(void)n_out;
	return status ? status : rt_tensor_set_shape(k, out[0], in[0]->dtype,
						     in[0]->rank, dims);
}

static int unpool_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t n = rt_tensor_elements(x), size = rt_dtype_size(x->dtype);
	int64_t dims[RT_MAX_RANK], natural[RT_MAX_RANK];
	size_t natural_total = 1;
	int status = unpool_dims(k, in, n_in, dims, natural);

	(void)n_out;
	if (status)
		return status;
	for (int d = 0; d < x->rank; d++)
		natural_total *= (size_t)natural[d];
	memset(out[0]->data, 0, out[0]->byte_size);
	for (size_t i = 0; i < n; i++) {
		int64_t at = rt_tensor_get_int(in[1], i), rest, to = 0;
		int64_t coord[RT_MAX_RANK];

		if (at < 0 || (size_t)at >= natural_total)
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
					   "index %" PRId64 " outside the "
					   "unpooled input of %zu elements", at,
					   natural_total);
		rest = at;
		for (int d = x->rank - 1; d >= 0; d--) {
			coord[d] = rest % natural[d];
			rest /= natural[d];
		}
		for (int d = 0; d < x->rank; d++)
			to = to * dims[d] + coord[d];
		memcpy((char *)out[0]->data + (size_t)to * size,
		       (const char *)x->data + i * size, size);
	}
	return 0;
}

const struct rt_op_def rt_ops_vision[] = {
	{ "GridSample", "", 16, 21, 2, 2, 1, 1, 0, grid_infer, NULL, grid_run,
	  NULL },
	{ "RoiAlign", "", 10, 21, 3, 3, 1, 1, 0, roi_infer, NULL, roi_run,
	  NULL },
	{ "NonMaxSuppression", "", 10, 21, 2, 5, 1, 1, 0, nms_infer, NULL,
	  nms_run, NULL },
	{ "MaxUnpool", "", 9, 21, 2, 3, 1, 1, 0, unpool_infer, NULL,
	  unpool_run, NULL },
	{ 0 },
};
