// SPDX-License-Identifier: MIT
/* Model building and inspection helpers for tests/quantize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtest_model.h"

#define GROW(m, arr, count) \
	do { \
		void *grown = rt_arena_alloc(&(m)->arena, \
					     ((count) + 1) * sizeof(*(arr))); \
		if (!grown) \
			abort(); \
		if (count) \
			memcpy(grown, arr, (count) * sizeof(*(arr))); \
		arr = grown; \
	} while (0)

void qt_init(struct qt_model *m, int64_t opset)
{
	memset(m, 0, sizeof(*m));
	onnx__model_proto__init(&m->model);
	onnx__graph_proto__init(&m->graph);
	onnx__operator_set_id_proto__init(&m->opset);
	m->opset.domain = "";
	m->opset.has_version = 1;
	m->opset.version = opset;
	m->opsets[0] = &m->opset;
	m->model.has_ir_version = 1;
	m->model.ir_version = 7;
	m->model.n_opset_import = 1;
	m->model.opset_import = m->opsets;
	m->model.producer_name = "test-quantize";
	m->model.graph = &m->graph;
	m->graph.name = "g";
}

void qt_free(struct qt_model *m)
{
	rt_arena_free_all(&m->arena);
}

static char *dup_str(struct qt_model *m, const char *s, size_t len)
{
	char *d = rt_arena_strndup(&m->arena, s, len);

	if (!d)
		abort();
	return d;
}

void qt_input(struct qt_model *m, const char *name, int32_t dtype, int rank,
	      const int64_t *dims)
{
	Onnx__ValueInfoProto *vi = rt_arena_alloc(&m->arena, sizeof(*vi));
	Onnx__TypeProto *tp = rt_arena_alloc(&m->arena, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = rt_arena_alloc(&m->arena, sizeof(*tt));
	Onnx__TensorShapeProto *sp = rt_arena_alloc(&m->arena, sizeof(*sp));

	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sp);
	tt->has_elem_type = 1;
	tt->elem_type = dtype;
	sp->dim = rt_arena_alloc(&m->arena, (size_t)(rank + 1) *
				 sizeof(*sp->dim));
	for (int i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d =
			rt_arena_alloc(&m->arena, sizeof(*d));

		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case =
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		sp->dim[i] = d;
	}
	sp->n_dim = (size_t)rank;
	tt->shape = sp;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	vi->name = dup_str(m, name, strlen(name));
	vi->type = tp;
	GROW(m, m->graph.input, m->graph.n_input);
	m->graph.input[m->graph.n_input++] = vi;
}

void qt_output(struct qt_model *m, const char *name)
{
	Onnx__ValueInfoProto *vi = rt_arena_alloc(&m->arena, sizeof(*vi));

	onnx__value_info_proto__init(vi);
	vi->name = dup_str(m, name, strlen(name));
	GROW(m, m->graph.output, m->graph.n_output);
	m->graph.output[m->graph.n_output++] = vi;
}

void qt_init_float(struct qt_model *m, const char *name, int rank,
		   const int64_t *dims, const float *data)
{
	Onnx__TensorProto *t = rt_arena_alloc(&m->arena, sizeof(*t));
	size_t n = 1;

	onnx__tensor_proto__init(t);
	t->name = dup_str(m, name, strlen(name));
	t->has_data_type = 1;
	t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t->n_dims = (size_t)rank;
	t->dims = rt_arena_alloc(&m->arena, (size_t)(rank + 1) * 8);
	for (int i = 0; i < rank; i++) {
		t->dims[i] = dims[i];
		n *= (size_t)dims[i];
	}
	t->n_float_data = n;
	t->float_data = rt_arena_alloc(&m->arena, n * sizeof(float));
	memcpy(t->float_data, data, n * sizeof(float));
	GROW(m, m->graph.initializer, m->graph.n_initializer);
	m->graph.initializer[m->graph.n_initializer++] = t;
}

static size_t split(struct qt_model *m, const char *list, char ***out)
{
	size_t count = 0;
	const char *p = list;

	*out = NULL;
	if (!*list)
		return 0;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		GROW(m, *out, count);
		(*out)[count++] = dup_str(m, p, len);
		if (!end)
			return count;
		p = end + 1;
	}
}

Onnx__NodeProto *qt_node(struct qt_model *m, const char *op,
			 const char *inputs, const char *outputs)
{
	Onnx__NodeProto *n = rt_arena_alloc(&m->arena, sizeof(*n));
	char name[64];

	onnx__node_proto__init(n);
	snprintf(name, sizeof(name), "%s_%zu", op, m->graph.n_node);
	n->name = dup_str(m, name, strlen(name));
	n->op_type = dup_str(m, op, strlen(op));
	n->n_input = split(m, inputs, &n->input);
	n->n_output = split(m, outputs, &n->output);
	GROW(m, m->graph.node, m->graph.n_node);
	m->graph.node[m->graph.n_node++] = n;
	return n;
}

static Onnx__AttributeProto *new_attr(struct qt_model *m,
				      Onnx__NodeProto *n, const char *name)
{
	Onnx__AttributeProto *a = rt_arena_alloc(&m->arena, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = dup_str(m, name, strlen(name));
	a->has_type = 1;
	GROW(m, n->attribute, n->n_attribute);
	n->attribute[n->n_attribute++] = a;
	return a;
}

void qt_attr_int(struct qt_model *m, Onnx__NodeProto *n, const char *name,
		 int64_t v)
{
	Onnx__AttributeProto *a = new_attr(m, n, name);

	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
}

void qt_attr_ints(struct qt_model *m, Onnx__NodeProto *n, const char *name,
		  const int64_t *v, size_t count)
{
	Onnx__AttributeProto *a = new_attr(m, n, name);

	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->ints = rt_arena_alloc(&m->arena, (count + 1) * sizeof(int64_t));
	memcpy(a->ints, v, count * sizeof(int64_t));
	a->n_ints = count;
}

static int write_bytes(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

int qt_save(struct qt_model *m, const char *path)
{
	size_t size = onnx__model_proto__get_packed_size(&m->model);
	uint8_t *buf = malloc(size + 1);
	int status;

	if (!buf)
		return -1;
	onnx__model_proto__pack(&m->model, buf);
	status = write_bytes(path, buf, size);
	free(buf);
	return status;
}

int qt_save_matmul(const char *path, int64_t opset, const int64_t *xd,
		   const int64_t *wd, const float *w, const char *extra)
{
	struct qt_model m;
	int status;

	qt_init(&m, opset);
	qt_input(&m, "x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, xd);
	qt_init_float(&m, "w", 2, wd, w);
	qt_node(&m, "MatMul", "x,w", extra ? "h" : "y");
	if (extra)
		qt_node(&m, extra, "h", "y");
	qt_output(&m, "y");
	status = qt_save(&m, path);
	qt_free(&m);
	return status;
}

int qt_write_tensor(const char *path, const char *name, int rank,
		    const int64_t *dims, const float *data)
{
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	int64_t d[8];
	size_t n = 1;
	uint8_t *buf;
	int status;

	for (int i = 0; i < rank; i++) {
		d[i] = dims[i];
		n *= (size_t)dims[i];
	}
	t.name = (char *)name;
	t.has_data_type = 1;
	t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t.n_dims = (size_t)rank;
	t.dims = d;
	t.has_raw_data = 1;
	t.raw_data.data = (uint8_t *)data;
	t.raw_data.len = n * sizeof(float);
	buf = malloc(onnx__tensor_proto__get_packed_size(&t) + 1);
	if (!buf)
		return -1;
	onnx__tensor_proto__pack(&t, buf);
	status = write_bytes(path, buf,
			     onnx__tensor_proto__get_packed_size(&t));
	free(buf);
	return status;
}

Onnx__ModelProto *qt_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long size;
	Onnx__ModelProto *model = NULL;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size)
		model = onnx__model_proto__unpack(NULL, (size_t)size, buf);
	free(buf);
	fclose(f);
	return model;
}

const Onnx__NodeProto *qt_producer(const Onnx__GraphProto *g,
				   const char *name)
{
	for (size_t n = 0; n < g->n_node; n++)
		for (size_t o = 0; o < g->node[n]->n_output; o++)
			if (!strcmp(g->node[n]->output[o], name))
				return g->node[n];
	return NULL;
}

const Onnx__NodeProto *qt_find_op(const Onnx__GraphProto *g, const char *op,
				  int nth)
{
	for (size_t n = 0; n < g->n_node; n++)
		if (!strcmp(g->node[n]->op_type, op) && nth-- == 0)
			return g->node[n];
	return NULL;
}

int qt_count_op(const Onnx__GraphProto *g, const char *op)
{
	int count = 0;

	for (size_t n = 0; n < g->n_node; n++)
		count += !strcmp(g->node[n]->op_type, op);
	return count;
}

const Onnx__TensorProto *qt_initializer(const Onnx__GraphProto *g,
					const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (!strcmp(g->initializer[i]->name, name))
			return g->initializer[i];
	return NULL;
}

int64_t qt_node_int(const Onnx__NodeProto *n, const char *name,
		    int64_t fallback)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!strcmp(n->attribute[i]->name, name))
			return n->attribute[i]->i;
	return fallback;
}
