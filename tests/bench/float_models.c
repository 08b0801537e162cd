// SPDX-License-Identifier: MIT
/*
 * The float end-to-end models of `make bench-cpu` (float_models.h), built
 * with the tests' model builder and deterministic weights. Each conv and
 * matmul weight is drawn uniform with a variance-preserving scale, so
 * activations stay in a sane range through the depth of the network and
 * the int8 versions quantize meaningfully.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu/enpu_rt.h"
#include "float_models.h"

struct gen {
	struct model_builder *mb;
	uint32_t state;
	int counter;
};

static float uniform(struct gen *g)
{
	g->state = g->state * 1664525u + 1013904223u;
	return (float)(g->state >> 8) / (float)(1u << 24);
}

static char *fresh(struct gen *g, const char *stem, char *buf, size_t size)
{
	snprintf(buf, size, "%s_%d", stem, g->counter++);
	return buf;
}

/* mb_node() names nodes after their op; ORT wants unique names. */
static Onnx__NodeProto *node(struct gen *g, const char *op, const char *in,
			     const char *out)
{
	Onnx__NodeProto *n = mb_node(g->mb, op, in, out);
	char name[64];

	snprintf(name, sizeof(name), "%s_%d", op, g->counter++);
	mb_node_name(g->mb, n, name);
	return n;
}

/* A float initializer of @count values uniform in [-scale, scale]. */
static void weights(struct gen *g, const char *name, int rank,
		    const int64_t *dims, float scale)
{
	size_t count = 1;
	float *w;

	for (int d = 0; d < rank; d++)
		count *= (size_t)dims[d];
	w = malloc(count * sizeof(*w));
	if (!w)
		abort();
	for (size_t i = 0; i < count; i++)
		w[i] = scale * (2 * uniform(g) - 1);
	mb_initializer(g->mb, name, ENPU_RT_FLOAT, rank, dims, w,
		       count * sizeof(*w));
	free(w);
}

static void constant(struct gen *g, const char *name, int rank,
		     const int64_t *dims, const float *values, size_t count)
{
	mb_initializer(g->mb, name, ENPU_RT_FLOAT, rank, dims, values,
		       count * sizeof(float));
}

static void ints(struct gen *g, const char *name, const int64_t *values,
		 int64_t count)
{
	mb_initializer(g->mb, name, ENPU_RT_INT64, 1, &count, values,
		       (size_t)count * sizeof(int64_t));
}

/* Conv (+ bias), then "relu", "relu6" or nothing; returns the output. */
static const char *conv(struct gen *g, const char *x, int64_t in_c,
			int64_t out_c, int64_t k, int64_t stride,
			int64_t group, const char *act, char *out)
{
	char w[64], b[64], y[64], io[200];
	int64_t wd[4] = { out_c, in_c / group, k, k }, bd[1] = { out_c };
	int64_t ks[2] = { k, k }, st[2] = { stride, stride };
	int64_t pad = (k - 1) / 2, pads[4] = { pad, pad, pad, pad };
	Onnx__NodeProto *n;

	fresh(g, "w", w, sizeof(w));
	fresh(g, "b", b, sizeof(b));
	weights(g, w, 4, wd, sqrtf(3.0f / (float)(in_c / group * k * k)));
	weights(g, b, 1, bd, 0.05f);
	fresh(g, act ? "c" : "y", act ? y : out, 64);
	snprintf(io, sizeof(io), "%s,%s,%s", x, w, b);
	n = node(g, "Conv", io, act ? y : out);
	mb_attr_ints(g->mb, n, "kernel_shape", ks, 2);
	mb_attr_ints(g->mb, n, "strides", st, 2);
	mb_attr_ints(g->mb, n, "pads", pads, 4);
	if (group > 1)
		mb_attr_int(g->mb, n, "group", group);
	if (!act)
		return out;
	fresh(g, "a", out, 64);
	if (!strcmp(act, "relu")) {
		node(g, "Relu", y, out);
	} else {
		static const int64_t scalar[1] = { 1 };
		static const float lo = 0.0f, hi = 6.0f;
		char l[64], h[64];

		fresh(g, "lo", l, sizeof(l));
		fresh(g, "hi", h, sizeof(h));
		constant(g, l, 0, scalar, &lo, 1);
		constant(g, h, 0, scalar, &hi, 1);
		snprintf(io, sizeof(io), "%s,%s,%s", y, l, h);
		node(g, "Clip", io, out);
	}
	return out;
}

static int64_t round8(double c)
{
	int64_t r = (int64_t)(c / 8 + 0.5) * 8;

	return r < 8 ? 8 : r;
}

void float_mobilenet_build(struct model_builder *mb, int64_t size,
			   uint32_t seed)
{
	static const int blocks[7][4] = {
		{ 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 },
		{ 6, 64, 4, 2 }, { 6, 96, 3, 1 }, { 6, 160, 3, 2 },
		{ 6, 320, 1, 1 },
	};
	struct gen g = { mb, seed, 0 };
	int64_t in_dims[4] = { 1, 3, size, size }, c = 32;
	int64_t fw[2] = { 1000, 1280 }, fb[1] = { 1000 };
	char x[64], y[64], t[64], s[64];

	mb_input(mb, "input", ENPU_RT_FLOAT, 4, in_dims);
	conv(&g, "input", 3, 32, 3, 2, 1, "relu6", x);
	for (int b = 0; b < 7; b++) {
		int64_t out_c = round8(blocks[b][1]);

		for (int i = 0; i < blocks[b][2]; i++) {
			int64_t stride = i ? 1 : blocks[b][3];
			int64_t hidden = c * blocks[b][0];
			const char *h = x;

			if (blocks[b][0] != 1)
				h = conv(&g, x, c, hidden, 1, 1, 1, "relu6", t);
			h = conv(&g, h, hidden, hidden, 3, stride, hidden,
				 "relu6", s);
			conv(&g, h, hidden, out_c, 1, 1, 1, NULL, y);
			if (stride == 1 && c == out_c) {
				char io[140], sum[64];

				snprintf(io, sizeof(io), "%s,%s", x, y);
				node(&g, "Add", io, fresh(&g, "r", sum,
							    sizeof(sum)));
				memcpy(y, sum, sizeof(sum));
			}
			memcpy(x, y, sizeof(x));
			c = out_c;
		}
	}
	conv(&g, x, c, 1280, 1, 1, 1, "relu6", y);
	node(&g, "GlobalAveragePool", y, "pooled");
	node(&g, "Flatten", "pooled", "flat");
	weights(&g, "fc_w", 2, fw, sqrtf(3.0f / 1280));
	weights(&g, "fc_b", 1, fb, 0.05f);
	mb_attr_int(mb, node(&g, "Gemm", "flat,fc_w,fc_b", "logits"),
		    "transB", 1);
	mb_output(mb, "logits");
}

/* x [1, S, D] @ W [D, N] + b: MatMul then Add, as exporters write it. */
static const char *linear(struct gen *g, const char *x, int64_t d, int64_t n,
			  char *out)
{
	char w[64], b[64], m[64], io[140];
	int64_t wd[2] = { d, n }, bd[1] = { n };

	fresh(g, "lw", w, sizeof(w));
	fresh(g, "lb", b, sizeof(b));
	weights(g, w, 2, wd, sqrtf(3.0f / (float)d));
	weights(g, b, 1, bd, 0.02f);
	snprintf(io, sizeof(io), "%s,%s", x, w);
	node(g, "MatMul", io, fresh(g, "mm", m, sizeof(m)));
	snprintf(io, sizeof(io), "%s,%s", m, b);
	node(g, "Add", io, fresh(g, "lin", out, 64));
	return out;
}

static const char *layer_norm(struct gen *g, const char *x, int64_t d,
			      char *out)
{
	char s[64], b[64], io[140];
	float *ones = malloc((size_t)d * sizeof(float));
	int64_t dims[1] = { d };

	if (!ones)
		abort();
	for (int64_t i = 0; i < d; i++)
		ones[i] = 0.9f + 0.2f * uniform(g);
	fresh(g, "ln_s", s, sizeof(s));
	fresh(g, "ln_b", b, sizeof(b));
	constant(g, s, 1, dims, ones, (size_t)d);
	weights(g, b, 1, dims, 0.02f);
	free(ones);
	snprintf(io, sizeof(io), "%s,%s,%s", x, s, b);
	mb_attr_int(g->mb, node(g, "LayerNormalization", io,
				   fresh(g, "ln", out, 64)), "axis", -1);
	return out;
}

/* [1, S, D] -> [1, H, S, D/H] (or [1, H, D/H, S] with @transposed). */
static const char *heads(struct gen *g, const char *x, int64_t s, int64_t h,
			 int64_t dh, int transposed, char *out)
{
	static const int64_t perm[4] = { 0, 2, 1, 3 }, perm_t[4] = { 0, 2, 3, 1 };
	int64_t shape[4] = { 1, s, h, dh };
	char sh[64], r[64], io[140];

	fresh(g, "shape", sh, sizeof(sh));
	ints(g, sh, shape, 4);
	snprintf(io, sizeof(io), "%s,%s", x, sh);
	node(g, "Reshape", io, fresh(g, "rs", r, sizeof(r)));
	mb_attr_ints(g->mb, node(g, "Transpose", r,
				    fresh(g, "tr", out, 64)),
		     "perm", transposed ? perm_t : perm, 4);
	return out;
}

void float_transformer_build(struct model_builder *mb, int64_t seq,
			     int64_t layers, uint32_t seed)
{
	const int64_t vocab = 4096, d = 256, h = 4, dh = d / h, ff = 4 * d;
	struct gen g = { mb, seed, 0 };
	int64_t in_dims[2] = { 1, seq }, emb[2] = { vocab, d };
	int64_t pos[3] = { 1, seq, d }, merged[3] = { 1, seq, d };
	static const int64_t perm[4] = { 0, 2, 1, 3 }, scalar[1] = { 1 };
	const float scale = 1.0f / sqrtf((float)dh);
	char x[64], io[200];

	mb_input(mb, "tokens", ENPU_RT_INT64, 2, in_dims);
	weights(&g, "tok_emb", 2, emb, 1.0f);
	weights(&g, "pos_emb", 3, pos, 0.5f);
	constant(&g, "att_scale", 0, scalar, &scale, 1);
	ints(&g, "merged_shape", merged, 3);
	node(&g, "Gather", "tok_emb,tokens", "emb");
	node(&g, "Add", "emb,pos_emb", "x_0");
	snprintf(x, sizeof(x), "x_0");
	for (int64_t l = 0; l < layers; l++) {
		char n1[64], q[64], k[64], v[64], qh[64], kh[64], vh[64];
		char sc[64], ss[64], p[64], ctx[64], ct[64], cm[64], o[64];
		char r1[64], n2[64], f1[64], ge[64], f2[64], r2[64];

		layer_norm(&g, x, d, n1);
		linear(&g, n1, d, d, q);
		linear(&g, n1, d, d, k);
		linear(&g, n1, d, d, v);
		heads(&g, q, seq, h, dh, 0, qh);
		heads(&g, k, seq, h, dh, 1, kh);
		heads(&g, v, seq, h, dh, 0, vh);
		snprintf(io, sizeof(io), "%s,%s", qh, kh);
		node(&g, "MatMul", io, fresh(&g, "scores", sc, sizeof(sc)));
		snprintf(io, sizeof(io), "%s,att_scale", sc);
		node(&g, "Mul", io, fresh(&g, "scaled", ss, sizeof(ss)));
		mb_attr_int(mb, node(&g, "Softmax", ss,
					fresh(&g, "probs", p, sizeof(p))),
			    "axis", -1);
		snprintf(io, sizeof(io), "%s,%s", p, vh);
		node(&g, "MatMul", io, fresh(&g, "ctx", ctx, sizeof(ctx)));
		mb_attr_ints(mb, node(&g, "Transpose", ctx,
					 fresh(&g, "ctx_t", ct, sizeof(ct))),
			     "perm", perm, 4);
		snprintf(io, sizeof(io), "%s,merged_shape", ct);
		node(&g, "Reshape", io, fresh(&g, "ctx_m", cm, sizeof(cm)));
		linear(&g, cm, d, d, o);
		snprintf(io, sizeof(io), "%s,%s", x, o);
		node(&g, "Add", io, fresh(&g, "res", r1, sizeof(r1)));
		layer_norm(&g, r1, d, n2);
		linear(&g, n2, d, ff, f1);
		node(&g, "Gelu", f1, fresh(&g, "gelu", ge, sizeof(ge)));
		linear(&g, ge, ff, d, f2);
		snprintf(io, sizeof(io), "%s,%s", r1, f2);
		node(&g, "Add", io, fresh(&g, "res", r2, sizeof(r2)));
		memcpy(x, r2, sizeof(x));
	}
	layer_norm(&g, x, d, io);
	node(&g, "Identity", io, "hidden");
	mb_output(mb, "hidden");
}

/* Two 3x3 convs with Relu. */
static const char *double_conv(struct gen *g, const char *x, int64_t in_c,
			       int64_t out_c, char *out)
{
	char t[64];

	conv(g, x, in_c, out_c, 3, 1, 1, "relu", t);
	return conv(g, t, out_c, out_c, 3, 1, 1, "relu", out);
}

void float_unet_build(struct model_builder *mb, int64_t size, uint32_t seed)
{
	static const int64_t k2[2] = { 2, 2 };
	struct gen g = { mb, seed, 0 };
	int64_t in_dims[4] = { 1, 3, size, size };
	const int64_t ch[4] = { 16, 32, 64, 128 };
	char skip[3][64], x[64], p[64], io[200];

	mb_input(mb, "image", ENPU_RT_FLOAT, 4, in_dims);
	snprintf(x, sizeof(x), "image");
	for (int l = 0; l < 3; l++) {
		Onnx__NodeProto *n;

		double_conv(&g, x, l ? ch[l - 1] : 3, ch[l], skip[l]);
		n = node(&g, "MaxPool", skip[l], fresh(&g, "pool", p,
							   sizeof(p)));
		mb_attr_ints(mb, n, "kernel_shape", k2, 2);
		mb_attr_ints(mb, n, "strides", k2, 2);
		memcpy(x, p, sizeof(x));
	}
	double_conv(&g, x, ch[2], ch[3], p);
	memcpy(x, p, sizeof(x));
	/*
	 * Decoder: the two deeper stages upsample with ConvTranspose 2x2/2,
	 * the last one with Resize (bilinear, x2) and a 1x1 conv.
	 */
	for (int l = 2; l >= 0; l--) {
		char up[64], cat[64];

		if (l > 0) {
			char w[64], b[64];
			int64_t wd[4] = { ch[l + 1], ch[l], 2, 2 }, bd[1] = { ch[l] };
			Onnx__NodeProto *n;

			fresh(&g, "tw", w, sizeof(w));
			fresh(&g, "tb", b, sizeof(b));
			weights(&g, w, 4, wd, sqrtf(3.0f / (float)(ch[l + 1] * 4)));
			weights(&g, b, 1, bd, 0.05f);
			snprintf(io, sizeof(io), "%s,%s,%s", x, w, b);
			n = node(&g, "ConvTranspose", io,
				    fresh(&g, "up", up, sizeof(up)));
			mb_attr_ints(mb, n, "kernel_shape", k2, 2);
			mb_attr_ints(mb, n, "strides", k2, 2);
		} else {
			static const float scales[4] = { 1, 1, 2, 2 };
			static const int64_t four[1] = { 4 };
			char r[64];
			Onnx__NodeProto *n;

			mb_initializer(mb, "up_scales", ENPU_RT_FLOAT, 1, four,
				       scales, sizeof(scales));
			snprintf(io, sizeof(io), "%s,,up_scales", x);
			n = node(&g, "Resize", io, fresh(&g, "rz", r, sizeof(r)));
			mb_attr_string(mb, n, "mode", "linear");
			conv(&g, r, ch[l + 1], ch[l], 1, 1, 1, NULL, up);
		}
		snprintf(io, sizeof(io), "%s,%s", up, skip[l]);
		mb_attr_int(mb, node(&g, "Concat", io,
					fresh(&g, "cat", cat, sizeof(cat))),
			    "axis", 1);
		double_conv(&g, cat, 2 * ch[l], ch[l], p);
		memcpy(x, p, sizeof(x));
	}
	conv(&g, x, ch[0], 1, 1, 1, 1, NULL, p);
	node(&g, "Sigmoid", p, "mask");
	mb_output(mb, "mask");
}
