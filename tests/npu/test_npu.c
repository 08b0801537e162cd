// SPDX-License-Identifier: MIT
/*
 * The NPU backend on the host: claim, the compiler (layout, tiling,
 * arena, constants, seams) and the cache, with the device simulated by
 * the vnpu's own validator and layer engines (npu_sim.c, sim_device.c).
 * Each model runs through a session on "npu,cpu" and one on "cpu" alone;
 * the outputs must be the same bytes. Models: every op family the NPU
 * takes, in the shapes that exercise bands, channel slices, broadcasting,
 * padding and the seams' layout moves; a MobileNetV2-shaped network; CPU
 * islands between NPU partitions. Also: every command within the
 * preemption bound as the device models it, refusals with their reasons,
 * the arena reused, the cache hit and invalidated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../cpu/test_harness.h"
#include "engine.h"
#include "mobilenet_model.h"
#include "npu.h"
#include "npu_sim.h"
#include "qmodel.h"

static const struct npu_sim_config default_config = {
	.clock_khz = 1000000, .macs_per_cycle = 1024, .sram_bytes = 2u << 20,
};

struct outcome {
	size_t partitions, npu_partitions;
	uint64_t npu_macs, macs;
	uint32_t commands, over_budget;
	uint64_t longest_cycles, arena, intermediates, budget;
	int from_cache;
};

static enpu_rt_session *open_session(struct test_state *t, const void *model,
				     size_t size, const char *backends,
				     const char *cache, int threads)
{
	enpu_rt_options *o;
	enpu_rt_session *s = NULL;

	enpu_rt_options_create(&o);
	rt_options_add_backend(o, &npu_sim_backend);
	enpu_rt_options_set_backends(o, backends);
	enpu_rt_options_set_cache_dir(o, cache);
	enpu_rt_options_set_threads(o, (unsigned int)threads);
	enpu_rt_options_set_partitioning(o, 1, 16);
	if (enpu_rt_session_create_from_memory(model, size, NULL, o, &s))
		CHECK(t, 0, "session on %s: %s", backends,
		      enpu_rt_options_error(o));
	enpu_rt_options_destroy(o);
	return s;
}

static void fill_input(enpu_rt_session *s, size_t i, uint32_t seed,
		       void **data)
{
	struct enpu_rt_tensor_info info;
	size_t n = 1, es;
	uint32_t r = seed * 2654435761u + 1;

	enpu_rt_session_input_info(s, i, &info);
	for (int d = 0; d < info.rank; d++)
		n *= (size_t)info.dims[d];
	es = enpu_rt_dtype_size(info.dtype);
	*data = malloc(n * es + 1);
	for (size_t j = 0; j < n; j++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		if (info.dtype == ENPU_RT_FLOAT)
			((float *)*data)[j] = (float)((r % 3001) / 1000.0 - 1.5);
		else
			((uint8_t *)*data)[j] = (uint8_t)r;
	}
	enpu_rt_session_bind_input(s, i, info.dtype, (size_t)info.rank,
				   info.dims, *data, n * es);
}

static void bind_inputs(enpu_rt_session *s, uint32_t seed, void **data)
{
	for (size_t i = 0; i < enpu_rt_session_input_count(s); i++)
		fill_input(s, i, seed + (uint32_t)i, &data[i]);
}

static uint32_t bound_ns = NPU_COMMAND_BOUND_NS;

static void stats(enpu_rt_session *s, struct outcome *o)
{
	struct npu_limits lim;

	memset(o, 0, sizeof(*o));
	npu_limits_init(&lim, bound_ns, default_config.clock_khz,
			default_config.macs_per_cycle,
			default_config.sram_bytes);
	o->budget = lim.budget_cycles;
	o->partitions = s->plan.partition_count;
	for (size_t p = 0; p < s->plan.partition_count; p++) {
		const struct rt_partition *part = &s->plan.partitions[p];
		struct npu_sim_run run;
		const struct npu_compiled *c;

		o->macs += part->macs;
		if (strcmp(s->active[part->backend].ops->name, "npu"))
			continue;
		c = npu_sim_compiled(s->compiled[p], &run);
		o->npu_partitions++;
		o->npu_macs += part->macs;
		o->commands += c->command_count;
		o->over_budget += c->over_budget;
		if (run.longest_cycles > o->longest_cycles)
			o->longest_cycles = run.longest_cycles;
		o->arena += c->arena_size;
		o->from_cache |= c->from_cache;
		for (size_t i = 0; i < part->node_count; i++)
			for (size_t j = 0;
			     j < s->graph.nodes[part->nodes[i]].output_count;
			     j++) {
				int v = s->graph.nodes[part->nodes[i]].outputs[j];

				if (v >= 0)
					o->intermediates +=
						s->graph.values[v].tensor.byte_size;
			}
	}
}

/*
 * Runs @model on "npu,cpu" (simulated) and "cpu"; the outputs must be the
 * same bytes. 0 when both ran.
 */
static int compare(struct test_state *t, const char *what, const void *model,
		   size_t size, const char *cache, struct outcome *o)
{
	enpu_rt_session *npu = open_session(t, model, size, "npu,cpu", cache,
					    1);
	enpu_rt_session *cpu = open_session(t, model, size, "cpu", "", 2);
	void *in_npu[8] = { 0 }, *in_cpu[8] = { 0 };
	int status = -1;

	if (!npu || !cpu)
		goto out;
	bind_inputs(npu, 11, in_npu);
	bind_inputs(cpu, 11, in_cpu);
	if (enpu_rt_session_run(npu)) {
		CHECK(t, 0, "%s: npu,cpu run: %s", what,
		      enpu_rt_session_error(npu));
		goto out;
	}
	if (enpu_rt_session_run(cpu)) {
		CHECK(t, 0, "%s: cpu run: %s", what,
		      enpu_rt_session_error(cpu));
		goto out;
	}
	for (size_t i = 0; i < enpu_rt_session_output_count(npu); i++) {
		struct enpu_rt_output a, b;

		enpu_rt_session_output(npu, i, &a);
		enpu_rt_session_output(cpu, i, &b);
		CHECK(t, a.byte_size == b.byte_size &&
		      !memcmp(a.data, b.data, a.byte_size),
		      "%s: output %zu differs between npu,cpu and cpu", what,
		      i);
		if (a.byte_size == b.byte_size)
			for (size_t j = 0; j < a.byte_size; j++)
				if (((const uint8_t *)a.data)[j] !=
				    ((const uint8_t *)b.data)[j]) {
					fprintf(stderr, "    first difference "
						"at byte %zu: %u vs %u\n", j,
						((const uint8_t *)a.data)[j],
						((const uint8_t *)b.data)[j]);
					break;
				}
	}
	if (o)
		stats(npu, o);
	if (getenv("TEST_NPU_VERBOSE"))
		for (size_t i = 0; i < enpu_rt_session_node_count(npu); i++) {
			struct enpu_rt_node_placement p;

			enpu_rt_session_node_placement(npu, i, &p);
			fprintf(stderr, "    %-24s %-20s %-4s %zu %s\n", p.name,
				p.op_type, p.backend, p.partition, p.reason);
		}
	status = 0;
out:
	for (int i = 0; i < 8; i++) {
		free(in_npu[i]);
		free(in_cpu[i]);
	}
	enpu_rt_session_destroy(npu);
	enpu_rt_session_destroy(cpu);
	return status;
}

static int compare_qm(struct test_state *t, const char *what, struct qm *m,
		      struct outcome *o)
{
	size_t size;
	uint8_t *bytes = mb_pack(&m->mb, &size);

	return compare(t, what, bytes, size, "", o);
}

/* ---- tests ---- */

static const int64_t no_pad[4] = { 0, 0, 0, 0 };
static const int64_t pad1[4] = { 1, 1, 1, 1 };

static void test_convolutions_equal_the_cpu(struct test_state *t)
{
	static const struct {
		int64_t c, h, w, cout, k, stride, dil, group;
		int64_t pads[4];
		enum qm_act act;
		int per_channel;
	} cases[] = {
		{ 3, 17, 15, 8, 3, 2, 1, 1, { 1, 1, 1, 1 }, QM_RELU6, 1 },
		{ 16, 12, 12, 16, 3, 1, 1, 16, { 1, 1, 1, 1 }, QM_RELU6, 1 },
		{ 24, 9, 7, 40, 1, 1, 1, 1, { 0, 0, 0, 0 }, QM_NONE, 0 },
		{ 8, 11, 11, 12, 3, 1, 2, 2, { 2, 0, 1, 2 }, QM_RELU, 1 },
		{ 32, 14, 14, 32, 3, 2, 1, 32, { 0, 0, 1, 1 }, QM_RELU6, 1 },
		{ 5, 20, 6, 7, 5, 3, 1, 1, { 2, 2, 2, 2 }, QM_NONE, 1 },
		{ 4, 1, 30, 6, 1, 1, 1, 1, { 0, 0, 0, 0 }, QM_NONE, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t dims[4] = { 1, cases[i].c, cases[i].h, cases[i].w };
		struct qm m;
		struct qv x, y;
		struct outcome o;
		char what[64];

		qm_init(&m, 100 + (uint32_t)i);
		x = qm_input_u8(&m, "x", 4, dims);
		y = qm_conv(&m, &x, cases[i].cout, cases[i].k, cases[i].stride,
			    cases[i].pads, cases[i].dil, cases[i].group,
			    cases[i].act, cases[i].per_channel);
		qm_output(&m, &y, 0);
		snprintf(what, sizeof(what), "conv case %zu", i);
		if (!compare_qm(t, what, &m, &o))
			CHECK(t, o.npu_partitions == 1 && o.npu_macs == o.macs,
			      "%s: %zu NPU partitions, %llu of %llu MACs", what,
			      o.npu_partitions, (unsigned long long)o.npu_macs,
			      (unsigned long long)o.macs);
		qm_free(&m);
	}
}

/* Every op family the NPU takes, one NPU partition, uint8 in. */
static void mixed_ops_model(struct qm *m)
{
	int64_t dims[4] = { 1, 8, 13, 11 }, bias_dims[4] = { 1, 8, 1, 1 };
	int64_t row_dims[1] = { 11 };
	struct qv x, a, b, c, d, e, f, g, k1, k2;

	qm_init(m, 5);
	x = qm_input_u8(m, "x", 4, dims);
	a = qm_conv(m, &x, 8, 3, 1, pad1, 1, 1, QM_RELU6, 1);
	b = qm_conv(m, &a, 8, 1, 1, no_pad, 1, 1, QM_NONE, 1);
	c = qm_add(m, &a, &b, QM_NONE);
	k1 = qm_const(m, 4, bias_dims);
	c = qm_add(m, &c, &k1, QM_RELU);
	k2 = qm_const(m, 1, row_dims);
	c = qm_mul(m, &c, &k2);
	d = qm_maxpool(m, &c, 3, 1, 1, 0);
	e = qm_concat(m, &c, &d);
	f = qm_avgpool(m, &e, 3, 2, 1, 0);
	f = qm_avgpool(m, &f, 2, 1, 0, 1);
	f = qm_maxpool(m, &f, 2, 2, 0, 1);
	g = qm_global_avgpool(m, &f);
	g = qm_flatten(m, &g);
	g = qm_gemm(m, &g, 10);
	qm_output(m, &g, 1);
}

/* CPU islands: three NPU partitions, seams moved NCHW <-> NHWC. */
static void cpu_islands_model(struct qm *m)
{
	int64_t dims[4] = { 1, 6, 10, 9 };
	struct qv x, a;

	qm_init(m, 9);
	x = qm_input_float(m, "x", 4, dims);
	a = qm_conv(m, &x, 12, 3, 1, pad1, 1, 1, QM_RELU6, 1);
	a = qm_conv(m, &a, 12, 3, 1, pad1, 1, 12, QM_RELU6, 1);
	a = qm_float_op(m, &a, "Sigmoid");
	a = qm_conv(m, &a, 10, 3, 2, pad1, 1, 1, QM_NONE, 1);
	a = qm_conv(m, &a, 10, 1, 1, no_pad, 1, 1, QM_RELU, 1);
	a = qm_float_op(m, &a, "Tanh");
	a = qm_conv(m, &a, 4, 3, 1, pad1, 1, 1, QM_NONE, 1);
	a = qm_conv(m, &a, 4, 1, 1, no_pad, 1, 1, QM_NONE, 0);
	qm_output(m, &a, 1);
}

static void test_eltwise_pools_gemm_concat_equal_the_cpu(struct test_state *t)
{
	struct qm m;
	struct outcome o;

	mixed_ops_model(&m);
	if (!compare_qm(t, "mixed ops", &m, &o))
		CHECK(t, o.npu_partitions == 1 && o.npu_macs == o.macs,
		      "mixed ops: %zu NPU partitions of %zu", o.npu_partitions,
		      o.partitions);
	qm_free(&m);
}

static void test_cpu_islands_between_npu_partitions(struct test_state *t)
{
	struct qm m;
	struct outcome o;

	cpu_islands_model(&m);
	if (!compare_qm(t, "islands", &m, &o))
		CHECK(t, o.npu_partitions == 3,
		      "islands: %zu NPU partitions of %zu, want 3",
		      o.npu_partitions, o.partitions);
	qm_free(&m);
}

static void test_mobilenet_equals_the_cpu(struct test_state *t)
{
	struct mobilenet_config cfg = { 64, 0.5, 320, 100, 7, 0 };
	struct model_builder mb;
	struct outcome o;
	uint8_t *bytes;
	size_t size;

	mb_init(&mb, 13);
	mobilenet_build(&mb, &cfg);
	bytes = mb_pack(&mb, &size);
	if (!compare(t, "mobilenet 64x64 w0.5", bytes, size, "", &o)) {
		CHECK(t, o.npu_macs == o.macs,
		      "NPU MACs %llu of %llu", (unsigned long long)o.npu_macs,
		      (unsigned long long)o.macs);
		CHECK(t, o.over_budget == 0 && o.longest_cycles <= o.budget,
		      "%u commands over the bound, longest %llu cycles, budget "
		      "%llu", o.over_budget,
		      (unsigned long long)o.longest_cycles,
		      (unsigned long long)o.budget);
		CHECK(t, o.arena < o.intermediates / 2,
		      "arena %llu bytes for %llu bytes of intermediates: not "
		      "reused", (unsigned long long)o.arena,
		      (unsigned long long)o.intermediates);
	}
	mb_free(&mb);
}

/* A bound of 0.25 us (122 cycles of work): many bands and channel slices. */
static void test_tight_bound_tiles_and_stays_exact(struct test_state *t)
{
	struct npu_sim_config cfg = default_config;
	struct mobilenet_config mc = { 32, 0.35, 128, 16, 3, 0 };
	struct model_builder mb;
	struct outcome loose, tight;
	uint8_t *bytes;
	size_t size;

	mb_init(&mb, 13);
	mobilenet_build(&mb, &mc);
	bytes = mb_pack(&mb, &size);
	compare(t, "mobilenet 32x32, 1 GHz", bytes, size, "", &loose);
	cfg.bound_ns = 250;
	bound_ns = 250;
	npu_sim_configure(&cfg);
	if (!compare(t, "mobilenet 32x32, 0.25 us", bytes, size, "", &tight)) {
		CHECK(t, tight.commands > 2 * loose.commands,
		      "%u commands at 0.25 us, %u at 16 us: no tiling",
		      tight.commands, loose.commands);
		CHECK(t, tight.longest_cycles <= tight.budget ||
		      tight.over_budget,
		      "longest command %llu cycles (budget %llu) not reported "
		      "over budget", (unsigned long long)tight.longest_cycles,
		      (unsigned long long)tight.budget);
		printf("  bound 0.25 us: %u commands (%u over the bound, longest "
		       "%llu cycles of %llu); bound 16 us: %u commands\n",
		       tight.commands, tight.over_budget,
		       (unsigned long long)tight.longest_cycles,
		       (unsigned long long)tight.budget, loose.commands);
	}
	bound_ns = NPU_COMMAND_BOUND_NS;
	npu_sim_configure(&default_config);
	mb_free(&mb);
}

static void test_oracle_mode_agrees(struct test_state *t)
{
	struct npu_sim_config cfg = default_config;
	int64_t dims[4] = { 1, 6, 9, 9 };
	struct qm m;
	struct qv x, a, b;

	cfg.oracle = 1;
	npu_sim_configure(&cfg);
	qm_init(&m, 77);
	x = qm_input_u8(&m, "x", 4, dims);
	a = qm_conv(&m, &x, 6, 3, 1, pad1, 1, 6, QM_RELU6, 1);
	b = qm_conv(&m, &a, 6, 1, 1, no_pad, 1, 1, QM_NONE, 1);
	a = qm_add(&m, &a, &b, QM_NONE);
	a = qm_avgpool(&m, &a, 3, 1, 1, 0);
	qm_output(&m, &a, 0);
	compare_qm(t, "oracle", &m, NULL);
	qm_free(&m);
	npu_sim_configure(&default_config);
}

static const char *reason_of(enpu_rt_session *s, const char *op)
{
	for (size_t i = 0; i < enpu_rt_session_node_count(s); i++) {
		struct enpu_rt_node_placement p;

		enpu_rt_session_node_placement(s, i, &p);
		if (!strcmp(p.op_type, op))
			return p.reason;
	}
	return NULL;
}

static void test_refusals_name_the_reason(struct test_state *t)
{
	int64_t dims[4] = { 1, 4, 6, 6 };
	struct qm m;
	struct qv x, a;
	enpu_rt_session *s;
	const char *why;
	uint8_t *bytes;
	size_t size;

	qm_init(&m, 3);
	x = qm_input_u8(&m, "x", 4, dims);
	a = qm_conv(&m, &x, 4, 3, 1, pad1, 1, 1, QM_NONE, 1);
	a = qm_float_op(&m, &a, "Sigmoid");
	a = qm_conv(&m, &a, 4, 3, 1, pad1, 1, 1, QM_NONE, 1);
	qm_output(&m, &a, 0);
	bytes = mb_pack(&m.mb, &size);
	s = open_session(t, bytes, size, "npu,cpu", "", 1);
	why = s ? reason_of(s, "Sigmoid") : NULL;
	CHECK(t, why && strstr(why, "no NPU command for Sigmoid"),
	      "Sigmoid's reason: %s", why ? why : "(none)");
	why = s ? reason_of(s, "DequantizeLinear") : NULL;
	CHECK(t, why && strstr(why, "kept with its QDQ group") &&
	      strstr(why, "Sigmoid"),
	      "DequantizeLinear's reason: "
	      "%s", why ? why : "(none)");
	enpu_rt_session_destroy(s);
	qm_free(&m);
}

/* Where a node of op @op runs; NULL if there is none. */
static const char *backend_of(enpu_rt_session *s, const char *op)
{
	for (size_t i = 0; i < enpu_rt_session_node_count(s); i++) {
		struct enpu_rt_node_placement p;

		enpu_rt_session_node_placement(s, i, &p);
		if (!strcmp(p.op_type, op))
			return p.backend;
	}
	return NULL;
}

/*
 * A float frame: its QuantizeLinear (Quantize8) is QUANTIZE on a 1.6
 * device, reading the NCHW planes in place (every MAC, the quantize and,
 * from 1.7, the output's DequantizeLinear in one NPU partition, the CPU's
 * bytes), and stays on the CPU, saying why, on a 1.5 one.
 */
static void test_quantize_runs_on_a_1_6_device(struct test_state *t)
{
	struct npu_sim_config cfg = default_config;
	int64_t dims[4] = { 2, 3, 9, 7 };
	struct outcome o;
	enpu_rt_session *s;
	const char *where;
	struct qm m;
	struct qv x, a;
	uint8_t *bytes;
	size_t size;

	qm_init(&m, 21);
	x = qm_input_float(&m, "frame", 4, dims);
	a = qm_conv(&m, &x, 8, 3, 2, pad1, 1, 1, QM_RELU6, 1);
	qm_output(&m, &a, 1);
	bytes = mb_pack(&m.mb, &size);
	if (!compare(t, "float frame", bytes, size, "", &o))
		CHECK(t, o.npu_partitions == 1 && o.partitions == 1 &&
		      o.npu_macs == o.macs,
		      "float frame: %zu NPU partitions of %zu, MACs %llu of "
		      "%llu", o.npu_partitions, o.partitions,
		      (unsigned long long)o.npu_macs,
		      (unsigned long long)o.macs);
	s = open_session(t, bytes, size, "npu,cpu", "", 1);
	where = s ? backend_of(s, "Quantize8") : NULL;
	CHECK(t, where && !strcmp(where, "npu"), "Quantize8 on %s",
	      where ? where : "(no such node)");
	enpu_rt_session_destroy(s);
	cfg.hw_version = 1u << 16 | 5;
	npu_sim_configure(&cfg);
	s = open_session(t, bytes, size, "npu,cpu", "", 1);
	where = s ? reason_of(s, "Quantize8") : NULL;
	CHECK(t, where && strstr(where, "interface 1.6") &&
	      strstr(where, "1.5"), "Quantize8's reason on 1.5: %s",
	      where ? where : "(none)");
	enpu_rt_session_destroy(s);
	npu_sim_configure(&default_config);
	qm_free(&m);
}

/*
 * A float output: its DequantizeLinear is DEQUANTIZE on a 1.7 device,
 * writing the NCHW planes of the seam in place (one partition, no CPU
 * one, the CPU's bytes: compare() asserts 0 difference), for an 8-channel
 * image (plane by plane) and a 1-channel one (whole); on a 1.6 device it
 * stays on the CPU, saying why.
 */
static void test_dequantize_runs_on_a_1_7_device(struct test_state *t)
{
	struct npu_sim_config cfg = default_config;
	int64_t dims[4] = { 2, 3, 9, 7 };
	int64_t couts[2] = { 8, 1 };
	struct outcome o;
	enpu_rt_session *s;
	const char *where;
	struct qm m;
	struct qv x, a;
	uint8_t *bytes;
	size_t size;

	for (int i = 0; i < 2; i++) {
		qm_init(&m, 31 + i);
		x = qm_input_u8(&m, "frame", 4, dims);
		a = qm_conv(&m, &x, couts[i], 3, 2, pad1, 1, 1, QM_RELU6, 1);
		qm_output(&m, &a, 1);
		bytes = mb_pack(&m.mb, &size);
		if (!compare(t, couts[i] > 1 ? "float out, 8 planes" :
			     "float out, 1 plane", bytes, size, "", &o))
			CHECK(t, o.npu_partitions == 1 && o.partitions == 1 &&
			      o.npu_macs == o.macs,
			      "float out: %zu NPU partitions of %zu",
			      o.npu_partitions, o.partitions);
		s = open_session(t, bytes, size, "npu,cpu", "", 1);
		where = s ? backend_of(s, "DequantizeLinear") : NULL;
		CHECK(t, where && !strcmp(where, "npu"),
		      "DequantizeLinear on %s", where ? where : "(no such node)");
		enpu_rt_session_destroy(s);
		if (i == 0) {
			cfg.hw_version = 1u << 16 | 6;
			npu_sim_configure(&cfg);
			s = open_session(t, bytes, size, "npu,cpu", "", 1);
			where = s ? reason_of(s, "DequantizeLinear") : NULL;
			CHECK(t, where && strstr(where, "interface 1.7") &&
			      strstr(where, "1.6"),
			      "DequantizeLinear's reason on 1.6: %s",
			      where ? where : "(none)");
			enpu_rt_session_destroy(s);
			if (!compare(t, "float out on 1.6", bytes, size, "",
				     &o))
				CHECK(t, o.partitions == 2,
				      "on 1.6: %zu partitions", o.partitions);
			npu_sim_configure(&default_config);
		}
		qm_free(&m);
	}
}

/*
 * DequantizeLinear the NPU refuses, each for its own rule: the reason
 * names the rule (the interface is 1.7, so none is the version's). The
 * node sits after an NPU convolution so that its input is a QDQ group's
 * output; the dtype cases take the model's input directly.
 */
static void test_dequantize_refusals_name_the_rule(struct test_state *t)
{
	static const struct {
		const char *name;
		int32_t dtype;		/* of x (and the zero point) */
		int64_t opset;
		float scale;
		int scale_is_input;	/* a graph input, not a constant */
		const char *reason;	/* a substring of the refusal */
	} cases[] = {
		{ "negative scale", ENPU_RT_UINT8, 13, -0.05f, 0,
		  "x_scale -0.05 is not positive" },
		{ "zero scale", ENPU_RT_UINT8, 13, 0.0f, 0,
		  "x_scale 0 is not positive" },
		{ "computed scale", ENPU_RT_UINT8, 13, 0.05f, 1,
		  "x_scale must be a constant" },
		{ "int32 input", ENPU_RT_INT32, 13, 0.05f, 0,
		  "refuses (dtype): input type int32: the NPU computes on "
		  "8-bit tensors" },
		{ "int16 input", ENPU_RT_INT16, 21, 0.05f, 0,
		  "refuses (dtype): input 'x' is int16: the device holds" },
		{ "uint16 input", ENPU_RT_UINT16, 21, 0.05f, 0,
		  "refuses (dtype): input 'x' is uint16: the device holds" },
		/* The other side: the same node with a good scale is taken. */
		{ "positive scale", ENPU_RT_UINT8, 13, 0.05f, 0, NULL },
	};
	int64_t dims[4] = { 1, 4, 6, 6 }, one = 1;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_builder mb;
		enpu_rt_session *s;
		const char *why, *where;
		uint8_t zero[4] = { 0 }, *bytes;
		size_t size;

		mb_init(&mb, cases[i].opset);
		mb_input(&mb, "x", cases[i].dtype, 4, dims);
		if (cases[i].scale_is_input)
			mb_input(&mb, "s", ENPU_RT_FLOAT, 0, &one);
		else
			mb_initializer(&mb, "s", ENPU_RT_FLOAT, 0, NULL,
				       &cases[i].scale, sizeof(float));
		mb_initializer(&mb, "z", cases[i].dtype, 0, NULL, zero,
			       enpu_rt_dtype_size(cases[i].dtype));
		mb_node_name(&mb, mb_node(&mb, "DequantizeLinear", "x,s,z",
					  "y"), "dq");
		mb_output(&mb, "y");
		bytes = mb_pack(&mb, &size);
		s = open_session(t, bytes, size, "npu,cpu", "", 1);
		why = s ? reason_of(s, "DequantizeLinear") : NULL;
		where = s ? backend_of(s, "DequantizeLinear") : NULL;
		if (cases[i].reason)
			CHECK(t, why && strstr(why, cases[i].reason) &&
			      where && strcmp(where, "npu"),
			      "%s: on %s, reason: %s", cases[i].name,
			      where ? where : "(none)", why ? why : "(none)");
		else
			CHECK(t, where && !strcmp(where, "npu"),
			      "%s: on %s, reason: %s", cases[i].name,
			      where ? where : "(none)", why ? why : "(none)");
		enpu_rt_session_destroy(s);
		mb_free(&mb);
	}
}

static void test_cache_hits_and_misses(struct test_state *t)
{
	char dir[] = "/tmp/enpu-npu-cache-XXXXXX";
	int64_t dims[4] = { 1, 8, 12, 12 };
	struct qm m;
	struct qv x, a;
	struct outcome first, second, other;
	uint8_t *bytes;
	size_t size;
	char cmd[128];

	if (!mkdtemp(dir)) {
		CHECK(t, 0, "mkdtemp");
		return;
	}
	qm_init(&m, 21);
	x = qm_input_u8(&m, "x", 4, dims);
	a = qm_conv(&m, &x, 8, 3, 1, pad1, 1, 1, QM_RELU6, 1);
	a = qm_conv(&m, &a, 8, 3, 2, pad1, 1, 8, QM_NONE, 1);
	qm_output(&m, &a, 0);
	bytes = mb_pack(&m.mb, &size);
	compare(t, "cache: first", bytes, size, dir, &first);
	compare(t, "cache: second", bytes, size, dir, &second);
	CHECK(t, !first.from_cache && second.from_cache,
	      "first from cache %d, second %d", first.from_cache,
	      second.from_cache);
	/* Another model (one weight changed) must not hit. */
	bytes[size / 2] ^= 1;
	compare(t, "cache: other model", bytes, size, dir, &other);
	CHECK(t, !other.from_cache, "a changed model was served from cache");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(t, system(cmd) == 0, "cleanup");
	qm_free(&m);
}

static void test_tiling_helpers(struct test_state *t)
{
	struct npu_band b;
	uint32_t r0, r1, total = 0;

	/* 3x3 stride 2 pad 1 over 9 rows: output 5 rows; band [2, 4). */
	npu_conv_band(9, 3, 2, 1, 1, 2, 4, &b);
	CHECK(t, b.in_y0 == 3 && b.in_rows == 5 && !b.pad_top &&
	      !b.pad_bottom, "band %u+%u pads %u/%u", b.in_y0, b.in_rows,
	      b.pad_top, b.pad_bottom);
	npu_conv_band(9, 3, 2, 1, 1, 0, 1, &b);
	CHECK(t, b.in_y0 == 0 && b.in_rows == 2 && b.pad_top == 1,
	      "first band %u+%u top %u", b.in_y0, b.in_rows, b.pad_top);
	npu_conv_band(9, 3, 2, 1, 1, 4, 5, &b);
	CHECK(t, b.in_y0 == 7 && b.in_rows == 2 && b.pad_bottom == 1,
	      "last band %u+%u bottom %u", b.in_y0, b.in_rows, b.pad_bottom);
	for (uint32_t i = 0; i < npu_band_count(100, 7); i++) {
		npu_band_rows(100, npu_band_count(100, 7), i, &r0, &r1);
		CHECK(t, r1 - r0 <= 7 && r1 > r0 && r0 == total,
		      "band %u [%u, %u)", i, r0, r1);
		total = r1;
	}
	CHECK(t, total == 100, "bands cover %u rows", total);
}

static int same_output(enpu_rt_session *a, enpu_rt_session *b)
{
	struct enpu_rt_output x, y;

	return !enpu_rt_session_output(a, 0, &x) &&
	       !enpu_rt_session_output(b, 0, &y) &&
	       x.byte_size == y.byte_size &&
	       !memcmp(x.data, y.data, x.byte_size);
}

/*
 * Double buffering with the device's jobs in flight (the simulated NPU
 * runs a job only when its fence is waited on): frame i's run_async on
 * one session returns at the first partition that needs the NPU's
 * result, frame i-1's run_wait on the other finishes it; every frame's
 * output equals a CPU-only run of the same input. A second run_async or
 * a bind while a run is in flight is refused, run_wait without one too.
 */
static void test_pipelined_runs_equal_the_cpu(struct test_state *t)
{
	struct npu_sim_config cfg = default_config;
	enpu_rt_session *pair[2], *cpu;
	void *in[2][8] = { { 0 } }, *ref[8] = { 0 };
	struct enpu_rt_tensor_info info;
	struct qm m;
	uint8_t *bytes;
	size_t size;
	int status;

	cfg.deferred = 1;
	npu_sim_configure(&cfg);
	cpu_islands_model(&m);
	bytes = mb_pack(&m.mb, &size);
	pair[0] = open_session(t, bytes, size, "npu,cpu", "", 1);
	pair[1] = open_session(t, bytes, size, "npu,cpu", "", 1);
	cpu = open_session(t, bytes, size, "cpu", "", 1);
	if (!pair[0] || !pair[1] || !cpu)
		goto out;
	CHECK(t, enpu_rt_session_run_wait(pair[0]) == ENPU_RT_NOT_READY &&
	      strstr(enpu_rt_session_error(pair[0]), "no run in flight"),
	      "run_wait without a run: %s", enpu_rt_session_error(pair[0]));
	for (int i = 0; i < 6; i++) {
		enpu_rt_session *s = pair[i % 2], *prev = pair[(i + 1) % 2];

		for (int k = 0; k < 8; k++) {
			free(in[i % 2][k]);
			in[i % 2][k] = NULL;
		}
		bind_inputs(s, 40 + (uint32_t)i, in[i % 2]);
		status = enpu_rt_session_run_async(s);
		CHECK(t, !status, "frame %d: run_async: %s", i,
		      enpu_rt_session_error(s));
		if (status)
			goto out;
		CHECK(t, s->running && s->run_next > 0 &&
		      s->run_next < s->plan.partition_count,
		      "frame %d: run_async ran %zu of %zu partitions", i,
		      s->run_next, s->plan.partition_count);
		if (i == 0) {
			CHECK(t, enpu_rt_session_run_async(s) ==
			      ENPU_RT_NOT_READY &&
			      strstr(enpu_rt_session_error(s), "in flight"),
			      "second run_async: %s", enpu_rt_session_error(s));
			enpu_rt_session_input_info(s, 0, &info);
			CHECK(t, enpu_rt_session_bind_input(
				      s, 0, info.dtype, (size_t)info.rank,
				      info.dims, in[0][0], 4) ==
			      ENPU_RT_NOT_READY,
			      "bind during a run: %s", enpu_rt_session_error(s));
			continue;
		}
		status = enpu_rt_session_run_wait(prev);
		CHECK(t, !status, "frame %d: run_wait: %s", i - 1,
		      enpu_rt_session_error(prev));
		for (int k = 0; k < 8; k++) {
			free(ref[k]);
			ref[k] = NULL;
		}
		bind_inputs(cpu, 40 + (uint32_t)(i - 1), ref);
		CHECK(t, !enpu_rt_session_run(cpu) && same_output(prev, cpu),
		      "frame %d: pipelined output differs from the CPU's",
		      i - 1);
	}
	/*
	 * The last frame is left in flight: destroy must wait for it, and
	 * its bound inputs stay valid until then (enpu_rt.h).
	 */
out:
	enpu_rt_session_destroy(pair[0]);
	enpu_rt_session_destroy(pair[1]);
	enpu_rt_session_destroy(cpu);
	for (int k = 0; k < 8; k++) {
		free(in[0][k]);
		free(in[1][k]);
		free(ref[k]);
	}
	qm_free(&m);
	npu_sim_configure(&default_config);
}

/* A memfd filled with @bytes, as a stand-in dma-buf (the engine only
 * maps it; the simulated NPU imports nothing). */
static int memfd_with(const void *bytes, size_t size)
{
	int fd = memfd_create("enpu-test-frame", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) ||
	    (size && pwrite(fd, bytes, size, 0) != (ssize_t)size)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Two npu,cpu sessions of one uint8 model of input @dims (two convs, all
 * on the NPU), @m seeded with @seed (the caller frees it); 0, or -1 with
 * the failure checked.
 */
static int two_sessions(struct test_state *t, struct qm *m, uint32_t seed,
			const int64_t dims[4], enpu_rt_session **s,
			enpu_rt_session **h)
{
	struct qv x, a;
	uint8_t *bytes;
	size_t size;

	qm_init(m, seed);
	x = qm_input_u8(m, "x", 4, dims);
	a = qm_conv(m, &x, 8, 3, 1, pad1, 1, 1, QM_RELU6, 1);
	a = qm_conv(m, &a, 4, 1, 1, no_pad, 1, 1, QM_NONE, 1);
	qm_output(m, &a, 0);
	bytes = mb_pack(&m->mb, &size);
	*s = open_session(t, bytes, size, "npu,cpu", "", 1);
	*h = open_session(t, bytes, size, "npu,cpu", "", 1);
	return *s && *h ? 0 : -1;
}

/*
 * Inputs and outputs bound as dma-bufs: the same bytes as host memory,
 * the output written into the caller's buffer; a bad fd and a buffer
 * smaller than the binding are refused by name; the session keeps its
 * own dup, so the caller may close its fd at once.
 */
static void test_dmabuf_bindings(struct test_state *t)
{
	int64_t dims[4] = { 1, 8, 12, 12 };
	struct enpu_rt_tensor_info info;
	struct enpu_rt_output out, want;
	enpu_rt_session *s, *h;
	void *in[8] = { 0 };
	uint8_t *frame, *readback = NULL;
	struct qm m;
	size_t n = 8 * 12 * 12;
	int fd, ofd = -1;

	if (two_sessions(t, &m, 23, dims, &s, &h))
		goto out;
	bind_inputs(h, 5, in);
	frame = in[0];
	CHECK(t, !enpu_rt_session_run(h), "host run: %s",
	      enpu_rt_session_error(h));
	enpu_rt_session_input_info(s, 0, &info);

	CHECK(t, enpu_rt_session_bind_input_dmabuf(s, 0, info.dtype, 4, dims,
						   -1, n) ==
	      ENPU_RT_INVALID_ARGUMENT &&
	      strstr(enpu_rt_session_error(s), "no dma-buf fd"),
	      "fd -1: %s", enpu_rt_session_error(s));
	fd = memfd_with(frame, n - 1);
	CHECK(t, fd >= 0 && enpu_rt_session_bind_input_dmabuf(
				    s, 0, info.dtype, 4, dims, fd, n) ==
	      ENPU_RT_INVALID_ARGUMENT &&
	      strstr(enpu_rt_session_error(s), "holds 1151 bytes"),
	      "a buffer one byte short: %s", enpu_rt_session_error(s));
	close(fd);
	CHECK(t, enpu_rt_session_bind_input_dmabuf(s, 7, info.dtype, 4, dims,
						   0, n) ==
	      ENPU_RT_INVALID_ARGUMENT, "input 7 of 1 accepted");

	fd = memfd_with(frame, n);
	CHECK(t, fd >= 0 && !enpu_rt_session_bind_input_dmabuf(
				    s, 0, info.dtype, 4, dims, fd, n),
	      "bind input: %s", enpu_rt_session_error(s));
	if (fd >= 0)
		close(fd);	/* the session holds its own */
	enpu_rt_session_output(h, 0, &want);
	ofd = memfd_with(NULL, 0);
	if (ofd >= 0 && ftruncate(ofd, (off_t)want.byte_size))
		ofd = -1;
	CHECK(t, ofd >= 0 && !enpu_rt_session_bind_output_dmabuf(
				     s, 0, ofd, want.byte_size),
	      "bind output: %s", enpu_rt_session_error(s));
	CHECK(t, !enpu_rt_session_run(s), "dma-buf run: %s",
	      enpu_rt_session_error(s));
	CHECK(t, !enpu_rt_session_output(s, 0, &out) &&
	      out.byte_size == want.byte_size &&
	      !memcmp(out.data, want.data, want.byte_size),
	      "dma-buf run differs from the host-memory run");
	readback = malloc(want.byte_size);
	CHECK(t, ofd >= 0 && readback &&
	      pread(ofd, readback, want.byte_size, 0) ==
	      (ssize_t)want.byte_size &&
	      !memcmp(readback, want.data, want.byte_size),
	      "the output dma-buf does not hold the output");
out:
	if (ofd >= 0)
		close(ofd);
	free(readback);
	for (int k = 0; k < 8; k++)
		free(in[k]);
	enpu_rt_session_destroy(s);
	enpu_rt_session_destroy(h);
	qm_free(&m);
}

/* Bytes the last run of @s copied at the seams of its NPU partitions. */
static uint64_t npu_copied_bytes(const enpu_rt_session *s)
{
	uint64_t bytes = 0;

	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		if (!strcmp(info.backend, "npu"))
			bytes += info.copied_bytes;
	}
	return bytes;
}

/*
 * enpu_rt_session_input_memory(): the memory of an input the NPU reads is
 * the NPU backend's own (seam_alloc), so a run with it bound stages
 * nothing, where the caller's memory is staged on every run; the outputs
 * are the same bytes; asking again for no more bytes keeps the memory; an
 * input index out of range is refused.
 */
static void test_input_memory_is_read_in_place(struct test_state *t)
{
	int64_t dims[4] = { 1, 8, 12, 12 };
	struct enpu_rt_output out, want;
	enpu_rt_session *s, *h;
	void *in[8] = { 0 }, *mem = NULL, *again = NULL;
	size_t n = 8 * 12 * 12;
	struct qm m;

	if (two_sessions(t, &m, 29, dims, &s, &h))
		goto out;
	bind_inputs(h, 7, in);
	CHECK(t, !enpu_rt_session_run(h), "host run: %s",
	      enpu_rt_session_error(h));
	CHECK(t, npu_copied_bytes(h) == n,
	      "the caller's input: %llu bytes staged, want %zu",
	      (unsigned long long)npu_copied_bytes(h), n);
	CHECK(t, enpu_rt_session_input_memory(s, 1, n, &mem) ==
	      ENPU_RT_INVALID_ARGUMENT && !mem, "input 1 of 1 accepted");
	CHECK(t, !enpu_rt_session_input_memory(s, 0, n, &mem) && mem,
	      "input memory: %s", enpu_rt_session_error(s));
	if (!mem)
		goto out;
	CHECK(t, !enpu_rt_session_input_memory(s, 0, n / 2, &again) &&
	      again == mem, "asked again for fewer bytes: other memory");
	memcpy(mem, in[0], n);
	CHECK(t, !enpu_rt_session_bind_input(s, 0, ENPU_RT_UINT8, 4, dims,
					     mem, n),
	      "bind: %s", enpu_rt_session_error(s));
	for (int run = 0; run < 2; run++) {
		CHECK(t, !enpu_rt_session_run(s), "run %d: %s", run,
		      enpu_rt_session_error(s));
		CHECK(t, npu_copied_bytes(s) == 0,
		      "run %d of the session's input memory staged %llu bytes",
		      run, (unsigned long long)npu_copied_bytes(s));
	}
	enpu_rt_session_output(h, 0, &want);
	CHECK(t, !enpu_rt_session_output(s, 0, &out) &&
	      out.byte_size == want.byte_size &&
	      !memcmp(out.data, want.data, want.byte_size),
	      "the in-place run differs from the host-memory run");
out:
	for (int k = 0; k < 8; k++)
		free(in[k]);
	enpu_rt_session_destroy(s);
	enpu_rt_session_destroy(h);
	qm_free(&m);
}

static int write_file(const char *dir, const char *name, const void *bytes,
		      size_t size)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.onnx", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(bytes, 1, size, f) == size;
	ok = !fclose(f) && ok;
	return ok ? 0 : -1;
}

/* The models the VM test runs through the real driver (tests/npu/vm-npu.sh). */
static int write_models(const char *dir)
{
	struct mobilenet_config cfg = { 96, 0.5, 320, 100, 5, 0 };
	int64_t d2[4] = { 1, 6, 10, 9 }, d3[4] = { 1, 24, 112, 112 };
	struct model_builder mb;
	struct qm m;
	struct qv x, a;
	uint8_t *bytes;
	size_t size;
	int status;

	mb_init(&mb, 13);
	mobilenet_build(&mb, &cfg);
	bytes = mb_pack(&mb, &size);
	status = write_file(dir, "mobilenet-96", bytes, size);
	mb_free(&mb);

	mixed_ops_model(&m);
	bytes = mb_pack(&m.mb, &size);
	status |= write_file(dir, "mixed-ops", bytes, size);
	qm_free(&m);

	cpu_islands_model(&m);
	bytes = mb_pack(&m.mb, &size);
	status |= write_file(dir, "cpu-islands", bytes, size);
	qm_free(&m);

	/* Nothing the NPU takes: float ops between Q/DQ (vm-npu.sh expects
	 * no NPU partition, and --strict to refuse naming the nodes). */
	qm_init(&m, 11);
	x = qm_input_float(&m, "x", 4, d2);
	a = qm_float_op(&m, &x, "Sigmoid");
	/* No QuantizeLinear -> DequantizeLinear pair at the end, which the
	 * NPU takes from interface 1.7: every node stays on the CPU. */
	qm_float_output(&m, &a, "Tanh");
	bytes = mb_pack(&m.mb, &size);
	status |= write_file(dir, "cpu-only", bytes, size);
	qm_free(&m);

	/* Too large for one command: 130 M MACs and 1.2 MB of activations
	 * per layer, tiled into bands and channel slices. */
	qm_init(&m, 13);
	x = qm_input_u8(&m, "x", 4, d3);
	a = qm_conv(&m, &x, 48, 3, 1, pad1, 1, 1, QM_RELU6, 1);
	a = qm_conv(&m, &a, 48, 3, 1, pad1, 1, 48, QM_RELU6, 1);
	qm_output(&m, &a, 1);
	bytes = mb_pack(&m.mb, &size);
	status |= write_file(dir, "large-tiles", bytes, size);
	qm_free(&m);
	return status;
}

int main(int argc, char **argv)
{
	static const struct test_case tests[] = {
		{ "tiling_helpers", test_tiling_helpers },
		{ "convolutions_equal_the_cpu", test_convolutions_equal_the_cpu },
		{ "eltwise_pools_gemm_concat_equal_the_cpu",
		  test_eltwise_pools_gemm_concat_equal_the_cpu },
		{ "cpu_islands_between_npu_partitions",
		  test_cpu_islands_between_npu_partitions },
		{ "mobilenet_equals_the_cpu", test_mobilenet_equals_the_cpu },
		{ "tight_bound_tiles_and_stays_exact",
		  test_tight_bound_tiles_and_stays_exact },
		{ "oracle_mode_agrees", test_oracle_mode_agrees },
		{ "refusals_name_the_reason", test_refusals_name_the_reason },
		{ "quantize_runs_on_a_1_6_device",
		  test_quantize_runs_on_a_1_6_device },
		{ "dequantize_runs_on_a_1_7_device",
		  test_dequantize_runs_on_a_1_7_device },
		{ "dequantize_refusals_name_the_rule",
		  test_dequantize_refusals_name_the_rule },
		{ "cache_hits_and_misses", test_cache_hits_and_misses },
		{ "pipelined_runs_equal_the_cpu",
		  test_pipelined_runs_equal_the_cpu },
		{ "dmabuf_bindings", test_dmabuf_bindings },
		{ "input_memory_is_read_in_place",
		  test_input_memory_is_read_in_place },
	};
	int passed = 0, failed = 0;

	if (argc == 3 && !strcmp(argv[1], "--write-models"))
		return write_models(argv[2]) ? 1 : 0;
	npu_sim_configure(&default_config);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		test_run(&tests[i], &passed, &failed);
	printf("test-npu: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
