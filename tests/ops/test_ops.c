// SPDX-License-Identifier: MIT
/*
 * Op semantics beyond the ONNX node suite and regression tests of op
 * bugs, on models built in memory (tests/rt/model_builder.h), each run
 * with the graph optimizations on and off.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "model_builder.h"
#include "rt_open.h"

/*
 * Runs a one-input float model with the optimizations on (pass 0) and off
 * (pass 1) into out[pass]; returns the optimized session's node count.
 */
static size_t run_float(struct test_state *t, struct model_builder *mb,
			const int64_t *dims, int rank, const float *x,
			size_t count, float *out[2], size_t out_count)
{
	size_t nodes = 0;

	for (int pass = 0; pass < 2; pass++) {
		enpu_rt_session *s = NULL;
		struct enpu_rt_output o;
		char error[4096];

		CHECK(t, mb_open(mb, !pass, NULL, &s, error, sizeof(error)) == 0,
		      "%s", error);
		if (!s)
			continue;
		if (!pass)
			nodes = enpu_rt_session_node_count(s);
		CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT,
						    (size_t)rank, dims, x,
						    count * sizeof(float)) == 0,
		      "bind: %s", enpu_rt_session_error(s));
		CHECK(t, enpu_rt_session_run(s) == 0, "run: %s",
		      enpu_rt_session_error(s));
		if (!enpu_rt_session_output(s, 0, &o) &&
		    o.byte_size == out_count * sizeof(float))
			memcpy(out[pass], o.data, o.byte_size);
		else
			CHECK(t, 0, "output missing or of the wrong size");
		enpu_rt_session_destroy(s);
	}
	return nodes;
}

/* Regression (issue 11): Relu turned NaN into 0; ONNX and ORT keep it. */
static void test_relu_keeps_nan(struct test_state *t)
{
	struct model_builder mb;
	const int64_t dims[] = { 6 };
	const float x[6] = { -1.0f, NAN, 2.5f, -NAN, -INFINITY, 0.0f };
	float a[6], b[6], *out[2] = { a, b };

	mb_init(&mb, 14);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	run_float(t, &mb, dims, 1, x, 6, out, 6);
	for (int pass = 0; pass < 2; pass++) {
		CHECK(t, isnan(out[pass][1]) && isnan(out[pass][3]),
		      "pass %d: Relu(NaN) = %g, %g", pass, out[pass][1],
		      out[pass][3]);
		CHECK(t, out[pass][0] == 0 && out[pass][2] == 2.5f &&
		      out[pass][4] == 0 && out[pass][5] == 0,
		      "pass %d: %g %g %g %g", pass, out[pass][0], out[pass][2],
		      out[pass][4], out[pass][5]);
	}
	mb_free(&mb);
}

/*
 * The same through a Relu the optimizer fuses into MatMul (+ bias), Gemm
 * and Conv: a NaN in x reaches every output that reads it.
 */
static void test_fused_relu_keeps_nan(struct test_state *t)
{
	static const char *const producers[] = { "MatMul", "Gemm", "Conv" };

	for (int p = 0; p < 3; p++) {
		struct model_builder mb;
		const int64_t xd2[] = { 2, 3 }, wd2[] = { 3, 2 }, bd[] = { 2 };
		const int64_t xd4[] = { 1, 1, 2, 3 }, wd4[] = { 2, 1, 1, 1 };
		const int conv = p == 2;
		float x[6] = { 1, NAN, 3, -4, -5, -6 }, w[6] = { 1, -1, 1,
			-1, 1, -1 }, bias[2] = { 0.5f, -0.5f };
		float a[12], b[12], *out[2] = { a, b };
		size_t nodes;

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, conv ? 4 : 2,
			 conv ? xd4 : xd2);
		mb_initializer(&mb, "w", ENPU_RT_FLOAT, conv ? 4 : 2,
			       conv ? wd4 : wd2, w,
			       (conv ? 2 : 6) * sizeof(float));
		mb_initializer(&mb, "b", ENPU_RT_FLOAT, 1, bd, bias,
			       sizeof(bias));
		if (p == 0) {
			mb_node(&mb, "MatMul", "x,w", "m");
			mb_node(&mb, "Add", "m,b", "a");
		} else {
			mb_node(&mb, producers[p], "x,w,b", "a");
		}
		mb_node(&mb, "Relu", "a", "y");
		mb_output(&mb, "y");
		nodes = run_float(t, &mb, conv ? xd4 : xd2, conv ? 4 : 2, x, 6,
				  out, conv ? 12 : 4);
		CHECK(t, nodes == 1, "%s: Relu not fused (%zu nodes)",
		      producers[p], nodes);
		for (int pass = 0; pass < 2; pass++) {
			if (conv) {
				/* Channel c, pixel 1 reads the NaN. */
				CHECK(t, isnan(out[pass][1]) && isnan(out[pass][7]),
				      "Conv pass %d: %g %g", pass, out[pass][1],
				      out[pass][7]);
				CHECK(t, out[pass][0] == 1.5f &&
				      out[pass][3] == 0 && out[pass][6] == 0,
				      "Conv pass %d: %g %g %g", pass,
				      out[pass][0], out[pass][3], out[pass][6]);
			} else {
				/* Row 0 reads the NaN; row 1: -14.5, 14.5. */
				CHECK(t, isnan(out[pass][0]) && isnan(out[pass][1]),
				      "%s pass %d: %g %g", producers[p], pass,
				      out[pass][0], out[pass][1]);
				CHECK(t, out[pass][2] == 0 && out[pass][3] == 14.5f,
				      "%s pass %d: %g %g", producers[p], pass,
				      out[pass][2], out[pass][3]);
			}
		}
		mb_free(&mb);
	}
}

/*
 * A model with several unsupported ops names every one of them, node and
 * op, in one error, grouped by op; an op known at other opsets says so.
 */
static void test_unsupported_ops_listed_together(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	const int64_t dims[] = { 4 };
	char error[4096];
	Onnx__NodeProto *n;

	mb_init(&mb, 13);
	mb_import(&mb, "ai.example", 2);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	n = mb_node(&mb, "Frobnicate", "x", "a");
	mb_node_name(&mb, n, "first");
	n = mb_node(&mb, "Relu", "a", "b");
	n = mb_node(&mb, "Twiddle", "b", "c");
	mb_node_name(&mb, n, "second");
	n = mb_node(&mb, "Frobnicate", "c", "d");
	mb_node_name(&mb, n, "third");
	n = mb_node(&mb, "Widget", "d", "y");
	mb_node_name(&mb, n, "fourth");
	mb_node_domain(&mb, n, "ai.example");
	mb_output(&mb, "y");
	for (int optimize = 1; optimize >= 0; optimize--) {
		CHECK(t, mb_open(&mb, optimize, NULL, &s, error, sizeof(error)) ==
		      ENPU_RT_UNSUPPORTED, "accepted");
		CHECK(t, strstr(error, "4 nodes use unsupported ops") &&
		      strstr(error, "unsupported op Frobnicate in node "
			     "'first', 'third'") &&
		      strstr(error, "unsupported op Twiddle in node 'second'") &&
		      strstr(error, "unsupported op ai.example.Widget in node "
			     "'fourth'") && !strstr(error, "'#1'"),
		      "optimize %d: %s", optimize, error);
	}
	mb_free(&mb);

	/* HardSwish exists from opset 14: at 13 the message says so. */
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	n = mb_node(&mb, "HardSwish", "x", "y");
	mb_node_name(&mb, n, "hs");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_UNSUPPORTED, "accepted");
	CHECK(t, strstr(error, "1 node uses unsupported ops: unsupported op "
			"HardSwish at opset 13 of domain '' in node 'hs'"),
	      "%s", error);
	mb_free(&mb);
}

/* Hundreds of unsupported nodes: the message ends in "..." within bounds. */
static void test_unsupported_report_truncates(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	const int64_t dims[] = { 4 };
	char error[4096], prev[16] = "x", next[16], name[48];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	for (int i = 0; i < 400; i++) {
		Onnx__NodeProto *n;

		snprintf(next, sizeof(next), "v%d", i % 1000);
		snprintf(name, sizeof(name), "a_rather_long_node_name_%d", i % 1000);
		char io[40];

		snprintf(io, sizeof(io), "%s", prev);
		n = mb_node(&mb, "Frobnicate", io, next);
		mb_node_name(&mb, n, name);
		memcpy(prev, next, sizeof(prev));
	}
	mb_output(&mb, prev);
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_UNSUPPORTED, "accepted");
	CHECK(t, strstr(error, "400 nodes use unsupported ops: unsupported op "
			"Frobnicate in node 'a_rather_long_node_name_0', ") &&
	      strlen(error) < 4096 && !strcmp(error + strlen(error) - 3, "..."),
	      "%zu: %.200s", strlen(error), error);
	mb_free(&mb);
}

/* Makes @body the graph of @node's new attribute @name. */
static void attach_graph(struct model_builder *mb, Onnx__NodeProto *node,
			 const char *name, struct model_builder *body)
{
	mb_attr_graph(mb, node, name);
	node->attribute[node->n_attribute - 1]->g = &body->graph;
}

/*
 * Control flow with outer-scope values two levels deep: a Loop whose
 * body runs an If whose branches read the body's carried value and the
 * model's inputs. acc = 0; for i in 0..2: acc = i < 2 ? acc + x : acc - y.
 */
static void test_loop_if_outer_scope(struct test_state *t)
{
	struct model_builder mb, body, then_b, else_b;
	const int64_t four[] = { 4 };
	const int64_t trips = 3, two = 2;
	const uint8_t yes = 1;
	const float zeros[4] = { 0 };
	Onnx__NodeProto *n;

	mb_init(&mb, 13);
	mb_init(&body, 13);
	mb_init(&then_b, 13);
	mb_init(&else_b, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, four);
	mb_input(&mb, "y", ENPU_RT_FLOAT, 1, four);
	mb_initializer(&mb, "M", ENPU_RT_INT64, 0, NULL, &trips, 8);
	mb_initializer(&mb, "go", ENPU_RT_BOOL, 0, NULL, &yes, 1);
	mb_initializer(&mb, "acc0", ENPU_RT_FLOAT, 1, four, zeros, 16);
	n = mb_node(&mb, "Loop", "M,go,acc0", "acc");
	attach_graph(&mb, n, "body", &body);
	mb_output(&mb, "acc");

	mb_input(&body, "i", ENPU_RT_INT64, 0, NULL);
	mb_input(&body, "cond_in", ENPU_RT_BOOL, 0, NULL);
	mb_input(&body, "acc_in", ENPU_RT_FLOAT, 1, four);
	mb_initializer(&body, "two", ENPU_RT_INT64, 0, NULL, &two, 8);
	mb_node(&body, "Less", "i,two", "early");
	n = mb_node(&body, "If", "early", "acc_out");
	attach_graph(&body, n, "then_branch", &then_b);
	attach_graph(&body, n, "else_branch", &else_b);
	mb_node(&body, "Identity", "cond_in", "cond_out");
	mb_output(&body, "cond_out");
	mb_output(&body, "acc_out");

	mb_node(&then_b, "Add", "acc_in,x", "sum");
	mb_output(&then_b, "sum");
	mb_node(&else_b, "Sub", "acc_in,y", "difference");
	mb_output(&else_b, "difference");

	for (int optimize = 1; optimize >= 0; optimize--) {
		enpu_rt_session *s = NULL;
		char error[4096];

		CHECK(t, mb_open(&mb, optimize, NULL, &s, error, sizeof(error)) ==
		      0, "%s", error);
		for (int round = 0; s && round < 2; round++) {
			const float x[4] = { 1, 2, 3, 4 };
			const float y[4] = { 10, 20, 30, 40 + round };
			struct enpu_rt_output o;

			CHECK(t, !enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT,
							     1, four, x, 16) &&
			      !enpu_rt_session_bind_input(s, 1, ENPU_RT_FLOAT,
							  1, four, y, 16),
			      "bind: %s", enpu_rt_session_error(s));
			CHECK(t, enpu_rt_session_run(s) == 0, "run: %s",
			      enpu_rt_session_error(s));
			if (enpu_rt_session_output(s, 0, &o) ||
			    o.byte_size != 16) {
				CHECK(t, 0, "output missing");
				continue;
			}
			for (int i = 0; i < 4; i++)
				CHECK(t, ((const float *)o.data)[i] ==
				      2 * x[i] - y[i], "optimize %d round %d: "
				      "acc[%d] = %g, want %g", optimize, round,
				      i, ((const float *)o.data)[i],
				      2 * x[i] - y[i]);
		}
		enpu_rt_session_destroy(s);
	}
	mb_free(&then_b);
	mb_free(&else_b);
	mb_free(&body);
	mb_free(&mb);
}

/* A body with unsupported ops names them all; a missing outer name fails. */
static void test_subgraph_errors(struct test_state *t)
{
	struct model_builder mb, then_b, else_b;
	const int64_t one[] = { 1 };
	enpu_rt_session *s = NULL;
	char error[4096];
	Onnx__NodeProto *n;

	mb_init(&mb, 13);
	mb_init(&then_b, 13);
	mb_init(&else_b, 13);
	mb_input(&mb, "c", ENPU_RT_BOOL, 1, one);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, one);
	n = mb_node(&mb, "If", "c", "y");
	attach_graph(&mb, n, "then_branch", &then_b);
	attach_graph(&mb, n, "else_branch", &else_b);
	mb_output(&mb, "y");
	n = mb_node(&then_b, "Frobnicate", "x", "a");
	mb_node_name(&then_b, n, "f1");
	n = mb_node(&then_b, "Twiddle", "a", "b");
	mb_node_name(&then_b, n, "t1");
	mb_output(&then_b, "b");
	mb_node(&else_b, "Neg", "x", "z");
	mb_output(&else_b, "z");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_UNSUPPORTED, "accepted");
	CHECK(t, strstr(error, "Frobnicate in node 'f1'") &&
	      strstr(error, "Twiddle in node 't1'"), "%s", error);
	enpu_rt_session_destroy(s);
	s = NULL;

	/* The else branch reads a name no scope defines. */
	else_b.graph.node[0]->input[0] = (char *)"nowhere";
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_INVALID_MODEL, "accepted");
	CHECK(t, strstr(error, "'nowhere', which no scope defines"), "%s",
	      error);
	enpu_rt_session_destroy(s);
	mb_free(&then_b);
	mb_free(&else_b);
	mb_free(&mb);
}

/* Packed sequence values: a round trip, and malformed buffers refused. */
static void test_packed_values(struct test_state *t)
{
	const float a[3] = { 1, 2, 3 };
	const int32_t b[2] = { 7, 8 };
	struct enpu_rt_value_item items[2] = {
		{ .dtype = ENPU_RT_FLOAT, .rank = 1, .dims = { 3 }, .data = a,
		  .byte_size = sizeof(a) },
		{ .dtype = ENPU_RT_INT32, .rank = 2, .dims = { 1, 2 },
		  .data = b, .byte_size = sizeof(b) },
	};
	struct enpu_rt_value_item got;
	size_t size = enpu_rt_value_size(2, items), count;
	uint8_t *buf = calloc(1, size), *bad = calloc(1, size);
	int32_t kind, elem;

	if (!buf || !bad) {
		CHECK(t, 0, "out of memory");
		free(buf);
		free(bad);
		return;
	}
	CHECK(t, !enpu_rt_value_pack(ENPU_RT_SEQUENCE, ENPU_RT_FLOAT, 2, items,
				     buf, size), "pack");
	CHECK(t, !enpu_rt_value_info(buf, size, &kind, &elem, &count) &&
	      kind == ENPU_RT_SEQUENCE && elem == ENPU_RT_FLOAT && count == 2,
	      "info");
	CHECK(t, !enpu_rt_value_item(buf, size, 1, &got) &&
	      got.dtype == ENPU_RT_INT32 && got.rank == 2 &&
	      got.dims[1] == 2 && got.byte_size == 8 &&
	      !memcmp(got.data, b, 8), "item 1");
	CHECK(t, enpu_rt_value_item(buf, size, 2, &got) ==
	      ENPU_RT_INVALID_ARGUMENT, "item 2 of 2");
	CHECK(t, enpu_rt_value_pack(ENPU_RT_SEQUENCE, 0, 2, items, buf,
				    size - 1) == ENPU_RT_INVALID_ARGUMENT,
	      "packed into too small a buffer");
	CHECK(t, enpu_rt_value_pack(ENPU_RT_OPTIONAL, 0, 2, items, buf,
				    size) == ENPU_RT_INVALID_ARGUMENT,
	      "an optional of two");
	CHECK(t, enpu_rt_value_info(buf, 8, NULL, NULL, NULL) ==
	      ENPU_RT_INVALID_ARGUMENT, "truncated header");
	memcpy(bad, buf, size);
	bad[0] ^= 1;
	CHECK(t, enpu_rt_value_info(bad, size, NULL, NULL, NULL) ==
	      ENPU_RT_INVALID_ARGUMENT, "bad magic");
	/* Entry 0's byte count beyond the buffer; then a wrong one. */
	memcpy(bad, buf, size);
	memset(bad + 16 + 80, 0xff, 8);
	CHECK(t, enpu_rt_value_item(bad, size, 0, &got) ==
	      ENPU_RT_INVALID_ARGUMENT, "item beyond the buffer");
	memcpy(bad, buf, size);
	bad[16 + 80] = 4;
	CHECK(t, enpu_rt_value_item(bad, size, 0, &got) ==
	      ENPU_RT_INVALID_ARGUMENT, "byte count not the shape's");
	CHECK(t, enpu_rt_value_item(buf, size - 64, 1, &got) ==
	      ENPU_RT_INVALID_ARGUMENT, "payload cut off");
	free(buf);
	free(bad);
}

int main(void)
{
	static const struct test_case tests[] = {
		{ "relu_keeps_nan", test_relu_keeps_nan },
		{ "fused_relu_keeps_nan", test_fused_relu_keeps_nan },
		{ "unsupported_ops_listed_together",
		  test_unsupported_ops_listed_together },
		{ "unsupported_report_truncates",
		  test_unsupported_report_truncates },
		{ "loop_if_outer_scope", test_loop_if_outer_scope },
		{ "subgraph_errors", test_subgraph_errors },
		{ "packed_values", test_packed_values },
	};
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		test_run(&tests[i], &passed, &failed);
	printf("test-ops: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
