/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ENPU firmware image format, version 1. Shared by the kernel loader, the
 * device model (which verifies the image again, as real boot ROMs do) and
 * enpu-fwpack (which builds images). Every field is untrusted input.
 *
 *   offset 0                 struct enpu_fw_header (little endian)
 *   offset header_size       payload, payload_size bytes
 *
 * sha256 covers the payload only. The header is checked field by field:
 * magic, format version, header_size == sizeof(header), header_size +
 * payload_size == file size, payload_size <= ENPU_FW_MAX_PAYLOAD, reserved
 * bytes zero.
 */
#ifndef ENPU_FW_FORMAT_H
#define ENPU_FW_FORMAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
typedef uint32_t __u32;
typedef uint8_t __u8;
#endif

#define ENPU_FW_MAGIC		0x57464e45u	/* "ENFW" */
#define ENPU_FW_FORMAT_VERSION	1
#define ENPU_FW_API_VERSION	1	/* what this driver speaks */
#define ENPU_FW_MAX_PAYLOAD	(16u << 20)

/* Names tried by request_firmware, newest API first. */
#define ENPU_FW_NAME_V1		"enpu/enpu-fw-v1.bin"

struct enpu_fw_header {
	__u32 magic;
	__u32 format_version;
	__u32 header_size;
	__u32 api_version;
	__u32 fw_version;	/* major << 16 | minor << 8 | patch */
	__u32 payload_size;
	__u8 sha256[32];
	__u32 reserved[6];
};

#endif /* ENPU_FW_FORMAT_H */
