/* SPDX-License-Identifier: MIT */
/*
 * Small float ONNX models, calibration sets and model inspection for the
 * quantizer tests, over the generated protobuf-c structs.
 */
#ifndef ENPU_QTEST_MODEL_H
#define ENPU_QTEST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "onnx.pb-c.h"

struct qt_model {
	struct rt_arena arena;
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset;
	Onnx__OperatorSetIdProto *opsets[1];
};

void qt_init(struct qt_model *m, int64_t opset);
void qt_free(struct qt_model *m);
void qt_input(struct qt_model *m, const char *name, int32_t dtype, int rank,
	      const int64_t *dims);
void qt_output(struct qt_model *m, const char *name);
void qt_init_float(struct qt_model *m, const char *name, int rank,
		   const int64_t *dims, const float *data);
/* inputs/outputs: comma-separated ("" entries allowed). */
Onnx__NodeProto *qt_node(struct qt_model *m, const char *op,
			 const char *inputs, const char *outputs);
void qt_attr_int(struct qt_model *m, Onnx__NodeProto *n, const char *name,
		 int64_t v);
void qt_attr_ints(struct qt_model *m, Onnx__NodeProto *n, const char *name,
		  const int64_t *v, size_t count);
/* 0 on success. */
int qt_save(struct qt_model *m, const char *path);
/* Saves x[xd] -> MatMul(w[wd]) -> y (or -> MatMul -> @extra -> y). */
int qt_save_matmul(const char *path, int64_t opset, const int64_t *xd,
		   const int64_t *wd, const float *w, const char *extra);

/* Writes a float TensorProto file. */
int qt_write_tensor(const char *path, const char *name, int rank,
		    const int64_t *dims, const float *data);

/* Inspection of a saved model (unpacked; free with the protobuf-c call). */
Onnx__ModelProto *qt_load(const char *path);
const Onnx__NodeProto *qt_producer(const Onnx__GraphProto *g,
				   const char *name);
const Onnx__NodeProto *qt_find_op(const Onnx__GraphProto *g, const char *op,
				  int nth);
int qt_count_op(const Onnx__GraphProto *g, const char *op);
const Onnx__TensorProto *qt_initializer(const Onnx__GraphProto *g,
					const char *name);
int64_t qt_node_int(const Onnx__NodeProto *n, const char *name,
		    int64_t fallback);

#endif /* ENPU_QTEST_MODEL_H */
