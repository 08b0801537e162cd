// SPDX-License-Identifier: MIT
/*
 * Control flow: If, Loop, Scan and SequenceMap, whose bodies run through
 * the executor's subgraph table (k->subgraphs, rt_op.h); the bodies read
 * outer-scope values as the node's implicit inputs.
 *
 * Output shapes depend on running the body, so infer() runs it (once the
 * inputs have values; RT_OP_NEEDS_VALUES before) and keeps the results in
 * the node's state, and run() copies them out. A body instance is made at
 * prepare(); infer() outside a prepared node (load-time folding) makes a
 * throwaway one.
 *
 * Loop-carried values alternate between two buffers of the op, so a body
 * never reads a value from the buffer it is writing.
 */
#include <stdlib.h>
#include <string.h>

#include "values.h"

#define MAX_BODIES 2

struct buffer {
	void *data;
	size_t capacity;
};

struct cf_state {
	void *body[MAX_BODIES];
	size_t bodies;
	struct rt_tensor *results;	/* what run() copies out */
	struct buffer *owned;		/* results' memory where not views */
	struct buffer *carried[2];	/* ping-pong, per carried value */
	struct buffer scratch;
	size_t n_results, n_carried;
	int cached;
};

static int grow(struct rt_kernel *k, struct buffer *b, size_t size)
{
	void *data;

	if (b->capacity >= size && b->data)
		return 0;
	if (posix_memalign(&data, 64, size ? size : 1))
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory "
				   "(%zu bytes)", size);
	if (b->data && b->capacity)
		memcpy(data, b->data, b->capacity < size ? b->capacity : size);
	free(b->data);
	b->data = data;
	b->capacity = size ? size : 1;
	return 0;
}

static void state_free(struct rt_kernel *k, struct cf_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->bodies; i++)
		if (st->body[i])
			k->subgraphs->destroy(st->body[i]);
	for (size_t i = 0; st->owned && i < st->n_results; i++)
		free(st->owned[i].data);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; st->carried[s] && i < st->n_carried; i++)
			free(st->carried[s][i].data);
		free(st->carried[s]);
	}
	free(st->scratch.data);
	free(st->owned);
	free(st->results);
	free(st);
}

/* The body attributes of this op, in the order compute() uses them. */
static int body_names(struct rt_kernel *k, const char **names)
{
	if (!strcmp(k->op_type, "If")) {
		names[0] = "then_branch";
		names[1] = "else_branch";
		return 2;
	}
	names[0] = "body";
	return 1;
}

static int state_new(struct rt_kernel *k, struct cf_state **out)
{
	const char *names[MAX_BODIES];
	int bodies = body_names(k, names);
	struct cf_state *st;
	int status = 0;

	*out = NULL;
	if (!k->subgraphs)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "subgraphs cannot "
				   "run here");
	st = calloc(1, sizeof(*st));
	if (!st)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (int i = 0; i < bodies && !status; i++) {
		const struct rt_attr *a = rt_attr_find(k, names[i]);

		if (!a || a->type != RT_ATTR_GRAPH || !a->graph) {
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL, "attribute "
					     "'%s' must be a graph", names[i]);
			break;
		}
		status = k->subgraphs->create(k, a->graph, &st->body[i]);
		st->bodies = (size_t)i + 1;
	}
	if (status) {
		state_free(k, st);
		return status;
	}
	*out = st;
	return 0;
}

/* Room for @n results (the node's output count). */
static int results_for(struct rt_kernel *k, struct cf_state *st, size_t n)
{
	struct rt_tensor *results;
	struct buffer *owned;

	if (st->n_results >= n)
		return 0;
	results = realloc(st->results, (n + 1) * sizeof(*results));
	if (results)
		st->results = results;
	owned = realloc(st->owned, (n + 1) * sizeof(*owned));
	if (owned)
		st->owned = owned;
	if (!results || !owned)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	memset(st->results + st->n_results, 0,
	       (n + 1 - st->n_results) * sizeof(*results));
	memset(st->owned + st->n_results, 0,
	       (n + 1 - st->n_results) * sizeof(*owned));
	st->n_results = n;
	return 0;
}

static int carried_buffers(struct rt_kernel *k, struct cf_state *st, size_t n)
{
	if (st->n_carried >= n)
		return 0;
	for (int s = 0; s < 2; s++) {
		struct buffer *grown = realloc(st->carried[s],
					       (n + 1) * sizeof(*grown));

		if (!grown)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		memset(grown + st->n_carried, 0,
		       (n + 1 - st->n_carried) * sizeof(*grown));
		st->carried[s] = grown;
	}
	st->n_carried = n;
	return 0;
}

/* Copies @t into @b and makes @view describe the copy. */
static int keep(struct rt_kernel *k, struct buffer *b,
		const struct rt_tensor *t, struct rt_tensor *view)
{
	int status = grow(k, b, t->byte_size);

	if (status)
		return status;
	if (t->byte_size)
		memcpy(b->data, t->data, t->byte_size);
	*view = *t;
	view->data = b->data;
	return 0;
}

static size_t explicit_inputs(const struct rt_kernel *k, size_t n_in)
{
	return n_in - k->implicit_inputs;
}

static int run_body(struct rt_kernel *k, void *body,
		    const struct rt_tensor *const *in, size_t n_in,
		    const struct rt_tensor *const *inputs, size_t n_inputs,
		    const struct rt_tensor **outputs, size_t n_outputs)
{
	return k->subgraphs->run(k, body, inputs, n_inputs,
				 in + explicit_inputs(k, n_in),
				 k->implicit_inputs, outputs, n_outputs);
}

static int truth(struct rt_kernel *k, const struct rt_tensor *t, int *value)
{
	if (!t->data || rt_tensor_elements(t) != 1)
		return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT, "a condition "
				   "must have one element");
	*value = rt_tensor_get_double(t, 0) != 0;
	return 0;
}

/* If(cond; then_branch, else_branch) */
static int if_compute(struct rt_kernel *k, struct cf_state *st,
		      const struct rt_tensor *const *in, size_t n_in,
		      size_t n_out)
{
	const struct rt_tensor **views;
	int cond = 0, status = truth(k, in[0], &cond);
	void *body;

	if (status)
		return status;
	body = st->body[cond ? 0 : 1];
	if (k->subgraphs->output_count(body) != n_out)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "the %s branch "
				   "gives %zu outputs, the node has %zu",
				   cond ? "then" : "else",
				   k->subgraphs->output_count(body), n_out);
	views = calloc(n_out + 1, sizeof(*views));
	if (!views)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	status = run_body(k, body, in, n_in, NULL, 0, views, n_out);
	for (size_t o = 0; !status && o < n_out; o++)
		st->results[o] = *views[o];	/* valid until the next run */
	free(views);
	return status;
}

/* Appends @t's bytes as item @index of a stacked output in @b. */
static int append(struct rt_kernel *k, struct buffer *b, size_t index,
		  const struct rt_tensor *t, struct rt_tensor *shape)
{
	size_t at = index * t->byte_size;
	int status;

	if (!index) {
		*shape = *t;
	} else if (t->dtype != shape->dtype || t->rank != shape->rank ||
		   memcmp(t->dims, shape->dims, (size_t)t->rank *
			  sizeof(t->dims[0]))) {
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "a scan output "
				   "changes shape between iterations");
	}
	if (rt_is_packed(t->dtype))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "scan outputs "
				   "must be tensors");
	if (b->capacity < at + t->byte_size) {
		size_t want = b->capacity * 2 > at + t->byte_size ?
			      b->capacity * 2 : at + t->byte_size;

		status = grow(k, b, want);
		if (status)
			return status;
	}
	if (t->byte_size)
		memcpy((unsigned char *)b->data + at, t->data, t->byte_size);
	return 0;
}

static int stacked(struct rt_kernel *k, struct rt_tensor *result,
		   const struct rt_tensor *shape, size_t count, void *data,
		   int32_t dtype)
{
	int64_t dims[RT_MAX_RANK];

	if (!count) {
		int64_t zero = 0;

		result->data = data;
		return rt_tensor_set_shape(k, result, dtype ? dtype :
					   ENPU_RT_FLOAT, 1, &zero);
	}
	if (shape->rank >= RT_MAX_RANK)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "scan output rank "
				   "exceeds %d", RT_MAX_RANK);
	dims[0] = (int64_t)count;
	memcpy(dims + 1, shape->dims, (size_t)shape->rank * sizeof(dims[0]));
	result->data = data;
	return rt_tensor_set_shape(k, result, shape->dtype, shape->rank + 1,
				   dims);
}

/* Loop(M?, cond?, v_initial...; body) */
static int loop_compute(struct rt_kernel *k, struct cf_state *st,
			const struct rt_tensor *const *in, size_t n_in,
			size_t n_out)
{
	void *body = st->body[0];
	size_t n = explicit_inputs(k, n_in) - 2;	/* carried */
	size_t outs = k->subgraphs->output_count(body);
	size_t scans = outs - 1 - n;
	int64_t trips = INT64_MAX, iteration = 0;
	uint8_t cond_value = 1;
	int cond = 1, status;
	struct rt_tensor iter_t = { .dtype = ENPU_RT_INT64, .rank = 0,
				    .data = &iteration,
				    .byte_size = sizeof(iteration) };
	struct rt_tensor cond_t = { .dtype = ENPU_RT_BOOL, .rank = 0,
				    .data = &cond_value, .byte_size = 1 };
	const struct rt_tensor **inputs, **views;
	struct rt_tensor *cur, *shapes;
	size_t iterations = 0;

	if (outs < 1 + n || k->subgraphs->input_count(body) != 2 + n ||
	    n_out != n + scans)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "the body takes "
				   "%zu inputs and gives %zu outputs; %zu "
				   "carried values and %zu outputs do not fit",
				   k->subgraphs->input_count(body), outs, n,
				   n_out);
	if (in[0]) {
		if (!in[0]->data || rt_tensor_elements(in[0]) != 1)
			return rt_op_error(k, ENPU_RT_INVALID_ARGUMENT, "the "
					   "trip count must have one element");
		trips = rt_tensor_get_int(in[0], 0);
	}
	if (in[1]) {
		status = truth(k, in[1], &cond);
		if (status)
			return status;
	} else if (!in[0]) {
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "a loop with neither "
				   "trip count nor condition never ends");
	}
	status = carried_buffers(k, st, n);
	if (status)
		return status;
	inputs = calloc(2 + n + 1, sizeof(*inputs));
	views = calloc(outs + 1, sizeof(*views));
	cur = calloc(n + 1, sizeof(*cur));
	shapes = calloc(scans + 1, sizeof(*shapes));
	if (!inputs || !views || !cur || !shapes) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!in[2 + i]) {
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL, "carried "
					     "value %zu is missing", i);
			goto out;
		}
		cur[i] = *in[2 + i];
	}
	inputs[0] = &iter_t;
	inputs[1] = &cond_t;
	for (size_t i = 0; i < n; i++)
		inputs[2 + i] = &cur[i];
	for (; iteration < trips && (!in[1] || cond); iteration++) {
		struct buffer *next = st->carried[(iteration + 1) & 1];

		cond_value = (uint8_t)cond;
		status = run_body(k, body, in, n_in, inputs, 2 + n, views, outs);
		if (status)
			goto out;
		if (in[1]) {
			status = truth(k, views[0], &cond);
			if (status)
				goto out;
		}
		for (size_t i = 0; i < n && !status; i++)
			status = keep(k, &next[i], views[1 + i], &cur[i]);
		for (size_t s = 0; s < scans && !status; s++)
			status = append(k, &st->owned[n + s], iterations,
					views[1 + n + s], &shapes[s]);
		if (status)
			goto out;
		iterations++;
	}
	for (size_t i = 0; i < n; i++)
		st->results[i] = cur[i];
	for (size_t s = 0; s < scans && !status; s++) {
		status = grow(k, &st->owned[n + s], 1);
		if (!status)
			status = stacked(k, &st->results[n + s], &shapes[s],
					 iterations, st->owned[n + s].data,
					 k->subgraphs->output_dtype(body,
								    1 + n + s));
	}
out:
	free(inputs);
	free(views);
	free(cur);
	free(shapes);
	return status;
}

/* Slice @index of @t along @axis into @b (a view when axis 0). */
static int slice(struct rt_kernel *k, struct buffer *b,
		 const struct rt_tensor *t, int64_t axis, int64_t index,
		 struct rt_tensor *view)
{
	size_t outer = 1, inner = rt_dtype_size(t->dtype);
	int status;

	for (int64_t d = 0; d < axis; d++)
		outer *= (size_t)t->dims[d];
	for (int d = (int)axis + 1; d < t->rank; d++)
		inner *= (size_t)t->dims[d];
	*view = *t;
	memmove(&view->dims[axis], &view->dims[axis + 1],
		(size_t)(t->rank - axis - 1) * sizeof(view->dims[0]));
	view->rank = t->rank - 1;
	view->byte_size = outer * inner;
	if (axis == 0) {
		view->data = (unsigned char *)t->data + (size_t)index * inner;
		return 0;
	}
	status = grow(k, b, view->byte_size);
	if (status)
		return status;
	for (size_t o = 0; o < outer; o++)
		memcpy((unsigned char *)b->data + o * inner,
		       (const unsigned char *)t->data +
		       (o * (size_t)t->dims[axis] + (size_t)index) * inner,
		       inner);
	view->data = b->data;
	return 0;
}

/* Writes @t as slice @index along @axis of a [.., count, ..] output. */
static void place(unsigned char *dst, const struct rt_tensor *t, int64_t axis,
		  size_t count, size_t index)
{
	size_t outer = 1, inner = rt_dtype_size(t->dtype);

	for (int64_t d = 0; d < axis; d++)
		outer *= (size_t)t->dims[d];
	for (int d = (int)axis; d < t->rank; d++)
		inner *= (size_t)t->dims[d];
	for (size_t o = 0; o < outer && inner; o++)
		memcpy(dst + (o * count + index) * inner,
		       (const unsigned char *)t->data + o * inner, inner);
}

static int64_t attr_at(const int64_t *v, size_t count, size_t i)
{
	return v && i < count ? v[i] : 0;
}

/*
 * The Scan of opset 9+: @states (N) and @scans (M) tensors; results
 * (N states, K scan outputs) into st->results[@first..]. @bufs: scratch
 * for the M slices.
 */
static int scan_core(struct rt_kernel *k, struct cf_state *st,
		     const struct rt_tensor *const *in, size_t n_in,
		     const struct rt_tensor *const *states, size_t n,
		     const struct rt_tensor *const *scans, size_t m,
		     const int64_t *in_axes_attr, size_t n_in_axes,
		     const int64_t *in_dirs, size_t n_in_dirs,
		     size_t n_out)
{
	void *body = st->body[0];
	size_t outs = k->subgraphs->output_count(body), kk = outs - n;
	const int64_t *out_axes_attr, *out_dirs;
	size_t n_out_axes, n_out_dirs;
	int64_t steps = -1, *in_axes;
	const struct rt_tensor **inputs, **views;
	struct rt_tensor *cur, *slices;
	struct buffer *slice_bufs;
	int status;

	if (outs < n || k->subgraphs->input_count(body) != n + m ||
	    n_out != outs)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "the body takes "
				   "%zu inputs and gives %zu outputs; %zu "
				   "states, %zu scan inputs and %zu outputs do "
				   "not fit", k->subgraphs->input_count(body),
				   outs, n, m, n_out);
	status = rt_attr_ints(k, "scan_output_axes", &out_axes_attr,
			      &n_out_axes);
	if (!status)
		status = rt_attr_ints(k, "scan_output_directions", &out_dirs,
				      &n_out_dirs);
	if (status)
		return status;
	status = carried_buffers(k, st, n);
	if (status)
		return status;
	inputs = calloc(n + m + 1, sizeof(*inputs));
	views = calloc(outs + 1, sizeof(*views));
	cur = calloc(n + 1, sizeof(*cur));
	slices = calloc(m + 1, sizeof(*slices));
	slice_bufs = calloc(m + 1, sizeof(*slice_bufs));
	in_axes = calloc(m + 1, sizeof(*in_axes));
	if (!inputs || !views || !cur || !slices || !slice_bufs || !in_axes) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < m && !status; j++) {
		if (!scans[j] || scans[j]->rank < 1) {
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL, "scan "
					     "input %zu must have rank >= 1", j);
			break;
		}
		status = rt_axis(k, attr_at(in_axes_attr, n_in_axes, j),
				 scans[j]->rank, &in_axes[j]);
		if (!status && steps >= 0 &&
		    scans[j]->dims[in_axes[j]] != steps)
			status = rt_op_error(k, ENPU_RT_INVALID_MODEL, "scan "
					     "inputs differ in length");
		if (!status)
			steps = scans[j]->dims[in_axes[j]];
	}
	if (status)
		goto out;
	if (steps < 0)
		steps = 0;
	for (size_t i = 0; i < n; i++) {
		cur[i] = *states[i];
		inputs[i] = &cur[i];
	}
	for (size_t j = 0; j < m; j++)
		inputs[n + j] = &slices[j];
	for (int64_t t = 0; t < steps && !status; t++) {
		struct buffer *next = st->carried[(t + 1) & 1];

		for (size_t j = 0; j < m && !status; j++)
			status = slice(k, &slice_bufs[j], scans[j], in_axes[j],
				       attr_at(in_dirs, n_in_dirs, j) ?
				       steps - 1 - t : t, &slices[j]);
		if (!status)
			status = run_body(k, body, in, n_in, inputs, n + m,
					  views, outs);
		for (size_t i = 0; i < n && !status; i++)
			status = keep(k, &next[i], views[i], &cur[i]);
		for (size_t o = 0; o < kk && !status; o++) {
			const struct rt_tensor *v = views[n + o];
			struct rt_tensor *r = &st->results[n + o];
			int64_t axis;

			status = rt_axis(k, attr_at(out_axes_attr, n_out_axes,
						    o), v->rank + 1, &axis);
			if (status)
				break;
			if (!t) {
				int64_t dims[RT_MAX_RANK];

				if (v->rank >= RT_MAX_RANK) {
					status = rt_op_error(k,
						ENPU_RT_UNSUPPORTED,
						"scan output rank too large");
					break;
				}
				memcpy(dims, v->dims, (size_t)axis *
				       sizeof(dims[0]));
				dims[axis] = steps;
				memcpy(dims + axis + 1, v->dims + axis,
				       (size_t)(v->rank - axis) *
				       sizeof(dims[0]));
				status = rt_tensor_set_shape(k, r, v->dtype,
							     v->rank + 1, dims);
				if (!status)
					status = grow(k, &st->owned[n + o],
						      r->byte_size);
				r->data = st->owned[n + o].data;
			} else if (v->byte_size * (size_t)steps != r->byte_size ||
				   v->dtype != r->dtype) {
				status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
						     "a scan output changes "
						     "shape between iterations");
			}
			if (!status)
				place(r->data, v, axis, (size_t)steps,
				      attr_at(out_dirs, n_out_dirs, o) ?
				      (size_t)(steps - 1 - t) : (size_t)t);
		}
	}
	for (size_t i = 0; i < n; i++)
		st->results[i] = cur[i];
	for (size_t o = 0; !steps && o < kk && !status; o++) {
		status = grow(k, &st->owned[n + o], 1);
		if (!status)
			status = stacked(k, &st->results[n + o], NULL, 0,
					 st->owned[n + o].data,
					 k->subgraphs->output_dtype(body, n + o));
	}
out:
	for (size_t j = 0; slice_bufs && j < m; j++)
		free(slice_bufs[j].data);
	free(slice_bufs);
	free(inputs);
	free(views);
	free(cur);
	free(slices);
	free(in_axes);
	return status;
}

static int scan9_compute(struct rt_kernel *k, struct cf_state *st,
			 const struct rt_tensor *const *in, size_t n_in,
			 size_t n_out)
{
	size_t total = explicit_inputs(k, n_in), n_axes, n_dirs;
	const int64_t *axes, *dirs;
	int64_t m;
	int status = rt_attr_int(k, "num_scan_inputs", -1, &m);

	if (!status && (m < 1 || (size_t)m > total))
		status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
				     "num_scan_inputs %lld does not fit %zu "
				     "inputs", (long long)m, total);
	if (!status)
		status = rt_attr_ints(k, "scan_input_axes", &axes, &n_axes);
	if (!status)
		status = rt_attr_ints(k, "scan_input_directions", &dirs,
				      &n_dirs);
	if (status)
		return status;
	return scan_core(k, st, in, n_in, in, total - (size_t)m,
			 in + total - (size_t)m, (size_t)m, axes, n_axes,
			 dirs, n_dirs, n_out);
}

/*
 * Scan of opset 8: a batch axis 0 on every state and scan input (scan
 * axis 1), and an optional sequence_lens first input (full lengths only).
 * Runs the opset-9 scan per batch entry and stacks the results.
 */
static int scan8_compute(struct rt_kernel *k, struct cf_state *st,
			 const struct rt_tensor *const *in, size_t n_in,
			 size_t n_out)
{
	size_t total = explicit_inputs(k, n_in) - 1, n_dirs, n, m;
	const int64_t *dirs;
	int64_t mm, batch = -1, zero_axes[RT_MAX_RANK] = { 0 };
	const struct rt_tensor **parts;
	struct rt_tensor *views, *gathered;
	struct buffer *out_bufs;
	int status = rt_attr_int(k, "num_scan_inputs", -1, &mm);

	if (!status && (mm < 1 || (size_t)mm > total))
		status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
				     "num_scan_inputs %lld does not fit %zu "
				     "inputs", (long long)mm, total);
	if (!status)
		status = rt_attr_ints(k, "directions", &dirs, &n_dirs);
	if (status)
		return status;
	m = (size_t)mm;
	n = total - m;
	for (size_t i = 0; i < total; i++) {
		const struct rt_tensor *t = in[1 + i];

		if (!t || t->rank < 1 || (batch >= 0 && t->dims[0] != batch))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "inputs "
					   "need one batch axis 0");
		batch = t->dims[0];
		if (i >= n && t->rank < 2)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "scan "
					   "inputs need a sequence axis 1");
	}
	if (in[0]) {
		for (size_t b = 0; b < rt_tensor_elements(in[0]); b++)
			if (rt_tensor_get_int(in[0], b) !=
			    in[1 + n]->dims[1])
				return rt_op_error(k, ENPU_RT_UNSUPPORTED,
						   "sequence_lens shorter than "
						   "the sequence axis");
	}
	parts = calloc(total + 1, sizeof(*parts));
	views = calloc(total + 1, sizeof(*views));
	gathered = calloc(n_out + 1, sizeof(*gathered));
	out_bufs = calloc(n_out + 1, sizeof(*out_bufs));
	if (!parts || !views || !gathered || !out_bufs) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (int64_t b = 0; b < batch && !status; b++) {
		for (size_t i = 0; i < total && !status; i++) {
			status = slice(k, NULL, in[1 + i], 0, b, &views[i]);
			parts[i] = &views[i];
		}
		if (!status)
			status = scan_core(k, st, in, n_in, parts, n, parts + n,
					   m, zero_axes, m, dirs, n_dirs,
					   n_out);
		for (size_t o = 0; o < n_out && !status; o++) {
			const struct rt_tensor *r = &st->results[o];

			if (!b) {
				int64_t dims[RT_MAX_RANK];

				if (r->rank >= RT_MAX_RANK) {
					status = rt_op_error(k,
						ENPU_RT_UNSUPPORTED,
						"output rank too large");
					break;
				}
				dims[0] = batch;
				memcpy(dims + 1, r->dims, (size_t)r->rank *
				       sizeof(dims[0]));
				status = rt_tensor_set_shape(k, &gathered[o],
							     r->dtype,
							     r->rank + 1, dims);
				if (!status)
					status = grow(k, &out_bufs[o],
						      gathered[o].byte_size);
				gathered[o].data = out_bufs[o].data;
			} else if (r->byte_size * (size_t)batch !=
				   gathered[o].byte_size) {
				status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
						     "outputs differ between "
						     "batch entries");
			}
			if (!status && r->byte_size)
				memcpy((unsigned char *)gathered[o].data +
				       (size_t)b * r->byte_size, r->data,
				       r->byte_size);
		}
	}
	/* The stacked results replace the per-entry ones, owned here. */
	for (size_t o = 0; o < n_out && !status; o++) {
		free(st->owned[o].data);
		st->owned[o] = out_bufs[o];
		out_bufs[o].data = NULL;
		st->results[o] = gathered[o];
	}
out:
	for (size_t o = 0; out_bufs && o < n_out; o++)
		free(out_bufs[o].data);
	free(out_bufs);
	free(parts);
	free(views);
	free(gathered);
	return status;
}

/* SequenceMap(input_sequence, additional_inputs...; body) */
struct collected {
	struct buffer bytes;
	size_t used;
	struct rt_tensor *items;	/* data: offsets until packed */
	size_t count;
};

static int sequence_map_compute(struct rt_kernel *k, struct cf_state *st,
				const struct rt_tensor *const *in, size_t n_in,
				size_t n_out)
{
	void *body = st->body[0];
	size_t total = explicit_inputs(k, n_in), count = 0, elem_count;
	const struct rt_tensor **inputs, **views, **list = NULL;
	struct rt_tensor *items;
	struct collected *col;
	int32_t elem;
	int status;

	if (k->subgraphs->input_count(body) != total ||
	    k->subgraphs->output_count(body) != n_out)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "the body does not "
				   "take %zu inputs and give %zu outputs",
				   total, n_out);
	status = rt_packed_info(k, in[0], ENPU_RT_SEQUENCE, &elem, &count);
	for (size_t j = 1; j < total && !status; j++)
		if (in[j] && in[j]->dtype == ENPU_RT_SEQUENCE) {
			status = rt_packed_info(k, in[j], ENPU_RT_SEQUENCE,
						&elem, &elem_count);
			if (!status && elem_count != count)
				status = rt_op_error(k, ENPU_RT_INVALID_MODEL,
						     "sequences differ in "
						     "length");
		}
	if (status)
		return status;
	inputs = calloc(total + 1, sizeof(*inputs));
	views = calloc(n_out + 1, sizeof(*views));
	items = calloc(total + 1, sizeof(*items));
	col = calloc(n_out + 1, sizeof(*col));
	if (!inputs || !views || !items || !col) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (size_t o = 0; o < n_out && !status; o++) {
		col[o].items = calloc(count + 1, sizeof(*col[o].items));
		if (!col[o].items)
			status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					     "out of memory");
	}
	for (size_t i = 0; i < count && !status; i++) {
		for (size_t j = 0; j < total && !status; j++) {
			if (in[j] && in[j]->dtype == ENPU_RT_SEQUENCE) {
				status = rt_packed_item(k, in[j], i, &items[j]);
				inputs[j] = &items[j];
			} else {
				inputs[j] = in[j];
			}
		}
		if (!status)
			status = run_body(k, body, in, n_in, inputs, total,
					  views, n_out);
		for (size_t o = 0; o < n_out && !status; o++) {
			struct collected *c = &col[o];
			size_t size = (views[o]->byte_size + 63) & ~(size_t)63;

			if (rt_is_packed(views[o]->dtype)) {
				status = rt_op_error(k, ENPU_RT_UNSUPPORTED,
						     "body outputs must be "
						     "tensors");
				break;
			}
			if (c->bytes.capacity < c->used + size)
				status = grow(k, &c->bytes,
					      2 * (c->used + size));
			if (status)
				break;
			if (views[o]->byte_size)
				memcpy((unsigned char *)c->bytes.data + c->used,
				       views[o]->data, views[o]->byte_size);
			c->items[i] = *views[o];
			c->items[i].data = (void *)c->used;
			c->used += size;
			c->count = i + 1;
		}
	}
	list = calloc(count + 1, sizeof(*list));
	if (!list && !status)
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t o = 0; o < n_out && !status; o++) {
		struct collected *c = &col[o];
		struct rt_tensor *r = &st->results[o];
		int32_t out_elem = c->count ? c->items[0].dtype :
				   k->subgraphs->output_dtype(body, o);

		for (size_t i = 0; i < c->count; i++) {
			c->items[i].data = (unsigned char *)c->bytes.data +
					   (size_t)c->items[i].data;
			list[i] = &c->items[i];
		}
		status = rt_packed_shape(k, r, ENPU_RT_SEQUENCE, list, c->count);
		if (!status)
			status = grow(k, &st->owned[o], r->byte_size);
		r->data = st->owned[o].data;
		if (!status)
			status = rt_packed_write(k, r, ENPU_RT_SEQUENCE,
						 out_elem, list, c->count);
	}
out:
	for (size_t o = 0; col && o < n_out; o++) {
		free(col[o].bytes.data);
		free(col[o].items);
	}
	free(col);
	free(list);
	free(inputs);
	free(views);
	free(items);
	return status;
}

typedef int (*compute_fn)(struct rt_kernel *k, struct cf_state *st,
			  const struct rt_tensor *const *in, size_t n_in,
			  size_t n_out);

static compute_fn compute_of(const struct rt_kernel *k)
{
	if (!strcmp(k->op_type, "If"))
		return if_compute;
	if (!strcmp(k->op_type, "Loop"))
		return loop_compute;
	if (!strcmp(k->op_type, "Scan"))
		return k->opset < 9 ? scan8_compute : scan9_compute;
	return sequence_map_compute;
}

static int cf_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct cf_state *st = k->state;
	int status;

	for (size_t i = 0; i < n_in; i++)
		if (in[i] && !in[i]->data)
			return RT_OP_NEEDS_VALUES;
	if (!st) {
		status = state_new(k, &st);
		if (status)
			return status;
	}
	status = results_for(k, st, n_out);
	if (!status)
		status = compute_of(k)(k, st, in, n_in, n_out);
	for (size_t o = 0; o < n_out && !status; o++)
		if (out[o])
			status = rt_tensor_set_shape(k, out[o],
						     st->results[o].dtype,
						     st->results[o].rank,
						     st->results[o].dims);
	if (st != k->state)
		state_free(k, st);
	else
		st->cached = !status;
	return status;
}

static int cf_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		  size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct cf_state *st = k->state;
	int status = 0;

	if (!st)
		return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "not prepared");
	if (!st->cached) {
		status = results_for(k, st, n_out);
		if (!status)
			status = compute_of(k)(k, st, in, n_in, n_out);
	}
	st->cached = 0;
	for (size_t o = 0; o < n_out && !status; o++) {
		const struct rt_tensor *r = &st->results[o];

		if (!out[o])
			continue;
		if (r->byte_size != out[o]->byte_size || r->dtype != out[o]->dtype)
			return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "output %zu "
					   "changed shape since inference", o);
		if (r->byte_size)
			memcpy(out[o]->data, r->data, r->byte_size);
	}
	return status;
}

static int cf_prepare_state(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in)
{
	struct cf_state *st;
	int status;

	(void)in, (void)n_in;
	if (k->state)
		return 0;
	status = state_new(k, &st);
	if (!status)
		k->state = st;
	return status;
}

static void cf_release(struct rt_kernel *k)
{
	state_free(k, k->state);
	k->state = NULL;
}

#define OPSET_MAX 21
#define CF(name, lo, min_in, max_in, min_out) \
	{ name, "", lo, OPSET_MAX, min_in, max_in, min_out, 4096, 0, \
	  cf_infer, cf_prepare_state, cf_run, cf_release }

const struct rt_op_def rt_ops_control_flow[] = {
	CF("If", 1, 1, 1, 1),
	CF("Loop", 1, 2, 4096, 1),
	/* Opset 8: sequence_lens first, which may be empty. */
	CF("Scan", 8, 0, 4096, 1),
	CF("SequenceMap", 17, 1, 4096, 1),
	{ 0 },
};
