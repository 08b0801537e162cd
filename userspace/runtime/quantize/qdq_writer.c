// SPDX-License-Identifier: MIT
/*
 * Quantization parameters and the QDQ model. Activations get
 * QuantizeLinear -> DequantizeLinear right after their producer and every
 * reader takes the DequantizeLinear output; constants become quantized
 * initializers behind a DequantizeLinear. Values round the way ONNX
 * QuantizeLinear does (x / scale in float, half to even, saturate), so a
 * runtime reproducing the graph sees exactly these integers.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"
#include "quantize_internal.h"

struct weight_entry {
	const char *dq_name;	/* DequantizeLinear output */
	float *scales;
	size_t count;		/* 1: per tensor */
};

struct writer {
	struct q_model *m;
	Onnx__NodeProto **nodes;
	size_t node_count, node_capacity;
	Onnx__TensorProto **inits;
	size_t init_count, init_capacity;
	struct weight_entry *weights;	/* per tensor (weights, constants) */
};

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

void q_act_range(int32_t type, int32_t *lo, int32_t *hi)
{
	*lo = type == ENPU_RT_INT8 ? -128 : 0;
	*hi = type == ENPU_RT_INT8 ? 127 : 255;
}

/* ONNX QuantizeLinear: saturate(rint(x / scale) + zero_point). */
int32_t q_quantize_one(float x, float scale, int32_t zero_point,
			    int32_t lo, int32_t hi)
{
	float q = nearbyintf(x / scale);
	double v;

	if (isnan(q))
		return zero_point < lo ? lo : zero_point > hi ? hi : zero_point;
	v = (double)q + zero_point;
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Asymmetric parameters whose range always holds an exact zero. */
void q_asymmetric_params(double lo, double hi, int32_t type,
			 float *scale, int32_t *zero_point)
{
	int32_t qmin, qmax;
	double zp;

	q_act_range(type, &qmin, &qmax);
	lo = lo < 0 ? lo : 0;
	hi = hi > 0 ? hi : 0;
	*scale = (float)((hi - lo) / (qmax - qmin));
	if (!(*scale >= FLT_MIN) || !isfinite(*scale))
		*scale = 1.0f;	/* all zeros: any scale is exact */
	zp = nearbyint(qmin - lo / *scale);
	*zero_point = zp < qmin ? qmin : zp > qmax ? qmax : (int32_t)zp;
}

static int resolve_params(struct q_model *m, int t, int depth)
{
	struct q_tensor *qt = &m->tensors[t];
	double lo, hi;

	if (qt->share_from >= 0 && depth < 64) {
		int s = qt->share_from;

		if (!m->tensors[s].quantized)
			return q_fail(m, ENPU_RT_UNSUPPORTED,
				      "'%s' shares parameters with '%s', "
				      "which is not quantized", qt->name,
				      m->tensors[s].name);
		int status = resolve_params(m, s, depth + 1);

		if (status)
			return status;
		qt->scale = m->tensors[s].scale;
		qt->zero_point = m->tensors[s].zero_point;
		return 0;
	}
	if (!qt->seen)
		return q_fail(m, ENPU_RT_RUNTIME_ERROR,
			      "calibration saw no finite value of '%s'",
			      qt->name);
	q_tensor_range(m, qt, &lo, &hi);
	q_asymmetric_params(lo, hi, m->options->activation_type, &qt->scale,
			  &qt->zero_point);
	return 0;
}

int q_compute_params(struct q_model *m)
{
	for (size_t t = 0; t < m->tensor_count; t++) {
		struct q_tensor *qt = &m->tensors[t];
		int status;

		if (!qt->quantized)
			continue;
		status = resolve_params(m, (int)t, 0);
		if (status)
			return status;
		if (qt->producer >= 0 && qt->graph_output) {
			qt->write_name = q_unique_name(m, qt->name, "_float");
			qt->read_name = qt->name;
		} else {
			qt->read_name = q_unique_name(m, qt->name,
						      "_dequantized");
		}
		if (!qt->write_name || !qt->read_name)
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
	}
	return 0;
}

/* ---- building messages in the arena ---- */

static int push(struct q_model *m, void ***array, size_t *count,
		size_t *capacity, void *item)
{
	if (!item)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	if (*count == *capacity) {
		size_t grown_capacity = *capacity ? 2 * *capacity : 64;
		void **grown = realloc(*array, grown_capacity *
				       sizeof(*grown));

		if (!grown)
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		*array = grown;
		*capacity = grown_capacity;
	}
	(*array)[(*count)++] = item;
	return 0;
}

static int add_node(struct writer *w, Onnx__NodeProto *node)
{
	return push(w->m, (void ***)&w->nodes, &w->node_count,
		    &w->node_capacity, node);
}

static int add_init(struct writer *w, Onnx__TensorProto *tp)
{
	return push(w->m, (void ***)&w->inits, &w->init_count,
		    &w->init_capacity, tp);
}

static Onnx__TensorProto *new_tensor(struct q_model *m, const char *name,
				     int32_t dtype, size_t rank,
				     const int64_t *dims, const void *data,
				     size_t bytes)
{
	Onnx__TensorProto *tp = rt_arena_alloc(&m->arena, sizeof(*tp));
	int64_t *d = rt_arena_alloc(&m->arena, (rank + 1) * sizeof(*d));
	uint8_t *raw = rt_arena_alloc(&m->arena, bytes + 1);

	if (!tp || !d || !raw || !name)
		return NULL;
	onnx__tensor_proto__init(tp);
	tp->name = (char *)name;
	tp->has_data_type = 1;
	tp->data_type = dtype;
	if (rank)
		memcpy(d, dims, rank * sizeof(*d));
	tp->n_dims = rank;
	tp->dims = d;
	memcpy(raw, data, bytes);
	tp->has_raw_data = 1;
	tp->raw_data.data = raw;
	tp->raw_data.len = bytes;
	return tp;
}

static Onnx__NodeProto *new_node(struct q_model *m, const char *op,
				 const char *name, const char *const *inputs,
				 size_t n_in, const char *output)
{
	Onnx__NodeProto *node = rt_arena_alloc(&m->arena, sizeof(*node));
	char **in = rt_arena_alloc(&m->arena, n_in * sizeof(*in));
	char **out = rt_arena_alloc(&m->arena, sizeof(*out));

	if (!node || !in || !out || !name || !output)
		return NULL;
	onnx__node_proto__init(node);
	node->op_type = (char *)op;
	node->name = (char *)name;
	for (size_t i = 0; i < n_in; i++) {
		if (!inputs[i])
			return NULL;
		in[i] = (char *)inputs[i];
	}
	node->n_input = n_in;
	node->input = in;
	out[0] = (char *)output;
	node->n_output = 1;
	node->output = out;
	return node;
}

static int set_axis(struct q_model *m, Onnx__NodeProto *node, int64_t axis)
{
	Onnx__AttributeProto *a = rt_arena_alloc(&m->arena, sizeof(*a));
	Onnx__AttributeProto **list = rt_arena_alloc(&m->arena,
						     sizeof(*list));

	if (!a || !list)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	onnx__attribute_proto__init(a);
	a->name = "axis";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = axis;
	list[0] = a;
	node->n_attribute = 1;
	node->attribute = list;
	return 0;
}

/* scale/zero-point initializers of one scalar activation parameter. */
static int add_scalar_params(struct writer *w, const char *base,
			     float scale, int32_t zero_point, int32_t type,
			     const char **scale_name, const char **zp_name)
{
	struct q_model *m = w->m;
	int8_t s8 = (int8_t)zero_point;
	uint8_t u8 = (uint8_t)zero_point;

	*scale_name = q_unique_name(m, base, "_scale");
	*zp_name = q_unique_name(m, base, "_zero_point");
	if (add_init(w, new_tensor(m, *scale_name, ENPU_RT_FLOAT, 0, NULL,
				   &scale, sizeof(scale))))
		return ENPU_RT_OUT_OF_MEMORY;
	return add_init(w, new_tensor(m, *zp_name, type, 0, NULL,
				      type == ENPU_RT_INT8 ?
				      (const void *)&s8 : (const void *)&u8,
				      1));
}

/* Q and DQ after the producer of an activation (or at the start). */
static int emit_qdq(struct writer *w, int t)
{
	struct q_model *m = w->m;
	struct q_tensor *qt = &m->tensors[t];
	int32_t type = m->options->activation_type;
	const char *scale, *zp, *quantized;
	int status;

	status = add_scalar_params(w, qt->name, qt->scale, qt->zero_point,
				   type, &scale, &zp);
	if (status)
		return status;
	quantized = q_unique_name(m, qt->name, "_quantized");
	const char *q_in[] = { qt->write_name, scale, zp };
	const char *dq_in[] = { quantized, scale, zp };

	status = add_node(w, new_node(m, "QuantizeLinear",
				      q_unique_name(m, qt->name,
						    "_QuantizeLinear"),
				      q_in, 3, quantized));
	if (status)
		return status;
	return add_node(w, new_node(m, "DequantizeLinear",
				    q_unique_name(m, qt->name,
						  "_DequantizeLinear"),
				    dq_in, 3, qt->read_name));
}

/* Element i's channel along @axis of a dense tensor. */
static size_t channel_of(const struct rt_tensor *v, int axis, size_t i)
{
	size_t inner = 1;

	for (int d = axis + 1; d < v->rank; d++)
		inner *= (size_t)v->dims[d];
	return (i / inner) % (size_t)v->dims[axis];
}

static size_t elements(const struct rt_tensor *v)
{
	size_t n = 1;

	for (int d = 0; d < v->rank; d++)
		n *= (size_t)v->dims[d];
	return n;
}

/* DQ over a quantized constant with per-channel or scalar parameters. */
static int emit_constant_dq(struct writer *w, int t, int32_t type,
			    const void *q, size_t bytes,
			    const struct rt_tensor *v, int axis,
			    const float *scales, const void *zero_points,
			    size_t channels, const char *suffix)
{
	struct q_model *m = w->m;
	struct q_tensor *qt = &m->tensors[t];
	int64_t count = (int64_t)channels;
	size_t zp_size = type == ENPU_RT_INT32 ? 4 : 1;
	const char *qname = q_unique_name(m, qt->name, suffix);
	const char *scale = q_unique_name(m, qt->name, "_scale");
	const char *zp = q_unique_name(m, qt->name, "_zero_point");
	const char *dq = q_unique_name(m, qt->name, "_dequantized");
	Onnx__NodeProto *node;
	int status;

	status = add_init(w, new_tensor(m, qname, type, (size_t)v->rank,
					v->dims, q, bytes));
	if (!status)
		status = add_init(w, new_tensor(m, scale, ENPU_RT_FLOAT,
						axis >= 0 ? 1 : 0, &count,
						scales,
						channels * sizeof(float)));
	if (!status)
		status = add_init(w, new_tensor(m, zp, type,
						axis >= 0 ? 1 : 0, &count,
						zero_points,
						channels * zp_size));
	if (status)
		return status;
	const char *in[] = { qname, scale, zp };

	node = new_node(m, "DequantizeLinear",
			q_unique_name(m, qt->name, "_DequantizeLinear"), in, 3,
			dq);
	if (!node)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	if (axis >= 0 && (status = set_axis(m, node, axis)))
		return status;
	w->weights[t].dq_name = dq;
	return add_node(w, node);
}

/* Symmetric int8: scale = max|w| / 127 per channel (or per tensor). */
static int emit_weight(struct writer *w, int t, int axis)
{
	struct q_model *m = w->m;
	struct rt_tensor v;
	int status = q_constant_value(m, t, &v);

	if (status)
		return status;
	if (axis >= v.rank || !m->per_channel)
		axis = -1;
	size_t n = elements(&v), channels = axis >= 0 ?
		(size_t)v.dims[axis] : 1;
	const float *x = v.data;
	float *scales = rt_arena_alloc(&m->arena, (channels + 1) *
				       sizeof(float));
	int8_t *q = rt_arena_alloc(&m->arena, n + 1);
	int8_t *zps = rt_arena_alloc(&m->arena, channels + 1);

	if (!scales || !q || !zps)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t c = axis >= 0 ? channel_of(&v, axis, i) : 0;
		float a = fabsf(x[i]);

		if (isfinite(a) && a > scales[c])
			scales[c] = a;
	}
	for (size_t c = 0; c < channels; c++) {
		scales[c] = scales[c] / 127.0f;
		if (!(scales[c] >= FLT_MIN))
			scales[c] = 1.0f;	/* an all-zero channel */
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = axis >= 0 ? channel_of(&v, axis, i) : 0;

		q[i] = (int8_t)q_quantize_one(x[i], scales[c], 0, -127, 127);
	}
	w->weights[t].scales = scales;
	w->weights[t].count = channels;
	return emit_constant_dq(w, t, ENPU_RT_INT8, q, n, &v, axis, scales,
				zps, channels, "_quantized");
}

/* A constant operand of Add/Mul/Concat: like an activation. */
static int emit_const_act(struct writer *w, int t)
{
	struct q_model *m = w->m;
	int32_t type = m->options->activation_type, lo, hi;
	struct rt_tensor v;
	int status = q_constant_value(m, t, &v);
	double min = 0, max = 0;
	float scale;
	int32_t zp;

	if (status)
		return status;
	size_t n = elements(&v);
	const float *x = v.data;
	uint8_t *q = rt_arena_alloc(&m->arena, n + 1);
	uint8_t zp8;

	if (!q)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (isfinite(x[i]) && x[i] < min)
			min = x[i];
		if (isfinite(x[i]) && x[i] > max)
			max = x[i];
	}
	q_asymmetric_params(min, max, type, &scale, &zp);
	q_act_range(type, &lo, &hi);
	for (size_t i = 0; i < n; i++)
		q[i] = (uint8_t)q_quantize_one(x[i], scale, zp, lo, hi);
	zp8 = (uint8_t)zp;
	return emit_constant_dq(w, t, type, q, n, &v, -1, &scale, &zp8, 1,
				"_quantized");
}

/* int32 bias in units of input_scale * weight_scale[c], zero point 0. */
static int emit_bias(struct writer *w, int t, int act, int weight)
{
	struct q_model *m = w->m;
	const struct weight_entry *we = &w->weights[weight];
	struct rt_tensor v;
	int status = q_constant_value(m, t, &v);

	if (status)
		return status;
	size_t n = elements(&v);
	const float *x = v.data;
	int32_t *q = rt_arena_alloc(&m->arena, (n + 1) * sizeof(int32_t));
	int32_t *zps = rt_arena_alloc(&m->arena, (n + 1) * sizeof(int32_t));
	float *scales = rt_arena_alloc(&m->arena, (n + 1) * sizeof(float));

	if (!q || !zps || !scales)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	if (we->count != 1 && we->count != n)
		return q_fail(m, ENPU_RT_INVALID_MODEL,
			      "bias '%s' has %zu elements for %zu weight "
			      "channels", m->tensors[t].name, n, we->count);
	for (size_t c = 0; c < we->count; c++)
		scales[c] = m->tensors[act].scale * we->scales[c];
	for (size_t i = 0; i < n; i++) {
		float s = scales[we->count == 1 ? 0 : i];
		double r = nearbyint((double)x[i] / s);

		q[i] = isnan(r) ? 0 : r > INT32_MAX ? INT32_MAX :
			r < INT32_MIN ? INT32_MIN : (int32_t)r;
	}
	/* A bias is per node: its scale depends on the node's input. */
	w->weights[t].dq_name = NULL;
	return emit_constant_dq(w, t, ENPU_RT_INT32, q, n * 4, &v,
				we->count == 1 ? -1 : 0, scales, zps,
				we->count, "_quantized");
}

static int input_tensor(struct q_model *m, const Onnx__NodeProto *node,
			size_t i)
{
	if (i >= node->n_input || !node->input[i] || !*node->input[i])
		return -1;
	return q_find_tensor(m, node->input[i]);
}

static int output_tensor(struct q_model *m, const Onnx__NodeProto *node,
			 size_t o)
{
	if (o >= node->n_output || !node->output[o] || !*node->output[o])
		return -1;
	return q_find_tensor(m, node->output[o]);
}

/*
 * Raising a model below opset 10 to 10: Slice-1's starts/ends/axes
 * attributes become Slice-10's constant int64 inputs (same clamping).
 */
static int slice_to_inputs(struct writer *w, Onnx__NodeProto *node)
{
	static const char *const names[] = { "starts", "ends", "axes" };
	struct q_model *m = w->m;
	char **in = rt_arena_alloc(&m->arena, 4 * sizeof(*in));
	Onnx__AttributeProto **keep = rt_arena_alloc(&m->arena,
		(node->n_attribute + 1) * sizeof(*keep));
	size_t n_in = 1, kept = 0;

	if (!in || !keep || node->n_input != 1)
		return in && keep ? 0 : q_fail(m, ENPU_RT_OUT_OF_MEMORY,
					       "out of memory");
	in[0] = node->input[0];
	for (size_t k = 0; k < 3; k++) {
		const Onnx__AttributeProto *a = q_attr(node, names[k]);
		Onnx__TensorProto *tp;
		int64_t dims[1];
		const char *name;

		if (!a)
			continue;
		dims[0] = (int64_t)a->n_ints;
		name = q_unique_name(m, q_node_label(node), names[k]);
		tp = new_tensor(m, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
				1, dims, a->ints, a->n_ints * sizeof(int64_t));
		if (!tp || add_init(w, tp))
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		in[n_in++] = (char *)name;
	}
	for (size_t i = 0; i < node->n_attribute; i++) {
		const char *an = or_empty(node->attribute[i]->name);

		if (strcmp(an, "starts") && strcmp(an, "ends") &&
		    strcmp(an, "axes"))
			keep[kept++] = node->attribute[i];
	}
	node->input = in;
	node->n_input = n_in;
	node->attribute = keep;
	node->n_attribute = kept;
	return 0;
}

static int emit_node(struct writer *w, size_t n)
{
	struct q_model *m = w->m;
	const Onnx__NodeProto *src = m->graph->node[n];
	const struct q_node *qn = &m->nodes[n];
	Onnx__NodeProto *node = rt_arena_alloc(&m->arena, sizeof(*node));
	char **in = rt_arena_alloc(&m->arena, (src->n_input + 1) *
				   sizeof(*in));
	char **out = rt_arena_alloc(&m->arena, (src->n_output + 1) *
				    sizeof(*out));
	int *out_tensor = rt_arena_alloc(&m->arena, (src->n_output + 1) *
					 sizeof(*out_tensor));
	int status;

	if (!node || !in || !out || !out_tensor)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	*node = *src;
	for (size_t i = 0; i < src->n_input; i++) {
		int t = input_tensor(m, src, i);
		enum q_input_role role = qn->quantize ? qn->roles[i] :
			Q_IN_NONE;

		in[i] = src->input[i];
		if (t < 0)
			continue;
		status = 0;
		if (role == Q_IN_WEIGHT && !w->weights[t].dq_name)
			status = emit_weight(w, t, i == 1 ?
					     qn->weight_axis : -1);
		else if (role == Q_IN_CONST_ACT && !w->weights[t].dq_name)
			status = emit_const_act(w, t);
		else if (role == Q_IN_BIAS)
			status = emit_bias(w, t,
					   input_tensor(m, src, qn->act_input),
					   input_tensor(m, src,
							qn->weight_input));
		if (status)
			return status;
		if (role == Q_IN_WEIGHT || role == Q_IN_CONST_ACT ||
		    role == Q_IN_BIAS) {
			in[i] = (char *)w->weights[t].dq_name;
			if (role == Q_IN_BIAS)
				w->weights[t].dq_name = NULL;
		} else {
			in[i] = (char *)m->tensors[t].read_name;
		}
	}
	node->input = in;
	for (size_t o = 0; o < src->n_output; o++) {
		int t = output_tensor(m, src, o);

		/* A folded Relu/Clip: write its output directly. */
		if (o == 0 && qn->folded_act >= 0)
			t = output_tensor(m, m->graph->node[qn->folded_act], 0);
		out[o] = t >= 0 ? (char *)m->tensors[t].write_name :
			src->output[o];
		out_tensor[o] = t;
	}
	node->output = out;
	status = 0;
	if (m->opset < 10 && m->out_opset >= 10 &&
	    !strcmp(or_empty(src->op_type), "Slice") &&
	    (!src->domain || !*src->domain))
		status = slice_to_inputs(w, node);
	if (!status)
		status = add_node(w, node);
	for (size_t o = 0; !status && o < src->n_output; o++)
		if (out_tensor[o] >= 0 && m->tensors[out_tensor[o]].quantized)
			status = emit_qdq(w, out_tensor[o]);
	return status;
}

/* Names some node reads, or the graph outputs. */
static int collect_used(struct writer *w, struct q_name_map *used)
{
	struct q_model *m = w->m;

	for (size_t n = 0; n < w->node_count; n++)
		for (size_t i = 0; i < w->nodes[n]->n_input; i++)
			if (w->nodes[n]->input[i] && *w->nodes[n]->input[i] &&
			    q_map_put(m, used, w->nodes[n]->input[i], 1))
				return ENPU_RT_OUT_OF_MEMORY;
	for (size_t o = 0; o < m->graph->n_output; o++)
		if (q_map_put(m, used, or_empty(m->graph->output[o]->name), 1))
			return ENPU_RT_OUT_OF_MEMORY;
	return 0;
}

/* An original initializer, inline even when it was external data. */
static Onnx__TensorProto *keep_initializer(struct q_model *m,
					   Onnx__TensorProto *tp)
{
	struct rt_tensor v;
	char what[300];

	if (!tp->has_data_location || tp->data_location !=
	    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return tp;
	snprintf(what, sizeof(what), "initializer '%s'", or_empty(tp->name));
	if (rt_onnx_convert_tensor(tp, what, m->base_dir, &m->arena, &v,
				   &m->errors)) {
		q_fail(m, m->errors.status, "%s", m->errors.message);
		return NULL;
	}
	return new_tensor(m, or_empty(tp->name), tp->data_type,
			  (size_t)v.rank, v.dims, v.data, v.byte_size);
}

static int pack_model(struct writer *w, void **out, size_t *out_size)
{
	struct q_model *m = w->m;
	Onnx__GraphProto *src = m->graph;
	Onnx__ModelProto model = *m->model;
	Onnx__GraphProto graph = *src;
	struct q_name_map used = { 0 }, present = { 0 };
	Onnx__OperatorSetIdProto opset, **opsets;
	size_t kept = 0;

	if (collect_used(w, &used))
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	/* Constants nobody reads any more (a replaced Constant weight). */
	for (size_t n = 0; n < w->node_count; n++) {
		Onnx__NodeProto *node = w->nodes[n];

		if (!strcmp(or_empty(node->op_type), "Constant") &&
		    (!node->domain || !*node->domain) && node->n_output == 1 &&
		    q_map_get(&used, or_empty(node->output[0])) < 0)
			continue;
		w->nodes[kept++] = node;
		for (size_t o = 0; o < node->n_output; o++)
			if (q_map_put(m, &present, or_empty(node->output[o]),
				      1))
				return ENPU_RT_OUT_OF_MEMORY;
	}
	w->node_count = kept;
	for (size_t i = 0; i < src->n_initializer; i++) {
		Onnx__TensorProto *tp;

		if (q_map_get(&used, or_empty(src->initializer[i]->name)) < 0)
			continue;
		tp = keep_initializer(m, src->initializer[i]);
		if (!tp)
			return m->errors.status ? m->errors.status :
				ENPU_RT_OUT_OF_MEMORY;
		if (add_init(w, tp))
			return ENPU_RT_OUT_OF_MEMORY;
	}
	for (size_t i = 0; i < w->init_count; i++)
		if (q_map_put(m, &present, or_empty(w->inits[i]->name), 1))
			return ENPU_RT_OUT_OF_MEMORY;
	graph.node = w->nodes;
	graph.n_node = w->node_count;
	graph.initializer = w->inits;
	graph.n_initializer = w->init_count;
	graph.input = rt_arena_alloc(&m->arena, (src->n_input + 1) *
				     sizeof(*graph.input));
	graph.value_info = rt_arena_alloc(&m->arena, (src->n_value_info + 1) *
					  sizeof(*graph.value_info));
	opsets = rt_arena_alloc(&m->arena, (m->model->n_opset_import + 1) *
				sizeof(*opsets));
	if (!graph.input || !graph.value_info || !opsets)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	graph.n_input = 0;
	for (size_t i = 0; i < src->n_input; i++) {
		const char *name = or_empty(src->input[i]->name);
		int t = q_find_tensor(m, name);

		/* Drop only inputs that named a replaced initializer. */
		if (t >= 0 && !m->tensors[t].graph_input &&
		    q_map_get(&present, name) < 0)
			continue;
		graph.input[graph.n_input++] = src->input[i];
	}
	graph.n_value_info = 0;
	for (size_t i = 0; i < src->n_value_info; i++)
		if (q_map_get(&present, or_empty(src->value_info[i]->name)) >= 0)
			graph.value_info[graph.n_value_info++] =
				src->value_info[i];
	for (size_t i = 0; i < m->model->n_opset_import; i++) {
		Onnx__OperatorSetIdProto *o = m->model->opset_import[i];

		opsets[i] = o;
		if (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) {
			opset = *o;
			opset.has_version = 1;
			opset.version = m->out_opset;
			opsets[i] = &opset;
		}
	}
	model.opset_import = opsets;
	model.graph = &graph;
	/* Opset 13 needs IR version 7, opset 10 IR version 5. */
	if (model.has_ir_version && model.ir_version < 7 && m->out_opset >= 13)
		model.ir_version = 7;
	if (model.has_ir_version && model.ir_version < 5 && m->out_opset >= 10)
		model.ir_version = 5;
	*out_size = onnx__model_proto__get_packed_size(&model);
	*out = malloc(*out_size ? *out_size : 1);
	if (!*out)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	onnx__model_proto__pack(&model, *out);
	return 0;
}

int q_write_model(struct q_model *m, void **out, size_t *out_size)
{
	struct writer w = { .m = m };
	int status = 0;

	w.weights = calloc(m->tensor_count + 1, sizeof(*w.weights));
	if (!w.weights)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t t = 0; t < m->tensor_count && !status; t++)
		if (m->tensors[t].quantized && m->tensors[t].producer < 0)
			status = emit_qdq(&w, (int)t);
	for (size_t n = 0; n < m->graph->n_node && !status; n++)
		if (m->nodes[n].folded_into < 0)
			status = emit_node(&w, n);
	if (!status)
		status = pack_model(&w, out, out_size);
	free(w.weights);
	free(w.nodes);
	free(w.inits);
	return status;
}
