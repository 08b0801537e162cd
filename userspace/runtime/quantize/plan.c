// SPDX-License-Identifier: MIT
/*
 * Which ops get Q/DQ around them, which inputs are weights, biases or
 * activations, which Relu/Clip fold into the preceding op's output range,
 * and whether the opset can move to 13 (per-channel DequantizeLinear needs
 * its `axis`).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "quantize_internal.h"

/*
 * The first opset version of each op whose semantics equal opset 13's for
 * every model that was valid at that version. Moving a model from opset N
 * < 13 to 13 is only done when each op's entry is <= N; anything else
 * (Softmax's axis meaning, Squeeze/Unsqueeze/Split/ReduceSum taking axes
 * as inputs, Clip before 11 taking attributes, ops missing here) refuses.
 */
static const struct {
	const char *op;
	int64_t since;
} same_as_opset_13[] = {
	{ "Abs", 6 }, { "Add", 7 }, { "AveragePool", 7 },
	{ "BatchNormalization", 9 }, { "Cast", 6 }, { "Clip", 11 },
	{ "Concat", 4 }, { "Constant", 1 }, { "Conv", 1 }, { "Div", 7 },
	{ "Dropout", 12 }, { "Exp", 6 }, { "Expand", 8 }, { "Flatten", 1 },
	{ "Gather", 1 }, { "Gemm", 7 }, { "GlobalAveragePool", 1 },
	{ "GlobalMaxPool", 1 }, { "HardSigmoid", 6 }, { "Identity", 1 },
	{ "LeakyRelu", 6 }, { "Log", 6 }, { "MatMul", 1 }, { "Max", 8 },
	{ "MaxPool", 8 }, { "Min", 8 }, { "Mul", 7 }, { "Neg", 6 },
	{ "PRelu", 7 }, { "Pad", 11 }, { "Pow", 7 }, { "ReduceMax", 1 },
	{ "ReduceMean", 1 }, { "ReduceMin", 1 }, { "Relu", 6 },
	{ "Reshape", 5 }, { "Resize", 11 }, { "Shape", 1 }, { "Sigmoid", 6 },
	{ "Slice", 10 }, { "Sqrt", 6 }, { "Sub", 7 }, { "Sum", 8 },
	{ "Tanh", 6 }, { "Transpose", 1 },
};

/*
 * Ops whose meaning changed at opset 10 (inputs instead of attributes, or
 * deprecated), for raising a model below 10 to 10, where QuantizeLinear
 * and DequantizeLinear (per tensor) first exist.
 */
static const char *const changed_at_10[] = {
	"TopK", "Upsample",	/* Slice: the writer moves its attributes */
};

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static int default_domain(const Onnx__NodeProto *node)
{
	return !node->domain || !*node->domain ||
		!strcmp(node->domain, "ai.onnx");
}

static int op_is(const Onnx__NodeProto *node, const char *op)
{
	return default_domain(node) && !strcmp(or_empty(node->op_type), op);
}

/*
 * Below opset 13: raise the model to 13 when every op keeps its meaning
 * there (per-channel weights need DequantizeLinear's axis); otherwise, or
 * when weights are per tensor anyway, keep the opset (QuantizeLinear and
 * DequantizeLinear exist since 10) with per-tensor weights. Below 10 the
 * model moves to 10 unless an op changed meaning there.
 */
int q_check_opset(struct q_model *m)
{
	const Onnx__NodeProto *blocker = NULL;
	int unknown = 0;

	m->out_opset = m->opset;
	m->per_channel = m->options->per_channel;
	if (m->opset >= 13)
		return 0;
	for (size_t n = 0; n < m->graph->n_node && !blocker; n++) {
		const Onnx__NodeProto *node = m->graph->node[n];
		size_t i, count = sizeof(same_as_opset_13) /
			sizeof(same_as_opset_13[0]);

		if (!default_domain(node))
			continue;
		for (i = 0; i < count; i++)
			if (!strcmp(same_as_opset_13[i].op,
				    or_empty(node->op_type)))
				break;
		if (i == count || same_as_opset_13[i].since > m->opset) {
			blocker = node;
			unknown = i == count;
		}
	}
	if (m->opset >= 10 && (blocker || !m->per_channel)) {
		if (blocker)
			q_note(m, "opset %lld kept: node '%s' (%s) %s at "
			       "opset 13, which per-channel weights need; "
			       "weights quantized per tensor",
			       (long long)m->opset, q_node_label(blocker),
			       or_empty(blocker->op_type),
			       unknown ? "is not known to keep its meaning" :
			       "changes meaning");
		m->per_channel = 0;
		return 0;
	}
	if (blocker) {
		/* Below 10: opset 10 and per-tensor weights, if every op
		 * means the same there. */
		for (size_t n = 0; n < m->graph->n_node; n++) {
			const Onnx__NodeProto *node = m->graph->node[n];

			for (size_t i = 0; default_domain(node) &&
			     i < sizeof(changed_at_10) /
			     sizeof(changed_at_10[0]); i++)
				if (!strcmp(changed_at_10[i],
					    or_empty(node->op_type)))
					return q_fail(m, ENPU_RT_UNSUPPORTED,
						"node '%s' (%s): the model's "
						"opset %lld is below 10, which "
						"QuantizeLinear needs, and this "
						"op changed meaning at 10; "
						"re-export the model with opset "
						"13 or later",
						q_node_label(node),
						or_empty(node->op_type),
						(long long)m->opset);
		}
		q_note(m, "opset raised from %lld to 10 (QuantizeLinear; no "
		       "op changes meaning there); node '%s' (%s) %s at "
		       "opset 13, which per-channel weights need: weights "
		       "quantized per tensor", (long long)m->opset,
		       q_node_label(blocker), or_empty(blocker->op_type),
		       unknown ? "is not known to keep its meaning" :
		       "changes meaning");
		m->out_opset = 10;
		m->per_channel = 0;
		return 0;
	}
	m->out_opset = 13;
	q_note(m, "opset raised from %lld to 13 (every op keeps its "
	       "meaning)", (long long)m->opset);
	return 0;
}

static int rank_of(struct q_model *m, int tensor)
{
	const struct q_tensor *t = &m->tensors[tensor];
	const Onnx__TensorProto *tp = NULL;

	if (t->initializer >= 0) {
		tp = m->graph->initializer[t->initializer];
	} else if (t->constant_node >= 0) {
		const Onnx__AttributeProto *a =
			q_attr(m->graph->node[t->constant_node], "value");

		tp = a ? a->t : NULL;
	}
	return tp ? (int)tp->n_dims : -1;
}

static int64_t dim_of(struct q_model *m, int tensor, int axis)
{
	const struct q_tensor *t = &m->tensors[tensor];
	const Onnx__TensorProto *tp = NULL;

	if (t->initializer >= 0) {
		tp = m->graph->initializer[t->initializer];
	} else if (t->constant_node >= 0) {
		const Onnx__AttributeProto *a =
			q_attr(m->graph->node[t->constant_node], "value");

		tp = a ? a->t : NULL;
	}
	return tp && axis >= 0 && (size_t)axis < tp->n_dims ?
		tp->dims[axis] : -1;
}

/* A constant we can read as float: an initializer or Constant `value`. */
static const char *constant_problem(struct q_model *m, int tensor)
{
	const struct q_tensor *t = &m->tensors[tensor];

	if (t->initializer < 0 && t->constant_node < 0)
		return "is a computed constant, not an initializer";
	if (rank_of(m, tensor) < 0)
		return "is a Constant without a `value` tensor";
	if (t->initializer >= 0 &&
	    m->graph->initializer[t->initializer]->data_type != ENPU_RT_FLOAT)
		return "is not float";
	if (t->constant_node >= 0) {
		const Onnx__AttributeProto *a =
			q_attr(m->graph->node[t->constant_node], "value");

		if (a->t->data_type != ENPU_RT_FLOAT)
			return "is not float";
	}
	return NULL;
}

static int input_tensor(struct q_model *m, const Onnx__NodeProto *node,
			size_t i)
{
	if (i >= node->n_input || !node->input[i] || !*node->input[i])
		return -1;
	return q_find_tensor(m, node->input[i]);
}

/* Activations everywhere; constants as weights or like activations. */
static const char *plan_node(struct q_model *m, size_t n)
{
	const Onnx__NodeProto *node = m->graph->node[n];
	struct q_node *qn = &m->nodes[n];
	const char *op = or_empty(node->op_type);
	int weight_ok = 1;

	if (node->n_input > Q_MAX_NODE_INPUTS)
		return "has too many inputs";
	for (size_t i = 0; i < node->n_input; i++) {
		int t = input_tensor(m, node, i);

		qn->roles[i] = t < 0 ? Q_IN_NONE :
			m->tensors[t].constant ? Q_IN_CONST_ACT :
			Q_IN_ACTIVATION;
	}
	qn->weight_axis = -1;
	if (!strcmp(op, "Conv")) {
		int w = input_tensor(m, node, 1);

		if (node->n_input < 2 || w < 0 || !m->tensors[w].constant)
			return "its weight is not a constant";
		if (qn->roles[0] != Q_IN_ACTIVATION)
			return "its input is a constant";
		qn->roles[1] = Q_IN_WEIGHT;
		qn->weight_axis = 0;
		if (input_tensor(m, node, 2) >= 0) {
			int b = input_tensor(m, node, 2);

			if (!m->tensors[b].constant || rank_of(m, b) != 1)
				return "its bias is not a constant 1-D tensor";
			qn->roles[2] = Q_IN_BIAS;
			qn->bias_input = 2;
			qn->weight_input = 1;
			qn->act_input = 0;
		}
	} else if (!strcmp(op, "MatMul")) {
		for (int i = 0; i < 2; i++) {
			int t = input_tensor(m, node, (size_t)i);

			if (t >= 0 && m->tensors[t].constant)
				qn->roles[i] = Q_IN_WEIGHT;
		}
		if (qn->roles[0] == Q_IN_WEIGHT && qn->roles[1] == Q_IN_WEIGHT)
			return "both inputs are constants";
		int b = input_tensor(m, node, 1);

		if (qn->roles[1] == Q_IN_WEIGHT && rank_of(m, b) >= 2)
			qn->weight_axis = rank_of(m, b) - 1;
	} else if (!strcmp(op, "Gemm")) {
		for (int i = 0; i < 2; i++) {
			int t = input_tensor(m, node, (size_t)i);

			if (t >= 0 && m->tensors[t].constant)
				qn->roles[i] = Q_IN_WEIGHT;
		}
		if (qn->roles[0] == Q_IN_WEIGHT && qn->roles[1] == Q_IN_WEIGHT)
			return "both inputs are constants";
		if (qn->roles[1] == Q_IN_WEIGHT)
			qn->weight_axis = q_attr_int(node, "transB", 0) ? 0 : 1;
		int c = input_tensor(m, node, 2);

		if (c >= 0) {
			int fold = m->tensors[c].constant &&
				qn->roles[1] == Q_IN_WEIGHT &&
				rank_of(m, c) == 1 &&
				dim_of(m, c, 0) == dim_of(m, input_tensor(
					m, node, 1), qn->weight_axis) &&
				q_attr_float(node, "alpha", 1.0f) == 1.0f &&
				q_attr_float(node, "beta", 1.0f) == 1.0f;

			/* Other forms of C stay float: ONNX allows that. */
			qn->roles[2] = fold ? Q_IN_BIAS : Q_IN_NONE;
			if (fold) {
				qn->bias_input = 2;
				qn->weight_input = 1;
				qn->act_input = 0;
			}
		}
	} else if (!strcmp(op, "Add") || !strcmp(op, "Mul") ||
		   !strcmp(op, "Concat")) {
		/*
		 * Constant operands quantize like activations; integer ones
		 * mean shape arithmetic, which is not ours to touch.
		 */
		for (size_t i = 0; i < node->n_input; i++) {
			int t = input_tensor(m, node, i);

			if (qn->roles[i] == Q_IN_CONST_ACT &&
			    constant_problem(m, t))
				return NULL;
		}
	} else if (!strcmp(op, "MaxPool") || !strcmp(op, "AveragePool") ||
		   !strcmp(op, "GlobalAveragePool") ||
		   !strcmp(op, "GlobalMaxPool")) {
		if (node->n_output > 1 && node->output[1] && *node->output[1])
			return "it returns indices";
		if (qn->roles[0] != Q_IN_ACTIVATION)
			return "its input is a constant";
	} else {
		return NULL;
	}
	for (size_t i = 0; i < node->n_input; i++) {
		int t = input_tensor(m, node, i);
		const char *problem;

		if (qn->roles[i] != Q_IN_WEIGHT && qn->roles[i] != Q_IN_BIAS &&
		    qn->roles[i] != Q_IN_CONST_ACT)
			continue;
		problem = constant_problem(m, t);
		if (problem) {
			q_note(m, "node '%s' (%s): input '%s' %s; the op "
			       "stays float", q_node_label(node), op,
			       m->tensors[t].name, problem);
			weight_ok = 0;
		}
	}
	qn->candidate = weight_ok;
	return NULL;
}

int q_plan_candidates(struct q_model *m)
{
	for (size_t n = 0; n < m->graph->n_node; n++) {
		const Onnx__NodeProto *node = m->graph->node[n];
		int has_activation = 0;

		if (!default_domain(node))
			continue;
		for (size_t o = 0; o < node->n_output; o++) {
			int t = node->output[o] && *node->output[o] ?
				q_find_tensor(m, node->output[o]) : -1;

			if (t >= 0 && !m->tensors[t].constant)
				has_activation = 1;
		}
		if (!has_activation)
			continue;	/* folded at load by any runtime */
		const char *why = plan_node(m, n);

		if (why) {
			q_note(m, "node '%s' (%s): %s; the op stays float",
			       q_node_label(node), or_empty(node->op_type),
			       why);
			m->nodes[n].candidate = 0;
		}
	}
	/* Statistics for every activation a candidate reads or writes. */
	for (size_t n = 0; n < m->graph->n_node; n++) {
		const Onnx__NodeProto *node = m->graph->node[n];

		if (!m->nodes[n].candidate)
			continue;
		for (size_t i = 0; i < node->n_input; i++)
			if (m->nodes[n].roles[i] == Q_IN_ACTIVATION)
				m->tensors[input_tensor(m, node, i)].wanted = 1;
		for (size_t o = 0; o < node->n_output; o++) {
			int t = node->output[o] && *node->output[o] ?
				q_find_tensor(m, node->output[o]) : -1;

			if (t < 0)
				continue;
			m->tensors[t].wanted = 1;
			/* A Relu/Clip that may fold needs its own range. */
			for (size_t c = 0; c < m->graph->n_node; c++) {
				const Onnx__NodeProto *cn = m->graph->node[c];

				if ((op_is(cn, "Relu") || op_is(cn, "Clip")) &&
				    cn->n_input && cn->input[0] &&
				    !strcmp(cn->input[0], node->output[o]) &&
				    cn->n_output && cn->output[0] &&
				    *cn->output[0]) {
					int r = q_find_tensor(m, cn->output[0]);

					if (r >= 0)
						m->tensors[r].wanted = 1;
				}
			}
		}
	}
	return 0;
}

/* Clip's bounds, when constant; absent bounds are infinite. */
static int clip_bounds(struct q_model *m, const Onnx__NodeProto *node,
		       float *lo, float *hi)
{
	*lo = -INFINITY;
	*hi = INFINITY;
	if (m->opset < 11) {
		*lo = q_attr_float(node, "min", -INFINITY);
		*hi = q_attr_float(node, "max", INFINITY);
		return 0;
	}
	for (size_t i = 1; i < 3; i++) {
		int t = input_tensor(m, node, i);
		struct rt_tensor v;

		if (t < 0)
			continue;
		if (!m->tensors[t].constant || constant_problem(m, t) ||
		    q_constant_value(m, t, &v) || v.byte_size != sizeof(float))
			return -1;
		if (i == 1)
			*lo = *(const float *)v.data;
		else
			*hi = *(const float *)v.data;
	}
	return 0;
}

static int foldable_op(const Onnx__NodeProto *node)
{
	return op_is(node, "Conv") || op_is(node, "MatMul") ||
		op_is(node, "Gemm") || op_is(node, "Add") ||
		op_is(node, "Mul");
}

static int node_output(struct q_model *m, const Onnx__NodeProto *node,
		       size_t o)
{
	if (o >= node->n_output || !node->output[o] || !*node->output[o])
		return -1;
	return q_find_tensor(m, node->output[o]);
}

/* A node left as it is that computes something at run time. */
static int computes_float_op(struct q_model *m, size_t n)
{
	const Onnx__NodeProto *node = m->graph->node[n];

	if (m->nodes[n].quantize || m->nodes[n].folded_into >= 0)
		return 0;
	for (size_t o = 0; o < node->n_output; o++) {
		int t = node_output(m, node, o);

		if (t >= 0 && !m->tensors[t].constant)
			return 1;
	}
	return 0;
}

static int is_forced_float(const struct q_model *m,
			   const Onnx__NodeProto *node)
{
	for (size_t i = 0; i < m->forced_count; i++)
		if (!strcmp(m->forced[i], q_node_label(node)))
			return 1;
	return 0;
}

int q_plan_finish(struct q_model *m)
{
	Onnx__GraphProto *g = m->graph;

	/* Ops on non-float activations (shape arithmetic) stay as they are. */
	for (size_t n = 0; n < g->n_node; n++) {
		const Onnx__NodeProto *node = g->node[n];
		struct q_node *qn = &m->nodes[n];

		if (!qn->candidate)
			continue;
		if (is_forced_float(m, node)) {
			q_note(m, "node '%s' (%s): kept in float (mixed "
			       "precision)", q_node_label(node),
			       or_empty(node->op_type));
			continue;
		}
		qn->quantize = 1;
		for (size_t i = 0; i < node->n_input; i++) {
			int t = input_tensor(m, node, i);

			if (qn->roles[i] == Q_IN_ACTIVATION &&
			    m->tensors[t].dtype != ENPU_RT_FLOAT)
				qn->quantize = 0;
		}
		for (size_t o = 0; o < node->n_output; o++) {
			int t = node_output(m, node, o);

			if (t >= 0 && m->tensors[t].dtype != ENPU_RT_FLOAT)
				qn->quantize = 0;
		}
		if (!qn->quantize && !op_is(node, "Concat") &&
		    !op_is(node, "Add") && !op_is(node, "Mul"))
			q_note(m, "node '%s' (%s): non-float tensors; the op "
			       "stays as it is", q_node_label(node),
			       or_empty(node->op_type));
	}
	/* Relu/Clip whose input only they read fold into that op's range. */
	for (size_t n = 0; n < g->n_node; n++) {
		const Onnx__NodeProto *node = g->node[n];
		int c, r, p;
		float lo, hi;

		if (!(op_is(node, "Relu") || op_is(node, "Clip")))
			continue;
		c = input_tensor(m, node, 0);
		r = node_output(m, node, 0);
		if (c < 0 || r < 0 || m->tensors[c].consumers != 1 ||
		    m->tensors[c].graph_output || m->tensors[r].dtype !=
		    ENPU_RT_FLOAT)
			continue;
		p = m->tensors[c].producer;
		if (p < 0 || !m->nodes[p].quantize || !foldable_op(g->node[p]))
			continue;
		if (op_is(node, "Clip")) {
			/*
			 * The folded Q clamps to the calibrated range, which
			 * always holds 0; that equals the Clip only when the
			 * bounds hold 0 too.
			 */
			if (clip_bounds(m, node, &lo, &hi) || !(lo <= 0.0f) ||
			    !(hi >= 0.0f))
				continue;
		}
		m->nodes[n].folded_into = (int)p;
		m->nodes[p].folded_act = (int)n;
		m->report->folded_activations++;
	}
	/* The activations that get Q/DQ, and MaxPool's shared parameters. */
	for (size_t n = 0; n < g->n_node; n++) {
		const Onnx__NodeProto *node = g->node[n];
		struct q_node *qn = &m->nodes[n];

		if (!qn->quantize)
			continue;
		m->report->quantized_nodes++;
		for (size_t i = 0; i < node->n_input; i++)
			if (qn->roles[i] == Q_IN_ACTIVATION)
				m->tensors[input_tensor(m, node, i)]
					.quantized = 1;
		int out = qn->folded_act >= 0 ?
			node_output(m, g->node[qn->folded_act], 0) :
			node_output(m, node, 0);

		if (out < 0)
			continue;
		m->tensors[out].quantized = 1;
		if (op_is(node, "MaxPool") || op_is(node, "GlobalMaxPool"))
			m->tensors[out].share_from = input_tensor(m, node, 0);
	}
	/* Notes for what stays float, one line per op type. */
	for (size_t n = 0; n < g->n_node; n++) {
		size_t count = 0;
		int first = 1;

		if (!computes_float_op(m, n))
			continue;
		m->report->float_nodes++;
		for (size_t e = 0; e < g->n_node; e++) {
			if (!computes_float_op(m, e) ||
			    strcmp(or_empty(g->node[e]->op_type),
				   or_empty(g->node[n]->op_type)) ||
			    strcmp(or_empty(g->node[e]->domain),
				   or_empty(g->node[n]->domain)))
				continue;
			if (e < n)
				first = 0;
			count++;
		}
		if (first)
			q_note(m, "left in float: %s%s%s x%zu",
			       or_empty(g->node[n]->domain),
			       *or_empty(g->node[n]->domain) ? "." : "",
			       or_empty(g->node[n]->op_type), count);
	}
	if (!m->report->quantized_nodes)
		return q_fail(m, ENPU_RT_UNSUPPORTED,
			      "nothing to quantize: no float Conv, MatMul, "
			      "Gemm, Add, Mul, pooling or Concat op on float "
			      "activations");
	return 0;
}
