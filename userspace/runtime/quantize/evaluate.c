// SPDX-License-Identifier: MIT
/*
 * The accuracy report: the float model and the QDQ model it became run on
 * the evaluation samples, each as a copy whose graph outputs also list
 * every quantized activation (in the float model under its own name, in
 * the QDQ model as the DequantizeLinear output the next layer reads), and
 * each pair is compared over all elements of all samples: cosine
 * similarity and the largest absolute error. A layer's "added" error is
 * its (1 - cosine) minus the worst of its quantized inputs', so the error
 * a layer inherits is not charged to it; its "inside" part compares the
 * op's own float result in the QDQ model (before the output's Q/DQ), the
 * error of its quantized inputs and weights, which is what leaving the
 * layer in float removes (the output's Q/DQ stays while a quantized op
 * reads it; layers with a folded Relu/Clip report the whole "added").
 * The QDQ model runs with ONNX's QDQ semantics through the
 * runtime: where a probe keeps a fusion from happening the op runs in
 * float on dequantized values, one rounding step from the integer path.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantize_internal.h"

/* Running sums of one float/int8 pair. */
struct probe {
	int tensor;		/* q_tensor index, -1 for a graph output */
	const char *float_name, *int8_name;
	size_t float_out, int8_out;	/* session output indices */
	int found;
	double dot, ff, qq, max_error, max_float;
	size_t elements;
};

struct side {
	enpu_rt_session *session;
	struct rt_tensor *bound;
};

/* @model with the extra graph outputs @names (those not outputs yet). */
static int pack_with_outputs(struct q_model *m, const Onnx__ModelProto *src,
			     const char *const *names, size_t count,
			     void **bytes, size_t *size)
{
	Onnx__ModelProto model = *src;
	Onnx__GraphProto graph = *src->graph;

	graph.output = rt_arena_alloc(&m->arena, (graph.n_output + count + 1) *
				      sizeof(*graph.output));
	if (!graph.output)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	memcpy(graph.output, src->graph->output,
	       src->graph->n_output * sizeof(*graph.output));
	for (size_t i = 0; i < count; i++) {
		Onnx__ValueInfoProto *vi;
		size_t o;

		for (o = 0; o < graph.n_output; o++)
			if (graph.output[o]->name &&
			    !strcmp(graph.output[o]->name, names[i]))
				break;
		if (o < graph.n_output)
			continue;
		vi = rt_arena_alloc(&m->arena, sizeof(*vi));
		if (!vi)
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		onnx__value_info_proto__init(vi);
		vi->name = (char *)names[i];
		graph.output[graph.n_output++] = vi;
	}
	model.graph = &graph;
	*size = onnx__model_proto__get_packed_size(&model);
	*bytes = malloc(*size ? *size : 1);
	if (!*bytes)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	onnx__model_proto__pack(&model, *bytes);
	return 0;
}

static int open_side(struct q_model *m, const Onnx__ModelProto *model,
		     const char *const *names, size_t count, const char *what,
		     struct side *side)
{
	enpu_rt_options *options = NULL;
	void *bytes = NULL;
	size_t size = 0;
	int status = pack_with_outputs(m, model, names, count, &bytes, &size);

	if (status)
		return status;
	status = enpu_rt_options_create(&options);
	if (!status && m->options->threads)
		status = enpu_rt_options_set_threads(options,
						     m->options->threads);
	if (!status)
		status = enpu_rt_session_create_from_memory(bytes, size,
							    m->base_dir,
							    options,
							    &side->session);
	free(bytes);
	if (status) {
		q_fail(m, status, "evaluation: the %s model does not load: %s",
		       what, options ? enpu_rt_options_error(options) :
		       enpu_rt_status_name(status));
		enpu_rt_options_destroy(options);
		return status;
	}
	enpu_rt_options_destroy(options);
	side->bound = calloc(enpu_rt_session_input_count(side->session) + 1,
			     sizeof(*side->bound));
	if (!side->bound)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	return 0;
}

static void close_side(struct side *side)
{
	enpu_rt_session_destroy(side->session);
	free(side->bound);
}

/* One sample through both models, sums added to every probe found. */
static int run_sample(struct q_model *m, struct side *f, struct side *q,
		      const char *dir, struct probe *probes, size_t count)
{
	struct rt_arena arena = { .limit = (size_t)4 << 30 };
	int status = q_bind_sample(m, f->session, dir, &arena, f->bound);

	if (!status)
		status = q_bind_sample(m, q->session, dir, &arena, q->bound);
	if (!status && enpu_rt_session_run(f->session))
		status = q_fail(m, ENPU_RT_RUNTIME_ERROR,
				"evaluation sample '%s', float model: %s", dir,
				enpu_rt_session_error(f->session));
	if (!status && enpu_rt_session_run(q->session))
		status = q_fail(m, ENPU_RT_RUNTIME_ERROR,
				"evaluation sample '%s', int8 model: %s", dir,
				enpu_rt_session_error(q->session));
	for (size_t p = 0; !status && p < count; p++) {
		struct probe *pr = &probes[p];
		struct enpu_rt_output a, b;
		const float *x, *y;
		size_t n;

		if (!pr->found ||
		    enpu_rt_session_output(f->session, pr->float_out, &a) ||
		    enpu_rt_session_output(q->session, pr->int8_out, &b) ||
		    a.dtype != ENPU_RT_FLOAT || b.dtype != ENPU_RT_FLOAT ||
		    a.byte_size != b.byte_size) {
			pr->found = 0;
			continue;
		}
		x = a.data;
		y = b.data;
		n = a.byte_size / sizeof(float);
		for (size_t i = 0; i < n; i++) {
			double e = fabs((double)y[i] - x[i]);

			pr->dot += (double)x[i] * y[i];
			pr->ff += (double)x[i] * x[i];
			pr->qq += (double)y[i] * y[i];
			pr->max_error = e > pr->max_error ? e : pr->max_error;
			pr->max_float = fabs(x[i]) > pr->max_float ?
				fabs(x[i]) : pr->max_float;
		}
		pr->elements += n;
	}
	rt_arena_free_all(&arena);
	return status;
}

/* Two all-zero tensors agree; one all-zero against another does not. */
static double cosine(const struct probe *p)
{
	if (p->ff == 0 && p->qq == 0)
		return 1;
	if (p->ff == 0 || p->qq == 0)
		return 0;
	return p->dot / sqrt(p->ff * p->qq);
}

static int fill(struct enpu_quantize_accuracy *a, const char *name,
		const char *op, const struct probe *p, double added)
{
	a->name = strdup(name);
	a->op = op ? strdup(op) : NULL;
	a->cosine = cosine(p);
	a->max_error = p->max_error;
	a->max_float = p->max_float;
	a->added = added;
	return !a->name || (op && !a->op);
}

void q_free_accuracy(struct enpu_quantize_accuracy *a, size_t count)
{
	for (size_t i = 0; a && i < count; i++) {
		free(a[i].name);
		free(a[i].op);
	}
	free(a);
}

/* The activation a quantized node's consumers read (after a fold). */
static int node_result(const struct q_model *m, size_t n)
{
	const Onnx__NodeProto *node = m->graph->node[n];
	int act = m->nodes[n].folded_act;

	if (act >= 0)
		node = m->graph->node[act];
	if (!node->n_output || !node->output[0])
		return -1;
	return q_find_tensor(m, node->output[0]);
}

static int find_probes(struct side *f, struct side *q, struct probe *probes,
		       size_t count)
{
	for (size_t p = 0; p < count; p++)
		probes[p].found =
			!enpu_rt_session_find_output(f->session,
						     probes[p].float_name,
						     &probes[p].float_out) &&
			!enpu_rt_session_find_output(q->session,
						     probes[p].int8_name,
						     &probes[p].int8_out);
	return 0;
}

/* Fills report->layers (quantized nodes in graph order) from the probes. */
static int fill_layers(struct q_model *m, const struct probe *probes,
		       const int *probe_of, const int *inside_of)
{
	struct enpu_quantize_report *r = m->report;
	const Onnx__GraphProto *g = m->graph;

	r->layers = calloc(g->n_node + 1, sizeof(*r->layers));
	if (!r->layers)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t n = 0; n < g->n_node; n++) {
		const Onnx__NodeProto *node = g->node[n];
		int t = m->nodes[n].quantize ? node_result(m, n) : -1;
		double inherited = 0;

		if (t < 0 || probe_of[t] < 0 || !probes[probe_of[t]].found)
			continue;
		for (size_t i = 0; i < node->n_input; i++) {
			int in;

			if (m->nodes[n].roles[i] != Q_IN_ACTIVATION)
				continue;
			in = q_find_tensor(m, node->input[i]);
			if (in >= 0 && probe_of[in] >= 0 &&
			    probes[probe_of[in]].found &&
			    1 - cosine(&probes[probe_of[in]]) > inherited)
				inherited = 1 - cosine(&probes[probe_of[in]]);
		}
		struct enpu_quantize_accuracy *a = &r->layers[r->layer_count++];

		if (fill(a, q_node_label(node),
			 node->op_type ? node->op_type : "",
			 &probes[probe_of[t]],
			 1 - cosine(&probes[probe_of[t]]) - inherited))
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		a->added_inside = a->added;
		if (inside_of[t] >= 0 && probes[inside_of[t]].found)
			a->added_inside = 1 - cosine(&probes[inside_of[t]]) -
				inherited;
	}
	return 0;
}

int q_evaluate(struct q_model *m, const void *qdq, size_t qdq_size,
	       const struct q_sample_list *samples)
{
	struct enpu_quantize_report *r = m->report;
	const Onnx__GraphProto *g = m->graph;
	size_t count = 0, outputs = g->n_output;
	struct side f = { 0 }, q = { 0 };
	Onnx__ModelProto *qmodel;
	struct probe *probes;
	const char **fnames, **qnames;
	int *probe_of, *inside_of;
	int status = 0;

	qmodel = onnx__model_proto__unpack(NULL, qdq_size, qdq);
	probes = calloc(2 * m->tensor_count + outputs + 1, sizeof(*probes));
	fnames = calloc(2 * m->tensor_count + 1, sizeof(*fnames));
	qnames = calloc(2 * m->tensor_count + 1, sizeof(*qnames));
	probe_of = malloc((m->tensor_count + 1) * sizeof(*probe_of));
	inside_of = malloc((m->tensor_count + 1) * sizeof(*inside_of));
	if (!qmodel || !probes || !fnames || !qnames || !probe_of ||
	    !inside_of) {
		status = q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	/* Graph outputs first (same names in both), then activations. */
	for (size_t o = 0; o < outputs; o++) {
		probes[count].tensor = -1;
		probes[count].float_name = g->output[o]->name ?
			g->output[o]->name : "";
		probes[count++].int8_name = g->output[o]->name ?
			g->output[o]->name : "";
	}
	for (size_t t = 0; t < m->tensor_count; t++) {
		const struct q_tensor *qt = &m->tensors[t];

		probe_of[t] = -1;
		if (!qt->quantized || !qt->read_name)
			continue;
		fnames[count - outputs] = qt->name;
		qnames[count - outputs] = qt->read_name;
		probe_of[t] = (int)count;
		probes[count].tensor = (int)t;
		probes[count].float_name = qt->name;
		probes[count++].int8_name = qt->read_name;
	}
	/* The quantized ops' own results, before their output's Q/DQ. */
	for (size_t t = 0; t < m->tensor_count; t++)
		inside_of[t] = -1;
	for (size_t n = 0; n < g->n_node; n++) {
		int t = m->nodes[n].quantize ? node_result(m, n) : -1;
		const struct q_tensor *qt;

		/*
		 * With a folded Relu/Clip the op's pre-activation result is
		 * not observable in the QDQ model without disturbing the
		 * runtime's Conv+Q fusion; such layers report inside =
		 * added.
		 */
		if (t < 0 || probe_of[t] < 0 || inside_of[t] >= 0 ||
		    m->nodes[n].folded_act >= 0)
			continue;
		qt = &m->tensors[t];
		fnames[count - outputs] = qt->name;
		qnames[count - outputs] = qt->write_name ? qt->write_name :
			qt->name;
		inside_of[t] = (int)count;
		probes[count].tensor = t;
		probes[count].float_name = fnames[count - outputs];
		probes[count].int8_name = qnames[count - outputs];
		count++;
	}
	status = open_side(m, m->model, fnames, count - outputs, "float", &f);
	if (!status)
		status = open_side(m, qmodel, qnames, count - outputs, "int8",
				   &q);
	if (!status)
		status = find_probes(&f, &q, probes, count);
	for (size_t s = 0; !status && s < samples->count; s++)
		status = run_sample(m, &f, &q, samples->dirs[s], probes,
				    count);
	if (status)
		goto out;
	r->evaluation_samples = samples->count;
	r->outputs = calloc(outputs + 1, sizeof(*r->outputs));
	if (!r->outputs) {
		status = q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (size_t o = 0; o < outputs; o++) {
		if (!probes[o].found)
			continue;
		if (fill(&r->outputs[r->output_count++], probes[o].float_name,
			 NULL, &probes[o], 0)) {
			status = q_fail(m, ENPU_RT_OUT_OF_MEMORY,
					"out of memory");
			goto out;
		}
	}
	status = fill_layers(m, probes, probe_of, inside_of);
out:
	if (f.session || f.bound)
		close_side(&f);
	if (q.session || q.bound)
		close_side(&q);
	if (qmodel)
		onnx__model_proto__free_unpacked(qmodel, NULL);
	free(probes);
	free(fnames);
	free(qnames);
	free(probe_of);
	free(inside_of);
	return status;
}
