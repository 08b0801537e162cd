// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding and structural checks of the layer commands, and their cost.
 * Every rule of the kernel-doc in uapi/enpu_cmd.h is checked here, before
 * the job's first command runs: first the command's shape (sizes, reserved
 * fields, types, parameter ranges, output dimensions equal to what the
 * layer computes → INVALID), then every extent against its BO and the
 * access it needs (→ DMA_FAULT). Each check names the rule it enforces
 * (kernel/enpu_cmd_rule.h): the same ids as the kernel validator, which is
 * a separate implementation of the same rules; the limits are the macros
 * of uapi/enpu_cmd.h. Values the device reads from BOs (the
 * per-channel and pool parameter tables) are checked when the command runs
 * (layer_exec.c), since they may change until then.
 *
 * The commands are copied into the uapi structs with memcpy: both the
 * guest and every host this model runs on are little endian.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "layer.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the vnpu reads command structs in place: little-endian hosts only"
#endif

#define MACS_PER_CYCLE		VNPU_MACS_PER_CYCLE
#define BYTES_PER_CYCLE		32u

#define TYPES_8BIT	(1u << ENPU_DTYPE_UINT8 | 1u << ENPU_DTYPE_INT8)
#define TYPES_ACC	(TYPES_8BIT | 1u << ENPU_DTYPE_INT32)
#define TYPES_FLOAT	(1u << ENPU_DTYPE_FLOAT32)
#define TYPES_ANY	(TYPES_ACC | TYPES_FLOAT)

typedef unsigned __int128 u128;

uint32_t dtype_size(uint32_t dtype)
{
	return dtype == ENPU_DTYPE_INT32 || dtype == ENPU_DTYPE_FLOAT32 ? 4 : 1;
}

void dtype_range(uint32_t dtype, int32_t *lo, int32_t *hi)
{
	switch (dtype) {
	case ENPU_DTYPE_UINT8:
		*lo = 0;
		*hi = 255;
		break;
	case ENPU_DTYPE_INT8:
		*lo = -128;
		*hi = 127;
		break;
	default:
		*lo = 0;	/* INT32, FLOAT32: zero point 0 */
		*hi = 0;
		break;
	}
}

static uint64_t saturate(u128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

uint64_t tensor_elements(const struct layer_tensor *t)
{
	/* Checked tensors have a byte extent below 2^64, so no overflow. */
	return saturate((u128)t->n * t->h * t->w * t->c);
}

/* Bytes from the first element to one past the last, or false when that
 * does not fit in 64 bits (such a tensor lies outside any BO). */
static bool tensor_extent(const struct layer_tensor *t, uint64_t *bytes)
{
	u128 pixels = (u128)t->n * t->h * t->w;
	u128 extent = ((pixels - 1) * t->pixel_stride + t->c) *
		      dtype_size(t->dtype);

	if (extent > UINT64_MAX)
		return false;
	*bytes = (uint64_t)extent;
	return true;
}

static struct layer_tensor tensor_decode(const struct enpu_tensor_desc *d)
{
	return (struct layer_tensor){
		.bo = d->buf.bo_index,
		.offset = d->buf.offset,
		.n = d->batch,
		.h = d->height,
		.w = d->width,
		.c = d->channels,
		.pixel_stride = d->pixel_stride ? d->pixel_stride : d->channels,
		.dtype = d->dtype,
		.zero_point = d->zero_point,
	};
}

static struct layer_ref ref_decode(const struct enpu_buf_ref *r)
{
	return (struct layer_ref){ .bo = r->bo_index, .offset = r->offset };
}

static void requant_decode(const struct enpu_requant_desc *rq,
			   struct layer *l)
{
	l->table = ref_decode(&rq->per_channel);
	l->multiplier = rq->multiplier;
	l->shift = rq->shift;
	l->min = rq->min;
	l->max = rq->max;
}

/* The stream was checked, so the command has its struct's size. */
void layer_decode(const uint8_t *cmd, struct layer *l)
{
	struct enpu_cmd_header hdr;

	memset(l, 0, sizeof(*l));
	memcpy(&hdr, cmd, sizeof(hdr));
	l->opcode = hdr.opcode;
	switch (hdr.opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D: {
		struct enpu_cmd_conv2d c;

		memcpy(&c, cmd, sizeof(c));
		l->in = tensor_decode(&c.input);
		l->out = tensor_decode(&c.output);
		l->weights = ref_decode(&c.weights);
		l->bias = ref_decode(&c.bias);
		requant_decode(&c.requant, l);
		l->kernel_h = c.kernel_height;
		l->kernel_w = c.kernel_width;
		l->stride_h = c.stride_height;
		l->stride_w = c.stride_width;
		l->dilation_h = c.dilation_height;
		l->dilation_w = c.dilation_width;
		l->pad_top = c.pad_top;
		l->pad_left = c.pad_left;
		l->pad_bottom = c.pad_bottom;
		l->pad_right = c.pad_right;
		l->groups = c.groups;
		break;
	}
	case ENPU_CMD_FULLY_CONNECTED: {
		struct enpu_cmd_fc f;

		memcpy(&f, cmd, sizeof(f));
		l->in = tensor_decode(&f.input);
		l->out = tensor_decode(&f.output);
		l->weights = ref_decode(&f.weights);
		l->bias = ref_decode(&f.bias);
		requant_decode(&f.requant, l);
		break;
	}
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL: {
		struct enpu_cmd_eltwise e;

		memcpy(&e, cmd, sizeof(e));
		l->in = tensor_decode(&e.a);
		l->in2 = tensor_decode(&e.b);
		l->out = tensor_decode(&e.output);
		l->a_multiplier = e.a_multiplier;
		l->b_multiplier = e.b_multiplier;
		l->add_shift = e.add_shift;
		l->left_shift = e.left_shift;
		l->multiplier = e.multiplier;
		l->shift = e.shift;
		l->min = e.min;
		l->max = e.max;
		break;
	}
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL: {
		struct enpu_cmd_pool p;

		memcpy(&p, cmd, sizeof(p));
		l->in = tensor_decode(&p.input);
		l->out = tensor_decode(&p.output);
		l->table = ref_decode(&p.params);
		l->kernel_h = p.kernel_height;
		l->kernel_w = p.kernel_width;
		l->stride_h = p.stride_height;
		l->stride_w = p.stride_width;
		l->dilation_h = p.dilation_height;
		l->dilation_w = p.dilation_width;
		l->pad_top = p.pad_top;
		l->pad_left = p.pad_left;
		l->pad_bottom = p.pad_bottom;
		l->pad_right = p.pad_right;
		l->flags = p.flags;
		l->multiplier = p.multiplier;
		l->shift = p.shift;
		l->left_shift = p.left_shift;
		l->min = p.min;
		l->max = p.max;
		break;
	}
	case ENPU_CMD_COPY: {
		struct enpu_cmd_copy c;

		memcpy(&c, cmd, sizeof(c));
		l->in = tensor_decode(&c.input);
		l->out = tensor_decode(&c.output);
		break;
	}
	case ENPU_CMD_QUANTIZE:
	case ENPU_CMD_DEQUANTIZE: {	/* one layout */
		struct enpu_cmd_quantize q;

		memcpy(&q, cmd, sizeof(q));
		l->in = tensor_decode(&q.input);
		l->out = tensor_decode(&q.output);
		memcpy(&l->scale, &q.scale, sizeof(l->scale));
		break;
	}
	}
}

static uint32_t struct_size(uint16_t opcode)
{
	switch (opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return sizeof(struct enpu_cmd_conv2d);
	case ENPU_CMD_FULLY_CONNECTED:
		return sizeof(struct enpu_cmd_fc);
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		return sizeof(struct enpu_cmd_eltwise);
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		return sizeof(struct enpu_cmd_pool);
	case ENPU_CMD_QUANTIZE:
	case ENPU_CMD_DEQUANTIZE:
		return sizeof(struct enpu_cmd_quantize);
	default:
		return sizeof(struct enpu_cmd_copy);
	}
}

/* ---- shape rules (INVALID) ----
 * Each returns ENPU_RULE_NONE or the first rule (enum enpu_cmd_rule) the
 * command breaks, in the device's own order. */

static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v <= hi;
}

/* A tensor on its own; @type_rule when its dtype is known but not one of
 * @types. */
static uint32_t tensor_desc_rule(const struct enpu_tensor_desc *t,
				 uint32_t types, uint32_t type_rule)
{
	int32_t lo, hi;

	if (t->buf.reserved)
		return ENPU_RULE_REF_RESERVED;
	if (t->reserved0[0] || t->reserved0[1] || t->reserved0[2] ||
	    t->reserved1)
		return ENPU_RULE_TENSOR_RESERVED;
	if (!t->batch || !t->height || !t->width || !t->channels)
		return ENPU_RULE_TENSOR_DIM;
	if (t->pixel_stride && t->pixel_stride < t->channels)
		return ENPU_RULE_TENSOR_STRIDE;
	if (t->dtype > ENPU_DTYPE_FLOAT32)
		return ENPU_RULE_TENSOR_DTYPE;
	if (!(types & (1u << t->dtype)))
		return type_rule;
	dtype_range(t->dtype, &lo, &hi);
	return in_range(t->zero_point, lo, hi) ? ENPU_RULE_NONE :
						 ENPU_RULE_TENSOR_ZERO_POINT;
}

/* The input and output tensors of a layer, in that order. */
static uint32_t tensors_rule(const struct enpu_tensor_desc *in,
			     uint32_t in_types,
			     const struct enpu_tensor_desc *out,
			     uint32_t out_types)
{
	uint32_t rule = tensor_desc_rule(in, in_types, ENPU_RULE_INPUT_INT32);

	return rule ? rule : tensor_desc_rule(out, out_types,
					      ENPU_RULE_OUTPUT_INT32);
}

static uint32_t clamp_rule(uint32_t dtype, int32_t min, int32_t max)
{
	int32_t lo, hi;

	dtype_range(dtype, &lo, &hi);
	if (!in_range(min, lo, hi) || !in_range(max, lo, hi))
		return ENPU_RULE_CLAMP_RANGE;
	return min <= max ? ENPU_RULE_NONE : ENPU_RULE_CLAMP_ORDER;
}

static bool ref_is_none(const struct enpu_buf_ref *r)
{
	return r->bo_index == ENPU_BUF_NONE;
}

/* A reference the layer reads or writes: only its reserved field here. */
static uint32_t ref_field_rule(const struct enpu_buf_ref *r)
{
	return r->reserved ? ENPU_RULE_REF_RESERVED : ENPU_RULE_NONE;
}

static bool shift_ok(int32_t s)
{
	return in_range(s, ENPU_REQUANT_SHIFT_MIN, ENPU_REQUANT_SHIFT_MAX);
}

/*
 * Requantization descriptor of a CONV2D/FC whose output type is @dtype.
 * An ENPU_BUF_NONE table's offset matters only for an INT32 output, whose
 * descriptor must be all zero (docs/hw/vnpu.md, the vnpu 1.2 details): the
 * device never looks at the offset of an absent operand otherwise.
 */
static uint32_t requant_rule(const struct enpu_requant_desc *rq,
			     uint32_t dtype)
{
	const struct enpu_buf_ref *table = &rq->per_channel;

	if (table->reserved)
		return ENPU_RULE_REF_RESERVED;
	if (dtype == ENPU_DTYPE_INT32) {
		if (!ref_is_none(table) || rq->multiplier || rq->shift ||
		    rq->min || rq->max)
			return ENPU_RULE_REQUANT_INT32;
		return table->offset ? ENPU_RULE_REF_NONE_OFFSET : ENPU_RULE_NONE;
	}
	if (!ref_is_none(table)) {
		if (rq->multiplier || rq->shift)
			return ENPU_RULE_REQUANT_TABLE_FIELDS;
	} else if (rq->multiplier < 0) {	/* s32: below 2^31 by its type */
		return ENPU_RULE_REQUANT_MULTIPLIER;
	} else if (!shift_ok(rq->shift)) {
		return ENPU_RULE_REQUANT_SHIFT;
	}
	return clamp_rule(dtype, rq->min, rq->max);
}

/*
 * ONNX output size of one dimension: (in + pads - span) / stride + 1, with
 * span = dilation * (kernel - 1) + 1; false when the kernel does not fit.
 * With @ceil_mode the division rounds up and a last window that would
 * start past in + pad_begin is dropped.
 */
static bool output_extent(uint32_t in, uint32_t pad_begin, uint32_t pad_end,
			  uint32_t kernel, uint32_t stride, uint32_t dilation,
			  bool ceil_mode, uint64_t *out)
{
	uint64_t span = (uint64_t)dilation * (kernel - 1) + 1;
	uint64_t total = (uint64_t)in + pad_begin + pad_end;
	uint64_t o;

	if (total < span)
		return false;
	if (ceil_mode) {
		o = (total - span + stride - 1) / stride + 1;
		if ((o - 1) * stride >= (uint64_t)in + pad_begin)
			o--;
	} else {
		o = (total - span) / stride + 1;
	}
	*out = o;
	return true;
}

/* Output height and width of a windowed layer against what it computes. */
static uint32_t window_rule(const struct enpu_tensor_desc *in,
			    const struct enpu_tensor_desc *out,
			    const uint32_t kernel[2], const uint32_t stride[2],
			    const uint32_t dilation[2], const uint32_t pads[4],
			    bool ceil_mode, uint32_t size_rule)
{
	uint64_t oh, ow;

	if (!output_extent(in->height, pads[0], pads[2], kernel[0], stride[0],
			   dilation[0], ceil_mode, &oh) ||
	    !output_extent(in->width, pads[1], pads[3], kernel[1], stride[1],
			   dilation[1], ceil_mode, &ow))
		return ENPU_RULE_WINDOW;
	return out->height == oh && out->width == ow ? ENPU_RULE_NONE :
						       size_rule;
}

static uint32_t conv_shape_rule(const struct enpu_cmd_conv2d *c,
				bool depthwise)
{
	const struct enpu_tensor_desc *in = &c->input, *out = &c->output;
	const uint32_t kernel[2] = { c->kernel_height, c->kernel_width };
	const uint32_t stride[2] = { c->stride_height, c->stride_width };
	const uint32_t dilation[2] = { c->dilation_height, c->dilation_width };
	const uint32_t pads[4] = { c->pad_top, c->pad_left, c->pad_bottom,
				   c->pad_right };
	uint32_t rule;
	int i;

	if (c->reserved)
		return ENPU_RULE_CONV_RESERVED;
	rule = ref_field_rule(&c->weights);
	if (!rule)
		rule = ref_field_rule(&c->bias);
	if (!rule)
		rule = tensors_rule(in, TYPES_8BIT, out, TYPES_ACC);
	if (!rule)
		rule = requant_rule(&c->requant, out->dtype);
	if (rule)
		return rule;
	for (i = 0; i < 2; i++) {
		if (!in_range(kernel[i], 1, ENPU_CONV_KERNEL_MAX))
			return ENPU_RULE_CONV_KERNEL;
		if (!in_range(stride[i], 1, ENPU_LAYER_STRIDE_MAX))
			return ENPU_RULE_CONV_STRIDE;
		if (!in_range(dilation[i], 1, ENPU_LAYER_DILATION_MAX))
			return ENPU_RULE_CONV_DILATION;
	}
	for (i = 0; i < 4; i++)
		if (pads[i] > ENPU_CONV_PAD_MAX)
			return ENPU_RULE_CONV_PAD;
	if (!c->groups || in->channels % c->groups ||
	    out->channels % c->groups)
		return ENPU_RULE_CONV_GROUPS;
	if (depthwise && (c->groups != in->channels ||
			  c->groups != out->channels))
		return ENPU_RULE_DEPTHWISE_GROUPS;
	if (out->batch != in->batch)
		return ENPU_RULE_CONV_BATCH;
	return window_rule(in, out, kernel, stride, dilation, pads, false,
			   ENPU_RULE_CONV_OUTPUT_SIZE);
}

static uint32_t fc_shape_rule(const struct enpu_cmd_fc *f)
{
	const struct enpu_tensor_desc *in = &f->input, *out = &f->output;
	uint32_t rule = ref_field_rule(&f->weights);

	if (!rule)
		rule = ref_field_rule(&f->bias);
	if (!rule)
		rule = tensors_rule(in, TYPES_8BIT, out, TYPES_ACC);
	if (!rule)
		rule = requant_rule(&f->requant, out->dtype);
	if (rule)
		return rule;
	if (in->batch != 1 || in->height != 1 || out->batch != 1 ||
	    out->height != 1)
		return ENPU_RULE_FC_BATCH;
	if (in->channels > ENPU_FC_K_MAX)
		return ENPU_RULE_FC_K;
	return out->width == in->width ? ENPU_RULE_NONE : ENPU_RULE_FC_ROWS;
}

/* b's (or a's) dimension against the output's: equal or broadcast. */
static bool broadcast_dim_ok(uint32_t in, uint32_t out)
{
	return in == out || in == 1;
}

static uint32_t add_params_rule(const struct enpu_cmd_eltwise *e)
{
	if (!in_range(e->a_multiplier, 0, ENPU_ADD_MULTIPLIER_LIMIT - 1) ||
	    !in_range(e->b_multiplier, 0, ENPU_ADD_MULTIPLIER_LIMIT - 1))
		return ENPU_RULE_ADD_MULTIPLIER;
	if (!in_range(e->add_shift, ENPU_ADD_SHIFT_MIN, ENPU_ADD_SHIFT_MAX))
		return ENPU_RULE_ADD_SHIFT;
	if (e->left_shift || e->multiplier || e->shift)
		return ENPU_RULE_ADD_MUL_FIELDS;
	return ENPU_RULE_NONE;
}

static uint32_t mul_params_rule(const struct enpu_cmd_eltwise *e)
{
	if (e->a_multiplier || e->b_multiplier || e->add_shift)
		return ENPU_RULE_MUL_ADD_FIELDS;
	if (!in_range(e->left_shift, 0, ENPU_MUL_LEFT_SHIFT_MAX))
		return ENPU_RULE_MUL_LEFT_SHIFT;
	if (e->multiplier < 0)
		return ENPU_RULE_MUL_MULTIPLIER;
	return shift_ok(e->shift) ? ENPU_RULE_NONE : ENPU_RULE_MUL_SHIFT;
}

static uint32_t eltwise_shape_rule(const struct enpu_cmd_eltwise *e, bool add)
{
	const struct enpu_tensor_desc *a = &e->a, *b = &e->b, *o = &e->output;
	const uint32_t ad[4] = { a->batch, a->height, a->width, a->channels };
	const uint32_t bd[4] = { b->batch, b->height, b->width, b->channels };
	const uint32_t od[4] = { o->batch, o->height, o->width, o->channels };
	uint32_t rule = tensor_desc_rule(a, TYPES_8BIT, ENPU_RULE_INPUT_INT32);
	int i;

	if (!rule)
		rule = tensors_rule(b, TYPES_8BIT, o, TYPES_8BIT);
	if (rule)
		return rule;
	if (b->dtype != a->dtype || o->dtype != a->dtype)
		return ENPU_RULE_ELTWISE_TYPES;
	for (i = 0; i < 4; i++) {
		uint32_t want = ad[i] > bd[i] ? ad[i] : bd[i];

		if (od[i] != want)
			return ENPU_RULE_ELTWISE_OUTPUT_DIM;
		if (!broadcast_dim_ok(ad[i], od[i]) ||
		    !broadcast_dim_ok(bd[i], od[i]))
			return ENPU_RULE_ELTWISE_BROADCAST;
	}
	rule = add ? add_params_rule(e) : mul_params_rule(e);
	return rule ? rule : clamp_rule(o->dtype, e->min, e->max);
}

static uint32_t pool_quant_rule(const struct enpu_cmd_pool *p, bool average)
{
	int32_t lo, hi;

	if (!average) {
		if (!ref_is_none(&p->params))
			return ENPU_RULE_MAX_POOL_TABLE;
		if (p->multiplier || p->shift || p->left_shift)
			return ENPU_RULE_MAX_POOL_REQUANT;
		dtype_range(p->input.dtype, &lo, &hi);
		return p->min == lo && p->max == hi ? ENPU_RULE_NONE :
						      ENPU_RULE_MAX_POOL_CLAMP;
	}
	if (!ref_is_none(&p->params)) {
		if (p->multiplier || p->shift || p->left_shift)
			return ENPU_RULE_AVG_POOL_TABLE_FIELDS;
	} else if (p->multiplier < 0) {
		return ENPU_RULE_AVG_POOL_MULTIPLIER;
	} else if (!shift_ok(p->shift)) {
		return ENPU_RULE_AVG_POOL_SHIFT;
	} else if (!in_range(p->left_shift, 0, ENPU_POOL_LEFT_SHIFT_MAX)) {
		return ENPU_RULE_AVG_POOL_LEFT_SHIFT;
	}
	return clamp_rule(p->output.dtype, p->min, p->max);
}

static uint32_t pool_shape_rule(const struct enpu_cmd_pool *p, bool average)
{
	const struct enpu_tensor_desc *in = &p->input, *out = &p->output;
	const uint32_t kernel[2] = { p->kernel_height, p->kernel_width };
	const uint32_t stride[2] = { p->stride_height, p->stride_width };
	const uint32_t dilation[2] = { p->dilation_height, p->dilation_width };
	const uint32_t pads[4] = { p->pad_top, p->pad_left, p->pad_bottom,
				   p->pad_right };
	uint32_t rule;
	int i;

	if (p->reserved || p->reserved2)
		return ENPU_RULE_POOL_RESERVED;
	rule = ref_field_rule(&p->params);
	if (!rule)
		rule = tensors_rule(in, TYPES_8BIT, out, TYPES_8BIT);
	if (rule)
		return rule;
	if (out->dtype != in->dtype)
		return ENPU_RULE_POOL_TYPE;
	if (out->batch != in->batch || out->channels != in->channels)
		return ENPU_RULE_POOL_BATCH_CHANNELS;
	for (i = 0; i < 2; i++) {
		if (!in_range(kernel[i], 1, ENPU_POOL_KERNEL_MAX))
			return ENPU_RULE_POOL_KERNEL;
		if (!in_range(stride[i], 1, ENPU_LAYER_STRIDE_MAX))
			return ENPU_RULE_POOL_STRIDE;
		if (!in_range(dilation[i], 1, ENPU_LAYER_DILATION_MAX))
			return ENPU_RULE_POOL_DILATION;
	}
	/* pads[] is top, left, bottom, right: kernel[i % 2] is its axis. */
	for (i = 0; i < 4; i++)
		if (pads[i] >= kernel[i % 2])
			return ENPU_RULE_POOL_PAD;
	if (p->flags & ~(ENPU_POOL_CEIL_MODE | ENPU_POOL_COUNT_INCLUDE_PAD))
		return ENPU_RULE_POOL_FLAGS;
	if (!average && (p->flags & ENPU_POOL_COUNT_INCLUDE_PAD))
		return ENPU_RULE_POOL_INCLUDE_PAD;
	rule = window_rule(in, out, kernel, stride, dilation, pads,
			   p->flags & ENPU_POOL_CEIL_MODE,
			   ENPU_RULE_POOL_OUTPUT_SIZE);
	return rule ? rule : pool_quant_rule(p, average);
}

static uint32_t copy_shape_rule(const struct enpu_cmd_copy *c)
{
	const struct enpu_tensor_desc *in = &c->input, *out = &c->output;
	uint32_t rule = tensors_rule(in, TYPES_ANY, out, TYPES_ANY);

	if (rule)
		return rule;
	if (out->dtype != in->dtype || out->zero_point != in->zero_point)
		return ENPU_RULE_COPY_TYPE;
	if (out->batch != in->batch || out->height != in->height ||
	    out->width != in->width || out->channels != in->channels)
		return ENPU_RULE_COPY_SHAPE;
	return ENPU_RULE_NONE;
}

/* QUANTIZE (1.6) and DEQUANTIZE (1.7), one layout, each command's own
 * rule ids, in the device's order: the tensors, then the scale and the
 * reserved word, then the shape. */
struct convert_rules {
	uint32_t in_types, out_types;
	uint32_t types, scale, reserved, shape;
};

static const struct convert_rules quantize_rules = {
	TYPES_FLOAT, TYPES_8BIT, ENPU_RULE_QUANTIZE_TYPES,
	ENPU_RULE_QUANTIZE_SCALE, ENPU_RULE_QUANTIZE_RESERVED,
	ENPU_RULE_QUANTIZE_SHAPE,
};

static const struct convert_rules dequantize_rules = {
	TYPES_8BIT, TYPES_FLOAT, ENPU_RULE_DEQUANTIZE_TYPES,
	ENPU_RULE_DEQUANTIZE_SCALE, ENPU_RULE_DEQUANTIZE_RESERVED,
	ENPU_RULE_DEQUANTIZE_SHAPE,
};

static_assert(sizeof(struct enpu_cmd_quantize) ==
	      sizeof(struct enpu_cmd_dequantize) &&
	      offsetof(struct enpu_cmd_quantize, scale) ==
	      offsetof(struct enpu_cmd_dequantize, scale),
	      "QUANTIZE and DEQUANTIZE share one layout");

static uint32_t convert_shape_rule(const struct enpu_cmd_quantize *q,
				   const struct convert_rules *r)
{
	const struct enpu_tensor_desc *in = &q->input, *out = &q->output;
	uint32_t rule = tensor_desc_rule(in, r->in_types, r->types);

	if (!rule)
		rule = tensor_desc_rule(out, r->out_types, r->types);
	if (rule)
		return rule;
	if (q->scale < ENPU_QUANTIZE_SCALE_MIN ||
	    q->scale >= ENPU_QUANTIZE_SCALE_LIMIT)
		return r->scale;
	if (q->reserved)
		return r->reserved;
	if (out->batch != in->batch || out->height != in->height ||
	    out->width != in->width || out->channels != in->channels)
		return r->shape;
	return ENPU_RULE_NONE;
}

static uint32_t shape_rule(const uint8_t *cmd, uint16_t opcode)
{
	union {
		struct enpu_cmd_conv2d conv;
		struct enpu_cmd_fc fc;
		struct enpu_cmd_eltwise eltwise;
		struct enpu_cmd_pool pool;
		struct enpu_cmd_copy copy;
		struct enpu_cmd_quantize quantize;	/* and DEQUANTIZE */
	} u;

	memcpy(&u, cmd, struct_size(opcode));
	switch (opcode) {
	case ENPU_CMD_CONV2D:
		return conv_shape_rule(&u.conv, false);
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return conv_shape_rule(&u.conv, true);
	case ENPU_CMD_FULLY_CONNECTED:
		return fc_shape_rule(&u.fc);
	case ENPU_CMD_ADD:
		return eltwise_shape_rule(&u.eltwise, true);
	case ENPU_CMD_MUL:
		return eltwise_shape_rule(&u.eltwise, false);
	case ENPU_CMD_MAX_POOL:
		return pool_shape_rule(&u.pool, false);
	case ENPU_CMD_AVG_POOL:
		return pool_shape_rule(&u.pool, true);
	case ENPU_CMD_QUANTIZE:
		return convert_shape_rule(&u.quantize, &quantize_rules);
	case ENPU_CMD_DEQUANTIZE:
		return convert_shape_rule(&u.quantize, &dequantize_rules);
	default:
		return copy_shape_rule(&u.copy);
	}
}

/* ---- extents (DMA_FAULT) ---- */

static uint32_t tensor_ref_rule(const struct vnpu_job *job,
				const struct layer_tensor *t, uint32_t access)
{
	uint64_t bytes;

	if (!tensor_extent(t, &bytes))
		return ENPU_RULE_TENSOR_SIZE;
	return job_ref_rule(job, t->bo, t->offset, bytes, access);
}

/* An array of @count elements of @size bytes, read; @overflow_rule when
 * its size does not fit in 64 bits. */
static uint32_t array_ref_rule(const struct vnpu_job *job, struct layer_ref r,
			       u128 count, uint32_t size,
			       uint32_t overflow_rule)
{
	u128 bytes = count * size;

	if (bytes > UINT64_MAX)
		return overflow_rule;
	return job_ref_rule(job, r.bo, r.offset, (uint64_t)bytes,
			    ENPU_BO_ACCESS_READ);
}

/* An optional table: u32 counts of small entries cannot overflow. */
static uint32_t optional_ref_rule(const struct vnpu_job *job,
				  struct layer_ref r, u128 count,
				  uint32_t size)
{
	if (r.bo == ENPU_BUF_NONE)
		return ENPU_RULE_NONE;
	return array_ref_rule(job, r, count, size, ENPU_RULE_REF_RANGE);
}

/* Weights, bias and per-channel table of CONV2D/FC. */
static uint32_t weights_rule(const struct vnpu_job *job,
			     const struct layer *l, u128 weight_bytes)
{
	uint32_t rule = array_ref_rule(job, l->weights, weight_bytes, 1,
				       ENPU_RULE_CONV_WEIGHTS_SIZE);

	if (!rule)
		rule = optional_ref_rule(job, l->bias, l->out.c, 4);
	if (!rule)
		rule = optional_ref_rule(job, l->table, l->out.c,
					 sizeof(struct enpu_requant_param));
	return rule;
}

static uint32_t extents_rule(const struct vnpu_job *job, const struct layer *l)
{
	uint32_t rule = tensor_ref_rule(job, &l->in, ENPU_BO_ACCESS_READ);

	if (!rule)
		rule = tensor_ref_rule(job, &l->out, ENPU_BO_ACCESS_WRITE);
	if (rule)
		return rule;
	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return weights_rule(job, l, (u128)l->out.c *
				    (l->in.c / l->groups) * l->kernel_h *
				    l->kernel_w);
	case ENPU_CMD_FULLY_CONNECTED:
		return weights_rule(job, l, (u128)l->out.c * l->in.c);
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		return tensor_ref_rule(job, &l->in2, ENPU_BO_ACCESS_READ);
	case ENPU_CMD_AVG_POOL:
		return optional_ref_rule(job, l->table,
					 (u128)l->kernel_h * l->kernel_w,
					 sizeof(struct enpu_pool_param));
	default:
		return ENPU_RULE_NONE;
	}
}

/*
 * Checks one layer command whose header (size multiple of 8, inside the
 * stream, flags 0) was checked by the caller. Returns ENPU_JOB_STATUS_OK,
 * INVALID (a shape rule) or DMA_FAULT (an extent), with the rule broken
 * in *@rule.
 */
uint32_t layer_check(const struct vnpu_job *job, const uint8_t *cmd,
		     uint32_t cmd_size, uint32_t *rule)
{
	struct enpu_cmd_header hdr;
	struct layer l;

	memcpy(&hdr, cmd, sizeof(hdr));
	*rule = cmd_size == struct_size(hdr.opcode) ?
		shape_rule(cmd, hdr.opcode) : ENPU_RULE_COMMAND_SIZE;
	if (*rule)
		return ENPU_JOB_STATUS_INVALID;
	layer_decode(cmd, &l);
	*rule = extents_rule(job, &l);
	return *rule ? ENPU_JOB_STATUS_DMA_FAULT : ENPU_JOB_STATUS_OK;
}

static u128 tensor_bytes(const struct layer_tensor *t)
{
	return (u128)tensor_elements(t) * dtype_size(t->dtype);
}

/*
 * MACs and bytes of a checked command (docs/hw/vnpu.md, "Interface 1.2",
 * Timing): every byte read or written counts once, gaps between the
 * pixels of a strided tensor do not.
 */
void layer_cost(const struct layer *l, struct layer_cost *cost)
{
	u128 macs = 0, bytes = tensor_bytes(&l->in) + tensor_bytes(&l->out);
	u128 taps, cycles_macs, cycles_bytes;

	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		taps = (u128)l->kernel_h * l->kernel_w * (l->in.c / l->groups);
		macs = (u128)tensor_elements(&l->out) * taps;
		bytes += taps * l->out.c;
		break;
	case ENPU_CMD_FULLY_CONNECTED:
		macs = (u128)l->out.w * l->out.c * l->in.c;
		bytes += (u128)l->out.c * l->in.c;
		break;
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		bytes += tensor_bytes(&l->in2);
		break;
	case ENPU_CMD_AVG_POOL:
		if (l->table.bo != ENPU_BUF_NONE)
			bytes += (u128)l->kernel_h * l->kernel_w *
				 sizeof(struct enpu_pool_param);
		break;
	}
	if (l->opcode == ENPU_CMD_CONV2D ||
	    l->opcode == ENPU_CMD_DEPTHWISE_CONV2D ||
	    l->opcode == ENPU_CMD_FULLY_CONNECTED) {
		if (l->bias.bo != ENPU_BUF_NONE)
			bytes += (u128)l->out.c * 4;
		if (l->table.bo != ENPU_BUF_NONE)
			bytes += (u128)l->out.c *
				 sizeof(struct enpu_requant_param);
	}
	cycles_macs = (macs + MACS_PER_CYCLE - 1) / MACS_PER_CYCLE;
	cycles_bytes = (bytes + BYTES_PER_CYCLE - 1) / BYTES_PER_CYCLE;
	cost->macs = saturate(macs);
	cost->bytes = saturate(bytes);
	cost->cycles = saturate(cycles_macs > cycles_bytes ? cycles_macs :
							      cycles_bytes);
}
