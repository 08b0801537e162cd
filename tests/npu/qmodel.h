/* SPDX-License-Identifier: MIT */
/*
 * Small QDQ models for the NPU tests, written the way ONNX Runtime's
 * static quantizer writes them (one DequantizeLinear per consumer, int8
 * symmetric per-channel weights, int32 biases): each helper takes
 * quantized activations (uint8 with scale and zero point) and returns the
 * next one. Weights come from a seeded generator; output scales are rough
 * estimates of the real range, so values use the 8 bits without being
 * exact.
 */
#ifndef ENPU_TEST_QMODEL_H
#define ENPU_TEST_QMODEL_H

#include "model_builder.h"

struct qm {
	struct model_builder mb;
	uint64_t rng;
	int next;
};

struct qv {
	char name[32];
	float scale;
	uint8_t zero;
	int rank;
	int64_t dims[4];
};

enum qm_act { QM_NONE, QM_RELU, QM_RELU6 };

void qm_init(struct qm *m, uint32_t seed);
void qm_free(struct qm *m);
/* A uint8 graph input, or a float one quantized by QuantizeLinear. */
struct qv qm_input_u8(struct qm *m, const char *name, int rank,
		      const int64_t *dims);
struct qv qm_input_float(struct qm *m, const char *name, int rank,
			 const int64_t *dims);
/* Conv k x k; pads top, left, bottom, right; dilation; group. */
struct qv qm_conv(struct qm *m, const struct qv *x, int64_t cout, int64_t k,
		  int64_t stride, const int64_t pads[4], int64_t dilation,
		  int64_t group, enum qm_act act, int per_channel);
struct qv qm_add(struct qm *m, const struct qv *a, const struct qv *b,
		 enum qm_act act);
struct qv qm_mul(struct qm *m, const struct qv *a, const struct qv *b);
/* A constant operand of shape @dims (rank @rank) for Add/Mul. */
struct qv qm_const(struct qm *m, int rank, const int64_t *dims);
struct qv qm_maxpool(struct qm *m, const struct qv *x, int64_t k,
		     int64_t stride, int64_t pad, int ceil_mode);
struct qv qm_avgpool(struct qm *m, const struct qv *x, int64_t k,
		     int64_t stride, int64_t pad, int count_include_pad);
struct qv qm_global_avgpool(struct qm *m, const struct qv *x);
struct qv qm_flatten(struct qm *m, const struct qv *x);
/* Gemm with transB, per-channel weights; x is [M, K]. */
struct qv qm_gemm(struct qm *m, const struct qv *x, int64_t n);
struct qv qm_concat(struct qm *m, const struct qv *a, const struct qv *b);
/* DQ -> @op (a float unary op) -> Q: a CPU island. */
struct qv qm_float_op(struct qm *m, const struct qv *x, const char *op);
/* The graph output: the uint8 tensor itself, or DequantizeLinear'd. */
void qm_output(struct qm *m, const struct qv *x, int dequantize);
/* DequantizeLinear of @x, float @op on it, its float output the model's. */
void qm_float_output(struct qm *m, const struct qv *x, const char *op);

#endif /* ENPU_TEST_QMODEL_H */
