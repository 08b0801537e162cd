// SPDX-License-Identifier: MIT
/*
 * The executor. At load (called by pipeline.c in its order): infer shapes
 * where they are known, fold nodes whose inputs are all constant, prepare
 * the rest. At run: infer what could not be inferred at load, give each
 * output a buffer from a pool, run, and hand a buffer back to the pool
 * once its last reader has run. The pool's blocks survive across runs, so
 * a model with fixed shapes stops allocating after its first run.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
	k->name = node->name;
	k->op_type = node->op_type;
	k->domain = node->domain;
	k->opset = node->opset;
	k->activation = node->activation;
	k->has_fused_bias = node->has_fused_bias;
	k->cpu = s->cpu;
	k->attrs = node->attrs;
	k->attr_count = node->attr_count;
	k->errors = &s->errors;
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
		size_t elements, size;

		if (!t)
			continue;
		size = enpu_rt_dtype_size(t->dtype);
		elements = rt_tensor_elements(t);
		if (!size || t->rank < 0 || t->rank > RT_MAX_RANK ||
		    (elements == 0 && t->byte_size != 0) ||
		    t->byte_size != elements * size)
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

int rt_engine_prepare_nodes(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;
	int status = size_scratch(s);

	if (status)
		return status;
	if (!s->value_block || !s->remaining) {
		s->value_block = malloc((g->value_count + 1) * sizeof(int));
		s->remaining = calloc(g->value_count + 1, sizeof(int));
		if (!s->value_block || !s->remaining)
			return rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
					    "out of memory preparing the "
					    "session");
	}
	for (size_t n = 0; n < g->order_count; n++) {
		struct rt_node *node = &g->nodes[g->order[n]];
		struct rt_node_state *st;
		struct rt_kernel *k = rt_engine_kernel(s, g->order[n]);

		if (!k)
			return s->errors.status;
		st = &s->nodes[g->order[n]];
		st->prepared = 1;	/* release even on failure */
		if (!node->def->prepare)
			continue;
		gather(s, node);
		status = node->def->prepare(k, s->in_ptrs, node->input_count);
		if (status)
			return s->errors.status ? status :
			       rt_error_set(&s->errors, status,
					    "node '%s' (%s): prepare failed",
					    node->name, node->op_type);
	}
	return 0;
}

static int acquire_block(struct enpu_rt_session *s, size_t size)
{
	int best = -1, largest = -1;

	if (!size)
		size = 1;
	for (size_t i = 0; i < s->block_count; i++) {
		struct rt_block *b = &s->blocks[i];

		if (b->in_use)
			continue;
		if (b->capacity >= size &&
		    (best < 0 || b->capacity < s->blocks[best].capacity))
			best = (int)i;
		if (largest < 0 || b->capacity > s->blocks[largest].capacity)
			largest = (int)i;
	}
	if (best < 0 && largest >= 0) {
		/* Grow the biggest free block rather than adding another. */
		void *p;

		if (posix_memalign(&p, 64, size))
			return -1;
		free(s->blocks[largest].data);
		s->blocks[largest].data = p;
		s->blocks[largest].capacity = size;
		best = largest;
	}
	if (best < 0) {
		struct rt_block *grown = realloc(s->blocks,
						 (s->block_count + 1) *
						 sizeof(*grown));
		void *p;

		if (!grown)
			return -1;
		s->blocks = grown;
		if (posix_memalign(&p, 64, size))
			return -1;
		s->blocks[s->block_count].data = p;
		s->blocks[s->block_count].capacity = size;
		best = (int)s->block_count++;
	}
	s->blocks[best].in_use = 1;
	return best;
}

static void release_value(struct enpu_rt_session *s, int v)
{
	if (s->value_block[v] >= 0) {
		s->blocks[s->value_block[v]].in_use = 0;
		s->value_block[v] = -1;
	}
}

static int bind_graph_inputs(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;

	for (size_t i = 0; i < g->input_count; i++) {
		struct rt_value *v = &g->values[g->inputs[i]];
		struct rt_binding *b = &s->bindings[i];

		if (!b->bound)
			return rt_error_set(&s->errors, ENPU_RT_NOT_READY,
					    "input '%s' is not bound", v->name);
		v->tensor.rank = b->rank;
		memcpy(v->tensor.dims, b->dims, sizeof(b->dims));
		v->tensor.byte_size = b->byte_size;
		/* Ops never write inputs (rt_op.h), so the cast is safe. */
		v->tensor.data = (void *)b->data;
	}
	return 0;
}

int rt_engine_run(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;
	int status;

	s->ran = 0;
	s->errors.status = 0;
	s->errors.message[0] = 0;
	status = bind_graph_inputs(s);
	if (status)
		return status;
	for (size_t b = 0; b < s->block_count; b++)
		s->blocks[b].in_use = 0;
	for (size_t v = 0; v < g->value_count; v++) {
		s->value_block[v] = -1;
		s->remaining[v] = g->values[v].consumer_count;
	}
	for (size_t n = 0; n < g->order_count; n++) {
		struct rt_node *node = &g->nodes[g->order[n]];
		struct rt_node_state *st = &s->nodes[g->order[n]];
		uint64_t start = now_ns();

		gather(s, node);
		if (st->infer_at_run) {
			status = infer_node(s, node);
			if (status == RT_OP_NEEDS_VALUES)
				return rt_error_set(&s->errors,
					ENPU_RT_RUNTIME_ERROR,
					"node '%s' (%s): could not infer its "
					"output shape with every input known",
					node->name, node->op_type);
			if (status)
				return status;
		}
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o], block;

			if (v < 0)
				continue;
			block = acquire_block(s, g->values[v].tensor.byte_size);
			if (block < 0)
				return rt_error_set(&s->errors,
					ENPU_RT_OUT_OF_MEMORY,
					"node '%s' (%s): out of memory for "
					"output '%s' (%zu bytes)", node->name,
					node->op_type, g->values[v].name,
					g->values[v].tensor.byte_size);
			s->value_block[v] = block;
			g->values[v].tensor.data = s->blocks[block].data;
		}
		status = node->def->run(&st->kernel, s->in_ptrs,
					node->input_count, s->out_ptrs,
					node->output_count);
		if (status)
			return s->errors.status ? status :
			       rt_error_set(&s->errors, status,
					    "node '%s' (%s): failed", node->name,
					    node->op_type);
		for (size_t i = 0; i < node->input_count; i++) {
			int v = node->inputs[i];

			if (v < 0 || g->values[v].kind != RT_VALUE_INTERMEDIATE)
				continue;
			/* The same value may feed two inputs: count each. */
			if (--s->remaining[v] == 0 && !g->values[v].is_output)
				release_value(s, v);
		}
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];

			if (v >= 0 && !g->values[v].consumer_count &&
			    !g->values[v].is_output)
				release_value(s, v);
		}
		st->last_ns = now_ns() - start;
	}
	s->ran = 1;
	return 0;
}

void rt_engine_release(struct enpu_rt_session *s)
{
	for (size_t n = 0; n < s->node_capacity && n < s->graph.node_count;
	     n++) {
		const struct rt_op_def *def = s->graph.nodes[n].def;

		if (def && def->release && s->nodes[n].prepared)
			def->release(&s->nodes[n].kernel);
	}
	free(s->nodes);
	s->nodes = NULL;
	s->node_capacity = 0;
	for (size_t b = 0; b < s->block_count; b++)
		free(s->blocks[b].data);
	free(s->blocks);
	free(s->in_ptrs);
	free(s->out_ptrs);
	free(s->value_block);
	free(s->remaining);
	s->blocks = NULL;
	s->block_count = 0;
}
