/* SPDX-License-Identifier: MIT */
/*
 * The op's view of a graph node (struct rt_kernel), refreshed from the IR
 * before each call, since passes may have rewritten the node. Used by the
 * CPU backend and the engine's load-time shape inference and folding,
 * which run the op defs, and by the NPU backend, which reads a node's
 * geometry and quantization through the same op helpers the CPU ops use.
 */
#ifndef ENPU_RT_OP_VIEW_H
#define ENPU_RT_OP_VIEW_H

#include "ir.h"
#include "rt_op.h"

/* backend/cpu/cpu_subgraph.c: runs subgraphs for the ops that have them. */
extern const struct rt_subgraph_ops rt_cpu_subgraphs;

static inline void rt_op_view(struct rt_kernel *k,
			      const struct rt_node *node,
			      enpu_cpu_context *cpu,
			      struct rt_error_sink *errors)
{
	k->name = node->name;
	k->op_type = node->op_type;
	k->domain = node->domain;
	k->opset = node->opset;
	k->activation = node->activation;
	k->has_fused_bias = node->has_fused_bias;
	k->cpu = cpu;
	k->attrs = node->attrs;
	k->attr_count = node->attr_count;
	k->errors = errors;
	k->implicit_inputs = node->implicit_inputs;
	k->subgraphs = &rt_cpu_subgraphs;
}

#endif /* ENPU_RT_OP_VIEW_H */
