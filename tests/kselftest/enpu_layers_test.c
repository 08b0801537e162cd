// SPDX-License-Identifier: GPL-2.0
/*
 * Every layer command of interface 1.2 run by the device against the CPU
 * reference kernels of userspace/runtime/cpu, byte for byte over the whole
 * output BO (so bytes a layer must not touch are checked too). Shapes and
 * quantization parameters are random; integer parameters are derived from
 * float scales with the runtime's own functions. The seed is logged; set
 * ENPU_TEST_SEED to replay a failure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define CASES 12
#define UNTOUCHED 0xa5
#define BO_SLACK 64	/* bytes after each tensor that must stay UNTOUCHED */

FIXTURE(layers)
{
	enpu_device *device;
	enpu_cpu_context *cpu;
	enpu_cmdbuf *cmdbuf;
	struct enpu_job_bos bos;
	struct enpu_random random;
	uint64_t seed;
};

FIXTURE_SETUP(layers)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_cpu_context_create(1, &self->cpu));
	ASSERT_EQ(0, enpu_cmdbuf_create(&self->cmdbuf));
	self->bos.device = self->device;
	self->seed = enpu_random_default_seed();
	enpu_random_seed(&self->random, self->seed);
	TH_LOG("seed %llu (ENPU_TEST_SEED replays it)",
	       (unsigned long long)self->seed);
}

FIXTURE_TEARDOWN(layers)
{
	enpu_job_bos_release(&self->bos);
	enpu_cmdbuf_destroy(self->cmdbuf);
	enpu_cpu_context_destroy(self->cpu);
	enpu_device_close(self->device);
}

static int64_t rnd(FIXTURE_DATA(layers) *self, int64_t low, int64_t high)
{
	return enpu_random_range(&self->random, low, high);
}

static void random_bytes(FIXTURE_DATA(layers) *self, void *buffer,
			 size_t size)
{
	for (size_t i = 0; i < size; i++)
		((unsigned char *)buffer)[i] = (unsigned char)rnd(self, 0, 255);
}

static enum enpu_cpu_dtype cpu_type(uint32_t dtype)
{
	return dtype == ENPU_DTYPE_UINT8 ? ENPU_CPU_UINT8 :
	       dtype == ENPU_DTYPE_INT8 ? ENPU_CPU_INT8 : ENPU_CPU_INT32;
}

static void type_range(uint32_t dtype, int32_t *low, int32_t *high)
{
	*low = dtype == ENPU_DTYPE_UINT8 ? 0 : -128;
	*high = dtype == ENPU_DTYPE_UINT8 ? 255 : 127;
}

static int32_t random_zero_point(FIXTURE_DATA(layers) *self, uint32_t dtype)
{
	int32_t low, high;

	if (dtype == ENPU_DTYPE_INT32)
		return 0;
	type_range(dtype, &low, &high);
	return (int32_t)rnd(self, low, high);
}

/* A fused clamp: the whole range, ReLU, or a random window. */
static void random_clamp(FIXTURE_DATA(layers) *self, uint32_t dtype,
			 int32_t zero_point, int32_t *min, int32_t *max)
{
	int32_t low, high;

	type_range(dtype, &low, &high);
	switch (rnd(self, 0, 2)) {
	case 0:
		*min = low;
		*max = high;
		break;
	case 1:
		*min = zero_point;
		*max = high;
		break;
	default:
		*min = (int32_t)rnd(self, low, (low + high) / 2);
		*max = (int32_t)rnd(self, *min, high);
	}
}

/* exp(uniform(log low, log high)). */
static double random_scale(FIXTURE_DATA(layers) *self, double low,
			   double high)
{
	double t = (double)rnd(self, 0, 1000000) / 1000000.0;

	return exp(log(low) + t * (log(high) - log(low)));
}

static size_t element_size(uint32_t dtype)
{
	return dtype == ENPU_DTYPE_INT32 ? 4 : 1;
}

static uint64_t tensor_bytes(const struct enpu_layer_tensor *t)
{
	uint64_t stride = t->pixel_stride ? t->pixel_stride : t->channels;

	return (uint64_t)t->batch * t->height * t->width * stride *
	       element_size(t->dtype);
}

/*
 * A BO holding the tensor at a random 8-aligned offset with BO_SLACK
 * bytes after it; its contents are data (tensor bytes) or UNTOUCHED.
 */
static uint32_t tensor_bo(struct __test_metadata *_metadata,
			  FIXTURE_DATA(layers) *self,
			  struct enpu_layer_tensor *t, uint32_t access,
			  const void *data)
{
	uint64_t offset = 8 * (uint64_t)rnd(self, 0, 8);
	uint64_t size = offset + tensor_bytes(t) + BO_SLACK;
	unsigned char *init = malloc(size);
	uint32_t index;

	ASSERT_NE(NULL, init);
	memset(init, UNTOUCHED, size);
	if (data)
		memcpy(init + offset, data, tensor_bytes(t));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, size, access, init, 0,
				     &index));
	free(init);
	t->buf.bo_index = index;
	t->buf.offset = offset;
	return index;
}

/* A BO with data at offset 0; its index goes to ref. */
static void data_bo(struct __test_metadata *_metadata,
		    FIXTURE_DATA(layers) *self, struct enpu_layer_ref *ref,
		    const void *data, size_t size)
{
	uint32_t index;

	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, size, DRM_ENPU_SUBMIT_BO_READ,
				     data, 0, &index));
	ref->bo_index = index;
	ref->offset = 0;
}

/* Runs the cmdbuf; the job must succeed. */
static void run_ok(struct __test_metadata *_metadata,
		   FIXTURE_DATA(layers) *self)
{
	const char *message = "";
	int job_status = 1;
	int status;

	status = enpu_job_run(&self->bos, self->cmdbuf, 0,
			      10 * ENPU_SECOND_NS, &job_status);
	if (status)
		enpu_device_last_error(self->device, &message);
	ASSERT_EQ(0, status) TH_LOG("%s", message);
	ASSERT_EQ(0, job_status);
}

/* The whole output BO against expected (same size), byte by byte. */
static void compare_bo(struct __test_metadata *_metadata,
		       FIXTURE_DATA(layers) *self, uint32_t index,
		       const unsigned char *expected, const char *what)
{
	const unsigned char *got = self->bos.map[index];

	for (uint64_t i = 0; i < self->bos.size[index]; i++) {
		ASSERT_EQ(expected[i], got[i])
			TH_LOG("%s: byte %llu of %llu differs (seed %llu)",
			       what, (unsigned long long)i,
			       (unsigned long long)self->bos.size[index],
			       (unsigned long long)self->seed);
	}
}

/* Output BO's current bytes (UNTOUCHED everywhere) as the expected base. */
static unsigned char *expected_copy(FIXTURE_DATA(layers) *self,
				    uint32_t index)
{
	unsigned char *copy = malloc(self->bos.size[index]);

	if (copy)
		memcpy(copy, self->bos.map[index], self->bos.size[index]);
	return copy;
}

static void random_tensor(FIXTURE_DATA(layers) *self,
			  struct enpu_layer_tensor *t, uint32_t batch,
			  uint32_t height, uint32_t width, uint32_t channels,
			  uint32_t dtype)
{
	*t = (struct enpu_layer_tensor){
		.batch = batch, .height = height, .width = width,
		.channels = channels, .dtype = dtype,
		/* A wider pixel is a channel slice of a concatenation. */
		.pixel_stride = rnd(self, 0, 2) ? 0 :
				channels + (uint32_t)rnd(self, 0, 5),
		.zero_point = random_zero_point(self, dtype),
	};
}

/*
 * One random CONV2D (or DEPTHWISE_CONV2D): groups, stride, dilation,
 * padding, per-tensor or per-channel requantization, int8/uint8 or int32
 * output, with or without bias.
 */
static void conv_case(struct __test_metadata *_metadata,
		      FIXTURE_DATA(layers) *self, int depthwise)
{
	struct enpu_cpu_conv_shape shape;
	struct enpu_cpu_conv_args args;
	struct enpu_cpu_requant requant;
	struct enpu_conv2d_layer layer;
	size_t oh = 0, ow = 0, weight_count;
	uint32_t batch, ih, iw, in_type, out_type, output;
	int32_t *multiplier, *shift, *bias;
	struct enpu_requant_param *table;
	unsigned char *input, *expected;
	int8_t *weights;
	int per_channel, with_bias;
	char what[256];

	memset(&layer, 0, sizeof(layer));
	do {
		shape = (struct enpu_cpu_conv_shape){ 0 };
		if (depthwise) {
			shape.input_channels = (size_t)rnd(self, 1, 12);
			shape.groups = shape.input_channels;
			shape.output_channels = shape.input_channels;
		} else {
			shape.groups = (size_t)rnd(self, 1, 3);
			shape.input_channels = shape.groups * rnd(self, 1, 4);
			shape.output_channels = shape.groups * rnd(self, 1, 4);
		}
		shape.kernel_height = (size_t)rnd(self, 1, 3);
		shape.kernel_width = (size_t)rnd(self, 1, 3);
		shape.stride_height = (size_t)rnd(self, 1, 2);
		shape.stride_width = (size_t)rnd(self, 1, 3);
		shape.dilation_height = (size_t)rnd(self, 1, 2);
		shape.dilation_width = (size_t)rnd(self, 1, 2);
		shape.pad_top = (size_t)rnd(self, 0, 2);
		shape.pad_left = (size_t)rnd(self, 0, 2);
		shape.pad_bottom = (size_t)rnd(self, 0, 2);
		shape.pad_right = (size_t)rnd(self, 0, 2);
		batch = (uint32_t)rnd(self, 1, 2);
		ih = (uint32_t)rnd(self, 1, 9);
		iw = (uint32_t)rnd(self, 1, 9);
	} while (enpu_cpu_conv_output_size(self->cpu, &shape, ih, iw, &oh,
					   &ow));

	in_type = (uint32_t)rnd(self, ENPU_DTYPE_UINT8, ENPU_DTYPE_INT8);
	out_type = (uint32_t)rnd(self, 0, 3);
	if (out_type == 3)
		out_type = in_type;
	per_channel = (int)rnd(self, 0, 1);
	with_bias = (int)rnd(self, 0, 1);
	random_tensor(self, &layer.input, batch, ih, iw,
		      (uint32_t)shape.input_channels, in_type);
	random_tensor(self, &layer.output, batch, (uint32_t)oh, (uint32_t)ow,
		      (uint32_t)shape.output_channels, out_type);

	weight_count = shape.output_channels *
		       (shape.input_channels / shape.groups) *
		       shape.kernel_height * shape.kernel_width;
	input = malloc(tensor_bytes(&layer.input));
	weights = malloc(weight_count);
	bias = calloc(shape.output_channels, sizeof(*bias));
	multiplier = calloc(shape.output_channels, sizeof(*multiplier));
	shift = calloc(shape.output_channels, sizeof(*shift));
	table = calloc(shape.output_channels, sizeof(*table));
	ASSERT_TRUE(input && weights && bias && multiplier && shift && table);
	random_bytes(self, input, tensor_bytes(&layer.input));
	random_bytes(self, weights, weight_count);
	for (size_t o = 0; o < shape.output_channels; o++) {
		/* Accumulators reach ~128 * 128 * taps; aim around 1/taps. */
		double taps = (double)weight_count / shape.output_channels;

		bias[o] = with_bias ? (int32_t)rnd(self, -20000, 20000) : 0;
		ASSERT_EQ(0, enpu_requant_from_scale(
				     random_scale(self, 0.002 / taps, 0.2 / taps),
				     &multiplier[o], &shift[o]));
		table[o] = (struct enpu_requant_param){ multiplier[o],
							 shift[o] };
	}

	tensor_bo(_metadata, self, &layer.input, DRM_ENPU_SUBMIT_BO_READ,
		  input);
	output = tensor_bo(_metadata, self, &layer.output,
			   DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	data_bo(_metadata, self, &layer.weights, weights, weight_count);
	if (with_bias) {
		data_bo(_metadata, self, &layer.bias, bias,
			shape.output_channels * sizeof(*bias));
	} else {
		layer.bias.bo_index = ENPU_BUF_NONE;
	}
	layer.requant.per_channel.bo_index = ENPU_BUF_NONE;
	requant = (struct enpu_cpu_requant){
		.multiplier = multiplier, .shift = shift,
		.per_channel = per_channel,
		.zero_point = layer.output.zero_point,
	};
	if (out_type != ENPU_DTYPE_INT32) {
		random_clamp(self, out_type, layer.output.zero_point,
			     &requant.min, &requant.max);
		layer.requant.min = requant.min;
		layer.requant.max = requant.max;
		if (per_channel) {
			data_bo(_metadata, self, &layer.requant.per_channel,
				table, shape.output_channels * sizeof(*table));
		} else {
			layer.requant.multiplier = multiplier[0];
			layer.requant.shift = shift[0];
		}
	}
	layer.kernel_height = (uint32_t)shape.kernel_height;
	layer.kernel_width = (uint32_t)shape.kernel_width;
	layer.stride_height = (uint32_t)shape.stride_height;
	layer.stride_width = (uint32_t)shape.stride_width;
	layer.dilation_height = (uint32_t)shape.dilation_height;
	layer.dilation_width = (uint32_t)shape.dilation_width;
	layer.pad_top = (uint32_t)shape.pad_top;
	layer.pad_left = (uint32_t)shape.pad_left;
	layer.pad_bottom = (uint32_t)shape.pad_bottom;
	layer.pad_right = (uint32_t)shape.pad_right;
	layer.groups = (uint32_t)shape.groups;

	expected = expected_copy(self, output);
	ASSERT_NE(NULL, expected);
	args = (struct enpu_cpu_conv_args){
		.batch = batch, .input_height = ih, .input_width = iw,
		.input = input,
		.input_pixel_stride = layer.input.pixel_stride,
		.input_type = cpu_type(in_type),
		.input_zero_point = layer.input.zero_point,
		.output = expected + layer.output.buf.offset,
		.output_pixel_stride = layer.output.pixel_stride,
		.output_type = cpu_type(out_type),
		.requant = &requant,
	};
	ASSERT_EQ(0, enpu_cpu_conv2d_reference(self->cpu, &args, &shape,
					       weights, with_bias ? bias : NULL))
		TH_LOG("%s", enpu_cpu_context_error(self->cpu));

	ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
	if (depthwise) {
		ASSERT_EQ(0, enpu_cmdbuf_depthwise_conv2d(self->cmdbuf, &layer));
	} else {
		ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &layer));
	}
	run_ok(_metadata, self);
	snprintf(what, sizeof(what),
		 "%s n%u %ux%ux%zu -> %zux%zux%zu k%zux%zu s%zux%zu d%zux%zu p%zu,%zu,%zu,%zu g%zu in%u out%u ps%u/%u per_channel %d bias %d",
		 depthwise ? "depthwise" : "conv2d", batch, ih, iw,
		 shape.input_channels, oh, ow, shape.output_channels,
		 shape.kernel_height, shape.kernel_width, shape.stride_height,
		 shape.stride_width, shape.dilation_height,
		 shape.dilation_width, shape.pad_top, shape.pad_left,
		 shape.pad_bottom, shape.pad_right, shape.groups, in_type,
		 out_type, layer.input.pixel_stride, layer.output.pixel_stride,
		 per_channel, with_bias);
	compare_bo(_metadata, self, output, expected, what);

	free(expected);
	free(input);
	free(weights);
	free(bias);
	free(multiplier);
	free(shift);
	free(table);
	enpu_job_bos_release(&self->bos);
}

TEST_F_TIMEOUT(layers, conv2d_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		conv_case(_metadata, self, 0);
}

TEST_F_TIMEOUT(layers, depthwise_conv2d_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		conv_case(_metadata, self, 1);
}

/* FULLY_CONNECTED: out[m][n] = requant(bias[n] + sum_k (in - zp) w[n][k]). */
static void fc_case(struct __test_metadata *_metadata,
		    FIXTURE_DATA(layers) *self)
{
	uint32_t m = (uint32_t)rnd(self, 1, 8), k = (uint32_t)rnd(self, 1, 80);
	uint32_t n = (uint32_t)rnd(self, 1, 20), output;
	uint32_t in_type = (uint32_t)rnd(self, 0, 1);
	uint32_t out_type = (uint32_t)rnd(self, 0, 2);
	int per_channel = (int)rnd(self, 0, 1), with_bias = (int)rnd(self, 0, 1);
	struct enpu_cpu_gemm_args args;
	struct enpu_cpu_requant requant;
	struct enpu_fc_layer layer;
	struct enpu_requant_param *table;
	int32_t *bias, *multiplier, *shift;
	int8_t *weights, *transposed;
	unsigned char *input, *expected;

	memset(&layer, 0, sizeof(layer));
	random_tensor(self, &layer.input, 1, 1, m, k, in_type);
	random_tensor(self, &layer.output, 1, 1, m, n, out_type);
	input = malloc(tensor_bytes(&layer.input));
	weights = malloc((size_t)n * k);
	transposed = malloc((size_t)n * k);
	bias = calloc(n, sizeof(*bias));
	multiplier = calloc(n, sizeof(*multiplier));
	shift = calloc(n, sizeof(*shift));
	table = calloc(n, sizeof(*table));
	ASSERT_TRUE(input && weights && transposed && bias && multiplier &&
		    shift && table);
	random_bytes(self, input, tensor_bytes(&layer.input));
	random_bytes(self, weights, (size_t)n * k);
	/* The reference takes B[k][n]; the command, ONNX's transB [n][k]. */
	for (uint32_t row = 0; row < n; row++)
		for (uint32_t col = 0; col < k; col++)
			transposed[(size_t)col * n + row] =
				weights[(size_t)row * k + col];
	for (uint32_t o = 0; o < n; o++) {
		bias[o] = with_bias ? (int32_t)rnd(self, -30000, 30000) : 0;
		ASSERT_EQ(0, enpu_requant_from_scale(
				     random_scale(self, 0.002 / k, 0.3 / k),
				     &multiplier[o], &shift[o]));
		table[o] = (struct enpu_requant_param){ multiplier[o], shift[o] };
	}
	tensor_bo(_metadata, self, &layer.input, DRM_ENPU_SUBMIT_BO_READ,
		  input);
	output = tensor_bo(_metadata, self, &layer.output,
			   DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	data_bo(_metadata, self, &layer.weights, weights, (size_t)n * k);
	if (with_bias) {
		data_bo(_metadata, self, &layer.bias, bias, n * sizeof(*bias));
	} else {
		layer.bias.bo_index = ENPU_BUF_NONE;
	}
	layer.requant.per_channel.bo_index = ENPU_BUF_NONE;
	requant = (struct enpu_cpu_requant){
		.multiplier = multiplier, .shift = shift,
		.per_channel = per_channel,
		.zero_point = layer.output.zero_point,
	};
	if (out_type != ENPU_DTYPE_INT32) {
		random_clamp(self, out_type, layer.output.zero_point,
			     &requant.min, &requant.max);
		layer.requant.min = requant.min;
		layer.requant.max = requant.max;
		if (per_channel) {
			data_bo(_metadata, self, &layer.requant.per_channel,
				table, n * sizeof(*table));
		} else {
			layer.requant.multiplier = multiplier[0];
			layer.requant.shift = shift[0];
		}
	}
	expected = expected_copy(self, output);
	ASSERT_NE(NULL, expected);
	args = (struct enpu_cpu_gemm_args){
		.m = m, .a = input,
		.lda = layer.input.pixel_stride ? layer.input.pixel_stride : k,
		.a_type = cpu_type(in_type),
		.a_zero_point = layer.input.zero_point,
		.c = expected + layer.output.buf.offset,
		.ldc = layer.output.pixel_stride ? layer.output.pixel_stride : n,
		.c_type = cpu_type(out_type), .requant = &requant,
	};
	ASSERT_EQ(0, enpu_cpu_gemm_reference(self->cpu, &args, transposed, n,
					     with_bias ? bias : NULL, k, n))
		TH_LOG("%s", enpu_cpu_context_error(self->cpu));
	ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_fully_connected(self->cmdbuf, &layer));
	run_ok(_metadata, self);
	compare_bo(_metadata, self, output, expected, "fully_connected");
	free(expected);
	free(input);
	free(weights);
	free(transposed);
	free(bias);
	free(multiplier);
	free(shift);
	free(table);
	enpu_job_bos_release(&self->bos);
}

TEST_F_TIMEOUT(layers, fully_connected_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		fc_case(_metadata, self);
}

/* Element strides of t broadcast to the output's N, H, W, C. */
static void broadcast_strides(const struct enpu_layer_tensor *t,
			      const struct enpu_layer_tensor *out,
			      size_t strides[4])
{
	size_t ps = t->pixel_stride ? t->pixel_stride : t->channels;

	strides[3] = t->channels == out->channels ? 1 : 0;
	strides[2] = t->width == out->width ? ps : 0;
	strides[1] = t->height == out->height ? ps * t->width : 0;
	strides[0] = t->batch == out->batch ?
		     ps * t->width * t->height : 0;
}

static uint32_t maybe_one(FIXTURE_DATA(layers) *self, uint32_t value)
{
	return rnd(self, 0, 3) ? value : 1;
}

/* ADD or MUL with broadcasting in any dimension of either input. */
static void eltwise_case(struct __test_metadata *_metadata,
			 FIXTURE_DATA(layers) *self, int mul)
{
	uint32_t dims[4] = { (uint32_t)rnd(self, 1, 2), (uint32_t)rnd(self, 1, 6),
			     (uint32_t)rnd(self, 1, 6), (uint32_t)rnd(self, 1, 20) };
	uint32_t type = (uint32_t)rnd(self, 0, 1), output;
	struct enpu_cpu_eltwise_params params;
	struct enpu_cpu_eltwise_quant quant;
	struct enpu_cpu_eltwise_args args;
	struct enpu_layer_tensor a, b, out;
	unsigned char *a_data, *b_data, *expected;

	random_tensor(self, &a, maybe_one(self, dims[0]),
		      maybe_one(self, dims[1]), maybe_one(self, dims[2]),
		      maybe_one(self, dims[3]), type);
	random_tensor(self, &b, maybe_one(self, dims[0]),
		      maybe_one(self, dims[1]), maybe_one(self, dims[2]),
		      maybe_one(self, dims[3]), type);
	/* The output is what the inputs broadcast to, dense. */
	random_tensor(self, &out, a.batch > b.batch ? a.batch : b.batch,
		      a.height > b.height ? a.height : b.height,
		      a.width > b.width ? a.width : b.width,
		      a.channels > b.channels ? a.channels : b.channels, type);
	out.pixel_stride = 0;
	quant = (struct enpu_cpu_eltwise_quant){
		.type = cpu_type(type),
		.a_scale = random_scale(self, 0.01, 1.0),
		.a_zero_point = a.zero_point,
		.b_scale = random_scale(self, 0.01, 1.0),
		.b_zero_point = b.zero_point,
		.output_scale = random_scale(self, 0.01, 1.0),
		.output_zero_point = out.zero_point,
	};
	random_clamp(self, type, out.zero_point, &quant.min, &quant.max);
	if (mul) {
		ASSERT_EQ(0, enpu_cpu_mul_params(self->cpu, &quant, &params))
			TH_LOG("%s", enpu_cpu_context_error(self->cpu));
	} else {
		ASSERT_EQ(0, enpu_cpu_add_params(self->cpu, &quant, &params))
			TH_LOG("%s", enpu_cpu_context_error(self->cpu));
	}
	a_data = malloc(tensor_bytes(&a));
	b_data = malloc(tensor_bytes(&b));
	ASSERT_TRUE(a_data && b_data);
	random_bytes(self, a_data, tensor_bytes(&a));
	random_bytes(self, b_data, tensor_bytes(&b));
	tensor_bo(_metadata, self, &a, DRM_ENPU_SUBMIT_BO_READ, a_data);
	tensor_bo(_metadata, self, &b, DRM_ENPU_SUBMIT_BO_READ, b_data);
	output = tensor_bo(_metadata, self, &out, DRM_ENPU_SUBMIT_BO_WRITE,
			   NULL);
	expected = expected_copy(self, output);
	ASSERT_NE(NULL, expected);
	args = (struct enpu_cpu_eltwise_args){
		.dims = 4,
		.shape = { out.batch, out.height, out.width, out.channels },
		.a = a_data, .b = b_data,
		.output = expected + out.buf.offset, .params = &params,
	};
	broadcast_strides(&a, &out, args.a_strides);
	broadcast_strides(&b, &out, args.b_strides);
	if (mul) {
		ASSERT_EQ(0, enpu_cpu_mul_reference(self->cpu, &args));
	} else {
		ASSERT_EQ(0, enpu_cpu_add_reference(self->cpu, &args));
	}
	ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
	if (mul) {
		struct enpu_mul_layer layer = {
			.a = a, .b = b, .output = out,
			.left_shift = params.left_shift,
			.multiplier = params.multiplier, .shift = params.shift,
			.min = params.min, .max = params.max,
		};

		ASSERT_EQ(0, enpu_cmdbuf_mul(self->cmdbuf, &layer));
	} else {
		struct enpu_add_layer layer = {
			.a = a, .b = b, .output = out,
			.a_multiplier = params.a_multiplier,
			.b_multiplier = params.b_multiplier,
			.shift = params.add_shift,
			.min = params.min, .max = params.max,
		};

		ASSERT_EQ(0, enpu_cmdbuf_add(self->cmdbuf, &layer));
	}
	run_ok(_metadata, self);
	compare_bo(_metadata, self, output, expected, mul ? "mul" : "add");
	free(expected);
	free(a_data);
	free(b_data);
	enpu_job_bos_release(&self->bos);
}

TEST_F_TIMEOUT(layers, add_with_broadcasting_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		eltwise_case(_metadata, self, 0);
}

TEST_F_TIMEOUT(layers, mul_with_broadcasting_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		eltwise_case(_metadata, self, 1);
}

/*
 * The average-pool table of uapi/enpu_cmd.h: entry count - 1 for a window
 * of count pixels, from the CPU kernels' own rule.
 */
static int average_pool_table(double scale, uint32_t taps,
			      struct enpu_pool_param *table)
{
	for (uint32_t count = 1; count <= taps; count++) {
		struct enpu_pool_param *p = &table[count - 1];

		*p = (struct enpu_pool_param){ 0 };
		if (enpu_cpu_average_pool_params(scale, count, &p->left_shift,
						 &p->multiplier, &p->shift))
			return -EINVAL;
	}
	return 0;
}

static void pool_case(struct __test_metadata *_metadata,
		      FIXTURE_DATA(layers) *self, int average, int global)
{
	struct enpu_cpu_pool_shape shape;
	struct enpu_cpu_pool_args args;
	struct enpu_pool_layer layer;
	struct enpu_pool_param *table = NULL;
	size_t oh = 0, ow = 0;
	uint32_t batch, ih, iw, channels, type, output, taps;
	unsigned char *input, *expected;
	double scale = 0;

	memset(&layer, 0, sizeof(layer));
	do {
		batch = (uint32_t)rnd(self, 1, 2);
		ih = (uint32_t)rnd(self, 1, 9);
		iw = (uint32_t)rnd(self, 1, 9);
		shape = (struct enpu_cpu_pool_shape){
			.kernel_height = global ? ih : (size_t)rnd(self, 1, 3),
			.kernel_width = global ? iw : (size_t)rnd(self, 1, 3),
			.stride_height = (size_t)rnd(self, 1, 3),
			.stride_width = (size_t)rnd(self, 1, 2),
			.dilation_height = global ? 1 : (size_t)rnd(self, 1, 2),
			.dilation_width = global ? 1 : (size_t)rnd(self, 1, 2),
			.ceil_mode = global ? 0 : (int)rnd(self, 0, 1),
			.count_include_pad = average && (int)rnd(self, 0, 1),
		};
		if (!global) {
			shape.pad_top = (size_t)rnd(self, 0, shape.kernel_height - 1);
			shape.pad_left = (size_t)rnd(self, 0, shape.kernel_width - 1);
			shape.pad_bottom = (size_t)rnd(self, 0, shape.kernel_height - 1);
			shape.pad_right = (size_t)rnd(self, 0, shape.kernel_width - 1);
		}
	} while (enpu_cpu_pool_output_size(self->cpu, &shape, ih, iw, &oh,
					   &ow));
	channels = (uint32_t)rnd(self, 1, 24);
	type = (uint32_t)rnd(self, 0, 1);
	random_tensor(self, &layer.input, batch, ih, iw, channels, type);
	random_tensor(self, &layer.output, batch, (uint32_t)oh, (uint32_t)ow,
		      channels, type);
	input = malloc(tensor_bytes(&layer.input));
	ASSERT_NE(NULL, input);
	random_bytes(self, input, tensor_bytes(&layer.input));
	tensor_bo(_metadata, self, &layer.input, DRM_ENPU_SUBMIT_BO_READ,
		  input);
	output = tensor_bo(_metadata, self, &layer.output,
			   DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	args = (struct enpu_cpu_pool_args){
		.batch = batch, .input_height = ih, .input_width = iw,
		.channels = channels, .type = cpu_type(type), .input = input,
		.input_pixel_stride = layer.input.pixel_stride,
		.output_pixel_stride = layer.output.pixel_stride,
	};
	type_range(type, &args.min, &args.max);
	layer.params.bo_index = ENPU_BUF_NONE;
	taps = (uint32_t)(shape.kernel_height * shape.kernel_width);
	if (average) {
		/* The input zero point is the command's input tensor's. */
		args.input_zero_point = layer.input.zero_point;
		args.output_zero_point = layer.output.zero_point;
		random_clamp(self, type, layer.output.zero_point, &args.min,
			     &args.max);
		do {
			scale = random_scale(self, 0.05, 4.0);
			free(table);
			table = calloc(taps, sizeof(*table));
			ASSERT_NE(NULL, table);
		} while (average_pool_table(scale, taps, table));
		args.scale = scale;
		data_bo(_metadata, self, &layer.params, table,
			taps * sizeof(*table));
	}
	layer.min = args.min;
	layer.max = args.max;
	layer.kernel_height = (uint32_t)shape.kernel_height;
	layer.kernel_width = (uint32_t)shape.kernel_width;
	layer.stride_height = (uint32_t)shape.stride_height;
	layer.stride_width = (uint32_t)shape.stride_width;
	layer.dilation_height = (uint32_t)shape.dilation_height;
	layer.dilation_width = (uint32_t)shape.dilation_width;
	layer.pad_top = (uint32_t)shape.pad_top;
	layer.pad_left = (uint32_t)shape.pad_left;
	layer.pad_bottom = (uint32_t)shape.pad_bottom;
	layer.pad_right = (uint32_t)shape.pad_right;
	layer.flags = (shape.ceil_mode ? ENPU_POOL_CEIL_MODE : 0) |
		      (shape.count_include_pad ? ENPU_POOL_COUNT_INCLUDE_PAD : 0);
	expected = expected_copy(self, output);
	ASSERT_NE(NULL, expected);
	args.output = expected + layer.output.buf.offset;
	if (average) {
		ASSERT_EQ(0, enpu_cpu_average_pool_reference(self->cpu, &shape,
							     &args))
			TH_LOG("%s", enpu_cpu_context_error(self->cpu));
	} else {
		ASSERT_EQ(0, enpu_cpu_max_pool_reference(self->cpu, &shape,
							 &args))
			TH_LOG("%s", enpu_cpu_context_error(self->cpu));
	}
	ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
	if (average) {
		ASSERT_EQ(0, enpu_cmdbuf_avg_pool(self->cmdbuf, &layer));
	} else {
		ASSERT_EQ(0, enpu_cmdbuf_max_pool(self->cmdbuf, &layer));
	}
	run_ok(_metadata, self);
	compare_bo(_metadata, self, output, expected,
		   average ? "avg_pool" : "max_pool");
	free(expected);
	free(input);
	free(table);
	enpu_job_bos_release(&self->bos);
}

TEST_F_TIMEOUT(layers, max_pool_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		pool_case(_metadata, self, 0, 0);
}

TEST_F_TIMEOUT(layers, avg_pool_matches_the_reference, 300)
{
	for (int i = 0; i < CASES; i++)
		pool_case(_metadata, self, 1, 0);
}

TEST_F_TIMEOUT(layers, global_avg_pool_matches_the_reference, 300)
{
	for (int i = 0; i < 4; i++)
		pool_case(_metadata, self, 1, 1);
}

/*
 * CONCAT along channels: two COPY commands write the channel slices
 * [0, c1) and [c1, c1 + c2) of one wider tensor; the pixel's tail lanes
 * past c1 + c2 stay untouched. INT32 elements too.
 */
TEST_F_TIMEOUT(layers, copy_concatenates_through_pixel_stride_slices, 120)
{
	for (int i = 0; i < CASES; i++) {
		uint32_t n = (uint32_t)rnd(self, 1, 2), h = (uint32_t)rnd(self, 1, 5);
		uint32_t w = (uint32_t)rnd(self, 1, 5), c1 = (uint32_t)rnd(self, 1, 9);
		uint32_t c2 = (uint32_t)rnd(self, 1, 9), spare = (uint32_t)rnd(self, 0, 3);
		uint32_t type = (uint32_t)rnd(self, 0, 2), output;
		size_t es = element_size(type), pixels = (size_t)n * h * w;
		struct enpu_layer_tensor first, second, wide, slice;
		unsigned char *one, *two, *expected;

		random_tensor(self, &first, n, h, w, c1, type);
		random_tensor(self, &second, n, h, w, c2, type);
		wide = (struct enpu_layer_tensor){
			.batch = n, .height = h, .width = w,
			.channels = c1 + c2 + spare, .dtype = type,
		};
		one = malloc(tensor_bytes(&first));
		two = malloc(tensor_bytes(&second));
		ASSERT_TRUE(one && two);
		random_bytes(self, one, tensor_bytes(&first));
		random_bytes(self, two, tensor_bytes(&second));
		tensor_bo(_metadata, self, &first, DRM_ENPU_SUBMIT_BO_READ, one);
		tensor_bo(_metadata, self, &second, DRM_ENPU_SUBMIT_BO_READ,
			  two);
		output = tensor_bo(_metadata, self, &wide,
				   DRM_ENPU_SUBMIT_BO_WRITE, NULL);
		expected = expected_copy(self, output);
		ASSERT_NE(NULL, expected);
		for (size_t p = 0; p < pixels; p++) {
			size_t ps1 = first.pixel_stride ? first.pixel_stride : c1;
			size_t ps2 = second.pixel_stride ? second.pixel_stride : c2;
			unsigned char *dst = expected + wide.buf.offset +
					     p * wide.channels * es;

			memcpy(dst, one + p * ps1 * es, c1 * es);
			memcpy(dst + c1 * es, two + p * ps2 * es, c2 * es);
		}
		ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
		slice = wide;
		slice.channels = c1;
		slice.pixel_stride = wide.channels;
		/* COPY keeps the zero point: the slice carries the input's. */
		slice.zero_point = first.zero_point;
		ASSERT_EQ(0, enpu_cmdbuf_copy(self->cmdbuf, &first, &slice));
		slice.channels = c2;
		slice.buf.offset = wide.buf.offset + c1 * es;
		slice.zero_point = second.zero_point;
		ASSERT_EQ(0, enpu_cmdbuf_copy(self->cmdbuf, &second, &slice));
		run_ok(_metadata, self);
		compare_bo(_metadata, self, output, expected, "concat");
		free(expected);
		free(one);
		free(two);
		enpu_job_bos_release(&self->bos);
	}
}

/*
 * One job, three layers: CONV2D into an intermediate BO, ADD of that with
 * a second input, MAX_POOL of the sum. Commands of a job run in order, so
 * each reads what the previous one wrote.
 */
TEST_F_TIMEOUT(layers, chained_layers_in_one_job_match_the_reference, 120)
{
	const uint32_t h = 6, w = 7, cin = 5, cout = 6;
	struct enpu_cpu_conv_shape shape = {
		.input_channels = cin, .output_channels = cout, .groups = 1,
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
	};
	struct enpu_cpu_pool_shape pool_shape = {
		.kernel_height = 2, .kernel_width = 2, .stride_height = 2,
		.stride_width = 2, .dilation_height = 1, .dilation_width = 1,
		.ceil_mode = 1,
	};
	struct enpu_layer_tensor input, mid, other, sum, pooled;
	struct enpu_cpu_eltwise_params params;
	struct enpu_cpu_eltwise_quant quant;
	struct enpu_cpu_requant requant;
	struct enpu_conv2d_layer conv;
	struct enpu_add_layer add;
	struct enpu_pool_layer pool;
	unsigned char in_data[h * w * cin], other_data[h * w * cout];
	unsigned char mid_ref[h * w * cout], sum_ref[h * w * cout];
	int8_t weights[cout * cin * 9];
	int32_t multiplier, shift;
	size_t ph = 0, pw = 0;
	uint32_t out_index;
	unsigned char *expected;

	random_bytes(self, in_data, sizeof(in_data));
	random_bytes(self, other_data, sizeof(other_data));
	random_bytes(self, weights, sizeof(weights));
	ASSERT_EQ(0, enpu_requant_from_scale(0.0007, &multiplier, &shift));
	ASSERT_EQ(0, enpu_cpu_pool_output_size(self->cpu, &pool_shape, h, w,
					       &ph, &pw));
	input = (struct enpu_layer_tensor){ .batch = 1, .height = h,
		.width = w, .channels = cin, .dtype = ENPU_DTYPE_UINT8,
		.zero_point = 100 };
	mid = input;
	mid.channels = cout;
	mid.zero_point = 120;
	other = mid;
	other.zero_point = 90;
	sum = mid;
	sum.zero_point = 128;
	pooled = sum;
	pooled.height = (uint32_t)ph;
	pooled.width = (uint32_t)pw;
	tensor_bo(_metadata, self, &input, DRM_ENPU_SUBMIT_BO_READ, in_data);
	tensor_bo(_metadata, self, &mid,
		  DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	tensor_bo(_metadata, self, &other, DRM_ENPU_SUBMIT_BO_READ,
		  other_data);
	tensor_bo(_metadata, self, &sum,
		  DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	out_index = tensor_bo(_metadata, self, &pooled,
			      DRM_ENPU_SUBMIT_BO_WRITE, NULL);
	conv = (struct enpu_conv2d_layer){
		.input = input, .output = mid,
		.bias = { .bo_index = ENPU_BUF_NONE },
		.requant = { .per_channel = { .bo_index = ENPU_BUF_NONE },
			     .multiplier = multiplier, .shift = shift,
			     .min = 120, .max = 255 },
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
		.groups = 1,
	};
	data_bo(_metadata, self, &conv.weights, weights, sizeof(weights));
	quant = (struct enpu_cpu_eltwise_quant){
		.type = ENPU_CPU_UINT8, .a_scale = 0.05, .a_zero_point = 120,
		.b_scale = 0.03, .b_zero_point = 90, .output_scale = 0.07,
		.output_zero_point = 128, .min = 0, .max = 255,
	};
	ASSERT_EQ(0, enpu_cpu_add_params(self->cpu, &quant, &params));
	add = (struct enpu_add_layer){
		.a = mid, .b = other, .output = sum,
		.a_multiplier = params.a_multiplier,
		.b_multiplier = params.b_multiplier, .shift = params.add_shift,
		.min = 0, .max = 255,
	};
	pool = (struct enpu_pool_layer){
		.input = sum, .output = pooled,
		.params = { .bo_index = ENPU_BUF_NONE },
		.kernel_height = 2, .kernel_width = 2, .stride_height = 2,
		.stride_width = 2, .dilation_height = 1, .dilation_width = 1,
		.flags = ENPU_POOL_CEIL_MODE, .min = 0, .max = 255,
	};
	ASSERT_EQ(0, enpu_cmdbuf_reset(self->cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &conv));
	ASSERT_EQ(0, enpu_cmdbuf_add(self->cmdbuf, &add));
	ASSERT_EQ(0, enpu_cmdbuf_max_pool(self->cmdbuf, &pool));

	/* The same chain on the CPU. */
	requant = (struct enpu_cpu_requant){ &multiplier, &shift, 0, 120, 120,
					     255 };
	{
		struct enpu_cpu_conv_args conv_args = {
			.batch = 1, .input_height = h, .input_width = w,
			.input = in_data, .input_type = ENPU_CPU_UINT8,
			.input_zero_point = 100, .output = mid_ref,
			.output_type = ENPU_CPU_UINT8, .requant = &requant,
		};
		struct enpu_cpu_eltwise_args add_args = {
			.dims = 1, .shape = { sizeof(sum_ref) },
			.a = mid_ref, .a_strides = { 1 },
			.b = other_data, .b_strides = { 1 },
			.output = sum_ref, .params = &params,
		};
		struct enpu_cpu_pool_args pool_args = {
			.batch = 1, .input_height = h, .input_width = w,
			.channels = cout, .type = ENPU_CPU_UINT8,
			.input = sum_ref, .min = 0, .max = 255,
		};

		ASSERT_EQ(0, enpu_cpu_conv2d_reference(self->cpu, &conv_args,
						       &shape, weights, NULL));
		ASSERT_EQ(0, enpu_cpu_add_reference(self->cpu, &add_args));
		expected = expected_copy(self, out_index);
		ASSERT_NE(NULL, expected);
		pool_args.output = expected + pooled.buf.offset;
		ASSERT_EQ(0, enpu_cpu_max_pool_reference(self->cpu, &pool_shape,
							 &pool_args));
	}
	run_ok(_metadata, self);
	compare_bo(_metadata, self, out_index, expected, "conv+add+max_pool");
	free(expected);
}

TEST_HARNESS_MAIN
