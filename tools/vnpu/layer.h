/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network-layer commands (interface 1.2, uapi/enpu_cmd.h "Network layers").
 *
 * A command is decoded once into struct layer (layer_check.c), checked
 * before the job's first command runs, and performed when its device time
 * is used up (layer_exec.c): its operands are gathered from the BOs into
 * dense host buffers, the arithmetic runs on those (layer_conv.c,
 * layer_eltwise.c, layer_pool.c), and the result is scattered back, pixel
 * by pixel, so channels of a wider output (pixel_stride > channels) that
 * the layer does not own are never written. All inputs are read before any
 * output byte is written, so an output that overlaps an input sees the old
 * input values.
 */
#ifndef VNPU_LAYER_H
#define VNPU_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "enpu_cmd.h"
#include "enpu_quantization.h"
#include "vnpu.h"

/* Host scratch one command may use; beyond it the device reports host
 * trouble (ERROR) instead of letting a guest make the host allocate
 * without bound through repeated scatter-gather segments. */
#define LAYER_SCRATCH_MAX	(1ull << 30)

struct layer_tensor {
	uint32_t bo;
	uint64_t offset;
	uint32_t n, h, w, c;
	uint32_t pixel_stride;	/* resolved: never 0 */
	uint32_t dtype;		/* enum enpu_dtype */
	int32_t zero_point;
};

struct layer_ref {
	uint32_t bo;		/* ENPU_BUF_NONE: absent */
	uint64_t offset;
};

struct layer {
	uint16_t opcode;
	struct layer_tensor in;		/* eltwise: a */
	struct layer_tensor in2;	/* eltwise: b */
	struct layer_tensor out;
	struct layer_ref weights;
	struct layer_ref bias;
	struct layer_ref table;		/* per-channel (M, S) or pool params */
	int32_t multiplier, shift, left_shift;
	int32_t a_multiplier, b_multiplier, add_shift;
	int32_t min, max;
	uint32_t kernel_h, kernel_w, stride_h, stride_w;
	uint32_t dilation_h, dilation_w;
	uint32_t pad_top, pad_left, pad_bottom, pad_right;
	uint32_t groups, flags;
	float scale;			/* QUANTIZE (1.6), DEQUANTIZE (1.7) */
};

/* What performing a command costs; layer_cost() fills it. */
struct layer_cost {
	uint64_t macs;		/* saturating */
	uint64_t bytes;		/* saturating */
	uint64_t cycles;
};

/* Outcome of layer_run(): a job status, or host trouble. */
#define LAYER_HOST_TROUBLE	UINT32_MAX

/* Where output element @at (NHWC order, dense) of a layer is. */
struct out_index {
	uint64_t n;
	uint32_t y, x, c;
};

static inline struct out_index out_index_of(const struct layer_tensor *t,
					    uint64_t at)
{
	uint64_t pixel = at / t->c;

	return (struct out_index){
		.n = pixel / t->w / t->h,
		.y = (uint32_t)(pixel / t->w % t->h),
		.x = (uint32_t)(pixel % t->w),
		.c = (uint32_t)(at % t->c),
	};
}

static inline bool opcode_is_layer(uint16_t opcode)
{
	return opcode >= ENPU_CMD_CONV2D && opcode <= ENPU_CMD_DEQUANTIZE;
}

/* layer_check.c */
uint32_t layer_check(const struct vnpu_job *job, const uint8_t *cmd,
		     uint32_t cmd_size, uint32_t *rule);
void layer_decode(const uint8_t *cmd, struct layer *l);
void layer_cost(const struct layer *l, struct layer_cost *cost);
uint32_t dtype_size(uint32_t dtype);
uint64_t tensor_elements(const struct layer_tensor *t);
void dtype_range(uint32_t dtype, int32_t *lo, int32_t *hi);

/*
 * How a layer's arithmetic is done on the host. Two modes, bit for bit
 * the same results (tests/vnpu_exec compares them on random commands and
 * random tile splits): LAYER_MODE_FAST runs the CPU runtime's optimized
 * int8 kernels (libenpu-cpu: packed convolution, depthwise, FC, add/mul)
 * and the device's channel-vectorized pooling loops; LAYER_MODE_ORACLE
 * runs the device's own straight loops (layer_conv.c, layer_eltwise.c,
 * layer_pool.c), written independently of the CPU kernels, as the
 * reference. `vnpu --layers fast|oracle`.
 */
enum layer_mode {
	LAYER_MODE_FAST = 0,
	LAYER_MODE_ORACLE,
};

struct enpu_cpu_context;
struct layer_cache;
struct fast_conv;
struct requant_channel;
struct layer_engine;

/* Host memory FAST mode keeps packed weights in (layer_cache.c). */
#define LAYER_CACHE_BYTES	(256ull << 20)

/*
 * FAST mode's kernels (layer_fast.c), reached through this table so that
 * the device's own code (and whatever links only it, such as a fuzzer)
 * needs nothing of the CPU runtime. Functions returning int give 0, or -1
 * when the kernels refuse (the caller then runs the oracle).
 */
struct layer_fast_ops {
	/* The packed form of a CONV2D/DW/FC, from the cache or new; NULL
	 * when the kernels cannot take the layer. @key is everything the
	 * packed form depends on (layer_exec.c). */
	const struct fast_conv *(*conv_begin)(
		const struct layer_engine *e, const struct layer *l,
		const uint8_t *key, uint64_t key_bytes, const int8_t *weights,
		const int32_t *bias, const struct requant_channel *rq,
		bool per_channel);
	void (*conv_end)(const struct layer_engine *e,
			 const struct fast_conv *f);
	/* @input: @input_rows dense rows of one image with vertical padding
	 * in place as zero-point rows (FC: @input_rows pixels). */
	int (*conv_rows)(const struct layer_engine *e, const struct layer *l,
			 const struct fast_conv *f, const void *input,
			 uint32_t input_rows, void *out);
	/* Rows of one output image; @a and @b hold the rows of their images
	 * these read (one when broadcast in H). */
	int (*eltwise_rows)(const struct layer_engine *e,
			    const struct layer *l, const void *a,
			    const void *b, uint32_t rows, void *out);
	/* QUANTIZE of @count dense float32 elements. */
	void (*quantize)(const struct layer_engine *e, const struct layer *l,
			 const float *x, uint64_t count, uint8_t *out);
	/* DEQUANTIZE of @count dense 8-bit elements. */
	void (*dequantize)(const struct layer_engine *e,
			   const struct layer *l, const uint8_t *x,
			   uint64_t count, float *out);
};

/*
 * What performs layers: the mode and, for FAST, the kernels, the CPU
 * runtime's context and the cache of packed weights. A NULL engine, or a
 * zeroed one, computes with the oracle.
 */
struct layer_engine {
	enum layer_mode mode;
	const struct layer_fast_ops *fast;
	struct enpu_cpu_context *cpu;
	struct layer_cache *cache;
	/* FAST scatters a layer's output in chunks of whole rows of about
	 * this many bytes, each right after computing it (cache-hot);
	 * layer_engine_init() sets LAYER_SCATTER_CHUNK_BYTES. */
	uint64_t scatter_chunk_bytes;
	/*
	 * With more than one host thread: the same engine on a one-thread
	 * CPU context (sharing the cache), which layers whose modeled
	 * device time is below solo_cycles run on (layer_engine_for()):
	 * handing a layer that small to a second thread cost more than it
	 * saved. layer_engine_init() sets LAYER_SOLO_CYCLES.
	 */
	struct layer_engine *solo;
	uint64_t solo_cycles;
};

#define LAYER_SCATTER_CHUNK_BYTES (128 * 1024)
/* 8 us at the top OPP (1 GHz): about 30-40 us of host time at 1 thread. */
#define LAYER_SOLO_CYCLES 8000

/* The engine @l runs on: @e, or e->solo for a layer below the grain. */
const struct layer_engine *layer_engine_for(const struct layer_engine *e,
					    const struct layer *l);

/* "fast" / "oracle" -> mode; false for anything else. */
bool layer_mode_from_name(const char *name, enum layer_mode *mode);
const char *layer_mode_name(enum layer_mode mode);
/* layer_fast.c: @threads host threads for FAST (1 keeps the vnpu's
 * layer work on its event-loop thread). */
int layer_engine_init(struct layer_engine *e, enum layer_mode mode,
		      unsigned int threads);
void layer_engine_destroy(struct layer_engine *e);

/* layer_exec.c. A layer runs as one or more ranges of output elements
 * (tiles, NHWC order): the first call gathers its operands into a host
 * state that later ranges of the same command reuse, in any order.
 * layer_run() is the whole layer at once. @e may be NULL (oracle). */
struct layer_state;
uint32_t layer_run(const struct layer_engine *e, const struct layer *l,
		   const struct vnpu_job *job, const struct guest_ram *ram);
uint32_t layer_run_range(const struct layer_engine *e, const struct layer *l,
			 const struct vnpu_job *job,
			 const struct guest_ram *ram, struct layer_state **state,
			 uint64_t first, uint64_t end);
void layer_state_free(struct layer_state *state);

/*
 * The arithmetic, on dense host buffers (pixel_stride = channels): every
 * element widened to int32 as stored (no zero point removed), outputs as
 * the int32 values to store.
 */
struct requant_channel {
	int32_t multiplier;
	int32_t shift;
};

/* layer_conv.c: acc[pixel][o] (wrap-around int32) for conv and FC, for
 * the output elements [first, end); the buffers are the whole tensors. */
void conv_regroup_weights(const struct layer *l, const int8_t *weights,
			  int32_t *taps);
void conv_accumulate(const struct layer *l, const int32_t *input,
		     const int8_t *weights, const int32_t *taps,
		     const int32_t *bias, uint64_t first, uint64_t end,
		     int32_t *acc);
void fc_accumulate(const struct layer *l, const int32_t *input,
		   const int8_t *weights, const int32_t *bias, uint64_t first,
		   uint64_t end, int32_t *acc);
void requantize_all(const struct layer *l, int32_t *values, uint64_t first,
		    uint64_t end, const struct requant_channel *rq,
		    bool per_channel);

/* layer_eltwise.c */
void eltwise_compute(const struct layer *l, const int32_t *a,
		     const int32_t *b, uint64_t first, uint64_t end,
		     int32_t *out);

/* layer_quantize.c: QUANTIZE's elements [first, end) from the float32
 * bits in @in, as the 8-bit values to store. */
void quantize_compute(const struct layer *l, const int32_t *in,
		      uint64_t first, uint64_t end, int32_t *out);
/* DEQUANTIZE's elements [first, end) from the 8-bit values in @in, as
 * the float32 bits to store. */
void dequantize_compute(const struct layer *l, const int32_t *in,
			uint64_t first, uint64_t end, int32_t *out);

/* layer_pool.c */
void pool_compute(const struct layer *l, const int32_t *input,
		  const struct enpu_pool_param *params, uint64_t first,
		  uint64_t end, int32_t *out);
/* FAST: output rows [first, end) of one image from its dense bytes;
 * @sum is scratch for out.c values. */
void pool_fast_rows(const struct layer *l, const uint8_t *image,
		    const struct enpu_pool_param *params, uint32_t first,
		    uint32_t end, uint8_t *out, uint32_t *sum);

#endif /* VNPU_LAYER_H */
