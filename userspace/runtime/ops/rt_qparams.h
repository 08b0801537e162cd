/* SPDX-License-Identifier: MIT */
/*
 * The integer parameters of the quantized ops (ops/rt_enpu_ops.h), derived
 * from a node's constant scales and zero points by one function each. The
 * CPU ops run on what these return, and the NPU compiler
 * (backend/npu/npu_compile.c) writes the same numbers into its commands,
 * so both sides compute the same bytes by construction: one expression
 * order for every scale (x_scale * w_scale[m] / y_scale in double), one
 * enpu_requant_from_scale(), one clamp for a fused activation.
 *
 * Every function reads the node through @k (attributes, k->activation)
 * and its inputs @in (shapes; constants with data), fails with
 * rt_op_error() like the op would, and leaves nothing to free on failure.
 */
#ifndef ENPU_RT_QPARAMS_H
#define ENPU_RT_QPARAMS_H

#include "rt_op.h"

/* QConv: geometry, zero points, clamp, per-output-channel (M, S). */
struct rt_qconv_params {
	struct enpu_cpu_conv_shape shape;
	size_t batch, height, width;		/* input, NCHW terms */
	size_t out_height, out_width;
	int64_t out_dims[4];			/* in the stored layout */
	int channels_last;
	int32_t x_type, y_type;			/* enum enpu_rt_dtype */
	int32_t x_zero, y_zero, lo, hi;
	int32_t *multiplier, *shift;		/* [output channels] */
};

/* Geometry only (no constants needed): for infer and claim. */
int rt_qconv_geometry(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_qconv_params *p);
/* Everything: the weights' parameters must be constants. */
int rt_qconv_params(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_qconv_params *p);
void rt_qconv_params_free(struct rt_qconv_params *p);

/* QAdd / QMul: the fixed-point parameters of enpu_cpu_add/mul. */
int rt_qeltwise_params(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, int mul,
		       struct enpu_cpu_eltwise_params *params);

/* QMaxPool, QAveragePool (and com.microsoft's), QGlobalAveragePool. */
enum rt_qpool_kind { RT_QPOOL_MAX, RT_QPOOL_AVERAGE, RT_QPOOL_GLOBAL };

struct rt_qpool_params {
	enum rt_qpool_kind kind;
	struct enpu_cpu_pool_shape shape;	/* not for GLOBAL */
	/* batch, input_height/width (GLOBAL: 1 x all spatial), channels,
	 * type, zero points, scale (input / output), min, max; no data. */
	struct enpu_cpu_pool_args args;
	size_t spatial_in, spatial_out;
	int64_t out_dims[RT_MAX_RANK];
	int rank, channels_last;
	int have_scales;	/* averages: scales were constants */
};

int rt_qpool_params(struct rt_kernel *k, enum rt_qpool_kind kind,
		    const struct rt_tensor *const *in, size_t n_in,
		    struct rt_qpool_params *p);

/*
 * QGemm with an 8-bit output: Y's zero point and clamp, and per column
 * (M, S) when the fixed-point rule represents every column's scale
 * (fixed = 1; else the CPU falls back to a double-precision rule the NPU
 * does not have).
 */
struct rt_qgemm_requant {
	size_t n;
	int per_channel;
	int fixed;
	int32_t out_type, zero_point, lo, hi;
	int32_t *multiplier, *shift;	/* [n] */
	double *real_scale;		/* [n] */
};

int rt_qgemm_requant(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, size_t n, int32_t out_type,
		     struct rt_qgemm_requant *r);
void rt_qgemm_requant_free(struct rt_qgemm_requant *r);

#endif /* ENPU_RT_QPARAMS_H */
