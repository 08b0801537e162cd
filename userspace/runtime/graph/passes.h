/* SPDX-License-Identifier: MIT */
/*
 * The one integer form quantized matrix products are lowered to:
 * ai.enpu QGemm (opset 1), Y = requant((A - a_zp) x (B - b_zp) + bias),
 * inputs in this order (absent ones are -1):
 */
#ifndef ENPU_RT_QUANTIZED_H
#define ENPU_RT_QUANTIZED_H

#include "ir.h"

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

#define RT_QGEMM_DOMAIN "ai.enpu"
#define RT_QGEMM_OP "QGemm"

/* The domain of every op the runtime adds to a graph. */
#define RT_ENPU_DOMAIN "ai.enpu"

/*
 * Rewrites QLinearMatMul, MatMulInteger and QDQ MatMul into QGemm, then
 * calls rt_graph_lower_qdq_ops().
 */
int rt_graph_lower_quantized(struct rt_graph *graph);

/*
 * QDQ Conv/Gemm/Add/Mul/pools/Flatten/Reshape/Concat and QLinearConv to
 * the integer ops (lower_qdq.c).
 */
int rt_graph_lower_qdq_ops(struct rt_graph *graph);

/*
 * Keeps 8-bit activations NHWC between integer ops, transposing only at
 * the boundaries of the integer region (layout.c). Run after lowering.
 */
int rt_graph_layout_nhwc(struct rt_graph *graph);

/*
 * A first convolution of <= 4 channels fed by Quantize8 becomes
 * QuantizePatches + a 1x1 QConv (patches.c). Run after the layout pass.
 */
int rt_graph_first_layer_patches(struct rt_graph *graph);

/* Makes @node domain.op_type at opset 1 with its def; 1, or -1 + error. */
int rt_graph_retype(struct rt_graph *g, struct rt_node *node,
		    const char *domain, const char *op_type);

/* Helpers shared by the passes (optimize.c). */
const struct rt_tensor *rt_graph_constant(const struct rt_graph *g,
					  const struct rt_node *node,
					  size_t input);
int rt_graph_add_constant(struct rt_graph *g, const char *base,
			  const char *suffix, int32_t dtype, int32_t rank,
			  const int64_t *dims);

#endif /* ENPU_RT_QUANTIZED_H */
