/* SPDX-License-Identifier: GPL-2.0 */
/* Validation of an untrusted firmware image (enpu_fw_format.h). */
#ifndef ENPU_FW_IMAGE_H
#define ENPU_FW_IMAGE_H

#include <linux/types.h>

/**
 * struct enpu_fw_image_info - header fields of an image that passed checks
 * @api_version: firmware API version the image speaks.
 * @fw_version: firmware version, major << 16 | minor << 8 | patch.
 * @payload_size: bytes after the header.
 */
struct enpu_fw_image_info {
	u32 api_version;
	u32 fw_version;
	u32 payload_size;
};

int enpu_fw_image_parse(const u8 *data, size_t size,
			struct enpu_fw_image_info *info, const char **reason);

#endif /* ENPU_FW_IMAGE_H */
