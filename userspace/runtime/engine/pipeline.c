// SPDX-License-Identifier: MIT
/*
 * The load-time order, as one table. Backend-neutral steps first: bind
 * what has a def, fold Conv+BatchNormalization, infer shapes, fold
 * constants (DequantizeLinear kept, so the QDQ groups survive), lower the
 * quantized forms to the integer ops, infer and fold again. Then
 * placement (the partitioner: claims, placement, grouping, refinement),
 * each backend's own lowering of its nodes, a strict bind that names
 * anything still unsupported, the final shape inference, and compilation
 * of every partition, falling back per partition when a backend fails.
 *
 * Graph passes (struct rt_pass, graph/passes.h) see only the IR; engine
 * steps see the session (op defs, the CPU context for folding, backends).
 */
#include <stdlib.h>

#include "engine.h"
#include "passes.h"

struct step {
	const char *name;
	int (*graph_pass)(struct rt_graph *graph);
	int (*session_step)(struct enpu_rt_session *session);
};

static int bind_known(struct enpu_rt_session *s)
{
	int status = rt_engine_bind(&s->graph, 0);

	return status ? status : rt_graph_sort(&s->graph);
}

static int bind_all(struct enpu_rt_session *s)
{
	int status = rt_engine_bind(&s->graph, 1);

	return status ? status : rt_graph_sort(&s->graph);
}

static int infer_early(struct enpu_rt_session *s)
{
	return rt_engine_infer(s, 0);
}

static int infer_final(struct enpu_rt_session *s)
{
	return rt_engine_infer(s, 1);
}

static int fold_keep_dequantize(struct enpu_rt_session *s)
{
	return rt_engine_fold(s, 1);
}

static int fold_all(struct enpu_rt_session *s)
{
	return rt_engine_fold(s, 0);
}

static int place(struct enpu_rt_session *s)
{
	return rt_partition_graph(&s->graph, s->active, s->active_count,
				  &s->partitioning, &s->plan);
}

/* Each backend lowers its own nodes (graph->scope), then regroup. */
static int lower_on_backends(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;
	int status = 0;

	for (size_t b = 0; b < s->active_count && !status; b++) {
		if (!s->active[b].ops->lower)
			continue;
		g->scope = (int)b;
		status = s->active[b].ops->lower(s->active[b].self, g);
		g->scope = -1;
		if (!status)
			status = rt_graph_sort(g);
	}
	return status ? status : rt_partition_regroup(g, &s->plan);
}

static void release_compiled(struct enpu_rt_session *s)
{
	for (size_t p = 0; p < s->plan.partition_count && s->compiled; p++)
		if (s->compiled[p])
			s->active[s->plan.partitions[p].backend].ops->release(
				s->active[s->plan.partitions[p].backend].self,
				s->compiled[p]);
	free(s->compiled);
	free(s->fences);
	s->compiled = NULL;
	s->fences = NULL;
}

/*
 * Compiles every partition. When a backend fails, that partition's nodes
 * fall back to the next backend that claimed them (the partitioner
 * regroups) and compilation starts over; each fallback moves nodes to a
 * later backend, so this ends.
 */
static int compile(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;

	for (;;) {
		size_t failed = SIZE_MAX;
		struct rt_error_sink why = { .status = 0 };
		int status;

		release_compiled(s);
		s->compiled = calloc(s->plan.partition_count + 1,
				     sizeof(*s->compiled));
		s->fences = calloc(s->plan.partition_count + 1,
				   sizeof(*s->fences));
		if (!s->compiled || !s->fences)
			return rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
					    "out of memory compiling");
		for (size_t p = 0; p < s->plan.partition_count; p++) {
			const struct rt_placement_backend *b =
				&s->active[s->plan.partitions[p].backend];

			if (b->ops->compile(b->self, g, &s->plan.partitions[p],
					    &s->compiled[p], &why)) {
				failed = p;
				break;
			}
		}
		if (failed == SIZE_MAX)
			return 0;
		/* Out of memory is no reason to try elsewhere. */
		if (why.status == ENPU_RT_OUT_OF_MEMORY)
			return rt_error_set(&s->errors, why.status, "%s",
					    why.message);
		status = rt_partition_fall_back(g, s->active, s->active_count,
						&s->partitioning, &s->plan,
						failed, why.message);
		if (status)
			return status;
		s->errors.status = 0;
		s->errors.message[0] = 0;
	}
}

static const struct step optimized[] = {
	{ "bind", NULL, bind_known },
	{ "fold-batchnorm", rt_pass_fold_batchnorm, NULL },
	{ "infer-shapes", NULL, infer_early },
	{ "fold-constants", NULL, fold_keep_dequantize },
	{ "lower-qgemm", rt_pass_lower_qgemm, NULL },
	{ "lower-qdq", rt_pass_lower_qdq, NULL },
	{ "drop-dead-dequantize", rt_pass_drop_dead_dequantize, NULL },
	{ "bind", NULL, bind_known },
	{ "infer-shapes", NULL, infer_early },
	{ "fold-constants", NULL, fold_all },
	/* Every op a backend runs has a def (its shape inference and its
	 * CPU fallback): what has none now is unsupported, all named. */
	{ "bind", NULL, bind_all },
	{ "place", NULL, place },
	{ "lower", NULL, lower_on_backends },
	{ "bind", NULL, bind_all },
	{ "infer-shapes", NULL, infer_final },
	{ "compile", NULL, compile },
};

/*
 * Without optimization: the graph as loaded, every op its own kernel,
 * placed and compiled but lowered by no backend.
 */
static const struct step plain[] = {
	{ "bind", NULL, bind_all },
	{ "infer-shapes", NULL, infer_final },
	{ "place", NULL, place },
	{ "compile", NULL, compile },
};

int rt_engine_prepare(struct enpu_rt_session *s)
{
	const struct step *steps = s->optimize ? optimized : plain;
	size_t count = s->optimize ? sizeof(optimized) / sizeof(optimized[0]) :
		       sizeof(plain) / sizeof(plain[0]);
	int status = 0;

	for (size_t i = 0; i < count && !status; i++) {
		status = steps[i].graph_pass ? steps[i].graph_pass(&s->graph) :
			 steps[i].session_step(s);
		/* Rewrites change the node set: keep the order current. */
		if (!status && steps[i].graph_pass)
			status = rt_graph_sort(&s->graph);
	}
	return status;
}

void rt_engine_release_compiled(struct enpu_rt_session *s)
{
	release_compiled(s);
}
