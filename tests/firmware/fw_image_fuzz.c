// SPDX-License-Identifier: GPL-2.0
/*
 * Invariants of enpu_fw_image_parse() on any input:
 *
 *  - the input is read, never written, and never beyond its size (ASan);
 *  - the verdict is the one of an independent reference reading of
 *    enpu_fw_format.h (struct copy + le32toh, rules in the documented
 *    order) — so the parser cannot drift from the format silently;
 *  - the return value is the rule's errno, the reason its sentence, and
 *    the decoded header the input's bytes (zero when shorter than one);
 *  - an accepted image re-encodes (enpu-fwpack's encoder) to its own
 *    header bytes, and is exactly header + payload;
 *  - an image refused only for its API becomes valid with the API fixed
 *    (the API rule runs last and the digest does not cover the header);
 *  - parsing twice gives the same answer.
 */
#include "fw_image_fuzz.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_fw_image.h"
#include "fw_build.h"

#define CHECK(cond, ...)                                                \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "fw_image_fuzz: %s:%d: ",       \
				__FILE__, __LINE__);                    \
			fprintf(stderr, __VA_ARGS__);                   \
			fprintf(stderr, "\n");                          \
			abort();                                        \
		}                                                       \
	} while (0)

/* The format as enpu_fw_format.h's comment states it, read the plain way. */
static enum enpu_fw_rule reference_rule(const uint8_t *data, size_t size,
					struct enpu_fw_header *h)
{
	uint8_t digest[32];
	size_t i;

	memset(h, 0, sizeof(*h));
	if (size < sizeof(*h))
		return ENPU_FW_RULE_TRUNCATED;
	memcpy(h, data, sizeof(*h));
	h->magic = le32toh(h->magic);
	h->format_version = le32toh(h->format_version);
	h->header_size = le32toh(h->header_size);
	h->api_version = le32toh(h->api_version);
	h->fw_version = le32toh(h->fw_version);
	h->payload_size = le32toh(h->payload_size);
	for (i = 0; i < 6; i++)
		h->reserved[i] = le32toh(h->reserved[i]);
	if (h->magic != ENPU_FW_MAGIC)
		return ENPU_FW_RULE_MAGIC;
	if (h->format_version != ENPU_FW_FORMAT_VERSION)
		return ENPU_FW_RULE_FORMAT_VERSION;
	if (h->header_size != sizeof(*h))
		return ENPU_FW_RULE_HEADER_SIZE;
	if (h->payload_size > ENPU_FW_MAX_PAYLOAD)
		return ENPU_FW_RULE_PAYLOAD_LIMIT;
	if (size - sizeof(*h) != h->payload_size)
		return ENPU_FW_RULE_IMAGE_SIZE;
	for (i = 0; i < 6; i++)
		if (h->reserved[i])
			return ENPU_FW_RULE_RESERVED;
	sha256(data + sizeof(*h), h->payload_size, digest);
	if (memcmp(digest, h->sha256, 32))
		return ENPU_FW_RULE_DIGEST;
	if (h->api_version != ENPU_FW_API_VERSION)
		return ENPU_FW_RULE_API_VERSION;
	return ENPU_FW_RULE_NONE;
}

static int expected_error(enum enpu_fw_rule rule)
{
	switch (rule) {
	case ENPU_FW_RULE_NONE:
		return 0;
	case ENPU_FW_RULE_DIGEST:
		return -EBADMSG;
	case ENPU_FW_RULE_API_VERSION:
		return -ENOEXEC;
	default:
		return -EINVAL;
	}
}

int fw_image_fuzz_one(const uint8_t *data, size_t size)
{
	struct enpu_fw_image_info info, again;
	struct enpu_fw_header ref;
	enum enpu_fw_rule want;
	const char *reason = NULL, *reason2 = NULL;
	int ret, ret2;

	want = reference_rule(data, size, &ref);
	ret = enpu_fw_image_parse(data, size, &info, &reason);
	CHECK(info.rule == want, "rule %d, the reference says %d", info.rule, want);
	CHECK(ret == expected_error(want), "returned %d for rule %d", ret, want);
	CHECK(reason && reason == enpu_fw_rule_reason(info.rule),
	      "reason is not the rule's sentence");
	CHECK(!memcmp(&info.header, &ref, sizeof(ref)),
	      "decoded header differs from the input's bytes");

	ret2 = enpu_fw_image_parse(data, size, &again, &reason2);
	CHECK(ret2 == ret && !memcmp(&again, &info, sizeof(info)),
	      "a second parse disagrees");

	if (ret == 0) {
		uint8_t encoded[sizeof(struct enpu_fw_header)];

		CHECK(size == sizeof(encoded) + info.payload_size,
		      "accepted %zu bytes for a %u-byte payload", size,
		      info.payload_size);
		CHECK(info.api_version == ENPU_FW_API_VERSION &&
		      info.fw_version == ref.fw_version,
		      "accepted image reports api %u fw 0x%x", info.api_version,
		      info.fw_version);
		enpu_fw_header_encode(&info.header, encoded);
		CHECK(!memcmp(encoded, data, sizeof(encoded)),
		      "accepted header does not re-encode to its bytes");
	} else {
		CHECK(info.api_version == 0 && info.fw_version == 0 &&
		      info.payload_size == 0,
		      "a rejected image reports versions");
	}

	if (info.rule == ENPU_FW_RULE_API_VERSION) {
		uint8_t *fixed = malloc(size);
		struct enpu_fw_image_info fixed_info;
		const char *fixed_reason;

		CHECK(fixed, "out of memory");
		memcpy(fixed, data, size);
		fixed[offsetof(struct enpu_fw_header, api_version)] =
			ENPU_FW_API_VERSION & 0xff;
		fixed[offsetof(struct enpu_fw_header, api_version) + 1] =
			(ENPU_FW_API_VERSION >> 8) & 0xff;
		fixed[offsetof(struct enpu_fw_header, api_version) + 2] =
			(ENPU_FW_API_VERSION >> 16) & 0xff;
		fixed[offsetof(struct enpu_fw_header, api_version) + 3] =
			(ENPU_FW_API_VERSION >> 24) & 0xff;
		ret2 = enpu_fw_image_parse(fixed, size, &fixed_info, &fixed_reason);
		free(fixed);
		CHECK(ret2 == 0, "refused for its API only, yet %d with the API fixed",
		      ret2);
	}
	return 0;
}
