/* SPDX-License-Identifier: MIT */
/*
 * A straight-loop interpreter of the quantized graphs the tests build,
 * independent of the runtime: what "the float path on the dequantized
 * graph" computes, with ONNX's reference arithmetic (DequantizeLinear in
 * float, float Conv/Gemm/pools, QuantizeLinear as rint(x / scale) + zp,
 * ties to even, saturated). Knows the ops of tests/rt's QDQ models:
 * QuantizeLinear, DequantizeLinear, Conv (2-D, groups, pads, strides),
 * Gemm (transB, bias), Add, Mul (same shapes or a scalar), Relu, Clip,
 * MaxPool, AveragePool (2-D), GlobalAveragePool, Flatten, Concat (axis 1).
 * Tensors are rank <= 4. Aborts on anything else: tests only.
 */
#ifndef ENPU_TEST_QDQ_REFERENCE_H
#define ENPU_TEST_QDQ_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "model_builder.h"

/*
 * Runs @mb's graph on one input (dtype ONNX numbering: float, uint8 or
 * int8; data in that type) and writes the first graph output, converted
 * to double, into @out (@count elements expected). Returns 0, or -1 when
 * the output size differs.
 */
int qdq_reference_run(const struct model_builder *mb, int32_t input_dtype,
		      const int64_t *dims, int rank, const void *input,
		      double *out, size_t count);

#endif /* ENPU_TEST_QDQ_REFERENCE_H */
