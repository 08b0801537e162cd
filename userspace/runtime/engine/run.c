// SPDX-License-Identifier: MIT
/*
 * The run loop: partitions in order, each on its backend, each waiting
 * for the asynchronous partitions whose outputs it reads. Values at seams
 * (between partitions, and graph outputs) are the engine's: each gets its
 * own buffer, kept across runs, from a backend that touches it and can
 * hand out memory mapped for the host (seam_alloc, e.g. an NPU buffer
 * object) so no side copies, else from malloc. Graph inputs are the
 * caller's buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int bind_graph_inputs(struct enpu_rt_session *s)
{
	struct rt_graph *g = &s->graph;

	for (size_t i = 0; i < g->input_count; i++) {
		struct rt_value *v = &g->values[g->inputs[i]];
		struct rt_binding *b = &s->bindings[i];

		if (!b->bound)
			return rt_error_set(&s->errors, ENPU_RT_NOT_READY,
					    "input '%s' is not bound", v->name);
		v->tensor.rank = b->rank;
		memcpy(v->tensor.dims, b->dims, sizeof(b->dims));
		v->tensor.byte_size = b->byte_size;
		/* Ops never write inputs (rt_op.h), so the cast is safe. */
		v->tensor.data = (void *)b->data;
	}
	return 0;
}

/* The backend that hosts a seam: the first touching it with seam_alloc. */
static int seam_owner(const struct enpu_rt_session *s, int value)
{
	const struct rt_graph *g = &s->graph;
	int producer = g->values[value].producer;

	if (producer >= 0) {
		int b = s->plan.nodes[producer].backend;

		if (b >= 0 && s->active[b].ops->seam_alloc)
			return b;
	}
	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *node = &g->nodes[n];
		int b = s->plan.nodes[n].backend;

		if (node->removed || b < 0 || !s->active[b].ops->seam_alloc)
			continue;
		for (size_t i = 0; i < node->input_count; i++)
			if (node->inputs[i] == value)
				return b;
	}
	return -1;
}

static void seam_free(struct enpu_rt_session *s, struct rt_seam *seam)
{
	if (!seam->data)
		return;
	if (seam->owner >= 0)
		s->active[seam->owner].ops->seam_free(
			s->active[seam->owner].self, seam->data);
	else
		free(seam->data);
	seam->data = NULL;
	seam->capacity = 0;
}

/*
 * The engine's memory for @value, at least @size bytes, kept across runs:
 * from the backend that hosts it (seam_alloc) where there is one, else
 * from the heap. NULL (with the error set) when out of memory.
 */
static void *seam_memory(struct enpu_rt_session *s, int value, size_t size)
{
	struct rt_seam *seam;

	if ((size_t)value >= s->seam_count) {
		struct rt_seam *grown = realloc(s->seams,
						s->graph.value_count *
						sizeof(*grown));

		if (!grown) {
			rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory for seams");
			return NULL;
		}
		memset(grown + s->seam_count, 0,
		       (s->graph.value_count - s->seam_count) * sizeof(*grown));
		s->seams = grown;
		s->seam_count = s->graph.value_count;
	}
	seam = &s->seams[value];
	if (seam->capacity < size) {
		seam_free(s, seam);
		seam->owner = seam_owner(s, value);
		if (seam->owner >= 0)
			seam->data = s->active[seam->owner].ops->seam_alloc(
				s->active[seam->owner].self, size);
		else if (posix_memalign(&seam->data, 64, size))
			seam->data = NULL;
		if (!seam->data) {
			rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory for '%s' (%zu bytes)",
				     s->graph.values[value].name, size);
			return NULL;
		}
		seam->capacity = size;
	}
	return seam->data;
}

/* struct rt_exec_host: the value's shape is known; give it memory. */
static int provide(void *ctx, int value)
{
	struct enpu_rt_session *s = ctx;
	struct rt_value *v = &s->graph.values[value];
	size_t size = v->tensor.byte_size ? v->tensor.byte_size : 1;
	/* A graph output bound to a dma-buf is written in place. */
	void *data = rt_engine_output_dmabuf(s, value, size);

	if (!data)
		data = seam_memory(s, value, size);
	if (!data)
		return s->errors.status;
	v->tensor.data = data;
	return 0;
}

void *rt_engine_input_memory(struct enpu_rt_session *s, int value,
			     size_t size)
{
	return seam_memory(s, value, size ? size : 1);
}

/* Whether an asynchronous partition producing @p's inputs is in flight. */
static int inputs_pending(const struct enpu_rt_session *s,
			  const struct rt_partition *p)
{
	for (size_t i = 0; i < p->input_count; i++) {
		int producer = s->graph.values[p->inputs[i]].producer;
		int from;

		if (producer < 0)
			continue;
		from = s->plan.nodes[producer].partition;
		if (from >= 0 && s->fences[from].token)
			return 1;
	}
	return 0;
}

/* Waits for the asynchronous partitions that produce @p's inputs. */
static int wait_inputs(struct enpu_rt_session *s, const struct rt_partition *p)
{
	for (size_t i = 0; i < p->input_count; i++) {
		int producer = s->graph.values[p->inputs[i]].producer;
		int from;
		const struct rt_placement_backend *b;

		if (producer < 0)
			continue;
		from = s->plan.nodes[producer].partition;
		if (from < 0 || !s->fences[from].token)
			continue;
		b = &s->active[s->plan.partitions[from].backend];
		if (b->ops->wait(b->self, s->compiled[from], &s->fences[from]))
			return s->errors.status ? s->errors.status :
			       rt_error_set(&s->errors, ENPU_RT_RUNTIME_ERROR,
					    "%s partition %d failed", b->ops->name,
					    from);
	}
	return 0;
}

/* Partitions from s->run_next on; with @stop_at_wait, only until one
 * would have to wait for a fence. */
static int run_partitions(struct enpu_rt_session *s, int stop_at_wait)
{
	struct rt_exec_host host = { .ctx = s, .provide = provide };
	int status = 0;

	for (; s->run_next < s->plan.partition_count && !status; s->run_next++) {
		size_t p = s->run_next;
		const struct rt_partition *part = &s->plan.partitions[p];
		const struct rt_placement_backend *b = &s->active[part->backend];

		if (stop_at_wait && inputs_pending(s, part))
			break;
		status = wait_inputs(s, part);
		if (!status)
			status = b->ops->run(b->self, s->compiled[p], &host,
					     &s->fences[p]);
		if (status && !s->errors.status)
			rt_error_set(&s->errors, status, "%s partition %zu "
				     "failed", b->ops->name, p);
	}
	return status;
}

/* The rest of a run, unless @status says it already failed; then waits
 * for every fence. */
static int finish(struct enpu_rt_session *s, int status)
{
	if (!status)
		status = run_partitions(s, 0);
	/* Everything, also after a failure: no work may outlive the run. */
	for (size_t p = 0; p < s->plan.partition_count; p++) {
		const struct rt_placement_backend *b =
			&s->active[s->plan.partitions[p].backend];

		if (s->fences[p].token &&
		    b->ops->wait(b->self, s->compiled[p], &s->fences[p]) &&
		    !status)
			status = s->errors.status ? s->errors.status :
				 rt_error_set(&s->errors, ENPU_RT_RUNTIME_ERROR,
					      "%s partition %zu failed",
					      b->ops->name, p);
	}
	if (!status)
		s->ran = 1;
	s->running = 0;
	return status;
}

int rt_engine_run_finish(struct enpu_rt_session *s)
{
	if (!s->running)
		return rt_error_set(&s->errors, ENPU_RT_NOT_READY,
				    "no run in flight");
	/* A call refused while the run was in flight left its message. */
	s->errors.status = 0;
	s->errors.message[0] = 0;
	return finish(s, 0);
}

int rt_engine_run_async(struct enpu_rt_session *s)
{
	int status;

	if (s->running)
		return rt_error_set(&s->errors, ENPU_RT_NOT_READY,
				    "a run is in flight: run_wait first");
	s->ran = 0;
	s->errors.status = 0;
	s->errors.message[0] = 0;
	s->run_next = 0;
	s->running = 1;
	status = bind_graph_inputs(s);
	if (!status)
		status = run_partitions(s, 1);
	if (status)
		finish(s, status);
	return status;
}

int rt_engine_run(struct enpu_rt_session *s)
{
	int status = rt_engine_run_async(s);

	return status ? status : rt_engine_run_finish(s);
}

void rt_engine_release(struct enpu_rt_session *s)
{
	rt_engine_release_compiled(s);
	for (size_t v = 0; v < s->seam_count; v++)
		seam_free(s, &s->seams[v]);
	free(s->seams);
	s->seams = NULL;
	s->seam_count = 0;
	rt_plan_destroy(&s->plan);
	free(s->nodes);
	free(s->in_ptrs);
	free(s->out_ptrs);
	s->nodes = NULL;
	s->in_ptrs = NULL;
	s->out_ptrs = NULL;
	s->node_capacity = 0;
	rt_engine_close_backends(s);
}
