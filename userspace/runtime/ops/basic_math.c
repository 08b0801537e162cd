// SPDX-License-Identifier: MIT
/* Relu and Add (numpy broadcasting) over the common numeric types. */
#include <string.h>

#include "rt_op.h"

#define OPSET_MAX 21

static int numeric(int32_t dtype)
{
	switch (dtype) {
	case ENPU_RT_FLOAT: case ENPU_RT_DOUBLE: case ENPU_RT_INT8:
	case ENPU_RT_UINT8: case ENPU_RT_INT16: case ENPU_RT_UINT16:
	case ENPU_RT_INT32: case ENPU_RT_UINT32: case ENPU_RT_INT64:
	case ENPU_RT_UINT64:
		return 1;
	default:
		return 0;
	}
}

static int relu_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int32_t t = in[0]->dtype;

	(void)n_in, (void)n_out;
	if (t != ENPU_RT_FLOAT && t != ENPU_RT_DOUBLE && t != ENPU_RT_INT8 &&
	    t != ENPU_RT_INT16 && t != ENPU_RT_INT32 && t != ENPU_RT_INT64)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(t));
	return rt_tensor_set_shape(k, out[0], t, in[0]->rank, in[0]->dims);
}

#define RELU_LOOP(type) do { \
	const type *x = in[0]->data; \
	type *y = out[0]->data; \
	for (size_t i = 0; i < n; i++) \
		y[i] = x[i] < 0 ? 0 : x[i]; /* NaN stays NaN */ \
} while (0)

static int relu_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t n = rt_tensor_elements(out[0]);

	(void)k, (void)n_in, (void)n_out;
	switch (in[0]->dtype) {
	case ENPU_RT_FLOAT: RELU_LOOP(float); break;
	case ENPU_RT_DOUBLE: RELU_LOOP(double); break;
	case ENPU_RT_INT8: RELU_LOOP(int8_t); break;
	case ENPU_RT_INT16: RELU_LOOP(int16_t); break;
	case ENPU_RT_INT32: RELU_LOOP(int32_t); break;
	case ENPU_RT_INT64: RELU_LOOP(int64_t); break;
	}
	return 0;
}

/*
 * Opsets 1-6 broadcast only with broadcast=1, B onto A, aligned at `axis`
 * (default: B is a suffix of A). Padding B's shape with trailing ones turns
 * that into numpy broadcasting.
 */
static int legacy_b(struct rt_kernel *k, const struct rt_tensor *const *in,
		    struct rt_tensor *b)
{
	int64_t broadcast, axis;
	int status;

	*b = *in[1];
	if (k->opset >= 7)
		return 0;
	status = rt_attr_int(k, "broadcast", 0, &broadcast);
	if (!status)
		status = rt_attr_int(k, "axis", -1, &axis);
	if (status)
		return status;
	if (!broadcast) {
		if (b->rank != in[0]->rank ||
		    memcmp(b->dims, in[0]->dims,
			   (size_t)b->rank * sizeof(b->dims[0])))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shapes differ without broadcast=1");
		return 0;
	}
	if (axis < 0)
		return 0;
	if (axis + b->rank > in[0]->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "B of rank %d does not fit at axis %lld",
				   b->rank, (long long)axis);
	while (b->rank < in[0]->rank - axis)
		b->dims[b->rank++] = 1;
	return 0;
}

static int add_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor shape = { 0 }, b;
	const struct rt_tensor *pair[2] = { in[0], &b };
	int status;

	(void)n_in, (void)n_out;
	if (!numeric(in[0]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(in[0]->dtype));
	if (in[1]->dtype != in[0]->dtype)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "inputs have types %s and %s",
				   rt_dtype_name(in[0]->dtype),
				   rt_dtype_name(in[1]->dtype));
	status = legacy_b(k, in, &b);
	if (!status)
		status = rt_broadcast_shape(k, pair, 2, &shape);
	if (status)
		return status;
	if (k->opset < 7 && (shape.rank != in[0]->rank ||
			     memcmp(shape.dims, in[0]->dims,
				    (size_t)shape.rank * sizeof(shape.dims[0]))))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "legacy broadcast must not grow A");
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, shape.rank,
				   shape.dims);
}

#define ADD_CASE(enum_value, type, wide) \
	case enum_value: { \
		const type *a = in[0]->data, *b = in[1]->data; \
		type *y = out[0]->data; \
		if (same) { \
			for (size_t i = 0; i < n; i++) \
				y[i] = (type)((wide)a[i] + (wide)b[i]); \
		} else if (scalar_b) { \
			for (size_t i = 0; i < n; i++) \
				y[i] = (type)((wide)a[i] + (wide)b[0]); \
		} else { \
			struct add_walk w = { a, b, y }; \
			rt_broadcast_walk(in, 2, out[0], add_##type, &w); \
		} \
		break; \
	}

struct add_walk {
	const void *a, *b;
	void *y;
};

/* Signed overflow is UB in C; ONNX wants wrap-around, so add unsigned. */
#define ADD_WALKER(type, wide) \
static void add_##type(void *user, size_t index, const size_t *offsets) \
{ \
	struct add_walk *w = user; \
	((type *)w->y)[index] = \
		(type)((wide)((const type *)w->a)[offsets[0]] + \
		       (wide)((const type *)w->b)[offsets[1]]); \
}

ADD_WALKER(float, float)
ADD_WALKER(double, double)
ADD_WALKER(int8_t, uint32_t)
ADD_WALKER(uint8_t, uint32_t)
ADD_WALKER(int16_t, uint32_t)
ADD_WALKER(uint16_t, uint32_t)
ADD_WALKER(int32_t, uint32_t)
ADD_WALKER(uint32_t, uint32_t)
ADD_WALKER(int64_t, uint64_t)
ADD_WALKER(uint64_t, uint64_t)

static int same_shape(const struct rt_tensor *a, const struct rt_tensor *b)
{
	return a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(a->dims[0]));
}

static int add_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t n = rt_tensor_elements(out[0]);
	struct rt_tensor b;
	const struct rt_tensor *pair[2] = { in[0], &b };
	int status = legacy_b(k, in, &b);
	int same = same_shape(in[0], out[0]) && same_shape(&b, out[0]);
	int scalar_b = same_shape(in[0], out[0]) &&
		       rt_tensor_elements(&b) == 1;

	(void)n_in, (void)n_out;
	if (status)
		return status;
	in = pair;
	switch (out[0]->dtype) {
	ADD_CASE(ENPU_RT_FLOAT, float, float)
	ADD_CASE(ENPU_RT_DOUBLE, double, double)
	ADD_CASE(ENPU_RT_INT8, int8_t, uint32_t)
	ADD_CASE(ENPU_RT_UINT8, uint8_t, uint32_t)
	ADD_CASE(ENPU_RT_INT16, int16_t, uint32_t)
	ADD_CASE(ENPU_RT_UINT16, uint16_t, uint32_t)
	ADD_CASE(ENPU_RT_INT32, int32_t, uint32_t)
	ADD_CASE(ENPU_RT_UINT32, uint32_t, uint32_t)
	ADD_CASE(ENPU_RT_INT64, int64_t, uint64_t)
	ADD_CASE(ENPU_RT_UINT64, uint64_t, uint64_t)
	}
	return 0;
}

const struct rt_op_def rt_ops_basic_math[] = {
	{ "Relu", "", 1, OPSET_MAX, 1, 1, 1, 1, 0, relu_infer, NULL,
	  relu_run, NULL },
	{ "Add", "", 1, OPSET_MAX, 2, 2, 1, 1, 0, add_infer, NULL, add_run,
	  NULL },
	{ 0 },
};
