/* SPDX-License-Identifier: MIT */
/*
 * Shared between the quantizer's files. The model stays a protobuf-c
 * ModelProto the whole way (unpacked once, never modified): the index
 * below describes it, calibration packs a copy with more graph outputs,
 * and the writer packs a new GraphProto that borrows every unchanged
 * message from the original and takes new ones from the arena.
 */
#ifndef ENPU_QUANTIZE_INTERNAL_H
#define ENPU_QUANTIZE_INTERNAL_H

#include <stdint.h>

#include "arena.h"
#include "enpu_quantize.h"
#include "ir.h"
#include "onnx.pb-c.h"

/* One value name of the graph. */
struct q_tensor {
	const char *name;
	int producer;		/* node index; -1 for inputs and initializers */
	int graph_input;	/* bound by the caller */
	int graph_output;
	int initializer;	/* index in graph->initializer, -1 */
	int constant_node;	/* Constant node holding the value, -1 */
	int constant;		/* known without any input */
	int consumers;
	int32_t dtype;		/* seen at calibration, 0 unknown */

	/* Calibration. */
	int wanted;		/* an activation some quantized op touches */
	int seen;
	double min, max;	/* finite values only */
	uint64_t *hist;		/* histogram methods: bins over [min, max] */

	/* Quantization parameters of an activation. */
	int quantized;
	int share_from;		/* MaxPool output: input's tensor, else -1 */
	float scale;
	int32_t zero_point;
	const char *write_name;	/* what the producer writes */
	const char *read_name;	/* what consumers read (the DQ output) */
};

enum q_input_role {
	Q_IN_NONE = 0,		/* left as it is (float or not a tensor) */
	Q_IN_ACTIVATION,	/* Q/DQ from calibration statistics */
	Q_IN_WEIGHT,		/* constant: symmetric int8, maybe per channel */
	Q_IN_CONST_ACT,		/* constant: asymmetric like an activation */
	Q_IN_BIAS,		/* constant: int32, input scale * weight scale */
};

#define Q_MAX_NODE_INPUTS 64

struct q_node {
	int candidate;		/* a quantizable op we could handle */
	int quantize;
	int folded_into;	/* Relu/Clip folded: that producer, else -1 */
	int folded_act;		/* producer: the folded Relu/Clip, else -1 */
	int weight_axis;	/* per-channel axis of the weight input */
	int bias_input;		/* index of the bias input, -1 */
	int weight_input;	/* index of the weight paired with the bias */
	int act_input;		/* index of the activation paired with it */
	enum q_input_role roles[Q_MAX_NODE_INPUTS];
	const char *reason;	/* why it stays float */
};

struct q_name_map {
	const char **keys;
	int *values;
	size_t capacity, count;
};

struct q_model {
	struct rt_arena arena;
	struct rt_error_sink errors;
	Onnx__ModelProto *model;
	Onnx__GraphProto *graph;
	const char *base_dir;
	int64_t opset;		/* default domain import */
	int64_t out_opset;
	int per_channel;	/* options', unless the opset forbids it */
	struct q_tensor *tensors;
	size_t tensor_count, tensor_capacity;
	struct q_name_map tensor_map;	/* name -> tensor index */
	struct q_name_map used_names;	/* every name, for unique new ones */
	struct q_node *nodes;
	const struct enpu_quantize_options *options;
	struct enpu_quantize_report *report;
	const char *const *forced;	/* node names kept in float */
	size_t forced_count;
};

/* model_index.c */
/* Keys are not copied; -1 when absent. */
int q_map_get(const struct q_name_map *map, const char *key);
int q_map_put(struct q_model *m, struct q_name_map *map, const char *key,
	      int value);
int q_index_model(struct q_model *m);
int q_find_tensor(const struct q_model *m, const char *name);
/* A name not used anywhere in the model yet ("<base>", "<base>_1", ...). */
const char *q_unique_name(struct q_model *m, const char *base,
			  const char *suffix);
int q_fail(struct q_model *m, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void q_note(struct q_model *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The float values of a constant (initializer or Constant node). */
int q_constant_value(struct q_model *m, int tensor, struct rt_tensor *out);
/* The first attribute called @name, or NULL. */
const Onnx__AttributeProto *q_attr(const Onnx__NodeProto *node,
				   const char *name);
int64_t q_attr_int(const Onnx__NodeProto *node, const char *name,
		   int64_t fallback);
float q_attr_float(const Onnx__NodeProto *node, const char *name,
		   float fallback);
const char *q_node_label(const Onnx__NodeProto *node);

/* plan.c */
int q_check_opset(struct q_model *m);
int q_plan_candidates(struct q_model *m);
/* After calibration: drop ops touching non-float tensors, fold, mark. */
int q_plan_finish(struct q_model *m);

/* calib_data.c */
struct q_sample_list {
	char **dirs;
	size_t count;
};
int q_list_samples(struct q_model *m, const char *calib_dir,
		   struct q_sample_list *list);
void q_free_samples(struct q_sample_list *list);

/* calibrate.c */
#define Q_HIST_BINS 4096
int q_calibrate(struct q_model *m, const struct q_sample_list *samples);
/* Binds one sample's inputs to @session; the tensors live in @arena,
 * bound[] has one slot per session input. */
int q_bind_sample(struct q_model *m, enpu_rt_session *session,
		  const char *dir, struct rt_arena *arena,
		  struct rt_tensor *bound);
/* Range [lo, hi] of a tensor by the configured method. */
void q_tensor_range(const struct q_model *m, const struct q_tensor *t,
		    double *lo, double *hi);

/* evaluate.c: float vs int8 (@qdq) on @samples into the report. */
int q_evaluate(struct q_model *m, const void *qdq, size_t qdq_size,
	       const struct q_sample_list *samples);
void q_free_accuracy(struct enpu_quantize_accuracy *a, size_t count);

/* qdq_writer.c */
/* The activation type's integer range; the one parameter and rounding rule. */
void q_act_range(int32_t type, int32_t *lo, int32_t *hi);
void q_asymmetric_params(double lo, double hi, int32_t type,
			 float *scale, int32_t *zero_point);
int32_t q_quantize_one(float x, float scale, int32_t zero_point,
		       int32_t lo, int32_t hi);
int q_compute_params(struct q_model *m);
int q_write_model(struct q_model *m, void **out, size_t *out_size);

#endif /* ENPU_QUANTIZE_INTERNAL_H */
