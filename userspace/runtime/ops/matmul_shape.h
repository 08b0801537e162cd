/* SPDX-License-Identifier: MIT */
/* numpy matmul shapes: shared by MatMul and the quantized QGemm. */
#ifndef ENPU_RT_MATMUL_SHAPE_H
#define ENPU_RT_MATMUL_SHAPE_H

#include "rt_op.h"

struct rt_matmul_shape {
	size_t m, k, n;
	size_t batch;			/* product of the batch dims */
	int32_t batch_rank;
	int64_t batch_dims[RT_MAX_RANK];
	int64_t a_batch_dims[RT_MAX_RANK];	/* right-aligned, 1-padded */
	int64_t b_batch_dims[RT_MAX_RANK];
	int32_t out_rank;
	int64_t out_dims[RT_MAX_RANK];
};

/* Fills @shape from A and B; errors name both shapes. */
int rt_matmul_shape(struct rt_kernel *k, const struct rt_tensor *a,
		    const struct rt_tensor *b, struct rt_matmul_shape *shape);
/* Element offsets of A's and B's matrices for batch @index. */
void rt_matmul_batch_offsets(const struct rt_matmul_shape *shape,
			     size_t index, size_t *a_offset,
			     size_t *b_offset);

#endif /* ENPU_RT_MATMUL_SHAPE_H */
