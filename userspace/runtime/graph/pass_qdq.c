// SPDX-License-Identifier: MIT
/*
 * Lowering of quantized convolution, pooling, elementwise and data
 * movement forms to the integer ops of ops/qconv.c, qpool.c, qeltwise.c,
 * layout.c and to QGemm (ops/rt_enpu_ops.h). A QDQ group is a float op whose
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
 *                                  -> QLinearConcat(ys, yz, x1, xs1, xz1, ...)
 *                                     otherwise (one 8-bit type)
 *   Q(Resize(DQ(x), -, scales))    -> QResize(x, xs, xz, ys, yz, scales)
 *                                     linear, 4-D, spatial axes only
 *   QLinearConv with int8 constant symmetric weights -> QConv
 *   QuantizeLinear(float input of known type) per tensor -> Quantize8
 *
 * b' = round(b * b_scale[m] / (xs * ws[m])): the bias in accumulator
 * units (exactly b when the exporter used b_scale = xs * ws, as ONNX
 * Runtime's quantizer does). Anything that does not fit (non-constant
 * parameters, per-axis activations, asymmetric or uint8 weights,
 * requantization scales outside the fixed-point rule) stays as it is and
 * runs in float: correct, only slower. DequantizeLinear nodes nobody reads
 * any more are dropped by the pass after it.
 */
#include <math.h>
#include <string.h>

#include "enpu_quantization.h"
#include "passes.h"
#include "rewrite.h"

struct qparam {
	int value;		/* the 8-bit tensor */
	int scale, zero;	/* value indices */
	double s;
	int32_t z;
	int32_t dtype;
	int node;		/* the DequantizeLinear / QuantizeLinear */
};

static int is_8bit(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 || dtype == ENPU_RT_INT8;
}

/* Per-tensor constant scale and 8-bit zero point of a Q or DQ node. */
static int per_tensor(const struct rt_graph *g, const struct rt_node *node,
		      struct qparam *p)
{
	const struct rt_tensor *s = rt_value_constant(g, rt_node_input(node, 1));
	const struct rt_tensor *z = rt_value_constant(g, rt_node_input(node, 2));

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

	if (producer < 0 || !rt_node_is_onnx(&g->nodes[producer], "DequantizeLinear") ||
	    g->nodes[producer].input_count < 3)
		return 0;
	return per_tensor(g, &g->nodes[producer], p);
}

/* Relu, or Clip with constant bounds, as a fused activation. */
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
	if (value < 0 || rt_value_readers(g, value, &reader) != 1 ||
	    g->values[value].is_output)
		return 0;
	if (act && g->nodes[reader].output_count >= 1 &&
	    g->nodes[reader].outputs[0] >= 0 && g->nodes[reader].input_count &&
	    rt_node_activation(g, &g->nodes[reader], act)) {
		*act_node = reader;
		value = g->nodes[reader].outputs[0];
		if (g->nodes[reader].inputs[0] != node->outputs[0] ||
		    rt_value_readers(g, value, &reader) != 1 ||
		    g->values[value].is_output)
			return 0;
	}
	if (!rt_node_is_onnx(&g->nodes[reader], "QuantizeLinear") ||
	    g->nodes[reader].input_count < 3 ||
	    g->nodes[reader].inputs[0] != value)
		return 0;
	if (rt_node_attr_int(&g->nodes[reader], "output_dtype", 0))
		return 0;
	return per_tensor(g, &g->nodes[reader], p);
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

	if (rt_node_set_inputs(g, node, inputs, count))
		return -1;
	if (strcmp(op_type, node->op_type))
		rt_node_retype(node, RT_ENPU_DOMAIN, op_type);
	if (act)
		node->activation = *act;
	node->output_count = 1;
	rt_node_absorb(g, node, &g->nodes[q->node]);
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
	const struct rt_tensor *w = rt_value_constant(g, rt_node_input(dq, 0));
	const struct rt_tensor *s = rt_value_constant(g, rt_node_input(dq, 1));
	const struct rt_tensor *z = rt_value_constant(g, rt_node_input(dq, 2));
	int64_t channels;
	size_t ns;

	if (!w || w->dtype != ENPU_RT_INT8 || w->rank != rank || !s ||
	    s->dtype != ENPU_RT_FLOAT || (rt_node_input(dq, 2) >= 0 && !z))
		return 0;
	channels = w->dims[channel_axis];
	ns = rt_tensor_elements(s);
	if (ns != 1) {
		int64_t axis = rt_node_attr_int(dq, "axis", 1);

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
	b = rt_value_constant(g, value);
	producer = g->values[value].producer;
	if (!b && producer >= 0 &&
	    rt_node_is_onnx(&g->nodes[producer], "DequantizeLinear")) {
		const struct rt_node *dq = &g->nodes[producer];

		b = rt_value_constant(g, rt_node_input(dq, 0));
		bs = rt_value_constant(g, rt_node_input(dq, 1));
		bz = rt_value_constant(g, rt_node_input(dq, 2));
		if (!b || b->dtype != ENPU_RT_INT32 || !bs ||
		    bs->dtype != ENPU_RT_FLOAT ||
		    (rt_node_input(dq, 2) >= 0 && !bz))
			return 0;
		nbs = rt_tensor_elements(bs);
		if (nbs != 1 && nbs != (size_t)channels)
			return 0;
		/* A zero point of any type is 0 when all its bytes are. */
		if (bz)
			for (size_t i = 0; i < bz->byte_size; i++)
				if (((const uint8_t *)bz->data)[i])
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
		double real = bs ? ((const int32_t *)b->data)[c] *
			      (double)((const float *)bs->data)[nbs == 1 ? 0 :
								c] :
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

	if (!rt_node_is_onnx(conv, "Conv") || conv->input_count < 2 ||
	    !dq_input(g, conv->inputs[0], &x) ||
	    !q_output(g, conv, &y, &act_node, &act))
		return 0;
	wdq = rt_value_producer(g, conv->inputs[1]);
	if (wdq < 0 || !rt_node_is_onnx(&g->nodes[wdq], "DequantizeLinear"))
		return 0;
	m = sym_weights(g, &g->nodes[wdq], 4, 0);
	if (!m || !requant_ok(x.s, rt_value_constant(g, g->nodes[wdq].inputs[1]), y.s))
		return 0;
	status = int_bias(g, rt_node_input(conv, 2), x.s, g->nodes[wdq].inputs[1], m,
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
	int inputs[9];

	if (!rt_node_is_onnx(conv, "QLinearConv") || conv->input_count < 8 ||
	    conv->inputs[0] < 0 || conv->output_count != 1)
		return 0;
	xs = rt_value_constant(g, conv->inputs[1]);
	ys = rt_value_constant(g, conv->inputs[6]);
	w = rt_value_constant(g, conv->inputs[3]);
	ws = rt_value_constant(g, conv->inputs[4]);
	wz = rt_value_constant(g, conv->inputs[5]);
	b = rt_value_constant(g, rt_node_input(conv, 8));
	if (!xs || !ys || !w || !ws || !wz || w->dtype != ENPU_RT_INT8 ||
	    w->rank != 4 || !rt_value_constant(g, conv->inputs[2]) ||
	    !rt_value_constant(g, conv->inputs[7]) || (rt_node_input(conv, 8) >= 0 && !b) ||
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
		inputs[i] = rt_node_input(conv, (size_t)i);
	inputs[5] = -1;
	/* No QuantizeLinear to absorb: the node keeps its own output. */
	if (rt_node_set_inputs(g, conv, inputs, 9))
		return -1;
	rt_node_retype(conv, RT_ENPU_DOMAIN, "QConv");
	return 1;
}

static int lower_gemm(struct rt_graph *g, size_t n)
{
	struct rt_node *gemm = &g->nodes[n];
	struct qparam a, y;
	struct rt_activation act;
	int act_node, wdq, bias, trans_b, status, w_value;
	int64_t channels;

	if (!rt_node_is_onnx(gemm, "Gemm") || gemm->input_count < 2 ||
	    rt_node_attr_int(gemm, "transA", 0) ||
	    rt_node_attr_float(gemm, "alpha", 1.0f) != 1.0f ||
	    (rt_node_input(gemm, 2) >= 0 && rt_node_attr_float(gemm, "beta", 1.0f) != 1.0f) ||
	    !dq_input(g, gemm->inputs[0], &a) ||
	    !q_output(g, gemm, &y, &act_node, &act))
		return 0;
	trans_b = rt_node_attr_int(gemm, "transB", 0) != 0;
	wdq = rt_value_producer(g, gemm->inputs[1]);
	if (wdq < 0 || !rt_node_is_onnx(&g->nodes[wdq], "DequantizeLinear"))
		return 0;
	channels = sym_weights(g, &g->nodes[wdq], 2, trans_b ? 0 : 1);
	if (!channels)
		return 0;
	status = int_bias(g, rt_node_input(gemm, 2), a.s, g->nodes[wdq].inputs[1],
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
	int act_node, mul = rt_node_is_onnx(node, "Mul");
	double ra, rb;

	if ((!mul && !rt_node_is_onnx(node, "Add")) || node->input_count != 2 ||
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
	const struct rt_attr *k = rt_node_attr(node, "kernel_shape");

	return k && k->type == RT_ATTR_INTS && k->count == 2;
}

static int lower_pool(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam x, y;
	int act_node;

	if (node->input_count != 1 || !dq_input(g, node->inputs[0], &x) ||
	    (!rt_node_is_onnx(node, "MaxPool") && !rt_node_is_onnx(node, "AveragePool") &&
	     !rt_node_is_onnx(node, "GlobalAveragePool")) ||
	    !q_output(g, node, &y, &act_node, NULL) || x.dtype != y.dtype)
		return 0;
	if (rt_node_is_onnx(node, "MaxPool")) {
		int inputs[1] = { x.value };

		/* Max commutes with quantization only when both agree. */
		if (!same_quant(&x, &y) || !kernel_2d(node))
			return 0;
		return rewrite(g, n, "QMaxPool", inputs, 1, &y, -1, NULL);
	} else {
		int inputs[5] = { x.value, x.scale, x.zero, y.scale, y.zero };
		int global = rt_node_is_onnx(node, "GlobalAveragePool");

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

	if ((!rt_node_is_onnx(node, "Flatten") && !rt_node_is_onnx(node, "Reshape")) ||
	    !dq_input(g, node->inputs[0], &x) ||
	    !q_output(g, node, &y, &act_node, NULL) || !same_quant(&x, &y))
		return 0;
	{
		int inputs[2] = { x.value, rt_node_input(node, 1) };

		return rewrite(g, n, node->op_type, inputs,
			       node->input_count, &y, -1, NULL);
	}
}

/*
 * Inputs quantized alike and like the output: QConcat, a copy. Otherwise
 * (U-Net's skip connections: the skip and the upsampled tensor each have
 * their own scale) com.microsoft QLinearConcat, which requantizes each
 * input with the float path's arithmetic through a byte table.
 */
static int lower_concat(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam *x, y;
	int act_node, *inputs, same = 1;
	size_t count = node->input_count;

	if (!rt_node_is_onnx(node, "Concat") || !count ||
	    count > RT_QCONCAT_LINEAR_MAX ||
	    !q_output(g, node, &y, &act_node, NULL))
		return 0;
	x = rt_arena_alloc(&g->arena, count * sizeof(*x));
	inputs = rt_arena_alloc(&g->arena, (RT_QCONCAT_LINEAR_FIRST +
					    RT_QCONCAT_LINEAR_STRIDE * count) *
				sizeof(int));
	if (!x || !inputs) {
		rt_error_set(g->errors, ENPU_RT_OUT_OF_MEMORY,
			     "out of memory lowering '%s'", node->name);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		if (!dq_input(g, node->inputs[i], &x[i]) ||
		    x[i].dtype != y.dtype)
			return 0;
		same = same && same_quant(&x[i], &y);
	}
	if (same) {
		for (size_t i = 0; i < count; i++)
			inputs[i] = x[i].value;
		return rewrite(g, n, "QConcat", inputs, count, &y, -1, NULL);
	}
	inputs[RT_QCONCAT_LINEAR_Y_SCALE] = y.scale;
	inputs[RT_QCONCAT_LINEAR_Y_ZERO] = y.zero;
	for (size_t i = 0; i < count; i++) {
		int *t = inputs + RT_QCONCAT_LINEAR_FIRST +
			 RT_QCONCAT_LINEAR_STRIDE * i;

		t[0] = x[i].value;
		t[1] = x[i].scale;
		t[2] = x[i].zero;
	}
	if (rewrite(g, n, RT_QCONCAT_LINEAR_OP, inputs,
		    RT_QCONCAT_LINEAR_FIRST + RT_QCONCAT_LINEAR_STRIDE * count,
		    &y, -1, NULL) < 0)
		return -1;
	rt_node_retype(node, RT_QCONCAT_LINEAR_DOMAIN, RT_QCONCAT_LINEAR_OP);
	return 1;
}

/* A string attribute of @node: its value, @fallback when absent, else NULL. */
static const char *attr_string(const struct rt_node *node, const char *name,
			       const char *fallback)
{
	const struct rt_attr *a = rt_node_attr(node, name);

	if (!a)
		return fallback;
	return a->type == RT_ATTR_STRING ? a->s : NULL;
}

/*
 * Resize-11 and later, linear, of a 4-D tensor's two spatial axes by
 * constant scales, in a coordinate mode QResize has (ops/qresize.c:
 * the float Resize's arithmetic on the dequantized bytes).
 */
static int lower_resize(struct rt_graph *g, size_t n)
{
	static const char *const supported[] = {
		"half_pixel", "pytorch_half_pixel", "align_corners",
		"asymmetric",
	};
	struct rt_node *node = &g->nodes[n];
	const struct rt_tensor *scales;
	const char *mode, *coordinates;
	struct qparam x, y;
	int act_node;
	size_t i;

	if (!rt_node_is_onnx(node, "Resize") || node->opset < 11 ||
	    node->input_count < 3 || rt_node_input(node, 3) >= 0 ||
	    !dq_input(g, node->inputs[0], &x) ||
	    !q_output(g, node, &y, &act_node, NULL) || x.dtype != y.dtype)
		return 0;
	scales = rt_value_constant(g, node->inputs[2]);
	mode = attr_string(node, "mode", "nearest");
	coordinates = attr_string(node, "coordinate_transformation_mode",
				  "half_pixel");
	if (!scales || scales->dtype != ENPU_RT_FLOAT ||
	    rt_tensor_elements(scales) != 4 ||
	    ((const float *)scales->data)[0] != 1 ||
	    ((const float *)scales->data)[1] != 1 || !mode ||
	    strcmp(mode, "linear") || !coordinates ||
	    rt_node_attr_int(node, "antialias", 0) ||
	    rt_node_attr(node, "axes"))
		return 0;
	for (i = 0; i < sizeof(supported) / sizeof(supported[0]); i++)
		if (!strcmp(coordinates, supported[i]))
			break;
	if (i == sizeof(supported) / sizeof(supported[0]))
		return 0;
	{
		int inputs[RT_QRESIZE_INPUTS] = {
			[RT_QRESIZE_X] = x.value,
			[RT_QRESIZE_X_SCALE] = x.scale,
			[RT_QRESIZE_X_ZERO] = x.zero,
			[RT_QRESIZE_Y_SCALE] = y.scale,
			[RT_QRESIZE_Y_ZERO] = y.zero,
			[RT_QRESIZE_SCALES] = node->inputs[2],
		};

		return rewrite(g, n, RT_QRESIZE_OP, inputs, RT_QRESIZE_INPUTS,
			       &y, -1, NULL);
	}
}

/*
 * QuantizeLinear of a float tensor with per-tensor constant parameters:
 * ai.enpu Quantize8, the same arithmetic in a vectorizable loop (and a
 * transposing one once the layout pass is done). Only where the input is
 * known to be float at load: graph inputs, constants, and intermediates
 * whose type shape inference has found (the float seams of a QDQ model:
 * after a float Resize, Concat or ConvTranspose).
 */
static int lower_quantize(struct rt_graph *g, size_t n)
{
	struct rt_node *node = &g->nodes[n];
	struct qparam q;

	if (!rt_node_is_onnx(node, "QuantizeLinear") || node->input_count != 3 ||
	    node->output_count != 1 || node->inputs[0] < 0 ||
	    rt_node_attr_int(node, "output_dtype", 0) ||
	    g->values[node->inputs[0]].tensor.dtype != ENPU_RT_FLOAT ||
	    !per_tensor(g, node, &q))
		return 0;
	rt_node_retype(node, RT_ENPU_DOMAIN, "Quantize8");
	return 1;
}

int rt_pass_lower_qdq(struct rt_graph *g)
{
	static int (*const lowerings[])(struct rt_graph *, size_t) = {
		lower_qlinear_conv, lower_conv, lower_gemm, lower_eltwise,
		lower_pool, lower_passthrough, lower_concat, lower_resize,
		lower_quantize,
	};

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
	return 0;
}

int rt_pass_drop_dead_dequantize(struct rt_graph *g)
{
	rt_graph_drop_unread(g, "", "DequantizeLinear");
	return 0;
}
