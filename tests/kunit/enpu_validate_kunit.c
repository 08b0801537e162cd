// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the command-stream validator (kernel/enpu_validate.c) in
 * its kernel build: the kernel's overflow helpers and types instead of the
 * userspace shim, compiled with the kernel's flags. One rule per case, each
 * from both sides of its boundary where it has one, asserting the errno,
 * the offset of the command blamed and the rule named (tests/validate
 * covers every layer rule in userspace; this suite checks that the kernel
 * build agrees on the stream structure, buffer references and a layer).
 *
 * Streams are encoded here byte by byte at offsetof() the uapi structs,
 * independently of libenpu's command builder.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "enpu_cmd.h"
#include "enpu_regs.h"
#include "enpu_validate.h"

#define VAL_STREAM_MAX	1024

/**
 * struct val_case - a stream under construction and its BOs
 * @stream: the encoded commands.
 * @size: bytes used.
 * @bos: the submit's BOs.
 * @bo_count: entries in @bos.
 */
struct val_case {
	u8 stream[VAL_STREAM_MAX];
	u32 size;
	struct enpu_validate_bo bos[4];
	u32 bo_count;
};

static void put16(u8 *p, u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(u8 *p, u32 v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(u8 *p, u64 v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

#define SET32(cmd, type, field, v)	put32((cmd) + offsetof(type, field), v)
#define SET64(cmd, type, field, v)	put64((cmd) + offsetof(type, field), v)

/* Appends a zeroed command of @size bytes; returns it. */
static u8 *val_add(struct val_case *c, u16 opcode, u32 size)
{
	u8 *cmd = c->stream + c->size;

	memset(cmd, 0, size);
	put16(cmd + offsetof(struct enpu_cmd_header, opcode), opcode);
	put32(cmd + offsetof(struct enpu_cmd_header, size), size);
	c->size += size;
	return cmd;
}

static void val_ref(u8 *ref, u32 bo_index, u64 offset)
{
	put32(ref + offsetof(struct enpu_buf_ref, bo_index), bo_index);
	put64(ref + offsetof(struct enpu_buf_ref, offset), offset);
}

static u8 *val_nop(struct val_case *c)
{
	return val_add(c, ENPU_CMD_NOP, sizeof(struct enpu_cmd_nop));
}

/* A DMA_FILL of @size bytes at @offset of BO @bo. */
static u8 *val_fill(struct val_case *c, u32 bo, u64 offset, u64 size)
{
	u8 *cmd = val_add(c, ENPU_CMD_DMA_FILL, sizeof(struct enpu_cmd_dma_fill));

	val_ref(cmd + offsetof(struct enpu_cmd_dma_fill, dst), bo, offset);
	SET64(cmd, struct enpu_cmd_dma_fill, size, size);
	SET32(cmd, struct enpu_cmd_dma_fill, value, 0x5a);
	return cmd;
}

static u8 *val_copy(struct val_case *c, u32 src_bo, u64 src, u32 dst_bo,
		    u64 dst, u64 size)
{
	u8 *cmd = val_add(c, ENPU_CMD_DMA_COPY, sizeof(struct enpu_cmd_dma_copy));

	val_ref(cmd + offsetof(struct enpu_cmd_dma_copy, src), src_bo, src);
	val_ref(cmd + offsetof(struct enpu_cmd_dma_copy, dst), dst_bo, dst);
	SET64(cmd, struct enpu_cmd_dma_copy, size, size);
	return cmd;
}

/* BO 0: 4096 bytes read/write; BO 1: 4096 read-only; BO 2: 64 write-only. */
static struct val_case *val_new(struct kunit *test)
{
	struct val_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->bos[0] = (struct enpu_validate_bo){ 4096, ENPU_BO_ACCESS_READ |
					       ENPU_BO_ACCESS_WRITE };
	c->bos[1] = (struct enpu_validate_bo){ 4096, ENPU_BO_ACCESS_READ };
	c->bos[2] = (struct enpu_validate_bo){ 64, ENPU_BO_ACCESS_WRITE };
	c->bo_count = 3;
	return c;
}

/*
 * Validates @c; expects acceptance (@rule ENPU_RULE_NONE), or -EINVAL at
 * @offset for @rule.
 */
static void val_expect(struct kunit *test, struct val_case *c,
		       u32 offset, u32 rule)
{
	u32 bad = 0xdeadbeef, got = ENPU_RULE_COUNT;
	int ret;

	ret = enpu_validate_stream(c->stream, c->size, c->bos, c->bo_count,
				   &bad, &got);
	if (rule == ENPU_RULE_NONE) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rejected at %u: rule %s",
				    bad, enpu_cmd_rule_name(got));
		KUNIT_EXPECT_EQ(test, got, (u32)ENPU_RULE_NONE);
		return;
	}
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, bad, offset);
	KUNIT_EXPECT_EQ_MSG(test, got, rule, "rule %s, expected %s",
			    enpu_cmd_rule_name(got), enpu_cmd_rule_name(rule));
}

static void empty_stream_is_valid(struct kunit *test)
{
	val_expect(test, val_new(test), 0, ENPU_RULE_NONE);
}

static void stream_length_must_be_a_multiple_of_8(struct kunit *test)
{
	struct val_case *c = val_new(test);

	val_nop(c);
	c->size -= 4;
	val_expect(test, c, c->size, ENPU_RULE_STREAM_SIZE);
}

static void nop_reserved_must_be_zero(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *nop = val_nop(c);

	SET32(nop, struct enpu_cmd_nop, cycles, 0xffffffff);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	SET32(nop, struct enpu_cmd_nop, reserved, 1);
	val_expect(test, c, 0, ENPU_RULE_NOP_RESERVED);
}

static void header_flags_must_be_zero(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *nop;

	val_nop(c);
	nop = val_nop(c);
	put16(nop + offsetof(struct enpu_cmd_header, flags), 0x8000);
	val_expect(test, c, sizeof(struct enpu_cmd_nop), ENPU_RULE_HEADER_FLAGS);
}

static void command_size_rules(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *nop = val_nop(c);

	put32(nop + offsetof(struct enpu_cmd_header, size), 0);
	val_expect(test, c, 0, ENPU_RULE_HEADER_SIZE);
	put32(nop + offsetof(struct enpu_cmd_header, size), 12);
	val_expect(test, c, 0, ENPU_RULE_HEADER_SIZE);
	put32(nop + offsetof(struct enpu_cmd_header, size), 24);
	val_expect(test, c, 0, ENPU_RULE_PAST_STREAM_END);
	put32(nop + offsetof(struct enpu_cmd_header, size), 0xfffffff8);
	val_expect(test, c, 0, ENPU_RULE_PAST_STREAM_END);
	/* Inside the stream, but not the NOP struct's size. */
	val_nop(c);
	put32(nop + offsetof(struct enpu_cmd_header, size), 32);
	val_expect(test, c, 0, ENPU_RULE_COMMAND_SIZE);
}

static void unknown_opcodes_are_refused(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_add(c, ENPU_CMD_DEQUANTIZE + 1, 16);

	val_expect(test, c, 0, ENPU_RULE_OPCODE);
	put16(cmd + offsetof(struct enpu_cmd_header, opcode), 0xffff);
	val_expect(test, c, 0, ENPU_RULE_OPCODE);
}

static void the_first_bad_command_is_blamed(struct kunit *test)
{
	struct val_case *c = val_new(test);

	val_nop(c);
	val_fill(c, 0, 0, 16);
	val_fill(c, 7, 0, 16);
	val_fill(c, 8, 0, 16);
	val_expect(test, c, sizeof(struct enpu_cmd_nop) +
		   sizeof(struct enpu_cmd_dma_fill),
		   ENPU_RULE_REF_BO_INDEX);
}

static void fill_value_is_one_byte(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_fill(c, 0, 0, 16);

	SET32(cmd, struct enpu_cmd_dma_fill, value, 0xff);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	SET32(cmd, struct enpu_cmd_dma_fill, value, 0x100);
	val_expect(test, c, 0, ENPU_RULE_FILL_VALUE);
}

static void fill_reserved_must_be_zero(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_fill(c, 0, 0, 16);

	SET32(cmd, struct enpu_cmd_dma_fill, reserved, 1);
	val_expect(test, c, 0, ENPU_RULE_FILL_RESERVED);
}

static void buffer_reference_rules(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_fill(c, 2, 0, 64);
	u8 *ref = cmd + offsetof(struct enpu_cmd_dma_fill, dst);

	val_expect(test, c, 0, ENPU_RULE_NONE);
	put32(ref + offsetof(struct enpu_buf_ref, reserved), 1);
	val_expect(test, c, 0, ENPU_RULE_REF_RESERVED);
	put32(ref + offsetof(struct enpu_buf_ref, reserved), 0);
	val_ref(ref, 2, 1);
	val_expect(test, c, 0, ENPU_RULE_REF_RANGE);
	val_ref(ref, 3, 0);
	val_expect(test, c, 0, ENPU_RULE_REF_BO_INDEX);
	val_ref(ref, 1, 0);
	val_expect(test, c, 0, ENPU_RULE_REF_WRITE_ACCESS);
	val_ref(ref, 2, 0);
	SET64(cmd, struct enpu_cmd_dma_fill, size, 0);
	val_expect(test, c, 0, ENPU_RULE_REF_EMPTY);
}

/* offset + size must not wrap to pass the bounds check. */
static void buffer_ranges_cannot_wrap(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_fill(c, 0, U64_MAX, 2);

	val_expect(test, c, 0, ENPU_RULE_REF_RANGE);
	val_ref(cmd + offsetof(struct enpu_cmd_dma_fill, dst), 0, 1);
	SET64(cmd, struct enpu_cmd_dma_fill, size, U64_MAX);
	val_expect(test, c, 0, ENPU_RULE_REF_RANGE);
	SET64(cmd, struct enpu_cmd_dma_fill, size, 4095);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	SET64(cmd, struct enpu_cmd_dma_fill, size, 4096);
	val_expect(test, c, 0, ENPU_RULE_REF_RANGE);
}

static void copy_access_and_overlap(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_copy(c, 1, 0, 0, 0, 4096);
	u8 *src = cmd + offsetof(struct enpu_cmd_dma_copy, src);
	u8 *dst = cmd + offsetof(struct enpu_cmd_dma_copy, dst);

	val_expect(test, c, 0, ENPU_RULE_NONE);
	val_ref(src, 2, 0);
	SET64(cmd, struct enpu_cmd_dma_copy, size, 16);
	val_expect(test, c, 0, ENPU_RULE_REF_READ_ACCESS);
	/* Same BO: touching ranges pass, one shared byte does not. */
	val_ref(src, 0, 0);
	val_ref(dst, 0, 16);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	val_ref(dst, 0, 15);
	val_expect(test, c, 0, ENPU_RULE_DMA_OVERLAP);
	val_ref(dst, 0, 0);
	val_expect(test, c, 0, ENPU_RULE_DMA_OVERLAP);
}

/*
 * CONV2D: input 1x4x4x2 uint8 in BO 1, weights 3x2x3x3 in BO 1 at 256,
 * output 1x2x2x3 uint8 in BO 0, 3x3 kernel, stride 1, no padding,
 * per-tensor requantization.
 */
static u8 *val_conv(struct val_case *c)
{
	u8 *cmd = val_add(c, ENPU_CMD_CONV2D, sizeof(struct enpu_cmd_conv2d));
	u8 *in = cmd + offsetof(struct enpu_cmd_conv2d, input);
	u8 *out = cmd + offsetof(struct enpu_cmd_conv2d, output);
	u8 *rq = cmd + offsetof(struct enpu_cmd_conv2d, requant);

	val_ref(in + offsetof(struct enpu_tensor_desc, buf), 1, 0);
	SET32(in, struct enpu_tensor_desc, batch, 1);
	SET32(in, struct enpu_tensor_desc, height, 4);
	SET32(in, struct enpu_tensor_desc, width, 4);
	SET32(in, struct enpu_tensor_desc, channels, 2);
	val_ref(out + offsetof(struct enpu_tensor_desc, buf), 0, 0);
	SET32(out, struct enpu_tensor_desc, batch, 1);
	SET32(out, struct enpu_tensor_desc, height, 2);
	SET32(out, struct enpu_tensor_desc, width, 2);
	SET32(out, struct enpu_tensor_desc, channels, 3);
	val_ref(cmd + offsetof(struct enpu_cmd_conv2d, weights), 1, 256);
	val_ref(cmd + offsetof(struct enpu_cmd_conv2d, bias), ENPU_BUF_NONE, 0);
	val_ref(rq + offsetof(struct enpu_requant_desc, per_channel),
		ENPU_BUF_NONE, 0);
	SET32(rq, struct enpu_requant_desc, multiplier, 1u << 30);
	SET32(rq, struct enpu_requant_desc, shift, 31);
	SET32(rq, struct enpu_requant_desc, min, 0);
	SET32(rq, struct enpu_requant_desc, max, 255);
	SET32(cmd, struct enpu_cmd_conv2d, kernel_height, 3);
	SET32(cmd, struct enpu_cmd_conv2d, kernel_width, 3);
	SET32(cmd, struct enpu_cmd_conv2d, stride_height, 1);
	SET32(cmd, struct enpu_cmd_conv2d, stride_width, 1);
	SET32(cmd, struct enpu_cmd_conv2d, dilation_height, 1);
	SET32(cmd, struct enpu_cmd_conv2d, dilation_width, 1);
	SET32(cmd, struct enpu_cmd_conv2d, groups, 1);
	return cmd;
}

static void conv_valid_layer_passes(struct kunit *test)
{
	struct val_case *c = val_new(test);

	val_nop(c);
	val_conv(c);
	val_expect(test, c, 0, ENPU_RULE_NONE);
}

static void conv_kernel_limits(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_conv(c);

	SET32(cmd, struct enpu_cmd_conv2d, kernel_height, 0);
	val_expect(test, c, 0, ENPU_RULE_CONV_KERNEL);
	/* The maximum passes the kernel rule; the next rule then sees the window. */
	SET32(cmd, struct enpu_cmd_conv2d, kernel_height, ENPU_CONV_KERNEL_MAX);
	val_expect(test, c, 0, ENPU_RULE_WINDOW);
	SET32(cmd, struct enpu_cmd_conv2d, kernel_height,
	      ENPU_CONV_KERNEL_MAX + 1);
	val_expect(test, c, 0, ENPU_RULE_CONV_KERNEL);
}

static void conv_output_shape_is_computed(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_conv(c);
	u8 *out = cmd + offsetof(struct enpu_cmd_conv2d, output);

	SET32(out, struct enpu_tensor_desc, height, 3);
	val_expect(test, c, 0, ENPU_RULE_CONV_OUTPUT_SIZE);
	SET32(out, struct enpu_tensor_desc, height, 1);
	val_expect(test, c, 0, ENPU_RULE_CONV_OUTPUT_SIZE);
}

static void conv_weights_must_fit(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_conv(c);
	u8 *weights = cmd + offsetof(struct enpu_cmd_conv2d, weights);

	/* 3 * 2 * 3 * 3 = 54 bytes: the last start that fits, then one past. */
	val_ref(weights, 1, 4096 - 54);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	val_ref(weights, 1, 4096 - 53);
	val_expect(test, c, 0, ENPU_RULE_REF_RANGE);
}

static void conv_requant_shift_range(struct kunit *test)
{
	struct val_case *c = val_new(test);
	u8 *cmd = val_conv(c);
	u8 *rq = cmd + offsetof(struct enpu_cmd_conv2d, requant);

	SET32(rq, struct enpu_requant_desc, shift, ENPU_REQUANT_SHIFT_MAX);
	val_expect(test, c, 0, ENPU_RULE_NONE);
	SET32(rq, struct enpu_requant_desc, shift, ENPU_REQUANT_SHIFT_MAX + 1);
	val_expect(test, c, 0, ENPU_RULE_REQUANT_SHIFT);
	SET32(rq, struct enpu_requant_desc, shift, ENPU_REQUANT_SHIFT_MIN - 1);
	val_expect(test, c, 0, ENPU_RULE_REQUANT_SHIFT);
}

static struct kunit_case enpu_validate_test_cases[] = {
	KUNIT_CASE(empty_stream_is_valid),
	KUNIT_CASE(stream_length_must_be_a_multiple_of_8),
	KUNIT_CASE(nop_reserved_must_be_zero),
	KUNIT_CASE(header_flags_must_be_zero),
	KUNIT_CASE(command_size_rules),
	KUNIT_CASE(unknown_opcodes_are_refused),
	KUNIT_CASE(the_first_bad_command_is_blamed),
	KUNIT_CASE(fill_value_is_one_byte),
	KUNIT_CASE(fill_reserved_must_be_zero),
	KUNIT_CASE(buffer_reference_rules),
	KUNIT_CASE(buffer_ranges_cannot_wrap),
	KUNIT_CASE(copy_access_and_overlap),
	KUNIT_CASE(conv_valid_layer_passes),
	KUNIT_CASE(conv_kernel_limits),
	KUNIT_CASE(conv_output_shape_is_computed),
	KUNIT_CASE(conv_weights_must_fit),
	KUNIT_CASE(conv_requant_shift_range),
	{}
};

static struct kunit_suite enpu_validate_test_suite = {
	.name = "enpu_validate",
	.test_cases = enpu_validate_test_cases,
};

kunit_test_suite(enpu_validate_test_suite);
