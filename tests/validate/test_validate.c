// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of both command-stream checkers: the kernel validator
 * (kernel/enpu_validate.c, compiled for userspace) and the vnpu's own
 * checker (tools/vnpu cmdstream_validate()). Each test starts from a
 * command both must accept, changes one field so that exactly one rule of
 * uapi/enpu_cmd.h is broken, and expects both to reject it at that
 * command's offset naming that rule (kernel/enpu_cmd_rule.h), the device
 * with the job status its spec gives the rule. Limits are tested from both
 * sides with the uapi macros. Commands are filled through the uapi
 * structs; the host is little endian, which is the stream's byte order.
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

#include "checkers.h"
#include "device_plan_test.h"
#include "differential_fuzz.h"
#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
#include "enpu_regs.h"
#include "enpu_validate.h"
#include "validate_fuzz.h"
#include "vnpu.h"

#define R ENPU_BO_ACCESS_READ
#define W ENPU_BO_ACCESS_WRITE
#define BIG (1ull << 20)

/* BOs: 0 input (R), 1 output (W), 2 weights (R), 3 bias/tables (R), 4 RW. */
static const struct enpu_validate_bo default_bos[] = {
	{ BIG, R }, { BIG, W }, { BIG, R }, { BIG, R }, { BIG, R | W },
};

static int failures, checks_in_test;
static const char *current_test;

/* What the kernel validator and the device's checker said. */
struct result {
	struct verdict kernel;
	struct verdict device;
};

static struct result run(const void *stream, uint32_t size,
			 const struct enpu_validate_bo *bos, uint32_t count)
{
	struct result r;

	check_with_kernel(stream, size, bos, count, &r.kernel);
	if (!check_with_device(stream, size, bos, count, &r.device)) {
		fprintf(stderr, "test-validate: out of memory\n");
		exit(2);
	}
	return r;
}

#define run_default(cmd) \
	run(&(cmd), sizeof(cmd), default_bos, 5)

static bool verdict_is(const struct verdict *v, uint32_t rule,
		       uint32_t offset, bool device)
{
	if (rule == ENPU_RULE_NONE)
		return !v->rejected && (!device ||
					v->status == ENPU_JOB_STATUS_OK);
	return v->rejected && v->rule == rule && v->offset == offset &&
	       (!device || v->status == device_status_for_rule(rule));
}

static void report(int line, const char *who, const struct verdict *v,
		   uint32_t rule, uint32_t offset)
{
	fprintf(stderr, "  %s line %d: %s %s at %u (rule %s, status %u), "
		"want %s at %u\n", current_test, line, who,
		v->rejected ? "rejected" : "accepted", v->offset,
		enpu_cmd_rule_name(v->rule), v->status,
		rule ? enpu_cmd_rule_name(rule) : "accepted", offset);
}

/*
 * The kernel must say @kernel_rule at @kernel_offset, the device
 * @device_rule at @device_offset (ENPU_RULE_NONE: accepted), and the
 * device's job status must be the one its spec gives that rule.
 */
static void expect(int line, struct result r, uint32_t kernel_rule,
		   uint32_t kernel_offset, uint32_t device_rule,
		   uint32_t device_offset)
{
	bool ok = true;

	checks_in_test++;
	if (!verdict_is(&r.kernel, kernel_rule, kernel_offset, false)) {
		report(line, "kernel", &r.kernel, kernel_rule, kernel_offset);
		ok = false;
	}
	if (!verdict_is(&r.device, device_rule, device_offset, true)) {
		report(line, "device", &r.device, device_rule, device_offset);
		ok = false;
	}
	if (!ok)
		failures++;
}

/* Both checkers alike. */
#define ACCEPT(r)		expect(__LINE__, (r), 0, 0, 0, 0)
#define REJECT(r, rule)		REJECT_AT(r, 0, rule)
#define REJECT_AT(r, off, rule) \
	expect(__LINE__, (r), ENPU_RULE_##rule, (off), ENPU_RULE_##rule, (off))
/*
 * An ENPU_BUF_NONE reference with an offset: the kernel enforces the uapi
 * rule, the device does not look at an absent operand's offset (its
 * documented 1.2 behaviour), which keeps the promise that what the kernel
 * accepts the device accepts.
 */
#define REJECT_KERNEL_ONLY(r, rule) \
	expect(__LINE__, (r), ENPU_RULE_##rule, 0, ENPU_RULE_NONE, 0)

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

/* 1x4x4x3 float32 -> uint8, output a channel slice of a wider tensor. */
static struct enpu_cmd_quantize quantize_valid(void)
{
	struct enpu_cmd_quantize q;
	float scale = 0.02f;

	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, ENPU_CMD_QUANTIZE, sizeof(q));
	tensor(&q.input, 0, 1, 4, 4, 3, ENPU_DTYPE_FLOAT32);
	tensor(&q.output, 1, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	q.output.pixel_stride = 6;
	q.output.zero_point = 128;
	memcpy(&q.scale, &scale, sizeof(scale));
	return q;
}

/* 1x4x4x3 uint8 -> float32, output a channel slice of a wider tensor. */
static struct enpu_cmd_dequantize dequantize_valid(void)
{
	struct enpu_cmd_dequantize d;
	float scale = 0.02f;

	memset(&d, 0, sizeof(d));
	hdr(&d.hdr, ENPU_CMD_DEQUANTIZE, sizeof(d));
	tensor(&d.input, 0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	tensor(&d.output, 1, 1, 4, 4, 3, ENPU_DTYPE_FLOAT32);
	d.input.zero_point = 128;
	d.output.pixel_stride = 6;
	memcpy(&d.scale, &scale, sizeof(scale));
	return d;
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
	/* A length that is not a multiple of 8: SUBMIT's stream size rule in
	 * the kernel; the device (which gets no such stream from the kernel)
	 * sees a header that runs past the end. */
	expect(__LINE__, run(nops, 12, NULL, 0), ENPU_RULE_STREAM_SIZE, 12,
	       ENPU_RULE_PAST_STREAM_END, 0);
	expect(__LINE__, run(nops, 20, NULL, 0), ENPU_RULE_STREAM_SIZE, 20,
	       ENPU_RULE_PAST_STREAM_END, 16);
	nops[1].hdr.flags = 1;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 16, HEADER_FLAGS);
	nops[1].hdr.flags = 0x8000;	/* the highest flag bit */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 16, HEADER_FLAGS);
	nops[1].hdr.flags = 0;
	nops[2].hdr.size = 24;		/* past the end */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, PAST_STREAM_END);
	nops[2].hdr.size = 0xfffffff8u;	/* far past it, no wrap */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, PAST_STREAM_END);
	nops[2].hdr.size = 4;		/* below the header */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_SIZE);
	nops[2].hdr.size = 0;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_SIZE);
	nops[2].hdr.size = 12;		/* not a multiple of 8 */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_SIZE);
	/* Several framing rules broken at once: both checkers blame them in
	 * the order of enpu_cmd_rule.h (flags, size, stream end, opcode,
	 * command size). */
	nops[2].hdr.flags = 1;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_FLAGS);
	nops[2].hdr.size = 24;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_FLAGS);
	nops[2].hdr.flags = 0;
	nops[2].hdr.opcode = 0xffff;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, PAST_STREAM_END);
	nops[2].hdr.size = 12;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, HEADER_SIZE);
	nops[2].hdr.size = 8;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 32, OPCODE);
	nops[2].hdr.opcode = ENPU_CMD_NOP;
	nops[2].hdr.size = 16;
	nops[0].hdr.opcode = ENPU_CMD_DEQUANTIZE + 1;	/* the first unknown */
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 0, OPCODE);
	nops[0].hdr.opcode = 0xffff;
	REJECT_AT(run(nops, sizeof(nops), NULL, 0), 0, OPCODE);
	/* A NOP with a size that fits the stream but not its struct. */
	hdr((struct enpu_cmd_header *)raw, ENPU_CMD_NOP, 8);
	REJECT_AT(run(raw, 8, NULL, 0), 0, COMMAND_SIZE);
	hdr((struct enpu_cmd_header *)raw, ENPU_CMD_NOP, 24);
	REJECT_AT(run(raw, 16, NULL, 0), 0, PAST_STREAM_END);
}

/* A well-sized command cut short by the end of the stream. */
static void test_stream_truncated_inside_a_command(void)
{
	struct {
		struct enpu_cmd_nop nop;
		struct enpu_cmd_conv2d conv;
	} s;
	struct enpu_cmd_dma_fill fill;

	memset(&s, 0, sizeof(s));
	hdr(&s.nop.hdr, ENPU_CMD_NOP, sizeof(s.nop));
	s.conv = conv_valid();
	ACCEPT(run(&s, sizeof(s), default_bos, 5));
	for (uint32_t cut = 8; cut < sizeof(s.conv); cut += 8)
		REJECT_AT(run(&s, (uint32_t)sizeof(s.nop) + cut, default_bos, 5),
			  sizeof(s.nop), PAST_STREAM_END);
	memset(&fill, 0, sizeof(fill));
	hdr(&fill.hdr, ENPU_CMD_DMA_FILL, sizeof(fill));
	fill.dst.bo_index = 1;
	fill.size = 1;
	ACCEPT(run(&fill, sizeof(fill), default_bos, 5));
	REJECT(run(&fill, sizeof(fill) - 8, default_bos, 5), PAST_STREAM_END);
	REJECT(run(&fill, 8, default_bos, 5), PAST_STREAM_END);
}

/* The largest stream SUBMIT takes, all NOPs, is one valid job. */
static void test_stream_of_the_maximum_size(void)
{
	const uint32_t count = ENPU_CMD_MAX_STREAM / sizeof(struct enpu_cmd_nop);
	struct enpu_cmd_nop *nops = calloc(count, sizeof(*nops));

	if (!nops) {
		checks_in_test++;
		failures++;
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		hdr(&nops[i].hdr, ENPU_CMD_NOP, sizeof(nops[i]));
	ACCEPT(run(nops, ENPU_CMD_MAX_STREAM, NULL, 0));
	nops[count - 1].reserved = 1;
	REJECT_AT(run(nops, ENPU_CMD_MAX_STREAM, NULL, 0),
		  ENPU_CMD_MAX_STREAM - sizeof(*nops), NOP_RESERVED);
	free(nops);
}

/*
 * The length rule SUBMIT, STREAM_CREATE and libenpu share
 * (enpu_cmd_stream_size_valid()), at each bound and one step past it.
 */
static void test_stream_size_rule(void)
{
	static const struct {
		uint32_t size;
		bool valid;
	} cases[] = {
		{ 0, true },
		{ 1, false },
		{ ENPU_CMD_ALIGN - 1, false },
		{ ENPU_CMD_ALIGN, true },
		{ ENPU_CMD_ALIGN + 1, false },
		{ ENPU_CMD_MAX_STREAM - ENPU_CMD_ALIGN, true },
		{ ENPU_CMD_MAX_STREAM - 1, false },
		{ ENPU_CMD_MAX_STREAM, true },
		{ ENPU_CMD_MAX_STREAM + 1, false },
		{ ENPU_CMD_MAX_STREAM + ENPU_CMD_ALIGN, false },
		/* the largest aligned __u32 */
		{ UINT32_MAX - UINT32_MAX % ENPU_CMD_ALIGN, false },
		{ UINT32_MAX, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool valid = enpu_cmd_stream_size_valid(cases[i].size);

		checks_in_test++;
		if (valid != cases[i].valid) {
			fprintf(stderr, "  %s: size %u %s, want %s\n",
				current_test, cases[i].size,
				valid ? "valid" : "invalid",
				cases[i].valid ? "valid" : "invalid");
			failures++;
		}
	}
}

static void test_nop(void)
{
	struct enpu_cmd_nop nop = { .cycles = 0xffffffff };

	hdr(&nop.hdr, ENPU_CMD_NOP, sizeof(nop));
	ACCEPT(run(&nop, sizeof(nop), NULL, 0));
	nop.reserved = 1;
	REJECT(run(&nop, sizeof(nop), NULL, 0), NOP_RESERVED);
	nop.reserved = 0x80000000u;
	REJECT(run(&nop, sizeof(nop), NULL, 0), NOP_RESERVED);
	nop.reserved = 0;
	nop.hdr.size = 24;
	REJECT(run(&nop, sizeof(nop), NULL, 0), PAST_STREAM_END);
}

/* ---- DMA commands and buffer references ---- */

static void test_dma_copy(void)
{
	struct enpu_cmd_dma_copy c, base;
	struct {
		struct enpu_cmd_dma_copy c;
		uint64_t pad;
	} longer;

	memset(&base, 0, sizeof(base));
	hdr(&base.hdr, ENPU_CMD_DMA_COPY, sizeof(base));
	base.src.bo_index = 0;
	base.dst.bo_index = 1;
	base.size = BIG;
	c = base;
	ACCEPT(run_default(c));
	c.size = 0;
	REJECT(run_default(c), REF_EMPTY);
	c = base;
	c.size = 1;
	c.src.offset = BIG - 1;		/* the last byte */
	ACCEPT(run_default(c));
	c = base;
	c.src.offset = 1;		/* one byte past the BO */
	REJECT(run_default(c), REF_RANGE);
	c = base;
	c.dst.offset = 1;
	REJECT(run_default(c), REF_RANGE);
	c = base;
	c.src.offset = UINT64_MAX;	/* offset + size wraps */
	c.size = 2;
	REJECT(run_default(c), REF_RANGE);
	c = base;
	c.size = BIG + 1;
	REJECT(run_default(c), REF_RANGE);
	c.size = UINT64_MAX;
	REJECT(run_default(c), REF_RANGE);
	c = base;
	c.src.bo_index = 5;		/* one past the list */
	REJECT(run_default(c), REF_BO_INDEX);
	c.src.bo_index = 4;		/* the last one */
	ACCEPT(run_default(c));
	c = base;
	c.dst.bo_index = ENPU_BUF_NONE;	/* not optional */
	REJECT(run_default(c), REF_BO_INDEX);
	c = base;
	c.dst.reserved = 1;
	REJECT(run_default(c), REF_RESERVED);
	c = base;
	c.src.reserved = 0x80000000u;
	REJECT(run_default(c), REF_RESERVED);
	c = base;
	c.src.bo_index = 1;		/* read from a WRITE-only BO */
	c.dst.bo_index = 4;
	REJECT(run_default(c), REF_READ_ACCESS);
	c = base;
	c.dst.bo_index = 2;		/* write to a READ-only BO */
	REJECT(run_default(c), REF_WRITE_ACCESS);
	/* Same BO: overlapping is invalid, adjacent is fine. */
	c = base;
	c.src.bo_index = c.dst.bo_index = 4;
	c.size = 100;
	c.dst.offset = 99;
	REJECT(run_default(c), DMA_OVERLAP);
	c.dst.offset = 100;
	ACCEPT(run_default(c));
	c.src.offset = 199;
	REJECT(run_default(c), DMA_OVERLAP);
	c.src.offset = 200;
	ACCEPT(run_default(c));
	c.src.offset = c.dst.offset;	/* onto itself */
	REJECT(run_default(c), DMA_OVERLAP);
	/* Different BOs never overlap, whatever the offsets. */
	c = base;
	c.src.bo_index = 4;
	c.dst.bo_index = 1;
	c.size = 100;
	ACCEPT(run_default(c));
	longer.c = base;
	longer.c.hdr.size = sizeof(longer);
	longer.pad = 0;
	REJECT(run(&longer, sizeof(longer), default_bos, 5), COMMAND_SIZE);
}

static void test_dma_fill(void)
{
	struct enpu_cmd_dma_fill f;

	memset(&f, 0, sizeof(f));
	hdr(&f.hdr, ENPU_CMD_DMA_FILL, sizeof(f));
	f.dst.bo_index = 1;
	f.size = 10;
	f.value = ENPU_FILL_VALUE_MAX;
	ACCEPT(run_default(f));
	f.value = ENPU_FILL_VALUE_MAX + 1;
	REJECT(run_default(f), FILL_VALUE);
	f.value = 0x80000000u;
	REJECT(run_default(f), FILL_VALUE);
	f.value = 0;
	f.reserved = 1;
	REJECT(run_default(f), FILL_RESERVED);
	f.reserved = 0;
	f.dst.reserved = 1;
	REJECT(run_default(f), REF_RESERVED);
	f.dst.reserved = 0;
	f.dst.bo_index = 0;
	REJECT(run_default(f), REF_WRITE_ACCESS);
	f.dst.bo_index = 5;
	REJECT(run_default(f), REF_BO_INDEX);
	f.dst.bo_index = 1;
	f.size = 0;
	REJECT(run_default(f), REF_EMPTY);
	f.size = BIG;
	ACCEPT(run_default(f));
	f.dst.offset = 1;
	REJECT(run_default(f), REF_RANGE);
	f.hdr.size -= 8;
	REJECT(run(&f, sizeof(f) - 8, default_bos, 5), COMMAND_SIZE);
}

/* ---- tensors (through CONV2D) ---- */

static void test_tensor_fields(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	ACCEPT(run_default(c));
	c.input.reserved0[1] = 1;
	REJECT(run_default(c), TENSOR_RESERVED);
	c = conv_valid();
	c.input.reserved0[0] = 0x80;
	REJECT(run_default(c), TENSOR_RESERVED);
	c = conv_valid();
	c.output.reserved0[2] = 1;
	REJECT(run_default(c), TENSOR_RESERVED);
	c = conv_valid();
	c.output.reserved1 = 1;
	REJECT(run_default(c), TENSOR_RESERVED);
	c = conv_valid();
	c.input.buf.reserved = 1;
	REJECT(run_default(c), REF_RESERVED);
	c = conv_valid();
	c.input.batch = 0;
	REJECT(run_default(c), TENSOR_DIM);
	c = conv_valid();
	c.input.height = 0;
	REJECT(run_default(c), TENSOR_DIM);
	c = conv_valid();
	c.input.width = 0;
	REJECT(run_default(c), TENSOR_DIM);
	c = conv_valid();
	c.output.channels = 0;
	REJECT(run_default(c), TENSOR_DIM);
	c = conv_valid();
	c.input.pixel_stride = 3;	/* below C = 4 */
	REJECT(run_default(c), TENSOR_STRIDE);
	c.input.pixel_stride = 4;
	ACCEPT(run_default(c));
	c.input.pixel_stride = 7;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.output.pixel_stride = 7;	/* below C = 8 */
	REJECT(run_default(c), TENSOR_STRIDE);
	c = conv_valid();
	c.input.dtype = ENPU_DTYPE_FLOAT32 + 1;	/* the first unknown */
	REJECT(run_default(c), TENSOR_DTYPE);
	c.input.dtype = 0xff;
	REJECT(run_default(c), TENSOR_DTYPE);
	c = conv_valid();
	c.input.zero_point = 255;
	ACCEPT(run_default(c));
	c.input.zero_point = 0;
	ACCEPT(run_default(c));
	c.input.zero_point = 256;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c.input.zero_point = -1;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c = conv_valid();
	c.input.dtype = ENPU_DTYPE_INT8;
	c.input.zero_point = -128;
	ACCEPT(run_default(c));
	c.input.zero_point = 127;
	ACCEPT(run_default(c));
	c.input.zero_point = 128;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c.input.zero_point = -129;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c = conv_valid();
	c.output.zero_point = 256;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c = conv_valid();
	c.input.dtype = ENPU_DTYPE_INT32;	/* inputs are 8-bit */
	c.input.zero_point = 0;
	REJECT(run_default(c), INPUT_INT32);
	c.input.dtype = ENPU_DTYPE_FLOAT32;	/* 1.6: QUANTIZE's only */
	REJECT(run_default(c), INPUT_INT32);
	c = conv_valid();
	c.output.dtype = ENPU_DTYPE_FLOAT32;
	c.output.zero_point = 0;
	REJECT(run_default(c), OUTPUT_INT32);
}

static void test_tensor_extent(void)
{
	struct enpu_validate_bo bos[5];
	static const struct enpu_validate_bo huge[] = {
		{ UINT64_MAX, R }, { UINT64_MAX, W },
	};
	struct enpu_cmd_conv2d c = conv_valid();
	struct enpu_cmd_copy k;
	/* Input 1x8x8x4 = 256 bytes; output 1x8x8x8 = 512 bytes. */

	memcpy(bos, default_bos, sizeof(bos));
	bos[0].size = 256;
	bos[1].size = 512;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	c.input.buf.offset = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	c = conv_valid();
	c.output.buf.offset = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	c = conv_valid();
	c.input.buf.offset = UINT64_MAX;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	c = conv_valid();
	bos[0].size = 255;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	bos[0].size = 256;
	/* With pixel_stride 6 the last pixel ends at 63 * 6 + 4 = 382. */
	c.input.pixel_stride = 6;
	bos[0].size = 382;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[0].size = 381;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	/* INT32 outputs take 4 bytes per element. */
	c = conv_valid();
	c.output.dtype = ENPU_DTYPE_INT32;
	memset(&c.requant, 0, sizeof(c.requant));
	c.requant.per_channel.bo_index = ENPU_BUF_NONE;
	bos[0].size = 256;
	bos[1].size = 2048;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[1].size = 2047;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	/* Shape products that overflow u64: N*H*W, then the stride, then
	 * the element size. */
	c = conv_valid();
	c.input.batch = c.output.batch = 0xffffffff;
	c.input.height = 0xffffffff;
	c.input.width = 0xffffffff;
	c.input.pixel_stride = 0xffffffff;
	expect(__LINE__, run_default(c), ENPU_RULE_TENSOR_SIZE, 0,
	       ENPU_RULE_CONV_OUTPUT_SIZE, 0);
	/* Same overflow with a consistent output: H and W fit the layer. */
	c = conv_valid();
	c.kernel_height = c.kernel_width = 1;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 0;
	c.input.height = c.output.height = 0xffffffff;
	c.input.width = c.output.width = 0xffffffff;
	REJECT(run_default(c), TENSOR_SIZE);
	/* Elements fit in u64 but not their 4-byte INT32 bytes. */
	c = conv_valid();
	c.kernel_height = c.kernel_width = 1;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 0;
	c.input.height = c.output.height = 1;
	c.input.width = c.output.width = 1;
	c.input.batch = c.output.batch = 1;
	c.output.channels = 0x80000000u;	/* groups 1 divides it */
	c.output.pixel_stride = 0;
	c.output.dtype = ENPU_DTYPE_INT32;
	memset(&c.requant, 0, sizeof(c.requant));
	c.requant.per_channel.bo_index = ENPU_BUF_NONE;
	REJECT(run_default(c), REF_RANGE);	/* 2^33 bytes > the BO */
	/* An extent of exactly 2^64 - 1 bytes fits a BO of that size:
	 * 641 * 6700417 = 2^32 + 1 pixels of 2^32 - 1 channels. */
	k = copy_valid();
	tensor(&k.input, 0, 1, 641, 6700417, 0xffffffffu, ENPU_DTYPE_UINT8);
	tensor(&k.output, 1, 1, 641, 6700417, 0xffffffffu, ENPU_DTYPE_UINT8);
	ACCEPT(run(&k, sizeof(k), huge, 2));
	k.output.buf.offset = 1;
	REJECT(run(&k, sizeof(k), huge, 2), REF_RANGE);
	/* Output in a READ-only BO, input in a WRITE-only one. */
	c = conv_valid();
	c.output.buf.bo_index = 0;
	REJECT(run_default(c), REF_WRITE_ACCESS);
	c = conv_valid();
	c.input.buf.bo_index = 1;
	REJECT(run_default(c), REF_READ_ACCESS);
	c = conv_valid();
	c.input.buf.bo_index = 4;	/* READ | WRITE serves both */
	c.output.buf.bo_index = 4;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.input.buf.bo_index = ENPU_BUF_NONE;	/* not optional */
	REJECT(run_default(c), REF_BO_INDEX);
	c = conv_valid();
	c.output.buf.bo_index = 5;
	REJECT(run_default(c), REF_BO_INDEX);
}

/* ---- CONV2D / DEPTHWISE_CONV2D ---- */

/* 1x1 convolution of a 1xHxWx1 input: every window size fits. */
static struct enpu_cmd_conv2d conv_1x1(uint32_t h, uint32_t w)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.input.channels = c.output.channels = 1;
	c.input.height = c.output.height = h;
	c.input.width = c.output.width = w;
	c.kernel_height = c.kernel_width = 1;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 0;
	return c;
}

static void test_conv_ranges(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.kernel_height = 0;
	REJECT(run_default(c), CONV_KERNEL);
	c = conv_valid();
	c.kernel_width = ENPU_CONV_KERNEL_MAX + 1;
	REJECT(run_default(c), CONV_KERNEL);
	c = conv_valid();
	c.kernel_width = 0xffffffff;
	REJECT(run_default(c), CONV_KERNEL);
	/* The largest kernel, on an input just large enough. */
	c = conv_1x1(ENPU_CONV_KERNEL_MAX, 1);
	c.kernel_height = ENPU_CONV_KERNEL_MAX;
	c.output.height = 1;
	ACCEPT(run_default(c));
	c = conv_1x1(1, 1);
	c.stride_height = 0;
	REJECT(run_default(c), CONV_STRIDE);
	c = conv_1x1(1, 1);
	c.stride_width = ENPU_LAYER_STRIDE_MAX + 1;
	REJECT(run_default(c), CONV_STRIDE);
	c = conv_1x1(1, 1);
	c.stride_height = c.stride_width = ENPU_LAYER_STRIDE_MAX;
	ACCEPT(run_default(c));
	c = conv_1x1(1, 1);
	c.dilation_height = 0;
	REJECT(run_default(c), CONV_DILATION);
	c = conv_1x1(1, 1);
	c.dilation_width = ENPU_LAYER_DILATION_MAX + 1;
	REJECT(run_default(c), CONV_DILATION);
	c = conv_1x1(1, 1);
	c.dilation_height = c.dilation_width = ENPU_LAYER_DILATION_MAX;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.pad_right = ENPU_CONV_PAD_MAX + 1;
	REJECT(run_default(c), CONV_PAD);
	c = conv_valid();
	c.pad_top = ENPU_CONV_PAD_MAX + 1;
	REJECT(run_default(c), CONV_PAD);
	c = conv_valid();
	c.pad_left = ENPU_CONV_PAD_MAX + 1;
	REJECT(run_default(c), CONV_PAD);
	c = conv_valid();
	c.pad_bottom = 0xffffffff;
	REJECT(run_default(c), CONV_PAD);
	c = conv_valid();
	c.reserved = 1;
	REJECT(run_default(c), CONV_RESERVED);
	c = conv_valid();
	c.hdr.size += 8;
	REJECT(run(&c, sizeof(c), default_bos, 5), PAST_STREAM_END);
	c = conv_valid();
	c.hdr.size -= 8;
	REJECT(run(&c, sizeof(c) - 8, default_bos, 5), COMMAND_SIZE);
}

/* The range enpu_validate_stream_refs() reports for BO 0 (the input). */
struct input_ref {
	unsigned int count;
	bool dense;
};

static void note_input_ref(void *priv, const struct enpu_validate_ref *ref)
{
	struct input_ref *in = priv;

	if (ref->bo_index == 0) {
		in->count++;
		in->dense = ref->dense;
	}
}

/* The input's range must be reported once, dense as @want says. */
static void expect_dense(int line, const struct enpu_cmd_conv2d *c,
			 bool want)
{
	struct input_ref in = { 0, false };
	uint32_t offset = 0, rule = 0;

	checks_in_test++;
	if (enpu_validate_stream_refs(c, sizeof(*c), default_bos, 5, &offset,
				      &rule, note_input_ref, &in) ||
	    in.count != 1 || in.dense != want) {
		fprintf(stderr, "  %s line %d: rule %s, %u input ranges, "
			"dense %d, want %d\n", current_test, line,
			enpu_cmd_rule_name(rule), in.count, in.dense, want);
		failures++;
	}
}

/*
 * A tensor's range is dense unless a pixel_stride gap lies inside it:
 * more than one pixel and a stride other than C. One pixel with any
 * stride has no gap.
 */
static void test_ref_density(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	expect_dense(__LINE__, &c, true);	/* stride 0: C */
	c.input.pixel_stride = 4;
	expect_dense(__LINE__, &c, true);
	c.input.pixel_stride = 6;
	expect_dense(__LINE__, &c, false);	/* 64 pixels */
	c.input.height = c.output.height = 1;
	c.input.width = c.output.width = 2;
	expect_dense(__LINE__, &c, false);	/* 2 pixels */
	c.input.width = c.output.width = 1;
	expect_dense(__LINE__, &c, true);	/* 1 pixel: no gap */
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
	REJECT(run_default(c), CONV_OUTPUT_SIZE);
	c.output.height = 2;
	REJECT(run_default(c), CONV_OUTPUT_SIZE);
	c = conv_valid();
	c.output.width = 7;
	REJECT(run_default(c), CONV_OUTPUT_SIZE);
	c.output.width = 9;
	REJECT(run_default(c), CONV_OUTPUT_SIZE);
	c = conv_valid();
	c.output.batch = 2;
	REJECT(run_default(c), CONV_BATCH);
	/* Kernel larger than the padded input by one: no output at all. */
	c = conv_valid();
	c.kernel_height = 11;
	REJECT(run_default(c), WINDOW);
	c.kernel_height = 10;		/* exactly the padded input */
	c.output.height = 1;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.kernel_width = 5;
	c.dilation_width = 2;		/* span 9 of 10 */
	c.output.width = 2;
	ACCEPT(run_default(c));
	c.dilation_width = 3;		/* span 13 */
	REJECT(run_default(c), WINDOW);
	/* Pads equal to, and larger than, the kernel are fine for conv. */
	c = conv_valid();
	c.pad_top = c.pad_bottom = 3;	/* kernel 3 */
	c.output.height = 8 + 6 - 2;
	ACCEPT(run_default(c));
	c.pad_top = c.pad_bottom = 4;
	c.output.height = 8 + 8 - 2;
	ACCEPT(run_default(c));
	/* The largest pads are fine when the output matches. */
	c = conv_valid();
	c.pad_top = c.pad_bottom = ENPU_CONV_PAD_MAX;
	c.output.height = 8 + 2 * ENPU_CONV_PAD_MAX - 2;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.pad_left = c.pad_right = ENPU_CONV_PAD_MAX;
	c.output.width = 8 + 2 * ENPU_CONV_PAD_MAX - 2;
	ACCEPT(run_default(c));
	/* One past on the left alone: the pad rule, not the shape, says so. */
	c.pad_left = ENPU_CONV_PAD_MAX + 1;
	c.output.width++;
	REJECT(run_default(c), CONV_PAD);
	/* Asymmetric pads count on their own side only. */
	c = conv_valid();
	c.pad_left = 0;
	c.pad_right = 2;
	ACCEPT(run_default(c));
	c.pad_right = 3;
	REJECT(run_default(c), CONV_OUTPUT_SIZE);
}

static void test_conv_groups(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.groups = 2;		/* 4 and 8 channels */
	ACCEPT(run_default(c));
	c.groups = 4;
	ACCEPT(run_default(c));
	c.groups = 0;
	REJECT(run_default(c), CONV_GROUPS);
	c.groups = 3;
	REJECT(run_default(c), CONV_GROUPS);
	c.groups = 8;		/* divides 8 out, not 4 in */
	REJECT(run_default(c), CONV_GROUPS);
	c = conv_valid();
	c.output.channels = 6;	/* 4 in, 6 out: groups 4 divides only Cin */
	c.groups = 4;
	REJECT(run_default(c), CONV_GROUPS);
	c = dw_valid();
	ACCEPT(run_default(c));
	c.groups = 2;
	REJECT(run_default(c), DEPTHWISE_GROUPS);
	c = dw_valid();
	c.output.channels = 8;	/* groups must equal output channels too */
	REJECT(run_default(c), DEPTHWISE_GROUPS);
	c = conv_valid();
	c.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D;	/* groups 1, C 4 */
	REJECT(run_default(c), DEPTHWISE_GROUPS);
	c = conv_valid();
	c.input.channels = c.output.channels = 1;
	c.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D;	/* groups 1 == C 1 */
	ACCEPT(run_default(c));
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
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	bos[2].size = 288;
	c.weights.offset = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	c.weights.offset = 0;
	bos[3].size = 31;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	bos[3].size = 32;
	c.bias.offset = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	c.bias.offset = 0;
	none(&c.bias);
	ACCEPT(run(&c, sizeof(c), bos, 5));
	c.bias.offset = 8;	/* NONE carries no offset */
	REJECT_KERNEL_ONLY(run(&c, sizeof(c), bos, 5), REF_NONE_OFFSET);
	c.bias.offset = 0;
	c.bias.reserved = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RESERVED);
	c = conv_valid();
	c.bias.reserved = 1;
	REJECT(run_default(c), REF_RESERVED);
	c = conv_valid();
	c.weights.reserved = 1;
	REJECT(run_default(c), REF_RESERVED);
	c = conv_valid();
	c.weights.bo_index = 1;	/* weights are read */
	REJECT(run_default(c), REF_READ_ACCESS);
	c = conv_valid();
	c.bias.bo_index = 1;	/* so is the bias */
	REJECT(run_default(c), REF_READ_ACCESS);
	c = conv_valid();
	c.weights.bo_index = ENPU_BUF_NONE;	/* not optional */
	REJECT(run_default(c), REF_BO_INDEX);
	c = conv_valid();
	c.bias.bo_index = 5;
	REJECT(run_default(c), REF_BO_INDEX);
	/* Grouped: 8 * (4 / 2) * 9 = 144 bytes. */
	c = conv_valid();
	c.groups = 2;
	bos[2].size = 144;
	bos[3].size = 32;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[2].size = 143;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	/* Cout * Cin * kh * kw overflowing 64 bits, all else in range: a
	 * 1x1 output of 2^32 - 1 channels from 2^32 - 1 input channels. */
	c = conv_valid();
	c.input.height = c.input.width = 255;
	c.input.channels = 0xffffffff;
	c.output.height = c.output.width = 1;
	c.output.channels = 0xffffffff;
	c.kernel_height = c.kernel_width = 255;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 0;
	memcpy(bos, default_bos, sizeof(bos));
	bos[0].size = bos[1].size = UINT64_MAX;
	REJECT(run(&c, sizeof(c), bos, 5), CONV_WEIGHTS_SIZE);
}

static void test_requant(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_conv2d c = conv_valid();

	c.requant.multiplier = 0;
	c.requant.shift = ENPU_REQUANT_SHIFT_MIN;
	ACCEPT(run_default(c));
	c.requant.multiplier = 0x7fffffff;
	c.requant.shift = ENPU_REQUANT_SHIFT_MAX;
	ACCEPT(run_default(c));
	c.requant.multiplier = -1;
	REJECT(run_default(c), REQUANT_MULTIPLIER);
	c.requant.multiplier = INT32_MIN;
	REJECT(run_default(c), REQUANT_MULTIPLIER);
	c = conv_valid();
	c.requant.shift = ENPU_REQUANT_SHIFT_MIN - 1;
	REJECT(run_default(c), REQUANT_SHIFT);
	c.requant.shift = ENPU_REQUANT_SHIFT_MAX + 1;
	REJECT(run_default(c), REQUANT_SHIFT);
	c.requant.shift = -40;
	REJECT(run_default(c), REQUANT_SHIFT);
	c = conv_valid();
	c.requant.min = -1;
	REJECT(run_default(c), CLAMP_RANGE);
	c = conv_valid();
	c.requant.max = 256;
	REJECT(run_default(c), CLAMP_RANGE);
	c = conv_valid();
	c.requant.min = 256;
	c.requant.max = 256;
	REJECT(run_default(c), CLAMP_RANGE);
	c = conv_valid();
	c.requant.min = 100;
	c.requant.max = 99;
	REJECT(run_default(c), CLAMP_ORDER);
	c.requant.max = 100;
	ACCEPT(run_default(c));
	c.requant.min = c.requant.max = 255;
	ACCEPT(run_default(c));
	c = conv_valid();
	c.output.dtype = ENPU_DTYPE_INT8;
	c.requant.min = -128;
	c.requant.max = 127;
	ACCEPT(run_default(c));
	c.requant.min = -129;
	REJECT(run_default(c), CLAMP_RANGE);
	c.requant.min = -128;
	c.requant.max = 128;
	REJECT(run_default(c), CLAMP_RANGE);
	/* Per-channel: a table of 8 (M, S) pairs, M and S zero. */
	memcpy(bos, default_bos, sizeof(bos));
	c = conv_valid();
	c.requant.per_channel.bo_index = 3;
	c.requant.per_channel.offset = 32;
	c.requant.multiplier = c.requant.shift = 0;
	bos[3].size = 32 + 64;
	ACCEPT(run(&c, sizeof(c), bos, 5));
	bos[3].size = 32 + 63;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RANGE);
	bos[3].size = BIG;
	c.requant.multiplier = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REQUANT_TABLE_FIELDS);
	c.requant.multiplier = 0;
	c.requant.shift = 40;
	REJECT(run(&c, sizeof(c), bos, 5), REQUANT_TABLE_FIELDS);
	c.requant.shift = 0;
	c.requant.per_channel.reserved = 1;
	REJECT(run(&c, sizeof(c), bos, 5), REF_RESERVED);
	c.requant.per_channel.reserved = 0;
	c.requant.per_channel.bo_index = 1;	/* tables are read */
	REJECT(run(&c, sizeof(c), bos, 5), REF_READ_ACCESS);
	c.requant.per_channel.bo_index = 5;
	REJECT(run(&c, sizeof(c), bos, 5), REF_BO_INDEX);
	c.requant.per_channel.bo_index = 3;
	c.requant.min = 1;			/* clamp still applies */
	c.requant.max = 0;
	REJECT(run(&c, sizeof(c), bos, 5), CLAMP_ORDER);
	/* NONE with an offset is not NONE. */
	c = conv_valid();
	c.requant.per_channel.offset = 8;
	REJECT_KERNEL_ONLY(run_default(c), REF_NONE_OFFSET);
	c = conv_valid();
	c.requant.per_channel.reserved = 1;
	REJECT(run_default(c), REF_RESERVED);
}

static void test_int32_output(void)
{
	struct enpu_cmd_conv2d c = conv_valid();

	c.output.dtype = ENPU_DTYPE_INT32;
	memset(&c.requant, 0, sizeof(c.requant));
	none(&c.requant.per_channel);
	ACCEPT(run_default(c));
	c.requant.max = 1;
	REJECT(run_default(c), REQUANT_INT32);
	c.requant.max = 0;
	c.requant.min = -1;
	REJECT(run_default(c), REQUANT_INT32);
	c.requant.min = 0;
	c.requant.shift = 31;
	REJECT(run_default(c), REQUANT_INT32);
	c.requant.shift = 0;
	c.requant.multiplier = 1;
	REJECT(run_default(c), REQUANT_INT32);
	c.requant.multiplier = 0;
	c.requant.per_channel.bo_index = 3;
	REJECT(run_default(c), REQUANT_INT32);
	none(&c.requant.per_channel);
	c.requant.per_channel.offset = 8;	/* the device checks this one */
	REJECT(run_default(c), REF_NONE_OFFSET);
	none(&c.requant.per_channel);
	c.output.zero_point = 1;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c.output.zero_point = -1;
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	/* FC may output INT32 too. */
	{
		struct enpu_cmd_fc f = fc_valid();

		f.output.dtype = ENPU_DTYPE_INT32;
		memset(&f.requant, 0, sizeof(f.requant));
		none(&f.requant.per_channel);
		ACCEPT(run_default(f));
	}
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
	REJECT(run(&f, sizeof(f), bos, 5), REF_RANGE);
	f.input.batch = 2;
	REJECT(run_default(f), FC_BATCH);
	f = fc_valid();
	f.input.height = 2;
	REJECT(run_default(f), FC_BATCH);
	f = fc_valid();
	f.output.batch = 2;	/* the output's batch, on its own */
	REJECT(run_default(f), FC_BATCH);
	f = fc_valid();
	f.output.height = 2;
	REJECT(run_default(f), FC_BATCH);
	f = fc_valid();
	f.input.batch = f.output.batch = 2;	/* consistent, still not 1 */
	REJECT(run_default(f), FC_BATCH);
	f = fc_valid();
	f.output.width = 4;	/* M differs */
	REJECT(run_default(f), FC_ROWS);
	f.output.width = 2;
	REJECT(run_default(f), FC_ROWS);
	/* The largest K, and one more. */
	f = fc_valid();
	f.input.channels = ENPU_FC_K_MAX;
	ACCEPT(run_default(f));
	f.input.channels = ENPU_FC_K_MAX + 1;
	REJECT(run_default(f), FC_K);
	memcpy(bos, default_bos, sizeof(bos));
	bos[0].size = UINT64_MAX;	/* so that only K is wrong */
	f.input.channels = 0xffffffff;
	REJECT(run(&f, sizeof(f), bos, 5), FC_K);
	memcpy(bos, default_bos, sizeof(bos));
	/* ... and the weights of the largest K: N * K bytes exactly. */
	f = fc_valid();
	f.input.channels = ENPU_FC_K_MAX;
	f.input.width = f.output.width = 1;
	bos[2].size = 5ull * ENPU_FC_K_MAX;
	ACCEPT(run(&f, sizeof(f), bos, 5));
	bos[2].size--;
	REJECT(run(&f, sizeof(f), bos, 5), REF_RANGE);
	f = fc_valid();
	f.bias.bo_index = 3;
	ACCEPT(run_default(f));
	bos[3].size = 5 * 4;
	ACCEPT(run(&f, sizeof(f), bos, 5));
	bos[3].size--;
	REJECT(run(&f, sizeof(f), bos, 5), REF_RANGE);
	f.output.dtype = ENPU_DTYPE_INT32;	/* requant must then be zero */
	REJECT(run_default(f), REQUANT_INT32);
	f = fc_valid();
	f.weights.reserved = 1;
	REJECT(run_default(f), REF_RESERVED);
	f = fc_valid();
	f.bias.reserved = 1;
	REJECT(run_default(f), REF_RESERVED);
	f = fc_valid();
	f.weights.bo_index = 1;
	REJECT(run_default(f), REF_READ_ACCESS);
	f = fc_valid();
	f.input.dtype = ENPU_DTYPE_INT32;
	f.input.zero_point = 0;
	REJECT(run_default(f), INPUT_INT32);
	f = fc_valid();
	f.requant.shift = 0;
	REJECT(run_default(f), REQUANT_SHIFT);
	f = fc_valid();
	f.requant.max = 128;
	REJECT(run_default(f), CLAMP_RANGE);
	f = fc_valid();
	f.hdr.size = sizeof(struct enpu_cmd_conv2d);
	REJECT(run(&f, sizeof(f), default_bos, 5), PAST_STREAM_END);
	f.hdr.size = sizeof(f) - 8;
	REJECT(run(&f, sizeof(f) - 8, default_bos, 5), COMMAND_SIZE);
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
	REJECT(run_default(e), ELTWISE_BROADCAST);
	e = add_valid();
	e.a.height = 2;		/* a too: neither 4 nor 1 */
	e.b.height = 4;
	REJECT(run_default(e), ELTWISE_BROADCAST);
	e = add_valid();
	e.output.height = 8;	/* not max(4, 1) */
	REJECT(run_default(e), ELTWISE_OUTPUT_DIM);
	e = add_valid();
	e.output.batch = 1;	/* below max(2, 1) */
	REJECT(run_default(e), ELTWISE_OUTPUT_DIM);
	e = add_valid();
	e.output.channels = 1;
	REJECT(run_default(e), ELTWISE_OUTPUT_DIM);
	e = add_valid();
	e.b.dtype = ENPU_DTYPE_UINT8;
	REJECT(run_default(e), ELTWISE_TYPES);
	e = add_valid();
	e.output.dtype = ENPU_DTYPE_UINT8;
	e.min = 0;
	REJECT(run_default(e), ELTWISE_TYPES);
	e = add_valid();
	e.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(e), OUTPUT_INT32);
	e = add_valid();
	e.a.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(e), INPUT_INT32);
	e = add_valid();
	e.b.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(e), INPUT_INT32);
	e = add_valid();
	e.b.buf.bo_index = 1;	/* inputs are read */
	REJECT(run_default(e), REF_READ_ACCESS);
	e = add_valid();
	e.b.buf.offset = BIG;	/* b's extent past its BO */
	REJECT(run_default(e), REF_RANGE);
	e = add_valid();
	e.output.buf.bo_index = 3;
	REJECT(run_default(e), REF_WRITE_ACCESS);
	e = add_valid();
	e.min = 1;
	e.max = 0;
	REJECT(run_default(e), CLAMP_ORDER);
	e = add_valid();
	e.min = -129;
	REJECT(run_default(e), CLAMP_RANGE);
	e = add_valid();
	e.max = 128;
	REJECT(run_default(e), CLAMP_RANGE);
	e = add_valid();
	e.hdr.size -= 8;
	REJECT(run(&e, sizeof(e) - 8, default_bos, 5), COMMAND_SIZE);
}

static void test_eltwise_params(void)
{
	struct enpu_cmd_eltwise e = add_valid();

	e.a_multiplier = ENPU_ADD_MULTIPLIER_LIMIT - 1;
	e.b_multiplier = 0;
	e.add_shift = ENPU_ADD_SHIFT_MAX;
	ACCEPT(run_default(e));
	e.add_shift = ENPU_ADD_SHIFT_MIN;
	ACCEPT(run_default(e));
	e.a_multiplier = ENPU_ADD_MULTIPLIER_LIMIT;
	REJECT(run_default(e), ADD_MULTIPLIER);
	e = add_valid();
	e.b_multiplier = ENPU_ADD_MULTIPLIER_LIMIT;
	REJECT(run_default(e), ADD_MULTIPLIER);
	e.b_multiplier = ENPU_ADD_MULTIPLIER_LIMIT - 1;
	ACCEPT(run_default(e));
	e = add_valid();
	e.b_multiplier = -1;
	REJECT(run_default(e), ADD_MULTIPLIER);
	e = add_valid();
	e.a_multiplier = -1;
	REJECT(run_default(e), ADD_MULTIPLIER);
	e = add_valid();
	e.add_shift = ENPU_ADD_SHIFT_MIN - 1;
	REJECT(run_default(e), ADD_SHIFT);
	e.add_shift = ENPU_ADD_SHIFT_MAX + 1;
	REJECT(run_default(e), ADD_SHIFT);
	e = add_valid();
	e.left_shift = 1;
	REJECT(run_default(e), ADD_MUL_FIELDS);
	e = add_valid();
	e.multiplier = 1;
	REJECT(run_default(e), ADD_MUL_FIELDS);
	e = add_valid();
	e.shift = 31;
	REJECT(run_default(e), ADD_MUL_FIELDS);

	e = mul_valid();
	ACCEPT(run_default(e));
	e.left_shift = ENPU_MUL_LEFT_SHIFT_MAX;
	ACCEPT(run_default(e));
	e.left_shift = 0;
	ACCEPT(run_default(e));
	e.left_shift = ENPU_MUL_LEFT_SHIFT_MAX + 1;
	REJECT(run_default(e), MUL_LEFT_SHIFT);
	e.left_shift = -1;
	REJECT(run_default(e), MUL_LEFT_SHIFT);
	e = mul_valid();
	e.shift = ENPU_REQUANT_SHIFT_MIN;
	ACCEPT(run_default(e));
	e.shift = ENPU_REQUANT_SHIFT_MIN - 1;
	REJECT(run_default(e), MUL_SHIFT);
	e.shift = ENPU_REQUANT_SHIFT_MAX + 1;
	REJECT(run_default(e), MUL_SHIFT);
	e = mul_valid();
	e.multiplier = 0;
	ACCEPT(run_default(e));
	e.multiplier = -5;
	REJECT(run_default(e), MUL_MULTIPLIER);
	e = mul_valid();
	e.add_shift = 1;
	REJECT(run_default(e), MUL_ADD_FIELDS);
	e = mul_valid();
	e.a_multiplier = 1;
	REJECT(run_default(e), MUL_ADD_FIELDS);
	e = mul_valid();
	e.b_multiplier = 1;
	REJECT(run_default(e), MUL_ADD_FIELDS);
	e = mul_valid();
	e.min = 5;
	e.max = 4;
	REJECT(run_default(e), CLAMP_ORDER);
}

/* ---- MAX_POOL / AVG_POOL ---- */

static void test_pool_shape(void)
{
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_MAX_POOL);

	ACCEPT(run_default(p));
	p.output.height = 5;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	p.output.height = 3;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* Ceil mode: (9 - 3 + 1) / 2 + 1 = 4 still; with pad_bottom 1, 5. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.flags = ENPU_POOL_CEIL_MODE;
	ACCEPT(run_default(p));
	p.pad_bottom = 1;
	p.output.height = 5;
	ACCEPT(run_default(p));
	p.output.height = 4;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* Without ceil mode the same pads give 4. */
	p.flags = 0;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.channels = 4;
	REJECT(run_default(p), POOL_BATCH_CHANNELS);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.batch = 2;
	REJECT(run_default(p), POOL_BATCH_CHANNELS);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.dtype = ENPU_DTYPE_INT8;
	p.min = -128;
	p.max = 127;
	REJECT(run_default(p), POOL_TYPE);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(p), OUTPUT_INT32);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.input.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(p), INPUT_INT32);
	/* Kernel larger than the padded input. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.kernel_height = 10;
	REJECT(run_default(p), WINDOW);
	p.kernel_height = 9;
	p.output.height = 1;
	ACCEPT(run_default(p));
	/* Global average pooling: the kernel is the whole input. */
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.kernel_height = p.kernel_width = 9;
	p.output.height = p.output.width = 1;
	ACCEPT(run_default(p));
	/* The largest kernel: a 1x65535 row pooled to one pixel. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.input.height = 1;
	p.input.width = ENPU_POOL_KERNEL_MAX;
	p.kernel_height = 1;
	p.kernel_width = ENPU_POOL_KERNEL_MAX;
	p.output.height = p.output.width = 1;
	ACCEPT(run_default(p));
}

/*
 * Ceil mode, ONNX's rule: out = ceil((in + pads - span) / stride) + 1,
 * minus a last window that would start at or past in + pad_begin.
 */
static void test_pool_ceil_mode_edges(void)
{
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_MAX_POOL);

	/* in 4, kernel 2, stride 3, pads 1/1: ceil gives 3; the third
	 * window would start at 6 >= 4 + 1, so it is dropped: 2. */
	p.flags = ENPU_POOL_CEIL_MODE;
	p.input.height = 4;
	p.kernel_height = 2;
	p.stride_height = 3;
	p.pad_top = p.pad_bottom = 1;
	p.output.height = 2;
	ACCEPT(run_default(p));
	p.output.height = 3;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* in 5, pads 0/1: ceil((6 - 2) / 3) + 1 = 3, last window starts at 6,
	 * past 5 + 0: dropped, 2. */
	p.input.height = 5;
	p.pad_top = 0;
	p.output.height = 2;
	ACCEPT(run_default(p));
	p.output.height = 3;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* in 6, pads 0/1: ceil(5 / 3) + 1 = 3, last window starts at 6 ==
	 * in + pad_begin: still dropped (it would hold only padding). */
	p.input.height = 6;
	p.output.height = 2;
	ACCEPT(run_default(p));
	p.output.height = 3;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* in 7, pads 0/1: ceil(6 / 3) + 1 = 3, last window starts at 6 < 7:
	 * kept. */
	p.input.height = 7;
	p.output.height = 3;
	ACCEPT(run_default(p));
	p.output.height = 2;
	REJECT(run_default(p), POOL_OUTPUT_SIZE);
	/* Exact division: ceil and floor agree. */
	p.pad_bottom = 0;
	p.input.height = 8;	/* (8 - 2) / 3 + 1 = 3 */
	p.output.height = 3;
	ACCEPT(run_default(p));
	p.flags = 0;
	ACCEPT(run_default(p));
	/* Floor mode on the in-7 case: (8 - 2) / 3 + 1 = 3 as well, but in 6
	 * with pad 1 gives floor(5 / 3) + 1 = 2. */
	p.input.height = 6;
	p.pad_bottom = 1;
	p.output.height = 2;
	ACCEPT(run_default(p));
	/* Stride 1: ceil mode changes nothing. */
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.flags = ENPU_POOL_CEIL_MODE;
	p.stride_height = p.stride_width = 1;
	p.output.height = p.output.width = 7;
	ACCEPT(run_default(p));
}

static void test_pool_params(void)
{
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_MAX_POOL);

	p.kernel_height = 0;
	REJECT(run_default(p), POOL_KERNEL);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.kernel_width = ENPU_POOL_KERNEL_MAX + 1;
	REJECT(run_default(p), POOL_KERNEL);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.stride_width = ENPU_LAYER_STRIDE_MAX + 1;
	REJECT(run_default(p), POOL_STRIDE);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.stride_height = 0;
	REJECT(run_default(p), POOL_STRIDE);
	p = pool_valid(ENPU_CMD_MAX_POOL);	/* the largest stride */
	p.stride_height = p.stride_width = ENPU_LAYER_STRIDE_MAX;
	p.output.height = p.output.width = 1;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.dilation_height = 0;
	REJECT(run_default(p), POOL_DILATION);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.dilation_width = ENPU_LAYER_DILATION_MAX + 1;
	REJECT(run_default(p), POOL_DILATION);
	p = pool_valid(ENPU_CMD_MAX_POOL);	/* 1x1 kernel, any dilation */
	p.kernel_height = p.kernel_width = 1;
	p.stride_height = p.stride_width = 1;
	p.dilation_height = p.dilation_width = ENPU_LAYER_DILATION_MAX;
	p.output.height = p.output.width = 9;
	ACCEPT(run_default(p));
	/* Pads: each must be below the kernel size of its axis. */
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.pad_left = 3;		/* equal to kernel 3 */
	REJECT(run_default(p), POOL_PAD);
	p.pad_left = 2;		/* one below */
	p.output.width = 5;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.pad_top = 3;
	REJECT(run_default(p), POOL_PAD);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.pad_bottom = 3;
	REJECT(run_default(p), POOL_PAD);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.pad_right = 3;
	REJECT(run_default(p), POOL_PAD);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.kernel_width = 4;	/* a wider kernel allows a larger pad */
	p.pad_right = 3;
	p.output.width = 5;
	ACCEPT(run_default(p));
	p.pad_top = 3;		/* but not on the other axis (kernel 3) */
	REJECT(run_default(p), POOL_PAD);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.flags = 4;
	REJECT(run_default(p), POOL_FLAGS);
	p.flags = 0x80000000u;	/* the highest flag bit */
	REJECT(run_default(p), POOL_FLAGS);
	p.flags = ENPU_POOL_COUNT_INCLUDE_PAD;
	REJECT(run_default(p), POOL_INCLUDE_PAD);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.reserved = 1;
	REJECT(run_default(p), POOL_RESERVED);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.reserved2 = 1;
	REJECT(run_default(p), POOL_RESERVED);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.min = 1;		/* MAX_POOL: the type's range exactly */
	REJECT(run_default(p), MAX_POOL_CLAMP);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.max = 254;
	REJECT(run_default(p), MAX_POOL_CLAMP);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.multiplier = 1;
	REJECT(run_default(p), MAX_POOL_REQUANT);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.shift = 31;
	REJECT(run_default(p), MAX_POOL_REQUANT);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.left_shift = 1;
	REJECT(run_default(p), MAX_POOL_REQUANT);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.params.bo_index = 3;
	REJECT(run_default(p), MAX_POOL_TABLE);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.params.offset = 16;
	REJECT_KERNEL_ONLY(run_default(p), REF_NONE_OFFSET);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.params.reserved = 1;
	REJECT(run_default(p), REF_RESERVED);
	p = pool_valid(ENPU_CMD_MAX_POOL);	/* int8: -128..127 exactly */
	p.input.dtype = p.output.dtype = ENPU_DTYPE_INT8;
	p.min = -128;
	p.max = 127;
	ACCEPT(run_default(p));
	p.min = 0;
	REJECT(run_default(p), MAX_POOL_CLAMP);
	p = pool_valid(ENPU_CMD_MAX_POOL);
	p.hdr.size -= 8;
	REJECT(run(&p, sizeof(p) - 8, default_bos, 5), COMMAND_SIZE);
}

static void test_avg_pool_params(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_pool p = pool_valid(ENPU_CMD_AVG_POOL);

	ACCEPT(run_default(p));
	p.flags = ENPU_POOL_COUNT_INCLUDE_PAD | ENPU_POOL_CEIL_MODE;
	ACCEPT(run_default(p));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.left_shift = ENPU_POOL_LEFT_SHIFT_MAX;
	ACCEPT(run_default(p));
	p.left_shift = ENPU_POOL_LEFT_SHIFT_MAX + 1;
	REJECT(run_default(p), AVG_POOL_LEFT_SHIFT);
	p.left_shift = -1;
	REJECT(run_default(p), AVG_POOL_LEFT_SHIFT);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.shift = ENPU_REQUANT_SHIFT_MAX;
	ACCEPT(run_default(p));
	p.shift = ENPU_REQUANT_SHIFT_MIN;
	ACCEPT(run_default(p));
	p.shift = ENPU_REQUANT_SHIFT_MAX + 1;
	REJECT(run_default(p), AVG_POOL_SHIFT);
	p.shift = ENPU_REQUANT_SHIFT_MIN - 1;
	REJECT(run_default(p), AVG_POOL_SHIFT);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.multiplier = 0;
	ACCEPT(run_default(p));
	p.multiplier = -1;
	REJECT(run_default(p), AVG_POOL_MULTIPLIER);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.min = 200;
	p.max = 100;
	REJECT(run_default(p), CLAMP_ORDER);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.max = 256;
	REJECT(run_default(p), CLAMP_RANGE);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.min = -1;
	REJECT(run_default(p), CLAMP_RANGE);
	/* A table of kh * kw = 9 entries of 16 bytes. */
	memcpy(bos, default_bos, sizeof(bos));
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.params.bo_index = 3;
	p.multiplier = p.shift = p.left_shift = 0;
	bos[3].size = 144;
	ACCEPT(run(&p, sizeof(p), bos, 5));
	bos[3].size = 143;
	REJECT(run(&p, sizeof(p), bos, 5), REF_RANGE);
	bos[3].size = 144;
	p.params.offset = 1;
	REJECT(run(&p, sizeof(p), bos, 5), REF_RANGE);
	p.params.offset = 0;
	p.shift = 40;
	REJECT(run(&p, sizeof(p), bos, 5), AVG_POOL_TABLE_FIELDS);
	p.shift = 0;
	p.multiplier = 1;
	REJECT(run(&p, sizeof(p), bos, 5), AVG_POOL_TABLE_FIELDS);
	p.multiplier = 0;
	p.left_shift = 1;
	REJECT(run(&p, sizeof(p), bos, 5), AVG_POOL_TABLE_FIELDS);
	p.left_shift = 0;
	p.params.bo_index = 1;	/* tables are read */
	REJECT(run(&p, sizeof(p), bos, 5), REF_READ_ACCESS);
	p.params.bo_index = 5;
	REJECT(run(&p, sizeof(p), bos, 5), REF_BO_INDEX);
	p.params.bo_index = 3;
	p.min = 3;		/* the clamp applies with a table too */
	p.max = 2;
	REJECT(run(&p, sizeof(p), bos, 5), CLAMP_ORDER);
	p = pool_valid(ENPU_CMD_AVG_POOL);
	p.params.offset = 16;
	REJECT_KERNEL_ONLY(run_default(p), REF_NONE_OFFSET);
}

/* ---- COPY ---- */

static void test_copy(void)
{
	struct enpu_cmd_copy c = copy_valid();

	ACCEPT(run_default(c));
	c.output.dtype = ENPU_DTYPE_INT8;
	REJECT(run_default(c), COPY_TYPE);
	c = copy_valid();
	c.input.dtype = c.output.dtype = ENPU_DTYPE_UINT8;
	c.input.zero_point = 3;
	c.output.zero_point = 4;
	REJECT(run_default(c), COPY_TYPE);
	c.output.zero_point = 3;
	ACCEPT(run_default(c));
	c = copy_valid();
	c.output.width = 5;
	REJECT(run_default(c), COPY_SHAPE);
	c = copy_valid();
	c.output.batch = 2;
	REJECT(run_default(c), COPY_SHAPE);
	c = copy_valid();
	c.output.height = 3;
	REJECT(run_default(c), COPY_SHAPE);
	c = copy_valid();
	c.output.channels = 2;
	REJECT(run_default(c), COPY_SHAPE);
	c = copy_valid();
	c.output.buf.bo_index = 2;
	REJECT(run_default(c), REF_WRITE_ACCESS);
	c = copy_valid();
	c.input.buf.bo_index = 1;
	REJECT(run_default(c), REF_READ_ACCESS);
	c = copy_valid();
	c.input.zero_point = c.output.zero_point = 1;	/* INT32: 0 only */
	REJECT(run_default(c), TENSOR_ZERO_POINT);
	c = copy_valid();
	c.output.pixel_stride = 2;
	REJECT(run_default(c), TENSOR_STRIDE);
	c = copy_valid();
	c.hdr.size -= 8;
	REJECT(run(&c, sizeof(c) - 8, default_bos, 5), COMMAND_SIZE);
}

/* ---- QUANTIZE (1.6) ---- */

static void quantize_scale(struct enpu_cmd_quantize *q, uint32_t bits)
{
	q->scale = bits;
}

static void test_quantize(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_quantize q = quantize_valid();
	struct enpu_cmd_copy c;
	uint64_t in_bytes = 4 * 4 * 3 * 4;

	ACCEPT(run_default(q));
	q.output.dtype = ENPU_DTYPE_INT8;
	q.output.zero_point = -128;
	ACCEPT(run_default(q));
	q.output.zero_point = 127;
	ACCEPT(run_default(q));
	q.output.zero_point = 128;
	REJECT(run_default(q), TENSOR_ZERO_POINT);
	/* The scale: positive, finite, non-zero binary32 bits. */
	q = quantize_valid();
	quantize_scale(&q, ENPU_QUANTIZE_SCALE_MIN);	/* smallest subnormal */
	ACCEPT(run_default(q));
	quantize_scale(&q, ENPU_QUANTIZE_SCALE_LIMIT - 1);	/* FLT_MAX */
	ACCEPT(run_default(q));
	quantize_scale(&q, ENPU_QUANTIZE_SCALE_LIMIT);	/* +inf */
	REJECT(run_default(q), QUANTIZE_SCALE);
	quantize_scale(&q, ENPU_QUANTIZE_SCALE_MIN - 1);	/* +0 */
	REJECT(run_default(q), QUANTIZE_SCALE);
	quantize_scale(&q, 0x7fc00000u);		/* NaN */
	REJECT(run_default(q), QUANTIZE_SCALE);
	quantize_scale(&q, 0x80000000u);		/* -0 */
	REJECT(run_default(q), QUANTIZE_SCALE);
	quantize_scale(&q, 0xbf800000u);		/* -1 */
	REJECT(run_default(q), QUANTIZE_SCALE);
	q = quantize_valid();
	q.reserved = 1;
	REJECT(run_default(q), QUANTIZE_RESERVED);
	q.reserved = 0x80000000u;
	REJECT(run_default(q), QUANTIZE_RESERVED);
	/* Types: float32 in, 8-bit out, nothing else. */
	q = quantize_valid();
	q.input.dtype = ENPU_DTYPE_UINT8;
	REJECT(run_default(q), QUANTIZE_TYPES);
	q.input.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(q), QUANTIZE_TYPES);
	q = quantize_valid();
	q.output.dtype = ENPU_DTYPE_FLOAT32;
	q.output.zero_point = 0;
	REJECT(run_default(q), QUANTIZE_TYPES);
	q.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(q), QUANTIZE_TYPES);
	q = quantize_valid();
	q.input.zero_point = 1;			/* float: 0 only */
	REJECT(run_default(q), TENSOR_ZERO_POINT);
	q.input.zero_point = -1;
	REJECT(run_default(q), TENSOR_ZERO_POINT);
	q = quantize_valid();
	q.input.dtype = ENPU_DTYPE_FLOAT32 + 1;
	REJECT(run_default(q), TENSOR_DTYPE);
	/* Shape: each dimension equal. */
	q = quantize_valid();
	q.output.batch = 2;
	REJECT(run_default(q), QUANTIZE_SHAPE);
	q = quantize_valid();
	q.output.height = 3;
	REJECT(run_default(q), QUANTIZE_SHAPE);
	q = quantize_valid();
	q.output.width = 5;
	REJECT(run_default(q), QUANTIZE_SHAPE);
	q = quantize_valid();
	q.output.channels = 2;
	REJECT(run_default(q), QUANTIZE_SHAPE);
	/* Extents: 4 bytes an input element, 1 an output element. */
	memcpy(bos, default_bos, sizeof(bos));
	q = quantize_valid();
	bos[0].size = in_bytes;
	ACCEPT(run(&q, sizeof(q), bos, 5));
	bos[0].size = in_bytes - 1;
	REJECT(run(&q, sizeof(q), bos, 5), REF_RANGE);
	bos[0].size = in_bytes;
	bos[1].size = 15 * 6 + 3;		/* last pixel, 3 channels */
	ACCEPT(run(&q, sizeof(q), bos, 5));
	bos[1].size--;
	REJECT(run(&q, sizeof(q), bos, 5), REF_RANGE);
	q = quantize_valid();
	q.input.buf.bo_index = 1;
	REJECT(run_default(q), REF_READ_ACCESS);
	q = quantize_valid();
	q.output.buf.bo_index = 0;
	REJECT(run_default(q), REF_WRITE_ACCESS);
	q = quantize_valid();
	q.input.buf.bo_index = 5;
	REJECT(run_default(q), REF_BO_INDEX);
	q = quantize_valid();
	q.hdr.size -= 8;
	REJECT(run(&q, sizeof(q) - 8, default_bos, 5), COMMAND_SIZE);
	/* COPY moves float32 (same type both sides), nothing else does. */
	c = copy_valid();
	c.input.dtype = c.output.dtype = ENPU_DTYPE_FLOAT32;
	ACCEPT(run_default(c));
	c.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(c), COPY_TYPE);
}

/* ---- DEQUANTIZE (1.7) ---- */

static void test_dequantize(void)
{
	struct enpu_validate_bo bos[5];
	struct enpu_cmd_dequantize d = dequantize_valid();
	uint64_t in_bytes = 4 * 4 * 3;

	ACCEPT(run_default(d));
	d.input.dtype = ENPU_DTYPE_INT8;
	d.input.zero_point = -128;
	ACCEPT(run_default(d));
	d.input.zero_point = 127;
	ACCEPT(run_default(d));
	d.input.zero_point = 128;
	REJECT(run_default(d), TENSOR_ZERO_POINT);
	/* The scale: QUANTIZE's rule, named as DEQUANTIZE's. */
	d = dequantize_valid();
	d.scale = ENPU_QUANTIZE_SCALE_MIN;		/* smallest subnormal */
	ACCEPT(run_default(d));
	d.scale = ENPU_QUANTIZE_SCALE_LIMIT - 1;	/* FLT_MAX */
	ACCEPT(run_default(d));
	d.scale = ENPU_QUANTIZE_SCALE_LIMIT;		/* +inf */
	REJECT(run_default(d), DEQUANTIZE_SCALE);
	d.scale = ENPU_QUANTIZE_SCALE_MIN - 1;		/* +0 */
	REJECT(run_default(d), DEQUANTIZE_SCALE);
	d.scale = 0x7fc00000u;				/* NaN */
	REJECT(run_default(d), DEQUANTIZE_SCALE);
	d.scale = 0x80000000u;				/* -0 */
	REJECT(run_default(d), DEQUANTIZE_SCALE);
	d.scale = 0xbf800000u;				/* -1 */
	REJECT(run_default(d), DEQUANTIZE_SCALE);
	d = dequantize_valid();
	d.reserved = 1;
	REJECT(run_default(d), DEQUANTIZE_RESERVED);
	d.reserved = 0x80000000u;
	REJECT(run_default(d), DEQUANTIZE_RESERVED);
	/* Types: 8-bit in, float32 out, nothing else. */
	d = dequantize_valid();
	d.input.zero_point = 0;
	d.input.dtype = ENPU_DTYPE_FLOAT32;
	REJECT(run_default(d), DEQUANTIZE_TYPES);
	d.input.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(d), DEQUANTIZE_TYPES);
	d = dequantize_valid();
	d.output.dtype = ENPU_DTYPE_UINT8;
	REJECT(run_default(d), DEQUANTIZE_TYPES);
	d.output.dtype = ENPU_DTYPE_INT32;
	REJECT(run_default(d), DEQUANTIZE_TYPES);
	d = dequantize_valid();
	d.output.zero_point = 1;		/* float: 0 only */
	REJECT(run_default(d), TENSOR_ZERO_POINT);
	d = dequantize_valid();
	d.output.dtype = ENPU_DTYPE_FLOAT32 + 1;
	REJECT(run_default(d), TENSOR_DTYPE);
	/* Shape: each dimension equal. */
	d = dequantize_valid();
	d.output.batch = 2;
	REJECT(run_default(d), DEQUANTIZE_SHAPE);
	d = dequantize_valid();
	d.output.height = 3;
	REJECT(run_default(d), DEQUANTIZE_SHAPE);
	d = dequantize_valid();
	d.output.width = 5;
	REJECT(run_default(d), DEQUANTIZE_SHAPE);
	d = dequantize_valid();
	d.output.channels = 2;
	REJECT(run_default(d), DEQUANTIZE_SHAPE);
	/* Extents: 1 byte an input element, 4 an output element. */
	memcpy(bos, default_bos, sizeof(bos));
	d = dequantize_valid();
	bos[0].size = in_bytes;
	ACCEPT(run(&d, sizeof(d), bos, 5));
	bos[0].size = in_bytes - 1;
	REJECT(run(&d, sizeof(d), bos, 5), REF_RANGE);
	bos[0].size = in_bytes;
	bos[1].size = (15 * 6 + 3) * 4;		/* last pixel, 3 channels */
	ACCEPT(run(&d, sizeof(d), bos, 5));
	bos[1].size--;
	REJECT(run(&d, sizeof(d), bos, 5), REF_RANGE);
	d = dequantize_valid();
	d.input.buf.bo_index = 1;
	REJECT(run_default(d), REF_READ_ACCESS);
	d = dequantize_valid();
	d.output.buf.bo_index = 0;
	REJECT(run_default(d), REF_WRITE_ACCESS);
	d = dequantize_valid();
	d.hdr.size -= 8;
	REJECT(run(&d, sizeof(d), default_bos, 5), COMMAND_SIZE);
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
	REJECT_AT(run_default(s), (uint32_t)offsetof(struct three_commands, pool),
		  POOL_OUTPUT_SIZE);
	s.add.add_shift = 0;
	REJECT_AT(run_default(s), (uint32_t)offsetof(struct three_commands, add),
		  ADD_SHIFT);
	s.conv.hdr.flags = 2;
	REJECT_AT(run_default(s), 0, HEADER_FLAGS);
}

/*
 * The device's own refusals (descriptor, BO table, scatter-gather, save
 * area: vnpu.h) have names of their own, none "unknown", none shared with
 * a command rule, and a command rule keeps its name through the device.
 */
static void test_device_rule_names(void)
{
	static const struct {
		uint32_t rule;
		const char *name;
	} spot[] = {
		{ VNPU_RULE_DESC_FLAGS, "desc_flags" },
		{ VNPU_RULE_STREAM_RANGE, "stream_range" },
		{ VNPU_RULE_SG_COUNT, "sg_count" },
		{ VNPU_RULE_SAVE_STATE, "save_state" },
		{ ENPU_RULE_CONV_PAD, "conv_pad" },
	};

	for (uint32_t a = VNPU_RULE_DESC_FLAGS; a < VNPU_RULE_END; a++) {
		const char *name = vnpu_rule_name(a);

		checks_in_test++;
		if (!name || !strcmp(name, "unknown")) {
			failures++;
			fprintf(stderr, "  device rule %#x has no name\n", a);
			continue;
		}
		for (uint32_t b = 0; b < ENPU_RULE_COUNT; b++)
			if (!strcmp(name, enpu_cmd_rule_name(b)))
				failures++, fprintf(stderr, "  device rule %#x "
						    "is named like rule %u\n",
						    a, b);
		for (uint32_t b = VNPU_RULE_DESC_FLAGS; b < a; b++)
			if (vnpu_rule_name(b) && !strcmp(name, vnpu_rule_name(b)))
				failures++, fprintf(stderr, "  device rules %#x "
						    "and %#x are both %s\n",
						    a, b, name);
	}
	for (size_t i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
		checks_in_test++;
		if (strcmp(vnpu_rule_name(spot[i].rule), spot[i].name))
			failures++, fprintf(stderr, "  rule %#x is %s, want %s\n",
					    spot[i].rule,
					    vnpu_rule_name(spot[i].rule),
					    spot[i].name);
	}
}

/* Every rule has a distinct name, and values past the list are unknown. */
static void test_rule_names(void)
{
	for (uint32_t a = 0; a < ENPU_RULE_COUNT; a++) {
		const char *name = enpu_cmd_rule_name(a);

		checks_in_test++;
		if (!strcmp(name, "unknown"))
			failures++, fprintf(stderr, "  rule %u has no name\n", a);
		for (uint32_t b = 0; b < a; b++)
			if (!strcmp(name, enpu_cmd_rule_name(b)))
				failures++, fprintf(stderr, "  rules %u and %u "
						    "are both %s\n", a, b, name);
	}
	checks_in_test++;
	if (strcmp(enpu_cmd_rule_name(ENPU_RULE_COUNT), "unknown") ||
	    strcmp(enpu_cmd_rule_name(UINT32_MAX), "unknown"))
		failures++;
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
	struct enpu_cmd_quantize quantize = quantize_valid();
	struct enpu_cmd_dequantize dequantize = dequantize_valid();
	struct enpu_cmd_conv2d none_bias = conv_valid();
	struct enpu_cmd_pool ceil_pool = pool_valid(ENPU_CMD_AVG_POOL),
			     table_pool = pool_valid(ENPU_CMD_AVG_POOL);
	struct enpu_cmd_dma_copy dma_copy;
	struct enpu_cmd_dma_fill dma_fill;
	struct enpu_cmd_nop nop;
	struct {
		struct enpu_cmd_nop nop;
		struct enpu_cmd_conv2d conv;
		struct enpu_cmd_eltwise add;
	} chain;
	const struct {
		const char *name;
		const void *cmd;
		size_t size;
		int want;
	} list[] = {
		{ "nop", &nop, sizeof(nop), 0 },
		{ "dma_copy", &dma_copy, sizeof(dma_copy), 0 },
		{ "dma_fill", &dma_fill, sizeof(dma_fill), 0 },
		{ "chain", &chain, sizeof(chain), 0 },
		{ "none_bias_offset", &none_bias, sizeof(none_bias), -EINVAL },
		{ "ceil_pool", &ceil_pool, sizeof(ceil_pool), 0 },
		{ "table_pool", &table_pool, sizeof(table_pool), 0 },
		{ "conv2d", &conv, sizeof(conv), 0 },
		{ "depthwise", &dw, sizeof(dw), 0 },
		{ "fc", &fc, sizeof(fc), 0 },
		{ "add", &add, sizeof(add), 0 },
		{ "mul", &mul, sizeof(mul), 0 },
		{ "max_pool", &maxp, sizeof(maxp), 0 },
		{ "avg_pool", &avgp, sizeof(avgp), 0 },
		{ "copy", &copy, sizeof(copy), 0 },
		{ "quantize", &quantize, sizeof(quantize), 0 },
		{ "dequantize", &dequantize, sizeof(dequantize), 0 },
		{ "bad_conv", &bad_conv, sizeof(bad_conv), -EINVAL },
	};
	size_t n;

	bad_conv.output.height = 9;
	memset(&nop, 0, sizeof(nop));
	hdr(&nop.hdr, ENPU_CMD_NOP, sizeof(nop));
	nop.cycles = 100;
	memset(&dma_copy, 0, sizeof(dma_copy));
	hdr(&dma_copy.hdr, ENPU_CMD_DMA_COPY, sizeof(dma_copy));
	dma_copy.src.bo_index = 4;
	dma_copy.dst.bo_index = 4;
	dma_copy.dst.offset = 512;
	dma_copy.size = 512;
	memset(&dma_fill, 0, sizeof(dma_fill));
	hdr(&dma_fill.hdr, ENPU_CMD_DMA_FILL, sizeof(dma_fill));
	dma_fill.dst.bo_index = 1;
	dma_fill.dst.offset = 100;
	dma_fill.size = 1000;
	dma_fill.value = 0x5a;
	chain.nop = nop;
	chain.conv = conv_valid();
	chain.add = add_valid();
	none(&none_bias.bias);
	none_bias.bias.offset = 64;
	ceil_pool.flags = ENPU_POOL_CEIL_MODE | ENPU_POOL_COUNT_INCLUDE_PAD;
	ceil_pool.pad_bottom = 1;
	ceil_pool.output.height = 5;
	table_pool.params.bo_index = 3;
	table_pool.multiplier = table_pool.shift = table_pool.left_shift = 0;
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
	struct seed seeds[24];
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

/* Values at the edges of the format's ranges, for 32-bit fields. */
static const uint32_t edge_values[] = {
	0, 1, 2, 3, 4, 8, 15, 16, 21, 30, 31, 32, 61, 62, 63, 64, 127, 128,
	255, 256, 65535, 65536, 65537, 1u << 20, 1u << 21, 0x7fffffff,
	0x80000000u, 0xfffffffeu, 0xffffffffu, ENPU_BUF_NONE,
};

static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * The differential contract on the seeds and on deterministic mutations
 * of them (edge values written into 32-bit fields, bit flips, BOs made
 * smaller or read-only): the same checks the fuzzer makes, on every
 * `make check`, under ASan and UBSan.
 */
static void test_differential_replay(void)
{
	struct seed seeds[24];
	size_t count = make_seeds(seeds);
	uint64_t state = 0x5eed0fd1ffull;
	unsigned int accepted = 0, rejected = 0;
	uint8_t data[1024];

	for (size_t i = 0; i < count; i++) {
		int both = differential_fuzz_one(seeds[i].data, seeds[i].size);

		checks_in_test++;
		if (both != (seeds[i].want == 0)) {
			failures++;
			fprintf(stderr, "  seed %s: both accepted %d\n",
				seeds[i].name, both);
		}
	}
	for (unsigned int round = 0; round < 40000; round++) {
		const struct seed *sd = &seeds[xorshift(&state) % count];
		size_t header = 1 + 5 * VALIDATE_FUZZ_BO_BYTES;
		size_t words = (sd->size - header) / 4;
		unsigned int edits = 1 + xorshift(&state) % 3;

		memcpy(data, sd->data, sd->size);
		for (unsigned int e = 0; e < edits; e++) {
			uint64_t r = xorshift(&state);
			uint8_t *at = data + header + 4 * (r % words);
			uint32_t v = edge_values[(r >> 20) % ARRAY_SIZE(edge_values)];

			switch ((r >> 40) % 4) {
			case 0:
				memcpy(at, &v, 4);
				break;
			case 1:
				at[(r >> 44) % 4] ^= (uint8_t)(1u << ((r >> 48) % 8));
				break;
			case 2:	/* a BO shorter, or its size an edge value */
				data[1 + ((r >> 44) % 5) * VALIDATE_FUZZ_BO_BYTES] ^=
					(uint8_t)(r >> 52);
				break;
			default:	/* access bits */
				data[1 + ((r >> 44) % 5) * VALIDATE_FUZZ_BO_BYTES + 8] =
					(uint8_t)((r >> 52) % 4);
				break;
			}
		}
		if (differential_fuzz_one(data, sd->size) == 1)
			accepted++;
		else
			rejected++;
	}
	/* Both outcomes must be common, or the mutations test nothing. */
	checks_in_test++;
	if (accepted < 2000 || rejected < 2000) {
		failures++;
		fprintf(stderr, "  mutations: %u accepted, %u rejected\n",
			accepted, rejected);
	}
}

static int write_corpus(const char *dir)
{
	struct seed seeds[24];
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
	{ "stream_truncated_inside_a_command",
	  test_stream_truncated_inside_a_command },
	{ "stream_of_the_maximum_size", test_stream_of_the_maximum_size },
	{ "stream_size_rule", test_stream_size_rule },
	{ "nop", test_nop },
	{ "dma_copy", test_dma_copy },
	{ "dma_fill", test_dma_fill },
	{ "tensor_fields", test_tensor_fields },
	{ "tensor_extent", test_tensor_extent },
	{ "conv_ranges", test_conv_ranges },
	{ "conv_output_shape", test_conv_output_shape },
	{ "ref_density", test_ref_density },
	{ "conv_groups", test_conv_groups },
	{ "conv_weights_bias", test_conv_weights_bias },
	{ "requant", test_requant },
	{ "int32_output", test_int32_output },
	{ "fc", test_fc },
	{ "eltwise_shapes", test_eltwise_shapes },
	{ "eltwise_params", test_eltwise_params },
	{ "pool_shape", test_pool_shape },
	{ "pool_ceil_mode_edges", test_pool_ceil_mode_edges },
	{ "pool_params", test_pool_params },
	{ "avg_pool_params", test_avg_pool_params },
	{ "copy", test_copy },
	{ "quantize", test_quantize },
	{ "dequantize", test_dequantize },
	{ "offset_of_bad_command", test_offset_of_bad_command },
	{ "rule_names", test_rule_names },
	{ "device_rule_names", test_device_rule_names },
	{ "fuzz_seeds_replay", test_fuzz_seeds_replay },
	{ "differential_replay", test_differential_replay },
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
	for (unsigned int i = 0; i < device_plan_test_count; i++) {
		struct test_tally tally = { 0, 0 };

		current_test = device_plan_tests[i].name;
		device_plan_tests[i].run(&tally);
		if (!tally.failures && tally.checks > 0) {
			passed++;
			printf("ok   %s (%d checks)\n", current_test,
			       tally.checks);
		} else {
			failed++;
			printf("FAIL %s\n", current_test);
		}
	}
	printf("test-validate: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
