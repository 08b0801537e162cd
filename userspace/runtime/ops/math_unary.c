// SPDX-License-Identifier: MIT
/*
 * Unary elementwise math: Abs, Neg, Sign (every numeric type), Sqrt, Exp,
 * Log, Reciprocal, Ceil, Floor, Round, the trigonometric and hyperbolic
 * functions, Erf, Gelu, Softplus, Softsign, Mish, Elu, Selu, Celu,
 * ThresholdedRelu, Shrink (float types), IsNaN, IsInf (float types to
 * bool) and Not (bool).
 *
 * Float types (float, double, float16, bfloat16) compute in double and
 * round once to the output type, which is at least as accurate as the
 * ONNX reference's float arithmetic; float32 Exp, Erf, Gelu and Sqrt run
 * on the CPU runtime's vectorized, threaded row kernels (frows.h),
 * because transformer models spend time there. Integers compute exactly in their own type; Abs and Neg of the
 * most negative value wrap, as two's complement does.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "half.h"
#include "frows.h"
#include "rt_op.h"

enum unary_kind {
	UNARY_FLOAT,		/* float types only */
	UNARY_NUMERIC,		/* also integers */
	UNARY_PREDICATE,	/* float types -> bool */
	UNARY_BOOL,		/* bool -> bool */
};

struct unary_params {
	double alpha, beta, gamma;
	int flag_a, flag_b;
};

typedef double (*unary_fn)(double x, const struct unary_params *p);

struct unary_def {
	const char *name;
	enum unary_kind kind;
	unary_fn fn;
	int (*params)(struct rt_kernel *k, struct unary_params *p);
};

static double f_abs(double x, const struct unary_params *p)
{
	(void)p;
	return fabs(x);
}

static double f_neg(double x, const struct unary_params *p)
{
	(void)p;
	return -x;
}

static double f_sign(double x, const struct unary_params *p)
{
	(void)p;
	return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
}

#define LIBM1(name, expr)						\
static double name(double x, const struct unary_params *p)		\
{									\
	(void)p;							\
	return (expr);							\
}

LIBM1(f_sqrt, sqrt(x))
LIBM1(f_exp, exp(x))
LIBM1(f_log, log(x))
LIBM1(f_reciprocal, 1.0 / x)
LIBM1(f_ceil, ceil(x))
LIBM1(f_floor, floor(x))
LIBM1(f_round, nearbyint(x))	/* half to even in the default mode */
LIBM1(f_sin, sin(x))
LIBM1(f_cos, cos(x))
LIBM1(f_tan, tan(x))
LIBM1(f_asin, asin(x))
LIBM1(f_acos, acos(x))
LIBM1(f_atan, atan(x))
LIBM1(f_sinh, sinh(x))
LIBM1(f_cosh, cosh(x))
LIBM1(f_asinh, asinh(x))
LIBM1(f_acosh, acosh(x))
LIBM1(f_atanh, atanh(x))
LIBM1(f_erf, erf(x))
/* log(1 + e^x) without overflow: x + log1p(e^-x) for large x. */
LIBM1(f_softplus, x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)))
LIBM1(f_softsign, x / (1.0 + fabs(x)))
LIBM1(f_mish, x * tanh(x > 0 ? x + log1p(exp(-x)) : log1p(exp(x))))

static double f_gelu(double x, const struct unary_params *p)
{
	if (p->flag_a)	/* approximate = "tanh" */
		return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) *
					     (x + 0.044715 * x * x * x)));
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static double f_elu(double x, const struct unary_params *p)
{
	return x < 0 ? p->alpha * expm1(x) : x;
}

static double f_selu(double x, const struct unary_params *p)
{
	return p->gamma * (x > 0 ? x : p->alpha * expm1(x));
}

static double f_celu(double x, const struct unary_params *p)
{
	return (x > 0 ? x : 0) + fmin(0.0, p->alpha * expm1(x / p->alpha));
}

static double f_thresholded_relu(double x, const struct unary_params *p)
{
	return x > p->alpha ? x : 0.0;
}

static double f_shrink(double x, const struct unary_params *p)
{
	/* alpha = lambd, beta = bias */
	return x < -p->alpha ? x + p->beta : x > p->alpha ? x - p->beta : 0.0;
}

static double f_isnan(double x, const struct unary_params *p)
{
	(void)p;
	return isnan(x);
}

static double f_isinf(double x, const struct unary_params *p)
{
	return isinf(x) && ((x > 0 && p->flag_b) || (x < 0 && p->flag_a));
}

static double f_not(double x, const struct unary_params *p)
{
	(void)p;
	return x == 0;
}

static int float_attr(struct rt_kernel *k, const char *name, float fallback,
		      double *value)
{
	float f;
	int status = rt_attr_float(k, name, fallback, &f);

	*value = f;
	return status;
}

static int p_alpha1(struct rt_kernel *k, struct unary_params *p)
{
	return float_attr(k, "alpha", 1.0f, &p->alpha);
}

static int p_selu(struct rt_kernel *k, struct unary_params *p)
{
	int status = float_attr(k, "alpha", 1.67326319217681884765625f,
				&p->alpha);

	return status ? status : float_attr(k, "gamma",
					    1.05070102214813232421875f,
					    &p->gamma);
}

static int p_shrink(struct rt_kernel *k, struct unary_params *p)
{
	int status = float_attr(k, "lambd", 0.5f, &p->alpha);

	return status ? status : float_attr(k, "bias", 0.0f, &p->beta);
}

static int p_isinf(struct rt_kernel *k, struct unary_params *p)
{
	int64_t neg, pos;
	int status = rt_attr_int(k, "detect_negative", 1, &neg);

	if (!status)
		status = rt_attr_int(k, "detect_positive", 1, &pos);
	p->flag_a = neg != 0;
	p->flag_b = pos != 0;
	return status;
}

static int p_gelu(struct rt_kernel *k, struct unary_params *p)
{
	const char *mode;
	int status = rt_attr_string(k, "approximate", "none", &mode);

	if (status)
		return status;
	if (strcmp(mode, "none") && strcmp(mode, "tanh"))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "approximate '%s' is neither 'none' nor "
				   "'tanh'", mode);
	p->flag_a = !strcmp(mode, "tanh");
	return 0;
}

static const struct unary_def unary_defs[] = {
	{ "Abs", UNARY_NUMERIC, f_abs, NULL },
	{ "Neg", UNARY_NUMERIC, f_neg, NULL },
	{ "Sign", UNARY_NUMERIC, f_sign, NULL },
	{ "Shrink", UNARY_NUMERIC, f_shrink, p_shrink },
	{ "Sqrt", UNARY_FLOAT, f_sqrt, NULL },
	{ "Exp", UNARY_FLOAT, f_exp, NULL },
	{ "Log", UNARY_FLOAT, f_log, NULL },
	{ "Reciprocal", UNARY_FLOAT, f_reciprocal, NULL },
	{ "Ceil", UNARY_FLOAT, f_ceil, NULL },
	{ "Floor", UNARY_FLOAT, f_floor, NULL },
	{ "Round", UNARY_FLOAT, f_round, NULL },
	{ "Sin", UNARY_FLOAT, f_sin, NULL },
	{ "Cos", UNARY_FLOAT, f_cos, NULL },
	{ "Tan", UNARY_FLOAT, f_tan, NULL },
	{ "Asin", UNARY_FLOAT, f_asin, NULL },
	{ "Acos", UNARY_FLOAT, f_acos, NULL },
	{ "Atan", UNARY_FLOAT, f_atan, NULL },
	{ "Sinh", UNARY_FLOAT, f_sinh, NULL },
	{ "Cosh", UNARY_FLOAT, f_cosh, NULL },
	{ "Asinh", UNARY_FLOAT, f_asinh, NULL },
	{ "Acosh", UNARY_FLOAT, f_acosh, NULL },
	{ "Atanh", UNARY_FLOAT, f_atanh, NULL },
	{ "Erf", UNARY_FLOAT, f_erf, NULL },
	{ "Gelu", UNARY_FLOAT, f_gelu, p_gelu },
	{ "Softplus", UNARY_FLOAT, f_softplus, NULL },
	{ "Softsign", UNARY_FLOAT, f_softsign, NULL },
	{ "Mish", UNARY_FLOAT, f_mish, NULL },
	{ "Elu", UNARY_FLOAT, f_elu, p_alpha1 },
	{ "Selu", UNARY_FLOAT, f_selu, p_selu },
	{ "Celu", UNARY_FLOAT, f_celu, p_alpha1 },
	{ "ThresholdedRelu", UNARY_FLOAT, f_thresholded_relu, p_alpha1 },
	{ "IsNaN", UNARY_PREDICATE, f_isnan, NULL },
	{ "IsInf", UNARY_PREDICATE, f_isinf, p_isinf },
	{ "Not", UNARY_BOOL, f_not, NULL },
};

static const struct unary_def *unary_def_of(const struct rt_kernel *k)
{
	for (size_t i = 0; i < sizeof(unary_defs) / sizeof(unary_defs[0]); i++)
		if (!strcmp(unary_defs[i].name, k->op_type))
			return &unary_defs[i];
	return NULL;
}

static int unary_setup(struct rt_kernel *k, const struct rt_tensor *x,
		       const struct unary_def **def, struct unary_params *p)
{
	int32_t t = x->dtype;
	int ok;

	memset(p, 0, sizeof(*p));
	*def = unary_def_of(k);
	if (!*def)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "no unary kernel");
	switch ((*def)->kind) {
	case UNARY_NUMERIC:
		ok = rt_dtype_is_float(t) || rt_dtype_is_integer(t);
		break;
	case UNARY_BOOL:
		ok = t == ENPU_RT_BOOL;
		break;
	default:
		ok = rt_dtype_is_float(t);
		break;
	}
	if (!ok)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(t));
	return (*def)->params ? (*def)->params(k, p) : 0;
}

static int unary_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct unary_def *def;
	struct unary_params p;
	int status = unary_setup(k, in[0], &def, &p);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0],
				   def->kind == UNARY_PREDICATE ? ENPU_RT_BOOL :
				   in[0]->dtype, in[0]->rank, in[0]->dims);
}

/* float32 paths worth vectors: the CPU runtime's row kernels (frows.h). */
static int unary_f32_fast(struct rt_kernel *k, const struct unary_def *def,
			  const struct unary_params *p, size_t n,
			  const float *x, float *y)
{
	if (def->fn == f_exp)
		rt_frows_unary(k, ENPU_FEXP, n, x, y);
	else if (def->fn == f_erf)
		rt_frows_unary(k, ENPU_FERF, n, x, y);
	else if (def->fn == f_gelu && !p->flag_a)
		rt_frows_unary(k, ENPU_FGELU, n, x, y);
	else if (def->fn == f_sqrt)
		rt_frows_unary(k, ENPU_FSQRT, n, x, y);
	else if (def->fn == f_neg || def->fn == f_abs)
		for (size_t i = 0; i < n; i++)
			y[i] = def->fn == f_neg ? -x[i] : fabsf(x[i]);
	else
		return 0;
	return 1;
}

/* Integers: exact in the element type; unsigned types never negative. */
#define INT_UNARY(suffix, type, utype, NEGATIVE)			\
static void unary_##suffix(const struct unary_def *def,			\
			   const struct unary_params *p, size_t n,	\
			   const type *x, type *y)			\
{									\
	for (size_t i = 0; i < n; i++) {				\
		type v = x[i];						\
									\
		if (def->fn == f_abs)					\
			y[i] = NEGATIVE(v) ? (type)(0 - (utype)v) : v;	\
		else if (def->fn == f_neg)				\
			y[i] = (type)(0 - (utype)v);			\
		else if (def->fn == f_sign)				\
			y[i] = (type)(v > 0 ? 1 : NEGATIVE(v) ? -1 : 0);	\
		else							\
			y[i] = (type)def->fn((double)v, p);		\
	}								\
}

#define SIGNED_NEGATIVE(v) ((v) < 0)
#define UNSIGNED_NEGATIVE(v) ((void)(v), 0)
INT_UNARY(i8, int8_t, uint8_t, SIGNED_NEGATIVE)
INT_UNARY(i16, int16_t, uint16_t, SIGNED_NEGATIVE)
INT_UNARY(i32, int32_t, uint32_t, SIGNED_NEGATIVE)
INT_UNARY(i64, int64_t, uint64_t, SIGNED_NEGATIVE)
INT_UNARY(u8, uint8_t, uint8_t, UNSIGNED_NEGATIVE)
INT_UNARY(u16, uint16_t, uint16_t, UNSIGNED_NEGATIVE)
INT_UNARY(u32, uint32_t, uint32_t, UNSIGNED_NEGATIVE)
INT_UNARY(u64, uint64_t, uint64_t, UNSIGNED_NEGATIVE)

static int unary_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct unary_def *def;
	struct unary_params p;
	const struct rt_tensor *x = in[0];
	struct rt_tensor *y = out[0];
	size_t n = rt_tensor_elements(x);
	int status = unary_setup(k, x, &def, &p);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	switch (x->dtype) {
	case ENPU_RT_FLOAT:
		if (def->kind != UNARY_PREDICATE &&
		    unary_f32_fast(k, def, &p, n, x->data, y->data))
			return 0;
		break;
	case ENPU_RT_DOUBLE:
		if (def->kind == UNARY_PREDICATE)
			break;
		for (size_t i = 0; i < n; i++)
			((double *)y->data)[i] =
				def->fn(((const double *)x->data)[i], &p);
		return 0;
#define INT_CASE(dtype, suffix, type)					\
	case dtype:							\
		unary_##suffix(def, &p, n, x->data, y->data);		\
		return 0;
	INT_CASE(ENPU_RT_INT8, i8, int8_t)
	INT_CASE(ENPU_RT_INT16, i16, int16_t)
	INT_CASE(ENPU_RT_INT32, i32, int32_t)
	INT_CASE(ENPU_RT_INT64, i64, int64_t)
	INT_CASE(ENPU_RT_UINT8, u8, uint8_t)
	INT_CASE(ENPU_RT_UINT16, u16, uint16_t)
	INT_CASE(ENPU_RT_UINT32, u32, uint32_t)
	INT_CASE(ENPU_RT_UINT64, u64, uint64_t)
#undef INT_CASE
	default:
		break;
	}
	/* float (slow functions), float16, bfloat16, bool, predicates. */
	for (size_t i = 0; i < n; i++)
		rt_tensor_set_double(y, i, def->fn(rt_tensor_get_double(x, i),
						   &p));
	return 0;
}

#define UNARY(name, lo)							\
	{ name, "", lo, 21, 1, 1, 1, 1, 0, unary_infer, NULL, unary_run,\
	  NULL }

const struct rt_op_def rt_ops_math_unary[] = {
	UNARY("Abs", 1),
	UNARY("Neg", 1),
	UNARY("Sign", 9),
	UNARY("Shrink", 9),
	UNARY("Sqrt", 1),
	UNARY("Exp", 1),
	UNARY("Log", 1),
	UNARY("Reciprocal", 1),
	UNARY("Ceil", 1),
	UNARY("Floor", 1),
	UNARY("Round", 11),
	UNARY("Sin", 7),
	UNARY("Cos", 7),
	UNARY("Tan", 7),
	UNARY("Asin", 7),
	UNARY("Acos", 7),
	UNARY("Atan", 7),
	UNARY("Sinh", 9),
	UNARY("Cosh", 9),
	UNARY("Asinh", 9),
	UNARY("Acosh", 9),
	UNARY("Atanh", 9),
	UNARY("Erf", 9),
	UNARY("Gelu", 20),
	UNARY("Softplus", 1),
	UNARY("Softsign", 1),
	UNARY("Mish", 18),
	UNARY("Elu", 1),
	UNARY("Selu", 1),
	UNARY("Celu", 12),
	UNARY("ThresholdedRelu", 10),
	UNARY("IsNaN", 9),
	UNARY("IsInf", 10),
	UNARY("Not", 1),
	{ 0 },
};
