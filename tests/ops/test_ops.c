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
#include "enpu_cpu.h"
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

/*
 * ConvTranspose against a double-precision reference written here from
 * the ONNX definition, on every ISA path this host runs, at 1 and 2
 * threads. The cases sit on both sides of the tiling path's rule (kernel
 * == stride, no padding, dilation or output_padding: each output element
 * takes one tap) and cover its three column strides (1, 2, other).
 */
struct convt_case {
	const char *name;
	int axes, group, bias, relu;
	int64_t in[3], kernel[3], stride[3], dilation[3], pads[6], out_pad[3];
};

static void convt_reference(const struct convt_case *c, int64_t batch,
			    int64_t cin, int64_t cout, const int64_t *out,
			    const float *x, const float *w, const float *bias,
			    double *y)
{
	int64_t in[3] = { 1, 1, 1 }, kn[3] = { 1, 1, 1 }, st[3] = { 1, 1, 1 };
	int64_t dl[3] = { 1, 1, 1 }, pb[3] = { 0, 0, 0 }, o[3] = { 1, 1, 1 };
	int64_t cg = cin / c->group, mg = cout / c->group;
	size_t ov, iv, kv;

	for (int a = 0; a < c->axes; a++) {
		int j = 3 - c->axes + a;

		in[j] = c->in[a];
		kn[j] = c->kernel[a];
		st[j] = c->stride[a];
		dl[j] = c->dilation[a];
		pb[j] = c->pads[a];
		o[j] = out[a];
	}
	ov = (size_t)(o[0] * o[1] * o[2]);
	iv = (size_t)(in[0] * in[1] * in[2]);
	kv = (size_t)(kn[0] * kn[1] * kn[2]);
	for (int64_t n = 0; n < batch; n++)
	for (int64_t m = 0; m < cout; m++)
		for (size_t e = 0; e < ov; e++)
			y[(size_t)(n * cout + m) * ov + e] = bias ? bias[m] : 0;
	for (int64_t n = 0; n < batch; n++)
	for (int64_t ic = 0; ic < cin; ic++)
	for (int64_t oc = 0; oc < mg; oc++)
	for (int64_t i0 = 0; i0 < in[0]; i0++)
	for (int64_t i1 = 0; i1 < in[1]; i1++)
	for (int64_t i2 = 0; i2 < in[2]; i2++)
	for (int64_t q0 = 0; q0 < kn[0]; q0++)
	for (int64_t q1 = 0; q1 < kn[1]; q1++)
	for (int64_t q2 = 0; q2 < kn[2]; q2++) {
		int64_t p0 = i0 * st[0] + q0 * dl[0] - pb[0];
		int64_t p1 = i1 * st[1] + q1 * dl[1] - pb[1];
		int64_t p2 = i2 * st[2] + q2 * dl[2] - pb[2];
		int64_t m = (ic / cg) * mg + oc;

		if (p0 < 0 || p0 >= o[0] || p1 < 0 || p1 >= o[1] || p2 < 0 ||
		    p2 >= o[2])
			continue;
		y[(size_t)(n * cout + m) * ov +
		  (size_t)((p0 * o[1] + p1) * o[2] + p2)] +=
			(double)x[(size_t)(n * cin + ic) * iv +
				  (size_t)((i0 * in[1] + i1) * in[2] + i2)] *
			w[(size_t)(ic * mg + oc) * kv +
			  (size_t)((q0 * kn[1] + q1) * kn[2] + q2)];
	}
	if (c->relu)
		for (size_t e = 0; e < (size_t)(batch * cout) * ov; e++)
			y[e] = y[e] < 0 ? 0 : y[e];
}

static void test_conv_transpose_reference(struct test_state *t)
{
	static const struct convt_case cases[] = {
		/* Tiling: 2x2/2 (U-Net's), column stride 2. */
		{ "2x2/2", 2, 1, 1, 0, { 5, 7 }, { 2, 2 }, { 2, 2 }, { 1, 1 },
		  { 0 }, { 0 } },
		/* Tiling, column stride 3, grouped, fused Relu. */
		{ "2x3/2x3 group 2 relu", 2, 2, 1, 1, { 4, 6 }, { 2, 3 },
		  { 2, 3 }, { 1, 1 }, { 0 }, { 0 } },
		/* Tiling, column stride 1. */
		{ "1x1/1", 2, 1, 1, 0, { 3, 5 }, { 1, 1 }, { 1, 1 }, { 1, 1 },
		  { 0 }, { 0 } },
		{ "1-D 2/2", 1, 1, 1, 0, { 9 }, { 2 }, { 2 }, { 1 }, { 0 },
		  { 0 } },
		{ "3-D 2x2x2/2", 3, 1, 1, 1, { 3, 4, 5 }, { 2, 2, 2 },
		  { 2, 2, 2 }, { 1, 1, 1 }, { 0 }, { 0 } },
		/* Not tiling: overlapping taps (kernel > stride). */
		{ "3x3/2", 2, 1, 1, 0, { 5, 7 }, { 3, 3 }, { 2, 2 }, { 1, 1 },
		  { 0 }, { 0 } },
		/* Not tiling: gaps only the bias fills (kernel < stride). */
		{ "2x2/3", 2, 1, 1, 0, { 4, 5 }, { 2, 2 }, { 3, 3 }, { 1, 1 },
		  { 0 }, { 0 } },
		/* Not tiling: padding, output_padding, dilation. */
		{ "2x2/2 pads", 2, 1, 1, 0, { 5, 7 }, { 2, 2 }, { 2, 2 },
		  { 1, 1 }, { 1, 0, 0, 1 }, { 0 } },
		{ "2x2/2 output_padding", 2, 1, 1, 0, { 5, 7 }, { 2, 2 },
		  { 2, 2 }, { 1, 1 }, { 0 }, { 1, 1 } },
		/* Begin padding the output_padding makes up for. */
		{ "2x2/2 pad 1 output_padding 1", 2, 1, 1, 0, { 5, 7 },
		  { 2, 2 }, { 2, 2 }, { 1, 1 }, { 1, 0, 0, 0 }, { 1, 0 } },
		{ "2x2/2 dilation 2", 2, 1, 0, 0, { 5, 7 }, { 2, 2 }, { 2, 2 },
		  { 2, 2 }, { 0 }, { 0 } },
	};
	static const char *const isas[] = {
		"scalar", "avx2", "avx512vnni", "neon", "neondot", "neoni8mm",
	};
	const int64_t batch = 2, cin = 6, cout = 4;

	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct convt_case *c = &cases[ci];
		int64_t xd[5] = { batch, cin }, wd[5] = { cin, cout / c->group };
		int64_t yd[5] = { batch, cout }, bd[1] = { cout };
		size_t xn = (size_t)(batch * cin), wn = (size_t)cin *
			    (size_t)(cout / c->group), yn = (size_t)(batch * cout);
		struct model_builder mb;
		Onnx__NodeProto *node;
		float *x, *w, bias[4];
		double *want;
		uint8_t *bytes;
		size_t size;

		for (int a = 0; a < c->axes; a++) {
			xd[2 + a] = c->in[a];
			wd[2 + a] = c->kernel[a];
			yd[2 + a] = c->stride[a] * (c->in[a] - 1) +
				    c->out_pad[a] + c->dilation[a] *
				    (c->kernel[a] - 1) + 1 - c->pads[a] -
				    c->pads[c->axes + a];
			xn *= (size_t)c->in[a];
			wn *= (size_t)c->kernel[a];
			yn *= (size_t)yd[2 + a];
		}
		x = malloc(xn * sizeof(*x));
		w = malloc(wn * sizeof(*w));
		want = malloc(yn * sizeof(*want));
		if (!x || !w || !want) {
			CHECK(t, 0, "out of memory");
			free(x);
			free(w);
			free(want);
			return;
		}
		for (size_t i = 0; i < xn; i++)
			x[i] = (float)((int)(i * 37 % 23) - 11) / 8.0f;
		for (size_t i = 0; i < wn; i++)
			w[i] = (float)((int)(i * 29 % 19) - 9) / 16.0f;
		for (int i = 0; i < 4; i++)
			bias[i] = 0.25f * (float)(i - 2);
		convt_reference(c, batch, cin, cout, yd + 2, x, w,
				c->bias ? bias : NULL, want);

		mb_init(&mb, 17);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 2 + c->axes, xd);
		mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2 + c->axes, wd, w,
			       wn * sizeof(float));
		mb_initializer(&mb, "b", ENPU_RT_FLOAT, 1, bd, bias,
			       sizeof(bias));
		node = mb_node(&mb, "ConvTranspose", c->bias ? "x,w,b" : "x,w",
			       c->relu ? "t" : "y");
		mb_attr_ints(&mb, node, "strides", c->stride, (size_t)c->axes);
		mb_attr_ints(&mb, node, "dilations", c->dilation,
			     (size_t)c->axes);
		mb_attr_ints(&mb, node, "pads", c->pads, 2 * (size_t)c->axes);
		mb_attr_ints(&mb, node, "output_padding", c->out_pad,
			     (size_t)c->axes);
		mb_attr_int(&mb, node, "group", c->group);
		if (c->relu)
			mb_node(&mb, "Relu", "t", "y");
		mb_output(&mb, "y");
		bytes = mb_pack(&mb, &size);

		for (size_t ii = 0; ii < sizeof(isas) / sizeof(isas[0]); ii++)
		for (unsigned int threads = 1; threads <= 2; threads++)
		for (int optimize = 0; optimize < 2; optimize++) {
			enum enpu_cpu_isa isa;
			enpu_rt_options *options;
			enpu_rt_session *s = NULL;
			struct enpu_rt_output o;
			size_t bad = 0, first = 0;

			if (enpu_cpu_isa_from_name(isas[ii], &isa) ||
			    !enpu_cpu_isa_supported(isa))
				continue;
			if (enpu_rt_options_create(&options)) {
				CHECK(t, 0, "out of memory");
				continue;
			}
			enpu_rt_options_set_optimize(options, optimize);
			enpu_rt_options_set_threads(options, threads);
			enpu_rt_options_set_isa(options, isas[ii]);
			CHECK(t, enpu_rt_session_create_from_memory(
				      bytes, size, NULL, options, &s) == 0,
			      "%s %s: %s", c->name, isas[ii],
			      enpu_rt_options_error(options));
			enpu_rt_options_destroy(options);
			if (!s)
				continue;
			CHECK(t, !optimize || enpu_rt_session_node_count(s) == 1,
			      "%s: Relu not fused (%zu nodes)", c->name,
			      enpu_rt_session_node_count(s));
			CHECK(t, enpu_rt_session_bind_input(
				      s, 0, ENPU_RT_FLOAT, (size_t)(2 + c->axes),
				      xd, x, xn * sizeof(float)) == 0 &&
			      enpu_rt_session_run(s) == 0,
			      "%s %s: %s", c->name, isas[ii],
			      enpu_rt_session_error(s));
			if (enpu_rt_session_output(s, 0, &o) ||
			    o.byte_size != yn * sizeof(float)) {
				CHECK(t, 0, "%s %s: output missing or of the "
				      "wrong size", c->name, isas[ii]);
				enpu_rt_session_destroy(s);
				continue;
			}
			for (size_t i = 0; i < yn; i++) {
				double got = ((const float *)o.data)[i];

				if (fabs(got - want[i]) > 1e-5 + 1e-5 *
				    fabs(want[i]) && !bad++)
					first = i;
			}
			CHECK(t, !bad, "%s %s, %u thread(s), optimize %d: %zu "
			      "of %zu differ, first [%zu] %g want %g",
			      c->name, isas[ii], threads, optimize, bad, yn,
			      first, ((const float *)o.data)[first],
			      want[first]);
			enpu_rt_session_destroy(s);
		}
		mb_free(&mb);
		free(x);
		free(w);
		free(want);
	}
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
		{ "conv_transpose_reference", test_conv_transpose_reference },
	};
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		test_run(&tests[i], &passed, &failed);
	printf("test-ops: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
