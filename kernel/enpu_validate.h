/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-stream validator. Plain C with no kernel dependency beyond
 * the types and errno values below, so the same file builds in userspace
 * for unit tests and fuzzing: compile enpu_validate.c with -I uapi
 * -I kernel and without __KERNEL__.
 */
#ifndef ENPU_VALIDATE_H
#define ENPU_VALIDATE_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#endif

/**
 * struct enpu_validate_bo - what the validator knows about one submit BO
 * @size: bytes the job may address (the size in the device's BO table).
 * @access: ENPU_BO_ACCESS_READ and/or ENPU_BO_ACCESS_WRITE, as declared
 *	by the submit.
 */
struct enpu_validate_bo {
	u64 size;
	u32 access;
};

int enpu_validate_stream(const void *stream, u32 size,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset);

#endif /* ENPU_VALIDATE_H */
