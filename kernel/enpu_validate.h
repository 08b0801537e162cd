/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-stream validator. Plain C with no kernel dependency beyond
 * the types, errno values, offsetof() and the overflow checks below, so
 * the same file builds in userspace for unit tests and fuzzing: compile
 * enpu_validate.c with -I uapi -I kernel and without __KERNEL__
 * (tests/validate/validate.mk does).
 */
#ifndef ENPU_VALIDATE_H
#define ENPU_VALIDATE_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
/* The kernel's <linux/overflow.h> wraps the same builtins. */
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define BIT(n)				(1UL << (n))
#endif

#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"

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

/**
 * struct enpu_validate_ref - one byte range a command reads or writes
 * @cmd_offset: byte offset of the command in the stream.
 * @bo_index: the BO.
 * @start: first byte.
 * @end: one past the last byte.
 * @access: ENPU_BO_ACCESS_READ or ENPU_BO_ACCESS_WRITE (one of them).
 * @dense: every byte of the range is read or written; false for a tensor
 *	with a pixel_stride gap, whose range is only its extent.
 */
struct enpu_validate_ref {
	u32 cmd_offset;
	u32 bo_index;
	u64 start;
	u64 end;
	u32 access;
	bool dense;
};

typedef void (*enpu_validate_ref_fn)(void *priv,
				     const struct enpu_validate_ref *ref);

int enpu_validate_stream(const void *stream, u32 size,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset, u32 *rule);
int enpu_validate_stream_refs(const void *stream, u32 size,
			      const struct enpu_validate_bo *bos, u32 bo_count,
			      u32 *bad_offset, u32 *rule,
			      enpu_validate_ref_fn fn, void *priv);

#endif /* ENPU_VALIDATE_H */
