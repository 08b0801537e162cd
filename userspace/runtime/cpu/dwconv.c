// SPDX-License-Identifier: MIT
/*
 * Depthwise convolution driver (groups == input channels == output
 * channels, NHWC). Work is cut into output rows times channel slices; a
 * task gathers, for a few output pixels at a time, one pointer per kernel
 * tap (interior pixels from a per-call table of tap offsets, border pixels
 * one by one, the padding pointing at a row of zero points) and hands them
 * to the ISA's microkernel, which vectorizes over channels.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Pointer slots of a task's stack buffer; more taps use the heap. */
#define STACK_POINTERS 512
/* Channels per slice when rows alone cannot keep the threads busy. */
#define MIN_SLICE_CHANNELS 64

struct dwconv_job {
	const struct enpu_cpu_conv_args *args;
	const enpu_cpu_conv_weights *w;
	enpu_dwconv_kernel kernel;
	struct enpu_dwconv_pass base;
	const ptrdiff_t *tap_offsets;   /* bytes from the window's corner */
	const uint8_t *padding;
	size_t output_height, output_width;
	size_t input_pixel_bytes;
	size_t slice_channels, slices;
	size_t element_size;
	atomic_int failed;
};

static void gather(const struct dwconv_job *job, size_t n, size_t y,
		   size_t x, size_t channel, const uint8_t **out)
{
	const struct enpu_cpu_conv_args *args = job->args;
	const struct enpu_cpu_conv_shape *s = &job->w->shape;
	ptrdiff_t iy0 = (ptrdiff_t)(y * s->stride_height) -
			(ptrdiff_t)s->pad_top;
	ptrdiff_t ix0 = (ptrdiff_t)(x * s->stride_width) -
			(ptrdiff_t)s->pad_left;
	ptrdiff_t last_y = iy0 + (ptrdiff_t)((s->kernel_height - 1) *
					     s->dilation_height);
	ptrdiff_t last_x = ix0 + (ptrdiff_t)((s->kernel_width - 1) *
					     s->dilation_width);
	size_t t = 0;

	if (iy0 >= 0 && ix0 >= 0 && last_y < (ptrdiff_t)args->input_height &&
	    last_x < (ptrdiff_t)args->input_width) {
		const uint8_t *corner = enpu_pixel(args->input, n, iy0, ix0,
						   args->input_height,
						   args->input_width,
						   job->input_pixel_bytes) +
					channel;

		for (t = 0; t < job->w->taps; t++)
			out[t] = corner + job->tap_offsets[t];
		return;
	}
	for (size_t ky = 0; ky < s->kernel_height; ky++) {
		for (size_t kx = 0; kx < s->kernel_width; kx++) {
			const uint8_t *p = enpu_pixel(
				args->input, n,
				iy0 + (ptrdiff_t)(ky * s->dilation_height),
				ix0 + (ptrdiff_t)(kx * s->dilation_width),
				args->input_height, args->input_width,
				job->input_pixel_bytes);

			out[t++] = p ? p + channel : job->padding;
		}
	}
}

static void run_task(void *argument, size_t task)
{
	struct dwconv_job *job = argument;
	const struct enpu_cpu_conv_args *args = job->args;
	size_t taps = job->w->taps;
	size_t row = task / job->slices, slice = task % job->slices;
	size_t n = row / job->output_height, y = row % job->output_height;
	size_t channel = slice * job->slice_channels;
	const uint8_t *stack[STACK_POINTERS];
	const uint8_t **pointers = stack;
	size_t chunk = STACK_POINTERS / taps;
	struct enpu_dwconv_pass pass = job->base;

	if (chunk == 0) {
		chunk = 1;
		pointers = malloc(taps * sizeof(*pointers));
		if (!pointers) {
			atomic_store(&job->failed, 1);
			return;
		}
	}
	pass.channels = job->w->shape.output_channels - channel <
			job->slice_channels ?
			job->w->shape.output_channels - channel :
			job->slice_channels;
	pass.weights += channel;
	pass.init += channel;
	if (pass.multiplier && pass.per_channel) {
		pass.multiplier += channel;
		pass.shift += channel;
	}
	pass.inputs = pointers;
	for (size_t x = 0; x < job->output_width; x += chunk) {
		pass.pixels = job->output_width - x < chunk ?
			      job->output_width - x : chunk;
		for (size_t p = 0; p < pass.pixels; p++)
			gather(job, n, y, x + p, channel, pointers + p * taps);
		pass.output = (char *)args->output +
			      (((n * job->output_height + y) *
				job->output_width + x) *
			       pass.output_pixel_stride + channel) *
			      job->element_size;
		job->kernel(&pass);
	}
	if (pointers != stack)
		free(pointers);
}

/*
 * Flat rows (kernels_internal.h): the tables of one call, and the output
 * rows cut into segments of whole chunks.
 */
struct dwconv_rows_job {
	const struct enpu_cpu_conv_args *args;
	struct enpu_dwconv_rows_pass base;
	enpu_dwconv_rows_kernel kernel;
	size_t output_height, segments, segment_bytes;
};

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void run_rows_task(void *argument, size_t task)
{
	const struct dwconv_rows_job *job = argument;
	const struct enpu_cpu_conv_args *args = job->args;
	const struct enpu_cpu_conv_shape *s = &args->weights->shape;
	size_t row = task / job->segments, segment = task % job->segments;
	size_t n = row / job->output_height, y = row % job->output_height;
	size_t row_bytes = job->base.output_width * job->base.channels;
	size_t in_row = args->input_width * job->base.channels;
	const uint8_t *rows[ENPU_CPU_MAX_KERNEL];
	struct enpu_dwconv_rows_pass pass = job->base;

	for (size_t ky = 0; ky < s->kernel_height; ky++) {
		ptrdiff_t iy = (ptrdiff_t)(y * s->stride_height +
					   ky * s->dilation_height) -
			       (ptrdiff_t)s->pad_top;

		rows[ky] = iy < 0 || iy >= (ptrdiff_t)args->input_height ?
			   NULL : (const uint8_t *)args->input +
			   (n * args->input_height + (size_t)iy) * in_row;
	}
	pass.rows = rows;
	pass.output = (uint8_t *)args->output + row * row_bytes;
	pass.first = segment * job->segment_bytes;
	pass.end = pass.first + job->segment_bytes < row_bytes ?
		   pass.first + job->segment_bytes : row_bytes;
	job->kernel(&pass);
}

/*
 * The flat-row kernel's layers (kernels_internal.h); 0 when the ISA has
 * none or the layer is not one, else its tables' period. Only up to 32
 * channels: measured (vnpu-layer-bench, AVX-512 VNNI) it ran MobileNet's
 * 32-channel depthwise 3x3 in 0.85x the per-pixel kernel's time, but
 * those of 144-960 channels in 1.2-1.6x, where the per-pixel kernel
 * fills its vectors and keeps each pixel group's requantization in
 * registers (the rows kernel reloads it per 64 bytes).
 */
#define ROWS_MAX_CHANNELS 32
static size_t rows_period(const enpu_cpu_context *context,
			  const struct enpu_cpu_conv_args *args)
{
	const struct enpu_cpu_conv_shape *s = &args->weights->shape;
	size_t c = s->output_channels, period = c / gcd(c, 64) * 64;

	if (!context->kernels.dwconv_rows || c > ROWS_MAX_CHANNELS ||
	    s->stride_width != 1 ||
	    s->kernel_width > 4 || args->output_type == ENPU_CPU_INT32 ||
	    (args->input_pixel_stride && args->input_pixel_stride != c) ||
	    (args->output_pixel_stride && args->output_pixel_stride != c) ||
	    period > ENPU_DWCONV_ROWS_MAX_PERIOD)
		return 0;
	return period;
}

/* Output bytes below which a layer runs as one task (no handoff). */
#define ROWS_GRAIN_BYTES (64 * 1024)
/* Segments of a row when rows alone cannot keep the threads busy. */
#define ROWS_MIN_SEGMENT 1024

static int dwconv_rows_run(enpu_cpu_context *context,
			   const struct enpu_cpu_conv_args *args,
			   size_t output_height, size_t output_width,
			   size_t period)
{
	const enpu_cpu_conv_weights *w = args->weights;
	const struct enpu_cpu_conv_shape *s = &w->shape;
	const struct enpu_cpu_requant *rq = args->requant;
	size_t c = s->output_channels, kw = s->kernel_width;
	size_t rows = args->batch * output_height, row_bytes = output_width * c;
	size_t total = rows * row_bytes, tasks;
	unsigned int threads = enpu_thread_pool_thread_count(context->pool);
	int32_t *weights = enpu_cpu_aligned_calloc(s->kernel_height * period *
						   sizeof(int32_t));
	int32_t *init = enpu_cpu_aligned_calloc(period * sizeof(int32_t));
	int32_t *multiplier = enpu_cpu_aligned_calloc(period * sizeof(int32_t));
	int32_t *shift = enpu_cpu_aligned_calloc(period * sizeof(int32_t));
	void *lanes = enpu_cpu_aligned_calloc(period *
					      ENPU_DWCONV_ROWS_LANE_BYTES);
	struct dwconv_rows_job job;
	int32_t min_shift = rq->shift[0];
	int32_t zero_point = args->input_type == ENPU_CPU_INT8 ?
			     args->input_zero_point + 128 :
			     args->input_zero_point;
	int err = 0;

	if (!weights || !init || !multiplier || !shift || !lanes) {
		err = enpu_cpu_fail(context, -ENOMEM,
				    "depthwise conv: out of memory");
		goto out;
	}
	for (size_t e = 0; e < period; e++) {
		size_t ch = (e / 64 * 64 + enpu_dwconv_rows_position(e % 64)) % c;
		size_t at = rq->per_channel ? ch : 0;

		for (size_t ky = 0; ky < s->kernel_height; ky++) {
			uint32_t four = 0;

			for (size_t kx = 0; kx < kw; kx++)
				four |= (uint32_t)(uint8_t)w->dw_weights[
					(ky * kw + kx) * w->channels_padded +
					ch] << (8 * kx);
			weights[ky * period + e] = (int32_t)four;
		}
		init[e] = (int32_t)((uint32_t)w->dw_bias[ch] -
				    (uint32_t)zero_point *
				    (uint32_t)w->dw_weight_sum[ch]);
		multiplier[e] = rq->multiplier[at];
		shift[e] = rq->shift[at];
		if (shift[e] < min_shift)
			min_shift = shift[e];
	}
	memset(&job, 0, sizeof(job));
	job.args = args;
	job.kernel = context->kernels.dwconv_rows;
	job.output_height = output_height;
	job.base = (struct enpu_dwconv_rows_pass){
		.channels = c,
		.input_width = args->input_width,
		.output_width = output_width,
		.kernel_height = s->kernel_height,
		.kernel_width = kw,
		.dilation_width = s->dilation_width,
		.pad_left = s->pad_left,
		.period = period,
		.weights = weights,
		.init = init,
		.multiplier = multiplier,
		.shift = shift,
		.per_channel = rq->per_channel,
		.min_shift = min_shift,
		.zero_point = rq->zero_point,
		.min = rq->min,
		.max = rq->max,
		.output_type = args->output_type,
		.flip = args->input_type == ENPU_CPU_INT8 ? 0x80 : 0,
		.input_zero_point = (uint8_t)args->input_zero_point,
		.lanes = lanes,
	};
	context->kernels.dwconv_rows_prepare(&job.base);
	/*
	 * A row per task; rows cut into segments of whole chunks when they
	 * are too few for the threads; a small layer in one task, which the
	 * pool runs on the caller: handing it over costs more than it saves.
	 */
	job.segments = 1;
	if (threads > 1 && total >= ROWS_GRAIN_BYTES &&
	    rows < 4 * (size_t)threads) {
		job.segments = enpu_divide_up(4 * (size_t)threads, rows);
		if (job.segments > row_bytes / ROWS_MIN_SEGMENT)
			job.segments = row_bytes / ROWS_MIN_SEGMENT ?
				       row_bytes / ROWS_MIN_SEGMENT : 1;
	}
	job.segment_bytes = enpu_divide_up(enpu_divide_up(row_bytes,
							   job.segments), 64) *
			    64;
	job.segments = enpu_divide_up(row_bytes, job.segment_bytes);
	tasks = rows * job.segments;
	if (total < ROWS_GRAIN_BYTES) {
		/* One task doing every row. */
		for (size_t t = 0; t < tasks; t++)
			run_rows_task(&job, t);
	} else {
		enpu_thread_pool_parallel_for(context->pool, tasks,
					      run_rows_task, &job);
	}
out:
	free(weights);
	free(init);
	free(multiplier);
	free(shift);
	free(lanes);
	return err;
}

int enpu_dwconv_run(enpu_cpu_context *context,
		    const struct enpu_cpu_conv_args *args,
		    size_t output_height, size_t output_width)
{
	const enpu_cpu_conv_weights *w = args->weights;
	const struct enpu_cpu_conv_shape *s = &w->shape;
	const struct enpu_cpu_requant *rq = args->requant;
	size_t channels = s->output_channels, rows, tasks, period;
	struct dwconv_job job;
	int32_t zero_point;
	ptrdiff_t *offsets;
	int32_t *init;
	uint8_t *padding;
	unsigned int threads;
	int err = 0;

	period = rows_period(context, args);
	if (period)
		return dwconv_rows_run(context, args, output_height,
				       output_width, period);
	memset(&job, 0, sizeof(job));
	job.args = args;
	job.w = w;
	job.kernel = context->kernels.dwconv;
	job.output_height = output_height;
	job.output_width = output_width;
	job.input_pixel_bytes = args->input_pixel_stride ?
				args->input_pixel_stride : channels;
	job.element_size = args->output_type == ENPU_CPU_INT32 ? 4 : 1;
	offsets = malloc(w->taps * sizeof(*offsets));
	init = enpu_cpu_aligned_calloc(w->channels_padded * sizeof(int32_t));
	padding = malloc(channels + 64);
	if (!offsets || !init || !padding) {
		err = enpu_cpu_fail(context, -ENOMEM,
				    "depthwise conv: out of memory");
		goto out;
	}
	memset(padding, (uint8_t)args->input_zero_point, channels + 64);
	for (size_t ky = 0; ky < s->kernel_height; ky++)
		for (size_t kx = 0; kx < s->kernel_width; kx++)
			offsets[ky * s->kernel_width + kx] = (ptrdiff_t)
				((ky * s->dilation_height * args->input_width +
				  kx * s->dilation_width) *
				 job.input_pixel_bytes);
	/* Kernels see uint8 activations: int8 ones are flipped (+128). */
	zero_point = args->input_type == ENPU_CPU_INT8 ?
		     args->input_zero_point + 128 : args->input_zero_point;
	for (size_t c = 0; c < w->channels_padded; c++)
		init[c] = (int32_t)((uint32_t)w->dw_bias[c] -
				    (uint32_t)zero_point *
				    (uint32_t)w->dw_weight_sum[c]);
	job.tap_offsets = offsets;
	job.padding = padding;
	job.base = (struct enpu_dwconv_pass){
		.taps = w->taps,
		.channels_padded = w->channels_padded,
		.weights = w->dw_weights,
		.init = init,
		.flip = args->input_type == ENPU_CPU_INT8 ? 0x80 : 0,
		.output_type = args->output_type,
		.output_pixel_stride = args->output_pixel_stride ?
				       args->output_pixel_stride : channels,
	};
	if (args->output_type != ENPU_CPU_INT32) {
		job.base.multiplier = rq->multiplier;
		job.base.shift = rq->shift;
		job.base.per_channel = rq->per_channel;
		job.base.zero_point = rq->zero_point;
		job.base.min = rq->min;
		job.base.max = rq->max;
	}

	/* Rows first; slice channels only when rows are too few to share. */
	threads = enpu_thread_pool_thread_count(context->pool);
	rows = args->batch * output_height;
	job.slices = 1;
	if (threads > 1 && rows < 4 * (size_t)threads) {
		job.slices = (4 * (size_t)threads + rows - 1) / rows;
		if (job.slices > (channels + MIN_SLICE_CHANNELS - 1) /
				 MIN_SLICE_CHANNELS)
			job.slices = (channels + MIN_SLICE_CHANNELS - 1) /
				     MIN_SLICE_CHANNELS;
	}
	job.slice_channels = (channels + job.slices - 1) / job.slices;
	job.slice_channels = (job.slice_channels + 63) / 64 * 64;
	job.slices = (channels + job.slice_channels - 1) / job.slice_channels;
	tasks = rows * job.slices;
	atomic_init(&job.failed, 0);
	enpu_thread_pool_parallel_for(context->pool, tasks, run_task, &job);
	if (atomic_load(&job.failed))
		err = enpu_cpu_fail(context, -ENOMEM,
				    "depthwise conv: out of memory for %zu tap pointers",
				    w->taps);
out:
	free(offsets);
	free(init);
	free(padding);
	return err;
}
