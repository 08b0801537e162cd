/* SPDX-License-Identifier: MIT */
/*
 * Float row kernels (fmath_impl.h, compiled once per ISA with its vector
 * width) and the float depthwise convolution kernel (fdwconv_impl.h),
 * as the kernel table holds them (kernels.h).
 */
#ifndef ENPU_CPU_FMATH_INTERNAL_H
#define ENPU_CPU_FMATH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_cpu_float.h"

extern const struct enpu_fmath_kernels enpu_fmath_scalar;
extern const struct enpu_fmath_kernels enpu_fmath_avx2;
extern const struct enpu_fmath_kernels enpu_fmath_avx512;
extern const struct enpu_fmath_kernels enpu_fmath_neon;

/* One channel plane of a float depthwise convolution, rows [row0, row1). */
struct enpu_fdwconv_pass {
	const float *x;			/* height x width */
	const float *w;			/* kernel_h x kernel_w */
	float bias;
	float *y;			/* out_height x out_width */
	size_t height, width, out_height, out_width;
	size_t kernel_h, kernel_w, stride_h, stride_w;
	size_t dilation_h, dilation_w, pad_top, pad_left;
	size_t row0, row1;
	const float *clamp;		/* NULL or {min, max} */
	/* Max pooling instead: w and bias unused; windows start at -FLT_MAX. */
	int max_pool;
};
typedef void (*enpu_fdwconv_kernel)(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_scalar(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_avx2(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_avx512(const struct enpu_fdwconv_pass *pass);
void enpu_fdwconv_neon(const struct enpu_fdwconv_pass *pass);

/*
 * A block of at most ENPU_FDWCONV_BLOCK_CHANNELS channels of a float
 * depthwise 3x3 convolution,
 * dilation 1, stride 1 or 2 both ways, every pad at most 1, on planes of
 * at most ENPU_FDWCONV_BLOCKED_MAX_SIDE a side (fconv.c picks it there:
 * MobileNetV2's 7x7, 14x14 and 28x28 layers), all output rows.
 */
#define ENPU_FDWCONV_BLOCKED_MAX_SIDE 28
/* Channels per block: the lanes of the kernel's vectors. */
#define ENPU_FDWCONV_BLOCK_CHANNELS 8
struct enpu_fdwconv_block_pass {
	const float *x;			/* channels planes, height x width */
	const float *w;			/* channels x 9 */
	const float *bias;		/* channels, or NULL */
	const float *clamp;		/* NULL or {min, max} */
	float *y;			/* channels planes, out_height x out_width */
	size_t channels, height, width, out_height, out_width;
	size_t stride, pad_top, pad_left;
};
typedef void (*enpu_fdwconv_blocked_kernel)(const struct enpu_fdwconv_block_pass *pass);
void enpu_fdwconv_blocked_avx2(const struct enpu_fdwconv_block_pass *pass);

/*
 * Output rows [row0, row1) of a dense float convolution at stride 2 whose
 * taps (channels x kernel_h x kernel_w) are at most ENPU_FCONV_FEW_TAPS
 * (MobileNet's first 3->32 3x3/2 has 27), dilation 1, one image: the
 * kernel gathers the taps' inputs of a strip of output columns once and
 * runs every output channel over them (fconv.c says when).
 */
#define ENPU_FCONV_FEW_TAPS 32
/* Output channels per block of wt (its rows are padded to a multiple). */
#define ENPU_FCONV_FEW_TAPS_BLOCK 16
struct enpu_fconv_few_taps_pass {
	const float *x;			/* channels x height x width */
	/*
	 * The weights transposed: taps rows of out_channels rounded up to a
	 * multiple of ENPU_FCONV_FEW_TAPS_BLOCK, the padding zero.
	 */
	const float *wt;
	const float *bias;		/* out_channels, or NULL */
	const float *clamp;		/* NULL or {min, max} */
	float *y;			/* out_channels x out_height x out_width */
	size_t channels, height, width, out_channels, out_height, out_width;
	size_t kernel_h, kernel_w, pad_top, pad_left;
	size_t row0, row1;
};

/*
 * The input row under tap row @r (channel r / kernel_h, kernel row
 * r % kernel_h) of output row @oy, or NULL where that row is padding:
 * the taps are channel-major, kernel row, then kernel column.
 */
static inline const float *
enpu_fconv_few_taps_row(const struct enpu_fconv_few_taps_pass *p, size_t r,
			size_t oy)
{
	size_t c = r / p->kernel_h, ky = r % p->kernel_h;
	ptrdiff_t iy = (ptrdiff_t)(2 * oy + ky) - (ptrdiff_t)p->pad_top;

	if (iy < 0 || iy >= (ptrdiff_t)p->height)
		return NULL;
	return p->x + (c * p->height + (size_t)iy) * p->width;
}

typedef void (*enpu_fconv_few_taps_kernel)(const struct enpu_fconv_few_taps_pass *pass);
void enpu_fconv_few_taps_avx2(const struct enpu_fconv_few_taps_pass *pass);
void enpu_fconv_few_taps_avx512(const struct enpu_fconv_few_taps_pass *pass);

#endif /* ENPU_CPU_FMATH_INTERNAL_H */
