// SPDX-License-Identifier: MIT
/*
 * Layer commands of the builder (uapi/enpu_cmd.h, interface 1.2; QUANTIZE
 * 1.6, DEQUANTIZE 1.7): the library's argument structs are copied field
 * by field into the uapi structs, whose headers and reserved fields the
 * builder owns. Nothing is
 * range-checked here: the kernel validator is the one authority on what
 * a layer may be, and a runtime gets its errno at submit.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "enpu_internal.h"

_Static_assert(sizeof(struct enpu_cmd_conv2d) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_fc) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_eltwise) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_pool) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_copy) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_quantize) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_dequantize) % ENPU_CMD_ALIGN == 0,
	       "layer commands keep the stream 8-byte aligned");

static struct enpu_cmd_header header(enum enpu_cmd_opcode opcode,
				     uint32_t size)
{
	return (struct enpu_cmd_header){ .opcode = (__u16)opcode,
					 .size = size };
}

static struct enpu_buf_ref ref(const struct enpu_layer_ref *from)
{
	return (struct enpu_buf_ref){ .bo_index = from->bo_index,
				      .offset = from->offset };
}

static struct enpu_tensor_desc tensor(const struct enpu_layer_tensor *from)
{
	return (struct enpu_tensor_desc){
		.buf = ref(&from->buf),
		.batch = from->batch,
		.height = from->height,
		.width = from->width,
		.channels = from->channels,
		.pixel_stride = from->pixel_stride,
		/* A dtype past 255 must not wrap into a valid one. */
		.dtype = from->dtype > 0xff ? 0xff : (__u8)from->dtype,
		.zero_point = from->zero_point,
	};
}

static struct enpu_requant_desc requant(const struct enpu_layer_requant *from)
{
	return (struct enpu_requant_desc){
		.per_channel = ref(&from->per_channel),
		.multiplier = from->multiplier,
		.shift = from->shift,
		.min = from->min,
		.max = from->max,
	};
}

static int conv2d(enpu_cmdbuf *cmdbuf, enum enpu_cmd_opcode opcode,
		  const char *name, const struct enpu_conv2d_layer *layer)
{
	struct enpu_cmd_conv2d command;

	if (!cmdbuf || !layer)
		return -EINVAL;
	memset(&command, 0, sizeof(command));
	command.hdr = header(opcode, sizeof(command));
	command.input = tensor(&layer->input);
	command.output = tensor(&layer->output);
	command.weights = ref(&layer->weights);
	command.bias = ref(&layer->bias);
	command.requant = requant(&layer->requant);
	command.kernel_height = layer->kernel_height;
	command.kernel_width = layer->kernel_width;
	command.stride_height = layer->stride_height;
	command.stride_width = layer->stride_width;
	command.dilation_height = layer->dilation_height;
	command.dilation_width = layer->dilation_width;
	command.pad_top = layer->pad_top;
	command.pad_left = layer->pad_left;
	command.pad_bottom = layer->pad_bottom;
	command.pad_right = layer->pad_right;
	command.groups = layer->groups;
	return enpu_cmdbuf_append(cmdbuf, name, &command, sizeof(command));
}

int enpu_cmdbuf_conv2d(enpu_cmdbuf *cmdbuf,
		       const struct enpu_conv2d_layer *layer)
{
	return conv2d(cmdbuf, ENPU_CMD_CONV2D, "conv2d", layer);
}

int enpu_cmdbuf_depthwise_conv2d(enpu_cmdbuf *cmdbuf,
				 const struct enpu_conv2d_layer *layer)
{
	return conv2d(cmdbuf, ENPU_CMD_DEPTHWISE_CONV2D, "depthwise_conv2d",
		      layer);
}

int enpu_cmdbuf_fully_connected(enpu_cmdbuf *cmdbuf,
				const struct enpu_fc_layer *layer)
{
	struct enpu_cmd_fc command;

	if (!cmdbuf || !layer)
		return -EINVAL;
	memset(&command, 0, sizeof(command));
	command.hdr = header(ENPU_CMD_FULLY_CONNECTED, sizeof(command));
	command.input = tensor(&layer->input);
	command.output = tensor(&layer->output);
	command.weights = ref(&layer->weights);
	command.bias = ref(&layer->bias);
	command.requant = requant(&layer->requant);
	return enpu_cmdbuf_append(cmdbuf, "fully_connected", &command,
				  sizeof(command));
}

static void eltwise_tensors(struct enpu_cmd_eltwise *command,
			    enum enpu_cmd_opcode opcode,
			    const struct enpu_layer_tensor *a,
			    const struct enpu_layer_tensor *b,
			    const struct enpu_layer_tensor *output)
{
	memset(command, 0, sizeof(*command));
	command->hdr = header(opcode, sizeof(*command));
	command->a = tensor(a);
	command->b = tensor(b);
	command->output = tensor(output);
}

int enpu_cmdbuf_add(enpu_cmdbuf *cmdbuf, const struct enpu_add_layer *layer)
{
	struct enpu_cmd_eltwise command;

	if (!cmdbuf || !layer)
		return -EINVAL;
	eltwise_tensors(&command, ENPU_CMD_ADD, &layer->a, &layer->b,
			&layer->output);
	command.a_multiplier = layer->a_multiplier;
	command.b_multiplier = layer->b_multiplier;
	command.add_shift = layer->shift;
	command.min = layer->min;
	command.max = layer->max;
	return enpu_cmdbuf_append(cmdbuf, "add", &command, sizeof(command));
}

int enpu_cmdbuf_mul(enpu_cmdbuf *cmdbuf, const struct enpu_mul_layer *layer)
{
	struct enpu_cmd_eltwise command;

	if (!cmdbuf || !layer)
		return -EINVAL;
	eltwise_tensors(&command, ENPU_CMD_MUL, &layer->a, &layer->b,
			&layer->output);
	command.left_shift = layer->left_shift;
	command.multiplier = layer->multiplier;
	command.shift = layer->shift;
	command.min = layer->min;
	command.max = layer->max;
	return enpu_cmdbuf_append(cmdbuf, "mul", &command, sizeof(command));
}

static int pool(enpu_cmdbuf *cmdbuf, enum enpu_cmd_opcode opcode,
		const char *name, const struct enpu_pool_layer *layer)
{
	struct enpu_cmd_pool command;

	if (!cmdbuf || !layer)
		return -EINVAL;
	memset(&command, 0, sizeof(command));
	command.hdr = header(opcode, sizeof(command));
	command.input = tensor(&layer->input);
	command.output = tensor(&layer->output);
	command.params = ref(&layer->params);
	command.kernel_height = layer->kernel_height;
	command.kernel_width = layer->kernel_width;
	command.stride_height = layer->stride_height;
	command.stride_width = layer->stride_width;
	command.dilation_height = layer->dilation_height;
	command.dilation_width = layer->dilation_width;
	command.pad_top = layer->pad_top;
	command.pad_left = layer->pad_left;
	command.pad_bottom = layer->pad_bottom;
	command.pad_right = layer->pad_right;
	command.flags = layer->flags;
	command.multiplier = layer->multiplier;
	command.shift = layer->shift;
	command.left_shift = layer->left_shift;
	command.min = layer->min;
	command.max = layer->max;
	return enpu_cmdbuf_append(cmdbuf, name, &command, sizeof(command));
}

int enpu_cmdbuf_max_pool(enpu_cmdbuf *cmdbuf,
			 const struct enpu_pool_layer *layer)
{
	return pool(cmdbuf, ENPU_CMD_MAX_POOL, "max_pool", layer);
}

int enpu_cmdbuf_avg_pool(enpu_cmdbuf *cmdbuf,
			 const struct enpu_pool_layer *layer)
{
	return pool(cmdbuf, ENPU_CMD_AVG_POOL, "avg_pool", layer);
}

int enpu_cmdbuf_copy(enpu_cmdbuf *cmdbuf,
		     const struct enpu_layer_tensor *input,
		     const struct enpu_layer_tensor *output)
{
	struct enpu_cmd_copy command;

	if (!cmdbuf || !input || !output)
		return -EINVAL;
	memset(&command, 0, sizeof(command));
	command.hdr = header(ENPU_CMD_COPY, sizeof(command));
	command.input = tensor(input);
	command.output = tensor(output);
	return enpu_cmdbuf_append(cmdbuf, "copy", &command, sizeof(command));
}

/* QUANTIZE and DEQUANTIZE: one layout (uapi/enpu_cmd.h), two opcodes. */
static int convert(enpu_cmdbuf *cmdbuf, enum enpu_cmd_opcode opcode,
		   const char *what, const struct enpu_layer_tensor *input,
		   const struct enpu_layer_tensor *output, float scale)
{
	struct enpu_cmd_quantize command;

	_Static_assert(sizeof(scale) == sizeof(command.scale),
		       "the scale travels as its binary32 bits");
	_Static_assert(sizeof(struct enpu_cmd_quantize) ==
		       sizeof(struct enpu_cmd_dequantize) &&
		       offsetof(struct enpu_cmd_quantize, scale) ==
		       offsetof(struct enpu_cmd_dequantize, scale),
		       "QUANTIZE and DEQUANTIZE share one layout");
	memset(&command, 0, sizeof(command));
	command.hdr = header(opcode, sizeof(command));
	command.input = tensor(input);
	command.output = tensor(output);
	memcpy(&command.scale, &scale, sizeof(command.scale));
	return enpu_cmdbuf_append(cmdbuf, what, &command, sizeof(command));
}

int enpu_cmdbuf_quantize(enpu_cmdbuf *cmdbuf,
			 const struct enpu_quantize_layer *layer)
{
	if (!cmdbuf || !layer)
		return -EINVAL;
	return convert(cmdbuf, ENPU_CMD_QUANTIZE, "quantize", &layer->input,
		       &layer->output, layer->scale);
}

int enpu_cmdbuf_dequantize(enpu_cmdbuf *cmdbuf,
			   const struct enpu_dequantize_layer *layer)
{
	if (!cmdbuf || !layer)
		return -EINVAL;
	return convert(cmdbuf, ENPU_CMD_DEQUANTIZE, "dequantize",
		       &layer->input, &layer->output, layer->scale);
}
