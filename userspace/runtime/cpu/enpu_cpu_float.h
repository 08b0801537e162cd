/* SPDX-License-Identifier: MIT */
/*
 * Float kernels of the CPU runtime: the single-precision GEMM (packed
 * constant B, or B as given and packed per call, transposed or not),
 * NCHW convolution (dense, grouped, depthwise) on it, and the vector
 * math rows the float ops use. Same context, threads and error rules as
 * enpu_cpu.h; the kernels are the context's (chosen with its ISA).
 *
 * Results differ between ISA paths only by float rounding: every path
 * sums k in ascending order (the FMA paths round once per step), except
 * the AVX-512 GEMM's last 1 or 2 columns past a multiple of 16, summed
 * as 16 partial sums along k (sgemm_internal.h).
 */
#ifndef ENPU_CPU_FLOAT_H
#define ENPU_CPU_FLOAT_H

#include "enpu_cpu.h"

typedef struct enpu_cpu_sgemm_weights enpu_cpu_sgemm_weights;

/*
 * Packs a constant B of @k rows and @n columns for the context's current
 * kernel: b[kk * ldb + j], or with @transposed b[j * ldb + kk] (B given
 * as [n][k], as Gemm's transB and MatMul's K^T have it). The packed
 * object may only be used with a context on the same ISA.
 */
int enpu_cpu_sgemm_weights_pack(enpu_cpu_context *context, size_t k,
				size_t n, const float *b, size_t ldb,
				int transposed,
				enpu_cpu_sgemm_weights **weights);
void enpu_cpu_sgemm_weights_destroy(enpu_cpu_sgemm_weights *weights);

/*
 * C[i][j] = clamp(bias + sum_kk A[i][kk] * B[kk][j]) for i < m, j < n.
 * A: a[i * lda + kk]. B: @weights (packed), or b with ldb/b_transposed as
 * in the pack call. bias: NULL, per column (n values) or, with
 * bias_per_row, per row (m values). clamp: NULL or {min, max}, NaN kept.
 * C: c[i * ldc + j]; must not overlap A or B.
 */
struct enpu_cpu_sgemm_args {
	size_t m, n, k;
	const float *a;
	size_t lda;
	const enpu_cpu_sgemm_weights *weights;
	const float *b;
	size_t ldb;
	int b_transposed;
	const float *bias;
	int bias_per_row;
	const float *clamp;
	float *c;
	size_t ldc;
};

int enpu_cpu_sgemm(enpu_cpu_context *context,
		   const struct enpu_cpu_sgemm_args *args);
/* Straight loops in double, rounded once: the tests' oracle. */
int enpu_cpu_sgemm_reference(enpu_cpu_context *context,
			     const struct enpu_cpu_sgemm_args *args);

/*
 * NCHW convolution, 2-D (1-D as height 1): x [batch][in_channels][height]
 * [width], w [out_channels][in_channels / group][kernel_height]
 * [kernel_width] (ONNX's OIHW), bias NULL or [out_channels], y [batch]
 * [out_channels][out_h][out_w] with ONNX's output size (explicit pads).
 * Dense and grouped convolutions run on the GEMM (weights as A, the
 * input unfolded per task into B panels; 1x1 stride-1 unpadded reads the
 * input in place); depthwise ones (group == in_channels == out_channels)
 * on their own kernels.
 */
struct enpu_cpu_fconv_shape {
	size_t batch, in_channels, height, width;
	size_t out_channels, group;
	size_t kernel_height, kernel_width;
	size_t stride_height, stride_width;
	size_t dilation_height, dilation_width;
	size_t pad_top, pad_left, pad_bottom, pad_right;
};

int enpu_cpu_fconv_output_size(enpu_cpu_context *context,
			       const struct enpu_cpu_fconv_shape *shape,
			       size_t *out_height, size_t *out_width);
int enpu_cpu_conv2d_f32(enpu_cpu_context *context,
			const struct enpu_cpu_fconv_shape *shape,
			const float *x, const float *w, const float *bias,
			const float *clamp, float *y);
/*
 * A convolution's weights packed once for the context's kernels (the
 * blocks of output channels the in-place path runs, AVX-512), so that
 * no call packs them: @shape's in_channels, out_channels, group and
 * kernel sizes decide the packing (it must be valid as a whole). Packs
 * only where @shape as a whole runs the in-place path, the one reader
 * of the packing; sets *@weights to NULL, and returns 0, everywhere
 * else (depthwise, stride other than 1, few taps, an unpadded 1x1,
 * output rows that fill the panels badly, ISAs without those kernels).
 * enpu_cpu_conv2d_f32_packed() then takes it with w (every path but the
 * in-place one still reads w) for any shape with the same channels,
 * group and kernel sizes, on a context of the same ISA (else -EINVAL);
 * @weights NULL there is enpu_cpu_conv2d_f32().
 */
typedef struct enpu_cpu_fconv_weights enpu_cpu_fconv_weights;
int enpu_cpu_fconv_weights_pack(enpu_cpu_context *context,
				const struct enpu_cpu_fconv_shape *shape,
				const float *w,
				enpu_cpu_fconv_weights **weights);
void enpu_cpu_fconv_weights_destroy(enpu_cpu_fconv_weights *weights);
int enpu_cpu_conv2d_f32_packed(enpu_cpu_context *context,
			       const struct enpu_cpu_fconv_shape *shape,
			       const float *x, const float *w,
			       const enpu_cpu_fconv_weights *weights,
			       const float *bias, const float *clamp,
			       float *y);
/*
 * Float max pooling, NCHW, with the same geometry (out_channels equal to
 * in_channels, group 1; floor output sizes): the largest input in each
 * window, -FLT_MAX for a window of padding only, NaN inputs skipped.
 */
int enpu_cpu_max_pool_f32(enpu_cpu_context *context,
			  const struct enpu_cpu_fconv_shape *shape,
			  const float *x, float *y);
int enpu_cpu_conv2d_f32_reference(enpu_cpu_context *context,
				  const struct enpu_cpu_fconv_shape *shape,
				  const float *x, const float *w,
				  const float *bias, const float *clamp,
				  float *y);

/*
 * Float row kernels of the context's ISA (4, 8 or 16 lanes), for the
 * runtime's elementwise, activation, normalization and quantization ops;
 * each works on one contiguous row, the caller splits and threads.
 */
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
	/* y = exp(x - shift), shift >= max x (softmax); returns sum y. */
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
	/*
	 * Two interleaved two-tap rows (a 2x linear upsampling of a row):
	 * for m < n, y[2m] = w[0] * a[m] + w[1] * b[m] and
	 * y[2m + 1] = w[2] * c[m] + w[3] * d[m].
	 */
	void (*lerp_pairs)(size_t n, const float *a, const float *b,
			   const float *c, const float *d, const float w[4],
			   float *y);
	/*
	 * y[i] = y[i] + w * x[i], a multiply then an add (two roundings,
	 * as the plain C it replaces: Resize's row taps, whose sums the
	 * int8 QResize repeats bit for bit).
	 */
	void (*axpy)(size_t n, float w, const float *x, float *y);
};


/* The context's row kernels (chosen with its ISA). */
const struct enpu_fmath_kernels *enpu_cpu_fmath(const enpu_cpu_context *context);

#endif /* ENPU_CPU_FLOAT_H */
