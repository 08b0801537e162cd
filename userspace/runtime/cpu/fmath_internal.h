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

#include "enpu_cpu_float.h"

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
