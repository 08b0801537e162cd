// SPDX-License-Identifier: MIT
/*
 * The ONNX loader's limits and refusals, each from both sides where it is
 * a limit, each asserting the status and the message that names the
 * problem (the gaps mutation testing found: rank above the limit, opset
 * imports, duplicate names, a graph without outputs).
 */
#include <stdlib.h>
#include <string.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "model_builder.h"
#include "onnx_loader.h"
#include "rt_open.h"

/* Opens @mb; expects @status and, for a refusal, @message in the error. */
static void expect_open(struct test_state *t, struct model_builder *mb,
			enum enpu_rt_status status, const char *message,
			const char *what)
{
	enpu_rt_session *s = NULL;
	char error[1024];
	enum enpu_rt_status got;

	got = mb_open(mb, 1, NULL, &s, error, sizeof(error));
	CHECK(t, got == status, "%s: status %d, want %d (%s)", what, got,
	      status, error);
	if (status == ENPU_RT_OK)
		CHECK(t, s != NULL, "%s: no session", what);
	else
		CHECK(t, strstr(error, message), "%s: '%s' lacks '%s'", what,
		      error, message);
	enpu_rt_session_destroy(s);
	mb_free(mb);
}

/* x -> Relu -> y, x of @rank dimensions of 1. */
static void relu_model(struct model_builder *mb, int rank)
{
	int64_t dims[ENPU_RT_MAX_RANK + 1];

	for (int i = 0; i < rank; i++)
		dims[i] = 1;
	mb_init(mb, 13);
	mb_input(mb, "x", ENPU_RT_FLOAT, rank, dims);
	mb_node(mb, "Relu", "x", "y");
	mb_output(mb, "y");
}

static void test_rank_limit(struct test_state *t)
{
	struct model_builder mb;

	relu_model(&mb, ENPU_RT_MAX_RANK);
	expect_open(t, &mb, ENPU_RT_OK, NULL, "the largest rank");
	relu_model(&mb, ENPU_RT_MAX_RANK + 1);
	expect_open(t, &mb, ENPU_RT_UNSUPPORTED, "graph input 'x': rank 9 "
		    "exceeds 8", "one more");
}

static void test_opset_imports(struct test_state *t)
{
	struct model_builder mb;

	relu_model(&mb, 1);
	mb.model.n_opset_import = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "model imports no opset",
		    "no opset");
	relu_model(&mb, 1);
	mb.opset.version = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "opset import of domain "
		    "'' has no valid version", "opset 0");
	relu_model(&mb, 1);
	mb.opset.has_version = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "has no valid version",
		    "opset without a version");
	/* The smallest version passes the import check (Relu-1 then runs). */
	relu_model(&mb, 1);
	mb.opset.version = 1;
	expect_open(t, &mb, ENPU_RT_OK, NULL, "opset 1");
}

static void test_graph_without_outputs(struct test_state *t)
{
	struct model_builder mb;
	int64_t dims[] = { 2 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "graph has no outputs",
		    "no outputs");
}

static void test_duplicate_names(struct test_state *t)
{
	struct model_builder mb;
	int64_t dims[] = { 2 };
	float w[2] = { 1, 2 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
		    "graph input 'x' is declared twice", "input twice");

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 1, dims, w, sizeof(w));
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 1, dims, w, sizeof(w));
	mb_node(&mb, "Add", "x,w", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
		    "initializer 'w' is defined twice", "initializer twice");

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_node(&mb, "Neg", "x", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "output 'y' is already "
		    "defined", "two nodes write y");

	/* A node may not write a graph input either. */
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "x");
	mb_output(&mb, "x");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "output 'x' is already "
		    "defined", "a node writes the input");
}

/* An initializer of rank ENPU_RT_MAX_RANK loads; one more is refused. */
static void test_initializer_rank_limit(struct test_state *t)
{
	int64_t dims[ENPU_RT_MAX_RANK + 1];
	struct model_builder mb;
	float w = 2;

	for (int i = 0; i <= ENPU_RT_MAX_RANK; i++)
		dims[i] = 1;
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, ENPU_RT_MAX_RANK, dims);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, ENPU_RT_MAX_RANK, dims, &w,
		       sizeof(w));
	mb_node(&mb, "Mul", "x,w", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_OK, NULL, "rank 8 weight");
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, ENPU_RT_MAX_RANK + 1, dims, &w,
		       sizeof(w));
	mb_node(&mb, "Mul", "x,w", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_UNSUPPORTED, "initializer 'w': rank 9 "
		    "exceeds 8", "rank 9 weight");
}

/* An attribute without its type field (IR version 1). */
static Onnx__AttributeProto *untyped_attr(struct model_builder *mb,
					  Onnx__NodeProto *node,
					  const char *name)
{
	Onnx__AttributeProto *a = rt_arena_alloc(&mb->arena, sizeof(*a));
	Onnx__AttributeProto **list = rt_arena_alloc(&mb->arena,
		(node->n_attribute + 1) * sizeof(*list));

	onnx__attribute_proto__init(a);
	a->name = rt_arena_strdup(&mb->arena, name);
	if (node->n_attribute)
		memcpy(list, node->attribute,
		       node->n_attribute * sizeof(*list));
	list[node->n_attribute++] = a;
	node->attribute = list;
	return a;
}

/* Runs @mb with float inputs; checks output 0 against @want. */
static void expect_run(struct test_state *t, struct model_builder *mb,
		       size_t inputs, const int64_t *const *dims,
		       const int *ranks, const void *const *data,
		       const int32_t *dtypes, const float *want, size_t count,
		       const char *what)
{
	enpu_rt_session *s = NULL;
	struct enpu_rt_output out;
	char error[1024];

	if (mb_open(mb, 1, NULL, &s, error, sizeof(error)) != ENPU_RT_OK) {
		CHECK(t, 0, "%s: does not load: %s", what, error);
		mb_free(mb);
		return;
	}
	for (size_t i = 0; i < inputs; i++) {
		size_t n = 1;

		for (int d = 0; d < ranks[i]; d++)
			n *= (size_t)dims[i][d];
		CHECK(t, enpu_rt_session_bind_input(s, i, dtypes[i],
				(size_t)ranks[i], dims[i], data[i],
				n * enpu_rt_dtype_size(dtypes[i])) == 0,
		      "%s: bind %zu: %s", what, i, enpu_rt_session_error(s));
	}
	CHECK(t, enpu_rt_session_run(s) == 0, "%s: run: %s", what,
	      enpu_rt_session_error(s));
	if (enpu_rt_session_output(s, 0, &out) || out.dtype != ENPU_RT_FLOAT ||
	    out.byte_size != count * sizeof(float)) {
		CHECK(t, 0, "%s: no output of %zu floats", what, count);
	} else {
		for (size_t i = 0; i < count; i++)
			CHECK(t, ((const float *)out.data)[i] == want[i],
			      "%s: y[%zu] = %g, want %g", what, i,
			      ((const float *)out.data)[i], want[i]);
	}
	enpu_rt_session_destroy(s);
	mb_free(mb);
}

/*
 * If branches read the outer scope's values in different orders (then:
 * a - b, else: b - a), so each branch's outer names must map onto the
 * node's deduplicated implicit inputs one by one.
 */
static void test_if_outer_scope(struct test_state *t)
{
	static const int64_t one[] = { 1 }, two[] = { 2 };
	static const float a[2] = { 7, 1 }, b[2] = { 2, 5 };
	static const float then_want[2] = { 5, -4 }, else_want[2] = { -5, 4 };
	const int64_t *const dims[] = { one, two, two };
	const int ranks[] = { 1, 1, 1 };
	const int32_t dtypes[] = { ENPU_RT_BOOL, ENPU_RT_FLOAT, ENPU_RT_FLOAT };

	for (uint8_t c = 0; c < 2; c++) {
		const void *const data[] = { &c, a, b };
		struct model_builder mb;
		Onnx__GraphProto *g;
		Onnx__NodeProto *node;

		mb_init(&mb, 13);
		mb_input(&mb, "c", ENPU_RT_BOOL, 1, one);
		mb_input(&mb, "a", ENPU_RT_FLOAT, 1, two);
		mb_input(&mb, "b", ENPU_RT_FLOAT, 1, two);
		node = mb_node(&mb, "If", "c", "y");
		g = mb_attr_graph(&mb, node, "then_branch");
		mb_graph_node(&mb, g, "Sub", "a,b", "d");
		mb_graph_node(&mb, g, "Identity", "d", "t");
		mb_graph_output(&mb, g, "t");
		g = mb_attr_graph(&mb, node, "else_branch");
		mb_graph_node(&mb, g, "Neg", "b", "nb");
		mb_graph_node(&mb, g, "Add", "b,nb", "zero");
		mb_graph_node(&mb, g, "Sub", "b,a", "d");
		mb_graph_node(&mb, g, "Add", "d,zero", "e");
		mb_graph_output(&mb, g, "e");
		mb_output(&mb, "y");
		expect_run(t, &mb, 3, dims, ranks, data, dtypes,
			   c ? then_want : else_want, 2,
			   c ? "then_branch" : "else_branch");
	}
	/* A branch that reads no outer value beside one that does. */
	for (uint8_t c = 0; c < 2; c++) {
		static const float zeros[2] = { 0, 0 };
		static const int64_t shape[] = { 2 };
		const void *const data[] = { &c, a, b };
		struct model_builder mb;
		Onnx__GraphProto *g;
		Onnx__NodeProto *node;

		mb_init(&mb, 13);
		mb_input(&mb, "c", ENPU_RT_BOOL, 1, one);
		mb_input(&mb, "a", ENPU_RT_FLOAT, 1, two);
		mb_input(&mb, "b", ENPU_RT_FLOAT, 1, two);
		node = mb_node(&mb, "If", "c", "y");
		g = mb_attr_graph(&mb, node, "then_branch");
		mb_graph_node(&mb, g, "Sub", "a,b", "t");
		mb_graph_output(&mb, g, "t");
		g = mb_attr_graph(&mb, node, "else_branch");
		node = mb_graph_node(&mb, g, "ConstantOfShape", "s", "e");
		{
			/* s = [2] as the branch's own initializer. */
			Onnx__TensorProto *tp = rt_arena_alloc(&mb.arena,
							       sizeof(*tp));

			onnx__tensor_proto__init(tp);
			tp->name = rt_arena_strdup(&mb.arena, "s");
			tp->has_data_type = 1;
			tp->data_type = ENPU_RT_INT64;
			tp->n_dims = 1;
			tp->dims = rt_arena_alloc(&mb.arena, sizeof(int64_t));
			tp->dims[0] = 1;
			tp->n_int64_data = 1;
			tp->int64_data = (int64_t *)shape;
			g->n_initializer = 1;
			g->initializer = rt_arena_alloc(&mb.arena,
							sizeof(*g->initializer));
			g->initializer[0] = tp;
		}
		mb_graph_output(&mb, g, "e");
		{
			Onnx__AttributeProto *v = untyped_attr(&mb, node, "value");
			Onnx__TensorProto *tp = rt_arena_alloc(&mb.arena,
							       sizeof(*tp));
			static float zero = 0;

			onnx__tensor_proto__init(tp);
			tp->has_data_type = 1;
			tp->data_type = ENPU_RT_FLOAT;
			tp->n_dims = 1;
			tp->dims = rt_arena_alloc(&mb.arena, sizeof(int64_t));
			tp->dims[0] = 1;
			tp->n_float_data = 1;
			tp->float_data = &zero;
			v->has_type = 1;
			v->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
			v->t = tp;
		}
		mb_output(&mb, "y");
		expect_run(t, &mb, 3, dims, ranks, data, dtypes,
			   c ? then_want : zeros, 2,
			   c ? "then reads a, b" : "else reads nothing");
	}
}

/*
 * Scan (opset 9+) with an int attribute next to its body, the body
 * reading the outer k: state s += e, each output e * k.
 */
static void test_scan_outer_scope(struct test_state *t)
{
	static const int64_t two[] = { 2 }, seq_dims[] = { 3, 2 };
	static const float s0[2] = { 0, 0 }, seq[6] = { 1, 2, 3, 4, 5, 6 };
	static const float k[2] = { 10, 100 };
	static const float want[2] = { 9, 12 };
	const int64_t *const dims[] = { two, seq_dims, two };
	const int ranks[] = { 1, 2, 1 };
	const void *const data[] = { s0, seq, k };
	const int32_t dtypes[] = { ENPU_RT_FLOAT, ENPU_RT_FLOAT, ENPU_RT_FLOAT };
	struct model_builder mb;
	Onnx__GraphProto *g;
	Onnx__NodeProto *node;

	mb_init(&mb, 13);
	mb_input(&mb, "s0", ENPU_RT_FLOAT, 1, two);
	mb_input(&mb, "seq", ENPU_RT_FLOAT, 2, seq_dims);
	mb_input(&mb, "k", ENPU_RT_FLOAT, 1, two);
	node = mb_node(&mb, "Scan", "s0,seq", "s,outs");
	mb_attr_int(&mb, node, "num_scan_inputs", 1);
	g = mb_attr_graph(&mb, node, "body");
	mb_graph_input(&mb, g, "s_in", ENPU_RT_FLOAT, 1, two);
	mb_graph_input(&mb, g, "e", ENPU_RT_FLOAT, 1, two);
	mb_graph_node(&mb, g, "Add", "s_in,e", "s_out");
	mb_graph_node(&mb, g, "Mul", "e,k", "o");
	mb_graph_output(&mb, g, "s_out");
	mb_graph_output(&mb, g, "o");
	mb_output(&mb, "s");
	mb_output(&mb, "outs");
	expect_run(t, &mb, 3, dims, ranks, data, dtypes, want, 2, "Scan");
}

/*
 * A graph output declared as a sequence of tensors loads as a sequence
 * (and an optional one as an optional), rather than being refused with
 * the map and sparse types.
 */
static void test_sequence_output(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	static const float x[2] = { 3, 4 };
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	struct enpu_rt_tensor_info info;
	struct enpu_rt_output out;
	int32_t kind = 0, elem = 0;
	size_t count = 0;
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_node(&mb, "SequenceConstruct", "x,x", "seq");
	mb_output_typed(&mb, "seq", ENPU_RT_FLOAT, 1, two);
	{
		Onnx__ValueInfoProto *vi = mb.graph.output[0];
		Onnx__TypeProto *outer = rt_arena_alloc(&mb.arena,
							sizeof(*outer));
		Onnx__TypeProto__Sequence *sq = rt_arena_alloc(&mb.arena,
							       sizeof(*sq));

		onnx__type_proto__init(outer);
		onnx__type_proto__sequence__init(sq);
		sq->elem_type = vi->type;	/* tensor(float)[2] */
		outer->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
		outer->sequence_type = sq;
		vi->type = outer;
	}
	if (mb_open(&mb, 1, NULL, &s, error, sizeof(error)) != ENPU_RT_OK) {
		CHECK(t, 0, "a sequence output is refused: %s", error);
		mb_free(&mb);
		return;
	}
	CHECK(t, enpu_rt_session_output_info(s, 0, &info) == 0 &&
	      info.dtype == ENPU_RT_SEQUENCE, "output type %d", info.dtype);
	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 1, two, x,
					    sizeof(x)) == 0 &&
	      enpu_rt_session_run(s) == 0 &&
	      enpu_rt_session_output(s, 0, &out) == 0 &&
	      out.dtype == ENPU_RT_SEQUENCE &&
	      enpu_rt_value_info(out.data, out.byte_size, &kind, &elem,
				 &count) == 0 &&
	      kind == ENPU_RT_SEQUENCE && elem == ENPU_RT_FLOAT && count == 2,
	      "run: %s; kind %d elem %d count %zu", enpu_rt_session_error(s),
	      kind, elem, count);
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/*
 * Attributes without a type (IR version 1) take it from the field that
 * holds data: a list of floats is FLOATS (Constant value_floats), a list
 * of ints INTS; one with no data at all is refused.
 */
static void test_untyped_attributes(struct test_state *t)
{
	static const int64_t three[] = { 3 };
	static const float x[3] = { 1, 2, 3 };
	static float floats[3] = { 0.5f, -4, 8 };
	static const float want[3] = { 1.5f, -2, 11 };
	const int64_t *const dims[] = { three };
	const int ranks[] = { 1 };
	const void *const data[] = { x };
	const int32_t dtypes[] = { ENPU_RT_FLOAT };
	struct model_builder mb;
	Onnx__AttributeProto *a;
	Onnx__NodeProto *node;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, three);
	node = mb_node(&mb, "Constant", "", "c");
	a = untyped_attr(&mb, node, "value_floats");
	a->n_floats = 3;
	a->floats = floats;
	mb_node(&mb, "Add", "x,c", "y");
	mb_output(&mb, "y");
	expect_run(t, &mb, 1, dims, ranks, data, dtypes, want, 3,
		   "untyped value_floats");

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, three);
	node = mb_node(&mb, "Constant", "", "c");
	untyped_attr(&mb, node, "value_floats");
	mb_node(&mb, "Add", "x,c", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "node 'Constant' "
		    "(Constant): attribute 'value_floats': has no type and no "
		    "value", "untyped and empty");
}

/* One initializer given through a typed field, as exporters write. */
struct typed_case {
	int32_t dtype;
	int field;		/* 1 float, 2 int32, 3 int64, 4 double, 5 u64 */
	const void *values;	/* 3 values of the field's type */
	const void *want;	/* 3 elements of @dtype */
};

/*
 * Every element type from its typed TensorProto field: int32_data holds
 * the small integer types, bool and float16 (narrowed), uint64_data both
 * unsigned wide types (uint32 narrowed); the extremes of each type.
 */
static void test_typed_fields(struct test_state *t)
{
	static const int32_t i8[] = { -128, 127, -1 }, u8[] = { 0, 255, 7 };
	static const int32_t i16[] = { -32768, 32767, 5 };
	static const int32_t u16[] = { 65535, 0, 9 }, b[] = { 0, 5, 1 };
	static const int32_t f16[] = { 0x3c00, 0xc000, 0x7bff };
	static const int32_t i32[] = { INT32_MIN, INT32_MAX, -7 };
	static const int64_t i64[] = { INT64_MIN, 3, INT64_MAX };
	static const double f64[] = { 0.5, -1e300, 3 };
	static const uint64_t u32[] = { 0xffffffffu, 1, 2 };
	static const uint64_t u64[] = { UINT64_MAX, 0, 42 };
	static const float f32[] = { 1.5f, -2, 0 };
	static const int8_t i8_want[] = { -128, 127, -1 };
	static const uint8_t u8_want[] = { 0, 255, 7 }, b_want[] = { 0, 1, 1 };
	static const int16_t i16_want[] = { -32768, 32767, 5 };
	static const uint16_t u16_want[] = { 65535, 0, 9 };
	static const uint16_t f16_want[] = { 0x3c00, 0xc000, 0x7bff };
	static const uint32_t u32_want[] = { 0xffffffffu, 1, 2 };
	static const struct typed_case cases[] = {
		{ ENPU_RT_INT8, 2, i8, i8_want },
		{ ENPU_RT_UINT8, 2, u8, u8_want },
		{ ENPU_RT_INT16, 2, i16, i16_want },
		{ ENPU_RT_UINT16, 2, u16, u16_want },
		{ ENPU_RT_BOOL, 2, b, b_want },
		{ ENPU_RT_FLOAT16, 2, f16, f16_want },
		{ ENPU_RT_INT32, 2, i32, i32 },
		{ ENPU_RT_INT64, 3, i64, i64 },
		{ ENPU_RT_DOUBLE, 4, f64, f64 },
		{ ENPU_RT_UINT32, 5, u32, u32_want },
		{ ENPU_RT_UINT64, 5, u64, u64 },
		{ ENPU_RT_FLOAT, 1, f32, f32 },
	};
	static const int64_t three[] = { 3 };
	const size_t count = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i <= count; i++) {
		/* The last round: two int32 values where the dims need 3. */
		const struct typed_case *c = &cases[i < count ? i : 6];
		size_t n = i < count ? 3 : 2;
		size_t field = c->field == 2 ? 4 : c->field == 1 ? 4 : 8;
		size_t element = enpu_rt_dtype_size(c->dtype);
		struct model_builder mb;
		enpu_rt_session *s = NULL;
		struct enpu_rt_output out;
		Onnx__TensorProto *tp;
		char error[1024];
		void *copy;

		mb_init(&mb, 13);
		tp = mb_initializer(&mb, "w", c->dtype, 1, three, NULL, 0);
		tp->has_raw_data = 0;
		copy = rt_arena_alloc(&mb.arena, 3 * field);
		memcpy(copy, c->values, 3 * field);
		switch (c->field) {
		case 1: tp->n_float_data = n; tp->float_data = copy; break;
		case 2: tp->n_int32_data = n; tp->int32_data = copy; break;
		case 3: tp->n_int64_data = n; tp->int64_data = copy; break;
		case 4: tp->n_double_data = n; tp->double_data = copy; break;
		case 5: tp->n_uint64_data = n; tp->uint64_data = copy; break;
		}
		mb_node(&mb, "Identity", "w", "y");
		mb_output(&mb, "y");
		if (n == 2) {
			expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
				    "initializer 'w': holds 2 values, dims "
				    "need 3", "two values for three");
			continue;
		}
		CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
		      ENPU_RT_OK, "type %d: %s", c->dtype, error);
		CHECK(t, s && enpu_rt_session_run(s) == 0 &&
		      enpu_rt_session_output(s, 0, &out) == 0 &&
		      out.dtype == c->dtype && out.byte_size == 3 * element &&
		      !memcmp(out.data, c->want, 3 * element),
		      "type %d: the values read differ", c->dtype);
		enpu_rt_session_destroy(s);
		mb_free(&mb);
	}
}

/*
 * Float attributes keep their value, typed or (IR 1) untyped:
 * LeakyRelu's alpha 0.25 on [-4, 2] gives [-1, 2].
 */
static void test_float_attributes(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	static const float x[2] = { -4, 2 }, want[2] = { -1, 2 };
	const int64_t *const dims[] = { two };
	const int ranks[] = { 1 };
	const void *const data[] = { x };
	const int32_t dtypes[] = { ENPU_RT_FLOAT };

	for (int typed = 0; typed < 2; typed++) {
		struct model_builder mb;
		Onnx__NodeProto *node;

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
		node = mb_node(&mb, "LeakyRelu", "x", "y");
		if (typed) {
			mb_attr_float(&mb, node, "alpha", 0.25f);
		} else {
			Onnx__AttributeProto *a = untyped_attr(&mb, node,
							       "alpha");

			a->has_f = 1;
			a->f = 0.25f;
		}
		mb_output(&mb, "y");
		expect_run(t, &mb, 1, dims, ranks, data, dtypes, want, 2,
			   typed ? "typed alpha" : "untyped alpha");
	}
}

/* A Constant's tensor `value` reaches the graph: y = x + [1.5, -2]. */
static void test_tensor_attribute(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	static const float x[2] = { 1, 1 }, want[2] = { 2.5f, -1 };
	static float value[2] = { 1.5f, -2 };
	const int64_t *const dims[] = { two };
	const int ranks[] = { 1 };
	const void *const data[] = { x };
	const int32_t dtypes[] = { ENPU_RT_FLOAT };
	struct model_builder mb;
	Onnx__AttributeProto *a;
	Onnx__TensorProto *tp;
	Onnx__NodeProto *node;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	node = mb_node(&mb, "Constant", "", "c");
	a = untyped_attr(&mb, node, "value");
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	tp = rt_arena_alloc(&mb.arena, sizeof(*tp));
	onnx__tensor_proto__init(tp);
	tp->has_data_type = 1;
	tp->data_type = ENPU_RT_FLOAT;
	tp->n_dims = 1;
	tp->dims = rt_arena_alloc(&mb.arena, sizeof(int64_t));
	tp->dims[0] = 2;
	tp->n_float_data = 2;
	tp->float_data = value;
	a->t = tp;
	mb_node(&mb, "Add", "x,c", "y");
	mb_output(&mb, "y");
	expect_run(t, &mb, 1, dims, ranks, data, dtypes, want, 2,
		   "Constant value");
}

/*
 * The loader's counts from both sides: 1024 opset imports load, 1025 are
 * refused; subgraphs nest 16 deep (If in If...), 17 are refused; an
 * initializer without a name is refused.
 */
static void test_loader_counts(struct test_state *t)
{
	static const int64_t one[] = { 1 };
	struct model_builder mb;

	for (size_t count = 1024; count <= 1025; count++) {
		Onnx__OperatorSetIdProto **opsets;

		relu_model(&mb, 1);
		opsets = rt_arena_alloc(&mb.arena, count * sizeof(*opsets));
		opsets[0] = &mb.opset;
		for (size_t i = 1; i < count; i++) {
			char domain[32];

			opsets[i] = rt_arena_alloc(&mb.arena, sizeof(**opsets));
			onnx__operator_set_id_proto__init(opsets[i]);
			snprintf(domain, sizeof(domain), "org.example.d%zu", i);
			opsets[i]->domain = rt_arena_strdup(&mb.arena, domain);
			opsets[i]->has_version = 1;
			opsets[i]->version = 1;
		}
		mb.model.n_opset_import = count;
		mb.model.opset_import = opsets;
		if (count == 1024)
			expect_open(t, &mb, ENPU_RT_OK, NULL, "1024 opsets");
		else
			expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
				    "model imports 1025 opsets", "1025 opsets");
	}
	for (int levels = 16; levels <= 17; levels++) {
		Onnx__GraphProto *g;
		Onnx__NodeProto *node;

		mb_init(&mb, 13);
		mb_input(&mb, "c", ENPU_RT_BOOL, 1, one);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 1, one);
		node = mb_node(&mb, "If", "c", "y");
		mb_output(&mb, "y");
		for (int level = 1; level <= levels; level++) {
			g = mb_attr_graph(&mb, node, "else_branch");
			mb_graph_node(&mb, g, "Identity", "x", "e");
			mb_graph_output(&mb, g, "e");
			g = mb_attr_graph(&mb, node, "then_branch");
			mb_graph_output(&mb, g, "t");
			if (level == levels) {
				mb_graph_node(&mb, g, "Identity", "x", "t");
				break;
			}
			node = mb_graph_node(&mb, g, "If", "c", "t");
		}
		if (levels == 16)
			expect_open(t, &mb, ENPU_RT_OK, NULL, "16 levels");
		else
			expect_open(t, &mb, ENPU_RT_UNSUPPORTED,
				    "subgraphs nest too deep", "17 levels");
	}
	{
		float w = 1;

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 1, one);
		mb_initializer(&mb, "", ENPU_RT_FLOAT, 1, one, &w, sizeof(w));
		mb_node(&mb, "Relu", "x", "y");
		mb_output(&mb, "y");
		expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
			    "initializer 0 has no name", "unnamed initializer");
	}
}

/*
 * Two uint64 initializers of 8 values each (64 bytes, the arena's
 * alignment, so nothing pads one from the next) keep their values (a
 * copy of one element too many reads past the field: check-asan).
 */
static void test_typed_fields_back_to_back(struct test_state *t)
{
	static const int64_t eight[] = { 8 };
	static uint64_t u[2][8];
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	char error[1024];

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 8; i++)
			u[k][i] = ((uint64_t)0x0101010101010101u * (uint64_t)(k + 1)) ^
				  (uint64_t)i;
	mb_init(&mb, 13);
	for (int k = 0; k < 2; k++) {
		Onnx__TensorProto *tp = mb_initializer(&mb, k ? "v" : "u",
						       ENPU_RT_UINT64, 1,
						       eight, NULL, 0);

		tp->has_raw_data = 0;
		tp->n_uint64_data = 8;
		tp->uint64_data = u[k];
	}
	mb_node(&mb, "Identity", "u", "y");
	mb_node(&mb, "Identity", "v", "z");
	mb_output(&mb, "y");
	mb_output(&mb, "z");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) == ENPU_RT_OK,
	      "%s", error);
	for (size_t o = 0; s && o < 2; o++) {
		struct enpu_rt_output out;

		CHECK(t, (o || enpu_rt_session_run(s) == 0) &&
		      enpu_rt_session_output(s, o, &out) == 0 &&
		      out.byte_size == sizeof(u[o]) &&
		      !memcmp(out.data, u[o], sizeof(u[o])),
		      "output %zu: the values read differ", o);
	}
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/* Untyped value_ints (IR 1) is an INTS attribute: Constant gives int64. */
static void test_untyped_ints(struct test_state *t)
{
	static int64_t ints[3] = { 7, -2, INT64_MAX };
	struct model_builder mb;
	Onnx__AttributeProto *a;
	Onnx__NodeProto *node;
	enpu_rt_session *s = NULL;
	struct enpu_rt_output out;
	char error[1024];

	mb_init(&mb, 13);
	node = mb_node(&mb, "Constant", "", "c");
	a = untyped_attr(&mb, node, "value_ints");
	a->n_ints = 3;
	a->ints = ints;
	mb_output(&mb, "c");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) == ENPU_RT_OK,
	      "untyped value_ints: %s", error);
	CHECK(t, s && enpu_rt_session_run(s) == 0 &&
	      enpu_rt_session_output(s, 0, &out) == 0 &&
	      out.dtype == ENPU_RT_INT64 && out.byte_size == sizeof(ints) &&
	      !memcmp(out.data, ints, sizeof(ints)),
	      "untyped value_ints: not the three int64 values");
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/* An Optional output keeps its declared kind (the packed value). */
static void test_optional_output(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	struct enpu_rt_tensor_info info;
	char error[1024];

	mb_init(&mb, 18);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_node(&mb, "Optional", "x", "o");
	mb_output_typed(&mb, "o", ENPU_RT_FLOAT, 1, two);
	{
		Onnx__ValueInfoProto *vi = mb.graph.output[0];
		Onnx__TypeProto *outer = rt_arena_alloc(&mb.arena,
							sizeof(*outer));
		Onnx__TypeProto__Optional *op = rt_arena_alloc(&mb.arena,
							       sizeof(*op));

		onnx__type_proto__init(outer);
		onnx__type_proto__optional__init(op);
		op->elem_type = vi->type;
		outer->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
		outer->optional_type = op;
		vi->type = outer;
	}
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) == ENPU_RT_OK,
	      "an optional output is refused: %s", error);
	CHECK(t, s && enpu_rt_session_output_info(s, 0, &info) == 0 &&
	      info.dtype == ENPU_RT_OPTIONAL, "output type %d",
	      s ? info.dtype : -1);
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/* "x,x,...": @n names. */
static char *repeat_names(struct model_builder *mb, const char *name,
			  size_t n)
{
	size_t len = strlen(name) + 1;
	char *list = rt_arena_alloc(&mb->arena, n * len + 1);

	for (size_t i = 0; list && i < n; i++) {
		memcpy(list + i * len, name, len - 1);
		list[i * len + len - 1] = i + 1 < n ? ',' : '\0';
	}
	return list;
}

/*
 * A node holds at most RT_ONNX_MAX_NODE_FIELDS inputs, outputs and
 * attributes each: a Sum of that many inputs loads, one more is refused,
 * as are that many + 1 outputs or attributes.
 */
static void test_node_field_limits(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	const size_t max = RT_ONNX_MAX_NODE_FIELDS;
	struct model_builder mb;
	Onnx__NodeProto *node;

	for (size_t n = max; n <= max + 1; n++) {
		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
		mb_node(&mb, "Sum", repeat_names(&mb, "x", n), "y");
		mb_output(&mb, "y");
		expect_open(t, &mb, n == max ? ENPU_RT_OK : ENPU_RT_INVALID_MODEL,
			    "node 'Sum' (Sum): too many inputs, outputs or "
			    "attributes", n == max ? "the most inputs" :
			    "one input more");
	}
	/*
	 * Outputs and attributes: at the limit another rule may refuse the
	 * node (every output is named y, every attribute a), not this one.
	 */
	for (size_t n = max; n <= max + 1; n++) {
		for (int attributes = 0; attributes < 2; attributes++) {
			const char *op = attributes ? "Relu" : "Identity";
			enpu_rt_session *s = NULL;
			char error[1024] = "";
			char want[80];
			enum enpu_rt_status got;

			mb_init(&mb, 13);
			mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
			node = mb_node(&mb, op, "x", "y");
			if (attributes) {
				node->n_attribute = n;
				node->attribute = rt_arena_alloc(&mb.arena,
					n * sizeof(*node->attribute));
			} else {
				node->n_output = n;
				node->output = rt_arena_alloc(&mb.arena,
					n * sizeof(char *));
			}
			for (size_t i = 0; i < n; i++) {
				Onnx__AttributeProto *a;

				if (!attributes) {
					node->output[i] = rt_arena_strdup(
						&mb.arena, "y");
					continue;
				}
				a = rt_arena_alloc(&mb.arena, sizeof(*a));
				onnx__attribute_proto__init(a);
				a->name = rt_arena_strdup(&mb.arena, "a");
				a->has_type = 1;
				a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
				a->has_i = 1;
				node->attribute[i] = a;
			}
			mb_output(&mb, "y");
			snprintf(want, sizeof(want), "node '%s' (%s): too many "
				 "inputs, outputs or attributes", op, op);
			got = mb_open(&mb, 1, NULL, &s, error, sizeof(error));
			if (n == max)
				CHECK(t, !strstr(error, "too many"),
				      "%zu %s: %s", n, attributes ?
				      "attributes" : "outputs", error);
			else
				CHECK(t, got == ENPU_RT_INVALID_MODEL &&
				      strstr(error, want), "%zu %s: %d %s", n,
				      attributes ? "attributes" : "outputs",
				      got, error);
			enpu_rt_session_destroy(s);
			mb_free(&mb);
		}
	}
}

/* A node's domain must be imported; model-local functions are refused. */
static void test_domains_and_functions(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	struct model_builder mb;
	Onnx__NodeProto *node;
	Onnx__FunctionProto *f;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	node = mb_node(&mb, "Relu", "x", "y");
	mb_node_domain(&mb, node, "com.example");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "node 'Relu' (Relu): domain "
		    "'com.example' is not imported by the model",
		    "domain not imported");

	relu_model(&mb, 1);
	f = rt_arena_alloc(&mb.arena, sizeof(*f));
	onnx__function_proto__init(f);
	f->name = rt_arena_strdup(&mb.arena, "f");
	f->domain = rt_arena_strdup(&mb.arena, "local");
	mb.model.n_functions = 1;
	mb.model.functions = rt_arena_alloc(&mb.arena, sizeof(f));
	mb.model.functions[0] = f;
	expect_open(t, &mb, ENPU_RT_UNSUPPORTED, "model-local functions are "
		    "not supported", "a model-local function");
}

/*
 * rt_onnx_parse_tensor(), the reader of the ONNX suite's .pb files (and
 * of calibration samples): name, type, dims and data of a packed
 * TensorProto; bytes that are no TensorProto are refused.
 */
static void test_parse_tensor(struct test_state *t)
{
	static const float values[3] = { 1.5f, -2, 8 };
	static int64_t dims[2] = { 3, 1 };
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
	Onnx__TensorProto tp;
	struct rt_arena arena = { 0 };
	struct rt_error_sink errors = { 0 };
	struct rt_tensor tensor = { 0 };
	uint8_t bytes[256];
	size_t size;
	int status;

	onnx__tensor_proto__init(&tp);
	tp.name = "sample";
	tp.has_data_type = 1;
	tp.data_type = ENPU_RT_FLOAT;
	tp.n_dims = 2;
	tp.dims = dims;
	tp.has_raw_data = 1;
	tp.raw_data.len = sizeof(values);
	tp.raw_data.data = (uint8_t *)values;
	size = onnx__tensor_proto__get_packed_size(&tp);
	if (size > sizeof(bytes)) {
		CHECK(t, 0, "packed size %zu", size);
		return;
	}
	onnx__tensor_proto__pack(&tp, bytes);
	status = rt_onnx_parse_tensor(bytes, size, &arena, &tensor, &errors);
	CHECK(t, status == 0, "parse: %d %s", status, errors.message);
	CHECK(t, status == 0 && tensor.name && !strcmp(tensor.name, "sample") &&
	      tensor.dtype == ENPU_RT_FLOAT && tensor.rank == 2 &&
	      tensor.dims[0] == 3 && tensor.dims[1] == 1 &&
	      tensor.byte_size == sizeof(values) && tensor.data &&
	      !memcmp(tensor.data, values, sizeof(values)),
	      "parsed tensor differs (rank %d, %zu bytes)", tensor.rank,
	      tensor.byte_size);
	status = rt_onnx_parse_tensor(junk, sizeof(junk), &arena, &tensor,
				      &errors);
	CHECK(t, status == ENPU_RT_INVALID_MODEL &&
	      strstr(errors.message, "not a valid TensorProto (5 bytes)"),
	      "junk: %d %s", status, errors.message);
	rt_arena_free_all(&arena);
}

/* A map-typed graph output is refused, naming the output. */
static void test_map_output(struct test_state *t)
{
	static const int64_t two[] = { 2 };
	struct model_builder mb;
	Onnx__ValueInfoProto *vi;
	Onnx__TypeProto *outer;
	Onnx__TypeProto__Map *map;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, two);
	mb_node(&mb, "Relu", "x", "y");
	mb_output_typed(&mb, "y", ENPU_RT_FLOAT, 1, two);
	vi = mb.graph.output[0];
	outer = rt_arena_alloc(&mb.arena, sizeof(*outer));
	map = rt_arena_alloc(&mb.arena, sizeof(*map));
	onnx__type_proto__init(outer);
	onnx__type_proto__map__init(map);
	map->has_key_type = 1;
	map->key_type = ENPU_RT_INT64;
	map->value_type = vi->type;
	outer->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
	outer->map_type = map;
	vi->type = outer;
	expect_open(t, &mb, ENPU_RT_UNSUPPORTED, "graph output 'y': map and "
		    "sparse tensor types are not supported", "a map output");
}

const struct test_case loader_tests[] = {
	{ "loader_rank_limit", test_rank_limit },
	{ "loader_opset_imports", test_opset_imports },
	{ "loader_graph_without_outputs", test_graph_without_outputs },
	{ "loader_duplicate_names", test_duplicate_names },
	{ "loader_initializer_rank_limit", test_initializer_rank_limit },
	{ "loader_if_outer_scope", test_if_outer_scope },
	{ "loader_scan_outer_scope", test_scan_outer_scope },
	{ "loader_sequence_output", test_sequence_output },
	{ "loader_untyped_attributes", test_untyped_attributes },
	{ "loader_typed_fields", test_typed_fields },
	{ "loader_typed_fields_back_to_back", test_typed_fields_back_to_back },
	{ "loader_float_attributes", test_float_attributes },
	{ "loader_tensor_attribute", test_tensor_attribute },
	{ "loader_counts", test_loader_counts },
	{ "loader_untyped_ints", test_untyped_ints },
	{ "loader_optional_output", test_optional_output },
	{ "loader_map_output", test_map_output },
	{ "loader_node_field_limits", test_node_field_limits },
	{ "loader_domains_and_functions", test_domains_and_functions },
	{ "loader_parse_tensor", test_parse_tensor },
	{ NULL, NULL },
};
