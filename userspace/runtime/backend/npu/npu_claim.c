// SPDX-License-Identifier: MIT
/*
 * What the NPU takes (the backend's GetCapability): the integer ops of
 * ops/rt_enpu_ops.h in the forms the command set of uapi/enpu_cmd.h
 * computes, with shapes known at load. Each refusal says which input,
 * attribute or limit is the reason. The parameters are derived here with
 * the same functions the CPU ops and the compiler use (ops/rt_qparams.h),
 * so what is claimed compiles, and computes the CPU's bytes.
 *
 *   QConv                CONV2D / DEPTHWISE_CONV2D
 *   QGemm (2-D, B int8 symmetric constant, 8-bit Y)   FULLY_CONNECTED
 *   QAdd, QMul (and com.microsoft QLinearAdd/Mul)     ADD, MUL
 *   QMaxPool, QAveragePool, QGlobalAveragePool        MAX_POOL, AVG_POOL
 *   QConcat of 8-bit tensors along channels           COPY into slices
 *   Quantize8 (per-tensor float QuantizeLinear)       QUANTIZE (1.6)
 *   DequantizeLinear (per-tensor, 8-bit to float)     DEQUANTIZE (1.7)
 *   Flatten, Reshape, Squeeze, Unsqueeze, Identity    nothing (an alias)
 *     when the bytes keep their order in the device layout
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "npu.h"
#include "op_view.h"
#include "qnhwc.h"
#include "rt_enpu_ops.h"
#include "rt_qparams.h"

static int refuse(struct rt_claim *claim, enum rt_refusal why,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(struct rt_claim *claim, enum rt_refusal why,
		  const char *fmt, ...)
{
	va_list ap;

	claim->refusal = why;
	va_start(ap, fmt);
	vsnprintf(claim->reason, sizeof(claim->reason), fmt, ap);
	va_end(ap);
	return -1;
}

/* The op helper's message without its "node 'x' (Op): " prefix. */
static int refuse_from(struct rt_claim *claim, enum rt_refusal why,
		       const struct rt_error_sink *sink)
{
	const char *m = strstr(sink->message, "): ");

	return refuse(claim, why, "%s", m ? m + 3 : sink->message);
}

/* The device's element type for a runtime one; false if it has none. */
static bool device_dtype(int32_t dtype, uint32_t *out)
{
	switch (dtype) {
	case ENPU_RT_UINT8: *out = ENPU_DTYPE_UINT8; return true;
	case ENPU_RT_INT8: *out = ENPU_DTYPE_INT8; return true;
	case ENPU_RT_INT32: *out = ENPU_DTYPE_INT32; return true;
	case ENPU_RT_FLOAT: *out = ENPU_DTYPE_FLOAT32; return true;
	default: return false;
	}
}

bool npu_value_shape(const struct rt_value *v, struct npu_tensor *t)
{
	const struct rt_tensor *x = &v->tensor;

	memset(t, 0, sizeof(*t));
	if (x->rank < 1 || x->rank > 4 || x->rank == 3)
		return false;
	for (int d = 0; d < x->rank; d++)
		if (x->dims[d] < 1 || x->dims[d] > UINT32_MAX)
			return false;
	if (!device_dtype(x->dtype, &t->dtype))
		return false;
	t->n = t->h = t->w = t->c = 1;
	if (x->rank == 4) {
		t->n = (uint32_t)x->dims[0];
		t->c = (uint32_t)x->dims[1];
		t->h = (uint32_t)x->dims[2];
		t->w = (uint32_t)x->dims[3];
	} else if (x->rank == 2) {
		t->w = (uint32_t)x->dims[0];
		t->c = (uint32_t)x->dims[1];
	} else {
		t->c = (uint32_t)x->dims[0];
	}
	return x->byte_size <= NPU_TENSOR_MAX_BYTES;
}

bool npu_layout_is_onnx(const struct rt_value *v)
{
	const struct rt_tensor *x = &v->tensor;

	return x->rank != 4 || x->dims[1] == 1 ||
	       x->dims[2] * x->dims[3] == 1;
}

/* The node's inputs as the op sees them (NULL: absent). */
size_t npu_node_inputs(const struct rt_graph *g, const struct rt_node *node,
		       const struct rt_tensor **in, size_t max)
{
	size_t n = node->input_count < max ? node->input_count : max;

	for (size_t i = 0; i < max; i++)
		in[i] = i < n && node->inputs[i] >= 0 ?
			&g->values[node->inputs[i]].tensor : NULL;
	return n;
}

static bool is_8bit(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 || dtype == ENPU_RT_INT8;
}

static bool op_is(const struct rt_node *node, const char *domain,
		  const char *op)
{
	return !strcmp(node->domain, domain) && !strcmp(node->op_type, op);
}

enum npu_op npu_op_of(const struct rt_node *node)
{
	if (op_is(node, RT_ENPU_DOMAIN, "QConv"))
		return NPU_OP_CONV;
	if (op_is(node, RT_ENPU_DOMAIN, RT_QGEMM_OP))
		return NPU_OP_FC;
	if (op_is(node, RT_ENPU_DOMAIN, "QAdd") ||
	    op_is(node, "com.microsoft", "QLinearAdd"))
		return NPU_OP_ADD;
	if (op_is(node, RT_ENPU_DOMAIN, "QMul") ||
	    op_is(node, "com.microsoft", "QLinearMul"))
		return NPU_OP_MUL;
	if (op_is(node, RT_ENPU_DOMAIN, "QMaxPool"))
		return NPU_OP_MAX_POOL;
	if (op_is(node, RT_ENPU_DOMAIN, "QAveragePool") ||
	    op_is(node, "com.microsoft", "QLinearAveragePool"))
		return NPU_OP_AVG_POOL;
	if (op_is(node, RT_ENPU_DOMAIN, "QGlobalAveragePool") ||
	    op_is(node, "com.microsoft", "QLinearGlobalAveragePool"))
		return NPU_OP_GLOBAL_POOL;
	if (op_is(node, RT_ENPU_DOMAIN, "QConcat"))
		return NPU_OP_CONCAT;
	if (op_is(node, RT_ENPU_DOMAIN, "Quantize8"))
		return NPU_OP_QUANTIZE;
	if (op_is(node, "", "DequantizeLinear"))
		return NPU_OP_DEQUANTIZE;
	if (op_is(node, "", "Flatten") || op_is(node, "", "Reshape") ||
	    op_is(node, "", "Squeeze") || op_is(node, "", "Unsqueeze") ||
	    op_is(node, "", "Identity"))
		return NPU_OP_ALIAS;
	return NPU_OP_NONE;
}

/* Inputs and outputs with known shapes the device can describe: the
 * first @data_inputs, or for 4 (ADD, MUL) A and B only. */
static int check_values(const struct rt_graph *g, const struct rt_node *node,
			size_t data_inputs, struct rt_claim *claim)
{
	struct npu_tensor t;

	for (size_t i = 0; i < data_inputs && i < node->input_count; i++) {
		const struct rt_value *v;

		if (node->inputs[i] < 0 || (data_inputs == 4 && i % 3))
			continue;
		v = &g->values[node->inputs[i]];
		if (v->tensor.rank < 0)
			return refuse(claim, RT_REFUSE_SHAPE,
				      "the shape of input '%s' is known only "
				      "at run time", v->name);
		if (!device_dtype(v->tensor.dtype, &t.dtype))
			return refuse(claim, RT_REFUSE_DTYPE,
				      "input '%s' is %s: the device holds "
				      "8-bit, int32 or float tensors", v->name,
				      rt_dtype_name(v->tensor.dtype));
		if (!npu_value_shape(v, &t))
			return refuse(claim, v->tensor.byte_size >
				      NPU_TENSOR_MAX_BYTES ? RT_REFUSE_MEMORY :
				      RT_REFUSE_SHAPE,
				      "input '%s' (%s, rank %d) has no device "
				      "layout (8-bit, int32 or float, rank 1, 2 "
				      "or 4, at most %llu MiB)", v->name,
				      rt_dtype_name(v->tensor.dtype),
				      v->tensor.rank,
				      NPU_TENSOR_MAX_BYTES >> 20);
	}
	for (size_t o = 0; o < node->output_count; o++) {
		const struct rt_value *v;

		if (node->outputs[o] < 0)
			continue;
		v = &g->values[node->outputs[o]];
		if (v->tensor.rank < 0)
			return refuse(claim, RT_REFUSE_SHAPE,
				      "the shape of output '%s' is known only "
				      "at run time", v->name);
		if (!device_dtype(v->tensor.dtype, &t.dtype))
			return refuse(claim, RT_REFUSE_DTYPE,
				      "output '%s' is %s: the device holds "
				      "8-bit, int32 or float tensors", v->name,
				      rt_dtype_name(v->tensor.dtype));
		if (!npu_value_shape(v, &t))
			return refuse(claim, RT_REFUSE_SHAPE,
				      "output '%s' (%s, rank %d) has no device "
				      "layout", v->name,
				      rt_dtype_name(v->tensor.dtype),
				      v->tensor.rank);
	}
	return 0;
}

static int claim_conv(struct rt_kernel *k, const struct rt_tensor **in,
		      size_t n_in, struct rt_claim *claim)
{
	struct rt_error_sink *sink = k->errors;
	struct rt_qconv_params p;
	const struct enpu_cpu_conv_shape *s = &p.shape;
	int status = rt_qconv_params(k, in, n_in, &p);

	if (status)
		return refuse_from(claim, status == ENPU_RT_UNSUPPORTED ?
				   RT_REFUSE_LIMIT : RT_REFUSE_ATTRIBUTE, sink);
	rt_qconv_params_free(&p);
	if (s->kernel_height > 255 || s->kernel_width > 255 ||
	    s->stride_height > 255 || s->stride_width > 255 ||
	    s->dilation_height > 255 || s->dilation_width > 255)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "kernel %zux%zu, strides %zux%zu, dilations "
			      "%zux%zu: the device takes 1..255",
			      s->kernel_height, s->kernel_width,
			      s->stride_height, s->stride_width,
			      s->dilation_height, s->dilation_width);
	if (s->pad_top > 255 || s->pad_left > 255 || s->pad_bottom > 255 ||
	    s->pad_right > 255)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "pads above 255 (device limit)");
	if (s->pad_top >= s->dilation_height * (s->kernel_height - 1) + 1 ||
	    s->pad_bottom >= s->dilation_height * (s->kernel_height - 1) + 1)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "a vertical pad of a whole window (%zu, %zu "
			      "for a %zu-row window) leaves output rows with "
			      "no input row", s->pad_top, s->pad_bottom,
			      s->dilation_height * (s->kernel_height - 1) + 1);
	if ((uint64_t)s->output_channels * s->input_channels / s->groups *
	    s->kernel_height * s->kernel_width > NPU_TENSOR_MAX_BYTES)
		return refuse(claim, RT_REFUSE_MEMORY, "weights above %llu MiB",
			      NPU_TENSOR_MAX_BYTES >> 20);
	return 0;
}

static int claim_fc(const struct rt_graph *g, const struct rt_node *node,
		    struct rt_kernel *k, const struct rt_tensor **in,
		    size_t n_in, struct rt_claim *claim)
{
	const struct rt_tensor *a = in[RT_QGEMM_A], *b = in[RT_QGEMM_B];
	const struct rt_tensor *bz = in[RT_QGEMM_B_ZERO];
	const struct rt_tensor *bias = in[RT_QGEMM_BIAS];
	const struct rt_value *y = &g->values[node->outputs[0]];
	struct rt_qgemm_requant r;
	int status;

	if (!in[RT_QGEMM_Y_SCALE])
		return refuse(claim, RT_REFUSE_DTYPE,
			      "an int32 output (no Y scale) is not lowered "
			      "yet");
	if (a->rank != 2 || b->rank != 2)
		return refuse(claim, RT_REFUSE_SHAPE,
			      "A rank %d, B rank %d: the device multiplies "
			      "[M, K] by [K, N]", a->rank, b->rank);
	if (!is_8bit(a->dtype) || b->dtype != ENPU_RT_INT8 ||
	    !is_8bit(y->tensor.dtype))
		return refuse(claim, RT_REFUSE_DTYPE,
			      "A %s, B %s, Y %s: the device takes 8-bit A "
			      "and Y and int8 B", rt_dtype_name(a->dtype),
			      rt_dtype_name(b->dtype),
			      rt_dtype_name(y->tensor.dtype));
	if (!b->data || (bz && !bz->data) || (bias && !bias->data))
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "B, its zero point and the bias must be "
			      "constants");
	if (bz)
		for (size_t i = 0; i < rt_tensor_elements(bz); i++)
			if (((const int8_t *)bz->data)[i])
				return refuse(claim, RT_REFUSE_ATTRIBUTE,
					      "B's zero point is not 0 "
					      "(the device's weights are "
					      "symmetric)");
	if (a->dims[1] > 65536)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "K = %lld exceeds the device's 65536",
			      (long long)a->dims[1]);
	if (in[RT_QGEMM_A_ZERO] && !in[RT_QGEMM_A_ZERO]->data)
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "A's zero point must be a constant");
	status = rt_qgemm_requant(k, in, n_in, (size_t)b->dims[1],
				  y->tensor.dtype, &r);
	if (status)
		return refuse_from(claim, RT_REFUSE_LIMIT, k->errors);
	rt_qgemm_requant_free(&r);
	if (!r.fixed)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "a column's scale A_scale * B_scale / Y_scale is "
			      "outside the fixed-point rule (0, 1)");
	return 0;
}

/* Each of a's and b's device dims equals the output's or is 1. */
static int claim_eltwise(const struct rt_graph *g, const struct rt_node *node,
			 struct rt_kernel *k, const struct rt_tensor **in,
			 size_t n_in, int mul, struct rt_claim *claim)
{
	const struct rt_value *y = &g->values[node->outputs[0]];
	struct enpu_cpu_eltwise_params params;
	struct npu_tensor ty, t;

	if (rt_qeltwise_params(k, in, n_in, mul, &params))
		return refuse_from(claim, RT_REFUSE_LIMIT, k->errors);
	npu_value_shape(y, &ty);
	for (int i = 0; i < 2; i++) {
		const struct rt_tensor *x = in[i * 3];

		if (!npu_broadcast_shape(x, y->tensor.rank, &t) ||
		    (t.n != ty.n && t.n != 1) || (t.h != ty.h && t.h != 1) ||
		    (t.w != ty.w && t.w != 1) || (t.c != ty.c && t.c != 1))
			return refuse(claim, RT_REFUSE_SHAPE,
				      "input %c broadcasts in a way the "
				      "device's per-dimension rule does not "
				      "cover", 'A' + i);
	}
	return 0;
}

bool npu_broadcast_shape(const struct rt_tensor *x, int rank,
			 struct npu_tensor *t)
{
	struct rt_value v = { .tensor = *x };
	int shift = rank - x->rank;

	if (shift < 0 || rank == 3 || rank > 4)
		return false;
	v.tensor.rank = rank;
	for (int d = rank - 1; d >= 0; d--)
		v.tensor.dims[d] = d >= shift ? x->dims[d - shift] : 1;
	return npu_value_shape(&v, t);
}

static int claim_pool(struct rt_kernel *k, enum rt_qpool_kind kind,
		      const struct rt_tensor **in, size_t n_in,
		      struct rt_claim *claim)
{
	struct rt_qpool_params p;
	const struct enpu_cpu_pool_shape *s = &p.shape;
	int32_t l, m, sh;

	if (rt_qpool_params(k, kind, in, n_in, &p))
		return refuse_from(claim, RT_REFUSE_ATTRIBUTE, k->errors);
	if (p.rank != 4)
		return refuse(claim, RT_REFUSE_SHAPE,
			      "rank %d: the device pools 2-D images", p.rank);
	if (kind != RT_QPOOL_MAX && !p.have_scales)
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "the scales must be constants");
	if (kind == RT_QPOOL_GLOBAL) {
		if (p.args.input_width > 65535 * 65535ull)
			return refuse(claim, RT_REFUSE_LIMIT,
				      "a window of %zu pixels", p.args.input_width);
		if (enpu_cpu_average_pool_params(p.args.scale,
						 p.args.input_width, &l, &m,
						 &sh))
			return refuse(claim, RT_REFUSE_LIMIT,
				      "no fixed-point parameters for a "
				      "window of %zu pixels at scale %g",
				      p.args.input_width, p.args.scale);
		return 0;
	}
	if (s->kernel_height > 65535 || s->kernel_width > 65535 ||
	    s->stride_height > 255 || s->stride_width > 255 ||
	    s->dilation_height > 255 || s->dilation_width > 255)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "kernel, stride or dilation beyond the device's "
			      "limits");
	if (s->pad_top >= s->kernel_height || s->pad_bottom >= s->kernel_height ||
	    s->pad_left >= s->kernel_width || s->pad_right >= s->kernel_width)
		return refuse(claim, RT_REFUSE_LIMIT,
			      "a pad of the whole kernel or more");
	if (kind == RT_QPOOL_AVERAGE) {
		size_t taps = s->kernel_height * s->kernel_width;

		if (taps > 65536)
			return refuse(claim, RT_REFUSE_LIMIT,
				      "a %zu-pixel window's table is too "
				      "large", taps);
		for (size_t c = 1; c <= taps; c++)
			if (enpu_cpu_average_pool_params(p.args.scale, c, &l,
							 &m, &sh))
				return refuse(claim, RT_REFUSE_LIMIT,
					      "no fixed-point parameters for "
					      "a window of %zu pixels", c);
	}
	return 0;
}

static int claim_concat(const struct rt_graph *g, const struct rt_node *node,
			struct rt_kernel *k, struct rt_claim *claim)
{
	const struct rt_value *y = &g->values[node->outputs[0]];
	int64_t axis;

	if (rt_attr_int(k, "axis", 0, &axis))
		return refuse_from(claim, RT_REFUSE_ATTRIBUTE, k->errors);
	if (axis < 0)
		axis += y->tensor.rank;
	if (!is_8bit(y->tensor.dtype))
		return refuse(claim, RT_REFUSE_DTYPE,
			      "%s: the NPU concatenates 8-bit tensors",
			      rt_dtype_name(y->tensor.dtype));
	if (axis != 1 || (y->tensor.rank != 4 && y->tensor.rank != 2))
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "axis %lld of a rank-%d tensor: the NPU "
			      "concatenates channels", (long long)axis,
			      y->tensor.rank);
	return 0;
}

/* A refusal when the device's interface is below @need (1.@minor). */
static int refuse_below(const struct npu_backend *b, uint64_t need,
			const char *command, struct rt_claim *claim)
{
	if (b->params.hw_version >= need)
		return 0;
	return refuse(claim, RT_REFUSE_OP,
		      "%s needs hardware interface %llu.%llu (the device has "
		      "%llu.%llu)", command, (unsigned long long)(need >> 16),
		      (unsigned long long)(need & 0xffff),
		      (unsigned long long)(b->params.hw_version >> 16),
		      (unsigned long long)(b->params.hw_version & 0xffff));
}

/* Quantize8: float in, 8-bit out, one constant scale and zero point (the
 * QDQ pass lowers only those), in ONNX layout (the CPU's layout pass,
 * which sets channels_last, runs after placement). */
static int claim_quantize(const struct npu_backend *b, struct rt_kernel *k,
			  const struct rt_tensor **in, struct rt_claim *claim)
{
	int channels_last;
	int32_t zero;
	double scale;

	if (refuse_below(b, NPU_HW_QUANTIZE, "QUANTIZE", claim))
		return -1;
	if (!in[1] || !in[2])
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "no scale or zero point");
	if (in[0]->dtype != ENPU_RT_FLOAT)
		return refuse(claim, RT_REFUSE_DTYPE,
			      "input type %s: QUANTIZE reads float",
			      rt_dtype_name(in[0]->dtype));
	if (rt_q_channels_last(k, &channels_last) || channels_last ||
	    rt_q_quantize_params(k, in, &scale, &zero))
		return refuse(claim, RT_REFUSE_ATTRIBUTE,
			      "a channels-last output or parameters that "
			      "are not one constant scale and zero point");
	return 0;
}

/* DequantizeLinear: 8-bit in (checked by the caller), float out, one
 * constant positive scale and one constant zero point (or none). */
static int claim_dequantize(const struct npu_backend *b,
			    const struct rt_graph *g,
			    const struct rt_node *node, struct rt_kernel *k,
			    const struct rt_tensor **in,
			    struct rt_claim *claim)
{
	const struct rt_value *y = &g->values[node->outputs[0]];
	int32_t zero;
	double scale;

	if (refuse_below(b, NPU_HW_DEQUANTIZE, "DEQUANTIZE", claim))
		return -1;
	if (!in[1])
		return refuse(claim, RT_REFUSE_ATTRIBUTE, "no scale");
	if (y->tensor.dtype != ENPU_RT_FLOAT)
		return refuse(claim, RT_REFUSE_DTYPE,
			      "output type %s: DEQUANTIZE writes float",
			      rt_dtype_name(y->tensor.dtype));
	if (rt_q_dequantize_params(k, in, &scale, &zero))
		return refuse_from(claim, RT_REFUSE_ATTRIBUTE, k->errors);
	return 0;
}

static int claim_alias(const struct rt_graph *g, const struct rt_node *node,
		       struct rt_claim *claim)
{
	const struct rt_value *x, *y;

	if (node->input_count < 1 || node->inputs[0] < 0 ||
	    node->output_count != 1)
		return refuse(claim, RT_REFUSE_OP, "malformed");
	x = &g->values[node->inputs[0]];
	y = &g->values[node->outputs[0]];
	if (x->kind == RT_VALUE_CONSTANT)
		return refuse(claim, RT_REFUSE_OP, "a constant (folded)");
	if (!is_8bit(x->tensor.dtype))
		return refuse(claim, RT_REFUSE_DTYPE,
			      "%s: the NPU keeps 8-bit tensors",
			      rt_dtype_name(x->tensor.dtype));
	if (!npu_layout_is_onnx(x) || !npu_layout_is_onnx(y))
		return refuse(claim, RT_REFUSE_SHAPE,
			      "the reshape reorders bytes in the device's "
			      "NHWC layout");
	for (size_t i = 1; i < node->input_count; i++)
		if (node->inputs[i] >= 0 &&
		    g->values[node->inputs[i]].kind != RT_VALUE_CONSTANT)
			return refuse(claim, RT_REFUSE_SHAPE,
				      "the target shape is computed at run "
				      "time");
	return 0;
}

/* Modeled device time of the node: the command set's timing rule. */
static double node_cost_ns(const struct npu_backend *b,
			   const struct rt_graph *g, const struct rt_node *node)
{
	double bytes = 0, macs = (double)rt_node_macs(g, node), cycles;
	double mpc = b->params.macs_per_cycle ? (double)b->params.macs_per_cycle :
		     1024.0;
	double khz = b->params.clock_max_khz ? (double)b->params.clock_max_khz :
		     1e6;

	for (size_t i = 0; i < node->input_count; i++)
		if (node->inputs[i] >= 0)
			bytes += (double)g->values[node->inputs[i]].tensor.byte_size;
	for (size_t o = 0; o < node->output_count; o++)
		if (node->outputs[o] >= 0)
			bytes += (double)g->values[node->outputs[o]].tensor.byte_size;
	cycles = macs / mpc > bytes / NPU_BYTES_PER_CYCLE ?
		 macs / mpc : bytes / NPU_BYTES_PER_CYCLE;
	return cycles * 1e6 / khz;
}

void npu_claim(struct npu_backend *b, const struct rt_graph *g, size_t n,
	       struct rt_claim *claim)
{
	const struct rt_node *node = &g->nodes[n];
	enum npu_op op = npu_op_of(node);
	struct rt_error_sink sink = { .status = 0 };
	const struct rt_tensor *in[RT_QCONV_INPUTS];
	size_t n_in, data_inputs = 1;
	struct rt_kernel k;
	int status = 0;

	memset(claim, 0, sizeof(*claim));
	if (op == NPU_OP_NONE) {
		refuse(claim, RT_REFUSE_OP, "no NPU command for %s%s%s",
		       node->domain[0] ? node->domain : "",
		       node->domain[0] ? "." : "", node->op_type);
		return;
	}
	rt_op_view(&k, node, b->cpu, &sink);
	n_in = npu_node_inputs(g, node, in, RT_QCONV_INPUTS);
	if (op == NPU_OP_ADD || op == NPU_OP_MUL)
		data_inputs = 4;
	else if (op == NPU_OP_CONCAT)
		data_inputs = node->input_count;
	if (check_values(g, node, data_inputs, claim))
		return;
	if (op != NPU_OP_ALIAS && op != NPU_OP_CONCAT &&
	    op != NPU_OP_QUANTIZE && in[0] && !is_8bit(in[0]->dtype)) {
		refuse(claim, RT_REFUSE_DTYPE,
		       "input type %s: the NPU computes on 8-bit tensors",
		       rt_dtype_name(in[0]->dtype));
		return;
	}
	switch (op) {
	case NPU_OP_CONV:
		status = claim_conv(&k, in, n_in, claim);
		break;
	case NPU_OP_FC:
		status = claim_fc(g, node, &k, in, n_in, claim);
		break;
	case NPU_OP_ADD:
	case NPU_OP_MUL:
		status = claim_eltwise(g, node, &k, in, n_in,
				       op == NPU_OP_MUL, claim);
		break;
	case NPU_OP_MAX_POOL:
		status = claim_pool(&k, RT_QPOOL_MAX, in, n_in, claim);
		break;
	case NPU_OP_AVG_POOL:
		status = claim_pool(&k, RT_QPOOL_AVERAGE, in, n_in, claim);
		break;
	case NPU_OP_GLOBAL_POOL:
		status = claim_pool(&k, RT_QPOOL_GLOBAL, in, n_in, claim);
		break;
	case NPU_OP_CONCAT:
		status = claim_concat(g, node, &k, claim);
		break;
	case NPU_OP_ALIAS:
		status = claim_alias(g, node, claim);
		break;
	case NPU_OP_QUANTIZE:
		status = claim_quantize(b, &k, in, claim);
		break;
	case NPU_OP_DEQUANTIZE:
		status = claim_dequantize(b, g, node, &k, in, claim);
		break;
	case NPU_OP_NONE:
		break;
	}
	if (!status)
		claim->cost_ns = node_cost_ns(b, g, node);
}
