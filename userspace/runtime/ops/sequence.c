// SPDX-License-Identifier: MIT
/*
 * Sequence and optional ops on packed values (values.h): SequenceEmpty,
 * SequenceConstruct, SequenceInsert, SequenceErase, SequenceAt,
 * SequenceLength, SplitToSequence, ConcatFromSequence, Optional,
 * OptionalHasElement, OptionalGetElement. A packed output's size depends
 * on its items' shapes, so most of these infer once the input values
 * exist (RT_OP_NEEDS_VALUES before).
 */
#include <stdlib.h>
#include <string.h>

#include "values.h"

#define MAX_ITEMS (1u << 20)

/* The items of packed @t as views, in a malloc'd array (+ @extra slots). */
static int items_of(struct rt_kernel *k, const struct rt_tensor *t,
		    int32_t kind, size_t extra, struct rt_tensor **items,
		    size_t *count, int32_t *elem)
{
	int status = rt_packed_info(k, t, kind, elem, count);

	*items = NULL;
	if (status)
		return status;
	if (*count > MAX_ITEMS)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "%zu items exceed "
				   "%u", *count, MAX_ITEMS);
	*items = calloc(*count + extra + 1, sizeof(**items));
	if (!*items)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < *count; i++) {
		status = rt_packed_item(k, t, i, &(*items)[i]);
		if (status) {
			free(*items);
			*items = NULL;
			return status;
		}
	}
	return 0;
}

static int pointers(struct rt_kernel *k, struct rt_tensor *items, size_t n,
		    const struct rt_tensor ***out)
{
	*out = calloc(n + 1, sizeof(**out));
	if (!*out)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++)
		(*out)[i] = &items[i];
	return 0;
}

/* Shape (infer) or bytes (run) of a sequence of @items. */
static int emit(struct rt_kernel *k, struct rt_tensor *out, int run,
		int32_t kind, int32_t elem, struct rt_tensor *items, size_t n)
{
	const struct rt_tensor **list;
	int status = pointers(k, items, n, &list);

	if (status)
		return status;
	status = run ? rt_packed_write(k, out, kind, elem, list, n) :
		       rt_packed_shape(k, out, kind, list, n);
	free(list);
	return status;
}

/* A position input: scalar int32/int64 in [lo, hi] after wrapping. */
static int position(struct rt_kernel *k, const struct rt_tensor *t,
		    int64_t fallback, int64_t n, int64_t lo, int64_t hi,
		    int64_t *pos)
{
	int64_t v[1];
	size_t count;
	int status;

	*pos = fallback;
	if (!t)
		return 0;
	status = rt_tensor_read_ints(k, t, 1, v, &count);
	if (status)
		return status;
	if (count != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "position must be "
				   "one integer");
	*pos = v[0] < 0 ? v[0] + n : v[0];
	if (*pos < lo || *pos > hi)
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT, "position %lld "
				   "is out of range for %lld items",
				   (long long)v[0], (long long)n);
	return 0;
}

static int check_elem(struct rt_kernel *k, int32_t elem,
		      const struct rt_tensor *t)
{
	if (elem && t->dtype != elem)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "a %s item in a "
				   "sequence of %s", rt_dtype_name(t->dtype),
				   rt_dtype_name(elem));
	return 0;
}

/*
 * Most ops here compute the same thing at shape inference (on constant
 * inputs) and at run time: one NAME_do(k, in, n_in, out, run) serves both,
 * and `run` says whether to fill the output or only shape it.
 */
#define SEQUENCE_OP_ENTRIES(name)					\
static int name##_infer(struct rt_kernel *k,				\
			const struct rt_tensor *const *in, size_t n_in,	\
			struct rt_tensor *const *out, size_t n_out)	\
{									\
	(void)n_out;							\
	return name##_do(k, in, n_in, out[0], 0);			\
}									\
									\
static int name##_run(struct rt_kernel *k,				\
		      const struct rt_tensor *const *in, size_t n_in,	\
		      struct rt_tensor *const *out, size_t n_out)	\
{									\
	(void)n_out;							\
	return name##_do(k, in, n_in, out[0], 1);			\
}

/* SequenceEmpty */
static int empty_do(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *out, int run)
{
	int64_t dtype;
	int status = rt_attr_int(k, "dtype", ENPU_RT_FLOAT, &dtype);

	(void)in, (void)n_in;
	if (status)
		return status;
	return emit(k, out, run, ENPU_RT_SEQUENCE, (int32_t)dtype, NULL, 0);
}

SEQUENCE_OP_ENTRIES(empty)

/* SequenceConstruct: shapes suffice. */
static int construct_do(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *out, int run)
{
	for (size_t i = 0; i < n_in; i++) {
		if (!in[i] || rt_is_packed(in[i]->dtype))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "input %zu "
					   "must be a tensor", i);
		if (in[i]->dtype != in[0]->dtype)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "inputs "
					   "mix %s and %s",
					   rt_dtype_name(in[0]->dtype),
					   rt_dtype_name(in[i]->dtype));
	}
	return run ? rt_packed_write(k, out, ENPU_RT_SEQUENCE, in[0]->dtype, in,
				     n_in) :
		     rt_packed_shape(k, out, ENPU_RT_SEQUENCE, in, n_in);
}

SEQUENCE_OP_ENTRIES(construct)

static int need_values(const struct rt_tensor *const *in, size_t n_in,
		       size_t count)
{
	for (size_t i = 0; i < n_in && i < count; i++)
		if (in[i] && !in[i]->data)
			return 1;
	return 0;
}

/* SequenceInsert(seq, tensor, position?) */
static int insert_do(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *out, int run)
{
	struct rt_tensor *items;
	size_t count;
	int32_t elem;
	int64_t pos;
	int status;

	if (!run && (!in[0]->data || (n_in > 2 && in[2] && !in[2]->data)))
		return RT_OP_NEEDS_VALUES;
	status = items_of(k, in[0], ENPU_RT_SEQUENCE, 1, &items, &count, &elem);
	if (status)
		return status;
	status = check_elem(k, elem, in[1]);
	if (!status)
		status = position(k, n_in > 2 ? in[2] : NULL, (int64_t)count,
				  (int64_t)count, 0, (int64_t)count, &pos);
	if (!status) {
		memmove(&items[pos + 1], &items[pos],
			(count - (size_t)pos) * sizeof(*items));
		items[pos] = *in[1];
		status = emit(k, out, run, ENPU_RT_SEQUENCE,
			      elem ? elem : in[1]->dtype, items, count + 1);
	}
	free(items);
	return status;
}

SEQUENCE_OP_ENTRIES(insert)

/* SequenceErase(seq, position?) */
static int erase_do(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *out, int run)
{
	struct rt_tensor *items;
	size_t count;
	int32_t elem;
	int64_t pos;
	int status;

	if (!run && need_values(in, n_in, 2))
		return RT_OP_NEEDS_VALUES;
	status = items_of(k, in[0], ENPU_RT_SEQUENCE, 0, &items, &count, &elem);
	if (status)
		return status;
	if (!count)
		status = rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				     "erasing from an empty sequence");
	if (!status)
		status = position(k, n_in > 1 ? in[1] : NULL,
				  (int64_t)count - 1, (int64_t)count, 0,
				  (int64_t)count - 1, &pos);
	if (!status) {
		memmove(&items[pos], &items[pos + 1],
			(count - (size_t)pos - 1) * sizeof(*items));
		status = emit(k, out, run, ENPU_RT_SEQUENCE, elem, items,
			      count - 1);
	}
	free(items);
	return status;
}

SEQUENCE_OP_ENTRIES(erase)

/* SequenceAt(seq, position) */
static int at_item(struct rt_kernel *k, const struct rt_tensor *const *in,
		   struct rt_tensor *item)
{
	size_t count;
	int32_t elem;
	int64_t pos;
	int status = rt_packed_info(k, in[0], ENPU_RT_SEQUENCE, &elem, &count);

	if (!status)
		status = position(k, in[1], 0, (int64_t)count, 0,
				  (int64_t)count - 1, &pos);
	if (!status)
		status = rt_packed_item(k, in[0], (size_t)pos, item);
	return status;
}

static int at_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor item;
	int status;

	(void)n_out;
	if (need_values(in, n_in, 2))
		return RT_OP_NEEDS_VALUES;
	status = at_item(k, in, &item);
	return status ? status : rt_tensor_set_shape(k, out[0], item.dtype,
						     item.rank, item.dims);
}

static int at_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		  size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor item;
	int status = at_item(k, in, &item);

	(void)n_in, (void)n_out;
	if (status)
		return status;
	if (item.byte_size != out[0]->byte_size)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "item size changed");
	if (item.byte_size)
		memcpy(out[0]->data, item.data, item.byte_size);
	return 0;
}

/* SequenceLength */
static int length_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in, (void)n_out;
	if (in[0]->dtype != ENPU_RT_SEQUENCE)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "input is %s, not "
				   "a sequence", rt_dtype_name(in[0]->dtype));
	return rt_tensor_set_shape(k, out[0], ENPU_RT_INT64, 0, NULL);
}

static int length_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t count;
	int32_t elem;
	int status = rt_packed_info(k, in[0], ENPU_RT_SEQUENCE, &elem, &count);
	int64_t n = (int64_t)count;

	(void)n_in, (void)n_out;
	if (!status)
		memcpy(out[0]->data, &n, sizeof(n));
	return status;
}

/*
 * SplitToSequence(input, split?; axis, keepdims): lengths[] of the
 * pieces along the axis; keepdims only matters without split.
 */
static int split_plan(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, int64_t *axis_out, int *squeeze,
		      int64_t **lengths, size_t *pieces)
{
	const struct rt_tensor *split = n_in > 1 ? in[1] : NULL;
	int64_t axis, keepdims, dim, *len;
	int status = rt_attr_int(k, "axis", 0, &axis);

	*lengths = NULL;
	if (!status)
		status = rt_attr_int(k, "keepdims", 1, &keepdims);
	if (!status)
		status = rt_axis(k, axis, in[0]->rank, &axis);
	if (status)
		return status;
	dim = in[0]->dims[axis];
	*axis_out = axis;
	*squeeze = 0;
	if (!split) {
		len = calloc((size_t)dim + 1, sizeof(*len));
		if (!len)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		for (int64_t i = 0; i < dim; i++)
			len[i] = 1;
		*pieces = (size_t)dim;
		*squeeze = !keepdims;
	} else if (split->rank == 0) {
		int64_t chunk = rt_tensor_get_int(split, 0), n;

		if (chunk <= 0)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "split "
					   "size %lld is not positive",
					   (long long)chunk);
		n = (dim + chunk - 1) / chunk;
		len = calloc((size_t)n + 1, sizeof(*len));
		if (!len)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		for (int64_t i = 0; i < n; i++)
			len[i] = i == n - 1 ? dim - chunk * i : chunk;
		*pieces = (size_t)n;
	} else {
		size_t n = rt_tensor_elements(split);
		int64_t sum = 0;

		if (!rt_dtype_is_integer(split->dtype) || split->rank != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "split must "
					   "be a scalar or 1-D integer tensor");
		len = calloc(n + 1, sizeof(*len));
		if (!len)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		for (size_t i = 0; i < n; i++) {
			len[i] = rt_tensor_get_int(split, i);
			if (len[i] < 0) {
				free(len);
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "negative split length");
			}
			sum += len[i];
		}
		if (sum != dim) {
			free(len);
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "split "
					   "lengths sum to %lld, the axis is "
					   "%lld", (long long)sum,
					   (long long)dim);
		}
		*pieces = n;
	}
	if (*pieces > MAX_ITEMS) {
		free(len);
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "too many pieces");
	}
	*lengths = len;
	return 0;
}

static int split_do(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *out, int run)
{
	int64_t axis, *lengths, offset = 0;
	size_t pieces = 0, outer = 1, inner, esize = rt_dtype_size(in[0]->dtype);
	struct rt_tensor *items;
	unsigned char *scratch = NULL;
	int squeeze, status;

	if (rt_is_packed(in[0]->dtype))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "input must be a "
				   "tensor");
	if (n_in > 1 && in[1] && !in[1]->data)
		return RT_OP_NEEDS_VALUES;
	status = split_plan(k, in, n_in, &axis, &squeeze, &lengths, &pieces);
	if (status)
		return status;
	items = calloc(pieces + 1, sizeof(*items));
	if (run && in[0]->byte_size)
		scratch = malloc(in[0]->byte_size);
	if (!items || (run && in[0]->byte_size && !scratch)) {
		free(items);
		free(lengths);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (int64_t d = 0; d < axis; d++)
		outer *= (size_t)in[0]->dims[d];
	inner = esize;
	for (int d = (int)axis + 1; d < in[0]->rank; d++)
		inner *= (size_t)in[0]->dims[d];
	for (size_t p = 0, at = 0; p < pieces; p++) {
		struct rt_tensor *t = &items[p];
		size_t chunk = (size_t)lengths[p] * inner;

		*t = *in[0];
		t->dims[axis] = lengths[p];
		t->byte_size = outer * chunk;
		if (squeeze) {
			memmove(&t->dims[axis], &t->dims[axis + 1],
				(size_t)(t->rank - axis - 1) * sizeof(t->dims[0]));
			t->rank--;
		}
		t->data = scratch ? scratch + at : NULL;
		for (size_t o = 0; scratch && o < outer; o++)
			memcpy(scratch + at + o * chunk,
			       (const unsigned char *)in[0]->data +
			       (o * (size_t)in[0]->dims[axis] + (size_t)offset) *
			       inner, chunk);
		at += t->byte_size;
		offset += lengths[p];
	}
	status = emit(k, out, run, ENPU_RT_SEQUENCE, in[0]->dtype, items,
		      pieces);
	free(scratch);
	free(items);
	free(lengths);
	return status;
}

SEQUENCE_OP_ENTRIES(split)

/* ConcatFromSequence(seq; axis, new_axis) */
static int concat_do(struct rt_kernel *k, const struct rt_tensor *in,
		     struct rt_tensor *out, int run)
{
	struct rt_tensor *items, shape;
	size_t count, outer = 1, esize, out_inner;
	int32_t elem;
	int64_t axis, new_axis, total = 0;
	int status;

	if (!in->data)
		return RT_OP_NEEDS_VALUES;
	status = rt_attr_int(k, "axis", 0, &axis);
	if (!status)
		status = rt_attr_int(k, "new_axis", 0, &new_axis);
	if (!status)
		status = items_of(k, in, ENPU_RT_SEQUENCE, 0, &items, &count,
				  &elem);
	if (status)
		return status;
	if (!count) {
		free(items);
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				   "concatenating an empty sequence");
	}
	shape = items[0];
	status = rt_axis(k, axis, shape.rank + (new_axis ? 1 : 0), &axis);
	if (status) {
		free(items);
		return status;
	}
	if (new_axis) {
		memmove(&shape.dims[axis + 1], &shape.dims[axis],
			(size_t)(shape.rank - axis) * sizeof(shape.dims[0]));
		shape.dims[axis] = 1;
		shape.rank++;
	}
	for (size_t i = 0; i < count && !status; i++) {
		const struct rt_tensor *t = &items[i];
		int64_t d = new_axis ? 1 : t->dims[axis];

		if (t->dtype != shape.dtype ||
		    t->rank + (new_axis ? 1 : 0) != shape.rank)
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL, "item %zu "
					     "has another type or rank", i);
		for (int a = 0, b = 0; !status && a < shape.rank; a++) {
			if (new_axis && a == axis)
				continue;
			if (a != axis && t->dims[b] != shape.dims[a])
				status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
						     "item %zu has another "
						     "shape", i);
			b++;
		}
		total += d;
	}
	if (!status) {
		shape.dims[axis] = total;
		status = rt_tensor_set_shape(k, out, shape.dtype, shape.rank,
					     shape.dims);
	}
	if (status || !run) {
		free(items);
		return status;
	}
	esize = rt_dtype_size(shape.dtype);
	for (int64_t d = 0; d < axis; d++)
		outer *= (size_t)shape.dims[d];
	out_inner = esize;
	for (int d = (int)axis + 1; d < shape.rank; d++)
		out_inner *= (size_t)shape.dims[d];
	for (size_t i = 0, at = 0; i < count; i++) {
		size_t d = new_axis ? 1 : (size_t)items[i].dims[axis];
		size_t chunk = d * out_inner;

		for (size_t o = 0; o < outer && chunk; o++)
			memcpy((unsigned char *)out->data +
			       (o * (size_t)total) * out_inner + at,
			       (const unsigned char *)items[i].data + o * chunk,
			       chunk);
		at += chunk;
	}
	free(items);
	return 0;
}

static int concat_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in, (void)n_out;
	return concat_do(k, in[0], out[0], 0);
}

static int concat_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)n_in, (void)n_out;
	return concat_do(k, in[0], out[0], 1);
}

/* Optional(input?; type) */
static int optional_do(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *out, int run)
{
	const struct rt_tensor *item = n_in ? in[0] : NULL;
	const struct rt_attr *type = rt_attr_find(k, "type");
	int32_t elem = item ? item->dtype : 0;

	if (!item && (!type || type->type != RT_ATTR_TYPE_PROTO))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "an empty "
				   "optional needs the 'type' attribute");
	if (!item)
		elem = (int32_t)type->i;
	if (item && item->dtype == ENPU_RT_OPTIONAL)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "an optional of "
				   "an optional");
	return run ? rt_packed_write(k, out, ENPU_RT_OPTIONAL, elem, &item,
				     item ? 1 : 0) :
		     rt_packed_shape(k, out, ENPU_RT_OPTIONAL, &item,
				     item ? 1 : 0);
}

SEQUENCE_OP_ENTRIES(optional)

/* OptionalHasElement(input?): false only for an absent or empty one. */
static int has_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	(void)in, (void)n_in, (void)n_out;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_BOOL, 0, NULL);
}

static int has_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *t = n_in ? in[0] : NULL;
	size_t count = 1;
	int32_t elem;

	(void)n_out;
	if (t && t->dtype == ENPU_RT_OPTIONAL) {
		int status = rt_packed_info(k, t, ENPU_RT_OPTIONAL, &elem,
					    &count);

		if (status)
			return status;
	}
	*(uint8_t *)out[0]->data = t && count;
	return 0;
}

/* OptionalGetElement(input): the item, or the input if not optional. */
static int get_item(struct rt_kernel *k, const struct rt_tensor *in,
		    struct rt_tensor *item)
{
	size_t count;
	int32_t elem;
	int status;

	if (in->dtype != ENPU_RT_OPTIONAL) {
		*item = *in;
		return 0;
	}
	status = rt_packed_info(k, in, ENPU_RT_OPTIONAL, &elem, &count);
	if (!status && !count)
		status = rt_op_error(k, ENPU_RT_INVALID_ARGUMENT,
				     "the optional is empty");
	return status ? status : rt_packed_item(k, in, 0, item);
}

static int get_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor item;
	int status;

	(void)n_in, (void)n_out;
	if (in[0]->dtype == ENPU_RT_OPTIONAL && !in[0]->data)
		return RT_OP_NEEDS_VALUES;
	status = get_item(k, in[0], &item);
	return status ? status : rt_tensor_set_shape(k, out[0], item.dtype,
						     item.rank, item.dims);
}

static int get_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor item;
	int status = get_item(k, in[0], &item);

	(void)n_in, (void)n_out;
	if (status)
		return status;
	if (item.byte_size != out[0]->byte_size)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "item size changed");
	if (item.byte_size)
		memcpy(out[0]->data, item.data, item.byte_size);
	return 0;
}

#define OPSET_MAX 21

const struct rt_op_def rt_ops_sequence[] = {
	{ "SequenceEmpty", "", 11, OPSET_MAX, 0, 0, 1, 1, 0, empty_infer,
	  NULL, empty_run, NULL },
	{ "SequenceConstruct", "", 11, OPSET_MAX, 1, 4096, 1, 1, 0,
	  construct_infer, NULL, construct_run, NULL },
	{ "SequenceInsert", "", 11, OPSET_MAX, 2, 3, 1, 1, 0, insert_infer,
	  NULL, insert_run, NULL },
	{ "SequenceErase", "", 11, OPSET_MAX, 1, 2, 1, 1, 0, erase_infer,
	  NULL, erase_run, NULL },
	{ "SequenceAt", "", 11, OPSET_MAX, 2, 2, 1, 1, 0, at_infer, NULL,
	  at_run, NULL },
	{ "SequenceLength", "", 11, OPSET_MAX, 1, 1, 1, 1, 0, length_infer,
	  NULL, length_run, NULL },
	{ "SplitToSequence", "", 11, OPSET_MAX, 1, 2, 1, 1, 0, split_infer,
	  NULL, split_run, NULL },
	{ "ConcatFromSequence", "", 11, OPSET_MAX, 1, 1, 1, 1, 0,
	  concat_infer, NULL, concat_run, NULL },
	{ "Optional", "", 15, OPSET_MAX, 0, 1, 1, 1, 0, optional_infer, NULL,
	  optional_run, NULL },
	{ "OptionalHasElement", "", 15, OPSET_MAX, 0, 1, 1, 1, 0, has_infer,
	  NULL, has_run, NULL },
	{ "OptionalGetElement", "", 15, OPSET_MAX, 1, 1, 1, 1, 0, get_infer,
	  NULL, get_run, NULL },
	{ 0 },
};
