// SPDX-License-Identifier: MIT
/*
 * Subgraphs on the CPU (struct rt_subgraph_ops, ops/rt_op.h): the bodies
 * of If, Loop, Scan and SequenceMap, which ops run through k->subgraphs.
 * An instance binds the body's nodes to their op defs (naming every
 * unsupported one), orders them, runs once what depends on constants
 * only (kept in the body's arena, so later instances find it folded),
 * prepares the rest, and then runs the body as often as the op asks:
 * each run sets the formal and outer-scope inputs, infers every node from
 * the actual shapes (bodies see different shapes from one iteration to
 * the next), gives each value a buffer kept across runs and runs the ops.
 * Bodies are not optimized (no fusions, no quantized lowering): they run
 * as written, on the same op defs and CPU context as the main graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_view.h"

struct sub_node {
	struct rt_kernel kernel;
	int prepared;
};

struct sub_buffer {
	void *data;
	size_t capacity;
};

struct cpu_subgraph {
	struct rt_graph *graph;
	enpu_cpu_context *cpu;
	struct rt_error_sink *errors;
	struct sub_node *nodes;		/* per graph node */
	struct sub_buffer *buffers;	/* per value */
	size_t value_count;
	const struct rt_tensor **in_ptrs;
	struct rt_tensor **out_ptrs;
	size_t outer_needed;		/* implicit inputs the body reads */
};

static void gather(struct cpu_subgraph *s, const struct rt_node *node)
{
	struct rt_graph *g = s->graph;

	for (size_t i = 0; i < node->input_count; i++)
		s->in_ptrs[i] = node->inputs[i] >= 0 ?
				&g->values[node->inputs[i]].tensor : NULL;
	for (size_t o = 0; o < node->output_count; o++)
		s->out_ptrs[o] = node->outputs[o] >= 0 ?
				 &g->values[node->outputs[o]].tensor : NULL;
}

/* Op defs for every node, all unsupported ones named in one message. */
static int bind_body(struct cpu_subgraph *s)
{
	struct rt_graph *g = s->graph;
	char msg[1024];
	size_t used = 0, missing = 0;

	msg[0] = 0;
	for (size_t n = 0; n < g->node_count; n++) {
		struct rt_node *node = &g->nodes[n];
		size_t inputs = node->input_count - node->implicit_inputs;
		const struct rt_op_def *def;

		if (node->removed || node->def)
			continue;
		def = rt_op_find(node->domain, node->op_type, node->opset);
		if (!def) {
			int w = snprintf(msg + used, sizeof(msg) - used,
					 "%s%s in node '%s'", missing ? "; " : "",
					 node->op_type, rt_node_label(node));

			if (w > 0 && used + (size_t)w < sizeof(msg))
				used += (size_t)w;
			missing++;
			continue;
		}
		if ((int)inputs < def->min_inputs ||
		    (int)inputs > def->max_inputs ||
		    (int)node->output_count < def->min_outputs ||
		    (int)node->output_count > def->max_outputs)
			return rt_error_set(s->errors, ENPU_RT_INVALID_MODEL,
					    "node '%s' (%s) in a subgraph: has "
					    "%zu inputs and %zu outputs, "
					    "expected %d to %d and %d to %d",
					    rt_node_label(node), node->op_type,
					    inputs, node->output_count,
					    def->min_inputs, def->max_inputs,
					    def->min_outputs, def->max_outputs);
		for (int j = 0; j < def->min_inputs; j++)
			if (node->inputs[j] < 0)
				return rt_error_set(s->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s) in a subgraph: required "
					"input %d is empty", rt_node_label(node),
					node->op_type, j);
		node->def = def;
	}
	if (missing)
		return rt_error_set(s->errors, ENPU_RT_UNSUPPORTED,
				    "a subgraph has %zu node%s with "
				    "unsupported ops: %s", missing,
				    missing == 1 ? "" : "s", msg);
	return 0;
}

static int all_known(const struct rt_graph *g, const struct rt_node *node,
		     int *constant)
{
	int known = 1;

	*constant = 1;
	for (size_t i = 0; i < node->input_count; i++) {
		const struct rt_value *v;

		if (node->inputs[i] < 0)
			continue;
		v = &g->values[node->inputs[i]];
		known &= v->tensor.rank >= 0;
		*constant &= v->kind == RT_VALUE_CONSTANT && v->tensor.data;
	}
	return known;
}

static int infer(struct cpu_subgraph *s, struct sub_node *sn,
		 const struct rt_node *node)
{
	int status = node->def->infer(&sn->kernel, s->in_ptrs,
				      node->input_count, s->out_ptrs,
				      node->output_count);

	if (status == RT_OP_NEEDS_VALUES)
		return status;
	if (status)
		return s->errors->status ? status :
		       rt_error_set(s->errors, status, "node '%s' (%s): shape "
				    "inference failed", node->name,
				    node->op_type);
	for (size_t o = 0; o < node->output_count; o++)
		if (s->out_ptrs[o] && !rt_tensor_consistent(s->out_ptrs[o]))
			return rt_error_set(s->errors, ENPU_RT_RUNTIME_ERROR,
					    "node '%s' (%s): inferred output "
					    "%zu is inconsistent", node->name,
					    node->op_type, o);
	return 0;
}

static void clear_error(struct cpu_subgraph *s)
{
	s->errors->status = 0;
	s->errors->message[0] = 0;
}

static void set_unknown(struct rt_graph *g, const struct rt_node *node)
{
	for (size_t o = 0; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			g->values[node->outputs[o]].tensor.rank = -1;
}

/*
 * Runs a node whose inputs are all constants once, its outputs becoming
 * constants in the body's arena (where later instances find them).
 */
static int fold(struct cpu_subgraph *s, struct sub_node *sn,
		struct rt_node *node)
{
	struct rt_graph *g = s->graph;
	int status = 0;

	for (size_t o = 0; o < node->output_count; o++) {
		struct rt_tensor *t = s->out_ptrs[o];

		if (!t)
			continue;
		t->data = rt_arena_alloc(&g->arena,
					 t->byte_size ? t->byte_size : 1);
		if (!t->data)
			return rt_error_set(s->errors, ENPU_RT_OUT_OF_MEMORY,
					    "node '%s' (%s): out of memory "
					    "folding constants", node->name,
					    node->op_type);
	}
	if (node->def->prepare)
		status = node->def->prepare(&sn->kernel, s->in_ptrs,
					    node->input_count);
	if (!status)
		status = node->def->run(&sn->kernel, s->in_ptrs,
					node->input_count, s->out_ptrs,
					node->output_count);
	if (node->def->release)
		node->def->release(&sn->kernel);
	sn->kernel.state = NULL;
	if (status)
		return s->errors->status ? status :
		       rt_error_set(s->errors, status, "node '%s' (%s): failed "
				    "while folding", node->name, node->op_type);
	for (size_t o = 0; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			g->values[node->outputs[o]].kind = RT_VALUE_CONSTANT;
	node->removed = 1;
	return 0;
}

static void sub_destroy(void *instance)
{
	struct cpu_subgraph *s = instance;
	struct rt_graph *g;

	if (!s)
		return;
	g = s->graph;
	for (size_t n = 0; s->nodes && n < g->node_count; n++)
		if (s->nodes[n].prepared && g->nodes[n].def &&
		    g->nodes[n].def->release)
			g->nodes[n].def->release(&s->nodes[n].kernel);
	for (size_t v = 0; s->buffers && v < s->value_count; v++) {
		free(s->buffers[v].data);
		if (g->values[v].kind != RT_VALUE_CONSTANT) {
			g->values[v].tensor.data = NULL;
			g->values[v].tensor.rank = -1;
		}
	}
	free(s->buffers);
	free(s->nodes);
	free(s->in_ptrs);
	free(s->out_ptrs);
	free(s);
}

static int sub_create(struct rt_kernel *k, const void *graph, void **instance)
{
	struct rt_graph *g = (struct rt_graph *)graph;
	struct cpu_subgraph *s;
	size_t max_in = 1, max_out = 1;
	int status;

	*instance = NULL;
	if (!g)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "graph attribute without a graph");
	s = calloc(1, sizeof(*s));
	if (!s)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	s->graph = g;
	s->cpu = k->cpu;
	s->errors = k->errors;
	for (size_t n = 0; n < g->node_count; n++) {
		if (g->nodes[n].input_count > max_in)
			max_in = g->nodes[n].input_count;
		if (g->nodes[n].output_count > max_out)
			max_out = g->nodes[n].output_count;
	}
	s->nodes = calloc(g->node_count + 1, sizeof(*s->nodes));
	s->value_count = g->value_count;
	s->buffers = calloc(g->value_count + 1, sizeof(*s->buffers));
	s->in_ptrs = calloc(max_in, sizeof(*s->in_ptrs));
	s->out_ptrs = calloc(max_out, sizeof(*s->out_ptrs));
	if (!s->nodes || !s->buffers || !s->in_ptrs || !s->out_ptrs) {
		sub_destroy(s);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (size_t r = g->formal_input_count; r < g->input_count; r++)
		if (g->outer_index &&
		    g->outer_index[r - g->formal_input_count] + 1 >
		    s->outer_needed)
			s->outer_needed =
				g->outer_index[r - g->formal_input_count] + 1;
	status = bind_body(s);
	if (!status)
		status = rt_graph_sort(g);
	/* Inputs take their shapes from each run. */
	for (size_t i = 0; !status && i < g->input_count; i++)
		g->values[g->inputs[i]].tensor.rank = -1;
	for (size_t i = 0; !status && i < g->order_count; i++) {
		struct rt_node *node = &g->nodes[g->order[i]];
		struct sub_node *sn = &s->nodes[g->order[i]];
		int constant;

		rt_op_view(&sn->kernel, node, s->cpu, s->errors);
		gather(s, node);
		if (!all_known(g, node, &constant)) {
			set_unknown(g, node);
		} else {
			status = infer(s, sn, node);
			if (status) {
				/* Known at run time, with the values. */
				clear_error(s);
				status = 0;
				set_unknown(g, node);
				constant = 0;
			} else if (constant) {
				status = fold(s, sn, node);
				continue;
			}
		}
		sn->prepared = 1;
		if (node->def->prepare)
			status = node->def->prepare(&sn->kernel, s->in_ptrs,
						    node->input_count);
		if (status && !s->errors->status)
			rt_error_set(s->errors, status, "node '%s' (%s): "
				     "prepare failed", node->name,
				     node->op_type);
	}
	if (!status && g->value_count != s->value_count)
		status = rt_error_set(s->errors, ENPU_RT_RUNTIME_ERROR,
				      "a subgraph changed while prepared");
	if (!status)
		status = rt_graph_sort(g);	/* folded nodes left the order */
	if (status) {
		sub_destroy(s);
		return status;
	}
	*instance = s;
	return 0;
}

static size_t sub_input_count(const void *instance)
{
	const struct cpu_subgraph *s = instance;

	return s->graph->formal_input_count;
}

static size_t sub_output_count(const void *instance)
{
	const struct cpu_subgraph *s = instance;

	return s->graph->output_count;
}

static int32_t sub_output_dtype(const void *instance, size_t i)
{
	const struct cpu_subgraph *s = instance;

	return i < s->graph->output_count ?
	       s->graph->values[s->graph->outputs[i]].tensor.dtype : 0;
}

static void feed(struct rt_value *v, const struct rt_tensor *t)
{
	v->tensor.dtype = t->dtype;
	v->tensor.rank = t->rank;
	memcpy(v->tensor.dims, t->dims, sizeof(t->dims));
	v->tensor.data = t->data;
	v->tensor.byte_size = t->byte_size;
}

static int sub_run(struct rt_kernel *k, void *instance,
		   const struct rt_tensor *const *inputs, size_t n_inputs,
		   const struct rt_tensor *const *outer, size_t n_outer,
		   const struct rt_tensor **outputs, size_t n_outputs)
{
	struct cpu_subgraph *s = instance;
	struct rt_graph *g = s->graph;
	size_t formal = g->formal_input_count;
	int status;

	if (n_inputs != formal || n_outputs != g->output_count ||
	    n_outer < s->outer_needed)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "the subgraph takes %zu inputs and gives "
				   "%zu outputs; %zu and %zu wanted", formal,
				   g->output_count, n_inputs, n_outputs);
	for (size_t i = 0; i < formal; i++) {
		struct rt_value *v = &g->values[g->inputs[i]];

		if (!inputs[i] || !inputs[i]->data)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "subgraph input '%s' is missing",
					   v->name);
		if (v->declared_rank >= 0 && v->tensor.dtype &&
		    v->tensor.dtype != inputs[i]->dtype &&
		    inputs[i]->dtype != ENPU_RT_SEQUENCE &&
		    inputs[i]->dtype != ENPU_RT_OPTIONAL)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "subgraph input '%s' is %s, the "
					   "body declares %s", v->name,
					   enpu_rt_dtype_name(inputs[i]->dtype),
					   enpu_rt_dtype_name(v->tensor.dtype));
		feed(v, inputs[i]);
	}
	for (size_t r = formal; r < g->input_count; r++) {
		const struct rt_tensor *t = outer[g->outer_index[r - formal]];

		if (!t || !t->data)
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
					   "outer value '%s' of a subgraph has "
					   "no data", g->values[g->inputs[r]].name);
		feed(&g->values[g->inputs[r]], t);
	}
	for (size_t i = 0; i < g->order_count; i++) {
		const struct rt_node *node = &g->nodes[g->order[i]];
		struct sub_node *sn = &s->nodes[g->order[i]];

		rt_op_view(&sn->kernel, node, s->cpu, s->errors);
		gather(s, node);
		status = infer(s, sn, node);
		if (status == RT_OP_NEEDS_VALUES)
			return rt_error_set(s->errors, ENPU_RT_RUNTIME_ERROR,
					    "node '%s' (%s): could not infer "
					    "its output shape with every input "
					    "known", node->name, node->op_type);
		if (status)
			return status;
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];
			struct sub_buffer *b;
			size_t size;

			if (v < 0)
				continue;
			b = &s->buffers[v];
			size = g->values[v].tensor.byte_size;
			if (!size)
				size = 1;
			if (b->capacity < size) {
				void *data;

				if (posix_memalign(&data, 64, size))
					return rt_error_set(s->errors,
						ENPU_RT_OUT_OF_MEMORY,
						"node '%s' (%s): out of memory "
						"(%zu bytes)", node->name,
						node->op_type, size);
				free(b->data);
				b->data = data;
				b->capacity = size;
			}
			g->values[v].tensor.data = b->data;
		}
		status = node->def->run(&sn->kernel, s->in_ptrs,
					node->input_count, s->out_ptrs,
					node->output_count);
		if (status)
			return s->errors->status ? status :
			       rt_error_set(s->errors, status, "node '%s' (%s): "
					    "failed", node->name, node->op_type);
	}
	for (size_t o = 0; o < g->output_count; o++) {
		const struct rt_tensor *t = &g->values[g->outputs[o]].tensor;

		if (t->rank < 0 || (!t->data && t->byte_size))
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
					   "subgraph output '%s' was not "
					   "computed", g->values[g->outputs[o]].name);
		outputs[o] = t;
	}
	return 0;
}

const struct rt_subgraph_ops rt_cpu_subgraphs = {
	.create = sub_create,
	.input_count = sub_input_count,
	.output_count = sub_output_count,
	.output_dtype = sub_output_dtype,
	.run = sub_run,
	.destroy = sub_destroy,
};
