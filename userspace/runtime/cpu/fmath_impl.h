/* SPDX-License-Identifier: MIT */
/*
 * The float row kernels of fmath_internal.h, written once and compiled
 * per ISA: the includer defines VMATH_WIDTH (lanes) and FMATH_TABLE (the
 * table's name) and is built with the ISA's -m flags, so the plain loops
 * below auto-vectorize to that width (-O3) and the transcendental ones
 * use vmath.h's explicit vectors.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fmath_internal.h"
#include "vmath.h"

#define BINARY_ROW(name, OP)						\
static void name(size_t n, const float *a, size_t a_step,		\
		 const float *b, size_t b_step, float *y)		\
{									\
	if (a_step && b_step) {						\
		for (size_t i = 0; i < n; i++)				\
			y[i] = a[i] OP b[i];				\
	} else if (a_step) {						\
		float v = b[0];						\
									\
		for (size_t i = 0; i < n; i++)				\
			y[i] = a[i] OP v;				\
	} else {							\
		float v = a[0];						\
									\
		for (size_t i = 0; i < n; i++)				\
			y[i] = v OP b[i];				\
	}								\
}

BINARY_ROW(add_row, +)
BINARY_ROW(sub_row, -)
BINARY_ROW(mul_row, *)
BINARY_ROW(div_row, /)

#define VECTOR_MAP(name, EXPR)						\
static void name(size_t n, const float *x, float *y)			\
{									\
	size_t i = 0;							\
									\
	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH) {		\
		vm_f v = vm_load(x + i);				\
									\
		vm_store(y + i, (EXPR));				\
	}								\
	if (i < n) {							\
		vm_f v = vm_load_partial(x + i, n - i, 0.0f);		\
									\
		vm_store_partial(y + i, (EXPR), n - i);			\
	}								\
}

VECTOR_MAP(exp_row, vm_exp(v))
VECTOR_MAP(sigmoid_row, vm_sigmoid(v))
VECTOR_MAP(tanh_row, vm_tanh(v))
VECTOR_MAP(erf_row, vm_erf(v))
VECTOR_MAP(gelu_row, 0.5f * v * vm_one_plus_erf(v * 0.70710678118654752f))

static void sqrt_row(size_t n, const float *x, float *y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = sqrtf(x[i]);
}

static void clamp_row(size_t n, const float *x, float lo, float hi, float *y)
{
	for (size_t i = 0; i < n; i++) {
		float v = x[i] < lo ? lo : x[i];

		y[i] = v > hi ? hi : v;
	}
}

static void hard_sigmoid_row(size_t n, const float *x, float alpha,
			     float beta, float *y)
{
	for (size_t i = 0; i < n; i++) {
		float v = alpha * x[i] + beta;

		v = v < 0.0f ? 0.0f : v;
		y[i] = v > 1.0f ? 1.0f : v;
	}
}

static void leaky_relu_row(size_t n, const float *x, float alpha, float *y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] < 0.0f ? x[i] * alpha : x[i];
}

static float sum_row(size_t n, const float *x)
{
	vm_f acc = vm_splat(0.0f);
	size_t i = 0;

	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH)
		acc += vm_load(x + i);
	if (i < n)
		acc += vm_load_partial(x + i, n - i, 0.0f);
	return vm_hsum(acc);
}

static float max_row(size_t n, const float *x)
{
	vm_f acc;
	size_t i = 0;

	if (!n)
		return -INFINITY;
	acc = vm_splat(x[0]);
	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH) {
		vm_f v = vm_load(x + i);

		acc = vm_select((v > acc) | (v != v), v, acc);
	}
	if (i < n) {
		vm_f v = vm_load_partial(x + i, n - i, x[0]);

		acc = vm_select((v > acc) | (v != v), v, acc);
	}
	return vm_hmax(acc);
}

static float sum_squares_row(size_t n, const float *x, float mean)
{
	vm_f acc = vm_splat(0.0f);
	size_t i = 0;

	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH) {
		vm_f d = vm_load(x + i) - mean;

		acc += d * d;
	}
	if (i < n) {
		vm_f d = vm_load_partial(x + i, n - i, mean) - mean;

		acc += d * d;
	}
	return vm_hsum(acc);
}

static void normalize_row(size_t n, const float *x, float mean, float inv,
			  const float *gamma, const float *beta, float *y)
{
	if (gamma && beta)
		for (size_t i = 0; i < n; i++)
			y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
	else if (gamma)
		for (size_t i = 0; i < n; i++)
			y[i] = (x[i] - mean) * inv * gamma[i];
	else
		for (size_t i = 0; i < n; i++)
			y[i] = (x[i] - mean) * inv;
}

static float exp_shift_sum_row(size_t n, const float *x, float shift,
			       float *y)
{
	vm_f acc = vm_splat(0.0f);
	size_t i = 0;

	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH) {
		vm_f e = vm_exp_nonpositive(vm_load(x + i) - shift);

		vm_store(y + i, e);
		acc += e;
	}
	if (i < n) {
		vm_f e = vm_exp_nonpositive(vm_load_partial(x + i, n - i,
							    -INFINITY) - shift);

		vm_store_partial(y + i, e, n - i);
		acc += e;
	}
	return vm_hsum(acc);
}

static void scale_row(size_t n, const float *x, float s, float *y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] * s;
}

/*
 * rint by the 1.5 * 2^23 trick, exact (round half to even in the default
 * rounding mode) for |v| < 2^22, which the clamp guarantees: clamping to
 * the integers qmin - zp and qmax - zp before rounding equals rounding
 * then saturating, so no integer clamp follows. Vectors, then the same
 * steps per element for the tail.
 */
static void quantize_row(size_t n, const float *x, float scale,
			 int32_t zero_point, int is_signed, uint8_t *y)
{
	const float magic = 12582912.0f;
	float lo = (float)((is_signed ? -128 : 0) - zero_point);
	float hi = (float)((is_signed ? 127 : 255) - zero_point);
	size_t i = 0;

	for (; i + VMATH_WIDTH <= n; i += VMATH_WIDTH) {
		vm_f v = vm_load(x + i) / scale;
		vm_i q;

		/* NaN gives 0: -zp before the zero point is added. */
		v = vm_select(v != v, vm_splat((float)-zero_point), v);
		v = vm_clamp(v, lo, hi);
		v = (v + magic) - magic;
		q = __builtin_convertvector(v, vm_i) + zero_point;
		for (int l = 0; l < VMATH_WIDTH; l++)
			y[i + l] = (uint8_t)q[l];
	}
	for (; i < n; i++) {
		float v = x[i] / scale;

		v = v != v ? (float)-zero_point : v;
		v = v < lo ? lo : v > hi ? hi : v;
		y[i] = (uint8_t)((int32_t)((v + magic) - magic) + zero_point);
	}
}

static void dequantize_row(size_t n, const uint8_t *x, float scale,
			   int32_t zero_point, int is_signed, float *y)
{
	if (is_signed)
		for (size_t i = 0; i < n; i++)
			y[i] = (float)((int32_t)(int8_t)x[i] - zero_point) * scale;
	else
		for (size_t i = 0; i < n; i++)
			y[i] = (float)((int32_t)x[i] - zero_point) * scale;
}

/*
 * Unit-stride loads, one interleaving store: -O3 vectorizes it, where the
 * general two-tap column loop of Resize gathers its inputs one by one.
 * The sums are written as that loop writes them (0 + first + second).
 */
static void lerp_pairs_row(size_t n, const float *a, const float *b,
			   const float *c, const float *d, const float w[4],
			   float *y)
{
	float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];

	for (size_t m = 0; m < n; m++) {
		y[2 * m] = (0.0f + w0 * a[m]) + w1 * b[m];
		y[2 * m + 1] = (0.0f + w2 * c[m]) + w3 * d[m];
	}
}

/* restrict: otherwise -O3 keeps a scalar loop beside the vector one. */
static void axpy_row(size_t n, float w, const float *restrict x,
		     float *restrict y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = y[i] + w * x[i];
}

const struct enpu_fmath_kernels FMATH_TABLE = {
	.binary = {
		[ENPU_FADD] = add_row, [ENPU_FSUB] = sub_row,
		[ENPU_FMUL] = mul_row, [ENPU_FDIV] = div_row,
	},
	.unary = {
		[ENPU_FEXP] = exp_row, [ENPU_FSIGMOID] = sigmoid_row,
		[ENPU_FTANH] = tanh_row, [ENPU_FERF] = erf_row,
		[ENPU_FGELU] = gelu_row, [ENPU_FSQRT] = sqrt_row,
	},
	.clamp = clamp_row,
	.hard_sigmoid = hard_sigmoid_row,
	.leaky_relu = leaky_relu_row,
	.sum = sum_row,
	.max = max_row,
	.sum_squares = sum_squares_row,
	.normalize = normalize_row,
	.exp_shift_sum = exp_shift_sum_row,
	.scale = scale_row,
	.quantize = quantize_row,
	.dequantize = dequantize_row,
	.lerp_pairs = lerp_pairs_row,
	.axpy = axpy_row,
};
