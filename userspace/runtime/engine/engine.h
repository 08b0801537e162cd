/* SPDX-License-Identifier: MIT */
/* Session internals shared by the API, the load pipeline and the run loop. */
#ifndef ENPU_RT_ENGINE_H
#define ENPU_RT_ENGINE_H

#include "backend.h"
#include "enpu/enpu_rt.h"
#include "ir.h"
#include "partition.h"
#include "rt_op.h"

#define RT_BACKEND_LIST_MAX 128
/* What a session places on without enpu_rt_options_set_backends(). */
#define RT_DEFAULT_BACKENDS "npu,cpu"
#define RT_PATH_MAX 512

struct enpu_rt_options {
	unsigned int threads;
	enum enpu_cpu_isa isa;
	int optimize;
	char backends[RT_BACKEND_LIST_MAX];	/* "npu,cpu" */
	struct rt_partition_options partitioning;
	char device_path[RT_PATH_MAX];	/* "" : the first ENPU */
	char cache_dir[RT_PATH_MAX];	/* "" : no cache */
	int cache_set;			/* else the default (session.c) */
	int device_time;		/* NPU: read PERF_BUSY_NS per job */
	int stream_copies;		/* NPU: no stream objects (bench) */
	/* rt_options_add_backend(): found by name before the built-ins. */
	const struct rt_backend_ops *extra[2];
	size_t extra_count;
	char error[4096];
};

struct rt_binding {
	int bound;
	int32_t rank;
	int64_t dims[RT_MAX_RANK];
	const void *data;
	size_t byte_size;
};

/* A dma-buf bound to a graph input or output (engine/dmabuf.c). */
struct rt_dmabuf {
	int fd;			/* the session's dup, -1: none */
	void *map;
	size_t size;
};

/*
 * What the engine keeps per graph node for load-time inference and
 * folding, beside the IR: the op's view (struct rt_kernel) and whether its
 * shapes were known at load. Indexed like graph.nodes.
 */
struct rt_node_state {
	struct rt_kernel kernel;
	int infer_at_run;	/* shapes not all known at load */
};

/* A backend a session asked for, and whether it could open. */
struct rt_session_backend {
	const struct rt_backend_ops *ops;
	void *self;		/* NULL: did not open */
	struct rt_backend_info info;
	char note[4096];	/* why it did not open */
};

/* Memory of a value at a seam between partitions (or the caller). */
struct rt_seam {
	void *data;
	size_t capacity;
	int owner;		/* backend index of seam_alloc, -1: malloc */
};

struct enpu_rt_session {
	struct rt_error_sink errors;
	struct rt_graph graph;
	enpu_cpu_context *cpu;
	int optimize;
	struct rt_partition_options partitioning;
	struct rt_node_state *nodes;	/* per graph node, load time */
	size_t node_capacity;
	const struct rt_tensor **in_ptrs;	/* scratch, load time */
	struct rt_tensor **out_ptrs;
	size_t max_inputs, max_outputs;
	/* Backends in preference order; the opened ones, in that order,
	 * are what the partitioner places on. */
	struct rt_session_backend requested[RT_PARTITION_MAX_BACKENDS];
	size_t requested_count;
	struct rt_placement_backend active[RT_PARTITION_MAX_BACKENDS];
	size_t active_count;
	struct rt_plan plan;
	void **compiled;		/* per partition */
	struct rt_fence *fences;	/* per partition, this run */
	struct rt_seam *seams;		/* per value */
	size_t seam_count;
	struct rt_binding *bindings;	/* per graph input */
	int ran;
	uint64_t model_hash;		/* model bytes + graph options */
	struct rt_dmabuf *in_dmabufs;	/* per graph input */
	struct rt_dmabuf *out_dmabufs;	/* per graph output */
	size_t run_next;		/* run_async: next partition */
	int running;			/* run_async returned, wait owed */
	const struct rt_backend_ops *extra[2];
	size_t extra_count;
	char device_path[RT_PATH_MAX];
	char cache_dir[RT_PATH_MAX];
	int device_time;
	int stream_copies;
};

/* engine/bind.c: attach op defs. @strict: "unsupported op" if none. */
int rt_engine_bind(struct rt_graph *graph, int strict);

/*
 * engine/shapes.c. The kernel view of node @n, refreshed from the IR
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

/* engine/backends.c: the backends a session can ask for by name. */
const struct rt_backend_ops *rt_engine_backend(
	const struct enpu_rt_session *session, const char *name);
/*
 * For tests (a simulated device, tests/npu): @ops is found by its name
 * before the built-in backends in sessions made with @options.
 */
int rt_options_add_backend(struct enpu_rt_options *options,
			   const struct rt_backend_ops *ops);
/*
 * For benchmarks (e2e-npu-bench): @on makes the npu backend submit its
 * streams the way it did before stream objects, copied by every SUBMIT
 * and validated every time, so that both ways run in one VM.
 */
int rt_options_set_stream_copies(struct enpu_rt_options *options, int on);
/* Opens the backends of @list ("npu,cpu"); notes say why one did not. */
int rt_engine_open_backends(struct enpu_rt_session *session,
			    const char *list);
void rt_engine_close_backends(struct enpu_rt_session *session);

/* engine/pipeline.c: the whole load-time order, placement, compilation. */
int rt_engine_prepare(struct enpu_rt_session *session);
void rt_engine_release_compiled(struct enpu_rt_session *session);

/* backend/cpu: per-node time of the last run of a CPU partition. */
int rt_cpu_node_time(const void *compiled, size_t node, uint64_t *ns);

/* engine/run.c: runs the partitions in order; releases them. run_async
 * stops before the first partition that must wait for a fence; finish
 * runs the rest and waits for every fence. run is both. */
int rt_engine_run(struct enpu_rt_session *session);
int rt_engine_run_async(struct enpu_rt_session *session);
int rt_engine_run_finish(struct enpu_rt_session *session);
/* engine/dmabuf.c: drops every dma-buf binding. */
void rt_engine_release_dmabufs(struct enpu_rt_session *session);
/* The mapping of the dma-buf bound to @value as a graph output, or NULL. */
/*
 * Memory of @size bytes for graph input @value, hosted by the backend that
 * reads it (enpu_rt_session_input_memory()); kept until the session is
 * destroyed or a larger size is asked for. NULL with the error set.
 */
void *rt_engine_input_memory(struct enpu_rt_session *session, int value,
			     size_t size);
void *rt_engine_output_dmabuf(struct enpu_rt_session *session, int value,
			      size_t bytes);
void rt_engine_release(struct enpu_rt_session *session);

#endif /* ENPU_RT_ENGINE_H */
