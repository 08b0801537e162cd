// SPDX-License-Identifier: MIT
/*
 * Quantization ops: QuantizeLinear, DequantizeLinear, and the integer
 * matrix product every quantized MatMul form is lowered to, ai.enpu QGemm
 * (ops/rt_enpu_ops.h), which also backs QLinearMatMul and MatMulInteger
 * when the graph is not optimized.
 *
 * QGemm runs on the packed int8 GEMM of userspace/runtime/cpu. That GEMM
 * takes int8 weights without a zero point, so B is stored as
 * b8 = B - 128 (uint8) or B (int8), and the rest of (B - b_zp) is a
 * per-column offset: (B - b_zp) = b8 + offset[n]. Then
 *   acc[m][n] = GEMM(A - a_zp, b8) + bias[n] + offset[n] * rowsum[m]
 * with rowsum[m] = sum_k (A[m][k] - a_zp). Symmetric int8 weights (the
 * per-channel form the NPU uses) have offset 0 and go straight through the
 * GEMM's own requantization. Requantization follows enpu_quantization.h;
 * scales the fixed-point rule cannot express (>= 1) fall back to
 * round-half-even in double precision (docs/runtime.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matmul_shape.h"
#include "frows.h"
#include "rt_enpu_ops.h"
#include "rt_qparams.h"

#define OPSET_MAX 21

/* ---- QuantizeLinear / DequantizeLinear ---- */

static int quant_range(int32_t dtype, int32_t *lo, int32_t *hi)
{
	switch (dtype) {
	case ENPU_RT_UINT8: *lo = 0; *hi = 255; return 1;
	case ENPU_RT_INT8: *lo = -128; *hi = 127; return 1;
	case ENPU_RT_UINT16: *lo = 0; *hi = 65535; return 1;
	case ENPU_RT_INT16: *lo = -32768; *hi = 32767; return 1;
	default: return 0;
	}
}

/* Per-axis parameters: element i uses channel (i / inner) % channels. */
struct axis_map {
	size_t inner, channels;
};

static int axis_map(struct rt_kernel *k, const struct rt_tensor *x,
		    const struct rt_tensor *scale,
		    const struct rt_tensor *zero, struct axis_map *map)
{
	int64_t axis = 1, block = 0;
	size_t count = rt_tensor_elements(scale);
	int status = 0;

	map->inner = 1;
	map->channels = 1;
	if (k->opset >= 13)
		status = rt_attr_int(k, "axis", 1, &axis);
	if (!status && k->opset >= 21)
		status = rt_attr_int(k, "block_size", 0, &block);
	if (status)
		return status;
	if (block)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "blocked quantization is not supported");
	if (scale->dtype != ENPU_RT_FLOAT)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "scale type %s is not supported (float)",
				   rt_dtype_name(scale->dtype));
	if (zero && rt_tensor_elements(zero) != count)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scale has %zu elements, zero point %zu",
				   count, rt_tensor_elements(zero));
	if (scale->rank == 0 || (scale->rank == 1 && count == 1 &&
				 (x->rank == 0 || k->opset < 13)))
		return 0;
	if (scale->rank != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scale must be a scalar or 1-D");
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "axis is outside the input's rank %d",
				   x->rank);
	if ((size_t)x->dims[axis] != count)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "scale has %zu elements, axis %lld has %lld",
				   count, (long long)axis,
				   (long long)x->dims[axis]);
	map->channels = count;
	for (int d = (int)axis + 1; d < x->rank; d++)
		map->inner *= (size_t)x->dims[d];
	return 0;
}

static int quantize_output_type(struct rt_kernel *k,
				const struct rt_tensor *const *in, size_t n_in,
				int32_t *dtype)
{
	int64_t output_dtype = 0;
	int32_t lo, hi;

	*dtype = ENPU_RT_UINT8;
	if (n_in > 2 && in[2]) {
		*dtype = in[2]->dtype;
	} else if (k->opset >= 21) {
		int status = rt_attr_int(k, "output_dtype", 0, &output_dtype);

		if (status)
			return status;
		if (output_dtype)
			*dtype = (int32_t)output_dtype;
	}
	if (!quant_range(*dtype, &lo, &hi))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "quantized type %s is not supported "
				   "(uint8, int8, uint16, int16)",
				   rt_dtype_name(*dtype));
	return 0;
}

static int quantize_infer(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	struct axis_map map;
	int32_t dtype;
	int status;

	(void)n_out;
	if (in[0]->dtype != ENPU_RT_FLOAT)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported (float)",
				   rt_dtype_name(in[0]->dtype));
	status = quantize_output_type(k, in, n_in, &dtype);
	if (!status)
		status = axis_map(k, in[0], in[1], n_in > 2 ? in[2] : NULL,
				  &map);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], dtype, in[0]->rank,
				   in[0]->dims);
}

static int quantize_run(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	const struct rt_tensor *zero = n_in > 2 ? in[2] : NULL;
	const float *x = in[0]->data, *scale = in[1]->data;
	size_t n = rt_tensor_elements(in[0]);
	struct axis_map map;
	int32_t lo = 0, hi = 255;
	int status = axis_map(k, in[0], in[1], zero, &map);

	(void)n_out;
	if (status)
		return status;
	quant_range(out[0]->dtype, &lo, &hi);
	if (out[0]->dtype == ENPU_RT_UINT8 || out[0]->dtype == ENPU_RT_INT8) {
		/* The CPU runtime's rows: the same division and rint. */
		int is_signed = out[0]->dtype == ENPU_RT_INT8;
		const struct enpu_fmath_kernels *f = enpu_cpu_fmath(k->cpu);

		if (map.channels == 1) {
			rt_frows_quantize(k, n, x, scale[0], zero ?
					  (int32_t)rt_tensor_get_int(zero, 0) : 0,
					  is_signed, out[0]->data);
			return 0;
		}
		for (size_t i = 0; i < n; i += map.inner) {
			size_t c = (i / map.inner) % map.channels;

			f->quantize(map.inner, x + i, scale[c], zero ?
				    (int32_t)rt_tensor_get_int(zero, c) : 0,
				    is_signed, (uint8_t *)out[0]->data + i);
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = (i / map.inner) % map.channels;
		/* float division then rint, as the ONNX reference does */
		float q = nearbyintf(x[i] / scale[c]);
		double v = (double)q + (zero ? rt_tensor_get_double(zero, c) :
					0.0);

		if (isnan(v))
			v = 0;
		v = v < lo ? lo : v > hi ? hi : v;
		rt_tensor_set_double(out[0], i, v);
	}
	return 0;
}

static int dequantize_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct axis_map map;
	int32_t t = in[0]->dtype;
	int status;

	(void)n_out;
	if (t != ENPU_RT_UINT8 && t != ENPU_RT_INT8 && t != ENPU_RT_INT32 &&
	    t != ENPU_RT_UINT16 && t != ENPU_RT_INT16)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported",
				   rt_dtype_name(t));
	if (n_in > 2 && in[2] && in[2]->dtype != t)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "zero point type %s differs from input %s",
				   rt_dtype_name(in[2]->dtype),
				   rt_dtype_name(t));
	status = axis_map(k, in[0], in[1], n_in > 2 ? in[2] : NULL, &map);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_FLOAT, in[0]->rank,
				   in[0]->dims);
}

static int dequantize_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *zero = n_in > 2 ? in[2] : NULL;
	const float *scale = in[1]->data;
	float *y = out[0]->data;
	size_t n = rt_tensor_elements(in[0]);
	struct axis_map map;
	int status = axis_map(k, in[0], in[1], zero, &map);

	(void)n_out;
	if (status)
		return status;
	if (in[0]->dtype == ENPU_RT_UINT8 || in[0]->dtype == ENPU_RT_INT8) {
		int is_signed = in[0]->dtype == ENPU_RT_INT8;
		const struct enpu_fmath_kernels *f = enpu_cpu_fmath(k->cpu);

		if (map.channels == 1) {
			rt_frows_dequantize(k, n, in[0]->data, scale[0], zero ?
					    (int32_t)rt_tensor_get_int(zero, 0) :
					    0, is_signed, y);
			return 0;
		}
		for (size_t i = 0; i < n; i += map.inner) {
			size_t c = (i / map.inner) % map.channels;

			f->dequantize(map.inner, (const uint8_t *)in[0]->data + i,
				      scale[c], zero ?
				      (int32_t)rt_tensor_get_int(zero, c) : 0,
				      is_signed, y + i);
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = (i / map.inner) % map.channels;
		float zp = zero ? (float)rt_tensor_get_double(zero, c) : 0.0f;

		y[i] = ((float)rt_tensor_get_double(in[0], i) - zp) * scale[c];
	}
	return 0;
}

/* ---- QGemm ---- */

struct qgemm_plan {
	size_t k, n, b_batches;
	enpu_cpu_gemm_weights **packed;
	int32_t *offset;		/* [n], see the top of the file */
	int any_offset;
	int int32_output;
	int32_t out_type;
	int32_t zero_point, qmin, qmax;
	int32_t *multiplier, *shift;	/* [n] fixed-point rule */
	double *real_scale;		/* [n] fallback */
	int fixed;			/* every column uses the fixed rule */
	int per_channel;
};

static void plan_free(struct qgemm_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; plan->packed && i < plan->b_batches; i++)
		enpu_cpu_gemm_weights_destroy(plan->packed[i]);
	free(plan->packed);
	free(plan->offset);
	free(plan->multiplier);
	free(plan->shift);
	free(plan->real_scale);
	free(plan);
}

static const struct rt_tensor *qin(const struct rt_tensor *const *in,
				   size_t n_in, int index)
{
	return (size_t)index < n_in ? in[index] : NULL;
}

static int is_8bit(int32_t t)
{
	return t == ENPU_RT_UINT8 || t == ENPU_RT_INT8;
}

static int check_param(struct rt_kernel *k, const struct rt_tensor *t,
		       const char *what, int32_t dtype, size_t per_column)
{
	size_t count;

	if (!t)
		return 0;
	count = rt_tensor_elements(t);
	if (t->dtype != dtype)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%s has type %s, expected %s", what,
				   rt_dtype_name(t->dtype),
				   rt_dtype_name(dtype));
	if (count != 1 && (!per_column || count != per_column ||
			   t->rank != 1))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "%s must be a scalar%s (has %zu elements)",
				   what, per_column ? " or one per column" : "",
				   count);
	return 0;
}

static int qgemm_check(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_matmul_shape *s,
		       int32_t *out_type)
{
	const struct rt_tensor *a = in[RT_QGEMM_A], *b = in[RT_QGEMM_B];
	const struct rt_tensor *ys = qin(in, n_in, RT_QGEMM_Y_SCALE);
	const struct rt_tensor *yz = qin(in, n_in, RT_QGEMM_Y_ZERO);
	const struct rt_tensor *as = qin(in, n_in, RT_QGEMM_A_SCALE);
	const struct rt_tensor *bs = qin(in, n_in, RT_QGEMM_B_SCALE);
	int status;

	if (!is_8bit(a->dtype) || !is_8bit(b->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "A (%s) and B (%s) must be uint8 or int8",
				   rt_dtype_name(a->dtype),
				   rt_dtype_name(b->dtype));
	status = rt_matmul_shape(k, a, b, s);
	if (status)
		return status;
	if (s->k > ENPU_CPU_GEMM_MAX_K)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "K = %zu exceeds %d", s->k,
				   ENPU_CPU_GEMM_MAX_K);
	status = check_param(k, qin(in, n_in, RT_QGEMM_A_ZERO),
			     "A's zero point", a->dtype, 0);
	if (!status)
		status = check_param(k, qin(in, n_in, RT_QGEMM_B_ZERO),
				     "B's zero point", b->dtype, s->n);
	if (!status && ys) {
		if (!as || !bs)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output scale without input scales");
		status = check_param(k, as, "A's scale", ENPU_RT_FLOAT, 0);
		if (!status)
			status = check_param(k, bs, "B's scale",
					     ENPU_RT_FLOAT, s->n);
		if (!status)
			status = check_param(k, ys, "Y's scale",
					     ENPU_RT_FLOAT, 0);
		if (!status && yz && !is_8bit(yz->dtype))
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "output type %s is not supported",
					   rt_dtype_name(yz->dtype));
		if (!status && yz)
			status = check_param(k, yz, "Y's zero point",
					     yz->dtype, 0);
	}
	if (!status)
		status = check_param(k, qin(in, n_in, RT_QGEMM_BIAS), "bias",
				     ENPU_RT_INT32, s->n);
	*out_type = !ys ? ENPU_RT_INT32 : yz ? yz->dtype : ENPU_RT_UINT8;
	return status;
}

static int qgemm_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	struct rt_matmul_shape s;
	int32_t out_type;
	int status = qgemm_check(k, in, n_in, &s, &out_type);

	(void)n_out;
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], out_type, s.out_rank,
				   s.out_dims);
}

static int cpu_fail(struct rt_kernel *k, int err, const char *what)
{
	return rt_op_error(k, err == -ENOMEM ? ENPU_RT_OUT_OF_MEMORY :
			   ENPU_RT_RUNTIME_ERROR, "%s failed: %s", what,
			   enpu_cpu_context_error(k->cpu));
}

void rt_qgemm_requant_free(struct rt_qgemm_requant *r)
{
	free(r->multiplier);
	free(r->shift);
	free(r->real_scale);
	r->multiplier = r->shift = NULL;
	r->real_scale = NULL;
}

int rt_qgemm_requant(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, size_t n, int32_t out_type,
		     struct rt_qgemm_requant *r)
{
	const struct rt_tensor *as = qin(in, n_in, RT_QGEMM_A_SCALE);
	const struct rt_tensor *bs = qin(in, n_in, RT_QGEMM_B_SCALE);
	const struct rt_tensor *ys = qin(in, n_in, RT_QGEMM_Y_SCALE);
	const struct rt_tensor *yz = qin(in, n_in, RT_QGEMM_Y_ZERO);
	double y_scale;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->out_type = out_type;
	if (!as || !bs || !ys || !as->data || !bs->data || !ys->data ||
	    (yz && !yz->data))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "the scales and Y's zero point must be "
				   "constants");
	r->multiplier = calloc(n + 1, sizeof(int32_t));
	r->shift = calloc(n + 1, sizeof(int32_t));
	r->real_scale = calloc(n + 1, sizeof(double));
	if (!r->multiplier || !r->shift || !r->real_scale) {
		rt_qgemm_requant_free(r);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	quant_range(out_type, &r->lo, &r->hi);
	r->zero_point = yz ? (int32_t)rt_tensor_get_double(yz, 0) : 0;
	y_scale = ((const float *)ys->data)[0];
	r->per_channel = rt_tensor_elements(bs) != 1;
	r->fixed = 1;
	for (size_t j = 0; j < n; j++) {
		double scale = (double)((const float *)as->data)[0] *
			       ((const float *)bs->data)[r->per_channel ?
							  j : 0] / y_scale;

		r->real_scale[j] = scale;
		if (!(scale > 0 && scale < 1) ||
		    enpu_requant_from_scale(scale, &r->multiplier[j],
					    &r->shift[j]))
			r->fixed = 0;
	}
	if (!(y_scale > 0) || !isfinite(y_scale)) {
		rt_qgemm_requant_free(r);
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "output scale %g is not positive", y_scale);
	}
	/* A fused activation narrows the clamp in the quantized domain. */
	if (k->activation.kind == RT_ACTIVATION_RELU) {
		if (r->zero_point > r->lo)
			r->lo = r->zero_point;
	} else if (k->activation.kind == RT_ACTIVATION_CLIP) {
		double lo = nearbyint(k->activation.min / y_scale) +
			    r->zero_point;
		double hi = nearbyint(k->activation.max / y_scale) +
			    r->zero_point;

		if (lo > r->lo)
			r->lo = lo > r->hi ? r->hi : (int32_t)lo;
		if (hi < r->hi)
			r->hi = hi < r->lo ? r->lo : (int32_t)hi;
	}
	return 0;
}

static int plan_requant(struct rt_kernel *k, struct qgemm_plan *plan,
			const struct rt_tensor *const *in, size_t n_in)
{
	struct rt_qgemm_requant r;
	int status = rt_qgemm_requant(k, in, n_in, plan->n, plan->out_type,
				      &r);

	if (status)
		return status;
	plan->multiplier = r.multiplier;
	plan->shift = r.shift;
	plan->real_scale = r.real_scale;
	plan->zero_point = r.zero_point;
	plan->qmin = r.lo;
	plan->qmax = r.hi;
	plan->per_channel = r.per_channel;
	plan->fixed = r.fixed;
	return 0;
}

/* Builds the plan from constant B and parameters (prepare) or at run. */
static int plan_create(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, const struct rt_matmul_shape *s,
		       int32_t out_type, struct qgemm_plan **out)
{
	const struct rt_tensor *b = in[RT_QGEMM_B];
	const struct rt_tensor *bz = qin(in, n_in, RT_QGEMM_B_ZERO);
	const struct rt_tensor *bias = qin(in, n_in, RT_QGEMM_BIAS);
	struct qgemm_plan *plan = calloc(1, sizeof(*plan));
	size_t kn = s->k * s->n;
	int8_t *b8 = NULL;
	int status = 0;

	if (!plan)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	plan->k = s->k;
	plan->n = s->n;
	plan->out_type = out_type;
	plan->int32_output = out_type == ENPU_RT_INT32;
	plan->b_batches = kn ? rt_tensor_elements(b) / kn : 0;
	plan->packed = calloc(plan->b_batches + 1, sizeof(*plan->packed));
	plan->offset = calloc(s->n + 1, sizeof(int32_t));
	b8 = malloc(kn + 1);
	if (!plan->packed || !plan->offset || !b8) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
				     "out of memory");
		goto out;
	}
	for (size_t j = 0; j < s->n; j++) {
		int32_t zero = bz ? (int32_t)rt_tensor_get_double(
				bz, rt_tensor_elements(bz) == 1 ? 0 : j) : 0;

		plan->offset[j] = (b->dtype == ENPU_RT_UINT8 ? 128 : 0) - zero;
		plan->any_offset |= plan->offset[j] != 0;
	}
	for (size_t batch = 0; batch < plan->b_batches && s->k; batch++) {
		const uint8_t *src = (const uint8_t *)b->data + batch * kn;
		int err;

		for (size_t i = 0; i < kn; i++)
			b8[i] = b->dtype == ENPU_RT_UINT8 ?
				(int8_t)((int)src[i] - 128) : (int8_t)src[i];
		err = enpu_cpu_gemm_weights_pack(k->cpu, s->k, s->n, b8, s->n,
						 bias ? bias->data : NULL,
						 &plan->packed[batch]);
		if (err) {
			status = cpu_fail(k, err, "packing B");
			goto out;
		}
	}
	if (!plan->int32_output)
		status = plan_requant(k, plan, in, n_in);
out:
	free(b8);
	if (status)
		plan_free(plan);
	else
		*out = plan;
	return status;
}

static int qgemm_constant_inputs(const struct rt_tensor *const *in,
				 size_t n_in)
{
	for (int i = RT_QGEMM_A_SCALE; i < RT_QGEMM_INPUTS; i++)
		if ((size_t)i < n_in && in[i] && !in[i]->data)
			return 0;
	return 1;
}

static int qgemm_prepare(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in)
{
	struct rt_matmul_shape s;
	int32_t out_type;
	int status;

	/* Pack once when B and every parameter are known at load. */
	if (!qgemm_constant_inputs(in, n_in) || in[RT_QGEMM_A]->rank < 0)
		return 0;
	status = qgemm_check(k, in, n_in, &s, &out_type);
	if (status)
		return status;
	return plan_create(k, in, n_in, &s, out_type,
			   (struct qgemm_plan **)&k->state);
}

static void qgemm_release(struct rt_kernel *k)
{
	plan_free(k->state);
	k->state = NULL;
}

static int32_t clamp_acc(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN :
	       (int32_t)v;
}

static int32_t requant_one(const struct qgemm_plan *plan, int32_t acc,
			   size_t j)
{
	size_t c = plan->per_channel ? j : 0;

	if (plan->fixed)
		return enpu_requantize(acc, plan->multiplier[c],
				       plan->shift[c], plan->zero_point,
				       plan->qmin, plan->qmax);
	double v = nearbyint((double)acc * plan->real_scale[c]) +
		   plan->zero_point;

	return v < plan->qmin ? plan->qmin : v > plan->qmax ? plan->qmax :
	       (int32_t)v;
}

static int qgemm_batch(struct rt_kernel *k, const struct qgemm_plan *plan,
		       const struct rt_matmul_shape *s, const void *a,
		       int32_t a_type, int32_t a_zero,
		       const enpu_cpu_gemm_weights *weights,
		       const int32_t *bias, void *out, int32_t *scratch)
{
	size_t m = s->m, n = s->n, kk = s->k;
	int direct = !plan->any_offset && plan->fixed && !plan->int32_output;
	int32_t *acc = plan->int32_output ? out : scratch;
	struct enpu_cpu_requant requant = {
		plan->multiplier, plan->shift, plan->per_channel,
		plan->zero_point, plan->qmin, plan->qmax,
	};
	struct enpu_cpu_gemm_args args = {
		.m = m, .a = a, .lda = kk,
		.a_type = a_type == ENPU_RT_UINT8 ? ENPU_CPU_UINT8 :
			  ENPU_CPU_INT8,
		.a_zero_point = a_zero, .weights = weights,
		.c = direct ? out : acc, .ldc = n,
		.c_type = !direct ? ENPU_CPU_INT32 :
			  plan->out_type == ENPU_RT_UINT8 ? ENPU_CPU_UINT8 :
			  ENPU_CPU_INT8,
		.requant = direct ? &requant : NULL,
	};
	int err;

	if (!m || !n)
		return 0;
	if (!kk) {
		for (size_t i = 0; i < m * n; i++)
			acc[i] = bias ? bias[i % n] : 0;
	} else {
		err = enpu_cpu_gemm(k->cpu, &args);
		if (err)
			return cpu_fail(k, err, "GEMM");
		if (direct)
			return 0;
	}
	for (size_t i = 0; i < m; i++) {
		int64_t rowsum = 0;

		if (plan->any_offset) {
			for (size_t p = 0; p < kk; p++)
				rowsum += a_type == ENPU_RT_UINT8 ?
					  ((const uint8_t *)a)[i * kk + p] :
					  ((const int8_t *)a)[i * kk + p];
			rowsum -= (int64_t)kk * a_zero;
		}
		for (size_t j = 0; j < n; j++) {
			int32_t v = clamp_acc((int64_t)acc[i * n + j] +
					      (int64_t)plan->offset[j] *
					      rowsum);

			if (plan->int32_output) {
				acc[i * n + j] = v;
			} else if (plan->out_type == ENPU_RT_UINT8) {
				((uint8_t *)out)[i * n + j] =
					(uint8_t)requant_one(plan, v, j);
			} else {
				((int8_t *)out)[i * n + j] =
					(int8_t)requant_one(plan, v, j);
			}
		}
	}
	return 0;
}

static int qgemm_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *a = in[RT_QGEMM_A];
	const struct rt_tensor *az = qin(in, n_in, RT_QGEMM_A_ZERO);
	const struct rt_tensor *bias = qin(in, n_in, RT_QGEMM_BIAS);
	struct qgemm_plan *plan = k->state, *own = NULL;
	struct rt_matmul_shape s;
	int32_t out_type, a_zero, *scratch = NULL;
	size_t out_size;
	int status;

	(void)n_out;
	status = qgemm_check(k, in, n_in, &s, &out_type);
	if (status)
		return status;
	if (!plan) {
		status = plan_create(k, in, n_in, &s, out_type, &own);
		if (status)
			return status;
		plan = own;
	}
	a_zero = az ? (int32_t)rt_tensor_get_double(az, 0) : 0;
	out_size = enpu_rt_dtype_size(out_type);
	scratch = malloc(s.m * s.n * sizeof(int32_t) + 1);
	if (!scratch) {
		status = rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	for (size_t batch = 0; batch < s.batch && !status; batch++) {
		size_t ao, bo;

		rt_matmul_batch_offsets(&s, batch, &ao, &bo);
		status = qgemm_batch(k, plan, &s,
				     (const uint8_t *)a->data + ao, a->dtype,
				     a_zero,
				     s.k && s.n ? plan->packed[bo / (s.k * s.n)] :
				     NULL,
				     bias ? bias->data : NULL,
				     (uint8_t *)out[0]->data +
				     batch * s.m * s.n * out_size, scratch);
	}
out:
	free(scratch);
	plan_free(own);
	return status;
}

/* MatMulInteger(A, B, a_zero, b_zero): QGemm with an int32 output. */
static void matmul_integer_map(const struct rt_tensor *const *in, size_t n_in,
			       const struct rt_tensor *mapped[RT_QGEMM_INPUTS])
{
	for (int i = 0; i < RT_QGEMM_INPUTS; i++)
		mapped[i] = NULL;
	mapped[RT_QGEMM_A] = in[0];
	mapped[RT_QGEMM_B] = in[1];
	mapped[RT_QGEMM_A_ZERO] = n_in > 2 ? in[2] : NULL;
	mapped[RT_QGEMM_B_ZERO] = n_in > 3 ? in[3] : NULL;
}

static int matmul_integer_infer(struct rt_kernel *k,
				const struct rt_tensor *const *in,
				size_t n_in, struct rt_tensor *const *out,
				size_t n_out)
{
	const struct rt_tensor *mapped[RT_QGEMM_INPUTS];

	matmul_integer_map(in, n_in, mapped);
	return qgemm_infer(k, mapped, RT_QGEMM_INPUTS, out, n_out);
}

static int matmul_integer_prepare(struct rt_kernel *k,
				  const struct rt_tensor *const *in,
				  size_t n_in)
{
	const struct rt_tensor *mapped[RT_QGEMM_INPUTS];

	matmul_integer_map(in, n_in, mapped);
	return qgemm_prepare(k, mapped, RT_QGEMM_INPUTS);
}

static int matmul_integer_run(struct rt_kernel *k,
			      const struct rt_tensor *const *in, size_t n_in,
			      struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *mapped[RT_QGEMM_INPUTS];

	matmul_integer_map(in, n_in, mapped);
	return qgemm_run(k, mapped, RT_QGEMM_INPUTS, out, n_out);
}

const struct rt_op_def rt_ops_quantize[] = {
	{ "QuantizeLinear", "", 10, OPSET_MAX, 2, 3, 1, 1, 0, quantize_infer,
	  NULL, quantize_run, NULL },
	{ "DequantizeLinear", "", 10, OPSET_MAX, 2, 3, 1, 1, 0,
	  dequantize_infer, NULL, dequantize_run, NULL },
	/* Same input layout as QGemm's first eight. */
	{ "QLinearMatMul", "", 10, OPSET_MAX, 8, 8, 1, 1, 0, qgemm_infer,
	  qgemm_prepare, qgemm_run, qgemm_release },
	{ "MatMulInteger", "", 10, OPSET_MAX, 2, 4, 1, 1, 0,
	  matmul_integer_infer, matmul_integer_prepare, matmul_integer_run,
	  qgemm_release },
	{ RT_QGEMM_OP, RT_QGEMM_DOMAIN, 1, 1, 4, RT_QGEMM_INPUTS, 1, 1, 0,
	  qgemm_infer, qgemm_prepare, qgemm_run, qgemm_release },
	{ 0 },
};
