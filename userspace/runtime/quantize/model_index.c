// SPDX-License-Identifier: MIT
/*
 * The quantizer's view of a ModelProto: one q_tensor per value name with
 * its producer, consumers and constness, plus the helpers every pass
 * needs (unique names, messages, constant values, attributes).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"
#include "quantize_internal.h"

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static size_t map_slot(const struct q_name_map *map, const char *key)
{
	size_t mask = map->capacity - 1;
	size_t i = (size_t)name_hash(key) & mask;

	while (map->keys[i] && strcmp(map->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

int q_map_get(const struct q_name_map *map, const char *key)
{
	if (!map->capacity)
		return -1;
	size_t i = map_slot(map, key);

	return map->keys[i] ? map->values[i] : -1;
}

/* Keys are not copied: they live in the model or the arena. */
int q_map_put(struct q_model *m, struct q_name_map *map,
		   const char *key, int value)
{
	if (2 * (map->count + 1) > map->capacity) {
		size_t capacity = map->capacity ? 2 * map->capacity : 256;
		const char **keys = rt_arena_alloc(&m->arena,
						   capacity * sizeof(*keys));
		int *values = rt_arena_alloc(&m->arena,
					     capacity * sizeof(*values));
		struct q_name_map grown = {
			keys, values, capacity, 0,
		};

		if (!keys || !values)
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		for (size_t i = 0; i < map->capacity; i++) {
			if (!map->keys[i])
				continue;
			size_t s = map_slot(&grown, map->keys[i]);

			grown.keys[s] = map->keys[i];
			grown.values[s] = map->values[i];
			grown.count++;
		}
		*map = grown;
	}
	size_t s = map_slot(map, key);

	if (!map->keys[s])
		map->count++;
	map->keys[s] = key;
	map->values[s] = value;
	return 0;
}

int q_fail(struct q_model *m, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->report->error, sizeof(m->report->error), fmt, ap);
	va_end(ap);
	return status;
}

void q_note(struct q_model *m, const char *fmt, ...)
{
	struct enpu_quantize_report *r = m->report;
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* Notes are advisory: on OOM they are dropped, not fatal. */
	char *grown = realloc(r->notes, r->notes_len + (size_t)n + 2);

	if (!grown)
		return;
	memcpy(grown + r->notes_len, line, (size_t)n);
	r->notes_len += (size_t)n;
	grown[r->notes_len++] = '\n';
	grown[r->notes_len] = '\0';
	r->notes = grown;
}

int q_find_tensor(const struct q_model *m, const char *name)
{
	return q_map_get(&m->tensor_map, name);
}

const char *q_unique_name(struct q_model *m, const char *base,
			  const char *suffix)
{
	char *name = NULL;

	for (unsigned int n = 0; n < 1000000; n++) {
		size_t len = strlen(base) + strlen(suffix) + 16;

		name = rt_arena_alloc(&m->arena, len);
		if (!name)
			return NULL;
		if (n)
			snprintf(name, len, "%s%s_%u", base, suffix, n);
		else
			snprintf(name, len, "%s%s", base, suffix);
		if (q_map_get(&m->used_names, name) < 0)
			break;
	}
	if (q_map_put(m, &m->used_names, name, 1))
		return NULL;
	return name;
}

static int add_tensor(struct q_model *m, const char *name)
{
	int index = q_map_get(&m->tensor_map, name);

	if (index >= 0)
		return index;
	if (m->tensor_count == m->tensor_capacity) {
		size_t capacity = m->tensor_capacity ?
			2 * m->tensor_capacity : 64;
		struct q_tensor *grown = realloc(m->tensors,
						 capacity * sizeof(*grown));

		if (!grown)
			return -q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				       "out of memory");
		m->tensors = grown;
		m->tensor_capacity = capacity;
	}
	index = (int)m->tensor_count++;
	memset(&m->tensors[index], 0, sizeof(m->tensors[index]));
	m->tensors[index].name = name;
	m->tensors[index].producer = -1;
	m->tensors[index].initializer = -1;
	m->tensors[index].constant_node = -1;
	m->tensors[index].share_from = -1;
	m->tensors[index].write_name = name;
	m->tensors[index].read_name = name;
	if (q_map_put(m, &m->tensor_map, name, index) ||
	    q_map_put(m, &m->used_names, name, index))
		return -ENPU_RT_OUT_OF_MEMORY;
	return index;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

const char *q_node_label(const Onnx__NodeProto *node)
{
	if (node->name && *node->name)
		return node->name;
	return node->n_output ? or_empty(node->output[0]) : "";
}

const Onnx__AttributeProto *q_attr(const Onnx__NodeProto *node,
				   const char *name)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (!strcmp(or_empty(node->attribute[i]->name), name))
			return node->attribute[i];
	return NULL;
}

int64_t q_attr_int(const Onnx__NodeProto *node, const char *name,
		   int64_t fallback)
{
	const Onnx__AttributeProto *a = q_attr(node, name);

	return a && a->has_i ? a->i : fallback;
}

float q_attr_float(const Onnx__NodeProto *node, const char *name,
		   float fallback)
{
	const Onnx__AttributeProto *a = q_attr(node, name);

	return a && a->has_f ? a->f : fallback;
}

int q_constant_value(struct q_model *m, int tensor, struct rt_tensor *out)
{
	const struct q_tensor *t = &m->tensors[tensor];
	const Onnx__TensorProto *tp = NULL;
	char what[300];

	if (t->initializer >= 0) {
		tp = m->graph->initializer[t->initializer];
	} else if (t->constant_node >= 0) {
		const Onnx__AttributeProto *a =
			q_attr(m->graph->node[t->constant_node], "value");

		tp = a ? a->t : NULL;
	}
	if (!tp)
		return q_fail(m, ENPU_RT_UNSUPPORTED,
			      "'%s' is computed, not an initializer", t->name);
	snprintf(what, sizeof(what), "initializer '%s'", t->name);
	m->errors.status = 0;
	int status = rt_onnx_convert_tensor(tp, what, m->base_dir, &m->arena,
					    out, &m->errors);

	if (status)
		return q_fail(m, status, "%s", m->errors.message);
	return 0;
}

static int is_default_domain(const char *domain)
{
	return !domain || !*domain || !strcmp(domain, "ai.onnx");
}

int q_index_model(struct q_model *m)
{
	Onnx__GraphProto *g = m->graph;
	int t;

	for (size_t i = 0; i < m->model->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->model->opset_import[i];

		if (is_default_domain(o->domain))
			m->opset = o->has_version ? o->version : 1;
	}
	if (!m->opset)
		return q_fail(m, ENPU_RT_INVALID_MODEL,
			      "model imports no default-domain opset");
	for (size_t i = 0; i < g->n_initializer; i++) {
		t = add_tensor(m, or_empty(g->initializer[i]->name));
		if (t < 0)
			return -t;
		m->tensors[t].initializer = (int)i;
		m->tensors[t].constant = 1;
		m->tensors[t].dtype = g->initializer[i]->data_type;
	}
	for (size_t i = 0; i < g->n_input; i++) {
		t = add_tensor(m, or_empty(g->input[i]->name));
		if (t < 0)
			return -t;
		/* An input with an initializer is a constant (runtime rule). */
		if (m->tensors[t].initializer < 0)
			m->tensors[t].graph_input = 1;
	}
	m->nodes = rt_arena_alloc(&m->arena,
				  (g->n_node + 1) * sizeof(*m->nodes));
	if (!m->nodes)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t n = 0; n < g->n_node; n++) {
		Onnx__NodeProto *node = g->node[n];
		int all_constant = node->n_input > 0;

		m->nodes[n].folded_into = -1;
		m->nodes[n].folded_act = -1;
		m->nodes[n].bias_input = -1;
		if (node->name && *node->name &&
		    q_map_put(m, &m->used_names, node->name, -1))
			return ENPU_RT_OUT_OF_MEMORY;
		for (size_t i = 0; i < node->n_input; i++) {
			const char *name = or_empty(node->input[i]);

			if (!*name)
				continue;
			t = q_find_tensor(m, name);
			if (t < 0) {
				/* Produced later (unsorted graph) or never. */
				t = add_tensor(m, name);
				if (t < 0)
					return -t;
			}
			m->tensors[t].consumers++;
			if (!m->tensors[t].constant)
				all_constant = 0;
		}
		int is_constant_op = is_default_domain(node->domain) &&
			!strcmp(or_empty(node->op_type), "Constant");

		for (size_t o = 0; o < node->n_output; o++) {
			const char *name = or_empty(node->output[o]);

			if (!*name)
				continue;
			t = add_tensor(m, name);
			if (t < 0)
				return -t;
			if (m->tensors[t].producer >= 0 ||
			    m->tensors[t].initializer >= 0 ||
			    m->tensors[t].graph_input)
				return q_fail(m, ENPU_RT_INVALID_MODEL,
					      "node '%s' (%s): output '%s' "
					      "is already defined",
					      q_node_label(node),
					      or_empty(node->op_type), name);
			m->tensors[t].producer = (int)n;
			m->tensors[t].constant = is_constant_op ||
				all_constant;
			if (is_constant_op)
				m->tensors[t].constant_node = (int)n;
		}
	}
	for (size_t i = 0; i < g->n_output; i++) {
		t = q_find_tensor(m, or_empty(g->output[i]->name));
		if (t < 0)
			return q_fail(m, ENPU_RT_INVALID_MODEL,
				      "graph output '%s' is not produced",
				      or_empty(g->output[i]->name));
		m->tensors[t].graph_output = 1;
	}
	return 0;
}
