// SPDX-License-Identifier: MIT
/*
 * Binding: each node gets the registered op def for its domain, type and
 * opset (ops/registry.c), with its input and output counts checked
 * against the def. Before the lowering passes binding is lenient (a float
 * op inside a QDQ group needs no float kernel once lowered); afterwards
 * anything left without a def is "unsupported op", every such node named
 * in one message.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

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

int rt_engine_bind(struct rt_graph *graph, int strict)
{
	int unsupported = 0;

	for (size_t i = 0; i < graph->node_count; i++) {
		struct rt_node *node = &graph->nodes[i];
		const struct rt_op_def *def;
		/* Implicit inputs (subgraphs' outer values) are not the op's. */
		size_t inputs;

		if (node->removed || node->def)
			continue;
		inputs = node->input_count - node->implicit_inputs;
		def = rt_op_find(node->domain, node->op_type, node->opset);
		if (!def) {
			unsupported = 1;
			continue;
		}
		if ((int)inputs < def->min_inputs ||
		    (int)inputs > def->max_inputs)
			return rt_error_set(graph->errors,
				ENPU_RT_INVALID_MODEL,
				"node '%s' (%s): has %zu inputs, expected %d to %d",
				rt_node_label(node), node->op_type,
				inputs, def->min_inputs, def->max_inputs);
		if ((int)node->output_count < def->min_outputs ||
		    (int)node->output_count > def->max_outputs)
			return rt_error_set(graph->errors,
				ENPU_RT_INVALID_MODEL,
				"node '%s' (%s): has %zu outputs, expected %d to %d",
				rt_node_label(node), node->op_type,
				node->output_count, def->min_outputs,
				def->max_outputs);
		for (int j = 0; j < def->min_inputs && !node->rewritten; j++)
			if (node->inputs[j] < 0)
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): required input %d is empty",
					rt_node_label(node), node->op_type, j);
		node->def = def;
	}
	return strict && unsupported ? report_unsupported(graph) : 0;
}
