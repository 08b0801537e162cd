/* SPDX-License-Identifier: MIT */
/*
 * A MobileNetV2-shaped int8 QDQ model with deterministic random weights,
 * written the way ONNX Runtime's static quantizer writes models, so other
 * runtimes run it through their own quantized kernels:
 *   input float [1, 3, H, W] -> QuantizeLinear (uint8)
 *   every conv: DequantizeLinear(x) -> Conv(DequantizeLinear(W int8,
 *     per-output-channel scales, zero point 0), DequantizeLinear(b int32,
 *     scale x_scale * w_scale)) -> [Clip(0, 6)] -> QuantizeLinear (uint8)
 *   residual: QuantizeLinear(Add(DequantizeLinear(a), DequantizeLinear(b)))
 *   head: GlobalAveragePool, Flatten (same scale), Gemm (transB, int32
 *     bias), DequantizeLinear -> output "logits" float [1, classes]
 * One DequantizeLinear per consumer. Structure: 3x3/2 conv to 32, the
 * inverted residual blocks (t, c, n, s) = (1,16,1,1) (6,24,2,2)
 * (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1) with channels
 * scaled by @width (rounded to multiples of 8), 1x1 conv to @last_channels,
 * global average pool, fully connected to @classes.
 * The Clip's Q has scale 6/255 (rounded down) and zero point 0, so the
 * clip is exactly the quantizer's saturation and runtimes may drop it.
 */
#ifndef ENPU_TEST_MOBILENET_MODEL_H
#define ENPU_TEST_MOBILENET_MODEL_H

#include "model_builder.h"

struct mobilenet_config {
	int64_t size;		/* input height = width, e.g. 224 */
	double width;		/* channel multiplier, e.g. 1.0 */
	int64_t last_channels;	/* 1280 */
	int64_t classes;	/* 1000 */
	uint32_t seed;
	/* 1: the input is already uint8 (scale 1/127, zero point 128, a
	 * camera frame's bytes): no QuantizeLinear in front. */
	int uint8_input;
};

/* Adds the whole model to @mb (created with mb_init(mb, 13)). */
void mobilenet_build(struct model_builder *mb,
		     const struct mobilenet_config *config);

/* The scale of the int8 logits before the final DequantizeLinear. */
float mobilenet_output_scale(void);

/* The input tensor the tests and benchmarks feed: values in [-1, 1]. */
void mobilenet_input(float *data, size_t count, uint32_t seed);

#endif /* ENPU_TEST_MOBILENET_MODEL_H */
