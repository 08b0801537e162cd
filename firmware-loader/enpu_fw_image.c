// SPDX-License-Identifier: GPL-2.0
/*
 * Firmware image checks. The image comes from the filesystem and is
 * untrusted: every header field is checked before it is used, sizes with
 * overflow-safe arithmetic, and the payload digest is verified here too
 * (the device verifies it again). No device access, so KUnit and fuzzers
 * can drive it directly.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <crypto/sha2.h>

#include "enpu_fw_format.h"
#include "enpu_fw_image.h"

static u32 enpu_fw_le32(__u32 field)
{
	return le32_to_cpu((__force __le32)field);
}

static bool enpu_fw_reserved_zero(const struct enpu_fw_header *hdr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hdr->reserved); i++)
		if (hdr->reserved[i])
			return false;
	return true;
}

/**
 * enpu_fw_image_parse() - check a firmware image before it goes to the NPU
 * @data: the image.
 * @size: its size in bytes.
 * @info: filled in from the header when the image is accepted.
 * @reason: set to a human-readable reason when it is rejected.
 *
 * Return: 0 if the image is well formed, has the right digest and speaks
 * ENPU_FW_API_VERSION; -EINVAL for a malformed image, -EBADMSG for a digest
 * mismatch, -ENOEXEC for an API this driver does not speak.
 */
int enpu_fw_image_parse(const u8 *data, size_t size,
			struct enpu_fw_image_info *info, const char **reason)
{
	struct enpu_fw_header hdr;
	u8 digest[SHA256_DIGEST_SIZE];
	u32 header_size, payload_size;

	if (size < sizeof(hdr)) {
		*reason = "shorter than its header";
		return -EINVAL;
	}
	memcpy(&hdr, data, sizeof(hdr));

	if (enpu_fw_le32(hdr.magic) != ENPU_FW_MAGIC) {
		*reason = "bad magic";
		return -EINVAL;
	}
	if (enpu_fw_le32(hdr.format_version) != ENPU_FW_FORMAT_VERSION) {
		*reason = "unknown format version";
		return -EINVAL;
	}
	header_size = enpu_fw_le32(hdr.header_size);
	if (header_size != sizeof(hdr)) {
		*reason = "bad header size";
		return -EINVAL;
	}
	payload_size = enpu_fw_le32(hdr.payload_size);
	if (payload_size > ENPU_FW_MAX_PAYLOAD) {
		*reason = "payload too large";
		return -EINVAL;
	}
	/* Both terms are bounded above, so the sum cannot wrap. */
	if ((size_t)header_size + payload_size != size) {
		*reason = "header and payload sizes do not add up to the file size";
		return -EINVAL;
	}
	if (!enpu_fw_reserved_zero(&hdr)) {
		*reason = "reserved header fields are not zero";
		return -EINVAL;
	}

	sha256(data + header_size, payload_size, digest);
	if (memcmp(digest, hdr.sha256, sizeof(digest))) {
		*reason = "payload SHA-256 mismatch";
		return -EBADMSG;
	}
	if (enpu_fw_le32(hdr.api_version) != ENPU_FW_API_VERSION) {
		*reason = "unsupported firmware API version";
		return -ENOEXEC;
	}

	info->api_version = enpu_fw_le32(hdr.api_version);
	info->fw_version = enpu_fw_le32(hdr.fw_version);
	info->payload_size = payload_size;
	return 0;
}
