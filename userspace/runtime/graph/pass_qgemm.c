// SPDX-License-Identifier: MIT
/*
 * Lowering of the quantized matrix-product forms to ai.enpu QGemm
 * (quantized.h). Three shapes of input graph reach the same node:
 *
 *   QLinearMatMul(a, as, az, b, bs, bz, ys, yz)  -> QGemm, same inputs
 *   MatMulInteger(a, b, az, bz)                  -> QGemm(a,-,az,b,-,bz,-,-)
 *   QuantizeLinear(Relu?(MatMul(DequantizeLinear(x, xs, xz),
 *                               DequantizeLinear(W, ws, wz))), ys, yz)
 *                                -> QGemm(x, xs, xz, W, ws, wz, ys, yz)
 *                                   with a fused Relu as a clamp
 *
 * The QDQ form needs W and every scale and zero point constant, scalar
 * activation parameters and weight parameters scalar or per column (axis 1
 * of a 2-D W). Dequantize nodes stay when something else still reads them.
 */
#include <string.h>

#include "quantized.h"

static int is_onnx_op(const struct rt_node *node, const char *op_type)
{
	return !node->removed && !strcmp(node->op_type, op_type) &&
	       (!node->domain[0] || !strcmp(node->domain, "ai.onnx"));
}

static int readers(const struct rt_graph *g, int value, int *reader)
{
	int count = 0;

	if (value < 0)
		return 0;
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *node = &g->nodes[n];

		if (node->removed)
			continue;
		for (size_t i = 0; i < node->input_count; i++)
			if (node->inputs[i] == value) {
				count++;
				*reader = (int)n;
			}
	}
	if (g->values[value].is_output)
		count++;
	return count;
}

static int retarget(struct rt_graph *g, struct rt_node *node,
		    const int inputs[RT_QGEMM_INPUTS])
{
	int *slots = rt_arena_alloc(&g->arena,
				    (RT_QGEMM_INPUTS + 1) * sizeof(int));

	if (!slots)
		return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory lowering '%s'", node->name);
	memcpy(slots, inputs, RT_QGEMM_INPUTS * sizeof(int));
	node->inputs = slots;
	node->input_count = RT_QGEMM_INPUTS;
	node->op_type = RT_QGEMM_OP;
	node->domain = RT_QGEMM_DOMAIN;
	node->opset = 1;
	node->kernel.op_type = node->op_type;
	node->kernel.domain = node->domain;
	node->kernel.opset = 1;
	node->def = rt_op_find(RT_QGEMM_DOMAIN, RT_QGEMM_OP, 1);
	if (!node->def)
		return rt_error_set(g->errors, ENPU_RT_UNSUPPORTED,
				    "node '%s': QGemm is not registered",
				    node->name);
	return 0;
}

static int input_at(const struct rt_node *node, size_t i)
{
	return i < node->input_count ? node->inputs[i] : -1;
}

static int scalar_constant(const struct rt_graph *g,
			   const struct rt_node *node, size_t i, int optional)
{
	const struct rt_tensor *t;

	if (input_at(node, i) < 0)
		return optional;
	t = rt_graph_constant(g, node, i);
	return t && rt_tensor_elements(t) == 1;
}

static int axis_of(const struct rt_node *node)
{
	for (size_t i = 0; i < node->attr_count; i++)
		if (!strcmp(node->attrs[i].name, "axis") &&
		    node->attrs[i].type == RT_ATTR_INT)
			return (int)node->attrs[i].i;
	return 1;
}

static int lower_qdq_matmul(struct rt_graph *g, size_t n)
{
	struct rt_node *q = &g->nodes[n], *mm, *relu = NULL, *dqa, *dqb;
	const struct rt_tensor *w, *ws;
	int producer, reader, inputs[RT_QGEMM_INPUTS];

	if (!is_onnx_op(q, "QuantizeLinear") || q->input_count < 2 ||
	    q->output_count != 1 || !scalar_constant(g, q, 1, 0) ||
	    !scalar_constant(g, q, 2, 1))
		return 0;
	producer = g->values[q->inputs[0]].producer;
	if (producer < 0 || readers(g, q->inputs[0], &reader) != 1)
		return 0;
	mm = &g->nodes[producer];
	if (is_onnx_op(mm, "Relu")) {
		relu = mm;
		producer = g->values[relu->inputs[0]].producer;
		if (producer < 0 || readers(g, relu->inputs[0], &reader) != 1)
			return 0;
		mm = &g->nodes[producer];
	}
	if (!is_onnx_op(mm, "MatMul") || mm->input_count != 2)
		return 0;
	if (g->values[mm->inputs[0]].producer < 0 ||
	    g->values[mm->inputs[1]].producer < 0)
		return 0;
	dqa = &g->nodes[g->values[mm->inputs[0]].producer];
	dqb = &g->nodes[g->values[mm->inputs[1]].producer];
	if (!is_onnx_op(dqa, "DequantizeLinear") ||
	    !is_onnx_op(dqb, "DequantizeLinear") ||
	    !scalar_constant(g, dqa, 1, 0) || !scalar_constant(g, dqa, 2, 1))
		return 0;
	w = rt_graph_constant(g, dqb, 0);
	ws = rt_graph_constant(g, dqb, 1);
	if (!w || w->rank != 2 || !ws ||
	    (w->dtype != ENPU_RT_INT8 && w->dtype != ENPU_RT_UINT8))
		return 0;
	if (rt_tensor_elements(ws) != 1) {
		int axis = axis_of(dqb);

		if ((axis != 1 && axis != -1) || ws->rank != 1 ||
		    ws->dims[0] != w->dims[1])
			return 0;
		if (input_at(dqb, 2) >= 0 && !rt_graph_constant(g, dqb, 2))
			return 0;
	} else if (!scalar_constant(g, dqb, 2, 1)) {
		return 0;
	}
	inputs[RT_QGEMM_A] = dqa->inputs[0];
	inputs[RT_QGEMM_A_SCALE] = dqa->inputs[1];
	inputs[RT_QGEMM_A_ZERO] = input_at(dqa, 2);
	inputs[RT_QGEMM_B] = dqb->inputs[0];
	inputs[RT_QGEMM_B_SCALE] = dqb->inputs[1];
	inputs[RT_QGEMM_B_ZERO] = input_at(dqb, 2);
	inputs[RT_QGEMM_Y_SCALE] = q->inputs[1];
	inputs[RT_QGEMM_Y_ZERO] = input_at(q, 2);
	inputs[RT_QGEMM_BIAS] = -1;
	if (retarget(g, mm, inputs))
		return -1;
	if (relu) {
		mm->kernel.activation.kind = RT_ACTIVATION_RELU;
		relu->removed = 1;
	}
	g->values[mm->outputs[0]].producer = -1;
	mm->outputs[0] = q->outputs[0];
	g->values[q->outputs[0]].producer = (int)(mm - g->nodes);
	q->removed = 1;
	/* The dequantized copies are dead unless someone else reads them. */
	if (readers(g, dqa->outputs[0], &reader) == 0)
		dqa->removed = 1;
	if (dqb != dqa && readers(g, dqb->outputs[0], &reader) == 0)
		dqb->removed = 1;
	return 1;
}

int rt_graph_lower_quantized(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++) {
		struct rt_node *node = &g->nodes[n];
		int inputs[RT_QGEMM_INPUTS];

		if (is_onnx_op(node, "QLinearMatMul") &&
		    node->input_count == 8) {
			for (int i = 0; i < RT_QGEMM_INPUTS; i++)
				inputs[i] = i < 8 ? node->inputs[i] : -1;
			if (retarget(g, node, inputs))
				return g->errors->status;
		} else if (is_onnx_op(node, "MatMulInteger")) {
			for (int i = 0; i < RT_QGEMM_INPUTS; i++)
				inputs[i] = -1;
			inputs[RT_QGEMM_A] = input_at(node, 0);
			inputs[RT_QGEMM_B] = input_at(node, 1);
			inputs[RT_QGEMM_A_ZERO] = input_at(node, 2);
			inputs[RT_QGEMM_B_ZERO] = input_at(node, 3);
			if (retarget(g, node, inputs))
				return g->errors->status;
		}
	}
	for (size_t n = 0; n < g->node_count; n++)
		if (lower_qdq_matmul(g, n) < 0)
			return g->errors->status;
	return rt_graph_lower_qdq_ops(g);
}
