/* SPDX-License-Identifier: MIT */
/*
 * The three float models of the end-to-end CPU benchmark (make bench-cpu),
 * deterministic from @seed:
 *  - float_mobilenet_build(): MobileNetV2-shaped, [1, 3, size, size] in,
 *    3x3/2 conv to 32, the seven inverted-residual stages (1x1 expand +
 *    Clip(0,6), 3x3 depthwise + Clip, 1x1 project, residual Add), 1x1 to
 *    1280, GlobalAveragePool, Flatten, Gemm to 1000 logits (opset 13);
 *  - float_transformer_build(): a small encoder, int64 tokens [1, seq] ->
 *    Gather embedding (4096 x 256) + learned positions, @layers layers of
 *    LayerNormalization, Q/K/V MatMul + Add, 4 heads (Reshape,
 *    Transpose), MatMul, Mul by 1/sqrt(64), Softmax, MatMul, output
 *    projection, residual Add, LayerNormalization, MatMul 256->1024,
 *    Gelu, MatMul 1024->256, residual Add; final LayerNormalization
 *    (opset 20 for Gelu);
 *  - float_unet_build(): U-Net-shaped, [1, 3, size, size] -> three
 *    encoder stages (two 3x3 Conv + Relu, MaxPool 2x2) of 16, 32, 64
 *    channels, a 128-channel bottleneck, decoder stages upsampling by
 *    ConvTranspose 2x2/2 (the two deeper ones) and Resize linear x2 +
 *    1x1 Conv (the last), each concatenated with its skip, two 3x3 Conv +
 *    Relu; 1x1 Conv to one channel and Sigmoid (opset 13).
 * Build each into a builder made with mb_init(mb, opset) as above.
 */
#ifndef ENPU_BENCH_FLOAT_MODELS_H
#define ENPU_BENCH_FLOAT_MODELS_H

#include "model_builder.h"

void float_mobilenet_build(struct model_builder *mb, int64_t size,
			   uint32_t seed);
void float_transformer_build(struct model_builder *mb, int64_t seq,
			     int64_t layers, uint32_t seed);
void float_unet_build(struct model_builder *mb, int64_t size, uint32_t seed);

#endif /* ENPU_BENCH_FLOAT_MODELS_H */
