// SPDX-License-Identifier: MIT
/*
 * oneDNN (Debian's libdnnl, OpenMP build) doing the same work as our GEMM:
 * u8 activations with a zero point, s8 weights in oneDNN's own packed
 * layout (reordered once, like our packing), s32 bias, per-column output
 * scales, u8 output with a zero point (what ONNX Runtime produces).
 */
#include "bench.h"
#include "bench_onednn.h"

#include <stdlib.h>

void omp_set_num_threads(int threads);

#define TRY(call) do { if ((call) != dnnl_success) goto out; } while (0)

double bench_onednn(const struct gemm_shape *shape, int threads,
		    double min_seconds)
{
	dnnl_engine_t engine = NULL;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_memory_desc_t src_md, weights_any_md, weights_plain_md, bias_md,
			   dst_md;
	dnnl_matmul_desc_t desc;
	dnnl_dims_t src_dims = { (dnnl_dim_t)shape->m, (dnnl_dim_t)shape->k };
	dnnl_dims_t weight_dims = { (dnnl_dim_t)shape->k, (dnnl_dim_t)shape->n };
	dnnl_dims_t bias_dims = { 1, (dnnl_dim_t)shape->n };
	dnnl_dims_t dst_dims = { (dnnl_dim_t)shape->m, (dnnl_dim_t)shape->n };
	float *scales = malloc(shape->n * sizeof(float));
	uint8_t *a = malloc(shape->m * shape->k);
	int8_t *b = malloc(shape->k * shape->n);
	int32_t *bias_data = calloc(shape->n, sizeof(int32_t));
	uint8_t *c = malloc(shape->m * shape->n);
	double seconds = -1.0;

	if (!scales || !a || !b || !bias_data || !c)
		goto out;
	omp_set_num_threads(threads);
	for (size_t i = 0; i < shape->n; i++)
		scales[i] = (float)bench_output_scale(i, shape->k);
	bench_fill(a, shape->m * shape->k, b, shape->k * shape->n);

	TRY(dnnl_engine_create(&engine, dnnl_cpu, 0));
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
	attr = bench_onednn_attr(shape->n, scales);
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
