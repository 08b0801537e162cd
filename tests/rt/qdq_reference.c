// SPDX-License-Identifier: MIT
/* Reference interpreter of the tests' QDQ graphs; see qdq_reference.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdq_reference.h"

#define FLOAT 1
#define UINT8 2
#define INT8 3
#define INT32 6
#define INT64 7

struct ref_tensor {
	const char *name;
	int32_t dtype;
	int rank;
	int64_t dims[4];
	double *v;
	size_t n;
};

struct ref {
	struct ref_tensor *t;
	size_t count, capacity;
};

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "qdq_reference: %s %s\n", what, detail);
	abort();
}

static struct ref_tensor *add(struct ref *r, const char *name, int32_t dtype,
			      int rank, const int64_t *dims)
{
	struct ref_tensor *t;

	if (r->count == r->capacity) {
		r->capacity = r->capacity ? 2 * r->capacity : 64;
		r->t = realloc(r->t, r->capacity * sizeof(*r->t));
		if (!r->t)
			abort();
	}
	t = &r->t[r->count++];
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->dtype = dtype;
	t->rank = rank;
	t->n = 1;
	for (int d = 0; d < rank; d++) {
		t->dims[d] = dims[d];
		t->n *= (size_t)dims[d];
	}
	t->v = calloc(t->n + 1, sizeof(double));
	if (!t->v)
		abort();
	return t;
}

static struct ref_tensor *get(struct ref *r, const char *name)
{
	for (size_t i = r->count; i-- > 0;)
		if (!strcmp(r->t[i].name, name))
			return &r->t[i];
	fail("unknown tensor", name);
	return NULL;
}

static double load(int32_t dtype, const uint8_t *p, size_t i)
{
	switch (dtype) {
	case FLOAT: { float f; memcpy(&f, p + 4 * i, 4); return f; }
	case UINT8: return p[i];
	case INT8: return (int8_t)p[i];
	case INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
	case INT64: { int64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
	}
	fail("unsupported type", "");
	return 0;
}

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n,
					const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!strcmp(n->attribute[i]->name, name))
			return n->attribute[i];
	return NULL;
}

static int64_t attr_int(const Onnx__NodeProto *n, const char *name,
			int64_t fallback)
{
	const Onnx__AttributeProto *a = attr(n, name);

	return a ? a->i : fallback;
}

static int64_t attr_ints(const Onnx__NodeProto *n, const char *name,
			 size_t i, int64_t fallback)
{
	const Onnx__AttributeProto *a = attr(n, name);

	return a && i < a->n_ints ? a->ints[i] : fallback;
}

static const char *in(const Onnx__NodeProto *n, size_t i)
{
	return i < n->n_input && n->input[i][0] ? n->input[i] : NULL;
}

/* rint(x / scale) + zp saturated, x and scale in float as ONNX does. */
static double quantize(double x, float scale, double zp, int32_t dtype)
{
	double lo = dtype == UINT8 ? 0 : -128, hi = dtype == UINT8 ? 255 : 127;
	double q = nearbyintf((float)x / scale) + zp;

	return q < lo ? lo : q > hi ? hi : q;
}

static void run_q(struct ref *r, const Onnx__NodeProto *n)
{
	struct ref_tensor *x = get(r, in(n, 0)), *s = get(r, in(n, 1));
	struct ref_tensor *z = get(r, in(n, 2)), *y;

	x = get(r, in(n, 0));
	y = add(r, n->output[0], z->dtype, x->rank, x->dims);
	x = get(r, in(n, 0));
	s = get(r, in(n, 1));
	z = get(r, in(n, 2));
	for (size_t i = 0; i < x->n; i++)
		y->v[i] = quantize(x->v[i], (float)s->v[0], z->v[0], z->dtype);
}

static void run_dq(struct ref *r, const Onnx__NodeProto *n)
{
	struct ref_tensor *x = get(r, in(n, 0)), *y;
	int64_t axis = attr_int(n, "axis", 1);
	size_t inner = 1;

	y = add(r, n->output[0], FLOAT, x->rank, x->dims);
	x = get(r, in(n, 0));
	{
		struct ref_tensor *s = get(r, in(n, 1));
		struct ref_tensor *z = in(n, 2) ? get(r, in(n, 2)) : NULL;

		if (axis < 0)
			axis += x->rank;
		for (int d = (int)axis + 1; d < x->rank; d++)
			inner *= (size_t)x->dims[d];
		for (size_t i = 0; i < x->n; i++) {
			size_t c = s->n == 1 ? 0 : (i / inner) % s->n;

			y->v[i] = (float)((float)(x->v[i] - (z ? z->v[c] : 0)) *
					  (float)s->v[c]);
		}
	}
}

static void run_conv(struct ref *r, const Onnx__NodeProto *n)
{
	struct ref_tensor *x = get(r, in(n, 0)), *w = get(r, in(n, 1)), *y;
	int64_t g = attr_int(n, "group", 1), dims[4];
	int64_t sh = attr_ints(n, "strides", 0, 1), sw = attr_ints(n, "strides", 1, 1);
	int64_t pt = attr_ints(n, "pads", 0, 0), pl = attr_ints(n, "pads", 1, 0);
	int64_t pb = attr_ints(n, "pads", 2, 0), pr = attr_ints(n, "pads", 3, 0);
	int64_t kh = w->dims[2], kw = w->dims[3], m = w->dims[0];
	int64_t cg = w->dims[1], mg = m / g;
	int64_t dh = attr_ints(n, "dilations", 0, 1);
	int64_t dw = attr_ints(n, "dilations", 1, 1);

	dims[0] = x->dims[0];
	dims[1] = m;
	dims[2] = (x->dims[2] + pt + pb - dh * (kh - 1) - 1) / sh + 1;
	dims[3] = (x->dims[3] + pl + pr - dw * (kw - 1) - 1) / sw + 1;
	y = add(r, n->output[0], FLOAT, 4, dims);
	x = get(r, in(n, 0));
	w = get(r, in(n, 1));
	{
		struct ref_tensor *b = in(n, 2) ? get(r, in(n, 2)) : NULL;

		for (int64_t b0 = 0; b0 < dims[0]; b0++)
		for (int64_t o = 0; o < m; o++)
		for (int64_t oy = 0; oy < dims[2]; oy++)
		for (int64_t ox = 0; ox < dims[3]; ox++) {
			double acc = b ? b->v[o] : 0;

			for (int64_t c = 0; c < cg; c++)
			for (int64_t ky = 0; ky < kh; ky++)
			for (int64_t kx = 0; kx < kw; kx++) {
				int64_t iy = oy * sh - pt + ky * dh;
				int64_t ix = ox * sw - pl + kx * dw;
				int64_t ic = (o / mg) * cg + c;

				if (iy < 0 || ix < 0 || iy >= x->dims[2] ||
				    ix >= x->dims[3])
					continue;
				acc += x->v[((b0 * x->dims[1] + ic) *
					     x->dims[2] + iy) * x->dims[3] + ix] *
				       w->v[((o * cg + c) * kh + ky) * kw + kx];
			}
			y->v[((b0 * m + o) * dims[2] + oy) * dims[3] + ox] =
				acc;
		}
	}
}

static void run_gemm(struct ref *r, const Onnx__NodeProto *n)
{
	struct ref_tensor *a = get(r, in(n, 0)), *w = get(r, in(n, 1)), *y;
	int tb = attr_int(n, "transB", 0) != 0;
	int64_t mm = a->dims[0], k = a->dims[1];
	int64_t nn = tb ? w->dims[0] : w->dims[1], dims[2] = { mm, nn };

	y = add(r, n->output[0], FLOAT, 2, dims);
	a = get(r, in(n, 0));
	w = get(r, in(n, 1));
	{
		struct ref_tensor *c = in(n, 2) ? get(r, in(n, 2)) : NULL;

		for (int64_t i = 0; i < mm; i++)
			for (int64_t j = 0; j < nn; j++) {
				double acc = c ? c->v[c->n == 1 ? 0 : j] : 0;

				for (int64_t p = 0; p < k; p++)
					acc += a->v[i * k + p] *
					       w->v[tb ? j * k + p : p * nn + j];
				y->v[i * nn + j] = acc;
			}
	}
}

static void run_binary(struct ref *r, const Onnx__NodeProto *n, int mul)
{
	struct ref_tensor *a = get(r, in(n, 0)), *b = get(r, in(n, 1)), *y;

	if (b->n > a->n) {
		struct ref_tensor *t = a;

		a = b;
		b = t;
	}
	if (b->n != a->n && b->n != 1)
		fail("broadcast not supported for", n->name);
	y = add(r, n->output[0], FLOAT, a->rank, a->dims);
	a = get(r, in(n, 0));
	b = get(r, in(n, 1));
	if (b->n > a->n) {
		struct ref_tensor *t = a;

		a = b;
		b = t;
	}
	for (size_t i = 0; i < a->n; i++) {
		double bv = b->v[b->n == 1 ? 0 : i];

		y->v[i] = (float)(mul ? a->v[i] * bv : a->v[i] + bv);
	}
}

static void run_clip(struct ref *r, const Onnx__NodeProto *n, int relu)
{
	struct ref_tensor *x = get(r, in(n, 0)), *y;
	double lo = 0, hi = INFINITY;

	if (!relu) {
		lo = in(n, 1) ? get(r, in(n, 1))->v[0] : -INFINITY;
		hi = in(n, 2) ? get(r, in(n, 2))->v[0] : INFINITY;
	}
	y = add(r, n->output[0], FLOAT, x->rank, x->dims);
	x = get(r, in(n, 0));
	for (size_t i = 0; i < x->n; i++)
		y->v[i] = x->v[i] < lo ? lo : x->v[i] > hi ? hi : x->v[i];
}

static void run_pool(struct ref *r, const Onnx__NodeProto *n, int kind)
{
	struct ref_tensor *x = get(r, in(n, 0)), *y;
	int64_t kh = kind == 2 ? x->dims[2] : attr_ints(n, "kernel_shape", 0, 1);
	int64_t kw = kind == 2 ? x->dims[3] : attr_ints(n, "kernel_shape", 1, 1);
	int64_t sh = attr_ints(n, "strides", 0, 1), sw = attr_ints(n, "strides", 1, 1);
	int64_t pt = attr_ints(n, "pads", 0, 0), pl = attr_ints(n, "pads", 1, 0);
	int64_t pb = attr_ints(n, "pads", 2, 0), pr = attr_ints(n, "pads", 3, 0);
	int64_t dims[4];

	if (kind == 2)
		sh = sw = 1, pt = pl = pb = pr = 0;
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	dims[2] = (x->dims[2] + pt + pb - kh) / sh + 1;
	dims[3] = (x->dims[3] + pl + pr - kw) / sw + 1;
	y = add(r, n->output[0], FLOAT, 4, dims);
	x = get(r, in(n, 0));
	for (int64_t p = 0; p < dims[0] * dims[1]; p++)
		for (int64_t oy = 0; oy < dims[2]; oy++)
			for (int64_t ox = 0; ox < dims[3]; ox++) {
				double acc = kind ? 0 : -INFINITY;
				int count = 0;

				for (int64_t ky = 0; ky < kh; ky++)
					for (int64_t kx = 0; kx < kw; kx++) {
						int64_t iy = oy * sh - pt + ky;
						int64_t ix = ox * sw - pl + kx;
						double v;

						if (iy < 0 || ix < 0 ||
						    iy >= x->dims[2] ||
						    ix >= x->dims[3])
							continue;
						v = x->v[(p * x->dims[2] + iy) *
							 x->dims[3] + ix];
						acc = kind ? acc + v :
						      v > acc ? v : acc;
						count++;
					}
				y->v[(p * dims[2] + oy) * dims[3] + ox] =
					kind ? (float)(acc / count) : acc;
			}
}

static void run_concat(struct ref *r, const Onnx__NodeProto *n)
{
	int64_t dims[4];
	struct ref_tensor *x = get(r, in(n, 0)), *y;
	size_t offset = 0;

	if (attr_int(n, "axis", 0) != 1)
		fail("Concat axis must be 1 in", n->name);
	memcpy(dims, x->dims, sizeof(dims));
	dims[1] = 0;
	for (size_t i = 0; i < n->n_input; i++)
		dims[1] += get(r, in(n, i))->dims[1];
	y = add(r, n->output[0], FLOAT, x->rank, dims);
	for (size_t i = 0; i < n->n_input; i++) {
		size_t inner;

		x = get(r, in(n, i));
		inner = x->n / (size_t)x->dims[0];
		for (int64_t b = 0; b < x->dims[0]; b++)
			memcpy(y->v + (size_t)b * (y->n / (size_t)dims[0]) +
			       offset, x->v + (size_t)b * inner,
			       inner * sizeof(double));
		offset += inner;
	}
}

static void run_flatten(struct ref *r, const Onnx__NodeProto *n)
{
	struct ref_tensor *x = get(r, in(n, 0)), *y;
	int64_t dims[2] = { x->dims[0], (int64_t)x->n / x->dims[0] };

	y = add(r, n->output[0], x->dtype, 2, dims);
	x = get(r, in(n, 0));
	memcpy(y->v, x->v, x->n * sizeof(double));
}

int qdq_reference_run(const struct model_builder *mb, int32_t input_dtype,
		      const int64_t *dims, int rank, const void *input,
		      double *out, size_t count)
{
	const Onnx__GraphProto *g = &mb->graph;
	struct ref r = { NULL, 0, 0 };
	struct ref_tensor *t;
	int status = 0;

	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *p = g->initializer[i];

		t = add(&r, p->name, p->data_type, (int)p->n_dims, p->dims);
		for (size_t e = 0; e < t->n; e++)
			t->v[e] = load(p->data_type, p->raw_data.data, e);
	}
	t = add(&r, g->input[0]->name, input_dtype, rank, dims);
	for (size_t e = 0; e < t->n; e++)
		t->v[e] = load(input_dtype, input, e);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		const char *op = n->op_type;

		if (!strcmp(op, "QuantizeLinear"))
			run_q(&r, n);
		else if (!strcmp(op, "DequantizeLinear"))
			run_dq(&r, n);
		else if (!strcmp(op, "Conv"))
			run_conv(&r, n);
		else if (!strcmp(op, "Gemm"))
			run_gemm(&r, n);
		else if (!strcmp(op, "Add") || !strcmp(op, "Mul"))
			run_binary(&r, n, op[0] == 'M');
		else if (!strcmp(op, "Relu") || !strcmp(op, "Clip"))
			run_clip(&r, n, op[0] == 'R');
		else if (!strcmp(op, "MaxPool"))
			run_pool(&r, n, 0);
		else if (!strcmp(op, "AveragePool"))
			run_pool(&r, n, 1);
		else if (!strcmp(op, "GlobalAveragePool"))
			run_pool(&r, n, 2);
		else if (!strcmp(op, "Flatten"))
			run_flatten(&r, n);
		else if (!strcmp(op, "Concat"))
			run_concat(&r, n);
		else
			fail("unsupported op", op);
	}
	t = get(&r, g->output[0]->name);
	if (t->n != count)
		status = -1;
	else
		memcpy(out, t->v, count * sizeof(double));
	for (size_t i = 0; i < r.count; i++)
		free(r.t[i].v);
	free(r.t);
	return status;
}
