/* SPDX-License-Identifier: MIT */
/* Session internals shared by the API and the executor. */
#ifndef ENPU_RT_ENGINE_H
#define ENPU_RT_ENGINE_H

#include "enpu/enpu_rt.h"
#include "ir.h"

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

struct enpu_rt_session {
	struct rt_error_sink errors;
	struct rt_graph graph;
	enpu_cpu_context *cpu;
	int optimize;
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

/* Load-time: sort, fuse, infer, fold, prepare. */
int rt_engine_prepare(struct enpu_rt_session *session);
int rt_engine_run(struct enpu_rt_session *session);
void rt_engine_release(struct enpu_rt_session *session);

#endif /* ENPU_RT_ENGINE_H */
