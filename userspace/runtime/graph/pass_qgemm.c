// SPDX-License-Identifier: MIT
/*
 * Lowering of the quantized matrix-product forms to ai.enpu QGemm
 * (ops/rt_enpu_ops.h). Three shapes of input graph reach the same node:
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

#include "passes.h"
#include "rewrite.h"

static int retarget(struct rt_graph *g, struct rt_node *node,
		    const int inputs[RT_QGEMM_INPUTS])
{
	if (rt_node_set_inputs(g, node, inputs, RT_QGEMM_INPUTS))
		return -1;
	return rt_node_retype(node, RT_QGEMM_DOMAIN, RT_QGEMM_OP);
}

static int scalar_constant(const struct rt_graph *g,
			   const struct rt_node *node, size_t i, int optional)
{
	const struct rt_tensor *t;

	if (rt_node_input(node, i) < 0)
		return optional;
	t = rt_node_constant(g, node, i);
	return t && rt_tensor_elements(t) == 1;
}

static int lower_qdq_matmul(struct rt_graph *g, size_t n)
{
	struct rt_node *q = &g->nodes[n], *mm, *relu = NULL, *dqa, *dqb;
	const struct rt_tensor *w, *ws;
	int producer, reader, inputs[RT_QGEMM_INPUTS];

	if (!rt_node_is_onnx(q, "QuantizeLinear") || q->input_count < 2 ||
	    q->output_count != 1 || !scalar_constant(g, q, 1, 0) ||
	    !scalar_constant(g, q, 2, 1))
		return 0;
	producer = g->values[q->inputs[0]].producer;
	if (producer < 0 || rt_value_readers(g, q->inputs[0], &reader) != 1)
		return 0;
	mm = &g->nodes[producer];
	if (rt_node_is_onnx(mm, "Relu")) {
		relu = mm;
		producer = g->values[relu->inputs[0]].producer;
		if (producer < 0 || rt_value_readers(g, relu->inputs[0], &reader) != 1)
			return 0;
		mm = &g->nodes[producer];
	}
	if (!rt_node_is_onnx(mm, "MatMul") || mm->input_count != 2)
		return 0;
	if (g->values[mm->inputs[0]].producer < 0 ||
	    g->values[mm->inputs[1]].producer < 0)
		return 0;
	dqa = &g->nodes[g->values[mm->inputs[0]].producer];
	dqb = &g->nodes[g->values[mm->inputs[1]].producer];
	if (!rt_node_is_onnx(dqa, "DequantizeLinear") ||
	    !rt_node_is_onnx(dqb, "DequantizeLinear") ||
	    !scalar_constant(g, dqa, 1, 0) || !scalar_constant(g, dqa, 2, 1))
		return 0;
	w = rt_node_constant(g, dqb, 0);
	ws = rt_node_constant(g, dqb, 1);
	if (!w || w->rank != 2 || !ws ||
	    (w->dtype != ENPU_RT_INT8 && w->dtype != ENPU_RT_UINT8))
		return 0;
	if (rt_tensor_elements(ws) != 1) {
		int64_t axis = rt_node_attr_int(dqb, "axis", 1);

		if ((axis != 1 && axis != -1) || ws->rank != 1 ||
		    ws->dims[0] != w->dims[1])
			return 0;
		if (rt_node_input(dqb, 2) >= 0 && !rt_node_constant(g, dqb, 2))
			return 0;
	} else if (!scalar_constant(g, dqb, 2, 1)) {
		return 0;
	}
	inputs[RT_QGEMM_A] = dqa->inputs[0];
	inputs[RT_QGEMM_A_SCALE] = dqa->inputs[1];
	inputs[RT_QGEMM_A_ZERO] = rt_node_input(dqa, 2);
	inputs[RT_QGEMM_B] = dqb->inputs[0];
	inputs[RT_QGEMM_B_SCALE] = dqb->inputs[1];
	inputs[RT_QGEMM_B_ZERO] = rt_node_input(dqb, 2);
	inputs[RT_QGEMM_Y_SCALE] = q->inputs[1];
	inputs[RT_QGEMM_Y_ZERO] = rt_node_input(q, 2);
	inputs[RT_QGEMM_BIAS] = -1;
	if (retarget(g, mm, inputs))
		return -1;
	if (relu) {
		mm->activation.kind = RT_ACTIVATION_RELU;
		relu->removed = 1;
	}
	rt_node_absorb(g, mm, q);
	/* The dequantized copies are dead unless someone else reads them. */
	if (rt_value_readers(g, dqa->outputs[0], &reader) == 0)
		dqa->removed = 1;
	if (dqb != dqa && rt_value_readers(g, dqb->outputs[0], &reader) == 0)
		dqb->removed = 1;
	return 1;
}

int rt_pass_lower_qgemm(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++) {
		struct rt_node *node = &g->nodes[n];
		int inputs[RT_QGEMM_INPUTS];

		if (rt_node_is_onnx(node, "QLinearMatMul") &&
		    node->input_count == 8) {
			for (int i = 0; i < RT_QGEMM_INPUTS; i++)
				inputs[i] = i < 8 ? node->inputs[i] : -1;
			if (retarget(g, node, inputs))
				return g->errors->status;
		} else if (rt_node_is_onnx(node, "MatMulInteger")) {
			for (int i = 0; i < RT_QGEMM_INPUTS; i++)
				inputs[i] = -1;
			inputs[RT_QGEMM_A] = rt_node_input(node, 0);
			inputs[RT_QGEMM_B] = rt_node_input(node, 1);
			inputs[RT_QGEMM_A_ZERO] = rt_node_input(node, 2);
			inputs[RT_QGEMM_B_ZERO] = rt_node_input(node, 3);
			if (retarget(g, node, inputs))
				return g->errors->status;
		}
	}
	for (size_t n = 0; n < g->node_count; n++)
		if (lower_qdq_matmul(g, n) < 0)
			return g->errors->status;
	return 0;
}
