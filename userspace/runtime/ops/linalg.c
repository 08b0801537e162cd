// SPDX-License-Identifier: MIT
/*
 * Det (LU with partial pivoting, in double) and Einsum.
 *
 * Einsum parses the equation once per call: each operand's subscripts
 * (letters, and "..." for broadcast axes, which align right), an explicit
 * output after "->" or the implicit one (letters seen once, sorted, after
 * the ellipsis axes). A label's extent must agree wherever it appears
 * (1 broadcasts inside the ellipsis). The product runs as one odometer
 * over every label (traces, diagonals and any number of operands alike),
 * accumulating in double (exactly in 64 bits for integers): correct for
 * every equation, but not a fast path for large contractions, which
 * exporters emit as MatMul instead.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

/* ---- Det --------------------------------------------------------------- */

static int det_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];

	(void)n_in;
	(void)n_out;
	if (!rt_dtype_is_float(x->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "type %s",
				   rt_dtype_name(x->dtype));
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "input must be [..., M, M]");
	return rt_tensor_set_shape(k, out[0], x->dtype, x->rank - 2, x->dims);
}

static int det_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		   size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	size_t m = (size_t)x->dims[x->rank - 1], mats = rt_tensor_elements(out[0]);
	double *a = malloc((m * m + 1) * sizeof(*a));

	(void)n_in;
	(void)n_out;
	if (!a)
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t t = 0; t < mats; t++) {
		double det = 1;

		for (size_t i = 0; i < m * m; i++)
			a[i] = rt_tensor_get_double(x, t * m * m + i);
		for (size_t c = 0; c < m && det != 0; c++) {
			size_t pivot = c;

			for (size_t r = c + 1; r < m; r++)
				if (fabs(a[r * m + c]) > fabs(a[pivot * m + c]))
					pivot = r;
			if (a[pivot * m + c] == 0) {
				det = 0;
				break;
			}
			if (pivot != c) {
				for (size_t j = 0; j < m; j++) {
					double s = a[c * m + j];

					a[c * m + j] = a[pivot * m + j];
					a[pivot * m + j] = s;
				}
				det = -det;
			}
			det *= a[c * m + c];
			for (size_t r = c + 1; r < m; r++) {
				double f = a[r * m + c] / a[c * m + c];

				for (size_t j = c; j < m; j++)
					a[r * m + j] -= f * a[c * m + j];
			}
		}
		rt_tensor_set_double(out[0], t, det);
	}
	free(a);
	return 0;
}

/* ---- Einsum ------------------------------------------------------------ */

#define EIN_LABELS 52		/* a-z, A-Z */
#define EIN_ALL (EIN_LABELS + RT_MAX_RANK)	/* + ellipsis axes */
#define EIN_MAX_OPERANDS 16

struct einsum {
	int operands;
	int rank[EIN_MAX_OPERANDS];
	int axis_label[EIN_MAX_OPERANDS][RT_MAX_RANK];	/* 0..EIN_ALL */
	int out_rank;
	int out_label[RT_MAX_RANK];
	int64_t extent[EIN_ALL];
	int used[EIN_ALL];
	int ellipsis_rank;
};

static int label_index(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return 26 + c - 'A';
	return -1;
}

/* Parses one operand's (or the output's) subscripts into labels. */
static int parse_term(struct rt_kernel *k, const char *s, size_t len,
		      int rank, int ellipsis_rank, int *labels, int *count)
{
	int n = 0, has_ellipsis = 0, letters = 0;

	for (size_t i = 0; i < len; i++)
		letters += label_index(s[i]) >= 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ' ')
			continue;
		if (s[i] == '.') {
			if (i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.' ||
			    has_ellipsis)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "bad ellipsis in the equation");
			has_ellipsis = 1;
			int e = rank >= 0 ? rank - letters : ellipsis_rank;

			if (e < 0 || n + e > RT_MAX_RANK)
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "subscripts do not match "
						   "rank %d", rank);
			for (int j = 0; j < e; j++)
				labels[n++] = EIN_LABELS + (ellipsis_rank - e) + j;
			i += 2;
			continue;
		}
		if (label_index(s[i]) < 0 || n >= RT_MAX_RANK)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "bad subscript '%c'", s[i]);
		labels[n++] = label_index(s[i]);
	}
	if (rank >= 0 && n != rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%d subscripts for rank %d", n, rank);
	*count = n;
	return 0;
}

static int einsum_parse(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct einsum *e)
{
	const char *eq, *arrow, *p;
	int status = rt_attr_string(k, "equation", "", &eq);
	int max_ellipsis = 0;

	if (status)
		return status;
	memset(e, 0, sizeof(*e));
	if (n_in > EIN_MAX_OPERANDS)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED, "%zu operands", n_in);
	/* Ellipsis rank: the most axes any operand leaves to "...". */
	p = eq;
	for (size_t i = 0; i < n_in; i++) {
		const char *end = strchr(p, ',');
		size_t len;
		int letters = 0;

		arrow = strstr(p, "->");
		if (!end || (arrow && arrow < end))
			end = arrow ? arrow : p + strlen(p);
		len = (size_t)(end - p);
		for (size_t j = 0; j < len; j++)
			letters += label_index(p[j]) >= 0;
		if (memchr(p, '.', len) && in[i]->rank - letters > max_ellipsis)
			max_ellipsis = in[i]->rank - letters;
		p = *end == ',' ? end + 1 : end;
	}
	e->ellipsis_rank = max_ellipsis;
	p = eq;
	for (size_t i = 0; i < n_in; i++) {
		const char *end = strchr(p, ',');
		int count;

		arrow = strstr(p, "->");
		if (!end || (arrow && arrow < end))
			end = arrow ? arrow : p + strlen(p);
		if ((i + 1 < n_in) != (*end == ','))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "equation has the wrong number of "
					   "operands");
		status = parse_term(k, p, (size_t)(end - p), in[i]->rank,
				    max_ellipsis, e->axis_label[i], &count);
		if (status)
			return status;
		e->rank[i] = count;
		for (int d = 0; d < count; d++) {
			int l = e->axis_label[i][d];
			int64_t x = in[i]->dims[d];

			if (e->used[l] && e->extent[l] != x) {
				if (l >= EIN_LABELS && (x == 1 || e->extent[l] == 1)) {
					e->extent[l] = x > e->extent[l] ? x : e->extent[l];
					continue;
				}
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "subscript of extents %" PRId64
						   " and %" PRId64,
						   e->extent[l], x);
			}
			e->used[l]++;
			e->extent[l] = x;
		}
		p = *end == ',' ? end + 1 : end;
	}
	e->operands = (int)n_in;
	arrow = strstr(eq, "->");
	if (arrow)
		return parse_term(k, arrow + 2, strlen(arrow + 2), -1,
				  max_ellipsis, e->out_label, &e->out_rank);
	/* Implicit: the ellipsis axes, then letters used once, sorted. */
	for (int j = 0; j < max_ellipsis; j++)
		e->out_label[e->out_rank++] = EIN_LABELS + j;
	for (int l = 0; l < EIN_LABELS && e->out_rank < RT_MAX_RANK; l++) {
		int uses = 0;

		for (int i = 0; i < e->operands; i++)
			for (int d = 0; d < e->rank[i]; d++)
				uses += e->axis_label[i][d] == l;
		if (uses == 1)
			e->out_label[e->out_rank++] = l;
	}
	return 0;
}

static int einsum_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
			size_t n_in, struct rt_tensor *const *out,
			size_t n_out)
{
	struct einsum e;
	int64_t dims[RT_MAX_RANK];
	int status;

	(void)n_out;
	for (size_t i = 0; i < n_in; i++)
		if (in[i]->dtype != in[0]->dtype ||
		    !(rt_dtype_is_float(in[i]->dtype) ||
		      rt_dtype_is_integer(in[i]->dtype)))
			return rt_op_error(k, ENPU_RT_UNSUPPORTED,
					   "operand types must be one numeric "
					   "type");
	status = einsum_parse(k, in, n_in, &e);
	if (status)
		return status;
	for (int d = 0; d < e.out_rank; d++) {
		if (!e.used[e.out_label[d]])
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "output subscript not in any operand");
		dims[d] = e.extent[e.out_label[d]];
	}
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, e.out_rank, dims);
}

static int einsum_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct einsum e;
	int labels[EIN_ALL], nl = 0, is_int = rt_dtype_is_integer(in[0]->dtype);
	int64_t value[EIN_ALL] = { 0 }, strides[EIN_MAX_OPERANDS][EIN_ALL];
	int64_t out_stride[EIN_ALL] = { 0 };
	size_t total = 1, n_out_el = rt_tensor_elements(out[0]);
	double *acc;
	int64_t *iacc;
	int status = einsum_parse(k, in, n_in, &e);

	(void)n_out;
	if (status)
		return status;
	for (int l = 0; l < EIN_ALL; l++)
		if (e.used[l]) {
			labels[nl++] = l;
			total *= (size_t)e.extent[l];
		}
	memset(strides, 0, sizeof(strides));
	for (int i = 0; i < e.operands; i++) {
		int64_t s = 1;

		for (int d = e.rank[i] - 1; d >= 0; d--) {
			/* Size-1 broadcast axes inside "..." do not move. */
			if (in[i]->dims[d] != 1)
				strides[i][e.axis_label[i][d]] += s;
			s *= in[i]->dims[d];
		}
	}
	for (int d = e.out_rank - 1, s = 1; d >= 0; d--) {
		out_stride[e.out_label[d]] += s;
		s *= (int)e.extent[e.out_label[d]];
	}
	acc = calloc(n_out_el + 1, sizeof(*acc));
	iacc = calloc(n_out_el + 1, sizeof(*iacc));
	if (!acc || !iacc) {
		free(acc);
		free(iacc);
		return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	}
	for (size_t t = 0; t < total; t++) {
		double prod = 1;
		uint64_t iprod = 1;
		size_t o = 0;

		for (int i = 0; i < e.operands; i++) {
			size_t off = 0;

			for (int j = 0; j < nl; j++)
				off += (size_t)(value[labels[j]] * strides[i][labels[j]]);
			if (is_int)
				iprod *= (uint64_t)rt_tensor_get_int(in[i], off);
			else
				prod *= rt_tensor_get_double(in[i], off);
		}
		for (int j = 0; j < nl; j++)
			o += (size_t)(value[labels[j]] * out_stride[labels[j]]);
		acc[o] += prod;
		iacc[o] = (int64_t)((uint64_t)iacc[o] + iprod);
		for (int j = nl - 1; j >= 0; j--) {
			if (++value[labels[j]] < e.extent[labels[j]])
				break;
			value[labels[j]] = 0;
		}
	}
	for (size_t i = 0; i < n_out_el; i++) {
		/* Integers: the low bytes of the 64-bit sum (little-endian). */
		if (is_int)
			memcpy((char *)out[0]->data +
			       i * rt_dtype_size(out[0]->dtype), &iacc[i],
			       rt_dtype_size(out[0]->dtype));
		else
			rt_tensor_set_double(out[0], i, acc[i]);
	}
	free(acc);
	free(iacc);
	return 0;
}

const struct rt_op_def rt_ops_linalg[] = {
	{ "Det", "", 11, 21, 1, 1, 1, 1, 0, det_infer, NULL, det_run, NULL },
	{ "Einsum", "", 12, 21, 1, EIN_MAX_OPERANDS, 1, 1, 0, einsum_infer,
	  NULL, einsum_run, NULL },
	{ 0 },
};
