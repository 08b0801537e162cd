// SPDX-License-Identifier: MIT
/* MobileNetV2-shaped QDQ model generator; see mobilenet_model.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mobilenet_model.h"

#define FLOAT 1
#define UINT8 2
#define INT8 3
#define INT32 6

struct gen {
	struct model_builder *mb;
	uint64_t rng;
	int next;		/* value / node name counter */
};

/* An activation as quantized uint8 tensor name with its parameters. */
struct act {
	char name[64];
	float scale;
	uint8_t zero;
	int64_t channels, size;
	double rms;		/* rough RMS of the real values, for scales */
};

static uint32_t next_u32(struct gen *g)
{
	/* xorshift64*: deterministic across platforms */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (uint32_t)((g->rng * 2685821657736338717ull) >> 32);
}

static double uniform(struct gen *g)
{
	return next_u32(g) / 4294967296.0;
}

static void fresh(struct gen *g, char *name, const char *prefix)
{
	snprintf(name, 64, "%s%d", prefix, g->next++);
}

static void scalar_f(struct gen *g, char *name, float v)
{
	fresh(g, name, "s");
	mb_initializer(g->mb, name, FLOAT, 0, NULL, &v, sizeof(v));
}

static void scalar_u8(struct gen *g, char *name, uint8_t v)
{
	fresh(g, name, "z");
	mb_initializer(g->mb, name, UINT8, 0, NULL, &v, 1);
}

static Onnx__NodeProto *node(struct gen *g, const char *op, const char *in,
			     const char *out)
{
	Onnx__NodeProto *n = mb_node(g->mb, op, in, out);
	char name[64];

	snprintf(name, sizeof(name), "%s_%d", op, g->next++);
	mb_node_name(g->mb, n, name);
	return n;
}

/* DequantizeLinear of @a for one consumer; its float name into @out. */
static void dequantize(struct gen *g, const struct act *a, char *out)
{
	char s[64], z[64], list[256];

	scalar_f(g, s, a->scale);
	scalar_u8(g, z, a->zero);
	fresh(g, out, "f");
	snprintf(list, sizeof(list), "%s,%s,%s", a->name, s, z);
	node(g, "DequantizeLinear", list, out);
}

static void quantize(struct gen *g, const char *in, struct act *a)
{
	char s[64], z[64], list[256];

	scalar_f(g, s, a->scale);
	scalar_u8(g, z, a->zero);
	fresh(g, a->name, "q");
	snprintf(list, sizeof(list), "%s,%s,%s", in, s, z);
	node(g, "QuantizeLinear", list, a->name);
}

static float relu6_scale(void)
{
	float s = 6.0f / 255.0f;

	/* 255 * s must not exceed 6 in float, so Clip(0, 6) is redundant. */
	while (s * 255.0f > 6.0f)
		s = nextafterf(s, 0.0f);
	return s;
}

/* Output quantization for a linear output of standard deviation @std. */
static void linear_out(struct act *a, double std)
{
	a->scale = (float)(4.0 * std / 127.0);
	a->zero = 128;
	a->rms = std;
}

float mobilenet_output_scale(void)
{
	struct act a;

	linear_out(&a, 2.0);
	return a.scale;
}

static void relu6_out(struct act *a)
{
	a->scale = relu6_scale();
	a->zero = 0;
	a->rms = 1.4;	/* N(0, 2) clipped to [0, 6] */
}

/*
 * Conv (or Gemm when @gemm) of @x to @out_channels: weights int8 in
 * [-127, 127], per-channel scales bringing the pre-activation to a
 * standard deviation of about 2, int32 bias. @relu6 adds Clip(0, 6).
 */
static struct act conv(struct gen *g, const struct act *x,
		       int64_t out_channels, int64_t kernel, int64_t stride,
		       int64_t groups, int relu6, int gemm)
{
	struct act y;
	int64_t in_g = x->channels / groups, k = in_g * kernel * kernel;
	int64_t wdims[4] = { out_channels, in_g, kernel, kernel };
	size_t wcount = (size_t)(out_channels * k);
	int8_t *w = malloc(wcount);
	float *ws = malloc(sizeof(float) * (size_t)out_channels);
	int32_t *b = malloc(sizeof(int32_t) * (size_t)out_channels);
	char xf[64], wn[64], wsn[64], wzn[64], wf[64], bn[64], bsn[64];
	char bf[64], yf[64], list[512];
	double base = 2.0 / (sqrt((double)k) * (x->rms > 0.1 ? x->rms : 0.1) *
			     73.0);
	int8_t *wz = calloc((size_t)out_channels, 1);
	float *bscale = malloc(sizeof(float) * (size_t)out_channels);
	Onnx__NodeProto *n;

	if (!w || !ws || !b || !wz || !bscale)
		abort();
	for (size_t i = 0; i < wcount; i++)
		w[i] = (int8_t)((int)(next_u32(g) % 255) - 127);
	for (int64_t c = 0; c < out_channels; c++) {
		ws[c] = (float)(base * (0.75 + 0.5 * uniform(g)));
		bscale[c] = x->scale * ws[c];
		b[c] = (int32_t)lrint((uniform(g) - 0.5) / bscale[c]);
	}
	dequantize(g, x, xf);
	fresh(g, wn, "w");
	mb_initializer(g->mb, wn, INT8, gemm ? 2 : 4, wdims, w, wcount);
	fresh(g, wsn, "ws");
	mb_initializer(g->mb, wsn, FLOAT, 1, &out_channels, ws,
		       sizeof(float) * (size_t)out_channels);
	fresh(g, wzn, "wz");
	mb_initializer(g->mb, wzn, INT8, 1, &out_channels, wz,
		       (size_t)out_channels);
	fresh(g, wf, "wf");
	snprintf(list, sizeof(list), "%s,%s,%s", wn, wsn, wzn);
	n = node(g, "DequantizeLinear", list, wf);
	mb_attr_int(g->mb, n, "axis", 0);
	fresh(g, bn, "b");
	mb_initializer(g->mb, bn, INT32, 1, &out_channels, b,
		       sizeof(int32_t) * (size_t)out_channels);
	fresh(g, bsn, "bs");
	mb_initializer(g->mb, bsn, FLOAT, 1, &out_channels, bscale,
		       sizeof(float) * (size_t)out_channels);
	fresh(g, bf, "bf");
	snprintf(list, sizeof(list), "%s,%s", bn, bsn);
	n = node(g, "DequantizeLinear", list, bf);
	mb_attr_int(g->mb, n, "axis", 0);
	fresh(g, yf, "c");
	snprintf(list, sizeof(list), "%s,%s,%s", xf, wf, bf);
	if (gemm) {
		n = node(g, "Gemm", list, yf);
		mb_attr_int(g->mb, n, "transB", 1);
	} else {
		int64_t ks[2] = { kernel, kernel }, st[2] = { stride, stride };
		int64_t pad = kernel / 2, pads[4] = { pad, pad, pad, pad };

		n = node(g, "Conv", list, yf);
		mb_attr_ints(g->mb, n, "kernel_shape", ks, 2);
		mb_attr_ints(g->mb, n, "strides", st, 2);
		mb_attr_ints(g->mb, n, "pads", pads, 4);
		mb_attr_int(g->mb, n, "group", groups);
	}
	if (relu6) {
		char lo[64], hi[64], cf[64];

		scalar_f(g, lo, 0.0f);
		scalar_f(g, hi, 6.0f);
		fresh(g, cf, "r");
		snprintf(list, sizeof(list), "%s,%s,%s", yf, lo, hi);
		node(g, "Clip", list, cf);
		strcpy(yf, cf);
		relu6_out(&y);
	} else {
		linear_out(&y, 2.0);
	}
	y.channels = out_channels;
	y.size = gemm ? 1 : (x->size + 2 * (kernel / 2) - kernel) / stride + 1;
	quantize(g, yf, &y);
	free(w);
	free(ws);
	free(wz);
	free(b);
	free(bscale);
	return y;
}

static struct act add(struct gen *g, const struct act *a, const struct act *b)
{
	struct act y = *a;
	char af[64], bf[64], yf[64], list[256];

	dequantize(g, a, af);
	dequantize(g, b, bf);
	fresh(g, yf, "a");
	snprintf(list, sizeof(list), "%s,%s", af, bf);
	node(g, "Add", list, yf);
	linear_out(&y, sqrt(a->rms * a->rms + b->rms * b->rms));
	quantize(g, yf, &y);
	return y;
}

static int64_t divisible(double v)
{
	int64_t r = (int64_t)(v + 4) / 8 * 8;

	if (r < 8)
		r = 8;
	if ((double)r < 0.9 * v)
		r += 8;
	return r;
}

void mobilenet_build(struct model_builder *mb,
		     const struct mobilenet_config *cfg)
{
	static const int blocks[7][4] = {
		{ 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 },
		{ 6, 64, 4, 2 }, { 6, 96, 3, 1 }, { 6, 160, 3, 2 },
		{ 6, 320, 1, 1 },
	};
	struct gen g = { mb, 0x9e3779b97f4a7c15ull ^ cfg->seed, 0 };
	int64_t in_dims[4] = { 1, 3, cfg->size, cfg->size };
	int64_t out_dims[2] = { 1, cfg->classes };
	struct act x, t;
	char xf[64], yf[64], list[256], s[64], z[64];

	mb_input(mb, "input", cfg->uint8_input ? UINT8 : FLOAT, 4, in_dims);
	/* input in [-1, 1]: uint8 with zero point 128 */
	x.scale = 1.0f / 127.0f;
	x.zero = 128;
	x.rms = 0.58;
	x.channels = 3;
	x.size = cfg->size;
	if (cfg->uint8_input)
		snprintf(x.name, sizeof(x.name), "input");
	else
		quantize(&g, "input", &x);
	x = conv(&g, &x, divisible(32 * cfg->width), 3, 2, 1, 1, 0);
	for (int b = 0; b < 7; b++) {
		int64_t c = divisible(blocks[b][1] * cfg->width);

		for (int i = 0; i < blocks[b][2]; i++) {
			int64_t stride = i ? 1 : blocks[b][3];
			int64_t hidden = x.channels * blocks[b][0];
			struct act in = x;

			t = x;
			if (blocks[b][0] != 1)
				t = conv(&g, &t, hidden, 1, 1, 1, 1, 0);
			t = conv(&g, &t, hidden, 3, stride, hidden, 1, 0);
			t = conv(&g, &t, c, 1, 1, 1, 0, 0);
			x = stride == 1 && in.channels == c ? add(&g, &in, &t) : t;
		}
	}
	x = conv(&g, &x, cfg->last_channels, 1, 1, 1, 1, 0);
	/* head: global average pool, flatten, fully connected */
	dequantize(&g, &x, xf);
	fresh(&g, yf, "p");
	node(&g, "GlobalAveragePool", xf, yf);
	t = x;
	t.scale = 3.0f / 255.0f;
	t.rms = 1.0;
	t.size = 1;
	quantize(&g, yf, &t);
	dequantize(&g, &t, xf);
	fresh(&g, yf, "fl");
	node(&g, "Flatten", xf, yf);
	quantize(&g, yf, &t);
	x = conv(&g, &t, cfg->classes, 1, 1, 1, 0, 1);
	scalar_f(&g, s, x.scale);
	scalar_u8(&g, z, x.zero);
	snprintf(list, sizeof(list), "%s,%s,%s", x.name, s, z);
	node(&g, "DequantizeLinear", list, "logits");
	mb_output_typed(mb, "logits", FLOAT, 2, out_dims);
}

void mobilenet_input(float *data, size_t count, uint32_t seed)
{
	struct gen g = { NULL, 0x2545f4914f6cdd1dull ^ seed, 0 };

	for (size_t i = 0; i < count; i++)
		data[i] = (float)(2.0 * uniform(&g) - 1.0);
}
