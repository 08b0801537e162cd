// SPDX-License-Identifier: GPL-2.0
/*
 * What the vnpu does with a stream its checker accepted, beyond the
 * accept/reject verdicts of test_validate.c: layer_decode() carries every
 * field of each layer command, layer_cost() gives the MACs, bytes and
 * cycles of docs/hw/vnpu.md's timing model (expected values worked out
 * by hand in the comments, from the formula, not from the code), the
 * job's cycle total adds its commands' cycles and saturates,
 * cmdstream_plan() cuts each command into the units of its kind (one for
 * a layer that writes a BO it reads), and cmdstream_perform() moves
 * exactly the bytes of the units asked for, through scatter-gather BOs
 * (tests/vnpu_exec/guest_model.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "checkers.h"
#include "device_plan_test.h"
#include "enpu_cmd.h"
#include "guest_model.h"
#include "layer.h"
#include "vnpu.h"

#define R ENPU_BO_ACCESS_READ
#define W ENPU_BO_ACCESS_WRITE
#define BIG (1ull << 20)

/* Every BO readable and writable, so that any layout is allowed. */
static const struct enpu_validate_bo rw_bos[] = {
	{ BIG, R | W }, { BIG, R | W }, { BIG, R | W }, { BIG, R | W },
	{ BIG, R | W },
};

static void check_eq(struct test_tally *t, int line, const char *what,
		     unsigned long long got, unsigned long long want)
{
	t->checks++;
	if (got == want)
		return;
	t->failures++;
	fprintf(stderr, "  line %d: %s is %llu (%#llx), want %llu (%#llx)\n",
		line, what, got, got, want, want);
}

#define EQ(t, got, want) check_eq((t), __LINE__, #got, (got), (want))

static void hdr(struct enpu_cmd_header *h, uint16_t opcode, uint32_t size)
{
	h->opcode = opcode;
	h->flags = 0;
	h->size = size;
}

static void tensor(struct enpu_tensor_desc *t, uint32_t bo, uint64_t offset,
		   uint32_t n, uint32_t h, uint32_t w, uint32_t c,
		   uint8_t dtype)
{
	memset(t, 0, sizeof(*t));
	t->buf.bo_index = bo;
	t->buf.offset = offset;
	t->batch = n;
	t->height = h;
	t->width = w;
	t->channels = c;
	t->dtype = dtype;
}

static void ref(struct enpu_buf_ref *r, uint32_t bo, uint64_t offset)
{
	memset(r, 0, sizeof(*r));
	r->bo_index = bo;
	r->offset = offset;
}

static void expect_tensor(struct test_tally *t, int line,
			  const struct layer_tensor *got,
			  const struct enpu_tensor_desc *want)
{
	uint32_t stride = want->pixel_stride ? want->pixel_stride :
					       want->channels;

	check_eq(t, line, "tensor bo", got->bo, want->buf.bo_index);
	check_eq(t, line, "tensor offset", got->offset, want->buf.offset);
	check_eq(t, line, "tensor batch", got->n, want->batch);
	check_eq(t, line, "tensor height", got->h, want->height);
	check_eq(t, line, "tensor width", got->w, want->width);
	check_eq(t, line, "tensor channels", got->c, want->channels);
	check_eq(t, line, "tensor pixel stride", got->pixel_stride, stride);
	check_eq(t, line, "tensor dtype", got->dtype, want->dtype);
	check_eq(t, line, "tensor zero point", (uint32_t)got->zero_point,
		 (uint32_t)want->zero_point);
}

static void expect_ref(struct test_tally *t, int line,
		       const struct layer_ref *got,
		       const struct enpu_buf_ref *want)
{
	check_eq(t, line, "ref bo", got->bo, want->bo_index);
	check_eq(t, line, "ref offset", got->offset, want->offset);
}

/* ---- layer_decode(): every field, each a different value ---- */

static void test_decode_conv(struct test_tally *t)
{
	struct enpu_cmd_conv2d c;
	struct layer l;

	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_DEPTHWISE_CONV2D, sizeof(c));
	tensor(&c.input, 1, 0x100, 2, 9, 10, 6, ENPU_DTYPE_INT8);
	c.input.pixel_stride = 7;
	c.input.zero_point = -3;
	tensor(&c.output, 2, 0x200, 3, 5, 11, 12, ENPU_DTYPE_UINT8);
	c.output.zero_point = 4;		/* pixel_stride 0: channels */
	ref(&c.weights, 3, 0x300);
	ref(&c.bias, 4, 0x400);
	ref(&c.requant.per_channel, 5, 0x500);
	c.requant.multiplier = 12345;
	c.requant.shift = 33;
	c.requant.min = -7;
	c.requant.max = 99;
	c.kernel_height = 13;
	c.kernel_width = 14;
	c.stride_height = 15;
	c.stride_width = 16;
	c.dilation_height = 17;
	c.dilation_width = 18;
	c.pad_top = 19;
	c.pad_left = 20;
	c.pad_bottom = 21;
	c.pad_right = 22;
	c.groups = 23;
	layer_decode((const uint8_t *)&c, &l);
	EQ(t, l.opcode, ENPU_CMD_DEPTHWISE_CONV2D);
	expect_tensor(t, __LINE__, &l.in, &c.input);
	expect_tensor(t, __LINE__, &l.out, &c.output);
	expect_ref(t, __LINE__, &l.weights, &c.weights);
	expect_ref(t, __LINE__, &l.bias, &c.bias);
	expect_ref(t, __LINE__, &l.table, &c.requant.per_channel);
	EQ(t, l.multiplier, 12345);
	EQ(t, l.shift, 33);
	EQ(t, (uint32_t)l.min, (uint32_t)-7);
	EQ(t, l.max, 99);
	EQ(t, l.kernel_h, 13);
	EQ(t, l.kernel_w, 14);
	EQ(t, l.stride_h, 15);
	EQ(t, l.stride_w, 16);
	EQ(t, l.dilation_h, 17);
	EQ(t, l.dilation_w, 18);
	EQ(t, l.pad_top, 19);
	EQ(t, l.pad_left, 20);
	EQ(t, l.pad_bottom, 21);
	EQ(t, l.pad_right, 22);
	EQ(t, l.groups, 23);
	/* What a convolution does not have reads as zero. */
	EQ(t, l.in2.bo, 0);
	EQ(t, l.flags, 0);
	EQ(t, l.left_shift, 0);
	hdr(&c.hdr, ENPU_CMD_CONV2D, sizeof(c));
	layer_decode((const uint8_t *)&c, &l);
	EQ(t, l.opcode, ENPU_CMD_CONV2D);
	EQ(t, l.groups, 23);
	EQ(t, l.stride_w, 16);
}

static void test_decode_fc(struct test_tally *t)
{
	struct enpu_cmd_fc f;
	struct layer l;

	memset(&f, 0, sizeof(f));
	hdr(&f.hdr, ENPU_CMD_FULLY_CONNECTED, sizeof(f));
	tensor(&f.input, 1, 0x10, 1, 1, 3, 16, ENPU_DTYPE_INT8);
	tensor(&f.output, 2, 0x20, 1, 1, 3, 5, ENPU_DTYPE_INT8);
	f.output.pixel_stride = 9;
	ref(&f.weights, 3, 0x30);
	ref(&f.bias, 4, 0x40);
	ref(&f.requant.per_channel, 0, 0x50);
	f.requant.multiplier = 777;
	f.requant.shift = 31;
	f.requant.min = -100;
	f.requant.max = 100;
	layer_decode((const uint8_t *)&f, &l);
	EQ(t, l.opcode, ENPU_CMD_FULLY_CONNECTED);
	expect_tensor(t, __LINE__, &l.in, &f.input);
	expect_tensor(t, __LINE__, &l.out, &f.output);
	expect_ref(t, __LINE__, &l.weights, &f.weights);
	expect_ref(t, __LINE__, &l.bias, &f.bias);
	expect_ref(t, __LINE__, &l.table, &f.requant.per_channel);
	EQ(t, l.multiplier, 777);
	EQ(t, l.shift, 31);
	EQ(t, (uint32_t)l.min, (uint32_t)-100);
	EQ(t, l.max, 100);
}

static void test_decode_eltwise(struct test_tally *t)
{
	struct enpu_cmd_eltwise e;
	struct layer l;

	for (int mul = 0; mul < 2; mul++) {
		memset(&e, 0, sizeof(e));
		hdr(&e.hdr, mul ? ENPU_CMD_MUL : ENPU_CMD_ADD, sizeof(e));
		tensor(&e.a, 1, 0x11, 2, 3, 4, 5, ENPU_DTYPE_UINT8);
		e.a.zero_point = 6;
		tensor(&e.b, 2, 0x22, 1, 3, 1, 5, ENPU_DTYPE_UINT8);
		e.b.zero_point = 7;
		e.b.pixel_stride = 8;
		tensor(&e.output, 3, 0x33, 2, 3, 4, 5, ENPU_DTYPE_UINT8);
		e.output.zero_point = 9;
		e.a_multiplier = 101;
		e.b_multiplier = 102;
		e.add_shift = 103;
		e.left_shift = 104;
		e.multiplier = 105;
		e.shift = 106;
		e.min = 107;
		e.max = 108;
		layer_decode((const uint8_t *)&e, &l);
		EQ(t, l.opcode, e.hdr.opcode);
		expect_tensor(t, __LINE__, &l.in, &e.a);
		expect_tensor(t, __LINE__, &l.in2, &e.b);
		expect_tensor(t, __LINE__, &l.out, &e.output);
		EQ(t, l.a_multiplier, 101);
		EQ(t, l.b_multiplier, 102);
		EQ(t, l.add_shift, 103);
		EQ(t, l.left_shift, 104);
		EQ(t, l.multiplier, 105);
		EQ(t, l.shift, 106);
		EQ(t, l.min, 107);
		EQ(t, l.max, 108);
	}
}

static void test_decode_pool(struct test_tally *t)
{
	struct enpu_cmd_pool p;
	struct layer l;

	for (int avg = 0; avg < 2; avg++) {
		memset(&p, 0, sizeof(p));
		hdr(&p.hdr, avg ? ENPU_CMD_AVG_POOL : ENPU_CMD_MAX_POOL,
		    sizeof(p));
		tensor(&p.input, 1, 0x44, 1, 9, 8, 3, ENPU_DTYPE_INT8);
		p.input.zero_point = -1;
		tensor(&p.output, 2, 0x55, 1, 4, 3, 3, ENPU_DTYPE_INT8);
		p.output.pixel_stride = 5;
		ref(&p.params, 3, 0x66);
		p.kernel_height = 2;
		p.kernel_width = 3;
		p.stride_height = 4;
		p.stride_width = 5;
		p.dilation_height = 6;
		p.dilation_width = 7;
		p.pad_top = 8;
		p.pad_left = 9;
		p.pad_bottom = 10;
		p.pad_right = 11;
		p.flags = 12;
		p.multiplier = 13;
		p.shift = 14;
		p.left_shift = 15;
		p.min = -16;
		p.max = 17;
		layer_decode((const uint8_t *)&p, &l);
		EQ(t, l.opcode, p.hdr.opcode);
		expect_tensor(t, __LINE__, &l.in, &p.input);
		expect_tensor(t, __LINE__, &l.out, &p.output);
		expect_ref(t, __LINE__, &l.table, &p.params);
		EQ(t, l.kernel_h, 2);
		EQ(t, l.kernel_w, 3);
		EQ(t, l.stride_h, 4);
		EQ(t, l.stride_w, 5);
		EQ(t, l.dilation_h, 6);
		EQ(t, l.dilation_w, 7);
		EQ(t, l.pad_top, 8);
		EQ(t, l.pad_left, 9);
		EQ(t, l.pad_bottom, 10);
		EQ(t, l.pad_right, 11);
		EQ(t, l.flags, 12);
		EQ(t, l.multiplier, 13);
		EQ(t, l.shift, 14);
		EQ(t, l.left_shift, 15);
		EQ(t, (uint32_t)l.min, (uint32_t)-16);
		EQ(t, l.max, 17);
	}
}

static void test_decode_copy_quantize(struct test_tally *t)
{
	struct enpu_cmd_quantize q;
	struct enpu_cmd_copy c;
	float scale = 0.02f;
	struct layer l;

	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_COPY, sizeof(c));
	tensor(&c.input, 1, 0x70, 2, 3, 4, 5, ENPU_DTYPE_INT32);
	tensor(&c.output, 2, 0x80, 2, 3, 4, 5, ENPU_DTYPE_INT32);
	c.output.pixel_stride = 10;
	layer_decode((const uint8_t *)&c, &l);
	EQ(t, l.opcode, ENPU_CMD_COPY);
	expect_tensor(t, __LINE__, &l.in, &c.input);
	expect_tensor(t, __LINE__, &l.out, &c.output);

	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, ENPU_CMD_QUANTIZE, sizeof(q));
	tensor(&q.input, 3, 0x90, 1, 4, 4, 3, ENPU_DTYPE_FLOAT32);
	tensor(&q.output, 4, 0xa0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	q.output.zero_point = 128;
	memcpy(&q.scale, &scale, sizeof(scale));
	layer_decode((const uint8_t *)&q, &l);
	EQ(t, l.opcode, ENPU_CMD_QUANTIZE);
	expect_tensor(t, __LINE__, &l.in, &q.input);
	expect_tensor(t, __LINE__, &l.out, &q.output);
	t->checks++;
	if (memcmp(&l.scale, &scale, sizeof(scale))) {
		t->failures++;
		fprintf(stderr, "  line %d: scale %g, want %g\n", __LINE__,
			(double)l.scale, (double)scale);
	}
}

/* ---- layer_cost() and the job's cycle total ---- */

/* A job of @stream that the device's checker must accept; false (the
 * test failed) when the host is out of memory. device_job_free() it. */
static bool accepted_job(struct test_tally *t, int line, struct vnpu_job *job,
			 const void *stream, uint32_t size,
			 const struct enpu_validate_bo *bos, uint32_t count)
{
	uint32_t status = 0;

	if (!device_job_init(job, stream, size, bos, count)) {
		t->checks++;
		t->failures++;
		fprintf(stderr, "  line %d: out of memory\n", line);
		return false;
	}
	check_eq(t, line, "first bad command", cmdstream_validate(job,
							  &status),
		 CMDSTREAM_OK);
	return true;
}


/*
 * @cmd, alone in a stream, is accepted and costs @macs, @bytes and
 * @cycles (layer_cost(), and the job's cycle total of cmdstream_validate()).
 */
static void expect_cost(struct test_tally *t, int line, const void *cmd,
			uint32_t size, uint64_t macs, uint64_t bytes,
			uint64_t cycles)
{
	struct layer_cost cost;
	struct vnpu_job job;
	struct layer l;

	if (!accepted_job(t, line, &job, cmd, size, rw_bos, 5))
		return;
	check_eq(t, line, "job cycles", job.cycles_total, cycles);
	layer_decode(cmd, &l);
	layer_cost(&l, &cost);
	check_eq(t, line, "MACs", cost.macs, macs);
	check_eq(t, line, "bytes", cost.bytes, bytes);
	check_eq(t, line, "cycles", cost.cycles, cycles);
	device_job_free(&job);
}

/* A convolution the checker accepts: NxHxWxCin -> KxK stride 1, pad K/2. */
static struct enpu_cmd_conv2d conv(uint32_t h, uint32_t w, uint32_t cin,
				   uint32_t cout, uint32_t k, uint8_t dtype)
{
	struct enpu_cmd_conv2d c;

	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_CONV2D, sizeof(c));
	tensor(&c.input, 0, 0, 1, h, w, cin, ENPU_DTYPE_UINT8);
	tensor(&c.output, 1, 0, 1, h, w, cout, dtype);
	ref(&c.weights, 2, 0);
	ref(&c.bias, ENPU_BUF_NONE, 0);
	ref(&c.requant.per_channel, ENPU_BUF_NONE, 0);
	if (dtype != ENPU_DTYPE_INT32) {
		c.requant.multiplier = 1 << 30;
		c.requant.shift = 40;
		c.requant.max = 255;
	}
	c.kernel_height = c.kernel_width = k;
	c.stride_height = c.stride_width = 1;
	c.dilation_height = c.dilation_width = 1;
	c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = k / 2;
	c.groups = 1;
	return c;
}

static void test_conv_cost(struct test_tally *t)
{
	struct enpu_cmd_conv2d c = conv(8, 8, 4, 8, 3, ENPU_DTYPE_UINT8);

	/* MACs 8*8*8 * 3*3*4 = 18432 (18 cycles at 1024 a cycle); bytes
	 * 256 in + 512 out + 288 weights = 1056: 33 cycles. */
	expect_cost(t, __LINE__, &c, sizeof(c), 18432, 1056, 33);
	ref(&c.bias, 3, 0);		/* + 8 * 4 bytes of bias */
	expect_cost(t, __LINE__, &c, sizeof(c), 18432, 1088, 34);
	ref(&c.requant.per_channel, 3, 64);	/* + 8 * 8 bytes of (M, S) */
	c.requant.multiplier = c.requant.shift = 0;
	expect_cost(t, __LINE__, &c, sizeof(c), 18432, 1152, 36);
	ref(&c.bias, ENPU_BUF_NONE, 0);	/* the table without a bias */
	expect_cost(t, __LINE__, &c, sizeof(c), 18432, 1120, 35);

	/* An INT32 output counts 4 bytes an element: 256 + 2048 + 288. */
	c = conv(8, 8, 4, 8, 3, ENPU_DTYPE_INT32);
	expect_cost(t, __LINE__, &c, sizeof(c), 18432, 2592, 81);

	/* MACs the larger side, not a multiple of 1024: 10*10*100 * 5*5*5 =
	 * 1250000 -> 1221 cycles; bytes 500 + 10000 + 12500 = 23000 -> 719. */
	c = conv(10, 10, 5, 100, 5, ENPU_DTYPE_UINT8);
	expect_cost(t, __LINE__, &c, sizeof(c), 1250000, 23000, 1221);

	/* Groups divide the taps: 4 groups of 2 in, 2 out channels, 1x1:
	 * MACs 64 * 8 * 2 = 1024 -> 1 cycle; bytes 512 + 512 + 8 * 2 = 1040
	 * -> 33 (32.5 rounded up). */
	c = conv(8, 8, 8, 8, 1, ENPU_DTYPE_UINT8);
	c.groups = 4;
	expect_cost(t, __LINE__, &c, sizeof(c), 1024, 1040, 33);

	/* A depthwise 3x3 over 16 channels: MACs 8*8*16 * 9 = 9216 -> 9;
	 * bytes 1024 + 1024 + 144 = 2192 -> 69 (68.5). */
	c = conv(8, 8, 16, 16, 3, ENPU_DTYPE_UINT8);
	c.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D;
	c.groups = 16;
	expect_cost(t, __LINE__, &c, sizeof(c), 9216, 2192, 69);
}

static void test_other_layer_costs(struct test_tally *t)
{
	struct enpu_cmd_quantize q;
	struct enpu_cmd_eltwise e;
	struct enpu_cmd_pool p;
	struct enpu_cmd_copy c;
	struct enpu_cmd_fc f;
	float scale = 0.02f;

	/* FC, 3 rows of K = 16 to N = 5: MACs 3*5*16 = 240; bytes 48 + 15
	 * + 80 weights = 143 -> 5 cycles; a bias adds 5 * 4. */
	memset(&f, 0, sizeof(f));
	hdr(&f.hdr, ENPU_CMD_FULLY_CONNECTED, sizeof(f));
	tensor(&f.input, 0, 0, 1, 1, 3, 16, ENPU_DTYPE_INT8);
	tensor(&f.output, 1, 0, 1, 1, 3, 5, ENPU_DTYPE_INT8);
	ref(&f.weights, 2, 0);
	ref(&f.bias, ENPU_BUF_NONE, 0);
	ref(&f.requant.per_channel, ENPU_BUF_NONE, 0);
	f.requant.multiplier = 1 << 30;
	f.requant.shift = 40;
	f.requant.min = -128;
	f.requant.max = 127;
	expect_cost(t, __LINE__, &f, sizeof(f), 240, 143, 5);
	ref(&f.bias, 3, 0);
	expect_cost(t, __LINE__, &f, sizeof(f), 240, 163, 6);
	ref(&f.requant.per_channel, 3, 64);	/* + 5 * 8 */
	f.requant.multiplier = f.requant.shift = 0;
	expect_cost(t, __LINE__, &f, sizeof(f), 240, 203, 7);

	/* ADD with b broadcast: bytes 256 + 8 + 256 = 520 -> 17, no MACs. */
	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, ENPU_CMD_ADD, sizeof(e));
	tensor(&e.a, 0, 0, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	tensor(&e.b, 3, 0, 1, 1, 1, 8, ENPU_DTYPE_INT8);
	tensor(&e.output, 1, 0, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	e.a_multiplier = 1 << 20;
	e.b_multiplier = 12345;
	e.add_shift = 20;
	e.min = -128;
	e.max = 127;
	expect_cost(t, __LINE__, &e, sizeof(e), 0, 520, 17);

	/* Pools 1x9x9x3 -> 1x4x4x3: bytes 243 + 48 = 291 -> 10; an AVG
	 * pool's parameter table adds 3*3 * 16. */
	memset(&p, 0, sizeof(p));
	hdr(&p.hdr, ENPU_CMD_MAX_POOL, sizeof(p));
	tensor(&p.input, 0, 0, 1, 9, 9, 3, ENPU_DTYPE_UINT8);
	tensor(&p.output, 1, 0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	ref(&p.params, ENPU_BUF_NONE, 0);
	p.kernel_height = p.kernel_width = 3;
	p.stride_height = p.stride_width = 2;
	p.dilation_height = p.dilation_width = 1;
	p.max = 255;
	expect_cost(t, __LINE__, &p, sizeof(p), 0, 291, 10);
	hdr(&p.hdr, ENPU_CMD_AVG_POOL, sizeof(p));
	p.multiplier = 1 << 30;
	p.shift = 33;
	expect_cost(t, __LINE__, &p, sizeof(p), 0, 291, 10);
	ref(&p.params, 3, 0);
	p.multiplier = p.shift = 0;
	expect_cost(t, __LINE__, &p, sizeof(p), 0, 435, 14);

	/* COPY of 48 int32 into a strided slice: the gaps are not moved,
	 * 192 + 192 = 384 -> 12. */
	memset(&c, 0, sizeof(c));
	hdr(&c.hdr, ENPU_CMD_COPY, sizeof(c));
	tensor(&c.input, 0, 0, 1, 4, 4, 3, ENPU_DTYPE_INT32);
	tensor(&c.output, 1, 0, 1, 4, 4, 3, ENPU_DTYPE_INT32);
	c.output.pixel_stride = 6;
	expect_cost(t, __LINE__, &c, sizeof(c), 0, 384, 12);

	/* QUANTIZE of 48 float32 to uint8: 192 + 48 = 240 -> 8. */
	memset(&q, 0, sizeof(q));
	hdr(&q.hdr, ENPU_CMD_QUANTIZE, sizeof(q));
	tensor(&q.input, 0, 0, 1, 4, 4, 3, ENPU_DTYPE_FLOAT32);
	tensor(&q.output, 1, 0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	q.output.zero_point = 128;
	memcpy(&q.scale, &scale, sizeof(scale));
	expect_cost(t, __LINE__, &q, sizeof(q), 0, 240, 8);
}

static uint64_t stream_cycles(struct test_tally *t, int line,
			      const void *stream, uint32_t size,
			      const struct enpu_validate_bo *bos,
			      uint32_t count)
{
	struct vnpu_job job;
	uint64_t cycles;

	if (!accepted_job(t, line, &job, stream, size, bos, count))
		return 0;
	cycles = job.cycles_total;
	device_job_free(&job);
	return cycles;
}

#define CYCLES(t, s, size, bos, count) \
	stream_cycles((t), __LINE__, (s), (size), (bos), (count))

static void nop(struct enpu_cmd_nop *n, uint32_t cycles)
{
	memset(n, 0, sizeof(*n));
	hdr(&n->hdr, ENPU_CMD_NOP, sizeof(*n));
	n->cycles = cycles;
}

static void fill(struct enpu_cmd_dma_fill *f, uint32_t bo, uint64_t offset,
		 uint64_t size, uint32_t value)
{
	memset(f, 0, sizeof(*f));
	hdr(&f->hdr, ENPU_CMD_DMA_FILL, sizeof(*f));
	ref(&f->dst, bo, offset);
	f->size = size;
	f->value = value;
}

static void copy(struct enpu_cmd_dma_copy *c, uint32_t src,
		 uint64_t src_offset, uint32_t dst, uint64_t dst_offset,
		 uint64_t size)
{
	memset(c, 0, sizeof(*c));
	hdr(&c->hdr, ENPU_CMD_DMA_COPY, sizeof(*c));
	ref(&c->src, src, src_offset);
	ref(&c->dst, dst, dst_offset);
	c->size = size;
}

static void test_job_cycles(struct test_tally *t)
{
	/* DMA moves 32 bytes a cycle, at least one cycle a command. */
	static const uint64_t sizes[][2] = {
		{ 1, 1 }, { 31, 1 }, { 32, 1 }, { 33, 1 }, { 63, 1 },
		{ 64, 2 }, { 65, 2 }, { 3200, 100 }, { 3231, 100 },
	};
	static const struct enpu_validate_bo huge[] = {
		{ UINT64_MAX, R | W },
	};
	struct enpu_cmd_dma_fill fills[34];
	struct enpu_cmd_dma_copy c;
	struct enpu_cmd_nop nops[2];

	EQ(t, CYCLES(t, NULL, 0, NULL, 0), 0);
	nop(&nops[0], 7);
	nop(&nops[1], 1000);
	EQ(t, CYCLES(t, nops, sizeof(nops[0]), NULL, 0), 7);
	EQ(t, CYCLES(t, nops, sizeof(nops), NULL, 0), 1007);
	nop(&nops[0], 0);
	EQ(t, CYCLES(t, nops, sizeof(nops), NULL, 0), 1000);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		copy(&c, 0, 0, 1, 0, sizes[i][0]);
		EQ(t, CYCLES(t, &c, sizeof(c), rw_bos, 5), sizes[i][1]);
		fill(&fills[0], 1, 0, sizes[i][0], 0);
		EQ(t, CYCLES(t, fills, sizeof(fills[0]), rw_bos, 5),
		   sizes[i][1]);
	}
	/* (2^64 - 1) bytes take 2^59 - 1 cycles: 32 such fills add up to
	 * 2^64 - 32, a NOP of 31 more to exactly 2^64 - 1; a 33rd fill
	 * saturates instead of wrapping. */
	for (int i = 0; i < 34; i++)
		fill(&fills[i], 0, 0, UINT64_MAX, 0);
	EQ(t, CYCLES(t, fills, sizeof(fills[0]), huge, 1), (1ull << 59) - 1);
	EQ(t, CYCLES(t, fills, 32 * sizeof(fills[0]), huge, 1),
	   UINT64_MAX - 31);
	nop((struct enpu_cmd_nop *)&fills[32], 31);
	EQ(t, CYCLES(t, fills, 32 * sizeof(fills[0]) + sizeof(nops[0]), huge,
		     1), UINT64_MAX);
	fill(&fills[32], 0, 0, UINT64_MAX, 0);
	EQ(t, CYCLES(t, fills, 33 * sizeof(fills[0]), huge, 1), UINT64_MAX);
	EQ(t, CYCLES(t, fills, 34 * sizeof(fills[0]), huge, 1), UINT64_MAX);
}

/* ---- cmdstream_plan(): units ---- */

/* @cmd alone in a validated stream is planned as @cycles and @units. */
static void expect_plan(struct test_tally *t, int line, const void *cmd,
			uint32_t size, uint64_t cycles, uint64_t units)
{
	uint64_t got_cycles = 0, got_units = 0;
	struct vnpu_job job;

	if (!accepted_job(t, line, &job, cmd, size, rw_bos, 5))
		return;
	check_eq(t, line, "command size", cmdstream_command_size(&job, 0),
		 size);
	cmdstream_plan(&job, 0, &got_cycles, &got_units);
	check_eq(t, line, "planned cycles", got_cycles, cycles);
	check_eq(t, line, "units", got_units, units);
	device_job_free(&job);
}

#define PLAN(t, cmd, cycles, units) \
	expect_plan((t), __LINE__, &(cmd), sizeof(cmd), (cycles), (units))

static void test_plan_units(struct test_tally *t)
{
	struct enpu_cmd_conv2d c = conv(8, 8, 4, 8, 3, ENPU_DTYPE_UINT8);
	struct enpu_cmd_dma_fill f;
	struct enpu_cmd_dma_copy d;
	struct enpu_cmd_eltwise e;
	struct enpu_cmd_pool p;
	struct enpu_cmd_nop n;

	nop(&n, 9);
	PLAN(t, n, 9, 9);
	copy(&d, 0, 0, 1, 0, 100);	/* a unit a byte */
	PLAN(t, d, 3, 100);
	fill(&f, 1, 0, 77, 5);
	PLAN(t, f, 2, 77);

	/* A layer: a unit an output element, unless its output BO is one
	 * it reads (then it only stops at its ends). */
	ref(&c.bias, 3, 0);
	PLAN(t, c, 34, 512);
	c.output.buf.bo_index = 0;	/* BO 0: no eltwise b here */
	c.input.buf.bo_index = 4;
	PLAN(t, c, 34, 512);
	c.output.buf.bo_index = 4;	/* the input's BO */
	c.output.buf.offset = 0x10000;
	PLAN(t, c, 34, 1);
	c.output.buf.bo_index = 2;	/* the weights' */
	PLAN(t, c, 34, 1);
	c.output.buf.bo_index = 3;	/* the bias' */
	PLAN(t, c, 34, 1);
	ref(&c.bias, ENPU_BUF_NONE, 0);
	PLAN(t, c, 33, 512);
	ref(&c.requant.per_channel, 3, 0);	/* the table's */
	c.requant.multiplier = c.requant.shift = 0;
	PLAN(t, c, 35, 1);
	c.output.buf.bo_index = 1;
	PLAN(t, c, 35, 512);

	memset(&e, 0, sizeof(e));
	hdr(&e.hdr, ENPU_CMD_ADD, sizeof(e));
	tensor(&e.a, 0, 0, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	tensor(&e.b, 3, 0, 1, 1, 1, 8, ENPU_DTYPE_INT8);
	tensor(&e.output, 1, 0, 2, 4, 4, 8, ENPU_DTYPE_INT8);
	e.a_multiplier = 1 << 20;
	e.b_multiplier = 12345;
	e.add_shift = 20;
	e.min = -128;
	e.max = 127;
	PLAN(t, e, 17, 256);
	e.output.buf.bo_index = 3;	/* b's */
	e.output.buf.offset = 0x10000;
	PLAN(t, e, 17, 1);
	e.output.buf.bo_index = 0;	/* a's */
	PLAN(t, e, 17, 1);
	hdr(&e.hdr, ENPU_CMD_MUL, sizeof(e));
	e.a_multiplier = e.b_multiplier = e.add_shift = 0;
	e.multiplier = 1 << 30;
	e.shift = 40;
	e.output.buf.bo_index = 3;
	PLAN(t, e, 17, 1);
	e.output.buf.bo_index = 2;
	PLAN(t, e, 17, 256);

	memset(&p, 0, sizeof(p));
	hdr(&p.hdr, ENPU_CMD_AVG_POOL, sizeof(p));
	tensor(&p.input, 0, 0, 1, 9, 9, 3, ENPU_DTYPE_UINT8);
	tensor(&p.output, 1, 0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	ref(&p.params, 3, 0);
	p.kernel_height = p.kernel_width = 3;
	p.stride_height = p.stride_width = 2;
	p.dilation_height = p.dilation_width = 1;
	p.max = 255;
	PLAN(t, p, 14, 48);
	p.output.buf.bo_index = 3;	/* the parameter table's */
	p.output.buf.offset = 0x10000;
	PLAN(t, p, 14, 1);
	p.output.buf.bo_index = 0;	/* the input's */
	PLAN(t, p, 14, 1);
}

/* ---- cmdstream_perform(): DMA units through scatter-gather BOs ---- */

static void expect_bytes(struct test_tally *t, int line, const uint8_t *got,
			 const uint8_t *want, uint64_t size)
{
	t->checks++;
	for (uint64_t i = 0; i < size; i++) {
		if (got[i] != want[i]) {
			t->failures++;
			fprintf(stderr, "  line %d: byte %llu is %#x, want "
				"%#x\n", line, (unsigned long long)i, got[i],
				want[i]);
			return;
		}
	}
}

#define BO_BYTES 4096

static void test_perform_dma(struct test_tally *t)
{
	static uint8_t before[BO_BYTES], after[BO_BYTES], src[BO_BYTES];
	struct cmdstream_counters counters = { 0 };
	struct {
		struct enpu_cmd_dma_copy copy;
		struct enpu_cmd_dma_fill fill;
		struct enpu_cmd_nop nop;
	} s;
	struct guest_model m;
	uint32_t status = 0;

	t->checks++;
	if (guest_model_init(&m, 1 << 20, 1 << 16)) {
		t->failures++;
		fprintf(stderr, "  line %d: out of memory\n", __LINE__);
		return;
	}
	guest_model_reset(&m, 42);
	/* Short segments in shuffled order: a unit range crosses several. */
	if (guest_model_bo(&m, BO_BYTES, 1, 97, 13) != 0 ||
	    guest_model_bo(&m, BO_BYTES, 1, 97, 13) != 1) {
		t->failures++;
		fprintf(stderr, "  line %d: no room for the BOs\n", __LINE__);
		guest_model_destroy(&m);
		return;
	}
	copy(&s.copy, 0, 10, 1, 20, 1000);
	fill(&s.fill, 1, 3000, 500, 0xa5);
	nop(&s.nop, 5);
	m.job.stream = (uint8_t *)&s;
	m.job.stream_size = sizeof(s);
	EQ(t, cmdstream_validate(&m.job, &status), CMDSTREAM_OK);
	guest_model_read(&m, 0, 0, src, BO_BYTES);
	guest_model_read(&m, 1, 0, before, BO_BYTES);

	/* The copy in two ranges of units, then empty and reversed ones. */
	m.job.offset = 0;
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 0, 300, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 600);	/* read and written */
	guest_model_read(&m, 1, 0, after, BO_BYTES);
	memcpy(before + 20, src + 10, 300);
	expect_bytes(t, __LINE__, after, before, BO_BYTES);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 300, 1000, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 2000);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 400, 400, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 500, 400, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 2000);
	EQ(t, counters.macs, 0);
	guest_model_read(&m, 1, 0, after, BO_BYTES);
	memcpy(before + 20, src + 10, 1000);
	expect_bytes(t, __LINE__, after, before, BO_BYTES);

	/* The fill: units 100..500 first, then 0..100. */
	m.job.offset = sizeof(s.copy);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 100, 500, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 2400);
	guest_model_read(&m, 1, 0, after, BO_BYTES);
	memset(before + 3100, 0xa5, 400);
	expect_bytes(t, __LINE__, after, before, BO_BYTES);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 0, 100, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 2500);
	guest_model_read(&m, 1, 0, after, BO_BYTES);
	memset(before + 3000, 0xa5, 100);
	expect_bytes(t, __LINE__, after, before, BO_BYTES);

	/* A NOP moves nothing. */
	m.job.offset = sizeof(s.copy) + sizeof(s.fill);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 0, 5, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 2500);
	guest_model_read(&m, 1, 0, after, BO_BYTES);
	expect_bytes(t, __LINE__, after, before, BO_BYTES);
	guest_model_read(&m, 0, 0, after, BO_BYTES);
	expect_bytes(t, __LINE__, after, src, BO_BYTES);

	/* A BO whose list the guest cut short after the check: a fault,
	 * not a read outside it. */
	m.bos[0].sg_count = 1;
	m.job.offset = 0;
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 900, 1000, &counters),
	   ENPU_JOB_STATUS_DMA_FAULT);
	m.bos[1].sg_count = 1;
	m.job.offset = sizeof(s.copy);
	EQ(t, cmdstream_perform(&m.job, &m.ram, NULL, 0, 500, &counters),
	   ENPU_JOB_STATUS_DMA_FAULT);
	EQ(t, counters.dma_bytes, 2500);
	guest_model_destroy(&m);
}

/*
 * A layer through cmdstream_perform(), computed by the ORACLE engine: its
 * bytes and MACs count once its last unit is done (saturating), an
 * in-place layer's one unit is the whole layer, and a status from the
 * layer ends the command without counting anything.
 */
static void test_perform_layer(struct test_tally *t)
{
	const struct layer_engine oracle = { .mode = LAYER_MODE_ORACLE };
	struct cmdstream_counters counters = { 1000, 5 };
	static uint8_t in[48], out[48];
	struct enpu_cmd_conv2d c = conv(4, 4, 4, 4, 1, ENPU_DTYPE_UINT8);
	struct enpu_cmd_copy k;
	struct guest_model m;
	uint32_t status = 0;
	int32_t bad_table[8];

	t->checks++;
	if (guest_model_init(&m, 1 << 20, 1 << 16)) {
		t->failures++;
		fprintf(stderr, "  line %d: out of memory\n", __LINE__);
		return;
	}
	guest_model_reset(&m, 7);
	for (uint32_t i = 0; i < 4; i++) {
		if (guest_model_bo(&m, BO_BYTES, 1, 97, 13) != i) {
			t->failures++;
			fprintf(stderr, "  line %d: no room for the BOs\n",
				__LINE__);
			guest_model_destroy(&m);
			return;
		}
	}
	/* 1x1 conv 4x4x4 -> 4x4x4: MACs 16*4*4 = 256, bytes 64 + 64 + 16. */
	m.job.stream = (uint8_t *)&c;
	m.job.stream_size = sizeof(c);
	m.job.offset = 0;
	EQ(t, cmdstream_validate(&m.job, &status), CMDSTREAM_OK);
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 0, 30, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 1000);	/* not complete yet */
	EQ(t, counters.macs, 5);
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 30, 64, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 1144);
	EQ(t, counters.macs, 261);
	layer_state_free(m.job.layer);
	m.job.layer = NULL;
	counters.dma_bytes = UINT64_MAX - 100;
	counters.macs = UINT64_MAX - 10;
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 0, 64, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, UINT64_MAX);
	EQ(t, counters.macs, UINT64_MAX);
	layer_state_free(m.job.layer);
	m.job.layer = NULL;

	/* A per-channel table with negative multipliers: INVALID when the
	 * layer starts, nothing counted. */
	for (int i = 0; i < 8; i++)
		bad_table[i] = i % 2 ? 0 : -1;
	guest_model_write(&m, 3, 0, bad_table, sizeof(bad_table));
	ref(&c.requant.per_channel, 3, 0);
	c.requant.multiplier = c.requant.shift = 0;
	counters.dma_bytes = counters.macs = 0;
	EQ(t, cmdstream_validate(&m.job, &status), CMDSTREAM_OK);
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 0, 10, &counters),
	   ENPU_JOB_STATUS_INVALID);
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 0, 64, &counters),
	   ENPU_JOB_STATUS_INVALID);
	EQ(t, counters.dma_bytes, 0);
	EQ(t, counters.macs, 0);
	layer_state_free(m.job.layer);
	m.job.layer = NULL;

	/* COPY within one BO: one unit, all 48 bytes moved by it. */
	memset(&k, 0, sizeof(k));
	hdr(&k.hdr, ENPU_CMD_COPY, sizeof(k));
	tensor(&k.input, 0, 0, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	tensor(&k.output, 0, 1024, 1, 4, 4, 3, ENPU_DTYPE_UINT8);
	m.job.stream = (uint8_t *)&k;
	m.job.stream_size = sizeof(k);
	EQ(t, cmdstream_validate(&m.job, &status), CMDSTREAM_OK);
	EQ(t, cmdstream_perform(&m.job, &m.ram, &oracle, 0, 1, &counters),
	   ENPU_JOB_STATUS_OK);
	EQ(t, counters.dma_bytes, 96);
	guest_model_read(&m, 0, 0, in, sizeof(in));
	guest_model_read(&m, 0, 1024, out, sizeof(out));
	expect_bytes(t, __LINE__, out, in, sizeof(in));
	layer_state_free(m.job.layer);
	m.job.layer = NULL;
	guest_model_destroy(&m);
}

const struct device_plan_test device_plan_tests[] = {
	{ "device_decode_conv", test_decode_conv },
	{ "device_decode_fc", test_decode_fc },
	{ "device_decode_eltwise", test_decode_eltwise },
	{ "device_decode_pool", test_decode_pool },
	{ "device_decode_copy_quantize", test_decode_copy_quantize },
	{ "device_conv_cost", test_conv_cost },
	{ "device_other_layer_costs", test_other_layer_costs },
	{ "device_job_cycles", test_job_cycles },
	{ "device_plan_units", test_plan_units },
	{ "device_perform_dma", test_perform_dma },
	{ "device_perform_layer", test_perform_layer },
};

const unsigned int device_plan_test_count =
	sizeof(device_plan_tests) / sizeof(device_plan_tests[0]);
