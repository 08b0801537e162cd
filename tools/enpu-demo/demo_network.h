/* SPDX-License-Identifier: MIT */
/*
 * The demo network: a small int8 CNN in the shape of a MobileNetV2 block
 * stack, described once as data (layers, tensors at offsets of four
 * buffers, quantization parameters) so that the NPU encoder and the two CPU
 * executors read the same description and cannot drift apart.
 */
#ifndef ENPU_DEMO_NETWORK_H
#define ENPU_DEMO_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_cpu.h"

/*
 * Where a tensor or parameter block lives. On the device each is one BO of
 * the job's list, in this order; on the host each is one allocation.
 */
enum demo_buffer {
	DEMO_BUFFER_INPUT = 0,	/* the image, read only */
	DEMO_BUFFER_PARAMS,	/* weights, biases, requant and pool tables */
	DEMO_BUFFER_ARENA,	/* every intermediate activation */
	DEMO_BUFFER_OUTPUT,	/* the logits, write only */
	DEMO_BUFFER_COUNT,
};

enum demo_layer_kind {
	DEMO_CONV2D,
	DEMO_DEPTHWISE_CONV2D,
	DEMO_ADD,
	DEMO_MAX_POOL,
	DEMO_AVG_POOL,
	DEMO_FULLY_CONNECTED,
};

/* An int8 NHWC tensor of batch 1, dense, with its real-valued scale. */
struct demo_tensor {
	enum demo_buffer buffer;
	uint64_t offset;
	uint32_t height;
	uint32_t width;
	uint32_t channels;
	int32_t zero_point;
	double scale;
};

/* No parameter block (bias, per-channel table, pool table). */
#define DEMO_NO_PARAMS UINT64_MAX

struct demo_layer {
	enum demo_layer_kind kind;
	char name[48];
	char note[48];
	struct demo_tensor input;
	struct demo_tensor input_b;	/* ADD only */
	struct demo_tensor output;
	uint64_t macs;			/* as the vnpu timing model counts them */

	/* CONV2D, DEPTHWISE_CONV2D, FULLY_CONNECTED. */
	struct enpu_cpu_conv_shape conv;
	uint64_t weights_offset;	/* OIHW, or [N][K] for FC */
	uint64_t bias_offset;		/* int32[out channels] */
	uint64_t requant_offset;	/* enpu_requant_param[], or NONE */
	int32_t *multiplier;		/* [out channels], host copy */
	int32_t *shift;
	int8_t *fc_weights_kn;		/* FC: B[K][N] for the CPU GEMM */
	int32_t min;			/* fused clamp of the output */
	int32_t max;

	/* MAX_POOL, AVG_POOL (global average is AVG_POOL over the image). */
	struct enpu_cpu_pool_shape pool;
	int global_pool;
	double pool_scale;		/* input scale / output scale */
	uint64_t pool_table_offset;	/* enpu_pool_param[taps], or NONE */
	int32_t pool_multiplier;	/* with the table NONE */
	int32_t pool_shift;
	int32_t pool_left_shift;

	/* ADD. */
	struct enpu_cpu_eltwise_params add;
};

#define DEMO_MAX_LAYERS 16

struct demo_network {
	struct demo_layer layer[DEMO_MAX_LAYERS];
	size_t layer_count;
	/* Host contents of the read-only buffers. */
	unsigned char *input;
	unsigned char *params;
	/* Sizes of all four buffers in bytes. */
	uint64_t size[DEMO_BUFFER_COUNT];
	uint64_t params_capacity;
	struct demo_tensor logits;
	uint64_t total_macs;
};

/*
 * Builds the network: weights from a xorshift generator seeded with seed,
 * the gradient input image, and quantization parameters calibrated on that
 * image with the CPU reference kernels (cpu). error receives a message on
 * failure; the network is left empty then.
 */
int demo_network_build(struct demo_network *network, enpu_cpu_context *cpu,
		       uint64_t seed, size_t error_size, char *error);
void demo_network_release(struct demo_network *network);

/* "16x16x24". */
void demo_tensor_format(const struct demo_tensor *tensor, size_t size,
			char *buffer);
uint64_t demo_tensor_bytes(const struct demo_tensor *tensor);
const char *demo_layer_kind_name(enum demo_layer_kind kind);

#endif /* ENPU_DEMO_NETWORK_H */
