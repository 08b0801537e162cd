/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The firmware image parser's test cases, one table for both of its
 * builds: the host test (tests/firmware/test_fw_image.c, ASan/UBSan) and
 * the KUnit suite (tests/kunit/enpu_fw_image_kunit.c, the kernel build).
 * Each case builds a valid image, applies at most two edits meant to break
 * exactly one rule, and names the rule and errno the parser must report;
 * every rule is tested from both sides of its boundary.
 *
 * Plain C over the types of firmware-loader/enpu_fw_image.h; the includer
 * provides memset(), offsetof() and sha256(). The image is encoded here
 * independently of the parser and of enpu-fwpack, so neither can mask a
 * layout mistake of the other.
 */
#ifndef ENPU_FW_IMAGE_CASES_H
#define ENPU_FW_IMAGE_CASES_H

#include "enpu_fw_image.h"

#define FW_HDR_SIZE		sizeof(struct enpu_fw_header)
#define FW_OFF(field)		offsetof(struct enpu_fw_header, field)
#define FW_OFF_RESERVED(i)	(FW_OFF(reserved) + 4 * (i))
/* Bytes a case may append to its image. */
#define FW_CASE_SLACK		16
/* An offset counted from the end of the image (-1 is its last byte). */
#define FW_FROM_END(n)		(-(long)(n))
#define FW_NO_EDIT		0x7fffffffL

/**
 * struct fw_image_case - one image and the verdict the parser owes it
 * @name: what the case checks.
 * @payload_size: payload bytes of the valid image the case starts from.
 * @set_offset: header offset of a little-endian word to overwrite, or
 *	FW_NO_EDIT.
 * @set_value: the word written there.
 * @set2_offset: a second word (FW_NO_EDIT for none), for precedence cases.
 * @set2_value: the word written there.
 * @flip_offset: image offset of a byte to flip (FW_FROM_END() counts from
 *	the end), or FW_NO_EDIT.
 * @size_delta: bytes added to (zeros) or taken from the end of the image.
 * @rule: the rule the parser must name.
 * @error: the value it must return.
 */
struct fw_image_case {
	const char *name;
	u32 payload_size;
	long set_offset;
	u32 set_value;
	long set2_offset;
	u32 set2_value;
	long flip_offset;
	int size_delta;
	enum enpu_fw_rule rule;
	int error;
};

#define FW_VALID(n, size) \
	{ n, size, FW_NO_EDIT, 0, FW_NO_EDIT, 0, FW_NO_EDIT, 0, \
	  ENPU_FW_RULE_NONE, 0 }
#define FW_SET(n, off, val, r, e) \
	{ n, 64, off, val, FW_NO_EDIT, 0, FW_NO_EDIT, 0, r, e }
#define FW_FLIP(n, off, r, e) \
	{ n, 64, FW_NO_EDIT, 0, FW_NO_EDIT, 0, off, 0, r, e }
#define FW_RESIZE(n, size, delta, r) \
	{ n, size, FW_NO_EDIT, 0, FW_NO_EDIT, 0, FW_NO_EDIT, delta, r, -EINVAL }

static const struct fw_image_case fw_image_cases[] = {
	FW_VALID("accepts_a_small_image", 64),
	FW_VALID("accepts_an_empty_payload", 0),
	FW_VALID("accepts_an_odd_sized_payload", 4095),
	FW_VALID("accepts_the_largest_payload", ENPU_FW_MAX_PAYLOAD),
	FW_SET("fw_version_is_not_judged", FW_OFF(fw_version), 0xffffffffu,
	       ENPU_FW_RULE_NONE, 0),

	FW_RESIZE("rejects_an_empty_file", 0, -(int)FW_HDR_SIZE,
		  ENPU_FW_RULE_TRUNCATED),
	FW_RESIZE("rejects_a_header_one_byte_short", 0, -1,
		  ENPU_FW_RULE_TRUNCATED),

	FW_FLIP("rejects_magic_byte_0", 0, ENPU_FW_RULE_MAGIC, -EINVAL),
	FW_FLIP("rejects_magic_byte_3", 3, ENPU_FW_RULE_MAGIC, -EINVAL),
	FW_SET("rejects_magic_zero", FW_OFF(magic), 0, ENPU_FW_RULE_MAGIC,
	       -EINVAL),

	FW_SET("rejects_format_version_0", FW_OFF(format_version), 0,
	       ENPU_FW_RULE_FORMAT_VERSION, -EINVAL),
	FW_SET("rejects_format_version_2", FW_OFF(format_version), 2,
	       ENPU_FW_RULE_FORMAT_VERSION, -EINVAL),

	FW_SET("rejects_header_size_one_short", FW_OFF(header_size),
	       FW_HDR_SIZE - 1, ENPU_FW_RULE_HEADER_SIZE, -EINVAL),
	FW_SET("rejects_header_size_one_long", FW_OFF(header_size),
	       FW_HDR_SIZE + 1, ENPU_FW_RULE_HEADER_SIZE, -EINVAL),
	FW_SET("rejects_header_size_max", FW_OFF(header_size), 0xffffffffu,
	       ENPU_FW_RULE_HEADER_SIZE, -EINVAL),

	FW_SET("rejects_payload_size_one_over_the_limit", FW_OFF(payload_size),
	       ENPU_FW_MAX_PAYLOAD + 1, ENPU_FW_RULE_PAYLOAD_LIMIT, -EINVAL),
	FW_SET("rejects_payload_size_max_without_wrapping", FW_OFF(payload_size),
	       0xffffffffu, ENPU_FW_RULE_PAYLOAD_LIMIT, -EINVAL),
	FW_SET("rejects_payload_size_at_the_limit_with_a_short_file",
	       FW_OFF(payload_size), ENPU_FW_MAX_PAYLOAD,
	       ENPU_FW_RULE_IMAGE_SIZE, -EINVAL),
	FW_SET("rejects_payload_size_one_more_than_the_file",
	       FW_OFF(payload_size), 65, ENPU_FW_RULE_IMAGE_SIZE, -EINVAL),
	FW_SET("rejects_payload_size_one_less_than_the_file",
	       FW_OFF(payload_size), 63, ENPU_FW_RULE_IMAGE_SIZE, -EINVAL),
	FW_RESIZE("rejects_a_trailing_byte", 64, 1, ENPU_FW_RULE_IMAGE_SIZE),
	FW_RESIZE("rejects_a_missing_last_byte", 64, -1, ENPU_FW_RULE_IMAGE_SIZE),
	FW_RESIZE("rejects_a_header_without_its_payload", 64, -64,
		  ENPU_FW_RULE_IMAGE_SIZE),

	FW_SET("rejects_reserved_0", FW_OFF_RESERVED(0), 1,
	       ENPU_FW_RULE_RESERVED, -EINVAL),
	FW_SET("rejects_reserved_2", FW_OFF_RESERVED(2), 0x100,
	       ENPU_FW_RULE_RESERVED, -EINVAL),
	FW_SET("rejects_reserved_5_high_bit", FW_OFF_RESERVED(5), 0x80000000u,
	       ENPU_FW_RULE_RESERVED, -EINVAL),

	FW_FLIP("rejects_a_changed_first_payload_byte", FW_HDR_SIZE,
		ENPU_FW_RULE_DIGEST, -EBADMSG),
	FW_FLIP("rejects_a_changed_last_payload_byte", FW_FROM_END(1),
		ENPU_FW_RULE_DIGEST, -EBADMSG),
	FW_FLIP("rejects_a_changed_digest", FW_OFF(sha256) + 31,
		ENPU_FW_RULE_DIGEST, -EBADMSG),

	FW_SET("rejects_api_0", FW_OFF(api_version), 0,
	       ENPU_FW_RULE_API_VERSION, -ENOEXEC),
	FW_SET("rejects_api_2", FW_OFF(api_version), ENPU_FW_API_VERSION + 1,
	       ENPU_FW_RULE_API_VERSION, -ENOEXEC),
	FW_SET("rejects_api_max", FW_OFF(api_version), 0xffffffffu,
	       ENPU_FW_RULE_API_VERSION, -ENOEXEC),

	/* The rules run in the documented order: the first broken one wins. */
	{ "magic_is_checked_before_reserved", 64, FW_OFF(magic), 0,
	  FW_OFF_RESERVED(1), 1, FW_NO_EDIT, 0, ENPU_FW_RULE_MAGIC, -EINVAL },
	{ "payload_limit_is_checked_before_the_file_size", 64,
	  FW_OFF(payload_size), ENPU_FW_MAX_PAYLOAD + 1, FW_NO_EDIT, 0,
	  FW_NO_EDIT, 1, ENPU_FW_RULE_PAYLOAD_LIMIT, -EINVAL },
	{ "reserved_is_checked_before_the_digest", 64, FW_OFF_RESERVED(3), 1,
	  FW_NO_EDIT, 0, FW_HDR_SIZE + 5, 0, ENPU_FW_RULE_RESERVED, -EINVAL },
	{ "api_is_checked_after_the_digest", 64, FW_OFF(api_version), 2,
	  FW_NO_EDIT, 0, FW_HDR_SIZE + 9, 0, ENPU_FW_RULE_DIGEST, -EBADMSG },
};

#define FW_IMAGE_CASE_COUNT (sizeof(fw_image_cases) / sizeof(fw_image_cases[0]))

/* Bytes the includer must allocate for a case's image. */
static inline size_t fw_case_capacity(const struct fw_image_case *c)
{
	return FW_HDR_SIZE + c->payload_size + FW_CASE_SLACK;
}

static inline void fw_case_put_le32(u8 *image, long offset, u32 v)
{
	image[offset] = (u8)v;
	image[offset + 1] = (u8)(v >> 8);
	image[offset + 2] = (u8)(v >> 16);
	image[offset + 3] = (u8)(v >> 24);
}

/*
 * A valid image of @payload_size bytes for API ENPU_FW_API_VERSION and
 * firmware @fw_version; the payload is a byte pattern, so flipping any
 * byte changes the digest. Returns its size.
 */
static inline size_t fw_case_valid_image(u8 *image, u32 payload_size,
					 u32 fw_version)
{
	u8 *payload = image + FW_HDR_SIZE;
	u32 i;

	memset(image, 0, FW_HDR_SIZE);
	for (i = 0; i < payload_size; i++)
		payload[i] = (u8)(i * 7 + 1);
	fw_case_put_le32(image, FW_OFF(magic), ENPU_FW_MAGIC);
	fw_case_put_le32(image, FW_OFF(format_version), ENPU_FW_FORMAT_VERSION);
	fw_case_put_le32(image, FW_OFF(header_size), FW_HDR_SIZE);
	fw_case_put_le32(image, FW_OFF(api_version), ENPU_FW_API_VERSION);
	fw_case_put_le32(image, FW_OFF(fw_version), fw_version);
	fw_case_put_le32(image, FW_OFF(payload_size), payload_size);
	sha256(payload, payload_size, image + FW_OFF(sha256));
	return FW_HDR_SIZE + payload_size;
}

/* Builds case @c into @image (fw_case_capacity() bytes); returns its size. */
static inline size_t fw_case_build(const struct fw_image_case *c, u8 *image)
{
	size_t size = fw_case_valid_image(image, c->payload_size, 0x010203);

	if (c->set_offset != FW_NO_EDIT)
		fw_case_put_le32(image, c->set_offset, c->set_value);
	if (c->set2_offset != FW_NO_EDIT)
		fw_case_put_le32(image, c->set2_offset, c->set2_value);
	if (c->flip_offset != FW_NO_EDIT)
		image[c->flip_offset < 0 ? (long)size + c->flip_offset :
		      c->flip_offset] ^= 0x20;
	if (c->size_delta > 0)
		memset(image + size, 0, c->size_delta);
	return size + c->size_delta;
}

#endif /* ENPU_FW_IMAGE_CASES_H */
