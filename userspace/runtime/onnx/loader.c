// SPDX-License-Identifier: MIT
/*
 * ModelProto -> graph IR: opset imports, initializers, inputs and outputs
 * with their declared shapes, nodes and attributes. Nodes may come in any
 * order in the file; inputs are resolved after every output is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "onnx_internal.h"
#include "onnx_loader.h"

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

int rt_read_file(const char *path, size_t max, void **data, size_t *size,
		 struct rt_error_sink *errors)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	int status = 0;

	*data = NULL;
	*size = 0;
	if (fd < 0)
		return rt_error_set(errors, ENPU_RT_IO_ERROR,
				    "cannot open '%s': %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		status = rt_error_set(errors, ENPU_RT_IO_ERROR,
				      "'%s' is not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		status = rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				      "'%s' is %lld bytes, more than the %zu "
				      "allowed", path, (long long)st.st_size,
				      max);
		goto out;
	}
	buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		status = rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory reading '%s'", path);
		goto out;
	}
	for (size_t done = 0; done < (size_t)st.st_size;) {
		ssize_t got = read(fd, buf + done, (size_t)st.st_size - done);

		if (got <= 0) {
			status = rt_error_set(errors, ENPU_RT_IO_ERROR,
					      "reading '%s' failed", path);
			free(buf);
			buf = NULL;
			goto out;
		}
		done += (size_t)got;
	}
	*data = buf;
	*size = (size_t)st.st_size;
out:
	close(fd);
	return status;
}

/* Declared element type and shape of a graph input or output. */
static int convert_value_info(struct rt_graph *graph,
			      const Onnx__ValueInfoProto *info,
			      struct rt_value *value, const char *role)
{
	const Onnx__TypeProto *type = info->type;
	const Onnx__TypeProto__Tensor *tensor;

	if (!type || type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
		return 0;	/* outputs, subgraph inputs may omit it */
	/* Sequences and optionals travel packed (enpu_rt.h); rank unknown. */
	if (type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
		value->tensor.dtype = ENPU_RT_SEQUENCE;
		return 0;
	}
	if (type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) {
		value->tensor.dtype = ENPU_RT_OPTIONAL;
		return 0;
	}
	if (type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED,
				    "graph %s '%s': map and sparse tensor "
				    "types are not supported", role,
				    value->name);
	tensor = type->tensor_type;
	if (!tensor)
		return 0;
	if (tensor->has_elem_type) {
		if (!enpu_rt_dtype_size(tensor->elem_type))
			return rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED,
					    "graph %s '%s': element type %d is "
					    "not supported", role, value->name,
					    tensor->elem_type);
		value->tensor.dtype = tensor->elem_type;
	}
	if (!tensor->shape)
		return 0;
	if (tensor->shape->n_dim > RT_MAX_RANK)
		return rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED,
				    "graph %s '%s': rank %zu exceeds %d", role,
				    value->name, tensor->shape->n_dim,
				    RT_MAX_RANK);
	value->tensor.rank = (int32_t)tensor->shape->n_dim;
	for (size_t i = 0; i < tensor->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *dim =
			tensor->shape->dim[i];

		value->tensor.dims[i] = -1;
		if (dim->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			if (dim->dim_value < 0)
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"graph %s '%s': dimension %zu is "
					"negative", role, value->name, i);
			value->tensor.dims[i] = dim->dim_value;
		} else if (dim->value_case ==
			   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
			   dim->dim_param) {
			value->dim_names[i] = rt_arena_strdup(&graph->arena,
							      dim->dim_param);
			if (!value->dim_names[i])
				return rt_error_set(graph->errors,
					ENPU_RT_OUT_OF_MEMORY,
					"out of memory");
		}
	}
	value->declared_rank = value->tensor.rank;
	memcpy(value->declared_dims, value->tensor.dims,
	       sizeof(value->declared_dims));
	return 0;
}

static int attr_fail(struct rt_graph *graph, const struct rt_node *node,
		     int status, const char *attr, const char *reason)
{
	return rt_error_set(graph->errors, status,
			    "node '%s' (%s): attribute '%s': %s",
			    rt_node_label(node), node->op_type, attr, reason);
}

static int load_graph_body(struct rt_graph *graph, const Onnx__GraphProto *g,
			   const char *base_dir);

/* A graph attribute (If, Loop, Scan bodies): loaded as a subgraph. */
static int convert_graph_attribute(struct rt_graph *graph,
				   struct rt_node *node,
				   const Onnx__AttributeProto *ap,
				   struct rt_attr *attr, const char *base_dir)
{
	struct rt_graph *child;
	int status, depth = 0;

	if (!ap->g || ap->n_graphs)
		return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, attr->name,
				 "graph list attributes are not supported");
	for (const struct rt_graph *g = graph; g->parent; g = g->parent)
		depth++;
	if (depth >= RT_ONNX_MAX_SUBGRAPH_DEPTH)
		return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, attr->name,
				 "subgraphs nest too deep");
	child = rt_graph_add_subgraph(graph);
	if (!child)
		return graph->errors->status;
	status = load_graph_body(child, ap->g, base_dir);
	if (status) {
		/* Say whose body it is: "node 'x' (If): attribute ...: why". */
		char why[sizeof(graph->errors->message)];

		snprintf(why, sizeof(why), "%s", graph->errors->message);
		return attr_fail(graph, node, status, attr->name, why);
	}
	attr->type = RT_ATTR_GRAPH;
	attr->graph = child;
	return 0;
}

static int convert_attribute(struct rt_graph *graph, struct rt_node *node,
			     const Onnx__AttributeProto *ap,
			     struct rt_attr *attr, const char *base_dir)
{
	struct rt_arena *arena = &graph->arena;
	const char *name = or_empty(ap->name);
	int type = ap->has_type ? (int)ap->type : 0;

	attr->name = rt_arena_strdup(arena, name);
	if (!attr->name)
		return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY, name,
				 "out of memory");
	if (!*name)
		return attr_fail(graph, node, ENPU_RT_INVALID_MODEL, name,
				 "has no name");
	if (ap->ref_attr_name && *ap->ref_attr_name)
		return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, name,
				 "references a function attribute");
	if (ap->g || ap->n_graphs || type == RT_ATTR_GRAPH || type == 10)
		return convert_graph_attribute(graph, node, ap, attr, base_dir);
	if (ap->tp && (type == RT_ATTR_TYPE_PROTO || !type)) {
		attr->type = RT_ATTR_TYPE_PROTO;
		switch (ap->tp->value_case) {
		case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
			attr->i = ap->tp->tensor_type &&
				  ap->tp->tensor_type->has_elem_type ?
				  ap->tp->tensor_type->elem_type : 0;
			return 0;
		case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
			attr->i = ENPU_RT_SEQUENCE;
			return 0;
		case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
			attr->i = ENPU_RT_OPTIONAL;
			return 0;
		default:
			return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, name,
					 "map and sparse types are not "
					 "supported");
		}
	}
	if (ap->sparse_tensor || ap->n_sparse_tensors || ap->tp ||
	    ap->n_type_protos || ap->n_tensors)
		return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, name,
				 "sparse tensor, type proto and tensor list "
				 "attributes are not supported");
	if (!type) {
		/* IR version < 2 had no type field: infer it from the data. */
		if (ap->n_floats)
			type = RT_ATTR_FLOATS;
		else if (ap->n_ints)
			type = RT_ATTR_INTS;
		else if (ap->n_strings)
			type = RT_ATTR_STRINGS;
		else if (ap->t)
			type = RT_ATTR_TENSOR;
		else if (ap->has_s)
			type = RT_ATTR_STRING;
		else if (ap->has_f)
			type = RT_ATTR_FLOAT;
		else if (ap->has_i)
			type = RT_ATTR_INT;
		else
			return attr_fail(graph, node, ENPU_RT_INVALID_MODEL,
					 name, "has no type and no value");
	}
	attr->type = type;
	switch (type) {
	case RT_ATTR_FLOAT:
		attr->f = ap->f;
		break;
	case RT_ATTR_INT:
		attr->i = ap->i;
		break;
	case RT_ATTR_STRING:
		attr->s = rt_arena_strndup(arena,
					   ap->s.data ? (char *)ap->s.data : "",
					   ap->s.len);
		attr->s_len = ap->s.len;
		if (!attr->s)
			return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY,
					 name, "out of memory");
		break;
	case RT_ATTR_TENSOR: {
		struct rt_tensor *t = rt_arena_alloc(arena, sizeof(*t));
		char what[256];
		int status;

		if (!ap->t)
			return attr_fail(graph, node, ENPU_RT_INVALID_MODEL,
					 name, "tensor attribute without tensor");
		if (!t)
			return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY,
					 name, "out of memory");
		snprintf(what, sizeof(what), "node '%s' (%s): attribute '%s'",
			 rt_node_label(node), node->op_type, name);
		status = rt_onnx_convert_tensor(ap->t, what, NULL, arena, t,
						graph->errors);
		if (status)
			return status;
		attr->t = t;
		break;
	}
	case RT_ATTR_FLOATS: {
		float *v = rt_arena_alloc(arena, ap->n_floats * sizeof(float) + 1);

		if (!v)
			return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY,
					 name, "out of memory");
		if (ap->n_floats)
			memcpy(v, ap->floats, ap->n_floats * sizeof(float));
		attr->floats = v;
		attr->count = ap->n_floats;
		break;
	}
	case RT_ATTR_INTS: {
		int64_t *v = rt_arena_alloc(arena,
					    ap->n_ints * sizeof(int64_t) + 1);

		if (!v)
			return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY,
					 name, "out of memory");
		if (ap->n_ints)
			memcpy(v, ap->ints, ap->n_ints * sizeof(int64_t));
		attr->ints = v;
		attr->count = ap->n_ints;
		break;
	}
	case RT_ATTR_STRINGS: {
		const char **v = rt_arena_alloc(arena, (ap->n_strings + 1) *
						       sizeof(char *));

		if (!v)
			return attr_fail(graph, node, ENPU_RT_OUT_OF_MEMORY,
					 name, "out of memory");
		for (size_t i = 0; i < ap->n_strings; i++) {
			v[i] = rt_arena_strndup(arena,
				ap->strings[i].data ?
				(char *)ap->strings[i].data : "",
				ap->strings[i].len);
			if (!v[i])
				return attr_fail(graph, node,
						 ENPU_RT_OUT_OF_MEMORY, name,
						 "out of memory");
		}
		attr->strings = v;
		attr->count = ap->n_strings;
		break;
	}
	default:
		return attr_fail(graph, node, ENPU_RT_UNSUPPORTED, name,
				 "unknown attribute type");
	}
	return 0;
}

static int load_opsets(struct rt_graph *graph, const Onnx__ModelProto *model)
{
	if (!model->n_opset_import)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "model imports no opset");
	if (model->n_opset_import > 1024)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "model imports %zu opsets",
				    model->n_opset_import);
	graph->opsets = rt_arena_alloc(&graph->arena, model->n_opset_import *
					sizeof(*graph->opsets));
	if (!graph->opsets)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	for (size_t i = 0; i < model->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *id = model->opset_import[i];
		const char *domain = or_empty(id->domain);

		if (!id->has_version || id->version < 1)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "opset import of domain '%s' has no "
					    "valid version", domain);
		graph->opsets[i].domain = rt_arena_strdup(&graph->arena,
							  domain);
		if (!graph->opsets[i].domain)
			return rt_error_set(graph->errors,
					    ENPU_RT_OUT_OF_MEMORY,
					    "out of memory");
		graph->opsets[i].version = id->version;
	}
	graph->opset_count = model->n_opset_import;
	return 0;
}

static int load_initializers(struct rt_graph *graph,
			     const Onnx__GraphProto *g, const char *base_dir)
{
	if (g->n_sparse_initializer)
		return rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED,
				    "sparse initializers are not supported");
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *tp = g->initializer[i];
		const char *name = or_empty(tp->name);
		char what[300];
		struct rt_tensor t;
		int index, status;

		if (!*name)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "initializer %zu has no name", i);
		if (rt_graph_find_value(graph, name) >= 0)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "initializer '%s' is defined twice",
					    name);
		snprintf(what, sizeof(what), "initializer '%s'", name);
		status = rt_onnx_convert_tensor(tp, what, base_dir,
						&graph->arena, &t,
						graph->errors);
		if (status)
			return status;
		index = rt_graph_add_value(graph, name);
		if (index < 0)
			return graph->errors->status;
		t.name = graph->values[index].name;
		graph->values[index].tensor = t;
		graph->values[index].kind = RT_VALUE_CONSTANT;
	}
	return 0;
}

static int load_inputs(struct rt_graph *graph, const Onnx__GraphProto *g)
{
	graph->inputs = rt_arena_alloc(&graph->arena,
				       (g->n_input + 1) * sizeof(int));
	if (!graph->inputs)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	for (size_t i = 0; i < g->n_input; i++) {
		const char *name = or_empty(g->input[i]->name);
		int index = rt_graph_find_value(graph, name);
		int status;

		if (!*name)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "graph input %zu has no name", i);
		if (index >= 0) {
			/*
			 * An input with an initializer of the same name is a
			 * default the caller could override; we keep the
			 * initializer and do not offer it as an input, so
			 * constant folding and weight packing can use it.
			 */
			if (graph->values[index].kind == RT_VALUE_CONSTANT)
				continue;
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "graph input '%s' is declared twice",
					    name);
		}
		index = rt_graph_add_value(graph, name);
		if (index < 0)
			return graph->errors->status;
		graph->values[index].kind = RT_VALUE_INPUT;
		status = convert_value_info(graph, g->input[i],
					    &graph->values[index], "input");
		if (status)
			return status;
		/* A subgraph's inputs take the type of what is fed in. */
		if (!graph->values[index].tensor.dtype && !graph->parent)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "graph input '%s' has no element type",
					    name);
		graph->inputs[graph->input_count++] = index;
	}
	return 0;
}

static int load_node(struct rt_graph *graph, const Onnx__NodeProto *np,
		     size_t position, const char *base_dir)
{
	int index = rt_graph_add_node(graph);
	struct rt_node *node;
	char label[32];

	if (index < 0)
		return graph->errors->status;
	node = &graph->nodes[index];
	snprintf(label, sizeof(label), "#%zu", position);
	node->name = rt_arena_strdup(&graph->arena,
				     np->name && *np->name ? np->name : label);
	node->op_type = rt_arena_strdup(&graph->arena, or_empty(np->op_type));
	node->domain = rt_arena_strdup(&graph->arena, or_empty(np->domain));
	if (!node->name || !node->op_type || !node->domain)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	if (!*node->op_type)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "node '%s': has no op_type", node->name);
	node->opset = rt_graph_opset(graph, node->domain);
	if (node->opset < 0)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "node '%s' (%s): domain '%s' is not "
				    "imported by the model", node->name,
				    node->op_type, node->domain);
	if (np->n_input > RT_ONNX_MAX_NODE_FIELDS ||
	    np->n_output > RT_ONNX_MAX_NODE_FIELDS ||
	    np->n_attribute > RT_ONNX_MAX_NODE_FIELDS)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "node '%s' (%s): too many inputs, outputs "
				    "or attributes", node->name, node->op_type);
	/* One spare input slot for a bias fused in later. */
	node->inputs = rt_arena_alloc(&graph->arena,
				      (np->n_input + 1) * sizeof(int));
	node->outputs = rt_arena_alloc(&graph->arena,
				       (np->n_output + 1) * sizeof(int));
	node->attrs = rt_arena_alloc(&graph->arena, (np->n_attribute + 1) *
						    sizeof(struct rt_attr));
	if (!node->inputs || !node->outputs || !node->attrs)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	node->input_count = np->n_input;
	node->output_count = np->n_output;
	for (size_t i = 0; i < np->n_attribute; i++) {
		int status;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(or_empty(np->attribute[i]->name),
				    or_empty(np->attribute[j]->name)))
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): attribute '%s' appears "
					"twice", node->name, node->op_type,
					or_empty(np->attribute[i]->name));
		status = convert_attribute(graph, node, np->attribute[i],
					   &node->attrs[i], base_dir);
		if (status)
			return status;
		node->attr_count = i + 1;
	}
	for (size_t o = 0; o < np->n_output; o++) {
		const char *name = or_empty(np->output[o]);
		int value;

		node->outputs[o] = -1;
		if (!*name)
			continue;
		if (rt_graph_find_value(graph, name) >= 0)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "node '%s' (%s): output '%s' is "
					    "already defined", node->name,
					    node->op_type, name);
		value = rt_graph_add_value(graph, name);
		if (value < 0)
			return graph->errors->status;
		graph->values[value].producer = index;
		node->outputs[o] = value;
	}
	return 0;
}

/* Names a subgraph reads from outer scopes, in first-use order. */
struct outer_refs {
	int *values;
	size_t count, capacity;
};

/*
 * The value called @name: this graph's own, else (in a subgraph) an
 * input standing for the outer scope's value of that name, added on
 * first use; -1 if none (the model's graph).
 */
static int resolve_name(struct rt_graph *graph, struct outer_refs *outer,
			const char *name)
{
	int index = rt_graph_find_value(graph, name);

	if (index >= 0 || !graph->parent)
		return index;
	if (outer->count == outer->capacity) {
		size_t capacity = outer->capacity ? outer->capacity * 2 : 8;
		int *grown = realloc(outer->values, capacity * sizeof(int));

		if (!grown) {
			rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory");
			return -2;
		}
		outer->values = grown;
		outer->capacity = capacity;
	}
	index = rt_graph_add_value(graph, name);
	if (index < 0)
		return -2;
	graph->values[index].kind = RT_VALUE_INPUT;
	outer->values[outer->count++] = index;
	return index;
}

/*
 * The outer-scope names the subgraphs of @node read become its implicit
 * inputs (after its own, deduplicated), so the node is ordered after
 * their producers and keeps them alive; each subgraph's outer_index maps
 * its outer inputs onto them.
 */
static int add_implicit_inputs(struct rt_graph *graph,
			       struct outer_refs *outer, struct rt_node *node)
{
	size_t wanted = 0, own = node->input_count;
	int *inputs;

	for (size_t a = 0; a < node->attr_count; a++) {
		const struct rt_graph *child = node->attrs[a].graph;

		if (node->attrs[a].type == RT_ATTR_GRAPH && child)
			wanted += child->input_count - child->formal_input_count;
	}
	if (!wanted)
		return 0;
	inputs = rt_arena_alloc(&graph->arena, (own + wanted + 1) * sizeof(int));
	if (!inputs)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	memcpy(inputs, node->inputs, own * sizeof(int));
	node->inputs = inputs;
	for (size_t a = 0; a < node->attr_count; a++) {
		struct rt_graph *child = (struct rt_graph *)node->attrs[a].graph;
		size_t refs;

		if (node->attrs[a].type != RT_ATTR_GRAPH || !child)
			continue;
		refs = child->input_count - child->formal_input_count;
		child->outer_index = rt_arena_alloc(&child->arena,
						    (refs + 1) * sizeof(size_t));
		if (!child->outer_index)
			return rt_error_set(graph->errors,
					    ENPU_RT_OUT_OF_MEMORY,
					    "out of memory");
		for (size_t r = 0; r < refs; r++) {
			const char *name = child->values[
				child->inputs[child->formal_input_count + r]].name;
			int value = resolve_name(graph, outer, name);
			size_t at = own;

			if (value == -2)
				return graph->errors->status;
			if (value < 0)
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): a subgraph reads "
					"'%s', which no scope defines",
					node->name, node->op_type, name);
			while (at < node->input_count &&
			       node->inputs[at] != value)
				at++;
			if (at == node->input_count) {
				node->inputs[node->input_count++] = value;
				node->implicit_inputs++;
			}
			child->outer_index[r] = at - own;
		}
	}
	return 0;
}

static int resolve_inputs(struct rt_graph *graph, const Onnx__GraphProto *g,
			  struct outer_refs *outer)
{
	for (size_t n = 0; n < graph->node_count; n++) {
		struct rt_node *node = &graph->nodes[n];
		const Onnx__NodeProto *np = g->node[n];
		int status;

		for (size_t i = 0; i < node->input_count; i++) {
			const char *name = or_empty(np->input[i]);

			node->inputs[i] = -1;
			if (!*name)
				continue;
			node->inputs[i] = resolve_name(graph, outer, name);
			if (node->inputs[i] == -2)
				return graph->errors->status;
			if (node->inputs[i] < 0)
				return rt_error_set(graph->errors,
					ENPU_RT_INVALID_MODEL,
					"node '%s' (%s): input '%s' is not "
					"produced by any node, input or "
					"initializer", node->name,
					node->op_type, name);
		}
		status = add_implicit_inputs(graph, outer, node);
		if (status)
			return status;
	}
	return 0;
}

static int load_outputs(struct rt_graph *graph, const Onnx__GraphProto *g,
			struct outer_refs *outer)
{
	if (!g->n_output)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "graph has no outputs");
	graph->outputs = rt_arena_alloc(&graph->arena,
					g->n_output * sizeof(int));
	if (!graph->outputs)
		return rt_error_set(graph->errors, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	for (size_t i = 0; i < g->n_output; i++) {
		const char *name = or_empty(g->output[i]->name);
		int index = resolve_name(graph, outer, name);
		struct rt_value declared;
		int status;

		if (index == -2)
			return graph->errors->status;
		if (index < 0)
			return rt_error_set(graph->errors,
					    ENPU_RT_INVALID_MODEL,
					    "graph output '%s' is not produced",
					    name);
		/* Only the declared type/shape names are kept for outputs. */
		memset(&declared, 0, sizeof(declared));
		declared.name = name;
		declared.tensor.rank = -1;
		declared.declared_rank = -1;
		status = convert_value_info(graph, g->output[i], &declared,
					    "output");
		if (status)
			return status;
		memcpy(graph->values[index].dim_names, declared.dim_names,
		       sizeof(declared.dim_names));
		if (graph->values[index].declared_rank < 0) {
			graph->values[index].declared_rank =
				declared.declared_rank;
			memcpy(graph->values[index].declared_dims,
			       declared.declared_dims,
			       sizeof(declared.declared_dims));
		}
		if (!graph->values[index].tensor.dtype)
			graph->values[index].tensor.dtype = declared.tensor.dtype;
		graph->values[index].is_output = 1;
		graph->outputs[graph->output_count++] = index;
	}
	return 0;
}

/*
 * A graph's initializers, inputs, nodes and outputs; in a subgraph, the
 * names read from outer scopes become inputs after the formal ones.
 */
static int load_graph_body(struct rt_graph *graph, const Onnx__GraphProto *g,
			   const char *base_dir)
{
	struct outer_refs outer = { NULL, 0, 0 };
	int status = load_initializers(graph, g, base_dir);

	if (!status)
		status = load_inputs(graph, g);
	graph->formal_input_count = graph->input_count;
	for (size_t n = 0; !status && n < g->n_node; n++)
		status = load_node(graph, g->node[n], n, base_dir);
	if (!status)
		status = resolve_inputs(graph, g, &outer);
	if (!status)
		status = load_outputs(graph, g, &outer);
	if (!status && outer.count) {
		int *inputs = rt_arena_alloc(&graph->arena,
					     (graph->input_count + outer.count +
					      1) * sizeof(int));

		if (!inputs) {
			status = rt_error_set(graph->errors,
					      ENPU_RT_OUT_OF_MEMORY,
					      "out of memory");
		} else {
			memcpy(inputs, graph->inputs,
			       graph->input_count * sizeof(int));
			memcpy(inputs + graph->input_count, outer.values,
			       outer.count * sizeof(int));
			graph->inputs = inputs;
			graph->input_count += outer.count;
		}
	}
	free(outer.values);
	return status;
}

int rt_onnx_load(struct rt_graph *graph, const void *data, size_t size,
		 const char *base_dir)
{
	Onnx__ModelProto *model;
	const Onnx__GraphProto *g;
	int status;

	if (size > RT_ONNX_MAX_MODEL_BYTES)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "model is %zu bytes, more than the %zu "
				    "allowed", size, RT_ONNX_MAX_MODEL_BYTES);
	graph->arena.limit = RT_ONNX_MAX_CONSTANT_BYTES;
	model = onnx__model_proto__unpack(NULL, size, data);
	if (!model)
		return rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				    "not a valid ONNX ModelProto (protobuf "
				    "parse failed, %zu bytes)", size);
	g = model->graph;
	if (!g) {
		status = rt_error_set(graph->errors, ENPU_RT_INVALID_MODEL,
				      "model has no graph");
		goto out;
	}
	if (model->n_functions) {
		status = rt_error_set(graph->errors, ENPU_RT_UNSUPPORTED,
				      "model-local functions are not "
				      "supported");
		goto out;
	}
	status = load_opsets(graph, model);
	if (!status)
		status = load_graph_body(graph, g, base_dir);
out:
	onnx__model_proto__free_unpacked(model, NULL);
	return status;
}
