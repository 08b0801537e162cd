// SPDX-License-Identifier: GPL-2.0
/*
 * One implementation of the firmware header rules, compiled into both
 * enpu-fwpack and the vnpu so the packer and the device can never disagree
 * about what a valid image is.
 */
#include "fw_image.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

_Static_assert(sizeof(struct enpu_fw_header) == 80,
	       "enpu_fw_header is 80 bytes on every ABI");

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void say(char *why, size_t why_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
}

int enpu_fw_sha256(const uint8_t *data, size_t size, uint8_t digest[32])
{
	unsigned int len = 0;

	if (EVP_Digest(data, size, digest, &len, EVP_sha256(), NULL) != 1 ||
	    len != 32)
		return -1;
	return 0;
}

static void decode(const uint8_t *p, struct enpu_fw_header *h)
{
	unsigned int i;

	h->magic = get_le32(p + 0);
	h->format_version = get_le32(p + 4);
	h->header_size = get_le32(p + 8);
	h->api_version = get_le32(p + 12);
	h->fw_version = get_le32(p + 16);
	h->payload_size = get_le32(p + 20);
	memcpy(h->sha256, p + 24, sizeof(h->sha256));
	for (i = 0; i < 6; i++)
		h->reserved[i] = get_le32(p + 56 + 4 * i);
}

void enpu_fw_header_encode(const struct enpu_fw_header *h, uint8_t *out)
{
	unsigned int i;

	put_le32(out + 0, h->magic);
	put_le32(out + 4, h->format_version);
	put_le32(out + 8, h->header_size);
	put_le32(out + 12, h->api_version);
	put_le32(out + 16, h->fw_version);
	put_le32(out + 20, h->payload_size);
	memcpy(out + 24, h->sha256, sizeof(h->sha256));
	for (i = 0; i < 6; i++)
		put_le32(out + 56 + 4 * i, h->reserved[i]);
}

enum enpu_fw_check enpu_fw_image_check(const uint8_t *image, size_t size,
				       struct enpu_fw_header *h,
				       char *why, size_t why_size)
{
	uint8_t digest[32];
	unsigned int i;

	memset(h, 0, sizeof(*h));
	if (size < ENPU_FW_HEADER_SIZE) {
		say(why, why_size, "image is %zu bytes, smaller than the %u-byte header",
		    size, ENPU_FW_HEADER_SIZE);
		return ENPU_FW_BAD_FORMAT;
	}
	decode(image, h);
	if (h->magic != ENPU_FW_MAGIC) {
		say(why, why_size, "magic is 0x%08x, expected 0x%08x",
		    h->magic, ENPU_FW_MAGIC);
		return ENPU_FW_BAD_FORMAT;
	}
	if (h->format_version != ENPU_FW_FORMAT_VERSION) {
		say(why, why_size, "format_version is %u, expected %u",
		    h->format_version, ENPU_FW_FORMAT_VERSION);
		return ENPU_FW_BAD_FORMAT;
	}
	if (h->header_size != ENPU_FW_HEADER_SIZE) {
		say(why, why_size, "header_size is %u, expected %u",
		    h->header_size, ENPU_FW_HEADER_SIZE);
		return ENPU_FW_BAD_FORMAT;
	}
	if (h->payload_size > ENPU_FW_MAX_PAYLOAD) {
		say(why, why_size, "payload_size %u exceeds the %u-byte limit",
		    h->payload_size, ENPU_FW_MAX_PAYLOAD);
		return ENPU_FW_BAD_FORMAT;
	}
	/* Both terms are bounded above, so the sum cannot wrap. */
	if ((uint64_t)h->header_size + h->payload_size != size) {
		say(why, why_size,
		    "header_size %u + payload_size %u != image size %zu",
		    h->header_size, h->payload_size, size);
		return ENPU_FW_BAD_FORMAT;
	}
	for (i = 0; i < 6; i++) {
		if (h->reserved[i]) {
			say(why, why_size, "reserved[%u] is 0x%08x, must be 0",
			    i, h->reserved[i]);
			return ENPU_FW_BAD_FORMAT;
		}
	}
	if (enpu_fw_sha256(image + h->header_size, h->payload_size, digest)) {
		say(why, why_size, "SHA-256 computation failed in libcrypto");
		return ENPU_FW_BAD_DIGEST;
	}
	if (memcmp(digest, h->sha256, sizeof(digest))) {
		say(why, why_size, "payload SHA-256 does not match the header");
		return ENPU_FW_BAD_DIGEST;
	}
	return ENPU_FW_OK;
}

int enpu_fw_header_build(struct enpu_fw_header *h, const uint8_t *payload,
			 size_t payload_size, uint32_t api_version,
			 uint32_t fw_version, char *why, size_t why_size)
{
	memset(h, 0, sizeof(*h));
	if (payload_size > ENPU_FW_MAX_PAYLOAD) {
		say(why, why_size, "payload is %zu bytes, the limit is %u",
		    payload_size, ENPU_FW_MAX_PAYLOAD);
		return -1;
	}
	h->magic = ENPU_FW_MAGIC;
	h->format_version = ENPU_FW_FORMAT_VERSION;
	h->header_size = ENPU_FW_HEADER_SIZE;
	h->api_version = api_version;
	h->fw_version = fw_version;
	h->payload_size = (uint32_t)payload_size;
	if (enpu_fw_sha256(payload, payload_size, h->sha256)) {
		say(why, why_size, "SHA-256 computation failed in libcrypto");
		return -1;
	}
	return 0;
}
