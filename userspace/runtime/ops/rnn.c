// SPDX-License-Identifier: MIT
/*
 * RNN, GRU and LSTM (float), all directions, sequence_lens, initial
 * states, LSTM peepholes and input_forget, GRU linear_before_reset, clip,
 * both layouts (opset 14) and the activation functions the spec lists
 * (Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh,
 * HardSigmoid, Elu, Softsign, Softplus) with their alpha/beta lists.
 *
 * Each time step computes every gate for the whole batch: the input
 * projection X_t W^T for all steps up front (one product per direction),
 * then per step the recurrent one H_{t-1} R^T; dot products accumulate in
 * double. Batch rows past their sequence length keep their state and
 * write zeros to Y, as ONNX Runtime does.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_op.h"

enum cell { CELL_RNN, CELL_GRU, CELL_LSTM };

enum act_kind {
	ACT_RELU, ACT_TANH, ACT_SIGMOID, ACT_AFFINE, ACT_LEAKY_RELU,
	ACT_THRESHOLDED_RELU, ACT_SCALED_TANH, ACT_HARD_SIGMOID, ACT_ELU,
	ACT_SOFTSIGN, ACT_SOFTPLUS,
};

struct activation {
	enum act_kind kind;
	double alpha, beta;
};

struct rnn_view {
	enum cell cell;
	int gates;		/* 1, 3, 4 */
	int dirs;
	int reverse;		/* direction == reverse */
	int layout;
	int64_t seq, batch, input, hidden;
	double clip;
	int linear_before_reset, input_forget;
	struct activation act[2][3];
};

static const struct {
	const char *name;
	enum act_kind kind;
	double alpha, beta;	/* defaults */
	int params;		/* how many of alpha, beta it takes */
} act_names[] = {
	{ "Relu", ACT_RELU, 0, 0, 0 },
	{ "Tanh", ACT_TANH, 0, 0, 0 },
	{ "Sigmoid", ACT_SIGMOID, 0, 0, 0 },
	{ "Affine", ACT_AFFINE, 1, 0, 2 },
	{ "LeakyRelu", ACT_LEAKY_RELU, 0.01, 0, 1 },
	{ "ThresholdedRelu", ACT_THRESHOLDED_RELU, 1, 0, 1 },
	{ "ScaledTanh", ACT_SCALED_TANH, 1, 1, 2 },
	{ "HardSigmoid", ACT_HARD_SIGMOID, 0.2, 0.5, 2 },
	{ "Elu", ACT_ELU, 1, 0, 1 },
	{ "Softsign", ACT_SOFTSIGN, 0, 0, 0 },
	{ "Softplus", ACT_SOFTPLUS, 0, 0, 0 },
};

static double activate(const struct activation *a, double x)
{
	switch (a->kind) {
	case ACT_RELU: return x > 0 ? x : 0;
	case ACT_TANH: return tanh(x);
	case ACT_SIGMOID: return 1 / (1 + exp(-x));
	case ACT_AFFINE: return a->alpha * x + a->beta;
	case ACT_LEAKY_RELU: return x < 0 ? a->alpha * x : x;
	case ACT_THRESHOLDED_RELU: return x > a->alpha ? x : 0;
	case ACT_SCALED_TANH: return a->alpha * tanh(a->beta * x);
	case ACT_HARD_SIGMOID: return fmax(0, fmin(1, a->alpha * x + a->beta));
	case ACT_ELU: return x < 0 ? a->alpha * expm1(x) : x;
	case ACT_SOFTSIGN: return x / (1 + fabs(x));
	default: return log1p(exp(x));
	}
}

static int read_activations(struct rt_kernel *k, struct rnn_view *v)
{
	static const char *const defaults[3][3] = {
		{ "Tanh" }, { "Sigmoid", "Tanh" }, { "Sigmoid", "Tanh", "Tanh" },
	};
	const struct rt_attr *names = rt_attr_find(k, "activations");
	const float *alpha, *beta;
	size_t n_alpha, n_beta, ia = 0, ib = 0;
	int per = v->cell == CELL_RNN ? 1 : v->cell == CELL_GRU ? 2 : 3;
	int status = rt_attr_floats(k, "activation_alpha", &alpha, &n_alpha);

	if (!status)
		status = rt_attr_floats(k, "activation_beta", &beta, &n_beta);
	if (status)
		return status;
	if (names && (names->type != RT_ATTR_STRINGS ||
		      (names->count != (size_t)per &&
		       names->count != (size_t)(per * v->dirs))))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "activations must list %d names per "
				   "direction", per);
	for (int d = 0; d < v->dirs; d++)
	for (int j = 0; j < per; j++) {
		size_t at = (size_t)(d * per + j);
		const char *name = !names ? defaults[per - 1][j] :
				   names->strings[at % names->count];
		size_t i = 0;

		for (; i < sizeof(act_names) / sizeof(act_names[0]); i++)
			if (!strcasecmp(name, act_names[i].name))
				break;
		if (i == sizeof(act_names) / sizeof(act_names[0]))
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "activation '%s' is not supported",
					   name);
		v->act[d][j].kind = act_names[i].kind;
		v->act[d][j].alpha = act_names[i].alpha;
		v->act[d][j].beta = act_names[i].beta;
		/* alpha and beta lists are consumed in activation order. */
		if (act_names[i].params >= 1 && names && ia < n_alpha)
			v->act[d][j].alpha = alpha[ia++];
		if (act_names[i].params >= 2 && names && ib < n_beta)
			v->act[d][j].beta = beta[ib++];
	}
	return 0;
}

static int rnn_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rnn_view *v)
{
	const struct rt_tensor *x = in[0], *w = in[1], *r = in[2];
	const char *direction;
	int64_t hidden, layout = 0, lbr = 0, forget = 0;
	float clip;
	int status;

	memset(v, 0, sizeof(*v));
	v->cell = !strcmp(k->op_type, "RNN") ? CELL_RNN :
		  !strcmp(k->op_type, "GRU") ? CELL_GRU : CELL_LSTM;
	v->gates = v->cell == CELL_RNN ? 1 : v->cell == CELL_GRU ? 3 : 4;
	status = rt_attr_string(k, "direction", "forward", &direction);
	if (!status)
		status = rt_attr_int(k, "hidden_size", 0, &hidden);
	if (!status)
		status = rt_attr_float(k, "clip", 0.0f, &clip);
	if (!status && k->opset >= 14)
		status = rt_attr_int(k, "layout", 0, &layout);
	if (!status && v->cell == CELL_GRU)
		status = rt_attr_int(k, "linear_before_reset", 0, &lbr);
	if (!status && v->cell == CELL_LSTM)
		status = rt_attr_int(k, "input_forget", 0, &forget);
	if (status)
		return status;
	if (!strcmp(direction, "bidirectional"))
		v->dirs = 2;
	else if (!strcmp(direction, "forward") || !strcmp(direction, "reverse"))
		v->dirs = 1;
	else
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "direction '%s'", direction);
	v->reverse = !strcmp(direction, "reverse");
	v->layout = layout != 0;
	v->clip = clip > 0 ? clip : INFINITY;
	v->linear_before_reset = lbr != 0;
	v->input_forget = forget != 0;
	for (size_t i = 0; i < n_in; i++)
		if (in[i] && i != 4 && !rt_dtype_is_float(in[i]->dtype))
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "input %zu type %s", i,
					   rt_dtype_name(in[i]->dtype));
	if (x->rank != 3 || w->rank != 3 || r->rank != 3)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "X, W and R must have rank 3");
	v->seq = x->dims[v->layout ? 1 : 0];
	v->batch = x->dims[v->layout ? 0 : 1];
	v->input = x->dims[2];
	v->hidden = hidden ? hidden : r->dims[2];
	if (w->dims[0] != v->dirs || w->dims[1] != v->gates * v->hidden ||
	    w->dims[2] != v->input || r->dims[0] != v->dirs ||
	    r->dims[1] != v->gates * v->hidden || r->dims[2] != v->hidden)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "W or R does not match %d direction(s), %d "
				   "gates and hidden size %" PRId64, v->dirs,
				   v->gates, v->hidden);
	if (n_in > 3 && in[3] && rt_tensor_elements(in[3]) !=
	    (size_t)(v->dirs * 2 * v->gates * v->hidden))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "B has the wrong size");
	if (n_in > 4 && in[4] && rt_tensor_elements(in[4]) !=
	    (size_t)v->batch)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "sequence_lens holds %zu lengths for a batch "
				   "of %" PRId64, rt_tensor_elements(in[4]),
				   v->batch);
	if (n_in > 7 && in[7] && rt_tensor_elements(in[7]) !=
	    (size_t)(v->dirs * 3 * v->hidden))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "P has the wrong size");
	for (size_t i = 5; i < 7 && i < n_in; i++)
		if (in[i] && rt_tensor_elements(in[i]) !=
		    (size_t)(v->dirs * v->batch * v->hidden))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "initial state %zu has the wrong size",
					   i);
	return read_activations(k, v);
}

static int rnn_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rnn_view v;
	int64_t y[4], h[3];
	int32_t t = in[0]->dtype;
	int status = rnn_view_of(k, in, n_in, &v);

	if (status)
		return status;
	if (v.layout) {
		y[0] = v.batch;
		y[1] = v.seq;
		y[2] = v.dirs;
		h[0] = v.batch;
		h[1] = v.dirs;
	} else {
		y[0] = v.seq;
		y[1] = v.dirs;
		y[2] = v.batch;
		h[0] = v.dirs;
		h[1] = v.batch;
	}
	y[3] = v.hidden;
	h[2] = v.hidden;
	if (out[0])
		status = rt_tensor_set_shape(k, out[0], t, 4, y);
	for (size_t o = 1; !status && o < n_out; o++)
		if (out[o])
			status = rt_tensor_set_shape(k, out[o], t, 3, h);
	return status;
}

static double gate_clip(const struct rnn_view *v, double x)
{
	return x > v->clip ? v->clip : x < -v->clip ? -v->clip : x;
}

/* Element offsets of X[t][b][i] and Y[t][d][b][h] in both layouts. */
static size_t x_at(const struct rnn_view *v, int64_t t, int64_t b)
{
	return (size_t)((v->layout ? b * v->seq + t : t * v->batch + b) *
			v->input);
}

static size_t y_at(const struct rnn_view *v, int64_t t, int d, int64_t b)
{
	return (size_t)((v->layout ?
			 (b * v->seq + t) * v->dirs + d :
			 (t * v->dirs + d) * v->batch + b) * v->hidden);
}

static size_t h_at(const struct rnn_view *v, int d, int64_t b)
{
	return (size_t)((v->layout ? b * v->dirs + d : d * v->batch + b) *
			v->hidden);
}

static double tget(const struct rt_tensor *t, size_t i)
{
	return rt_tensor_get_double(t, i);
}

static int rnn_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0], *w = in[1], *r = in[2];
	const struct rt_tensor *bias = n_in > 3 ? in[3] : NULL;
	const struct rt_tensor *lens = n_in > 4 ? in[4] : NULL;
	const struct rt_tensor *h0 = n_in > 5 ? in[5] : NULL;
	const struct rt_tensor *c0 = n_in > 6 ? in[6] : NULL;
	const struct rt_tensor *peep = n_in > 7 ? in[7] : NULL;
	struct rnn_view v;
	double *h, *c, *g, *xw;
	size_t gh;
	int status = rnn_view_of(k, in, n_in, &v);

	if (status)
		return status;
	gh = (size_t)(v.gates * v.hidden);
	h = calloc((size_t)(v.batch * v.hidden) + 1, sizeof(*h));
	c = calloc((size_t)(v.batch * v.hidden) + 1, sizeof(*c));
	g = calloc(gh + 1, sizeof(*g));
	xw = calloc((size_t)v.seq * (size_t)v.batch * gh + 1, sizeof(*xw));
	if (!h || !c || !g || !xw) {
		free(h);
		free(c);
		free(g);
		free(xw);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	if (out[0])
		memset(out[0]->data, 0, out[0]->byte_size);
	for (int d = 0; d < v.dirs; d++) {
		int backward = v.reverse || d == 1;
		size_t wb = (size_t)d * gh * (size_t)v.input;
		size_t rb = (size_t)d * gh * (size_t)v.hidden;
		size_t bb = (size_t)d * 2 * gh;

		for (int64_t b = 0; b < v.batch; b++)
			for (int64_t j = 0; j < v.hidden; j++) {
				size_t s = h_at(&v, d, b) + (size_t)j;

				h[b * v.hidden + j] = h0 ? tget(h0, s) : 0;
				c[b * v.hidden + j] = c0 ? tget(c0, s) : 0;
			}
		/* X_t W^T + Wb for every step and batch row. */
		for (int64_t t = 0; t < v.seq; t++)
		for (int64_t b = 0; b < v.batch; b++) {
			double *row = xw + ((size_t)t * (size_t)v.batch + (size_t)b) * gh;
			size_t xa = x_at(&v, t, b);

			for (size_t q = 0; q < gh; q++) {
				double s = bias ? tget(bias, bb + q) : 0;

				for (int64_t i = 0; i < v.input; i++)
					s += tget(x, xa + (size_t)i) *
					     tget(w, wb + q * (size_t)v.input + (size_t)i);
				row[q] = s;
			}
		}
		for (int64_t b = 0; b < v.batch; b++) {
			int64_t len = lens ? rt_tensor_get_int(lens, (size_t)b) : v.seq;
			double *hb = h + b * v.hidden, *cb = c + b * v.hidden;

			if (len < 0 || len > v.seq) {
				free(h);
				free(c);
				free(g);
				free(xw);
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "sequence length %" PRId64
						   " outside 0..%" PRId64, len,
						   v.seq);
			}
			for (int64_t step = 0; step < len; step++) {
				int64_t t = backward ? len - 1 - step : step;
				const double *xt = xw + ((size_t)t * (size_t)v.batch +
							 (size_t)b) * gh;

				/* g = X_t W^T + H R^T + Wb + Rb (GRU: h gate apart). */
				for (size_t q = 0; q < gh; q++) {
					double s = bias ? tget(bias, bb + gh + q) : 0;
					int h_gate = v.cell == CELL_GRU &&
						     q >= 2 * (size_t)v.hidden;

					if (!h_gate || v.linear_before_reset)
						for (int64_t i = 0; i < v.hidden; i++)
							s += hb[i] * tget(r, rb + q *
								(size_t)v.hidden + (size_t)i);
					g[q] = h_gate ? s : s + xt[q];
				}
				if (v.cell == CELL_RNN) {
					for (int64_t j = 0; j < v.hidden; j++)
						hb[j] = activate(&v.act[d][0],
								 gate_clip(&v, g[j]));
				} else if (v.cell == CELL_GRU) {
					size_t H = (size_t)v.hidden;
					double *z = g, *rr = g + H, *hh = g + 2 * H;
					for (size_t j = 0; j < H; j++) {
						z[j] = activate(&v.act[d][0],
								gate_clip(&v, z[j]));
						rr[j] = activate(&v.act[d][0],
								 gate_clip(&v, rr[j]));
					}
					for (size_t j = 0; j < H; j++) {
						double s;

						if (v.linear_before_reset) {
							s = xt[2 * H + j] + rr[j] * hh[j];
						} else {
							s = bias ? tget(bias, bb + gh + 2 * H + j) : 0;
							for (size_t i = 0; i < H; i++)
								s += rr[i] * hb[i] *
								     tget(r, rb + (2 * H + j) * H + i);
							s += xt[2 * H + j];
						}
						hh[j] = activate(&v.act[d][1],
								 gate_clip(&v, s));
					}
					for (size_t j = 0; j < H; j++)
						hb[j] = (1 - z[j]) * hh[j] + z[j] * hb[j];
				} else {
					size_t H = (size_t)v.hidden, pb = (size_t)d * 3 * H;
					double *ig = g, *og = g + H, *fg = g + 2 * H,
					       *cg = g + 3 * H;

					for (size_t j = 0; j < H; j++) {
						double pi = peep ? tget(peep, pb + j) : 0;
						double pf = peep ? tget(peep, pb + 2 * H + j) : 0;
						double po = peep ? tget(peep, pb + H + j) : 0;
						double i_ = activate(&v.act[d][0],
							gate_clip(&v, ig[j] + pi * cb[j]));
						double f_ = v.input_forget ? 1 - i_ :
							activate(&v.act[d][0],
								 gate_clip(&v, fg[j] + pf * cb[j]));
						double c_ = activate(&v.act[d][1],
								     gate_clip(&v, cg[j]));
						double o_;

						cb[j] = f_ * cb[j] + i_ * c_;
						o_ = activate(&v.act[d][0],
							      gate_clip(&v, og[j] + po * cb[j]));
						hb[j] = o_ * activate(&v.act[d][2], cb[j]);
					}
				}
				if (out[0])
					for (int64_t j = 0; j < v.hidden; j++)
						rt_tensor_set_double(out[0],
							y_at(&v, t, d, b) + (size_t)j, hb[j]);
			}
		}
		for (int64_t b = 0; b < v.batch; b++)
			for (int64_t j = 0; j < v.hidden; j++) {
				size_t s = h_at(&v, d, b) + (size_t)j;

				if (n_out > 1 && out[1])
					rt_tensor_set_double(out[1], s,
							     h[b * v.hidden + j]);
				if (n_out > 2 && out[2])
					rt_tensor_set_double(out[2], s,
							     c[b * v.hidden + j]);
			}
	}
	free(h);
	free(c);
	free(g);
	free(xw);
	return 0;
}

const struct rt_op_def rt_ops_rnn[] = {
	{ "RNN", "", 7, 21, 3, 6, 0, 2, 0, rnn_infer, NULL, rnn_run, NULL },
	{ "GRU", "", 7, 21, 3, 6, 0, 2, 0, rnn_infer, NULL, rnn_run, NULL },
	{ "LSTM", "", 7, 21, 3, 8, 0, 3, 0, rnn_infer, NULL, rnn_run, NULL },
	{ 0 },
};
