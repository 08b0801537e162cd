// SPDX-License-Identifier: MIT
/*
 * Broadcasting elementwise ops beyond the four arithmetic ones: Pow
 * (base and exponent of different types since opset 12), Mod (integer
 * mod takes the divisor's sign, fmod=1 the dividend's), BitShift, the
 * comparisons Equal, Less, Greater, LessOrEqual, GreaterOrEqual (to
 * bool), And, Or, Xor, the variadic Max, Min, Sum, Mean and the ternary
 * Where.
 *
 * Values are computed by class, exactly: signed integers in int64,
 * unsigned in uint64, float types in double (rounded once to the output
 * type). Max/Min propagate NaN as numpy's maximum/minimum do. The common
 * float32 cases (Max, Min, Sum, comparisons, Where) have typed rows the
 * compiler vectorizes; the rest load through one function per type.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "broadcast.h"
#include "half.h"

enum value_class { CLASS_FLOAT, CLASS_SIGNED, CLASS_UNSIGNED };

union value {
	double f;
	int64_t i;
	uint64_t u;
};

static enum value_class class_of(int32_t dtype)
{
	switch (dtype) {
	case ENPU_RT_INT8: case ENPU_RT_INT16: case ENPU_RT_INT32:
	case ENPU_RT_INT64:
		return CLASS_SIGNED;
	case ENPU_RT_UINT8: case ENPU_RT_UINT16: case ENPU_RT_UINT32:
	case ENPU_RT_UINT64: case ENPU_RT_BOOL:
		return CLASS_UNSIGNED;
	default:
		return CLASS_FLOAT;
	}
}

static union value load(int32_t dtype, const void *p, size_t i)
{
	union value v;

	switch (dtype) {
	case ENPU_RT_FLOAT: v.f = ((const float *)p)[i]; break;
	case ENPU_RT_DOUBLE: v.f = ((const double *)p)[i]; break;
	case ENPU_RT_FLOAT16: v.f = rt_f16_to_f32(((const uint16_t *)p)[i]); break;
	case ENPU_RT_BFLOAT16: v.f = rt_bf16_to_f32(((const uint16_t *)p)[i]); break;
	case ENPU_RT_INT8: v.i = ((const int8_t *)p)[i]; break;
	case ENPU_RT_INT16: v.i = ((const int16_t *)p)[i]; break;
	case ENPU_RT_INT32: v.i = ((const int32_t *)p)[i]; break;
	case ENPU_RT_INT64: v.i = ((const int64_t *)p)[i]; break;
	case ENPU_RT_UINT8: case ENPU_RT_BOOL: v.u = ((const uint8_t *)p)[i]; break;
	case ENPU_RT_UINT16: v.u = ((const uint16_t *)p)[i]; break;
	case ENPU_RT_UINT32: v.u = ((const uint32_t *)p)[i]; break;
	default: v.u = ((const uint64_t *)p)[i]; break;
	}
	return v;
}

/* Integers wrap to the width; floats round to the type. */
static void store(int32_t dtype, void *p, size_t i, union value v)
{
	switch (dtype) {
	case ENPU_RT_FLOAT: ((float *)p)[i] = (float)v.f; break;
	case ENPU_RT_DOUBLE: ((double *)p)[i] = v.f; break;
	case ENPU_RT_FLOAT16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v.f); break;
	case ENPU_RT_BFLOAT16: ((uint16_t *)p)[i] = rt_f32_to_bf16((float)v.f); break;
	case ENPU_RT_INT8: case ENPU_RT_UINT8: ((uint8_t *)p)[i] = (uint8_t)v.u; break;
	case ENPU_RT_BOOL: ((uint8_t *)p)[i] = v.u != 0; break;
	case ENPU_RT_INT16: case ENPU_RT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v.u; break;
	case ENPU_RT_INT32: case ENPU_RT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v.u; break;
	default: ((uint64_t *)p)[i] = v.u; break;
	}
}

enum binary_kind {
	OP_POW, OP_MOD, OP_FMOD, OP_SHL, OP_SHR, OP_EQUAL, OP_LESS,
	OP_GREATER, OP_LESS_EQUAL, OP_GREATER_EQUAL, OP_AND, OP_OR, OP_XOR,
	OP_MAX, OP_MIN, OP_SUM,
};

struct binary_ctx {
	enum binary_kind op;
	int32_t ta, tb, to;
	enum value_class ca;	/* of a (b has the same, except Pow) */
	int error;		/* integer mod by zero */
};

static int64_t ipow(int64_t base, int64_t e)
{
	uint64_t result = 1, b = (uint64_t)base;

	if (e < 0)	/* numpy refuses; 1, -1 are the exact cases */
		return base == 1 ? 1 : base == -1 ? (e & 1 ? -1 : 1) : 0;
	while (e) {
		if (e & 1)
			result *= b;
		b *= b;
		e >>= 1;
	}
	return (int64_t)result;
}

static int compare(enum binary_kind op, int c)
{
	switch (op) {
	case OP_EQUAL: return c == 0;
	case OP_LESS: return c < 0;
	case OP_GREATER: return c > 0;
	case OP_LESS_EQUAL: return c <= 0;
	default: return c >= 0;
	}
}

static union value apply(struct binary_ctx *c, union value a, union value b)
{
	union value r = { .u = 0 };

	switch (c->op) {
	case OP_POW:
		if (c->ca == CLASS_FLOAT) {
			r.f = pow(a.f, class_of(c->tb) == CLASS_FLOAT ? b.f :
				  class_of(c->tb) == CLASS_SIGNED ?
				  (double)b.i : (double)b.u);
		} else if (class_of(c->tb) == CLASS_FLOAT) {
			double p = pow(c->ca == CLASS_SIGNED ? (double)a.i :
				       (double)a.u, b.f);

			r.i = isfinite(p) && fabs(p) < 9.2e18 ? (int64_t)p : 0;
		} else {
			r.i = ipow(c->ca == CLASS_SIGNED ? a.i : (int64_t)a.u,
				   class_of(c->tb) == CLASS_SIGNED ? b.i :
				   (int64_t)b.u);
		}
		return r;
	case OP_FMOD:
	case OP_MOD:
		/* Float Mod is fmod only (checked at setup). */
		if (c->ca == CLASS_FLOAT) {
			r.f = fmod(a.f, b.f);
			return r;
		}
		if (c->ca == CLASS_UNSIGNED) {
			if (!b.u)
				c->error = 1;
			else
				r.u = a.u % b.u;
			return r;
		}
		if (!b.i) {
			c->error = 1;
			return r;
		}
		/* C's % takes the dividend's sign (fmod=1); Mod the divisor's. */
		r.i = b.i == -1 ? 0 : a.i % b.i;
		if (c->op == OP_MOD && r.i != 0 && (r.i < 0) != (b.i < 0))
			r.i += b.i;
		return r;
	case OP_SHL:
		r.u = b.u >= 64 ? 0 : a.u << b.u;
		return r;
	case OP_SHR:
		r.u = b.u >= 64 ? 0 : a.u >> b.u;
		return r;
	case OP_AND: r.u = a.u && b.u; return r;
	case OP_OR: r.u = a.u || b.u; return r;
	case OP_XOR: r.u = !a.u != !b.u; return r;
	case OP_MAX:
	case OP_MIN: {
		int a_first;

		if (c->ca == CLASS_FLOAT) {
			if (isnan(a.f) || isnan(b.f)) {
				r.f = NAN;
				return r;
			}
			a_first = c->op == OP_MAX ? a.f >= b.f : a.f <= b.f;
		} else if (c->ca == CLASS_SIGNED) {
			a_first = c->op == OP_MAX ? a.i >= b.i : a.i <= b.i;
		} else {
			a_first = c->op == OP_MAX ? a.u >= b.u : a.u <= b.u;
		}
		return a_first ? a : b;
	}
	case OP_SUM:
		if (c->ca == CLASS_FLOAT)
			r.f = a.f + b.f;
		else
			r.u = a.u + b.u;
		return r;
	default: {
		int cmp;

		if (c->ca == CLASS_FLOAT)
			cmp = a.f < b.f ? -1 : a.f > b.f ? 1 :
			      a.f == b.f ? 0 : 2;	/* 2: unordered */
		else if (c->ca == CLASS_SIGNED)
			cmp = a.i < b.i ? -1 : a.i > b.i;
		else
			cmp = a.u < b.u ? -1 : a.u > b.u;
		r.u = cmp != 2 && compare(c->op, cmp);
		return r;
	}
	}
}

static void generic_row(void *ctx, size_t n, void *out,
			const void *const *in, const size_t *step)
{
	struct binary_ctx *c = ctx;

	for (size_t i = 0; i < n; i++)
		store(c->to, out, i, apply(c, load(c->ta, in[0], i * step[0]),
					   load(c->tb, in[1], i * step[1])));
}

/* float32 rows the compiler vectorizes (the models' common cases). */
#define F32_ROW(name, type_out, expr)					\
static void name(void *ctx, size_t n, void *out,			\
		 const void *const *in, const size_t *step)		\
{									\
	const float *a = in[0], *b = in[1];				\
	type_out *y = out;						\
									\
	(void)ctx;							\
	if (step[0] && step[1]) {					\
		for (size_t i = 0; i < n; i++) {			\
			float x = a[i], z = b[i];			\
			y[i] = (expr);					\
		}							\
	} else {							\
		for (size_t i = 0; i < n; i++) {			\
			float x = a[i * step[0]], z = b[i * step[1]];	\
			y[i] = (expr);					\
		}							\
	}								\
}

F32_ROW(max_f32, float, x != x || z != z ? NAN : x >= z ? x : z)
F32_ROW(min_f32, float, x != x || z != z ? NAN : x <= z ? x : z)
F32_ROW(sum_f32, float, x + z)
F32_ROW(equal_f32, uint8_t, x == z)
F32_ROW(less_f32, uint8_t, x < z)
F32_ROW(greater_f32, uint8_t, x > z)
F32_ROW(less_equal_f32, uint8_t, x <= z)
F32_ROW(greater_equal_f32, uint8_t, x >= z)

static rt_bcast_row_fn f32_row(enum binary_kind op)
{
	switch (op) {
	case OP_MAX: return max_f32;
	case OP_MIN: return min_f32;
	case OP_SUM: return sum_f32;
	case OP_EQUAL: return equal_f32;
	case OP_LESS: return less_f32;
	case OP_GREATER: return greater_f32;
	case OP_LESS_EQUAL: return less_equal_f32;
	case OP_GREATER_EQUAL: return greater_equal_f32;
	default: return NULL;
	}
}

struct binary_def {
	const char *name;
	enum binary_kind op;
	int variadic;		/* Max, Min, Sum, Mean */
	int to_bool;
};

static const struct binary_def binary_defs[] = {
	{ "Pow", OP_POW, 0, 0 },
	{ "Mod", OP_MOD, 0, 0 },
	{ "BitShift", OP_SHL, 0, 0 },
	{ "Equal", OP_EQUAL, 0, 1 },
	{ "Less", OP_LESS, 0, 1 },
	{ "Greater", OP_GREATER, 0, 1 },
	{ "LessOrEqual", OP_LESS_EQUAL, 0, 1 },
	{ "GreaterOrEqual", OP_GREATER_EQUAL, 0, 1 },
	{ "And", OP_AND, 0, 1 },
	{ "Or", OP_OR, 0, 1 },
	{ "Xor", OP_XOR, 0, 1 },
	{ "Max", OP_MAX, 1, 0 },
	{ "Min", OP_MIN, 1, 0 },
	{ "Sum", OP_SUM, 1, 0 },
	{ "Mean", OP_SUM, 1, 0 },
};

static int numeric(int32_t t)
{
	return rt_dtype_is_float(t) || rt_dtype_is_integer(t);
}

/* Validates types and attributes; fills the op of @c. */
static int binary_setup(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, const struct binary_def **def,
			struct binary_ctx *c)
{
	int32_t t;

	/* No input of these ops is optional, the variadic ones' included,
	 * so an empty name (a NULL tensor) is an error, not a default. */
	for (size_t i = 0; i < n_in; i++)
		if (!in[i])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input %zu is empty", i);
	t = in[0]->dtype;
	memset(c, 0, sizeof(*c));
	*def = NULL;
	for (size_t i = 0; i < sizeof(binary_defs) / sizeof(binary_defs[0]);
	     i++)
		if (!strcmp(binary_defs[i].name, k->op_type))
			*def = &binary_defs[i];
	if (!*def)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "no kernel");
	c->op = (*def)->op;
	c->ca = class_of(t);
	if (k->opset < 7 && n_in == 2) {
		/*
		 * Opsets 1-6 broadcast only with broadcast=1, B onto A's
		 * trailing axes unless `axis` says otherwise: numpy's rule
		 * for the trailing case; other alignments are refused.
		 */
		const struct rt_attr *axis = rt_attr_find(k, "axis");
		int64_t broadcast;
		int status = rt_attr_int(k, "broadcast", 0, &broadcast);

		if (status)
			return status;
		if (axis && axis->i != in[0]->rank - in[1]->rank &&
		    rt_tensor_elements(in[1]) != 1)
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "legacy broadcast at axis %" PRId64
					   " is not supported", axis->i);
		if (!broadcast && (in[0]->rank != in[1]->rank ||
				   memcmp(in[0]->dims, in[1]->dims,
					  (size_t)in[0]->rank *
					  sizeof(in[0]->dims[0]))))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "shapes differ and broadcast=0");
	}
	for (size_t i = 1; i < n_in; i++)
		if (in[i]->dtype != t && c->op != OP_POW)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "input types differ: %s and %s",
					   rt_dtype_name(t),
					   rt_dtype_name(in[i]->dtype));
	switch (c->op) {
	case OP_AND: case OP_OR: case OP_XOR:
		if (t != ENPU_RT_BOOL)
			goto bad_type;
		return 0;
	case OP_SHL: {
		const char *dir;
		int status = rt_attr_string(k, "direction", "", &dir);

		if (status)
			return status;
		if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "direction '%s' is neither LEFT nor "
					   "RIGHT", dir);
		c->op = strcmp(dir, "LEFT") ? OP_SHR : OP_SHL;
		if (c->ca != CLASS_UNSIGNED || t == ENPU_RT_BOOL)
			goto bad_type;
		return 0;
	}
	case OP_MOD: {
		int64_t fmod_attr;
		int status = rt_attr_int(k, "fmod", 0, &fmod_attr);

		if (status)
			return status;
		if (c->ca == CLASS_FLOAT && !fmod_attr)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "floating-point Mod needs fmod=1");
		if (fmod_attr)
			c->op = OP_FMOD;
		break;
	}
	case OP_POW:
		if (!numeric(in[1]->dtype))
			goto bad_type;
		break;
	case OP_EQUAL:
		if (t == ENPU_RT_BOOL)
			return 0;
		break;
	default:
		break;
	}
	if (!numeric(t))
		goto bad_type;
	if (!strcmp(k->op_type, "Mean") && !rt_dtype_is_float(t))
		goto bad_type;
	return 0;
bad_type:
	return rt_op_error(k, ENPU_RT_UNSUPPORTED,
			   "input type %s is not supported", rt_dtype_name(t));
}

static int binary_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const struct binary_def *def;
	struct binary_ctx c;
	struct rt_tensor shape = { 0 };
	int status = binary_setup(k, in, n_in, &def, &c);

	(void)n_out;
	if (!status)
		status = rt_broadcast_shape(k, in, n_in, &shape);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], def->to_bool ? ENPU_RT_BOOL :
				   in[0]->dtype, shape.rank, shape.dims);
}

static void pair(struct binary_ctx *c, const struct rt_tensor *a,
		 const struct rt_tensor *b, struct rt_tensor *y)
{
	const struct rt_tensor *ops[2] = { a, b };
	rt_bcast_row_fn row = NULL;

	c->ta = a->dtype;
	c->tb = b->dtype;
	c->to = y->dtype;
	if (a->dtype == ENPU_RT_FLOAT && b->dtype == ENPU_RT_FLOAT)
		row = f32_row(c->op);
	rt_bcast_apply(ops, 2, y, row ? row : generic_row, c);
}

static int binary_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct binary_def *def;
	struct binary_ctx c;
	struct rt_tensor *y = out[0];
	size_t count = rt_tensor_elements(y);
	int status = binary_setup(k, in, n_in, &def, &c);

	(void)n_out;
	if (status)
		return status;
	if (!def->variadic) {
		pair(&c, in[0], in[1], y);
	} else if (n_in == 1) {
		memcpy(y->data, in[0]->data, y->byte_size);
	} else {
		/*
		 * Fold left into the output: y = f(x0, x1), then
		 * y = f(y, xi). y has the full shape, so it is never
		 * broadcast; reading and writing the same element is safe.
		 */
		struct rt_tensor acc = *y;

		pair(&c, in[0], in[1], y);
		for (size_t i = 2; i < n_in; i++)
			pair(&c, &acc, in[i], y);
	}
	if (c.error)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR,
				   "integer modulo by zero");
	if (!strcmp(k->op_type, "Mean"))
		for (size_t i = 0; i < count; i++)
			rt_tensor_set_double(y, i, rt_tensor_get_double(y, i) /
					     (double)n_in);
	return 0;
}

/* ---- Where --------------------------------------------------------- */

static int where_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	struct rt_tensor shape = { 0 };
	int status;

	(void)n_in;
	(void)n_out;
	if (in[0]->dtype != ENPU_RT_BOOL)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "condition is %s, not bool",
				   rt_dtype_name(in[0]->dtype));
	if (in[1]->dtype != in[2]->dtype)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "X is %s and Y %s",
				   rt_dtype_name(in[1]->dtype),
				   rt_dtype_name(in[2]->dtype));
	if (!rt_dtype_size(in[1]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(in[1]->dtype));
	status = rt_broadcast_shape(k, in, 3, &shape);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[1]->dtype, shape.rank,
				   shape.dims);
}

#define WHERE_ROW(name, type)						\
static void name(void *ctx, size_t n, void *out,			\
		 const void *const *in, const size_t *step)		\
{									\
	const uint8_t *c = in[0];					\
	const type *x = in[1], *z = in[2];				\
	type *y = out;							\
									\
	(void)ctx;							\
	for (size_t i = 0; i < n; i++)					\
		y[i] = c[i * step[0]] ? x[i * step[1]] : z[i * step[2]];\
}

WHERE_ROW(where_8, uint8_t)
WHERE_ROW(where_16, uint16_t)
WHERE_ROW(where_32, uint32_t)
WHERE_ROW(where_64, uint64_t)

static int where_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	static const rt_bcast_row_fn rows[9] = {
		[1] = where_8, [2] = where_16, [4] = where_32, [8] = where_64,
	};
	size_t size = rt_dtype_size(in[1]->dtype);

	(void)n_in;
	(void)n_out;
	if (size > 8 || !rows[size])
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(in[1]->dtype));
	rt_bcast_apply(in, 3, out[0], rows[size], NULL);
	return 0;
}

#define BINARY(name, lo, max_in)					\
	{ name, "", lo, 21, max_in == 2 ? 2 : 1, max_in, 1, 1, 0,	\
	  binary_infer, NULL, binary_run, NULL }
#define VARIADIC_MAX 4096

const struct rt_op_def rt_ops_math_binary[] = {
	BINARY("Pow", 1, 2),
	BINARY("Mod", 10, 2),
	BINARY("BitShift", 11, 2),
	BINARY("Equal", 1, 2),
	BINARY("Less", 1, 2),
	BINARY("Greater", 1, 2),
	BINARY("LessOrEqual", 12, 2),
	BINARY("GreaterOrEqual", 12, 2),
	BINARY("And", 1, 2),
	BINARY("Or", 1, 2),
	BINARY("Xor", 1, 2),
	BINARY("Max", 6, VARIADIC_MAX),
	BINARY("Min", 6, VARIADIC_MAX),
	BINARY("Sum", 6, VARIADIC_MAX),
	BINARY("Mean", 6, VARIADIC_MAX),
	{ "Where", "", 9, 21, 3, 3, 1, 1, 0, where_infer, NULL, where_run,
	  NULL },
	{ 0 },
};
