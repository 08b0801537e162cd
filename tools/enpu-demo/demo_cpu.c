// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "demo_cpu.h"

static void *at(unsigned char *const memory[DEMO_BUFFER_COUNT],
		enum demo_buffer buffer, uint64_t offset)
{
	return memory[buffer] + offset;
}

static void *tensor_at(unsigned char *const memory[DEMO_BUFFER_COUNT],
		       const struct demo_tensor *tensor)
{
	return at(memory, tensor->buffer, tensor->offset);
}

static int cpu_failed(enpu_cpu_context *cpu, const struct demo_layer *layer,
		      int status, size_t error_size, char *error)
{
	snprintf(error, error_size, "CPU %s: %s", layer->name,
		 *enpu_cpu_context_error(cpu) ? enpu_cpu_context_error(cpu) :
						strerror(-status));
	return status;
}

int demo_cpu_plan_create(enpu_cpu_context *cpu,
			 const struct demo_network *network,
			 struct demo_cpu_plan *plan, size_t error_size,
			 char *error)
{
	int status = 0;

	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < network->layer_count && !status; i++) {
		const struct demo_layer *layer = &network->layer[i];
		const int32_t *bias = (const int32_t *)(network->params +
							layer->bias_offset);

		switch (layer->kind) {
		case DEMO_CONV2D:
		case DEMO_DEPTHWISE_CONV2D:
			status = enpu_cpu_conv_weights_pack(
				cpu, &layer->conv,
				(const int8_t *)(network->params +
						 layer->weights_offset),
				bias, &plan->conv[i]);
			break;
		case DEMO_FULLY_CONNECTED:
			status = enpu_cpu_gemm_weights_pack(
				cpu, layer->conv.input_channels,
				layer->conv.output_channels,
				layer->fc_weights_kn,
				layer->conv.output_channels, bias,
				&plan->fc[i]);
			break;
		default:
			break;
		}
		if (status)
			cpu_failed(cpu, layer, status, error_size, error);
	}
	if (status)
		demo_cpu_plan_release(plan);
	return status;
}

void demo_cpu_plan_release(struct demo_cpu_plan *plan)
{
	for (size_t i = 0; i < DEMO_MAX_LAYERS; i++) {
		enpu_cpu_conv_weights_destroy(plan->conv[i]);
		enpu_cpu_gemm_weights_destroy(plan->fc[i]);
		plan->conv[i] = NULL;
		plan->fc[i] = NULL;
	}
}

static struct enpu_cpu_requant layer_requant(const struct demo_layer *layer)
{
	return (struct enpu_cpu_requant){
		.multiplier = layer->multiplier,
		.shift = layer->shift,
		.per_channel = layer->requant_offset != DEMO_NO_PARAMS,
		.zero_point = layer->output.zero_point,
		.min = layer->min,
		.max = layer->max,
	};
}

static int run_conv(enpu_cpu_context *cpu, const struct demo_network *network,
		    const struct demo_cpu_plan *plan, size_t index,
		    unsigned char *const memory[DEMO_BUFFER_COUNT])
{
	const struct demo_layer *layer = &network->layer[index];
	struct enpu_cpu_requant requant = layer_requant(layer);
	struct enpu_cpu_conv_args args = {
		.batch = 1,
		.input_height = layer->input.height,
		.input_width = layer->input.width,
		.input = tensor_at(memory, &layer->input),
		.input_type = ENPU_CPU_INT8,
		.input_zero_point = layer->input.zero_point,
		.weights = plan ? plan->conv[index] : NULL,
		.output = tensor_at(memory, &layer->output),
		.output_type = ENPU_CPU_INT8,
		.requant = &requant,
	};

	if (plan)
		return enpu_cpu_conv2d(cpu, &args);
	return enpu_cpu_conv2d_reference(
		cpu, &args, &layer->conv,
		at(memory, DEMO_BUFFER_PARAMS, layer->weights_offset),
		at(memory, DEMO_BUFFER_PARAMS, layer->bias_offset));
}

static int run_fully_connected(enpu_cpu_context *cpu,
			       const struct demo_network *network,
			       const struct demo_cpu_plan *plan, size_t index,
			       unsigned char *const memory[DEMO_BUFFER_COUNT])
{
	const struct demo_layer *layer = &network->layer[index];
	struct enpu_cpu_requant requant = layer_requant(layer);
	size_t k = layer->conv.input_channels, n = layer->conv.output_channels;
	struct enpu_cpu_gemm_args args = {
		.m = 1,
		.a = tensor_at(memory, &layer->input),
		.lda = k,
		.a_type = ENPU_CPU_INT8,
		.a_zero_point = layer->input.zero_point,
		.weights = plan ? plan->fc[index] : NULL,
		.c = tensor_at(memory, &layer->output),
		.ldc = n,
		.c_type = ENPU_CPU_INT8,
		.requant = &requant,
	};

	if (plan)
		return enpu_cpu_gemm(cpu, &args);
	return enpu_cpu_gemm_reference(
		cpu, &args, layer->fc_weights_kn, n,
		at(memory, DEMO_BUFFER_PARAMS, layer->bias_offset), k, n);
}

static int run_add(enpu_cpu_context *cpu, const struct demo_layer *layer,
		   int optimized,
		   unsigned char *const memory[DEMO_BUFFER_COUNT])
{
	/* Same shapes, dense: one flat dimension is the whole tensor. */
	struct enpu_cpu_eltwise_args args = {
		.dims = 1,
		.shape = { demo_tensor_bytes(&layer->output) },
		.a = tensor_at(memory, &layer->input),
		.a_strides = { 1 },
		.b = tensor_at(memory, &layer->input_b),
		.b_strides = { 1 },
		.output = tensor_at(memory, &layer->output),
		.params = &layer->add,
	};

	return optimized ? enpu_cpu_add(cpu, &args) :
			   enpu_cpu_add_reference(cpu, &args);
}

static int run_pool(enpu_cpu_context *cpu, const struct demo_layer *layer,
		    int optimized,
		    unsigned char *const memory[DEMO_BUFFER_COUNT])
{
	struct enpu_cpu_pool_args args = {
		.batch = 1,
		.input_height = layer->input.height,
		.input_width = layer->input.width,
		.channels = layer->input.channels,
		.type = ENPU_CPU_INT8,
		.input = tensor_at(memory, &layer->input),
		.output = tensor_at(memory, &layer->output),
		.input_zero_point = layer->input.zero_point,
		.scale = layer->pool_scale,
		.output_zero_point = layer->output.zero_point,
		.min = layer->min,
		.max = layer->max,
	};

	if (layer->kind == DEMO_MAX_POOL)
		return optimized ?
		       enpu_cpu_max_pool(cpu, &layer->pool, &args) :
		       enpu_cpu_max_pool_reference(cpu, &layer->pool, &args);
	if (layer->global_pool)
		return optimized ?
		       enpu_cpu_global_average_pool(cpu, &args) :
		       enpu_cpu_global_average_pool_reference(cpu, &args);
	return optimized ?
	       enpu_cpu_average_pool(cpu, &layer->pool, &args) :
	       enpu_cpu_average_pool_reference(cpu, &layer->pool, &args);
}

int demo_cpu_run_layer(enpu_cpu_context *cpu,
		       const struct demo_network *network,
		       const struct demo_cpu_plan *plan, size_t index,
		       unsigned char *const memory[DEMO_BUFFER_COUNT],
		       size_t error_size, char *error)
{
	const struct demo_layer *layer = &network->layer[index];
	int status;

	switch (layer->kind) {
	case DEMO_CONV2D:
	case DEMO_DEPTHWISE_CONV2D:
		status = run_conv(cpu, network, plan, index, memory);
		break;
	case DEMO_FULLY_CONNECTED:
		status = run_fully_connected(cpu, network, plan, index,
					     memory);
		break;
	case DEMO_ADD:
		status = run_add(cpu, layer, plan != NULL, memory);
		break;
	case DEMO_MAX_POOL:
	case DEMO_AVG_POOL:
		status = run_pool(cpu, layer, plan != NULL, memory);
		break;
	default:
		status = -EINVAL;
	}
	if (status)
		return cpu_failed(cpu, layer, status, error_size, error);
	return 0;
}

int demo_cpu_run(enpu_cpu_context *cpu, const struct demo_network *network,
		 const struct demo_cpu_plan *plan,
		 unsigned char *const memory[DEMO_BUFFER_COUNT],
		 size_t error_size, char *error)
{
	for (size_t i = 0; i < network->layer_count; i++) {
		int status = demo_cpu_run_layer(cpu, network, plan, i, memory,
						error_size, error);

		if (status)
			return status;
	}
	return 0;
}
