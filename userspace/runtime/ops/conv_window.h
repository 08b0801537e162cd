/* SPDX-License-Identifier: MIT */
/*
 * Pieces the convolution families share: reading and checking the weight
 * shape against the input, and the float matrix product that turns the
 * unfolded input into the output.
 */
#ifndef ENPU_RT_CONV_WINDOW_H
#define ENPU_RT_CONV_WINDOW_H

#include "spatial.h"

struct rt_conv_shape {
	struct rt_spatial geometry;
	int64_t group;
	int64_t out_channels;		/* M */
	int64_t group_in_channels;	/* C / group */
	int64_t group_out_channels;	/* M / group */
	int64_t patch;			/* K = C/group * kernel volume */
	int64_t positions;		/* P = output spatial volume */
};

/*
 * Checks x (N, C, spatial...) against w (M, C/group, kernel...), the
 * attributes group and kernel_shape, and fills @shape.
 */
int rt_conv_shape_init(struct rt_kernel *k, const struct rt_tensor *x,
		       const struct rt_tensor *w, struct rt_conv_shape *shape);

/* True when the unfolded input equals the input (1x1, stride 1, no pad). */
int rt_conv_is_pointwise(const struct rt_conv_shape *shape);

/*
 * Unfolds one group of one image: @x points at its first channel (planes
 * of rt_spatial_in_size() elements of 4 bytes), @col receives
 * shape->patch rows of shape->positions elements. Taps falling in the
 * padding become all-zero bits: 0.0f for float, 0 for int32 inputs that
 * already had their zero point subtracted.
 */
void rt_conv_im2col(const struct rt_conv_shape *shape, const void *x,
		    void *col);

/*
 * For each of @rows rows r: y[r][0..p) = bias_r + sum_k w[r][k] * col[k][..]
 * with row strides @ldw, @ldcol and @ldy; bias may be NULL.
 */
void rt_conv_sgemm(size_t rows, size_t depth, size_t p, const float *w,
		   size_t ldw, const float *col, size_t ldcol,
		   const float *bias, float *y, size_t ldy);

#endif /* ENPU_RT_CONV_WINDOW_H */
