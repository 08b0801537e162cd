// SPDX-License-Identifier: GPL-2.0
/* See validate_fuzz.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
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

static void violation(const char *what, uint32_t offset, uint32_t rule)
{
	fprintf(stderr, "validate_fuzz: invariant broken: %s (offset %u, rule %u %s)\n",
		what, offset, rule, enpu_cmd_rule_name(rule));
	abort();
}

int validate_fuzz_decode(const uint8_t *data, size_t size,
			 struct validate_fuzz_input *in)
{
	const uint8_t *stream;
	size_t header;
	unsigned int i;

	if (size < 1)
		return -1;
	in->bo_count = data[0] % (VALIDATE_FUZZ_MAX_BOS + 1);
	header = 1 + (size_t)in->bo_count * VALIDATE_FUZZ_BO_BYTES;
	if (size < header)
		return -1;
	for (i = 0; i < in->bo_count; i++) {
		const uint8_t *p = data + 1 + i * VALIDATE_FUZZ_BO_BYTES;

		in->bos[i].size = get_le64(p);
		in->bos[i].access = p[8] & (ENPU_BO_ACCESS_READ |
					    ENPU_BO_ACCESS_WRITE);
	}
	stream = data + header;
	in->stream_size = (uint32_t)((size - header > ENPU_CMD_MAX_STREAM ?
				      ENPU_CMD_MAX_STREAM : size - header) &
				     ~(size_t)(ENPU_CMD_ALIGN - 1));
	/* An exact-size heap copy, so ASan sees any read past the end. */
	in->stream = malloc(in->stream_size ? in->stream_size : 1);
	if (!in->stream)
		abort();
	memcpy(in->stream, stream, in->stream_size);
	return 0;
}

void validate_fuzz_input_free(struct validate_fuzz_input *in)
{
	free(in->stream);
	in->stream = NULL;
}

int validate_fuzz_one(const uint8_t *data, size_t size)
{
	struct enpu_validate_bo wide[VALIDATE_FUZZ_MAX_BOS];
	uint32_t bad = UINT32_MAX, rule = UINT32_MAX;
	struct validate_fuzz_input in;
	unsigned int i;
	int ret;

	if (validate_fuzz_decode(data, size, &in))
		return -1;
	for (i = 0; i < in.bo_count; i++) {
		wide[i].size = UINT64_MAX;
		wide[i].access = ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE;
	}
	ret = enpu_validate_stream(in.stream, in.stream_size, in.bos,
				   in.bo_count, &bad, &rule);
	if (ret != 0 && ret != -EINVAL)
		violation("result neither 0 nor -EINVAL", bad, rule);
	if (ret) {
		if (bad >= in.stream_size || bad % ENPU_CMD_ALIGN ||
		    rule == ENPU_RULE_NONE || rule >= ENPU_RULE_COUNT)
			violation("rejection without a command offset and rule",
				  bad, rule);
	} else if (rule != ENPU_RULE_NONE) {
		violation("acceptance with a rule", bad, rule);
	} else if (enpu_validate_stream(in.stream, in.stream_size, wide,
					in.bo_count, &bad, &rule)) {
		violation("accepted stream rejected with larger BOs", bad,
			  rule);
	}
	validate_fuzz_input_free(&in);
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
