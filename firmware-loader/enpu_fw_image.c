// SPDX-License-Identifier: GPL-2.0
/*
 * Firmware image checks. The image comes from the filesystem (or, in the
 * vnpu, from guest memory) and is untrusted: every header field is decoded
 * byte by byte (no alignment or byte-order assumption about the buffer) and
 * checked before it is used, sizes with overflow-safe arithmetic, and the
 * payload digest is verified (the device verifies it again). No device
 * access and no allocation, so KUnit and fuzzers drive it directly; see
 * enpu_fw_image.h for the userspace build.
 */
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <crypto/sha2.h>
#else
#include <assert.h>
#include <errno.h>
#include <string.h>
#define SHA256_DIGEST_SIZE 32
#endif

#include "enpu_fw_format.h"
#include "enpu_fw_image.h"

/* The header is the same 80 bytes on every ABI: no padding, no pointers. */
static_assert(sizeof(struct enpu_fw_header) == 80,
	      "struct enpu_fw_header must be 80 bytes");
static_assert(sizeof(((struct enpu_fw_header *)0)->sha256) == SHA256_DIGEST_SIZE,
	      "the header's digest is a SHA-256");

static const char *const enpu_fw_reasons[ENPU_FW_RULE_COUNT] = {
	[ENPU_FW_RULE_NONE] = "valid",
	[ENPU_FW_RULE_TRUNCATED] = "image is shorter than its header",
	[ENPU_FW_RULE_MAGIC] = "magic is not ENPU_FW_MAGIC (\"ENFW\")",
	[ENPU_FW_RULE_FORMAT_VERSION] = "format_version is not ENPU_FW_FORMAT_VERSION",
	[ENPU_FW_RULE_HEADER_SIZE] = "header_size is not the size of the version-1 header",
	[ENPU_FW_RULE_PAYLOAD_LIMIT] = "payload_size exceeds ENPU_FW_MAX_PAYLOAD",
	[ENPU_FW_RULE_IMAGE_SIZE] = "header_size + payload_size is not the image size",
	[ENPU_FW_RULE_RESERVED] = "reserved header fields are not zero",
	[ENPU_FW_RULE_DIGEST] = "payload SHA-256 does not match the header",
	[ENPU_FW_RULE_API_VERSION] = "api_version is not ENPU_FW_API_VERSION",
};

/**
 * enpu_fw_rule_reason() - a sentence naming the field a rule checks
 * @rule: a rule from enum enpu_fw_rule.
 *
 * Return: a static string; "unknown rule" for a value outside the enum.
 */
const char *enpu_fw_rule_reason(enum enpu_fw_rule rule)
{
	if ((unsigned int)rule >= ENPU_FW_RULE_COUNT)
		return "unknown rule";
	return enpu_fw_reasons[rule];
}

static u32 enpu_fw_get_le32(const u8 *data, size_t offset)
{
	const u8 *p = data + offset;

	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

#define ENPU_FW_FIELD(data, field) \
	enpu_fw_get_le32(data, offsetof(struct enpu_fw_header, field))
#define ENPU_FW_RESERVED_OFFSET(i) \
	(offsetof(struct enpu_fw_header, reserved) + sizeof(u32) * (i))

static void enpu_fw_decode(const u8 *data, struct enpu_fw_header *hdr)
{
	unsigned int i;

	hdr->magic = ENPU_FW_FIELD(data, magic);
	hdr->format_version = ENPU_FW_FIELD(data, format_version);
	hdr->header_size = ENPU_FW_FIELD(data, header_size);
	hdr->api_version = ENPU_FW_FIELD(data, api_version);
	hdr->fw_version = ENPU_FW_FIELD(data, fw_version);
	hdr->payload_size = ENPU_FW_FIELD(data, payload_size);
	memcpy(hdr->sha256, data + offsetof(struct enpu_fw_header, sha256),
	       sizeof(hdr->sha256));
	for (i = 0; i < ARRAY_SIZE(hdr->reserved); i++)
		hdr->reserved[i] = enpu_fw_get_le32(data, ENPU_FW_RESERVED_OFFSET(i));
}

static enum enpu_fw_rule enpu_fw_check(const u8 *data, size_t size,
				       struct enpu_fw_header *hdr)
{
	u8 digest[SHA256_DIGEST_SIZE];
	unsigned int i;

	if (size < sizeof(*hdr))
		return ENPU_FW_RULE_TRUNCATED;
	enpu_fw_decode(data, hdr);
	if (hdr->magic != ENPU_FW_MAGIC)
		return ENPU_FW_RULE_MAGIC;
	if (hdr->format_version != ENPU_FW_FORMAT_VERSION)
		return ENPU_FW_RULE_FORMAT_VERSION;
	if (hdr->header_size != sizeof(*hdr))
		return ENPU_FW_RULE_HEADER_SIZE;
	if (hdr->payload_size > ENPU_FW_MAX_PAYLOAD)
		return ENPU_FW_RULE_PAYLOAD_LIMIT;
	/* Both terms are bounded above, so the sum cannot wrap. */
	if ((size_t)hdr->header_size + hdr->payload_size != size)
		return ENPU_FW_RULE_IMAGE_SIZE;
	for (i = 0; i < ARRAY_SIZE(hdr->reserved); i++)
		if (hdr->reserved[i])
			return ENPU_FW_RULE_RESERVED;
	sha256(data + hdr->header_size, hdr->payload_size, digest);
	if (memcmp(digest, hdr->sha256, sizeof(digest)))
		return ENPU_FW_RULE_DIGEST;
	if (hdr->api_version != ENPU_FW_API_VERSION)
		return ENPU_FW_RULE_API_VERSION;
	return ENPU_FW_RULE_NONE;
}

/**
 * enpu_fw_image_parse() - check a firmware image before it goes to the NPU
 * @data: the image.
 * @size: its size in bytes.
 * @info: always filled: the decoded header (as far as there was one) and
 *	the rule the image failed; the version fields only on success.
 * @reason: set to enpu_fw_rule_reason() of that rule.
 *
 * Return: 0 if the image is well formed, has the right digest and speaks
 * ENPU_FW_API_VERSION; -EINVAL for a malformed image, -EBADMSG for a digest
 * mismatch, -ENOEXEC for an otherwise valid image of another API.
 */
int enpu_fw_image_parse(const u8 *data, size_t size,
			struct enpu_fw_image_info *info, const char **reason)
{
	memset(info, 0, sizeof(*info));
	info->rule = enpu_fw_check(data, size, &info->header);
	*reason = enpu_fw_rule_reason(info->rule);
	switch (info->rule) {
	case ENPU_FW_RULE_NONE:
		break;
	case ENPU_FW_RULE_DIGEST:
		return -EBADMSG;
	case ENPU_FW_RULE_API_VERSION:
		return -ENOEXEC;
	default:
		return -EINVAL;
	}
	info->api_version = info->header.api_version;
	info->fw_version = info->header.fw_version;
	info->payload_size = info->header.payload_size;
	return 0;
}
