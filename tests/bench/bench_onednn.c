// SPDX-License-Identifier: MIT
/*
 * oneDNN (Debian's libdnnl, OpenMP build) doing the same work as our GEMM:
 * u8 activations with a zero point, s8 weights in oneDNN's own packed
 * layout (reordered once, like our packing), s32 bias, per-column output
 * scales, u8 output with a zero point (what ONNX Runtime produces).
 */
#include "bench.h"

#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

void omp_set_num_threads(int threads);

struct onednn_run {
	dnnl_primitive_t matmul;
	dnnl_stream_t stream;
	dnnl_exec_arg_t args[4];
};

static int run_onednn(void *argument)
{
	struct onednn_run *r = argument;

	if (dnnl_primitive_execute(r->matmul, r->stream, 4, r->args))
		return -1;
	return dnnl_stream_wait(r->stream) ? -1 : 0;
}

#define TRY(call) do { if ((call) != dnnl_success) goto out; } while (0)

double bench_onednn(const struct gemm_shape *shape, int threads,
		    double min_seconds)
{
	dnnl_engine_t engine = NULL;
	dnnl_stream_t stream = NULL;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL, reorder_pd = NULL;
	dnnl_primitive_t matmul = NULL, reorder = NULL;
	dnnl_memory_t src = NULL, weights_plain = NULL, weights = NULL,
		      bias = NULL, dst = NULL;
	dnnl_memory_desc_t src_md, weights_any_md, weights_plain_md, bias_md,
			   dst_md;
	dnnl_matmul_desc_t desc;
	dnnl_dims_t src_dims = { (dnnl_dim_t)shape->m, (dnnl_dim_t)shape->k };
	dnnl_dims_t weight_dims = { (dnnl_dim_t)shape->k, (dnnl_dim_t)shape->n };
	dnnl_dims_t bias_dims = { 1, (dnnl_dim_t)shape->n };
	dnnl_dims_t dst_dims = { (dnnl_dim_t)shape->m, (dnnl_dim_t)shape->n };
	float *scales = malloc(shape->n * sizeof(float));
	int32_t src_zero_point = 128, dst_zero_point = 131;
	uint8_t *a = malloc(shape->m * shape->k);
	int8_t *b = malloc(shape->k * shape->n);
	int32_t *bias_data = calloc(shape->n, sizeof(int32_t));
	uint8_t *c = malloc(shape->m * shape->n);
	double seconds = -1.0;

	if (!scales || !a || !b || !bias_data || !c)
		goto out;
	omp_set_num_threads(threads);
	for (size_t i = 0; i < shape->n; i++)
		scales[i] = 1.0f / (128.0f * (float)shape->k) *
			    (1.0f + (float)(i % 7) / 8.0f);
	for (size_t i = 0; i < shape->m * shape->k; i++)
		a[i] = (uint8_t)(i * 2654435761u >> 13);
	for (size_t i = 0; i < shape->k * shape->n; i++)
		b[i] = (int8_t)(i * 2246822519u >> 17);

	TRY(dnnl_engine_create(&engine, dnnl_cpu, 0));
	TRY(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
	TRY(dnnl_memory_desc_init_by_tag(&src_md, 2, src_dims, dnnl_u8, dnnl_ab));
	TRY(dnnl_memory_desc_init_by_tag(&weights_any_md, 2, weight_dims,
					 dnnl_s8, dnnl_format_tag_any));
	TRY(dnnl_memory_desc_init_by_tag(&weights_plain_md, 2, weight_dims,
					 dnnl_s8, dnnl_ab));
	TRY(dnnl_memory_desc_init_by_tag(&bias_md, 2, bias_dims, dnnl_s32,
					 dnnl_ab));
	TRY(dnnl_memory_desc_init_by_tag(&dst_md, 2, dst_dims, dnnl_u8, dnnl_ab));
	TRY(dnnl_matmul_desc_init(&desc, &src_md, &weights_any_md, &bias_md,
				  &dst_md));
	TRY(dnnl_primitive_attr_create(&attr));
	TRY(dnnl_primitive_attr_set_output_scales(attr, (dnnl_dim_t)shape->n,
						  1 << 1, scales));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
						&src_zero_point));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
						&dst_zero_point));
	TRY(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
	TRY(dnnl_primitive_create(&matmul, pd));

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
			.matmul = matmul,
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
	dnnl_primitive_destroy(matmul);
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
