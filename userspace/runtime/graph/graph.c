// SPDX-License-Identifier: MIT
/* Graph construction, name lookup and topological order. */
#include <inttypes.h>
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
	graph->scope = -1;
	graph->names = calloc(1, sizeof(*graph->names));
	if (!graph->names)
		return rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory creating a graph");
	return 0;
}

void rt_graph_destroy(struct rt_graph *graph)
{
	for (size_t i = 0; i < graph->subgraph_count; i++) {
		rt_graph_destroy(graph->subgraphs[i]);
		free(graph->subgraphs[i]);
	}
	free(graph->subgraphs);
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
	graph->nodes[graph->node_count].backend = graph->scope;
	graph->nodes[graph->node_count].partition = -1;
	return (int)graph->node_count++;
}

int64_t rt_graph_opset(const struct rt_graph *graph, const char *domain)
{
	for (size_t i = 0; i < graph->opset_count; i++)
		if (rt_domain_equal(graph->opsets[i].domain, domain))
			return graph->opsets[i].version;
	return -1;
}

const char *rt_node_label(const struct rt_node *node)
{
	return node->name;
}

struct rt_graph *rt_graph_add_subgraph(struct rt_graph *parent)
{
	struct rt_graph *child = calloc(1, sizeof(*child));
	struct rt_graph **grown = realloc(parent->subgraphs,
					  (parent->subgraph_count + 1) *
					  sizeof(*grown));

	if (grown)
		parent->subgraphs = grown;
	if (!child || !grown || rt_graph_init(child, parent->errors)) {
		free(child);
		rt_error_set(parent->errors, ENPU_RT_OUT_OF_MEMORY,
			     "out of memory loading a subgraph");
		return NULL;
	}
	child->parent = parent;
	child->opsets = parent->opsets;	/* the parent's arena outlives it */
	child->opset_count = parent->opset_count;
	child->arena.limit = parent->arena.limit;
	parent->subgraphs[parent->subgraph_count++] = child;
	return child;
}

int rt_node_in_scope(const struct rt_graph *graph, const struct rt_node *node)
{
	return !node->removed &&
	       (graph->scope < 0 || node->backend == graph->scope);
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
