/* SPDX-License-Identifier: MIT */
/*
 * ENPU command-stream format, shared by the NPU compiler (userspace), the
 * kernel validator and the device model.
 *
 * A stream is a sequence of commands packed back to back. Each command
 * starts with struct enpu_cmd_header; @size counts the whole command,
 * header included, and is a multiple of 8, so a reader can always skip to
 * the next command. The stream ends at its last byte; there is no end
 * marker. Version 1.0 defines only NOP; the layer commands come with the
 * job-submission interface.
 */
#ifndef ENPU_CMD_H
#define ENPU_CMD_H

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define ENPU_CMD_ALIGN		8
#define ENPU_CMD_MAX_STREAM	(1u << 20)	/* bytes per job */

/**
 * enum enpu_cmd_opcode - command opcodes
 * @ENPU_CMD_NOP: does nothing for @cycles device cycles (struct enpu_cmd_nop).
 */
enum enpu_cmd_opcode {
	ENPU_CMD_NOP = 0,
};

/**
 * struct enpu_cmd_header - first 8 bytes of every command
 * @opcode: enum enpu_cmd_opcode.
 * @flags: must be zero in version 1.0.
 * @size: bytes in this command including the header, multiple of 8.
 */
struct enpu_cmd_header {
	__u16 opcode;
	__u16 flags;
	__u32 size;
};

/**
 * struct enpu_cmd_nop - burn device time without touching memory
 * @hdr: opcode ENPU_CMD_NOP, size sizeof(struct enpu_cmd_nop).
 * @cycles: device cycles to spend (0 allowed).
 * @reserved: must be zero.
 */
struct enpu_cmd_nop {
	struct enpu_cmd_header hdr;
	__u32 cycles;
	__u32 reserved;
};

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_CMD_H */
