/* SPDX-License-Identifier: MIT */
/*
 * Helpers every graph pass uses: predicates on nodes, reading constants
 * and attributes, counting readers, and the few edits a rewrite makes
 * (new constants, values and nodes, retyping, absorbing a successor).
 * Passes call these and nothing of each other.
 *
 * A rewrite is safe only when the intermediate values it removes have no
 * other reader and are not graph outputs: rt_value_readers() counts a
 * graph output as a reader for that reason.
 *
 * Adding values or nodes may move the graph's arrays: re-fetch pointers
 * into g->values / g->nodes after any rt_graph_add_*() call.
 */
#ifndef ENPU_RT_REWRITE_H
#define ENPU_RT_REWRITE_H

#include "ir.h"

/* A live node of @domain ("" and "ai.onnx" are the same) and @op_type. */
int rt_node_is(const struct rt_node *node, const char *domain,
	       const char *op_type);
static inline int rt_node_is_onnx(const struct rt_node *node,
				  const char *op_type)
{
	return rt_node_is(node, "", op_type);
}

/* Input @i's value, -1 when absent. */
int rt_node_input(const struct rt_node *node, size_t i);
/* The producing node of @value, -1 for none (or for @value -1). */
int rt_value_producer(const struct rt_graph *g, int value);
/* The tensor of a constant value, NULL when @value is not constant. */
const struct rt_tensor *rt_value_constant(const struct rt_graph *g,
					  int value);
/* The tensor of @node's input @input when it is a constant, else NULL. */
const struct rt_tensor *rt_node_constant(const struct rt_graph *g,
					 const struct rt_node *node,
					 size_t input);
/*
 * Readers of @value: one per live node input slot reading it, plus one
 * when it is a graph output; *@reader is set to a reading node.
 */
int rt_value_readers(const struct rt_graph *g, int value, int *reader);
/* Exactly one live node input reads @value and it is no graph output. */
int rt_value_single_reader(const struct rt_graph *g, int value, int *reader);

/* Attributes; the getters return @fallback when absent or mistyped. */
const struct rt_attr *rt_node_attr(const struct rt_node *node,
				   const char *name);
int64_t rt_node_attr_int(const struct rt_node *node, const char *name,
			 int64_t fallback);
float rt_node_attr_float(const struct rt_node *node, const char *name,
			 float fallback);
/*
 * An ints attribute of exactly @count values into @values (@fallback each
 * when absent). Returns 1, or 0 when present with another type or count.
 */
int rt_node_attr_ints(const struct rt_node *node, const char *name,
		      size_t count, int64_t fallback, int64_t *values);
/* Adds or replaces the int attribute @name; 0 or a status. */
int rt_node_set_attr_int(struct rt_graph *g, struct rt_node *node,
			 const char *name, int64_t value);

/*
 * Relu, or Clip with constant bounds (attributes before opset 11), as a
 * fused activation. Returns 1 and fills *@a, or 0.
 */
int rt_node_activation(const struct rt_graph *g, const struct rt_node *act,
		       struct rt_activation *a);

/*
 * A new constant named "<base>.<suffix><n>" with zeroed data of the given
 * type and shape; its index, or -1 with the error set.
 */
int rt_graph_add_constant(struct rt_graph *g, const char *base,
			  const char *suffix, int32_t dtype, int32_t rank,
			  const int64_t *dims);
/* A new intermediate value named "<name of @base>.<suffix><n>"; or -1. */
int rt_graph_add_derived_value(struct rt_graph *g, int base,
			       const char *suffix);
/*
 * A new node domain.op_type (opset 1) named "<name of output 0>.<op_type>"
 * reading @inputs and producing @outputs (their producer set to it);
 * no attributes. Its index, or -1 with the error set.
 */
int rt_graph_add_op(struct rt_graph *g, const char *domain,
		    const char *op_type, const int *inputs, size_t input_count,
		    const int *outputs, size_t output_count);
/* Makes @node domain.op_type at opset 1, unbound. Returns 0. */
int rt_node_retype(struct rt_node *node, const char *domain,
		   const char *op_type);
/* Gives @node a copy of @inputs (-1 for absent); 0 or a status. */
int rt_node_set_inputs(struct rt_graph *g, struct rt_node *node,
		       const int *inputs, size_t count);
/*
 * @node takes over output 0 of @successor, which is removed: the value
 * @node produced before is left without producer (its readers must be
 * gone, e.g. @successor itself).
 */
void rt_node_absorb(struct rt_graph *g, struct rt_node *node,
		    struct rt_node *successor);
/*
 * Removes, repeatedly, live nodes of @domain.@op_type whose outputs nobody
 * reads (dead DequantizeLinear chains, unused transposes).
 */
void rt_graph_drop_unread(struct rt_graph *g, const char *domain,
			  const char *op_type);

#endif /* ENPU_RT_REWRITE_H */
