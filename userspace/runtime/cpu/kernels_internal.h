/* SPDX-License-Identifier: MIT */
/*
 * Internal pieces of the kernel families beyond GEMM (convolution,
 * depthwise convolution, pooling, elementwise): shared argument checks,
 * the packed convolution weights and the microkernel contracts each ISA
 * file implements.
 */
#ifndef ENPU_KERNELS_INTERNAL_H
#define ENPU_KERNELS_INTERNAL_H

#include "cpu_internal.h"

/* Checks an 8-bit activation type and its zero point; @what names it. */
int enpu_cpu_check_activation(enpu_cpu_context *context, const char *op,
			      const char *what, enum enpu_cpu_dtype type,
			      int32_t zero_point);
/*
 * Checks an output type and, for 8-bit outputs, the requantization
 * parameters of @channels channels (1 when not per channel).
 */
int enpu_cpu_check_output(enpu_cpu_context *context, const char *op,
			  enum enpu_cpu_dtype type,
			  const struct enpu_cpu_requant *requant,
			  size_t channels);
/* The lowest and highest value of an 8-bit type. */
void enpu_cpu_type_range(enum enpu_cpu_dtype type, int32_t *lo, int32_t *hi);
/* aligned_alloc of a multiple of 64 bytes, zeroed; NULL on failure. */
void *enpu_cpu_aligned_calloc(size_t size);

/* Where the input pixel (y, x) of image n starts, or NULL in the padding. */
static inline const uint8_t *enpu_pixel(const uint8_t *input, size_t n,
					ptrdiff_t y, ptrdiff_t x,
					size_t height, size_t width,
					size_t pixel_bytes)
{
	if (y < 0 || x < 0 || (size_t)y >= height || (size_t)x >= width)
		return NULL;
	return input + ((n * height + (size_t)y) * width + (size_t)x) *
		       pixel_bytes;
}

/*
 * Packed convolution weights. Dense and grouped convolutions keep one GEMM
 * weight object per group with K = taps * tap_bytes: tap by tap, the
 * group's input channels zero-padded to a multiple of 4 (tap_bytes), so
 * that the GEMM microkernel's groups of 4 never straddle two taps.
 * Depthwise convolutions (groups == input channels == output channels)
 * keep int32 weights [taps][channels_padded], each one the sign-extended
 * int8 weight: a zero-extended uint8 activation times that lane is the
 * product both for vpdpbusd (the upper bytes of the activation are 0) and
 * for vpmaddwd (the high int16 is 0 times the sign extension).
 */
struct enpu_cpu_conv_weights {
	struct enpu_cpu_conv_shape shape;
	size_t taps;                   /* kernel_height * kernel_width */
	size_t group_input_channels;
	size_t group_output_channels;
	int depthwise;
	/* Dense / grouped. */
	size_t tap_bytes;              /* bytes of one indirection piece */
	int direct_gemm;               /* 1x1, stride 1, no padding */
	/*
	 * Wide rows (a few input channels, conv.c): an output pixel reads
	 * one piece per kernel row, the kernel_width x input_channels bytes
	 * of the window's row in one run (tap_bytes: that rounded up to 4),
	 * where per-tap pieces would pad every tap to 4 channels and cost a
	 * pointer per 4 bytes. pieces: indirection pointers per output
	 * pixel (taps, or kernel_height with wide rows).
	 */
	int wide_rows;
	size_t pieces;
	enpu_cpu_gemm_weights **group_weights;
	/* Depthwise. */
	size_t channels_padded;        /* multiple of 64 */
	int32_t *dw_weights;           /* [taps][channels_padded] */
	int32_t *dw_bias;              /* [channels_padded] */
	int32_t *dw_weight_sum;        /* [channels_padded]: sum over taps */
};

/*
 * Depthwise microkernel: computes @pixels output pixels, all channels.
 * Pixel p reads tap t's channels at inputs[p * taps + t] (the zero-point
 * row for padding); accumulators start at init[c] (bias minus the zero
 * point times the weight sum) and int8 activations arrive flipped to uint8
 * (flip = 0x80), like the GEMM's.
 */
struct enpu_dwconv_pass {
	const uint8_t *const *inputs;
	size_t pixels;
	size_t taps;
	size_t channels;
	size_t channels_padded;
	const int32_t *weights;
	const int32_t *init;
	uint8_t flip;
	/* NULL multiplier: int32 output. */
	const int32_t *multiplier;
	const int32_t *shift;
	int per_channel;
	int32_t zero_point;
	int32_t min;
	int32_t max;
	enum enpu_cpu_dtype output_type;
	void *output;                  /* pixel 0, channel 0 */
	size_t output_pixel_stride;    /* elements */
};

/* Stores channel c of output pixel p with the pass's output rule. */
static inline void enpu_dwconv_store_one(const struct enpu_dwconv_pass *pass,
					 size_t p, size_t c, int32_t acc)
{
	size_t index = p * pass->output_pixel_stride + c;
	size_t ch = pass->per_channel ? c : 0;
	int32_t out;

	if (pass->output_type == ENPU_CPU_INT32) {
		((int32_t *)pass->output)[index] = acc;
		return;
	}
	out = enpu_requantize(acc, pass->multiplier[ch], pass->shift[ch],
			      pass->zero_point, pass->min, pass->max);
	((uint8_t *)pass->output)[index] = (uint8_t)out;
}

/*
 * Depthwise by flat rows (stride_width 1, kernel_width <= 4, 8-bit out,
 * dense pixels; dwconv.c): an output row of W x C bytes is computed 64
 * bytes (a "chunk") at a time whatever C is, so no lane is wasted on a
 * channel count that does not fill a vector (C = 32 used half of each).
 * Output byte i of a row reads, for each kernel row, the input bytes
 * i + (kx * dilation_width - pad_left) * C of its input row (the zero
 * point outside [0, input_width * C)), four kernel columns as the four
 * bytes of one vpdpbusd lane against the four weights of those columns.
 * The tables repeat with the period lcm(C, 64) bytes; within each chunk
 * they are in lane order: entry e = 16q + 4L + k holds byte position
 * 16L + 4q + k (what byte unpacks of the four column vectors produce,
 * and what saturating packs of the four accumulators undo).
 */
#define ENPU_DWCONV_ROWS_MAX_PERIOD 4096

struct enpu_dwconv_rows_pass {
	const uint8_t *const *rows;    /* kernel_height input rows; NULL: padding */
	uint8_t *output;               /* the output row */
	size_t first, end;             /* its bytes computed; first % 64 == 0 */
	size_t channels;
	size_t input_width, output_width;   /* pixels */
	size_t kernel_height, kernel_width;
	size_t dilation_width, pad_left;
	size_t period;                 /* bytes, a multiple of 64 */
	const int32_t *weights;        /* [kernel_height][period], 4 x int8 */
	const int32_t *init;           /* [period]: bias - zp * weight sum */
	const int32_t *multiplier;     /* [period] per channel, else [0] */
	const int32_t *shift;
	int per_channel;
	int32_t min_shift;             /* the lowest of the table's shifts */
	int32_t zero_point, min, max;
	enum enpu_cpu_dtype output_type;    /* uint8 or int8 */
	uint8_t flip;                  /* 0x80 for int8 activations */
	uint8_t input_zero_point;      /* as stored (before the flip) */
	/* The kernel's own form of the requantization per table entry,
	 * period * ENPU_DWCONV_ROWS_LANE_BYTES bytes, 64-aligned, filled
	 * once per call by its prepare function. */
	void *lanes;
};

#define ENPU_DWCONV_ROWS_LANE_BYTES 24

/* Lane-order entry e of a chunk: the byte position it holds. */
static inline size_t enpu_dwconv_rows_position(size_t e)
{
	return (e / 4 % 4) * 16 + (e / 16) * 4 + e % 4;
}

typedef void (*enpu_dwconv_rows_kernel)(const struct enpu_dwconv_rows_pass *pass);
typedef void (*enpu_dwconv_rows_prepare)(const struct enpu_dwconv_rows_pass *pass);
void enpu_dwconv_rows_avx512_vnni(const struct enpu_dwconv_rows_pass *pass);
void enpu_dwconv_rows_prepare_avx512_vnni(const struct enpu_dwconv_rows_pass *pass);

/* The depthwise driver (dwconv.c), called by enpu_cpu_conv2d(). */
int enpu_dwconv_run(enpu_cpu_context *context,
		    const struct enpu_cpu_conv_args *args,
		    size_t output_height, size_t output_width);

typedef void (*enpu_dwconv_kernel)(const struct enpu_dwconv_pass *pass);
void enpu_dwconv_scalar(const struct enpu_dwconv_pass *pass);
void enpu_dwconv_avx2(const struct enpu_dwconv_pass *pass);
void enpu_dwconv_avx512_vnni(const struct enpu_dwconv_pass *pass);
void enpu_dwconv_neon(const struct enpu_dwconv_pass *pass);

/* One output pixel of a pooling: every channel over @taps input rows. */
struct enpu_pool_pass {
	const uint8_t *const *inputs;  /* taps pointers, padding left out */
	size_t input_offset;           /* bytes added to every pointer */
	size_t taps;
	size_t channels;
	int is_signed;
	void *output;
	/*
	 * Average only: out = enpu_requantize((sum - taps * zp) << left_shift,
	 * multiplier, shift, output_zero_point, min, max).
	 */
	int32_t input_zero_point;
	int32_t left_shift;
	int32_t multiplier;
	int32_t shift;
	int32_t output_zero_point;
	int32_t min;
	int32_t max;
};

typedef void (*enpu_pool_kernel)(const struct enpu_pool_pass *pass);
void enpu_max_pool_scalar(const struct enpu_pool_pass *pass);
void enpu_max_pool_avx2(const struct enpu_pool_pass *pass);
void enpu_max_pool_avx512(const struct enpu_pool_pass *pass);
void enpu_average_pool_scalar(const struct enpu_pool_pass *pass);
void enpu_average_pool_avx2(const struct enpu_pool_pass *pass);
void enpu_average_pool_avx512(const struct enpu_pool_pass *pass);
void enpu_max_pool_neon(const struct enpu_pool_pass *pass);
void enpu_average_pool_neon(const struct enpu_pool_pass *pass);

/*
 * Elementwise microkernels over one contiguous run of @count outputs; each
 * input advances by its step, 1 (a row) or 0 (a broadcast scalar).
 */
struct enpu_eltwise_pass {
	const uint8_t *a;
	const uint8_t *b;
	size_t a_step;
	size_t b_step;
	uint8_t *out;
	size_t count;
	int is_signed;
	const struct enpu_cpu_eltwise_params *params;
};

/* The add and mul rules on one element (enpu_cpu.h), for every path. */
static inline int32_t enpu_add_one(const struct enpu_cpu_eltwise_params *p,
				   int32_t a, int32_t b)
{
	int32_t acc = (a - p->a_zero_point) * p->a_multiplier +
		      (b - p->b_zero_point) * p->b_multiplier +
		      (1 << (p->add_shift - 1));
	/* Arithmetic shift written portably: floor division by 2^S. */
	int32_t out = acc >= 0 ? acc >> p->add_shift :
			  -(int32_t)(((uint32_t)-acc + (1u << p->add_shift) - 1) >>
				     p->add_shift);

	out += p->output_zero_point;
	return out < p->min ? p->min : out > p->max ? p->max : out;
}

static inline int32_t enpu_mul_one(const struct enpu_cpu_eltwise_params *p,
				   int32_t a, int32_t b)
{
	int32_t product = (a - p->a_zero_point) * (b - p->b_zero_point);

	return enpu_requantize((int32_t)((uint32_t)product << p->left_shift),
			       p->multiplier, p->shift, p->output_zero_point,
			       p->min, p->max);
}

typedef void (*enpu_eltwise_kernel)(const struct enpu_eltwise_pass *pass);
void enpu_add_scalar(const struct enpu_eltwise_pass *pass);
void enpu_add_avx2(const struct enpu_eltwise_pass *pass);
void enpu_add_avx512(const struct enpu_eltwise_pass *pass);
void enpu_mul_scalar(const struct enpu_eltwise_pass *pass);
void enpu_mul_avx2(const struct enpu_eltwise_pass *pass);
void enpu_mul_avx512(const struct enpu_eltwise_pass *pass);
void enpu_clamp_scalar(const struct enpu_eltwise_pass *pass);
void enpu_clamp_avx2(const struct enpu_eltwise_pass *pass);
void enpu_clamp_avx512(const struct enpu_eltwise_pass *pass);
void enpu_add_neon(const struct enpu_eltwise_pass *pass);
void enpu_mul_neon(const struct enpu_eltwise_pass *pass);
void enpu_clamp_neon(const struct enpu_eltwise_pass *pass);

/* Byte lookup of @rows strided rows (enpu_cpu_lookup). */
typedef void (*enpu_lookup_kernel)(const uint8_t *table, const uint8_t *x,
				   size_t x_stride, uint8_t *y,
				   size_t y_stride, size_t rows,
				   size_t row_bytes);
void enpu_lookup_scalar(const uint8_t *table, const uint8_t *x,
			size_t x_stride, uint8_t *y, size_t y_stride,
			size_t rows, size_t row_bytes);
void enpu_lookup_avx512_vbmi(const uint8_t *table, const uint8_t *x,
			     size_t x_stride, uint8_t *y, size_t y_stride,
			     size_t rows, size_t row_bytes);

#endif /* ENPU_KERNELS_INTERNAL_H */
