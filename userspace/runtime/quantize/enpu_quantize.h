/* SPDX-License-Identifier: MIT */
/*
 * Post-training quantization: float ONNX model + calibration inputs ->
 * QDQ ONNX model (QuantizeLinear/DequantizeLinear around the quantizable
 * ops) that ONNX Runtime and other runtimes can run, and that the ENPU
 * runtime lowers to its integer form. docs/quantization.md, section
 * "Post-training quantization", describes the rules.
 *
 * Calibration directory: every subdirectory (sorted by name) is one
 * sample holding input_<i>.pb, serialized TensorProtos as in the ONNX test
 * data; i counts the model's bindable inputs in graph order, and a tensor
 * whose name matches an input binds to that input instead. A directory
 * that itself holds input_0.pb is a single sample.
 */
#ifndef ENPU_QUANTIZE_H
#define ENPU_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "enpu/enpu_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum enpu_quantize_method {
	ENPU_QUANTIZE_MINMAX = 0,	/* observed min and max */
	ENPU_QUANTIZE_PERCENTILE,	/* clip both tails at a percentile */
	ENPU_QUANTIZE_ENTROPY,		/* least KL divergence (histogram) */
	ENPU_QUANTIZE_MSE,		/* least quantization MSE (histogram) */
};

struct enpu_quantize_options {
	enum enpu_quantize_method method;
	double percentile;		/* in (50, 100]; default 99.99 */
	int per_channel;		/* 1 (default): weights per channel */
	int32_t activation_type;	/* ENPU_RT_UINT8 (default), INT8 */
	unsigned int threads;		/* runtime threads for calibration */
	/*
	 * Accuracy report: run the float and the int8 model on evaluation
	 * samples and fill the report's outputs[] and layers[]. The last
	 * @holdout samples (0: a quarter, at least one, when there are two
	 * or more) are kept out of calibration for it; with one sample the
	 * evaluation reuses it (report->held_out = 0).
	 */
	int evaluate;
	size_t holdout;
	/*
	 * Mixed precision: quantize, evaluate, then quantize again with
	 * the @keep_float layers that add the most error left in float
	 * (implies evaluate), plus any node named in float_nodes[].
	 */
	size_t keep_float;
	const char *const *float_nodes;
	size_t float_node_count;
};

/*
 * Float model against int8 model over the evaluation samples, one tensor:
 * a graph output, or a quantized layer's output activation (as the next
 * layer reads it, dequantized).
 */
struct enpu_quantize_accuracy {
	char *name;			/* output tensor; layer: node name */
	char *op;			/* layer: op type; output: NULL */
	double cosine;			/* over every element of every sample */
	double max_error;		/* largest |int8 - float| */
	double max_float;		/* largest |float|, for scale */
	/* Layers: (1 - cosine) minus the largest (1 - cosine) of its
	 * quantized inputs, the error this layer adds; outputs: 0. */
	double added;
	/* The part of it from the layer's quantized inputs and weights
	 * (its result before the output's Q/DQ): what keeping the layer in
	 * float removes, and how keep_float ranks layers. */
	double added_inside;
};

/* What happened; filled by every call, free with _report_free(). */
struct enpu_quantize_report {
	char error[4096];		/* why a call failed */
	char *notes;			/* lines: ops left in float, etc. */
	size_t notes_len;
	size_t samples;
	size_t quantized_nodes;		/* ops with QDQ around them */
	size_t float_nodes;		/* ops left in float */
	size_t folded_activations;	/* Relu/Clip folded into ranges */
	int64_t opset_in, opset_out;	/* default domain */
	/* options->evaluate: */
	size_t calibration_samples, evaluation_samples;
	int held_out;			/* evaluation samples not calibrated on */
	struct enpu_quantize_accuracy *outputs, *layers;
	size_t output_count, layer_count;	/* layers in graph order */
	/* options->keep_float: the output accuracy before it, and the nodes
	 * it left in float (names owned by the report). */
	struct enpu_quantize_accuracy *outputs_all_int8;
	size_t outputs_all_int8_count;
	char **kept_float;
	size_t kept_float_count;
};

void enpu_quantize_options_init(struct enpu_quantize_options *options);
void enpu_quantize_report_free(struct enpu_quantize_report *report);

/*
 * Quantizes the model in memory. External data of the input is resolved
 * against @base_dir (NULL refuses it); the output holds every tensor
 * inline. On success *out is malloc'd (caller frees).
 */
enum enpu_rt_status enpu_quantize_memory(
	const void *model, size_t size, const char *base_dir,
	const char *calib_dir, const struct enpu_quantize_options *options,
	void **out, size_t *out_size, struct enpu_quantize_report *report);

/* The same from and to files (external data next to @model_path). */
enum enpu_rt_status enpu_quantize_file(
	const char *model_path, const char *calib_dir, const char *out_path,
	const struct enpu_quantize_options *options,
	struct enpu_quantize_report *report);

#ifdef __cplusplus
}
#endif

#endif /* ENPU_QUANTIZE_H */
