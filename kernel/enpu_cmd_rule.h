/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The rules of the command-stream format (uapi/enpu_cmd.h), numbered, so
 * that a checker can say which one a stream broke. The kernel validator
 * (enpu_validate.c) and the device model's own checker (tools/vnpu) are
 * independent implementations of the same rules and report the same id
 * for the same broken rule; tests assert the id, not only the rejection,
 * so that one rule cannot hide behind another.
 *
 * Precedence: both check a command's framing first, in this enum's order
 * (header flags, header size, past the stream end, opcode, command size),
 * so a command that breaks several framing rules is blamed on the same
 * one by both. Past the framing each checks the command's contents in its
 * own order: for a command that breaks several content rules the two may
 * name different ones (never a different command or verdict).
 *
 * Nothing here crosses the ioctl boundary: SUBMIT still answers -EINVAL,
 * and the kernel names the rule in its debug log. Shared like enpu_regs.h
 * (the vnpu and the host tests include it with -Ikernel).
 */
#ifndef ENPU_CMD_RULE_H
#define ENPU_CMD_RULE_H

/**
 * enum enpu_cmd_rule - one rule of the command format
 *
 * Each name is the rule a stream broke; where the rule is a range, the
 * range is a macro of uapi/enpu_cmd.h ("DOC: limits of the command
 * format"). %ENPU_RULE_NONE means no rule was broken.
 *
 * @ENPU_RULE_NONE: the stream is valid.
 * @ENPU_RULE_STREAM_SIZE: the stream size is not a multiple of
 *	ENPU_CMD_ALIGN.
 * @ENPU_RULE_HEADER_FLAGS: a command header's flags are not 0.
 * @ENPU_RULE_HEADER_SIZE: a command size below the header or not a
 *	multiple of ENPU_CMD_ALIGN.
 * @ENPU_RULE_PAST_STREAM_END: a command runs past the end of the stream.
 * @ENPU_RULE_OPCODE: unknown opcode.
 * @ENPU_RULE_COMMAND_SIZE: the command size is not its opcode's struct's.
 * @ENPU_RULE_NOP_RESERVED: NOP reserved not 0.
 * @ENPU_RULE_REF_RESERVED: a buffer reference's reserved field not 0.
 * @ENPU_RULE_REF_BO_INDEX: a bo_index past the submit's BO list (or NONE
 *	for an operand that is not optional).
 * @ENPU_RULE_REF_READ_ACCESS: a BO read without READ access.
 * @ENPU_RULE_REF_WRITE_ACCESS: a BO written without WRITE access.
 * @ENPU_RULE_REF_EMPTY: a DMA range of 0 bytes.
 * @ENPU_RULE_REF_RANGE: a range not inside its BO (offset + size wraps or
 *	ends past the BO).
 * @ENPU_RULE_REF_NONE_OFFSET: an ENPU_BUF_NONE reference with an offset.
 * @ENPU_RULE_DMA_OVERLAP: DMA_COPY source and destination overlap.
 * @ENPU_RULE_FILL_VALUE: DMA_FILL value above ENPU_FILL_VALUE_MAX.
 * @ENPU_RULE_FILL_RESERVED: DMA_FILL reserved not 0.
 * @ENPU_RULE_TENSOR_RESERVED: a tensor's reserved fields not 0.
 * @ENPU_RULE_TENSOR_DIM: a tensor dimension of 0.
 * @ENPU_RULE_TENSOR_STRIDE: a pixel_stride below the channels.
 * @ENPU_RULE_TENSOR_DTYPE: an unknown dtype.
 * @ENPU_RULE_TENSOR_ZERO_POINT: a zero point outside its type's range.
 * @ENPU_RULE_TENSOR_SIZE: a tensor's byte extent overflows 64 bits.
 * @ENPU_RULE_INPUT_INT32: an INT32 (or, since 1.6, FLOAT32) input to a
 *	layer that reads 8-bit.
 * @ENPU_RULE_OUTPUT_INT32: an INT32 output for a layer without one, or a
 *	FLOAT32 output of a layer (only COPY and DEQUANTIZE write FLOAT32).
 * @ENPU_RULE_CLAMP_RANGE: a fused clamp outside the output type's range.
 * @ENPU_RULE_CLAMP_ORDER: a fused clamp with min above max.
 * @ENPU_RULE_REQUANT_INT32: requantization not all zero for an INT32
 *	output.
 * @ENPU_RULE_REQUANT_MULTIPLIER: a negative per-tensor multiplier.
 * @ENPU_RULE_REQUANT_SHIFT: a per-tensor shift outside
 *	ENPU_REQUANT_SHIFT_MIN..ENPU_REQUANT_SHIFT_MAX.
 * @ENPU_RULE_REQUANT_TABLE_FIELDS: M or S not 0 with a per-channel table.
 * @ENPU_RULE_WINDOW: a kernel window larger than the padded input.
 * @ENPU_RULE_CONV_RESERVED: CONV2D reserved not 0.
 * @ENPU_RULE_CONV_KERNEL: a kernel size outside 1..ENPU_CONV_KERNEL_MAX.
 * @ENPU_RULE_CONV_STRIDE: a stride outside 1..ENPU_LAYER_STRIDE_MAX.
 * @ENPU_RULE_CONV_DILATION: a dilation outside 1..ENPU_LAYER_DILATION_MAX.
 * @ENPU_RULE_CONV_PAD: a pad above ENPU_CONV_PAD_MAX.
 * @ENPU_RULE_CONV_GROUPS: groups 0 or not dividing both channel counts.
 * @ENPU_RULE_DEPTHWISE_GROUPS: depthwise with groups != Cin or != Cout.
 * @ENPU_RULE_CONV_BATCH: output batch differs from the input's.
 * @ENPU_RULE_CONV_OUTPUT_SIZE: output height/width not what the layer
 *	computes.
 * @ENPU_RULE_CONV_WEIGHTS_SIZE: the weights' byte size overflows 64 bits.
 * @ENPU_RULE_FC_BATCH: FC tensors with batch or height not 1.
 * @ENPU_RULE_FC_K: FC K above ENPU_FC_K_MAX.
 * @ENPU_RULE_FC_ROWS: FC output rows differ from the input's.
 * @ENPU_RULE_ELTWISE_TYPES: ADD/MUL tensors of different types.
 * @ENPU_RULE_ELTWISE_OUTPUT_DIM: an output dimension not max(a, b).
 * @ENPU_RULE_ELTWISE_BROADCAST: an input dimension neither the output's
 *	nor 1.
 * @ENPU_RULE_ADD_MULTIPLIER: an ADD multiplier outside
 *	0..ENPU_ADD_MULTIPLIER_LIMIT - 1.
 * @ENPU_RULE_ADD_SHIFT: the ADD shift outside
 *	ENPU_ADD_SHIFT_MIN..ENPU_ADD_SHIFT_MAX.
 * @ENPU_RULE_ADD_MUL_FIELDS: ADD with a MUL field not 0.
 * @ENPU_RULE_MUL_ADD_FIELDS: MUL with an ADD field not 0.
 * @ENPU_RULE_MUL_LEFT_SHIFT: the MUL left shift outside
 *	0..ENPU_MUL_LEFT_SHIFT_MAX.
 * @ENPU_RULE_MUL_MULTIPLIER: a negative MUL multiplier.
 * @ENPU_RULE_MUL_SHIFT: the MUL shift outside the requantization range.
 * @ENPU_RULE_POOL_RESERVED: pool reserved fields not 0.
 * @ENPU_RULE_POOL_FLAGS: unknown pool flags.
 * @ENPU_RULE_POOL_INCLUDE_PAD: COUNT_INCLUDE_PAD on MAX_POOL.
 * @ENPU_RULE_POOL_KERNEL: a kernel size outside 1..ENPU_POOL_KERNEL_MAX.
 * @ENPU_RULE_POOL_STRIDE: a stride outside 1..ENPU_LAYER_STRIDE_MAX.
 * @ENPU_RULE_POOL_DILATION: a dilation outside 1..ENPU_LAYER_DILATION_MAX.
 * @ENPU_RULE_POOL_PAD: a pad not below the kernel size.
 * @ENPU_RULE_POOL_TYPE: output type differs from the input's.
 * @ENPU_RULE_POOL_BATCH_CHANNELS: output batch or channels differ from
 *	the input's.
 * @ENPU_RULE_POOL_OUTPUT_SIZE: output height/width not what the layer
 *	computes.
 * @ENPU_RULE_MAX_POOL_TABLE: MAX_POOL with a parameter table.
 * @ENPU_RULE_MAX_POOL_REQUANT: MAX_POOL with M, S or L not 0.
 * @ENPU_RULE_MAX_POOL_CLAMP: MAX_POOL min/max not the type's range.
 * @ENPU_RULE_AVG_POOL_MULTIPLIER: a negative AVG_POOL multiplier.
 * @ENPU_RULE_AVG_POOL_SHIFT: the AVG_POOL shift outside the
 *	requantization range.
 * @ENPU_RULE_AVG_POOL_LEFT_SHIFT: the AVG_POOL left shift outside
 *	0..ENPU_POOL_LEFT_SHIFT_MAX.
 * @ENPU_RULE_AVG_POOL_TABLE_FIELDS: M, S or L not 0 with a table.
 * @ENPU_RULE_COPY_TYPE: COPY output type or zero point differs.
 * @ENPU_RULE_COPY_SHAPE: COPY output shape differs.
 * @ENPU_RULE_QUANTIZE_RESERVED: QUANTIZE reserved not 0.
 * @ENPU_RULE_QUANTIZE_TYPES: a QUANTIZE input not FLOAT32 or output not
 *	8-bit.
 * @ENPU_RULE_QUANTIZE_SHAPE: QUANTIZE output shape differs from the
 *	input's.
 * @ENPU_RULE_QUANTIZE_SCALE: QUANTIZE scale bits outside
 *	ENPU_QUANTIZE_SCALE_MIN..ENPU_QUANTIZE_SCALE_LIMIT - 1.
 * @ENPU_RULE_DEQUANTIZE_RESERVED: DEQUANTIZE reserved not 0.
 * @ENPU_RULE_DEQUANTIZE_TYPES: a DEQUANTIZE input not 8-bit or output not
 *	FLOAT32.
 * @ENPU_RULE_DEQUANTIZE_SHAPE: DEQUANTIZE output shape differs from the
 *	input's.
 * @ENPU_RULE_DEQUANTIZE_SCALE: DEQUANTIZE scale bits outside
 *	ENPU_QUANTIZE_SCALE_MIN..ENPU_QUANTIZE_SCALE_LIMIT - 1.
 * @ENPU_RULE_COUNT: number of ids; not a rule.
 */
enum enpu_cmd_rule {
	ENPU_RULE_NONE = 0,
	ENPU_RULE_STREAM_SIZE,
	ENPU_RULE_HEADER_FLAGS,
	ENPU_RULE_HEADER_SIZE,
	ENPU_RULE_PAST_STREAM_END,
	ENPU_RULE_OPCODE,
	ENPU_RULE_COMMAND_SIZE,
	ENPU_RULE_NOP_RESERVED,
	ENPU_RULE_REF_RESERVED,
	ENPU_RULE_REF_BO_INDEX,
	ENPU_RULE_REF_READ_ACCESS,
	ENPU_RULE_REF_WRITE_ACCESS,
	ENPU_RULE_REF_EMPTY,
	ENPU_RULE_REF_RANGE,
	ENPU_RULE_REF_NONE_OFFSET,
	ENPU_RULE_DMA_OVERLAP,
	ENPU_RULE_FILL_VALUE,
	ENPU_RULE_FILL_RESERVED,
	ENPU_RULE_TENSOR_RESERVED,
	ENPU_RULE_TENSOR_DIM,
	ENPU_RULE_TENSOR_STRIDE,
	ENPU_RULE_TENSOR_DTYPE,
	ENPU_RULE_TENSOR_ZERO_POINT,
	ENPU_RULE_TENSOR_SIZE,
	ENPU_RULE_INPUT_INT32,
	ENPU_RULE_OUTPUT_INT32,
	ENPU_RULE_CLAMP_RANGE,
	ENPU_RULE_CLAMP_ORDER,
	ENPU_RULE_REQUANT_INT32,
	ENPU_RULE_REQUANT_MULTIPLIER,
	ENPU_RULE_REQUANT_SHIFT,
	ENPU_RULE_REQUANT_TABLE_FIELDS,
	ENPU_RULE_WINDOW,
	ENPU_RULE_CONV_RESERVED,
	ENPU_RULE_CONV_KERNEL,
	ENPU_RULE_CONV_STRIDE,
	ENPU_RULE_CONV_DILATION,
	ENPU_RULE_CONV_PAD,
	ENPU_RULE_CONV_GROUPS,
	ENPU_RULE_DEPTHWISE_GROUPS,
	ENPU_RULE_CONV_BATCH,
	ENPU_RULE_CONV_OUTPUT_SIZE,
	ENPU_RULE_CONV_WEIGHTS_SIZE,
	ENPU_RULE_FC_BATCH,
	ENPU_RULE_FC_K,
	ENPU_RULE_FC_ROWS,
	ENPU_RULE_ELTWISE_TYPES,
	ENPU_RULE_ELTWISE_OUTPUT_DIM,
	ENPU_RULE_ELTWISE_BROADCAST,
	ENPU_RULE_ADD_MULTIPLIER,
	ENPU_RULE_ADD_SHIFT,
	ENPU_RULE_ADD_MUL_FIELDS,
	ENPU_RULE_MUL_ADD_FIELDS,
	ENPU_RULE_MUL_LEFT_SHIFT,
	ENPU_RULE_MUL_MULTIPLIER,
	ENPU_RULE_MUL_SHIFT,
	ENPU_RULE_POOL_RESERVED,
	ENPU_RULE_POOL_FLAGS,
	ENPU_RULE_POOL_INCLUDE_PAD,
	ENPU_RULE_POOL_KERNEL,
	ENPU_RULE_POOL_STRIDE,
	ENPU_RULE_POOL_DILATION,
	ENPU_RULE_POOL_PAD,
	ENPU_RULE_POOL_TYPE,
	ENPU_RULE_POOL_BATCH_CHANNELS,
	ENPU_RULE_POOL_OUTPUT_SIZE,
	ENPU_RULE_MAX_POOL_TABLE,
	ENPU_RULE_MAX_POOL_REQUANT,
	ENPU_RULE_MAX_POOL_CLAMP,
	ENPU_RULE_AVG_POOL_MULTIPLIER,
	ENPU_RULE_AVG_POOL_SHIFT,
	ENPU_RULE_AVG_POOL_LEFT_SHIFT,
	ENPU_RULE_AVG_POOL_TABLE_FIELDS,
	ENPU_RULE_COPY_TYPE,
	ENPU_RULE_COPY_SHAPE,
	ENPU_RULE_QUANTIZE_RESERVED,
	ENPU_RULE_QUANTIZE_TYPES,
	ENPU_RULE_QUANTIZE_SHAPE,
	ENPU_RULE_QUANTIZE_SCALE,
	ENPU_RULE_DEQUANTIZE_RESERVED,
	ENPU_RULE_DEQUANTIZE_TYPES,
	ENPU_RULE_DEQUANTIZE_SHAPE,
	ENPU_RULE_DEQUANTIZE_SCALE,
	ENPU_RULE_COUNT
};

/**
 * enpu_cmd_rule_name() - the rule's name for messages
 * @rule: an enum enpu_cmd_rule.
 *
 * Return: a constant string such as "conv_kernel", or "unknown" for a
 * value that is not a rule.
 */
static inline const char *enpu_cmd_rule_name(unsigned int rule)
{
	static const char * const names[ENPU_RULE_COUNT] = {
		[ENPU_RULE_NONE] = "none",
		[ENPU_RULE_STREAM_SIZE] = "stream_size",
		[ENPU_RULE_HEADER_FLAGS] = "header_flags",
		[ENPU_RULE_HEADER_SIZE] = "header_size",
		[ENPU_RULE_PAST_STREAM_END] = "past_stream_end",
		[ENPU_RULE_OPCODE] = "opcode",
		[ENPU_RULE_COMMAND_SIZE] = "command_size",
		[ENPU_RULE_NOP_RESERVED] = "nop_reserved",
		[ENPU_RULE_REF_RESERVED] = "ref_reserved",
		[ENPU_RULE_REF_BO_INDEX] = "ref_bo_index",
		[ENPU_RULE_REF_READ_ACCESS] = "ref_read_access",
		[ENPU_RULE_REF_WRITE_ACCESS] = "ref_write_access",
		[ENPU_RULE_REF_EMPTY] = "ref_empty",
		[ENPU_RULE_REF_RANGE] = "ref_range",
		[ENPU_RULE_REF_NONE_OFFSET] = "ref_none_offset",
		[ENPU_RULE_DMA_OVERLAP] = "dma_overlap",
		[ENPU_RULE_FILL_VALUE] = "fill_value",
		[ENPU_RULE_FILL_RESERVED] = "fill_reserved",
		[ENPU_RULE_TENSOR_RESERVED] = "tensor_reserved",
		[ENPU_RULE_TENSOR_DIM] = "tensor_dim",
		[ENPU_RULE_TENSOR_STRIDE] = "tensor_stride",
		[ENPU_RULE_TENSOR_DTYPE] = "tensor_dtype",
		[ENPU_RULE_TENSOR_ZERO_POINT] = "tensor_zero_point",
		[ENPU_RULE_TENSOR_SIZE] = "tensor_size",
		[ENPU_RULE_INPUT_INT32] = "input_int32",
		[ENPU_RULE_OUTPUT_INT32] = "output_int32",
		[ENPU_RULE_CLAMP_RANGE] = "clamp_range",
		[ENPU_RULE_CLAMP_ORDER] = "clamp_order",
		[ENPU_RULE_REQUANT_INT32] = "requant_int32",
		[ENPU_RULE_REQUANT_MULTIPLIER] = "requant_multiplier",
		[ENPU_RULE_REQUANT_SHIFT] = "requant_shift",
		[ENPU_RULE_REQUANT_TABLE_FIELDS] = "requant_table_fields",
		[ENPU_RULE_WINDOW] = "window",
		[ENPU_RULE_CONV_RESERVED] = "conv_reserved",
		[ENPU_RULE_CONV_KERNEL] = "conv_kernel",
		[ENPU_RULE_CONV_STRIDE] = "conv_stride",
		[ENPU_RULE_CONV_DILATION] = "conv_dilation",
		[ENPU_RULE_CONV_PAD] = "conv_pad",
		[ENPU_RULE_CONV_GROUPS] = "conv_groups",
		[ENPU_RULE_DEPTHWISE_GROUPS] = "depthwise_groups",
		[ENPU_RULE_CONV_BATCH] = "conv_batch",
		[ENPU_RULE_CONV_OUTPUT_SIZE] = "conv_output_size",
		[ENPU_RULE_CONV_WEIGHTS_SIZE] = "conv_weights_size",
		[ENPU_RULE_FC_BATCH] = "fc_batch",
		[ENPU_RULE_FC_K] = "fc_k",
		[ENPU_RULE_FC_ROWS] = "fc_rows",
		[ENPU_RULE_ELTWISE_TYPES] = "eltwise_types",
		[ENPU_RULE_ELTWISE_OUTPUT_DIM] = "eltwise_output_dim",
		[ENPU_RULE_ELTWISE_BROADCAST] = "eltwise_broadcast",
		[ENPU_RULE_ADD_MULTIPLIER] = "add_multiplier",
		[ENPU_RULE_ADD_SHIFT] = "add_shift",
		[ENPU_RULE_ADD_MUL_FIELDS] = "add_mul_fields",
		[ENPU_RULE_MUL_ADD_FIELDS] = "mul_add_fields",
		[ENPU_RULE_MUL_LEFT_SHIFT] = "mul_left_shift",
		[ENPU_RULE_MUL_MULTIPLIER] = "mul_multiplier",
		[ENPU_RULE_MUL_SHIFT] = "mul_shift",
		[ENPU_RULE_POOL_RESERVED] = "pool_reserved",
		[ENPU_RULE_POOL_FLAGS] = "pool_flags",
		[ENPU_RULE_POOL_INCLUDE_PAD] = "pool_include_pad",
		[ENPU_RULE_POOL_KERNEL] = "pool_kernel",
		[ENPU_RULE_POOL_STRIDE] = "pool_stride",
		[ENPU_RULE_POOL_DILATION] = "pool_dilation",
		[ENPU_RULE_POOL_PAD] = "pool_pad",
		[ENPU_RULE_POOL_TYPE] = "pool_type",
		[ENPU_RULE_POOL_BATCH_CHANNELS] = "pool_batch_channels",
		[ENPU_RULE_POOL_OUTPUT_SIZE] = "pool_output_size",
		[ENPU_RULE_MAX_POOL_TABLE] = "max_pool_table",
		[ENPU_RULE_MAX_POOL_REQUANT] = "max_pool_requant",
		[ENPU_RULE_MAX_POOL_CLAMP] = "max_pool_clamp",
		[ENPU_RULE_AVG_POOL_MULTIPLIER] = "avg_pool_multiplier",
		[ENPU_RULE_AVG_POOL_SHIFT] = "avg_pool_shift",
		[ENPU_RULE_AVG_POOL_LEFT_SHIFT] = "avg_pool_left_shift",
		[ENPU_RULE_AVG_POOL_TABLE_FIELDS] = "avg_pool_table_fields",
		[ENPU_RULE_COPY_TYPE] = "copy_type",
		[ENPU_RULE_COPY_SHAPE] = "copy_shape",
		[ENPU_RULE_QUANTIZE_RESERVED] = "quantize_reserved",
		[ENPU_RULE_QUANTIZE_TYPES] = "quantize_types",
		[ENPU_RULE_QUANTIZE_SHAPE] = "quantize_shape",
		[ENPU_RULE_QUANTIZE_SCALE] = "quantize_scale",
		[ENPU_RULE_DEQUANTIZE_RESERVED] = "dequantize_reserved",
		[ENPU_RULE_DEQUANTIZE_TYPES] = "dequantize_types",
		[ENPU_RULE_DEQUANTIZE_SHAPE] = "dequantize_shape",
		[ENPU_RULE_DEQUANTIZE_SCALE] = "dequantize_scale",
	};

	if (rule >= ENPU_RULE_COUNT || !names[rule])
		return "unknown";
	return names[rule];
}

#endif /* ENPU_CMD_RULE_H */
