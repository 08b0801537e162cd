// SPDX-License-Identifier: MIT
/*
 * The command-stream builder: the exact bytes it emits (checked at the
 * offsets uapi/enpu_cmd.h defines, independently of the C structs), its
 * growth, the ENPU_CMD_MAX_STREAM limit and its argument checks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <enpu/enpu.h>

#include "unit_test.h"

#define NOP_SIZE 16u
#define DMA_COPY_SIZE 48u
#define DMA_FILL_SIZE 40u

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

static int uapi_structs_have_the_documented_layout(void)
{
	CHECK(sizeof(struct enpu_cmd_header) == 8);
	CHECK(offsetof(struct enpu_cmd_header, opcode) == 0);
	CHECK(offsetof(struct enpu_cmd_header, flags) == 2);
	CHECK(offsetof(struct enpu_cmd_header, size) == 4);
	CHECK(sizeof(struct enpu_cmd_nop) == NOP_SIZE);
	CHECK(offsetof(struct enpu_cmd_nop, cycles) == 8);
	CHECK(offsetof(struct enpu_cmd_nop, reserved) == 12);
	CHECK(sizeof(struct enpu_buf_ref) == 16);
	CHECK(offsetof(struct enpu_buf_ref, offset) == 8);
	CHECK(sizeof(struct enpu_cmd_dma_copy) == DMA_COPY_SIZE);
	CHECK(offsetof(struct enpu_cmd_dma_copy, src) == 8);
	CHECK(offsetof(struct enpu_cmd_dma_copy, dst) == 24);
	CHECK(offsetof(struct enpu_cmd_dma_copy, size) == 40);
	CHECK(sizeof(struct enpu_cmd_dma_fill) == DMA_FILL_SIZE);
	CHECK(offsetof(struct enpu_cmd_dma_fill, dst) == 8);
	CHECK(offsetof(struct enpu_cmd_dma_fill, size) == 24);
	CHECK(offsetof(struct enpu_cmd_dma_fill, value) == 32);
	CHECK(offsetof(struct enpu_cmd_dma_fill, reserved) == 36);
	return 0;
}

static int new_cmdbuf_is_empty(void)
{
	enpu_cmdbuf *cmdbuf;
	uint32_t size = 1;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	stream(cmdbuf, &size);
	CHECK(size == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int nop_is_encoded_byte_for_byte(void)
{
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_nop(cmdbuf, 0xdeadbeef) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == NOP_SIZE);
	CHECK(le(bytes + 0, 2) == ENPU_CMD_NOP);
	CHECK(le(bytes + 2, 2) == 0);
	CHECK(le(bytes + 4, 4) == NOP_SIZE);
	CHECK(le(bytes + 8, 4) == 0xdeadbeef);
	CHECK(le(bytes + 12, 4) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int dma_copy_is_encoded_byte_for_byte(void)
{
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_dma_copy(cmdbuf, 3, 0x1122334455667788ull, 7,
				   0x0102030405060708ull, 0x10000) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == DMA_COPY_SIZE);
	CHECK(le(bytes + 0, 2) == ENPU_CMD_DMA_COPY);
	CHECK(le(bytes + 2, 2) == 0);
	CHECK(le(bytes + 4, 4) == DMA_COPY_SIZE);
	CHECK(le(bytes + 8, 4) == 3);
	CHECK(le(bytes + 12, 4) == 0);
	CHECK(le(bytes + 16, 8) == 0x1122334455667788ull);
	CHECK(le(bytes + 24, 4) == 7);
	CHECK(le(bytes + 28, 4) == 0);
	CHECK(le(bytes + 32, 8) == 0x0102030405060708ull);
	CHECK(le(bytes + 40, 8) == 0x10000);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int dma_fill_is_encoded_byte_for_byte(void)
{
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 2, 4096, 123, 0xa5) == 0);
	bytes = stream(cmdbuf, &size);
	CHECK(bytes && size == DMA_FILL_SIZE);
	CHECK(le(bytes + 0, 2) == ENPU_CMD_DMA_FILL);
	CHECK(le(bytes + 2, 2) == 0);
	CHECK(le(bytes + 4, 4) == DMA_FILL_SIZE);
	CHECK(le(bytes + 8, 4) == 2);
	CHECK(le(bytes + 12, 4) == 0);
	CHECK(le(bytes + 16, 8) == 4096);
	CHECK(le(bytes + 24, 8) == 123);
	/* The byte in bits 0-7, bits 8-31 zero. */
	CHECK(le(bytes + 32, 4) == 0xa5);
	CHECK(le(bytes + 36, 4) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int commands_are_packed_back_to_back_across_growth(void)
{
	const unsigned char *bytes;
	enpu_cmdbuf *cmdbuf;
	uint32_t size, at = 0;
	const unsigned int rounds = 200;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	for (unsigned int i = 0; i < rounds; i++) {
		CHECK(enpu_cmdbuf_nop(cmdbuf, i) == 0);
		CHECK(enpu_cmdbuf_dma_fill(cmdbuf, i, i * 8ull, i + 1u,
					   (uint8_t)i) == 0);
		CHECK(enpu_cmdbuf_dma_copy(cmdbuf, i, i, i + 1, i + 2,
					   i + 3u) == 0);
	}
	bytes = stream(cmdbuf, &size);
	CHECK(size == rounds * (NOP_SIZE + DMA_FILL_SIZE + DMA_COPY_SIZE));
	for (unsigned int i = 0; i < rounds; i++) {
		CHECK(le(bytes + at, 2) == ENPU_CMD_NOP);
		CHECK(le(bytes + at + 8, 4) == i);
		at += (uint32_t)le(bytes + at + 4, 4);
		CHECK(le(bytes + at, 2) == ENPU_CMD_DMA_FILL);
		CHECK(le(bytes + at + 8, 4) == i);
		CHECK(le(bytes + at + 32, 4) == (uint8_t)i);
		at += (uint32_t)le(bytes + at + 4, 4);
		CHECK(le(bytes + at, 2) == ENPU_CMD_DMA_COPY);
		CHECK(le(bytes + at + 40, 8) == i + 3u);
		at += (uint32_t)le(bytes + at + 4, 4);
	}
	CHECK(at == size);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int stream_stops_exactly_at_the_maximum(void)
{
	const unsigned int nops = ENPU_CMD_MAX_STREAM / NOP_SIZE;
	const char *message = NULL;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	for (unsigned int i = 0; i + 1 < nops; i++)
		CHECK(enpu_cmdbuf_nop(cmdbuf, i) == 0);
	/* 16 bytes left: a DMA command does not fit, a NOP does. */
	CHECK(enpu_cmdbuf_dma_copy(cmdbuf, 0, 0, 1, 0, 8) == -ENOSPC);
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 0, 0, 8, 1) == -ENOSPC);
	stream(cmdbuf, &size);
	CHECK(size == ENPU_CMD_MAX_STREAM - NOP_SIZE);
	CHECK(enpu_cmdbuf_nop(cmdbuf, 1) == 0);
	stream(cmdbuf, &size);
	CHECK(size == ENPU_CMD_MAX_STREAM);
	CHECK(enpu_cmdbuf_nop(cmdbuf, 2) == -ENOSPC);
	stream(cmdbuf, &size);
	CHECK(size == ENPU_CMD_MAX_STREAM);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, &message) == 0);
	CHECK(strstr(message, "does not fit"));
	CHECK(enpu_cmdbuf_reset(cmdbuf) == 0);
	stream(cmdbuf, &size);
	CHECK(size == 0);
	CHECK(enpu_cmdbuf_nop(cmdbuf, 3) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int zero_size_dma_is_einval_and_appends_nothing(void)
{
	const char *message = NULL;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_dma_copy(cmdbuf, 0, 0, 1, 0, 0) == -EINVAL);
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 0, 0, 0, 0) == -EINVAL);
	stream(cmdbuf, &size);
	CHECK(size == 0);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, &message) == 0);
	CHECK(strstr(message, "dma_fill") && strstr(message, "size is 0"));
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int wrapping_offset_is_einval_and_appends_nothing(void)
{
	const char *message = NULL;
	enpu_cmdbuf *cmdbuf;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_dma_copy(cmdbuf, 0, UINT64_MAX - 7, 1, 0, 8) ==
	      -EINVAL);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, &message) == 0);
	CHECK(strstr(message, "source") && strstr(message, "wraps"));
	CHECK(enpu_cmdbuf_dma_copy(cmdbuf, 0, 0, 1, UINT64_MAX, 2) == -EINVAL);
	CHECK(strstr(message, "destination"));
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 0, 1, UINT64_MAX, 0) == -EINVAL);
	stream(cmdbuf, &size);
	CHECK(size == 0);
	/* The largest range that does not wrap is the kernel's to judge. */
	CHECK(enpu_cmdbuf_dma_fill(cmdbuf, 0, 1, UINT64_MAX - 1, 0) == 0);
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

static int cmdbuf_functions_reject_null(void)
{
	enpu_cmdbuf *cmdbuf;
	const void *data;
	const char *message;
	uint32_t size;

	CHECK(enpu_cmdbuf_create(NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_destroy(NULL) == 0);
	CHECK(enpu_cmdbuf_reset(NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_nop(NULL, 0) == -EINVAL);
	CHECK(enpu_cmdbuf_dma_copy(NULL, 0, 0, 1, 0, 8) == -EINVAL);
	CHECK(enpu_cmdbuf_dma_fill(NULL, 0, 0, 8, 0) == -EINVAL);
	CHECK(enpu_cmdbuf_data(NULL, &data, &size) == -EINVAL);
	CHECK(enpu_cmdbuf_last_error(NULL, &message) == -EINVAL);
	CHECK(enpu_cmdbuf_create(&cmdbuf) == 0);
	CHECK(enpu_cmdbuf_data(cmdbuf, NULL, &size) == -EINVAL);
	CHECK(enpu_cmdbuf_data(cmdbuf, &data, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, NULL) == -EINVAL);
	CHECK(enpu_cmdbuf_last_error(cmdbuf, &message) == 0);
	CHECK(message[0] == '\0');
	enpu_cmdbuf_destroy(cmdbuf);
	return 0;
}

UNIT_TEST_SUITE(cmdbuf,
	UNIT_TEST(uapi_structs_have_the_documented_layout),
	UNIT_TEST(new_cmdbuf_is_empty),
	UNIT_TEST(nop_is_encoded_byte_for_byte),
	UNIT_TEST(dma_copy_is_encoded_byte_for_byte),
	UNIT_TEST(dma_fill_is_encoded_byte_for_byte),
	UNIT_TEST(commands_are_packed_back_to_back_across_growth),
	UNIT_TEST(stream_stops_exactly_at_the_maximum),
	UNIT_TEST(zero_size_dma_is_einval_and_appends_nothing),
	UNIT_TEST(wrapping_offset_is_einval_and_appends_nothing),
	UNIT_TEST(cmdbuf_functions_reject_null));
