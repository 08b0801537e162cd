// SPDX-License-Identifier: MIT
/*
 * oneDNN (Debian's libdnnl, OpenMP build) running the benchmark's
 * convolution layers: u8 NHWC activations with a zero point, s8 weights
 * (per output channel scales) in oneDNN's own layout reordered once, s32
 * bias, u8 NHWC output with a zero point - the work our conv2d does.
 */
#include "bench.h"
#include "bench_onednn.h"
#include "conv_bench.h"

#include <stdlib.h>

void omp_set_num_threads(int threads);

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
	size_t depth = cin_g * l->kernel * l->kernel;
	size_t w_size = l->output_channels * depth;
	dnnl_engine_t engine = NULL;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
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
	uint8_t *a = malloc(in_size);
	int8_t *b = malloc(w_size);
	int32_t *bias_data = calloc(l->output_channels, sizeof(int32_t));
	uint8_t *c = malloc(out_size);
	double seconds = -1.0;

	if (!scales || !a || !b || !bias_data || !c)
		goto out;
	omp_set_num_threads(threads);
	for (size_t i = 0; i < l->output_channels; i++)
		scales[i] = (float)bench_output_scale(i, depth);
	bench_fill(a, in_size, b, w_size);

	TRY(dnnl_engine_create(&engine, dnnl_cpu, 0));
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
	attr = bench_onednn_attr(l->output_channels, scales);
	if (!attr)
		goto out;
	TRY(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
	seconds = bench_onednn_time(engine, pd, &(struct bench_onednn_args){
			.src_md = &src_md, .weights_plain_md = &weights_plain_md,
			.bias_md = &bias_md, .dst_md = &dst_md,
			.src = a, .weights_plain = b, .bias = bias_data, .dst = c,
		}, min_seconds);
out:
	dnnl_primitive_desc_destroy(pd);
	dnnl_primitive_attr_destroy(attr);
	if (engine)
		dnnl_engine_destroy(engine);
	free(scales);
	free(a);
	free(b);
	free(bias_data);
	free(c);
	return seconds;
}
