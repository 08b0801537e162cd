/* SPDX-License-Identifier: MIT */
/*
 * The partitioner: which backend runs each node, and how the nodes group
 * into partitions (docs/runtime.md, "Partitioner"). It knows backends only
 * through their claims and their struct rt_backend_info, so it never
 * changes when a backend is added.
 *
 *   1. claims: every backend says for every live node whether it takes it
 *      and, if not, why;
 *   2. placement: each node goes to the first backend of the preference
 *      list that takes it; a QDQ group (a float op between
 *      DequantizeLinear inputs and a QuantizeLinear output that the
 *      lowering did not turn into an integer op) goes whole to the first
 *      backend that takes all of it;
 *   3. grouping: greedy topological order that stays on the current
 *      partition's backend as long as a node of it is ready, so each
 *      partition is a run of one topological order (hence convex);
 *   4. refinement: a partition off the last (fallback) backend that is
 *      below the minimum size, or costs more than it saves (dispatch,
 *      plus transfers at seams whose memory is not shared), moves to the
 *      next backend that takes its nodes, and merges there; then, while
 *      there are more partitions than the cap, the one that saves least
 *      moves likewise;
 *   5. strict mode: any node not on the preferred backend is an error
 *      naming every such node and why.
 * Compilation failures are handled by the engine, which calls
 * rt_partition_fall_back() and partitions again.
 */
#ifndef ENPU_RT_PARTITION_H
#define ENPU_RT_PARTITION_H

#include "backend.h"
#include "ir.h"

#define RT_PARTITION_MAX_BACKENDS 8

/* One backend as the partitioner sees it. */
struct rt_placement_backend {
	const struct rt_backend_ops *ops;
	void *self;
	struct rt_backend_info info;
};

struct rt_partition_options {
	/* Partitions smaller than this (nodes) leave a non-fallback backend. */
	size_t min_nodes;
	/* At most this many partitions (0: no cap). */
	size_t max_partitions;
	/* Refuse rather than place any node off backend 0. */
	int strict;
	/* Graph inputs are bound as shared (dma-buf) memory: no transfer. */
	int inputs_shared;
	/* Keep partitions the cost estimate says are not worth it (tests,
	 * and users who want the NPU anyway); size and cap still apply. */
	int ignore_cost;
};

/* Where one node went and why. */
struct rt_node_placement {
	int backend;		/* index into the backends, -1 for removed */
	int partition;
	uint64_t macs;
	/* Why it is not on backend 0 (empty when it is). */
	char reason[240];
};

struct rt_plan {
	struct rt_node_placement *nodes;	/* per graph node */
	size_t node_count;
	/* claims[node * backend_count + backend] */
	struct rt_claim *claims;
	size_t backend_count;
	struct rt_partition *partitions;
	size_t partition_count;
	uint64_t macs[RT_PARTITION_MAX_BACKENDS];
	uint64_t total_macs;
};

/*
 * Claims, placement, grouping, refinement and the strict check over the
 * live nodes of @graph (sorted, shapes inferred). @backends in preference
 * order, the last being the fallback. Sets node->backend and
 * node->partition and fills @plan (rt_plan_destroy() frees it; also on
 * failure). Errors name every node no backend takes, or under strict mode
 * every node off backend 0, with the reasons.
 */
int rt_partition_graph(struct rt_graph *graph,
		       const struct rt_placement_backend *backends,
		       size_t backend_count,
		       const struct rt_partition_options *options,
		       struct rt_plan *plan);

/*
 * Regroups after nodes changed backend (or passes added nodes, which carry
 * their backend): partitions are rebuilt from node->backend, in the same
 * greedy order, and each node's partition set. Reasons are kept.
 */
int rt_partition_regroup(struct rt_graph *graph, struct rt_plan *plan);

/*
 * Compilation of @partition failed with @why: its nodes move to the next
 * backend that claimed them (their reason says so) and the graph is
 * regrouped. Returns ENPU_RT_UNSUPPORTED naming the nodes when there is
 * none, or under strict mode.
 */
int rt_partition_fall_back(struct rt_graph *graph,
			   const struct rt_placement_backend *backends,
			   size_t backend_count,
			   const struct rt_partition_options *options,
			   struct rt_plan *plan, size_t partition,
			   const char *why);

void rt_plan_destroy(struct rt_plan *plan);

#endif /* ENPU_RT_PARTITION_H */
