// SPDX-License-Identifier: GPL-2.0
/*
 * The vnpu's layer execution (tools/vnpu/layer_exec.c) driven directly,
 * without the device around it: layers decoded from real command structs
 * (checked by layer_check(), so each is a command the device accepts),
 * operands in BOs cut into odd-sized segments listed out of order in a
 * host buffer standing in for guest RAM.
 *
 * Each case runs the layer several ways and compares all of "guest RAM"
 * after each: the ORACLE mode in one range, FAST in one range, both split
 * into random ranges of output elements in random order, and both split
 * in order with the layer state dropped and gathered again between ranges
 * (what a preempted and resumed job does). Everything must be
 * byte-identical, gaps of strided tensors and every other byte included. The device against the CPU
 * reference kernels is tests/vnpu's job (vnpu_layer_test.c, run in both
 * modes); this one covers what only the row API can get wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/test_harness.h"
#include "enpu_cmd.h"
#include "enpu_cpu.h"
#include "guest_model.h"
#include "layer.h"

#define RAM_SIZE	(6u << 20)
#define SG_BYTES	(1u << 20)	/* lists below, BOs above */

struct env {
	struct guest_model gm;
	uint8_t *before;	/* RAM before a run */
	uint8_t *first;		/* RAM after the first way of running */
	/* fast_rows: FAST scattering each output row as it is computed;
	 * fast2: FAST on 2 host threads, every layer (no grain). */
	struct layer_engine fast, fast_rows, fast2, oracle;
};

static uint32_t rnd(struct env *e)
{
	return guest_model_random(&e->gm);
}

static uint32_t pick(struct env *e, uint32_t lo, uint32_t hi)
{
	return guest_model_pick(&e->gm, lo, hi);
}

/* 0 <= M < 2^31, the requantization multiplier's range. */
static int32_t random_multiplier(struct env *e)
{
	return (int32_t)(rnd(e) & 0x7fffffffu);
}

static void env_reset(struct env *e, uint64_t seed)
{
	guest_model_reset(&e->gm, seed);
}

static size_t used(const struct env *e)
{
	return (size_t)guest_model_used(&e->gm);
}

/* A BO whose segments hold 1..@max_seg bytes, with gaps between them. */
static uint32_t bo_new(struct env *e, uint64_t size, uint32_t max_seg)
{
	return guest_model_bo(&e->gm, size, 1, max_seg, 24);
}

static void bo_write(struct env *e, uint32_t index, uint64_t offset,
		     const void *src, uint64_t size)
{
	guest_model_write(&e->gm, index, offset, src, size);
}

static void tensor(struct enpu_tensor_desc *t, uint32_t bo, uint32_t n,
		   uint32_t h, uint32_t w, uint32_t c, uint32_t stride,
		   uint8_t dtype, int32_t zp)
{
	memset(t, 0, sizeof(*t));
	t->buf.bo_index = bo;
	t->batch = n;
	t->height = h;
	t->width = w;
	t->channels = c;
	t->pixel_stride = stride;
	t->dtype = dtype;
	t->zero_point = zp;
}

static uint64_t tensor_bytes(const struct enpu_tensor_desc *t)
{
	uint64_t ps = t->pixel_stride ? t->pixel_stride : t->channels;

	return ((uint64_t)t->batch * t->height * t->width * ps) *
	       (t->dtype == ENPU_DTYPE_INT32 ||
		t->dtype == ENPU_DTYPE_FLOAT32 ? 4 : 1);
}

static void none(struct enpu_buf_ref *r)
{
	memset(r, 0, sizeof(*r));
	r->bo_index = ENPU_BUF_NONE;
}

static int32_t zero_point(struct env *e, uint8_t dtype)
{
	return dtype == ENPU_DTYPE_UINT8 ? (int32_t)pick(e, 0, 255) :
	       (int32_t)pick(e, 0, 255) - 128;
}

/* A valid requant: per channel in a table BO, or per tensor. */
static void requant(struct env *e, struct enpu_requant_desc *rq,
		    uint32_t channels, uint8_t out_type, int32_t out_zp)
{
	memset(rq, 0, sizeof(*rq));
	none(&rq->per_channel);
	if (out_type == ENPU_DTYPE_INT32)
		return;
	if (rnd(e) % 2) {
		struct enpu_requant_param *p = calloc(channels, sizeof(*p));
		uint32_t bo = bo_new(e, (uint64_t)channels * sizeof(*p), 40);

		for (uint32_t i = 0; i < channels; i++) {
			p[i].multiplier = random_multiplier(e);
			p[i].shift = (int32_t)pick(e, 36, 48);
		}
		bo_write(e, bo, 0, p, (uint64_t)channels * sizeof(*p));
		free(p);
		rq->per_channel.bo_index = bo;
	} else {
		rq->multiplier = random_multiplier(e);
		rq->shift = (int32_t)pick(e, 36, 48);
	}
	rq->min = out_type == ENPU_DTYPE_UINT8 ? 0 : -128;
	rq->max = out_type == ENPU_DTYPE_UINT8 ? 255 : 127;
	if (rnd(e) % 3 == 0)
		rq->min = out_zp;	/* ReLU */
}

/* Random bytes already fill every BO; operands just need a BO. */
static uint32_t random_bo(struct env *e, uint64_t size)
{
	return bo_new(e, size, size < 4096 ? pick(e, 1, 64) :
			       pick(e, 256, 3000));
}

/* ONNX's output size; with @ceil_mode a window starting past the input
 * and its leading padding is dropped. 0 when the kernel does not fit. */
static uint32_t output_extent_mode(uint32_t in, uint32_t pad_begin,
				   uint32_t pad_end, uint32_t kernel,
				   uint32_t stride, uint32_t dilation,
				   bool ceil_mode)
{
	uint32_t span = dilation * (kernel - 1) + 1, total = in + pad_begin +
							     pad_end, o;

	if (total < span)
		return 0;
	if (!ceil_mode)
		return (total - span) / stride + 1;
	o = (total - span + stride - 1) / stride + 1;
	return (o - 1) * stride >= in + pad_begin ? o - 1 : o;
}

static uint32_t output_extent(uint32_t in, uint32_t pad, uint32_t kernel,
			      uint32_t stride, uint32_t dilation)
{
	return output_extent_mode(in, pad, 0, kernel, stride, dilation, false);
}

static void conv_command(struct env *e, struct enpu_cmd_conv2d *c,
			 bool depthwise, bool big_k)
{
	uint8_t in_type = rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint8_t out_type = rnd(e) % 5 == 0 ? ENPU_DTYPE_INT32 :
			   rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint32_t groups = depthwise ? 0 : (rnd(e) % 3 ? 1 : pick(e, 2, 3));
	uint32_t cin, cout, n = pick(e, 1, 3), h, w, oh, ow, in_stride;
	int32_t out_zp;

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = depthwise ? ENPU_CMD_DEPTHWISE_CONV2D : ENPU_CMD_CONV2D;
	c->hdr.size = sizeof(*c);
	do {
		c->kernel_height = big_k ? pick(e, 120, 140) : pick(e, 1, 5);
		c->kernel_width = big_k ? pick(e, 120, 140) : pick(e, 1, 5);
		c->stride_height = pick(e, 1, 3);
		c->stride_width = pick(e, 1, 3);
		c->dilation_height = big_k ? 1 : pick(e, 1, 2);
		c->dilation_width = big_k ? 1 : pick(e, 1, 2);
		c->pad_top = pick(e, 0, 3);
		c->pad_bottom = pick(e, 0, 3);
		c->pad_left = pick(e, 0, 3);
		c->pad_right = pick(e, 0, 3);
		h = big_k ? pick(e, 120, 150) : pick(e, 1, 24);
		w = big_k ? pick(e, 120, 150) : pick(e, 1, 20);
		oh = output_extent(h, c->pad_top + c->pad_bottom,
				   c->kernel_height, c->stride_height,
				   c->dilation_height);
		ow = output_extent(w, c->pad_left + c->pad_right,
				   c->kernel_width, c->stride_width,
				   c->dilation_width);
	} while (!oh || !ow);
	if (depthwise) {
		cin = cout = groups = pick(e, 1, 40);
	} else {
		cin = groups * (big_k ? 4 : pick(e, 1, 12));
		cout = groups * pick(e, 1, big_k ? 3 : 20);
	}
	c->groups = groups;
	in_stride = rnd(e) % 3 ? 0 : cin + pick(e, 1, 5);
	tensor(&c->input, 0, n, h, w, cin, in_stride, in_type,
	       zero_point(e, in_type));
	out_zp = out_type == ENPU_DTYPE_INT32 ? 0 : zero_point(e, out_type);
	tensor(&c->output, 0, n, oh, ow, cout,
	       rnd(e) % 3 ? 0 : cout + pick(e, 1, 7), out_type, out_zp);
	c->input.buf.bo_index = random_bo(e, tensor_bytes(&c->input));
	c->output.buf.bo_index = random_bo(e, tensor_bytes(&c->output));
	c->weights.bo_index = random_bo(e, (uint64_t)cout * (cin / groups) *
					c->kernel_height * c->kernel_width);
	if (rnd(e) % 4) {
		c->bias.bo_index = random_bo(e, (uint64_t)cout * 4);
	} else {
		none(&c->bias);
	}
	requant(e, &c->requant, cout, out_type, out_zp);
}

static void fc_command(struct env *e, struct enpu_cmd_fc *f)
{
	uint8_t in_type = rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint8_t out_type = rnd(e) % 5 == 0 ? ENPU_DTYPE_INT32 :
			   rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint32_t m = pick(e, 1, 40), k = pick(e, 1, 300), n = pick(e, 1, 70);
	int32_t out_zp = out_type == ENPU_DTYPE_INT32 ? 0 :
			 zero_point(e, out_type);

	memset(f, 0, sizeof(*f));
	f->hdr.opcode = ENPU_CMD_FULLY_CONNECTED;
	f->hdr.size = sizeof(*f);
	tensor(&f->input, 0, 1, 1, m, k, 0, in_type, zero_point(e, in_type));
	tensor(&f->output, 0, 1, 1, m, n, rnd(e) % 2 ? 0 : n + 3, out_type,
	       out_zp);
	f->input.buf.bo_index = random_bo(e, tensor_bytes(&f->input));
	f->output.buf.bo_index = random_bo(e, tensor_bytes(&f->output));
	f->weights.bo_index = random_bo(e, (uint64_t)n * k);
	if (rnd(e) % 2)
		f->bias.bo_index = random_bo(e, (uint64_t)n * 4);
	else
		none(&f->bias);
	requant(e, &f->requant, n, out_type, out_zp);
}

/* One input dimension of an eltwise op: the output's, or 1. */
static uint32_t bdim(struct env *e, uint32_t out)
{
	return rnd(e) % 4 == 0 ? 1 : out;
}

static void eltwise_command(struct env *e, struct enpu_cmd_eltwise *x,
			    bool add)
{
	uint8_t type = rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint32_t n = pick(e, 1, 3), h = pick(e, 1, 17), w = pick(e, 1, 15);
	uint32_t c = pick(e, 1, 33);

	memset(x, 0, sizeof(*x));
	x->hdr.opcode = add ? ENPU_CMD_ADD : ENPU_CMD_MUL;
	x->hdr.size = sizeof(*x);
	tensor(&x->a, 0, bdim(e, n), bdim(e, h), bdim(e, w), bdim(e, c), 0,
	       type, zero_point(e, type));
	tensor(&x->b, 0, bdim(e, n), bdim(e, h), bdim(e, w), bdim(e, c), 0,
	       type, zero_point(e, type));
	/* The output is the larger of the two in each dimension. */
	n = x->a.batch > x->b.batch ? x->a.batch : x->b.batch;
	h = x->a.height > x->b.height ? x->a.height : x->b.height;
	w = x->a.width > x->b.width ? x->a.width : x->b.width;
	c = x->a.channels > x->b.channels ? x->a.channels : x->b.channels;
	tensor(&x->output, 0, n, h, w, c, rnd(e) % 3 ? 0 : c + 2, type,
	       zero_point(e, type));
	x->a.buf.bo_index = random_bo(e, tensor_bytes(&x->a));
	x->b.buf.bo_index = random_bo(e, tensor_bytes(&x->b));
	x->output.buf.bo_index = random_bo(e, tensor_bytes(&x->output));
	if (add) {
		x->a_multiplier = (int32_t)pick(e, 0, (1 << 21) - 1);
		x->b_multiplier = (int32_t)pick(e, 0, (1 << 21) - 1);
		x->add_shift = (int32_t)pick(e, 10, 31);
	} else {
		x->left_shift = (int32_t)pick(e, 0, 15);
		x->multiplier = random_multiplier(e);
		x->shift = (int32_t)pick(e, 40, 62);
	}
	x->min = type == ENPU_DTYPE_UINT8 ? 0 : -128;
	x->max = type == ENPU_DTYPE_UINT8 ? 255 : 127;
}

static void pool_command(struct env *e, struct enpu_cmd_pool *p, bool average)
{
	uint8_t type = rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint32_t n = pick(e, 1, 2), h, w, c = pick(e, 1, 48), oh, ow;
	bool global = average && rnd(e) % 4 == 0;

	memset(p, 0, sizeof(*p));
	p->hdr.opcode = average ? ENPU_CMD_AVG_POOL : ENPU_CMD_MAX_POOL;
	p->hdr.size = sizeof(*p);
	do {
		h = pick(e, 1, 30);
		w = pick(e, 1, 30);
		p->kernel_height = global ? h : pick(e, 1, 4);
		p->kernel_width = global ? w : pick(e, 1, 4);
		p->stride_height = global ? 1 : pick(e, 1, 3);
		p->stride_width = global ? 1 : pick(e, 1, 3);
		p->dilation_height = global ? 1 : pick(e, 1, 2);
		p->dilation_width = global ? 1 : pick(e, 1, 2);
		p->pad_top = global ? 0 : rnd(e) % p->kernel_height;
		p->pad_bottom = global ? 0 : rnd(e) % p->kernel_height;
		p->pad_left = global ? 0 : rnd(e) % p->kernel_width;
		p->pad_right = global ? 0 : rnd(e) % p->kernel_width;
		p->flags = !global && rnd(e) % 3 == 0 ? ENPU_POOL_CEIL_MODE : 0;
		oh = output_extent_mode(h, p->pad_top, p->pad_bottom,
					p->kernel_height, p->stride_height,
					p->dilation_height,
					p->flags & ENPU_POOL_CEIL_MODE);
		ow = output_extent_mode(w, p->pad_left, p->pad_right,
					p->kernel_width, p->stride_width,
					p->dilation_width,
					p->flags & ENPU_POOL_CEIL_MODE);
	} while (!oh || !ow);
	if (average && rnd(e) % 2)
		p->flags |= ENPU_POOL_COUNT_INCLUDE_PAD;
	tensor(&p->input, 0, n, h, w, c, rnd(e) % 3 ? 0 : c + 1, type,
	       zero_point(e, type));
	tensor(&p->output, 0, n, oh, ow, c, rnd(e) % 3 ? 0 : c + 4, type,
	       average ? zero_point(e, type) : p->input.zero_point);
	p->input.buf.bo_index = random_bo(e, tensor_bytes(&p->input));
	p->output.buf.bo_index = random_bo(e, tensor_bytes(&p->output));
	none(&p->params);
	p->min = type == ENPU_DTYPE_UINT8 ? 0 : -128;
	p->max = type == ENPU_DTYPE_UINT8 ? 255 : 127;
	if (!average)
		return;
	if (rnd(e) % 2) {
		uint32_t entries = p->kernel_height * p->kernel_width;
		struct enpu_pool_param *t = calloc(entries, sizeof(*t));
		uint32_t bo = bo_new(e, (uint64_t)entries * sizeof(*t), 50);

		for (uint32_t i = 0; i < entries; i++) {
			t[i].multiplier = random_multiplier(e);
			t[i].shift = (int32_t)pick(e, 40, 50);
			t[i].left_shift = (int32_t)pick(e, 0, 8);
		}
		bo_write(e, bo, 0, t, (uint64_t)entries * sizeof(*t));
		free(t);
		p->params.bo_index = bo;
	} else {
		p->multiplier = random_multiplier(e);
		p->shift = (int32_t)pick(e, 40, 50);
		p->left_shift = (int32_t)pick(e, 0, 8);
	}
}

static void copy_command(struct env *e, struct enpu_cmd_copy *c)
{
	uint8_t type = (uint8_t)pick(e, 0, ENPU_DTYPE_FLOAT32);
	uint32_t n = pick(e, 1, 3), h = pick(e, 1, 20), w = pick(e, 1, 20);
	uint32_t ch = pick(e, 1, 30);
	int32_t zp = type >= ENPU_DTYPE_INT32 ? 0 : zero_point(e, type);

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = ENPU_CMD_COPY;
	c->hdr.size = sizeof(*c);
	tensor(&c->input, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 3, type, zp);
	tensor(&c->output, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 5, type, zp);
	c->input.buf.bo_index = random_bo(e, tensor_bytes(&c->input));
	c->output.buf.bo_index = random_bo(e, tensor_bytes(&c->output));
}

/* Random bits as floats: NaNs, infinities, subnormals and huge values
 * among them; about half the elements small, so most land in range. */
static void quantize_command(struct env *e, struct enpu_cmd_quantize *q)
{
	uint8_t type = (uint8_t)pick(e, 0, 1);
	uint32_t n = pick(e, 1, 2), h = pick(e, 1, 20), w = pick(e, 1, 20);
	uint32_t ch = pick(e, 1, 12);
	float scale = (float)pick(e, 1, 1000) / 256.0f;
	uint64_t count;
	float *x;

	memset(q, 0, sizeof(*q));
	q->hdr.opcode = ENPU_CMD_QUANTIZE;
	q->hdr.size = sizeof(*q);
	tensor(&q->input, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 3,
	       ENPU_DTYPE_FLOAT32, 0);
	tensor(&q->output, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 5, type,
	       zero_point(e, type));
	memcpy(&q->scale, &scale, sizeof(scale));
	q->input.buf.bo_index = random_bo(e, tensor_bytes(&q->input));
	q->output.buf.bo_index = random_bo(e, tensor_bytes(&q->output));
	count = tensor_bytes(&q->input) / 4;
	x = malloc(count * sizeof(*x));
	if (!x)
		return;
	guest_model_read(&e->gm, q->input.buf.bo_index, 0, x,
			 count * sizeof(*x));
	for (uint64_t i = 0; i < count; i++)
		if (rnd(e) % 2)
			x[i] = ((float)(rnd(e) % 2001) - 1000.0f) / 8.0f *
			       scale;
	bo_write(e, q->input.buf.bo_index, 0, x, count * sizeof(*x));
	free(x);
}

/* Random bytes in, scales from the smallest subnormal (subnormal
 * products) to near FLT_MAX (products that overflow to infinity). */
static void dequantize_command(struct env *e, struct enpu_cmd_dequantize *d)
{
	static const uint32_t scales[] = {
		0x00000001u, 0x00012345u, 0x3c23d70au, 0x3f800001u,
		0x3e99999au, 0x7e000000u, 0x7f7fffffu,
	};
	uint8_t type = (uint8_t)pick(e, 0, 1);
	uint32_t n = pick(e, 1, 2), h = pick(e, 1, 20), w = pick(e, 1, 20);
	uint32_t ch = pick(e, 1, 12);

	memset(d, 0, sizeof(*d));
	d->hdr.opcode = ENPU_CMD_DEQUANTIZE;
	d->hdr.size = sizeof(*d);
	tensor(&d->input, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 3, type,
	       zero_point(e, type));
	tensor(&d->output, 0, n, h, w, ch, rnd(e) % 2 ? 0 : ch + 5,
	       ENPU_DTYPE_FLOAT32, 0);
	d->scale = rnd(e) % 2 ? scales[rnd(e) % (sizeof(scales) /
						 sizeof(scales[0]))] :
		   (uint32_t)pick(e, 0x30000000u, 0x40000000u);
	d->input.buf.bo_index = random_bo(e, tensor_bytes(&d->input));
	d->output.buf.bo_index = random_bo(e, tensor_bytes(&d->output));
}

/* A layer whose output shares a BO with one of its inputs. */
static bool shares_a_bo(const struct layer *l)
{
	return l->out.bo == l->in.bo ||
	       ((l->opcode == ENPU_CMD_ADD || l->opcode == ENPU_CMD_MUL) &&
		l->out.bo == l->in2.bo);
}

/*
 * Performs @l over its output elements in @pieces random ranges. With
 * @in_order the ranges go first to last and, where the device allows an
 * in-layer preemption point (the output shares no BO with an input), the
 * state is sometimes dropped between two ranges and gathered again, as a
 * preempted and resumed job does; otherwise they go in random order on
 * one state.
 */
static uint32_t run_split(struct env *e, const struct layer_engine *engine,
			  const struct layer *l, unsigned int pieces,
			  bool in_order)
{
	uint64_t elements = tensor_elements(&l->out), cuts[64];
	unsigned int count = 0, order[64];
	struct layer_state *st = NULL;
	uint32_t status = ENPU_JOB_STATUS_OK;

	cuts[count++] = 0;
	for (unsigned int i = 1; i < pieces && i < 62; i++)
		cuts[count++] = rnd(e) % (elements + 1);
	cuts[count++] = elements;
	/* Sort the cuts; empty ranges are allowed. */
	for (unsigned int i = 1; i < count; i++)
		for (unsigned int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			uint64_t t = cuts[j];

			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	for (unsigned int i = 0; i + 1 < count; i++)
		order[i] = i;
	for (unsigned int i = count - 2; i > 0 && !in_order; i--) {
		unsigned int j = rnd(e) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned int i = 0; i + 1 < count && status == ENPU_JOB_STATUS_OK;
	     i++) {
		if (in_order && !shares_a_bo(l) && rnd(e) % 2) {
			layer_state_free(st);	/* preempted, resumed */
			st = NULL;
		}
		status = layer_run_range(engine, l, &e->gm.job, &e->gm.ram,
					 &st, cuts[order[i]],
					 cuts[order[i] + 1]);
	}
	layer_state_free(st);
	return status;
}

/*
 * The ways, each from the same RAM: the oracle in one range (the
 * reference), FAST in one range, both split in random order on one state,
 * both split in order with states dropped and gathered again, and FAST in
 * one range scattering row by row. Returns the number of ways that
 * differed from the first.
 */
static int four_ways(struct test_state *t, struct env *e, const void *cmd,
		     uint32_t size, const char *what)
{
	struct layer l;
	uint32_t status;
	int differ = 0;

	status = layer_check(&e->gm.job, cmd, size, &(uint32_t){ 0 });
	CHECK(t, status == ENPU_JOB_STATUS_OK, "%s: layer_check says %u", what,
	      status);
	if (status != ENPU_JOB_STATUS_OK)
		return 1;
	layer_decode(cmd, &l);
	memcpy(e->before, e->gm.ram.base, used(e));
	status = layer_run(&e->oracle, &l, &e->gm.job, &e->gm.ram);
	CHECK(t, status == ENPU_JOB_STATUS_OK, "%s: oracle %u", what, status);
	memcpy(e->first, e->gm.ram.base, used(e));
	CHECK(t, memcmp(e->first, e->before, used(e)),
	      "%s: the oracle wrote nothing", what);
	for (int way = 1; way < 8; way++) {
		const struct layer_engine *engine = way == 7 ? &e->fast2 :
						    way == 6 ? &e->fast_rows :
						    way % 2 ? &e->fast :
							      &e->oracle;

		memcpy(e->gm.ram.base, e->before, used(e));
		status = way == 1 || way >= 6 ?
			 layer_run(engine, &l, &e->gm.job, &e->gm.ram) :
			 run_split(e, engine, &l, pick(e, 2, 12), way >= 4);
		CHECK(t, status == ENPU_JOB_STATUS_OK, "%s way %d: status %u",
		      what, way, status);
		if (memcmp(e->gm.ram.base, e->first, used(e))) {
			size_t at = 0;

			while (e->gm.ram.base[at] == e->first[at])
				at++;
			CHECK(t, 0, "%s: way %d (%s, %s) differs first at RAM "
			      "0x%zx", what, way, layer_mode_name(engine->mode),
			      way == 1 ? "one range" : way < 4 ?
			      "split, any order" : way < 6 ? "split, resumed" :
			      way == 6 ? "one range, row by row" :
			      "one range, 2 threads", at);
			differ++;
		}
	}
	return differ;
}

static struct env *env;

static void test_conv_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct enpu_cmd_conv2d c;
		char what[64];

		env_reset(env, seed);
		conv_command(env, &c, seed % 4 == 0, false);
		snprintf(what, sizeof(what), "conv seed %llu",
			 (unsigned long long)seed);
		if (four_ways(t, env, &c, sizeof(c), what))
			return;
	}
}

static void test_fc_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 100; seed < 140; seed++) {
		struct enpu_cmd_fc f;
		char what[64];

		env_reset(env, seed);
		fc_command(env, &f);
		snprintf(what, sizeof(what), "fc seed %llu",
			 (unsigned long long)seed);
		if (four_ways(t, env, &f, sizeof(f), what))
			return;
	}
}

static void test_eltwise_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 200; seed < 260; seed++) {
		struct enpu_cmd_eltwise x;
		char what[64];

		env_reset(env, seed);
		eltwise_command(env, &x, seed % 2);
		snprintf(what, sizeof(what), "%s seed %llu",
			 seed % 2 ? "add" : "mul", (unsigned long long)seed);
		if (four_ways(t, env, &x, sizeof(x), what))
			return;
	}
}

static void test_pool_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 300; seed < 360; seed++) {
		struct enpu_cmd_pool p;
		char what[64];

		env_reset(env, seed);
		pool_command(env, &p, seed % 2);
		snprintf(what, sizeof(what), "%s pool seed %llu",
			 seed % 2 ? "avg" : "max", (unsigned long long)seed);
		if (four_ways(t, env, &p, sizeof(p), what))
			return;
	}
}

static void test_copy_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 400; seed < 420; seed++) {
		struct enpu_cmd_copy c;
		char what[64];

		env_reset(env, seed);
		copy_command(env, &c);
		snprintf(what, sizeof(what), "copy seed %llu",
			 (unsigned long long)seed);
		if (four_ways(t, env, &c, sizeof(c), what))
			return;
	}
}

static void test_quantize_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 500; seed < 540; seed++) {
		struct enpu_cmd_quantize q;
		char what[64];

		env_reset(env, seed);
		quantize_command(env, &q);
		snprintf(what, sizeof(what), "quantize seed %llu",
			 (unsigned long long)seed);
		if (four_ways(t, env, &q, sizeof(q), what))
			return;
	}
}

/*
 * QUANTIZE's rule on values worked out by hand, in both modes: ties to
 * even, the zero point added after rounding, saturation, NaN stores 0,
 * infinities the bounds, a subnormal scale.
 */
static void test_quantize_values(struct test_state *t)
{
	static const struct {
		float x, scale;
		uint8_t dtype;
		int32_t zp, want;
	} cases[] = {
		{ 0.5f, 1.0f, ENPU_DTYPE_UINT8, 10, 10 },
		{ 1.5f, 1.0f, ENPU_DTYPE_UINT8, 10, 12 },
		{ 2.5f, 1.0f, ENPU_DTYPE_UINT8, 10, 12 },
		{ -0.5f, 1.0f, ENPU_DTYPE_INT8, -3, -3 },
		{ -1.5f, 1.0f, ENPU_DTYPE_INT8, -3, -5 },
		{ 0.75f, 0.5f, ENPU_DTYPE_INT8, 0, 2 },	/* 1.5 -> 2 */
		{ 1.25f, 0.5f, ENPU_DTYPE_INT8, 0, 2 },	/* 2.5 -> 2 */
		{ 3.0f, 0.1f, ENPU_DTYPE_UINT8, 0, 30 },
		{ 245.5f, 1.0f, ENPU_DTYPE_UINT8, 10, 255 },
		{ -11.0f, 1.0f, ENPU_DTYPE_UINT8, 10, 0 },
		{ 1e30f, 1e-3f, ENPU_DTYPE_INT8, 5, 127 },
		{ -1e30f, 1e-3f, ENPU_DTYPE_INT8, 5, -128 },
		{ __builtin_inff(), 1.0f, ENPU_DTYPE_UINT8, 7, 255 },
		{ -__builtin_inff(), 1.0f, ENPU_DTYPE_INT8, 7, -128 },
		{ __builtin_nanf(""), 1.0f, ENPU_DTYPE_UINT8, 7, 0 },
		{ __builtin_nanf(""), 1.0f, ENPU_DTYPE_INT8, -7, 0 },
		{ 1e-40f, 1e-45f, ENPU_DTYPE_INT8, 0, 127 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int mode = 0; mode < 2; mode++) {
			struct enpu_cmd_quantize q;
			struct layer l;
			uint32_t status;
			uint8_t out = 0xaa;

			env_reset(env, 600 + i);
			memset(&q, 0, sizeof(q));
			q.hdr.opcode = ENPU_CMD_QUANTIZE;
			q.hdr.size = sizeof(q);
			tensor(&q.input, bo_new(env, 4, 1), 1, 1, 1, 1, 0,
			       ENPU_DTYPE_FLOAT32, 0);
			tensor(&q.output, bo_new(env, 1, 1), 1, 1, 1, 1, 0,
			       cases[i].dtype, cases[i].zp);
			memcpy(&q.scale, &cases[i].scale, sizeof(q.scale));
			bo_write(env, q.input.buf.bo_index, 0, &cases[i].x, 4);
			status = layer_check(&env->gm.job, (const uint8_t *)&q,
					     sizeof(q), &(uint32_t){ 0 });
			CHECK(t, status == ENPU_JOB_STATUS_OK,
			      "case %zu: layer_check %u", i, status);
			layer_decode((const uint8_t *)&q, &l);
			status = layer_run(mode ? &env->fast : &env->oracle, &l,
					   &env->gm.job, &env->gm.ram);
			guest_model_read(&env->gm, q.output.buf.bo_index, 0,
					 &out, 1);
			CHECK(t, status == ENPU_JOB_STATUS_OK &&
			      (cases[i].dtype == ENPU_DTYPE_INT8 ?
			       (int32_t)(int8_t)out : (int32_t)out) ==
			      cases[i].want,
			      "case %zu (%g / %g, zp %d) in %s: status %u, "
			      "stored %u, want %d", i, (double)cases[i].x,
			      (double)cases[i].scale, cases[i].zp,
			      mode ? "fast" : "oracle", status, out,
			      cases[i].want);
		}
}

static void test_dequantize_any_split_equals_oracle(struct test_state *t)
{
	for (uint64_t seed = 700; seed < 740; seed++) {
		struct enpu_cmd_dequantize d;
		char what[64];

		env_reset(env, seed);
		dequantize_command(env, &d);
		snprintf(what, sizeof(what), "dequantize seed %llu",
			 (unsigned long long)seed);
		if (four_ways(t, env, &d, sizeof(d), what))
			return;
	}
}

/*
 * DEQUANTIZE's rule on values worked out by hand, in both modes, bit for
 * bit: the zero point subtracted first, a product rounded once to nearest
 * even (3 * (1 + 2^-23) is halfway between two floats), +0 for x equal
 * to the zero point, subnormal products, overflow to infinity.
 */
static void test_dequantize_values(struct test_state *t)
{
	static const struct {
		int32_t x, zp;
		uint8_t dtype;
		float scale, want;
	} cases[] = {
		{ 200, 128, ENPU_DTYPE_UINT8, 0.5f, 36.0f },
		{ -128, 127, ENPU_DTYPE_INT8, 1.0f, -255.0f },
		{ 7, 7, ENPU_DTYPE_UINT8, 3.0f, 0.0f },
		{ 0, 1, ENPU_DTYPE_UINT8, 0.25f, -0.25f },
		{ 3, 0, ENPU_DTYPE_UINT8, 0x1.000002p+0f, 0x1.800004p+1f },
		{ 3, 0, ENPU_DTYPE_UINT8, 0x1p-149f, 0x3p-149f },
		{ 1, 0, ENPU_DTYPE_UINT8, 0x1.fffffep+127f, 0x1.fffffep+127f },
		{ 255, 0, ENPU_DTYPE_UINT8, 0x1.fffffep+127f, __builtin_inff() },
		{ -128, 127, ENPU_DTYPE_INT8, 0x1.fffffep+127f,
		  -__builtin_inff() },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int mode = 0; mode < 2; mode++) {
			struct enpu_cmd_dequantize d;
			uint8_t x = (uint8_t)cases[i].x;
			struct layer l;
			uint32_t status;
			float out = 1234.0f;

			env_reset(env, 800 + i);
			memset(&d, 0, sizeof(d));
			d.hdr.opcode = ENPU_CMD_DEQUANTIZE;
			d.hdr.size = sizeof(d);
			tensor(&d.input, bo_new(env, 1, 1), 1, 1, 1, 1, 0,
			       cases[i].dtype, cases[i].zp);
			tensor(&d.output, bo_new(env, 4, 1), 1, 1, 1, 1, 0,
			       ENPU_DTYPE_FLOAT32, 0);
			memcpy(&d.scale, &cases[i].scale, sizeof(d.scale));
			bo_write(env, d.input.buf.bo_index, 0, &x, 1);
			status = layer_check(&env->gm.job, (const uint8_t *)&d,
					     sizeof(d), &(uint32_t){ 0 });
			CHECK(t, status == ENPU_JOB_STATUS_OK,
			      "case %zu: layer_check %u", i, status);
			layer_decode((const uint8_t *)&d, &l);
			status = layer_run(mode ? &env->fast : &env->oracle, &l,
					   &env->gm.job, &env->gm.ram);
			guest_model_read(&env->gm, d.output.buf.bo_index, 0,
					 &out, 4);
			CHECK(t, status == ENPU_JOB_STATUS_OK &&
			      !memcmp(&out, &cases[i].want, 4),
			      "case %zu ((%d - %d) * %a) in %s: status %u, "
			      "stored %a, want %a", i, cases[i].x, cases[i].zp,
			      (double)cases[i].scale,
			      mode ? "fast" : "oracle", status, (double)out,
			      (double)cases[i].want);
		}
}

/* A dense convolution of the given shape; types, zero points, bias and
 * requantization random. */
struct conv_shape {
	uint32_t n, h, w, cin, cout, kh, kw, sh, sw, dh, dw;
	uint32_t pt, pl, pb, pr, in_stride;
};

/* @depthwise: groups = cin = cout. */
static void shaped_conv(struct env *e, struct enpu_cmd_conv2d *c,
			const struct conv_shape *s, bool depthwise)
{
	uint8_t in_type = rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint8_t out_type = rnd(e) % 5 == 0 ? ENPU_DTYPE_INT32 :
			   rnd(e) % 2 ? ENPU_DTYPE_UINT8 : ENPU_DTYPE_INT8;
	uint32_t oh = output_extent(s->h, s->pt + s->pb, s->kh, s->sh, s->dh);
	uint32_t ow = output_extent(s->w, s->pl + s->pr, s->kw, s->sw, s->dw);
	int32_t out_zp = out_type == ENPU_DTYPE_INT32 ? 0 :
			 zero_point(e, out_type);

	uint32_t group_in = depthwise ? 1 : s->cin;

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = depthwise ? ENPU_CMD_DEPTHWISE_CONV2D :
				       ENPU_CMD_CONV2D;
	c->hdr.size = sizeof(*c);
	c->kernel_height = s->kh;
	c->kernel_width = s->kw;
	c->stride_height = s->sh;
	c->stride_width = s->sw;
	c->dilation_height = s->dh;
	c->dilation_width = s->dw;
	c->pad_top = s->pt;
	c->pad_left = s->pl;
	c->pad_bottom = s->pb;
	c->pad_right = s->pr;
	c->groups = depthwise ? s->cin : 1;
	tensor(&c->input, 0, s->n, s->h, s->w, s->cin, s->in_stride, in_type,
	       zero_point(e, in_type));
	tensor(&c->output, 0, s->n, oh, ow, s->cout, 0, out_type, out_zp);
	c->input.buf.bo_index = random_bo(e, tensor_bytes(&c->input));
	c->output.buf.bo_index = random_bo(e, tensor_bytes(&c->output));
	c->weights.bo_index = random_bo(e, (uint64_t)s->cout * group_in *
					s->kh * s->kw);
	/*
	 * A random int32 bias (random BO bytes) and the random shifts of
	 * requant() saturate nearly every output, where a wrong weight
	 * order would not show: a small bias, and a scale that maps the
	 * sums of K products onto the output's range.
	 */
	c->bias.bo_index = bo_new(e, (uint64_t)s->cout * 4, 40);
	for (uint32_t o = 0; o < s->cout; o++) {
		int32_t b = (int32_t)pick(e, 0, 2000) - 1000;

		bo_write(e, c->bias.bo_index, o * 4ull, &b, 4);
	}
	requant(e, &c->requant, s->cout, out_type, out_zp);
	if (out_type != ENPU_DTYPE_INT32) {
		/* Sums of K products of about 2^13 grow as sqrt(K). */
		uint32_t k = group_in * s->kh * s->kw, shift = 39;

		for (uint32_t bits = 0; bits < 32 && k >> bits; bits += 2)
			shift++;
		none(&c->requant.per_channel);
		c->requant.multiplier = 1 << 30;
		c->requant.shift = (int32_t)shift;
	}
}

/* Each shape the six ways and more (four_ways), from seed @seed on. */
static void shapes_equal_oracle(struct test_state *t,
				const struct conv_shape *shapes, size_t count,
				bool depthwise, uint64_t seed, const char *name)
{
	for (size_t i = 0; i < count; i++) {
		struct enpu_cmd_conv2d c;
		char what[64];

		env_reset(env, seed + i);
		shaped_conv(env, &c, &shapes[i], depthwise);
		snprintf(what, sizeof(what), "%s shape %zu", name, i);
		if (four_ways(t, env, &c, sizeof(c), what))
			return;
	}
}

/*
 * First layers: the CPU kernels read a dense convolution over 1-7 input
 * channels that are not a multiple of 4 row by row (conv.c, wide rows:
 * window width above 1, dilation_width 1, at most 16 kernel rows); both
 * sides of each condition, windows in the left and right padding, odd
 * widths, strides 1-3, pixels apart (input_pixel_stride), several
 * images, and MobileNet's 3 -> 32 3x3/2 on an odd-sized image.
 */
static void test_first_layers_equal_oracle(struct test_state *t)
{
	static const struct conv_shape shapes[] = {
		/* n h w cin cout kh kw sh sw dh dw pt pl pb pr in_stride */
		/* MobileNet's stem, odd sizes; padding on one side only. */
		{ 1, 37, 35, 3, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0 }, { 2, 9, 11, 3, 16, 3, 3, 1, 1, 1, 1, 0, 2, 3, 1, 0 },
		/* 1 and 7 channels (wide rows), 4 and 8 (per tap). */
		{ 1, 10, 13, 1, 8, 3, 3, 3, 2, 1, 1, 1, 0, 1, 2, 0 }, { 1, 8, 9, 7, 20, 3, 2, 1, 1, 2, 1, 2, 1, 2, 1, 0 },
		{ 1, 8, 9, 4, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0 }, { 1, 8, 9, 8, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
		/* Window width 1, dilation_width 2: per tap. */
		{ 1, 8, 9, 3, 20, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0 }, { 1, 8, 9, 3, 20, 3, 3, 1, 1, 1, 2, 1, 2, 1, 2, 0 },
		/* 16 kernel rows (wide), 17 (per tap). */
		{ 1, 20, 7, 3, 17, 16, 3, 1, 1, 1, 1, 3, 1, 2, 1, 0 }, { 1, 20, 7, 3, 17, 17, 3, 1, 1, 1, 1, 3, 1, 2, 1, 0 },
		/* No window inside; pixels apart, three images. */
		{ 1, 5, 2, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0 }, { 3, 7, 9, 3, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5 },
	};

	shapes_equal_oracle(t, shapes, sizeof(shapes) / sizeof(shapes[0]),
			    false, 300, "first layer");
}

/*
 * Depthwise of up to 32 channels, which the CPU kernels compute by flat
 * rows (dwconv.c): both sides of each condition (32/33 channels, stride
 * width 1/2, kernel width 4/5, pixel strides), dilation, odd widths,
 * several images, MobileNet's 32-channel 3x3/1 on a reduced image; a
 * small bias and a scale that leave most outputs unsaturated.
 */
static void test_small_depthwise_equals_oracle(struct test_state *t)
{
	static const struct conv_shape shapes[] = {
		/* n h w cin cout kh kw sh sw dh dw pt pl pb pr in_stride */
		/* 32 channels (flat rows) and 33 (per pixel). */
		{ 1, 23, 21, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0 }, { 1, 9, 7, 33, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
		/* Kernel width 4, stride height 2 (flat rows); width 5. */
		{ 2, 9, 7, 24, 24, 3, 4, 2, 1, 1, 1, 1, 2, 1, 1, 0 }, { 1, 9, 7, 24, 24, 3, 5, 1, 1, 1, 1, 1, 2, 1, 2, 0 },
		/* Stride width 2 (per pixel); dilation (flat rows). */
		{ 1, 9, 7, 16, 16, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 0 }, { 1, 11, 13, 5, 5, 2, 3, 1, 1, 2, 3, 1, 3, 2, 3, 0 },
		/* Pixels apart in the guest: gathered dense, flat rows. */
		{ 3, 5, 3, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40 },
	};

	shapes_equal_oracle(t, shapes, sizeof(shapes) / sizeof(shapes[0]),
			    true, 400, "depthwise");
}

/*
 * The grain rule: with 2 host threads a layer whose modeled device time
 * is below solo_cycles runs on the engine's one-thread twin, one at or
 * above it on the engine; with one thread there is no twin.
 */
static void test_grain_picks_one_thread_below_it(struct test_state *t)
{
	struct layer_engine two;
	struct enpu_cmd_conv2d c;
	struct layer_cost cost;
	struct layer l;

	env_reset(env, 77);
	conv_command(env, &c, false, false);
	CHECK(t, layer_check(&env->gm.job, (const uint8_t *)&c, sizeof(c),
			     &(uint32_t){ 0 }) ==
	      ENPU_JOB_STATUS_OK, "command refused");
	layer_decode((const uint8_t *)&c, &l);
	layer_cost(&l, &cost);
	if (layer_engine_init(&two, LAYER_MODE_FAST, 2)) {
		CHECK(t, 0, "engine init");
		return;
	}
	CHECK(t, two.solo && two.solo->cpu != two.cpu &&
	      two.solo->cache == two.cache &&
	      two.solo_cycles == LAYER_SOLO_CYCLES, "no one-thread twin");
	two.solo_cycles = cost.cycles;
	CHECK(t, layer_engine_for(&two, &l) == &two,
	      "%llu cycles at a grain of as many: not the 2-thread engine",
	      (unsigned long long)cost.cycles);
	two.solo_cycles = cost.cycles + 1;
	CHECK(t, layer_engine_for(&two, &l) == two.solo,
	      "%llu cycles below the grain: not the one-thread twin",
	      (unsigned long long)cost.cycles);
	CHECK(t, !env->fast.solo && layer_engine_for(&env->fast, &l) ==
	      &env->fast, "one thread has a twin");
	CHECK(t, layer_engine_for(NULL, &l) == NULL, "NULL engine");
	layer_engine_destroy(&two);
}

/* K per group above the CPU kernels' 65536: FAST falls back, same bytes. */
static void test_conv_beyond_cpu_limits_falls_back(struct test_state *t)
{
	struct enpu_cmd_conv2d c;

	env_reset(env, 7);
	conv_command(env, &c, false, true);
	CHECK(t, (uint64_t)c.kernel_height * c.kernel_width *
	      (c.input.channels / c.groups) > 65536, "K is %u",
	      c.kernel_height * c.kernel_width *
	      (c.input.channels / c.groups));
	four_ways(t, env, &c, sizeof(c), "conv K > 65536");
}

/*
 * An ADD whose output overlaps its input a half an image further on, over
 * several images: its first range reads all of a before writing anything,
 * so one range or any split on one state equals the same ADD writing
 * elsewhere.
 */
static void test_overlapping_layer_reads_before_writing(struct test_state *t)
{
	struct enpu_cmd_eltwise x, y;
	uint64_t bytes, shift;
	uint8_t *expect, *got, *saved;
	struct layer l;
	uint32_t bo;

	env_reset(env, 11);
	eltwise_command(env, &x, true);
	x.a.batch = x.output.batch = 3;
	x.a.height = x.output.height;
	x.a.width = x.output.width;
	x.a.channels = x.output.channels;
	x.a.pixel_stride = x.output.pixel_stride = 0;
	x.b.batch = 1;
	bytes = tensor_bytes(&x.output);
	shift = bytes / 3 / 2;
	bo = random_bo(env, bytes + shift);
	x.a.buf.bo_index = x.output.buf.bo_index = bo;
	x.output.buf.offset = shift;
	y = x;
	y.output.buf.bo_index = random_bo(env, bytes);
	y.output.buf.offset = 0;
	CHECK(t, layer_check(&env->gm.job, (const uint8_t *)&x, sizeof(x),
			     &(uint32_t){ 0 }) ==
	      ENPU_JOB_STATUS_OK, "overlapping add checks");
	CHECK(t, layer_check(&env->gm.job, (const uint8_t *)&y, sizeof(y),
			     &(uint32_t){ 0 }) ==
	      ENPU_JOB_STATUS_OK, "separate add checks");
	layer_decode((const uint8_t *)&y, &l);
	CHECK(t, layer_run(&env->oracle, &l, &env->gm.job, &env->gm.ram) ==
	      ENPU_JOB_STATUS_OK, "separate output runs");
	expect = malloc(bytes);
	got = malloc(bytes);
	saved = malloc(bytes + shift);
	dma_gather(&env->gm.ram, &env->gm.bos[y.output.buf.bo_index], 0, bytes,
		   bytes, 1, expect);
	dma_gather(&env->gm.ram, &env->gm.bos[bo], 0, bytes + shift, bytes + shift,
		   1, saved);
	layer_decode((const uint8_t *)&x, &l);
	for (int mode = 0; mode < 4; mode++) {
		const struct layer_engine *e = mode % 2 ? &env->fast :
						       &env->oracle;

		/* One range, or random ranges on one state. */
		CHECK(t, (mode < 2 ? layer_run(e, &l, &env->gm.job,
					       &env->gm.ram) :
			  run_split(env, e, &l, 7, false)) ==
		      ENPU_JOB_STATUS_OK, "overlapping add runs");
		dma_gather(&env->gm.ram, &env->gm.bos[bo], shift, bytes, bytes, 1,
			   got);
		CHECK(t, !memcmp(got, expect, bytes),
		      "%s, %s: overlapping output differs from a separate one",
		      mode % 2 ? "fast" : "oracle",
		      mode < 2 ? "one range" : "split");
		bo_write(env, bo, 0, saved, bytes + shift);
	}
	free(expect);
	free(got);
	free(saved);
}

/* A per-channel table value out of range: INVALID before any write. */
static void test_bad_table_fails_before_writing(struct test_state *t)
{
	struct enpu_cmd_conv2d c;
	struct enpu_requant_param bad = { 1 << 20, 70 };
	struct layer_state *st = NULL;
	struct layer l;

	for (int mode = 0; mode < 2; mode++) {
		uint64_t seed = 21 + (uint64_t)mode * 1000;

		do {
			env_reset(env, seed++);
			conv_command(env, &c, false, false);
		} while (c.requant.per_channel.bo_index == ENPU_BUF_NONE ||
			 c.output.dtype == ENPU_DTYPE_INT32);
		bo_write(env, c.requant.per_channel.bo_index,
			 sizeof(bad) * (c.output.channels - 1), &bad,
			 sizeof(bad));
		layer_decode((const uint8_t *)&c, &l);
		memcpy(env->before, env->gm.ram.base, used(env));
		CHECK(t, layer_run_range(mode ? &env->fast : &env->oracle, &l,
					 &env->gm.job, &env->gm.ram, &st, 0, 1) ==
		      ENPU_JOB_STATUS_INVALID && !st,
		      "bad last shift is INVALID, no state left");
		CHECK(t, !memcmp(env->before, env->gm.ram.base, used(env)),
		      "nothing written");
	}
}

/*
 * FAST keeps packed weights across runs; a guest that rewrites one weight
 * byte, or runs the same weights with another output quantization, must
 * get results for what it asks now.
 */
static void test_rewritten_weights_miss_the_cache(struct test_state *t)
{
	for (uint64_t seed = 500; seed < 510; seed++) {
		struct enpu_cmd_conv2d c;
		struct layer l;
		uint8_t byte;
		uint64_t at;
		char what[64];

		env_reset(env, seed);
		conv_command(env, &c, seed % 3 == 0, false);
		layer_decode((const uint8_t *)&c, &l);
		/* Fill the cache, then put RAM back as it was. */
		memcpy(env->before, env->gm.ram.base, used(env));
		CHECK(t, layer_run(&env->fast, &l, &env->gm.job, &env->gm.ram) ==
		      ENPU_JOB_STATUS_OK, "first run");
		memcpy(env->gm.ram.base, env->before, used(env));
		at = rnd(env) % ((uint64_t)c.output.channels *
				 (c.input.channels / c.groups) *
				 c.kernel_height * c.kernel_width);
		if (seed % 2 || c.output.dtype == ENPU_DTYPE_INT32) {
			guest_model_read(&env->gm, c.weights.bo_index, at,
					 &byte, 1);
			byte ^= (uint8_t)(1u << (rnd(env) % 8));
			guest_model_write(&env->gm, c.weights.bo_index, at,
					  &byte, 1);
		} else {
			/* Same weights, another output quantization. */
			c.output.zero_point = zero_point(env, c.output.dtype);
			c.requant.min = c.output.dtype == ENPU_DTYPE_UINT8 ?
					0 : -128;
		}
		snprintf(what, sizeof(what), "rewritten weight or output, "
			 "seed %llu", (unsigned long long)seed);
		if (four_ways(t, env, &c, sizeof(c), what))
			return;
	}
}

static const struct test_case tests[] = {
	{ "conv_any_split_equals_oracle", test_conv_any_split_equals_oracle },
	{ "fc_any_split_equals_oracle", test_fc_any_split_equals_oracle },
	{ "eltwise_any_split_equals_oracle",
	  test_eltwise_any_split_equals_oracle },
	{ "pool_any_split_equals_oracle", test_pool_any_split_equals_oracle },
	{ "copy_any_split_equals_oracle", test_copy_any_split_equals_oracle },
	{ "quantize_any_split_equals_oracle",
	  test_quantize_any_split_equals_oracle },
	{ "quantize_values", test_quantize_values },
	{ "dequantize_any_split_equals_oracle",
	  test_dequantize_any_split_equals_oracle },
	{ "dequantize_values", test_dequantize_values },
	{ "first_layers_equal_oracle", test_first_layers_equal_oracle },
	{ "grain_picks_one_thread_below_it",
	  test_grain_picks_one_thread_below_it },
	{ "small_depthwise_equals_oracle",
	  test_small_depthwise_equals_oracle },
	{ "conv_beyond_cpu_limits_falls_back",
	  test_conv_beyond_cpu_limits_falls_back },
	{ "overlapping_layer_reads_before_writing",
	  test_overlapping_layer_reads_before_writing },
	{ "bad_table_fails_before_writing",
	  test_bad_table_fails_before_writing },
	{ "rewritten_weights_miss_the_cache",
	  test_rewritten_weights_miss_the_cache },
};

int main(void)
{
	static struct env e;
	int passed = 0, failed = 0;

	env = &e;
	e.before = malloc(RAM_SIZE);
	e.first = malloc(RAM_SIZE);
	if (guest_model_init(&e.gm, RAM_SIZE, SG_BYTES) || !e.before ||
	    !e.first || layer_engine_init(&e.fast, LAYER_MODE_FAST, 1) ||
	    layer_engine_init(&e.fast_rows, LAYER_MODE_FAST, 1) ||
	    layer_engine_init(&e.fast2, LAYER_MODE_FAST, 2) ||
	    layer_engine_init(&e.oracle, LAYER_MODE_ORACLE, 1)) {
		printf("vnpu-exec: 0 passed, 1 failed (setup)\n");
		return 1;
	}
	/* Below any output row: one row per chunk. */
	e.fast_rows.scatter_chunk_bytes = 1;
	e.fast2.solo_cycles = 0;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		struct test_state t = { 0 };

		tests[i].run(&t);
		printf("%s %s\n", t.failures ? "FAIL" : "ok  ", tests[i].name);
		if (t.failures)
			failed++;
		else
			passed++;
	}
	layer_engine_destroy(&e.fast);
	layer_engine_destroy(&e.fast_rows);
	layer_engine_destroy(&e.fast2);
	layer_engine_destroy(&e.oracle);
	guest_model_destroy(&e.gm);
	free(e.before);
	free(e.first);
	printf("vnpu-exec: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
