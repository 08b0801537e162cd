// SPDX-License-Identifier: GPL-2.0
/*
 * Command-stream validator. The kernel runs it on its own copy of the
 * stream (userspace cannot change it afterwards), before the device sees
 * it; the device checks again, but a job that passed here must never fault.
 * Every rule of uapi/enpu_cmd.h is enforced: a command's header fits in the
 * stream, its size is the exact size of its opcode's struct, flags and
 * reserved fields are zero, every buffer reference lies inside its BO with
 * the access the submit declared, computed without overflow.
 *
 * The stream is little endian whatever the CPU; fields are assembled from
 * bytes so the code needs no endian or unaligned-access helpers, which
 * keeps it buildable in userspace (see enpu_validate.h).
 */
#include "enpu_cmd.h"
#include "enpu_regs.h"
#include "enpu_validate.h"

/* Byte offsets of the fields, from the uapi structs' layout. */
#define ENPU_VAL_HDR_OPCODE	0
#define ENPU_VAL_HDR_FLAGS	2
#define ENPU_VAL_HDR_SIZE	4
#define ENPU_VAL_HDR_BYTES	8

#define ENPU_VAL_REF_BO_INDEX	0
#define ENPU_VAL_REF_RESERVED	4
#define ENPU_VAL_REF_OFFSET	8

#define ENPU_VAL_NOP_RESERVED	12

#define ENPU_VAL_COPY_SRC	8
#define ENPU_VAL_COPY_DST	24
#define ENPU_VAL_COPY_SIZE	40

#define ENPU_VAL_FILL_DST	8
#define ENPU_VAL_FILL_SIZE	24
#define ENPU_VAL_FILL_VALUE	32
#define ENPU_VAL_FILL_RESERVED	36

#define ENPU_VAL_FILL_VALUE_MASK	0xffu

static u32 enpu_val_le16(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8;
}

static u32 enpu_val_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
	       (u32)p[3] << 24;
}

static u64 enpu_val_le64(const u8 *p)
{
	return (u64)enpu_val_le32(p) | (u64)enpu_val_le32(p + 4) << 32;
}

/**
 * struct enpu_val_range - a checked byte range of one BO
 * @bo_index: the BO.
 * @start: first byte.
 * @end: one past the last byte; @start < @end <= the BO's size.
 */
struct enpu_val_range {
	u32 bo_index;
	u64 start;
	u64 end;
};

/*
 * Resolves the struct enpu_buf_ref at @ref for @size bytes with @access;
 * 0 if the range is inside a BO the submit declared with that access.
 */
static int enpu_val_ref(const u8 *ref, u64 size, u32 access,
			const struct enpu_validate_bo *bos, u32 bo_count,
			struct enpu_val_range *range)
{
	u32 index = enpu_val_le32(ref + ENPU_VAL_REF_BO_INDEX);
	u64 offset = enpu_val_le64(ref + ENPU_VAL_REF_OFFSET);
	const struct enpu_validate_bo *bo;

	if (enpu_val_le32(ref + ENPU_VAL_REF_RESERVED))
		return -EINVAL;
	if (index >= bo_count)
		return -EINVAL;
	bo = &bos[index];
	if ((bo->access & access) != access)
		return -EINVAL;
	/* offset + size <= bo->size, written so that nothing can wrap. */
	if (size == 0 || size > bo->size || offset > bo->size - size)
		return -EINVAL;
	range->bo_index = index;
	range->start = offset;
	range->end = offset + size;
	return 0;
}

static int enpu_val_nop(const u8 *cmd)
{
	return enpu_val_le32(cmd + ENPU_VAL_NOP_RESERVED) ? -EINVAL : 0;
}

static int enpu_val_copy(const u8 *cmd, const struct enpu_validate_bo *bos,
			 u32 bo_count)
{
	u64 size = enpu_val_le64(cmd + ENPU_VAL_COPY_SIZE);
	struct enpu_val_range src, dst;

	if (enpu_val_ref(cmd + ENPU_VAL_COPY_SRC, size, ENPU_BO_ACCESS_READ,
			 bos, bo_count, &src))
		return -EINVAL;
	if (enpu_val_ref(cmd + ENPU_VAL_COPY_DST, size, ENPU_BO_ACCESS_WRITE,
			 bos, bo_count, &dst))
		return -EINVAL;
	if (src.bo_index == dst.bo_index && src.start < dst.end &&
	    dst.start < src.end)
		return -EINVAL;
	return 0;
}

static int enpu_val_fill(const u8 *cmd, const struct enpu_validate_bo *bos,
			 u32 bo_count)
{
	u64 size = enpu_val_le64(cmd + ENPU_VAL_FILL_SIZE);
	struct enpu_val_range dst;

	if (enpu_val_le32(cmd + ENPU_VAL_FILL_VALUE) &
	    ~ENPU_VAL_FILL_VALUE_MASK)
		return -EINVAL;
	if (enpu_val_le32(cmd + ENPU_VAL_FILL_RESERVED))
		return -EINVAL;
	return enpu_val_ref(cmd + ENPU_VAL_FILL_DST, size,
			    ENPU_BO_ACCESS_WRITE, bos, bo_count, &dst);
}

/* Checks one command whose header and declared size fit the stream. */
static int enpu_val_command(const u8 *cmd, u32 opcode, u32 size,
			    const struct enpu_validate_bo *bos, u32 bo_count)
{
	switch (opcode) {
	case ENPU_CMD_NOP:
		if (size != sizeof(struct enpu_cmd_nop))
			return -EINVAL;
		return enpu_val_nop(cmd);
	case ENPU_CMD_DMA_COPY:
		if (size != sizeof(struct enpu_cmd_dma_copy))
			return -EINVAL;
		return enpu_val_copy(cmd, bos, bo_count);
	case ENPU_CMD_DMA_FILL:
		if (size != sizeof(struct enpu_cmd_dma_fill))
			return -EINVAL;
		return enpu_val_fill(cmd, bos, bo_count);
	default:
		return -EINVAL;
	}
}

/**
 * enpu_validate_stream() - check a whole command stream
 * @stream: the stream; the caller's private copy, never user memory.
 * @size: its length in bytes; a multiple of ENPU_CMD_ALIGN (0 is a valid,
 *	empty stream).
 * @bos: the submit's BOs, in submit order.
 * @bo_count: entries in @bos.
 * @bad_offset: set to the byte offset of the first bad command on failure
 *	(@size if the stream length itself is wrong).
 *
 * Return: 0 if every command is valid, -EINVAL otherwise.
 */
int enpu_validate_stream(const void *stream, u32 size,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset)
{
	const u8 *base = stream;
	u32 offset = 0;

	if (size % ENPU_CMD_ALIGN) {
		*bad_offset = size;
		return -EINVAL;
	}
	while (offset < size) {
		const u8 *cmd = base + offset;
		u32 opcode, flags, cmd_size;

		/* size - offset >= 8 here: both are multiples of 8. */
		opcode = enpu_val_le16(cmd + ENPU_VAL_HDR_OPCODE);
		flags = enpu_val_le16(cmd + ENPU_VAL_HDR_FLAGS);
		cmd_size = enpu_val_le32(cmd + ENPU_VAL_HDR_SIZE);
		if (flags || cmd_size < ENPU_VAL_HDR_BYTES ||
		    cmd_size % ENPU_CMD_ALIGN || cmd_size > size - offset ||
		    enpu_val_command(cmd, opcode, cmd_size, bos, bo_count)) {
			*bad_offset = offset;
			return -EINVAL;
		}
		offset += cmd_size;
	}
	return 0;
}
