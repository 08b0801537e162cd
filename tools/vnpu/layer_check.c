// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding and structural checks of the layer commands, and their cost.
 * Every rule of the kernel-doc in uapi/enpu_cmd.h is checked here, before
 * the job's first command runs: first the command's shape (sizes, reserved
 * fields, types, parameter ranges, output dimensions equal to what the
 * layer computes → INVALID), then every extent against its BO and the
 * access it needs (→ DMA_FAULT). Values the device reads from BOs (the
 * per-channel and pool parameter tables) are checked when the command runs
 * (layer_exec.c), since they may change until then.
 *
 * The commands are copied into the uapi structs with memcpy: both the
 * guest and every host this model runs on are little endian.
 */
#include <string.h>

#include "layer.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the vnpu reads command structs in place: little-endian hosts only"
#endif

#define MACS_PER_CYCLE		VNPU_MACS_PER_CYCLE
#define BYTES_PER_CYCLE		32u
#define CONV_PARAM_MAX		255u
#define POOL_KERNEL_MAX		65535u
#define FC_K_MAX		65536u
#define ADD_MULTIPLIER_LIMIT	(1 << 21)
#define ADD_SHIFT_MAX		31
#define MUL_LEFT_SHIFT_MAX	15
#define POOL_LEFT_SHIFT_MAX	30

#define TYPES_8BIT	(1u << ENPU_DTYPE_UINT8 | 1u << ENPU_DTYPE_INT8)
#define TYPES_ANY	(TYPES_8BIT | 1u << ENPU_DTYPE_INT32)

typedef unsigned __int128 u128;

uint32_t dtype_size(uint32_t dtype)
{
	return dtype == ENPU_DTYPE_INT32 ? 4 : 1;
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
		*lo = 0;	/* INT32: zero point 0 */
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
	default:
		return sizeof(struct enpu_cmd_copy);
	}
}

/* ---- shape rules (INVALID) ---- */

static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v <= hi;
}

static bool tensor_desc_ok(const struct enpu_tensor_desc *t, uint32_t types)
{
	int32_t lo, hi;

	if (t->buf.reserved || t->reserved0[0] || t->reserved0[1] ||
	    t->reserved0[2] || t->reserved1)
		return false;
	if (!t->batch || !t->height || !t->width || !t->channels)
		return false;
	if (t->pixel_stride && t->pixel_stride < t->channels)
		return false;
	if (t->dtype > ENPU_DTYPE_INT32 || !(types & (1u << t->dtype)))
		return false;
	dtype_range(t->dtype, &lo, &hi);
	return in_range(t->zero_point, lo, hi);
}

static bool clamp_ok(uint32_t dtype, int32_t min, int32_t max)
{
	int32_t lo, hi;

	dtype_range(dtype, &lo, &hi);
	return in_range(min, lo, hi) && in_range(max, lo, hi) && min <= max;
}

static bool ref_is_none(const struct enpu_buf_ref *r)
{
	return r->bo_index == ENPU_BUF_NONE;
}

static bool multiplier_ok(int32_t m)
{
	return m >= 0;	/* s32: below 2^31 by its type */
}

static bool shift_ok(int32_t s)
{
	return in_range(s, ENPU_REQUANT_SHIFT_MIN, ENPU_REQUANT_SHIFT_MAX);
}

/* Requantization descriptor of a CONV2D/FC whose output type is @dtype. */
static bool requant_ok(const struct enpu_requant_desc *rq, uint32_t dtype)
{
	if (rq->per_channel.reserved)
		return false;
	if (dtype == ENPU_DTYPE_INT32)
		return ref_is_none(&rq->per_channel) && !rq->per_channel.offset &&
		       !rq->multiplier && !rq->shift && !rq->min && !rq->max;
	if (!clamp_ok(dtype, rq->min, rq->max))
		return false;
	if (!ref_is_none(&rq->per_channel))
		return !rq->multiplier && !rq->shift;
	return multiplier_ok(rq->multiplier) && shift_ok(rq->shift);
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

static bool conv_shape_ok(const struct enpu_cmd_conv2d *c, bool depthwise)
{
	const struct enpu_tensor_desc *in = &c->input, *out = &c->output;
	uint64_t oh, ow;

	if (c->reserved || c->weights.reserved || c->bias.reserved)
		return false;
	if (!tensor_desc_ok(in, TYPES_8BIT) || !tensor_desc_ok(out, TYPES_ANY))
		return false;
	if (!requant_ok(&c->requant, out->dtype))
		return false;
	if (!in_range(c->kernel_height, 1, CONV_PARAM_MAX) ||
	    !in_range(c->kernel_width, 1, CONV_PARAM_MAX) ||
	    !in_range(c->stride_height, 1, CONV_PARAM_MAX) ||
	    !in_range(c->stride_width, 1, CONV_PARAM_MAX) ||
	    !in_range(c->dilation_height, 1, CONV_PARAM_MAX) ||
	    !in_range(c->dilation_width, 1, CONV_PARAM_MAX) ||
	    c->pad_top > CONV_PARAM_MAX || c->pad_left > CONV_PARAM_MAX ||
	    c->pad_bottom > CONV_PARAM_MAX || c->pad_right > CONV_PARAM_MAX)
		return false;
	if (!c->groups || in->channels % c->groups ||
	    out->channels % c->groups)
		return false;
	if (depthwise && (c->groups != in->channels ||
			  c->groups != out->channels))
		return false;
	if (out->batch != in->batch)
		return false;
	if (!output_extent(in->height, c->pad_top, c->pad_bottom,
			   c->kernel_height, c->stride_height,
			   c->dilation_height, false, &oh) ||
	    !output_extent(in->width, c->pad_left, c->pad_right,
			   c->kernel_width, c->stride_width,
			   c->dilation_width, false, &ow))
		return false;
	return out->height == oh && out->width == ow;
}

static bool fc_shape_ok(const struct enpu_cmd_fc *f)
{
	const struct enpu_tensor_desc *in = &f->input, *out = &f->output;

	if (f->weights.reserved || f->bias.reserved)
		return false;
	if (!tensor_desc_ok(in, TYPES_8BIT) || !tensor_desc_ok(out, TYPES_ANY))
		return false;
	if (!requant_ok(&f->requant, out->dtype))
		return false;
	if (in->batch != 1 || in->height != 1 || in->channels > FC_K_MAX)
		return false;
	return out->batch == 1 && out->height == 1 && out->width == in->width;
}

/* b's (or a's) dimension against the output's: equal or broadcast. */
static bool broadcast_dim_ok(uint32_t in, uint32_t out)
{
	return in == out || in == 1;
}

static bool eltwise_shape_ok(const struct enpu_cmd_eltwise *e, bool add)
{
	const struct enpu_tensor_desc *a = &e->a, *b = &e->b, *o = &e->output;
	const uint32_t ad[4] = { a->batch, a->height, a->width, a->channels };
	const uint32_t bd[4] = { b->batch, b->height, b->width, b->channels };
	const uint32_t od[4] = { o->batch, o->height, o->width, o->channels };
	int i;

	if (!tensor_desc_ok(a, TYPES_8BIT) || !tensor_desc_ok(b, TYPES_8BIT) ||
	    !tensor_desc_ok(o, TYPES_8BIT))
		return false;
	if (b->dtype != a->dtype || o->dtype != a->dtype)
		return false;
	for (i = 0; i < 4; i++) {
		uint32_t want = ad[i] > bd[i] ? ad[i] : bd[i];

		if (od[i] != want || !broadcast_dim_ok(ad[i], od[i]) ||
		    !broadcast_dim_ok(bd[i], od[i]))
			return false;
	}
	if (!clamp_ok(o->dtype, e->min, e->max))
		return false;
	if (add)
		return in_range(e->a_multiplier, 0, ADD_MULTIPLIER_LIMIT - 1) &&
		       in_range(e->b_multiplier, 0, ADD_MULTIPLIER_LIMIT - 1) &&
		       in_range(e->add_shift, 1, ADD_SHIFT_MAX) &&
		       !e->left_shift && !e->multiplier && !e->shift;
	return !e->a_multiplier && !e->b_multiplier && !e->add_shift &&
	       in_range(e->left_shift, 0, MUL_LEFT_SHIFT_MAX) &&
	       multiplier_ok(e->multiplier) && shift_ok(e->shift);
}

static bool pool_shape_ok(const struct enpu_cmd_pool *p, bool average)
{
	const struct enpu_tensor_desc *in = &p->input, *out = &p->output;
	const uint32_t known = ENPU_POOL_CEIL_MODE |
			       (average ? ENPU_POOL_COUNT_INCLUDE_PAD : 0);
	int32_t lo, hi;
	uint64_t oh, ow;

	if (p->reserved || p->reserved2 || p->params.reserved)
		return false;
	if (!tensor_desc_ok(in, TYPES_8BIT) || !tensor_desc_ok(out, TYPES_8BIT))
		return false;
	if (out->dtype != in->dtype || out->batch != in->batch ||
	    out->channels != in->channels)
		return false;
	if (!in_range(p->kernel_height, 1, POOL_KERNEL_MAX) ||
	    !in_range(p->kernel_width, 1, POOL_KERNEL_MAX) ||
	    !in_range(p->stride_height, 1, CONV_PARAM_MAX) ||
	    !in_range(p->stride_width, 1, CONV_PARAM_MAX) ||
	    !in_range(p->dilation_height, 1, CONV_PARAM_MAX) ||
	    !in_range(p->dilation_width, 1, CONV_PARAM_MAX) ||
	    p->pad_top >= p->kernel_height || p->pad_bottom >= p->kernel_height ||
	    p->pad_left >= p->kernel_width || p->pad_right >= p->kernel_width)
		return false;
	if (p->flags & ~known)
		return false;
	if (!output_extent(in->height, p->pad_top, p->pad_bottom,
			   p->kernel_height, p->stride_height,
			   p->dilation_height, p->flags & ENPU_POOL_CEIL_MODE,
			   &oh) ||
	    !output_extent(in->width, p->pad_left, p->pad_right,
			   p->kernel_width, p->stride_width, p->dilation_width,
			   p->flags & ENPU_POOL_CEIL_MODE, &ow) ||
	    out->height != oh || out->width != ow)
		return false;
	if (!average) {
		dtype_range(in->dtype, &lo, &hi);
		return ref_is_none(&p->params) && !p->multiplier && !p->shift &&
		       !p->left_shift && p->min == lo && p->max == hi;
	}
	if (!clamp_ok(out->dtype, p->min, p->max))
		return false;
	if (!ref_is_none(&p->params))
		return !p->multiplier && !p->shift && !p->left_shift;
	return multiplier_ok(p->multiplier) && shift_ok(p->shift) &&
	       in_range(p->left_shift, 0, POOL_LEFT_SHIFT_MAX);
}

static bool copy_shape_ok(const struct enpu_cmd_copy *c)
{
	const struct enpu_tensor_desc *in = &c->input, *out = &c->output;

	return tensor_desc_ok(in, TYPES_ANY) && tensor_desc_ok(out, TYPES_ANY) &&
	       out->dtype == in->dtype && out->batch == in->batch &&
	       out->height == in->height && out->width == in->width &&
	       out->channels == in->channels &&
	       out->zero_point == in->zero_point;
}

static bool shape_ok(const uint8_t *cmd, uint16_t opcode)
{
	union {
		struct enpu_cmd_conv2d conv;
		struct enpu_cmd_fc fc;
		struct enpu_cmd_eltwise eltwise;
		struct enpu_cmd_pool pool;
		struct enpu_cmd_copy copy;
	} u;

	memcpy(&u, cmd, struct_size(opcode));
	switch (opcode) {
	case ENPU_CMD_CONV2D:
		return conv_shape_ok(&u.conv, false);
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return conv_shape_ok(&u.conv, true);
	case ENPU_CMD_FULLY_CONNECTED:
		return fc_shape_ok(&u.fc);
	case ENPU_CMD_ADD:
		return eltwise_shape_ok(&u.eltwise, true);
	case ENPU_CMD_MUL:
		return eltwise_shape_ok(&u.eltwise, false);
	case ENPU_CMD_MAX_POOL:
		return pool_shape_ok(&u.pool, false);
	case ENPU_CMD_AVG_POOL:
		return pool_shape_ok(&u.pool, true);
	default:
		return copy_shape_ok(&u.copy);
	}
}

/* ---- extents (DMA_FAULT) ---- */

static bool tensor_ref_ok(const struct vnpu_job *job,
			  const struct layer_tensor *t, uint32_t access)
{
	uint64_t bytes;

	return tensor_extent(t, &bytes) &&
	       job_ref_ok(job, t->bo, t->offset, bytes, access);
}

/* An array of @count elements of @size bytes; @count * @size < 2^64 for
 * every caller (u32 counts times small sizes, or checked products). */
static bool array_ref_ok(const struct vnpu_job *job, struct layer_ref r,
			 u128 count, uint32_t size)
{
	u128 bytes = count * size;

	return bytes <= UINT64_MAX &&
	       job_ref_ok(job, r.bo, r.offset, (uint64_t)bytes,
			  ENPU_BO_ACCESS_READ);
}

static bool optional_ref_ok(const struct vnpu_job *job, struct layer_ref r,
			    u128 count, uint32_t size)
{
	return r.bo == ENPU_BUF_NONE || array_ref_ok(job, r, count, size);
}

static bool extents_ok(const struct vnpu_job *job, const struct layer *l)
{
	const uint32_t rd = ENPU_BO_ACCESS_READ, wr = ENPU_BO_ACCESS_WRITE;

	if (!tensor_ref_ok(job, &l->in, rd) || !tensor_ref_ok(job, &l->out, wr))
		return false;
	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return array_ref_ok(job, l->weights,
				    (u128)l->out.c * (l->in.c / l->groups) *
				    l->kernel_h * l->kernel_w, 1) &&
		       optional_ref_ok(job, l->bias, l->out.c, 4) &&
		       optional_ref_ok(job, l->table, l->out.c,
				       sizeof(struct enpu_requant_param));
	case ENPU_CMD_FULLY_CONNECTED:
		return array_ref_ok(job, l->weights, (u128)l->out.c * l->in.c,
				    1) &&
		       optional_ref_ok(job, l->bias, l->out.c, 4) &&
		       optional_ref_ok(job, l->table, l->out.c,
				       sizeof(struct enpu_requant_param));
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		return tensor_ref_ok(job, &l->in2, rd);
	case ENPU_CMD_AVG_POOL:
		return optional_ref_ok(job, l->table,
				       (u128)l->kernel_h * l->kernel_w,
				       sizeof(struct enpu_pool_param));
	default:
		return true;
	}
}

/*
 * Checks one layer command whose header (size multiple of 8, inside the
 * stream, flags 0) was checked by the caller. Returns ENPU_JOB_STATUS_OK,
 * INVALID or DMA_FAULT.
 */
uint32_t layer_check(const struct vnpu_job *job, const uint8_t *cmd,
		     uint32_t cmd_size)
{
	struct enpu_cmd_header hdr;
	struct layer l;

	memcpy(&hdr, cmd, sizeof(hdr));
	if (cmd_size != struct_size(hdr.opcode) || !shape_ok(cmd, hdr.opcode))
		return ENPU_JOB_STATUS_INVALID;
	layer_decode(cmd, &l);
	if (!extents_ok(job, &l))
		return ENPU_JOB_STATUS_DMA_FAULT;
	return ENPU_JOB_STATUS_OK;
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
