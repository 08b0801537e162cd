// SPDX-License-Identifier: MIT
/*
 * The builder's layer commands: every field lands at the byte offset
 * uapi/enpu_cmd.h defines (offsets written out here by hand, so a change
 * of either the header or the builder shows), every header and reserved
 * byte is what the builder owns, and bad pointers append nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <enpu/enpu.h>

#include "unit_test.h"

#define TENSOR_SIZE 48u
#define REQUANT_SIZE 32u
#define CONV2D_SIZE 216u
#define FC_SIZE 168u
#define ELTWISE_SIZE 184u
#define POOL_SIZE 192u
#define COPY_SIZE 104u
#define QUANTIZE_SIZE 112u
#define DEQUANTIZE_SIZE 112u

static uint64_t le(const unsigned char *bytes, size_t width)
{
	uint64_t value = 0;

	for (size_t i = 0; i < width; i++)
		value |= (uint64_t)bytes[i] << (8 * i);
	return value;
}

static const unsigned char *stream(const enpu_cmdbuf *cmdbuf, uint32_t *size)
{
	const void *data = NULL;

	if (enpu_cmdbuf_data(cmdbuf, &data, size))
		return NULL;
	return data;
}

/* Distinct values per tensor (seed) so that swapped fields show. */
static struct enpu_layer_tensor make_tensor(uint32_t seed)
{
	return (struct enpu_layer_tensor){
		.buf = { .bo_index = seed, .pad = 0xffffffffu,
			 .offset = 0x0100000000000000ull * seed + 0x1234 },
		.batch = seed + 1,
		.height = seed + 2,
		.width = seed + 3,
		.channels = seed + 4,
		.pixel_stride = seed + 5,
		.dtype = seed % 3,
		.zero_point = -(int32_t)seed - 6,
		.pad = 0xffffffffu,
	};
}

/* A tensor descriptor at bytes: fields from make_tensor(seed). */
static int tensor_at(const unsigned char *bytes, uint32_t seed)
{
	CHECK(le(bytes + 0, 4) == seed);
	CHECK(le(bytes + 4, 4) == 0);
	CHECK(le(bytes + 8, 8) == 0x0100000000000000ull * seed + 0x1234);
	CHECK(le(bytes + 16, 4) == seed + 1);
	CHECK(le(bytes + 20, 4) == seed + 2);
	CHECK(le(bytes + 24, 4) == seed + 3);
	CHECK(le(bytes + 28, 4) == seed + 4);
	CHECK(le(bytes + 32, 4) == seed + 5);
	CHECK(bytes[36] == seed % 3);
	CHECK(le(bytes + 37, 3) == 0);
	CHECK((int32_t)le(bytes + 40, 4) == -(int32_t)seed - 6);
	CHECK(le(bytes + 44, 4) == 0);
	return 0;
}

static int ref_at(const unsigned char *bytes, uint32_t index, uint64_t offset)
{
	CHECK(le(bytes + 0, 4) == index);
	CHECK(le(bytes + 4, 4) == 0);
	CHECK(le(bytes + 8, 8) == offset);
	return 0;
}

static int header_at(const unsigned char *bytes, uint32_t opcode,
		     uint32_t size)
{
	CHECK(le(bytes + 0, 2) == opcode);
	CHECK(le(bytes + 2, 2) == 0);
	CHECK(le(bytes + 4, 4) == size);
	return 0;
}

static int uapi_layer_structs_have_the_documented_layout(void)
{
	CHECK(sizeof(struct enpu_tensor_desc) == TENSOR_SIZE);
	CHECK(offsetof(struct enpu_tensor_desc, batch) == 16);
	CHECK(offsetof(struct enpu_tensor_desc, pixel_stride) == 32);
	CHECK(offsetof(struct enpu_tensor_desc, dtype) == 36);
	CHECK(offsetof(struct enpu_tensor_desc, zero_point) == 40);
	CHECK(sizeof(struct enpu_requant_desc) == REQUANT_SIZE);
	CHECK(offsetof(struct enpu_requant_desc, multiplier) == 16);
	CHECK(offsetof(struct enpu_requant_desc, max) == 28);
	CHECK(sizeof(struct enpu_requant_param) == 8);
	CHECK(sizeof(struct enpu_pool_param) == 16);
	CHECK(sizeof(struct enpu_cmd_conv2d) == CONV2D_SIZE);
	CHECK(offsetof(struct enpu_cmd_conv2d, output) == 56);
	CHECK(offsetof(struct enpu_cmd_conv2d, requant) == 136);
	CHECK(offsetof(struct enpu_cmd_conv2d, groups) == 208);
	CHECK(sizeof(struct enpu_cmd_fc) == FC_SIZE);
	CHECK(sizeof(struct enpu_cmd_eltwise) == ELTWISE_SIZE);
	CHECK(offsetof(struct enpu_cmd_eltwise, a_multiplier) == 152);
	CHECK(sizeof(struct enpu_cmd_pool) == POOL_SIZE);
	CHECK(offsetof(struct enpu_cmd_pool, flags) == 160);
	CHECK(offsetof(struct enpu_cmd_pool, reserved2) == 188);
	CHECK(sizeof(struct enpu_cmd_copy) == COPY_SIZE);
	CHECK(sizeof(struct enpu_cmd_quantize) == QUANTIZE_SIZE);
	CHECK(offsetof(struct enpu_cmd_quantize, scale) == 104);
	CHECK(sizeof(struct enpu_cmd_dequantize) == DEQUANTIZE_SIZE);
	CHECK(offsetof(struct enpu_cmd_dequantize, scale) == 104);
	CHECK(offsetof(struct enpu_cmd_dequantize, reserved) == 108);
	return 0;
}

static struct enpu_conv2d_layer make_conv2d(void)
{
	return (struct enpu_conv2d_layer){
		.input = make_tensor(1),
		.output = make_tensor(2),
		.weights = { .bo_index = 3, .pad = 7, .offset = 0x3000 },
		.bias = { .bo_index = ENPU_BUF_NONE, .offset = 0 },
		.requant = {
			.per_channel = { .bo_index = 4, .offset = 0x4400 },
			.multiplier = 0x40000001, .shift = 38,
			.min = -100, .max = 101,
		},
		.kernel_height = 11, .kernel_width = 12,
		.stride_height = 13, .stride_width = 14,
		.dilation_height = 15, .dilation_width = 16,
		.pad_top = 17, .pad_left = 18, .pad_bottom = 19,
		.pad_right = 20, .groups = 21, .pad = 0xffffffffu,
	};
}

static int conv2d_bytes(const unsigned char *bytes, uint32_t opcode)
{
	CHECK(header_at(bytes, opcode, CONV2D_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 1) == 0);
	CHECK(tensor_at(bytes + 56, 2) == 0);
	CHECK(ref_at(bytes + 104, 3, 0x3000) == 0);
	CHECK(ref_at(bytes + 120, ENPU_BUF_NONE, 0) == 0);
	CHECK(ref_at(bytes + 136, 4, 0x4400) == 0);
	CHECK(le(bytes + 152, 4) == 0x40000001);
	CHECK(le(bytes + 156, 4) == 38);
	CHECK((int32_t)le(bytes + 160, 4) == -100);
	CHECK(le(bytes + 164, 4) == 101);
	for (uint32_t i = 0; i < 11; i++)
		CHECK(le(bytes + 168 + 4 * i, 4) == 11 + i);
	CHECK(le(bytes + 212, 4) == 0);
	return 0;
}

static int conv2d_is_encoded_byte_for_byte(void)
{
	struct enpu_conv2d_layer layer = make_conv2d();
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_conv2d(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == CONV2D_SIZE);
	CHECK(conv2d_bytes(bytes, ENPU_CMD_CONV2D) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int depthwise_conv2d_is_encoded_byte_for_byte(void)
{
	struct enpu_conv2d_layer layer = make_conv2d();
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_depthwise_conv2d(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == CONV2D_SIZE);
	CHECK(conv2d_bytes(bytes, ENPU_CMD_DEPTHWISE_CONV2D) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int fully_connected_is_encoded_byte_for_byte(void)
{
	struct enpu_fc_layer layer = {
		.input = make_tensor(5),
		.output = make_tensor(6),
		.weights = { .bo_index = 7, .offset = 0x7000 },
		.bias = { .bo_index = 8, .offset = 0x8000 },
		.requant = {
			.per_channel = { .bo_index = ENPU_BUF_NONE },
			.multiplier = 0x7fffffff, .shift = 62,
			.min = 0, .max = 255,
		},
	};
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_fully_connected(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == FC_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_FULLY_CONNECTED, FC_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 5) == 0);
	CHECK(tensor_at(bytes + 56, 6) == 0);
	CHECK(ref_at(bytes + 104, 7, 0x7000) == 0);
	CHECK(ref_at(bytes + 120, 8, 0x8000) == 0);
	CHECK(ref_at(bytes + 136, ENPU_BUF_NONE, 0) == 0);
	CHECK(le(bytes + 152, 4) == 0x7fffffff);
	CHECK(le(bytes + 156, 4) == 62);
	CHECK(le(bytes + 160, 4) == 0);
	CHECK(le(bytes + 164, 4) == 255);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int add_is_encoded_byte_for_byte(void)
{
	struct enpu_add_layer layer = {
		.a = make_tensor(9), .b = make_tensor(10),
		.output = make_tensor(11),
		.a_multiplier = 0x1fffff, .b_multiplier = 0x12345,
		.shift = 20, .min = -128, .max = 127, .pad = 0xffffffffu,
	};
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_add(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == ELTWISE_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_ADD, ELTWISE_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 9) == 0);
	CHECK(tensor_at(bytes + 56, 10) == 0);
	CHECK(tensor_at(bytes + 104, 11) == 0);
	CHECK(le(bytes + 152, 4) == 0x1fffff);
	CHECK(le(bytes + 156, 4) == 0x12345);
	CHECK(le(bytes + 160, 4) == 20);
	/* MUL's fields stay zero for ADD. */
	CHECK(le(bytes + 164, 4) == 0);
	CHECK(le(bytes + 168, 4) == 0);
	CHECK(le(bytes + 172, 4) == 0);
	CHECK((int32_t)le(bytes + 176, 4) == -128);
	CHECK(le(bytes + 180, 4) == 127);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int mul_is_encoded_byte_for_byte(void)
{
	struct enpu_mul_layer layer = {
		.a = make_tensor(12), .b = make_tensor(13),
		.output = make_tensor(14),
		.left_shift = 15, .multiplier = 0x55555555, .shift = 45,
		.min = 3, .max = 250, .pad = 0xffffffffu,
	};
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_mul(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == ELTWISE_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_MUL, ELTWISE_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 12) == 0);
	CHECK(tensor_at(bytes + 56, 13) == 0);
	CHECK(tensor_at(bytes + 104, 14) == 0);
	/* ADD's fields stay zero for MUL. */
	CHECK(le(bytes + 152, 4) == 0);
	CHECK(le(bytes + 156, 4) == 0);
	CHECK(le(bytes + 160, 4) == 0);
	CHECK(le(bytes + 164, 4) == 15);
	CHECK(le(bytes + 168, 4) == 0x55555555);
	CHECK(le(bytes + 172, 4) == 45);
	CHECK(le(bytes + 176, 4) == 3);
	CHECK(le(bytes + 180, 4) == 250);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static struct enpu_pool_layer make_pool(void)
{
	return (struct enpu_pool_layer){
		.input = make_tensor(15), .output = make_tensor(16),
		.params = { .bo_index = 17, .offset = 0x17000 },
		.kernel_height = 65535, .kernel_width = 2,
		.stride_height = 3, .stride_width = 4,
		.dilation_height = 5, .dilation_width = 6,
		.pad_top = 7, .pad_left = 8, .pad_bottom = 9, .pad_right = 10,
		.flags = ENPU_POOL_CEIL_MODE | ENPU_POOL_COUNT_INCLUDE_PAD,
		.multiplier = 0x60000000, .shift = 33, .left_shift = 30,
		.min = -7, .max = 8,
	};
}

static int pool_bytes(const unsigned char *bytes, uint32_t opcode)
{
	static const uint32_t shape[] = { 65535, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	CHECK(header_at(bytes, opcode, POOL_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 15) == 0);
	CHECK(tensor_at(bytes + 56, 16) == 0);
	CHECK(ref_at(bytes + 104, 17, 0x17000) == 0);
	for (uint32_t i = 0; i < 10; i++)
		CHECK(le(bytes + 120 + 4 * i, 4) == shape[i]);
	CHECK(le(bytes + 160, 4) ==
	      (ENPU_POOL_CEIL_MODE | ENPU_POOL_COUNT_INCLUDE_PAD));
	CHECK(le(bytes + 164, 4) == 0x60000000);
	CHECK(le(bytes + 168, 4) == 33);
	CHECK(le(bytes + 172, 4) == 30);
	CHECK((int32_t)le(bytes + 176, 4) == -7);
	CHECK(le(bytes + 180, 4) == 8);
	CHECK(le(bytes + 184, 8) == 0);
	return 0;
}

static int pools_are_encoded_byte_for_byte(void)
{
	struct enpu_pool_layer layer = make_pool();
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_max_pool(cmdbuf, &layer) == 0);
	CHECK(enpu_cmdbuf_avg_pool(cmdbuf, &layer) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == 2 * POOL_SIZE);
	CHECK(pool_bytes(bytes, ENPU_CMD_MAX_POOL) == 0);
	CHECK(pool_bytes(bytes + POOL_SIZE, ENPU_CMD_AVG_POOL) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int copy_is_encoded_byte_for_byte(void)
{
	struct enpu_layer_tensor input = make_tensor(18);
	struct enpu_layer_tensor output = make_tensor(19);
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_copy(cmdbuf, &input, &output) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == COPY_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_COPY, COPY_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 18) == 0);
	CHECK(tensor_at(bytes + 56, 19) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

/* The scale travels as its binary32 bits; the pad field is not encoded. */
static int quantize_is_encoded_byte_for_byte(void)
{
	struct enpu_quantize_layer layer = {
		.input = make_tensor(20), .output = make_tensor(21),
		.scale = -0.15625f, .pad = 0xffffffffu,
	};
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_quantize(cmdbuf, &layer) == 0);
	CHECK(enpu_cmdbuf_quantize(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_quantize(NULL, &layer) == -EINVAL);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == QUANTIZE_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_QUANTIZE, QUANTIZE_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 20) == 0);
	CHECK(tensor_at(bytes + 56, 21) == 0);
	CHECK(le(bytes + 104, 4) == 0xbe200000u);
	CHECK(le(bytes + 108, 4) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

/* DEQUANTIZE: the same layout as QUANTIZE, its own opcode. */
static int dequantize_is_encoded_byte_for_byte(void)
{
	struct enpu_dequantize_layer layer = {
		.input = make_tensor(22), .output = make_tensor(23),
		.scale = 0.15625f, .pad = 0xffffffffu,
	};
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_dequantize(cmdbuf, &layer) == 0);
	CHECK(enpu_cmdbuf_dequantize(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_dequantize(NULL, &layer) == -EINVAL);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == DEQUANTIZE_SIZE);
	CHECK(header_at(bytes, ENPU_CMD_DEQUANTIZE, DEQUANTIZE_SIZE) == 0);
	CHECK(tensor_at(bytes + 8, 22) == 0);
	CHECK(tensor_at(bytes + 56, 23) == 0);
	CHECK(le(bytes + 104, 4) == 0x3e200000u);
	CHECK(le(bytes + 108, 4) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int layers_follow_dma_commands_back_to_back(void)
{
	struct enpu_conv2d_layer conv = make_conv2d();
	struct enpu_layer_tensor tensor = make_tensor(20);
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_nop(cmdbuf, 5) == 0);
	CHECK(enpu_cmdbuf_conv2d(cmdbuf, &conv) == 0);
	CHECK(enpu_cmdbuf_copy(cmdbuf, &tensor, &tensor) == 0);
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 1, 0, 8, 1) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(size == 16 + CONV2D_SIZE + COPY_SIZE + 40);
	CHECK(conv2d_bytes(bytes + 16, ENPU_CMD_CONV2D) == 0);
	CHECK(header_at(bytes + 16 + CONV2D_SIZE, ENPU_CMD_COPY,
			COPY_SIZE) == 0);
	CHECK(le(bytes + 16 + CONV2D_SIZE + COPY_SIZE, 2) ==
	      ENPU_CMD_DMA_FILL);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int dtype_past_a_byte_does_not_wrap_to_a_valid_one(void)
{
	struct enpu_layer_tensor input = make_tensor(1);
	struct enpu_layer_tensor output = make_tensor(1);
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	input.dtype = 0x100 + ENPU_DTYPE_INT8;
	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_copy(cmdbuf, &input, &output) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes[8 + 36] == 0xff);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int null_layers_append_nothing(void)
{
	struct enpu_layer_tensor tensor = make_tensor(1);
	struct enpu_conv2d_layer conv = make_conv2d();
	enpu_cmdbuf *cmdbuf;
	uint32_t size = 1;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_conv2d(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_depthwise_conv2d(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_fully_connected(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_add(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_mul(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_max_pool(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_avg_pool(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_copy(cmdbuf, &tensor, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_copy(cmdbuf, NULL, &tensor) == -EINVAL);
	CHECK(enpu_cmdbuf_conv2d(NULL, &conv) == -EINVAL);
	stream(cmdbuf, &size);
	CHECK(size == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int layer_past_the_maximum_is_enospc(void)
{
	struct enpu_conv2d_layer conv = make_conv2d();
	const char *message = NULL;
	enpu_cmdbuf *cmdbuf;
	uint32_t size = 0, count = 0;
	int status;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	while ((status = enpu_cmdbuf_conv2d(cmdbuf, &conv)) == 0)
		count++;
	CHECK(status == -ENOSPC);
	CHECK(count == ENPU_CMD_MAX_STREAM / CONV2D_SIZE);
	stream(cmdbuf, &size);
	CHECK(size == count * CONV2D_SIZE);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, &message) == 0);
	CHECK(strstr(message, "conv2d") != NULL);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

UNIT_TEST_SUITE(layer_commands,
	UNIT_TEST(uapi_layer_structs_have_the_documented_layout),
	UNIT_TEST(conv2d_is_encoded_byte_for_byte),
	UNIT_TEST(depthwise_conv2d_is_encoded_byte_for_byte),
	UNIT_TEST(fully_connected_is_encoded_byte_for_byte),
	UNIT_TEST(add_is_encoded_byte_for_byte),
	UNIT_TEST(mul_is_encoded_byte_for_byte),
	UNIT_TEST(pools_are_encoded_byte_for_byte),
	UNIT_TEST(copy_is_encoded_byte_for_byte),
	UNIT_TEST(quantize_is_encoded_byte_for_byte),
	UNIT_TEST(dequantize_is_encoded_byte_for_byte),
	UNIT_TEST(layers_follow_dma_commands_back_to_back),
	UNIT_TEST(dtype_past_a_byte_does_not_wrap_to_a_valid_one),
	UNIT_TEST(null_layers_append_nothing),
	UNIT_TEST(layer_past_the_maximum_is_enospc));
