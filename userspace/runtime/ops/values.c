// SPDX-License-Identifier: MIT
/* Packed sequence and optional values for ops (values.h). */
#include <stdlib.h>
#include <string.h>

#include "values.h"

int rt_packed_info(struct rt_kernel *k, const struct rt_tensor *t,
		   int32_t want_kind, int32_t *elem, size_t *count)
{
	int32_t kind;

	if (!t || !rt_is_packed(t->dtype) || !t->data ||
	    enpu_rt_value_info(t->data, t->byte_size, &kind, elem, count))
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				   "input is not a valid %s value",
				   want_kind ? rt_dtype_name(want_kind) :
				   "sequence or optional");
	if (want_kind && kind != want_kind)
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				   "input is a %s, a %s is wanted",
				   rt_dtype_name(kind), rt_dtype_name(want_kind));
	return 0;
}

int rt_packed_item(struct rt_kernel *k, const struct rt_tensor *t, size_t i,
		   struct rt_tensor *item)
{
	struct enpu_rt_value_item it;

	if (!t || !t->data || enpu_rt_value_item(t->data, t->byte_size, i, &it))
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				   "item %zu of a %s is invalid", i,
				   t ? rt_dtype_name(t->dtype) : "value");
	memset(item, 0, sizeof(*item));
	item->dtype = it.dtype;
	item->rank = (int32_t)it.rank;
	memcpy(item->dims, it.dims, sizeof(item->dims));
	if (rt_is_packed(it.dtype)) {
		item->rank = 1;
		item->dims[0] = (int64_t)it.byte_size;
	}
	item->data = (void *)it.data;
	item->byte_size = it.byte_size;
	return 0;
}

static void to_item(const struct rt_tensor *t, struct enpu_rt_value_item *it)
{
	memset(it, 0, sizeof(*it));
	it->dtype = t->dtype;
	it->rank = rt_is_packed(t->dtype) ? 0 : (size_t)t->rank;
	if (!rt_is_packed(t->dtype) && t->rank > 0)
		memcpy(it->dims, t->dims, (size_t)t->rank * sizeof(t->dims[0]));
	it->data = t->data;
	/* From the shape: at load, byte_size may not be set yet. */
	it->byte_size = rt_is_packed(t->dtype) ? (size_t)t->dims[0] :
			rt_tensor_elements(t) * rt_dtype_size(t->dtype);
}

int rt_packed_shape(struct rt_kernel *k, struct rt_tensor *out, int32_t kind,
		    const struct rt_tensor *const *items, size_t count)
{
	int64_t bytes;
	struct enpu_rt_value_item *list = calloc(count + 1, sizeof(*list));

	if (!list)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < count; i++)
		to_item(items[i], &list[i]);
	bytes = (int64_t)enpu_rt_value_size(count, list);
	free(list);
	return rt_tensor_set_shape(k, out, kind, 1, &bytes);
}

int rt_packed_write(struct rt_kernel *k, struct rt_tensor *out, int32_t kind,
		    int32_t elem, const struct rt_tensor *const *items,
		    size_t count)
{
	struct enpu_rt_value_item *list = calloc(count + 1, sizeof(*list));
	int status;

	if (!list)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < count; i++)
		to_item(items[i], &list[i]);
	status = enpu_rt_value_pack(kind, elem, count, list, out->data,
				    out->byte_size);
	free(list);
	return status ? rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				    "packing a %s failed", rt_dtype_name(kind)) :
			0;
}
