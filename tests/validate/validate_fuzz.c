// SPDX-License-Identifier: GPL-2.0
/* See validate_fuzz.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "enpu_regs.h"
#include "enpu_validate.h"
#include "validate_fuzz.h"

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t value = 0;

	for (int i = 7; i >= 0; i--)
		value = value << 8 | p[i];
	return value;
}

static void put_le64(uint8_t *p, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

static void violation(const char *what, uint32_t offset, const char *reason)
{
	fprintf(stderr, "validate_fuzz: invariant broken: %s (offset %u, reason %s)\n",
		what, offset, reason ? reason : "(none)");
	abort();
}

int validate_fuzz_one(const uint8_t *data, size_t size)
{
	struct enpu_validate_bo bos[VALIDATE_FUZZ_MAX_BOS];
	struct enpu_validate_bo wide[VALIDATE_FUZZ_MAX_BOS];
	unsigned int bo_count, i;
	const char *reason = NULL;
	uint32_t bad = UINT32_MAX, stream_size;
	const uint8_t *stream;
	size_t header;
	void *copy;
	int ret;

	if (size < 1)
		return -1;
	bo_count = data[0] % (VALIDATE_FUZZ_MAX_BOS + 1);
	header = 1 + (size_t)bo_count * VALIDATE_FUZZ_BO_BYTES;
	if (size < header)
		return -1;
	for (i = 0; i < bo_count; i++) {
		const uint8_t *p = data + 1 + i * VALIDATE_FUZZ_BO_BYTES;

		bos[i].size = get_le64(p);
		bos[i].access = p[8] & (ENPU_BO_ACCESS_READ |
					ENPU_BO_ACCESS_WRITE);
		wide[i].size = UINT64_MAX;
		wide[i].access = ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE;
	}
	stream = data + header;
	stream_size = (uint32_t)((size - header > ENPU_CMD_MAX_STREAM ?
				  ENPU_CMD_MAX_STREAM : size - header) &
				 ~(size_t)(ENPU_CMD_ALIGN - 1));
	/* An exact-size heap copy, so ASan sees any read past the end. */
	copy = malloc(stream_size ? stream_size : 1);
	if (!copy)
		abort();
	memcpy(copy, stream, stream_size);

	ret = enpu_validate_stream(copy, stream_size, bos, bo_count, &bad,
				   &reason);
	if (ret != 0 && ret != -EINVAL)
		violation("result neither 0 nor -EINVAL", bad, reason);
	if (ret) {
		if (bad >= stream_size || bad % ENPU_CMD_ALIGN || !reason)
			violation("rejection without a command offset and reason",
				  bad, reason);
	} else if (enpu_validate_stream(copy, stream_size, wide, bo_count,
					&bad, &reason)) {
		violation("accepted stream rejected with larger BOs", bad,
			  reason);
	}
	free(copy);
	return ret;
}

size_t validate_fuzz_encode(uint8_t *out, size_t room, const uint64_t *sizes,
			    const uint32_t *access, unsigned int bo_count,
			    const void *stream, size_t stream_size)
{
	size_t need = 1 + (size_t)bo_count * VALIDATE_FUZZ_BO_BYTES +
		      stream_size;

	if (bo_count > VALIDATE_FUZZ_MAX_BOS || need > room)
		return 0;
	out[0] = (uint8_t)bo_count;
	for (unsigned int i = 0; i < bo_count; i++) {
		uint8_t *p = out + 1 + i * VALIDATE_FUZZ_BO_BYTES;

		put_le64(p, sizes[i]);
		p[8] = (uint8_t)access[i];
	}
	memcpy(out + 1 + (size_t)bo_count * VALIDATE_FUZZ_BO_BYTES, stream,
	       stream_size);
	return need;
}
