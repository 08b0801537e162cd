/* SPDX-License-Identifier: MIT */
/*
 * ONNX ModelProto -> graph IR. The protobuf is parsed by protobuf-c code
 * generated at build time from Debian's onnx.proto; everything in it is
 * treated as hostile: sizes, dims, names, external data paths.
 */
#ifndef ENPU_RT_ONNX_LOADER_H
#define ENPU_RT_ONNX_LOADER_H

#include <stddef.h>

#include "ir.h"

/* Models, tensors and external data beyond these are refused. */
#define RT_ONNX_MAX_MODEL_BYTES ((size_t)2 << 30)
#define RT_ONNX_MAX_TENSOR_BYTES ((size_t)2 << 30)
#define RT_ONNX_MAX_CONSTANT_BYTES ((size_t)4 << 30)
/* Inputs, outputs and attributes of one node, each. */
#define RT_ONNX_MAX_NODE_FIELDS 4096
/* If/Loop/Scan bodies inside bodies: deeper nesting is refused. */
#define RT_ONNX_MAX_SUBGRAPH_DEPTH 16

/*
 * Fills an initialised, empty @graph from the serialized model. External
 * data files are looked up relative to @base_dir (NULL refuses them).
 * Returns 0 or an enum enpu_rt_status with graph->errors set; the graph
 * must be destroyed by the caller either way.
 */
int rt_onnx_load(struct rt_graph *graph, const void *data, size_t size,
		 const char *base_dir);

/* Reads a whole file (limit @max bytes) into malloc'd memory. */
int rt_read_file(const char *path, size_t max, void **data, size_t *size,
		 struct rt_error_sink *errors);

/*
 * Parses one serialized TensorProto (the .pb files of the ONNX test suite)
 * into @tensor, whose data and name live in @arena.
 */
int rt_onnx_parse_tensor(const void *data, size_t size, struct rt_arena *arena,
			 struct rt_tensor *tensor,
			 struct rt_error_sink *errors);

#endif /* ENPU_RT_ONNX_LOADER_H */
