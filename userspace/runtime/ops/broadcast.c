// SPDX-License-Identifier: MIT
/* Row-wise numpy broadcasting; see broadcast.h. */
#include "broadcast.h"

struct bcast_plan {
	int rank;
	int64_t dims[RT_MAX_RANK];
	int64_t stride[RT_BCAST_MAX][RT_MAX_RANK];
};

static void plan(const struct rt_tensor *const *in, size_t n,
		 const struct rt_tensor *out, struct bcast_plan *p)
{
	int64_t s[RT_BCAST_MAX][RT_MAX_RANK];
	int r = 0;

	for (size_t i = 0; i < n; i++)
		rt_broadcast_strides(in[i], out, s[i]);
	for (int d = 0; d < out->rank; d++) {
		int merge = r > 0;

		if (out->dims[d] == 1)
			continue;
		for (size_t i = 0; merge && i < n; i++)
			merge = p->stride[i][r - 1] == s[i][d] * out->dims[d];
		if (merge) {
			p->dims[r - 1] *= out->dims[d];
			for (size_t i = 0; i < n; i++)
				p->stride[i][r - 1] = s[i][d];
			continue;
		}
		p->dims[r] = out->dims[d];
		for (size_t i = 0; i < n; i++)
			p->stride[i][r] = s[i][d];
		r++;
	}
	if (!r) {
		p->dims[0] = 1;
		for (size_t i = 0; i < n; i++)
			p->stride[i][0] = 1;
		r = 1;
	}
	p->rank = r;
}

void rt_bcast_apply(const struct rt_tensor *const *in, size_t n,
		    struct rt_tensor *out, rt_bcast_row_fn row, void *ctx)
{
	struct bcast_plan p;
	size_t elem[RT_BCAST_MAX], step[RT_BCAST_MAX], offset[RT_BCAST_MAX];
	size_t out_elem = rt_dtype_size(out->dtype), rows = 1, len;
	const void *ptr[RT_BCAST_MAX];
	int64_t index[RT_MAX_RANK] = { 0 };
	int inner;

	if (n > RT_BCAST_MAX || !rt_tensor_elements(out))
		return;
	plan(in, n, out, &p);
	inner = p.rank - 1;
	len = (size_t)p.dims[inner];
	for (size_t i = 0; i < n; i++) {
		elem[i] = rt_dtype_size(in[i]->dtype);
		step[i] = p.stride[i][inner] != 0;
		offset[i] = 0;
	}
	for (int d = 0; d < inner; d++)
		rows *= (size_t)p.dims[d];
	for (size_t r = 0; r < rows; r++) {
		for (size_t i = 0; i < n; i++)
			ptr[i] = (const char *)in[i]->data + offset[i] * elem[i];
		row(ctx, len, (char *)out->data + r * len * out_elem, ptr,
		    step);
		for (int d = inner - 1; d >= 0; d--) {
			for (size_t i = 0; i < n; i++)
				offset[i] += (size_t)p.stride[i][d];
			if (++index[d] < p.dims[d])
				break;
			for (size_t i = 0; i < n; i++)
				offset[i] -= (size_t)(p.stride[i][d] *
						      p.dims[d]);
			index[d] = 0;
		}
	}
}
