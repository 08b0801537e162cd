/* SPDX-License-Identifier: MIT */
/*
 * ENPU command-stream format, shared by the NPU compiler (userspace), the
 * kernel validator and the device model.
 *
 * A stream is a sequence of commands packed back to back. Each command
 * starts with struct enpu_cmd_header; @size counts the whole command,
 * header included, and is a multiple of 8, so a reader can always skip to
 * the next command. The stream ends at its last byte; there is no end
 * marker. Version 1.1 defines NOP and the DMA commands; the network-layer
 * commands come next.
 *
 * Memory is never named by address: a struct enpu_buf_ref names a BO by its
 * index in the submit's BO list plus a byte offset. The kernel checks every
 * reference against the BO's size and the access the submit declared, then
 * gives the device a scatter-gather table per BO (docs/hw/vnpu.md).
 */
#ifndef ENPU_CMD_H
#define ENPU_CMD_H

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: limits of the command format
 *
 * Every numeric limit of the format, in one place: the kernel validator,
 * the device model, libenpu's command builders, the compiler, the tests
 * and the docs all read these macros rather than repeat a number.
 *
 * - ENPU_CMD_ALIGN: command sizes and the stream size are multiples of it.
 * - ENPU_CMD_MAX_STREAM: bytes of one job's stream.
 * - ENPU_CONV_KERNEL_MAX: CONV2D kernel height/width are 1..this.
 * - ENPU_CONV_PAD_MAX: CONV2D pads are 0..this.
 * - ENPU_LAYER_STRIDE_MAX: CONV2D and pool strides are 1..this.
 * - ENPU_LAYER_DILATION_MAX: CONV2D and pool dilations are 1..this.
 * - ENPU_POOL_KERNEL_MAX: pool kernel height/width are 1..this (pads are
 *   below the kernel size, so they need no limit of their own).
 * - ENPU_FC_K_MAX: FULLY_CONNECTED K (input channels) is at most this,
 *   which keeps the int32 sum of products from overflowing.
 * - ENPU_REQUANT_SHIFT_MIN, ENPU_REQUANT_SHIFT_MAX: the total right shift S
 *   of every requantization (CONV2D, FC, MUL, AVG_POOL, tables included).
 * - ENPU_ADD_MULTIPLIER_LIMIT: ADD multipliers are 0..this - 1.
 * - ENPU_ADD_SHIFT_MIN, ENPU_ADD_SHIFT_MAX: the ADD shift.
 * - ENPU_MUL_LEFT_SHIFT_MAX: the MUL left shift L is 0..this.
 * - ENPU_POOL_LEFT_SHIFT_MAX: the AVG_POOL left shift L is 0..this.
 * - ENPU_FILL_VALUE_MAX: the largest DMA_FILL value (one byte).
 * - ENPU_QUANTIZE_SCALE_MIN, ENPU_QUANTIZE_SCALE_LIMIT: the bits of a
 *   QUANTIZE scale, read as a __u32, are MIN..LIMIT - 1: a positive,
 *   finite, non-zero binary32 (subnormals included), checkable without
 *   floating point, which the kernel does not use. DEQUANTIZE (1.7)
 *   takes its scale under the same rule.
 *
 * Multipliers M of struct enpu_requant_param are 0 <= M < 2^31, which
 * their __s32 type already says: a negative value is the only bad one.
 */
#define ENPU_CMD_ALIGN			8
#define ENPU_CMD_MAX_STREAM		(1u << 20)
#define ENPU_CONV_KERNEL_MAX		255
#define ENPU_CONV_PAD_MAX		255
#define ENPU_LAYER_STRIDE_MAX		255
#define ENPU_LAYER_DILATION_MAX		255
#define ENPU_POOL_KERNEL_MAX		65535
#define ENPU_FC_K_MAX			65536
#define ENPU_REQUANT_SHIFT_MIN		31
#define ENPU_REQUANT_SHIFT_MAX		62
#define ENPU_ADD_MULTIPLIER_LIMIT	(1 << 21)
#define ENPU_ADD_SHIFT_MIN		1
#define ENPU_ADD_SHIFT_MAX		31
#define ENPU_MUL_LEFT_SHIFT_MAX		15
#define ENPU_POOL_LEFT_SHIFT_MAX	30
#define ENPU_FILL_VALUE_MAX		0xff
#define ENPU_QUANTIZE_SCALE_MIN		0x00000001u
#define ENPU_QUANTIZE_SCALE_LIMIT	0x7f800000u

/**
 * enpu_cmd_stream_size_valid() - whether a stream length is one the format allows
 * @size: the stream's length in bytes
 *
 * A multiple of ENPU_CMD_ALIGN, at most ENPU_CMD_MAX_STREAM. Whether 0 (no
 * stream) is allowed is the caller's rule: SUBMIT takes it, STREAM_CREATE
 * does not. The kernel and libenpu both call this, so the rule is written
 * once.
 *
 * Return: non-zero when @size is allowed.
 */
static inline int enpu_cmd_stream_size_valid(__u32 size)
{
	return !(size % ENPU_CMD_ALIGN) && size <= ENPU_CMD_MAX_STREAM;
}

/**
 * enum enpu_cmd_opcode - command opcodes
 * @ENPU_CMD_NOP: does nothing for @cycles device cycles (struct enpu_cmd_nop).
 * @ENPU_CMD_DMA_COPY: copies bytes between BOs (struct enpu_cmd_dma_copy).
 * @ENPU_CMD_DMA_FILL: fills bytes of a BO (struct enpu_cmd_dma_fill).
 * @ENPU_CMD_CONV2D: int8 convolution (struct enpu_cmd_conv2d).
 * @ENPU_CMD_DEPTHWISE_CONV2D: depthwise convolution, same struct, with
 *	groups == input channels == output channels.
 * @ENPU_CMD_FULLY_CONNECTED: int8 matrix multiply (struct enpu_cmd_fc).
 * @ENPU_CMD_ADD: quantized elementwise add (struct enpu_cmd_eltwise).
 * @ENPU_CMD_MUL: quantized elementwise multiply (struct enpu_cmd_eltwise).
 * @ENPU_CMD_MAX_POOL: max pooling (struct enpu_cmd_pool).
 * @ENPU_CMD_AVG_POOL: average pooling (struct enpu_cmd_pool).
 * @ENPU_CMD_COPY: strided tensor copy, for CONCAT and layout moves
 *	(struct enpu_cmd_copy).
 * @ENPU_CMD_QUANTIZE: interface 1.6: float32 to 8-bit, ONNX QuantizeLinear
 *	with one scale (struct enpu_cmd_quantize).
 * @ENPU_CMD_DEQUANTIZE: interface 1.7: 8-bit to float32, ONNX
 *	DequantizeLinear with one scale (struct enpu_cmd_dequantize).
 */
enum enpu_cmd_opcode {
	ENPU_CMD_NOP = 0,
	ENPU_CMD_DMA_COPY = 1,
	ENPU_CMD_DMA_FILL = 2,
	ENPU_CMD_CONV2D = 3,
	ENPU_CMD_DEPTHWISE_CONV2D = 4,
	ENPU_CMD_FULLY_CONNECTED = 5,
	ENPU_CMD_ADD = 6,
	ENPU_CMD_MUL = 7,
	ENPU_CMD_MAX_POOL = 8,
	ENPU_CMD_AVG_POOL = 9,
	ENPU_CMD_COPY = 10,
	ENPU_CMD_QUANTIZE = 11,
	ENPU_CMD_DEQUANTIZE = 12,
};

/**
 * struct enpu_cmd_header - first 8 bytes of every command
 * @opcode: enum enpu_cmd_opcode.
 * @flags: must be zero in version 1.0.
 * @size: bytes in this command including the header, multiple of 8.
 */
struct enpu_cmd_header {
	__u16 opcode;
	__u16 flags;
	__u32 size;
};

/**
 * struct enpu_cmd_nop - burn device time without touching memory
 * @hdr: opcode ENPU_CMD_NOP, size sizeof(struct enpu_cmd_nop).
 * @cycles: device cycles to spend (0 allowed).
 * @reserved: must be zero.
 */
struct enpu_cmd_nop {
	struct enpu_cmd_header hdr;
	__u32 cycles;
	__u32 reserved;
};

/**
 * struct enpu_buf_ref - a byte range's start inside a BO of the submit
 * @bo_index: index into the submit's BO list.
 * @reserved: must be zero.
 * @offset: byte offset inside that BO.
 */
struct enpu_buf_ref {
	__u32 bo_index;
	__u32 reserved;
	__u64 offset;
};

/**
 * struct enpu_cmd_dma_copy - device copy of @size bytes from @src to @dst
 * @hdr: opcode ENPU_CMD_DMA_COPY, size sizeof(struct enpu_cmd_dma_copy).
 * @src: source; its BO must be submitted with READ access.
 * @dst: destination; its BO must be submitted with WRITE access.
 * @size: bytes, non-zero; both ranges must lie inside their BOs. Ranges in
 *        the same BO must not overlap.
 */
struct enpu_cmd_dma_copy {
	struct enpu_cmd_header hdr;
	struct enpu_buf_ref src;
	struct enpu_buf_ref dst;
	__u64 size;
};

/**
 * struct enpu_cmd_dma_fill - device fill of @size bytes at @dst
 * @hdr: opcode ENPU_CMD_DMA_FILL, size sizeof(struct enpu_cmd_dma_fill).
 * @dst: destination; its BO must be submitted with WRITE access.
 * @size: bytes, non-zero, inside the BO.
 * @value: the byte to store, 0..ENPU_FILL_VALUE_MAX; higher bits must be zero.
 * @reserved: must be zero.
 */
struct enpu_cmd_dma_fill {
	struct enpu_cmd_header hdr;
	struct enpu_buf_ref dst;
	__u64 size;
	__u32 value;
	__u32 reserved;
};

/*
 * Network layers (interface 1.2). The arithmetic is docs/quantization.md,
 * bit for bit: the device and the CPU reference kernels in
 * userspace/runtime/cpu must produce identical bytes. Tensors are NHWC;
 * weights are OIHW int8, symmetric (zero point 0). A command carries only
 * integer parameters: the compiler derives them from float scales with the
 * same functions the CPU kernels use (enpu_requant_from_scale(),
 * enpu_cpu_add_params(), ...).
 */

/*
 * enpu_buf_ref.bo_index meaning "no buffer" (optional operands); such a
 * reference must have offset and reserved 0.
 */
#define ENPU_BUF_NONE		0xffffffffu

/**
 * enum enpu_dtype - element types of layer tensors
 * @ENPU_DTYPE_UINT8: unsigned 8-bit, zero point 0..255.
 * @ENPU_DTYPE_INT8: signed 8-bit, zero point -128..127.
 * @ENPU_DTYPE_INT32: raw accumulators (outputs only, zero point 0; the
 *	requantization step is skipped, as for ONNX ConvInteger).
 * @ENPU_DTYPE_FLOAT32: interface 1.6: IEEE 754 binary32, zero point 0;
 *	the input of QUANTIZE, the output of DEQUANTIZE (1.7), and moved
 *	by COPY; no other layer reads or writes it.
 */
enum enpu_dtype {
	ENPU_DTYPE_UINT8 = 0,
	ENPU_DTYPE_INT8 = 1,
	ENPU_DTYPE_INT32 = 2,
	ENPU_DTYPE_FLOAT32 = 3,
};

/**
 * struct enpu_tensor_desc - an NHWC tensor inside a BO
 * @buf: where element (0, 0, 0, 0) is.
 * @batch: N, >= 1.
 * @height: H, >= 1.
 * @width: W, >= 1.
 * @channels: C, >= 1.
 * @pixel_stride: elements from one pixel to the next, >= @channels; 0
 *	means @channels. Rows and images are dense in pixels: element
 *	(n, y, x, c) is at (((n * H + y) * W + x) * pixel_stride + c) elements
 *	from @buf. A stride above C lets a layer write a channel slice of a
 *	wider tensor, which is how concatenation along channels costs nothing.
 * @dtype: enum enpu_dtype.
 * @reserved0: must be zero.
 * @zero_point: in the type's range; 0 for INT32.
 * @reserved1: must be zero.
 */
struct enpu_tensor_desc {
	struct enpu_buf_ref buf;
	__u32 batch;
	__u32 height;
	__u32 width;
	__u32 channels;
	__u32 pixel_stride;
	__u8 dtype;
	__u8 reserved0[3];
	__s32 zero_point;
	__u32 reserved1;
};

/**
 * struct enpu_requant_param - one channel's fixed-point multiplier
 * @multiplier: M, 0 <= M < 2^31.
 * @shift: S, ENPU_REQUANT_SHIFT_MIN..ENPU_REQUANT_SHIFT_MAX (a total right
 *	shift).
 */
struct enpu_requant_param {
	__s32 multiplier;
	__s32 shift;
};

/**
 * struct enpu_requant_desc - int32 accumulator to 8-bit output
 * @per_channel: ENPU_BUF_NONE for one (M, S) for the whole tensor, else an
 *	array of output-channels struct enpu_requant_param. Its contents are
 *	read by the device at run time; values out of range complete the job
 *	with ENPU_JOB_STATUS_INVALID (the kernel cannot check them).
 * @multiplier: per-tensor M when @per_channel is NONE, else must be 0.
 * @shift: per-tensor S when @per_channel is NONE, else must be 0.
 * @min: fused clamp, within the output type's range (ReLU: the output
 *	zero point; ReLU6: see docs/quantization.md).
 * @max: fused clamp, >= @min, within the output type's range.
 */
struct enpu_requant_desc {
	struct enpu_buf_ref per_channel;
	__s32 multiplier;
	__s32 shift;
	__s32 min;
	__s32 max;
};

/**
 * struct enpu_cmd_conv2d - CONV2D and DEPTHWISE_CONV2D
 * @hdr: opcode, size sizeof(struct enpu_cmd_conv2d).
 * @input: uint8/int8 NHWC input; its channels are the input channels.
 * @output: NHWC output with the same batch, output channels as channels,
 *	and height/width exactly as ONNX Conv computes them:
 *	(in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride + 1.
 *	Type uint8/int8 (requantized) or INT32 (raw accumulators).
 * @weights: int8 OIHW [out channels][in channels / groups][kh][kw], dense.
 * @bias: int32[out channels], or ENPU_BUF_NONE for zero.
 * @requant: ignored (must be all zero with per_channel NONE) for an INT32
 *	output.
 * @kernel_height: 1..ENPU_CONV_KERNEL_MAX.
 * @kernel_width: 1..ENPU_CONV_KERNEL_MAX.
 * @stride_height: 1..ENPU_LAYER_STRIDE_MAX.
 * @stride_width: 1..ENPU_LAYER_STRIDE_MAX.
 * @dilation_height: 1..ENPU_LAYER_DILATION_MAX.
 * @dilation_width: 1..ENPU_LAYER_DILATION_MAX.
 * @pad_top: padding, reads as the input zero point, 0..ENPU_CONV_PAD_MAX
 *	(a pad may equal or exceed the kernel size).
 * @pad_left: as @pad_top.
 * @pad_bottom: as @pad_top.
 * @pad_right: as @pad_top.
 * @groups: divides both channel counts; DEPTHWISE_CONV2D requires
 *	groups == input channels == output channels.
 * @reserved: must be zero.
 *
 * output[n][y][x][o] = requant(bias[o] + sum over the window and the
 * group's input channels of (input - input_zero_point) * weight).
 */
struct enpu_cmd_conv2d {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
	struct enpu_buf_ref weights;
	struct enpu_buf_ref bias;
	struct enpu_requant_desc requant;
	__u32 kernel_height;
	__u32 kernel_width;
	__u32 stride_height;
	__u32 stride_width;
	__u32 dilation_height;
	__u32 dilation_width;
	__u32 pad_top;
	__u32 pad_left;
	__u32 pad_bottom;
	__u32 pad_right;
	__u32 groups;
	__u32 reserved;
};

/**
 * struct enpu_cmd_fc - FULLY_CONNECTED: out[m][n] = requant(bias[n] +
 * sum_k (in[m][k] - in_zp) * weights[n][k])
 * @hdr: opcode, size sizeof(struct enpu_cmd_fc).
 * @input: M rows of K: batch = height = 1, width = M, channels = K
 *	(K <= ENPU_FC_K_MAX).
 * @output: batch = height = 1, width = M, channels = N.
 * @weights: int8 [N][K], dense (ONNX Gemm with transB = 1 order).
 * @bias: int32[N] or ENPU_BUF_NONE.
 * @requant: as for CONV2D.
 */
struct enpu_cmd_fc {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
	struct enpu_buf_ref weights;
	struct enpu_buf_ref bias;
	struct enpu_requant_desc requant;
};

/**
 * struct enpu_cmd_eltwise - ADD and MUL of two quantized tensors
 * @hdr: opcode, size sizeof(struct enpu_cmd_eltwise).
 * @a: first input, uint8/int8.
 * @b: second input, the type of @a. Each of its N, H, W, C is either equal
 *	to the output's or 1 (broadcast).
 * @output: the type of @a; each dimension is max(a's, b's), and a's
 *	dimensions are equal to it or 1 too.
 * @a_multiplier: ADD: Ma, 0 <= Ma < ENPU_ADD_MULTIPLIER_LIMIT; MUL: 0.
 * @b_multiplier: ADD: Mb, 0 <= Mb < ENPU_ADD_MULTIPLIER_LIMIT; MUL: 0.
 * @add_shift: ADD: S, ENPU_ADD_SHIFT_MIN..ENPU_ADD_SHIFT_MAX; MUL: 0.
 * @left_shift: MUL: L, 0..ENPU_MUL_LEFT_SHIFT_MAX; ADD: 0.
 * @multiplier: MUL: M as in struct enpu_requant_param; ADD: 0.
 * @shift: MUL: S as in struct enpu_requant_param; ADD: 0.
 * @min: fused clamp within the type's range.
 * @max: fused clamp, >= @min.
 *
 * ADD: acc = (a - a_zp) * Ma + (b - b_zp) * Mb;
 *      out = clamp(((acc + 2^(S-1)) >> S) + out_zp, min, max)
 * MUL: out = enpu_requantize(((a - a_zp) * (b - b_zp)) << L, M, S, out_zp,
 *      min, max)
 * exactly as enpu_cpu_add() / enpu_cpu_mul() (userspace/runtime/cpu).
 */
struct enpu_cmd_eltwise {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc a;
	struct enpu_tensor_desc b;
	struct enpu_tensor_desc output;
	__s32 a_multiplier;
	__s32 b_multiplier;
	__s32 add_shift;
	__s32 left_shift;
	__s32 multiplier;
	__s32 shift;
	__s32 min;
	__s32 max;
};

/**
 * struct enpu_pool_param - AVG_POOL requantization for one window size
 * @multiplier: M, 0 <= M < 2^31.
 * @shift: S as in struct enpu_requant_param.
 * @left_shift: L, 0..ENPU_POOL_LEFT_SHIFT_MAX.
 * @reserved: must be zero.
 */
struct enpu_pool_param {
	__s32 multiplier;
	__s32 shift;
	__s32 left_shift;
	__s32 reserved;
};

/* enpu_cmd_pool.flags */
#define ENPU_POOL_CEIL_MODE		(1u << 0)
#define ENPU_POOL_COUNT_INCLUDE_PAD	(1u << 1)

/**
 * struct enpu_cmd_pool - MAX_POOL and AVG_POOL, ONNX semantics
 * @hdr: opcode, size sizeof(struct enpu_cmd_pool).
 * @input: uint8/int8.
 * @output: same type, batch and channels; height/width as ONNX computes
 *	them (with ENPU_POOL_CEIL_MODE: ceil, and a last window starting past
 *	in + pad_begin dropped). Global average pooling is AVG_POOL with the
 *	kernel the size of the input.
 * @params: AVG_POOL: an array of kernel_height * kernel_width struct
 *	enpu_pool_param; entry count - 1 is used for a window of count
 *	pixels (see enpu_cpu_average_pool()). ENPU_BUF_NONE: every window uses
 *	@multiplier/@shift/@left_shift. MAX_POOL: must be NONE.
 * @kernel_height: 1..ENPU_POOL_KERNEL_MAX.
 * @kernel_width: 1..ENPU_POOL_KERNEL_MAX.
 * @stride_height: 1..ENPU_LAYER_STRIDE_MAX.
 * @stride_width: 1..ENPU_LAYER_STRIDE_MAX.
 * @dilation_height: 1..ENPU_LAYER_DILATION_MAX.
 * @dilation_width: 1..ENPU_LAYER_DILATION_MAX.
 * @pad_top: < kernel size in that dimension.
 * @pad_left: as @pad_top.
 * @pad_bottom: as @pad_top.
 * @pad_right: as @pad_top.
 * @flags: ENPU_POOL_*; COUNT_INCLUDE_PAD only for AVG_POOL.
 * @multiplier: AVG_POOL with @params NONE; else 0.
 * @shift: as @multiplier.
 * @left_shift: as @multiplier.
 * @min: AVG_POOL fused clamp; MAX_POOL: the type's min.
 * @max: AVG_POOL fused clamp; MAX_POOL: the type's max.
 * @reserved: must be zero.
 */
struct enpu_cmd_pool {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
	struct enpu_buf_ref params;
	__u32 kernel_height;
	__u32 kernel_width;
	__u32 stride_height;
	__u32 stride_width;
	__u32 dilation_height;
	__u32 dilation_width;
	__u32 pad_top;
	__u32 pad_left;
	__u32 pad_bottom;
	__u32 pad_right;
	__u32 flags;
	__s32 multiplier;
	__s32 shift;
	__s32 left_shift;
	__s32 min;
	__s32 max;
	__u32 reserved;
	__u32 reserved2;
};

/**
 * struct enpu_cmd_copy - COPY: output = input, element by element
 * @hdr: opcode, size sizeof(struct enpu_cmd_copy).
 * @input: any type.
 * @output: same type, N, H, W, C and zero point; strides may differ.
 */
struct enpu_cmd_copy {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
};

/**
 * struct enpu_cmd_quantize - QUANTIZE (interface 1.6): float32 to 8-bit
 * @hdr: opcode ENPU_CMD_QUANTIZE, size sizeof(struct enpu_cmd_quantize).
 * @input: ENPU_DTYPE_FLOAT32 (zero point 0).
 * @output: uint8/int8 with the input's N, H, W and C; its zero point is
 *	the quantization's. Strides may differ, so one command per channel
 *	plane moves an NCHW frame into NHWC while it quantizes.
 * @scale: the scale's binary32 bits, ENPU_QUANTIZE_SCALE_MIN..
 *	ENPU_QUANTIZE_SCALE_LIMIT - 1.
 * @reserved: must be zero.
 *
 * out = saturate(rint(x / scale) + zero_point) into the output type,
 * exactly as ONNX QuantizeLinear: x / scale is one binary32 division
 * rounded to nearest even, rint rounds half to even, a quotient of NaN
 * stores 0 and an infinite one the type's bound (as the CPU runtime's
 * Quantize8 and QuantizeLinear, userspace/runtime/ops).
 */
struct enpu_cmd_quantize {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
	__u32 scale;
	__u32 reserved;
};

/**
 * struct enpu_cmd_dequantize - DEQUANTIZE (interface 1.7): 8-bit to float32
 * @hdr: opcode ENPU_CMD_DEQUANTIZE, size sizeof(struct enpu_cmd_dequantize).
 * @input: uint8/int8; its zero point is the quantization's.
 * @output: ENPU_DTYPE_FLOAT32 (zero point 0) with the input's N, H, W and
 *	C. Strides may differ, so one command per channel plane moves an
 *	NHWC tensor into NCHW while it dequantizes.
 * @scale: the scale's binary32 bits, ENPU_QUANTIZE_SCALE_MIN..
 *	ENPU_QUANTIZE_SCALE_LIMIT - 1 (the rule of QUANTIZE's scale).
 * @reserved: must be zero.
 *
 * out = (x - zero_point) * scale, exactly as ONNX DequantizeLinear: the
 * difference is an exact integer (|x - zero_point| <= 255) and the product
 * is one binary32 multiplication rounded to nearest even (a product above
 * the largest float gives infinity), as the CPU runtime's
 * DequantizeLinear (userspace/runtime/ops/quantize.c).
 */
struct enpu_cmd_dequantize {
	struct enpu_cmd_header hdr;
	struct enpu_tensor_desc input;
	struct enpu_tensor_desc output;
	__u32 scale;
	__u32 reserved;
};

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_CMD_H */
