// SPDX-License-Identifier: MIT
/* Graph construction, name lookup, topological order and op binding. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Open-addressing map from value name to index; grows at half load. */
struct rt_name_map {
	size_t capacity;	/* power of two */
	size_t count;
	int *slots;		/* value index, -1 empty */
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int map_insert(struct rt_graph *graph, int index);

static int map_grow(struct rt_graph *graph)
{
	struct rt_name_map *map = graph->names;
	size_t capacity = map->capacity ? map->capacity * 2 : 64;
	int *old = map->slots;
	size_t old_capacity = map->capacity;
	int *slots = malloc(capacity * sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < capacity; i++)
		slots[i] = -1;
	map->slots = slots;
	map->capacity = capacity;
	map->count = 0;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i] >= 0)
			map_insert(graph, old[i]);
	free(old);
	return 0;
}

static int map_insert(struct rt_graph *graph, int index)
{
	struct rt_name_map *map = graph->names;

	if ((map->count + 1) * 2 > map->capacity && map_grow(graph))
		return -1;
	size_t mask = map->capacity - 1;
	size_t slot = hash_name(graph->values[index].name) & mask;

	while (map->slots[slot] >= 0)
		slot = (slot + 1) & mask;
	map->slots[slot] = index;
	map->count++;
	return 0;
}

int rt_graph_find_value(const struct rt_graph *graph, const char *name)
{
	const struct rt_name_map *map = graph->names;

	if (!map->capacity)
		return -1;
	size_t mask = map->capacity - 1;
	size_t slot = hash_name(name) & mask;

	while (map->slots[slot] >= 0) {
		if (!strcmp(graph->values[map->slots[slot]].name, name))
			return map->slots[slot];
		slot = (slot + 1) & mask;
	}
	return -1;
}

int rt_graph_init(struct rt_graph *graph, struct rt_error_sink *errors)
{
	memset(graph, 0, sizeof(*graph));
	graph->errors = errors;
	graph->names = calloc(1, sizeof(*graph->names));
	if (!graph->names)
		return rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory creating a graph");
	return 0;
}

void rt_graph_destroy(struct rt_graph *graph)
{
	for (size_t i = 0; i < graph->node_count; i++) {
		struct rt_node *node = &graph->nodes[i];

		if (node->def && node->def->release && node->prepared)
			node->def->release(&node->kernel);
	}
	free(graph->values);
	free(graph->nodes);
	free(graph->order);
	if (graph->names)
		free(graph->names->slots);
	free(graph->names);
	rt_arena_free_all(&graph->arena);
	memset(graph, 0, sizeof(*graph));
}

int rt_graph_add_value(struct rt_graph *graph, const char *name)
{
	struct rt_value *value;

	if (graph->value_count >= INT32_MAX / 2) {
		rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
			     "too many values in the graph");
		return -1;
	}
	if (graph->value_count == graph->value_capacity) {
		size_t capacity = graph->value_capacity ?
				  graph->value_capacity * 2 : 64;
		struct rt_value *grown = realloc(graph->values,
						 capacity * sizeof(*grown));

		if (!grown)
			goto oom;
		graph->values = grown;
		graph->value_capacity = capacity;
	}
	value = &graph->values[graph->value_count];
	memset(value, 0, sizeof(*value));
	value->name = rt_arena_strdup(&graph->arena, name);
	if (!value->name)
		goto oom;
	value->tensor.name = value->name;
	value->tensor.rank = -1;
	value->declared_rank = -1;
	value->producer = -1;
	graph->value_count++;
	if (map_insert(graph, (int)graph->value_count - 1)) {
		graph->value_count--;
		goto oom;
	}
	return (int)graph->value_count - 1;
oom:
	rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
		     "out of memory adding value '%s'", name);
	return -1;
}

int rt_graph_add_node(struct rt_graph *graph)
{
	if (graph->node_count >= INT32_MAX / 2) {
		rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
			     "too many nodes in the graph");
		return -1;
	}
	if (graph->node_count == graph->node_capacity) {
		size_t capacity = graph->node_capacity ?
				  graph->node_capacity * 2 : 32;
		struct rt_node *grown = realloc(graph->nodes,
						capacity * sizeof(*grown));

		if (!grown) {
			rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory adding a node");
			return -1;
		}
		graph->nodes = grown;
		graph->node_capacity = capacity;
	}
	memset(&graph->nodes[graph->node_count], 0, sizeof(struct rt_node));
	return (int)graph->node_count++;
}

static int domain_equal(const char *a, const char *b)
{
	if (!strcmp(a, "ai.onnx"))
		a = "";
	if (!strcmp(b, "ai.onnx"))
		b = "";
	return !strcmp(a, b);
}

int64_t rt_graph_opset(const struct rt_graph *graph, const char *domain)
{
	for (size_t i = 0; i < graph->opset_count; i++)
		if (domain_equal(graph->opsets[i].domain, domain))
			return graph->opsets[i].version;
	return -1;
}

const char *rt_node_label(const struct rt_node *node)
{
	return node->kernel.name ? node->kernel.name : node->name;
}

int rt_graph_sort(struct rt_graph *graph)
{
	size_t n = graph->node_count, head = 0, tail = 0;
	int *pending = calloc(n ? n : 1, sizeof(*pending));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	/* consumers as a CSR list: for each value, the nodes reading it */
	size_t *first = calloc(graph->value_count + 1, sizeof(*first));
	size_t *edges = NULL, edge_count = 0;
	int status = 0;

	if (!pending || !order || !first)
		goto oom;
	for (size_t v = 0; v < graph->value_count; v++)
		graph->values[v].consumer_count = 0;
	for (size_t i = 0; i < n; i++) {
		struct rt_node *node = &graph->nodes[i];

		if (node->removed)
			continue;
		for (size_t j = 0; j < node->input_count; j++) {
			int v = node->inputs[j];

			if (v < 0)
				continue;
			graph->values[v].consumer_count++;
			first[v]++;
			edge_count++;
			int producer = graph->values[v].producer;

			/* Folded producers are gone: their outputs are constants. */
			if (producer >= 0 && !graph->nodes[producer].removed)
				pending[i]++;
		}
	}
	edges = malloc((edge_count ? edge_count : 1) * sizeof(*edges));
	if (!edges)
		goto oom;
	/* prefix sums: first[v] becomes the start of v's consumer list */
	size_t sum = 0;

	for (size_t v = 0; v <= graph->value_count; v++) {
		size_t c = v < graph->value_count ? first[v] : 0;

		first[v] = sum;
		sum += c;
	}
	size_t *fill = calloc(graph->value_count + 1, sizeof(*fill));

	if (!fill)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct rt_node *node = &graph->nodes[i];

		if (node->removed)
			continue;
		for (size_t j = 0; j < node->input_count; j++) {
			int v = node->inputs[j];

			if (v >= 0)
				edges[first[v] + fill[v]++] = i;
		}
	}
	free(fill);
	for (size_t i = 0; i < n; i++)
		if (!graph->nodes[i].removed && !pending[i])
			order[tail++] = i;
	while (head < tail) {
		struct rt_node *node = &graph->nodes[order[head++]];

		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];

			if (v < 0)
				continue;
			for (size_t e = first[v]; e < first[v + 1]; e++)
				if (--pending[edges[e]] == 0)
					order[tail++] = edges[e];
		}
	}
	size_t live = 0;

	for (size_t i = 0; i < n; i++)
		live += !graph->nodes[i].removed;
	if (tail != live) {
		for (size_t i = 0; i < n; i++)
			if (!graph->nodes[i].removed && pending[i]) {
				status = rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): is part of a cycle",
					rt_node_label(&graph->nodes[i]),
					graph->nodes[i].op_type);
				break;
			}
		goto out;
	}
	free(graph->order);
	graph->order = order;
	graph->order_count = tail;
	order = NULL;
	goto out;
oom:
	status = rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
			      "out of memory sorting the graph");
out:
	free(pending);
	free(order);
	free(first);
	free(edges);
	return status;
}

/* Appends to a message buffer, marking truncation with "...". */
static void message_append(char *buf, size_t size, size_t *used,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void message_append(char *buf, size_t size, size_t *used,
			   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 4 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, size - *used - 3, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (*used + (size_t)n >= size - 4) {
		*used = size - 4;
		memcpy(buf + *used, "...", 4);
		*used = size;
		return;
	}
	*used += (size_t)n;
}

static const char *op_label(const struct rt_node *node, char *buf,
			    size_t size)
{
	if (rt_op_known(node->domain, node->op_type))
		snprintf(buf, size, "%s at opset %" PRId64 " of domain '%s'",
			 node->op_type, node->opset, node->domain);
	else
		snprintf(buf, size, "%s%s%s", node->domain[0] ? node->domain :
			 "", node->domain[0] ? "." : "", node->op_type);
	return buf;
}

/*
 * Every node without a def, in one message grouped by op so a user sees
 * all the gaps of a model at once: "3 nodes use unsupported ops:
 * unsupported op Foo in node 'a', 'b'; unsupported op Bar at opset 9 of
 * domain 'x' in node 'c'".
 */
static int report_unsupported(struct rt_graph *graph)
{
	char msg[sizeof(graph->errors->message)], label[160], other[160];
	size_t used = 0, missing = 0;
	unsigned char *done = calloc(graph->node_count + 1, 1);

	if (!done)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory binding ops");
	for (size_t i = 0; i < graph->node_count; i++)
		missing += !graph->nodes[i].removed && !graph->nodes[i].def;
	message_append(msg, sizeof(msg), &used,
		       "%zu node%s use%s unsupported ops: ", missing,
		       missing == 1 ? "" : "s", missing == 1 ? "s" : "");
	for (size_t i = 0, groups = 0; i < graph->node_count; i++) {
		const struct rt_node *node = &graph->nodes[i];

		if (node->removed || node->def || done[i])
			continue;
		op_label(node, label, sizeof(label));
		message_append(msg, sizeof(msg), &used,
			       "%sunsupported op %s in node ",
			       groups++ ? "; " : "", label);
		for (size_t j = i, first = 1; j < graph->node_count; j++) {
			const struct rt_node *n = &graph->nodes[j];

			if (n->removed || n->def || done[j] ||
			    strcmp(op_label(n, other, sizeof(other)), label))
				continue;
			done[j] = 1;
			message_append(msg, sizeof(msg), &used, "%s'%s'",
				       first ? "" : ", ", rt_node_label(n));
			first = 0;
		}
	}
	free(done);
	return rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED, "%s", msg);
}

static int bind_ops(struct rt_graph *graph, int strict)
{
	int unsupported = 0;

	for (size_t i = 0; i < graph->node_count; i++) {
		struct rt_node *node = &graph->nodes[i];
		const struct rt_op_def *def;

		if (node->removed || node->def)
			continue;
		def = rt_op_find(node->domain, node->op_type, node->opset);
		if (!def) {
			unsupported = 1;
			continue;
		}
		if ((int)node->input_count < def->min_inputs ||
		    (int)node->input_count > def->max_inputs)
			return rt_error_set(graph->errors,
				ENPU_RT_INVALID_MODEL,
				"node '%s' (%s): has %zu inputs, expected %d to %d",
				rt_node_label(node), node->op_type,
				node->input_count, def->min_inputs,
				def->max_inputs);
		if ((int)node->output_count < def->min_outputs ||
		    (int)node->output_count > def->max_outputs)
			return rt_error_set(graph->errors,
				ENPU_RT_INVALID_MODEL,
				"node '%s' (%s): has %zu outputs, expected %d to %d",
				rt_node_label(node), node->op_type,
				node->output_count, def->min_outputs,
				def->max_outputs);
		for (int j = 0; j < def->min_inputs; j++)
			if (node->inputs[j] < 0)
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): required input %d is empty",
					rt_node_label(node), node->op_type, j);
		node->def = def;
	}
	return strict && unsupported ? report_unsupported(graph) : 0;
}

int rt_graph_bind_ops(struct rt_graph *graph)
{
	return bind_ops(graph, 1);
}

int rt_graph_bind_known_ops(struct rt_graph *graph)
{
	return bind_ops(graph, 0);
}
