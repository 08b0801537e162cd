/* SPDX-License-Identifier: MIT */
/*
 * The backend seam, shaped like ONNX Runtime's execution providers: a
 * backend (cpu, npu; OpenCL next) says which nodes it can take and why it
 * refuses the others (claim, ORT's GetCapability), lowers the nodes placed
 * on it in its own way, compiles a partition into something it can run
 * (ORT's Compile), and runs it with fences. The partitioner
 * (partition/partition.h) sees backends only through this table, so adding
 * a backend is one more table and one line in the engine's list
 * (engine/backends.c); no partitioner code changes.
 *
 * Call order for a session: open; claim for every live node (after the
 * backend-neutral passes, shapes inferred where static); lower (once,
 * nodes of this backend only: graph->scope); compile per partition; run
 * many times; release per partition; close.
 */
#ifndef ENPU_RT_BACKEND_H
#define ENPU_RT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "rt_types.h"

struct enpu_cpu_context;

/* Why a backend does not take a node; RT_REFUSE_NONE: it does. */
enum rt_refusal {
	RT_REFUSE_NONE = 0,
	RT_REFUSE_OP,		/* no such op (at this opset, domain) */
	RT_REFUSE_DTYPE,	/* an input or output type */
	RT_REFUSE_ATTRIBUTE,	/* an attribute value or variant */
	RT_REFUSE_LIMIT,	/* a numeric limit: kernel size, accumulator
				 * range, channel count, scale */
	RT_REFUSE_MEMORY,	/* a tensor too large for the device memory */
	RT_REFUSE_SHAPE,	/* shape unknown until run time */
	RT_REFUSE_UNAVAILABLE,	/* the backend has no device here */
};

/* "op", "dtype", ... for reports. */
const char *rt_refusal_name(enum rt_refusal refusal);

struct rt_claim {
	enum rt_refusal refusal;
	char reason[200];	/* names the op, input, attribute or limit */
	double cost_ns;		/* estimated time of the node here */
};

/* What the partitioner needs to know about a backend as a whole. */
struct rt_backend_info {
	/* Fixed cost of running one partition (submit, wait), ns. */
	double dispatch_ns;
	/* Its memory is the host's (or mapped into it without a copy):
	 * values at a seam with another such backend cost no transfer. */
	int shares_host_memory;
	/* Bytes per ns for what must be copied at a seam otherwise. */
	double copy_bytes_per_ns;
	/* Runs asynchronously: run() returns before the work is done and
	 * wait() must be called before its outputs are read. */
	int asynchronous;
};

/* Everything a session hands its backends. */
struct rt_backend_env {
	struct enpu_cpu_context *cpu;	/* the session's threads and ISA */
	struct rt_error_sink *errors;
	const char *cache_dir;		/* compiled-partition cache, or NULL */
	const char *device_path;	/* NPU node to use, or NULL: first */
	uint64_t model_hash;		/* for cache keys */
	int device_time;		/* measure each job's device time */
	int stream_copies;		/* NPU: no stream objects (benchmark) */
};

/* A set of nodes one backend runs as a unit. */
struct rt_partition {
	int index;
	int backend;
	size_t *nodes;		/* topological order */
	size_t node_count;
	int *inputs;		/* values it reads that others produce */
	size_t input_count;
	int *outputs;		/* values others (or the caller) read */
	size_t output_count;
	uint64_t macs;
};

/*
 * What a running partition gets from the engine. Values at a seam (the
 * partition's inputs and outputs) are the engine's: their data is set
 * before run() for inputs; for an output, provide() sets it once its
 * shape is known (after run-time shape inference).
 */
struct rt_exec_host {
	void *ctx;
	int (*provide)(void *ctx, int value);
};

/* The last run of a compiled partition, for reports. */
struct rt_partition_stats {
	uint64_t host_ns;	/* wall time, run to completion */
	uint64_t device_ns;	/* the device's busy time (0: none) */
	uint64_t modeled_ns;	/* the compiler's estimate of device time */
	uint64_t copied_bytes;	/* copied at the seams (staging) */
	uint32_t commands;	/* device commands */
	int from_cache;		/* compiled form loaded from disk */
};

/* Completion of an asynchronous run: the backend's own token. */
struct rt_fence {
	uint64_t token;		/* 0: already complete */
};

struct rt_backend_ops {
	const char *name;	/* "cpu", "npu": what --backends lists */
	/*
	 * Opens the backend for a session; on failure (e.g. no device)
	 * @why says so and the session goes on without it (or refuses to
	 * under strict mode).
	 */
	int (*open)(const struct rt_backend_env *env, void **self,
		    struct rt_backend_info *info, struct rt_error_sink *why);
	void (*close)(void *self);
	/* GetCapability for one node; must not change the graph. */
	void (*claim)(void *self, const struct rt_graph *graph, size_t node,
		      struct rt_claim *claim);
	/* Backend-specific lowering of the nodes with node->backend ==
	 * graph->scope (optional). Nodes it adds get that backend. */
	int (*lower)(void *self, struct rt_graph *graph);
	/* Compile: the partition into the backend's own form. */
	int (*compile)(void *self, struct rt_graph *graph,
		       const struct rt_partition *partition, void **compiled,
		       struct rt_error_sink *why);
	/* Run once; with @fence (asynchronous backends) the work may still
	 * be going on when it returns. */
	int (*run)(void *self, void *compiled, const struct rt_exec_host *host,
		   struct rt_fence *fence);
	int (*wait)(void *self, void *compiled, struct rt_fence *fence);
	void (*release)(void *self, void *compiled);
	/*
	 * Memory for a value at a seam this backend reads or writes, mapped
	 * for the host, so that neither side copies (optional: without it
	 * the engine uses host memory and the backend copies if it must).
	 */
	void *(*seam_alloc)(void *self, size_t bytes);
	void (*seam_free)(void *self, void *data);
	/*
	 * A dma-buf the caller bound to a graph input or output, mapped by
	 * the engine at @map (optional): the backend makes it its own seam
	 * memory (the NPU imports it), so a partition reading or writing
	 * @map copies nothing. seam_forget() undoes it before the unmap.
	 */
	int (*seam_import)(void *self, int dmabuf_fd, void *map, size_t bytes);
	void (*seam_forget)(void *self, void *map);
	/* What the last run of @compiled cost (optional). */
	void (*stats)(void *self, void *compiled,
		      struct rt_partition_stats *stats);
};

/* The CPU backend (backend/cpu): takes every node that has a kernel. */
extern const struct rt_backend_ops rt_backend_cpu;
/* The NPU backend (backend/npu): an ENPU device through libenpu. */
extern const struct rt_backend_ops rt_backend_npu;

#endif /* ENPU_RT_BACKEND_H */
