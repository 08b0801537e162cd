// SPDX-License-Identifier: GPL-2.0
/*
 * The submit-time validator on layer commands: one valid CONV2D (run first
 * as the control experiment), then one broken rule per test: -EINVAL (or
 * -ENOENT for another file's handle) and the output BO untouched. Also
 * what only the device can check (per-channel parameters read at run
 * time: the fence carries -EINVAL) and a BO closed right after submit
 * (the kernel holds its own reference: the job still completes right).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define H 6
#define W 5
#define CIN 4
#define COUT 3
#define UNTOUCHED 0x5a

enum { INPUT, WEIGHTS, BIAS, PER_CHANNEL, OUTPUT, BO_COUNT };

FIXTURE(validation)
{
	enpu_device *device;
	int fd;
	struct enpu_job_bos bos;
	struct enpu_conv2d_layer layer;
	enpu_cmdbuf *cmdbuf;
	uint64_t output_size;
	/* Page-rounded sizes: what the kernel checks extents against. */
	uint64_t real[BO_COUNT];
};

FIXTURE_SETUP(validation)
{
	unsigned char input[H * W * CIN];
	int8_t weights[COUT * CIN * 9];
	int32_t bias[COUT] = { 100, -200, 300 };
	struct enpu_requant_param table[COUT] = {
		{ 1 << 30, 40 }, { 1 << 29, 40 }, { 3 << 28, 41 },
	};
	uint32_t index;
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_cmdbuf_create(&self->cmdbuf));
	self->bos.device = self->device;
	for (size_t i = 0; i < sizeof(input); i++)
		input[i] = (unsigned char)(i * 7);
	for (size_t i = 0; i < sizeof(weights); i++)
		weights[i] = (int8_t)(i * 5 - 60);
	self->output_size = H * W * COUT;
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, sizeof(input),
				     DRM_ENPU_SUBMIT_BO_READ, input, 0,
				     &index));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, sizeof(weights),
				     DRM_ENPU_SUBMIT_BO_READ, weights, 0,
				     &index));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, sizeof(bias),
				     DRM_ENPU_SUBMIT_BO_READ, bias, 0, &index));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, sizeof(table),
				     DRM_ENPU_SUBMIT_BO_READ, table, 0,
				     &index));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, self->output_size,
				     DRM_ENPU_SUBMIT_BO_WRITE, NULL, UNTOUCHED,
				     &index));
	for (uint32_t i = 0; i < BO_COUNT; i++)
		ASSERT_EQ(0, enpu_bo_size(self->bos.bo[i], &self->real[i]));
	/* 3x3, pad 1, stride 1: output H x W x COUT. */
	self->layer = (struct enpu_conv2d_layer){
		.input = { .buf = { INPUT, 0, 0 }, .batch = 1, .height = H,
			   .width = W, .channels = CIN,
			   .dtype = ENPU_DTYPE_UINT8, .zero_point = 128 },
		.output = { .buf = { OUTPUT, 0, 0 }, .batch = 1, .height = H,
			    .width = W, .channels = COUT,
			    .dtype = ENPU_DTYPE_INT8, .zero_point = -3 },
		.weights = { WEIGHTS, 0, 0 },
		.bias = { BIAS, 0, 0 },
		.requant = { .per_channel = { PER_CHANNEL, 0, 0 },
			     .min = -128, .max = 127 },
		.kernel_height = 3, .kernel_width = 3,
		.stride_height = 1, .stride_width = 1,
		.dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
		.groups = 1,
	};
}

FIXTURE_TEARDOWN(validation)
{
	enpu_job_bos_release(&self->bos);
	enpu_cmdbuf_destroy(self->cmdbuf);
	enpu_device_close(self->device);
}

static int output_untouched(FIXTURE_DATA(validation) *self)
{
	if (enpu_bo_wait(self->bos.bo[OUTPUT], 5 * ENPU_SECOND_NS, 0))
		return 0;
	for (uint64_t i = 0; i < self->output_size; i++)
		if (self->bos.map[OUTPUT][i] != UNTOUCHED)
			return 0;
	return 1;
}

/* Submits the layer as-is (through the builder); returns the errno. */
static int submit_layer(FIXTURE_DATA(validation) *self,
			const struct enpu_conv2d_layer *layer)
{
	enpu_cmdbuf_reset(self->cmdbuf);
	if (enpu_cmdbuf_conv2d(self->cmdbuf, layer))
		return -ENOMEM;
	return enpu_job_submit(&self->bos, self->cmdbuf, 0, 0, NULL);
}

/* Submits the encoded layer after patch() changed its bytes. */
static int submit_patched(FIXTURE_DATA(validation) *self,
			  void (*patch)(struct enpu_cmd_conv2d *))
{
	struct enpu_cmd_conv2d command;
	struct drm_enpu_submit_bo list[BO_COUNT];
	const void *data;
	uint32_t size;

	enpu_cmdbuf_reset(self->cmdbuf);
	if (enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer) ||
	    enpu_cmdbuf_data(self->cmdbuf, &data, &size) ||
	    size != sizeof(command))
		return -ENOMEM;
	memcpy(&command, data, sizeof(command));
	patch(&command);
	for (uint32_t i = 0; i < BO_COUNT; i++) {
		enpu_bo_handle(self->bos.bo[i], &list[i].handle);
		list[i].flags = self->bos.access[i];
	}
	return enpu_raw_submit_simple(self->fd, list, BO_COUNT, &command,
				      sizeof(command), 0, 0);
}

#define EXPECT_LAYER_REJECTED(errno_value, field, value)                     \
	do {                                                                 \
		struct enpu_conv2d_layer broken_ = self->layer;               \
		broken_.field = (value);                                      \
		EXPECT_EQ(-(errno_value), submit_layer(self, &broken_))       \
			TH_LOG(#field " = " #value);                          \
		EXPECT_TRUE(output_untouched(self)) TH_LOG(#field);           \
	} while (0)

TEST_F(validation, the_valid_layer_runs)
{
	int job_status = 1;

	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer));
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_FALSE(output_untouched(self));
}

TEST_F(validation, offsets_past_the_bo_are_einval)
{
	/* Each tensor or table ends one element past its BO's last byte. */
	EXPECT_LAYER_REJECTED(EINVAL, input.buf.offset,
			      self->real[INPUT] - H * W * CIN + 1);
	EXPECT_LAYER_REJECTED(EINVAL, output.buf.offset,
			      self->real[OUTPUT] - self->output_size + 1);
	EXPECT_LAYER_REJECTED(EINVAL, weights.offset,
			      self->real[WEIGHTS] - COUT * CIN * 9 + 1);
	EXPECT_LAYER_REJECTED(EINVAL, bias.offset,
			      self->real[BIAS] - COUT * 4 + 4);
	EXPECT_LAYER_REJECTED(EINVAL, requant.per_channel.offset,
			      self->real[PER_CHANNEL] - COUT * 8 + 8);
	EXPECT_LAYER_REJECTED(EINVAL, input.buf.offset, UINT64_MAX - 16);
	EXPECT_LAYER_REJECTED(EINVAL, output.buf.offset, 1ull << 63);
	/* A wider pixel reaches past the end of the input BO. */
	EXPECT_LAYER_REJECTED(EINVAL, input.pixel_stride,
			      (uint32_t)(self->real[INPUT] / (H * W - 1)) + 1);
}

TEST_F(validation, overflowing_shape_products_are_einval)
{
	struct enpu_conv2d_layer broken = self->layer;

	/* N * H * W * stride wraps 64 bits (2^16 * 2^16 * 2^16 * 2^16). */
	broken.input.batch = 1u << 16;
	broken.input.height = 1u << 16;
	broken.input.width = 1u << 16;
	broken.input.pixel_stride = 1u << 16;
	broken.output.batch = 1u << 16;
	EXPECT_EQ(-EINVAL, submit_layer(self, &broken));
	EXPECT_TRUE(output_untouched(self));
	broken = self->layer;
	broken.output.pixel_stride = UINT32_MAX;
	EXPECT_EQ(-EINVAL, submit_layer(self, &broken));
	broken = self->layer;
	broken.input.width = UINT32_MAX;
	broken.input.height = UINT32_MAX;
	EXPECT_EQ(-EINVAL, submit_layer(self, &broken));
	EXPECT_TRUE(output_untouched(self));
}

TEST_F(validation, bo_index_past_the_list_is_einval)
{
	EXPECT_LAYER_REJECTED(EINVAL, input.buf.bo_index, BO_COUNT);
	EXPECT_LAYER_REJECTED(EINVAL, output.buf.bo_index, 1000);
	EXPECT_LAYER_REJECTED(EINVAL, weights.bo_index, BO_COUNT);
	EXPECT_LAYER_REJECTED(EINVAL, bias.bo_index, ENPU_BUF_NONE - 1);
	/* NONE is only for optional operands. */
	EXPECT_LAYER_REJECTED(EINVAL, weights.bo_index, ENPU_BUF_NONE);
	EXPECT_LAYER_REJECTED(EINVAL, input.buf.bo_index, ENPU_BUF_NONE);
}

TEST_F(validation, access_flags_are_checked_for_layers)
{
	/* Writing the READ-only input BO; reading the WRITE-only output. */
	EXPECT_LAYER_REJECTED(EINVAL, output.buf.bo_index, INPUT);
	EXPECT_LAYER_REJECTED(EINVAL, input.buf.bo_index, OUTPUT);
}

TEST_F(validation, bad_dims_are_einval)
{
	EXPECT_LAYER_REJECTED(EINVAL, input.batch, 0);
	EXPECT_LAYER_REJECTED(EINVAL, input.channels, 0);
	EXPECT_LAYER_REJECTED(EINVAL, output.height, H - 1);
	EXPECT_LAYER_REJECTED(EINVAL, output.width, W + 1);
	EXPECT_LAYER_REJECTED(EINVAL, output.batch, 2);
	EXPECT_LAYER_REJECTED(EINVAL, output.channels, 0);
	EXPECT_LAYER_REJECTED(EINVAL, input.pixel_stride, CIN - 1);
	EXPECT_LAYER_REJECTED(EINVAL, kernel_height, 0);
	EXPECT_LAYER_REJECTED(EINVAL, kernel_width, 256);
	EXPECT_LAYER_REJECTED(EINVAL, stride_height, 0);
	EXPECT_LAYER_REJECTED(EINVAL, dilation_width, 0);
	EXPECT_LAYER_REJECTED(EINVAL, pad_top, 256);
	EXPECT_LAYER_REJECTED(EINVAL, groups, 0);
	/* 2 groups cannot split 3 output channels. */
	EXPECT_LAYER_REJECTED(EINVAL, groups, 2);
	EXPECT_LAYER_REJECTED(EINVAL, input.dtype, ENPU_DTYPE_INT32);
	EXPECT_LAYER_REJECTED(EINVAL, input.dtype, 3);
	EXPECT_LAYER_REJECTED(EINVAL, output.dtype, 7);
}

TEST_F(validation, depthwise_needs_groups_equal_to_channels)
{
	struct enpu_conv2d_layer layer = self->layer;

	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_depthwise_conv2d(self->cmdbuf, &layer));
	EXPECT_EQ(-EINVAL, enpu_job_submit(&self->bos, self->cmdbuf, 0, 0,
					   NULL));
	EXPECT_TRUE(output_untouched(self));
}

TEST_F(validation, bad_quantization_params_are_einval)
{
	struct enpu_conv2d_layer per_tensor = self->layer;

	EXPECT_LAYER_REJECTED(EINVAL, input.zero_point, 256);
	EXPECT_LAYER_REJECTED(EINVAL, input.zero_point, -1);
	EXPECT_LAYER_REJECTED(EINVAL, output.zero_point, 128);
	EXPECT_LAYER_REJECTED(EINVAL, requant.min, -129);
	EXPECT_LAYER_REJECTED(EINVAL, requant.max, 128);
	self->layer.requant.max = 50;
	EXPECT_LAYER_REJECTED(EINVAL, requant.min, 60);
	self->layer.requant.max = 127;
	/* Per-channel: the per-tensor pair must be 0. */
	EXPECT_LAYER_REJECTED(EINVAL, requant.multiplier, 1);
	EXPECT_LAYER_REJECTED(EINVAL, requant.shift, 40);
	/* Per tensor: M in [0, 2^31), S in [31, 62]. */
	per_tensor.requant.per_channel.bo_index = ENPU_BUF_NONE;
	per_tensor.requant.multiplier = 1 << 30;
	per_tensor.requant.shift = 40;
	self->layer = per_tensor;
	EXPECT_EQ(0, submit_layer(self, &per_tensor));
	ASSERT_EQ(0, enpu_bo_wait(self->bos.bo[OUTPUT], 5 * ENPU_SECOND_NS, 0));
	memset(self->bos.map[OUTPUT], UNTOUCHED, self->output_size);
	EXPECT_LAYER_REJECTED(EINVAL, requant.multiplier, -1);
	EXPECT_LAYER_REJECTED(EINVAL, requant.shift, 30);
	EXPECT_LAYER_REJECTED(EINVAL, requant.shift, 63);
	/* An INT32 output takes no requantization at all. */
	self->layer.output.dtype = ENPU_DTYPE_INT32;
	self->layer.output.zero_point = 0;
	EXPECT_LAYER_REJECTED(EINVAL, requant.multiplier, 1 << 30);
}

static void set_header_flags(struct enpu_cmd_conv2d *c) { c->hdr.flags = 1; }
static void set_reserved(struct enpu_cmd_conv2d *c) { c->reserved = 1; }
static void set_input_reserved0(struct enpu_cmd_conv2d *c)
{
	c->input.reserved0[1] = 1;
}
static void set_output_reserved1(struct enpu_cmd_conv2d *c)
{
	c->output.reserved1 = 1;
}
static void set_ref_reserved(struct enpu_cmd_conv2d *c)
{
	c->weights.reserved = 1;
}
static void set_requant_ref_reserved(struct enpu_cmd_conv2d *c)
{
	c->requant.per_channel.reserved = 1;
}
static void set_wrong_size(struct enpu_cmd_conv2d *c) { c->hdr.size -= 8; }

TEST_F(validation, reserved_fields_are_einval)
{
	void (*patches[])(struct enpu_cmd_conv2d *) = {
		set_header_flags, set_reserved, set_input_reserved0,
		set_output_reserved1, set_ref_reserved,
		set_requant_ref_reserved, set_wrong_size,
	};

	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
		EXPECT_EQ(-EINVAL, submit_patched(self, patches[i]))
			TH_LOG("patch %zu", i);
		EXPECT_TRUE(output_untouched(self));
	}
}

TEST_F(validation, a_handle_of_another_file_is_enoent)
{
	struct drm_enpu_submit_bo list[BO_COUNT];
	uint32_t foreign, highest = 0;
	const void *data;
	uint32_t size;
	int other;

	ASSERT_EQ(0, enpu_reopen(self->device, &other));
	for (uint32_t i = 0; i < BO_COUNT; i++) {
		enpu_bo_handle(self->bos.bo[i], &list[i].handle);
		list[i].flags = self->bos.access[i];
		if (list[i].handle > highest)
			highest = list[i].handle;
	}
	/* Numbered past every handle this file has. */
	do {
		ASSERT_EQ(0, enpu_raw_bo_create(other, 4096, 0, &foreign, NULL));
	} while (foreign <= highest);
	list[WEIGHTS].handle = foreign;
	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer));
	ASSERT_EQ(0, enpu_cmdbuf_data(self->cmdbuf, &data, &size));
	EXPECT_EQ(-ENOENT, enpu_raw_submit_simple(self->fd, list, BO_COUNT,
						  data, size, 0, 0));
	EXPECT_TRUE(output_untouched(self));
	close(other);
}

/*
 * The device reads per-channel (M, S) at run time: S = 10 is out of range,
 * the job completes with -EINVAL on its fence, and the DMA_FILL before the
 * layer did run (uapi: earlier commands' outputs stay written).
 */
TEST_F(validation, runtime_invalid_per_channel_params_fail_the_fence)
{
	struct enpu_requant_param *table =
		(struct enpu_requant_param *)self->bos.map[PER_CHANNEL];
	uint32_t marker;
	int job_status = 0;

	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, 64, DRM_ENPU_SUBMIT_BO_WRITE,
				     NULL, 0, &marker));
	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(self->cmdbuf, marker, 0, 64, 0x77));
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer));
	/* Control: the stream runs with the valid table. */
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	ASSERT_EQ(0, job_status) TH_LOG("valid table, fill + conv2d");
	memset(self->bos.map[marker], 0, 64);
	table[1].shift = 10;
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(-EINVAL, job_status);
	EXPECT_EQ(0x77, self->bos.map[marker][63]);
	/* A negative multiplier is out of range too. */
	table[1].shift = 40;
	table[2].multiplier = -5;
	job_status = 0;
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(-EINVAL, job_status);
	/* Restored, the same stream succeeds. */
	table[2].multiplier = 3 << 28;
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(0, job_status);
}

/*
 * GEM close of every input BO right after SUBMIT, while a long NOP keeps
 * the layer from running: the job holds its own references, so the pages
 * stay its own (not freed, not reused) and the output equals that of a
 * run whose BOs stayed open.
 */
TEST_F(validation, bos_closed_after_submit_are_still_read_by_the_job)
{
	unsigned char reference[H * W * COUT];
	uint32_t syncobj;
	int job_status = 1;

	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer));
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->cmdbuf, 0,
				  5 * ENPU_SECOND_NS, &job_status));
	ASSERT_EQ(0, job_status);
	memcpy(reference, self->bos.map[OUTPUT], sizeof(reference));
	memset(self->bos.map[OUTPUT], UNTOUCHED, self->output_size);

	enpu_cmdbuf_reset(self->cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_nop(self->cmdbuf, 50 * 1000 * 1000));
	ASSERT_EQ(0, enpu_cmdbuf_conv2d(self->cmdbuf, &self->layer));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->cmdbuf, 0, syncobj,
				     NULL));
	/* Unmap and GEM-close every input while the NOP runs. */
	for (uint32_t i = INPUT; i <= PER_CHANNEL; i++)
		enpu_job_bo_drop(&self->bos, i);
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 10 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0, memcmp(reference, self->bos.map[OUTPUT],
			    sizeof(reference)));
	enpu_syncobj_destroy(self->device, syncobj);
}

TEST_HARNESS_MAIN
