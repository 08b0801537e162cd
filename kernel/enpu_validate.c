// SPDX-License-Identifier: GPL-2.0
/*
 * Command-stream validator. The kernel runs it on its own copy of the
 * stream (userspace cannot change it afterwards), before the device sees
 * it; the device checks again, but a job that passed here must never fault
 * and never be rejected for its structure. Every rule of uapi/enpu_cmd.h is
 * enforced: a command's header fits in the stream, its size is the exact
 * size of its opcode's struct, flags and reserved fields are zero, layer
 * parameters are in their documented ranges, output shapes are what the
 * layer computes, and every buffer reference (tensor, weights, bias,
 * parameter table) lies inside its BO with the access the submit declared,
 * computed in u64 with overflow checks.
 *
 * What cannot be checked here is data the device reads at run time
 * (per-channel requantization and average-pool tables); the device checks
 * those and fails the job with ENPU_JOB_STATUS_INVALID.
 *
 * The stream is little endian whatever the CPU; fields are assembled from
 * bytes at offsetof() the uapi structs, so the code needs no endian or
 * unaligned-access helpers, which keeps it buildable in userspace (see
 * enpu_validate.h).
 */
#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
#include "enpu_regs.h"
#include "enpu_validate.h"

#define ENPU_VAL_HDR_BYTES	sizeof(struct enpu_cmd_header)
#define ENPU_VAL_POOL_FLAGS	(ENPU_POOL_CEIL_MODE | ENPU_POOL_COUNT_INCLUDE_PAD)

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

/* Field readers for a command at @p of struct @type. */
#define ENPU_VAL_U32(p, type, field) \
	enpu_val_le32((p) + offsetof(type, field))
#define ENPU_VAL_S32(p, type, field) \
	((s32)enpu_val_le32((p) + offsetof(type, field)))
#define ENPU_VAL_U64(p, type, field) \
	enpu_val_le64((p) + offsetof(type, field))
#define ENPU_VAL_AT(p, type, field)	((p) + offsetof(type, field))

/**
 * struct enpu_val - state of one validation
 * @bos: the submit's BOs.
 * @bo_count: entries in @bos.
 * @rule: the enum enpu_cmd_rule the first bad command broke.
 * @ref_fn: if set, told about every buffer range a checked command
 *	touches (enpu_validate_stream_refs()).
 * @ref_priv: its argument.
 * @cmd_offset: offset of the command being checked.
 * @sparse: the next range is a tensor extent with pixel_stride gaps.
 */
struct enpu_val {
	const struct enpu_validate_bo *bos;
	u32 bo_count;
	u32 rule;
	enpu_validate_ref_fn ref_fn;
	void *ref_priv;
	u32 cmd_offset;
	bool sparse;
};

static int enpu_val_fail(struct enpu_val *v, enum enpu_cmd_rule rule)
{
	v->rule = rule;
	return -EINVAL;
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
static int enpu_val_ref(struct enpu_val *v, const u8 *ref, u64 size,
			u32 access, struct enpu_val_range *range)
{
	u32 index = ENPU_VAL_U32(ref, struct enpu_buf_ref, bo_index);
	u64 offset = ENPU_VAL_U64(ref, struct enpu_buf_ref, offset);
	const struct enpu_validate_bo *bo;

	if (ENPU_VAL_U32(ref, struct enpu_buf_ref, reserved))
		return enpu_val_fail(v, ENPU_RULE_REF_RESERVED);
	if (index >= v->bo_count)
		return enpu_val_fail(v, ENPU_RULE_REF_BO_INDEX);
	bo = &v->bos[index];
	if ((bo->access & access) != access)
		return enpu_val_fail(v, access & ENPU_BO_ACCESS_WRITE ?
				     ENPU_RULE_REF_WRITE_ACCESS :
				     ENPU_RULE_REF_READ_ACCESS);
	/* offset + size <= bo->size, written so that nothing can wrap. */
	if (size == 0)
		return enpu_val_fail(v, ENPU_RULE_REF_EMPTY);
	if (size > bo->size || offset > bo->size - size)
		return enpu_val_fail(v, ENPU_RULE_REF_RANGE);
	if (range) {
		range->bo_index = index;
		range->start = offset;
		range->end = offset + size;
	}
	if (v->ref_fn) {
		struct enpu_validate_ref out = {
			.cmd_offset = v->cmd_offset,
			.bo_index = index,
			.start = offset,
			.end = offset + size,
			.access = access,
			.dense = !v->sparse,
		};

		v->ref_fn(v->ref_priv, &out);
	}
	v->sparse = false;
	return 0;
}

static bool enpu_val_ref_is_none(const u8 *ref)
{
	return ENPU_VAL_U32(ref, struct enpu_buf_ref, bo_index) ==
	       ENPU_BUF_NONE;
}

/* An absent optional operand: ENPU_BUF_NONE with offset and reserved 0. */
static int enpu_val_ref_none(struct enpu_val *v, const u8 *ref)
{
	if (ENPU_VAL_U32(ref, struct enpu_buf_ref, reserved))
		return enpu_val_fail(v, ENPU_RULE_REF_RESERVED);
	if (ENPU_VAL_U64(ref, struct enpu_buf_ref, offset))
		return enpu_val_fail(v, ENPU_RULE_REF_NONE_OFFSET);
	return 0;
}

/*
 * An optional array of @count entries of @entry_size bytes, read; a u32
 * count of entries of a few bytes cannot overflow u64.
 */
static int enpu_val_optional_array(struct enpu_val *v, const u8 *ref,
				   u32 count, u32 entry_size)
{
	if (enpu_val_ref_is_none(ref))
		return enpu_val_ref_none(v, ref);
	return enpu_val_ref(v, ref, (u64)count * entry_size,
			    ENPU_BO_ACCESS_READ, NULL);
}

static int enpu_val_nop(struct enpu_val *v, const u8 *cmd)
{
	if (ENPU_VAL_U32(cmd, struct enpu_cmd_nop, reserved))
		return enpu_val_fail(v, ENPU_RULE_NOP_RESERVED);
	return 0;
}

static int enpu_val_dma_copy(struct enpu_val *v, const u8 *cmd)
{
	u64 size = ENPU_VAL_U64(cmd, struct enpu_cmd_dma_copy, size);
	struct enpu_val_range src, dst;
	int ret;

	ret = enpu_val_ref(v, ENPU_VAL_AT(cmd, struct enpu_cmd_dma_copy, src),
			   size, ENPU_BO_ACCESS_READ, &src);
	if (ret)
		return ret;
	ret = enpu_val_ref(v, ENPU_VAL_AT(cmd, struct enpu_cmd_dma_copy, dst),
			   size, ENPU_BO_ACCESS_WRITE, &dst);
	if (ret)
		return ret;
	if (src.bo_index == dst.bo_index && src.start < dst.end &&
	    dst.start < src.end)
		return enpu_val_fail(v, ENPU_RULE_DMA_OVERLAP);
	return 0;
}

static int enpu_val_dma_fill(struct enpu_val *v, const u8 *cmd)
{
	u64 size = ENPU_VAL_U64(cmd, struct enpu_cmd_dma_fill, size);

	if (ENPU_VAL_U32(cmd, struct enpu_cmd_dma_fill, value) >
	    ENPU_FILL_VALUE_MAX)
		return enpu_val_fail(v, ENPU_RULE_FILL_VALUE);
	if (ENPU_VAL_U32(cmd, struct enpu_cmd_dma_fill, reserved))
		return enpu_val_fail(v, ENPU_RULE_FILL_RESERVED);
	return enpu_val_ref(v, ENPU_VAL_AT(cmd, struct enpu_cmd_dma_fill, dst),
			    size, ENPU_BO_ACCESS_WRITE, NULL);
}

/**
 * struct enpu_val_tensor - a decoded struct enpu_tensor_desc
 * @buf: its struct enpu_buf_ref, still encoded.
 * @dims: N, H, W, C.
 * @stride: pixel stride in elements, 0 already replaced by C.
 * @dtype: enum enpu_dtype.
 * @zero_point: in the type's range.
 */
struct enpu_val_tensor {
	const u8 *buf;
	u32 dims[4];
	u32 stride;
	u32 dtype;
	s32 zero_point;
};

enum { ENPU_VAL_N, ENPU_VAL_H, ENPU_VAL_W, ENPU_VAL_C };

static void enpu_val_type_range(u32 dtype, s32 *min, s32 *max)
{
	switch (dtype) {
	case ENPU_DTYPE_UINT8:
		*min = 0;
		*max = 255;
		break;
	case ENPU_DTYPE_INT8:
		*min = -128;
		*max = 127;
		break;
	default:
		*min = 0;
		*max = 0;
		break;
	}
}

static u32 enpu_val_elem_size(u32 dtype)
{
	return dtype == ENPU_DTYPE_INT32 || dtype == ENPU_DTYPE_FLOAT32 ? 4 : 1;
}

/* Decodes and checks a tensor descriptor on its own (not its extent). */
static int enpu_val_tensor(struct enpu_val *v, const u8 *desc,
			   struct enpu_val_tensor *t)
{
	const u8 *reserved0 = ENPU_VAL_AT(desc, struct enpu_tensor_desc,
					  reserved0);
	u32 stride = ENPU_VAL_U32(desc, struct enpu_tensor_desc, pixel_stride);
	s32 min, max;
	unsigned int i;

	t->buf = ENPU_VAL_AT(desc, struct enpu_tensor_desc, buf);
	t->dims[ENPU_VAL_N] = ENPU_VAL_U32(desc, struct enpu_tensor_desc, batch);
	t->dims[ENPU_VAL_H] = ENPU_VAL_U32(desc, struct enpu_tensor_desc, height);
	t->dims[ENPU_VAL_W] = ENPU_VAL_U32(desc, struct enpu_tensor_desc, width);
	t->dims[ENPU_VAL_C] = ENPU_VAL_U32(desc, struct enpu_tensor_desc,
					   channels);
	t->dtype = desc[offsetof(struct enpu_tensor_desc, dtype)];
	t->zero_point = ENPU_VAL_S32(desc, struct enpu_tensor_desc, zero_point);

	if (reserved0[0] || reserved0[1] || reserved0[2] ||
	    ENPU_VAL_U32(desc, struct enpu_tensor_desc, reserved1))
		return enpu_val_fail(v, ENPU_RULE_TENSOR_RESERVED);
	for (i = 0; i < 4; i++)
		if (!t->dims[i])
			return enpu_val_fail(v, ENPU_RULE_TENSOR_DIM);
	if (stride && stride < t->dims[ENPU_VAL_C])
		return enpu_val_fail(v, ENPU_RULE_TENSOR_STRIDE);
	t->stride = stride ? stride : t->dims[ENPU_VAL_C];
	if (t->dtype > ENPU_DTYPE_FLOAT32)
		return enpu_val_fail(v, ENPU_RULE_TENSOR_DTYPE);
	enpu_val_type_range(t->dtype, &min, &max);
	if (t->zero_point < min || t->zero_point > max)
		return enpu_val_fail(v, ENPU_RULE_TENSOR_ZERO_POINT);
	return 0;
}

/*
 * The tensor's bytes: the last element is at ((N*H*W - 1) * stride + C - 1)
 * elements from the start (rows and images are dense in pixels).
 */
static int enpu_val_tensor_extent(struct enpu_val *v,
				  const struct enpu_val_tensor *t, u32 access)
{
	u64 pixels, elems, bytes;

	if (check_mul_overflow((u64)t->dims[ENPU_VAL_N],
			       (u64)t->dims[ENPU_VAL_H], &pixels) ||
	    check_mul_overflow(pixels, (u64)t->dims[ENPU_VAL_W], &pixels) ||
	    check_mul_overflow(pixels - 1, (u64)t->stride, &elems) ||
	    check_add_overflow(elems, (u64)t->dims[ENPU_VAL_C], &elems) ||
	    check_mul_overflow(elems, (u64)enpu_val_elem_size(t->dtype),
			       &bytes))
		return enpu_val_fail(v, ENPU_RULE_TENSOR_SIZE);
	v->sparse = pixels > 1 && t->stride != t->dims[ENPU_VAL_C];
	return enpu_val_ref(v, t->buf, bytes, access, NULL);
}

/* Sets of enum enpu_dtype, as bits. */
#define ENPU_VAL_TYPES_8BIT	(BIT(ENPU_DTYPE_UINT8) | BIT(ENPU_DTYPE_INT8))
#define ENPU_VAL_TYPES_ACC	(ENPU_VAL_TYPES_8BIT | BIT(ENPU_DTYPE_INT32))
#define ENPU_VAL_TYPES_FLOAT	BIT(ENPU_DTYPE_FLOAT32)
#define ENPU_VAL_TYPES_ANY	(ENPU_VAL_TYPES_ACC | ENPU_VAL_TYPES_FLOAT)

/*
 * A layer operand: the descriptor, its type (one of @types, else
 * @type_rule), then its extent in its BO with @access.
 */
static int enpu_val_operand(struct enpu_val *v, const u8 *desc,
			    struct enpu_val_tensor *t, u32 types,
			    enum enpu_cmd_rule type_rule, u32 access)
{
	int ret = enpu_val_tensor(v, desc, t);

	if (ret)
		return ret;
	if (!(types & BIT(t->dtype)))
		return enpu_val_fail(v, type_rule);
	return enpu_val_tensor_extent(v, t, access);
}

static int enpu_val_input(struct enpu_val *v, const u8 *desc,
			  struct enpu_val_tensor *t, u32 types)
{
	return enpu_val_operand(v, desc, t, types, ENPU_RULE_INPUT_INT32,
				ENPU_BO_ACCESS_READ);
}

static int enpu_val_output(struct enpu_val *v, const u8 *desc,
			   struct enpu_val_tensor *t, u32 types)
{
	return enpu_val_operand(v, desc, t, types, ENPU_RULE_OUTPUT_INT32,
				ENPU_BO_ACCESS_WRITE);
}

/* A fused clamp: min <= max, both in the output type's range. */
static int enpu_val_clamp(struct enpu_val *v, u32 dtype, s32 lo, s32 hi)
{
	s32 min, max;

	enpu_val_type_range(dtype, &min, &max);
	if (lo < min || hi > max)
		return enpu_val_fail(v, ENPU_RULE_CLAMP_RANGE);
	if (lo > hi)
		return enpu_val_fail(v, ENPU_RULE_CLAMP_ORDER);
	return 0;
}

static bool enpu_val_shift_ok(s32 shift)
{
	return shift >= ENPU_REQUANT_SHIFT_MIN && shift <= ENPU_REQUANT_SHIFT_MAX;
}

/* struct enpu_requant_desc of a layer with @channels output channels. */
static int enpu_val_requant(struct enpu_val *v, const u8 *rq,
			    const struct enpu_val_tensor *out, u32 channels)
{
	const u8 *table = ENPU_VAL_AT(rq, struct enpu_requant_desc,
				      per_channel);
	s32 multiplier = ENPU_VAL_S32(rq, struct enpu_requant_desc, multiplier);
	s32 shift = ENPU_VAL_S32(rq, struct enpu_requant_desc, shift);
	s32 min = ENPU_VAL_S32(rq, struct enpu_requant_desc, min);
	s32 max = ENPU_VAL_S32(rq, struct enpu_requant_desc, max);

	if (out->dtype == ENPU_DTYPE_INT32) {
		if (!enpu_val_ref_is_none(table) || multiplier || shift ||
		    min || max)
			return enpu_val_fail(v, ENPU_RULE_REQUANT_INT32);
		return enpu_val_ref_none(v, table);
	}
	if (enpu_val_ref_is_none(table)) {
		if (enpu_val_ref_none(v, table))
			return -EINVAL;
		/* s32, so M < 2^31 always holds. */
		if (multiplier < 0)
			return enpu_val_fail(v, ENPU_RULE_REQUANT_MULTIPLIER);
		if (!enpu_val_shift_ok(shift))
			return enpu_val_fail(v, ENPU_RULE_REQUANT_SHIFT);
	} else {
		if (multiplier || shift)
			return enpu_val_fail(v, ENPU_RULE_REQUANT_TABLE_FIELDS);
		if (enpu_val_ref(v, table, (u64)channels *
				 sizeof(struct enpu_requant_param),
				 ENPU_BO_ACCESS_READ, NULL))
			return -EINVAL;
	}
	return enpu_val_clamp(v, out->dtype, min, max);
}

/*
 * Output size along one axis, as ONNX Conv and pooling compute it; with
 * @ceil_mode a last window starting past in + pad_begin is dropped. All
 * inputs are at most 32 bits wide, so u64 cannot overflow.
 */
static int enpu_val_window_out(struct enpu_val *v, u64 in, u64 pad_begin,
			       u64 pad_end, u64 kernel, u64 stride,
			       u64 dilation, bool ceil_mode, u64 *out)
{
	u64 span = dilation * (kernel - 1) + 1;
	u64 total = in + pad_begin + pad_end;

	if (total < span)
		return enpu_val_fail(v, ENPU_RULE_WINDOW);
	*out = (total - span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
	if (ceil_mode && *out > 1 && (*out - 1) * stride >= in + pad_begin)
		(*out)--;
	return 0;
}

static bool enpu_val_in(u32 value, u32 lo, u32 hi)
{
	return value >= lo && value <= hi;
}

static int enpu_val_conv2d(struct enpu_val *v, const u8 *cmd, bool depthwise)
{
#define CONV(field)	ENPU_VAL_U32(cmd, struct enpu_cmd_conv2d, field)
	struct enpu_val_tensor in, out;
	u32 kh = CONV(kernel_height), kw = CONV(kernel_width);
	u32 groups = CONV(groups);
	u64 oh, ow, weights;
	u32 cin, cout;
	int ret;

	if (CONV(reserved))
		return enpu_val_fail(v, ENPU_RULE_CONV_RESERVED);
	if (!enpu_val_in(kh, 1, ENPU_CONV_KERNEL_MAX) ||
	    !enpu_val_in(kw, 1, ENPU_CONV_KERNEL_MAX))
		return enpu_val_fail(v, ENPU_RULE_CONV_KERNEL);
	if (!enpu_val_in(CONV(stride_height), 1, ENPU_LAYER_STRIDE_MAX) ||
	    !enpu_val_in(CONV(stride_width), 1, ENPU_LAYER_STRIDE_MAX))
		return enpu_val_fail(v, ENPU_RULE_CONV_STRIDE);
	if (!enpu_val_in(CONV(dilation_height), 1, ENPU_LAYER_DILATION_MAX) ||
	    !enpu_val_in(CONV(dilation_width), 1, ENPU_LAYER_DILATION_MAX))
		return enpu_val_fail(v, ENPU_RULE_CONV_DILATION);
	if (CONV(pad_top) > ENPU_CONV_PAD_MAX ||
	    CONV(pad_left) > ENPU_CONV_PAD_MAX ||
	    CONV(pad_bottom) > ENPU_CONV_PAD_MAX ||
	    CONV(pad_right) > ENPU_CONV_PAD_MAX)
		return enpu_val_fail(v, ENPU_RULE_CONV_PAD);

	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_conv2d, input),
			     &in, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	ret = enpu_val_output(v, ENPU_VAL_AT(cmd, struct enpu_cmd_conv2d,
					     output), &out, ENPU_VAL_TYPES_ACC);
	if (ret)
		return ret;
	cin = in.dims[ENPU_VAL_C];
	cout = out.dims[ENPU_VAL_C];
	if (!groups || cin % groups || cout % groups)
		return enpu_val_fail(v, ENPU_RULE_CONV_GROUPS);
	if (depthwise && (groups != cin || groups != cout))
		return enpu_val_fail(v, ENPU_RULE_DEPTHWISE_GROUPS);
	if (out.dims[ENPU_VAL_N] != in.dims[ENPU_VAL_N])
		return enpu_val_fail(v, ENPU_RULE_CONV_BATCH);
	if (enpu_val_window_out(v, in.dims[ENPU_VAL_H], CONV(pad_top),
				CONV(pad_bottom), kh, CONV(stride_height),
				CONV(dilation_height), false, &oh) ||
	    enpu_val_window_out(v, in.dims[ENPU_VAL_W], CONV(pad_left),
				CONV(pad_right), kw, CONV(stride_width),
				CONV(dilation_width), false, &ow))
		return -EINVAL;
	if (out.dims[ENPU_VAL_H] != oh || out.dims[ENPU_VAL_W] != ow)
		return enpu_val_fail(v, ENPU_RULE_CONV_OUTPUT_SIZE);

	/* cout * (cin / groups) * kh * kw < 2^32 * 2^32 * 2^16: checked. */
	if (check_mul_overflow((u64)cout, (u64)(cin / groups), &weights) ||
	    check_mul_overflow(weights, (u64)kh * kw, &weights))
		return enpu_val_fail(v, ENPU_RULE_CONV_WEIGHTS_SIZE);
	ret = enpu_val_ref(v, ENPU_VAL_AT(cmd, struct enpu_cmd_conv2d, weights),
			   weights, ENPU_BO_ACCESS_READ, NULL);
	if (ret)
		return ret;
	ret = enpu_val_optional_array(v, ENPU_VAL_AT(cmd, struct enpu_cmd_conv2d,
						     bias), cout, sizeof(s32));
	if (ret)
		return ret;
	return enpu_val_requant(v, ENPU_VAL_AT(cmd, struct enpu_cmd_conv2d,
					       requant), &out, cout);
#undef CONV
}

static int enpu_val_fc(struct enpu_val *v, const u8 *cmd)
{
	struct enpu_val_tensor in, out;
	u32 m, k, n;
	int ret;

	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_fc, input),
			     &in, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	ret = enpu_val_output(v, ENPU_VAL_AT(cmd, struct enpu_cmd_fc, output),
			      &out, ENPU_VAL_TYPES_ACC);
	if (ret)
		return ret;
	if (in.dims[ENPU_VAL_N] != 1 || in.dims[ENPU_VAL_H] != 1 ||
	    out.dims[ENPU_VAL_N] != 1 || out.dims[ENPU_VAL_H] != 1)
		return enpu_val_fail(v, ENPU_RULE_FC_BATCH);
	m = in.dims[ENPU_VAL_W];
	k = in.dims[ENPU_VAL_C];
	n = out.dims[ENPU_VAL_C];
	if (k > ENPU_FC_K_MAX)
		return enpu_val_fail(v, ENPU_RULE_FC_K);
	if (out.dims[ENPU_VAL_W] != m)
		return enpu_val_fail(v, ENPU_RULE_FC_ROWS);
	/* n < 2^32, k <= 2^16: the product fits in u64. */
	ret = enpu_val_ref(v, ENPU_VAL_AT(cmd, struct enpu_cmd_fc, weights),
			   (u64)n * k, ENPU_BO_ACCESS_READ, NULL);
	if (ret)
		return ret;
	ret = enpu_val_optional_array(v, ENPU_VAL_AT(cmd, struct enpu_cmd_fc,
						     bias), n, sizeof(s32));
	if (ret)
		return ret;
	return enpu_val_requant(v, ENPU_VAL_AT(cmd, struct enpu_cmd_fc, requant),
				&out, n);
}

static int enpu_val_eltwise(struct enpu_val *v, const u8 *cmd, bool add)
{
#define ELT(field)	ENPU_VAL_S32(cmd, struct enpu_cmd_eltwise, field)
	struct enpu_val_tensor a, b, out;
	unsigned int i;
	int ret;

	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_eltwise, a),
			     &a, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_eltwise, b),
			     &b, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	ret = enpu_val_output(v, ENPU_VAL_AT(cmd, struct enpu_cmd_eltwise,
					     output), &out, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	if (b.dtype != a.dtype || out.dtype != a.dtype)
		return enpu_val_fail(v, ENPU_RULE_ELTWISE_TYPES);
	for (i = 0; i < 4; i++) {
		u32 want = a.dims[i] > b.dims[i] ? a.dims[i] : b.dims[i];

		if (out.dims[i] != want)
			return enpu_val_fail(v, ENPU_RULE_ELTWISE_OUTPUT_DIM);
		if ((a.dims[i] != want && a.dims[i] != 1) ||
		    (b.dims[i] != want && b.dims[i] != 1))
			return enpu_val_fail(v, ENPU_RULE_ELTWISE_BROADCAST);
	}
	if (add) {
		if (ELT(a_multiplier) < 0 ||
		    ELT(a_multiplier) >= ENPU_ADD_MULTIPLIER_LIMIT ||
		    ELT(b_multiplier) < 0 ||
		    ELT(b_multiplier) >= ENPU_ADD_MULTIPLIER_LIMIT)
			return enpu_val_fail(v, ENPU_RULE_ADD_MULTIPLIER);
		if (ELT(add_shift) < ENPU_ADD_SHIFT_MIN || ELT(add_shift) > ENPU_ADD_SHIFT_MAX)
			return enpu_val_fail(v, ENPU_RULE_ADD_SHIFT);
		if (ELT(left_shift) || ELT(multiplier) || ELT(shift))
			return enpu_val_fail(v, ENPU_RULE_ADD_MUL_FIELDS);
	} else {
		if (ELT(a_multiplier) || ELT(b_multiplier) || ELT(add_shift))
			return enpu_val_fail(v, ENPU_RULE_MUL_ADD_FIELDS);
		if (ELT(left_shift) < 0 ||
		    ELT(left_shift) > ENPU_MUL_LEFT_SHIFT_MAX)
			return enpu_val_fail(v, ENPU_RULE_MUL_LEFT_SHIFT);
		if (ELT(multiplier) < 0)
			return enpu_val_fail(v, ENPU_RULE_MUL_MULTIPLIER);
		if (!enpu_val_shift_ok(ELT(shift)))
			return enpu_val_fail(v, ENPU_RULE_MUL_SHIFT);
	}
	return enpu_val_clamp(v, out.dtype, ELT(min), ELT(max));
#undef ELT
}

static int enpu_val_pool_quant(struct enpu_val *v, const u8 *cmd, bool avg,
			       const struct enpu_val_tensor *out, u64 taps)
{
#define POOL_S(field)	ENPU_VAL_S32(cmd, struct enpu_cmd_pool, field)
	const u8 *params = ENPU_VAL_AT(cmd, struct enpu_cmd_pool, params);
	s32 min, max;

	if (!avg) {
		if (!enpu_val_ref_is_none(params))
			return enpu_val_fail(v, ENPU_RULE_MAX_POOL_TABLE);
		if (enpu_val_ref_none(v, params))
			return -EINVAL;
		if (POOL_S(multiplier) || POOL_S(shift) || POOL_S(left_shift))
			return enpu_val_fail(v, ENPU_RULE_MAX_POOL_REQUANT);
		enpu_val_type_range(out->dtype, &min, &max);
		if (POOL_S(min) != min || POOL_S(max) != max)
			return enpu_val_fail(v, ENPU_RULE_MAX_POOL_CLAMP);
		return 0;
	}
	if (enpu_val_ref_is_none(params)) {
		if (enpu_val_ref_none(v, params))
			return -EINVAL;
		if (POOL_S(multiplier) < 0)
			return enpu_val_fail(v, ENPU_RULE_AVG_POOL_MULTIPLIER);
		if (!enpu_val_shift_ok(POOL_S(shift)))
			return enpu_val_fail(v, ENPU_RULE_AVG_POOL_SHIFT);
		if (POOL_S(left_shift) < 0 ||
		    POOL_S(left_shift) > ENPU_POOL_LEFT_SHIFT_MAX)
			return enpu_val_fail(v, ENPU_RULE_AVG_POOL_LEFT_SHIFT);
	} else {
		if (POOL_S(multiplier) || POOL_S(shift) || POOL_S(left_shift))
			return enpu_val_fail(v, ENPU_RULE_AVG_POOL_TABLE_FIELDS);
		if (enpu_val_ref(v, params,
				 taps * sizeof(struct enpu_pool_param),
				 ENPU_BO_ACCESS_READ, NULL))
			return -EINVAL;
	}
	return enpu_val_clamp(v, out->dtype, POOL_S(min), POOL_S(max));
#undef POOL_S
}

static int enpu_val_pool(struct enpu_val *v, const u8 *cmd, bool avg)
{
#define POOL(field)	ENPU_VAL_U32(cmd, struct enpu_cmd_pool, field)
	struct enpu_val_tensor in, out;
	u32 kh = POOL(kernel_height), kw = POOL(kernel_width);
	u32 flags = POOL(flags);
	bool ceil_mode = flags & ENPU_POOL_CEIL_MODE;
	u64 oh, ow;
	int ret;

	if (POOL(reserved) || POOL(reserved2))
		return enpu_val_fail(v, ENPU_RULE_POOL_RESERVED);
	if (flags & ~ENPU_VAL_POOL_FLAGS)
		return enpu_val_fail(v, ENPU_RULE_POOL_FLAGS);
	if (!avg && (flags & ENPU_POOL_COUNT_INCLUDE_PAD))
		return enpu_val_fail(v, ENPU_RULE_POOL_INCLUDE_PAD);
	if (!enpu_val_in(kh, 1, ENPU_POOL_KERNEL_MAX) ||
	    !enpu_val_in(kw, 1, ENPU_POOL_KERNEL_MAX))
		return enpu_val_fail(v, ENPU_RULE_POOL_KERNEL);
	if (!enpu_val_in(POOL(stride_height), 1, ENPU_LAYER_STRIDE_MAX) ||
	    !enpu_val_in(POOL(stride_width), 1, ENPU_LAYER_STRIDE_MAX))
		return enpu_val_fail(v, ENPU_RULE_POOL_STRIDE);
	if (!enpu_val_in(POOL(dilation_height), 1, ENPU_LAYER_DILATION_MAX) ||
	    !enpu_val_in(POOL(dilation_width), 1, ENPU_LAYER_DILATION_MAX))
		return enpu_val_fail(v, ENPU_RULE_POOL_DILATION);
	if (POOL(pad_top) >= kh || POOL(pad_bottom) >= kh ||
	    POOL(pad_left) >= kw || POOL(pad_right) >= kw)
		return enpu_val_fail(v, ENPU_RULE_POOL_PAD);

	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_pool, input),
			     &in, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	ret = enpu_val_output(v, ENPU_VAL_AT(cmd, struct enpu_cmd_pool, output),
			      &out, ENPU_VAL_TYPES_8BIT);
	if (ret)
		return ret;
	if (out.dtype != in.dtype)
		return enpu_val_fail(v, ENPU_RULE_POOL_TYPE);
	if (out.dims[ENPU_VAL_N] != in.dims[ENPU_VAL_N] ||
	    out.dims[ENPU_VAL_C] != in.dims[ENPU_VAL_C])
		return enpu_val_fail(v, ENPU_RULE_POOL_BATCH_CHANNELS);
	if (enpu_val_window_out(v, in.dims[ENPU_VAL_H], POOL(pad_top),
				POOL(pad_bottom), kh, POOL(stride_height),
				POOL(dilation_height), ceil_mode, &oh) ||
	    enpu_val_window_out(v, in.dims[ENPU_VAL_W], POOL(pad_left),
				POOL(pad_right), kw, POOL(stride_width),
				POOL(dilation_width), ceil_mode, &ow))
		return -EINVAL;
	if (out.dims[ENPU_VAL_H] != oh || out.dims[ENPU_VAL_W] != ow)
		return enpu_val_fail(v, ENPU_RULE_POOL_OUTPUT_SIZE);
	return enpu_val_pool_quant(v, cmd, avg, &out, (u64)kh * kw);
#undef POOL
}

static int enpu_val_copy(struct enpu_val *v, const u8 *cmd)
{
	struct enpu_val_tensor in, out;
	unsigned int i;
	int ret;

	ret = enpu_val_input(v, ENPU_VAL_AT(cmd, struct enpu_cmd_copy, input),
			     &in, ENPU_VAL_TYPES_ANY);
	if (ret)
		return ret;
	ret = enpu_val_output(v, ENPU_VAL_AT(cmd, struct enpu_cmd_copy, output),
			      &out, ENPU_VAL_TYPES_ANY);
	if (ret)
		return ret;
	if (out.dtype != in.dtype || out.zero_point != in.zero_point)
		return enpu_val_fail(v, ENPU_RULE_COPY_TYPE);
	for (i = 0; i < 4; i++)
		if (out.dims[i] != in.dims[i])
			return enpu_val_fail(v, ENPU_RULE_COPY_SHAPE);
	return 0;
}

/*
 * QUANTIZE (1.6) and DEQUANTIZE (1.7), one layout: float32 and 8-bit
 * operands of the same shape, a scale under one rule, each command's own
 * rule ids. Checked in this order: reserved, scale, input, output, shape.
 */
struct enpu_val_convert {
	u32 in_types, out_types;
	enum enpu_cmd_rule reserved, scale, types, shape;
};

static const struct enpu_val_convert enpu_val_quantize_rules = {
	ENPU_VAL_TYPES_FLOAT, ENPU_VAL_TYPES_8BIT,
	ENPU_RULE_QUANTIZE_RESERVED, ENPU_RULE_QUANTIZE_SCALE,
	ENPU_RULE_QUANTIZE_TYPES, ENPU_RULE_QUANTIZE_SHAPE,
};

static const struct enpu_val_convert enpu_val_dequantize_rules = {
	ENPU_VAL_TYPES_8BIT, ENPU_VAL_TYPES_FLOAT,
	ENPU_RULE_DEQUANTIZE_RESERVED, ENPU_RULE_DEQUANTIZE_SCALE,
	ENPU_RULE_DEQUANTIZE_TYPES, ENPU_RULE_DEQUANTIZE_SHAPE,
};

static_assert(sizeof(struct enpu_cmd_quantize) ==
	      sizeof(struct enpu_cmd_dequantize) &&
	      offsetof(struct enpu_cmd_quantize, output) ==
	      offsetof(struct enpu_cmd_dequantize, output) &&
	      offsetof(struct enpu_cmd_quantize, scale) ==
	      offsetof(struct enpu_cmd_dequantize, scale),
	      "QUANTIZE and DEQUANTIZE share one layout");

static int enpu_val_convert(struct enpu_val *v, const u8 *cmd,
			    const struct enpu_val_convert *r)
{
	u32 scale = ENPU_VAL_U32(cmd, struct enpu_cmd_quantize, scale);
	struct enpu_val_tensor in, out;
	unsigned int i;
	int ret;

	if (ENPU_VAL_U32(cmd, struct enpu_cmd_quantize, reserved))
		return enpu_val_fail(v, r->reserved);
	if (scale < ENPU_QUANTIZE_SCALE_MIN ||
	    scale >= ENPU_QUANTIZE_SCALE_LIMIT)
		return enpu_val_fail(v, r->scale);
	ret = enpu_val_operand(v, ENPU_VAL_AT(cmd, struct enpu_cmd_quantize,
					      input), &in, r->in_types,
			       r->types, ENPU_BO_ACCESS_READ);
	if (ret)
		return ret;
	ret = enpu_val_operand(v, ENPU_VAL_AT(cmd, struct enpu_cmd_quantize,
					      output), &out, r->out_types,
			       r->types, ENPU_BO_ACCESS_WRITE);
	if (ret)
		return ret;
	for (i = 0; i < 4; i++)
		if (out.dims[i] != in.dims[i])
			return enpu_val_fail(v, r->shape);
	return 0;
}

static const u32 enpu_val_cmd_size[] = {
	[ENPU_CMD_NOP] = sizeof(struct enpu_cmd_nop),
	[ENPU_CMD_DMA_COPY] = sizeof(struct enpu_cmd_dma_copy),
	[ENPU_CMD_DMA_FILL] = sizeof(struct enpu_cmd_dma_fill),
	[ENPU_CMD_CONV2D] = sizeof(struct enpu_cmd_conv2d),
	[ENPU_CMD_DEPTHWISE_CONV2D] = sizeof(struct enpu_cmd_conv2d),
	[ENPU_CMD_FULLY_CONNECTED] = sizeof(struct enpu_cmd_fc),
	[ENPU_CMD_ADD] = sizeof(struct enpu_cmd_eltwise),
	[ENPU_CMD_MUL] = sizeof(struct enpu_cmd_eltwise),
	[ENPU_CMD_MAX_POOL] = sizeof(struct enpu_cmd_pool),
	[ENPU_CMD_AVG_POOL] = sizeof(struct enpu_cmd_pool),
	[ENPU_CMD_COPY] = sizeof(struct enpu_cmd_copy),
	[ENPU_CMD_QUANTIZE] = sizeof(struct enpu_cmd_quantize),
	[ENPU_CMD_DEQUANTIZE] = sizeof(struct enpu_cmd_dequantize),
};

/* Checks one command whose header and declared size fit the stream. */
static int enpu_val_command(struct enpu_val *v, const u8 *cmd, u32 opcode,
			    u32 size)
{
	if (opcode >= ARRAY_SIZE(enpu_val_cmd_size))
		return enpu_val_fail(v, ENPU_RULE_OPCODE);
	if (size != enpu_val_cmd_size[opcode])
		return enpu_val_fail(v, ENPU_RULE_COMMAND_SIZE);
	switch (opcode) {
	case ENPU_CMD_NOP:
		return enpu_val_nop(v, cmd);
	case ENPU_CMD_DMA_COPY:
		return enpu_val_dma_copy(v, cmd);
	case ENPU_CMD_DMA_FILL:
		return enpu_val_dma_fill(v, cmd);
	case ENPU_CMD_CONV2D:
		return enpu_val_conv2d(v, cmd, false);
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return enpu_val_conv2d(v, cmd, true);
	case ENPU_CMD_FULLY_CONNECTED:
		return enpu_val_fc(v, cmd);
	case ENPU_CMD_ADD:
		return enpu_val_eltwise(v, cmd, true);
	case ENPU_CMD_MUL:
		return enpu_val_eltwise(v, cmd, false);
	case ENPU_CMD_MAX_POOL:
		return enpu_val_pool(v, cmd, false);
	case ENPU_CMD_AVG_POOL:
		return enpu_val_pool(v, cmd, true);
	case ENPU_CMD_QUANTIZE:
		return enpu_val_convert(v, cmd, &enpu_val_quantize_rules);
	case ENPU_CMD_DEQUANTIZE:
		return enpu_val_convert(v, cmd, &enpu_val_dequantize_rules);
	default:
		return enpu_val_copy(v, cmd);
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
 * @rule: set on failure to the enum enpu_cmd_rule the command broke
 *	(enpu_cmd_rule_name() names it), to ENPU_RULE_NONE on success.
 *
 * Return: 0 if every command is valid, -EINVAL otherwise.
 */
int enpu_validate_stream(const void *stream, u32 size,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset, u32 *rule)
{
	return enpu_validate_stream_refs(stream, size, bos, bo_count,
					 bad_offset, rule, NULL, NULL);
}

/**
 * enpu_validate_stream_refs() - enpu_validate_stream(), naming every range
 * @stream: as for enpu_validate_stream().
 * @size: as for enpu_validate_stream().
 * @bos: as for enpu_validate_stream().
 * @bo_count: as for enpu_validate_stream().
 * @bad_offset: as for enpu_validate_stream().
 * @rule: as for enpu_validate_stream().
 * @fn: called, in stream order, for every buffer range of every command
 *	the validator accepted (inputs, weights, bias and tables as READ,
 *	outputs as WRITE); only meaningful if the stream is valid.
 * @priv: @fn's argument.
 *
 * Return: as enpu_validate_stream().
 */
int enpu_validate_stream_refs(const void *stream, u32 size,
			      const struct enpu_validate_bo *bos, u32 bo_count,
			      u32 *bad_offset, u32 *rule,
			      enpu_validate_ref_fn fn, void *priv)
{
	struct enpu_val v = {
		.bos = bos, .bo_count = bo_count,
		.ref_fn = fn, .ref_priv = priv,
	};
	const u8 *base = stream;
	u32 offset = 0;

	*rule = ENPU_RULE_NONE;
	if (size % ENPU_CMD_ALIGN) {
		*bad_offset = size;
		*rule = ENPU_RULE_STREAM_SIZE;
		return -EINVAL;
	}
	while (offset < size) {
		const u8 *cmd = base + offset;
		u32 opcode, flags, cmd_size;
		int ret = 0;

		/* size - offset >= 8 here: both are multiples of 8. */
		opcode = enpu_val_le16(cmd + offsetof(struct enpu_cmd_header,
						      opcode));
		flags = enpu_val_le16(cmd + offsetof(struct enpu_cmd_header,
						     flags));
		cmd_size = enpu_val_le32(cmd + offsetof(struct enpu_cmd_header,
							size));
		v.cmd_offset = offset;
		if (flags)
			ret = enpu_val_fail(&v, ENPU_RULE_HEADER_FLAGS);
		else if (cmd_size < ENPU_VAL_HDR_BYTES ||
			 cmd_size % ENPU_CMD_ALIGN)
			ret = enpu_val_fail(&v, ENPU_RULE_HEADER_SIZE);
		else if (cmd_size > size - offset)
			ret = enpu_val_fail(&v, ENPU_RULE_PAST_STREAM_END);
		else
			ret = enpu_val_command(&v, cmd, opcode, cmd_size);
		if (ret) {
			*bad_offset = offset;
			*rule = v.rule;
			return -EINVAL;
		}
		offset += cmd_size;
	}
	return 0;
}
