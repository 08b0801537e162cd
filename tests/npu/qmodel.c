// SPDX-License-Identifier: MIT
/* QDQ model helpers for the NPU tests; see qmodel.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmodel.h"
#include "rt_types.h"

static uint32_t next(struct qm *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return (uint32_t)((m->rng * 2685821657736338717ull) >> 32);
}

static double uniform(struct qm *m)
{
	return next(m) / 4294967296.0;
}

static void fresh(struct qm *m, char *name, const char *prefix)
{
	snprintf(name, 32, "%s%d", prefix, m->next++);
}

static void scalar_f(struct qm *m, char *name, float v)
{
	fresh(m, name, "s");
	mb_initializer(&m->mb, name, ENPU_RT_FLOAT, 0, NULL, &v, sizeof(v));
}

static void scalar_u8(struct qm *m, char *name, uint8_t v)
{
	fresh(m, name, "z");
	mb_initializer(&m->mb, name, ENPU_RT_UINT8, 0, NULL, &v, 1);
}

static Onnx__NodeProto *node(struct qm *m, const char *op, const char *in,
			     const char *out)
{
	Onnx__NodeProto *n = mb_node(&m->mb, op, in, out);
	char name[32];

	fresh(m, name, op);
	mb_node_name(&m->mb, n, name);
	return n;
}

static void dq(struct qm *m, const struct qv *x, char *out)
{
	char s[32], z[32], in[100];

	scalar_f(m, s, x->scale);
	scalar_u8(m, z, x->zero);
	fresh(m, out, "f");
	snprintf(in, sizeof(in), "%s,%s,%s", x->name, s, z);
	node(m, "DequantizeLinear", in, out);
}

/* Q(@in) with a scale for [lo, hi] (widened to hold 0). */
static struct qv q(struct qm *m, const char *in, double lo, double hi,
		   const struct qv *shape)
{
	struct qv y = *shape;
	char s[32], z[32], args[100];

	if (lo > 0)
		lo = 0;
	if (hi < 0)
		hi = 0;
	if (hi - lo < 1e-3)
		hi = lo + 1e-3;
	y.scale = (float)((hi - lo) / 255);
	y.zero = (uint8_t)lrint(-lo / y.scale);
	scalar_f(m, s, y.scale);
	scalar_u8(m, z, y.zero);
	fresh(m, y.name, "q");
	snprintf(args, sizeof(args), "%s,%s,%s", in, s, z);
	node(m, "QuantizeLinear", args, y.name);
	return y;
}

void qm_init(struct qm *m, uint32_t seed)
{
	memset(m, 0, sizeof(*m));
	m->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	mb_init(&m->mb, 13);
}

void qm_free(struct qm *m)
{
	mb_free(&m->mb);
}

static struct qv input_value(const char *name, int rank, const int64_t *dims)
{
	struct qv x = { .scale = 4.0f / 255, .zero = 128, .rank = rank };

	snprintf(x.name, sizeof(x.name), "%s", name);
	memcpy(x.dims, dims, (size_t)rank * sizeof(int64_t));
	return x;
}

struct qv qm_input_u8(struct qm *m, const char *name, int rank,
		      const int64_t *dims)
{
	mb_input(&m->mb, name, ENPU_RT_UINT8, rank, dims);
	return input_value(name, rank, dims);
}

struct qv qm_input_float(struct qm *m, const char *name, int rank,
			 const int64_t *dims)
{
	struct qv x = input_value(name, rank, dims);

	mb_input(&m->mb, name, ENPU_RT_FLOAT, rank, dims);
	return q(m, name, -2, 2, &x);
}

static double range_of(const struct qv *x)
{
	return 255.0 * x->scale;
}

struct qv qm_conv(struct qm *m, const struct qv *x, int64_t cout, int64_t k,
		  int64_t stride, const int64_t pads[4], int64_t dilation,
		  int64_t group, enum qm_act act, int per_channel)
{
	int64_t cin = x->dims[1], cg = cin / group, taps = cg * k * k;
	int64_t wd[4] = { cout, cg, k, k }, md[1] = { cout };
	int64_t ks[2] = { k, k }, st[2] = { stride, stride };
	int64_t dl[2] = { dilation, dilation };
	int8_t *w = malloc((size_t)(cout * taps));
	float *ws = malloc((size_t)cout * 4), *bs = malloc((size_t)cout * 4);
	int32_t *b = malloc((size_t)cout * 4);
	int8_t *wz = calloc((size_t)cout, 1);
	char xf[32], wn[32], wsn[32], wzn[32], wf[32], bn[32], bsn[32], bf[32];
	char cf[32], af[32], args[160];
	struct qv y = *x;
	double spread;
	Onnx__NodeProto *n;

	for (int64_t i = 0; i < cout * taps; i++)
		w[i] = (int8_t)((int)(next(m) % 255) - 127);
	for (int64_t o = 0; o < cout; o++) {
		ws[o] = per_channel ? (float)((0.5 + uniform(m)) / 127 /
					      sqrt((double)taps)) :
			(float)(1.0 / 127 / sqrt((double)taps));
		bs[o] = x->scale * ws[o];
		b[o] = (int32_t)(next(m) % 2001) - 1000;
	}
	dq(m, x, xf);
	fresh(m, wn, "w");
	fresh(m, wsn, "ws");
	fresh(m, wzn, "wz");
	mb_initializer(&m->mb, wn, ENPU_RT_INT8, 4, wd, w, (size_t)(cout * taps));
	mb_initializer(&m->mb, wsn, ENPU_RT_FLOAT, 1, md, ws, (size_t)cout * 4);
	mb_initializer(&m->mb, wzn, ENPU_RT_INT8, 1, md, wz, (size_t)cout);
	fresh(m, wf, "wf");
	snprintf(args, sizeof(args), "%s,%s,%s", wn, wsn, wzn);
	n = node(m, "DequantizeLinear", args, wf);
	mb_attr_int(&m->mb, n, "axis", 0);
	fresh(m, bn, "b");
	fresh(m, bsn, "bs");
	mb_initializer(&m->mb, bn, ENPU_RT_INT32, 1, md, b, (size_t)cout * 4);
	mb_initializer(&m->mb, bsn, ENPU_RT_FLOAT, 1, md, bs, (size_t)cout * 4);
	fresh(m, bf, "bf");
	snprintf(args, sizeof(args), "%s,%s", bn, bsn);
	n = node(m, "DequantizeLinear", args, bf);
	mb_attr_int(&m->mb, n, "axis", 0);
	fresh(m, cf, "cf");
	snprintf(args, sizeof(args), "%s,%s,%s", xf, wf, bf);
	n = node(m, "Conv", args, cf);
	mb_attr_ints(&m->mb, n, "kernel_shape", ks, 2);
	mb_attr_ints(&m->mb, n, "strides", st, 2);
	mb_attr_ints(&m->mb, n, "pads", pads, 4);
	mb_attr_ints(&m->mb, n, "dilations", dl, 2);
	mb_attr_int(&m->mb, n, "group", group);
	y.dims[1] = cout;
	for (int d = 0; d < 2; d++) {
		int64_t in = x->dims[2 + d];

		y.dims[2 + d] = (in + pads[d] + pads[d + 2] -
				 dilation * (k - 1) - 1) / stride + 1;
	}
	spread = range_of(x) * 0.6;
	if (act == QM_RELU6) {
		char lo[32], hi[32];

		scalar_f(m, lo, 0);
		scalar_f(m, hi, 6);
		fresh(m, af, "a");
		snprintf(args, sizeof(args), "%s,%s,%s", cf, lo, hi);
		node(m, "Clip", args, af);
		y = q(m, af, 0, 6, &y);
	} else if (act == QM_RELU) {
		fresh(m, af, "a");
		node(m, "Relu", cf, af);
		y = q(m, af, 0, spread, &y);
	} else {
		y = q(m, cf, -spread / 2, spread / 2, &y);
	}
	free(w);
	free(ws);
	free(bs);
	free(b);
	free(wz);
	return y;
}

static struct qv binary(struct qm *m, const char *op, const struct qv *a,
			const struct qv *b, enum qm_act act)
{
	char af[32], bf[32], cf[32], rf[32], args[100];
	struct qv y = a->rank >= b->rank ? *a : *b;
	double lo, hi;

	dq(m, a, af);
	dq(m, b, bf);
	fresh(m, cf, "c");
	snprintf(args, sizeof(args), "%s,%s", af, bf);
	node(m, op, args, cf);
	for (int d = 0; d < y.rank; d++) {
		int64_t da = a->rank - y.rank + d >= 0 ?
			     a->dims[a->rank - y.rank + d] : 1;
		int64_t db = b->rank - y.rank + d >= 0 ?
			     b->dims[b->rank - y.rank + d] : 1;

		y.dims[d] = da > db ? da : db;
	}
	if (!strcmp(op, "Add")) {
		lo = -range_of(a) / 2 - range_of(b) / 2;
		hi = -lo;
	} else {
		hi = range_of(a) * range_of(b) / 4;
		lo = -hi;
	}
	if (act == QM_RELU) {
		fresh(m, rf, "r");
		node(m, "Relu", cf, rf);
		return q(m, rf, 0, hi, &y);
	}
	return q(m, cf, lo, hi, &y);
}

struct qv qm_add(struct qm *m, const struct qv *a, const struct qv *b,
		 enum qm_act act)
{
	return binary(m, "Add", a, b, act);
}

struct qv qm_mul(struct qm *m, const struct qv *a, const struct qv *b)
{
	return binary(m, "Mul", a, b, QM_NONE);
}

struct qv qm_const(struct qm *m, int rank, const int64_t *dims)
{
	struct qv c = { .scale = 1.0f / 64, .zero = 100, .rank = rank };
	size_t n = 1;
	uint8_t *data;

	for (int d = 0; d < rank; d++)
		n *= (size_t)dims[d];
	data = malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (uint8_t)next(m);
	memcpy(c.dims, dims, (size_t)rank * sizeof(int64_t));
	fresh(m, c.name, "k");
	mb_initializer(&m->mb, c.name, ENPU_RT_UINT8, rank, dims, data, n);
	free(data);
	return c;
}

static struct qv pool(struct qm *m, const char *op, const struct qv *x,
		      int64_t k, int64_t stride, int64_t pad, int flag,
		      int keep_scale)
{
	char xf[32], pf[32];
	int64_t ks[2] = { k, k }, st[2] = { stride, stride };
	int64_t pads[4] = { pad, pad, pad, pad };
	struct qv y = *x;
	Onnx__NodeProto *n;

	dq(m, x, xf);
	fresh(m, pf, "p");
	n = node(m, op, xf, pf);
	if (strcmp(op, "GlobalAveragePool")) {
		mb_attr_ints(&m->mb, n, "kernel_shape", ks, 2);
		mb_attr_ints(&m->mb, n, "strides", st, 2);
		mb_attr_ints(&m->mb, n, "pads", pads, 4);
		if (!strcmp(op, "MaxPool"))
			mb_attr_int(&m->mb, n, "ceil_mode", flag);
		else
			mb_attr_int(&m->mb, n, "count_include_pad", flag);
		for (int d = 2; d < 4; d++) {
			int64_t span = x->dims[d] + 2 * pad - k;

			y.dims[d] = (!strcmp(op, "MaxPool") && flag ?
				     (span + stride - 1) / stride :
				     span / stride) + 1;
			if (!strcmp(op, "MaxPool") && flag &&
			    (y.dims[d] - 1) * stride >= x->dims[d] + pad)
				y.dims[d]--;
		}
	} else {
		y.dims[2] = y.dims[3] = 1;
	}
	if (keep_scale) {
		char s[32], z[32], args[100];

		scalar_f(m, s, x->scale);
		scalar_u8(m, z, x->zero);
		fresh(m, y.name, "q");
		snprintf(args, sizeof(args), "%s,%s,%s", pf, s, z);
		node(m, "QuantizeLinear", args, y.name);
		return y;
	}
	return q(m, pf, -range_of(x) / 3, range_of(x) / 3, &y);
}

struct qv qm_maxpool(struct qm *m, const struct qv *x, int64_t k,
		     int64_t stride, int64_t pad, int ceil_mode)
{
	return pool(m, "MaxPool", x, k, stride, pad, ceil_mode, 1);
}

struct qv qm_avgpool(struct qm *m, const struct qv *x, int64_t k,
		     int64_t stride, int64_t pad, int count_include_pad)
{
	return pool(m, "AveragePool", x, k, stride, pad, count_include_pad, 0);
}

struct qv qm_global_avgpool(struct qm *m, const struct qv *x)
{
	return pool(m, "GlobalAveragePool", x, 1, 1, 0, 0, 0);
}

struct qv qm_flatten(struct qm *m, const struct qv *x)
{
	char xf[32], ff[32], s[32], z[32], args[100];
	struct qv y = *x;

	dq(m, x, xf);
	fresh(m, ff, "fl");
	node(m, "Flatten", xf, ff);
	y.rank = 2;
	y.dims[1] = x->dims[1] * x->dims[2] * x->dims[3];
	scalar_f(m, s, x->scale);
	scalar_u8(m, z, x->zero);
	fresh(m, y.name, "q");
	snprintf(args, sizeof(args), "%s,%s,%s", ff, s, z);
	node(m, "QuantizeLinear", args, y.name);
	return y;
}

struct qv qm_gemm(struct qm *m, const struct qv *x, int64_t n)
{
	int64_t kk = x->dims[1], wd[2] = { n, kk }, nd[1] = { n };
	int8_t *w = malloc((size_t)(n * kk));
	float *ws = malloc((size_t)n * 4), *bs = malloc((size_t)n * 4);
	int32_t *b = malloc((size_t)n * 4);
	int8_t *wz = calloc((size_t)n, 1);
	char xf[32], wn[32], wsn[32], wzn[32], wf[32], bn[32], bsn[32], bf[32];
	char gf[32], args[160];
	struct qv y = *x;
	Onnx__NodeProto *nd_;

	for (int64_t i = 0; i < n * kk; i++)
		w[i] = (int8_t)((int)(next(m) % 255) - 127);
	for (int64_t o = 0; o < n; o++) {
		ws[o] = (float)((0.5 + uniform(m)) / 127 / sqrt((double)kk));
		bs[o] = x->scale * ws[o];
		b[o] = (int32_t)(next(m) % 2001) - 1000;
	}
	dq(m, x, xf);
	fresh(m, wn, "w");
	fresh(m, wsn, "ws");
	fresh(m, wzn, "wz");
	mb_initializer(&m->mb, wn, ENPU_RT_INT8, 2, wd, w, (size_t)(n * kk));
	mb_initializer(&m->mb, wsn, ENPU_RT_FLOAT, 1, nd, ws, (size_t)n * 4);
	mb_initializer(&m->mb, wzn, ENPU_RT_INT8, 1, nd, wz, (size_t)n);
	fresh(m, wf, "wf");
	snprintf(args, sizeof(args), "%s,%s,%s", wn, wsn, wzn);
	nd_ = node(m, "DequantizeLinear", args, wf);
	mb_attr_int(&m->mb, nd_, "axis", 0);
	fresh(m, bn, "b");
	fresh(m, bsn, "bs");
	mb_initializer(&m->mb, bn, ENPU_RT_INT32, 1, nd, b, (size_t)n * 4);
	mb_initializer(&m->mb, bsn, ENPU_RT_FLOAT, 1, nd, bs, (size_t)n * 4);
	fresh(m, bf, "bf");
	snprintf(args, sizeof(args), "%s,%s", bn, bsn);
	nd_ = node(m, "DequantizeLinear", args, bf);
	mb_attr_int(&m->mb, nd_, "axis", 0);
	fresh(m, gf, "g");
	snprintf(args, sizeof(args), "%s,%s,%s", xf, wf, bf);
	nd_ = node(m, "Gemm", args, gf);
	mb_attr_int(&m->mb, nd_, "transB", 1);
	y.dims[1] = n;
	y = q(m, gf, -range_of(x) * 0.3, range_of(x) * 0.3, &y);
	free(w);
	free(ws);
	free(bs);
	free(b);
	free(wz);
	return y;
}

struct qv qm_concat(struct qm *m, const struct qv *a, const struct qv *b)
{
	char af[32], bf[32], cf[32], s[32], z[32], args[100];
	struct qv y = *a;
	Onnx__NodeProto *n;

	dq(m, a, af);
	dq(m, b, bf);
	fresh(m, cf, "cc");
	snprintf(args, sizeof(args), "%s,%s", af, bf);
	n = node(m, "Concat", args, cf);
	mb_attr_int(&m->mb, n, "axis", 1);
	y.dims[1] = a->dims[1] + b->dims[1];
	scalar_f(m, s, a->scale);
	scalar_u8(m, z, a->zero);
	fresh(m, y.name, "q");
	snprintf(args, sizeof(args), "%s,%s,%s", cf, s, z);
	node(m, "QuantizeLinear", args, y.name);
	return y;
}

struct qv qm_float_op(struct qm *m, const struct qv *x, const char *op)
{
	char xf[32], yf[32];

	dq(m, x, xf);
	fresh(m, yf, "u");
	node(m, op, xf, yf);
	return q(m, yf, -1, 1, x);
}

void qm_float_output(struct qm *m, const struct qv *x, const char *op)
{
	char xf[32], yf[32];

	dq(m, x, xf);
	fresh(m, yf, "u");
	node(m, op, xf, yf);
	mb_output(&m->mb, yf);
}

void qm_output(struct qm *m, const struct qv *x, int dequantize)
{
	char xf[32];

	if (!dequantize) {
		mb_output(&m->mb, x->name);
		return;
	}
	dq(m, x, xf);
	mb_output(&m->mb, xf);
}
