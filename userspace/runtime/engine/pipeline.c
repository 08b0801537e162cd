// SPDX-License-Identifier: MIT
/*
 * The load-time order, as one table. Backend-neutral steps first: bind
 * what has a def, fold Conv+BatchNormalization, infer shapes, fold
 * constants (DequantizeLinear kept, so the QDQ groups survive), lower the
 * quantized forms to the integer ops, infer and fold again. Then the
 * backend-specific lowering of the CPU (graph passes of backend/cpu), a
 * strict bind that names anything still unsupported, the final shape
 * inference and prepare.
 *
 * Graph passes (struct rt_pass, graph/passes.h) see only the IR; engine
 * steps see the session (op defs, the CPU context for folding).
 */
#include "cpu_lower.h"
#include "engine.h"

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

static int cpu_lowering(struct enpu_rt_session *s)
{
	return rt_passes_run(&s->graph, rt_cpu_lowering,
			     rt_cpu_lowering_count);
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
	{ "cpu-lowering", NULL, cpu_lowering },
	{ "bind", NULL, bind_all },
	{ "infer-shapes", NULL, infer_final },
	{ "prepare", NULL, rt_engine_prepare_nodes },
};

/* Without optimization: the graph as loaded, every op its own kernel. */
static const struct step plain[] = {
	{ "bind", NULL, bind_all },
	{ "infer-shapes", NULL, infer_final },
	{ "prepare", NULL, rt_engine_prepare_nodes },
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
	/* Folding removed nodes: recount consumers for the run loop. */
	return status ? status : rt_graph_sort(&s->graph);
}
