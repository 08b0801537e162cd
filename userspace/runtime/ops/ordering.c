// SPDX-License-Identifier: MIT
/*
 * Ops that sort: TopK (the K largest or smallest along an axis, ties
 * by lower index) and Unique (distinct elements or slices, sorted or in
 * order of first occurrence, with indices, inverse and counts). TopK's K
 * and Unique's count depend on values, so they infer from the values
 * when those are known.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

struct topk_view {
	int64_t axis, k;
	size_t outer, len, inner;
	int largest, sorted;
};

static int topk_view_of(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct topk_view *v)
{
	const struct rt_tensor *x = in[0];
	int64_t a, largest, sorted;
	int status = rt_attr_int(k, "axis", -1, &a);

	if (!status)
		status = rt_attr_int(k, "largest", 1, &largest);
	if (!status)
		status = rt_attr_int(k, "sorted", 1, &sorted);
	if (!status)
		status = rt_axis(k, a, x->rank, &v->axis);
	if (status)
		return status;
	if (k->opset < 10) {
		status = rt_attr_int(k, "k", 1, &v->k);
		if (status)
			return status;
	} else {
		if (n_in < 2 || !in[1])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL, "K missing");
		if (!in[1]->data)
			return RT_OP_NEEDS_VALUES;
		if (rt_tensor_elements(in[1]) != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "K must be one value");
		v->k = rt_tensor_get_int(in[1], 0);
	}
	if (!rt_dtype_is_float(x->dtype) && !rt_dtype_is_integer(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(x->dtype));
	if (v->k < 0 || v->k > x->dims[v->axis])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "K %" PRId64 " outside 0..%" PRId64, v->k,
				   x->dims[v->axis]);
	v->outer = v->inner = 1;
	for (int d = 0; d < x->rank; d++) {
		if (d < v->axis)
			v->outer *= (size_t)x->dims[d];
		else if (d > v->axis)
			v->inner *= (size_t)x->dims[d];
	}
	v->len = (size_t)x->dims[v->axis];
	v->largest = largest != 0;
	v->sorted = sorted != 0;
	return 0;
}

static int topk_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct topk_view v;
	int64_t dims[RT_MAX_RANK];
	int status = topk_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	memcpy(dims, in[0]->dims, sizeof(dims));
	dims[v.axis] = v.k;
	status = rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank, dims);
	if (!status && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_INT64,
					     in[0]->rank, dims);
	return status;
}

struct ranked {
	double value;
	int64_t index;
};

static int by_largest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	/* NaN counts as the largest, as in ONNX Runtime; ties: lower index. */
	if (isnan(x->value) != isnan(y->value))
		return isnan(x->value) ? -1 : 1;
	if (x->value != y->value && !isnan(x->value))
		return x->value > y->value ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_smallest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (isnan(x->value) != isnan(y->value))
		return isnan(x->value) ? 1 : -1;
	if (x->value != y->value && !isnan(x->value))
		return x->value < y->value ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_index(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int topk_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct topk_view v;
	struct ranked *row;
	size_t size = rt_dtype_size(x->dtype);
	int status = topk_view_of(k, in, n_in, &v);

	(void)n_out;
	if (status)
		return status;
	row = malloc((v.len + 1) * sizeof(*row));
	if (!row)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	/*
	 * int64 values beyond 2^53 compare through double; exact ties there
	 * fall back to the index order, which keeps the result deterministic.
	 */
	for (size_t o = 0; o < v.outer; o++)
	for (size_t i = 0; i < v.inner; i++) {
		for (size_t a = 0; a < v.len; a++) {
			row[a].value = rt_tensor_get_double(x,
				(o * v.len + a) * v.inner + i);
			row[a].index = (int64_t)a;
		}
		qsort(row, v.len, sizeof(*row), v.largest ? by_largest :
		      by_smallest);
		if (!v.sorted)
			qsort(row, (size_t)v.k, sizeof(*row), by_index);
		for (int64_t j = 0; j < v.k; j++) {
			size_t dst = (o * (size_t)v.k + (size_t)j) * v.inner + i;
			size_t src = (o * v.len + (size_t)row[j].index) * v.inner + i;

			memcpy((char *)out[0]->data + dst * size,
			       (const char *)x->data + src * size, size);
			if (out[1])
				((int64_t *)out[1]->data)[dst] = row[j].index;
		}
	}
	free(row);
	return 0;
}

/* ---- Unique ------------------------------------------------------------ */

struct unique_plan {
	size_t slices, slice_bytes, unique;
	size_t *first;		/* per unique value: its first slice */
	int64_t *inverse;	/* per slice: its unique index */
	int64_t *counts;
	int has_axis;
	int64_t axis;
	size_t outer, inner;	/* around the axis, in elements */
};

/* Compares slices @a and @b: along the axis, or single elements. */
static int slice_cmp(const struct rt_tensor *x, const struct unique_plan *p,
		     size_t a, size_t b)
{
	size_t len = p->has_axis ? (size_t)x->dims[p->axis] : 1;

	for (size_t o = 0; o < p->outer; o++)
	for (size_t i = 0; i < p->inner; i++) {
		size_t ea = (o * len + a) * p->inner + i;
		size_t eb = (o * len + b) * p->inner + i;
		double va = rt_tensor_get_double(x, ea), vb = rt_tensor_get_double(x, eb);

		if (rt_dtype_is_integer(x->dtype)) {
			int64_t ia = rt_tensor_get_int(x, ea), ib = rt_tensor_get_int(x, eb);

			if (ia != ib)
				return ia < ib ? -1 : 1;
		} else if (va != vb) {
			return va < vb ? -1 : 1;
		}
	}
	return 0;
}

static void unique_free(struct unique_plan *p)
{
	free(p->first);
	free(p->inverse);
	free(p->counts);
}

static int unique_plan_of(struct rt_kernel *k, const struct rt_tensor *x,
			  struct unique_plan *p)
{
	const struct rt_attr *a = rt_attr_find(k, "axis");
	int64_t sorted;
	int status = rt_attr_int(k, "sorted", 1, &sorted);
	size_t *order;

	memset(p, 0, sizeof(*p));
	if (status)
		return status;
	if (!x->data)
		return RT_OP_NEEDS_VALUES;
	if (!rt_dtype_is_float(x->dtype) && !rt_dtype_is_integer(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(x->dtype));
	p->has_axis = a != NULL;
	p->outer = p->inner = 1;
	if (a) {
		status = rt_axis(k, a->i, x->rank, &p->axis);
		if (status)
			return status;
		for (int d = 0; d < x->rank; d++) {
			if (d < p->axis)
				p->outer *= (size_t)x->dims[d];
			else if (d > p->axis)
				p->inner *= (size_t)x->dims[d];
		}
		p->slices = (size_t)x->dims[p->axis];
	} else {
		p->slices = rt_tensor_elements(x);
	}
	p->first = malloc((p->slices + 1) * sizeof(*p->first));
	p->inverse = malloc((p->slices + 1) * sizeof(*p->inverse));
	p->counts = malloc((p->slices + 1) * sizeof(*p->counts));
	order = malloc((p->slices + 1) * sizeof(*order));
	if (!p->first || !p->inverse || !p->counts || !order) {
		free(order);
		unique_free(p);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	/* Quadratic in the slices: Unique's inputs are small in practice. */
	for (size_t s = 0; s < p->slices; s++) {
		size_t u = 0;

		while (u < p->unique && slice_cmp(x, p, p->first[u], s))
			u++;
		if (u == p->unique) {
			p->first[u] = s;
			p->counts[u] = 0;
			p->unique++;
		}
		p->inverse[s] = (int64_t)u;
		p->counts[u]++;
	}
	if (sorted) {
		/* Insertion sort of the unique values, remapping the indices. */
		size_t *rank = order;

		for (size_t u = 0; u < p->unique; u++)
			rank[u] = u;
		for (size_t i = 1; i < p->unique; i++)
			for (size_t j = i; j > 0 &&
			     slice_cmp(x, p, p->first[rank[j - 1]],
				       p->first[rank[j]]) > 0; j--) {
				size_t t = rank[j];

				rank[j] = rank[j - 1];
				rank[j - 1] = t;
			}
		size_t *first = malloc((p->unique + 1) * sizeof(*first));
		int64_t *counts = malloc((p->unique + 1) * sizeof(*counts));
		int64_t *where = malloc((p->unique + 1) * sizeof(*where));

		if (!first || !counts || !where) {
			free(first);
			free(counts);
			free(where);
			free(order);
			unique_free(p);
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		}
		for (size_t i = 0; i < p->unique; i++) {
			first[i] = p->first[rank[i]];
			counts[i] = p->counts[rank[i]];
			where[rank[i]] = (int64_t)i;
		}
		for (size_t s = 0; s < p->slices; s++)
			p->inverse[s] = where[p->inverse[s]];
		memcpy(p->first, first, p->unique * sizeof(*first));
		memcpy(p->counts, counts, p->unique * sizeof(*counts));
		free(first);
		free(counts);
		free(where);
	}
	free(order);
	return 0;
}

static int unique_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct unique_plan p;
	int64_t dims[RT_MAX_RANK], u, s;
	int status = unique_plan_of(k, in[0], &p);

	(void)n_in;
	if (status)
		return status;
	u = (int64_t)p.unique;
	s = (int64_t)p.slices;
	if (p.has_axis) {
		memcpy(dims, in[0]->dims, sizeof(dims));
		dims[p.axis] = u;
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype,
					     in[0]->rank, dims);
	} else {
		status = rt_tensor_set_shape(k, out[0], in[0]->dtype, 1, &u);
	}
	if (!status && n_out > 1 && out[1])
		status = rt_tensor_set_shape(k, out[1], ENPU_RT_INT64, 1, &u);
	if (!status && n_out > 2 && out[2])
		status = rt_tensor_set_shape(k, out[2], ENPU_RT_INT64, 1, &s);
	if (!status && n_out > 3 && out[3])
		status = rt_tensor_set_shape(k, out[3], ENPU_RT_INT64, 1, &u);
	unique_free(&p);
	return status;
}

static int unique_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct unique_plan p;
	size_t size = rt_dtype_size(x->dtype);
	int status = unique_plan_of(k, x, &p);

	(void)n_in;
	if (status)
		return status;
	for (size_t u = 0; u < p.unique; u++) {
		size_t len = p.has_axis ? (size_t)x->dims[p.axis] : 1;

		for (size_t o = 0; o < p.outer; o++)
			memcpy((char *)out[0]->data +
			       ((o * p.unique + u) * p.inner) * size,
			       (const char *)x->data +
			       ((o * len + p.first[u]) * p.inner) * size,
			       p.inner * size);
		if (n_out > 1 && out[1])
			((int64_t *)out[1]->data)[u] = (int64_t)p.first[u];
		if (n_out > 3 && out[3])
			((int64_t *)out[3]->data)[u] = p.counts[u];
	}
	if (n_out > 2 && out[2])
		memcpy(out[2]->data, p.inverse, p.slices * sizeof(int64_t));
	unique_free(&p);
	return 0;
}

const struct rt_op_def rt_ops_ordering[] = {
	{ "TopK", "", 1, 21, 1, 2, 1, 2, 0, topk_infer, NULL, topk_run, NULL },
	{ "Unique", "", 11, 21, 1, 1, 1, 4, 0, unique_infer, NULL, unique_run,
	  NULL },
	{ 0 },
	{ 0 },
};
