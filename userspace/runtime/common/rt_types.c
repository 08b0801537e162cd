// SPDX-License-Identifier: MIT
/* Error messages, attribute lookup and the tensor helpers of rt_types.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_types.h"

int rt_error_set(struct rt_error_sink *sink, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sink->message, sizeof(sink->message), fmt, ap);
	va_end(ap);
	sink->status = status;
	return status;
}

const struct rt_attr *rt_attrs_find(const struct rt_attr *attrs, size_t count,
				    const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(attrs[i].name, name))
			return &attrs[i];
	return NULL;
}

int rt_domain_equal(const char *a, const char *b)
{
	if (!strcmp(a, "ai.onnx"))
		a = "";
	if (!strcmp(b, "ai.onnx"))
		b = "";
	return !strcmp(a, b);
}

size_t rt_dtype_size(int32_t dtype)
{
	return enpu_rt_dtype_size(dtype);
}

const char *rt_dtype_name(int32_t dtype)
{
	return enpu_rt_dtype_name(dtype);
}

size_t rt_tensor_elements(const struct rt_tensor *t)
{
	size_t count = 1;

	if (t->rank < 0 || t->rank > RT_MAX_RANK)
		return 0;
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] < 0)
			return 0;
		if (t->dims[i] && count > (SIZE_MAX / 16) / (size_t)t->dims[i])
			return 0;
		count *= (size_t)t->dims[i];
	}
	return count;
}

int rt_tensor_consistent(const struct rt_tensor *t)
{
	size_t size = enpu_rt_dtype_size(t->dtype);
	size_t elements = rt_tensor_elements(t);

	return size && t->rank >= 0 && t->rank <= RT_MAX_RANK &&
	       (elements || !t->byte_size) && t->byte_size == elements * size;
}

const char *rt_shape_string(const struct rt_tensor *t, char *buf,
			    size_t size)
{
	size_t used = 0;

	if (!size)
		return buf;
	buf[0] = 0;
	if (t->rank < 0) {
		snprintf(buf, size, "[?]");
		return buf;
	}
	used += (size_t)snprintf(buf, size, "[");
	for (int i = 0; i < t->rank && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64,
					 i ? "," : "", t->dims[i]);
	if (used < size)
		snprintf(buf + used, size - used, "]");
	return buf;
}

