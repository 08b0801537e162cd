/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of an untrusted firmware image (enpu_fw_format.h). Plain C with no
 * kernel dependency beyond the types, errno values, offsetof(), the string
 * functions and sha256(), so the same file builds in userspace: compile
 * enpu_fw_image.c with -I firmware-loader and without __KERNEL__, and link
 * a sha256() with the kernel's signature (tools/fwpack/fw_sha256.c wraps
 * libcrypto). The driver's loader, `enpu-fwpack --inspect`, the vnpu's boot
 * ROM, the KUnit suite and the fuzzer all run this one parser.
 */
#ifndef ENPU_FW_IMAGE_H
#define ENPU_FW_IMAGE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u32 u32;
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* lib/crypto's SHA-256 (crypto/sha2.h), provided by the program. */
void sha256(const u8 *data, unsigned int len, u8 *out);
#endif

#include "enpu_fw_format.h"

/**
 * enum enpu_fw_rule - the check an image failed, in the order they run
 * @ENPU_FW_RULE_NONE: none; the image is accepted.
 * @ENPU_FW_RULE_TRUNCATED: the image is shorter than its header.
 * @ENPU_FW_RULE_MAGIC: magic is not ENPU_FW_MAGIC.
 * @ENPU_FW_RULE_FORMAT_VERSION: format_version is not ENPU_FW_FORMAT_VERSION.
 * @ENPU_FW_RULE_HEADER_SIZE: header_size is not sizeof(struct enpu_fw_header).
 * @ENPU_FW_RULE_PAYLOAD_LIMIT: payload_size exceeds ENPU_FW_MAX_PAYLOAD.
 * @ENPU_FW_RULE_IMAGE_SIZE: header_size + payload_size is not the image size.
 * @ENPU_FW_RULE_RESERVED: a reserved header word is not zero.
 * @ENPU_FW_RULE_DIGEST: the payload's SHA-256 is not the header's.
 * @ENPU_FW_RULE_API_VERSION: a well-formed image for another firmware API
 *	than ENPU_FW_API_VERSION; checked last, so every other rule held.
 */
enum enpu_fw_rule {
	ENPU_FW_RULE_NONE,
	ENPU_FW_RULE_TRUNCATED,
	ENPU_FW_RULE_MAGIC,
	ENPU_FW_RULE_FORMAT_VERSION,
	ENPU_FW_RULE_HEADER_SIZE,
	ENPU_FW_RULE_PAYLOAD_LIMIT,
	ENPU_FW_RULE_IMAGE_SIZE,
	ENPU_FW_RULE_RESERVED,
	ENPU_FW_RULE_DIGEST,
	ENPU_FW_RULE_API_VERSION,
	ENPU_FW_RULE_COUNT
};

/**
 * struct enpu_fw_image_info - what the parser read from an image
 * @header: the header decoded to CPU byte order, as far as the image had
 *	one (all zero if it was shorter than the header).
 * @rule: the check the image failed, or ENPU_FW_RULE_NONE.
 * @api_version: firmware API version the image speaks (valid on success).
 * @fw_version: firmware version, major << 16 | minor << 8 | patch (valid on
 *	success).
 * @payload_size: bytes after the header (valid on success).
 */
struct enpu_fw_image_info {
	struct enpu_fw_header header;
	enum enpu_fw_rule rule;
	u32 api_version;
	u32 fw_version;
	u32 payload_size;
};

int enpu_fw_image_parse(const u8 *data, size_t size,
			struct enpu_fw_image_info *info, const char **reason);
const char *enpu_fw_rule_reason(enum enpu_fw_rule rule);

#endif /* ENPU_FW_IMAGE_H */
