// SPDX-License-Identifier: MIT
/*
 * Packed sequence and optional values (enpu_rt.h): building and reading,
 * every field of a buffer from outside checked before it is used.
 */
#include <string.h>

#include "rt_types.h"

#define MAGIC 0x4c564e45u	/* "ENVL" */
#define HEADER 16
#define ENTRY 96
#define ALIGN 64

struct header {
	uint32_t magic;
	int32_t kind;
	int32_t elem_dtype;
	uint32_t count;
};

struct entry {
	int32_t dtype;
	int32_t rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	uint64_t offset;
	uint64_t bytes;
	uint8_t pad[ENTRY - 88];
};

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

size_t enpu_rt_value_size(size_t count, const struct enpu_rt_value_item *items)
{
	size_t size = align_up(HEADER + count * ENTRY);

	for (size_t i = 0; i < count; i++)
		size = align_up(size + items[i].byte_size);
	return size;
}

enum enpu_rt_status enpu_rt_value_pack(int32_t kind, int32_t elem_dtype,
				       size_t count,
				       const struct enpu_rt_value_item *items,
				       void *buffer, size_t size)
{
	struct header h = { MAGIC, kind, elem_dtype, (uint32_t)count };
	uint8_t *out = buffer;
	size_t at;

	if ((kind != ENPU_RT_SEQUENCE && kind != ENPU_RT_OPTIONAL) ||
	    (kind == ENPU_RT_OPTIONAL && count > 1) || count > 0xffffffffu ||
	    (count && !items) || !buffer ||
	    size < enpu_rt_value_size(count, items))
		return ENPU_RT_INVALID_ARGUMENT;
	memset(buffer, 0, size);
	memcpy(out, &h, sizeof(h));
	at = align_up(HEADER + count * ENTRY);
	for (size_t i = 0; i < count; i++) {
		struct entry e;

		if (items[i].rank > ENPU_RT_MAX_RANK ||
		    (items[i].byte_size && !items[i].data))
			return ENPU_RT_INVALID_ARGUMENT;
		memset(&e, 0, sizeof(e));
		e.dtype = items[i].dtype;
		e.rank = (int32_t)items[i].rank;
		memcpy(e.dims, items[i].dims, items[i].rank * sizeof(e.dims[0]));
		e.offset = at;
		e.bytes = items[i].byte_size;
		memcpy(out + HEADER + i * ENTRY, &e, sizeof(e));
		if (items[i].byte_size)
			memcpy(out + at, items[i].data, items[i].byte_size);
		at = align_up(at + items[i].byte_size);
	}
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_value_info(const void *buffer, size_t size,
				       int32_t *kind, int32_t *elem_dtype,
				       size_t *count)
{
	struct header h;

	if (!buffer || size < HEADER)
		return ENPU_RT_INVALID_ARGUMENT;
	memcpy(&h, buffer, sizeof(h));
	if (h.magic != MAGIC ||
	    (h.kind != ENPU_RT_SEQUENCE && h.kind != ENPU_RT_OPTIONAL) ||
	    (h.kind == ENPU_RT_OPTIONAL && h.count > 1) ||
	    h.count > (size - HEADER) / ENTRY)
		return ENPU_RT_INVALID_ARGUMENT;
	if (kind)
		*kind = h.kind;
	if (elem_dtype)
		*elem_dtype = h.elem_dtype;
	if (count)
		*count = h.count;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_value_item(const void *buffer, size_t size,
				       size_t index,
				       struct enpu_rt_value_item *item)
{
	size_t count, elements = 1, element_size;
	struct entry e;
	enum enpu_rt_status status = enpu_rt_value_info(buffer, size, NULL,
							NULL, &count);

	if (status)
		return status;
	if (index >= count || !item)
		return ENPU_RT_INVALID_ARGUMENT;
	memcpy(&e, (const uint8_t *)buffer + HEADER + index * ENTRY, sizeof(e));
	if (e.rank < 0 || e.rank > ENPU_RT_MAX_RANK ||
	    e.offset < HEADER + count * ENTRY || e.offset > size ||
	    e.bytes > size - e.offset)
		return ENPU_RT_INVALID_ARGUMENT;
	for (int d = 0; d < e.rank; d++) {
		if (e.dims[d] < 0 ||
		    (e.dims[d] && elements > SIZE_MAX / 16 / (size_t)e.dims[d]))
			return ENPU_RT_INVALID_ARGUMENT;
		elements *= (size_t)e.dims[d];
	}
	element_size = enpu_rt_dtype_size(e.dtype);
	if (!element_size ||
	    (e.dtype != ENPU_RT_SEQUENCE && e.dtype != ENPU_RT_OPTIONAL &&
	     e.bytes != elements * element_size))
		return ENPU_RT_INVALID_ARGUMENT;
	memset(item, 0, sizeof(*item));
	item->dtype = e.dtype;
	item->rank = (size_t)e.rank;
	memcpy(item->dims, e.dims, sizeof(item->dims));
	item->data = (const uint8_t *)buffer + e.offset;
	item->byte_size = (size_t)e.bytes;
	return ENPU_RT_OK;
}
