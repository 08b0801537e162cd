/* SPDX-License-Identifier: MIT */
/*
 * The op interface: what an operator implementation sees of the runtime.
 *
 * An op family file (ops/<family>.c) defines one array of struct rt_op_def
 * ending in an all-zero entry, named rt_ops_<family>, and adds one line
 * RT_OP_FAMILY(<family>) to ops/op_families.h. Nothing else registers ops.
 *
 * Life of a node, all callbacks on the same struct rt_kernel:
 *   1. load: the graph finds the def whose (domain, op_type) matches and
 *      whose [opset_min, opset_max] contains the model's opset import for
 *      that domain. No def -> "unsupported op".
 *   2. infer(): whenever the shapes of all present inputs are known. At load
 *      for static graphs (inputs holding data only when they are constant),
 *      and again at run time when the bound input shapes differ from the
 *      last run (then every input holds data). Sets each present output's
 *      dtype, rank and dims; rejects types and attributes it does not
 *      handle. If the output shape depends on an input's values and
 *      in[i]->data is NULL, return RT_OP_NEEDS_VALUES: the executor then
 *      infers this node again just before running it.
 *   3. prepare() (optional): once at load, after the first infer(), with the
 *      data of constant inputs (initializers, folded constants) and NULL
 *      data for the others; ranks may be unknown (-1) for non-constant
 *      inputs. Packs weights, allocates state into k->state.
 *   4. run(): outputs already have the shape infer() gave and a buffer of
 *      byte_size bytes (not zeroed). May run many times; must not write its
 *      inputs; must not keep pointers to input/output data across runs.
 *      Nodes whose inputs are all constant are run once at load (constant
 *      folding) and never again.
 *   5. release() (optional): frees k->state. Called once, also after a
 *      failed prepare().
 *
 * Errors: return rt_op_error(k, status, fmt, ...), which records
 * "node 'NAME' (OpType): reason" in the session and returns @status
 * (a positive enum enpu_rt_status). Never abort or crash on bad models.
 */
#ifndef ENPU_RT_OP_H
#define ENPU_RT_OP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "enpu_cpu.h"
#include "rt_types.h"

/* infer() cannot compute output shapes before some input's values exist. */
#define RT_OP_NEEDS_VALUES (-1)

struct rt_kernel;

/*
 * Subgraphs (the RT_ATTR_GRAPH attributes of If, Loop, Scan,
 * SequenceMap), run through the executor's table in k->subgraphs; the
 * graph itself is opaque to ops. An instance is made once (in prepare(),
 * or for a one-off in infer()) and run many times; each run takes the
 * formal inputs in order and the node's implicit inputs (the last
 * k->implicit_inputs of in[], which the subgraph reads from outer
 * scopes), infers and runs the body and returns its outputs as views
 * valid until the next run or destroy. Formal inputs may be any shape
 * and type the body accepts; their data must stay valid during the run.
 */
struct rt_subgraph_ops {
	int (*create)(struct rt_kernel *k, const void *graph, void **instance);
	size_t (*input_count)(const void *instance);	/* formal ones */
	size_t (*output_count)(const void *instance);
	/* Declared type of output @i (0: not declared). */
	int32_t (*output_dtype)(const void *instance, size_t i);
	int (*run)(struct rt_kernel *k, void *instance,
		   const struct rt_tensor *const *inputs, size_t n_inputs,
		   const struct rt_tensor *const *outer, size_t n_outer,
		   const struct rt_tensor **outputs, size_t n_outputs);
	void (*destroy)(void *instance);
};

/* Per-node view handed to every callback. */
struct rt_kernel {
	const char *name;	/* node name, or "#<index>" when unnamed */
	const char *op_type;
	const char *domain;	/* "" for the default ONNX domain */
	int64_t opset;		/* model's opset import for this domain */
	struct rt_activation activation;
	/*
	 * Set by the optimizer on ops with RT_OP_FUSES_BIAS: the last input
	 * (index input_count - 1) is a bias of N elements added along the
	 * output's last axis (for MatMul/Gemm-like ops) or channel axis (for
	 * Conv-like ops), beyond the inputs ONNX defines.
	 */
	int has_fused_bias;
	enpu_cpu_context *cpu;	/* shared: thread pool and ISA */
	void *state;		/* the op's own, from prepare() */
	/* The node's attributes; read them with rt_attr_*() below. */
	const struct rt_attr *attrs;
	size_t attr_count;
	struct rt_error_sink *errors;	/* where rt_op_error() writes */
	/* Ops with subgraphs: in[] ends with this many outer-scope values
	 * (not counted by the def's input bounds), and the executor's
	 * table to run the subgraphs with. */
	size_t implicit_inputs;
	const struct rt_subgraph_ops *subgraphs;
};

typedef int (*rt_op_infer_fn)(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out);
typedef int (*rt_op_prepare_fn)(struct rt_kernel *k,
				const struct rt_tensor *const *in,
				size_t n_in);
typedef int (*rt_op_run_fn)(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out);
typedef void (*rt_op_release_fn)(struct rt_kernel *k);

/* def flags */
#define RT_OP_FUSES_ACTIVATION	(1u << 0)	/* honours k->activation */
#define RT_OP_FUSES_BIAS	(1u << 1)	/* honours k->has_fused_bias */

/*
 * In the in/out arrays an absent optional input or output (empty name in
 * the model, or beyond the node's count) is NULL. n_in/n_out are the
 * node's counts; the def bounds them.
 */
struct rt_op_def {
	const char *op_type;
	const char *domain;	/* "" = ai.onnx, "com.microsoft", "ai.enpu" */
	int opset_min;		/* inclusive range of the domain's opset */
	int opset_max;
	int min_inputs;
	int max_inputs;
	int min_outputs;
	int max_outputs;
	unsigned int flags;
	rt_op_infer_fn infer;		/* required */
	rt_op_prepare_fn prepare;	/* optional */
	rt_op_run_fn run;		/* required */
	rt_op_release_fn release;	/* optional */
};

/* Registry (ops/registry.c). */
const struct rt_op_def *rt_op_find(const char *domain, const char *op_type,
				   int64_t opset);
/* 1 when some def exists for (domain, op_type) at any opset. */
int rt_op_known(const char *domain, const char *op_type);
/* Iterates all defs: index 0.. until NULL. */
const struct rt_op_def *rt_op_at(size_t index);

/* Errors (ops/attr.c). Returns @status so callers can `return rt_op_error(...)`. */
int rt_op_error(struct rt_kernel *k, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Attributes (ops/attr.c). NULL / default when absent. */
const struct rt_attr *rt_attr_find(const struct rt_kernel *k,
				   const char *name);
/*
 * Typed getters: return 0 and fill *value (the default when the attribute
 * is absent), or a status via rt_op_error() when present with another type.
 */
int rt_attr_int(struct rt_kernel *k, const char *name, int64_t fallback,
		int64_t *value);
int rt_attr_float(struct rt_kernel *k, const char *name, float fallback,
		  float *value);
int rt_attr_string(struct rt_kernel *k, const char *name,
		   const char *fallback, const char **value);
/* *values NULL and *count 0 when absent. */
int rt_attr_ints(struct rt_kernel *k, const char *name,
		 const int64_t **values, size_t *count);
int rt_attr_floats(struct rt_kernel *k, const char *name,
		   const float **values, size_t *count);
int rt_attr_tensor(struct rt_kernel *k, const char *name,
		   const struct rt_tensor **value);

/* Tensor helpers (ops/tensor.c; the context-free ones are in rt_types.h). */
/* Sets t->rank/dims and t->dtype; byte_size = elements * dtype size. */
int rt_tensor_set_shape(struct rt_kernel *k, struct rt_tensor *t,
			int32_t dtype, int32_t rank, const int64_t *dims);
/*
 * Reads an int64 or int32 tensor with data into values[0..count); errors
 * (through k) if the type is not integer or it has more than max elements.
 */
int rt_tensor_read_ints(struct rt_kernel *k, const struct rt_tensor *t,
			size_t max, int64_t *values, size_t *count);
/* Value of element @i converted to double, for any numeric dtype. */
double rt_tensor_get_double(const struct rt_tensor *t, size_t i);
/*
 * Stores @v into element @i: C conversion for floats (float16/bfloat16
 * round to nearest even); integers truncate toward zero, NaN and values
 * outside int64 saturate, then wrap to the type's width (never undefined).
 */
void rt_tensor_set_double(struct rt_tensor *t, size_t i, double v);
/* Integers: round half to even and saturate (NaN -> 0); floats as above. */
void rt_tensor_set_rounded(struct rt_tensor *t, size_t i, double v);
/* Element @i of an integer or bool tensor, exact (floats truncate). */
int64_t rt_tensor_get_int(const struct rt_tensor *t, size_t i);
int rt_dtype_is_integer(int32_t dtype);	/* int8..uint64, not bool */
int rt_dtype_is_float(int32_t dtype);	/* float, double, float16, bf16 */
/* Maps @axis in [-rank, rank) to [0, rank); errors name the axis. */
int rt_axis(struct rt_kernel *k, int64_t axis, int32_t rank, int64_t *out);
/* Row-major element strides of @t's dims. */
void rt_contiguous_strides(const struct rt_tensor *t, int64_t *strides);
/* Requires exactly @dtype; message names the input index and both types. */
int rt_expect_dtype(struct rt_kernel *k, const struct rt_tensor *t,
		    int input_index, int32_t dtype);

/*
 * Multidirectional (numpy) broadcasting: output shape of @n inputs into
 * *out (rank and dims only). Errors name the incompatible shapes.
 */
int rt_broadcast_shape(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n, struct rt_tensor *out);
/*
 * Element strides of @in as seen from @out's index space (0 on broadcast
 * axes), right-aligned, for walking both with one counter per axis.
 */
void rt_broadcast_strides(const struct rt_tensor *in,
			  const struct rt_tensor *out,
			  int64_t strides[RT_MAX_RANK]);
/*
 * Calls fn(out_index, in_offsets) for every element of @out with the element
 * offsets of the @n inputs under broadcasting. Convenience, not fast.
 */
typedef void (*rt_broadcast_fn)(void *user, size_t out_index,
				const size_t *in_offsets);
void rt_broadcast_walk(const struct rt_tensor *const *in, size_t n,
		       const struct rt_tensor *out, rt_broadcast_fn fn,
		       void *user);

void rt_activation_apply_f32(const struct rt_activation *activation,
			     float *data, size_t count);

#endif /* ENPU_RT_OP_H */
