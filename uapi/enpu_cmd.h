/* SPDX-License-Identifier: MIT */
/*
 * ENPU command-stream format, shared by the NPU compiler (userspace), the
 * kernel validator and the device model.
 *
 * A stream is a sequence of commands packed back to back. Each command
 * starts with struct enpu_cmd_header; @size counts the whole command,
 * header included, and is a multiple of 8, so a reader can always skip to
 * the next command. The stream ends at its last byte; there is no end
 * marker. Version 1.1 defines NOP and the DMA commands; the network-layer
 * commands come next.
 *
 * Memory is never named by address: a struct enpu_buf_ref names a BO by its
 * index in the submit's BO list plus a byte offset. The kernel checks every
 * reference against the BO's size and the access the submit declared, then
 * gives the device a scatter-gather table per BO (docs/hw/vnpu.md).
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
 * @ENPU_CMD_DMA_COPY: copies bytes between BOs (struct enpu_cmd_dma_copy).
 * @ENPU_CMD_DMA_FILL: fills bytes of a BO (struct enpu_cmd_dma_fill).
 */
enum enpu_cmd_opcode {
	ENPU_CMD_NOP = 0,
	ENPU_CMD_DMA_COPY = 1,
	ENPU_CMD_DMA_FILL = 2,
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

/**
 * struct enpu_buf_ref - a byte range's start inside a BO of the submit
 * @bo_index: index into the submit's BO list.
 * @reserved: must be zero.
 * @offset: byte offset inside that BO.
 */
struct enpu_buf_ref {
	__u32 bo_index;
	__u32 reserved;
	__u64 offset;
};

/**
 * struct enpu_cmd_dma_copy - device copy of @size bytes from @src to @dst
 * @hdr: opcode ENPU_CMD_DMA_COPY, size sizeof(struct enpu_cmd_dma_copy).
 * @src: source; its BO must be submitted with READ access.
 * @dst: destination; its BO must be submitted with WRITE access.
 * @size: bytes, non-zero; both ranges must lie inside their BOs. Ranges in
 *        the same BO must not overlap.
 */
struct enpu_cmd_dma_copy {
	struct enpu_cmd_header hdr;
	struct enpu_buf_ref src;
	struct enpu_buf_ref dst;
	__u64 size;
};

/**
 * struct enpu_cmd_dma_fill - device fill of @size bytes at @dst
 * @hdr: opcode ENPU_CMD_DMA_FILL, size sizeof(struct enpu_cmd_dma_fill).
 * @dst: destination; its BO must be submitted with WRITE access.
 * @size: bytes, non-zero, inside the BO.
 * @value: the byte to store, in bits 0-7; bits 8-31 must be zero.
 * @reserved: must be zero.
 */
struct enpu_cmd_dma_fill {
	struct enpu_cmd_header hdr;
	struct enpu_buf_ref dst;
	__u64 size;
	__u32 value;
	__u32 reserved;
};

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_CMD_H */
