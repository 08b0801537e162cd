// SPDX-License-Identifier: MIT
/* Shared convolution geometry and the float matrix product: conv_window.h. */
#include <inttypes.h>
#include <string.h>

#include "conv_window.h"

int rt_conv_shape_init(struct rt_kernel *k, const struct rt_tensor *x,
		       const struct rt_tensor *w, struct rt_conv_shape *shape)
{
	const int64_t *kernel_shape;
	size_t kernel_count;
	int64_t group, volume = 1;
	int status;

	if (w->rank != x->rank)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "weight rank %d differs from input rank %d",
				   w->rank, x->rank);
	status = rt_attr_int(k, "group", 1, &group);
	if (!status)
		status = rt_attr_ints(k, "kernel_shape", &kernel_shape,
				      &kernel_count);
	if (status)
		return status;
	if (kernel_shape) {
		if (kernel_count != (size_t)(w->rank - 2))
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "kernel_shape has %zu values, the "
					   "weight has %d spatial axes",
					   kernel_count, w->rank - 2);
		for (size_t i = 0; i < kernel_count; i++)
			if (kernel_shape[i] != w->dims[2 + i])
				return rt_op_error(k, ENPU_RT_INVALID_MODEL,
						   "kernel_shape[%zu] = %" PRId64
						   " but the weight has %" PRId64,
						   i, kernel_shape[i],
						   w->dims[2 + i]);
	}
	status = rt_spatial_init(k, x, w->dims + 2, 0, &shape->geometry);
	if (status)
		return status;
	if (group < 1 || x->dims[1] % group || w->dims[0] % group)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "group %" PRId64 " does not divide %" PRId64
				   " input and %" PRId64 " output channels",
				   group, x->dims[1], w->dims[0]);
	if (w->dims[1] != x->dims[1] / group)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "weight has %" PRId64 " input channels per "
				   "group, the input gives %" PRId64,
				   w->dims[1], x->dims[1] / group);
	for (int i = 0; i < RT_SPATIAL_MAX; i++)
		volume *= shape->geometry.kernel[i];
	shape->group = group;
	shape->out_channels = w->dims[0];
	shape->group_in_channels = w->dims[1];
	shape->group_out_channels = w->dims[0] / group;
	shape->patch = w->dims[1] * volume;
	shape->positions = rt_spatial_out_size(&shape->geometry);
	return 0;
}

int rt_conv_is_pointwise(const struct rt_conv_shape *shape)
{
	const struct rt_spatial *s = &shape->geometry;

	for (int i = 0; i < RT_SPATIAL_MAX; i++)
		if (s->kernel[i] != 1 || s->stride[i] != 1 ||
		    s->pad_begin[i] || s->pad_end[i])
			return 0;
	return 1;
}

/*
 * Four output rows share each load of the unfolded input, and a block of
 * positions stays in L1 while the depth loop runs over it. Plain C written
 * so the compiler vectorizes the inner loop; on x86 with GCC the function
 * is cloned for AVX2 and AVX-512 and the best clone is picked at load.
 */
#define SGEMM_BLOCK 512

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SGEMM_CLONES __attribute__((target_clones("avx512f", "avx2", \
							 "default")))
#else
#define SGEMM_CLONES
#endif

SGEMM_CLONES
void rt_conv_sgemm(size_t rows, size_t depth, size_t p, const float *w,
		   size_t ldw, const float *col, size_t ldcol,
		   const float *bias, float *y, size_t ldy)
{
	for (size_t p0 = 0; p0 < p; p0 += SGEMM_BLOCK) {
		size_t n = p - p0 < SGEMM_BLOCK ? p - p0 : SGEMM_BLOCK;
		size_t r = 0;

		for (; r + 4 <= rows; r += 4) {
			float *restrict y0 = y + r * ldy + p0;
			float *restrict y1 = y0 + ldy;
			float *restrict y2 = y1 + ldy;
			float *restrict y3 = y2 + ldy;
			const float *w0 = w + r * ldw;

			for (size_t j = 0; j < n; j++) {
				y0[j] = bias ? bias[r] : 0.0f;
				y1[j] = bias ? bias[r + 1] : 0.0f;
				y2[j] = bias ? bias[r + 2] : 0.0f;
				y3[j] = bias ? bias[r + 3] : 0.0f;
			}
			for (size_t d = 0; d < depth; d++) {
				const float *restrict src = col + d * ldcol + p0;
				float a0 = w0[d], a1 = w0[ldw + d];
				float a2 = w0[2 * ldw + d], a3 = w0[3 * ldw + d];

				for (size_t j = 0; j < n; j++) {
					float v = src[j];

					y0[j] += a0 * v;
					y1[j] += a1 * v;
					y2[j] += a2 * v;
					y3[j] += a3 * v;
				}
			}
		}
		for (; r < rows; r++) {
			float *restrict y0 = y + r * ldy + p0;

			for (size_t j = 0; j < n; j++)
				y0[j] = bias ? bias[r] : 0.0f;
			for (size_t d = 0; d < depth; d++) {
				const float *restrict src = col + d * ldcol + p0;
				float a0 = w[r * ldw + d];

				for (size_t j = 0; j < n; j++)
					y0[j] += a0 * src[j];
			}
		}
	}
}

static int64_t first_inside(int64_t offset, int64_t stride)
{
	/* Smallest o >= 0 with o * stride + offset >= 0. */
	if (offset >= 0)
		return 0;
	return (-offset + stride - 1) / stride;
}

static int64_t end_inside(int64_t offset, int64_t stride, int64_t in,
			  int64_t out)
{
	/* One past the largest o < out with o * stride + offset < in. */
	int64_t end;

	if (offset >= in)
		return 0;
	end = (in - 1 - offset) / stride + 1;
	return end < out ? end : out;
}

/* Unfolds one kernel tap (c, kz, ky, kx) into @dst, one row of P. */
static uint32_t *unfold_tap(const struct rt_spatial *s, const char *plane,
			    int64_t kz, int64_t ky, int64_t kx, uint32_t *dst)
{
	int64_t off_x = kx * s->dilation[2] - s->pad_begin[2];
	int64_t lo = first_inside(off_x, s->stride[2]);
	int64_t hi = end_inside(off_x, s->stride[2], s->in[2], s->out[2]);
	size_t width = (size_t)s->out[2];

	if (lo > s->out[2])
		lo = s->out[2];
	if (hi < lo)
		hi = lo;
	for (int64_t oz = 0; oz < s->out[0]; oz++) {
		int64_t iz = oz * s->stride[0] - s->pad_begin[0] +
			     kz * s->dilation[0];

		for (int64_t oy = 0; oy < s->out[1]; oy++, dst += width) {
			int64_t iy = oy * s->stride[1] - s->pad_begin[1] +
				     ky * s->dilation[1];
			const char *row;

			if (iz < 0 || iz >= s->in[0] || iy < 0 ||
			    iy >= s->in[1]) {
				memset(dst, 0, width * 4);
				continue;
			}
			row = plane + (size_t)((iz * s->in[1] + iy) *
					       s->in[2]) * 4;
			memset(dst, 0, (size_t)lo * 4);
			/* ox in [lo, hi) reads ox * stride + off_x >= 0. */
			if (s->stride[2] == 1)
				memcpy(dst + lo, row + (lo + off_x) * 4,
				       (size_t)(hi - lo) * 4);
			else
				for (int64_t ox = lo; ox < hi; ox++)
					memcpy(dst + ox, row + (ox * s->stride[2] +
								off_x) * 4, 4);
			memset(dst + hi, 0, (width - (size_t)hi) * 4);
		}
	}
	return dst;
}

void rt_conv_im2col(const struct rt_conv_shape *shape, const void *x,
		    void *col)
{
	const struct rt_spatial *s = &shape->geometry;
	size_t in_plane = (size_t)rt_spatial_in_size(s);
	uint32_t *dst = col;

	for (int64_t c = 0; c < shape->group_in_channels; c++) {
		const char *plane = (const char *)x + (size_t)c * in_plane * 4;

		for (int64_t kz = 0; kz < s->kernel[0]; kz++)
			for (int64_t ky = 0; ky < s->kernel[1]; ky++)
				for (int64_t kx = 0; kx < s->kernel[2]; kx++)
					dst = unfold_tap(s, plane, kz, ky, kx,
							 dst);
	}
}
