/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for a third-party inference runtime: the smallest thing that
 * has what TFLite and ONNX Runtime have — a graph of quantized int8 nodes
 * over tensors with float scales, reference CPU kernels for every node,
 * and a delegate interface through which an accelerator takes the nodes
 * it can run (claim), turns them into its own program (compile) and runs
 * that (run). It knows nothing of ENPU; enpu_delegate.c is the adapter.
 */
#ifndef TOY_RUNTIME_H
#define TOY_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#define TOY_MAX_TENSORS 32
#define TOY_MAX_NODES 16
#define TOY_MAX_INPUTS 3

/* An int8 NHWC tensor (weights: OIHW int8, bias: int32, as in TFLite). */
enum toy_type { TOY_INT8, TOY_INT32 };

struct toy_tensor {
	enum toy_type type;
	uint32_t shape[4];	/* N, H, W, C; weights O, I, H, W */
	float scale;
	int32_t zero_point;
	void *data;		/* owned by the graph; constants are filled */
	int constant;
};

enum toy_op {
	TOY_OP_CONV2D,		/* inputs: x, weights, bias */
	TOY_OP_FULLY_CONNECTED,	/* x: M pixels of K, weights [N,K,1,1], bias */
	TOY_OP_ADD,		/* inputs: a, b (same shape) */
	TOY_OP_SOFTMAX,		/* float math: never an accelerator's here */
};

struct toy_node {
	enum toy_op op;
	int inputs[TOY_MAX_INPUTS];
	int output;
	uint32_t stride, pad;	/* CONV2D, square */
	int relu;		/* fused activation: clamp at the zero point */
	int delegated;		/* set by the runtime: a delegate runs it */
};

struct toy_graph {
	size_t tensor_count, node_count;
	struct toy_tensor tensors[TOY_MAX_TENSORS];
	struct toy_node nodes[TOY_MAX_NODES];
};

/*
 * The delegate interface (TfLiteDelegate / an ORT execution provider in
 * miniature). Every function returns 0 or a negative errno.
 *  claim:   may the delegate run node? If not, *reason says why.
 *  compile: the claimed nodes (indices, in graph order, forming one
 *           partition) become *kernel.
 *  run:     runs a compiled kernel: reads its input tensors' data, writes
 *           its output tensors' data.
 */
struct toy_delegate {
	void *state;
	int (*claim)(void *state, const struct toy_graph *graph,
		     const struct toy_node *node, const char **reason);
	int (*compile)(void *state, const struct toy_graph *graph,
		       const int *nodes, size_t count, void **kernel);
	int (*run)(void *kernel, struct toy_graph *graph);
	void (*release)(void *kernel);
};

/* Output element count of a tensor. */
size_t toy_tensor_elements(const struct toy_tensor *tensor);

/*
 * The runtime's own int8 requantization: real = in * weight / out scale
 * as M * 2^-S (M in [2^30, 2^31), S its shift) and round half up; the
 * delegate must match it bit for bit. -ERANGE if not representable with
 * 31 <= S <= 62.
 */
int toy_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift);

/* Runs one node with the runtime's reference CPU kernels. */
int toy_run_node_cpu(struct toy_graph *graph, const struct toy_node *node);

/*
 * Runs the graph: with delegate NULL, every node on the CPU; else the
 * nodes the delegate claims, in maximal runs of consecutive nodes, go
 * through compile and run, the rest to the CPU. *delegated (may be NULL)
 * counts the nodes the delegate ran; reasons for refusals are printed to
 * stderr when verbose.
 */
int toy_graph_run(struct toy_graph *graph, const struct toy_delegate *delegate,
		  int verbose, size_t *delegated);

#endif /* TOY_RUNTIME_H */
