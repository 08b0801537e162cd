// SPDX-License-Identifier: MIT
/*
 * ai.enpu QResize(x, x_scale, x_zero_point, y_scale, y_zero_point, scales)
 * (opset 1): what the lowering makes of Q(Resize(DQ(x))) with linear
 * interpolation of the two spatial axes of a 4-D 8-bit tensor (U-Net's
 * bilinear 2x upsampling). Attributes: coordinate_transformation_mode
 * (half_pixel, the default, pytorch_half_pixel, align_corners or
 * asymmetric) and channels_last. scales is Resize's constant [1, 1, sh,
 * sw]; the output has floor(H * sh) x floor(W * sw) pixels.
 *
 * The bytes are the float path's (DequantizeLinear, the float Resize of
 * ops/resize.c, QuantizeLinear): the input is dequantized through a
 * 256-entry table filled by the float kernel table's dequantize row,
 * each output row is first the weighted sum of its two input rows,
 * (0 + w0 * a) + w1 * b, then each output pixel that of two columns of
 * it, with the weights computed in double and rounded to float as the
 * float Resize does, and the result is quantized by the float table's
 * quantize row. What differs is that nothing float leaves the task: per
 * band of output rows one input row pair in float, in L1, and the 8-bit
 * output written directly, NHWC (channels innermost, where the vectors
 * run) or NCHW.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "qnhwc.h"

enum coordinates { HALF_PIXEL, PYTORCH_HALF_PIXEL, ALIGN_CORNERS, ASYMMETRIC };

/* Output rows per task. */
#define BAND_ROWS 8

struct geometry {
	size_t batch, channels, ih, iw, oh, ow;
	double sh, sw;
	int channels_last;
	enum coordinates coordinates;
};

static int read_geometry(struct rt_kernel *k, const struct rt_tensor *const *in,
			 struct geometry *g)
{
	static const char *const names[] = {
		"half_pixel", "pytorch_half_pixel", "align_corners",
		"asymmetric",
	};
	const struct rt_tensor *x = in[RT_QRESIZE_X], *s = in[RT_QRESIZE_SCALES];
	const char *mode;
	int status = rt_q_channels_last(k, &g->channels_last);
	const float *scales;
	size_t i;

	if (!status)
		status = rt_attr_string(k, "coordinate_transformation_mode",
					"half_pixel", &mode);
	if (status)
		return status;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(mode, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "coordinate_transformation_mode '%s' is "
				   "not supported", mode);
	g->coordinates = (enum coordinates)i;
	if (x->rank != 4 || !s || s->dtype != ENPU_RT_FLOAT ||
	    rt_tensor_elements(s) != 4 || !s->data)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "needs a 4-D input and 4 constant float "
				   "scales");
	scales = s->data;
	if (scales[0] != 1 || scales[1] != 1 || !(scales[2] > 0) ||
	    !(scales[3] > 0) || !isfinite(scales[2]) || !isfinite(scales[3]))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "only the two spatial axes may be scaled, "
				   "by positive finite factors");
	g->batch = (size_t)x->dims[0];
	g->channels = (size_t)x->dims[g->channels_last ? 3 : 1];
	g->ih = (size_t)x->dims[g->channels_last ? 1 : 2];
	g->iw = (size_t)x->dims[g->channels_last ? 2 : 3];
	g->sh = scales[2];
	g->sw = scales[3];
	g->oh = (size_t)floor((double)g->ih * g->sh);
	g->ow = (size_t)floor((double)g->iw * g->sw);
	return 0;
}

static int qresize_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			 size_t n_in, struct rt_tensor *const *out,
			 size_t n_out)
{
	struct geometry g;
	int64_t dims[4];
	int status;

	(void)n_in;
	(void)n_out;
	if (!rt_q_is_8bit(in[RT_QRESIZE_X]->dtype) ||
	    !in[RT_QRESIZE_Y_ZERO] ||
	    in[RT_QRESIZE_Y_ZERO]->dtype != in[RT_QRESIZE_X]->dtype)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "x and y_zero_point must share one 8-bit "
				   "type");
	status = read_geometry(k, in, &g);
	if (status)
		return status;
	dims[0] = (int64_t)g.batch;
	dims[g.channels_last ? 3 : 1] = (int64_t)g.channels;
	dims[g.channels_last ? 1 : 2] = (int64_t)g.oh;
	dims[g.channels_last ? 2 : 3] = (int64_t)g.ow;
	return rt_tensor_set_shape(k, out[0], in[RT_QRESIZE_X]->dtype, 4, dims);
}

/* One axis's two taps for every output index, as ops/resize.c has them. */
struct taps {
	size_t *i0, *i1;
	float *w0, *w1;
};

static void axis_taps(enum coordinates mode, size_t in_len, double scale,
		      size_t out_count, struct taps *t)
{
	/* ONNX measures the output in unrounded input * scale. */
	double out_len = (double)in_len * scale;

	for (size_t o = 0; o < out_count; o++) {
		double x = (double)o, f;
		int64_t i;

		switch (mode) {
		case HALF_PIXEL:
			x = (x + 0.5) / scale - 0.5;
			break;
		case PYTORCH_HALF_PIXEL:
			x = out_len > 1 ? (x + 0.5) / scale - 0.5 : 0;
			break;
		case ALIGN_CORNERS:
			x = out_len > 1 ?
			    x * (double)(in_len - 1) / (out_len - 1) : 0;
			break;
		case ASYMMETRIC:
			x = x / scale;
			break;
		}
		f = floor(x);
		i = (int64_t)f;
		t->i0[o] = i < 0 ? 0 : i >= (int64_t)in_len ? in_len - 1 :
			   (size_t)i;
		t->i1[o] = i + 1 < 0 ? 0 : i + 1 >= (int64_t)in_len ?
			   in_len - 1 : (size_t)(i + 1);
		t->w0[o] = (float)(1 - (x - f));
		t->w1[o] = (float)(x - f);
	}
}

struct qresize_job {
	const struct geometry *g;
	const struct enpu_fmath_kernels *f;
	const uint8_t *x;
	uint8_t *y;
	float dq[256];		/* the input's DequantizeLinear per byte */
	float x_scale, y_scale;
	int32_t x_zero, y_zero;
	int is_signed;
	struct taps ty, tx;
	size_t bands;
	atomic_int failed;	/* a task had no memory for its rows */
};

/*
 * y = (0 + wa * a) + wb * b, the float Resize's two-tap sum. BLEND
 * elements at a time with restrict pointers: a loop the compiler
 * vectorizes at -O2 (a fixed count needs no scalar epilogue, restrict no
 * overlap check); the callers run the tail through blend_tail().
 */
#define BLEND 16

static void blend(const float *restrict a, const float *restrict b,
		  float wa, float wb, float *restrict y)
{
	for (int l = 0; l < BLEND; l++) {
		float v = 0.0f;

		v += wa * a[l];
		v += wb * b[l];
		y[l] = v;
	}
}

static void blend_row(const float *a, const float *b, float wa, float wb,
		      float *y, size_t n)
{
	size_t i = 0;

	for (; i + BLEND <= n; i += BLEND)
		blend(a + i, b + i, wa, wb, y + i);
	for (; i < n; i++) {
		float v = 0.0f;

		v += wa * a[i];
		v += wb * b[i];
		y[i] = v;
	}
}

/*
 * NHWC: the input rows are contiguous, so each is dequantized whole by
 * the float table's row kernel (the same values as the 256-entry table)
 * into one of two row buffers, kept while the next output row reads it
 * again (upsampling reads each input row for two or more output rows).
 */
static void run_band_nhwc(const struct qresize_job *j, size_t task,
			  float *scratch)
{
	const struct geometry *g = j->g;
	size_t image = task / j->bands, y0 = task % j->bands * BAND_ROWS;
	size_t y1 = y0 + BAND_ROWS < g->oh ? y0 + BAND_ROWS : g->oh;
	size_t c_count = g->channels, n_in = g->iw * c_count;
	size_t n_out = g->ow * c_count, held[2] = { SIZE_MAX, SIZE_MAX };
	const uint8_t *x = j->x + image * g->ih * n_in;
	uint8_t *y = j->y + image * g->oh * n_out;
	float *input[2] = { scratch, scratch + n_in };
	float *row = scratch + 2 * n_in, *out = row + n_in;

	for (size_t oy = y0; oy < y1; oy++) {
		size_t want[2] = { j->ty.i0[oy], j->ty.i1[oy] };
		const float *ra, *rb;
		float wa = j->ty.w0[oy], wb = j->ty.w1[oy];

		for (int s = 0; s < 2; s++) {
			int slot;

			if (held[0] == want[s] || held[1] == want[s])
				continue;
			/* Replace the buffer the other tap does not need. */
			slot = held[0] == want[!s] ? 1 : 0;
			j->f->dequantize(n_in, x + want[s] * n_in, j->x_scale,
					 j->x_zero, j->is_signed, input[slot]);
			held[slot] = want[s];
		}
		ra = input[held[0] == want[0] ? 0 : 1];
		rb = input[held[0] == want[1] ? 0 : 1];
		blend_row(ra, rb, wa, wb, row, n_in);
		for (size_t ox = 0; ox < g->ow; ox++)
			blend_row(row + j->tx.i0[ox] * c_count,
				  row + j->tx.i1[ox] * c_count, j->tx.w0[ox],
				  j->tx.w1[ox], out + ox * c_count, c_count);
		j->f->quantize(n_out, out, j->y_scale, j->y_zero, j->is_signed,
			       y + oy * n_out);
	}
}

/* NCHW: the same sums, the input gathered through the table per element. */
static void run_band_nchw(const struct qresize_job *j, size_t task,
			  float *scratch)
{
	const struct geometry *g = j->g;
	size_t image = task / j->bands, y0 = task % j->bands * BAND_ROWS;
	size_t y1 = y0 + BAND_ROWS < g->oh ? y0 + BAND_ROWS : g->oh;
	size_t c_count = g->channels, plane = g->ih * g->iw;
	const uint8_t *x = j->x + image * c_count * plane;
	uint8_t *y = j->y + image * c_count * g->oh * g->ow;
	float *row = scratch, *out = row + g->iw, *plane_row = out + g->ow;

	for (size_t oy = y0; oy < y1; oy++)
		for (size_t c = 0; c < c_count; c++) {
			const uint8_t *xa = x + (c * g->ih + j->ty.i0[oy]) * g->iw;
			const uint8_t *xb = x + (c * g->ih + j->ty.i1[oy]) * g->iw;
			float wa = j->ty.w0[oy], wb = j->ty.w1[oy];

			for (size_t i = 0; i < g->iw; i++) {
				float v = 0.0f;

				v += wa * j->dq[xa[i]];
				v += wb * j->dq[xb[i]];
				row[i] = v;
			}
			for (size_t ox = 0; ox < g->ow; ox++) {
				float v = 0.0f;

				v += j->tx.w0[ox] * row[j->tx.i0[ox]];
				v += j->tx.w1[ox] * row[j->tx.i1[ox]];
				plane_row[ox] = v;
			}
			j->f->quantize(g->ow, plane_row, j->y_scale, j->y_zero,
				       j->is_signed,
				       y + (c * g->oh + oy) * g->ow);
		}
}

/* One band: its input row pair and output row in float, in the cache. */
static void run_task(void *argument, size_t task)
{
	struct qresize_job *j = argument;
	const struct geometry *g = j->g;
	size_t n_in = g->iw * g->channels, n_out = g->ow * g->channels;
	/* NHWC: two input rows, the row pass, the output; NCHW: less. */
	float *scratch = malloc((3 * n_in + n_out + g->ow) * sizeof(float));

	if (!scratch) {
		atomic_store(&j->failed, 1);
		return;
	}
	if (g->channels_last)
		run_band_nhwc(j, task, scratch);
	else
		run_band_nchw(j, task, scratch);
	free(scratch);
}

static int qresize_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	const struct rt_tensor *x = in[RT_QRESIZE_X];
	struct qresize_job j = { .x = x->data, .y = out[0]->data };
	struct geometry g;
	double x_scale, y_scale;
	uint8_t bytes[256];
	size_t *index;
	float *weight;
	int status = read_geometry(k, in, &g);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = rt_q_scale(k, in[RT_QRESIZE_X_SCALE], "x_scale",
				    &x_scale);
	if (!status)
		status = rt_q_zero_point(k, in[RT_QRESIZE_X_ZERO], "x_zero_point",
					 x->dtype, &j.x_zero);
	if (!status)
		status = rt_q_scale(k, in[RT_QRESIZE_Y_SCALE], "y_scale",
				    &y_scale);
	if (!status)
		status = rt_q_zero_point(k, in[RT_QRESIZE_Y_ZERO], "y_zero_point",
					 x->dtype, &j.y_zero);
	if (status)
		return status;
	if (!g.batch || !g.channels || !g.oh || !g.ow)
		return 0;
	index = malloc(2 * (g.oh + g.ow) * sizeof(*index));
	weight = malloc(2 * (g.oh + g.ow) * sizeof(*weight));
	if (!index || !weight) {
		free(index);
		free(weight);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				   "out of memory for the taps");
	}
	j.ty = (struct taps){ index, index + g.oh, weight, weight + g.oh };
	j.tx = (struct taps){ index + 2 * g.oh, index + 2 * g.oh + g.ow,
			      weight + 2 * g.oh, weight + 2 * g.oh + g.ow };
	axis_taps(g.coordinates, g.ih, g.sh, g.oh, &j.ty);
	axis_taps(g.coordinates, g.iw, g.sw, g.ow, &j.tx);
	j.g = &g;
	j.f = enpu_cpu_fmath(k->cpu);
	j.is_signed = x->dtype == ENPU_RT_INT8;
	j.x_scale = (float)x_scale;
	j.y_scale = (float)y_scale;
	for (int v = 0; v < 256; v++)
		bytes[v] = (uint8_t)v;
	j.f->dequantize(256, bytes, j.x_scale, j.x_zero, j.is_signed, j.dq);
	j.bands = (g.oh + BAND_ROWS - 1) / BAND_ROWS;
	atomic_init(&j.failed, 0);
	enpu_cpu_parallel_for(k->cpu, g.batch * j.bands, run_task, &j);
	free(index);
	free(weight);
	return atomic_load(&j.failed) ?
	       rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
			   "out of memory for a band of rows") : 0;
}

const struct rt_op_def rt_ops_qresize[] = {
	{ RT_QRESIZE_OP, RT_ENPU_DOMAIN, 1, 1, RT_QRESIZE_INPUTS, RT_QRESIZE_INPUTS, 1,
	  1, 0, qresize_infer, NULL, qresize_run, NULL },
	{ 0 },
};
