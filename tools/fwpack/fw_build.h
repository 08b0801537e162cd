/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packer's half of the firmware image format (enpu_fw_format.h): fill
 * a header for a payload and encode it little endian. Checking an image is
 * firmware-loader/enpu_fw_image.c's job, the one parser every reader runs.
 */
#ifndef ENPU_FW_BUILD_H
#define ENPU_FW_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_fw_image.h"

#define ENPU_FW_HEADER_SIZE	((uint32_t)sizeof(struct enpu_fw_header))

/* Fills a header for @payload; returns -1 with @why on bad arguments. */
int enpu_fw_header_build(struct enpu_fw_header *header,
			 const uint8_t *payload, size_t payload_size,
			 uint32_t api_version, uint32_t fw_version,
			 char *why, size_t why_size);

/* Encodes @header little endian into @out (ENPU_FW_HEADER_SIZE bytes). */
void enpu_fw_header_encode(const struct enpu_fw_header *header, uint8_t *out);

#endif /* ENPU_FW_BUILD_H */
