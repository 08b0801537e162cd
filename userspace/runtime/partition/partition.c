// SPDX-License-Identifier: MIT
/* The partitioner of partition.h: claims, placement, grouping, refinement. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "rewrite.h"

const char *rt_refusal_name(enum rt_refusal refusal)
{
	static const char *const names[] = {
		[RT_REFUSE_NONE] = "none",
		[RT_REFUSE_OP] = "op",
		[RT_REFUSE_DTYPE] = "dtype",
		[RT_REFUSE_ATTRIBUTE] = "attribute",
		[RT_REFUSE_LIMIT] = "limit",
		[RT_REFUSE_MEMORY] = "memory",
		[RT_REFUSE_SHAPE] = "shape",
		[RT_REFUSE_UNAVAILABLE] = "unavailable",
	};

	return (unsigned int)refusal < sizeof(names) / sizeof(names[0]) ?
	       names[refusal] : "unknown";
}

static int oom(struct rt_graph *g)
{
	return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
			    "out of memory partitioning the graph");
}

static struct rt_claim *claim_of(const struct rt_plan *plan, size_t node,
				 size_t backend)
{
	return &plan->claims[node * plan->backend_count + backend];
}

static int claims_node(const struct rt_plan *plan, size_t node, size_t b)
{
	return claim_of(plan, node, b)->refusal == RT_REFUSE_NONE;
}

/* ---- reasons ------------------------------------------------------- */

static void reason_set(struct rt_node_placement *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reason_set(struct rt_node_placement *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
}

/* ---- placement ----------------------------------------------------- */

/* The first backend from @from on that claims @node, or -1. */
static int first_claimer(const struct rt_plan *plan, size_t node, size_t from)
{
	for (size_t b = from; b < plan->backend_count; b++)
		if (claims_node(plan, node, b))
			return (int)b;
	return -1;
}

static void describe_refusal(const struct rt_placement_backend *backends,
			     struct rt_plan *plan, size_t node)
{
	const struct rt_claim *c = claim_of(plan, node, 0);

	reason_set(&plan->nodes[node], "%s refuses (%s): %s",
		   backends[0].ops->name, rt_refusal_name(c->refusal),
		   c->reason);
}

/* Every live node no backend takes, in one message. */
static int report_unplaceable(struct rt_graph *g,
			      const struct rt_placement_backend *backends,
			      struct rt_plan *plan)
{
	char msg[sizeof(g->errors->message)];
	size_t used = 0, missing = 0;

	for (size_t n = 0; n < g->node_count; n++)
		missing += !g->nodes[n].removed && plan->nodes[n].backend < 0;
	used += (size_t)snprintf(msg, sizeof(msg),
				 "%zu node%s no backend can run:", missing,
				 missing == 1 ? "" : "s");
	for (size_t n = 0; n < g->node_count && used < sizeof(msg); n++) {
		const struct rt_node *node = &g->nodes[n];

		if (node->removed || plan->nodes[n].backend >= 0)
			continue;
		used += (size_t)snprintf(msg + used, sizeof(msg) - used,
					 " node '%s' (%s):", node->name,
					 node->op_type);
		for (size_t b = 0; b < plan->backend_count &&
		     used < sizeof(msg); b++)
			used += (size_t)snprintf(msg + used, sizeof(msg) - used,
						 "%s %s: %s", b ? ";" : "",
						 backends[b].ops->name,
						 claim_of(plan, n, b)->reason);
		if (used < sizeof(msg))
			used += (size_t)snprintf(msg + used, sizeof(msg) - used,
						 ".");
	}
	return rt_error_set(g->errors, ENPU_RT_UNSUPPORTED, "%s", msg);
}

static int is_q(const struct rt_node *node)
{
	return rt_node_is_onnx(node, "QuantizeLinear");
}

static int is_dq(const struct rt_node *node)
{
	return rt_node_is_onnx(node, "DequantizeLinear");
}

/*
 * A QDQ group the lowering left as it is: float op @n, the
 * DequantizeLinear nodes producing its inputs and the QuantizeLinear nodes
 * reading its outputs. They go to one backend: the first that takes all.
 */
static void keep_group_whole(struct rt_graph *g, struct rt_plan *plan,
			     const struct rt_placement_backend *backends,
			     size_t n, int *members)
{
	const struct rt_node *node = &g->nodes[n];
	size_t count = 0;
	int same = 1;

	members[count++] = (int)n;
	for (size_t i = 0; i < node->input_count; i++) {
		int p = rt_value_producer(g, node->inputs[i]);

		if (p >= 0 && is_dq(&g->nodes[p]))
			members[count++] = p;
	}
	for (size_t o = 0; o < node->output_count; o++) {
		int v = node->outputs[o];

		if (v < 0)
			continue;
		for (size_t r = 0; r < g->node_count; r++) {
			const struct rt_node *reader = &g->nodes[r];

			if (!is_q(reader))
				continue;
			for (size_t i = 0; i < reader->input_count; i++)
				if (reader->inputs[i] == v) {
					members[count++] = (int)r;
					break;
				}
		}
	}
	if (count == 1)
		return;
	for (size_t m = 1; m < count; m++)
		same &= plan->nodes[members[m]].backend ==
			plan->nodes[n].backend;
	if (same)
		return;
	for (size_t b = 0; b < plan->backend_count; b++) {
		int all = 1;

		for (size_t m = 0; m < count && all; m++)
			all = claims_node(plan, (size_t)members[m], b);
		if (!all)
			continue;
		for (size_t m = 0; m < count; m++) {
			struct rt_node_placement *p = &plan->nodes[members[m]];

			if (p->backend == (int)b)
				continue;
			p->backend = (int)b;
			if (b)
				reason_set(p, "kept with its QDQ group around "
					   "'%s' (%s), which %s cannot take "
					   "whole", node->name, node->op_type,
					   backends[0].ops->name);
		}
		return;
	}
}

static int place(struct rt_graph *g, struct rt_plan *plan,
		 const struct rt_placement_backend *backends)
{
	int unplaceable = 0, *members;
	size_t most = 1;

	for (size_t n = 0; n < g->node_count; n++) {
		struct rt_node_placement *p = &plan->nodes[n];

		p->backend = -1;
		p->partition = -1;
		p->reason[0] = 0;
		if (g->nodes[n].removed)
			continue;
		p->macs = rt_node_macs(g, &g->nodes[n]);
		for (size_t b = 0; b < plan->backend_count; b++)
			backends[b].ops->claim(backends[b].self, g, n,
					       claim_of(plan, n, b));
		p->backend = first_claimer(plan, n, 0);
		if (p->backend < 0)
			unplaceable = 1;
		else if (p->backend > 0)
			describe_refusal(backends, plan, n);
		if (g->nodes[n].input_count + g->node_count > most)
			most = g->nodes[n].input_count + g->node_count;
	}
	if (unplaceable)
		return report_unplaceable(g, backends, plan);
	members = malloc((most + 1) * sizeof(*members));
	if (!members)
		return oom(g);
	for (size_t n = 0; n < g->node_count; n++)
		if (!g->nodes[n].removed && !is_q(&g->nodes[n]) &&
		    !is_dq(&g->nodes[n]))
			keep_group_whole(g, plan, backends, n, members);
	free(members);
	return 0;
}

/* ---- grouping ------------------------------------------------------ */

static void partitions_free(struct rt_plan *plan)
{
	for (size_t i = 0; i < plan->partition_count; i++) {
		free(plan->partitions[i].nodes);
		free(plan->partitions[i].inputs);
		free(plan->partitions[i].outputs);
	}
	free(plan->partitions);
	plan->partitions = NULL;
	plan->partition_count = 0;
}

static int new_partition(struct rt_plan *plan, int backend)
{
	struct rt_partition *grown = realloc(plan->partitions,
					     (plan->partition_count + 1) *
					     sizeof(*grown));

	if (!grown)
		return -1;
	plan->partitions = grown;
	memset(&grown[plan->partition_count], 0, sizeof(*grown));
	grown[plan->partition_count].index = (int)plan->partition_count;
	grown[plan->partition_count].backend = backend;
	return (int)plan->partition_count++;
}

static int append(size_t **list, size_t *count, size_t item)
{
	size_t *grown = realloc(*list, (*count + 1) * sizeof(**list));

	if (!grown)
		return -1;
	grown[(*count)++] = item;
	*list = grown;
	return 0;
}

static int append_value(int **list, size_t *count, int value)
{
	int *grown;

	for (size_t i = 0; i < *count; i++)
		if ((*list)[i] == value)
			return 0;
	grown = realloc(*list, (*count + 1) * sizeof(**list));
	if (!grown)
		return -1;
	grown[(*count)++] = value;
	*list = grown;
	return 0;
}

/*
 * Greedy topological grouping: Kahn's algorithm that keeps taking ready
 * nodes of the current partition's backend. When none is ready, the next
 * partition starts on the backend that, with the same greedy rule from
 * there on, leads to the fewest partitions (one level of lookahead; ties
 * and big graphs: the backend of the earliest ready node in graph->order).
 */
#define LOOKAHEAD_MAX_NODES 2000

struct sched {
	const struct rt_graph *g;
	const struct rt_plan *plan;
	int *pending;		/* per node: producers not yet scheduled */
	unsigned char *done;
	size_t scheduled;
	size_t *first, *readers;	/* per value: its readers (CSR) */
};

static int sched_init(struct sched *s, const struct rt_graph *g,
		      const struct rt_plan *plan)
{
	size_t n = g->node_count, values = g->value_count, edges = 0;
	size_t *fill;

	memset(s, 0, sizeof(*s));
	s->g = g;
	s->plan = plan;
	s->pending = calloc(n + 1, sizeof(*s->pending));
	s->done = calloc(n + 1, 1);
	s->first = calloc(values + 2, sizeof(*s->first));
	if (!s->pending || !s->done || !s->first)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct rt_node *node = &g->nodes[i];

		if (node->removed)
			continue;
		for (size_t j = 0; j < node->input_count; j++) {
			int v = node->inputs[j], p = rt_value_producer(g, v);

			if (p < 0 || g->nodes[p].removed)
				continue;
			s->pending[i]++;
			s->first[v + 1]++;
			edges++;
		}
	}
	for (size_t v = 0; v < values; v++)
		s->first[v + 1] += s->first[v];
	s->readers = malloc((edges + 1) * sizeof(*s->readers));
	fill = calloc(values + 1, sizeof(*fill));
	if (!s->readers || !fill) {
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rt_node *node = &g->nodes[i];

		if (node->removed)
			continue;
		for (size_t j = 0; j < node->input_count; j++) {
			int v = node->inputs[j], p = rt_value_producer(g, v);

			if (p >= 0 && !g->nodes[p].removed)
				s->readers[s->first[v] + fill[v]++] = i;
		}
	}
	free(fill);
	return 0;
}

static void sched_free(struct sched *s)
{
	free(s->pending);
	free(s->done);
	free(s->first);
	free(s->readers);
}

/* The first ready node in graph->order on @backend (-1: any); or n. */
static size_t sched_ready(const struct sched *s, int backend)
{
	for (size_t i = 0; i < s->g->order_count; i++) {
		size_t c = s->g->order[i];

		if (!s->done[c] && !s->pending[c] &&
		    (backend < 0 || s->plan->nodes[c].backend == backend))
			return c;
	}
	return s->g->node_count;
}

static void sched_take(struct sched *s, size_t node)
{
	const struct rt_node *taken = &s->g->nodes[node];

	s->done[node] = 1;
	s->scheduled++;
	for (size_t o = 0; o < taken->output_count; o++) {
		int v = taken->outputs[o];

		if (v < 0)
			continue;
		for (size_t e = s->first[v]; e < s->first[v + 1]; e++)
			s->pending[s->readers[e]]--;
	}
}

/* Partitions the plain greedy rule makes from @s on, the next one
 * starting on @backend. @s is copied, not changed. */
static size_t sched_count(const struct sched *s, int backend)
{
	size_t n = s->g->node_count, count = 1;
	struct sched t = *s;
	size_t pick;

	t.pending = malloc((n + 1) * sizeof(*t.pending));
	t.done = malloc(n + 1);
	if (!t.pending || !t.done) {
		free(t.pending);
		free(t.done);
		return SIZE_MAX;
	}
	memcpy(t.pending, s->pending, (n + 1) * sizeof(*t.pending));
	memcpy(t.done, s->done, n + 1);
	while (t.scheduled < s->g->order_count) {
		pick = sched_ready(&t, backend);
		if (pick == n) {
			pick = sched_ready(&t, -1);
			if (pick == n)
				break;
			backend = s->plan->nodes[pick].backend;
			count++;
		}
		sched_take(&t, pick);
	}
	free(t.pending);
	free(t.done);
	return count;
}

/* The backend the next partition starts on. */
static int sched_next_backend(const struct sched *s)
{
	size_t earliest = sched_ready(s, -1), best_count = SIZE_MAX;
	int best = s->plan->nodes[earliest].backend;

	if (s->g->order_count > LOOKAHEAD_MAX_NODES)
		return best;
	for (size_t b = 0; b < s->plan->backend_count; b++) {
		size_t count;

		if (sched_ready(s, (int)b) == s->g->node_count)
			continue;
		count = sched_count(s, (int)b);
		if (count < best_count ||
		    (count == best_count && (int)b == best)) {
			best_count = count;
			best = (int)b;
		}
	}
	return best;
}

static int group(struct rt_graph *g, struct rt_plan *plan)
{
	struct sched s;
	int current = -1, status = 0;

	partitions_free(plan);
	for (size_t i = 0; i < g->node_count; i++)
		plan->nodes[i].partition = -1;
	if (sched_init(&s, g, plan)) {
		sched_free(&s);
		return oom(g);
	}
	while (s.scheduled < g->order_count) {
		size_t pick = current >= 0 ?
			      sched_ready(&s, plan->partitions[current].backend) :
			      g->node_count;

		if (pick == g->node_count) {
			int backend;

			if (sched_ready(&s, -1) == g->node_count) {
				status = rt_error_set(g->errors,
						      ENPU_RT_RUNTIME_ERROR,
						      "partitioning: no ready "
						      "node (graph not sorted?)");
				break;
			}
			backend = sched_next_backend(&s);
			pick = sched_ready(&s, backend);
			current = new_partition(plan, backend);
			if (current < 0) {
				status = oom(g);
				break;
			}
		}
		if (append(&plan->partitions[current].nodes,
			   &plan->partitions[current].node_count, pick)) {
			status = oom(g);
			break;
		}
		plan->nodes[pick].partition = current;
		plan->partitions[current].macs += plan->nodes[pick].macs;
		sched_take(&s, pick);
	}
	sched_free(&s);
	return status;
}

/* Inputs and outputs of every partition: the values at its seams. */
static int find_seams(struct rt_graph *g, struct rt_plan *plan)
{
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *node = &g->nodes[n];
		int here = plan->nodes[n].partition;

		if (node->removed)
			continue;
		for (size_t i = 0; i < node->input_count; i++) {
			int v = node->inputs[i], p;
			struct rt_partition *part = &plan->partitions[here];

			if (v < 0 || g->values[v].kind == RT_VALUE_CONSTANT)
				continue;
			p = rt_value_producer(g, v);
			if (p >= 0 && plan->nodes[p].partition == here)
				continue;
			if (append_value(&part->inputs, &part->input_count, v))
				return oom(g);
			if (p >= 0) {
				struct rt_partition *src =
					&plan->partitions[plan->nodes[p].partition];

				if (append_value(&src->outputs,
						 &src->output_count, v))
					return oom(g);
			}
		}
		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];
			struct rt_partition *part = &plan->partitions[here];

			if (v >= 0 && g->values[v].is_output &&
			    append_value(&part->outputs, &part->output_count, v))
				return oom(g);
		}
	}
	return 0;
}

static void count_macs(const struct rt_graph *g, struct rt_plan *plan)
{
	memset(plan->macs, 0, sizeof(plan->macs));
	plan->total_macs = 0;
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node_placement *p = &plan->nodes[n];

		if (g->nodes[n].removed || p->backend < 0)
			continue;
		plan->macs[p->backend] += p->macs;
		plan->total_macs += p->macs;
	}
}

static int plan_grow(struct rt_graph *g, struct rt_plan *plan);

int rt_partition_regroup(struct rt_graph *g, struct rt_plan *plan)
{
	int status = plan_grow(g, plan);

	if (status)
		return status;
	for (size_t n = 0; n < g->node_count; n++) {
		struct rt_node *node = &g->nodes[n];

		/* Nodes passes added after placement carry their backend;
		 * nodes removed since have none. */
		if (node->removed)
			plan->nodes[n].backend = -1;
		else if (plan->nodes[n].backend < 0)
			plan->nodes[n].backend = node->backend;
	}
	status = group(g, plan);
	if (!status)
		status = find_seams(g, plan);
	if (status)
		return status;
	for (size_t n = 0; n < g->node_count; n++) {
		g->nodes[n].backend = plan->nodes[n].backend;
		g->nodes[n].partition = plan->nodes[n].partition;
	}
	count_macs(g, plan);
	return 0;
}

/* ---- refinement ---------------------------------------------------- */

static size_t value_bytes(const struct rt_graph *g, int v)
{
	return g->values[v].tensor.rank >= 0 ? g->values[v].tensor.byte_size :
	       0;
}

/*
 * ns a partition saves over running each node on the next backend that
 * takes it: node costs, minus the backend's dispatch, minus copies at
 * seams whose memory is not shared.
 */
static double saving_ns(const struct rt_graph *g, const struct rt_plan *plan,
			const struct rt_placement_backend *backends,
			const struct rt_partition_options *options,
			const struct rt_partition *part, double *dispatch,
			double *transfer)
{
	const struct rt_backend_info *info = &backends[part->backend].info;
	double saved = 0;

	*dispatch = info->dispatch_ns;
	*transfer = 0;
	for (size_t i = 0; i < part->node_count; i++) {
		size_t n = part->nodes[i];
		int next = first_claimer(plan, n, (size_t)part->backend + 1);

		if (next < 0)
			return 1e300;	/* nothing else can: keep it */
		saved += claim_of(plan, n, (size_t)next)->cost_ns -
			 claim_of(plan, n, (size_t)part->backend)->cost_ns;
	}
	for (int side = 0; side < 2; side++) {
		const int *values = side ? part->outputs : part->inputs;
		size_t count = side ? part->output_count : part->input_count;

		for (size_t i = 0; i < count; i++) {
			int v = values[i], p = rt_value_producer(g, v);
			int shared = info->shares_host_memory;

			if (p < 0 && g->values[v].kind == RT_VALUE_INPUT)
				shared = options->inputs_shared;
			if (!shared && info->copy_bytes_per_ns > 0)
				*transfer += (double)value_bytes(g, v) /
					     info->copy_bytes_per_ns;
		}
	}
	return saved - *dispatch - *transfer;
}

/* Moves every node of @part to the next backend that takes it. */
static void demote(struct rt_plan *plan,
		   const struct rt_placement_backend *backends,
		   const struct rt_partition *part, const char *why)
{
	for (size_t i = 0; i < part->node_count; i++) {
		struct rt_node_placement *p = &plan->nodes[part->nodes[i]];
		int next = first_claimer(plan, part->nodes[i],
					 (size_t)part->backend + 1);

		if (next < 0)
			continue;
		p->backend = next;
		reason_set(p, "%s partition %d moved to %s: %s",
			   backends[part->backend].ops->name, part->index,
			   backends[next].ops->name, why);
	}
}

/* One round: demotes what is too small or not worth it. 1: changed. */
static int refine_once(const struct rt_graph *g, struct rt_plan *plan,
		       const struct rt_placement_backend *backends,
		       const struct rt_partition_options *options)
{
	size_t fallback = plan->backend_count - 1;
	int changed = 0;

	for (size_t i = 0; i < plan->partition_count; i++) {
		const struct rt_partition *part = &plan->partitions[i];
		double dispatch, transfer, saved;
		char why[160];

		if ((size_t)part->backend == fallback)
			continue;
		saved = saving_ns(g, plan, backends, options, part, &dispatch,
				  &transfer);
		if (saved >= 1e299)
			continue;
		if (part->node_count < options->min_nodes) {
			snprintf(why, sizeof(why), "%zu node%s, below the "
				 "minimum partition of %zu", part->node_count,
				 part->node_count == 1 ? "" : "s",
				 options->min_nodes);
		} else if (saved <= 0 && !options->ignore_cost) {
			snprintf(why, sizeof(why), "it would save %.1f us but "
				 "costs %.1f us to dispatch and %.1f us of "
				 "copies at its seams", (saved + dispatch +
							 transfer) / 1e3,
				 dispatch / 1e3, transfer / 1e3);
		} else {
			continue;
		}
		demote(plan, backends, part, why);
		changed = 1;
	}
	return changed;
}

/* Over the cap: the partition that saves least leaves. 1: changed. */
static int enforce_cap(const struct rt_graph *g, struct rt_plan *plan,
		       const struct rt_placement_backend *backends,
		       const struct rt_partition_options *options)
{
	size_t fallback = plan->backend_count - 1, victim = SIZE_MAX;
	double least = 0;
	char why[160];

	if (!options->max_partitions ||
	    plan->partition_count <= options->max_partitions)
		return 0;
	for (size_t i = 0; i < plan->partition_count; i++) {
		const struct rt_partition *part = &plan->partitions[i];
		double dispatch, transfer, saved;

		if ((size_t)part->backend == fallback)
			continue;
		saved = saving_ns(g, plan, backends, options, part, &dispatch,
				  &transfer);
		if (saved < 1e299 && (victim == SIZE_MAX || saved < least)) {
			victim = i;
			least = saved;
		}
	}
	if (victim == SIZE_MAX)
		return 0;
	snprintf(why, sizeof(why), "%zu partitions exceed the cap of %zu and "
		 "it saves least (%.1f us)", plan->partition_count,
		 options->max_partitions, least / 1e3);
	demote(plan, backends, &plan->partitions[victim], why);
	return 1;
}

/* Under strict mode: every node off backend 0, in one message. */
static int check_strict(struct rt_graph *g, const struct rt_plan *plan,
			const struct rt_placement_backend *backends)
{
	char msg[sizeof(g->errors->message)];
	size_t used, off = 0;

	for (size_t n = 0; n < g->node_count; n++)
		off += !g->nodes[n].removed && plan->nodes[n].backend > 0;
	if (!off)
		return 0;
	used = (size_t)snprintf(msg, sizeof(msg),
				"strict: %zu node%s would not run on %s:", off,
				off == 1 ? "" : "s", backends[0].ops->name);
	for (size_t n = 0; n < g->node_count && used < sizeof(msg); n++) {
		if (g->nodes[n].removed || plan->nodes[n].backend <= 0)
			continue;
		used += (size_t)snprintf(msg + used, sizeof(msg) - used,
					 " node '%s' (%s): %s;",
					 g->nodes[n].name, g->nodes[n].op_type,
					 plan->nodes[n].reason);
	}
	return rt_error_set(g->errors, ENPU_RT_UNSUPPORTED, "%s", msg);
}

static int plan_init(struct rt_graph *g, struct rt_plan *plan,
		     size_t backend_count)
{
	memset(plan, 0, sizeof(*plan));
	plan->node_count = g->node_count;
	plan->backend_count = backend_count;
	plan->nodes = calloc(g->node_count + 1, sizeof(*plan->nodes));
	plan->claims = calloc((g->node_count + 1) * backend_count,
			      sizeof(*plan->claims));
	return plan->nodes && plan->claims ? 0 : oom(g);
}

/* Room for nodes passes add after placement. */
static int plan_grow(struct rt_graph *g, struct rt_plan *plan)
{
	struct rt_node_placement *nodes;
	struct rt_claim *claims;

	if (g->node_count <= plan->node_count)
		return 0;
	nodes = realloc(plan->nodes, g->node_count * sizeof(*nodes));
	if (!nodes)
		return oom(g);
	plan->nodes = nodes;
	claims = realloc(plan->claims, g->node_count * plan->backend_count *
			 sizeof(*claims));
	if (!claims)
		return oom(g);
	plan->claims = claims;
	for (size_t n = plan->node_count; n < g->node_count; n++) {
		memset(&nodes[n], 0, sizeof(nodes[n]));
		nodes[n].backend = g->nodes[n].removed ? -1 :
				   g->nodes[n].backend;
		nodes[n].partition = -1;
		for (size_t b = 0; b < plan->backend_count; b++) {
			struct rt_claim *c = claim_of(plan, n, b);

			memset(c, 0, sizeof(*c));
			/* Added for one backend: only it runs the node. */
			if ((int)b != nodes[n].backend)
				c->refusal = RT_REFUSE_OP;
		}
	}
	plan->node_count = g->node_count;
	return 0;
}

int rt_partition_graph(struct rt_graph *g,
		       const struct rt_placement_backend *backends,
		       size_t backend_count,
		       const struct rt_partition_options *options,
		       struct rt_plan *plan)
{
	int status;

	if (!backend_count || backend_count > RT_PARTITION_MAX_BACKENDS)
		return rt_error_set(g->errors, ENPU_RT_INVALID_ARGUMENT,
				    "partitioning: %zu backends (1..%d)",
				    backend_count, RT_PARTITION_MAX_BACKENDS);
	status = plan_init(g, plan, backend_count);
	if (!status)
		status = place(g, plan, backends);
	if (!status)
		status = rt_partition_regroup(g, plan);
	/* Each round moves nodes to later backends only: it ends. */
	while (!status && (refine_once(g, plan, backends, options) ||
			   enforce_cap(g, plan, backends, options)))
		status = rt_partition_regroup(g, plan);
	if (!status && options->strict)
		status = check_strict(g, plan, backends);
	return status;
}

int rt_partition_fall_back(struct rt_graph *g,
			   const struct rt_placement_backend *backends,
			   size_t backend_count,
			   const struct rt_partition_options *options,
			   struct rt_plan *plan, size_t partition,
			   const char *why)
{
	struct rt_partition *part;
	char text[200];
	int status = plan_grow(g, plan);

	(void)backend_count;
	if (status)
		return status;
	if (partition >= plan->partition_count)
		return rt_error_set(g->errors, ENPU_RT_INVALID_ARGUMENT,
				    "no partition %zu", partition);
	part = &plan->partitions[partition];
	for (size_t i = 0; i < part->node_count; i++)
		if (first_claimer(plan, part->nodes[i],
				  (size_t)part->backend + 1) < 0)
			return rt_error_set(g->errors, ENPU_RT_UNSUPPORTED,
					    "%s could not compile partition %zu "
					    "(%s) and no other backend takes "
					    "node '%s' (%s)",
					    backends[part->backend].ops->name,
					    partition, why,
					    g->nodes[part->nodes[i]].name,
					    g->nodes[part->nodes[i]].op_type);
	snprintf(text, sizeof(text), "compilation failed: %s", why);
	demote(plan, backends, part, text);
	status = rt_partition_regroup(g, plan);
	if (!status && options->strict)
		status = check_strict(g, plan, backends);
	return status;
}

void rt_plan_destroy(struct rt_plan *plan)
{
	partitions_free(plan);
	free(plan->nodes);
	free(plan->claims);
	memset(plan, 0, sizeof(*plan));
}
