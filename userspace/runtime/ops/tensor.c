// SPDX-License-Identifier: MIT
/* Tensor helpers every op uses: sizes, shapes, broadcasting, conversions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half.h"
#include "rt_op.h"

int rt_tensor_set_shape(struct rt_kernel *k, struct rt_tensor *t,
			int32_t dtype, int32_t rank, const int64_t *dims)
{
	size_t count = 1, size = rt_dtype_size(dtype);

	if (!size)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "output type %s is not supported",
				   rt_dtype_name(dtype));
	if (rank < 0 || rank > RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "output rank %d exceeds %d", rank,
				   RT_MAX_RANK);
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output dimension %d is negative (%"
					   PRId64 ")", i, dims[i]);
		if (dims[i] && count > ((SIZE_MAX / 16) / size) /
				       (size_t)dims[i])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output size overflows");
		count *= (size_t)dims[i];
	}
	t->dtype = dtype;
	t->rank = rank;
	if (rank)
		memmove(t->dims, dims, (size_t)rank * sizeof(dims[0]));
	t->byte_size = count * size;
	return 0;
}

int rt_tensor_read_ints(struct rt_kernel *k, const struct rt_tensor *t,
			size_t max, int64_t *values, size_t *count)
{
	size_t n = rt_tensor_elements(t);

	if (t->dtype != ENPU_RT_INT64 && t->dtype != ENPU_RT_INT32)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "'%s' must be int64 or int32, not %s",
				   t->name ? t->name : "?",
				   rt_dtype_name(t->dtype));
	if (!t->data)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "'%s' must be known before running",
				   t->name ? t->name : "?");
	if (n > max)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "'%s' has %zu elements, at most %zu allowed",
				   t->name ? t->name : "?", n, max);
	for (size_t i = 0; i < n; i++)
		values[i] = t->dtype == ENPU_RT_INT64 ?
			((const int64_t *)t->data)[i] :
			((const int32_t *)t->data)[i];
	*count = n;
	return 0;
}

double rt_tensor_get_double(const struct rt_tensor *t, size_t i)
{
	const void *d = t->data;

	switch (t->dtype) {
	case ENPU_RT_FLOAT: return ((const float *)d)[i];
	case ENPU_RT_DOUBLE: return ((const double *)d)[i];
	case ENPU_RT_UINT8: return ((const uint8_t *)d)[i];
	case ENPU_RT_INT8: return ((const int8_t *)d)[i];
	case ENPU_RT_UINT16: return ((const uint16_t *)d)[i];
	case ENPU_RT_INT16: return ((const int16_t *)d)[i];
	case ENPU_RT_INT32: return ((const int32_t *)d)[i];
	case ENPU_RT_INT64: return (double)((const int64_t *)d)[i];
	case ENPU_RT_UINT32: return ((const uint32_t *)d)[i];
	case ENPU_RT_UINT64: return (double)((const uint64_t *)d)[i];
	case ENPU_RT_BOOL: return ((const uint8_t *)d)[i] != 0;
	case ENPU_RT_FLOAT16: return rt_f16_to_f32(((const uint16_t *)d)[i]);
	case ENPU_RT_BFLOAT16: return rt_bf16_to_f32(((const uint16_t *)d)[i]);
	default: return 0;
	}
}

/*
 * double -> integer without C's undefined behaviour outside the range:
 * NaN gives the type's minimum (what x86 conversions give), other values
 * truncate toward zero, saturate to int64 and then wrap to the width.
 */
static int64_t to_int64(double v)
{
	if (isnan(v) || v <= -9223372036854775808.0)
		return INT64_MIN;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	return (int64_t)v;
}

static uint64_t to_uint64(double v)
{
	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	if (v >= 0)
		return (uint64_t)v;
	return (uint64_t)to_int64(v);
}

void rt_tensor_set_double(struct rt_tensor *t, size_t i, double v)
{
	void *d = t->data;

	switch (t->dtype) {
	case ENPU_RT_FLOAT: ((float *)d)[i] = (float)v; break;
	case ENPU_RT_DOUBLE: ((double *)d)[i] = v; break;
	case ENPU_RT_UINT8: ((uint8_t *)d)[i] = (uint8_t)to_int64(v); break;
	case ENPU_RT_INT8: ((int8_t *)d)[i] = (int8_t)to_int64(v); break;
	case ENPU_RT_UINT16: ((uint16_t *)d)[i] = (uint16_t)to_int64(v); break;
	case ENPU_RT_INT16: ((int16_t *)d)[i] = (int16_t)to_int64(v); break;
	case ENPU_RT_INT32: ((int32_t *)d)[i] = (int32_t)to_int64(v); break;
	case ENPU_RT_INT64: ((int64_t *)d)[i] = to_int64(v); break;
	case ENPU_RT_UINT32: ((uint32_t *)d)[i] = (uint32_t)to_uint64(v); break;
	case ENPU_RT_UINT64: ((uint64_t *)d)[i] = to_uint64(v); break;
	case ENPU_RT_BOOL: ((uint8_t *)d)[i] = v != 0; break;
	case ENPU_RT_FLOAT16:
		((uint16_t *)d)[i] = rt_f32_to_f16((float)v);
		break;
	case ENPU_RT_BFLOAT16:
		((uint16_t *)d)[i] = rt_f32_to_bf16((float)v);
		break;
	default: break;
	}
}

void rt_tensor_set_rounded(struct rt_tensor *t, size_t i, double v)
{
	double lo, hi;

	if (!rt_dtype_is_integer(t->dtype)) {
		rt_tensor_set_double(t, i, v);
		return;
	}
	switch (t->dtype) {
	case ENPU_RT_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
	case ENPU_RT_UINT8: lo = 0; hi = UINT8_MAX; break;
	case ENPU_RT_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
	case ENPU_RT_UINT16: lo = 0; hi = UINT16_MAX; break;
	case ENPU_RT_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
	case ENPU_RT_UINT32: lo = 0; hi = UINT32_MAX; break;
	case ENPU_RT_UINT64: lo = 0; hi = 18446744073709551615.0; break;
	default: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
	}
	v = nearbyint(v);
	rt_tensor_set_double(t, i, isnan(v) ? 0 : v < lo ? lo : v > hi ? hi : v);
}

int64_t rt_tensor_get_int(const struct rt_tensor *t, size_t i)
{
	const void *d = t->data;

	switch (t->dtype) {
	case ENPU_RT_INT64: return ((const int64_t *)d)[i];
	case ENPU_RT_UINT64: return (int64_t)((const uint64_t *)d)[i];
	case ENPU_RT_INT32: return ((const int32_t *)d)[i];
	case ENPU_RT_UINT32: return ((const uint32_t *)d)[i];
	case ENPU_RT_INT16: return ((const int16_t *)d)[i];
	case ENPU_RT_UINT16: return ((const uint16_t *)d)[i];
	case ENPU_RT_INT8: return ((const int8_t *)d)[i];
	case ENPU_RT_UINT8: case ENPU_RT_BOOL: return ((const uint8_t *)d)[i];
	default: return to_int64(rt_tensor_get_double(t, i));
	}
}

int rt_dtype_is_integer(int32_t dtype)
{
	switch (dtype) {
	case ENPU_RT_INT8: case ENPU_RT_UINT8: case ENPU_RT_INT16:
	case ENPU_RT_UINT16: case ENPU_RT_INT32: case ENPU_RT_UINT32:
	case ENPU_RT_INT64: case ENPU_RT_UINT64:
		return 1;
	default:
		return 0;
	}
}

int rt_dtype_is_float(int32_t dtype)
{
	return dtype == ENPU_RT_FLOAT || dtype == ENPU_RT_DOUBLE ||
	       dtype == ENPU_RT_FLOAT16 || dtype == ENPU_RT_BFLOAT16;
}

int rt_axis(struct rt_kernel *k, int64_t axis, int32_t rank, int64_t *out)
{
	*out = 0;
	if (axis < -(int64_t)rank || axis >= rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis %" PRId64 " is out of range for rank %d",
				   axis, rank);
	*out = axis < 0 ? axis + rank : axis;
	return 0;
}

void rt_contiguous_strides(const struct rt_tensor *t, int64_t *strides)
{
	int64_t stride = 1;

	for (int d = t->rank - 1; d >= 0; d--) {
		strides[d] = stride;
		stride *= t->dims[d];
	}
}

int rt_expect_dtype(struct rt_kernel *k, const struct rt_tensor *t,
		    int input_index, int32_t dtype)
{
	if (t->dtype == dtype)
		return 0;
	return rt_op_error(k, ENPU_RT_UNSUPPORTED,
			   "input %d ('%s') has type %s, expected %s",
			   input_index, t->name ? t->name : "",
			   rt_dtype_name(t->dtype), rt_dtype_name(dtype));
}

int rt_broadcast_shape(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n, struct rt_tensor *out)
{
	int32_t rank = 0;
	int64_t dims[RT_MAX_RANK];

	for (size_t i = 0; i < n; i++)
		if (in[i] && in[i]->rank > rank)
			rank = in[i]->rank;
	for (int32_t d = 0; d < rank; d++)
		dims[d] = 1;
	for (size_t i = 0; i < n; i++) {
		if (!in[i])
			continue;
		for (int32_t d = 0; d < in[i]->rank; d++) {
			int64_t have = dims[rank - in[i]->rank + d];
			int64_t want = in[i]->dims[d];

			if (have == want || want == 1)
				continue;
			if (have == 1) {
				dims[rank - in[i]->rank + d] = want;
				continue;
			}
			char a[96], b[96];

			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shapes %s and %s do not broadcast",
					   rt_shape_string(in[0], a, sizeof(a)),
					   rt_shape_string(in[i], b, sizeof(b)));
		}
	}
	out->rank = rank;
	memcpy(out->dims, dims, sizeof(dims));
	return 0;
}

void rt_broadcast_strides(const struct rt_tensor *in,
			  const struct rt_tensor *out,
			  int64_t strides[RT_MAX_RANK])
{
	int64_t stride = 1;

	for (int d = out->rank - 1; d >= 0; d--) {
		int in_axis = d - (out->rank - in->rank);

		if (in_axis < 0) {
			strides[d] = 0;
			continue;
		}
		strides[d] = in->dims[in_axis] == 1 ? 0 : stride;
		stride *= in->dims[in_axis];
	}
}

void rt_broadcast_walk(const struct rt_tensor *const *in, size_t n,
		       const struct rt_tensor *out, rt_broadcast_fn fn,
		       void *user)
{
	int64_t strides[8][RT_MAX_RANK];
	int64_t index[RT_MAX_RANK] = { 0 };
	size_t offsets[8] = { 0 };
	size_t total = rt_tensor_elements(out);

	if (n > 8)
		return;
	for (size_t i = 0; i < n; i++)
		rt_broadcast_strides(in[i], out, strides[i]);
	for (size_t e = 0; e < total; e++) {
		fn(user, e, offsets);
		for (int d = out->rank - 1; d >= 0; d--) {
			index[d]++;
			for (size_t i = 0; i < n; i++)
				offsets[i] += (size_t)strides[i][d];
			if (index[d] < out->dims[d])
				break;
			for (size_t i = 0; i < n; i++)
				offsets[i] -= (size_t)(strides[i][d] *
						       out->dims[d]);
			index[d] = 0;
		}
	}
}

void rt_activation_apply_f32(const struct rt_activation *activation,
			     float *data, size_t count)
{
	float lo, hi;

	switch (activation->kind) {
	case RT_ACTIVATION_RELU:
		for (size_t i = 0; i < count; i++)
			data[i] = data[i] < 0.0f ? 0.0f : data[i];
		break;
	case RT_ACTIVATION_CLIP:
		lo = activation->min;
		hi = activation->max;
		for (size_t i = 0; i < count; i++) {
			float v = data[i] < lo ? lo : data[i];

			data[i] = v > hi ? hi : v;
		}
		break;
	default:
		break;
	}
}
