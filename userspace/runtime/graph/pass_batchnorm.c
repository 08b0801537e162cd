// SPDX-License-Identifier: MIT
/*
 * Graph rewrites done once at load, before shape inference:
 *   1. Conv + BatchNormalization (inference form, constant float
 *      parameters): the normalization is folded into new Conv weights and
 *      bias; the BatchNormalization node goes away.
 *   2. MatMul + Add of a constant 1-D bias over the last axis: the bias
 *      becomes an extra input of an op that declares RT_OP_FUSES_BIAS.
 *   3. X + Relu / Clip with constant bounds: the activation becomes
 *      k->activation of an op that declares RT_OP_FUSES_ACTIVATION.
 *   4. Quantized forms (done first): see quantized.c (QLinearMatMul,
 *      MatMulInteger and QDQ MatMul become ai.enpu QGemm) and lower_qdq.c
 *      (QDQ Conv/Gemm/Add/Mul/pools/Concat/Flatten/Reshape, QLinearConv).
 *   5. Layout (done last, layout.c): integer ops stay NHWC between each
 *      other; transposes only at the region's boundaries. Then the
 *      first-layer rewrite (patches.c).
 * A rewrite only happens when the intermediate value has one reader and
 * is not a graph output, so nothing observable changes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "quantized.h"

static int single_reader(const struct rt_graph *g, int value, int *reader)
{
	int found = -1;

	if (value < 0 || g->values[value].is_output)
		return 0;
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *node = &g->nodes[n];

		if (node->removed)
			continue;
		for (size_t i = 0; i < node->input_count; i++) {
			if (node->inputs[i] != value)
				continue;
			if (found >= 0)
				return 0;
			found = (int)n;
		}
	}
	*reader = found;
	return found >= 0;
}

const struct rt_tensor *rt_graph_constant(const struct rt_graph *g,
					  const struct rt_node *node,
					  size_t input)
{
	int v;

	if (input >= node->input_count)
		return NULL;
	v = node->inputs[input];
	if (v < 0 || g->values[v].kind != RT_VALUE_CONSTANT)
		return NULL;
	return &g->values[v].tensor;
}

/* A new constant value named after @base; returns its index or -1. */
int rt_graph_add_constant(struct rt_graph *g, const char *base,
			  const char *suffix, int32_t dtype, int32_t rank,
			  const int64_t *dims)
{
	char name[512];
	int index;
	size_t count = 1;
	struct rt_value *v;

	for (int i = 0; i < rank; i++)
		count *= (size_t)dims[i];
	for (int attempt = 0; attempt < 1000; attempt++) {
		snprintf(name, sizeof(name), "%s.%s%d", base, suffix, attempt);
		if (rt_graph_find_value(g, name) < 0)
			break;
	}
	index = rt_graph_add_value(g, name);
	if (index < 0)
		return -1;
	v = &g->values[index];
	v->kind = RT_VALUE_CONSTANT;
	v->tensor.dtype = dtype;
	v->tensor.rank = rank;
	if (rank)
		memcpy(v->tensor.dims, dims, (size_t)rank * sizeof(dims[0]));
	v->tensor.byte_size = count * enpu_rt_dtype_size(dtype);
	v->tensor.data = rt_arena_alloc(&g->arena, v->tensor.byte_size + 1);
	if (!v->tensor.data) {
		rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
			     "out of memory for constant '%s'", name);
		return -1;
	}
	return index;
}

/* Drops @victim, whose only input is @producer's output, keeping its output. */
static void bypass(struct rt_graph *g, struct rt_node *producer,
		   struct rt_node *victim)
{
	int out = victim->outputs[0];

	g->values[producer->outputs[0]].producer = -1;
	producer->outputs[0] = out;
	g->values[out].producer = (int)(producer - g->nodes);
	victim->removed = 1;
}

static int attr_int(const struct rt_node *node, const char *name,
		    int64_t fallback)
{
	for (size_t i = 0; i < node->attr_count; i++)
		if (!strcmp(node->attrs[i].name, name) &&
		    node->attrs[i].type == RT_ATTR_INT)
			return (int)node->attrs[i].i;
	return (int)fallback;
}

static float attr_float(const struct rt_node *node, const char *name,
			float fallback)
{
	for (size_t i = 0; i < node->attr_count; i++)
		if (!strcmp(node->attrs[i].name, name) &&
		    node->attrs[i].type == RT_ATTR_FLOAT)
			return node->attrs[i].f;
	return fallback;
}

static int is_op(const struct rt_node *node, const char *op_type)
{
	return !node->removed && !strcmp(node->op_type, op_type) &&
	       (!node->domain[0] || !strcmp(node->domain, "ai.onnx"));
}

static int float_vector(const struct rt_tensor *t, int64_t n)
{
	return t && t->dtype == ENPU_RT_FLOAT && t->rank == 1 &&
	       t->dims[0] == n;
}

static int fuse_conv_batchnorm(struct rt_graph *g, size_t n)
{
	struct rt_node *conv = &g->nodes[n], *bn;
	const struct rt_tensor *w, *b, *scale, *beta, *mean, *var;
	int reader, new_w, new_b;
	float epsilon;
	int64_t m;

	if (!is_op(conv, "Conv") || conv->output_count != 1 ||
	    !single_reader(g, conv->outputs[0], &reader))
		return 0;
	bn = &g->nodes[reader];
	if (!is_op(bn, "BatchNormalization") || bn->input_count != 5 ||
	    bn->output_count != 1 || bn->inputs[0] != conv->outputs[0] ||
	    attr_int(bn, "training_mode", 0) || !attr_int(bn, "spatial", 1))
		return 0;
	w = rt_graph_constant(g, conv, 1);
	b = conv->input_count > 2 && conv->inputs[2] >= 0 ?
	    rt_graph_constant(g, conv, 2) : NULL;
	if (!w || w->dtype != ENPU_RT_FLOAT || w->rank < 3 ||
	    (conv->input_count > 2 && conv->inputs[2] >= 0 && !b))
		return 0;
	m = w->dims[0];
	scale = rt_graph_constant(g, bn, 1);
	beta = rt_graph_constant(g, bn, 2);
	mean = rt_graph_constant(g, bn, 3);
	var = rt_graph_constant(g, bn, 4);
	if (!float_vector(scale, m) || !float_vector(beta, m) ||
	    !float_vector(mean, m) || !float_vector(var, m) ||
	    (b && !float_vector(b, m)))
		return 0;
	epsilon = attr_float(bn, "epsilon", 1e-5f);
	new_w = rt_graph_add_constant(g, g->values[conv->inputs[1]].name,
				      "bnfold", ENPU_RT_FLOAT, w->rank,
				      w->dims);
	if (new_w < 0)
		return -1;
	new_b = rt_graph_add_constant(g, g->values[conv->inputs[1]].name,
				      "bnbias", ENPU_RT_FLOAT, 1, &m);
	if (new_b < 0)
		return -1;
	/* Re-fetch: adding values may have moved the array. */
	w = &g->values[conv->inputs[1]].tensor;
	b = conv->input_count > 2 && conv->inputs[2] >= 0 ?
	    &g->values[conv->inputs[2]].tensor : NULL;
	scale = &g->values[bn->inputs[1]].tensor;
	beta = &g->values[bn->inputs[2]].tensor;
	mean = &g->values[bn->inputs[3]].tensor;
	var = &g->values[bn->inputs[4]].tensor;
	{
		const float *wd = w->data, *sd = scale->data, *bd = beta->data;
		const float *md = mean->data, *vd = var->data;
		float *nw = g->values[new_w].tensor.data;
		float *nb = g->values[new_b].tensor.data;
		size_t per = rt_tensor_elements(w) / (size_t)(m ? m : 1);

		for (int64_t c = 0; c < m; c++) {
			float s = sd[c] / sqrtf(vd[c] + epsilon);
			float bias = b ? ((const float *)b->data)[c] : 0.0f;

			for (size_t i = 0; i < per; i++)
				nw[(size_t)c * per + i] = wd[(size_t)c * per + i] * s;
			nb[c] = (bias - md[c]) * s + bd[c];
		}
	}
	conv->inputs[1] = new_w;
	if (conv->input_count < 3)
		conv->input_count = 3;	/* load_node left a spare slot */
	conv->inputs[2] = new_b;
	bypass(g, conv, bn);
	return 1;
}

static int fuse_bias(struct rt_graph *g, size_t n)
{
	struct rt_node *mm = &g->nodes[n], *add;
	const struct rt_tensor *weights, *bias;
	int reader, other;

	if (!mm->def || !(mm->def->flags & RT_OP_FUSES_BIAS) ||
	    mm->kernel.has_fused_bias || !is_op(mm, "MatMul") ||
	    mm->output_count != 1 ||
	    !single_reader(g, mm->outputs[0], &reader))
		return 0;
	add = &g->nodes[reader];
	if (!is_op(add, "Add") || add->input_count != 2)
		return 0;
	other = add->inputs[0] == mm->outputs[0] ? 1 : 0;
	if (add->inputs[1 - other] != mm->outputs[0])
		return 0;
	weights = rt_graph_constant(g, mm, 1);
	bias = rt_graph_constant(g, add, (size_t)other);
	if (!weights || weights->rank != 2 || !bias ||
	    bias->dtype != weights->dtype || bias->rank != 1 ||
	    bias->dims[0] != weights->dims[1])
		return 0;
	mm->inputs[mm->input_count++] = add->inputs[other];
	mm->kernel.has_fused_bias = 1;
	bypass(g, mm, add);
	return 1;
}

static int fuse_activation(struct rt_graph *g, size_t n)
{
	struct rt_node *producer = &g->nodes[n], *act;
	struct rt_activation activation = { RT_ACTIVATION_NONE, 0, 0 };
	int reader;

	if (producer->removed || !producer->def ||
	    !(producer->def->flags & RT_OP_FUSES_ACTIVATION) ||
	    producer->kernel.activation.kind != RT_ACTIVATION_NONE ||
	    producer->output_count != 1 ||
	    !single_reader(g, producer->outputs[0], &reader))
		return 0;
	act = &g->nodes[reader];
	if (act->output_count != 1 || act->inputs[0] != producer->outputs[0])
		return 0;
	if (is_op(act, "Relu") && act->input_count == 1) {
		activation.kind = RT_ACTIVATION_RELU;
	} else if (is_op(act, "Clip")) {
		activation.kind = RT_ACTIVATION_CLIP;
		activation.min = -INFINITY;
		activation.max = INFINITY;
		if (act->opset < 11) {
			activation.min = attr_float(act, "min", -INFINITY);
			activation.max = attr_float(act, "max", INFINITY);
		} else {
			for (size_t i = 1; i < 3 && i < act->input_count; i++) {
				const struct rt_tensor *t;

				if (act->inputs[i] < 0)
					continue;
				t = rt_graph_constant(g, act, i);
				if (!t || t->dtype != ENPU_RT_FLOAT ||
				    rt_tensor_elements(t) != 1)
					return 0;
				if (i == 1)
					activation.min = *(float *)t->data;
				else
					activation.max = *(float *)t->data;
			}
		}
	} else {
		return 0;
	}
	producer->kernel.activation = activation;
	bypass(g, producer, act);
	return 1;
}

int rt_graph_fuse(struct rt_graph *g)
{
	int status = rt_graph_lower_quantized(g);

	if (status)
		return status;
	for (size_t n = 0; n < g->node_count; n++) {
		if (fuse_conv_batchnorm(g, n) < 0)
			return g->errors->status;
	}
	for (size_t n = 0; n < g->node_count; n++)
		fuse_bias(g, n);
	for (size_t n = 0; n < g->node_count; n++)
		fuse_activation(g, n);
	status = rt_graph_layout_nhwc(g);
	if (!status)
		status = rt_graph_first_layer_patches(g);
	return status;
}
