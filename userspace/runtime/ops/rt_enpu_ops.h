/* SPDX-License-Identifier: MIT */
/*
 * The ops the runtime adds to graphs (domain ai.enpu, opset 1): their
 * names and input orders. This is the contract between the passes that
 * write them (graph/), the CPU ops that run them (ops/) and the NPU
 * compiler that lowers them (backend/npu/); none of those includes the
 * others. Semantics: docs/runtime.md and docs/quantization.md.
 */
#ifndef ENPU_RT_ENPU_OPS_H
#define ENPU_RT_ENPU_OPS_H

/* The domain of every op the runtime adds to a graph. */
#define RT_ENPU_DOMAIN "ai.enpu"

/*
 * QGemm: Y = requant((A - a_zp) x (B - b_zp) + bias); absent inputs are
 * -1 in the graph (NULL for ops).
 */
#define RT_QGEMM_DOMAIN RT_ENPU_DOMAIN
#define RT_QGEMM_OP "QGemm"

enum rt_qgemm_input {
	RT_QGEMM_A = 0,		/* uint8/int8 [..., M, K] */
	RT_QGEMM_A_SCALE,	/* float scalar; absent with Y_SCALE: int32 Y */
	RT_QGEMM_A_ZERO,	/* scalar, A's type; absent: 0 */
	RT_QGEMM_B,		/* uint8/int8 [..., K, N] */
	RT_QGEMM_B_SCALE,	/* float scalar or [N] */
	RT_QGEMM_B_ZERO,	/* scalar or [N], B's type; absent: 0 */
	RT_QGEMM_Y_SCALE,	/* float scalar; absent: Y is int32 */
	RT_QGEMM_Y_ZERO,	/* scalar, Y's type (uint8/int8) */
	RT_QGEMM_BIAS,		/* int32 [N], in units of a_scale*b_scale */
	RT_QGEMM_INPUTS,
};

/*
 * QConv: QLinearConv's input order; weights int8 symmetric (W_ZERO absent
 * or 0), bias int32 in units of x_scale * w_scale[m]. Attributes those of
 * Conv plus channels_last.
 */
enum rt_qconv_input {
	RT_QCONV_X = 0,
	RT_QCONV_X_SCALE,
	RT_QCONV_X_ZERO,
	RT_QCONV_W,
	RT_QCONV_W_SCALE,
	RT_QCONV_W_ZERO,
	RT_QCONV_Y_SCALE,
	RT_QCONV_Y_ZERO,
	RT_QCONV_BIAS,
	RT_QCONV_INPUTS,
};

/* QAdd / QMul: com.microsoft QLinearAdd's order. */
enum rt_qbinary_input {
	RT_QBINARY_A = 0,
	RT_QBINARY_A_SCALE,
	RT_QBINARY_A_ZERO,
	RT_QBINARY_B,
	RT_QBINARY_B_SCALE,
	RT_QBINARY_B_ZERO,
	RT_QBINARY_Y_SCALE,
	RT_QBINARY_Y_ZERO,
	RT_QBINARY_INPUTS,
};

/* QAveragePool / QGlobalAveragePool (QMaxPool has only X). */
enum rt_qpool_input {
	RT_QPOOL_X = 0,
	RT_QPOOL_X_SCALE,
	RT_QPOOL_X_ZERO,
	RT_QPOOL_Y_SCALE,
	RT_QPOOL_Y_ZERO,
	RT_QPOOL_INPUTS,
};

/*
 * com.microsoft QLinearConcat (what a QDQ Concat of differently quantized
 * inputs becomes): Y_scale, Y_zero_point, then per input X, X_scale,
 * X_zero_point; attribute axis (and channels_last).
 */
#define RT_QCONCAT_LINEAR_DOMAIN "com.microsoft"
#define RT_QCONCAT_LINEAR_OP "QLinearConcat"
enum rt_qconcat_linear_input {
	RT_QCONCAT_LINEAR_Y_SCALE = 0,
	RT_QCONCAT_LINEAR_Y_ZERO,
	RT_QCONCAT_LINEAR_FIRST,	/* X of the first input */
	RT_QCONCAT_LINEAR_STRIDE = 3,	/* inputs per concatenated tensor */
	RT_QCONCAT_LINEAR_MAX = 1024,	/* concatenated tensors */
};

/*
 * QResize: Q(Resize(DQ(x))) with linear interpolation of the two spatial
 * axes (ops/qresize.c); attributes coordinate_transformation_mode and
 * channels_last.
 */
#define RT_QRESIZE_OP "QResize"
enum rt_qresize_input {
	RT_QRESIZE_X = 0,
	RT_QRESIZE_X_SCALE,
	RT_QRESIZE_X_ZERO,
	RT_QRESIZE_Y_SCALE,
	RT_QRESIZE_Y_ZERO,
	RT_QRESIZE_SCALES,	/* Resize's constant [1, 1, sh, sw] */
	RT_QRESIZE_INPUTS,
};

/*
 * Spatial integer ops take the int attribute "channels_last": 0 (ONNX's
 * NCHW, the default) or 1 (NHWC in and out).
 */
#define RT_CHANNELS_LAST_ATTR "channels_last"

#endif /* ENPU_RT_ENPU_OPS_H */
