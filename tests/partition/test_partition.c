// SPDX-License-Identifier: MIT
/*
 * The partitioner (userspace/runtime/partition) on synthetic graphs built
 * directly in the IR, with mock backends whose claims, costs, memory and
 * compile failures each test sets. One behaviour per test: preference
 * order and reasons, unplaceable nodes all named, QDQ groups whole,
 * grouping (convex runs, fewest partitions), seams, minimum size, cost
 * with and without shared memory and shared inputs, the partition cap,
 * strict mode, fallback when compilation fails, MAC shares, and a third
 * backend added without any partitioner change.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/test_harness.h"
#include "partition.h"
#include "rewrite.h"

/* ---- synthetic graphs ---------------------------------------------- */

struct graph {
	struct rt_graph g;
	struct rt_error_sink errors;
};

static void graph_init(struct graph *t)
{
	memset(t, 0, sizeof(*t));
	rt_graph_init(&t->g, &t->errors);
}

/* A value named @name: an input, a constant or an intermediate. */
static int value(struct graph *t, const char *name, enum rt_value_kind kind,
		 int64_t elements)
{
	int v = rt_graph_find_value(&t->g, name);
	struct rt_value *val;

	if (v >= 0)
		return v;
	v = rt_graph_add_value(&t->g, name);
	val = &t->g.values[v];
	val->kind = kind;
	val->tensor.dtype = ENPU_RT_UINT8;
	val->tensor.rank = 1;
	val->tensor.dims[0] = elements;
	val->tensor.byte_size = (size_t)elements;
	if (kind == RT_VALUE_CONSTANT)
		val->tensor.data = rt_arena_alloc(&t->g.arena,
						  (size_t)elements + 1);
	if (kind == RT_VALUE_INPUT) {
		t->g.inputs = realloc(t->g.inputs, (t->g.input_count + 1) *
				      sizeof(int));
		t->g.inputs[t->g.input_count++] = v;
	}
	return v;
}

/*
 * node(t, "Conv", "c1", "x,w", "y"): op, node name, inputs, outputs.
 * Unknown input names become intermediates of 1000 bytes.
 */
static int node(struct graph *t, const char *op, const char *name,
		const char *inputs, const char *outputs)
{
	int ins[16], outs[4], n;
	size_t ni = 0, no = 0;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", inputs);
	for (char *s = strtok_r(buf, ",", &save); s;
	     s = strtok_r(NULL, ",", &save))
		ins[ni++] = value(t, s, RT_VALUE_INTERMEDIATE, 1000);
	snprintf(buf, sizeof(buf), "%s", outputs);
	save = NULL;
	for (char *s = strtok_r(buf, ",", &save); s;
	     s = strtok_r(NULL, ",", &save))
		outs[no++] = value(t, s, RT_VALUE_INTERMEDIATE, 1000);
	n = rt_graph_add_op(&t->g, "", op, ins, ni, outs, no);
	t->g.nodes[n].name = rt_arena_strdup(&t->g.arena, name);
	return n;
}

static void output(struct graph *t, const char *name)
{
	int v = rt_graph_find_value(&t->g, name);

	t->g.values[v].is_output = 1;
	t->g.outputs = realloc(t->g.outputs, (t->g.output_count + 1) *
			       sizeof(int));
	t->g.outputs[t->g.output_count++] = v;
}

static void graph_free(struct graph *t)
{
	free(t->g.inputs);
	free(t->g.outputs);
	t->g.inputs = t->g.outputs = NULL;
	rt_graph_destroy(&t->g);
}

/* ---- mock backends ------------------------------------------------- */

struct mock {
	const char *name;
	const char *takes;	/* ",Conv,Relu," or "*" */
	double cost_ns;		/* per node */
	struct rt_backend_info info;
	int fail_compile_of;	/* a node index: compiling it fails */
	int compiles;
};

static void mock_claim(void *self, const struct rt_graph *g, size_t n,
		       struct rt_claim *claim)
{
	const struct mock *m = self;
	char key[64];

	memset(claim, 0, sizeof(*claim));
	snprintf(key, sizeof(key), ",%s,", g->nodes[n].op_type);
	if (strcmp(m->takes, "*") && !strstr(m->takes, key)) {
		claim->refusal = RT_REFUSE_OP;
		snprintf(claim->reason, sizeof(claim->reason),
			 "%s has no %s", m->name, g->nodes[n].op_type);
		return;
	}
	claim->cost_ns = m->cost_ns;
}

static int mock_compile(void *self, struct rt_graph *g,
			const struct rt_partition *p, void **compiled,
			struct rt_error_sink *why)
{
	struct mock *m = self;

	(void)g;
	m->compiles++;
	for (size_t i = 0; i < p->node_count; i++)
		if ((int)p->nodes[i] == m->fail_compile_of)
			return rt_error_set(why, ENPU_RT_UNSUPPORTED,
					    "%s cannot fit it", m->name);
	*compiled = m;
	return 0;
}

static const struct rt_backend_ops mock_ops = {
	.name = "mock",
	.claim = mock_claim,
	.compile = mock_compile,
};

/* Each mock needs its own ops table for its name in messages. */
struct mock_backend {
	struct mock m;
	struct rt_backend_ops ops;
};

static void mock_init(struct mock_backend *b, const char *name,
		      const char *takes, double cost_ns, double dispatch_ns)
{
	memset(b, 0, sizeof(*b));
	b->m.name = name;
	b->m.takes = takes;
	b->m.cost_ns = cost_ns;
	b->m.info.dispatch_ns = dispatch_ns;
	b->m.info.shares_host_memory = 1;
	b->m.info.copy_bytes_per_ns = 1.0;
	b->m.fail_compile_of = -1;
	b->ops = mock_ops;
	b->ops.name = name;
}

static void backends(struct rt_placement_backend *out,
		     struct mock_backend *const *mocks, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		out[i].ops = &mocks[i]->ops;
		out[i].self = &mocks[i]->m;
		out[i].info = mocks[i]->m.info;
	}
}

/* Graph inputs shared unless a test says otherwise: only then do the
 * other tests' costs not depend on copying the input. */
static const struct rt_partition_options defaults = {
	.min_nodes = 1, .max_partitions = 0, .inputs_shared = 1,
};

/* Partitions the graph with an NPU-like mock "npu" and a CPU-like "cpu". */
static int place(struct graph *t, struct mock_backend *npu,
		 struct mock_backend *cpu,
		 const struct rt_partition_options *o, struct rt_plan *plan)
{
	struct mock_backend *list[2] = { npu, cpu };
	struct rt_placement_backend b[2];

	backends(b, list, 2);
	if (rt_graph_sort(&t->g))
		return t->errors.status;
	return rt_partition_graph(&t->g, b, 2, o, plan);
}

static int backend_of(const struct graph *t, const struct rt_plan *plan,
		      const char *name)
{
	for (size_t n = 0; n < t->g.node_count; n++)
		if (!strcmp(t->g.nodes[n].name, name))
			return plan->nodes[n].backend;
	return -2;
}

static const char *reason_of(const struct graph *t, const struct rt_plan *plan,
			     const char *name)
{
	for (size_t n = 0; n < t->g.node_count; n++)
		if (!strcmp(t->g.nodes[n].name, name))
			return plan->nodes[n].reason;
	return "?";
}

/* A chain x -> a (Conv) -> b (Relu) -> c (Sigmoid) -> d (Conv) -> y. */
static void chain(struct graph *t)
{
	graph_init(t);
	value(t, "x", RT_VALUE_INPUT, 1000);
	node(t, "Conv", "a", "x", "ya");
	node(t, "Relu", "b", "ya", "yb");
	node(t, "Sigmoid", "c", "yb", "yc");
	node(t, "Conv", "d", "yc", "y");
	output(t, "y");
}

/* ---- tests --------------------------------------------------------- */

static void test_each_node_goes_to_the_first_backend_that_takes_it(
	struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;

	chain(&t);
	mock_init(&npu, "npu", ",Conv,Relu,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, backend_of(&t, &plan, "a") == 0 &&
	      backend_of(&t, &plan, "b") == 0 &&
	      backend_of(&t, &plan, "c") == 1 &&
	      backend_of(&t, &plan, "d") == 0, "placement");
	CHECK(st, !reason_of(&t, &plan, "a")[0], "a has no reason: %s",
	      reason_of(&t, &plan, "a"));
	CHECK(st, strstr(reason_of(&t, &plan, "c"), "npu refuses (op)") &&
	      strstr(reason_of(&t, &plan, "c"), "npu has no Sigmoid"),
	      "c's reason names backend, kind and cause: %s",
	      reason_of(&t, &plan, "c"));
	CHECK(st, plan.partition_count == 3, "%zu partitions",
	      plan.partition_count);
	rt_plan_destroy(&plan);
	graph_free(&t);
}

static void test_nodes_no_backend_takes_are_all_named(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;

	chain(&t);
	mock_init(&npu, "npu", ",Conv,", 1, 0);
	mock_init(&cpu, "cpu", ",Conv,Relu,", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) ==
	      ENPU_RT_UNSUPPORTED, "status %d", t.errors.status);
	CHECK(st, strstr(t.errors.message, "1 node no backend can run") &&
	      strstr(t.errors.message, "node 'c' (Sigmoid)") &&
	      strstr(t.errors.message, "npu: npu has no Sigmoid") &&
	      strstr(t.errors.message, "cpu: cpu has no Sigmoid"),
	      "%s", t.errors.message);
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/*
 * DQ -> Sigmoid -> Q: "npu" takes Sigmoid but neither DequantizeLinear
 * nor QuantizeLinear, so the group goes whole to the CPU.
 */
static void test_a_qdq_group_stays_whole(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;

	graph_init(&t);
	value(&t, "x", RT_VALUE_INPUT, 1000);
	value(&t, "s", RT_VALUE_CONSTANT, 1);
	node(&t, "Conv", "a", "x", "q0");
	node(&t, "DequantizeLinear", "dq", "q0,s", "f0");
	node(&t, "Sigmoid", "sig", "f0", "f1");
	node(&t, "QuantizeLinear", "q", "f1,s", "q1");
	node(&t, "Conv", "b", "q1", "y");
	output(&t, "y");
	mock_init(&npu, "npu", ",Conv,Sigmoid,", 1, 0);
	mock_init(&cpu, "cpu", "*", 1000, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, backend_of(&t, &plan, "sig") == 1 &&
	      backend_of(&t, &plan, "dq") == 1 &&
	      backend_of(&t, &plan, "q") == 1, "the group is on the CPU");
	CHECK(st, strstr(reason_of(&t, &plan, "sig"), "QDQ group"), "%s",
	      reason_of(&t, &plan, "sig"));
	CHECK(st, backend_of(&t, &plan, "a") == 0 &&
	      backend_of(&t, &plan, "b") == 0, "the convs stay");
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/*
 * x -> a1 -> a2 -> m(a1, c1); x -> c1: taking c1 (cpu) first lets one npu
 * partition hold a1, a2 and m: 2 partitions, where starting with the
 * earliest node (a1) would make 3.
 */
static void test_grouping_makes_the_fewest_partitions(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;

	graph_init(&t);
	value(&t, "x", RT_VALUE_INPUT, 1000);
	node(&t, "Conv", "a1", "x", "y1");
	node(&t, "Conv", "a2", "y1", "y2");
	node(&t, "Sigmoid", "c1", "x", "y3");
	node(&t, "Add", "m", "y2,y3", "y");
	output(&t, "y");
	mock_init(&npu, "npu", ",Conv,Add,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, plan.partition_count == 2, "%zu partitions",
	      plan.partition_count);
	CHECK(st, plan.partition_count == 2 && plan.partitions[0].backend == 1 &&
	      plan.partitions[1].backend == 0 &&
	      plan.partitions[1].node_count == 3, "cpu first, then all npu");
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/* Every partition is a run of one topological order (a convex set), and
 * its seams list exactly the values crossing it. */
static void test_partitions_are_convex_with_exact_seams(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;
	size_t *position;

	chain(&t);
	mock_init(&npu, "npu", ",Conv,Relu,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	position = calloc(t.g.node_count, sizeof(*position));
	{
		size_t at = 0;

		for (size_t p = 0; p < plan.partition_count; p++)
			for (size_t i = 0; i < plan.partitions[p].node_count;
			     i++)
				position[plan.partitions[p].nodes[i]] = at++;
	}
	/* Producers come before readers across the whole run order. */
	for (size_t n = 0; n < t.g.node_count; n++)
		for (size_t i = 0; i < t.g.nodes[n].input_count; i++) {
			int p = rt_value_producer(&t.g, t.g.nodes[n].inputs[i]);

			CHECK(st, p < 0 || position[p] < position[n],
			      "node %zu runs before its producer %d", n, p);
		}
	free(position);
	/* npu {a, b} -> cpu {c} -> npu {d}: yb leaves the first, enters c. */
	CHECK(st, plan.partition_count == 3, "%zu", plan.partition_count);
	if (plan.partition_count == 3) {
		const struct rt_partition *p0 = &plan.partitions[0];
		const struct rt_partition *p1 = &plan.partitions[1];
		const struct rt_partition *p2 = &plan.partitions[2];
		int x = rt_graph_find_value(&t.g, "x");
		int yb = rt_graph_find_value(&t.g, "yb");
		int yc = rt_graph_find_value(&t.g, "yc");
		int y = rt_graph_find_value(&t.g, "y");

		CHECK(st, p0->input_count == 1 && p0->inputs[0] == x &&
		      p0->output_count == 1 && p0->outputs[0] == yb, "p0");
		CHECK(st, p1->input_count == 1 && p1->inputs[0] == yb &&
		      p1->output_count == 1 && p1->outputs[0] == yc, "p1");
		CHECK(st, p2->input_count == 1 && p2->inputs[0] == yc &&
		      p2->output_count == 1 && p2->outputs[0] == y,
		      "p2 ends in the graph output");
	}
	rt_plan_destroy(&plan);
	graph_free(&t);
}

static void test_a_partition_below_the_minimum_moves(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct rt_partition_options o = defaults;
	struct graph t;
	struct rt_plan plan;

	chain(&t);
	o.min_nodes = 2;
	mock_init(&npu, "npu", ",Conv,Relu,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &o, &plan) == 0, "%s",
	      t.errors.message);
	/* d is alone after c: it moves and merges with c on the CPU. */
	CHECK(st, backend_of(&t, &plan, "d") == 1 &&
	      backend_of(&t, &plan, "a") == 0, "d moved, a stayed");
	CHECK(st, strstr(reason_of(&t, &plan, "d"), "below the minimum "
			 "partition of 2"), "%s", reason_of(&t, &plan, "d"));
	CHECK(st, plan.partition_count == 2, "%zu partitions (merged)",
	      plan.partition_count);
	rt_plan_destroy(&plan);
	graph_free(&t);
}

static void test_a_partition_that_saves_less_than_dispatch_moves(
	struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;

	chain(&t);
	/* d saves 99 ns on the npu but dispatch costs 150. */
	mock_init(&npu, "npu", ",Conv,Relu,", 1, 150);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, backend_of(&t, &plan, "a") == 0 &&
	      backend_of(&t, &plan, "d") == 1, "a, b save 198 > 150; d not");
	CHECK(st, strstr(reason_of(&t, &plan, "d"), "costs 0.1 us to "
			 "dispatch"), "%s", reason_of(&t, &plan, "d"));
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/* Seams whose memory is not shared cost copies; shared ones do not. */
static void test_transfers_count_only_when_memory_is_not_shared(
	struct test_state *st)
{
	for (int shared = 0; shared < 2; shared++) {
		struct mock_backend npu, cpu;
		struct graph t;
		struct rt_plan plan;

		chain(&t);
		mock_init(&npu, "npu", ",Conv,Relu,", 1, 0);
		mock_init(&cpu, "cpu", "*", 100, 0);
		npu.m.info.shares_host_memory = shared;
		/* 1000 bytes at 1 byte/ns: 1000 ns per crossing value. */
		CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
		      t.errors.message);
		if (shared)
			CHECK(st, backend_of(&t, &plan, "a") == 0 &&
			      backend_of(&t, &plan, "d") == 0,
			      "shared memory: the npu keeps its nodes");
		else
			CHECK(st, backend_of(&t, &plan, "a") == 1 &&
			      backend_of(&t, &plan, "d") == 1 &&
			      strstr(reason_of(&t, &plan, "a"), "copies at its "
				     "seams"), "copies: all on the cpu (%s)",
			      reason_of(&t, &plan, "a"));
		rt_plan_destroy(&plan);
		graph_free(&t);
	}
}

/* A graph input the caller binds as shared memory costs no copy. */
static void test_shared_inputs_cost_nothing(struct test_state *st)
{
	for (int inputs_shared = 0; inputs_shared < 2; inputs_shared++) {
		struct mock_backend npu, cpu;
		struct rt_partition_options o = defaults;
		struct graph t;
		struct rt_plan plan;

		graph_init(&t);
		value(&t, "x", RT_VALUE_INPUT, 1000);
		node(&t, "Conv", "a", "x", "y");
		output(&t, "y");
		o.inputs_shared = inputs_shared;
		mock_init(&npu, "npu", ",Conv,", 1, 0);
		mock_init(&cpu, "cpu", "*", 600, 0);
		/* Shares host memory (the output costs nothing) but the
		 * caller's input needs a 1000 ns copy unless shared. */
		CHECK(st, place(&t, &npu, &cpu, &o, &plan) == 0, "%s",
		      t.errors.message);
		CHECK(st, backend_of(&t, &plan, "a") == (inputs_shared ? 0 : 1),
		      "inputs_shared %d: a on %d", inputs_shared,
		      backend_of(&t, &plan, "a"));
		rt_plan_destroy(&plan);
		graph_free(&t);
	}
}

/* Alternating supported and unsupported nodes, capped at 3 partitions. */
static void test_the_cap_moves_the_partitions_that_save_least(
	struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct rt_partition_options o = defaults;
	struct graph t;
	struct rt_plan plan;
	char in[8], out[8], name[8];

	graph_init(&t);
	value(&t, "v0", RT_VALUE_INPUT, 1000);
	for (int i = 0; i < 9; i++) {
		snprintf(in, sizeof(in), "v%d", i);
		snprintf(out, sizeof(out), "v%d", i + 1);
		snprintf(name, sizeof(name), "n%d", i);
		node(&t, i % 2 ? "Sigmoid" : "Conv", name, in, out);
	}
	output(&t, "v9");
	o.max_partitions = 3;
	mock_init(&npu, "npu", ",Conv,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &o, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, plan.partition_count <= 3, "%zu partitions",
	      plan.partition_count);
	CHECK(st, strstr(reason_of(&t, &plan, "n0"), "exceed the cap of 3") ||
	      strstr(reason_of(&t, &plan, "n8"), "exceed the cap of 3"),
	      "n0: %s / n8: %s", reason_of(&t, &plan, "n0"),
	      reason_of(&t, &plan, "n8"));
	rt_plan_destroy(&plan);
	graph_free(&t);
}

static void test_strict_mode_names_every_node_off_the_first_backend(
	struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct rt_partition_options o = defaults;
	struct graph t;
	struct rt_plan plan;

	graph_init(&t);
	value(&t, "x", RT_VALUE_INPUT, 1000);
	node(&t, "Conv", "a", "x", "y1");
	node(&t, "Sigmoid", "s1", "y1", "y2");
	node(&t, "Conv", "b", "y2", "y3");
	node(&t, "Tanh", "s2", "y3", "y");
	output(&t, "y");
	o.strict = 1;
	mock_init(&npu, "npu", ",Conv,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &o, &plan) == ENPU_RT_UNSUPPORTED,
	      "strict refuses");
	CHECK(st, strstr(t.errors.message, "strict: 2 nodes would not run on "
			 "npu") &&
	      strstr(t.errors.message, "node 's1' (Sigmoid): npu refuses "
		     "(op): npu has no Sigmoid") &&
	      strstr(t.errors.message, "node 's2' (Tanh)") &&
	      !strstr(t.errors.message, "node 'a'"), "%s", t.errors.message);
	rt_plan_destroy(&plan);
	graph_free(&t);
	/* Everything on the npu: strict is happy. */
	graph_init(&t);
	value(&t, "x", RT_VALUE_INPUT, 1000);
	node(&t, "Conv", "a", "x", "y");
	output(&t, "y");
	CHECK(st, place(&t, &npu, &cpu, &o, &plan) == 0, "%s",
	      t.errors.message);
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/* Compiling {a, b} fails on the npu: they fall back to the CPU. */
static void test_a_failed_compilation_falls_back_per_partition(
	struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct mock_backend *list[2] = { &npu, &cpu };
	struct rt_placement_backend b[2];
	struct rt_partition_options o = defaults;
	struct graph t;
	struct rt_plan plan;
	size_t failed = SIZE_MAX;

	for (int strict = 0; strict < 2; strict++) {
		chain(&t);
		mock_init(&npu, "npu", ",Conv,Relu,", 1, 0);
		mock_init(&cpu, "cpu", "*", 100, 0);
		npu.m.fail_compile_of = 1;	/* node b */
		o.strict = strict;
		backends(b, list, 2);
		rt_graph_sort(&t.g);
		o.strict = 0;
		CHECK(st, rt_partition_graph(&t.g, b, 2, &o, &plan) == 0,
		      "%s", t.errors.message);
		o.strict = strict;
		for (size_t p = 0; p < plan.partition_count; p++) {
			void *compiled;
			struct rt_error_sink why = { .status = 0 };
			const struct rt_placement_backend *pb =
				&b[plan.partitions[p].backend];

			if (pb->ops->compile(pb->self, &t.g, &plan.partitions[p],
					     &compiled, &why)) {
				failed = p;
				CHECK(st, rt_partition_fall_back(
					&t.g, b, 2, &o, &plan, p,
					why.message) == (strict ?
						ENPU_RT_UNSUPPORTED : 0),
				      "fall back: %s", t.errors.message);
				break;
			}
		}
		CHECK(st, failed == 0, "the first partition fails");
		if (!strict) {
			CHECK(st, backend_of(&t, &plan, "a") == 1 &&
			      backend_of(&t, &plan, "b") == 1 &&
			      backend_of(&t, &plan, "d") == 0, "a, b moved");
			CHECK(st, strstr(reason_of(&t, &plan, "b"),
					 "compilation failed: npu cannot fit "
					 "it"), "%s", reason_of(&t, &plan, "b"));
			CHECK(st, plan.partition_count == 2, "%zu partitions",
			      plan.partition_count);
		} else {
			CHECK(st, strstr(t.errors.message, "node 'b' (Relu): "
					 "npu partition 0 moved to cpu: "
					 "compilation failed"), "%s",
			      t.errors.message);
		}
		rt_plan_destroy(&plan);
		graph_free(&t);
	}
}

/* A third backend between the two: nothing in the partitioner knows it. */
static void test_a_third_backend_needs_no_partitioner_change(
	struct test_state *st)
{
	struct mock_backend npu, gpu, cpu;
	struct mock_backend *list[3] = { &npu, &gpu, &cpu };
	struct rt_placement_backend b[3];
	struct graph t;
	struct rt_plan plan;

	chain(&t);
	mock_init(&npu, "npu", ",Conv,", 1, 0);
	mock_init(&gpu, "gpu", ",Conv,Relu,Sigmoid,", 10, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	backends(b, list, 3);
	rt_graph_sort(&t.g);
	CHECK(st, rt_partition_graph(&t.g, b, 3, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, backend_of(&t, &plan, "a") == 0 &&
	      backend_of(&t, &plan, "b") == 1 &&
	      backend_of(&t, &plan, "c") == 1 &&
	      backend_of(&t, &plan, "d") == 0, "npu, gpu, gpu, npu");
	CHECK(st, strstr(reason_of(&t, &plan, "b"), "npu refuses"), "%s",
	      reason_of(&t, &plan, "b"));
	rt_plan_destroy(&plan);
	graph_free(&t);
}

/* MACs are counted per node from shapes and summed per backend. */
static void test_macs_are_counted_per_backend(struct test_state *st)
{
	struct mock_backend npu, cpu;
	struct graph t;
	struct rt_plan plan;
	int x, w, y, n;

	graph_init(&t);
	x = value(&t, "x", RT_VALUE_INPUT, 1);
	w = value(&t, "w", RT_VALUE_CONSTANT, 1);
	/* Conv: out [1,8,4,4], W [8,3,3,3]: 128 outputs * 27 = 3456. */
	t.g.values[w].tensor.rank = 4;
	t.g.values[w].tensor.dims[0] = 8;
	t.g.values[w].tensor.dims[1] = 3;
	t.g.values[w].tensor.dims[2] = 3;
	t.g.values[w].tensor.dims[3] = 3;
	n = node(&t, "Conv", "conv", "x,w", "y");
	y = t.g.nodes[n].outputs[0];
	t.g.values[y].tensor.rank = 4;
	t.g.values[y].tensor.dims[0] = 1;
	t.g.values[y].tensor.dims[1] = 8;
	t.g.values[y].tensor.dims[2] = 4;
	t.g.values[y].tensor.dims[3] = 4;
	/* MatMul: A [2,16] x [16,5]: 10 outputs * 16 = 160, on the cpu. */
	t.g.values[x].tensor.rank = 2;
	node(&t, "MatMul", "mm", "y,w", "z");
	{
		int a = rt_graph_find_value(&t.g, "y");
		int z = rt_graph_find_value(&t.g, "z");

		(void)a;
		t.g.values[z].tensor.rank = 2;
		t.g.values[z].tensor.dims[0] = 2;
		t.g.values[z].tensor.dims[1] = 5;
	}
	output(&t, "z");
	mock_init(&npu, "npu", ",Conv,", 1, 0);
	mock_init(&cpu, "cpu", "*", 100, 0);
	CHECK(st, place(&t, &npu, &cpu, &defaults, &plan) == 0, "%s",
	      t.errors.message);
	CHECK(st, plan.macs[0] == 3456, "npu MACs %llu",
	      (unsigned long long)plan.macs[0]);
	/* A is y [1,8,4,4]: K is its last dim, 4. */
	CHECK(st, plan.macs[1] == 10 * 4, "cpu MACs %llu",
	      (unsigned long long)plan.macs[1]);
	CHECK(st, plan.total_macs == plan.macs[0] + plan.macs[1], "total");
	rt_plan_destroy(&plan);
	graph_free(&t);
}

static const struct test_case tests[] = {
	{ "each_node_goes_to_the_first_backend_that_takes_it",
	  test_each_node_goes_to_the_first_backend_that_takes_it },
	{ "nodes_no_backend_takes_are_all_named",
	  test_nodes_no_backend_takes_are_all_named },
	{ "a_qdq_group_stays_whole", test_a_qdq_group_stays_whole },
	{ "grouping_makes_the_fewest_partitions",
	  test_grouping_makes_the_fewest_partitions },
	{ "partitions_are_convex_with_exact_seams",
	  test_partitions_are_convex_with_exact_seams },
	{ "a_partition_below_the_minimum_moves",
	  test_a_partition_below_the_minimum_moves },
	{ "a_partition_that_saves_less_than_dispatch_moves",
	  test_a_partition_that_saves_less_than_dispatch_moves },
	{ "transfers_count_only_when_memory_is_not_shared",
	  test_transfers_count_only_when_memory_is_not_shared },
	{ "shared_inputs_cost_nothing", test_shared_inputs_cost_nothing },
	{ "the_cap_moves_the_partitions_that_save_least",
	  test_the_cap_moves_the_partitions_that_save_least },
	{ "strict_mode_names_every_node_off_the_first_backend",
	  test_strict_mode_names_every_node_off_the_first_backend },
	{ "a_failed_compilation_falls_back_per_partition",
	  test_a_failed_compilation_falls_back_per_partition },
	{ "a_third_backend_needs_no_partitioner_change",
	  test_a_third_backend_needs_no_partitioner_change },
	{ "macs_are_counted_per_backend", test_macs_are_counted_per_backend },
};

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		struct test_state st = { 0 };

		tests[i].run(&st);
		printf("%s %s\n", st.failures ? "FAIL" : "ok  ", tests[i].name);
		if (st.failures)
			failed++;
		else
			passed++;
	}
	printf("test-partition: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
