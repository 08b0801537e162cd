/* SPDX-License-Identifier: MIT */
/*
 * The vocabulary every part of the runtime shares: tensors, attributes,
 * fused activations and error messages. The graph IR, the op interface
 * (ops/rt_op.h) and the backends all include this header and nothing of
 * each other's, so the IR knows no kernel and ops know no graph.
 */
#ifndef ENPU_RT_TYPES_H
#define ENPU_RT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "enpu/enpu_rt.h"

#define RT_MAX_RANK ENPU_RT_MAX_RANK

/*
 * A tensor. dtype uses ONNX TensorProto.DataType numbering
 * (enum enpu_rt_dtype). rank -1 means unknown (only outside infer/run).
 * Data is dense, row-major, little-endian host order; bool is one byte.
 */
struct rt_tensor {
	const char *name;
	int32_t dtype;
	int32_t rank;
	int64_t dims[RT_MAX_RANK];
	void *data;		/* NULL: values not known (yet) */
	size_t byte_size;
};

/* ONNX AttributeProto.AttributeType numbering. */
enum rt_attr_type {
	RT_ATTR_UNDEFINED = 0,
	RT_ATTR_FLOAT = 1,
	RT_ATTR_INT = 2,
	RT_ATTR_STRING = 3,
	RT_ATTR_TENSOR = 4,
	RT_ATTR_GRAPH = 5,
	RT_ATTR_FLOATS = 6,
	RT_ATTR_INTS = 7,
	RT_ATTR_STRINGS = 8,
	/* A TypeProto (Optional's 'type'): i holds the enum enpu_rt_dtype
	 * of the tensor type, or ENPU_RT_SEQUENCE / ENPU_RT_OPTIONAL. */
	RT_ATTR_TYPE_PROTO = 13,
};

struct rt_attr {
	const char *name;
	enum rt_attr_type type;
	float f;
	int64_t i;
	const char *s;		/* NUL-terminated copy; s_len excludes NUL */
	size_t s_len;
	const struct rt_tensor *t;
	const float *floats;
	const int64_t *ints;
	const char *const *strings;
	size_t count;		/* elements of floats/ints/strings */
	/* RT_ATTR_GRAPH: the loaded subgraph (a struct rt_graph of graph/,
	 * opaque to ops: they run it through k->subgraphs, rt_op.h). */
	const void *graph;
};

/* The attribute called @name among @count, or NULL. */
const struct rt_attr *rt_attrs_find(const struct rt_attr *attrs, size_t count,
				    const char *name);
/* Domains compare with "" and "ai.onnx" (the default domain) equal. */
int rt_domain_equal(const char *a, const char *b);

/*
 * Activation fused into a producer by a graph pass. Ops whose def sets
 * RT_OP_FUSES_ACTIVATION apply it to each output element after
 * everything else (bias included); the integer ops turn it into their
 * output clamp:
 *   RT_ACTIVATION_RELU: x < 0 ? 0 : x (NaN stays NaN, as in ONNX Relu)
 *   RT_ACTIVATION_CLIP: min(max(x, min), max)
 */
enum rt_activation_kind {
	RT_ACTIVATION_NONE = 0,
	RT_ACTIVATION_RELU,
	RT_ACTIVATION_CLIP,
};

struct rt_activation {
	enum rt_activation_kind kind;
	float min;
	float max;
};

/* A message buffer owned by a session (or a test). */
struct rt_error_sink {
	char message[4096];
	int status;
};

/* Records "node 'name' (op): reason" style messages; returns @status. */
int rt_error_set(struct rt_error_sink *sink, int status, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

/* Tensor helpers that need no op context (common/rt_types.c). */
size_t rt_dtype_size(int32_t dtype);
const char *rt_dtype_name(int32_t dtype);
/* Product of dims; 0 on overflow past SIZE_MAX/16 or negative dims. */
size_t rt_tensor_elements(const struct rt_tensor *t);
/*
 * What shape inference produced is usable: a known type with a size,
 * rank 0..RT_MAX_RANK, byte_size = elements * element size.
 */
int rt_tensor_consistent(const struct rt_tensor *t);
/* "[2,3,4]" into buf. */
const char *rt_shape_string(const struct rt_tensor *t, char *buf,
			    size_t size);

#endif /* ENPU_RT_TYPES_H */
