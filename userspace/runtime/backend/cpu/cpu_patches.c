// SPDX-License-Identifier: MIT
/*
 * First-layer rewrite (CPU lowering), after the layout pass: a network's first
 * convolution reads 3 (at most 4) channels, which the indirect GEMM path
 * runs as kernel-size taps of 4 channels each — short K per tap, poor use
 * of the microkernel. When such a QConv (group 1, NHWC, no auto_pad) reads
 * a Quantize8 output nobody else reads, the Quantize8 becomes
 * QuantizePatches (quantize + unfold the window, ops/qpatches.c) and the
 * QConv a 1x1 convolution over kh * kw * 4 channels with its weights
 * reordered once: W'[m][(ky * kw + kx) * 4 + c] = W[m][c][ky][kx], zero for
 * c >= C. The arithmetic is unchanged: same products, same zero point
 * (padding taps hold it, so they contribute nothing), same requantization.
 */
#include <string.h>

#include "cpu_lower.h"
#include "rewrite.h"

static int is_enpu(const struct rt_node *node, const char *op_type)
{
	return rt_node_is(node, RT_ENPU_DOMAIN, op_type);
}

static int int_attr(const struct rt_node *node, const char *name,
		    int64_t fallback, int64_t *value)
{
	const struct rt_attr *a = rt_node_attr(node, name);

	*value = fallback;
	if (!a)
		return 1;
	if (a->type != RT_ATTR_INT)
		return 0;
	*value = a->i;
	return 1;
}

/* An ints attribute of @count values (or absent: @fallback each). */
static struct rt_attr ints(const char *name, const int64_t *values,
			   size_t count)
{
	struct rt_attr a;

	memset(&a, 0, sizeof(a));
	a.name = name;
	a.type = RT_ATTR_INTS;
	a.ints = values;
	a.count = count;
	return a;
}

static int rewrite(struct rt_graph *g, size_t conv, size_t quantize)
{
	struct rt_node *c = &g->nodes[conv];
	const struct rt_tensor *w = &g->values[c->inputs[3]].tensor;
	const struct rt_attr *auto_pad = rt_node_attr(c, "auto_pad");
	int64_t group, channels_last, kernel[2], strides[2], pads[4], dil[2];
	int64_t dims[4], m, ch, kh, kw, taps;
	int64_t *values;
	struct rt_attr *qa, *ca;
	int w2;

	if (!int_attr(c, "group", 1, &group) || group != 1 ||
	    !int_attr(c, RT_CHANNELS_LAST_ATTR, 0, &channels_last) ||
	    !channels_last || (auto_pad && (auto_pad->type != RT_ATTR_STRING ||
					    strcmp(auto_pad->s, "NOTSET"))) ||
	    !rt_node_attr_ints(c, "strides", 2, 1, strides) ||
	    !rt_node_attr_ints(c, "pads", 4, 0, pads) ||
	    !rt_node_attr_ints(c, "dilations", 2, 1, dil))
		return 0;
	m = w->dims[0];
	ch = w->dims[1];
	kh = w->dims[2];
	kw = w->dims[3];
	taps = kh * kw;
	if (!rt_node_attr_ints(c, "kernel_shape", 2, -1, kernel) ||
	    (kernel[0] >= 0 && (kernel[0] != kh || kernel[1] != kw)) ||
	    ch > 4 || taps < 2 || taps > 64)
		return 0;
	dims[0] = m;
	dims[1] = taps * 4;
	dims[2] = 1;
	dims[3] = 1;
	w2 = rt_graph_add_constant(g, g->values[g->nodes[conv].inputs[3]].name,
				   "patches", ENPU_RT_INT8, 4, dims);
	values = rt_arena_alloc(&g->arena, 14 * sizeof(int64_t));
	qa = rt_arena_alloc(&g->arena, 4 * sizeof(*qa));
	ca = rt_arena_alloc(&g->arena, 2 * sizeof(*ca));
	if (w2 < 0 || !values || !qa || !ca)
		return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory in the first-layer rewrite");
	c = &g->nodes[conv];
	w = &g->values[c->inputs[3]].tensor;
	for (int64_t o = 0; o < m; o++)
		for (int64_t t = 0; t < taps; t++)
			for (int64_t i = 0; i < 4; i++)
				((int8_t *)g->values[w2].tensor.data)
					[(o * taps + t) * 4 + i] = i < ch ?
					((const int8_t *)w->data)
						[(o * ch + i) * taps + t] : 0;
	values[0] = kh;
	values[1] = kw;
	memcpy(values + 2, strides, sizeof(strides));
	memcpy(values + 4, pads, sizeof(pads));
	memcpy(values + 8, dil, sizeof(dil));
	values[10] = values[11] = 1;	/* the 1x1 kernel */
	qa[0] = ints("kernel_shape", values, 2);
	qa[1] = ints("strides", values + 2, 2);
	qa[2] = ints("pads", values + 4, 4);
	qa[3] = ints("dilations", values + 8, 2);
	ca[0] = ints("kernel_shape", values + 10, 2);
	memset(&ca[1], 0, sizeof(ca[1]));
	ca[1].name = RT_CHANNELS_LAST_ATTR;
	ca[1].type = RT_ATTR_INT;
	ca[1].i = 1;
	c->attrs = ca;
	c->attr_count = 2;
	c->inputs[3] = w2;
	g->nodes[quantize].attrs = qa;
	g->nodes[quantize].attr_count = 4;
	rt_node_retype(&g->nodes[quantize], RT_ENPU_DOMAIN, "QuantizePatches");
	return 0;
}

/* Padding taps hold the quantizer's zero point: it must be the conv's. */
static int same_zero_point(const struct rt_graph *g, int a, int b)
{
	const struct rt_tensor *x, *y;

	if (a < 0 || b < 0 || g->values[a].kind != RT_VALUE_CONSTANT ||
	    g->values[b].kind != RT_VALUE_CONSTANT)
		return 0;
	x = &g->values[a].tensor;
	y = &g->values[b].tensor;
	return x->dtype == y->dtype && x->byte_size == 1 &&
	       y->byte_size == 1 &&
	       *(const uint8_t *)x->data == *(const uint8_t *)y->data;
}

int rt_cpu_pass_first_layer_patches(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *c = &g->nodes[n];
		const struct rt_tensor *w;
		int x, p, status;

		if (!is_enpu(c, "QConv") || c->input_count < 4 ||
		    c->inputs[0] < 0 || c->inputs[3] < 0)
			continue;
		x = c->inputs[0];
		p = g->values[x].producer;
		w = &g->values[c->inputs[3]].tensor;
		if (p < 0 || !rt_node_in_scope(g, c) ||
		    !rt_node_in_scope(g, &g->nodes[p]) ||
		    !is_enpu(&g->nodes[p], "Quantize8") ||
		    g->values[c->inputs[3]].kind != RT_VALUE_CONSTANT ||
		    w->dtype != ENPU_RT_INT8 || w->rank != 4 ||
		    c->input_count < 3 || g->nodes[p].input_count < 3 ||
		    !same_zero_point(g, c->inputs[2], g->nodes[p].inputs[2]) ||
		    rt_value_readers(g, x, NULL) != 1)
			continue;
		{
			int64_t cl;

			if (!int_attr(&g->nodes[p], RT_CHANNELS_LAST_ATTR, 0, &cl) ||
			    !cl)
				continue;
		}
		status = rewrite(g, n, (size_t)p);
		if (status)
			return status;
	}
	return 0;
}
