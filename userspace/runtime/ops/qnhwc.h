/* SPDX-License-Identifier: MIT */
/*
 * Shared by the integer NHWC op families (qconv.c, qpool.c, qeltwise.c,
 * layout.c): reading constant quantization parameters, the clamp a fused
 * activation implies in the quantized domain, and the NCHW <-> NHWC
 * transposes.
 *
 * Layout convention: ops with the int attribute `channels_last` = 1 take
 * and produce [N, spatial..., C]; with 0 (the default, ONNX's layout)
 * they take [N, C, spatial...] and transpose internally through scratch
 * memory. The graph's layout pass (graph/layout.c) sets it to 1 and moves
 * the transposes to the boundaries of the integer region.
 */
#ifndef ENPU_RT_QNHWC_H
#define ENPU_RT_QNHWC_H

#include "rt_enpu_ops.h"
#include "rt_op.h"

/* uint8 or int8: the 8-bit types the kernels take. */
int rt_q_is_8bit(int32_t dtype);
enum enpu_cpu_dtype rt_q_cpu_type(int32_t dtype);
void rt_q_range(int32_t dtype, int32_t *lo, int32_t *hi);

/*
 * A scale: float, one element, positive and finite. @t may not be NULL.
 * Errors name @what.
 */
int rt_q_scale(struct rt_kernel *k, const struct rt_tensor *t,
	       const char *what, double *scale);
/* A zero point: absent (0) or one element of @dtype. */
int rt_q_zero_point(struct rt_kernel *k, const struct rt_tensor *t,
		    const char *what, int32_t dtype, int32_t *zero_point);
/*
 * QuantizeLinear's y_scale and y_zero_point (@in[1], @in[2], which must
 * be there; the zero point's type is the output's).
 */
int rt_q_quantize_params(struct rt_kernel *k,
			 const struct rt_tensor *const *in, double *scale,
			 int32_t *zero_point);
/*
 * DequantizeLinear's x_scale and x_zero_point (@in[1], which must be
 * there, and @in[2], NULL for 0; the zero point's type is the input's).
 */
int rt_q_dequantize_params(struct rt_kernel *k,
			   const struct rt_tensor *const *in, double *scale,
			   int32_t *zero_point);

/*
 * Narrows [*lo, *hi] by k->activation (Relu: the zero point; Clip: its
 * bounds quantized with @scale, @zero_point).
 */
void rt_q_activation_clamp(const struct rt_kernel *k, double scale,
			   int32_t zero_point, int32_t *lo, int32_t *hi);

/* The channels_last attribute (0 or 1; anything else is an error). */
int rt_q_channels_last(struct rt_kernel *k, int *channels_last);

/*
 * [N][C][S] -> [N][S][C] and back, elements of @size bytes (1 or 4).
 */
void rt_q_to_nhwc(const void *src, void *dst, size_t n, size_t c, size_t s,
		  size_t size);
void rt_q_to_nchw(const void *src, void *dst, size_t n, size_t c, size_t s,
		  size_t size);

/*
 * QuantizeLinear's arithmetic on @count floats: rint(x / s) + zero (float
 * division, ties to even), saturated to [lo, hi] of @dtype (uint8 or
 * int8); NaN gives 0. Writes every @step-th byte of @dst. [flo, fhi] are
 * lo - zero - 1 and hi - zero + 1 as floats.
 */
void rt_q_quantize_span(const float *src, void *dst, size_t count,
			size_t step, float s, float flo, float fhi,
			int32_t zero, int32_t lo, int32_t hi, int32_t dtype);

/* Turns a negative errno of the CPU kernels into a status with its message. */
int rt_q_cpu_fail(struct rt_kernel *k, int err, const char *what);

#endif /* ENPU_RT_QNHWC_H */
