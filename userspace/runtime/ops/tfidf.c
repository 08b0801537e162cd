// SPDX-License-Identifier: MIT
/*
 * TfIdfVectorizer over integer tokens (pool_int64s; string pools are not
 * supported, string tensors being out of scope). The pool lists the
 * n-grams grouped by length: ngram_counts[i] is where the (i+1)-grams
 * start, ngram_indexes the output slot of each n-gram in pool order.
 * From every start position, with every skip in 0..max_skip_count (a
 * stride of skip + 1 between tokens), every length in
 * min_gram_length..max_gram_length is looked up; unigrams count once per
 * position whatever the skip. TF counts, IDF gives weight (default 1)
 * for a non-zero count, TFIDF count times weight.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"

struct tfidf {
	int64_t min_n, max_n, max_skip, out_size;
	const int64_t *pool, *counts, *indexes;
	size_t pool_len, n_counts, n_indexes;
	const float *weights;
	size_t n_weights;
	int mode;		/* 0 TF, 1 IDF, 2 TFIDF */
};

static int tfidf_of(struct rt_kernel *k, struct tfidf *t)
{
	const char *mode;
	const struct rt_attr *strings = rt_attr_find(k, "pool_strings");
	int status = rt_attr_int(k, "min_gram_length", 1, &t->min_n);

	if (!status)
		status = rt_attr_int(k, "max_gram_length", 1, &t->max_n);
	if (!status)
		status = rt_attr_int(k, "max_skip_count", 0, &t->max_skip);
	if (!status)
		status = rt_attr_string(k, "mode", "TF", &mode);
	if (!status)
		status = rt_attr_ints(k, "pool_int64s", &t->pool, &t->pool_len);
	if (!status)
		status = rt_attr_ints(k, "ngram_counts", &t->counts, &t->n_counts);
	if (!status)
		status = rt_attr_ints(k, "ngram_indexes", &t->indexes,
				      &t->n_indexes);
	if (!status)
		status = rt_attr_floats(k, "weights", &t->weights, &t->n_weights);
	if (status)
		return status;
	if (strings)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "pool_strings: string tensors are not "
				   "supported");
	t->mode = !strcmp(mode, "TF") ? 0 : !strcmp(mode, "IDF") ? 1 :
		  !strcmp(mode, "TFIDF") ? 2 : -1;
	if (t->mode < 0)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL, "mode '%s'", mode);
	if (t->min_n < 1 || t->max_n < t->min_n ||
	    (size_t)t->max_n > t->n_counts || t->max_skip < 0 || !t->pool)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "gram lengths, skip count or pool invalid");
	t->out_size = 0;
	for (size_t i = 0; i < t->n_indexes; i++) {
		if (t->indexes[i] < 0 || t->indexes[i] > (1 << 24))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "ngram index %" PRId64, t->indexes[i]);
		if (t->indexes[i] + 1 > t->out_size)
			t->out_size = t->indexes[i] + 1;
	}
	if (t->weights && t->n_weights != t->n_indexes)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "weights and ngram_indexes differ in length");
	return 0;
}

static int tfidf_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	struct tfidf t;
	int64_t dims[2];
	int status = tfidf_of(k, &t);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	if (!rt_dtype_is_integer(in[0]->dtype) || in[0]->rank < 1 ||
	    in[0]->rank > 2)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input must be integer [C] or [N, C]");
	if (in[0]->rank == 1)
		return rt_tensor_set_shape(k, out[0], ENPU_RT_FLOAT, 1,
					   &t.out_size);
	dims[0] = in[0]->dims[0];
	dims[1] = t.out_size;
	return rt_tensor_set_shape(k, out[0], ENPU_RT_FLOAT, 2, dims);
}

/* Pool position of the @n-gram read at @start with @stride, or -1. */
static int64_t lookup(const struct tfidf *t, const struct rt_tensor *x,
		      size_t row, size_t cols, size_t start, size_t stride,
		      int64_t n)
{
	size_t begin = (size_t)t->counts[n - 1];
	size_t end = (size_t)n < t->n_counts ? (size_t)t->counts[n] :
		     t->pool_len;

	if (begin > end || end > t->pool_len)
		return -1;
	for (size_t p = begin; p + (size_t)n <= end; p += (size_t)n) {
		int64_t j = 0;

		for (; j < n; j++)
			if (rt_tensor_get_int(x, row * cols + start +
					      (size_t)j * stride) !=
			    t->pool[p + (size_t)j])
				break;
		if (j == n)
			return (int64_t)p;
	}
	return -1;
}

static int tfidf_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		     size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct tfidf t;
	size_t rows = x->rank == 2 ? (size_t)x->dims[0] : 1;
	size_t cols = (size_t)x->dims[x->rank - 1];
	float *y = out[0]->data;
	int status = tfidf_of(k, &t);

	(void)n_in;
	(void)n_out;
	if (status)
		return status;
	memset(y, 0, out[0]->byte_size);
	for (size_t r = 0; r < rows; r++)
	for (size_t s = 0; s < cols; s++)
	for (int64_t skip = 0; skip <= t.max_skip; skip++)
	for (int64_t n = t.min_n; n <= t.max_n; n++) {
		size_t stride = (size_t)skip + 1;
		int64_t p, gram = 0;

		if (n == 1 && skip > 0)
			continue;
		if (s + (size_t)(n - 1) * stride >= cols)
			continue;
		p = lookup(&t, x, r, cols, s, stride, n);
		if (p < 0)
			continue;
		/* Index of the n-gram in pool order (grams of length n). */
		for (int64_t m = 1; m < n; m++) {
			size_t b = (size_t)t.counts[m - 1];
			size_t e = (size_t)t.counts[m];

			gram += (int64_t)((e - b) / (size_t)m);
		}
		gram += (p - t.counts[n - 1]) / n;
		if ((size_t)gram < t.n_indexes)
			y[r * (size_t)t.out_size + (size_t)t.indexes[gram]] += 1;
	}
	for (size_t r = 0; r < rows; r++)
	for (size_t g = 0; g < t.n_indexes; g++) {
		float *v = &y[r * (size_t)t.out_size + (size_t)t.indexes[g]];
		float w = t.weights ? t.weights[g] : 1.0f;

		if (t.mode == 1)
			*v = *v > 0 ? w : 0;
		else if (t.mode == 2)
			*v *= w;
	}
	return 0;
}

const struct rt_op_def rt_ops_tfidf[] = {
	{ "TfIdfVectorizer", "", 9, 21, 1, 1, 1, 1, 0, tfidf_infer, NULL,
	  tfidf_run, NULL },
	{ 0 },
};
