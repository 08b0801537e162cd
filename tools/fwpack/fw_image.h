/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Firmware image checks shared by enpu-fwpack (which builds and checks
 * images) and the vnpu (which verifies an image again at BOOT, as a boot
 * ROM would). The format is firmware-loader/enpu_fw_format.h; every field
 * of an image is untrusted.
 */
#ifndef ENPU_FW_IMAGE_H
#define ENPU_FW_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_fw_format.h"

#define ENPU_FW_HEADER_SIZE	((uint32_t)sizeof(struct enpu_fw_header))

enum enpu_fw_check {
	ENPU_FW_OK = 0,
	ENPU_FW_BAD_FORMAT,	/* a header field is wrong */
	ENPU_FW_BAD_DIGEST,	/* SHA-256 of the payload differs */
};

/*
 * Decodes and checks the header and the payload digest of @image (@size
 * bytes). Fills @header (decoded, host order) as far as it could be read.
 * On failure writes a sentence naming the field to @why.
 * The API version is not judged here: which API is acceptable depends on
 * the reader.
 */
enum enpu_fw_check enpu_fw_image_check(const uint8_t *image, size_t size,
				       struct enpu_fw_header *header,
				       char *why, size_t why_size);

/* Fills a header for @payload; returns -1 with @why on bad arguments. */
int enpu_fw_header_build(struct enpu_fw_header *header,
			 const uint8_t *payload, size_t payload_size,
			 uint32_t api_version, uint32_t fw_version,
			 char *why, size_t why_size);

/* Encodes @header little endian into @out (ENPU_FW_HEADER_SIZE bytes). */
void enpu_fw_header_encode(const struct enpu_fw_header *header, uint8_t *out);

/* SHA-256 of @data; returns -1 if libcrypto failed. */
int enpu_fw_sha256(const uint8_t *data, size_t size, uint8_t digest[32]);

#endif /* ENPU_FW_IMAGE_H */
