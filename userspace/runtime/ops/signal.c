// SPDX-License-Identifier: MIT
/*
 * Signal processing (opset 17): DFT (real or complex input, forward or
 * inverse, onesided, dft_length padding/truncation, any axis), STFT
 * (frames, optional window and frame_length, onesided), HannWindow,
 * HammingWindow, BlackmanWindow (periodic or symmetric) and
 * MelWeightMatrix (the ONNX reference's triangular filters).
 *
 * The transforms are direct sums over a twiddle table computed once per
 * call, in double: O(n^2) per signal, exact enough for the spec's
 * tolerance at the frame sizes speech front ends use (256-1024).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

static int scalar_int(struct rt_kernel *k, const struct rt_tensor *t,
		      const char *what, int64_t *v)
{
	if (!t->data)
		return RT_OP_NEEDS_VALUES;
	if (rt_tensor_elements(t) != 1 || !rt_dtype_is_integer(t->dtype))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%s must be one integer", what);
	*v = rt_tensor_get_int(t, 0);
	return 0;
}

/*
 * out[f] = sum_j in[j] e^{-+2 pi i f j / n} for f < bins, in[j] for
 * j < len (zero beyond), complex interleaved in @re/@im of stride 1.
 */
static void dft(const double *re, const double *im, size_t len, size_t n,
		size_t bins, int inverse, const double *cos_t,
		const double *sin_t, double *out_re, double *out_im)
{
	double sign = inverse ? 1 : -1;

	for (size_t f = 0; f < bins; f++) {
		double sr = 0, si = 0;

		for (size_t j = 0; j < len && j < n; j++) {
			size_t t = (f * j) % n;
			double c = cos_t[t], s = sign * sin_t[t];

			sr += re[j] * c - im[j] * s;
			si += re[j] * s + im[j] * c;
		}
		out_re[f] = inverse ? sr / (double)n : sr;
		out_im[f] = inverse ? si / (double)n : si;
	}
}

static int twiddles(struct rt_kernel *k, size_t n, double **c, double **s)
{
	*c = malloc((n + 1) * sizeof(**c));
	*s = malloc((n + 1) * sizeof(**s));
	if (!*c || !*s) {
		free(*c);
		free(*s);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (size_t t = 0; t < n; t++) {
		(*c)[t] = cos(2 * M_PI * (double)t / (double)n);
		(*s)[t] = sin(2 * M_PI * (double)t / (double)n);
	}
	return 0;
}

/* ---- DFT --------------------------------------------------------------- */

struct dft_view {
	int64_t axis, n, bins, len;
	int inverse, onesided, complex_in;
	size_t outer, inner;
};

static int dft_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct dft_view *v)
{
	const struct rt_tensor *x = in[0];
	int64_t axis, inverse, onesided;
	int status = rt_attr_int(k, "axis", 1, &axis);

	if (!status)
		status = rt_attr_int(k, "inverse", 0, &inverse);
	if (!status)
		status = rt_attr_int(k, "onesided", 0, &onesided);
	if (status)
		return status;
	if (!rt_dtype_is_float(x->dtype) || x->rank < 2 ||
	    (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input must be float [..., 1|2]");
	/* The axis counts among the signal axes (not the last one). */
	status = rt_axis(k, axis, x->rank - 1, &v->axis);
	if (status)
		return status;
	v->len = x->dims[v->axis];
	v->n = v->len;
	if (n_in > 1 && in[1]) {
		status = scalar_int(k, in[1], "dft_length", &v->n);
		if (status)
			return status;
		if (v->n < 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "dft_length %" PRId64 " is below 1",
					   v->n);
	}
	v->inverse = inverse != 0;
	v->onesided = onesided != 0;
	v->complex_in = x->dims[x->rank - 1] == 2;
	if (v->inverse && v->onesided)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "inverse onesided DFT is not supported");
	v->bins = v->onesided ? v->n / 2 + 1 : v->n;
	v->outer = v->inner = 1;
	for (int d = 0; d < x->rank - 1; d++) {
		if (d < v->axis)
			v->outer *= (size_t)x->dims[d];
		else if (d > v->axis)
			v->inner *= (size_t)x->dims[d];
	}
	return 0;
}

static int dft_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct dft_view v;
	int64_t dims[RT_MAX_RANK];
	int status = dft_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	memcpy(dims, in[0]->dims, sizeof(dims));
	dims[v.axis] = v.bins;
	dims[in[0]->rank - 1] = 2;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
}

static int dft_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct dft_view v;
	double *ct, *st, *buf;
	size_t comps, len;
	int status = dft_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	status = twiddles(k, (size_t)v.n, &ct, &st);
	if (status)
		return status;
	len = (size_t)v.len;
	buf = malloc((2 * len + 2 * (size_t)v.bins + 1) * sizeof(*buf));
	if (!buf) {
		free(ct);
		free(st);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	comps = v.complex_in ? 2 : 1;
	for (size_t o = 0; o < v.outer; o++)
	for (size_t i = 0; i < v.inner; i++) {
		double *re = buf, *im = buf + len, *orr = buf + 2 * len;
		double *oi = orr + v.bins;

		for (size_t j = 0; j < len; j++) {
			size_t at = ((o * len + j) * v.inner + i) * comps;

			re[j] = rt_tensor_get_double(x, at);
			im[j] = v.complex_in ? rt_tensor_get_double(x, at + 1) : 0;
		}
		dft(re, im, len, (size_t)v.n, (size_t)v.bins, v.inverse, ct, st,
		    orr, oi);
		for (size_t f = 0; f < (size_t)v.bins; f++) {
			size_t at = ((o * (size_t)v.bins + f) * v.inner + i) * 2;

			rt_tensor_set_double(out[0], at, orr[f]);
			rt_tensor_set_double(out[0], at + 1, oi[f]);
		}
	}
	free(buf);
	free(ct);
	free(st);
	return 0;
}

/* ---- STFT -------------------------------------------------------------- */

struct stft_view {
	int64_t batch, length, step, frame, frames, bins;
	int complex_in, onesided;
};

static int stft_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct stft_view *v)
{
	const struct rt_tensor *x = in[0];
	int64_t onesided;
	int status = rt_attr_int(k, "onesided", 1, &onesided);

	if (!status)
		status = scalar_int(k, in[1], "frame_step", &v->step);
	if (status)
		return status;
	if (!rt_dtype_is_float(x->dtype) || x->rank != 3 ||
	    (x->dims[2] != 1 && x->dims[2] != 2))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "signal must be float [batch, length, 1|2]");
	v->batch = x->dims[0];
	v->length = x->dims[1];
	v->complex_in = x->dims[2] == 2;
	v->frame = -1;
	if (n_in > 3 && in[3]) {
		status = scalar_int(k, in[3], "frame_length", &v->frame);
		if (status)
			return status;
	}
	if (n_in > 2 && in[2]) {
		int64_t w = (int64_t)rt_tensor_elements(in[2]);

		if (v->frame >= 0 && w != v->frame)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "window of %" PRId64 " for frames of "
					   "%" PRId64, w, v->frame);
		v->frame = w;
	}
	if (v->frame < 1 || v->step < 1 || v->frame > v->length)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "frame length %" PRId64 " / step %" PRId64
				   " do not fit %" PRId64, v->frame, v->step,
				   v->length);
	v->onesided = onesided != 0;
	v->frames = (v->length - v->frame) / v->step + 1;
	v->bins = v->onesided ? v->frame / 2 + 1 : v->frame;
	return 0;
}

static int stft_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct stft_view v;
	int64_t dims[4];
	int status = stft_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	dims[0] = v.batch;
	dims[1] = v.frames;
	dims[2] = v.bins;
	dims[3] = 2;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 4, dims);
}

static int stft_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	const struct rt_tensor *win = n_in > 2 ? in[2] : NULL;
	struct stft_view v;
	double *ct, *st, *buf;
	size_t frame, comps;
	int status = stft_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	frame = (size_t)v.frame;
	status = twiddles(k, frame, &ct, &st);
	if (status)
		return status;
	buf = malloc((4 * frame + 1) * sizeof(*buf));
	if (!buf) {
		free(ct);
		free(st);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	comps = v.complex_in ? 2 : 1;
	for (int64_t b = 0; b < v.batch; b++)
	for (int64_t f = 0; f < v.frames; f++) {
		double *re = buf, *im = buf + frame, *orr = buf + 2 * frame;
		double *oi = buf + 3 * frame;

		for (size_t j = 0; j < frame; j++) {
			size_t at = ((size_t)(b * v.length + f * v.step) + j) * comps;
			double w = win ? rt_tensor_get_double(win, j) : 1;

			re[j] = rt_tensor_get_double(x, at) * w;
			im[j] = v.complex_in ? rt_tensor_get_double(x, at + 1) * w : 0;
		}
		dft(re, im, frame, frame, (size_t)v.bins, 0, ct, st, orr, oi);
		for (size_t q = 0; q < (size_t)v.bins; q++) {
			size_t at = (((size_t)(b * v.frames + f)) * (size_t)v.bins + q) * 2;

			rt_tensor_set_double(out[0], at, orr[q]);
			rt_tensor_set_double(out[0], at + 1, oi[q]);
		}
	}
	free(buf);
	free(ct);
	free(st);
	return 0;
}

/* ---- Windows ----------------------------------------------------------- */

static int window_type(struct rt_kernel *k, int32_t *dtype)
{
	int64_t t;
	int status = rt_attr_int(k, "output_datatype", ENPU_RT_FLOAT, &t);

	if (status)
		return status;
	*dtype = (int32_t)t;
	if (!rt_dtype_is_float(*dtype) && !rt_dtype_is_integer(*dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "output type %s",
				   rt_dtype_name(*dtype));
	return 0;
}

static int window_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	int64_t size;
	int32_t dtype;
	int status = window_type(k, &dtype);

	(void)n_in;
	(void)n_out;
	if (!status)
		status = scalar_int(k, in[0], "size", &size);
	if (status)
		return status;
	if (size < 0 || size > ((int64_t)1 << 30))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "size %" PRId64 " is out of range", size);
	return rt_tensor_set_shape(k, out[0], dtype, 1, &size);
}

static int window_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int64_t periodic, size = out[0]->dims[0];
	int status = rt_attr_int(k, "periodic", 1, &periodic);
	double n;

	(void)in;
	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	n = (double)(periodic ? size : size - 1);
	for (int64_t i = 0; i < size; i++) {
		double a = n > 0 ? 2 * M_PI * (double)i / n : 0, w;

		if (!strcmp(k->op_type, "HannWindow"))
			w = 0.5 - 0.5 * cos(a);
		else if (!strcmp(k->op_type, "HammingWindow"))
			w = 25.0 / 46.0 - (1 - 25.0 / 46.0) * cos(a);
		else
			w = 0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a);
		rt_tensor_set_double(out[0], (size_t)i, w);
	}
	return 0;
}

/* ---- MelWeightMatrix --------------------------------------------------- */

struct mel_view {
	int64_t bins, dft, rate;
	double lower, upper;
	int32_t dtype;
};

static int mel_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
		       struct mel_view *v)
{
	int status = window_type(k, &v->dtype);

	if (!status)
		status = scalar_int(k, in[0], "num_mel_bins", &v->bins);
	if (!status)
		status = scalar_int(k, in[1], "dft_length", &v->dft);
	if (!status)
		status = scalar_int(k, in[2], "sample_rate", &v->rate);
	if (status)
		return status;
	if (!in[3]->data || !in[4]->data)
		return RT_OP_NEEDS_VALUES;
	v->lower = rt_tensor_get_double(in[3], 0);
	v->upper = rt_tensor_get_double(in[4], 0);
	if (v->bins < 1 || v->dft < 1 || v->rate < 1 || v->bins > 65536 ||
	    v->dft > ((int64_t)1 << 24) || !(v->lower >= 0) ||
	    !(v->upper > v->lower))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "mel parameters out of range");
	return 0;
}

static int mel_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct mel_view v;
	int64_t dims[2];
	int status = mel_view_of(k, in, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	dims[0] = v.dft / 2 + 1;
	dims[1] = v.bins;
	return rt_tensor_set_shape(k, out[0], v.dtype, 2, dims);
}

static int mel_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct mel_view v;
	int64_t *edge, spectrum;
	double low, high, step;
	int status = mel_view_of(k, in, &v);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	spectrum = v.dft / 2 + 1;
	edge = malloc(((size_t)v.bins + 2) * sizeof(*edge));
	if (!edge)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	low = 2595 * log10(1 + v.lower / 700);
	high = 2595 * log10(1 + v.upper / 700);
	step = (high - low) / (double)(v.bins + 2);
	for (int64_t i = 0; i < v.bins + 2; i++) {
		double hz = 700 * (pow(10, ((double)i * step + low) / 2595) - 1);

		edge[i] = (int64_t)floor((double)(v.dft + 1) * hz / (double)v.rate);
		if (edge[i] < 0)
			edge[i] = 0;
		if (edge[i] >= spectrum)
			edge[i] = spectrum - 1;
	}
	memset(out[0]->data, 0, out[0]->byte_size);
	for (int64_t m = 0; m < v.bins; m++) {
		int64_t l = edge[m], c = edge[m + 1], r = edge[m + 2];

		if (c == l) {
			rt_tensor_set_double(out[0], (size_t)(c * v.bins + m), 1);
		} else {
			for (int64_t j = l; j <= c; j++)
				rt_tensor_set_double(out[0], (size_t)(j * v.bins + m),
						     (double)(j - l) / (double)(c - l));
		}
		for (int64_t j = c; j < r; j++)
			rt_tensor_set_double(out[0], (size_t)(j * v.bins + m),
					     (double)(r - j) / (double)(r - c));
	}
	free(edge);
	return 0;
}

const struct rt_op_def rt_ops_signal[] = {
	{ "DFT", "", 17, 21, 1, 2, 1, 1, 0, dft_infer, NULL, dft_run, NULL },
	{ "STFT", "", 17, 21, 2, 4, 1, 1, 0, stft_infer, NULL, stft_run, NULL },
	{ "HannWindow", "", 17, 21, 1, 1, 1, 1, 0, window_infer, NULL,
	  window_run, NULL },
	{ "HammingWindow", "", 17, 21, 1, 1, 1, 1, 0, window_infer, NULL,
	  window_run, NULL },
	{ "BlackmanWindow", "", 17, 21, 1, 1, 1, 1, 0, window_infer, NULL,
	  window_run, NULL },
	{ "MelWeightMatrix", "", 17, 21, 5, 5, 1, 1, 0, mel_infer, NULL,
	  mel_run, NULL },
	{ 0 },
};
