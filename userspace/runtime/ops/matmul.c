// SPDX-License-Identifier: MIT
/*
 * Float MatMul (numpy semantics, batched, fused bias and activation) and
 * Gemm (transposes, alpha, beta, unidirectionally broadcast C, fused
 * activation). float32 runs on the CPU runtime's packed GEMM
 * (enpu_cpu_sgemm): a constant B is packed once at prepare (Gemm's alpha
 * folded in), a computed one is read in place or packed per call (K^T in
 * attention); a MatMul whose B has no batch axes runs all of A's batches
 * as one tall product. Bias and activation are fused into the GEMM's
 * store. double keeps straight loops in i-k-j order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu_float.h"
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

/* The fused activation as the GEMM's {min, max}; NULL when none. */
static const float *clamp_of(const struct rt_kernel *k, float clamp[2])
{
	if (k->activation.kind == RT_ACTIVATION_RELU) {
		clamp[0] = 0.0f;
		clamp[1] = INFINITY;
		return clamp;
	}
	if (k->activation.kind == RT_ACTIVATION_CLIP) {
		clamp[0] = k->activation.min;
		clamp[1] = k->activation.max;
		return clamp;
	}
	return NULL;
}

static int cpu_fail(struct rt_kernel *k)
{
	return rt_op_error(k, ENPU_RT_RUNTIME_ERROR, "%s",
			   enpu_cpu_context_error(k->cpu));
}

/* Packed constant B per batch matrix of B (MatMul), or one (Gemm). */
struct packed_b {
	size_t count;
	enpu_cpu_sgemm_weights **w;
};

static void packed_free(struct rt_kernel *k)
{
	struct packed_b *p = k->state;

	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++)
		enpu_cpu_sgemm_weights_destroy(p->w[i]);
	free(p->w);
	free(p);
	k->state = NULL;
}

static int packed_alloc(struct rt_kernel *k, size_t count)
{
	struct packed_b *p = calloc(1, sizeof(*p));

	if (p)
		p->w = calloc(count, sizeof(*p->w));
	if (!p || !p->w) {
		free(p);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	p->count = count;
	k->state = p;
	return 0;
}

static int matmul_prepare(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in)
{
	const struct rt_tensor *b = in[1];
	size_t count, k_dim, n_dim;
	int status;

	(void)n_in;
	if (!b->data || b->dtype != ENPU_RT_FLOAT || b->rank < 2 ||
	    in[0]->dtype != ENPU_RT_FLOAT)
		return 0;
	k_dim = (size_t)b->dims[b->rank - 2];
	n_dim = (size_t)b->dims[b->rank - 1];
	if (!k_dim || !n_dim)
		return 0;
	count = rt_tensor_elements(b) / (k_dim * n_dim);
	status = packed_alloc(k, count);
	for (size_t i = 0; !status && i < count; i++)
		if (enpu_cpu_sgemm_weights_pack(k->cpu, k_dim, n_dim,
						(const float *)b->data +
						i * k_dim * n_dim, n_dim, 0,
						&((struct packed_b *)k->state)->w[i]))
			status = cpu_fail(k);
	return status;
}

static int matmul_f32(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *y,
		      const struct rt_matmul_shape *s)
{
	const struct packed_b *packed = k->state;
	const float *bias = k->has_fused_bias ? in[n_in - 1]->data : NULL;
	float clamp[2];
	struct enpu_cpu_sgemm_args a = {
		.n = s->n, .k = s->k, .lda = s->k, .ldb = s->n,
		.bias = bias, .clamp = clamp_of(k, clamp), .ldc = s->n,
	};
	size_t b_batches = rt_tensor_elements(in[1]) / (s->k * s->n);

	if (!s->m || !s->n || !s->batch)
		return 0;
	if (!s->k) {
		/* An empty sum: bias (or 0), then the activation. */
		for (size_t i = 0; i < s->batch * s->m; i++)
			for (size_t j = 0; j < s->n; j++)
				((float *)y->data)[i * s->n + j] = bias ? bias[j] : 0;
		rt_activation_apply_f32(&k->activation, y->data,
					rt_tensor_elements(y));
		return 0;
	}
	if (b_batches == 1 && in[1]->rank <= 2) {
		/* One B for every batch of A: a single tall product. */
		a.m = s->batch * s->m;
		a.a = in[0]->data;
		a.weights = packed ? packed->w[0] : NULL;
		a.b = packed ? NULL : in[1]->data;
		a.c = y->data;
		return enpu_cpu_sgemm(k->cpu, &a) ? cpu_fail(k) : 0;
	}
	for (size_t batch = 0; batch < s->batch; batch++) {
		size_t ao, bo;

		rt_matmul_batch_offsets(s, batch, &ao, &bo);
		a.m = s->m;
		a.a = (const float *)in[0]->data + ao;
		a.weights = packed ? packed->w[bo / (s->k * s->n)] : NULL;
		a.b = packed ? NULL : (const float *)in[1]->data + bo;
		a.c = (float *)y->data + batch * s->m * s->n;
		if (enpu_cpu_sgemm(k->cpu, &a))
			return cpu_fail(k);
	}
	return 0;
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
	if (in[0]->dtype == ENPU_RT_FLOAT)
		return matmul_f32(k, in, n_in, out[0], &s);
	for (size_t batch = 0; batch < s.batch; batch++) {
		size_t ao, bo, co = batch * s.m * s.n;

		rt_matmul_batch_offsets(&s, batch, &ao, &bo);
		matmul_double((const double *)in[0]->data + ao,
			      (const double *)in[1]->data + bo,
			      (double *)out[0]->data + co, s.m, s.k, s.n,
			      bias);
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

GEMM_KERNEL(double)

/* B constant: packed once, alpha folded in (alpha * B is exact to
 * float rounding, the same as scaling the products). */
static int gemm_prepare(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in)
{
	const struct rt_tensor *b = in[1];
	int64_t trans_b;
	float alpha;
	size_t rows, cols;
	float *scaled = NULL;
	int status;

	(void)n_in;
	if (!b->data || b->dtype != ENPU_RT_FLOAT || b->rank != 2 ||
	    in[0]->dtype != ENPU_RT_FLOAT)
		return 0;
	status = rt_attr_int(k, "transB", 0, &trans_b);
	if (!status)
		status = rt_attr_float(k, "alpha", 1.0f, &alpha);
	if (status)
		return status;
	rows = (size_t)b->dims[0];
	cols = (size_t)b->dims[1];
	if (!rows || !cols)
		return 0;
	if (alpha != 1.0f) {
		scaled = malloc(rows * cols * sizeof(float));
		if (!scaled)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		for (size_t i = 0; i < rows * cols; i++)
			scaled[i] = alpha * ((const float *)b->data)[i];
	}
	status = packed_alloc(k, 1);
	if (!status &&
	    enpu_cpu_sgemm_weights_pack(k->cpu, trans_b ? cols : rows,
					trans_b ? rows : cols,
					scaled ? scaled : b->data, cols,
					(int)trans_b,
					&((struct packed_b *)k->state)->w[0]))
		status = cpu_fail(k);
	free(scaled);
	return status;
}

static int gemm_f32(struct rt_kernel *k, const struct gemm_params *p,
		    const struct rt_tensor *const *in,
		    const struct rt_tensor *c, float *y)
{
	const struct packed_b *packed = k->state;
	const float *a = in[0]->data, *cd = c ? c->data : NULL;
	float *a_t = NULL, clamp[2];
	/* C as a bias row of n values: fused into the GEMM's store. */
	int c_row = c && p->beta == 1.0f && rt_tensor_elements(c) == p->n &&
		    (c->rank == 1 || c->dims[0] == 1) && p->n > 1;
	int post = (c && !c_row) || (!packed && p->alpha != 1.0f);
	struct enpu_cpu_sgemm_args args = {
		.m = p->m, .n = p->n, .k = p->k, .lda = p->k,
		.weights = packed ? packed->w[0] : NULL,
		.b = packed ? NULL : in[1]->data,
		.ldb = p->trans_b ? p->k : p->n, .b_transposed = (int)p->trans_b,
		.bias = c_row ? cd : NULL,
		.clamp = post ? NULL : clamp_of(k, clamp), .c = y, .ldc = p->n,
	};

	if (!p->m || !p->n)
		return 0;
	if (!p->k) {
		memset(y, 0, p->m * p->n * sizeof(float));
		post = 1;
	} else {
		if (p->trans_a) {
			a_t = malloc(p->m * p->k * sizeof(float));
			if (!a_t)
				return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
						   "out of memory");
			for (size_t i = 0; i < p->m; i++)
				for (size_t q = 0; q < p->k; q++)
					a_t[i * p->k + q] = a[q * p->m + i];
		}
		args.a = a_t ? a_t : a;
		if (enpu_cpu_sgemm(k->cpu, &args)) {
			free(a_t);
			return cpu_fail(k);
		}
		free(a_t);
	}
	if (!post)
		return 0;
	/* y = alpha * AB (unless folded) + beta * C, then the activation. */
	{
		float alpha = packed ? 1.0f : p->alpha;
		size_t rows = c && c->rank == 2 ? (size_t)c->dims[0] : 1;
		size_t cols = c && c->rank >= 1 ? (size_t)c->dims[c->rank - 1] : 1;

		for (size_t i = 0; i < p->m; i++)
			for (size_t j = 0; j < p->n; j++) {
				float v = alpha * y[i * p->n + j];

				if (c && !c_row)
					v += p->beta * cd[(rows == 1 ? 0 : i) * cols +
							  (cols == 1 ? 0 : j)];
				y[i * p->n + j] = v;
			}
		rt_activation_apply_f32(&k->activation, y, p->m * p->n);
	}
	return 0;
}

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
		return gemm_f32(k, &p, in, c, out[0]->data);
	gemm_double(&p, in[0]->data, in[1]->data, c, out[0]->data);
	apply_activation(k, out[0]);
	return 0;
}

const struct rt_op_def rt_ops_matmul[] = {
	{ "MatMul", "", 1, OPSET_MAX, 2, 2, 1, 1,
	  RT_OP_FUSES_BIAS | RT_OP_FUSES_ACTIVATION, matmul_infer,
	  matmul_prepare, matmul_run, packed_free },
	{ "Gemm", "", 1, OPSET_MAX, 2, 3, 1, 1, RT_OP_FUSES_ACTIVATION,
	  gemm_infer, gemm_prepare, gemm_run, packed_free },
	{ 0 },
};
