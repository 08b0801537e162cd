// SPDX-License-Identifier: MIT
/*
 * Builds the demo network. Quantization follows post-training practice:
 * random int8 weights (symmetric, per output channel), then each layer's
 * real scales are calibrated on the demo image by running the layers
 * before it with the CPU reference kernels, and the integer parameters the
 * device and the CPU share are derived from those scales with the
 * runtime's own functions (enpu_requant_from_scale(),
 * enpu_cpu_add_params(), the average-pool rule of enpu_cpu.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"

#include "demo_cpu.h"
#include "demo_network.h"

#define ALIGNMENT 64
/* Real range a ReLU6 output is quantized over; the clamp cuts it at 6. */
#define RELU6_RANGE 8.0
/* Largest pre-activation value (times a per-channel factor) aimed for. */
#define RELU6_TARGET 8.0
#define LINEAR_TARGET 4.0
/*
 * Accumulator magnitudes below this are treated as this, which keeps every
 * requant multiplier below 1 even for a channel the image barely excites.
 */
#define ACC_FLOOR 1024.0

struct builder {
	struct demo_network *network;
	enpu_cpu_context *cpu;
	uint64_t random;
	/* Host copies of the buffers while building (calibration runs). */
	unsigned char *memory[DEMO_BUFFER_COUNT];
	size_t error_size;
	char *error;
};

static int fail(struct builder *b, int status, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(b->error, b->error_size, format, args);
	va_end(args);
	return status;
}

/* xorshift64*: the same weights on every machine for the same seed. */
static uint64_t next_random(struct builder *b)
{
	uint64_t x = b->random;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	b->random = x;
	return x * 0x2545f4914f6cdd1dull;
}

static double uniform(struct builder *b, double low, double high)
{
	return low + (high - low) * (double)(next_random(b) >> 11) /
		     (double)(1ull << 53);
}

static int8_t random_weight(struct builder *b)
{
	return (int8_t)((int)(next_random(b) % 255) - 127);
}

static uint64_t align_up(uint64_t value)
{
	return (value + ALIGNMENT - 1) & ~(uint64_t)(ALIGNMENT - 1);
}

/* Appends size zeroed bytes to buffer; returns their offset in *offset. */
static int reserve(struct builder *b, enum demo_buffer buffer, uint64_t size,
		   uint64_t *offset)
{
	uint64_t start = align_up(b->network->size[buffer]);
	unsigned char *grown = realloc(b->memory[buffer], start + size);

	if (!grown)
		return fail(b, -ENOMEM, "out of memory building the network");
	memset(grown + b->network->size[buffer], 0,
	       start + size - b->network->size[buffer]);
	b->memory[buffer] = grown;
	b->network->size[buffer] = start + size;
	*offset = start;
	return 0;
}

static void *param_at(struct builder *b, uint64_t offset)
{
	return b->memory[DEMO_BUFFER_PARAMS] + offset;
}

static int new_tensor(struct builder *b, enum demo_buffer buffer,
		      uint32_t height, uint32_t width, uint32_t channels,
		      int32_t zero_point, double scale,
		      struct demo_tensor *tensor)
{
	*tensor = (struct demo_tensor){
		.buffer = buffer, .height = height, .width = width,
		.channels = channels, .zero_point = zero_point, .scale = scale,
	};
	return reserve(b, buffer, demo_tensor_bytes(tensor), &tensor->offset);
}

static struct demo_layer *new_layer(struct builder *b,
				    enum demo_layer_kind kind,
				    const char *name, const char *note)
{
	struct demo_network *network = b->network;
	struct demo_layer *layer;

	if (network->layer_count >= DEMO_MAX_LAYERS) {
		fail(b, -ENOSPC, "more than %d layers", DEMO_MAX_LAYERS);
		return NULL;
	}
	layer = &network->layer[network->layer_count];
	memset(layer, 0, sizeof(*layer));
	layer->kind = kind;
	snprintf(layer->name, sizeof(layer->name), "%s", name);
	snprintf(layer->note, sizeof(layer->note), "%s", note);
	layer->weights_offset = DEMO_NO_PARAMS;
	layer->bias_offset = DEMO_NO_PARAMS;
	layer->requant_offset = DEMO_NO_PARAMS;
	layer->pool_table_offset = DEMO_NO_PARAMS;
	return layer;
}

/* Runs the finished layer with the reference kernels: the next one's input. */
static int commit_layer(struct builder *b, struct demo_tensor *output)
{
	struct demo_network *network = b->network;
	int status;

	network->params = b->memory[DEMO_BUFFER_PARAMS];
	network->input = b->memory[DEMO_BUFFER_INPUT];
	status = demo_cpu_run_layer(b->cpu, network, NULL,
				    network->layer_count, b->memory,
				    b->error_size, b->error);
	if (status)
		return status;
	network->total_macs += network->layer[network->layer_count].macs;
	*output = network->layer[network->layer_count].output;
	network->layer_count++;
	return 0;
}

static int8_t *tensor_data(struct builder *b, const struct demo_tensor *t)
{
	return (int8_t *)(b->memory[t->buffer] + t->offset);
}

/* Asymmetric int8 quantization of the real range [low, high] (holding 0). */
static void quantize_range(double low, double high, double *scale,
			   int32_t *zero_point)
{
	double zp;

	low = fmin(low, 0.0);
	high = fmax(high, 0.0);
	if (high - low < 1e-6)
		high = low + 1e-6;
	*scale = (high - low) / 255.0;
	zp = round(-128.0 - low / *scale);
	*zero_point = (int32_t)fmax(-128.0, fmin(127.0, zp));
}

/*
 * Weight scales, bias and output quantization of a convolution or FC from
 * its raw accumulators acc[pixels][channels] (no bias): channel o's
 * largest |acc| maps to about target * factor[o] in real terms.
 */
static int calibrate(struct builder *b, struct demo_layer *layer,
		     const int32_t *acc, size_t pixels, size_t channels,
		     int relu6, int per_channel, const struct demo_tensor *in,
		     double *output_scale, int32_t *output_zero_point)
{
	double *weight_scale = calloc(channels, sizeof(*weight_scale));
	double *largest = calloc(channels, sizeof(*largest));
	int32_t *bias = param_at(b, layer->bias_offset);
	double low = 0, high = 0, global = ACC_FLOOR;
	int status = 0;

	if (!weight_scale || !largest) {
		status = fail(b, -ENOMEM, "out of memory calibrating %s",
			      layer->name);
		goto out;
	}
	for (size_t i = 0; i < pixels * channels; i++) {
		double magnitude = fabs((double)acc[i]);

		largest[i % channels] = fmax(largest[i % channels], magnitude);
		global = fmax(global, magnitude);
	}
	for (size_t o = 0; o < channels; o++) {
		double range = per_channel ? fmax(largest[o], ACC_FLOOR) :
					     global;
		double factor = per_channel ? uniform(b, 0.6, 1.4) : 1.0;
		double target = relu6 ? RELU6_TARGET : LINEAR_TARGET;

		weight_scale[o] = factor * target / (range * in->scale);
		bias[o] = (int32_t)lround(uniform(b, -0.25, 0.25) * range);
	}
	for (size_t i = 0; i < pixels * channels; i++) {
		size_t o = i % channels;
		double real = ((double)acc[i] + bias[o]) * in->scale *
			      weight_scale[o];

		low = fmin(low, real);
		high = fmax(high, real);
	}
	if (relu6) {
		/* ReLU6 by the fused clamp: real 0 is the zero point. */
		*output_scale = RELU6_RANGE / 255.0;
		*output_zero_point = -128;
		layer->min = -128;
		layer->max = -128 + (int32_t)lround(6.0 / *output_scale);
	} else {
		quantize_range(low, high, output_scale, output_zero_point);
		layer->min = -128;
		layer->max = 127;
	}
	for (size_t o = 0; o < channels; o++) {
		double ratio = in->scale * weight_scale[o] / *output_scale;

		status = enpu_requant_from_scale(ratio, &layer->multiplier[o],
						 &layer->shift[o]);
		if (status) {
			status = fail(b, status,
				      "%s: channel %zu requant scale %g is not representable",
				      layer->name, o, ratio);
			goto out;
		}
	}
out:
	free(weight_scale);
	free(largest);
	return status;
}

static int allocate_requant(struct builder *b, struct demo_layer *layer,
			    size_t channels)
{
	layer->multiplier = calloc(channels, sizeof(*layer->multiplier));
	layer->shift = calloc(channels, sizeof(*layer->shift));
	if (!layer->multiplier || !layer->shift)
		return fail(b, -ENOMEM, "out of memory for %s", layer->name);
	return 0;
}

/* The per-channel (M, S) table the device reads from the params BO. */
static int write_requant_table(struct builder *b, struct demo_layer *layer,
			       size_t channels)
{
	struct enpu_requant_param *table;
	int status;

	status = reserve(b, DEMO_BUFFER_PARAMS, channels * sizeof(*table),
			 &layer->requant_offset);
	if (status)
		return status;
	table = param_at(b, layer->requant_offset);
	for (size_t o = 0; o < channels; o++)
		table[o] = (struct enpu_requant_param){ layer->multiplier[o],
							 layer->shift[o] };
	return 0;
}

/*
 * CONV2D (groups 1) or DEPTHWISE_CONV2D, square kernel, "same" padding,
 * per-channel requantization, ReLU6 or linear output.
 */
static int add_conv(struct builder *b, enum demo_layer_kind kind,
		    const char *name, const struct demo_tensor *in,
		    uint32_t out_channels, uint32_t kernel, uint32_t stride,
		    int relu6, struct demo_tensor *out)
{
	int depthwise = kind == DEMO_DEPTHWISE_CONV2D;
	struct demo_layer *layer;
	struct enpu_cpu_conv_shape *shape;
	struct enpu_cpu_conv_args args;
	size_t oh = 0, ow = 0, weight_count;
	int32_t *acc = NULL;
	int8_t *weights;
	double output_scale;
	int32_t output_zero_point;
	int status;

	layer = new_layer(b, kind, name,
			  relu6 ? "relu6, per-channel" : "linear, per-channel");
	if (!layer)
		return -ENOSPC;
	layer->input = *in;
	shape = &layer->conv;
	*shape = (struct enpu_cpu_conv_shape){
		.input_channels = in->channels,
		.output_channels = depthwise ? in->channels : out_channels,
		.groups = depthwise ? in->channels : 1,
		.kernel_height = kernel, .kernel_width = kernel,
		.stride_height = stride, .stride_width = stride,
		.dilation_height = 1, .dilation_width = 1,
		.pad_top = kernel / 2, .pad_left = kernel / 2,
		.pad_bottom = kernel / 2, .pad_right = kernel / 2,
	};
	status = enpu_cpu_conv_output_size(b->cpu, shape, in->height,
					   in->width, &oh, &ow);
	if (status)
		return fail(b, status, "%s: %s", name,
			    enpu_cpu_context_error(b->cpu));
	weight_count = shape->output_channels *
		       (shape->input_channels / shape->groups) * kernel * kernel;
	layer->macs = (uint64_t)oh * ow * weight_count;
	status = reserve(b, DEMO_BUFFER_PARAMS, weight_count,
			 &layer->weights_offset);
	if (!status)
		status = reserve(b, DEMO_BUFFER_PARAMS,
				 shape->output_channels * sizeof(int32_t),
				 &layer->bias_offset);
	if (!status)
		status = allocate_requant(b, layer, shape->output_channels);
	if (status)
		return status;
	weights = param_at(b, layer->weights_offset);
	for (size_t i = 0; i < weight_count; i++)
		weights[i] = random_weight(b);

	acc = calloc(oh * ow * shape->output_channels, sizeof(*acc));
	if (!acc)
		return fail(b, -ENOMEM, "out of memory calibrating %s", name);
	args = (struct enpu_cpu_conv_args){
		.batch = 1, .input_height = in->height,
		.input_width = in->width, .input = tensor_data(b, in),
		.input_type = ENPU_CPU_INT8,
		.input_zero_point = in->zero_point, .output = acc,
		.output_type = ENPU_CPU_INT32,
	};
	status = enpu_cpu_conv2d_reference(b->cpu, &args, shape, weights,
					   NULL);
	if (status) {
		status = fail(b, status, "%s: %s", name,
			      enpu_cpu_context_error(b->cpu));
		goto out;
	}
	status = calibrate(b, layer, acc, oh * ow, shape->output_channels,
			   relu6, 1, in, &output_scale, &output_zero_point);
	if (!status)
		status = write_requant_table(b, layer, shape->output_channels);
	if (!status)
		status = new_tensor(b, DEMO_BUFFER_ARENA, (uint32_t)oh,
				    (uint32_t)ow,
				    (uint32_t)shape->output_channels,
				    output_zero_point, output_scale,
				    &layer->output);
	if (!status)
		status = commit_layer(b, out);
out:
	free(acc);
	return status;
}

/* The residual: out = a + b, requantized to the calibrated sum range. */
static int add_residual(struct builder *b, const char *name,
			const struct demo_tensor *a,
			const struct demo_tensor *other,
			struct demo_tensor *out)
{
	struct enpu_cpu_eltwise_quant quant;
	struct demo_layer *layer;
	const int8_t *qa = tensor_data(b, a), *qb = tensor_data(b, other);
	double low = 0, high = 0, scale;
	int32_t zero_point;
	int status;

	layer = new_layer(b, DEMO_ADD, name, "residual");
	if (!layer)
		return -ENOSPC;
	layer->input = *a;
	layer->input_b = *other;
	for (uint64_t i = 0; i < demo_tensor_bytes(a); i++) {
		double real = (qa[i] - a->zero_point) * a->scale +
			      (qb[i] - other->zero_point) * other->scale;

		low = fmin(low, real);
		high = fmax(high, real);
	}
	quantize_range(low, high, &scale, &zero_point);
	quant = (struct enpu_cpu_eltwise_quant){
		.type = ENPU_CPU_INT8,
		.a_scale = a->scale, .a_zero_point = a->zero_point,
		.b_scale = other->scale, .b_zero_point = other->zero_point,
		.output_scale = scale, .output_zero_point = zero_point,
		.min = -128, .max = 127,
	};
	status = enpu_cpu_add_params(b->cpu, &quant, &layer->add);
	if (status)
		return fail(b, status, "%s: %s", name,
			    enpu_cpu_context_error(b->cpu));
	layer->min = -128;
	layer->max = 127;
	status = new_tensor(b, DEMO_BUFFER_ARENA, a->height, a->width,
			    a->channels, zero_point, scale, &layer->output);
	return status ? status : commit_layer(b, out);
}

/* The CPU kernels' own average-pool rule for a window of count pixels. */
static int average_params(double scale, uint32_t count,
			  struct enpu_pool_param *param)
{
	*param = (struct enpu_pool_param){ 0 };
	return enpu_cpu_average_pool_params(scale, count, &param->left_shift,
					    &param->multiplier, &param->shift);
}

/* MAX_POOL or AVG_POOL keeping the input's quantization. */
static int add_pool(struct builder *b, enum demo_layer_kind kind,
		    const char *name, const struct demo_tensor *in,
		    uint32_t kernel, uint32_t stride, uint32_t pad, int global,
		    struct demo_tensor *out)
{
	struct demo_layer *layer;
	size_t oh = 0, ow = 0;
	int status;

	layer = new_layer(b, kind, name,
			  kind == DEMO_MAX_POOL ? "" :
			  global ? "per-tensor" : "count excludes pad");
	if (!layer)
		return -ENOSPC;
	layer->input = *in;
	layer->global_pool = global;
	layer->pool = (struct enpu_cpu_pool_shape){
		.kernel_height = global ? in->height : kernel,
		.kernel_width = global ? in->width : kernel,
		.stride_height = stride, .stride_width = stride,
		.dilation_height = 1, .dilation_width = 1,
		.pad_top = pad, .pad_left = pad,
		.pad_bottom = pad, .pad_right = pad,
	};
	layer->pool_scale = 1.0;
	layer->min = -128;
	layer->max = 127;
	status = enpu_cpu_pool_output_size(b->cpu, &layer->pool, in->height,
					   in->width, &oh, &ow);
	if (status)
		return fail(b, status, "%s: %s", name,
			    enpu_cpu_context_error(b->cpu));
	if (kind == DEMO_AVG_POOL) {
		uint32_t taps = (uint32_t)(layer->pool.kernel_height *
					   layer->pool.kernel_width);
		struct enpu_pool_param whole, *table;

		/*
		 * A global pool has one window size, so its parameters fit
		 * the command; a padded pool needs one entry per size.
		 */
		if (global) {
			if (average_params(layer->pool_scale, taps, &whole))
				return fail(b, -EINVAL,
					    "%s: no parameters for %u pixels",
					    name, taps);
			layer->pool_multiplier = whole.multiplier;
			layer->pool_shift = whole.shift;
			layer->pool_left_shift = whole.left_shift;
		} else {
			status = reserve(b, DEMO_BUFFER_PARAMS,
					 taps * sizeof(*table),
					 &layer->pool_table_offset);
			if (status)
				return status;
			table = param_at(b, layer->pool_table_offset);
			for (uint32_t c = 1; c <= taps; c++)
				if (average_params(layer->pool_scale, c,
						   &table[c - 1]))
					return fail(b, -EINVAL,
						    "%s: no parameters for %u pixels",
						    name, c);
		}
	}
	status = new_tensor(b, DEMO_BUFFER_ARENA, (uint32_t)oh, (uint32_t)ow,
			    in->channels, in->zero_point, in->scale,
			    &layer->output);
	return status ? status : commit_layer(b, out);
}

/* FULLY_CONNECTED over a 1x1xK tensor, per-tensor requantization. */
static int add_fully_connected(struct builder *b, const char *name,
			       const struct demo_tensor *in, uint32_t n,
			       struct demo_tensor *out)
{
	struct enpu_cpu_gemm_args args;
	struct demo_layer *layer;
	uint32_t k = in->channels;
	int32_t acc[64];
	int8_t *weights;
	double output_scale;
	int32_t output_zero_point;
	int status;

	if (n > 64 || in->height * in->width != 1)
		return fail(b, -EINVAL, "%s: unsupported shape", name);
	layer = new_layer(b, DEMO_FULLY_CONNECTED, name, "per-tensor");
	if (!layer)
		return -ENOSPC;
	layer->input = *in;
	layer->conv.input_channels = k;
	layer->conv.output_channels = n;
	layer->macs = (uint64_t)n * k;
	status = reserve(b, DEMO_BUFFER_PARAMS, (uint64_t)n * k,
			 &layer->weights_offset);
	if (!status)
		status = reserve(b, DEMO_BUFFER_PARAMS, n * sizeof(int32_t),
				 &layer->bias_offset);
	if (!status)
		status = allocate_requant(b, layer, n);
	if (status)
		return status;
	layer->fc_weights_kn = malloc((size_t)n * k);
	if (!layer->fc_weights_kn)
		return fail(b, -ENOMEM, "out of memory for %s", name);
	weights = param_at(b, layer->weights_offset);
	/* The command takes ONNX's transB [N][K]; the CPU GEMM B[K][N]. */
	for (uint32_t row = 0; row < n; row++)
		for (uint32_t col = 0; col < k; col++) {
			weights[(size_t)row * k + col] = random_weight(b);
			layer->fc_weights_kn[(size_t)col * n + row] =
				weights[(size_t)row * k + col];
		}
	args = (struct enpu_cpu_gemm_args){
		.m = 1, .a = tensor_data(b, in), .lda = k,
		.a_type = ENPU_CPU_INT8, .a_zero_point = in->zero_point,
		.c = acc, .ldc = n, .c_type = ENPU_CPU_INT32,
	};
	status = enpu_cpu_gemm_reference(b->cpu, &args, layer->fc_weights_kn,
					 n, NULL, k, n);
	if (status)
		return fail(b, status, "%s: %s", name,
			    enpu_cpu_context_error(b->cpu));
	status = calibrate(b, layer, acc, 1, n, 0, 0, in, &output_scale,
			   &output_zero_point);
	if (!status)
		status = new_tensor(b, DEMO_BUFFER_OUTPUT, 1, 1, n,
				    output_zero_point, output_scale,
				    &layer->output);
	return status ? status : commit_layer(b, out);
}

/*
 * The demo image, real values in [-1, 1): red rises left to right, green
 * top to bottom, blue with the distance from the centre.
 */
static int add_input(struct builder *b, struct demo_tensor *image)
{
	const uint32_t side = 32;
	int8_t *pixels;
	int status;

	status = new_tensor(b, DEMO_BUFFER_INPUT, side, side, 3, 0,
			    1.0 / 128.0, image);
	if (status)
		return status;
	pixels = tensor_data(b, image);
	for (uint32_t y = 0; y < side; y++)
		for (uint32_t x = 0; x < side; x++) {
			int dx = (int)x - 16, dy = (int)y - 16;
			int ring = (dx * dx + dy * dy) * 255 / 512;
			int8_t *pixel = pixels + (y * side + x) * 3;

			pixel[0] = (int8_t)((int)(x * 255 / (side - 1)) - 128);
			pixel[1] = (int8_t)((int)(y * 255 / (side - 1)) - 128);
			pixel[2] = (int8_t)((ring > 255 ? 255 : ring) - 128);
		}
	return 0;
}

static int build_layers(struct builder *b)
{
	struct demo_tensor image, stem, dw1, project1, expand2, dw2, project2;
	struct demo_tensor residual, max_pooled, head, avg_pooled, pooled;
	int status;

	status = add_input(b, &image);
	if (!status)
		status = add_conv(b, DEMO_CONV2D, "stem conv 3x3/2", &image, 16,
				  3, 2, 1, &stem);
	if (!status)
		status = add_conv(b, DEMO_DEPTHWISE_CONV2D, "block1 dw 3x3",
				  &stem, 16, 3, 1, 1, &dw1);
	if (!status)
		status = add_conv(b, DEMO_CONV2D, "block1 project 1x1", &dw1,
				  24, 1, 1, 0, &project1);
	if (!status)
		status = add_conv(b, DEMO_CONV2D, "block2 expand 1x1",
				  &project1, 72, 1, 1, 1, &expand2);
	if (!status)
		status = add_conv(b, DEMO_DEPTHWISE_CONV2D, "block2 dw 3x3",
				  &expand2, 72, 3, 1, 1, &dw2);
	if (!status)
		status = add_conv(b, DEMO_CONV2D, "block2 project 1x1", &dw2,
				  24, 1, 1, 0, &project2);
	if (!status)
		status = add_residual(b, "block2 add", &project1, &project2,
				      &residual);
	if (!status)
		status = add_pool(b, DEMO_MAX_POOL, "max pool 2x2/2",
				  &residual, 2, 2, 0, 0, &max_pooled);
	if (!status)
		status = add_conv(b, DEMO_CONV2D, "head conv 1x1", &max_pooled,
				  32, 1, 1, 1, &head);
	if (!status)
		status = add_pool(b, DEMO_AVG_POOL, "avg pool 3x3/1", &head, 3,
				  1, 1, 0, &avg_pooled);
	if (!status)
		status = add_pool(b, DEMO_AVG_POOL, "global avg pool",
				  &avg_pooled, 0, 1, 0, 1, &pooled);
	if (!status)
		status = add_fully_connected(b, "classifier fc", &pooled, 10,
					     &b->network->logits);
	return status;
}

int demo_network_build(struct demo_network *network, enpu_cpu_context *cpu,
		       uint64_t seed, size_t error_size, char *error)
{
	struct builder b = {
		.network = network, .cpu = cpu,
		.random = seed * 0x9e3779b97f4a7c15ull + 1,
		.error_size = error_size, .error = error,
	};
	int status;

	memset(network, 0, sizeof(*network));
	if (!b.random)
		b.random = 1;
	status = build_layers(&b);
	network->input = b.memory[DEMO_BUFFER_INPUT];
	network->params = b.memory[DEMO_BUFFER_PARAMS];
	/* The calibration copies of the arena and logits are not kept. */
	free(b.memory[DEMO_BUFFER_ARENA]);
	free(b.memory[DEMO_BUFFER_OUTPUT]);
	if (status) {
		/* new_layer() may have started a layer it did not commit. */
		network->layer_count++;
		demo_network_release(network);
	}
	return status;
}

void demo_network_release(struct demo_network *network)
{
	for (size_t i = 0; i < network->layer_count && i < DEMO_MAX_LAYERS;
	     i++) {
		free(network->layer[i].multiplier);
		free(network->layer[i].shift);
		free(network->layer[i].fc_weights_kn);
	}
	free(network->input);
	free(network->params);
	memset(network, 0, sizeof(*network));
}

uint64_t demo_tensor_bytes(const struct demo_tensor *tensor)
{
	return (uint64_t)tensor->height * tensor->width * tensor->channels;
}

void demo_tensor_format(const struct demo_tensor *tensor, size_t size,
			char *buffer)
{
	snprintf(buffer, size, "%ux%ux%u", tensor->height, tensor->width,
		 tensor->channels);
}

const char *demo_layer_kind_name(enum demo_layer_kind kind)
{
	switch (kind) {
	case DEMO_CONV2D:
		return "CONV2D";
	case DEMO_DEPTHWISE_CONV2D:
		return "DEPTHWISE_CONV2D";
	case DEMO_ADD:
		return "ADD";
	case DEMO_MAX_POOL:
		return "MAX_POOL";
	case DEMO_AVG_POOL:
		return "AVG_POOL";
	case DEMO_FULLY_CONNECTED:
		return "FULLY_CONNECTED";
	}
	return "?";
}
