// SPDX-License-Identifier: MIT
/*
 * Multiply-accumulates of a node, from its inferred shapes: what the
 * partitioner's cost model and MAC-share report count. Convolutions count
 * C_in / groups * kernel taps per output element, matrix products K per
 * output element; other ops count 0.
 */
#include <string.h>

#include "rewrite.h"

static const struct rt_tensor *shape_of(const struct rt_graph *g, int value)
{
	if (value < 0 || g->values[value].tensor.rank < 0)
		return NULL;
	return &g->values[value].tensor;
}

uint64_t rt_node_macs(const struct rt_graph *g, const struct rt_node *node)
{
	const struct rt_tensor *out = node->output_count ?
				      shape_of(g, node->outputs[0]) : NULL;
	const char *op = node->op_type;
	const struct rt_tensor *w;
	size_t w_input;
	uint64_t per_output = 1;

	if (node->removed || !out)
		return 0;
	if (!strcmp(op, "Conv") || !strcmp(op, "ConvInteger") ||
	    !strcmp(op, "QLinearConv") || !strcmp(op, "QConv")) {
		w_input = !strcmp(op, "Conv") || !strcmp(op, "ConvInteger") ?
			  1 : 3;
		w = shape_of(g, rt_node_input(node, w_input));
		if (!w || w->rank < 3)
			return 0;
		/* Each output element: C_in / groups * kernel taps. */
		for (int d = 1; d < w->rank; d++)
			per_output *= (uint64_t)w->dims[d];
		return rt_tensor_elements(out) * per_output;
	}
	if (!strcmp(op, "MatMul") || !strcmp(op, "Gemm") ||
	    !strcmp(op, "MatMulInteger") || !strcmp(op, "QLinearMatMul") ||
	    !strcmp(op, "QGemm")) {
		const struct rt_tensor *a = shape_of(g, rt_node_input(node, 0));
		int trans_a = !strcmp(op, "Gemm") &&
			      rt_node_attr_int(node, "transA", 0);

		if (!a || a->rank < 1)
			return 0;
		/* K: A's last dimension (its first with transA). */
		return rt_tensor_elements(out) *
		       (uint64_t)a->dims[trans_a && a->rank == 2 ? 0 :
					 a->rank - 1];
	}
	return 0;
}

