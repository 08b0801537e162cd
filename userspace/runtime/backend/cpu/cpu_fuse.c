// SPDX-License-Identifier: MIT
/*
 * Fusions the CPU kernels can do in their epilogue: a constant bias added
 * after a MatMul (RT_OP_FUSES_BIAS), and Relu / Clip after an op that
 * clamps its own output (RT_OP_FUSES_ACTIVATION). Only the defs' flags
 * say which ops can, so these run with the CPU's defs bound.
 */

#include "cpu_lower.h"
#include "rewrite.h"
#include "rt_op.h"

static int fuse_bias(struct rt_graph *g, size_t n)
{
	struct rt_node *mm = &g->nodes[n], *add;
	const struct rt_tensor *weights, *bias;
	int reader, other;

	if (!mm->def || !(mm->def->flags & RT_OP_FUSES_BIAS) ||
	    mm->has_fused_bias || !rt_node_is_onnx(mm, "MatMul") ||
	    mm->output_count != 1 ||
	    !rt_value_single_reader(g, mm->outputs[0], &reader))
		return 0;
	add = &g->nodes[reader];
	if (!rt_node_in_scope(g, mm) || !rt_node_in_scope(g, add) ||
	    !rt_node_is_onnx(add, "Add") || add->input_count != 2)
		return 0;
	other = add->inputs[0] == mm->outputs[0] ? 1 : 0;
	if (add->inputs[1 - other] != mm->outputs[0])
		return 0;
	weights = rt_node_constant(g, mm, 1);
	bias = rt_node_constant(g, add, (size_t)other);
	if (!weights || weights->rank != 2 || !bias ||
	    bias->dtype != weights->dtype || bias->rank != 1 ||
	    bias->dims[0] != weights->dims[1])
		return 0;
	mm->inputs[mm->input_count++] = add->inputs[other];
	mm->has_fused_bias = 1;
	rt_node_absorb(g, mm, add);
	return 1;
}

static int fuse_activation(struct rt_graph *g, size_t n)
{
	struct rt_node *producer = &g->nodes[n], *act;
	struct rt_activation activation = { RT_ACTIVATION_NONE, 0, 0 };
	int reader;

	if (producer->removed || !producer->def ||
	    !(producer->def->flags & RT_OP_FUSES_ACTIVATION) ||
	    producer->activation.kind != RT_ACTIVATION_NONE ||
	    producer->output_count != 1 ||
	    !rt_value_single_reader(g, producer->outputs[0], &reader))
		return 0;
	act = &g->nodes[reader];
	if (!rt_node_in_scope(g, producer) || !rt_node_in_scope(g, act) ||
	    act->output_count != 1 || act->inputs[0] != producer->outputs[0])
		return 0;
	if (!rt_node_activation(g, act, &activation))
		return 0;
	producer->activation = activation;
	rt_node_absorb(g, producer, act);
	return 1;
}


int rt_cpu_pass_fuse_bias(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++)
		fuse_bias(g, n);
	return 0;
}

int rt_cpu_pass_fuse_activation(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++)
		fuse_activation(g, n);
	return 0;
}
