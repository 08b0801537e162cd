// SPDX-License-Identifier: MIT
/*
 * The CPU backend: every node that has an op def (ops/, on the int8 and
 * float kernels of userspace/runtime/cpu) is claimed; its own lowering is
 * the pass table of cpu_lower.c; a compiled partition is its nodes in
 * order with their prepared state (packed weights); a run infers what
 * could not be inferred at load, gives each output a buffer, runs the
 * ops, and hands a buffer back to its pool once its last reader in the
 * partition has run. Values at the partition's seams are the engine's
 * (struct rt_exec_host). Runs are synchronous.
 *
 * The pool's blocks survive across runs, so a partition with fixed shapes
 * stops allocating after its first run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "op_view.h"
#include "cpu_lower.h"
#include "rewrite.h"

struct cpu_backend {
	enpu_cpu_context *cpu;
	struct rt_error_sink *errors;
};

struct cpu_node {
	size_t node;
	struct rt_kernel kernel;
	int prepared;		/* prepare() ran: release() is owed */
	int infer_at_run;	/* shapes not all known at load */
	uint64_t last_ns;
};

struct cpu_block {
	void *data;
	size_t capacity;
	int in_use;
};

struct cpu_partition {
	struct cpu_backend *backend;
	struct rt_graph *graph;
	struct cpu_node *nodes;
	size_t count;
	unsigned char *seam;		/* per value: the engine's */
	int *readers;			/* per value: readers in here */
	int *remaining;			/* per value, this run */
	int *value_block;		/* per value, -1 none */
	int *touched;			/* the values the nodes read or write */
	size_t touched_count;
	struct cpu_block *blocks;
	size_t block_count;
	const struct rt_tensor **in_ptrs;
	struct rt_tensor **out_ptrs;
	uint64_t last_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cpu_open(const struct rt_backend_env *env, void **self,
		    struct rt_backend_info *info, struct rt_error_sink *why)
{
	struct cpu_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory opening the CPU backend");
	b->cpu = env->cpu;
	b->errors = env->errors;
	memset(info, 0, sizeof(*info));
	info->shares_host_memory = 1;
	*self = b;
	return 0;
}

static void cpu_close(void *self)
{
	free(self);
}

/* Rough cost for placement: 20 GMAC/s and 5 GB/s, one thread. */
static double node_cost_ns(const struct rt_graph *g, const struct rt_node *n)
{
	double bytes = 0;

	for (size_t o = 0; o < n->output_count; o++)
		if (n->outputs[o] >= 0 && g->values[n->outputs[o]].tensor.rank >= 0)
			bytes += (double)g->values[n->outputs[o]].tensor.byte_size;
	return (double)rt_node_macs(g, n) / 20.0 + bytes / 5.0;
}

static void cpu_claim(void *self, const struct rt_graph *g, size_t n,
		      struct rt_claim *claim)
{
	const struct rt_node *node = &g->nodes[n];

	(void)self;
	memset(claim, 0, sizeof(*claim));
	if (!node->def && !rt_op_find(node->domain, node->op_type,
				      node->opset)) {
		claim->refusal = RT_REFUSE_OP;
		snprintf(claim->reason, sizeof(claim->reason),
			 "no CPU kernel for %s%s%s at opset %lld",
			 node->domain[0] ? node->domain : "",
			 node->domain[0] ? "." : "", node->op_type,
			 (long long)node->opset);
		return;
	}
	claim->cost_ns = node_cost_ns(g, node);
}

static int cpu_lower(void *self, struct rt_graph *g)
{
	(void)self;
	return rt_passes_run(g, rt_cpu_lowering, rt_cpu_lowering_count);
}

static void gather(struct cpu_partition *p, const struct rt_node *node)
{
	struct rt_graph *g = p->graph;

	for (size_t i = 0; i < node->input_count; i++)
		p->in_ptrs[i] = node->inputs[i] >= 0 ?
				&g->values[node->inputs[i]].tensor : NULL;
	for (size_t o = 0; o < node->output_count; o++)
		p->out_ptrs[o] = node->outputs[o] >= 0 ?
				 &g->values[node->outputs[o]].tensor : NULL;
}

static int inputs_known(const struct rt_graph *g, const struct rt_node *node)
{
	for (size_t i = 0; i < node->input_count; i++)
		if (node->inputs[i] >= 0 &&
		    g->values[node->inputs[i]].tensor.rank < 0)
			return 0;
	return 1;
}

static void cpu_release(void *self, void *compiled)
{
	struct cpu_partition *p = compiled;

	(void)self;
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++) {
		const struct rt_op_def *def = p->graph->nodes[p->nodes[i].node].def;

		if (p->nodes[i].prepared && def && def->release)
			def->release(&p->nodes[i].kernel);
	}
	for (size_t b = 0; b < p->block_count; b++)
		free(p->blocks[b].data);
	free(p->blocks);
	free(p->nodes);
	free(p->seam);
	free(p->readers);
	free(p->remaining);
	free(p->value_block);
	free(p->touched);
	free(p->in_ptrs);
	free(p->out_ptrs);
	free(p);
}

/*
 * The values a run must reset: the inputs and outputs of the partition's
 * nodes, once each (value_block marks them while listing, then gets its
 * -1 at every run). A run used to reset every value of the graph: the
 * MobileNetV2 bench's one-node CPU partition (its DequantizeLinear) went
 * through about a thousand values per frame, 11 % of the process's user
 * time in a TCG guest.
 */
static void list_touched(struct cpu_partition *p, const struct rt_graph *g,
			 const struct rt_partition *part)
{
	for (size_t v = 0; v < g->value_count; v++)
		p->value_block[v] = 0;
	p->touched_count = 0;
	for (size_t i = 0; i < part->node_count; i++) {
		const struct rt_node *node = &g->nodes[part->nodes[i]];

		for (size_t k = 0; k < node->input_count + node->output_count;
		     k++) {
			int v = k < node->input_count ? node->inputs[k] :
				node->outputs[k - node->input_count];

			if (v < 0 || p->value_block[v])
				continue;
			p->value_block[v] = 1;
			p->touched[p->touched_count++] = v;
		}
	}
}

static int cpu_compile(void *self, struct rt_graph *g,
		       const struct rt_partition *part, void **compiled,
		       struct rt_error_sink *why)
{
	struct cpu_backend *b = self;
	struct cpu_partition *p = calloc(1, sizeof(*p));
	size_t max_in = 1, max_out = 1, values = g->value_count + 1;
	size_t touched = 1;
	int status = 0;

	*compiled = NULL;
	if (!p)
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory compiling for the CPU");
	p->backend = b;
	p->graph = g;
	p->count = part->node_count;
	p->nodes = calloc(p->count + 1, sizeof(*p->nodes));
	p->seam = calloc(values, 1);
	p->readers = calloc(values, sizeof(int));
	p->remaining = calloc(values, sizeof(int));
	p->value_block = malloc(values * sizeof(int));
	for (size_t i = 0; i < p->count; i++) {
		const struct rt_node *node = &g->nodes[part->nodes[i]];

		if (node->input_count > max_in)
			max_in = node->input_count;
		if (node->output_count > max_out)
			max_out = node->output_count;
		touched += node->input_count + node->output_count;
	}
	p->in_ptrs = calloc(max_in, sizeof(*p->in_ptrs));
	p->out_ptrs = calloc(max_out, sizeof(*p->out_ptrs));
	p->touched = malloc(touched * sizeof(*p->touched));
	if (!p->nodes || !p->seam || !p->readers || !p->remaining ||
	    !p->value_block || !p->touched || !p->in_ptrs || !p->out_ptrs) {
		cpu_release(self, p);
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory compiling for the CPU");
	}
	list_touched(p, g, part);
	for (size_t i = 0; i < part->input_count; i++)
		p->seam[part->inputs[i]] = 1;
	for (size_t i = 0; i < part->output_count; i++)
		p->seam[part->outputs[i]] = 1;
	for (size_t i = 0; i < p->count && !status; i++) {
		struct cpu_node *cn = &p->nodes[i];
		struct rt_node *node = &g->nodes[part->nodes[i]];

		cn->node = part->nodes[i];
		rt_op_view(&cn->kernel, node, b->cpu, b->errors);
		for (size_t j = 0; j < node->input_count; j++)
			if (node->inputs[j] >= 0)
				p->readers[node->inputs[j]]++;
		if (!node->def) {
			status = rt_error_set(why, ENPU_RT_UNSUPPORTED,
					      "node '%s' (%s): no CPU kernel",
					      node->name, node->op_type);
			break;
		}
		cn->infer_at_run = !inputs_known(g, node);
		for (size_t o = 0; o < node->output_count && !cn->infer_at_run;
		     o++)
			if (node->outputs[o] >= 0 &&
			    g->values[node->outputs[o]].tensor.rank < 0)
				cn->infer_at_run = 1;
		cn->prepared = 1;	/* release even on failure */
		if (!node->def->prepare)
			continue;
		gather(p, node);
		status = node->def->prepare(&cn->kernel, p->in_ptrs,
					    node->input_count);
		if (status && !b->errors->status)
			rt_error_set(b->errors, status,
				     "node '%s' (%s): prepare failed",
				     node->name, node->op_type);
		if (status)
			rt_error_set(why, status, "%s", b->errors->message);
	}
	if (status) {
		cpu_release(self, p);
		return status;
	}
	*compiled = p;
	return 0;
}

static int acquire_block(struct cpu_partition *p, size_t size)
{
	int best = -1, largest = -1;

	if (!size)
		size = 1;
	for (size_t i = 0; i < p->block_count; i++) {
		struct cpu_block *b = &p->blocks[i];

		if (b->in_use)
			continue;
		if (b->capacity >= size &&
		    (best < 0 || b->capacity < p->blocks[best].capacity))
			best = (int)i;
		if (largest < 0 || b->capacity > p->blocks[largest].capacity)
			largest = (int)i;
	}
	if (best < 0 && largest >= 0) {
		/* Grow the biggest free block rather than adding another. */
		void *data;

		if (posix_memalign(&data, 64, size))
			return -1;
		free(p->blocks[largest].data);
		p->blocks[largest].data = data;
		p->blocks[largest].capacity = size;
		best = largest;
	}
	if (best < 0) {
		struct cpu_block *grown = realloc(p->blocks,
						  (p->block_count + 1) *
						  sizeof(*grown));
		void *data;

		if (!grown)
			return -1;
		p->blocks = grown;
		if (posix_memalign(&data, 64, size))
			return -1;
		p->blocks[p->block_count].data = data;
		p->blocks[p->block_count].capacity = size;
		p->blocks[p->block_count].in_use = 0;
		best = (int)p->block_count++;
	}
	p->blocks[best].in_use = 1;
	return best;
}

static void release_value(struct cpu_partition *p, int v)
{
	if (p->value_block[v] >= 0) {
		p->blocks[p->value_block[v]].in_use = 0;
		p->value_block[v] = -1;
	}
}

static int infer_node(struct cpu_partition *p, struct cpu_node *cn,
		      const struct rt_node *node)
{
	int status = node->def->infer(&cn->kernel, p->in_ptrs,
				      node->input_count, p->out_ptrs,
				      node->output_count);

	if (status == RT_OP_NEEDS_VALUES)
		return rt_error_set(p->backend->errors, ENPU_RT_RUNTIME_ERROR,
				    "node '%s' (%s): could not infer its "
				    "output shape with every input known",
				    node->name, node->op_type);
	if (status)
		return p->backend->errors->status ? status :
		       rt_error_set(p->backend->errors, status,
				    "node '%s' (%s): shape inference failed",
				    node->name, node->op_type);
	for (size_t o = 0; o < node->output_count; o++) {
		struct rt_tensor *t = p->out_ptrs[o];

		if (t && !rt_tensor_consistent(t))
			return rt_error_set(p->backend->errors,
					    ENPU_RT_RUNTIME_ERROR,
					    "node '%s' (%s): inferred output "
					    "%zu is inconsistent (type %d, "
					    "rank %d)", node->name,
					    node->op_type, o, t->dtype,
					    t->rank);
	}
	return 0;
}

static int cpu_run(void *self, void *compiled, const struct rt_exec_host *host,
		   struct rt_fence *fence)
{
	struct cpu_partition *p = compiled;
	struct rt_graph *g = p->graph;
	struct rt_error_sink *errors = p->backend->errors;
	uint64_t began = now_ns(), start = began, end;
	int status;

	(void)self;
	fence->token = 0;
	for (size_t b = 0; b < p->block_count; b++)
		p->blocks[b].in_use = 0;
	for (size_t t = 0; t < p->touched_count; t++) {
		int v = p->touched[t];

		p->value_block[v] = -1;
		p->remaining[v] = p->readers[v];
	}
	/*
	 * One clock read per node boundary: a node's time runs from the
	 * end of the one before (a TCG guest has no vDSO clock, and each
	 * read was a system call of about 3 us: 4 per frame for a
	 * one-node partition, 2 now).
	 */
	for (size_t i = 0; i < p->count; i++) {
		struct cpu_node *cn = &p->nodes[i];
		struct rt_node *node = &g->nodes[cn->node];

		rt_op_view(&cn->kernel, node, p->backend->cpu, errors);
		gather(p, node);
		if (cn->infer_at_run) {
			status = infer_node(p, cn, node);
			if (status)
				return status;
		}
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o], block;

			if (v < 0)
				continue;
			if (p->seam[v]) {
				status = host->provide(host->ctx, v);
				if (status)
					return status;
				continue;
			}
			block = acquire_block(p, g->values[v].tensor.byte_size);
			if (block < 0)
				return rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
						    "node '%s' (%s): out of "
						    "memory for output '%s' "
						    "(%zu bytes)", node->name,
						    node->op_type,
						    g->values[v].name,
						    g->values[v].tensor.byte_size);
			p->value_block[v] = block;
			g->values[v].tensor.data = p->blocks[block].data;
		}
		status = node->def->run(&cn->kernel, p->in_ptrs,
					node->input_count, p->out_ptrs,
					node->output_count);
		if (status)
			return errors->status ? status :
			       rt_error_set(errors, status,
					    "node '%s' (%s): failed", node->name,
					    node->op_type);
		for (size_t j = 0; j < node->input_count; j++) {
			int v = node->inputs[j];

			if (v < 0 || g->values[v].kind != RT_VALUE_INTERMEDIATE ||
			    p->seam[v])
				continue;
			/* The same value may feed two inputs: count each. */
			if (--p->remaining[v] == 0)
				release_value(p, v);
		}
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];

			if (v >= 0 && !p->seam[v] && !p->readers[v])
				release_value(p, v);
		}
		end = now_ns();
		cn->last_ns = end - start;
		start = end;
	}
	p->last_ns = start - began;
	return 0;
}

static int cpu_wait(void *self, void *compiled, struct rt_fence *fence)
{
	(void)self;
	(void)compiled;
	fence->token = 0;
	return 0;
}

static void cpu_stats(void *self, void *compiled,
		      struct rt_partition_stats *stats)
{
	const struct cpu_partition *p = compiled;

	(void)self;
	stats->host_ns = p->last_ns;
}

const struct rt_backend_ops rt_backend_cpu = {
	.name = "cpu",
	.open = cpu_open,
	.close = cpu_close,
	.claim = cpu_claim,
	.lower = cpu_lower,
	.compile = cpu_compile,
	.run = cpu_run,
	.wait = cpu_wait,
	.release = cpu_release,
	.stats = cpu_stats,
};

/* Per-node timing of the last run, for the session's profile. */
int rt_cpu_node_time(const void *compiled, size_t node, uint64_t *ns)
{
	const struct cpu_partition *p = compiled;

	for (size_t i = 0; i < p->count; i++)
		if (p->nodes[i].node == node) {
			*ns = p->nodes[i].last_ns;
			return 1;
		}
	return 0;
}
