// SPDX-License-Identifier: MIT
/*
 * Layout pass (CPU lowering): the integer kernels are NHWC, ONNX is NCHW. After lowering,
 * every integer spatial op (QConv, the Q pools) still has ONNX's NCHW
 * semantics and would transpose inside each call (channels_last = 0).
 * This pass walks the graph in topological order and switches them to
 * channels_last = 1, feeding them NHWC values:
 *
 *   - an input produced by an NhwcToNchw (the NCHW view of an NHWC
 *     result) is replaced by that NHWC result; any other input gets an
 *     NchwToNhwc node (one per value, shared by all readers);
 *   - the op's output becomes a new NHWC value, and an NhwcToNchw node
 *     recreates the original NCHW value for whoever still reads it.
 *
 * Elementwise integer ops (QAdd, QMul, com.microsoft QLinearAdd/Mul)
 * follow when every activation input is already NHWC (so both sides have
 * rank 4 and broadcasting is unchanged). QConcat and com.microsoft
 * QLinearConcat follow when one input is NHWC and every other one is
 * NHWC or a Quantize8's (whose transpose is then fused into the
 * quantize, below: U-Net's decoder concatenates a skip connection from a
 * QConv with a float ConvTranspose's quantized output); they map their
 * axis.
 * Finally NhwcToNchw nodes nobody reads are dropped, so transposes remain
 * only where the integer region meets float ops, graph inputs or outputs.
 * Only ops whose rank is known to be 4 switch: QConv (4-D weights), the
 * windowed pools (2 kernel axes), QResize (4 scales), and the rest when
 * their inputs come from switched ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_lower.h"
#include "rewrite.h"

#define TO_NHWC "NchwToNhwc"
#define TO_NCHW "NhwcToNchw"

struct layout {
	struct rt_graph *g;
	int *nhwc_of;		/* per value: its NHWC twin, -1 none */
	size_t capacity;
};

static int is_enpu(const struct rt_node *node, const char *op_type)
{
	return rt_node_is(node, RT_ENPU_DOMAIN, op_type);
}

static int is_ms(const struct rt_node *node, const char *op_type)
{
	return rt_node_is(node, "com.microsoft", op_type);
}

static int channels_last(const struct rt_node *node)
{
	return rt_node_attr_int(node, RT_CHANNELS_LAST_ATTR, 0) != 0;
}

static int kernel_2d(const struct rt_node *node)
{
	const struct rt_attr *k = rt_node_attr(node, "kernel_shape");

	return k && k->type == RT_ATTR_INTS && k->count == 2;
}

static int grow(struct layout *l)
{
	struct rt_graph *g = l->g;

	while (l->capacity < g->value_count) {
		size_t capacity = l->capacity ? l->capacity * 2 : 256;
		int *grown = realloc(l->nhwc_of, capacity * sizeof(int));

		if (!grown)
			return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
					    "out of memory in the layout pass");
		for (size_t i = l->capacity; i < capacity; i++)
			grown[i] = -1;
		l->nhwc_of = grown;
		l->capacity = capacity;
	}
	return 0;
}

/* A new intermediate value named after @base. */
static int new_value(struct layout *l, int base)
{
	int index = rt_graph_add_derived_value(l->g, base, "nhwc");

	if (index < 0 || grow(l))
		return -1;
	return index;
}

/* Adds op_type(input) -> output; returns the node index or -1. */
static int new_node(struct layout *l, const char *op_type, int input,
		    int output)
{
	return rt_graph_add_op(l->g, RT_ENPU_DOMAIN, op_type, &input, 1,
			       &output, 1);
}

/* The NHWC version of NCHW value @v, creating a transpose if needed. */
static int nhwc_input(struct layout *l, int v)
{
	struct rt_graph *g = l->g;
	int producer = g->values[v].producer, t;

	if (l->nhwc_of[v] >= 0)
		return l->nhwc_of[v];
	if (producer >= 0 && is_enpu(&g->nodes[producer], TO_NCHW)) {
		l->nhwc_of[v] = g->nodes[producer].inputs[0];
		return l->nhwc_of[v];
	}
	t = new_value(l, v);
	if (t < 0 || new_node(l, TO_NHWC, v, t) < 0)
		return -1;
	l->nhwc_of[v] = t;
	return t;
}

static int produced_nhwc(const struct layout *l, int v)
{
	const struct rt_graph *g = l->g;
	int producer = v >= 0 ? g->values[v].producer : -1;

	return v >= 0 && (l->nhwc_of[v] >= 0 ||
			  (producer >= 0 &&
			   is_enpu(&g->nodes[producer], TO_NCHW)));
}

/*
 * Switches node @n: activation inputs listed in @inputs become NHWC, the
 * output becomes a new NHWC value with an NhwcToNchw back to the old one.
 */
static int switch_node(struct layout *l, size_t n, const size_t *inputs,
		       size_t count, int attribute)
{
	struct rt_graph *g = l->g;
	int out = g->nodes[n].outputs[0], y;

	for (size_t i = 0; i < count; i++) {
		int v = nhwc_input(l, g->nodes[n].inputs[inputs[i]]);

		if (v < 0)
			return -1;
		g->nodes[n].inputs[inputs[i]] = v;
	}
	if (attribute && rt_node_set_attr_int(g, &g->nodes[n],
					      RT_CHANNELS_LAST_ATTR, 1))
		return -1;
	y = new_value(l, out);
	if (y < 0)
		return -1;
	g->nodes[n].outputs[0] = y;
	g->values[y].producer = (int)n;
	if (new_node(l, TO_NCHW, y, out) < 0)
		return -1;
	l->nhwc_of[out] = y;
	return 0;
}

/*
 * A Quantize8 of an NCHW float tensor, not transposing yet: an
 * NchwToNhwc after it becomes part of it (the last loop of the pass).
 */
static int quantize8_output(const struct layout *l, int v)
{
	const struct rt_graph *g = l->g;
	int producer = v >= 0 ? g->values[v].producer : -1;

	return producer >= 0 && rt_node_in_scope(g, &g->nodes[producer]) &&
	       is_enpu(&g->nodes[producer], "Quantize8") &&
	       !channels_last(&g->nodes[producer]);
}

/*
 * QConcat (activations from input 0, one apart) or QLinearConcat (from
 * input 2, three apart): NHWC when one activation is and the others are
 * too or come from a Quantize8.
 */
static int switch_concat(struct layout *l, size_t n, size_t first,
			 size_t step)
{
	struct rt_graph *g = l->g;
	const struct rt_node *node = &g->nodes[n];
	size_t count = (node->input_count - first + step - 1) / step, nhwc = 0;
	size_t *activations = rt_arena_alloc(&g->arena,
					     count * sizeof(size_t));

	if (!activations)
		return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory in the layout pass");
	for (size_t i = 0; i < count; i++) {
		int v = node->inputs[first + i * step];

		if (produced_nhwc(l, v))
			nhwc++;
		else if (!quantize8_output(l, v))
			return 0;
		activations[i] = first + i * step;
	}
	return nhwc ? switch_node(l, n, activations, count, 1) : 0;
}

static int visit(struct layout *l, size_t n)
{
	struct rt_graph *g = l->g;
	const struct rt_node *node = &g->nodes[n];
	static const size_t first[1] = { 0 }, pair[2] = { 0, 3 };

	if (!rt_node_in_scope(g, node) || node->output_count != 1 ||
	    channels_last(node))
		return 0;
	if (is_enpu(node, "QConv") || is_enpu(node, RT_QRESIZE_OP) ||
	    ((is_enpu(node, "QMaxPool") || is_enpu(node, "QAveragePool") ||
	      is_ms(node, "QLinearAveragePool")) && kernel_2d(node)) ||
	    ((is_enpu(node, "QGlobalAveragePool") ||
	      is_ms(node, "QLinearGlobalAveragePool")) &&
	     produced_nhwc(l, node->inputs[0])))
		return switch_node(l, n, first, 1, 1);
	if ((is_enpu(node, "QAdd") || is_enpu(node, "QMul") ||
	     is_ms(node, "QLinearAdd") || is_ms(node, "QLinearMul")) &&
	    node->input_count >= 4 && produced_nhwc(l, node->inputs[0]) &&
	    produced_nhwc(l, node->inputs[3]))
		return switch_node(l, n, pair, 2, 0);
	if (is_enpu(node, "QConcat"))
		return switch_concat(l, n, 0, 1);
	if (rt_node_is(node, RT_QCONCAT_LINEAR_DOMAIN, RT_QCONCAT_LINEAR_OP))
		return switch_concat(l, n, RT_QCONCAT_LINEAR_FIRST,
				     RT_QCONCAT_LINEAR_STRIDE);
	return 0;
}

int rt_cpu_pass_layout_nhwc(struct rt_graph *g)
{
	struct layout l = { g, NULL, 0 };
	size_t order_count = g->order_count;
	int status = 0;

	if (grow(&l))
		return g->errors->status;
	/* g->order predates the new nodes, which is fine: it lists producers
	 * before readers for every node the pass looks at. */
	for (size_t i = 0; i < order_count && !status; i++)
		if (visit(&l, g->order[i]) < 0)
			status = g->errors->status ? g->errors->status :
				 ENPU_RT_OUT_OF_MEMORY;
	for (size_t n = 0; n < g->node_count && !status; n++) {
		struct rt_node *node = &g->nodes[n];

		if (rt_node_in_scope(g, node) && is_enpu(node, TO_NCHW) &&
		    !rt_value_readers(g, node->outputs[0], NULL))
			node->removed = 1;
	}
	/* Quantize8 -> NchwToNhwc: quantize and transpose in one pass. */
	for (size_t n = 0; n < g->node_count && !status; n++) {
		struct rt_node *t = &g->nodes[n];
		int v = t->inputs[0], p;

		if (!rt_node_in_scope(g, t) || !is_enpu(t, TO_NHWC))
			continue;
		p = g->values[v].producer;
		if (p < 0 || !rt_node_in_scope(g, &g->nodes[p]) ||
		    !is_enpu(&g->nodes[p], "Quantize8") ||
		    channels_last(&g->nodes[p]) || rt_value_readers(g, v, NULL) != 1)
			continue;
		status = rt_node_set_attr_int(g, &g->nodes[p],
					      RT_CHANNELS_LAST_ATTR, 1);
		if (status)
			break;
		g->nodes[p].outputs[0] = g->nodes[n].outputs[0];
		g->values[g->nodes[n].outputs[0]].producer = p;
		g->values[v].producer = -1;
		g->nodes[n].removed = 1;
	}
	free(l.nhwc_of);
	return status;
}
