/* SPDX-License-Identifier: MIT */
/*
 * The graph IR: values (SSA, one producer each) and nodes referring to them
 * by index. The loader builds it from ONNX, the passes rewrite it, the
 * partitioner places its nodes on backends, the engine runs it. It knows
 * no kernel and no backend: a node's op def is an opaque pointer the
 * engine binds. Everything the graph allocates lives in its arena and is
 * freed by rt_graph_destroy(); the values and nodes arrays grow with
 * realloc, so hold indices, never pointers, while building.
 */
#ifndef ENPU_RT_IR_H
#define ENPU_RT_IR_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "rt_types.h"

struct rt_op_def;	/* ops/rt_op.h; opaque to the graph */

enum rt_value_kind {
	RT_VALUE_INTERMEDIATE = 0,
	RT_VALUE_INPUT,		/* graph input the caller binds */
	RT_VALUE_CONSTANT,	/* initializer or folded; data always set */
};

struct rt_value {
	const char *name;
	enum rt_value_kind kind;
	struct rt_tensor tensor;	/* rank -1 while unknown */
	/* Declared symbolic dimension names (graph inputs/outputs). */
	const char *dim_names[RT_MAX_RANK];
	int32_t declared_rank;		/* -1: not declared */
	int64_t declared_dims[RT_MAX_RANK];	/* -1: symbolic */
	int is_output;
	int producer;			/* node index, -1 for none */
	int consumer_count;		/* live nodes reading it */
};

struct rt_node {
	const char *name;
	const char *op_type;
	const char *domain;
	int64_t opset;
	size_t input_count;
	int *inputs;			/* value index, -1 for absent */
	size_t output_count;
	int *outputs;
	size_t attr_count;
	struct rt_attr *attrs;
	/* Set by passes: the op clamps its output (ops/rt_op.h). */
	struct rt_activation activation;
	/* Set by passes: an extra last input is a bias (RT_OP_FUSES_BIAS). */
	int has_fused_bias;
	const struct rt_op_def *def;	/* bound by the engine, NULL before */
	/*
	 * Written by a pass (rt_node_retype(), rt_graph_add_op()): in the
	 * documented form of its op (ops/rt_enpu_ops.h), which may leave
	 * inputs absent that a model's node must give.
	 */
	int rewritten;
	/*
	 * The last implicit_inputs of inputs[] are values of this graph
	 * that a subgraph attribute of the node reads from its outer scope
	 * (If, Loop, Scan bodies); they count as inputs for ordering.
	 */
	size_t implicit_inputs;
	int removed;			/* fused away or folded */
	int backend;			/* placement: index, -1 before */
	int partition;			/* placement: index, -1 before */
};

struct rt_opset {
	const char *domain;
	int64_t version;
};

struct rt_graph {
	struct rt_arena arena;
	struct rt_value *values;
	size_t value_count, value_capacity;
	struct rt_node *nodes;
	size_t node_count, node_capacity;
	int *inputs;		/* graph inputs to bind, model order */
	size_t input_count;
	int *outputs;		/* model order */
	size_t output_count;
	struct rt_opset *opsets;
	size_t opset_count;
	size_t *order;		/* topological order of live nodes */
	size_t order_count;
	struct rt_name_map *names;
	struct rt_error_sink *errors;
	/*
	 * Subgraphs (If/Loop/Scan bodies), owned: each is the graph of one
	 * node's RT_ATTR_GRAPH attribute. In a subgraph, inputs[] holds the
	 * formal inputs first (formal_input_count of them), then one input
	 * per name it reads from an outer scope; outer_index[k] says which
	 * of the owning node's implicit inputs feeds inputs[formal + k].
	 */
	struct rt_graph **subgraphs;
	size_t subgraph_count;
	struct rt_graph *parent;	/* NULL for the model's graph */
	size_t formal_input_count;
	size_t *outer_index;
	/*
	 * Backend whose lowering passes run now (-1: backend-neutral passes,
	 * every node). Passes touch only nodes with node->backend == scope
	 * (rt_node_in_scope()); nodes they add get this backend.
	 */
	int scope;
};

int rt_graph_init(struct rt_graph *graph, struct rt_error_sink *errors);
void rt_graph_destroy(struct rt_graph *graph);
/* Index of a new value with a copy of @name; -1 with the error set. */
int rt_graph_add_value(struct rt_graph *graph, const char *name);
/* Index of the value called @name, or -1. */
int rt_graph_find_value(const struct rt_graph *graph, const char *name);
/* Index of a new node (fields zeroed), -1 on OOM. */
int rt_graph_add_node(struct rt_graph *graph);
int64_t rt_graph_opset(const struct rt_graph *graph, const char *domain);

/*
 * Checks every input is produced exactly once, there is no cycle, and fills
 * graph->order; recounts consumers. Errors name the node and value.
 */
int rt_graph_sort(struct rt_graph *graph);

/*
 * A new, empty subgraph owned by @parent (destroyed with it), sharing its
 * error sink and opset imports; NULL with the error set on OOM.
 */
struct rt_graph *rt_graph_add_subgraph(struct rt_graph *parent);

/* The pretty name of a node used in messages. */
const char *rt_node_label(const struct rt_node *node);

/* Live and within the graph's pass scope (see rt_graph.scope). */
int rt_node_in_scope(const struct rt_graph *graph, const struct rt_node *node);

/* Multiply-accumulates of one node from its shapes (0 for most ops). */
uint64_t rt_node_macs(const struct rt_graph *graph, const struct rt_node *node);

#endif /* ENPU_RT_IR_H */
