// SPDX-License-Identifier: MIT
/*
 * The NPU backend with a simulated device: claim, the compiler and the
 * cache are the backend's own (backend/npu), the device is the vnpu's
 * validator and layer engines run on the host (sim_device.c). A session
 * gets it through rt_options_add_backend() under the name "npu", so
 * "npu,cpu" places and partitions exactly as with a real device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_regs.h"
#include "npu.h"
#include "npu_sim.h"
#include "sim_device.h"

struct sim_compiled {
	struct npu_compiled c;
	uint8_t *arena;
	struct sim_result last;
	uint32_t last_status;
	struct sim_bo *pending;		/* deferred: submitted, not run */
};

static struct npu_sim_config config = {
	.clock_khz = 1000000, .macs_per_cycle = 1024,
	.sram_bytes = 2u << 20,
};

void npu_sim_configure(const struct npu_sim_config *c)
{
	config = *c;
}

static int sim_open(const struct rt_backend_env *env, void **self,
		    struct rt_backend_info *info, struct rt_error_sink *why)
{
	struct npu_backend *b = calloc(1, sizeof(*b));

	(void)why;
	if (!b)
		return ENPU_RT_OUT_OF_MEMORY;
	b->cpu = env->cpu;
	b->errors = env->errors;
	b->model_hash = env->model_hash;
	b->bound_ns = config.bound_ns ? config.bound_ns : NPU_COMMAND_BOUND_NS;
	b->params.hw_version = config.hw_version ? config.hw_version :
			       ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR,
					       ENPU_HW_VERSION_MINOR);
	b->params.fw_version = 1u << 16;
	b->params.clock_min_khz = config.clock_khz / 5;
	b->params.clock_max_khz = config.clock_khz;
	b->params.macs_per_cycle = config.macs_per_cycle;
	b->params.sram_size = config.sram_bytes;
	snprintf(b->driver_version, sizeof(b->driver_version),
		 "enpu simulated (tests/npu)");
	snprintf(b->cache_dir, sizeof(b->cache_dir), "%s",
		 env->cache_dir ? env->cache_dir : "");
	memset(info, 0, sizeof(*info));
	/* No round trip to pay: every claimed node is worth placing. */
	info->dispatch_ns = 0;
	info->shares_host_memory = 1;
	info->asynchronous = config.deferred;
	*self = b;
	return 0;
}

static void sim_close(void *self)
{
	struct npu_backend *b = self;

	for (size_t i = 0; b && i < b->seam_count; i++)
		free(b->seams[i].map);
	if (b)
		free(b->seams);
	free(b);
}

/*
 * Seam memory as the real backend hands it out (a BO mapped for the
 * host), here plain memory the simulated device reads in place; kept in
 * the backend's seam list, so a run can tell an input in its own memory
 * (nothing to stage) from the caller's (staged: counted as copied).
 */
static void *sim_seam_alloc(void *self, size_t bytes)
{
	struct npu_backend *b = self;
	struct npu_seam_bo *grown;
	void *map;

	grown = realloc(b->seams, (b->seam_count + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	b->seams = grown;
	map = malloc(bytes ? bytes : 1);
	if (!map)
		return NULL;
	b->seams[b->seam_count++] = (struct npu_seam_bo){ NULL, map, bytes, 0 };
	return map;
}

static void sim_seam_free(void *self, void *data)
{
	struct npu_backend *b = self;

	for (size_t i = 0; i < b->seam_count; i++)
		if (b->seams[i].map == data) {
			free(data);
			b->seams[i] = b->seams[--b->seam_count];
			return;
		}
}

static int sim_is_seam(const struct npu_backend *b, const void *data,
		       uint64_t bytes)
{
	for (size_t i = 0; i < b->seam_count; i++)
		if (b->seams[i].map == data && bytes <= b->seams[i].size)
			return 1;
	return 0;
}

static void sim_claim(void *self, const struct rt_graph *g, size_t n,
		      struct rt_claim *claim)
{
	npu_claim(self, g, n, claim);
}

static void sim_release(void *self, void *compiled)
{
	struct sim_compiled *s = compiled;

	(void)self;
	if (!s)
		return;
	npu_compiled_free_form(&s->c);
	free(s->pending);
	free(s->arena);
	free(s);
}

static int sim_compile(void *self, struct rt_graph *g,
		       const struct rt_partition *p, void **compiled,
		       struct rt_error_sink *why)
{
	struct npu_backend *b = self;
	struct sim_compiled *s = calloc(1, sizeof(*s));
	int status = 0;

	*compiled = NULL;
	if (!s)
		return ENPU_RT_OUT_OF_MEMORY;
	s->c.backend = b;
	s->c.graph = g;
	if (b->cache_dir[0] && !npu_cache_load(b, g, p, &s->c)) {
		s->c.from_cache = 1;
	} else {
		status = npu_compile(b, g, p, &s->c, why);
		if (!status && b->cache_dir[0])
			npu_cache_store(b, g, p, &s->c);
	}
	if (!status) {
		s->arena = malloc(s->c.arena_size);
		if (!s->arena)
			status = ENPU_RT_OUT_OF_MEMORY;
	}
	if (status) {
		sim_release(b, s);
		return status;
	}
	/* Poison: a read of arena bytes nobody wrote shows as a mismatch. */
	memset(s->arena, 0x5a, s->c.arena_size);
	*compiled = s;
	return 0;
}

/* Runs the stream of @s over @bos (freed). */
static int device_run(struct npu_backend *b, struct sim_compiled *s,
		      struct sim_bo *bos)
{
	struct npu_compiled *c = &s->c;
	uint32_t status;

	status = sim_device_run(c->stream, c->stream_size, bos,
				NPU_BO_SEAMS + c->boundary_count,
				config.oracle, &s->last);
	if (status && getenv("TEST_NPU_VERBOSE"))
		for (uint32_t i = 0; i < NPU_BO_SEAMS + c->boundary_count; i++)
			fprintf(stderr, "    bo %u: %llu bytes%s\n", i,
				(unsigned long long)bos[i].size,
				bos[i].write ? " written" : "");
	if (status && getenv("TEST_NPU_VERBOSE")) {
		const uint8_t *cmd = c->stream + s->last.offset;
		const uint64_t *q = (const uint64_t *)cmd;

		fprintf(stderr, "    command opcode %u size %u\n",
			cmd[0] | cmd[1] << 8, cmd[4] | cmd[5] << 8);
		for (int i = 0; i < 14; i++)
			fprintf(stderr, "      %016llx\n", (unsigned long long)q[i]);
	}
	free(bos);
	s->pending = NULL;
	s->last_status = status;
	c->device_ns = s->last.cycles * 1000000 / config.clock_khz;
	if (status)
		return rt_error_set(b->errors, ENPU_RT_RUNTIME_ERROR,
				    "simulated NPU job failed: status %u at "
				    "command offset %u", status,
				    s->last.offset);
	return 0;
}

static int sim_run(void *self, void *compiled, const struct rt_exec_host *host,
		   struct rt_fence *fence)
{
	struct npu_backend *b = self;
	struct sim_compiled *s = compiled;
	struct npu_compiled *c = &s->c;
	struct sim_bo *bos = calloc(NPU_BO_SEAMS + c->boundary_count,
				    sizeof(*bos));

	fence->token = 0;
	if (!bos)
		return ENPU_RT_OUT_OF_MEMORY;
	c->copied_bytes = 0;
	bos[NPU_BO_ARENA] = (struct sim_bo){ s->arena, c->arena_size, 1 };
	bos[NPU_BO_CONSTS] = (struct sim_bo){ c->consts, c->consts_size, 0 };
	for (uint32_t i = 0; i < c->boundary_count; i++) {
		const struct npu_boundary *nb = &c->boundaries[i];
		struct rt_value *v = &c->graph->values[nb->value];

		if (nb->output && host->provide(host->ctx, nb->value)) {
			free(bos);
			return b->errors->status;
		}
		if (nb->output)
			memset(v->tensor.data, 0xa5, nb->bytes);
		else if (!sim_is_seam(b, v->tensor.data, nb->bytes))
			c->copied_bytes += nb->bytes;	/* staged on a device */
		bos[NPU_BO_SEAMS + i] = (struct sim_bo){
			v->tensor.data, nb->bytes, nb->output };
	}
	if (config.deferred) {
		/* Like a device: the job runs later, its fence is waited on. */
		s->pending = bos;
		fence->token = 1;
		return 0;
	}
	return device_run(b, s, bos);
}

static int sim_wait(void *self, void *compiled, struct rt_fence *fence)
{
	struct sim_compiled *s = compiled;

	fence->token = 0;
	return s->pending ? device_run(self, s, s->pending) : 0;
}

static void sim_stats(void *self, void *compiled,
		      struct rt_partition_stats *stats)
{
	const struct sim_compiled *s = compiled;

	(void)self;
	stats->device_ns = s->c.device_ns;
	stats->modeled_ns = s->c.device_ns;
	stats->commands = s->c.command_count;
	stats->from_cache = s->c.from_cache;
	stats->copied_bytes = s->c.copied_bytes;
}

const struct rt_backend_ops npu_sim_backend = {
	.name = "npu",
	.open = sim_open,
	.close = sim_close,
	.claim = sim_claim,
	.compile = sim_compile,
	.run = sim_run,
	.wait = sim_wait,
	.release = sim_release,
	.stats = sim_stats,
	.seam_alloc = sim_seam_alloc,
	.seam_free = sim_seam_free,
};

const struct npu_compiled *npu_sim_compiled(const void *compiled,
					    struct npu_sim_run *last)
{
	const struct sim_compiled *s = compiled;

	if (last) {
		last->cycles = s->last.cycles;
		last->longest_cycles = s->last.longest_cycles;
		last->commands = s->last.commands;
		last->macs = s->last.macs;
		last->status = s->last_status;
	}
	return &s->c;
}
