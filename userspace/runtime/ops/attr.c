// SPDX-License-Identifier: MIT
/* What ops reach through struct rt_kernel: errors and attributes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_op.h"

int rt_op_error(struct rt_kernel *k, int status, const char *fmt, ...)
{
	char reason[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (k->errors)
		rt_error_set(k->errors, status, "node '%s' (%s): %s", k->name,
			     k->op_type, reason);
	return status;
}

const struct rt_attr *rt_attr_find(const struct rt_kernel *k,
				   const char *name)
{
	return rt_attrs_find(k->attrs, k->attr_count, name);
}

static int attr_typed(struct rt_kernel *k, const char *name,
		      enum rt_attr_type type, const struct rt_attr **attr)
{
	static const char *const names[] = {
		"undefined", "float", "int", "string", "tensor", "graph",
		"floats", "ints", "strings",
	};

	*attr = rt_attr_find(k, name);
	if (*attr && (*attr)->type != type)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "attribute '%s' is %s, expected %s", name,
				   (*attr)->type <= RT_ATTR_STRINGS ?
				   names[(*attr)->type] : "unknown",
				   names[type]);
	return 0;
}

int rt_attr_int(struct rt_kernel *k, const char *name, int64_t fallback,
		int64_t *value)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_INT, &attr);

	if (!status)
		*value = attr ? attr->i : fallback;
	return status;
}

int rt_attr_float(struct rt_kernel *k, const char *name, float fallback,
		  float *value)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_FLOAT, &attr);

	if (!status)
		*value = attr ? attr->f : fallback;
	return status;
}

int rt_attr_string(struct rt_kernel *k, const char *name,
		   const char *fallback, const char **value)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_STRING, &attr);

	if (!status)
		*value = attr ? attr->s : fallback;
	return status;
}

int rt_attr_ints(struct rt_kernel *k, const char *name,
		 const int64_t **values, size_t *count)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_INTS, &attr);

	if (!status) {
		*values = attr ? attr->ints : NULL;
		*count = attr ? attr->count : 0;
	}
	return status;
}

int rt_attr_floats(struct rt_kernel *k, const char *name,
		   const float **values, size_t *count)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_FLOATS, &attr);

	if (!status) {
		*values = attr ? attr->floats : NULL;
		*count = attr ? attr->count : 0;
	}
	return status;
}

int rt_attr_tensor(struct rt_kernel *k, const char *name,
		   const struct rt_tensor **value)
{
	const struct rt_attr *attr;
	int status = attr_typed(k, name, RT_ATTR_TENSOR, &attr);

	if (!status)
		*value = attr ? attr->t : NULL;
	return status;
}
