/* SPDX-License-Identifier: MIT */
/*
 * Geometry shared by the sliding-window ops (Conv, ConvInteger, QLinearConv,
 * MaxPool, AveragePool): output sizes and padding from auto_pad, pads,
 * strides, dilations and ceil_mode.
 *
 * Every op works on 1 to RT_SPATIAL_MAX spatial axes. The geometry is
 * always stored as RT_SPATIAL_MAX axes, the missing leading ones being
 * size 1 with a 1-wide kernel, so loops are written once for 3-D and serve
 * 1-D and 2-D unchanged.
 */
#ifndef ENPU_RT_SPATIAL_H
#define ENPU_RT_SPATIAL_H

#include "rt_op.h"

#define RT_SPATIAL_MAX 3

struct rt_spatial {
	int axes;		/* spatial axes the model uses, 1..3 */
	int64_t batch;
	int64_t channels;
	int64_t in[RT_SPATIAL_MAX];
	int64_t kernel[RT_SPATIAL_MAX];
	int64_t stride[RT_SPATIAL_MAX];
	int64_t dilation[RT_SPATIAL_MAX];
	int64_t pad_begin[RT_SPATIAL_MAX];
	int64_t pad_end[RT_SPATIAL_MAX];
	int64_t out[RT_SPATIAL_MAX];
};

/*
 * Fills @s for input @x (N, C, spatial...) and the kernel's spatial sizes
 * @kernel[0..x->rank-2). Reads the attributes auto_pad, pads, strides,
 * dilations and, when @allow_ceil_mode, ceil_mode. Errors name the
 * attribute and the reason.
 */
int rt_spatial_init(struct rt_kernel *k, const struct rt_tensor *x,
		    const int64_t *kernel, int allow_ceil_mode,
		    struct rt_spatial *s);

/* Output dims (N, @out_channels, spatial...) into @dims; returns the rank. */
int32_t rt_spatial_output_dims(const struct rt_spatial *s,
			       int64_t out_channels, int64_t *dims);

/* Elements of one spatial plane of the input and of the output. */
int64_t rt_spatial_in_size(const struct rt_spatial *s);
int64_t rt_spatial_out_size(const struct rt_spatial *s);

#endif /* ENPU_RT_SPATIAL_H */
