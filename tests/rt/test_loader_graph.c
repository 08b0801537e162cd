// SPDX-License-Identifier: MIT
/*
 * The ONNX loader seen from the graph it builds (rt_onnx_load() on a
 * struct rt_graph, no session): which attribute forms it accepts and
 * what it stores for them, which refusal rule answers each malformed
 * form (status and message), declared shapes of outputs, the model size
 * limit from both sides. Each case is one a mutant of loader.c survived
 * (tools/mutation/README.md).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "ir.h"
#include "model_builder.h"
#include "onnx_loader.h"

struct loaded {
	struct rt_error_sink errors;
	struct rt_graph graph;
	int status;
};

/* Loads @mb's packed model into @l->graph (rt_graph_destroy() it after). */
static void load(struct model_builder *mb, struct loaded *l)
{
	size_t size;
	uint8_t *bytes = mb_pack(mb, &size);

	memset(l, 0, sizeof(*l));
	l->status = rt_graph_init(&l->graph, &l->errors);
	if (!l->status)
		l->status = rt_onnx_load(&l->graph, bytes, size, NULL);
}

/* Loads @mb, expects @status and (for a refusal) @message; frees both. */
static void expect_load(struct test_state *t, struct model_builder *mb,
			int status, const char *message, const char *what)
{
	struct loaded l;

	load(mb, &l);
	CHECK(t, l.status == status, "%s: status %d, want %d (%s)", what,
	      l.status, status, l.errors.message);
	if (status)
		CHECK(t, strstr(l.errors.message, message), "%s: '%s' lacks '%s'",
		      what, l.errors.message, message);
	rt_graph_destroy(&l.graph);
	mb_free(mb);
}

/* x -> Relu -> y with one attribute "a" of @type, returned to fill in. */
static Onnx__AttributeProto *relu_with(struct model_builder *mb, int type)
{
	static const int64_t two[] = { 2 };
	Onnx__NodeProto *n;

	mb_init(mb, 13);
	mb_input(mb, "x", ENPU_RT_FLOAT, 1, two);
	n = mb_node(mb, "Relu", "x", "y");
	mb_output(mb, "y");
	return mb_attr(mb, n, "a", type);
}

/* A TypeProto of @value_case; a tensor one of element type @dtype (0: none). */
static Onnx__TypeProto *type_proto(struct model_builder *mb, int value_case,
				   int32_t dtype)
{
	struct rt_arena *arena = &mb->arena;
	Onnx__TypeProto *tp = rt_arena_alloc(arena, sizeof(*tp));

	onnx__type_proto__init(tp);
	tp->value_case = value_case;
	if (value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		tp->tensor_type = rt_arena_alloc(arena, sizeof(*tp->tensor_type));
		onnx__type_proto__tensor__init(tp->tensor_type);
		tp->tensor_type->has_elem_type = dtype != 0;
		tp->tensor_type->elem_type = dtype;
	} else if (value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
		tp->sequence_type = rt_arena_alloc(arena,
						   sizeof(*tp->sequence_type));
		onnx__type_proto__sequence__init(tp->sequence_type);
	} else {
		tp->optional_type = rt_arena_alloc(arena,
						   sizeof(*tp->optional_type));
		onnx__type_proto__optional__init(tp->optional_type);
	}
	return tp;
}

/*
 * Loads @mb, which must succeed, and checks the Relu's attribute "a":
 * its stored type and integer; frees @mb.
 */
static void expect_attr(struct test_state *t, struct model_builder *mb,
			int type, int64_t i, const char *what)
{
	struct loaded l;

	load(mb, &l);
	CHECK(t, l.status == 0, "%s: %s", what, l.errors.message);
	if (!l.status) {
		const struct rt_attr *a = &l.graph.nodes[0].attrs[0];

		CHECK(t, l.graph.nodes[0].attr_count == 1 && (int)a->type == type &&
		      a->i == i, "%s: %zu attributes, type %d i %lld", what,
		      l.graph.nodes[0].attr_count, a->type, (long long)a->i);
	}
	rt_graph_destroy(&l.graph);
	mb_free(mb);
}

static void test_function_attribute_reference(struct test_state *t)
{
	struct model_builder mb;
	Onnx__AttributeProto *a;

	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a->has_f = 1;
	a->ref_attr_name = "alpha";
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, "node 'Relu' (Relu): "
		    "attribute 'a': references a function attribute",
		    "ref_attr_name set");
	/* An empty reference is no reference: the float is kept. */
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a->has_f = 1;
	a->f = 0.5f;
	a->ref_attr_name = "";
	expect_attr(t, &mb, RT_ATTR_FLOAT, 0, "empty ref_attr_name");
}

/* Each way of saying "graph" without one graph goes to the same refusal. */
static void test_graph_attribute_forms(struct test_state *t)
{
	static const char refused[] = "attribute 'a': graph list attributes "
				      "are not supported";
	struct model_builder mb;
	Onnx__AttributeProto *a;
	Onnx__GraphProto *body;

	relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS);
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, refused,
		    "GRAPHS, empty list");
	relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, refused, "GRAPH without g");
	/* Untyped (IR < 2) with a one-graph list: refused by the list. */
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
	a->has_type = 0;
	body = rt_arena_alloc(&mb.arena, sizeof(*body));
	onnx__graph_proto__init(body);
	a->n_graphs = 1;
	a->graphs = rt_arena_alloc(&mb.arena, sizeof(*a->graphs));
	a->graphs[0] = body;
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, refused, "untyped graphs");
}

/* TypeProto attributes, typed and untyped, and what each stores in i. */
static void test_type_proto_attributes(struct test_state *t)
{
	struct model_builder mb;
	Onnx__AttributeProto *a;

	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
	a->tp = type_proto(&mb, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE,
			   ENPU_RT_INT64);
	expect_attr(t, &mb, RT_ATTR_TYPE_PROTO, ENPU_RT_INT64,
		    "typed, int64 tensor");
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
	a->has_type = 0;
	a->tp = type_proto(&mb, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, 0);
	expect_attr(t, &mb, RT_ATTR_TYPE_PROTO, 0,
		    "untyped, tensor without element type");
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
	a->tp = type_proto(&mb, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE, 0);
	expect_attr(t, &mb, RT_ATTR_TYPE_PROTO, ENPU_RT_SEQUENCE, "sequence");
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
	a->tp = type_proto(&mb, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE, 0);
	expect_attr(t, &mb, RT_ATTR_TYPE_PROTO, ENPU_RT_OPTIONAL, "optional");
	/* A TypeProto under another declared type is not taken for one. */
	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->tp = type_proto(&mb, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE,
			   ENPU_RT_FLOAT);
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, "attribute 'a': sparse "
		    "tensor, type proto and tensor list attributes are not "
		    "supported", "INT carrying a TypeProto");
}

/* Empty lists load (count 0); a string list keeps every string in order. */
static void test_list_attributes(struct test_state *t)
{
	static const char *const want[] = { "a", "bc", "" };
	struct model_builder mb;
	Onnx__AttributeProto *a;
	struct loaded l;

	relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	expect_attr(t, &mb, RT_ATTR_INTS, 0, "empty ints");
	relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	expect_attr(t, &mb, RT_ATTR_FLOATS, 0, "empty floats");
	relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	expect_attr(t, &mb, RT_ATTR_STRINGS, 0, "empty strings");

	a = relu_with(&mb, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	a->n_strings = 3;
	a->strings = rt_arena_alloc(&mb.arena, 3 * sizeof(*a->strings));
	for (int i = 0; i < 3; i++) {
		a->strings[i].data = (uint8_t *)want[i];
		a->strings[i].len = strlen(want[i]);
	}
	load(&mb, &l);
	CHECK(t, l.status == 0, "strings: %s", l.errors.message);
	if (!l.status) {
		const struct rt_attr *got = &l.graph.nodes[0].attrs[0];

		CHECK(t, got->count == 3, "%zu strings", got->count);
		for (int i = 0; i < 3 && got->count == 3; i++)
			CHECK(t, got->strings[i] && !strcmp(got->strings[i],
							    want[i]),
			      "string %d: '%s', want '%s'", i,
			      got->strings[i] ? got->strings[i] : "(null)",
			      want[i]);
	}
	rt_graph_destroy(&l.graph);
	mb_free(&mb);
}

static void test_sparse_initializer(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	Onnx__SparseTensorProto sparse, *list[1] = { &sparse };
	struct model_builder mb;

	onnx__sparse_tensor_proto__init(&sparse);
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	mb.graph.n_sparse_initializer = 1;
	mb.graph.sparse_initializer = list;
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED,
		    "sparse initializers are not supported", "one sparse");
}

static void test_segmented_initializer(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	static const float w[2] = { 1, 2 };
	Onnx__TensorProto__Segment segment;
	struct model_builder mb;

	onnx__tensor_proto__segment__init(&segment);
	segment.has_begin = 1;
	segment.has_end = 1;
	segment.end = 2;
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 1, two, w,
		       sizeof(w))->segment = &segment;
	mb_node(&mb, "Add", "x,w", "y");
	mb_output(&mb, "y");
	expect_load(t, &mb, ENPU_RT_UNSUPPORTED, "initializer 'w': segmented "
		    "tensors are not supported", "a segment");
}

/* The model's inputs need an element type; a subgraph's inputs do not. */
static void test_input_without_element_type(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	struct model_builder mb;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	mb.graph.input[0]->type->tensor_type->has_elem_type = 0;
	expect_load(t, &mb, ENPU_RT_INVALID_MODEL,
		    "graph input 'x' has no element type", "untyped input");
}

/*
 * An output's declared shape fills in only a value with none of its
 * own: a rank-0 (scalar) input passed straight out keeps rank 0 although
 * the output declares [3]; an intermediate takes the output's [3].
 */
static void test_output_declared_shape(struct test_state *t)
{
	static const int64_t three[] = { 3 };
	struct model_builder mb;
	struct loaded l;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 0, NULL);
	mb_node(&mb, "Relu", "x", "y");
	mb_output_typed(&mb, "x", ENPU_RT_FLOAT, 1, three);
	mb_output_typed(&mb, "y", ENPU_RT_FLOAT, 1, three);
	load(&mb, &l);
	CHECK(t, l.status == 0, "%s", l.errors.message);
	if (!l.status) {
		const struct rt_value *x = &l.graph.values[l.graph.outputs[0]];
		const struct rt_value *y = &l.graph.values[l.graph.outputs[1]];

		CHECK(t, x->declared_rank == 0, "x: declared rank %d, want 0",
		      x->declared_rank);
		CHECK(t, y->declared_rank == 1 && y->declared_dims[0] == 3,
		      "y: declared rank %d dim %lld, want [3]",
		      y->declared_rank, (long long)y->declared_dims[0]);
		CHECK(t, x->is_output && y->is_output, "is_output %d %d",
		      x->is_output, y->is_output);
	}
	rt_graph_destroy(&l.graph);
	mb_free(&mb);
}

/*
 * RT_ONNX_MAX_MODEL_BYTES from both sides, on a lazily mapped buffer
 * whose first byte is a tag of wire type 7 (none such), so the parser
 * stops at once: one byte more is refused by size, the limit itself
 * reaches the parser.
 */
static void test_model_size_limit(struct test_state *t)
{
	size_t limit = RT_ONNX_MAX_MODEL_BYTES;
	uint8_t *p = mmap(NULL, limit + 1, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct rt_error_sink errors = { { 0 }, 0 };
	struct rt_graph g;
	int status;

	CHECK(t, p != MAP_FAILED, "cannot map %zu bytes", limit + 1);
	if (p == MAP_FAILED)
		return;
	p[0] = 0x0f;
	CHECK(t, rt_graph_init(&g, &errors) == 0, "init");
	status = rt_onnx_load(&g, p, limit + 1, NULL);
	CHECK(t, status == ENPU_RT_INVALID_MODEL &&
	      strstr(errors.message, "more than the"),
	      "limit + 1: %d '%s'", status, errors.message);
	rt_graph_destroy(&g);
	CHECK(t, rt_graph_init(&g, &errors) == 0, "init");
	status = rt_onnx_load(&g, p, limit, NULL);
	CHECK(t, status == ENPU_RT_INVALID_MODEL &&
	      strstr(errors.message, "protobuf parse failed"),
	      "limit: %d '%s'", status, errors.message);
	rt_graph_destroy(&g);
	munmap(p, limit + 1);
}

const struct test_case loader_graph_tests[] = {
	{ "loader_function_attribute_reference",
	  test_function_attribute_reference },
	{ "loader_graph_attribute_forms", test_graph_attribute_forms },
	{ "loader_type_proto_attributes", test_type_proto_attributes },
	{ "loader_list_attributes", test_list_attributes },
	{ "loader_sparse_initializer", test_sparse_initializer },
	{ "loader_segmented_initializer", test_segmented_initializer },
	{ "loader_input_without_element_type",
	  test_input_without_element_type },
	{ "loader_output_declared_shape", test_output_declared_shape },
	{ "loader_model_size_limit", test_model_size_limit },
	{ NULL, NULL },
};
