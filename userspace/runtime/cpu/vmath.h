/* SPDX-License-Identifier: MIT */
/*
 * Float vector math of width VMATH_WIDTH lanes (4, 8 or 16; the includer
 * defines it and compiles with the matching -m flags), on GCC/clang
 * vector extensions: exp, expm1 (x >= 0), sigmoid, tanh, erf, selects and
 * clamps. Included once per ISA by fmath_impl.h.
 *
 * exp uses range reduction by ln 2, a degree-7 polynomial and the
 * exponent built with integer ops: within 1 ulp of the double result
 * over all floats; sigmoid within 3 ulp, tanh 4. erf: the Taylor series
 * to x^15 below |x| = 0.5 (relative error < 1e-8), 1 - erfc above with
 * Numerical Recipes' Chebyshev fit of erfc (fractional error < 1.2e-7).
 * Rounding is by truncating conversions, so -ffast-math would not break
 * it. The polynomials are Horner chains of vm_fma(): one fused
 * multiply-add per term where the ISA has one (the files are built with
 * -std=c11, which turns GCC's contraction off, so a * b + c stays two
 * instructions and two roundings otherwise).
 */
#ifndef ENPU_CPU_VMATH_H
#define ENPU_CPU_VMATH_H

#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#elif defined(__ARM_FEATURE_FMA)
#include <arm_neon.h>
#endif

#ifndef VMATH_WIDTH
#error "define VMATH_WIDTH before including vmath.h"
#endif

typedef float vm_f __attribute__((vector_size(4 * VMATH_WIDTH)));
typedef int32_t vm_i __attribute__((vector_size(4 * VMATH_WIDTH)));

#define VM_LN2_HI 0.693145751953125f
#define VM_LN2_LO 1.42860682030941723212e-6f
#define VM_LOG2E 1.44269504088896341f
#define VM_EXP_MAX 88.72283f
#define VM_EXP_MIN -87.33654f

static inline vm_f vm_splat(float v)
{
	return (vm_f){ 0 } + v;
}

static inline vm_f vm_load(const float *p)
{
	vm_f v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void vm_store(float *p, vm_f v)
{
	memcpy(p, &v, sizeof(v));
}

static inline vm_f vm_load_partial(const float *p, size_t n, float fill)
{
	vm_f v = vm_splat(fill);

	memcpy(&v, p, n * sizeof(float));
	return v;
}

static inline void vm_store_partial(float *p, vm_f v, size_t n)
{
	memcpy(p, &v, n * sizeof(float));
}

/*
 * a * b + c. Fused (one rounding) at 16 lanes with AVX-512, 8 with FMA3
 * and 4 with NEON's FMLA; elsewhere (the SSE2 build) two roundings. The
 * polynomials below are within their stated bounds either way; the fused
 * chain is what keeps Gelu's 30-odd terms from being twice as many
 * instructions (0.16 ms for 128 x 1024 on AVX-512 before, see
 * docs/runtime.md).
 */
static inline vm_f vm_fma(vm_f a, vm_f b, vm_f c)
{
#if VMATH_WIDTH == 16 && defined(__AVX512F__)
	return (vm_f)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif VMATH_WIDTH == 8 && defined(__FMA__)
	return (vm_f)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif VMATH_WIDTH == 4 && defined(__ARM_FEATURE_FMA)
	return (vm_f)vfmaq_f32((float32x4_t)c, (float32x4_t)a,
			       (float32x4_t)b);
#else
	return a * b + c;
#endif
}

/* mask ? a : b; masks are comparison results. */
static inline vm_f vm_select(vm_i mask, vm_f a, vm_f b)
{
	return (vm_f)((mask & (vm_i)a) | (~mask & (vm_i)b));
}

/* v limited to [lo, hi]; NaN stays NaN. */
static inline vm_f vm_clamp(vm_f v, float lo, float hi)
{
	v = vm_select(v < lo, vm_splat(lo), v);
	return vm_select(v > hi, vm_splat(hi), v);
}

static inline vm_f vm_abs(vm_f v)
{
	return (vm_f)((vm_i)v & 0x7fffffff);
}

/* e^r - 1 for |r| <= ln 2 / 2: Taylor series to r^7. */
static inline vm_f vm_expm1_poly(vm_f r)
{
	vm_f p = vm_splat(1.0f / 5040.0f);

	p = vm_fma(p, r, vm_splat(1.0f / 720.0f));
	p = vm_fma(p, r, vm_splat(1.0f / 120.0f));
	p = vm_fma(p, r, vm_splat(1.0f / 24.0f));
	p = vm_fma(p, r, vm_splat(1.0f / 6.0f));
	p = vm_fma(p, r, vm_splat(0.5f));
	p = vm_fma(p, r, vm_splat(1.0f));
	return p * r;
}

/* x clamped to the exp range: 2^n * e^r, returns e^r - 1 (see header). */
static inline vm_f vm_exp_reduce(vm_f x, vm_f *scale, vm_f *scale2)
{
	vm_f t = x * VM_LOG2E;
	vm_f half = vm_select(t >= 0.0f, vm_splat(0.5f), vm_splat(-0.5f));
	vm_i n = __builtin_convertvector(t + half, vm_i);
	vm_i top = -(n > 127);	/* comparisons give -1 for true */
	vm_f nf = __builtin_convertvector(n, vm_f);
	vm_f r = vm_fma(nf, vm_splat(-VM_LN2_LO),
			vm_fma(nf, vm_splat(-VM_LN2_HI), x));

	*scale = (vm_f)((n - top + 127) << 23);
	*scale2 = __builtin_convertvector(top + 1, vm_f);
	return vm_expm1_poly(r);
}

static inline vm_f vm_exp(vm_f x)
{
	vm_f scale, scale2, m;

	m = vm_exp_reduce(vm_clamp(x, VM_EXP_MIN, VM_EXP_MAX), &scale, &scale2);
	m = vm_fma(m, scale, scale) * scale2;
	m = vm_select(x > VM_EXP_MAX, vm_splat(__builtin_inff()), m);
	m = vm_select(x < VM_EXP_MIN, vm_splat(0.0f), m);
	return vm_select(x != x, x, m);
}

/*
 * exp(x) for x <= ln 2 / 2 (softmax's x - max, sigmoid's -|x|, erfc's
 * exponent), the same reduction and polynomial as vm_exp() without its
 * overflow side: n = x * log2e rounded half away from zero is then
 * trunc(t - 0.5) (t < 0.5), never above 127, so there is no second
 * scale and no clamp at the top; below VM_EXP_MIN the result is 0, NaN
 * stays NaN. Larger x gives wrong results (the domain is the caller's
 * to keep).
 */
static inline vm_f vm_exp_nonpositive(vm_f x)
{
	vm_f c = vm_select(x < VM_EXP_MIN, vm_splat(VM_EXP_MIN), x);
	vm_i n = __builtin_convertvector(vm_fma(c, vm_splat(VM_LOG2E),
						vm_splat(-0.5f)), vm_i);
	vm_f nf = __builtin_convertvector(n, vm_f);
	vm_f r = vm_fma(nf, vm_splat(-VM_LN2_LO),
			vm_fma(nf, vm_splat(-VM_LN2_HI), c));
	vm_f scale = (vm_f)((n + 127) << 23);
	vm_f m = vm_fma(vm_expm1_poly(r), scale, scale);

	m = vm_select(x < VM_EXP_MIN, vm_splat(0.0f), m);
	return vm_select(x != x, x, m);
}

static inline vm_f vm_expm1_nonnegative(vm_f x)
{
	vm_f scale, scale2, m;

	m = vm_exp_reduce(vm_clamp(x, 0.0f, VM_EXP_MAX), &scale, &scale2);
	m = (m * scale + (scale - 1.0f)) * scale2 + (scale2 - 1.0f);
	return vm_select(x > VM_EXP_MAX, vm_splat(__builtin_inff()), m);
}

static inline vm_f vm_sigmoid(vm_f x)
{
	vm_f e = vm_exp_nonpositive(-vm_abs(x));
	vm_f s = 1.0f / (1.0f + e);

	return vm_select(x >= 0.0f, s, e * s);
}

static inline vm_f vm_tanh(vm_f x)
{
	vm_f a = vm_abs(x);
	vm_i sign = (vm_i)x & (int32_t)0x80000000u;
	vm_f e = vm_expm1_nonnegative(2.0f * vm_clamp(a, 0.0f, 9.1f));
	vm_f t = e / (e + 2.0f);

	t = vm_select(a > 9.1f, vm_splat(1.0f), t);
	t = (vm_f)((vm_i)t | sign);
	return vm_select(x != x, x, t);
}

/* 1 - erf(|x|), any |x| (fractional error < 1.2e-7): Numerical Recipes. */
static inline vm_f vm_erfc_abs(vm_f a)
{
	static const float c[] = {
		0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f,
		0.27886807f, -0.18628806f, 0.09678418f, 0.37409196f,
		1.00002368f,
	};
	vm_f t = 1.0f / vm_fma(a, vm_splat(0.5f), vm_splat(1.0f));
	vm_f p = vm_splat(c[0]);

	for (size_t i = 1; i < sizeof(c) / sizeof(*c); i++)
		p = vm_fma(p, t, vm_splat(c[i]));
	/* The exponent is at most ~1e-7 (a = 0), inside vm_exp_nonpositive(). */
	return t * vm_exp_nonpositive(vm_fma(p, t, -a * a - 1.26551223f));
}

/* erf(x) for |x| < 0.5: Taylor to x^15. */
static inline vm_f vm_erf_small(vm_f x)
{
	static const float c[] = {
		-1.492565035840625e-05f, 0.00012055332981789664f,
		-0.0008548327023450852f, 0.005223977625442188f,
		-0.026866170645131252f, 0.11283791670955126f,
		-0.37612638903183754f, 1.1283791670955126f,
	};
	vm_f x2 = x * x, p = vm_splat(c[0]);

	for (size_t i = 1; i < sizeof(c) / sizeof(*c); i++)
		p = vm_fma(p, x2, vm_splat(c[i]));
	return x * p;
}

static inline vm_f vm_erf(vm_f x)
{
	vm_f a = vm_abs(x), e = 1.0f - vm_erfc_abs(a);

	return vm_select(a < 0.5f, vm_erf_small(x),
			 vm_select(x < 0.0f, -e, e));
}

/*
 * 1 + erf(x) without the cancellation near x = -inf that 1 + erf()
 * would suffer: erfc(|x|) itself for negative x (Gelu's left tail), 2 -
 * erfc(|x|) for positive x. No Taylor branch near 0: erfc(|x|) is then
 * close to 1, so its 1.2e-7 fractional error is also the relative error
 * of the sum, and computing only one of the two fits per lane keeps Gelu
 * cheaper.
 */
static inline vm_f vm_one_plus_erf(vm_f x)
{
	vm_f q = vm_erfc_abs(vm_abs(x));

	return vm_select(x < 0.0f, q, 2.0f - q);
}

/*
 * Horizontal reductions, as a tree of halvings (a lane-by-lane loop was
 * most of a 128-wide softmax row's max and sum passes). vm_hmax keeps
 * NaN: a NaN lane wins every comparison it meets.
 */
#if VMATH_WIDTH == 16
#define VM_HALVES(v) __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, \
		14, 15, 0, 1, 2, 3, 4, 5, 6, 7), \
	__builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, \
		15, 8, 9, 10, 11), \
	__builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, \
		14, 15, 12, 13), \
	__builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, \
		13, 12, 15, 14)
#define VM_LEVELS 4
#elif VMATH_WIDTH == 8
#define VM_HALVES(v) __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3), \
	__builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5), \
	__builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#define VM_LEVELS 3
#elif VMATH_WIDTH == 4
#define VM_HALVES(v) __builtin_shufflevector(v, v, 2, 3, 0, 1), \
	__builtin_shufflevector(v, v, 1, 0, 3, 2)
#define VM_LEVELS 2
#else
#error "VMATH_WIDTH must be 4, 8 or 16"
#endif

/* v with its lanes swapped at distance VMATH_WIDTH >> (level + 1). */
static inline vm_f vm_swap(vm_f v, int level)
{
	vm_f halves[VM_LEVELS] = { VM_HALVES(v) };

	return halves[level];
}

static inline float vm_hsum(vm_f v)
{
	for (int level = 0; level < VM_LEVELS; level++)
		v += vm_swap(v, level);
	return v[0];
}

static inline float vm_hmax(vm_f v)
{
	for (int level = 0; level < VM_LEVELS; level++) {
		vm_f w = vm_swap(v, level);

		v = vm_select((w > v) | (w != w), w, v);
	}
	return v[0];
}

#endif /* ENPU_CPU_VMATH_H */
