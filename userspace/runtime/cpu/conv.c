// SPDX-License-Identifier: MIT
/*
 * int8 2-D convolution over NHWC: weight packing, argument checks, the
 * reference definition, and the driver of dense and grouped convolutions.
 * A 1x1 convolution with stride 1 and no padding is a GEMM over the pixels
 * and goes to enpu_cpu_gemm(); every other one runs the GEMM microkernel
 * with indirect rows: for each output pixel and kernel tap, a pointer to
 * the input pixel's channels (or to a row of zero points in the padding),
 * built per block of output pixels just before the block is computed, so
 * no im2col copy is ever made. Depthwise convolutions are in dwconv.c.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Output pixels per block with one thread; smaller blocks with more. */
#define MAX_BLOCK_TILES 32
/* Wide rows: input channels below this, kernel rows up to this. */
#define WIDE_ROWS_MAX_CHANNELS 8
#define WIDE_ROWS_MAX_HEIGHT 16
/*
 * Wide rows: output pixels whose pointers a block builds at a time, on
 * the stack (16 KiB at the largest kernel height), used while in L1: a
 * buffer of every pixel's pointers went out to L2 and back.
 */
#define WIDE_ROWS_PIXELS 128

static int output_extent(size_t in, size_t pad_begin, size_t pad_end,
			 size_t kernel, size_t stride, size_t dilation,
			 size_t *out)
{
	size_t span = dilation * (kernel - 1) + 1;

	if (in + pad_begin + pad_end < span)
		return -EINVAL;
	*out = (in + pad_begin + pad_end - span) / stride + 1;
	return 0;
}

#define SIZE_LIMIT ENPU_CPU_SIZE_LIMIT

static int check_shape(enpu_cpu_context *context,
		       const struct enpu_cpu_conv_shape *s)
{
	if (!s)
		return enpu_cpu_fail(context, -EINVAL, "conv: shape is NULL");
	if (s->input_channels == 0 || s->output_channels == 0 ||
	    s->input_channels > SIZE_LIMIT || s->output_channels > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: channel counts %zu -> %zu outside 1..%zu",
				     s->input_channels, s->output_channels,
				     SIZE_LIMIT);
	if (s->groups == 0 || s->input_channels % s->groups ||
	    s->output_channels % s->groups)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: groups=%zu does not divide channels %zu -> %zu",
				     s->groups, s->input_channels,
				     s->output_channels);
	if (s->kernel_height == 0 || s->kernel_width == 0 ||
	    s->kernel_height > ENPU_CPU_MAX_KERNEL ||
	    s->kernel_width > ENPU_CPU_MAX_KERNEL)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: kernel %zux%zu outside 1..%d",
				     s->kernel_height, s->kernel_width,
				     ENPU_CPU_MAX_KERNEL);
	if (s->stride_height == 0 || s->stride_width == 0 ||
	    s->dilation_height == 0 || s->dilation_width == 0 ||
	    s->stride_height > SIZE_LIMIT || s->stride_width > SIZE_LIMIT ||
	    s->dilation_height > SIZE_LIMIT || s->dilation_width > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: stride %zux%zu and dilation %zux%zu must be 1..%zu",
				     s->stride_height, s->stride_width,
				     s->dilation_height, s->dilation_width,
				     SIZE_LIMIT);
	if (s->pad_top > SIZE_LIMIT || s->pad_bottom > SIZE_LIMIT ||
	    s->pad_left > SIZE_LIMIT || s->pad_right > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL, "conv: padding too large");
	return 0;
}

int enpu_cpu_conv_output_size(enpu_cpu_context *context,
			      const struct enpu_cpu_conv_shape *s,
			      size_t input_height, size_t input_width,
			      size_t *output_height, size_t *output_width)
{
	int err;

	if (!context || !output_height || !output_width)
		return -EINVAL;
	err = check_shape(context, s);
	if (err)
		return err;
	if (input_height == 0 || input_width == 0 ||
	    input_height > SIZE_LIMIT || input_width > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: input %zux%zu outside 1..%zu",
				     input_height, input_width, SIZE_LIMIT);
	if (output_extent(input_height, s->pad_top, s->pad_bottom,
			  s->kernel_height, s->stride_height,
			  s->dilation_height, output_height) ||
	    output_extent(input_width, s->pad_left, s->pad_right,
			  s->kernel_width, s->stride_width,
			  s->dilation_width, output_width))
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: dilated kernel %zux%zu does not fit the padded input %zux%zu",
				     s->dilation_height * (s->kernel_height - 1) + 1,
				     s->dilation_width * (s->kernel_width - 1) + 1,
				     input_height + s->pad_top + s->pad_bottom,
				     input_width + s->pad_left + s->pad_right);
	return 0;
}

void enpu_cpu_conv_weights_destroy(enpu_cpu_conv_weights *w)
{
	if (!w)
		return;
	if (w->group_weights)
		for (size_t g = 0; g < w->shape.groups; g++)
			enpu_cpu_gemm_weights_destroy(w->group_weights[g]);
	free(w->group_weights);
	free(w->dw_weights);
	free(w->dw_bias);
	free(w->dw_weight_sum);
	free(w);
}

static int pack_depthwise(enpu_cpu_context *context, enpu_cpu_conv_weights *w,
			  const int8_t *weights, const int32_t *bias)
{
	size_t channels = w->shape.output_channels;

	w->channels_padded = enpu_divide_up(channels, 64) * 64;
	w->dw_weights = enpu_cpu_aligned_calloc(w->taps * w->channels_padded *
						sizeof(int32_t));
	w->dw_bias = enpu_cpu_aligned_calloc(w->channels_padded *
					     sizeof(int32_t));
	w->dw_weight_sum = enpu_cpu_aligned_calloc(w->channels_padded *
						   sizeof(int32_t));
	if (!w->dw_weights || !w->dw_bias || !w->dw_weight_sum)
		return enpu_cpu_fail(context, -ENOMEM,
				     "conv weights: out of memory for %zu depthwise channels",
				     channels);
	for (size_t c = 0; c < channels; c++) {
		int32_t sum = 0;

		for (size_t t = 0; t < w->taps; t++) {
			int8_t v = weights[c * w->taps + t];

			w->dw_weights[t * w->channels_padded + c] = v;
			sum += v;
		}
		w->dw_weight_sum[c] = sum;
		w->dw_bias[c] = bias ? bias[c] : 0;
	}
	return 0;
}

static int pack_dense(enpu_cpu_context *context, enpu_cpu_conv_weights *w,
		      const int8_t *weights, const int32_t *bias)
{
	size_t cin = w->group_input_channels, cout = w->group_output_channels;
	size_t k = w->pieces * w->tap_bytes;
	int8_t *b;
	int err = 0;

	if (k > ENPU_CPU_GEMM_MAX_K)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv weights: K=%zu (%zu pieces x %zu bytes) exceeds %d",
				     k, w->pieces, w->tap_bytes,
				     ENPU_CPU_GEMM_MAX_K);
	w->group_weights = calloc(w->shape.groups, sizeof(*w->group_weights));
	b = calloc(k * cout, 1);
	if (!w->group_weights || !b) {
		free(b);
		return enpu_cpu_fail(context, -ENOMEM,
				     "conv weights: out of memory");
	}
	for (size_t g = 0; g < w->shape.groups && !err; g++) {
		/*
		 * B[tap * tap_bytes + channel][output], padding rows zero;
		 * wide rows: B[ky * tap_bytes + kx * cin + channel][output].
		 */
		for (size_t o = 0; o < cout; o++)
			for (size_t i = 0; i < cin; i++)
				for (size_t t = 0; t < w->taps; t++) {
					size_t kw = w->shape.kernel_width;
					size_t row = w->wide_rows ?
						t / kw * w->tap_bytes +
						t % kw * cin + i :
						t * w->tap_bytes + i;

					b[row * cout + o] =
						weights[((g * cout + o) * cin + i) *
							w->taps + t];
				}
		err = enpu_cpu_gemm_weights_pack(context, k, cout, b, cout,
						 bias ? bias + g * cout : NULL,
						 &w->group_weights[g]);
	}
	free(b);
	return err;
}

/*
 * Wide rows (struct enpu_cpu_conv_weights) for a dense convolution over a
 * few input channels that are not a multiple of 4 (an image's 1-3 colour
 * planes, up to 7) with contiguous window rows: a 3x3 over 3 channels
 * reads 3 pieces of 12 bytes per output pixel instead of 9 of 4 (the
 * same K, 36); over 1 channel K drops from 36 to 12.
 */
static int use_wide_rows(const struct enpu_cpu_conv_shape *s)
{
	return s->groups == 1 && s->input_channels < WIDE_ROWS_MAX_CHANNELS &&
	       s->input_channels % 4 && s->kernel_width > 1 &&
	       s->dilation_width == 1 &&
	       s->kernel_height <= WIDE_ROWS_MAX_HEIGHT;
}

int enpu_cpu_conv_weights_pack(enpu_cpu_context *context,
			       const struct enpu_cpu_conv_shape *shape,
			       const int8_t *weights, const int32_t *bias,
			       enpu_cpu_conv_weights **out)
{
	enpu_cpu_conv_weights *w;
	int err;

	if (!context || !out)
		return -EINVAL;
	*out = NULL;
	err = check_shape(context, shape);
	if (err)
		return err;
	if (!weights)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv weights: weights are NULL");
	w = calloc(1, sizeof(*w));
	if (!w)
		return enpu_cpu_fail(context, -ENOMEM,
				     "conv weights: out of memory");
	w->shape = *shape;
	w->taps = shape->kernel_height * shape->kernel_width;
	w->group_input_channels = shape->input_channels / shape->groups;
	w->group_output_channels = shape->output_channels / shape->groups;
	w->depthwise = shape->groups > 1 &&
		       shape->groups == shape->input_channels &&
		       shape->groups == shape->output_channels;
	w->tap_bytes = enpu_divide_up(w->group_input_channels, 4) * 4;
	w->pieces = w->taps;
	w->wide_rows = !w->depthwise && use_wide_rows(shape);
	if (w->wide_rows) {
		w->tap_bytes = enpu_divide_up(shape->kernel_width *
					      shape->input_channels, 4) * 4;
		w->pieces = shape->kernel_height;
	}
	w->direct_gemm = w->taps == 1 && shape->stride_height == 1 &&
			 shape->stride_width == 1 && !shape->pad_top &&
			 !shape->pad_left && !shape->pad_bottom &&
			 !shape->pad_right &&
			 w->tap_bytes == w->group_input_channels;
	if (w->depthwise)
		err = pack_depthwise(context, w, weights, bias);
	else
		err = pack_dense(context, w, weights, bias);
	if (err) {
		enpu_cpu_conv_weights_destroy(w);
		return err;
	}
	*out = w;
	return 0;
}

static int check_args(enpu_cpu_context *context,
		      const struct enpu_cpu_conv_args *args,
		      const struct enpu_cpu_conv_shape *shape,
		      size_t *output_height, size_t *output_width)
{
	int err = enpu_cpu_conv_output_size(context, shape, args->input_height,
					    args->input_width, output_height,
					    output_width);

	if (err)
		return err;
	if (args->batch == 0 || args->batch > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: batch %zu outside 1..%zu", args->batch,
				     SIZE_LIMIT);
	if (!args->input || !args->output)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: input or output is NULL");
	if (args->input_pixel_stride &&
	    args->input_pixel_stride < shape->input_channels)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: input pixel stride %zu smaller than %zu channels",
				     args->input_pixel_stride,
				     shape->input_channels);
	if (args->output_pixel_stride &&
	    args->output_pixel_stride < shape->output_channels)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: output pixel stride %zu smaller than %zu channels",
				     args->output_pixel_stride,
				     shape->output_channels);
	if (args->input_pixel_stride > SIZE_LIMIT ||
	    args->output_pixel_stride > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv: pixel stride too large");
	err = enpu_cpu_check_activation(context, "conv", "input",
					args->input_type,
					args->input_zero_point);
	if (err)
		return err;
	return enpu_cpu_check_output(context, "conv", args->output_type,
				     args->requant, shape->output_channels);
}

static void store(void *output, enum enpu_cpu_dtype type, size_t index,
		  int32_t value)
{
	if (type == ENPU_CPU_INT32)
		((int32_t *)output)[index] = value;
	else if (type == ENPU_CPU_UINT8)
		((uint8_t *)output)[index] = (uint8_t)value;
	else
		((int8_t *)output)[index] = (int8_t)value;
}

int enpu_cpu_conv2d_reference(enpu_cpu_context *context,
			      const struct enpu_cpu_conv_args *args,
			      const struct enpu_cpu_conv_shape *s,
			      const int8_t *weights, const int32_t *bias)
{
	size_t oh, ow, ips, ops, cin_g, cout_g;
	const struct enpu_cpu_requant *rq;
	int err;

	if (!context || !args)
		return -EINVAL;
	err = check_args(context, args, s, &oh, &ow);
	if (err)
		return err;
	if (!weights)
		return enpu_cpu_fail(context, -EINVAL,
				     "conv reference: weights are NULL");
	rq = args->requant;
	ips = args->input_pixel_stride ? args->input_pixel_stride :
					 s->input_channels;
	ops = args->output_pixel_stride ? args->output_pixel_stride :
					  s->output_channels;
	cin_g = s->input_channels / s->groups;
	cout_g = s->output_channels / s->groups;
	for (size_t n = 0; n < args->batch; n++)
	for (size_t y = 0; y < oh; y++)
	for (size_t x = 0; x < ow; x++)
	for (size_t o = 0; o < s->output_channels; o++) {
		size_t g = o / cout_g;
		/* uint32: int32 arithmetic that wraps instead of UB. */
		uint32_t acc = bias ? (uint32_t)bias[o] : 0;
		size_t index = ((n * oh + y) * ow + x) * ops + o;
		size_t ch = rq && rq->per_channel ? o : 0;

		for (size_t ky = 0; ky < s->kernel_height; ky++)
		for (size_t kx = 0; kx < s->kernel_width; kx++) {
			ptrdiff_t iy = (ptrdiff_t)(y * s->stride_height +
						   ky * s->dilation_height) -
				       (ptrdiff_t)s->pad_top;
			ptrdiff_t ix = (ptrdiff_t)(x * s->stride_width +
						   kx * s->dilation_width) -
				       (ptrdiff_t)s->pad_left;

			if (iy < 0 || ix < 0 ||
			    iy >= (ptrdiff_t)args->input_height ||
			    ix >= (ptrdiff_t)args->input_width)
				continue;   /* padding: input == zero point */
			for (size_t i = 0; i < cin_g; i++) {
				size_t at = ((n * args->input_height +
					      (size_t)iy) * args->input_width +
					     (size_t)ix) * ips + g * cin_g + i;
				int32_t a = args->input_type == ENPU_CPU_UINT8 ?
					    ((const uint8_t *)args->input)[at] :
					    ((const int8_t *)args->input)[at];
				int32_t wv = weights[((o * cin_g + i) *
						      s->kernel_height + ky) *
						     s->kernel_width + kx];

				acc += (uint32_t)((a - args->input_zero_point) *
						  wv);
			}
		}
		if (args->output_type == ENPU_CPU_INT32)
			store(args->output, args->output_type, index,
			      (int32_t)acc);
		else
			store(args->output, args->output_type, index,
			      enpu_requantize((int32_t)acc, rq->multiplier[ch],
					      rq->shift[ch], rq->zero_point,
					      rq->min, rq->max));
	}
	return 0;
}

struct conv_job {
	const struct enpu_cpu_conv_args *args;
	const enpu_cpu_conv_weights *w;
	const struct enpu_gemm_kernel_info *kernel;
	struct enpu_gemm_tile base;
	const uint8_t **indirection;    /* [output pixel][tap] */
	const uint8_t *padding;         /* a row of zero points */
	const uint8_t *tail;            /* pixels read through tail_copy */
	const uint8_t *tail_copy;
	/*
	 * Wide rows: output columns [inside_first, inside_end) read their
	 * windows in place; the others (in the horizontal padding, or all
	 * when pixels lie apart) from copies, edge_columns slots of
	 * kernel_height pieces per output row.
	 */
	size_t inside_first, inside_end, edge_columns;
	uint8_t *copies;
	size_t output_height, output_width, pixels;
	size_t input_pixel_bytes, output_pixel_stride, element_size;
	size_t rows_per_block;          /* output pixels, kernel rows multiple */
};

static void build_indirection(const struct conv_job *job, size_t first,
			      size_t end)
{
	const struct enpu_cpu_conv_args *args = job->args;
	const struct enpu_cpu_conv_shape *s = &job->w->shape;
	size_t image = job->output_height * job->output_width;

	for (size_t m = first; m < end; m++) {
		size_t n = m / image, y = m % image / job->output_width;
		size_t x = m % job->output_width;
		const uint8_t **row = job->indirection + m * job->w->taps;

		for (size_t ky = 0; ky < s->kernel_height; ky++) {
			ptrdiff_t iy = (ptrdiff_t)(y * s->stride_height +
						   ky * s->dilation_height) -
				       (ptrdiff_t)s->pad_top;

			for (size_t kx = 0; kx < s->kernel_width; kx++) {
				ptrdiff_t ix = (ptrdiff_t)(x * s->stride_width +
							   kx * s->dilation_width) -
					       (ptrdiff_t)s->pad_left;
				const uint8_t *p = enpu_pixel(
					args->input, n, iy, ix,
					args->input_height, args->input_width,
					job->input_pixel_bytes);

				if (!p)
					p = job->padding;
				else if (p >= job->tail)
					p = job->tail_copy + (p - job->tail);
				*row++ = p;
			}
		}
	}
}

/*
 * Wide rows: one piece per kernel row, the window's row in place, or for
 * a window reaching into the left or right padding (or with pixels apart,
 * input_pixel_stride > channels) a copy with the zero point there.
 */
/* Out of line: inlined, it made the compiler keep the pointer loop's
 * variables on the stack (a store-to-load chain per pixel). */
static __attribute__((noinline)) const uint8_t *
wide_copy(const struct conv_job *job, size_t n, size_t y, size_t x,
	  size_t ky, ptrdiff_t iy)
{
	const struct enpu_cpu_conv_args *args = job->args;
	const struct enpu_cpu_conv_shape *s = &job->w->shape;
	size_t cin = s->input_channels, bytes = job->w->tap_bytes;
	ptrdiff_t ix0 = (ptrdiff_t)(x * s->stride_width) -
			(ptrdiff_t)s->pad_left;
	size_t column = x < job->inside_first ? x :
			job->inside_first + (x - job->inside_end);
	uint8_t *copy = job->copies +
			((((n * job->output_height + y) * job->edge_columns +
			   column) * s->kernel_height + ky) * bytes);

	memset(copy, (uint8_t)args->input_zero_point, bytes);
	for (size_t kx = 0; kx < s->kernel_width; kx++) {
		const uint8_t *p = enpu_pixel(args->input, n, iy,
					      ix0 + (ptrdiff_t)kx,
					      args->input_height,
					      args->input_width,
					      job->input_pixel_bytes);

		if (p)
			memcpy(copy + kx * cin, p, cin);
	}
	return copy;
}

/*
 * The pointers of output pixels [first, end) into @out, output row by
 * output row and kernel row by kernel row: a division or a chain of
 * multiplications per pixel cost as much as the GEMM.
 */
static void build_wide_rows(const struct conv_job *job, size_t first,
			    size_t end, const uint8_t **out)
{
	const struct enpu_cpu_conv_args *args = job->args;
	const struct enpu_cpu_conv_shape *s = &job->w->shape;
	size_t width = job->output_width, pieces = job->w->pieces;
	size_t image = job->output_height * width;
	size_t cin = s->input_channels, step = s->stride_width * cin;

	for (size_t m = first; m < end;) {
		size_t n = m / image, y = m % image / width, x0 = m % width;
		size_t x1 = width - x0 < end - m ? width : x0 + (end - m);
		size_t a = job->inside_first, b = job->inside_end;

		/* [x0, a) and [b, x1) are copies, [a, b) in place. */
		a = a < x0 ? x0 : a > x1 ? x1 : a;
		b = b < a ? a : b > x1 ? x1 : b;

		for (size_t ky = 0; ky < s->kernel_height; ky++) {
			ptrdiff_t iy = (ptrdiff_t)(y * s->stride_height +
						   ky * s->dilation_height) -
				       (ptrdiff_t)s->pad_top;
			const uint8_t **slot = out + ky;
			uintptr_t p;

			if (iy < 0 || iy >= (ptrdiff_t)args->input_height) {
				for (size_t x = x0; x < x1; x++, slot += pieces)
					*slot = job->padding;
				continue;
			}
			/* Where column x0's window starts, as an integer:
			 * in the left padding it lies before the input. */
			p = (uintptr_t)args->input +
			    (uintptr_t)((((ptrdiff_t)(n * args->input_height) +
					  iy) * (ptrdiff_t)args->input_width +
					 (ptrdiff_t)(x0 * s->stride_width) -
					 (ptrdiff_t)s->pad_left) *
					(ptrdiff_t)cin);
			for (size_t x = x0; x < a; x++, slot += pieces)
				*slot = wide_copy(job, n, y, x, ky, iy);
			p += (a - x0) * step;
			for (size_t x = a; x < b; x++, slot += pieces,
			     p += step)
				*slot = p >= (uintptr_t)job->tail ?
					job->tail_copy +
					(p - (uintptr_t)job->tail) :
					(const uint8_t *)p;
			for (size_t x = b; x < x1; x++, slot += pieces)
				*slot = wide_copy(job, n, y, x, ky, iy);
		}
		out += (x1 - x0) * pieces;
		m += x1 - x0;
	}
}

static void run_tiles(const struct conv_job *job, size_t first, size_t end,
		      const uint8_t *const *indirection);

/* Wide rows: a block's pixels WIDE_ROWS_PIXELS at a time. */
static void run_wide_block(const struct conv_job *job, size_t first,
			   size_t end)
{
	const uint8_t *pointers[WIDE_ROWS_PIXELS * WIDE_ROWS_MAX_HEIGHT];

	for (size_t start = first; start < end; start += WIDE_ROWS_PIXELS) {
		size_t stop = end - start < WIDE_ROWS_PIXELS ? end :
			      start + WIDE_ROWS_PIXELS;

		build_wide_rows(job, start, stop, pointers);
		run_tiles(job, start, stop, pointers);
	}
}

/* Every tile of output pixels [first, end), @indirection at @first's. */
static void run_tiles(const struct conv_job *job, size_t first, size_t end,
		      const uint8_t *const *indirection)
{
	const enpu_cpu_conv_weights *w = job->w;
	const struct enpu_cpu_conv_args *args = job->args;
	size_t kr = job->kernel->rows, kc = job->kernel->columns;
	struct enpu_gemm_tile tile = job->base;

	for (size_t g = 0; g < w->shape.groups; g++) {
		const enpu_cpu_gemm_weights *gw = w->group_weights[g];
		size_t group_column = g * w->group_output_channels;

		tile.a_offset = g * w->group_input_channels;
		for (size_t col = 0; col < gw->n; col += kc) {
			size_t ch = job->base.per_channel ? group_column + col : 0;

			tile.columns = gw->n - col < kc ? gw->n - col : kc;
			tile.panel = gw->packed + (col / ENPU_GEMM_PANEL_COLUMNS) *
						  gw->panel_stride;
			tile.panel16 = gw->packed16 ? gw->packed16 +
				       (col / ENPU_GEMM_PANEL_COLUMNS) *
				       gw->panel16_stride : NULL;
			tile.bias = gw->bias + col;
			tile.column_sum = gw->column_sum + col;
			if (job->base.multiplier) {
				tile.multiplier = job->base.multiplier + ch;
				tile.shift = job->base.shift + ch;
			}
			for (size_t row = first; row < end; row += kr) {
				tile.rows = end - row < kr ? end - row : kr;
				tile.indirection = indirection +
						   (row - first) * w->pieces;
				tile.c = (char *)args->output +
					 (row * job->output_pixel_stride +
					  group_column + col) * job->element_size;
				job->kernel->kernel(&tile);
			}
		}
	}
}

static void run_block(void *argument, size_t block)
{
	const struct conv_job *job = argument;
	size_t first = block * job->rows_per_block;
	size_t end = first + job->rows_per_block;

	if (end > job->pixels)
		end = job->pixels;
	if (job->w->wide_rows) {
		run_wide_block(job, first, end);
		return;
	}
	build_indirection(job, first, end);
	run_tiles(job, first, end, job->indirection + first * job->w->taps);
}

/* 1x1, stride 1, no padding: each group is one GEMM over all pixels. */
static int run_direct(enpu_cpu_context *context,
		      const struct enpu_cpu_conv_args *args, size_t pixels)
{
	const enpu_cpu_conv_weights *w = args->weights;
	size_t ips = args->input_pixel_stride ? args->input_pixel_stride :
						w->shape.input_channels;
	size_t ops = args->output_pixel_stride ? args->output_pixel_stride :
						 w->shape.output_channels;
	size_t element_size = args->output_type == ENPU_CPU_INT32 ? 4 : 1;

	for (size_t g = 0; g < w->shape.groups; g++) {
		struct enpu_cpu_requant rq;
		struct enpu_cpu_gemm_args gemm = {
			.m = pixels,
			.a = (const uint8_t *)args->input +
			     g * w->group_input_channels,
			.lda = ips,
			.a_type = args->input_type,
			.a_zero_point = args->input_zero_point,
			.weights = w->group_weights[g],
			.c = (char *)args->output +
			     g * w->group_output_channels * element_size,
			.ldc = ops,
			.c_type = args->output_type,
			.requant = NULL,
		};
		int err;

		if (args->output_type != ENPU_CPU_INT32) {
			size_t first = args->requant->per_channel ?
				       g * w->group_output_channels : 0;

			rq = *args->requant;
			rq.multiplier += first;
			rq.shift += first;
			gemm.requant = &rq;
		}
		err = enpu_cpu_gemm(context, &gemm);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Wide rows: which output columns read their windows in place (all of the
 * window inside the row, pixels back to back), and room for the others'
 * copies. False when out of memory.
 */
static bool plan_wide_rows(struct conv_job *job, size_t ips)
{
	const struct enpu_cpu_conv_shape *s = &job->w->shape;
	size_t width = job->args->input_width, out = job->output_width;
	size_t a = enpu_divide_up(s->pad_left, s->stride_width), b = 0;

	/* Columns x with x * stride - pad_left + kernel_width <= width. */
	if (width + s->pad_left >= s->kernel_width)
		b = (width + s->pad_left - s->kernel_width) / s->stride_width +
		    1;
	if (b > out)
		b = out;
	if (ips != s->input_channels || a > b)
		a = b = out;
	job->inside_first = a;
	job->inside_end = b;
	job->edge_columns = a + (out - b);
	if (!job->edge_columns)
		return true;
	job->copies = malloc(job->args->batch * job->output_height *
			     job->edge_columns * s->kernel_height *
			     job->w->tap_bytes);
	return job->copies != NULL;
}

int enpu_cpu_conv2d(enpu_cpu_context *context,
		    const struct enpu_cpu_conv_args *args)
{
	const enpu_cpu_conv_weights *w;
	const struct enpu_cpu_requant *rq;
	struct conv_job job;
	size_t ips, row_tiles, tiles_per_block, blocks;
	size_t total_pixels, tail_pixels, padding_bytes;
	unsigned int threads;
	uint8_t *padding = NULL, *copy = NULL;
	int err;

	if (!context || !args)
		return -EINVAL;
	w = args->weights;
	if (!w)
		return enpu_cpu_fail(context, -EINVAL, "conv: weights are NULL");
	memset(&job, 0, sizeof(job));
	err = check_args(context, args, &w->shape, &job.output_height,
			 &job.output_width);
	if (err)
		return err;
	job.pixels = args->batch * job.output_height * job.output_width;
	if (w->depthwise)
		return enpu_dwconv_run(context, args, job.output_height,
				       job.output_width);
	if (w->direct_gemm)
		return run_direct(context, args, job.pixels);

	rq = args->requant;
	ips = args->input_pixel_stride ? args->input_pixel_stride :
					 w->shape.input_channels;
	job.args = args;
	job.w = w;
	job.kernel = context->kernels.gemm;
	job.input_pixel_bytes = ips;
	job.output_pixel_stride = args->output_pixel_stride ?
				  args->output_pixel_stride :
				  w->shape.output_channels;
	job.element_size = args->output_type == ENPU_CPU_INT32 ? 4 : 1;

	/*
	 * A tap reads up to 3 bytes past the group's channels: they have zero
	 * weights but must exist, which they do except near the end of the
	 * input. The pixels whose reads could cross it are read from a
	 * zero-padded copy.
	 */
	total_pixels = args->batch * args->input_height * args->input_width;
	tail_pixels = enpu_divide_up((w->wide_rows ? w->shape.kernel_width : 1) *
				     w->shape.input_channels + 3, ips);
	if (tail_pixels > total_pixels)
		tail_pixels = total_pixels;
	/* Read at a group's channel offset, or as a whole wide row. */
	padding_bytes = (w->wide_rows ? w->tap_bytes :
			 w->shape.input_channels) + 4;
	padding = malloc(padding_bytes);
	copy = calloc(tail_pixels * ips + 4, 1);
	/* Wide rows build their pointers block by block, on the stack. */
	job.indirection = malloc((w->wide_rows ? 1 : job.pixels * w->taps) *
				 sizeof(*job.indirection));
	if (job.indirection && w->wide_rows && !plan_wide_rows(&job, ips)) {
		free(job.indirection);
		job.indirection = NULL;
	}
	if (!padding || !copy || !job.indirection) {
		err = enpu_cpu_fail(context, -ENOMEM,
				    "conv: out of memory for %zu x %zu indirection pointers",
				    job.pixels, w->pieces);
		goto out;
	}
	memset(padding, (uint8_t)args->input_zero_point, padding_bytes);
	job.padding = padding;
	job.tail = (const uint8_t *)args->input +
		   (total_pixels - tail_pixels) * ips;
	memcpy(copy, job.tail, (tail_pixels - 1) * ips +
	       w->shape.input_channels);
	job.tail_copy = copy;

	job.base.a_flip = args->input_type == ENPU_CPU_INT8 ? 0x80808080u : 0;
	job.base.a_zero_point = args->input_type == ENPU_CPU_INT8 ?
				args->input_zero_point + 128 :
				args->input_zero_point;
	job.base.k = w->group_weights[0]->k;
	job.base.k_groups = w->group_weights[0]->k_groups;
	job.base.panel_stride = w->group_weights[0]->panel_stride;
	job.base.panel16_stride = w->group_weights[0]->panel16_stride;
	job.base.c_type = args->output_type;
	job.base.ldc = job.output_pixel_stride;
	job.base.taps = w->pieces;
	job.base.tap_bytes = w->tap_bytes;
	if (args->output_type != ENPU_CPU_INT32)
		enpu_gemm_tile_set_requant(&job.base, rq);

	/* A few blocks per thread, so a busy core does not hold up the rest. */
	threads = enpu_thread_pool_thread_count(context->pool);
	row_tiles = enpu_divide_up(job.pixels, job.kernel->rows);
	tiles_per_block = threads > 1 ? row_tiles / (4 * threads) :
			  MAX_BLOCK_TILES;
	if (tiles_per_block > MAX_BLOCK_TILES)
		tiles_per_block = MAX_BLOCK_TILES;
	if (tiles_per_block == 0)
		tiles_per_block = 1;
	job.rows_per_block = tiles_per_block * job.kernel->rows;
	blocks = enpu_divide_up(job.pixels, job.rows_per_block);
	enpu_thread_pool_parallel_for(context->pool, blocks, run_block, &job);
	err = 0;
out:
	free(padding);
	free(copy);
	free(job.indirection);
	free(job.copies);
	return err;
}
