// SPDX-License-Identifier: MIT
/*
 * Float MatMul (numpy semantics, batched, fused bias and activation) and
 * Gemm (transposes, alpha, beta, unidirectionally broadcast C, fused
 * activation). Straight loops in i-k-j order so the inner loop streams
 * rows of B and C; float accumulation as the ONNX reference does.
 */
#include <math.h>
#include <string.h>

#include "matmul_shape.h"

#define OPSET_MAX 21

int rt_matmul_shape(struct rt_kernel *k, const struct rt_tensor *a,
		    const struct rt_tensor *b, struct rt_matmul_shape *s)
{
	int64_t ad[RT_MAX_RANK + 1], bd[RT_MAX_RANK + 1];
	int ar = a->rank, br = b->rank;
	char x[128], y[128];

	memset(s, 0, sizeof(*s));
	if (ar < 1 || br < 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "inputs must have rank >= 1");
	memcpy(ad, a->dims, (size_t)ar * sizeof(ad[0]));
	memcpy(bd, b->dims, (size_t)br * sizeof(bd[0]));
	if (ar == 1) {
		ad[1] = ad[0];
		ad[0] = 1;
		ar = 2;
	}
	if (br == 1) {
		bd[1] = 1;
		br = 2;
	}
	if (ad[ar - 1] != bd[br - 2])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "inner dimensions differ: %s x %s",
				   rt_shape_string(a, x, sizeof(x)),
				   rt_shape_string(b, y, sizeof(y)));
	s->m = (size_t)ad[ar - 2];
	s->k = (size_t)ad[ar - 1];
	s->n = (size_t)bd[br - 1];
	s->batch_rank = (ar > br ? ar : br) - 2;
	s->batch = 1;
	for (int d = 0; d < s->batch_rank; d++) {
		int ai = d - (s->batch_rank - (ar - 2));
		int bi = d - (s->batch_rank - (br - 2));
		int64_t da = ai >= 0 ? ad[ai] : 1, db = bi >= 0 ? bd[bi] : 1;

		if (da != db && da != 1 && db != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "batch dimensions do not broadcast: "
					   "%s x %s",
					   rt_shape_string(a, x, sizeof(x)),
					   rt_shape_string(b, y, sizeof(y)));
		s->a_batch_dims[d] = da;
		s->b_batch_dims[d] = db;
		s->batch_dims[d] = da > db ? da : db;
		if (da == 0 || db == 0)
			s->batch_dims[d] = 0;
		s->batch *= (size_t)s->batch_dims[d];
		s->out_dims[s->out_rank++] = s->batch_dims[d];
	}
	if (a->rank > 1)
		s->out_dims[s->out_rank++] = (int64_t)s->m;
	if (b->rank > 1)
		s->out_dims[s->out_rank++] = (int64_t)s->n;
	return 0;
}

void rt_matmul_batch_offsets(const struct rt_matmul_shape *s, size_t index,
			     size_t *a_offset, size_t *b_offset)
{
	size_t a_batch = 0, b_batch = 0, a_stride = 1, b_stride = 1;

	for (int d = s->batch_rank - 1; d >= 0; d--) {
		size_t coord = index % (size_t)s->batch_dims[d];

		index /= (size_t)s->batch_dims[d];
		if (s->a_batch_dims[d] != 1)
			a_batch += coord * a_stride;
		if (s->b_batch_dims[d] != 1)
			b_batch += coord * b_stride;
		a_stride *= (size_t)s->a_batch_dims[d];
		b_stride *= (size_t)s->b_batch_dims[d];
	}
	*a_offset = a_batch * s->m * s->k;
	*b_offset = b_batch * s->k * s->n;
}

static int float_type(struct rt_kernel *k, const struct rt_tensor *t,
		      const struct rt_tensor *other)
{
	if (t->dtype != ENPU_RT_FLOAT && t->dtype != ENPU_RT_DOUBLE)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported (float, double)",
				   rt_dtype_name(t->dtype));
	if (other && other->dtype != t->dtype)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "inputs have types %s and %s",
				   rt_dtype_name(t->dtype),
				   rt_dtype_name(other->dtype));
	return 0;
}

static int matmul_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct rt_matmul_shape s;
	int status = float_type(k, in[0], in[1]);

	(void)n_out;
	if (!status)
		status = rt_matmul_shape(k, in[0], in[1], &s);
	if (status)
		return status;
	if (k->has_fused_bias) {
		const struct rt_tensor *bias = in[n_in - 1];

		if (bias->dtype != in[0]->dtype ||
		    rt_tensor_elements(bias) != s.n || in[1]->rank < 2)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "fused bias does not match N=%zu",
					   s.n);
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, s.out_rank,
				   s.out_dims);
}

#define MATMUL_KERNEL(type) \
static void matmul_##type(const type *a, const type *b, type *c, size_t m, \
			  size_t kk, size_t n, const type *bias) \
{ \
	for (size_t i = 0; i < m; i++) { \
		type *row = c + i * n; \
		for (size_t j = 0; j < n; j++) \
			row[j] = 0; \
		for (size_t p = 0; p < kk; p++) { \
			type av = a[i * kk + p]; \
			const type *brow = b + p * n; \
			for (size_t j = 0; j < n; j++) \
				row[j] += av * brow[j]; \
		} \
		if (bias) \
			for (size_t j = 0; j < n; j++) \
				row[j] += bias[j]; \
	} \
}

MATMUL_KERNEL(float)
MATMUL_KERNEL(double)

static void apply_activation(const struct rt_kernel *k, struct rt_tensor *t)
{
	size_t n = rt_tensor_elements(t);

	if (t->dtype == ENPU_RT_FLOAT) {
		rt_activation_apply_f32(&k->activation, t->data, n);
	} else if (k->activation.kind != RT_ACTIVATION_NONE) {
		double *d = t->data;
		double lo = k->activation.kind == RT_ACTIVATION_RELU ? 0 :
			    k->activation.min;
		double hi = k->activation.kind == RT_ACTIVATION_RELU ?
			    (double)INFINITY : k->activation.max;

		for (size_t i = 0; i < n; i++)
			d[i] = d[i] < lo ? lo : d[i] > hi ? hi : d[i];
	}
}

static int matmul_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct rt_matmul_shape s;
	const void *bias = k->has_fused_bias ? in[n_in - 1]->data : NULL;
	int status = rt_matmul_shape(k, in[0], in[1], &s);

	(void)n_out;
	if (status)
		return status;
	for (size_t batch = 0; batch < s.batch; batch++) {
		size_t ao, bo, co = batch * s.m * s.n;

		rt_matmul_batch_offsets(&s, batch, &ao, &bo);
		if (in[0]->dtype == ENPU_RT_FLOAT)
			matmul_float((const float *)in[0]->data + ao,
				     (const float *)in[1]->data + bo,
				     (float *)out[0]->data + co, s.m, s.k, s.n,
				     bias);
		else
			matmul_double((const double *)in[0]->data + ao,
				      (const double *)in[1]->data + bo,
				      (double *)out[0]->data + co, s.m, s.k,
				      s.n, bias);
	}
	apply_activation(k, out[0]);
	return 0;
}

struct gemm_params {
	int64_t trans_a, trans_b;
	float alpha, beta;
	size_t m, k, n;
};

static int gemm_params(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct gemm_params *p)
{
	int64_t broadcast = 1;
	int status = rt_attr_int(k, "transA", 0, &p->trans_a);

	if (!status)
		status = rt_attr_int(k, "transB", 0, &p->trans_b);
	if (!status)
		status = rt_attr_float(k, "alpha", 1.0f, &p->alpha);
	if (!status)
		status = rt_attr_float(k, "beta", 1.0f, &p->beta);
	if (!status && k->opset < 7)
		status = rt_attr_int(k, "broadcast", 0, &broadcast);
	if (status)
		return status;
	if (in[0]->rank != 2 || in[1]->rank != 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "A and B must be 2-D (ranks %d, %d)",
				   in[0]->rank, in[1]->rank);
	p->m = (size_t)in[0]->dims[p->trans_a ? 1 : 0];
	p->k = (size_t)in[0]->dims[p->trans_a ? 0 : 1];
	p->n = (size_t)in[1]->dims[p->trans_b ? 0 : 1];
	if ((size_t)in[1]->dims[p->trans_b ? 1 : 0] != p->k)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "inner dimensions differ (%zu vs %lld)",
				   p->k,
				   (long long)in[1]->dims[p->trans_b ? 1 : 0]);
	if (n_in > 2 && in[2]) {
		const struct rt_tensor *c = in[2];
		int64_t mn[2] = { (int64_t)p->m, (int64_t)p->n };

		if (c->dtype != in[0]->dtype)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "C has type %s, A %s",
					   rt_dtype_name(c->dtype),
					   rt_dtype_name(in[0]->dtype));
		if (c->rank > 2)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "C has rank %d", c->rank);
		for (int d = 0; d < c->rank; d++) {
			int64_t want = mn[2 - c->rank + d];

			if (c->dims[d] != want && c->dims[d] != 1)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "C does not broadcast to "
						   "[%zu,%zu]", p->m, p->n);
		}
		if (!broadcast && rt_tensor_elements(c) != p->m * p->n)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "C must be [%zu,%zu] without the "
					   "broadcast attribute", p->m, p->n);
	}
	return 0;
}

static int gemm_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct gemm_params p;
	int64_t dims[2];
	int status = float_type(k, in[0], in[1]);

	(void)n_out;
	if (!status)
		status = gemm_params(k, in, n_in, &p);
	if (status)
		return status;
	dims[0] = (int64_t)p.m;
	dims[1] = (int64_t)p.n;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, 2, dims);
}

#define GEMM_KERNEL(type) \
static void gemm_##type(const struct gemm_params *p, const type *a, \
			const type *b, const struct rt_tensor *c, type *y) \
{ \
	size_t m = p->m, kk = p->k, n = p->n; \
	for (size_t i = 0; i < m; i++) { \
		type *row = y + i * n; \
		for (size_t j = 0; j < n; j++) \
			row[j] = 0; \
		for (size_t q = 0; q < kk; q++) { \
			type av = p->trans_a ? a[q * m + i] : a[i * kk + q]; \
			av *= (type)p->alpha; \
			if (p->trans_b) \
				for (size_t j = 0; j < n; j++) \
					row[j] += av * b[j * kk + q]; \
			else \
				for (size_t j = 0; j < n; j++) \
					row[j] += av * b[q * n + j]; \
		} \
		if (!c) \
			continue; \
		const type *cd = c->data; \
		size_t rows = c->rank == 2 ? (size_t)c->dims[0] : 1; \
		size_t cols = c->rank >= 1 ? (size_t)c->dims[c->rank - 1] : 1; \
		for (size_t j = 0; j < n; j++) \
			row[j] += (type)p->beta * \
				  cd[(rows == 1 ? 0 : i) * cols + \
				     (cols == 1 ? 0 : j)]; \
	} \
}

GEMM_KERNEL(float)
GEMM_KERNEL(double)

static int gemm_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct gemm_params p;
	const struct rt_tensor *c = n_in > 2 ? in[2] : NULL;
	int status = gemm_params(k, in, n_in, &p);

	(void)n_out;
	if (status)
		return status;
	if (in[0]->dtype == ENPU_RT_FLOAT)
		gemm_float(&p, in[0]->data, in[1]->data, c, out[0]->data);
	else
		gemm_double(&p, in[0]->data, in[1]->data, c, out[0]->data);
	apply_activation(k, out[0]);
	return 0;
}

const struct rt_op_def rt_ops_matmul[] = {
	{ "MatMul", "", 1, OPSET_MAX, 2, 2, 1, 1,
	  RT_OP_FUSES_BIAS | RT_OP_FUSES_ACTIVATION, matmul_infer, NULL,
	  matmul_run, NULL },
	{ "Gemm", "", 1, OPSET_MAX, 2, 3, 1, 1, RT_OP_FUSES_ACTIVATION,
	  gemm_infer, NULL, gemm_run, NULL },
	{ 0 },
};
