/* SPDX-License-Identifier: MIT */
/*
 * The NPU backend's internals (docs/runtime.md, "The NPU backend"): the
 * device (npu_backend.c), what it claims (npu_claim.c), the compiler that
 * lowers a partition to one command stream through libenpu's builders
 * (npu_compile.c, npu_tiling.c), the cache of compiled streams on disk
 * (npu_cache.c) and the device's counters (npu_counters.c). This is the
 * only code of the runtime that links libenpu.
 */
#ifndef ENPU_RT_NPU_H
#define ENPU_RT_NPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <enpu/enpu.h>

#include "backend.h"
#include "ir.h"

/*
 * Device time between two preemption points the compiler keeps every
 * command under (at the top clock): the scheduler's bound. The driver does
 * not report the device's PREEMPT_BOUND_NS (interface 1.4, default 16 us)
 * through GET_PARAM yet, so this is that default, written once here.
 */
#define NPU_COMMAND_BOUND_NS	16000u
/*
 * Cost of each preemption point (PREEMPT_POINT_CYCLES, interface 1.4): a
 * command may take the bound minus this. Also not a GET_PARAM.
 */
#define NPU_POINT_CYCLES	128u
/* The timing model's memory rate (docs/hw/vnpu.md, "Timing"). */
#define NPU_BYTES_PER_CYCLE	32u
/* Alignment of tensors in the arena and the constants. */
#define NPU_ALIGN		64u
/* Estimated cost of one job round trip (submit to fence), for placement. */
#define NPU_DISPATCH_NS		150000.0
/* Largest tensor the backend places in one BO. */
#define NPU_TENSOR_MAX_BYTES	(256ull << 20)
/* How long after its submit a run waits for its job before calling it hung. */
#define NPU_JOB_TIMEOUT_NS	(20ll * 1000 * 1000 * 1000)

/* A BO handed out as seam memory, found again by its mapping. */
struct npu_seam_bo {
	enpu_bo *bo;
	void *map;
	uint64_t size;
	int imported;		/* a caller's dma-buf: mapped by the engine */
};

struct npu_backend {
	enpu_device *device;
	enpu_context *context;
	struct enpu_device_params params;
	char driver_version[128];
	struct enpu_cpu_context *cpu;	/* the session's: parameter rules */
	struct rt_error_sink *errors;
	struct npu_seam_bo *seams;
	size_t seam_count;
	char cache_dir[512];		/* "" : no cache */
	uint64_t model_hash;
	char counters[600];		/* debugfs regs, "" if unreadable */
	uint32_t bound_ns;		/* per command; NPU_COMMAND_BOUND_NS */
	uint32_t context_id;
	int stream_copies;		/* rt_options_set_stream_copies() */
};

/* Where a tensor is: a BO of the job's list and an NHWC description. */
enum npu_bo_slot {
	NPU_BO_ARENA = 0,	/* intermediates, read-write */
	NPU_BO_CONSTS = 1,	/* weights, biases, tables, read-only */
	NPU_BO_SEAMS = 2,	/* + boundary index: the partition's seams */
};

struct npu_tensor {
	uint32_t bo;
	uint64_t offset;
	uint32_t n, h, w, c;
	uint32_t pixel_stride;	/* 0: c */
	uint32_t dtype;		/* enum enpu_dtype */
	int32_t zero_point;
};

/* A value at the partition's seams, in ONNX layout at BO NPU_BO_SEAMS+i. */
struct npu_boundary {
	int value;
	int output;		/* written by the job */
	uint64_t bytes;
};

/*
 * A compiled partition. The first block is what npu_cache.c stores; the
 * rest is the device state a session builds from it.
 */
struct npu_compiled {
	uint8_t *stream;
	uint32_t stream_size;
	uint8_t *consts;
	uint64_t consts_size;
	uint64_t arena_size;
	struct npu_boundary *boundaries;
	uint32_t boundary_count;
	uint32_t command_count;
	uint64_t cycles;		/* modeled, at the top clock */
	uint64_t longest_cycles;	/* of one command */
	uint32_t over_budget;		/* commands above the bound */

	struct npu_backend *backend;
	struct rt_graph *graph;
	/* The stream handed to the kernel once (instantiate()); NULL for
	 * an empty stream. */
	enpu_stream *stream_obj;
	enpu_bo *arena, *consts_bo;
	/* Held for the form's life: a CPU mapping keeps a shmem BO's pages
	 * (npu_backend.c, instantiate()). */
	void *arena_map, *consts_map;
	struct enpu_submit_bo *list;	/* the job's BOs, this run */
	enpu_bo **staging;		/* per boundary, when not a seam BO */
	void **staging_map;
	uint32_t syncobj;
	int busy;			/* submitted, not waited for */
	uint64_t submitted_ns, host_ns, device_ns;
	uint64_t busy_before;		/* PERF_BUSY_NS at submit */
	uint64_t copied_bytes;		/* copies at seams, last run */
	int from_cache;
};

/* What a node becomes on the device. */
enum npu_op {
	NPU_OP_NONE = 0,
	NPU_OP_CONV,		/* CONV2D or DEPTHWISE_CONV2D */
	NPU_OP_FC,
	NPU_OP_ADD,
	NPU_OP_MUL,
	NPU_OP_MAX_POOL,
	NPU_OP_AVG_POOL,
	NPU_OP_GLOBAL_POOL,
	NPU_OP_CONCAT,		/* COPY into channel slices */
	NPU_OP_ALIAS,		/* no command: the same bytes */
	NPU_OP_QUANTIZE,	/* QUANTIZE (interface 1.6) */
	NPU_OP_DEQUANTIZE,	/* DEQUANTIZE (interface 1.7) */
};

/* The interface QUANTIZE and FLOAT32 tensors came with. */
#define NPU_HW_QUANTIZE		(1u << 16 | 6)
/* The interface DEQUANTIZE came with. */
#define NPU_HW_DEQUANTIZE	(1u << 16 | 7)

/* npu_claim.c */
void npu_claim(struct npu_backend *b, const struct rt_graph *g, size_t node,
	       struct rt_claim *claim);
enum npu_op npu_op_of(const struct rt_node *node);
/*
 * The device tensor of an 8-bit, int32 or float value by its ONNX shape
 * (float: QUANTIZE's input only): rank 4
 * [N,C,H,W] as N,H,W,C; rank 2 [M,K] as 1,1,M,K; rank 1 [K] as 1,1,1,K.
 * False for any other shape. Only dims and dtype are set.
 */
bool npu_value_shape(const struct rt_value *v, struct npu_tensor *t);
/* The same for @x seen at @rank (leading 1s, numpy broadcasting). */
bool npu_broadcast_shape(const struct rt_tensor *x, int rank,
			 struct npu_tensor *t);
/* The device layout holds the bytes in ONNX order (rank != 4, C == 1 or
 * H * W == 1): such a value crosses a seam without a transpose. */
bool npu_layout_is_onnx(const struct rt_value *v);
/* in[0..max) from the node's inputs, NULL when absent; the node's count. */
size_t npu_node_inputs(const struct rt_graph *g, const struct rt_node *node,
		       const struct rt_tensor **in, size_t max);

/* npu_tiling.c: how long a command may be, and how to cut a layer. */
struct npu_limits {
	uint64_t budget_cycles;		/* per command, at the top clock */
	uint64_t sram_bytes;		/* a command's working set */
	uint64_t macs_per_cycle;
};

void npu_limits_init(struct npu_limits *l, uint32_t bound_ns,
		     uint64_t clock_khz, uint64_t macs_per_cycle,
		     uint64_t sram_bytes);
uint64_t npu_cycles(const struct npu_limits *l, uint64_t macs,
		    uint64_t bytes);
bool npu_fits(const struct npu_limits *l, uint64_t macs, uint64_t bytes);

/* Input rows a band of output rows [r0, r1) of a window op reads. */
struct npu_band {
	uint32_t in_y0, in_rows, pad_top, pad_bottom;
};
void npu_conv_band(uint32_t height, uint32_t kernel, uint32_t stride,
		   uint32_t dilation, uint32_t pad_top, uint32_t r0,
		   uint32_t r1, struct npu_band *band);
/*
 * Bands of at most @per_band rows (0 counts as 1: one row that does not
 * fit still gets a band of its own), balanced: band i is [r0, r1).
 */
uint32_t npu_band_count(uint32_t rows, uint32_t per_band);
void npu_band_rows(uint32_t rows, uint32_t bands, uint32_t i, uint32_t *r0,
		   uint32_t *r1);
/* The largest count in 1..@rows that @fits (monotone), 0 if not even 1. */
uint32_t npu_most_rows(uint32_t rows, bool (*fits)(void *ctx, uint32_t rows),
		       void *ctx);

/* npu_compile.c: the stream, constants, arena and seams of @p. */
int npu_compile(struct npu_backend *b, struct rt_graph *g,
		const struct rt_partition *p, struct npu_compiled *c,
		struct rt_error_sink *why);
void npu_compiled_free_form(struct npu_compiled *c);

/* npu_cache.c: load or store a compiled partition's form on disk. */
int npu_cache_load(struct npu_backend *b, const struct rt_graph *g,
		   const struct rt_partition *p, struct npu_compiled *c);
void npu_cache_store(struct npu_backend *b, const struct rt_graph *g,
		     const struct rt_partition *p,
		     const struct npu_compiled *c);

/* npu_counters.c: the debugfs `regs` file of the first ENPU (0, or a
 * negative errno); PERF_BUSY_NS from it (-1 when not readable). */
int npu_counters_find(char *path, size_t size);
int npu_counters_busy_ns(const char *path, uint64_t *busy_ns);

#endif /* ENPU_RT_NPU_H */
