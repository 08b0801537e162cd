/* SPDX-License-Identifier: MIT */
/*
 * Float rows on the CPU runtime's row kernels (enpu_cpu_fmath()), split
 * into chunks the context's threads share when the tensor is large
 * enough to be worth it. What the float elementwise, activation and
 * quantization ops call for contiguous float32 data.
 */
#ifndef ENPU_RT_FROWS_H
#define ENPU_RT_FROWS_H

#include "enpu_cpu_float.h"
#include "rt_op.h"

/* y = f(x) over n elements (in place allowed). */
void rt_frows_unary(struct rt_kernel *k, enum enpu_funary op, size_t n,
		    const float *x, float *y);
/* y = clamp(x), hard_sigmoid(x), leaky_relu(x) over n elements. */
void rt_frows_clamp(struct rt_kernel *k, size_t n, const float *x, float lo,
		    float hi, float *y);
void rt_frows_hard_sigmoid(struct rt_kernel *k, size_t n, const float *x,
			   float alpha, float beta, float *y);
void rt_frows_leaky_relu(struct rt_kernel *k, size_t n, const float *x,
			 float alpha, float *y);
/* y = a OP b over n elements; a_step/b_step 0 (one value) or 1. */
void rt_frows_binary(struct rt_kernel *k, enum enpu_fbinary op, size_t n,
		     const float *a, size_t a_step, const float *b,
		     size_t b_step, float *y);
/*
 * QuantizeLinear / DequantizeLinear of @n elements with one scale and
 * zero point (uint8, or int8 with @is_signed).
 */
void rt_frows_quantize(struct rt_kernel *k, size_t n, const float *x,
		       float scale, int32_t zero_point, int is_signed,
		       uint8_t *y);
void rt_frows_dequantize(struct rt_kernel *k, size_t n, const uint8_t *x,
			 float scale, int32_t zero_point, int is_signed,
			 float *y);
/*
 * QuantizeLinear of @images x @channels x @plane floats (NCHW) with one
 * scale and zero point into NHWC bytes: y[(b * plane + p) * channels + c]
 * = quantize(x[(b * channels + c) * plane + p]), the same results as
 * rt_frows_quantize() of the NCHW tensor then a transpose.
 */
void rt_frows_quantize_nhwc(struct rt_kernel *k, size_t images,
			    size_t channels, size_t plane, const float *x,
			    float scale, int32_t zero_point, int is_signed,
			    uint8_t *y);

#endif /* ENPU_RT_FROWS_H */
