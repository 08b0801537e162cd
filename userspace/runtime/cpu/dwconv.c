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

int enpu_dwconv_run(enpu_cpu_context *context,
		    const struct enpu_cpu_conv_args *args,
		    size_t output_height, size_t output_width)
{
	const enpu_cpu_conv_weights *w = args->weights;
	const struct enpu_cpu_conv_shape *s = &w->shape;
	const struct enpu_cpu_requant *rq = args->requant;
	size_t channels = s->output_channels, rows, tasks;
	struct dwconv_job job;
	int32_t zero_point;
	ptrdiff_t *offsets;
	int32_t *init;
	uint8_t *padding;
	unsigned int threads;
	int err = 0;

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
