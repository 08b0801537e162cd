// SPDX-License-Identifier: MIT
/*
 * Command-stream builder: appends uapi/enpu_cmd.h commands to a growing
 * buffer. It encodes the uapi structs as they are (the kernel and the
 * device read the same layout) and refuses only what can never be valid;
 * references are checked against BOs by the kernel at submit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_internal.h"

/* First allocation; doubles from there up to ENPU_CMD_MAX_STREAM. */
#define CMDBUF_INITIAL_CAPACITY 256u

struct enpu_cmdbuf {
	unsigned char *data;
	uint32_t size;
	uint32_t capacity;
	char last_error[ENPU_ERROR_MESSAGE_SIZE];
};

_Static_assert(sizeof(struct enpu_cmd_nop) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_dma_copy) % ENPU_CMD_ALIGN == 0 &&
	       sizeof(struct enpu_cmd_dma_fill) % ENPU_CMD_ALIGN == 0,
	       "commands keep the stream 8-byte aligned");

__attribute__((format(printf, 3, 4)))
static int cmdbuf_fail(enpu_cmdbuf *cmdbuf, int status, const char *format,
		       ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(cmdbuf->last_error, sizeof(cmdbuf->last_error), format,
		  args);
	va_end(args);
	return status;
}

int enpu_cmdbuf_create(enpu_cmdbuf **cmdbuf)
{
	enpu_cmdbuf *created;

	if (!cmdbuf)
		return -EINVAL;
	created = calloc(1, sizeof(*created));
	if (!created)
		return -ENOMEM;
	*cmdbuf = created;
	return 0;
}

int enpu_cmdbuf_destroy(enpu_cmdbuf *cmdbuf)
{
	if (!cmdbuf)
		return 0;
	free(cmdbuf->data);
	free(cmdbuf);
	return 0;
}

int enpu_cmdbuf_reset(enpu_cmdbuf *cmdbuf)
{
	if (!cmdbuf)
		return -EINVAL;
	cmdbuf->size = 0;
	cmdbuf->last_error[0] = '\0';
	return 0;
}

/* Grows the buffer as needed; all or nothing. */
int enpu_cmdbuf_append(enpu_cmdbuf *cmdbuf, const char *name,
		       const void *command, uint32_t size)
{
	if (size > ENPU_CMD_MAX_STREAM - cmdbuf->size)
		return cmdbuf_fail(cmdbuf, -ENOSPC,
				   "cmdbuf: %s (%u bytes) does not fit: the stream holds %u of at most %u bytes",
				   name, size, cmdbuf->size,
				   ENPU_CMD_MAX_STREAM);
	if (cmdbuf->size + size > cmdbuf->capacity) {
		uint32_t capacity = cmdbuf->capacity ? cmdbuf->capacity :
						       CMDBUF_INITIAL_CAPACITY;
		unsigned char *grown;

		while (capacity < cmdbuf->size + size)
			capacity *= 2;
		if (capacity > ENPU_CMD_MAX_STREAM)
			capacity = ENPU_CMD_MAX_STREAM;
		grown = realloc(cmdbuf->data, capacity);
		if (!grown)
			return cmdbuf_fail(cmdbuf, -ENOMEM,
					   "cmdbuf: out of memory growing the stream to %u bytes",
					   capacity);
		cmdbuf->data = grown;
		cmdbuf->capacity = capacity;
	}
	memcpy(cmdbuf->data + cmdbuf->size, command, size);
	cmdbuf->size += size;
	return 0;
}

static int check_range(enpu_cmdbuf *cmdbuf, const char *name,
		       const char *which, uint64_t offset, uint64_t size)
{
	if (size == 0)
		return cmdbuf_fail(cmdbuf, -EINVAL, "cmdbuf: %s: size is 0",
				   name);
	if (offset > UINT64_MAX - size)
		return cmdbuf_fail(cmdbuf, -EINVAL,
				   "cmdbuf: %s: %s offset %" PRIu64
				   " + size %" PRIu64 " wraps around",
				   name, which, offset, size);
	return 0;
}

int enpu_cmdbuf_nop(enpu_cmdbuf *cmdbuf, uint32_t cycles)
{
	struct enpu_cmd_nop command = {
		.hdr = { .opcode = ENPU_CMD_NOP, .size = sizeof(command) },
		.cycles = cycles,
	};

	if (!cmdbuf)
		return -EINVAL;
	return enpu_cmdbuf_append(cmdbuf, "nop", &command, sizeof(command));
}

int enpu_cmdbuf_dma_copy(enpu_cmdbuf *cmdbuf, uint32_t src_index,
			 uint64_t src_offset, uint32_t dst_index,
			 uint64_t dst_offset, uint64_t size)
{
	struct enpu_cmd_dma_copy command = {
		.hdr = { .opcode = ENPU_CMD_DMA_COPY, .size = sizeof(command) },
		.src = { .bo_index = src_index, .offset = src_offset },
		.dst = { .bo_index = dst_index, .offset = dst_offset },
		.size = size,
	};
	int status;

	if (!cmdbuf)
		return -EINVAL;
	status = check_range(cmdbuf, "dma_copy", "source", src_offset, size);
	if (status)
		return status;
	status = check_range(cmdbuf, "dma_copy", "destination", dst_offset,
			     size);
	if (status)
		return status;
	return enpu_cmdbuf_append(cmdbuf, "dma_copy", &command, sizeof(command));
}

int enpu_cmdbuf_dma_fill(enpu_cmdbuf *cmdbuf, uint32_t dst_index,
			 uint64_t dst_offset, uint64_t size, uint8_t value)
{
	struct enpu_cmd_dma_fill command = {
		.hdr = { .opcode = ENPU_CMD_DMA_FILL, .size = sizeof(command) },
		.dst = { .bo_index = dst_index, .offset = dst_offset },
		.size = size,
		.value = value,
	};
	int status;

	if (!cmdbuf)
		return -EINVAL;
	status = check_range(cmdbuf, "dma_fill", "destination", dst_offset,
			     size);
	if (status)
		return status;
	return enpu_cmdbuf_append(cmdbuf, "dma_fill", &command, sizeof(command));
}

int enpu_cmdbuf_data(const enpu_cmdbuf *cmdbuf, const void **data,
		     uint32_t *size)
{
	if (!cmdbuf || !data || !size)
		return -EINVAL;
	*data = cmdbuf->data;
	*size = cmdbuf->size;
	return 0;
}

int enpu_cmdbuf_last_error(const enpu_cmdbuf *cmdbuf, const char **message)
{
	if (!cmdbuf || !message)
		return -EINVAL;
	*message = cmdbuf->last_error;
	return 0;
}
