// SPDX-License-Identifier: MIT
/*
 * Load-time shape inference and constant folding (called by pipeline.c in
 * its order), with the op defs of ops/: backend-neutral steps, before
 * placement. What cannot be inferred at load is inferred by the backend
 * at run time (backend/cpu); nodes whose inputs are all constant run once
 * here and their outputs become constants.
 */
#include <stdlib.h>
#include <string.h>

#include "op_view.h"
#include "engine.h"

struct rt_kernel *rt_engine_kernel(struct enpu_rt_session *s, size_t n)
{
	struct rt_graph *g = &s->graph;
	struct rt_node *node = &g->nodes[n];
	struct rt_kernel *k;

	if (g->node_count > s->node_capacity) {
		size_t capacity = g->node_capacity;
		struct rt_node_state *grown = realloc(s->nodes, capacity *
						      sizeof(*grown));

		if (!grown) {
			rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory preparing the session");
			return NULL;
		}
		memset(grown + s->node_capacity, 0,
		       (capacity - s->node_capacity) * sizeof(*grown));
		s->nodes = grown;
		s->node_capacity = capacity;
	}
	/* The IR may have been rewritten since: refresh the view. */
	k = &s->nodes[n].kernel;
	rt_op_view(k, node, s->cpu, &s->errors);
	return k;
}

/* Scratch argument arrays as large as the largest node needs. */
static int size_scratch(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;
	size_t max_in = 1, max_out = 1;

	for (size_t i = 0; i < g->node_count; i++) {
		if (g->nodes[i].input_count > max_in)
			max_in = g->nodes[i].input_count;
		if (g->nodes[i].output_count > max_out)
			max_out = g->nodes[i].output_count;
	}
	if (max_in > s->max_inputs) {
		const struct rt_tensor **p = realloc(s->in_ptrs,
						     max_in * sizeof(*p));

		if (!p)
			goto oom;
		s->in_ptrs = p;
		s->max_inputs = max_in;
	}
	if (max_out > s->max_outputs) {
		struct rt_tensor **p = realloc(s->out_ptrs,
					       max_out * sizeof(*p));

		if (!p)
			goto oom;
		s->out_ptrs = p;
		s->max_outputs = max_out;
	}
	return 0;
oom:
	return rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
			    "out of memory preparing the session");
}

static void gather(struct enpu_rt_session *s, struct rt_node *node)
{
	struct rt_graph *g = &s->graph;

	for (size_t i = 0; i < node->input_count; i++)
		s->in_ptrs[i] = node->inputs[i] >= 0 ?
				&g->values[node->inputs[i]].tensor : NULL;
	for (size_t o = 0; o < node->output_count; o++)
		s->out_ptrs[o] = node->outputs[o] >= 0 ?
				 &g->values[node->outputs[o]].tensor : NULL;
}

static int inputs_known(const struct rt_graph *g, const struct rt_node *node,
			int *all_constant)
{
	int known = 1;

	*all_constant = 1;
	for (size_t i = 0; i < node->input_count; i++) {
		const struct rt_value *v;

		if (node->inputs[i] < 0)
			continue;
		v = &g->values[node->inputs[i]];
		if (v->tensor.rank < 0)
			known = 0;
		if (v->kind != RT_VALUE_CONSTANT)
			*all_constant = 0;
	}
	return known;
}

/* Checks what infer() produced so a buggy op cannot corrupt the engine. */
static int check_outputs(struct enpu_rt_session *s, struct rt_node *node)
{
	for (size_t o = 0; o < node->output_count; o++) {
		struct rt_tensor *t = s->out_ptrs[o];

		if (t && !rt_tensor_consistent(t))
			return rt_error_set(&s->errors, ENPU_RT_RUNTIME_ERROR,
					    "node '%s' (%s): inferred output %zu "
					    "is inconsistent (type %d, rank %d)",
					    node->name, node->op_type, o,
					    t->dtype, t->rank);
	}
	return 0;
}

static int infer_node(struct enpu_rt_session *s, struct rt_node *node)
{
	struct rt_kernel *k = rt_engine_kernel(s, (size_t)(node - s->graph.nodes));
	int status;

	if (!k)
		return s->errors.status;
	status = node->def->infer(k, s->in_ptrs,
				  node->input_count, s->out_ptrs,
				  node->output_count);
	if (status == RT_OP_NEEDS_VALUES)
		return status;
	if (status)
		return s->errors.status ? status :
		       rt_error_set(&s->errors, status,
				    "node '%s' (%s): shape inference failed",
				    node->name, node->op_type);
	return check_outputs(s, node);
}

static void set_unknown_outputs(struct rt_graph *g, struct rt_node *node)
{
	for (size_t o = 0; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			g->values[node->outputs[o]].tensor.rank = -1;
}

static int fold_node(struct enpu_rt_session *s, struct rt_node *node)
{
	struct rt_graph *g = &s->graph;
	struct rt_kernel *k = rt_engine_kernel(s, (size_t)(node - g->nodes));
	int status = 0;

	if (!k)
		return s->errors.status;
	for (size_t o = 0; o < node->output_count; o++) {
		struct rt_tensor *t = s->out_ptrs[o];

		if (!t)
			continue;
		t->data = rt_arena_alloc(&g->arena,
					 t->byte_size ? t->byte_size : 1);
		if (!t->data)
			return rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
					    "node '%s' (%s): out of memory "
					    "folding constants", node->name,
					    node->op_type);
	}
	if (node->def->prepare)
		status = node->def->prepare(k, s->in_ptrs, node->input_count);
	if (!status)
		status = node->def->run(k, s->in_ptrs, node->input_count,
					s->out_ptrs, node->output_count);
	if (node->def->release)
		node->def->release(k);
	k->state = NULL;
	if (status)
		return s->errors.status ? status :
		       rt_error_set(&s->errors, status,
				    "node '%s' (%s): failed while folding",
				    node->name, node->op_type);
	for (size_t o = 0; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			g->values[node->outputs[o]].kind = RT_VALUE_CONSTANT;
	node->removed = 1;
	return 0;
}

/* Graph inputs with symbolic dims get their shape at bind time. */
static void reset_input_shapes(struct rt_graph *g)
{
	for (size_t i = 0; i < g->input_count; i++) {
		struct rt_value *v = &g->values[g->inputs[i]];
		int fixed = v->declared_rank >= 0;

		for (int d = 0; fixed && d < v->declared_rank; d++)
			fixed = v->declared_dims[d] >= 0;
		v->tensor.rank = fixed ? v->declared_rank : -1;
	}
}

int rt_engine_infer(struct enpu_rt_session *s, int final)
{
	struct rt_graph *g = &s->graph;
	int status = size_scratch(s);

	if (status)
		return status;
	reset_input_shapes(g);
	for (size_t n = 0; n < g->order_count; n++) {
		struct rt_node *node = &g->nodes[g->order[n]];
		int all_constant;

		if (!rt_engine_kernel(s, g->order[n]))
			return s->errors.status;
		s->nodes[g->order[n]].infer_at_run = 0;
		gather(s, node);
		if (!node->def || !inputs_known(g, node, &all_constant)) {
			set_unknown_outputs(g, node);
			s->nodes[g->order[n]].infer_at_run = 1;
			continue;
		}
		status = infer_node(s, node);
		if (status == RT_OP_NEEDS_VALUES || (status && !final)) {
			/* Before lowering, a node may not be inferable yet. */
			s->errors.status = 0;
			s->errors.message[0] = 0;
			set_unknown_outputs(g, node);
			s->nodes[g->order[n]].infer_at_run = 1;
			continue;
		}
		if (status)
			return status;
	}
	return 0;
}

int rt_engine_fold(struct enpu_rt_session *s, int keep_dequantize)
{
	struct rt_graph *g = &s->graph;
	int status;

	for (size_t n = 0; n < g->order_count; n++) {
		struct rt_node *node = &g->nodes[g->order[n]];
		int all_constant;

		if (node->removed || !node->def ||
		    s->nodes[g->order[n]].infer_at_run ||
		    !inputs_known(g, node, &all_constant) || !all_constant)
			continue;
		if (keep_dequantize &&
		    !strcmp(node->op_type, "DequantizeLinear") &&
		    rt_domain_equal(node->domain, ""))
			continue;
		gather(s, node);
		status = fold_node(s, node);
		if (status)
			return status;
	}
	/* Folding removed nodes: recount consumers for the run loop. */
	return rt_graph_sort(g);
}
