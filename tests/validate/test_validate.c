// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the command-stream validator (kernel/enpu_validate.c,
 * compiled for userspace). Each test starts from a command the validator
 * must accept, changes one field so that exactly one rule of
 * uapi/enpu_cmd.h is broken, and expects -EINVAL at that command's offset.
 * Commands are filled through the uapi structs; the host is little endian,
 * which is the stream's byte order.
 *
 *   test-validate [--write-corpus DIR]
 *
 * Ends with "N passed, N failed". --write-corpus also writes the seed
 * inputs (validate_fuzz.h format) for the libFuzzer target.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "enpu_regs.h"
#include "enpu_validate.h"
#include "validate_fuzz.h"

#define R ENPU_BO_ACCESS_READ
#define W ENPU_BO_ACCESS_WRITE
#define BIG (1ull << 20)

/* BOs: 0 input (R), 1 output (W), 2 weights (R), 3 bias/tables (R), 4 RW. */
static const struct enpu_validate_bo default_bos[] = {
	{ BIG, R }, { BIG, W }, { BIG, R }, { BIG, R }, { BIG, R | W },
};

static int failures, checks_in_test;
static const char *current_test;

struct result {
	int ret;
	uint32_t bad;
	const char *reason;
};

static struct result run(const void *stream, uint32_t size,
			 const struct enpu_validate_bo *bos, uint32_t count)
{
	struct result r = { .bad = UINT32_MAX, .reason = NULL };

	r.ret = enpu_validate_stream(stream, size, bos, count, &r.bad,
				     &r.reason);
	return r;
}

#define run_default(cmd) \
	run(&(cmd), sizeof(cmd), default_bos, 5)

static void expect(int line, struct result r, int want_ret, uint32_t want_bad)
{
	checks_in_test++;
	if (r.ret == want_ret && (want_ret == 0 || r.bad == want_bad))
		return;
	failures++;
	fprintf(stderr, "  %s line %d: got %d at %u (%s), want %d at %u\n",
		current_test, line, r.ret, r.bad, r.reason ? r.reason : "-",
		want_ret, want_bad);
}

#define ACCEPT(r)	expect(__LINE__, (r), 0, 0)
#define REJECT(r)	expect(__LINE__, (r), -EINVAL, 0)
#define REJECT_AT(r, off)	expect(__LINE__, (r), -EINVAL, (off))

static void hdr(struct enpu_cmd_header *h, uint16_t opcode, uint32_t size)
{
	h->opcode = opcode;
	h->flags = 0;
	h->size = size;
}

static void tensor(struct enpu_tensor_desc *t, uint32_t bo, uint32_t n,
		   uint32_t h, uint32_t w, uint32_t c, uint8_t dtype)
{
	memset(t, 0, sizeof(*t));
	t->buf.bo_index = bo;
	t->batch = n;
	t->height = h;
	t->width = w;
	t->channels = c;
	t->dtype = dtype;
}

static void none(struct enpu_buf_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	ref->bo_index = ENPU_BUF_NONE;
}

static void requant_tensor(struct enpu_requant_desc *rq, int32_t lo,
			   int32_t hi)
{
	none(&rq->per_channel);
	rq->multiplier = 1 << 30;
	rq->shift = 40;
	rq->min = lo;
	rq->max = hi;
}

/* 1x8x8x4 uint8 -> 3x3, stride 1, pad 1 -> 1x8x8x8 uint8. */
static struct enpu_cmd_conv2d conv_valid(void)
{
	struct enpu_cmd_conv2d c;

	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_CONV2D, sizeof(c));
	tensor(&c.input, 0, 1, 8, 8, 4, ENPU_DTYPE_UINT8);
	c.input.zero_point = 128;
	tensor(&c.output, 1, 1, 8, 8, 8, ENPU_DTYPE_UINT8);
	c.weights.bo_index = 2;
	c.bias.bo_index = 3;
	requant_tensor(&c.requant, 0, 255);
	c.kernel_height = c.kernel_width = 3;
	c.stride_height = c.stride_width = 1;
	c.dilation_height = c.dilation_width = 1;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 1;
	c.groups = 1;
	return c;
}

static struct enpu_cmd_conv2d dw_valid(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D;
	c.input.channels = c.output.channels = c.groups = 4;
	return c;
}

/* 3 rows of K=16 int8 -> N=5. */
static struct enpu_cmd_fc fc_valid(void)
{
	struct enpu_cmd_fc f;

	memset(&f, 0, sizeof(f));
	hdr(&f.hdr, ENPU_CMD_FULLY_CONNECTED, sizeof(f));
	tensor(&f.input, 0, 1, 1, 3, 16, ENPU_DTYPE_INT8);
	tensor(&f.output, 1, 1, 1, 3, 5, ENPU_DTYPE_INT8);
	f.weights.bo_index = 2;
	none(&f.bias);
	requant_tensor(&f.requant, -128, 127);
	return f;
}

static struct enpu_cmd_eltwise add_valid(void)
{
	struct enpu_cmd_eltwise e;

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, ENPU_CMD_ADD, sizeof(e));
	tensor(&e.a, 0, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	tensor(&e.b, 3, 1, 1, 1, 8, ENPU_DTYPE_INT8);
	tensor(&e.output, 1, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	e.a_multiplier = 1 << 20;
	e.b_multiplier = 12345;
	e.add_shift = 20;
	e.min = -128;
	e.max = 127;
	return e;
}

static struct enpu_cmd_eltwise mul_valid(void)
{
	struct enpu_cmd_eltwise e = add_valid();

	e.hdr.opcode = ENPU_CMD_MUL;
	e.a_multiplier = e.b_multiplier = e.add_shift = 0;
	e.left_shift = 3;
	e.multiplier = 0x7fffffff;
	e.shift = 62;
	return e;
}

/* 1x9x9x3 uint8, 3x3 stride 2, no pad -> 1x4x4x3. */
static struct enpu_cmd_pool pool_valid(uint16_t opcode)
{
	struct enpu_cmd_pool p;

	memset(&p, 0, sizeof(p));
	hdr(&p.hdr, opcode, sizeof(p));
	tensor(&p.input, 0, 1, 9, 9, 3, ENPU_DTYPE_UINT8);
	tensor(&p.output, 1, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	none(&p.params);
	p.kernel_height = p.kernel_width = 3;
	p.stride_height = p.stride_width = 2;
	p.dilation_height = p.dilation_width = 1;
	p.min = 0;
	p.max = 255;
	if (opcode == ENPU_CMD_AVG_POOL) {
		p.multiplier = 1 << 30;
		p.shift = 33;
		p.left_shift = 0;
		p.min = 10;
	}
	return p;
}

static struct enpu_cmd_copy copy_valid(void)
{
	struct enpu_cmd_copy c;

	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_COPY, sizeof(c));
	tensor(&c.input, 0, 1, 4, 4, 3, ENPU_DTYPE_INT32);
	tensor(&c.output, 1, 1, 4, 4, 3, ENPU_DTYPE_INT32);
	c.output.pixel_stride = 6;	/* a channel slice of a wider tensor */
	return c;
}

/* ---- stream and header ---- */

static void test_stream_framing(void)
{
	struct enpu_cmd_nop nops[3] = { 0 };
	uint8_t raw[16] = { 0 };

	for (int i = 0; i < 3; i++)
		hdr(&nops[i].hdr, ENPU_CMD_NOP, sizeof(nops[i]));
	ACCEPT(run(NULL, 0, NULL, 0));
	ACCEPT(run(nops, sizeof(nops), NULL, 0));
	REJECT_AT(run(nops, 12, NULL, 0), 12);
	nops[1].hdr.flags = 1;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 16);
	nops[1].hdr.flags = 0;
	nops[2].hdr.size = 24;		/* past the end */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32);
	nops[2].hdr.size = 4;		/* below the header */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32);
	nops[2].hdr.size = 0;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32);
	nops[2].hdr.size = 12;		/* not a multiple of 8 */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32);
	nops[2].hdr.size = 16;
	nops[0].hdr.opcode = 11;	/* unknown */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 0);
	nops[0].hdr.opcode = 0xffff;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 0);
	/* A NOP with a size that fits the stream but not its struct. */
	hdr((struct enpu_cmd_header *)raw, ENPU_CMD_NOP, 8);
	REJECT_AT(run(raw, 8, NULL, 0), 0);
}

static void test_nop(void)
{
	struct enpu_cmd_nop nop = { .cycles = 0xffffffff };

	hdr(&nop.hdr, ENPU_CMD_NOP, sizeof(nop));
	ACCEPT(run(&nop, sizeof(nop), NULL, 0));
	nop.reserved = 1;
	REJECT(run(&nop, sizeof(nop), NULL, 0));
}

/* ---- DMA commands and buffer references ---- */

static void test_dma_copy(void)
{
	struct enpu_cmd_dma_copy c, base;

	memset(&base, 0, sizeof(base));
	hdr(&base.hdr, ENPU_CMD_DMA_COPY, sizeof(base));
	base.src.bo_index = 0;
	base.dst.bo_index = 1;
	base.size = BIG;
	c = base;
	ACCEPT(run_default(c));
	c.size = 0;
	REJECT(run_default(c));
	c = base;
	c.src.offset = 1;		/* one byte past the BO */
	REJECT(run_default(c));
	c = base;
	c.src.offset = UINT64_MAX;	/* offset + size wraps */
	c.size = 2;
	REJECT(run_default(c));
	c = base;
	c.size = UINT64_MAX;
	REJECT(run_default(c));
	c = base;
	c.src.bo_index = 5;		/* past the list */
	REJECT(run_default(c));
	c = base;
	c.dst.reserved = 1;
	REJECT(run_default(c));
	c = base;
	c.src.bo_index = 1;		/* read from a WRITE-only BO */
	c.dst.bo_index = 4;
	REJECT(run_default(c));
	c = base;
	c.dst.bo_index = 2;		/* write to a READ-only BO */
	REJECT(run_default(c));
	/* Same BO: overlapping is invalid, adjacent is fine. */
	c = base;
	c.src.bo_index = c.dst.bo_index = 4;
	c.size = 100;
	c.dst.offset = 99;
	REJECT(run_default(c));
	c.dst.offset = 100;
	ACCEPT(run_default(c));
}

static void test_dma_fill(void)
{
	struct enpu_cmd_dma_fill f;

	memset(&f, 0, sizeof(f));
	hdr(&f.hdr, ENPU_CMD_DMA_FILL, sizeof(f));
	f.dst.bo_index = 1;
	f.size = 10;
	f.value = 0xff;
	ACCEPT(run_default(f));
	f.value = 0x100;
	REJECT(run_default(f));
	f.value = 0;
	f.reserved = 1;
	REJECT(run_default(f));
	f.reserved = 0;
	f.dst.bo_index = 0;
	REJECT(run_default(f));
}

/* ---- tensors (through CONV2D) ---- */

static void test_tensor_fields(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	ACCEPT(run_default(c));
	c.input.reserved0[1] = 1;
	REJECT(run_default(c));
	c = conv_valid();
	c.output.reserved1 = 1;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.batch = 0;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.pixel_stride = 3;	/* below C = 4 */
	REJECT(run_default(c));
	c.input.pixel_stride = 4;
	ACCEPT(run_default(c));
	c.input.pixel_stride = 7;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.input.dtype = 3;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.zero_point = 256;
	REJECT(run_default(c));
	c.input.zero_point = -1;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.dtype = ENPU_DTYPE_INT8;
	c.input.zero_point = -128;
	ACCEPT(run_default(c));
	c.input.zero_point = 128;
	REJECT(run_default(c));
	c.input.zero_point = -129;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.dtype = ENPU_DTYPE_INT32;	/* inputs are 8-bit */
	c.input.zero_point = 0;
	REJECT(run_default(c));
}

static void test_tensor_extent(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_conv2d c = conv_valid();
	/* Input 1x8x8x4 = 256 bytes; output 1x8x8x8 = 512 bytes. */

	memcpy(bos, default_bos, sizeof(bos));
	bos[0].size = 256;
	bos[1].size = 512;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	c.input.buf.offset = 1;
	REJECT(run(&c, sizeof(c), bos, 5));
	c = conv_valid();
	/* With pixel_stride 6 the last pixel ends at 63 * 6 + 4 = 382. */
	c.input.pixel_stride = 6;
	bos[0].size = 382;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[0].size = 381;
	REJECT(run(&c, sizeof(c), bos, 5));
	/* INT32 outputs take 4 bytes per element. */
	c = conv_valid();
	c.output.dtype = ENPU_DTYPE_INT32;
	memset(&c.requant, 0, sizeof(c.requant));
	c.requant.per_channel.bo_index = ENPU_BUF_NONE;
	bos[0].size = 256;
	bos[1].size = 2048;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[1].size = 2047;
	REJECT(run(&c, sizeof(c), bos, 5));
	/* Shape products that overflow u64. */
	c = conv_valid();
	c.input.batch = c.output.batch = 0xffffffff;
	c.input.height = 0xffffffff;
	c.input.width = 0xffffffff;
	c.input.pixel_stride = 0xffffffff;
	REJECT(run_default(c));
	/* Output in a READ-only BO, input in a WRITE-only one. */
	c = conv_valid();
	c.output.buf.bo_index = 0;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.buf.bo_index = 1;
	REJECT(run_default(c));
	c = conv_valid();
	c.input.buf.bo_index = ENPU_BUF_NONE;	/* not optional */
	REJECT(run_default(c));
}

/* ---- CONV2D / DEPTHWISE_CONV2D ---- */

static void test_conv_ranges(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.kernel_height = 0;
	REJECT(run_default(c));
	c = conv_valid();
	c.kernel_width = 256;
	REJECT(run_default(c));
	c = conv_valid();
	c.stride_height = 0;
	REJECT(run_default(c));
	c = conv_valid();
	c.stride_width = 256;
	REJECT(run_default(c));
	c = conv_valid();
	c.dilation_height = 0;
	REJECT(run_default(c));
	c = conv_valid();
	c.dilation_width = 256;
	REJECT(run_default(c));
	c = conv_valid();
	c.pad_right = 256;
	REJECT(run_default(c));
	c = conv_valid();
	c.reserved = 1;
	REJECT(run_default(c));
	c = conv_valid();
	c.hdr.size += 8;
	REJECT(run(&c, sizeof(c), default_bos, 5));
}

static void test_conv_output_shape(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	/* (8 + 1 + 1 - 2*(3-1) - 1) / 2 + 1 = 3 with stride 2, dilation 2. */
	c.stride_height = 2;
	c.dilation_height = 2;
	c.output.height = 3;
	ACCEPT(run_default(c));
	c.output.height = 4;
	REJECT(run_default(c));
	c = conv_valid();
	c.output.width = 7;
	REJECT(run_default(c));
	c = conv_valid();
	c.output.batch = 2;
	REJECT(run_default(c));
	/* Kernel larger than the padded input: no output at all. */
	c = conv_valid();
	c.kernel_height = 11;
	REJECT(run_default(c));
	/* The largest pads are fine when the output matches. */
	c = conv_valid();
	c.pad_top = c.pad_bottom = 255;
	c.output.height = 8 + 510 - 2;
	ACCEPT(run_default(c));
}

static void test_conv_groups(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.groups = 2;		/* 4 and 8 channels */
	ACCEPT(run_default(c));
	c.groups = 0;
	REJECT(run_default(c));
	c.groups = 3;
	REJECT(run_default(c));
	c.groups = 8;		/* does not divide 4 */
	REJECT(run_default(c));
	c = dw_valid();
	ACCEPT(run_default(c));
	c.groups = 2;
	REJECT(run_default(c));
	c = dw_valid();
	c.output.channels = 8;	/* groups must equal output channels too */
	REJECT(run_default(c));
	c = conv_valid();
	c.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D;	/* groups 1, C 4 */
	REJECT(run_default(c));
}

static void test_conv_weights_bias(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_conv2d c = conv_valid();

	memcpy(bos, default_bos, sizeof(bos));
	/* 8 * 4 * 3 * 3 = 288 weight bytes, 8 * 4 = 32 bias bytes. */
	bos[2].size = 288;
	bos[3].size = 32;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[2].size = 287;
	REJECT(run(&c, sizeof(c), bos, 5));
	bos[2].size = 288;
	bos[3].size = 31;
	REJECT(run(&c, sizeof(c), bos, 5));
	none(&c.bias);
	ACCEPT(run(&c, sizeof(c), bos, 5));
	c.bias.offset = 8;	/* NONE carries no offset */
	REJECT(run(&c, sizeof(c), bos, 5));
	c = conv_valid();
	c.weights.bo_index = 1;	/* weights are read */
	REJECT(run_default(c));
	/* Grouped: 8 * (4 / 2) * 9 = 144 bytes. */
	c = conv_valid();
	c.groups = 2;
	bos[2].size = 144;
	bos[3].size = 32;
	ACCEPT(run(&c, sizeof(c), bos, 5));
}

static void test_requant(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_conv2d c = conv_valid();

	c.requant.multiplier = 0;
	c.requant.shift = 31;
	ACCEPT(run_default(c));
	c.requant.multiplier = 0x7fffffff;
	c.requant.shift = 62;
	ACCEPT(run_default(c));
	c.requant.multiplier = -1;
	REJECT(run_default(c));
	c = conv_valid();
	c.requant.shift = 30;
	REJECT(run_default(c));
	c.requant.shift = 63;
	REJECT(run_default(c));
	c = conv_valid();
	c.requant.min = -1;
	REJECT(run_default(c));
	c = conv_valid();
	c.requant.max = 256;
	REJECT(run_default(c));
	c = conv_valid();
	c.requant.min = 100;
	c.requant.max = 99;
	REJECT(run_default(c));
	c.requant.max = 100;
	ACCEPT(run_default(c));
	/* Per-channel: a table of 8 (M, S) pairs, M and S zero. */
	memcpy(bos, default_bos, sizeof(bos));
	c = conv_valid();
	c.requant.per_channel.bo_index = 3;
	c.requant.per_channel.offset = 32;
	c.requant.multiplier = c.requant.shift = 0;
	bos[3].size = 32 + 64;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[3].size = 32 + 63;
	REJECT(run(&c, sizeof(c), bos, 5));
	bos[3].size = BIG;
	c.requant.multiplier = 1;
	REJECT(run(&c, sizeof(c), bos, 5));
	c.requant.multiplier = 0;
	c.requant.shift = 40;
	REJECT(run(&c, sizeof(c), bos, 5));
	c.requant.shift = 0;
	c.requant.per_channel.reserved = 1;
	REJECT(run(&c, sizeof(c), bos, 5));
	/* NONE with an offset is not NONE. */
	c = conv_valid();
	c.requant.per_channel.offset = 8;
	REJECT(run_default(c));
}

static void test_int32_output(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.output.dtype = ENPU_DTYPE_INT32;
	memset(&c.requant, 0, sizeof(c.requant));
	none(&c.requant.per_channel);
	ACCEPT(run_default(c));
	c.requant.max = 1;
	REJECT(run_default(c));
	c.requant.max = 0;
	c.requant.shift = 31;
	REJECT(run_default(c));
	c.requant.shift = 0;
	c.requant.per_channel.bo_index = 3;
	REJECT(run_default(c));
	none(&c.requant.per_channel);
	c.output.zero_point = 1;
	REJECT(run_default(c));
}

/* ---- FULLY_CONNECTED ---- */

static void test_fc(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_fc f = fc_valid();

	ACCEPT(run_default(f));
	memcpy(bos, default_bos, sizeof(bos));
	bos[2].size = 5 * 16;
	ACCEPT(run(&f, sizeof(f), bos, 5));
	bos[2].size = 5 * 16 - 1;
	REJECT(run(&f, sizeof(f), bos, 5));
	f.input.batch = 2;
	REJECT(run_default(f));
	f = fc_valid();
	f.output.height = 2;
	REJECT(run_default(f));
	f = fc_valid();
	f.output.width = 4;	/* M differs */
	REJECT(run_default(f));
	f = fc_valid();
	f.input.channels = 65536;
	ACCEPT(run_default(f));
	f.input.channels = 65537;
	REJECT(run_default(f));
	f = fc_valid();
	f.bias.bo_index = 3;
	ACCEPT(run_default(f));
	f.output.dtype = ENPU_DTYPE_INT32;	/* requant must then be zero */
	REJECT(run_default(f));
	f.hdr.size = sizeof(struct enpu_cmd_conv2d);
	REJECT(run(&f, sizeof(f), default_bos, 5));
}

/* ---- ADD / MUL ---- */

static void test_eltwise_shapes(void)
{
	struct enpu_cmd_eltwise e = add_valid();

	ACCEPT(run_default(e));
	/* a broadcast too: a 1x4x1x8, b 2x1x4x1. */
	e.a.batch = 1;
	e.a.width = 1;
	e.b.batch = 2;
	e.b.height = 1;
	e.b.width = 4;
	e.b.channels = 1;
	ACCEPT(run_default(e));
	e = add_valid();
	e.b.channels = 2;	/* neither 8 nor 1 */
	REJECT(run_default(e));
	e = add_valid();
	e.output.height = 8;	/* not max(4, 1) */
	REJECT(run_default(e));
	e = add_valid();
	e.output.channels = 1;
	REJECT(run_default(e));
	e = add_valid();
	e.b.dtype = ENPU_DTYPE_UINT8;
	REJECT(run_default(e));
	e = add_valid();
	e.output.dtype = ENPU_DTYPE_UINT8;
	REJECT(run_default(e));
	e = add_valid();
	e.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(e));
	e = add_valid();
	e.b.buf.bo_index = 1;	/* inputs are read */
	REJECT(run_default(e));
	e = add_valid();
	e.min = 1;
	e.max = 0;
	REJECT(run_default(e));
	e = add_valid();
	e.min = -129;
	REJECT(run_default(e));
}

static void test_eltwise_params(void)
{
	struct enpu_cmd_eltwise e = add_valid();

	e.a_multiplier = (1 << 21) - 1;
	e.add_shift = 31;
	ACCEPT(run_default(e));
	e.a_multiplier = 1 << 21;
	REJECT(run_default(e));
	e = add_valid();
	e.b_multiplier = -1;
	REJECT(run_default(e));
	e = add_valid();
	e.add_shift = 0;
	REJECT(run_default(e));
	e.add_shift = 32;
	REJECT(run_default(e));
	e = add_valid();
	e.left_shift = 1;
	REJECT(run_default(e));
	e = add_valid();
	e.multiplier = 1;
	REJECT(run_default(e));

	e = mul_valid();
	ACCEPT(run_default(e));
	e.left_shift = 16;
	REJECT(run_default(e));
	e.left_shift = -1;
	REJECT(run_default(e));
	e = mul_valid();
	e.shift = 30;
	REJECT(run_default(e));
	e = mul_valid();
	e.multiplier = -5;
	REJECT(run_default(e));
	e = mul_valid();
	e.add_shift = 1;
	REJECT(run_default(e));
	e = mul_valid();
	e.a_multiplier = 1;
	REJECT(run_default(e));
}

/* ---- MAX_POOL / AVG_POOL ---- */

static void test_pool_shape(void)
{
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_MAX_POOL);

	ACCEPT(run_default(p));
	p.output.height = 5;
	REJECT(run_default(p));
	/* Ceil mode: (9 - 3 + 1) / 2 + 1 = 4 still; with pad_bottom 1, 5. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.flags = ENPU_POOL_CEIL_MODE;
	ACCEPT(run_default(p));
	p.pad_bottom = 1;
	p.output.height = 5;
	ACCEPT(run_default(p));
	p.output.height = 4;
	REJECT(run_default(p));
	/* The last ceil window starting past in + pad_begin is dropped:
	 * in 4, kernel 2, stride 3, pads 1/1: ceil gives 3, minus 1 = 2. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.flags = ENPU_POOL_CEIL_MODE;
	p.input.height = 4;
	p.kernel_height = 2;
	p.stride_height = 3;
	p.pad_top = p.pad_bottom = 1;
	p.output.height = 2;
	ACCEPT(run_default(p));
	p.output.height = 3;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.channels = 4;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.dtype = ENPU_DTYPE_INT8;
	p.min = -128;
	p.max = 127;
	REJECT(run_default(p));
	/* Global average pooling: the kernel is the whole input. */
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.kernel_height = p.kernel_width = 9;
	p.output.height = p.output.width = 1;
	ACCEPT(run_default(p));
}

static void test_pool_params(void)
{
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_MAX_POOL);

	p.kernel_height = 0;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.kernel_width = 65536;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.stride_width = 256;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.dilation_height = 0;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.pad_left = 3;		/* must be < kernel 3 */
	REJECT(run_default(p));
	p.pad_left = 2;
	p.output.width = 5;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.flags = 4;
	REJECT(run_default(p));
	p.flags = ENPU_POOL_COUNT_INCLUDE_PAD;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.reserved = 1;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.reserved2 = 1;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.min = 1;		/* MAX_POOL: the type's range exactly */
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.multiplier = 1;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.params.bo_index = 3;
	REJECT(run_default(p));
}

static void test_avg_pool_params(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_AVG_POOL);

	ACCEPT(run_default(p));
	p.flags = ENPU_POOL_COUNT_INCLUDE_PAD | ENPU_POOL_CEIL_MODE;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.left_shift = 30;
	ACCEPT(run_default(p));
	p.left_shift = 31;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.shift = 63;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.multiplier = -1;
	REJECT(run_default(p));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.min = 200;
	p.max = 100;
	REJECT(run_default(p));
	/* A table of kh * kw = 9 entries of 16 bytes. */
	memcpy(bos, default_bos, sizeof(bos));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.params.bo_index = 3;
	p.multiplier = p.shift = p.left_shift = 0;
	bos[3].size = 144;
	ACCEPT(run(&p, sizeof(p), bos, 5));
	bos[3].size = 143;
	REJECT(run(&p, sizeof(p), bos, 5));
	bos[3].size = 144;
	p.shift = 40;
	REJECT(run(&p, sizeof(p), bos, 5));
	p.shift = 0;
	p.params.bo_index = 1;	/* tables are read */
	REJECT(run(&p, sizeof(p), bos, 5));
}

/* ---- COPY ---- */

static void test_copy(void)
{
	struct enpu_cmd_copy c = copy_valid();

	ACCEPT(run_default(c));
	c.output.dtype = ENPU_DTYPE_INT8;
	REJECT(run_default(c));
	c = copy_valid();
	c.input.dtype = c.output.dtype = ENPU_DTYPE_UINT8;
	c.input.zero_point = 3;
	c.output.zero_point = 4;
	REJECT(run_default(c));
	c.output.zero_point = 3;
	ACCEPT(run_default(c));
	c = copy_valid();
	c.output.width = 5;
	REJECT(run_default(c));
	c = copy_valid();
	c.output.buf.bo_index = 2;
	REJECT(run_default(c));
}

/* ---- multi-command streams ---- */

static void test_offset_of_bad_command(void)
{
	struct three_commands {
		struct enpu_cmd_conv2d conv;
		struct enpu_cmd_eltwise add;
		struct enpu_cmd_pool pool;
	} s = { conv_valid(), add_valid(), pool_valid(ENPU_CMD_MAX_POOL) };

	ACCEPT(run_default(s));
	s.pool.output.width = 1;
	REJECT_AT(run_default(s), (uint32_t)offsetof(struct three_commands, pool));
	s.add.add_shift = 0;
	REJECT_AT(run_default(s), (uint32_t)offsetof(struct three_commands, add));
}

/* ---- seeds for the fuzzer, replayed through its entry point ---- */

struct seed {
	const char *name;
	uint8_t data[1024];
	size_t size;
	int want;
};

static size_t make_seeds(struct seed *seeds)
{
	static const uint64_t sizes[5] = { BIG, BIG, BIG, BIG, BIG };
	static const uint32_t access[5] = { R, W, R, R, R | W };
	struct enpu_cmd_conv2d conv = conv_valid(), dw = dw_valid(),
			       bad_conv = conv_valid();
	struct enpu_cmd_fc fc = fc_valid();
	struct enpu_cmd_eltwise add = add_valid(), mul = mul_valid();
	struct enpu_cmd_pool maxp = pool_valid(ENPU_CMD_MAX_POOL),
			     avgp = pool_valid(ENPU_CMD_AVG_POOL);
	struct enpu_cmd_copy copy = copy_valid();
	const struct {
		const char *name;
		const void *cmd;
		size_t size;
		int want;
	} list[] = {
		{ "conv2d", &conv, sizeof(conv), 0 },
		{ "depthwise", &dw, sizeof(dw), 0 },
		{ "fc", &fc, sizeof(fc), 0 },
		{ "add", &add, sizeof(add), 0 },
		{ "mul", &mul, sizeof(mul), 0 },
		{ "max_pool", &maxp, sizeof(maxp), 0 },
		{ "avg_pool", &avgp, sizeof(avgp), 0 },
		{ "copy", &copy, sizeof(copy), 0 },
		{ "bad_conv", &bad_conv, sizeof(bad_conv), -EINVAL },
	};
	size_t n;

	bad_conv.output.height = 9;
	for (n = 0; n < sizeof(list) / sizeof(list[0]); n++) {
		seeds[n].name = list[n].name;
		seeds[n].want = list[n].want;
		seeds[n].size = validate_fuzz_encode(seeds[n].data,
						     sizeof(seeds[n].data),
						     sizes, access, 5,
						     list[n].cmd, list[n].size);
	}
	return n;
}

static void test_fuzz_seeds_replay(void)
{
	struct seed seeds[16];
	size_t count = make_seeds(seeds);

	for (size_t i = 0; i < count; i++) {
		int ret = validate_fuzz_one(seeds[i].data, seeds[i].size);

		checks_in_test++;
		if (!seeds[i].size || ret != seeds[i].want) {
			failures++;
			fprintf(stderr, "  seed %s: got %d, want %d\n",
				seeds[i].name, ret, seeds[i].want);
		}
	}
	/* Truncated and empty inputs decode to nothing or to a short stream. */
	checks_in_test++;
	if (validate_fuzz_one(seeds[0].data, 0) != -1 ||
	    validate_fuzz_one(seeds[0].data, 3) != -1 ||
	    validate_fuzz_one(seeds[0].data, 50) != 0) {
		failures++;
		fprintf(stderr, "  truncated seeds decoded wrongly\n");
	}
}

static int write_corpus(const char *dir)
{
	struct seed seeds[16];
	size_t count = make_seeds(seeds);
	char path[4096];

	for (size_t i = 0; i < count; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.bin", dir, seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].data, 1, seeds[i].size, f) !=
			  seeds[i].size) {
			fprintf(stderr, "test-validate: cannot write %s\n",
				path);
			if (f)
				fclose(f);
			return 1;
		}
		if (fclose(f)) {
			fprintf(stderr, "test-validate: cannot write %s\n",
				path);
			return 1;
		}
	}
	return 0;
}

static const struct {
	const char *name;
	void (*run)(void);
} tests[] = {
	{ "stream_framing", test_stream_framing },
	{ "nop", test_nop },
	{ "dma_copy", test_dma_copy },
	{ "dma_fill", test_dma_fill },
	{ "tensor_fields", test_tensor_fields },
	{ "tensor_extent", test_tensor_extent },
	{ "conv_ranges", test_conv_ranges },
	{ "conv_output_shape", test_conv_output_shape },
	{ "conv_groups", test_conv_groups },
	{ "conv_weights_bias", test_conv_weights_bias },
	{ "requant", test_requant },
	{ "int32_output", test_int32_output },
	{ "fc", test_fc },
	{ "eltwise_shapes", test_eltwise_shapes },
	{ "eltwise_params", test_eltwise_params },
	{ "pool_shape", test_pool_shape },
	{ "pool_params", test_pool_params },
	{ "avg_pool_params", test_avg_pool_params },
	{ "copy", test_copy },
	{ "offset_of_bad_command", test_offset_of_bad_command },
	{ "fuzz_seeds_replay", test_fuzz_seeds_replay },
};

int main(int argc, char **argv)
{
	unsigned int passed = 0, failed = 0;

	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--write-corpus DIR]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;

		current_test = tests[i].name;
		checks_in_test = 0;
		tests[i].run();
		if (failures == before && checks_in_test > 0) {
			passed++;
			printf("ok   %s (%d checks)\n", tests[i].name,
			       checks_in_test);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
	}
	printf("test-validate: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
