// SPDX-License-Identifier: MIT
/*
 * int8 pooling over NHWC: ONNX output sizes (ceil_mode, pads, dilation),
 * the fixed-point rule of the average, the reference definitions and the
 * drivers. A task takes one output row; for each output pixel it gathers
 * the window's input pixels (padding left out) and the ISA's microkernel
 * reduces all channels of them.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define STACK_POINTERS 512
#define SIZE_LIMIT ENPU_CPU_SIZE_LIMIT
#define GLOBAL_SLICE_CHANNELS 64

enum pool_kind { POOL_MAX, POOL_AVERAGE };

static int extent(size_t in, size_t pad_begin, size_t pad_end, size_t kernel,
		  size_t stride, size_t dilation, int ceil_mode, size_t *out)
{
	size_t span = dilation * (kernel - 1) + 1;
	size_t total = in + pad_begin + pad_end;

	if (total < span)
		return -EINVAL;
	*out = (total - span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
	/* A window starting past the input and its leading pad is dropped. */
	if (ceil_mode && *out > 1 && (*out - 1) * stride >= in + pad_begin)
		(*out)--;
	return 0;
}

int enpu_cpu_pool_output_size(enpu_cpu_context *context,
			      const struct enpu_cpu_pool_shape *s,
			      size_t input_height, size_t input_width,
			      size_t *output_height, size_t *output_width)
{
	if (!context || !output_height || !output_width)
		return -EINVAL;
	if (!s)
		return enpu_cpu_fail(context, -EINVAL, "pool: shape is NULL");
	if (s->kernel_height == 0 || s->kernel_width == 0 ||
	    s->kernel_height > ENPU_CPU_MAX_KERNEL ||
	    s->kernel_width > ENPU_CPU_MAX_KERNEL)
		return enpu_cpu_fail(context, -EINVAL,
				     "pool: kernel %zux%zu outside 1..%d",
				     s->kernel_height, s->kernel_width,
				     ENPU_CPU_MAX_KERNEL);
	if (s->stride_height == 0 || s->stride_width == 0 ||
	    s->dilation_height == 0 || s->dilation_width == 0 ||
	    s->stride_height > SIZE_LIMIT || s->stride_width > SIZE_LIMIT ||
	    s->dilation_height > SIZE_LIMIT || s->dilation_width > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "pool: stride %zux%zu and dilation %zux%zu must be 1..%zu",
				     s->stride_height, s->stride_width,
				     s->dilation_height, s->dilation_width,
				     SIZE_LIMIT);
	if (s->pad_top >= s->kernel_height || s->pad_bottom >= s->kernel_height ||
	    s->pad_left >= s->kernel_width || s->pad_right >= s->kernel_width)
		return enpu_cpu_fail(context, -EINVAL,
				     "pool: pads %zu,%zu,%zu,%zu must be smaller than the kernel %zux%zu",
				     s->pad_top, s->pad_left, s->pad_bottom,
				     s->pad_right, s->kernel_height,
				     s->kernel_width);
	if (input_height == 0 || input_width == 0 ||
	    input_height > SIZE_LIMIT || input_width > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "pool: input %zux%zu outside 1..%zu",
				     input_height, input_width, SIZE_LIMIT);
	if (extent(input_height, s->pad_top, s->pad_bottom, s->kernel_height,
		   s->stride_height, s->dilation_height, s->ceil_mode,
		   output_height) ||
	    extent(input_width, s->pad_left, s->pad_right, s->kernel_width,
		   s->stride_width, s->dilation_width, s->ceil_mode,
		   output_width))
		return enpu_cpu_fail(context, -EINVAL,
				     "pool: dilated kernel does not fit the padded input %zux%zu",
				     input_height + s->pad_top + s->pad_bottom,
				     input_width + s->pad_left + s->pad_right);
	return 0;
}

/* The average rule of enpu_cpu.h for one divisor. */
int enpu_cpu_average_pool_params(double scale, size_t count,
				 int32_t *left_shift, int32_t *multiplier,
				 int32_t *shift)
{
	double real, largest_sum;

	if (count == 0 || !left_shift || !multiplier || !shift ||
	    !(scale > 0.0))
		return -EINVAL;
	real = scale / (double)count;
	largest_sum = 255.0 * (double)count;

	for (int l = 0; l <= 30; l++) {
		double r = ldexp(real, -l);

		if (largest_sum * ldexp(1.0, l) >= 2147483648.0)
			break;
		if (r >= 1.0)
			continue;
		*left_shift = l;
		return enpu_requant_from_scale(r, multiplier, shift) ?
		       -EINVAL : 0;
	}
	return -EINVAL;
}

struct pool_params {
	int32_t left_shift, multiplier, shift;
};

static int check_args(enpu_cpu_context *context, const char *op,
		      const struct enpu_cpu_pool_args *args, int average)
{
	int32_t lo, hi;
	int err;

	if (!args)
		return enpu_cpu_fail(context, -EINVAL, "%s: args are NULL", op);
	if (args->batch == 0 || args->batch > SIZE_LIMIT ||
	    args->channels == 0 || args->channels > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: batch %zu or channels %zu outside 1..%zu",
				     op, args->batch, args->channels, SIZE_LIMIT);
	if (!args->input || !args->output)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: input or output is NULL", op);
	if ((args->input_pixel_stride &&
	     args->input_pixel_stride < args->channels) ||
	    (args->output_pixel_stride &&
	     args->output_pixel_stride < args->channels) ||
	    args->input_pixel_stride > SIZE_LIMIT ||
	    args->output_pixel_stride > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: pixel strides %zu/%zu do not hold %zu channels",
				     op, args->input_pixel_stride,
				     args->output_pixel_stride, args->channels);
	/* Max pooling reads no zero point; 0 is valid for both types. */
	err = enpu_cpu_check_activation(context, op, "input", args->type,
					average ? args->input_zero_point : 0);
	if (err || !average)
		return err;
	err = enpu_cpu_check_activation(context, op, "output", args->type,
					args->output_zero_point);
	if (err)
		return err;
	enpu_cpu_type_range(args->type, &lo, &hi);
	if (args->min < lo || args->max > hi || args->min > args->max)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: output clamp [%d, %d] not inside [%d, %d]",
				     op, args->min, args->max, lo, hi);
	if (!isfinite(args->scale) || args->scale <= 0)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: scale ratio %g is not a positive number",
				     op, args->scale);
	return 0;
}

/* Parameters for every divisor 1..count, or an error naming the first bad. */
static struct pool_params *params_table(enpu_cpu_context *context,
					const char *op, double scale,
					size_t count, int *err)
{
	struct pool_params *table = malloc(count * sizeof(*table));

	*err = 0;
	if (!table) {
		*err = enpu_cpu_fail(context, -ENOMEM, "%s: out of memory", op);
		return NULL;
	}
	for (size_t c = 1; c <= count; c++) {
		struct pool_params *p = &table[c - 1];

		if (enpu_cpu_average_pool_params(scale, c, &p->left_shift, &p->multiplier,
				   &p->shift)) {
			*err = enpu_cpu_fail(context, -EINVAL,
					     "%s: scale ratio %g over %zu pixels cannot be represented",
					     op, scale, c);
			free(table);
			return NULL;
		}
	}
	return table;
}

struct window {
	size_t taps;       /* input pixels inside */
	size_t divisor;    /* what the average divides by */
};

/*
 * Visits the window of output pixel (n, y, x): stores its input pixels'
 * addresses in @pointers (if not NULL) and returns how many there are and
 * the average's divisor.
 */
static struct window gather(const struct enpu_cpu_pool_shape *s,
			    const struct enpu_cpu_pool_args *args, size_t n,
			    size_t y, size_t x, const uint8_t **pointers)
{
	size_t ips = args->input_pixel_stride ? args->input_pixel_stride :
						args->channels;
	ptrdiff_t iy0 = (ptrdiff_t)(y * s->stride_height) - (ptrdiff_t)s->pad_top;
	ptrdiff_t ix0 = (ptrdiff_t)(x * s->stride_width) - (ptrdiff_t)s->pad_left;
	ptrdiff_t height = (ptrdiff_t)args->input_height;
	ptrdiff_t width = (ptrdiff_t)args->input_width;
	size_t rows_in_pad = 0, columns_in_pad = 0;
	struct window w = { 0, 0 };

	for (size_t ky = 0; ky < s->kernel_height; ky++) {
		ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * s->dilation_height);

		if (iy < height + (ptrdiff_t)s->pad_bottom)
			rows_in_pad++;
		for (size_t kx = 0; kx < s->kernel_width; kx++) {
			ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * s->dilation_width);
			const uint8_t *p;

			if (ky == 0 && ix < width + (ptrdiff_t)s->pad_right)
				columns_in_pad++;
			p = enpu_pixel(args->input, n, iy, ix,
				       args->input_height, args->input_width,
				       ips);
			if (!p)
				continue;
			if (pointers)
				pointers[w.taps] = p;
			w.taps++;
		}
	}
	w.divisor = s->count_include_pad ? rows_in_pad * columns_in_pad :
					   w.taps;
	return w;
}

static int32_t load(const struct enpu_cpu_pool_args *args, const uint8_t *p)
{
	return args->type == ENPU_CPU_INT8 ? *(const int8_t *)p : *p;
}

static int reference(enpu_cpu_context *context,
		     const struct enpu_cpu_pool_shape *s,
		     const struct enpu_cpu_pool_args *args, enum pool_kind kind,
		     const char *op)
{
	size_t oh, ow, ops, taps;
	struct pool_params *table = NULL;
	const uint8_t **pointers;
	int32_t lo, hi;
	int err;

	if (!context)
		return -EINVAL;
	err = check_args(context, op, args, kind == POOL_AVERAGE);
	if (err)
		return err;
	err = enpu_cpu_pool_output_size(context, s, args->input_height,
					args->input_width, &oh, &ow);
	if (err)
		return err;
	taps = s->kernel_height * s->kernel_width;
	if (kind == POOL_AVERAGE) {
		table = params_table(context, op, args->scale, taps, &err);
		if (!table)
			return err;
	}
	pointers = malloc(taps * sizeof(*pointers));
	if (!pointers) {
		free(table);
		return enpu_cpu_fail(context, -ENOMEM, "%s: out of memory", op);
	}
	enpu_cpu_type_range(args->type, &lo, &hi);
	ops = args->output_pixel_stride ? args->output_pixel_stride :
					  args->channels;
	for (size_t n = 0; n < args->batch; n++)
	for (size_t y = 0; y < oh; y++)
	for (size_t x = 0; x < ow; x++) {
		struct window w = gather(s, args, n, y, x, pointers);
		uint8_t *out = (uint8_t *)args->output +
			       ((n * oh + y) * ow + x) * ops;

		for (size_t c = 0; c < args->channels; c++) {
			int32_t value;

			if (kind == POOL_MAX) {
				value = lo;
				for (size_t t = 0; t < w.taps; t++)
					if (load(args, pointers[t] + c) > value)
						value = load(args, pointers[t] + c);
			} else if (w.divisor == 0) {
				value = enpu_requantize(0, 0, 31,
							args->output_zero_point,
							args->min, args->max);
			} else {
				const struct pool_params *p =
					&table[w.divisor - 1];
				int32_t sum = 0;

				for (size_t t = 0; t < w.taps; t++)
					sum += load(args, pointers[t] + c) -
					       args->input_zero_point;
				value = enpu_requantize(
					(int32_t)((uint32_t)sum << p->left_shift),
					p->multiplier, p->shift,
					args->output_zero_point, args->min,
					args->max);
			}
			out[c] = (uint8_t)value;
		}
	}
	free(pointers);
	free(table);
	return 0;
}

int enpu_cpu_max_pool_reference(enpu_cpu_context *context,
				const struct enpu_cpu_pool_shape *shape,
				const struct enpu_cpu_pool_args *args)
{
	return reference(context, shape, args, POOL_MAX, "max pool");
}

int enpu_cpu_average_pool_reference(enpu_cpu_context *context,
				    const struct enpu_cpu_pool_shape *shape,
				    const struct enpu_cpu_pool_args *args)
{
	return reference(context, shape, args, POOL_AVERAGE, "average pool");
}

/*
 * Global pooling has no window limit: its window is the image, bounded only
 * by SIZE_LIMIT pixels and by the average rule (enpu_cpu_average_pool_params
 * refuses a pixel count whose sum could leave int32). The windowed pools'
 * 1..1024 kernel bound does not apply (a squeeze-excite block at 40x40
 * averages 1600 pixels).
 */
static int check_global(enpu_cpu_context *context, const char *op,
			const struct enpu_cpu_pool_args *args,
			struct pool_params *whole)
{
	int err = check_args(context, op, args, 1);
	size_t pixels;

	if (err)
		return err;
	if (args->input_height == 0 || args->input_width == 0 ||
	    args->input_height > SIZE_LIMIT || args->input_width > SIZE_LIMIT ||
	    args->input_height * args->input_width > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: input %zux%zu outside 1..%zu pixels",
				     op, args->input_height, args->input_width,
				     SIZE_LIMIT);
	pixels = args->input_height * args->input_width;
	if (enpu_cpu_average_pool_params(args->scale, pixels,
					 &whole->left_shift,
					 &whole->multiplier, &whole->shift))
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: scale ratio %g over %zu pixels cannot be represented",
				     op, args->scale, pixels);
	return 0;
}

int enpu_cpu_global_average_pool_reference(enpu_cpu_context *context,
					   const struct enpu_cpu_pool_args *args)
{
	const char *op = "global average pool";
	struct pool_params p;
	size_t pixels, ips, ops;
	int err;

	if (!context || !args)
		return -EINVAL;
	err = check_global(context, op, args, &p);
	if (err)
		return err;
	pixels = args->input_height * args->input_width;
	ips = args->input_pixel_stride ? args->input_pixel_stride :
					 args->channels;
	ops = args->output_pixel_stride ? args->output_pixel_stride :
					  args->channels;
	for (size_t n = 0; n < args->batch; n++)
	for (size_t c = 0; c < args->channels; c++) {
		const uint8_t *image = (const uint8_t *)args->input +
				       n * pixels * ips;
		int32_t sum = 0;

		for (size_t i = 0; i < pixels; i++)
			sum += load(args, image + i * ips + c) -
			       args->input_zero_point;
		((uint8_t *)args->output)[n * ops + c] = (uint8_t)
			enpu_requantize((int32_t)((uint32_t)sum << p.left_shift),
					p.multiplier, p.shift,
					args->output_zero_point, args->min,
					args->max);
	}
	return 0;
}

struct pool_job {
	const struct enpu_cpu_pool_shape *shape;
	const struct enpu_cpu_pool_args *args;
	const struct pool_params *table;
	enpu_pool_kernel kernel;
	enum pool_kind kind;
	size_t output_height, output_width, output_pixel_stride;
	/* Global pooling: one pointer per input pixel of each image. */
	const uint8_t **image_pointers;
	struct pool_params whole;       /* used when table is NULL */
	size_t slices, slice_channels;
	atomic_int failed;
};

static void fill_pass(const struct pool_job *job, struct enpu_pool_pass *pass,
		      struct window w)
{
	const struct enpu_cpu_pool_args *args = job->args;

	pass->taps = w.taps;
	if (job->kind == POOL_AVERAGE && w.divisor) {
		const struct pool_params *p = job->table ?
					      &job->table[w.divisor - 1] :
					      &job->whole;

		pass->left_shift = p->left_shift;
		pass->multiplier = p->multiplier;
		pass->shift = p->shift;
	} else {
		/* No divisor: the sum is 0 and a zero multiplier keeps it. */
		pass->left_shift = 0;
		pass->multiplier = 0;
		pass->shift = 31;
	}
	pass->input_zero_point = args->input_zero_point;
	pass->output_zero_point = args->output_zero_point;
	pass->min = args->min;
	pass->max = args->max;
}

static void run_row(void *argument, size_t row)
{
	struct pool_job *job = argument;
	const struct enpu_cpu_pool_args *args = job->args;
	size_t taps = job->shape->kernel_height * job->shape->kernel_width;
	size_t n = row / job->output_height, y = row % job->output_height;
	const uint8_t *stack[STACK_POINTERS];
	const uint8_t **pointers = stack;
	struct enpu_pool_pass pass = {
		.channels = args->channels,
		.is_signed = args->type == ENPU_CPU_INT8,
	};

	if (taps > STACK_POINTERS) {
		pointers = malloc(taps * sizeof(*pointers));
		if (!pointers) {
			atomic_store(&job->failed, 1);
			return;
		}
	}
	pass.inputs = pointers;
	for (size_t x = 0; x < job->output_width; x++) {
		fill_pass(job, &pass, gather(job->shape, args, n, y, x,
					     pointers));
		pass.output = (uint8_t *)args->output +
			      (row * job->output_width + x) *
			      job->output_pixel_stride;
		job->kernel(&pass);
	}
	if (pointers != stack)
		free(pointers);
}

static int run(enpu_cpu_context *context,
	       const struct enpu_cpu_pool_shape *s,
	       const struct enpu_cpu_pool_args *args, enum pool_kind kind,
	       const char *op)
{
	struct pool_job job;
	struct pool_params *table = NULL;
	int err;

	if (!context)
		return -EINVAL;
	err = check_args(context, op, args, kind == POOL_AVERAGE);
	if (err)
		return err;
	memset(&job, 0, sizeof(job));
	err = enpu_cpu_pool_output_size(context, s, args->input_height,
					args->input_width, &job.output_height,
					&job.output_width);
	if (err)
		return err;
	if (kind == POOL_AVERAGE) {
		table = params_table(context, op, args->scale,
				     s->kernel_height * s->kernel_width, &err);
		if (!table)
			return err;
	}
	job.shape = s;
	job.args = args;
	job.table = table;
	job.kind = kind;
	job.kernel = kind == POOL_MAX ? context->kernels.max_pool :
		     context->kernels.average_pool;
	job.output_pixel_stride = args->output_pixel_stride ?
				  args->output_pixel_stride : args->channels;
	atomic_init(&job.failed, 0);
	enpu_thread_pool_parallel_for(context->pool,
				      args->batch * job.output_height,
				      run_row, &job);
	free(table);
	if (atomic_load(&job.failed))
		return enpu_cpu_fail(context, -ENOMEM,
				     "%s: out of memory for the window pointers",
				     op);
	return 0;
}

int enpu_cpu_max_pool(enpu_cpu_context *context,
		      const struct enpu_cpu_pool_shape *shape,
		      const struct enpu_cpu_pool_args *args)
{
	return run(context, shape, args, POOL_MAX, "max pool");
}

int enpu_cpu_average_pool(enpu_cpu_context *context,
			  const struct enpu_cpu_pool_shape *shape,
			  const struct enpu_cpu_pool_args *args)
{
	return run(context, shape, args, POOL_AVERAGE, "average pool");
}

/* Global pooling: tasks are (image, channel slice); windows are whole images. */
static void run_global(void *argument, size_t task)
{
	struct pool_job *job = argument;
	const struct enpu_cpu_pool_args *args = job->args;
	size_t pixels = args->input_height * args->input_width;
	size_t n = task / job->slices, slice = task % job->slices;
	size_t channel = slice * job->slice_channels;
	struct enpu_pool_pass pass = {
		.inputs = job->image_pointers + n * pixels,
		.input_offset = channel,
		.channels = args->channels - channel < job->slice_channels ?
			    args->channels - channel : job->slice_channels,
		.is_signed = args->type == ENPU_CPU_INT8,
		.output = (uint8_t *)args->output +
			  n * job->output_pixel_stride + channel,
	};

	fill_pass(job, &pass, (struct window){ pixels, pixels });
	job->kernel(&pass);
}

int enpu_cpu_global_average_pool(enpu_cpu_context *context,
				 const struct enpu_cpu_pool_args *args)
{
	const char *op = "global average pool";
	struct pool_job job;
	size_t pixels, ips;
	int err;

	if (!context || !args)
		return -EINVAL;
	memset(&job, 0, sizeof(job));
	err = check_global(context, op, args, &job.whole);
	if (err)
		return err;
	job.output_height = job.output_width = 1;
	pixels = args->input_height * args->input_width;
	ips = args->input_pixel_stride ? args->input_pixel_stride :
					 args->channels;
	job.image_pointers = malloc(args->batch * pixels *
				    sizeof(*job.image_pointers));
	if (!job.image_pointers)
		return enpu_cpu_fail(context, -ENOMEM, "%s: out of memory", op);
	for (size_t i = 0; i < args->batch * pixels; i++)
		job.image_pointers[i] = (const uint8_t *)args->input + i * ips;
	job.args = args;
	job.kind = POOL_AVERAGE;
	job.kernel = context->kernels.average_pool;
	job.output_pixel_stride = args->output_pixel_stride ?
				  args->output_pixel_stride : args->channels;
	job.slices = 1;
	if (enpu_thread_pool_thread_count(context->pool) > 1)
		job.slices = (args->channels + GLOBAL_SLICE_CHANNELS - 1) /
			     GLOBAL_SLICE_CHANNELS;
	job.slice_channels = (args->channels + job.slices - 1) / job.slices;
	enpu_thread_pool_parallel_for(context->pool, args->batch * job.slices,
				      run_global, &job);
	free(job.image_pointers);
	return 0;
}
