/* SPDX-License-Identifier: MIT */
/* Session internals shared by the API, the load pipeline and the executor. */
#ifndef ENPU_RT_ENGINE_H
#define ENPU_RT_ENGINE_H

#include "enpu/enpu_rt.h"
#include "ir.h"
#include "rt_op.h"

struct enpu_rt_options {
	unsigned int threads;
	enum enpu_cpu_isa isa;
	int optimize;
	char error[4096];
};

struct rt_binding {
	int bound;
	int32_t rank;
	int64_t dims[RT_MAX_RANK];
	const void *data;
	size_t byte_size;
};

/* Run-time buffers, reused across runs; see executor.c. */
struct rt_block {
	void *data;
	size_t capacity;
	int in_use;
};

/*
 * What the engine keeps per graph node, beside the IR: the op's view
 * (struct rt_kernel, with the state prepare() made) and run bookkeeping.
 * Indexed like graph.nodes; grown when passes add nodes.
 */
struct rt_node_state {
	struct rt_kernel kernel;
	int prepared;		/* prepare() ran: release() is owed */
	int infer_at_run;	/* shapes not all known at load */
	uint64_t last_ns;
};

struct enpu_rt_session {
	struct rt_error_sink errors;
	struct rt_graph graph;
	enpu_cpu_context *cpu;
	int optimize;
	struct rt_node_state *nodes;	/* per graph node */
	size_t node_capacity;
	struct rt_binding *bindings;	/* per graph input */
	struct rt_block *blocks;
	size_t block_count;
	int *value_block;		/* per value, -1 none */
	int *remaining;			/* per value, consumers left this run */
	const struct rt_tensor **in_ptrs;	/* scratch, max inputs */
	struct rt_tensor **out_ptrs;	/* scratch, max outputs */
	size_t max_inputs, max_outputs;
	int ran;
};

/* engine/bind.c: attach op defs. @strict: "unsupported op" if none. */
int rt_engine_bind(struct rt_graph *graph, int strict);

/*
 * engine/executor.c. The kernel view of node @n, refreshed from the IR
 * (growing the per-node array as needed); NULL on OOM with the error set.
 */
struct rt_kernel *rt_engine_kernel(struct enpu_rt_session *session,
				   size_t n);
/*
 * Shape inference over the sorted graph for every node whose input shapes
 * are known. @final: errors are reported and nodes still unknown are
 * inferred at run time; otherwise (before the lowering passes) a node
 * that cannot be inferred yet is left unknown.
 */
int rt_engine_infer(struct enpu_rt_session *session, int final);
/*
 * Constant folding: nodes whose inputs are all constant run once now and
 * their outputs become constants. @keep_dequantize leaves
 * DequantizeLinear alone, so the QDQ lowering still sees its groups.
 */
int rt_engine_fold(struct enpu_rt_session *session, int keep_dequantize);
/* prepare() for every live node (weight packing). */
int rt_engine_prepare_nodes(struct enpu_rt_session *session);

/* engine/pipeline.c: the whole load-time order (bind, passes, prepare). */
int rt_engine_prepare(struct enpu_rt_session *session);

int rt_engine_run(struct enpu_rt_session *session);
void rt_engine_release(struct enpu_rt_session *session);

#endif /* ENPU_RT_ENGINE_H */
