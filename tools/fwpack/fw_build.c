// SPDX-License-Identifier: GPL-2.0
/*
 * Builds firmware headers. The field offsets come from the struct itself
 * (offsetof), as in the parser, so the packer and the readers cannot place
 * a field differently.
 */
#include "fw_build.h"

#include <stdio.h>
#include <string.h>

static void put_le32(uint8_t *out, size_t offset, uint32_t v)
{
	out[offset] = (uint8_t)v;
	out[offset + 1] = (uint8_t)(v >> 8);
	out[offset + 2] = (uint8_t)(v >> 16);
	out[offset + 3] = (uint8_t)(v >> 24);
}

#define PUT_FIELD(out, h, field) \
	put_le32(out, offsetof(struct enpu_fw_header, field), (h)->field)

void enpu_fw_header_encode(const struct enpu_fw_header *h, uint8_t *out)
{
	size_t i;

	PUT_FIELD(out, h, magic);
	PUT_FIELD(out, h, format_version);
	PUT_FIELD(out, h, header_size);
	PUT_FIELD(out, h, api_version);
	PUT_FIELD(out, h, fw_version);
	PUT_FIELD(out, h, payload_size);
	memcpy(out + offsetof(struct enpu_fw_header, sha256), h->sha256,
	       sizeof(h->sha256));
	for (i = 0; i < sizeof(h->reserved) / sizeof(h->reserved[0]); i++)
		put_le32(out, offsetof(struct enpu_fw_header, reserved) + 4 * i,
			 h->reserved[i]);
}

int enpu_fw_header_build(struct enpu_fw_header *h, const uint8_t *payload,
			 size_t payload_size, uint32_t api_version,
			 uint32_t fw_version, char *why, size_t why_size)
{
	memset(h, 0, sizeof(*h));
	if (payload_size > ENPU_FW_MAX_PAYLOAD) {
		snprintf(why, why_size, "payload is %zu bytes, the limit is %u",
			 payload_size, ENPU_FW_MAX_PAYLOAD);
		return -1;
	}
	h->magic = ENPU_FW_MAGIC;
	h->format_version = ENPU_FW_FORMAT_VERSION;
	h->header_size = ENPU_FW_HEADER_SIZE;
	h->api_version = api_version;
	h->fw_version = fw_version;
	h->payload_size = (uint32_t)payload_size;
	sha256(payload, (unsigned int)payload_size, h->sha256);
	return 0;
}
