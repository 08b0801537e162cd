// SPDX-License-Identifier: MIT
/* The shared rewrite helpers of rewrite.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rewrite.h"

int rt_node_is(const struct rt_node *node, const char *domain,
	       const char *op_type)
{
	return !node->removed && !strcmp(node->op_type, op_type) &&
	       rt_domain_equal(node->domain, domain);
}

int rt_node_input(const struct rt_node *node, size_t i)
{
	return i < node->input_count ? node->inputs[i] : -1;
}

int rt_value_producer(const struct rt_graph *g, int value)
{
	return value < 0 ? -1 : g->values[value].producer;
}

const struct rt_tensor *rt_value_constant(const struct rt_graph *g,
					  int value)
{
	if (value < 0 || g->values[value].kind != RT_VALUE_CONSTANT)
		return NULL;
	return &g->values[value].tensor;
}

const struct rt_tensor *rt_node_constant(const struct rt_graph *g,
					 const struct rt_node *node,
					 size_t input)
{
	return rt_value_constant(g, rt_node_input(node, input));
}

int rt_value_readers(const struct rt_graph *g, int value, int *reader)
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
				if (reader)
					*reader = (int)n;
			}
	}
	return count + (g->values[value].is_output ? 1 : 0);
}

int rt_value_single_reader(const struct rt_graph *g, int value, int *reader)
{
	int found = -1;

	return value >= 0 && !g->values[value].is_output &&
	       rt_value_readers(g, value, &found) == 1 &&
	       (*reader = found) >= 0;
}

const struct rt_attr *rt_node_attr(const struct rt_node *node,
				   const char *name)
{
	return rt_attrs_find(node->attrs, node->attr_count, name);
}

int64_t rt_node_attr_int(const struct rt_node *node, const char *name,
			 int64_t fallback)
{
	const struct rt_attr *a = rt_node_attr(node, name);

	return a && a->type == RT_ATTR_INT ? a->i : fallback;
}

float rt_node_attr_float(const struct rt_node *node, const char *name,
			 float fallback)
{
	const struct rt_attr *a = rt_node_attr(node, name);

	return a && a->type == RT_ATTR_FLOAT ? a->f : fallback;
}

int rt_node_attr_ints(const struct rt_node *node, const char *name,
		      size_t count, int64_t fallback, int64_t *values)
{
	const struct rt_attr *a = rt_node_attr(node, name);

	for (size_t i = 0; i < count; i++)
		values[i] = fallback;
	if (!a)
		return 1;
	if (a->type != RT_ATTR_INTS || a->count != count)
		return 0;
	memcpy(values, a->ints, count * sizeof(int64_t));
	return 1;
}

int rt_node_set_attr_int(struct rt_graph *g, struct rt_node *node,
			 const char *name, int64_t value)
{
	struct rt_attr *attrs;

	for (size_t i = 0; i < node->attr_count; i++)
		if (!strcmp(node->attrs[i].name, name)) {
			node->attrs[i].type = RT_ATTR_INT;
			node->attrs[i].i = value;
			return 0;
		}
	attrs = rt_arena_alloc(&g->arena,
			       (node->attr_count + 1) * sizeof(*attrs));
	if (!attrs)
		return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory rewriting '%s'",
				    node->name);
	if (node->attr_count)
		memcpy(attrs, node->attrs, node->attr_count * sizeof(*attrs));
	attrs[node->attr_count].name = name;
	attrs[node->attr_count].type = RT_ATTR_INT;
	attrs[node->attr_count].i = value;
	node->attrs = attrs;
	node->attr_count++;
	return 0;
}

int rt_node_activation(const struct rt_graph *g, const struct rt_node *act,
		       struct rt_activation *a)
{
	a->kind = RT_ACTIVATION_NONE;
	if (!act->input_count || act->output_count != 1)
		return 0;
	if (rt_node_is_onnx(act, "Relu")) {
		a->kind = RT_ACTIVATION_RELU;
		return 1;
	}
	if (!rt_node_is_onnx(act, "Clip"))
		return 0;
	a->kind = RT_ACTIVATION_CLIP;
	a->min = -INFINITY;
	a->max = INFINITY;
	if (act->opset < 11) {
		a->min = rt_node_attr_float(act, "min", -INFINITY);
		a->max = rt_node_attr_float(act, "max", INFINITY);
		return 1;
	}
	for (size_t i = 1; i < 3; i++) {
		const struct rt_tensor *t;

		if (rt_node_input(act, i) < 0)
			continue;
		t = rt_node_constant(g, act, i);
		if (!t || t->dtype != ENPU_RT_FLOAT ||
		    rt_tensor_elements(t) != 1) {
			a->kind = RT_ACTIVATION_NONE;
			return 0;
		}
		if (i == 1)
			a->min = *(const float *)t->data;
		else
			a->max = *(const float *)t->data;
	}
	return 1;
}

/* "<base>.<suffix><n>" for the first n that names no value yet. */
static void unique_name(const struct rt_graph *g, const char *base,
			const char *suffix, char *name, size_t size)
{
	for (int attempt = 0; attempt < 1000; attempt++) {
		snprintf(name, size, "%s.%s%d", base, suffix, attempt);
		if (rt_graph_find_value(g, name) < 0)
			return;
	}
}

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
	unique_name(g, base, suffix, name, sizeof(name));
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

int rt_graph_add_derived_value(struct rt_graph *g, int base,
			       const char *suffix)
{
	char name[512];

	unique_name(g, g->values[base].name, suffix, name, sizeof(name));
	return rt_graph_add_value(g, name);
}

int rt_graph_add_op(struct rt_graph *g, const char *domain,
		    const char *op_type, const int *inputs, size_t input_count,
		    const int *outputs, size_t output_count)
{
	int index = rt_graph_add_node(g);
	struct rt_node *node;
	char name[512];

	if (index < 0)
		return -1;
	node = &g->nodes[index];
	snprintf(name, sizeof(name), "%s.%s",
		 output_count ? g->values[outputs[0]].name : "node", op_type);
	node->name = rt_arena_strdup(&g->arena, name);
	node->inputs = rt_arena_alloc(&g->arena,
				      (input_count + 1) * sizeof(int));
	node->outputs = rt_arena_alloc(&g->arena,
				       (output_count + 1) * sizeof(int));
	if (!node->name || !node->inputs || !node->outputs) {
		rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
			     "out of memory adding node '%s'", name);
		return -1;
	}
	if (input_count)
		memcpy(node->inputs, inputs, input_count * sizeof(int));
	if (output_count)
		memcpy(node->outputs, outputs, output_count * sizeof(int));
	node->input_count = input_count;
	node->output_count = output_count;
	rt_node_retype(node, domain, op_type);
	for (size_t o = 0; o < output_count; o++)
		if (outputs[o] >= 0)
			g->values[outputs[o]].producer = index;
	return index;
}

int rt_node_retype(struct rt_node *node, const char *domain,
		   const char *op_type)
{
	node->op_type = op_type;
	node->domain = domain;
	node->opset = 1;
	node->def = NULL;
	node->rewritten = 1;
	return 0;
}

int rt_node_set_inputs(struct rt_graph *g, struct rt_node *node,
		       const int *inputs, size_t count)
{
	/* One spare slot, as the loader leaves, for a fused bias. */
	int *slots = rt_arena_alloc(&g->arena, (count + 1) * sizeof(int));

	if (!slots)
		return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory rewriting '%s'",
				    node->name);
	if (count)
		memcpy(slots, inputs, count * sizeof(int));
	node->inputs = slots;
	node->input_count = count;
	return 0;
}

void rt_node_absorb(struct rt_graph *g, struct rt_node *node,
		    struct rt_node *successor)
{
	int out = successor->outputs[0];

	if (node->outputs[0] >= 0)
		g->values[node->outputs[0]].producer = -1;
	node->outputs[0] = out;
	node->output_count = node->output_count ? node->output_count : 1;
	g->values[out].producer = (int)(node - g->nodes);
	successor->removed = 1;
}

void rt_graph_drop_unread(struct rt_graph *g, const char *domain,
			  const char *op_type)
{
	int changed = 1;

	while (changed) {
		changed = 0;
		for (size_t n = 0; n < g->node_count; n++) {
			struct rt_node *node = &g->nodes[n];
			int read = 0;

			if (!rt_node_is(node, domain, op_type))
				continue;
			for (size_t o = 0; o < node->output_count; o++)
				read += rt_value_readers(g, node->outputs[o],
							 NULL);
			if (!read) {
				node->removed = 1;
				changed = 1;
			}
		}
	}
}
