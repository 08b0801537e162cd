/* SPDX-License-Identifier: MIT */
/*
 * Builds small ONNX models in memory for the tests, through the same
 * generated protobuf-c code the loader uses, so tests can write exactly
 * the malformed thing they want to check.
 */
#ifndef ENPU_TEST_MODEL_BUILDER_H
#define ENPU_TEST_MODEL_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "onnx.pb-c.h"

#define MB_MAX_OPSETS 4

struct model_builder {
	struct rt_arena arena;
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset;
	Onnx__OperatorSetIdProto *opsets[MB_MAX_OPSETS];
};

void mb_init(struct model_builder *mb, int64_t opset);
void mb_free(struct model_builder *mb);
/* dims: -1 is a symbolic dimension named "N". */
void mb_input(struct model_builder *mb, const char *name, int32_t dtype,
	      int rank, const int64_t *dims);
void mb_output(struct model_builder *mb, const char *name);
void mb_output_typed(struct model_builder *mb, const char *name,
		     int32_t dtype, int rank, const int64_t *dims);
Onnx__TensorProto *mb_initializer(struct model_builder *mb, const char *name,
				  int32_t dtype, int rank, const int64_t *dims,
				  const void *data, size_t bytes);
/* inputs/outputs: comma-separated names ("" entries allowed). */
Onnx__NodeProto *mb_node(struct model_builder *mb, const char *op_type,
			 const char *inputs, const char *outputs);
/* An attribute of @type with no value yet, for the caller to fill in. */
Onnx__AttributeProto *mb_attr(struct model_builder *mb, Onnx__NodeProto *node,
			       const char *name,
			       Onnx__AttributeProto__AttributeType type);
void mb_attr_int(struct model_builder *mb, Onnx__NodeProto *node,
		 const char *name, int64_t value);
void mb_attr_float(struct model_builder *mb, Onnx__NodeProto *node,
		   const char *name, float value);
void mb_attr_string(struct model_builder *mb, Onnx__NodeProto *node,
		    const char *name, const char *value);
/* An empty body; fill it with the mb_graph_* calls below. */
Onnx__GraphProto *mb_attr_graph(struct model_builder *mb,
				Onnx__NodeProto *node, const char *name);
/* mb_input, mb_node and mb_output for a subgraph @g. */
void mb_graph_input(struct model_builder *mb, Onnx__GraphProto *g,
		    const char *name, int32_t dtype, int rank,
		    const int64_t *dims);
Onnx__NodeProto *mb_graph_node(struct model_builder *mb, Onnx__GraphProto *g,
			       const char *op_type, const char *inputs,
			       const char *outputs);
void mb_graph_output(struct model_builder *mb, Onnx__GraphProto *g,
		     const char *name);
void mb_attr_ints(struct model_builder *mb, Onnx__NodeProto *node,
		  const char *name, const int64_t *values, size_t count);
void mb_node_name(struct model_builder *mb, Onnx__NodeProto *node,
		  const char *name);
void mb_node_domain(struct model_builder *mb, Onnx__NodeProto *node,
		    const char *domain);
/* Another opset import (e.g. "com.microsoft", 1). */
void mb_import(struct model_builder *mb, const char *domain, int64_t version);
/* Serialized bytes in the builder's arena. */
uint8_t *mb_pack(struct model_builder *mb, size_t *size);

#endif /* ENPU_TEST_MODEL_BUILDER_H */
