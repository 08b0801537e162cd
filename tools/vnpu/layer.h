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
	return opcode >= ENPU_CMD_CONV2D && opcode <= ENPU_CMD_COPY;
}

/* layer_check.c */
uint32_t layer_check(const struct vnpu_job *job, const uint8_t *cmd,
		     uint32_t cmd_size, uint32_t *rule);
void layer_decode(const uint8_t *cmd, struct layer *l);
void layer_cost(const struct layer *l, struct layer_cost *cost);
uint32_t dtype_size(uint32_t dtype);
uint64_t tensor_elements(const struct layer_tensor *t);
void dtype_range(uint32_t dtype, int32_t *lo, int32_t *hi);

/* layer_exec.c. A layer runs as one or more ranges of output elements
 * (tiles, NHWC order): the first call gathers its operands into a host
 * state that later ranges of the same command reuse. layer_run() is the
 * whole layer at once. */
struct layer_state;
uint32_t layer_run(const struct layer *l, const struct vnpu_job *job,
		   const struct guest_ram *ram);
uint32_t layer_run_range(const struct layer *l, const struct vnpu_job *job,
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

/* layer_pool.c */
void pool_compute(const struct layer *l, const int32_t *input,
		  const struct enpu_pool_param *params, uint64_t first,
		  uint64_t end, int32_t *out);

#endif /* VNPU_LAYER_H */
