// SPDX-License-Identifier: MIT
/*
 * oneDNN (Debian's libdnnl, OpenMP build) running the benchmark's
 * convolution layers: u8 NHWC activations with a zero point, s8 weights
 * (per output channel scales) in oneDNN's own layout reordered once, s32
 * bias, u8 NHWC output with a zero point - the work our conv2d does.
 */
#include "bench.h"
#include "conv_bench.h"

#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>

void omp_set_num_threads(int threads);

struct onednn_run {
	dnnl_primitive_t conv;
	dnnl_stream_t stream;
	dnnl_exec_arg_t args[4];
};

static int run_onednn(void *argument)
{
	struct onednn_run *r = argument;

	if (dnnl_primitive_execute(r->conv, r->stream, 4, r->args))
		return -1;
	return dnnl_stream_wait(r->stream) ? -1 : 0;
}

#define TRY(call) do { if ((call) != dnnl_success) goto out; } while (0)

double bench_onednn_conv(const struct conv_layer *l, int threads,
			 double min_seconds)
{
	size_t oh = conv_layer_output(l, l->height);
	size_t ow = conv_layer_output(l, l->width);
	size_t cin_g = l->input_channels / l->groups;
	size_t cout_g = l->output_channels / l->groups;
	size_t in_size = l->height * l->width * l->input_channels;
	size_t out_size = oh * ow * l->output_channels;
	size_t w_size = l->output_channels * cin_g * l->kernel * l->kernel;
	dnnl_engine_t engine = NULL;
	dnnl_stream_t stream = NULL;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL, reorder_pd = NULL;
	dnnl_primitive_t conv = NULL, reorder = NULL;
	dnnl_memory_t src = NULL, weights_plain = NULL, weights = NULL,
		      bias = NULL, dst = NULL;
	dnnl_memory_desc_t src_md, weights_any_md, weights_plain_md, bias_md,
			   dst_md;
	dnnl_convolution_desc_t desc;
	dnnl_dims_t src_dims = { 1, (dnnl_dim_t)l->input_channels,
				 (dnnl_dim_t)l->height, (dnnl_dim_t)l->width };
	dnnl_dims_t dst_dims = { 1, (dnnl_dim_t)l->output_channels,
				 (dnnl_dim_t)oh, (dnnl_dim_t)ow };
	dnnl_dims_t grouped_dims = { (dnnl_dim_t)l->groups, (dnnl_dim_t)cout_g,
				     (dnnl_dim_t)cin_g, (dnnl_dim_t)l->kernel,
				     (dnnl_dim_t)l->kernel };
	dnnl_dims_t plain_dims = { (dnnl_dim_t)l->output_channels,
				   (dnnl_dim_t)cin_g, (dnnl_dim_t)l->kernel,
				   (dnnl_dim_t)l->kernel };
	dnnl_dims_t bias_dims = { (dnnl_dim_t)l->output_channels };
	dnnl_dims_t strides = { (dnnl_dim_t)l->stride, (dnnl_dim_t)l->stride };
	dnnl_dims_t padding = { (dnnl_dim_t)l->pad, (dnnl_dim_t)l->pad };
	int grouped = l->groups > 1;
	float *scales = malloc(l->output_channels * sizeof(float));
	int32_t src_zero_point = 128, dst_zero_point = 131;
	uint8_t *a = malloc(in_size);
	int8_t *b = malloc(w_size);
	int32_t *bias_data = calloc(l->output_channels, sizeof(int32_t));
	uint8_t *c = malloc(out_size);
	double seconds = -1.0;

	if (!scales || !a || !b || !bias_data || !c)
		goto out;
	omp_set_num_threads(threads);
	for (size_t i = 0; i < l->output_channels; i++)
		scales[i] = 1.0f / (128.0f * (float)(cin_g * l->kernel * l->kernel)) *
			    (1.0f + (float)(i % 7) / 8.0f);
	for (size_t i = 0; i < in_size; i++)
		a[i] = (uint8_t)(i * 2654435761u >> 13);
	for (size_t i = 0; i < w_size; i++)
		b[i] = (int8_t)(i * 2246822519u >> 17);

	TRY(dnnl_engine_create(&engine, dnnl_cpu, 0));
	TRY(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
	TRY(dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dnnl_u8, dnnl_nhwc));
	TRY(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dnnl_u8, dnnl_nhwc));
	TRY(dnnl_memory_desc_init_by_tag(&bias_md, 1, bias_dims, dnnl_s32, dnnl_a));
	if (grouped) {
		TRY(dnnl_memory_desc_init_by_tag(&weights_any_md, 5, grouped_dims,
						 dnnl_s8, dnnl_format_tag_any));
		TRY(dnnl_memory_desc_init_by_tag(&weights_plain_md, 5, grouped_dims,
						 dnnl_s8, dnnl_goihw));
	} else {
		TRY(dnnl_memory_desc_init_by_tag(&weights_any_md, 4, plain_dims,
						 dnnl_s8, dnnl_format_tag_any));
		TRY(dnnl_memory_desc_init_by_tag(&weights_plain_md, 4, plain_dims,
						 dnnl_s8, dnnl_oihw));
	}
	TRY(dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
					       dnnl_convolution_direct, &src_md,
					       &weights_any_md, &bias_md, &dst_md,
					       strides, padding, padding));
	TRY(dnnl_primitive_attr_create(&attr));
	TRY(dnnl_primitive_attr_set_output_scales(attr,
						  (dnnl_dim_t)l->output_channels,
						  1 << 1, scales));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
						&src_zero_point));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
						&dst_zero_point));
	TRY(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
	TRY(dnnl_primitive_create(&conv, pd));

	TRY(dnnl_memory_create(&src, &src_md, engine, a));
	TRY(dnnl_memory_create(&weights_plain, &weights_plain_md, engine, b));
	TRY(dnnl_memory_create(&weights, dnnl_primitive_desc_query_md(
				       pd, dnnl_query_weights_md, 0),
			       engine, DNNL_MEMORY_ALLOCATE));
	TRY(dnnl_memory_create(&bias, &bias_md, engine, bias_data));
	TRY(dnnl_memory_create(&dst, &dst_md, engine, c));
	TRY(dnnl_reorder_primitive_desc_create(
		&reorder_pd, &weights_plain_md, engine,
		dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
		engine, NULL));
	TRY(dnnl_primitive_create(&reorder, reorder_pd));
	{
		dnnl_exec_arg_t reorder_args[2] = {
			{ DNNL_ARG_FROM, weights_plain },
			{ DNNL_ARG_TO, weights },
		};
		struct onednn_run run = {
			.conv = conv,
			.stream = stream,
			.args = {
				{ DNNL_ARG_SRC, src },
				{ DNNL_ARG_WEIGHTS, weights },
				{ DNNL_ARG_BIAS, bias },
				{ DNNL_ARG_DST, dst },
			},
		};

		TRY(dnnl_primitive_execute(reorder, stream, 2, reorder_args));
		TRY(dnnl_stream_wait(stream));
		seconds = bench_time(run_onednn, &run, min_seconds, 5);
	}
out:
	dnnl_primitive_destroy(reorder);
	dnnl_primitive_desc_destroy(reorder_pd);
	dnnl_primitive_destroy(conv);
	dnnl_primitive_desc_destroy(pd);
	dnnl_primitive_attr_destroy(attr);
	dnnl_memory_destroy(src);
	dnnl_memory_destroy(weights_plain);
	dnnl_memory_destroy(weights);
	dnnl_memory_destroy(bias);
	dnnl_memory_destroy(dst);
	if (stream)
		dnnl_stream_destroy(stream);
	if (engine)
		dnnl_engine_destroy(engine);
	free(scales);
	free(a);
	free(b);
	free(bias_data);
	free(c);
	return seconds;
}
