// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "model_builder.h"

static void *alloc(struct model_builder *mb, size_t size)
{
	void *p = rt_arena_alloc(&mb->arena, size);

	if (!p)
		abort();	/* tests only: out of memory is fatal */
	return p;
}

static char *dup(struct model_builder *mb, const char *s)
{
	return rt_arena_strdup(&mb->arena, s);
}

/* Appends @item to a protobuf-c repeated field (count + pointer array). */
static void append(struct model_builder *mb, size_t *count, void ***items,
		   void *item)
{
	void **grown = alloc(mb, (*count + 1) * sizeof(void *));

	if (*count)
		memcpy(grown, *items, *count * sizeof(void *));
	grown[(*count)++] = item;
	*items = grown;
}

void mb_init(struct model_builder *mb, int64_t opset)
{
	memset(mb, 0, sizeof(*mb));
	onnx__model_proto__init(&mb->model);
	onnx__graph_proto__init(&mb->graph);
	onnx__operator_set_id_proto__init(&mb->opset);
	mb->opset.domain = dup(mb, "");
	mb->opset.has_version = 1;
	mb->opset.version = opset;
	mb->opsets[0] = &mb->opset;
	mb->model.has_ir_version = 1;
	mb->model.ir_version = 8;
	mb->model.n_opset_import = 1;
	mb->model.opset_import = mb->opsets;
	mb->model.graph = &mb->graph;
	mb->graph.name = dup(mb, "test");
}

void mb_free(struct model_builder *mb)
{
	rt_arena_free_all(&mb->arena);
}

static Onnx__ValueInfoProto *value_info(struct model_builder *mb,
					const char *name, int32_t dtype,
					int rank, const int64_t *dims)
{
	Onnx__ValueInfoProto *info = alloc(mb, sizeof(*info));
	Onnx__TypeProto *type = alloc(mb, sizeof(*type));
	Onnx__TypeProto__Tensor *tensor = alloc(mb, sizeof(*tensor));
	Onnx__TensorShapeProto *shape = alloc(mb, sizeof(*shape));

	onnx__value_info_proto__init(info);
	onnx__type_proto__init(type);
	onnx__type_proto__tensor__init(tensor);
	onnx__tensor_shape_proto__init(shape);
	info->name = dup(mb, name);
	info->type = type;
	type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type->tensor_type = tensor;
	tensor->has_elem_type = 1;
	tensor->elem_type = dtype;
	if (rank < 0)
		return info;
	tensor->shape = shape;
	for (int d = 0; d < rank; d++) {
		Onnx__TensorShapeProto__Dimension *dim =
			alloc(mb, sizeof(*dim));

		onnx__tensor_shape_proto__dimension__init(dim);
		if (dims[d] < 0) {
			dim->value_case =
			 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			dim->dim_param = dup(mb, "N");
		} else {
			dim->value_case =
			 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dim->dim_value = dims[d];
		}
		append(mb, &shape->n_dim, (void ***)&shape->dim, dim);
	}
	return info;
}

void mb_graph_input(struct model_builder *mb, Onnx__GraphProto *g,
		    const char *name, int32_t dtype, int rank,
		    const int64_t *dims)
{
	append(mb, &g->n_input, (void ***)&g->input,
	       value_info(mb, name, dtype, rank, dims));
}

void mb_input(struct model_builder *mb, const char *name, int32_t dtype,
	      int rank, const int64_t *dims)
{
	mb_graph_input(mb, &mb->graph, name, dtype, rank, dims);
}

void mb_graph_output(struct model_builder *mb, Onnx__GraphProto *g,
		     const char *name)
{
	Onnx__ValueInfoProto *info = alloc(mb, sizeof(*info));

	onnx__value_info_proto__init(info);
	info->name = dup(mb, name);
	append(mb, &g->n_output, (void ***)&g->output, info);
}

void mb_output(struct model_builder *mb, const char *name)
{
	mb_graph_output(mb, &mb->graph, name);
}

void mb_output_typed(struct model_builder *mb, const char *name,
		     int32_t dtype, int rank, const int64_t *dims)
{
	append(mb, &mb->graph.n_output, (void ***)&mb->graph.output,
	       value_info(mb, name, dtype, rank, dims));
}

Onnx__TensorProto *mb_initializer(struct model_builder *mb, const char *name,
				  int32_t dtype, int rank, const int64_t *dims,
				  const void *data, size_t bytes)
{
	Onnx__TensorProto *t = alloc(mb, sizeof(*t));

	onnx__tensor_proto__init(t);
	t->name = dup(mb, name);
	t->has_data_type = 1;
	t->data_type = dtype;
	t->n_dims = (size_t)rank;
	t->dims = alloc(mb, sizeof(int64_t) * (size_t)(rank + 1));
	if (rank)
		memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = alloc(mb, bytes + 1);
	if (bytes)
		memcpy(t->raw_data.data, data, bytes);
	append(mb, &mb->graph.n_initializer,
	       (void ***)&mb->graph.initializer, t);
	return t;
}

static void split(struct model_builder *mb, const char *list, size_t *count,
		  char ***items)
{
	const char *p = list;

	*count = 0;
	*items = NULL;
	if (!*list)
		return;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		append(mb, count, (void ***)items,
		       rt_arena_strndup(&mb->arena, p, len));
		if (!end)
			break;
		p = end + 1;
	}
}

Onnx__NodeProto *mb_graph_node(struct model_builder *mb, Onnx__GraphProto *g,
			       const char *op_type, const char *inputs,
			       const char *outputs)
{
	Onnx__NodeProto *node = alloc(mb, sizeof(*node));

	onnx__node_proto__init(node);
	node->op_type = dup(mb, op_type);
	node->name = dup(mb, op_type);
	split(mb, inputs, &node->n_input, &node->input);
	split(mb, outputs, &node->n_output, &node->output);
	append(mb, &g->n_node, (void ***)&g->node, node);
	return node;
}

Onnx__NodeProto *mb_node(struct model_builder *mb, const char *op_type,
			 const char *inputs, const char *outputs)
{
	return mb_graph_node(mb, &mb->graph, op_type, inputs, outputs);
}

Onnx__AttributeProto *mb_attr(struct model_builder *mb, Onnx__NodeProto *node,
			       const char *name,
			       Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = alloc(mb, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = dup(mb, name);
	a->has_type = 1;
	a->type = type;
	append(mb, &node->n_attribute, (void ***)&node->attribute, a);
	return a;
}

void mb_attr_int(struct model_builder *mb, Onnx__NodeProto *node,
		 const char *name, int64_t value)
{
	Onnx__AttributeProto *a = mb_attr(mb, node, name,
				       ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);

	a->has_i = 1;
	a->i = value;
}

void mb_attr_float(struct model_builder *mb, Onnx__NodeProto *node,
		   const char *name, float value)
{
	Onnx__AttributeProto *a = mb_attr(mb, node, name,
			ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);

	a->has_f = 1;
	a->f = value;
}

void mb_attr_string(struct model_builder *mb, Onnx__NodeProto *node,
		    const char *name, const char *value)
{
	Onnx__AttributeProto *a = mb_attr(mb, node, name,
			ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);

	a->has_s = 1;
	a->s.data = (uint8_t *)dup(mb, value);
	a->s.len = strlen(value);
}

Onnx__GraphProto *mb_attr_graph(struct model_builder *mb,
				Onnx__NodeProto *node, const char *name)
{
	Onnx__AttributeProto *a = mb_attr(mb, node, name,
			ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	Onnx__GraphProto *g = alloc(mb, sizeof(*g));

	onnx__graph_proto__init(g);
	a->g = g;
	return g;
}

void mb_attr_ints(struct model_builder *mb, Onnx__NodeProto *node,
		  const char *name, const int64_t *values, size_t count)
{
	Onnx__AttributeProto *a = mb_attr(mb, node, name,
			ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);

	a->n_ints = count;
	a->ints = alloc(mb, (count + 1) * sizeof(int64_t));
	if (count)
		memcpy(a->ints, values, count * sizeof(int64_t));
}

void mb_node_name(struct model_builder *mb, Onnx__NodeProto *node,
		  const char *name)
{
	node->name = dup(mb, name);
}

void mb_node_domain(struct model_builder *mb, Onnx__NodeProto *node,
		    const char *domain)
{
	node->domain = dup(mb, domain);
}

void mb_import(struct model_builder *mb, const char *domain, int64_t version)
{
	Onnx__OperatorSetIdProto *o = alloc(mb, sizeof(*o));

	if (mb->model.n_opset_import >= MB_MAX_OPSETS)
		abort();
	onnx__operator_set_id_proto__init(o);
	o->domain = dup(mb, domain);
	o->has_version = 1;
	o->version = version;
	mb->opsets[mb->model.n_opset_import++] = o;
}

uint8_t *mb_pack(struct model_builder *mb, size_t *size)
{
	uint8_t *buf;

	*size = onnx__model_proto__get_packed_size(&mb->model);
	buf = alloc(mb, *size + 1);
	onnx__model_proto__pack(&mb->model, buf);
	return buf;
}
