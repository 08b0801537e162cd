// SPDX-License-Identifier: MIT
/*
 * Binary elementwise ops: Add, Sub, Mul, Div with numpy broadcasting
 * (opset 7+) and the legacy `broadcast`/`axis` attributes (before 7), and
 * PRelu, whose slope broadcasts onto the input the same way.
 *
 * Broadcasting is planned once per run: size-1 axes are dropped and
 * neighbouring axes that are contiguous in both inputs are merged, so the
 * innermost loop is one long row where each input is either contiguous or a
 * single repeated value. Only that row is a function call; float32 rows
 * run on the CPU runtime's row kernels (frows.h: vectorized per ISA and
 * threaded), the other types' rows are plain loops.
 *
 * Integer results wrap like two's complement (computed in the unsigned
 * type), integer division truncates toward zero, and an integer division by
 * zero is a run-time error rather than a trap.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "frows.h"
#include "rt_op.h"

enum binary_op {
	BINARY_ADD,
	BINARY_SUB,
	BINARY_MUL,
	BINARY_DIV,
	BINARY_PRELU,
	BINARY_OP_COUNT,
};

/*
 * One row: n outputs, each input contiguous (step 1) or one value repeated
 * (step 0). Never both 0: an output axis longer than 1 comes from an input.
 */
typedef void (*binary_row_fn)(size_t n, const void *a, int a_step,
			      const void *b, int b_step, void *out);

#define BINARY_ROW(name, type, expr)					\
static void name(size_t n, const void *a_data, int a_step,		\
		 const void *b_data, int b_step, void *out_data)	\
{									\
	const type *a = a_data, *b = b_data;				\
	type *out = out_data;						\
									\
	if (a_step && b_step) {						\
		for (size_t i = 0; i < n; i++) {			\
			type x = a[i], y = b[i];			\
			out[i] = (expr);				\
		}							\
	} else if (a_step) {						\
		type y = b[0];						\
									\
		for (size_t i = 0; i < n; i++) {			\
			type x = a[i];					\
			out[i] = (expr);				\
		}							\
	} else {							\
		type x = a[0];						\
									\
		for (size_t i = 0; i < n; i++) {			\
			type y = b[i];					\
			out[i] = (expr);				\
		}							\
	}								\
}

/* Wrapping arithmetic for signed types goes through the unsigned type. */
#define INTEGER_ROWS(suffix, type, utype)				\
BINARY_ROW(add_##suffix, type, (type)((utype)x + (utype)y))		\
BINARY_ROW(sub_##suffix, type, (type)((utype)x - (utype)y))		\
BINARY_ROW(mul_##suffix, type, (type)((utype)x * (utype)y))		\
BINARY_ROW(div_##suffix, type, integer_div_##suffix(x, y))		\
BINARY_ROW(prelu_##suffix, type, integer_prelu_##suffix(x, y))

/* y == 0 is rejected before any row runs. */
#define SIGNED_DIV(suffix, type, utype)					\
static inline type integer_div_##suffix(type x, type y)			\
{									\
	/* MIN / -1 overflows (and traps on x86): wrap it instead. */	\
	return y == -1 ? (type)(0 - (utype)x) : (type)(x / y);		\
}									\
static inline type integer_prelu_##suffix(type x, type y)		\
{									\
	return x < 0 ? (type)((utype)x * (utype)y) : x;			\
}
#define UNSIGNED_DIV(suffix, type)					\
static inline type integer_div_##suffix(type x, type y)			\
{									\
	return (type)(x / y);						\
}									\
/* Nothing is negative: PRelu is the identity. */			\
static inline type integer_prelu_##suffix(type x, type y)		\
{									\
	(void)y;							\
	return x;							\
}

SIGNED_DIV(i8, int8_t, uint8_t)
SIGNED_DIV(i16, int16_t, uint16_t)
SIGNED_DIV(i32, int32_t, uint32_t)
SIGNED_DIV(i64, int64_t, uint64_t)
UNSIGNED_DIV(u8, uint8_t)
UNSIGNED_DIV(u16, uint16_t)
UNSIGNED_DIV(u32, uint32_t)
UNSIGNED_DIV(u64, uint64_t)

BINARY_ROW(add_f32, float, x + y)
BINARY_ROW(sub_f32, float, x - y)
BINARY_ROW(mul_f32, float, x * y)
BINARY_ROW(div_f32, float, x / y)
BINARY_ROW(prelu_f32, float, x < 0.0f ? x * y : x)
BINARY_ROW(add_f64, double, x + y)
BINARY_ROW(sub_f64, double, x - y)
BINARY_ROW(mul_f64, double, x * y)
BINARY_ROW(div_f64, double, x / y)
BINARY_ROW(prelu_f64, double, x < 0.0 ? x * y : x)
INTEGER_ROWS(i8, int8_t, uint8_t)
INTEGER_ROWS(i16, int16_t, uint16_t)
INTEGER_ROWS(i32, int32_t, uint32_t)
INTEGER_ROWS(i64, int64_t, uint64_t)
INTEGER_ROWS(u8, uint8_t, uint8_t)
INTEGER_ROWS(u16, uint16_t, uint16_t)
INTEGER_ROWS(u32, uint32_t, uint32_t)
INTEGER_ROWS(u64, uint64_t, uint64_t)

struct binary_rows {
	int32_t dtype;
	bool is_integer;
	binary_row_fn row[BINARY_OP_COUNT];
};

static const struct binary_rows binary_table[] = {
	{ ENPU_RT_FLOAT, false, { add_f32, sub_f32, mul_f32, div_f32,
	  prelu_f32 } },
	{ ENPU_RT_DOUBLE, false, { add_f64, sub_f64, mul_f64, div_f64,
	  prelu_f64 } },
	{ ENPU_RT_INT8, true, { add_i8, sub_i8, mul_i8, div_i8,
	  prelu_i8 } },
	{ ENPU_RT_INT16, true, { add_i16, sub_i16, mul_i16, div_i16,
	  prelu_i16 } },
	{ ENPU_RT_INT32, true, { add_i32, sub_i32, mul_i32, div_i32,
	  prelu_i32 } },
	{ ENPU_RT_INT64, true, { add_i64, sub_i64, mul_i64, div_i64,
	  prelu_i64 } },
	{ ENPU_RT_UINT8, true, { add_u8, sub_u8, mul_u8, div_u8,
	  prelu_u8 } },
	{ ENPU_RT_UINT16, true, { add_u16, sub_u16, mul_u16, div_u16,
	  prelu_u16 } },
	{ ENPU_RT_UINT32, true, { add_u32, sub_u32, mul_u32, div_u32,
	  prelu_u32 } },
	{ ENPU_RT_UINT64, true, { add_u64, sub_u64, mul_u64, div_u64,
	  prelu_u64 } },
};

static const struct binary_rows *binary_rows_for(int32_t dtype)
{
	for (size_t i = 0; i < sizeof(binary_table) / sizeof(binary_table[0]);
	     i++)
		if (binary_table[i].dtype == dtype)
			return &binary_table[i];
	return NULL;
}

static enum binary_op binary_op_of(const struct rt_kernel *k)
{
	if (!strcmp(k->op_type, "Add"))
		return BINARY_ADD;
	if (!strcmp(k->op_type, "Sub"))
		return BINARY_SUB;
	if (!strcmp(k->op_type, "Mul"))
		return BINARY_MUL;
	if (!strcmp(k->op_type, "PRelu"))
		return BINARY_PRELU;
	return BINARY_DIV;
}

/*
 * Opset 6: without broadcast=1 the shapes must be equal; with it, B matches
 * a contiguous run of A's axes starting at `axis` (default: A's trailing
 * axes), or has one element. Rewrites *b into the equivalent numpy shape
 * (B's axes at their place in A, 1 elsewhere).
 */
static int legacy_broadcast_shape(struct rt_kernel *k,
				  const struct rt_tensor *a,
				  struct rt_tensor *b)
{
	int64_t broadcast, axis, dims[RT_MAX_RANK];
	size_t b_count = rt_tensor_elements(b);
	char sa[96], sb[96];
	int status;

	status = rt_attr_int(k, "broadcast", 0, &broadcast);
	if (!status)
		status = rt_attr_int(k, "axis", a->rank - b->rank, &axis);
	if (status)
		return status;
	rt_shape_string(a, sa, sizeof(sa));
	rt_shape_string(b, sb, sizeof(sb));
	if (!broadcast) {
		if (a->rank != b->rank ||
		    memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(a->dims[0])))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shapes %s and %s differ and broadcast=0 (opset %" PRId64 " has no implicit broadcasting)",
					   sa, sb, k->opset);
		return 0;
	}
	for (int d = 0; d < a->rank; d++)
		dims[d] = 1;
	if (b_count != 1) {
		if (axis < 0)
			axis += a->rank;
		if (b->rank > a->rank || axis < 0 ||
		    axis + b->rank > a->rank)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "legacy broadcast of %s onto %s at axis %" PRId64 " does not fit",
					   sb, sa, axis);
		for (int d = 0; d < b->rank; d++) {
			if (b->dims[d] != a->dims[axis + d] && b->dims[d] != 1)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "legacy broadcast: %s does not match %s at axis %" PRId64,
						   sb, sa, axis);
			dims[axis + d] = b->dims[d];
		}
	}
	b->rank = a->rank;
	memcpy(b->dims, dims, sizeof(dims));
	return 0;
}

/*
 * Opset 6 PRelu: a one-element slope is shared, a 1-D slope as long as
 * axis 1 is per channel (what exporters of that era meant), otherwise the
 * shapes must be equal.
 */
static int legacy_prelu_shape(struct rt_kernel *k, const struct rt_tensor *x,
			      struct rt_tensor *slope)
{
	char sx[96], ss[96];

	if (rt_tensor_elements(slope) == 1) {
		slope->rank = 0;
		return 0;
	}
	if (slope->rank == 1 && x->rank >= 2 && slope->dims[0] == x->dims[1]) {
		slope->rank = x->rank - 1;
		for (int d = 1; d < slope->rank; d++)
			slope->dims[d] = 1;
		return 0;
	}
	if (slope->rank == x->rank &&
	    !memcmp(slope->dims, x->dims, (size_t)x->rank * sizeof(x->dims[0])))
		return 0;
	return rt_op_error(k, ENPU_RT_INVALID_MODEL,
			   "slope %s is neither one value, per channel nor the shape of input %s",
			   rt_shape_string(slope, ss, sizeof(ss)),
			   rt_shape_string(x, sx, sizeof(sx)));
}

/* Both inputs as numpy-broadcastable tensors (legacy rules applied). */
static int binary_operands(struct rt_kernel *k,
			   const struct rt_tensor *const *in,
			   struct rt_tensor *a, struct rt_tensor *b)
{
	*a = *in[0];
	*b = *in[1];
	if (a->dtype != b->dtype)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input types differ: %s and %s",
				   rt_dtype_name(a->dtype),
				   rt_dtype_name(b->dtype));
	if (!binary_rows_for(a->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(a->dtype));
	if (k->opset >= 7)
		return 0;
	if (binary_op_of(k) == BINARY_PRELU)
		return legacy_prelu_shape(k, a, b);
	return legacy_broadcast_shape(k, a, b);
}

static int binary_infer(struct rt_kernel *k,
			const struct rt_tensor *const *in, size_t n_in,
			struct rt_tensor *const *out, size_t n_out)
{
	struct rt_tensor a, b, shape = { 0 };
	const struct rt_tensor *operands[2] = { &a, &b };
	char sa[96], sb[96];
	int status;

	(void)n_in;
	(void)n_out;
	status = binary_operands(k, in, &a, &b);
	if (!status)
		status = rt_broadcast_shape(k, operands, 2, &shape);
	if (status)
		return status;
	/* The slope broadcasts onto X, never the other way round. */
	if (binary_op_of(k) == BINARY_PRELU &&
	    (shape.rank != a.rank ||
	     memcmp(shape.dims, a.dims, (size_t)a.rank * sizeof(a.dims[0]))))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "slope %s does not broadcast to input %s",
				   rt_shape_string(&b, sb, sizeof(sb)),
				   rt_shape_string(&a, sa, sizeof(sa)));
	return rt_tensor_set_shape(k, out[0], a.dtype, shape.rank, shape.dims);
}

/* Output axes after dropping 1s and merging axes contiguous in both. */
struct broadcast_plan {
	int rank;
	int64_t dims[RT_MAX_RANK];
	int64_t a_stride[RT_MAX_RANK];
	int64_t b_stride[RT_MAX_RANK];
};

static void plan_broadcast(const struct rt_tensor *a,
			   const struct rt_tensor *b,
			   const struct rt_tensor *out,
			   struct broadcast_plan *plan)
{
	int64_t as[RT_MAX_RANK], bs[RT_MAX_RANK];
	int r = 0;

	rt_broadcast_strides(a, out, as);
	rt_broadcast_strides(b, out, bs);
	for (int d = 0; d < out->rank; d++) {
		if (out->dims[d] == 1)
			continue;
		if (r && plan->a_stride[r - 1] == as[d] * out->dims[d] &&
		    plan->b_stride[r - 1] == bs[d] * out->dims[d]) {
			plan->dims[r - 1] *= out->dims[d];
			plan->a_stride[r - 1] = as[d];
			plan->b_stride[r - 1] = bs[d];
			continue;
		}
		plan->dims[r] = out->dims[d];
		plan->a_stride[r] = as[d];
		plan->b_stride[r] = bs[d];
		r++;
	}
	if (!r) {		/* a single element */
		plan->dims[0] = 1;
		plan->a_stride[0] = 1;
		plan->b_stride[0] = 1;
		r = 1;
	}
	plan->rank = r;
}

/* float32 rows on the CPU runtime's kernels (frows.h). */
static void float_row(struct rt_kernel *k, enum binary_op op, size_t n,
		      const float *a, int a_step, const float *b, int b_step,
		      float *y)
{
	static const enum enpu_fbinary map[] = {
		[BINARY_ADD] = ENPU_FADD, [BINARY_SUB] = ENPU_FSUB,
		[BINARY_MUL] = ENPU_FMUL, [BINARY_DIV] = ENPU_FDIV,
	};

	rt_frows_binary(k, map[op], n, a, (size_t)a_step, b, (size_t)b_step, y);
}

static void binary_apply(struct rt_kernel *k, enum binary_op op,
			 binary_row_fn row, size_t elem,
			 const struct broadcast_plan *plan,
			 const char *a, const char *b, char *out)
{
	int inner = plan->rank - 1;
	size_t n = (size_t)plan->dims[inner];
	int a_step = plan->a_stride[inner] != 0;
	int b_step = plan->b_stride[inner] != 0;
	int64_t index[RT_MAX_RANK] = { 0 };
	size_t rows = 1, a_off = 0, b_off = 0;

	for (int d = 0; d < inner; d++)
		rows *= (size_t)plan->dims[d];
	for (size_t r = 0; r < rows; r++) {
		if (!row)
			float_row(k, op, n, (const float *)(a + a_off * elem),
				  a_step, (const float *)(b + b_off * elem),
				  b_step, (float *)(out + r * n * elem));
		else
			row(n, a + a_off * elem, a_step, b + b_off * elem,
			    b_step, out + r * n * elem);
		for (int d = inner - 1; d >= 0; d--) {
			a_off += (size_t)plan->a_stride[d];
			b_off += (size_t)plan->b_stride[d];
			if (++index[d] < plan->dims[d])
				break;
			a_off -= (size_t)(plan->a_stride[d] * plan->dims[d]);
			b_off -= (size_t)(plan->b_stride[d] * plan->dims[d]);
			index[d] = 0;
		}
	}
}

static int has_zero(const struct rt_tensor *t)
{
	size_t n = rt_tensor_elements(t);

	for (size_t i = 0; i < n; i++)
		if (rt_tensor_get_double(t, i) == 0)
			return 1;
	return 0;
}

static int binary_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct binary_rows *rows;
	struct broadcast_plan plan;
	struct rt_tensor a, b;
	enum binary_op op = binary_op_of(k);
	int status;

	(void)n_in;
	(void)n_out;
	status = binary_operands(k, in, &a, &b);
	if (status)
		return status;
	rows = binary_rows_for(a.dtype);
	if (!rt_tensor_elements(out[0]))
		return 0;
	if (op == BINARY_DIV && rows->is_integer && has_zero(&b))
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "integer division by zero");
	plan_broadcast(&a, &b, out[0], &plan);
	binary_apply(k, op, a.dtype == ENPU_RT_FLOAT && op != BINARY_PRELU ?
		     NULL : rows->row[op], rt_dtype_size(a.dtype), &plan,
		     a.data, b.data, out[0]->data);
	return 0;
}

#define BINARY_DEF(name)						\
	{ name, "", 6, 21, 2, 2, 1, 1, 0, binary_infer, NULL,		\
	  binary_run, NULL }

const struct rt_op_def rt_ops_elementwise[] = {
	{ "Add", "", 1, 21, 2, 2, 1, 1, 0, binary_infer, NULL, binary_run,
	  NULL },
	BINARY_DEF("Sub"),
	BINARY_DEF("Mul"),
	BINARY_DEF("Div"),
	BINARY_DEF("PRelu"),
	{ 0 },
};
