// SPDX-License-Identifier: MIT
/*
 * Lowering of quantized convolution, pooling, elementwise and data
 * movement forms to the integer ops of ops/qconv.c, qpool.c, qeltwise.c,
 * layout.c and to QGemm (quantized.h). A QDQ group is a float op whose
 * activation inputs come from DequantizeLinear (per tensor, constant
 * scale, constant 8-bit zero point) and whose one output goes, through an
 * optional Relu or Clip, to a QuantizeLinear with the same kind of
 * parameters:
 *
 *   Q(act?(Conv(DQ(x), DQ(W int8 sym.), DQ(b int32)|b float|-)))
 *                                -> QConv(x, xs, xz, W, ws, -, ys, yz, b')
 *   Q(act?(Gemm(DQ(a), DQ(W int8), DQ(c int32)|c float|-)))
 *                                -> QGemm (W transposed once for transB)
 *   Q(act?(Add|Mul(DQ(a), DQ(b))))  -> QAdd|QMul(a, as, az, b, bs, bz, ys, yz)
 *   Q(MaxPool(DQ(x)))              -> QMaxPool(x)      same scale and zp
 *   Q(AveragePool(DQ(x)))          -> QAveragePool(x, xs, xz, ys, yz)
 *   Q(GlobalAveragePool(DQ(x)))    -> QGlobalAveragePool(x, xs, xz, ys, yz)
 *   Q(Flatten|Reshape(DQ(x)))      -> Flatten|Reshape(x)  same scale and zp
 *   Q(Concat(DQ(x1), ...))         -> QConcat(x1, ...)    all scales agree
 *   QLinearConv with int8 constant symmetric weights -> QConv
 *   QuantizeLinear(float graph input) per tensor -> Quantize8
 *
 * b' = round(b * b_scale[m] / (xs * ws[m])): the bias in accumulator
 * units (exactly b when the exporter used b_scale = xs * ws, as ONNX
 * Runtime's quantizer does). Anything that does not fit (non-constant
 * parameters, per-axis activations, asymmetric or uint8 weights,
 * requantization scales outside the fixed-point rule) stays as it is and
 * runs in float: correct, only slower. DequantizeLinear nodes nobody reads
 * any more are dropped at the end.
 */
#include <math.h>
#include <string.h>

#include "quantized.h"

struct qparam {
	int value;		/* the 8-bit tensor */
	int scale, zero;	/* value indices */
	double s;
	int32_t z;
	int32_t dtype;
	int node;		/* the DequantizeLinear / QuantizeLinear */
};

static int is_op(const struct rt_node *node, const char *op_type)
{
	return !node->removed && !strcmp(node->op_type, op_type) &&
	       (!node->domain[0] || !strcmp(node->domain, "ai.onnx"));
}

static int in_at(const struct rt_node *node, size_t i)
{
	return i < node->input_count ? node->inputs[i] : -1;
}

static int producer_of(const struct rt_graph *g, int value)
{
	return value < 0 ? -1 : g->values[value].producer;
}

static const struct rt_tensor *constant(const struct rt_graph *g, int value)
{
	if (value < 0 || g->values[value].kind != RT_VALUE_CONSTANT)
		return NULL;
	return &g->values[value].tensor;
}

static int live_readers(const struct rt_graph *g, int value, int *reader)
{
	int count = 0;

	for (size_t n = 0; n < g->node_count; n++) {
		const struct rt_node *node = &g->nodes[n];

		if (node->removed)
			continue;
		for (size_t i = 0; i < node->input_count; i++)
			if (node->inputs[i] == value) {
				count++;
				*reader = (int)n;
			}
	}
	return count + (g->values[value].is_output ? 1 : 0);
}

static const struct rt_attr *attr(const struct rt_node *node,
				  const char *name)
{
	for (size_t i = 0; i < node->attr_count; i++)
		if (!strcmp(node->attrs[i].name, name))
			return &node->attrs[i];
	return NULL;
}

static int64_t attr_int(const struct rt_node *node, const char *name,
			int64_t fallback)
{
	const struct rt_attr *a = attr(node, name);

	return a && a->type == RT_ATTR_INT ? a->i : fallback;
}

static float attr_float(const struct rt_node *node, const char *name,
			float fallback)
{
	const struct rt_attr *a = attr(node, name);

	return a && a->type == RT_ATTR_FLOAT ? a->f : fallback;
}

static int is_8bit(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 || dtype == ENPU_RT_INT8;
}

/* Per-tensor constant scale and 8-bit zero point of a Q or DQ node. */
static int per_tensor(const struct rt_graph *g, const struct rt_node *node,
		      struct qparam *p)
{
	const struct rt_tensor *s = constant(g, in_at(node, 1));
	const struct rt_tensor *z = constant(g, in_at(node, 2));

	if (node->input_count < 1 || node->inputs[0] < 0 ||
	    node->output_count < 1 || node->outputs[0] < 0 ||
	    !s || s->dtype != ENPU_RT_FLOAT || rt_tensor_elements(s) != 1 ||
	    s->rank > 1 || !z || !is_8bit(z->dtype) ||
	    rt_tensor_elements(z) != 1 || z->rank > 1)
		return 0;
	p->value = node->inputs[0];
	p->scale = node->inputs[1];
	p->zero = node->inputs[2];
	p->s = *(const float *)s->data;
	p->z = z->dtype == ENPU_RT_UINT8 ? *(const uint8_t *)z->data :
	       *(const int8_t *)z->data;
	p->dtype = z->dtype;
	p->node = (int)(node - g->nodes);
	return p->s > 0 && isfinite(p->s);
}

/* @value is the output of a DequantizeLinear of an 8-bit activation. */
static int dq_input(const struct rt_graph *g, int value, struct qparam *p)
{
	int producer = value >= 0 ? g->values[value].producer : -1;

	if (producer < 0 || !is_op(&g->nodes[producer], "DequantizeLinear") ||
	    g->nodes[producer].input_count < 3)
		return 0;
	return per_tensor(g, &g->nodes[producer], p);
}

/* Relu, or Clip with constant bounds, as a fused activation. */
static int activation_of(const struct rt_graph *g, const struct rt_node *act,
			 struct rt_activation *a)
{
	a->kind = RT_ACTIVATION_NONE;
	if (is_op(act, "Relu")) {
		a->kind = RT_ACTIVATION_RELU;
		return 1;
	}
	if (!is_op(act, "Clip"))
		return 0;
	a->kind = RT_ACTIVATION_CLIP;
	a->min = -INFINITY;
	a->max = INFINITY;
	if (act->opset < 11) {
		a->min = attr_float(act, "min", -INFINITY);
		a->max = attr_float(act, "max", INFINITY);
		return 1;
	}
	for (size_t i = 1; i < 3; i++) {
		const struct rt_tensor *t;

		if (in_at(act, i) < 0)
			continue;
		t = constant(g, act->inputs[i]);
		if (!t || t->dtype != ENPU_RT_FLOAT ||
		    rt_tensor_elements(t) != 1)
			return 0;
		if (i == 1)
			a->min = *(const float *)t->data;
		else
			a->max = *(const float *)t->data;
	}
	return 1;
}

/*
 * The output side of a group: @node's one output reaches exactly one
 * QuantizeLinear, through at most one activation when @act is non-NULL.
 */
static int q_output(const struct rt_graph *g, const struct rt_node *node,
		    struct qparam *p, int *act_node, struct rt_activation *act)
{
	int reader, value;

	*act_node = -1;
	if (act)
		act->kind = RT_ACTIVATION_NONE;
	if (node->output_count < 1)
		return 0;
	for (size_t o = 1; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			return 0;
	value = node->outputs[0];
	if (value < 0 || live_readers(g, value, &reader) != 1 ||
	    g->values[value].is_output)
		return 0;
	if (act && g->nodes[reader].output_count >= 1 &&
	    g->nodes[reader].outputs[0] >= 0 && g->nodes[reader].input_count &&
	    activation_of(g, &g->nodes[reader], act)) {
		*act_node = reader;
		value = g->nodes[reader].outputs[0];
		if (g->nodes[reader].inputs[0] != node->outputs[0] ||
		    live_readers(g, value, &reader) != 1 ||
		    g->values[value].is_output)
			return 0;
	}
	if (!is_op(&g->nodes[reader], "QuantizeLinear") ||
	    g->nodes[reader].input_count < 3 ||
	    g->nodes[reader].inputs[0] != value)
		return 0;
	if (attr_int(&g->nodes[reader], "output_dtype", 0))
		return 0;
	return per_tensor(g, &g->nodes[reader], p);
}

int rt_graph_retype(struct rt_graph *g, struct rt_node *node,
		    const char *domain, const char *op_type)
{
	node->op_type = op_type;
	node->domain = domain;
	node->opset = 1;
	node->kernel.op_type = op_type;
	node->kernel.domain = domain;
	node->kernel.opset = 1;
	node->def = rt_op_find(domain, op_type, 1);
	if (!node->def) {
		rt_error_set(g->errors, ENPU_RT_UNSUPPORTED,
			     "node '%s': %s.%s is not registered", node->name,
			     domain, op_type);
		return -1;
	}
	return 1;
}

static int oom(struct rt_graph *g, const struct rt_node *node)
{
	return rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
			    "out of memory lowering '%s'", node->name);
}

/*
 * Turns node @n into @domain.@op_type with @inputs, taking over the output
 * of the group's QuantizeLinear @q (and dropping @act_node between them).
 */
static int rewrite(struct rt_graph *g, size_t n, const char *op_type,
		   const int *inputs, size_t count, const struct qparam *q,
		   int act_node, const struct rt_activation *act)
{
	struct rt_node *node = &g->nodes[n];
	int *slots = rt_arena_alloc(&g->arena, (count + 1) * sizeof(int));
	int out;

	if (!slots)
		return oom(g, node);
	memcpy(slots, inputs, count * sizeof(int));
	node->inputs = slots;
	node->input_count = count;
	if (strcmp(op_type, node->op_type) &&
	    rt_graph_retype(g, node, RT_ENPU_DOMAIN, op_type) < 0)
		return -1;
	if (act)
		node->kernel.activation = *act;
	out = g->nodes[q->node].outputs[0];
	g->values[node->outputs[0]].producer = -1;
	node->outputs[0] = out;
	node->output_count = 1;
	g->values[out].producer = (int)n;
	g->nodes[q->node].removed = 1;
	if (act_node >= 0)
		g->nodes[act_node].removed = 1;
	return 1;
}

/* Fixed-point rule can represent every xs * ws[c] / ys. */
static int requant_ok(double xs, const struct rt_tensor *ws, double ys)
{
	size_t n = rt_tensor_elements(ws);

	for (size_t c = 0; c < n; c++) {
		double scale = xs * ((const float *)ws->data)[c] / ys;
		int32_t m, s;

		if (!(scale > 0 && scale < 1) ||
		    enpu_requant_from_scale(scale, &m, &s))
			return 0;
	}
	return 1;
}

/*
 * Symmetric int8 weights: constant int8 @w of @rank, constant float scale
 * per tensor or per @channel_axis (length dims[channel_axis]), zero point
 * absent or all zeros. Returns the number of channels or 0.
 */
static int64_t sym_weights(const struct rt_graph *g, const struct rt_node *dq,
			   int rank, int channel_axis)
{
	const struct rt_tensor *w = constant(g, in_at(dq, 0));
	const struct rt_tensor *s = constant(g, in_at(dq, 1));
	const struct rt_tensor *z = constant(g, in_at(dq, 2));
	int64_t channels;
	size_t ns;

	if (!w || w->dtype != ENPU_RT_INT8 || w->rank != rank || !s ||
	    s->dtype != ENPU_RT_FLOAT || (in_at(dq, 2) >= 0 && !z))
		return 0;
	channels = w->dims[channel_axis];
	ns = rt_tensor_elements(s);
	if (ns != 1) {
		int64_t axis = attr_int(dq, "axis", 1);

		if (axis < 0)
			axis += rank;
		if (ns != (size_t)channels || s->rank != 1 ||
		    axis != channel_axis)
			return 0;
	}
	if (z) {
		if (z->dtype != ENPU_RT_INT8 ||
		    rt_tensor_elements(z) != ns)
			return 0;
		for (size_t i = 0; i < ns; i++)
			if (((const int8_t *)z->data)[i])
				return 0;
	}
	for (size_t i = 0; i < ns; i++)
		if (!(((const float *)s->data)[i] > 0))
			return 0;
	return channels;
}

/*
 * The bias input of Conv/Gemm as int32 in units of xs * ws[c]: a new
 * constant into *out (-1 when absent). Returns 0 when it does not fit.
 */
static int int_bias(struct rt_graph *g, int value, double xs, int ws_value,
		    int64_t channels, const char *base, int *out)
{
	const struct rt_tensor *b, *bs = NULL, *bz = NULL, *ws;
	int producer, index;
	size_t nbs = 1;

	*out = -1;
	if (value < 0)
		return 1;
	b = constant(g, value);
	producer = g->values[value].producer;
	if (!b && producer >= 0 &&
	    is_op(&g->nodes[producer], "DequantizeLinear")) {
		const struct rt_node *dq = &g->nodes[producer];

		b = constant(g, in_at(dq, 0));
		bs = constant(g, in_at(dq, 1));
		bz = constant(g, in_at(dq, 2));
		if (!b || b->dtype != ENPU_RT_INT32 || !bs ||
		    bs->dtype != ENPU_RT_FLOAT ||
		    (in_at(dq, 2) >= 0 && !bz))
			return 0;
		nbs = rt_tensor_elements(bs);
		if (nbs != 1 && nbs != (size_t)channels)
			return 0;
		if (bz)
			for (size_t i = 0; i < rt_tensor_elements(bz); i++)
				if (rt_tensor_get_double(bz, i) != 0)
					return 0;
	} else if (!b || b->dtype != ENPU_RT_FLOAT) {
		return 0;
	}
	if (rt_tensor_elements(b) != (size_t)channels)
		return 0;
	index = rt_graph_add_constant(g, base, "qbias", ENPU_RT_INT32, 1,
				      &channels);
	if (index < 0)
		return -1;
	/* The values array may have moved: fetch the tensors again. */
	b = &g->values[value].tensor;
	if (bs) {
		const struct rt_node *dq = &g->nodes[producer];

		b = &g->values[dq->inputs[0]].tensor;
		bs = &g->values[dq->inputs[1]].tensor;
	}
	ws = &g->values[ws_value].tensor;
	for (int64_t c = 0; c < channels; c++) {
		size_t nws = rt_tensor_elements(ws);
		double unit = xs * ((const float *)ws->data)[nws == 1 ? 0 : c];
		double real = bs ? rt_tensor_get_double(b, (size_t)c) *
			      ((const float *)bs->data)[nbs == 1 ? 0 : c] :
			      ((const float *)b->data)[c];
		double q = nearbyint(real / unit);

		if (!(fabs(q) < 2147483647.0))
			return 0;
		((int32_t *)g->values[index].tensor.data)[c] = (int32_t)q;
	}
	*out = index;
	return 1;
}

static int lower_conv(struct rt_graph *g, size_t n)
{
	struct rt_node *conv = &g->nodes[n];
	struct qparam x, y;
	struct rt_activation act;
	int act_node, wdq, bias, status;
	int64_t m;

	if (!is_op(conv, "Conv") || conv->input_count < 2 ||
	    !dq_input(g, conv->inputs[0], &x) ||
	    !q_output(g, conv, &y, &act_node, &act))
		return 0;
	wdq = producer_of(g, conv->inputs[1]);
	if (wdq < 0 || !is_op(&g->nodes[wdq], "DequantizeLinear"))
		return 0;
	m = sym_weights(g, &g->nodes[wdq], 4, 0);
	if (!m || !requant_ok(x.s, constant(g, g->nodes[wdq].inputs[1]), y.s))
		return 0;
	status = int_bias(g, in_at(conv, 2), x.s, g->nodes[wdq].inputs[1], m,
			  g->values[conv->outputs[0]].name, &bias);
	if (status <= 0)
		return status;
	{
		const struct rt_node *w = &g->nodes[wdq];
		int inputs[9] = {
			x.value, x.scale, x.zero, w->inputs[0], w->inputs[1],
			-1, y.scale, y.zero, bias,
		};

		return rewrite(g, n, "QConv", inputs, 9, &y, act_node, &act);
	}
}

static int lower_qlinear_conv(struct rt_graph *g, size_t n)
{
	struct rt_node *conv = &g->nodes[n];
	const struct rt_tensor *xs, *ys, *w, *ws, *wz, *b;
	int inputs[9], *slots;

	if (!is_op(conv, "QLinearConv") || conv->input_count < 8 ||
	    conv->inputs[0] < 0 || conv->output_count != 1)
		return 0;
	xs = constant(g, conv->inputs[1]);
	ys = constant(g, conv->inputs[6]);
	w = constant(g, conv->inputs[3]);
	ws = constant(g, conv->inputs[4]);
	wz = constant(g, conv->inputs[5]);
	b = constant(g, in_at(conv, 8));
	if (!xs || !ys || !w || !ws || !wz || w->dtype != ENPU_RT_INT8 ||
	    w->rank != 4 || !constant(g, conv->inputs[2]) ||
	    !constant(g, conv->inputs[7]) || (in_at(conv, 8) >= 0 && !b) ||
	    xs->dtype != ENPU_RT_FLOAT || ys->dtype != ENPU_RT_FLOAT ||
	    ws->dtype != ENPU_RT_FLOAT || rt_tensor_elements(xs) != 1 ||
	    rt_tensor_elements(ys) != 1 || wz->dtype != ENPU_RT_INT8)
		return 0;
	for (size_t i = 0; i < rt_tensor_elements(wz); i++)
		if (((const int8_t *)wz->data)[i])
			return 0;
	if (!requant_ok(*(const float *)xs->data, ws, *(const float *)ys->data))
		return 0;
	for (int i = 0; i < 9; i++)
		inputs[i] = in_at(conv, (size_t)i);
	inputs[5] = -1;
	/* No QuantizeLinear to absorb: the node keeps its own output. */
	slots = rt_arena_alloc(&g->arena, sizeof(inputs));
	if (!slots)
		return oom(g, conv);
	memcpy(slots, inputs, sizeof(inputs));
	conv->inputs = slots;
	conv->input_count = 9;
	return rt_graph_retype(g, conv, RT_ENPU_DOMAIN, "QConv");
}

static int lower_gemm(struct rt_graph *g, size_t n)
{
	struct rt_node *gemm = &g->nodes[n];
	struct qparam a, y;
	struct rt_activation act;
	int act_node, wdq, bias, trans_b, status, w_value;
	int64_t channels;

	if (!is_op(gemm, "Gemm") || gemm->input_count < 2 ||
	    attr_int(gemm, "transA", 0) ||
	    attr_float(gemm, "alpha", 1.0f) != 1.0f ||
	    (in_at(gemm, 2) >= 0 && attr_float(gemm, "beta", 1.0f) != 1.0f) ||
	    !dq_input(g, gemm->inputs[0], &a) ||
	    !q_output(g, gemm, &y, &act_node, &act))
		return 0;
	trans_b = attr_int(gemm, "transB", 0) != 0;
	wdq = producer_of(g, gemm->inputs[1]);
	if (wdq < 0 || !is_op(&g->nodes[wdq], "DequantizeLinear"))
		return 0;
	channels = sym_weights(g, &g->nodes[wdq], 2, trans_b ? 0 : 1);
	if (!channels)
		return 0;
	status = int_bias(g, in_at(gemm, 2), a.s, g->nodes[wdq].inputs[1],
			  channels, g->values[gemm->outputs[0]].name, &bias);
	if (status <= 0)
		return status;
	w_value = g->nodes[wdq].inputs[0];
	if (trans_b) {
		int64_t dims[2];
		const struct rt_tensor *w = &g->values[w_value].tensor;
		int t;

		dims[0] = w->dims[1];
		dims[1] = w->dims[0];
		t = rt_graph_add_constant(g, g->values[w_value].name, "t",
					  ENPU_RT_INT8, 2, dims);
		if (t < 0)
			return -1;
		w = &g->values[w_value].tensor;
		for (int64_t r = 0; r < dims[1]; r++)
			for (int64_t c = 0; c < dims[0]; c++)
				((int8_t *)g->values[t].tensor.data)
					[c * dims[1] + r] =
					((const int8_t *)w->data)[r * dims[0] + c];
		w_value = t;
	}
	{
		const struct rt_node *w = &g->nodes[wdq];
		int inputs[RT_QGEMM_INPUTS] = {
			[RT_QGEMM_A] = a.value, [RT_QGEMM_A_SCALE] = a.scale,
			[RT_QGEMM_A_ZERO] = a.zero, [RT_QGEMM_B] = w_value,
			[RT_QGEMM_B_SCALE] = w->inputs[1],
			[RT_QGEMM_B_ZERO] = -1, [RT_QGEMM_Y_SCALE] = y.scale,
			[RT_QGEMM_Y_ZERO] = y.zero, [RT_QGEMM_BIAS] = bias,
		};

		return rewrite(g, n, RT_QGEMM_OP, inputs, RT_QGEMM_INPUTS, &y,
			       act_node, &act);
	}
}

static int lower_eltwise(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam a, b, y;
	struct rt_activation act;
	int act_node, mul = is_op(node, "Mul");
	double ra, rb;

	if ((!mul && !is_op(node, "Add")) || node->input_count != 2 ||
	    !dq_input(g, node->inputs[0], &a) ||
	    !dq_input(g, node->inputs[1], &b) ||
	    !q_output(g, node, &y, &act_node, &act) ||
	    a.dtype != b.dtype || a.dtype != y.dtype)
		return 0;
	/* Ranges of the kernels' fixed-point parameters (enpu_cpu.h). */
	ra = mul ? a.s * b.s / y.s : a.s / y.s;
	rb = mul ? ra : b.s / y.s;
	if (!(ra < (mul ? 32768.0 : 1048576.0)) ||
	    !(rb < (mul ? 32768.0 : 1048576.0)) || !(ra > 1e-12) ||
	    !(rb > 1e-12))
		return 0;
	{
		int inputs[8] = {
			a.value, a.scale, a.zero, b.value, b.scale, b.zero,
			y.scale, y.zero,
		};

		return rewrite(g, n, mul ? "QMul" : "QAdd", inputs, 8, &y,
			       act_node, &act);
	}
}

static int same_quant(const struct qparam *a, const struct qparam *b)
{
	return a->s == b->s && a->z == b->z && a->dtype == b->dtype;
}

static int kernel_2d(const struct rt_node *node)
{
	const struct rt_attr *k = attr(node, "kernel_shape");

	return k && k->type == RT_ATTR_INTS && k->count == 2;
}

static int lower_pool(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam x, y;
	int act_node;

	if (node->input_count != 1 || !dq_input(g, node->inputs[0], &x) ||
	    (!is_op(node, "MaxPool") && !is_op(node, "AveragePool") &&
	     !is_op(node, "GlobalAveragePool")) ||
	    !q_output(g, node, &y, &act_node, NULL) || x.dtype != y.dtype)
		return 0;
	if (is_op(node, "MaxPool")) {
		int inputs[1] = { x.value };

		/* Max commutes with quantization only when both agree. */
		if (!same_quant(&x, &y) || !kernel_2d(node))
			return 0;
		return rewrite(g, n, "QMaxPool", inputs, 1, &y, -1, NULL);
	} else {
		int inputs[5] = { x.value, x.scale, x.zero, y.scale, y.zero };
		int global = is_op(node, "GlobalAveragePool");

		if (!global && !kernel_2d(node))
			return 0;
		return rewrite(g, n, global ? "QGlobalAveragePool" :
			       "QAveragePool", inputs, 5, &y, -1, NULL);
	}
}

static int lower_passthrough(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam x, y;
	int act_node;

	if ((!is_op(node, "Flatten") && !is_op(node, "Reshape")) ||
	    !dq_input(g, node->inputs[0], &x) ||
	    !q_output(g, node, &y, &act_node, NULL) || !same_quant(&x, &y))
		return 0;
	{
		int inputs[2] = { x.value, in_at(node, 1) };

		return rewrite(g, n, node->op_type, inputs,
			       node->input_count, &y, -1, NULL);
	}
}

static int lower_concat(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam x, first, y;
	int act_node, *inputs;

	if (!is_op(node, "Concat") || !node->input_count ||
	    !q_output(g, node, &y, &act_node, NULL))
		return 0;
	inputs = rt_arena_alloc(&g->arena, node->input_count * sizeof(int));
	if (!inputs)
		return oom(g, node);
	for (size_t i = 0; i < node->input_count; i++) {
		if (!dq_input(g, node->inputs[i], i ? &x : &first))
			return 0;
		if (i && !same_quant(&x, &first))
			return 0;
		inputs[i] = i ? x.value : first.value;
	}
	if (!same_quant(&first, &y))
		return 0;
	return rewrite(g, n, "QConcat", inputs, node->input_count, &y, -1,
		       NULL);
}

/*
 * QuantizeLinear of a float tensor with per-tensor constant parameters:
 * ai.enpu Quantize8, the same arithmetic in a vectorizable loop (and a
 * transposing one once the layout pass is done). Only where the input is
 * known to be float at load (graph inputs and constants).
 */
static int lower_quantize(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam q;

	if (!is_op(node, "QuantizeLinear") || node->input_count != 3 ||
	    node->output_count != 1 || node->inputs[0] < 0 ||
	    attr_int(node, "output_dtype", 0) ||
	    g->values[node->inputs[0]].tensor.dtype != ENPU_RT_FLOAT ||
	    g->values[node->inputs[0]].kind == RT_VALUE_INTERMEDIATE ||
	    !per_tensor(g, node, &q))
		return 0;
	return rt_graph_retype(g, node, RT_ENPU_DOMAIN, "Quantize8");
}

int rt_graph_lower_qdq_ops(struct rt_graph *g)
{
	static int (*const lowerings[])(struct rt_graph *, size_t) = {
		lower_qlinear_conv, lower_conv, lower_gemm, lower_eltwise,
		lower_pool, lower_passthrough, lower_concat, lower_quantize,
	};
	int changed = 1;

	for (size_t n = 0; n < g->node_count; n++)
		for (size_t l = 0; l < sizeof(lowerings) / sizeof(lowerings[0]);
		     l++) {
			int r = lowerings[l](g, n);

			if (r < 0)
				return g->errors->status ? g->errors->status :
				       ENPU_RT_OUT_OF_MEMORY;
			if (r > 0)
				break;
		}
	/* Drop DequantizeLinear nodes (and chains of them) nobody reads. */
	while (changed) {
		changed = 0;
		for (size_t n = 0; n < g->node_count; n++) {
			struct rt_node *node = &g->nodes[n];
			int reader;

			if (is_op(node, "DequantizeLinear") &&
			    !live_readers(g, node->outputs[0], &reader)) {
				node->removed = 1;
				changed = 1;
			}
		}
	}
	return 0;
}
