/* SPDX-License-Identifier: MIT */
/*
 * Graph passes: rewrites of the IR that every backend sees (they run
 * before placement). Each pass is one function over the whole graph,
 * built on the helpers of rewrite.h; none calls another. The order is the
 * pass table's (struct rt_pass), which the engine runs (engine/pipeline.c)
 * interleaved with its own passes (binding, shape inference, constant
 * folding). Backend-specific lowering (NHWC layout, first-layer patches,
 * bias/activation fusion for the CPU kernels) lives with each backend.
 */
#ifndef ENPU_RT_PASSES_H
#define ENPU_RT_PASSES_H

#include "ir.h"
#include "rt_enpu_ops.h"

/* One entry of a pass table. @run returns 0 or a status (error set). */
struct rt_pass {
	const char *name;
	int (*run)(struct rt_graph *graph);
};

/* Runs @count passes in order; stops at the first failure. */
int rt_passes_run(struct rt_graph *graph, const struct rt_pass *passes,
		  size_t count);

/* Conv + BatchNormalization folded into the Conv (pass_batchnorm.c). */
int rt_pass_fold_batchnorm(struct rt_graph *graph);

/*
 * QLinearMatMul, MatMulInteger and QDQ MatMul to ai.enpu QGemm
 * (pass_qgemm.c).
 */
int rt_pass_lower_qgemm(struct rt_graph *graph);

/*
 * QDQ Conv/Gemm/Add/Mul/pools/Flatten/Reshape/Concat, QLinearConv and the
 * quantization of float inputs to the integer ops (pass_qdq.c).
 */
int rt_pass_lower_qdq(struct rt_graph *graph);

/* DequantizeLinear nodes nobody reads any more (pass_qdq.c). */
int rt_pass_drop_dead_dequantize(struct rt_graph *graph);

#endif /* ENPU_RT_PASSES_H */
