/* SPDX-License-Identifier: MIT */
/*
 * Float row kernels (fmath_impl.h, compiled once per ISA with its vector
 * width) and the float depthwise convolution kernel (fdwconv_impl.h),
 * as the kernel table holds them (kernels.h).
 */
#ifndef ENPU_CPU_FMATH_INTERNAL_H
#define ENPU_CPU_FMATH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* y[i] = a[i * a_step] OP b[i * b_step]; steps are 0 or 1. */
enum enpu_fbinary {
	ENPU_FADD, ENPU_FSUB, ENPU_FMUL, ENPU_FDIV, ENPU_FBINARY_COUNT,
};
typedef void (*enpu_fbinary_fn)(size_t n, const float *a, size_t a_step,
				const float *b, size_t b_step, float *y);

/* y[i] = f(x[i]); in place allowed. */
enum enpu_funary {
	ENPU_FEXP, ENPU_FSIGMOID, ENPU_FTANH, ENPU_FERF, ENPU_FGELU,
	ENPU_FSQRT, ENPU_FUNARY_COUNT,
};
typedef void (*enpu_funary_fn)(size_t n, const float *x, float *y);

struct enpu_fmath_kernels {
	enpu_fbinary_fn binary[ENPU_FBINARY_COUNT];
	enpu_funary_fn unary[ENPU_FUNARY_COUNT];
	/* y = max(lo, x) then min(hi, x): NaN stays NaN. */
	void (*clamp)(size_t n, const float *x, float lo, float hi, float *y);
	/* y = x * alpha + beta (LeakyRelu-free affine rows, HardSigmoid...). */
	void (*hard_sigmoid)(size_t n, const float *x, float alpha,
			     float beta, float *y);
	void (*leaky_relu)(size_t n, const float *x, float alpha, float *y);
	/* Sum and maximum of a row (lane-parallel, then across lanes). */
	float (*sum)(size_t n, const float *x);
	float (*max)(size_t n, const float *x);
	/* sum (x - mean)^2 */
	float (*sum_squares)(size_t n, const float *x, float mean);
	/* y = (x - mean) * inv * gamma + beta (gamma/beta NULL: 1/0). */
	void (*normalize)(size_t n, const float *x, float mean, float inv,
			  const float *gamma, const float *beta, float *y);
	/* y = exp(x - shift); returns sum y. */
	float (*exp_shift_sum)(size_t n, const float *x, float shift,
			       float *y);
	/* y = x * s */
	void (*scale)(size_t n, const float *x, float s, float *y);
	/*
	 * QuantizeLinear: y = saturate(rint(x / scale) + zero_point) into
	 * uint8 (@is_signed 0) or int8; NaN gives the zero point. Division,
	 * not multiplication by 1/scale, so results are ONNX's exactly.
	 */
	void (*quantize)(size_t n, const float *x, float scale,
			 int32_t zero_point, int is_signed, uint8_t *y);
	/* DequantizeLinear: y = (x - zero_point) * scale. */
	void (*dequantize)(size_t n, const uint8_t *x, float scale,
			   int32_t zero_point, int is_signed, float *y);
};

extern const struct enpu_fmath_kernels enpu_fmath_scalar;
extern const struct enpu_fmath_kernels enpu_fmath_avx2;
extern const struct enpu_fmath_kernels enpu_fmath_avx512;
extern const struct enpu_fmath_kernels enpu_fmath_neon;

/* One channel plane of a float depthwise convolution, rows [row0, row1). */
struct enpu_fdwconv_pass {
	const float *x;			/* height x width */
	const float *w;			/* kernel_h x kernel_w */
	float bias;
	float *y;			/* out_height x out_width */
	size_t height, width, out_height, out_width;
	size_t kernel_h, kernel_w, stride_h, stride_w;
	size_t dilation_h, dilation_w, pad_top, pad_left;
	size_t row0, row1;
	const float *clamp;		/* NULL or {min, max} */
	/* Max pooling instead: w and bias unused; windows start at -FLT_MAX. */
	int max_pool;
};
typedef void (*enpu_fdwconv_kernel)(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_scalar(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_avx2(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_avx512(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_neon(const struct enpu_fdwconv_pass *pass);

#endif /* ENPU_CPU_FMATH_INTERNAL_H */
