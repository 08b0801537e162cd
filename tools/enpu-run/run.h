/* SPDX-License-Identifier: MIT */
/* enpu-run internals: inputs (run_inputs.c) and reports (run_report.c). */
#ifndef ENPU_RUN_H
#define ENPU_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "enpu/enpu_rt.h"

#define RUN_MAX_FILES 64

struct run_input_file {
	const char *name;	/* NULL: the first input */
	const char *path;
};

/* One bound input: its buffer and shape. */
struct run_input {
	void *data;
	int32_t dtype;
	size_t rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	size_t byte_size;
};

/* Host buffers bound to a session's inputs, freed by run_inputs_free(). */
struct run_inputs {
	struct run_input *inputs;
	size_t count;
};

/*
 * Binds every input of @session: from @files (serialized TensorProtos),
 * the rest random (seeded, @random) or zero-filled; symbolic dims as 1.
 * Prints what it did. 0, or -1 with a message on stderr.
 */
int run_inputs_bind(enpu_rt_session *session,
		    const struct run_input_file *files, size_t file_count,
		    int random, uint32_t seed, struct run_inputs *inputs);
/* Binds the same buffers to another session of the same model. */
int run_inputs_rebind(const struct run_inputs *inputs, enpu_rt_session *to);
void run_inputs_free(struct run_inputs *inputs);

/*
 * run_dmabuf.c: a dma-buf standing in for a camera frame, from one of two
 * exporters: a vgem dumb buffer (a GPU/display driver's BO) or a udmabuf
 * over a sealed memfd (plain shmem pages, what a V4L2 or virtio producer
 * hands out).
 */
enum run_buffer_kind {
	RUN_BUFFER_VGEM = 0,
	RUN_BUFFER_UDMABUF,
};

struct run_dmabuf {
	enum run_buffer_kind kind;
	int vgem, memfd, fd;
	uint32_t handle;
	uint64_t size;
	size_t bytes;
};

#define RUN_DMABUF_INIT { .vgem = -1, .memfd = -1, .fd = -1 }

/* "vgem" or "udmabuf" to @kind; -1 for anything else. */
int run_buffer_kind_parse(const char *name, enum run_buffer_kind *kind);
const char *run_buffer_kind_name(enum run_buffer_kind kind);
/* A dma-buf of @bytes holding @data; 0, or -1 with a message. */
int run_dmabuf_create(struct run_dmabuf *d, enum run_buffer_kind kind,
		      const void *data, size_t bytes);
void run_dmabuf_destroy(struct run_dmabuf *d);
/* Input 0 of @s bound as a dma-buf of @kind holding @in's bytes (made on
 * first use, @d initialised with RUN_DMABUF_INIT). */
int run_inputs_bind_dmabuf(const struct run_inputs *in, enpu_rt_session *s,
			   enum run_buffer_kind kind, struct run_dmabuf *d);

/* Bytes the last run copied at partition seams (staging), all partitions. */
uint64_t run_seam_copies(const enpu_rt_session *s);

/* The backends asked for and why any is missing. */
void run_print_backends(const enpu_rt_session *session);
/* Each node's placement and reason; partitions; the MAC share. */
void run_print_plan(const enpu_rt_session *session);
/* Outputs: the first values, or with @top_k the k largest (index, value). */
void run_print_outputs(const enpu_rt_session *session, size_t top_k);
/* Per-partition host and device time of the last run. */
void run_print_partition_times(const enpu_rt_session *session);
void run_print_profile(const enpu_rt_session *session);
/*
 * The largest difference of each output between @a and @b (same model);
 * 0 when every output is equal bit for bit. -1 when they cannot be
 * compared.
 */
int run_compare(const enpu_rt_session *a, const enpu_rt_session *b,
		const char *b_name);

/* --thermal (run_thermal.c): plans switched by the thermal policy. */
struct run_thermal_args {
	int enabled;
	int verbose;
	const char *root;		/* sysfs root, default "/" */
	uint32_t poll_ms;		/* default 1000 */
	uint32_t latency_target_us;	/* 0: none */
	int preference;			/* enum enpu_th_preference */
};
int run_thermal(const struct run_thermal_args *thermal, const char *model,
		const struct run_input_file *files, size_t file_count,
		int random, uint32_t seed, unsigned int threads,
		int iterations);

#endif /* ENPU_RUN_H */
