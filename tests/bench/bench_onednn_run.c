// SPDX-License-Identifier: MIT
#include "bench.h"
#include "bench_onednn.h"

struct onednn_run {
	dnnl_primitive_t primitive;
	dnnl_stream_t stream;
	dnnl_exec_arg_t args[4];
};

static int run_onednn(void *argument)
{
	struct onednn_run *r = argument;

	if (dnnl_primitive_execute(r->primitive, r->stream, 4, r->args))
		return -1;
	return dnnl_stream_wait(r->stream) ? -1 : 0;
}

#define TRY(call) do { if ((call) != dnnl_success) goto out; } while (0)

dnnl_primitive_attr_t bench_onednn_attr(size_t channels, const float *scales)
{
	int32_t src_zero_point = BENCH_INPUT_ZERO_POINT;
	int32_t dst_zero_point = BENCH_OUTPUT_ZERO_POINT;
	dnnl_primitive_attr_t attr = NULL;

	TRY(dnnl_primitive_attr_create(&attr));
	TRY(dnnl_primitive_attr_set_output_scales(attr, (dnnl_dim_t)channels,
						  1 << 1, scales));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
						&src_zero_point));
	TRY(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
						&dst_zero_point));
	return attr;
out:
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return NULL;
}

double bench_onednn_time(dnnl_engine_t engine, dnnl_primitive_desc_t pd,
			 const struct bench_onednn_args *a, double min_seconds)
{
	const dnnl_memory_desc_t *packed_md =
		dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	dnnl_stream_t stream = NULL;
	dnnl_primitive_desc_t reorder_pd = NULL;
	dnnl_primitive_t primitive = NULL, reorder = NULL;
	dnnl_memory_t src = NULL, weights_plain = NULL, weights = NULL,
		      bias = NULL, dst = NULL;
	double seconds = -1.0;

	TRY(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
	TRY(dnnl_primitive_create(&primitive, pd));
	TRY(dnnl_memory_create(&src, a->src_md, engine, a->src));
	TRY(dnnl_memory_create(&weights_plain, a->weights_plain_md, engine,
			       a->weights_plain));
	TRY(dnnl_memory_create(&weights, packed_md, engine,
			       DNNL_MEMORY_ALLOCATE));
	TRY(dnnl_memory_create(&bias, a->bias_md, engine, a->bias));
	TRY(dnnl_memory_create(&dst, a->dst_md, engine, a->dst));
	TRY(dnnl_reorder_primitive_desc_create(&reorder_pd, a->weights_plain_md,
					       engine, packed_md, engine, NULL));
	TRY(dnnl_primitive_create(&reorder, reorder_pd));
	{
		dnnl_exec_arg_t reorder_args[2] = {
			{ DNNL_ARG_FROM, weights_plain },
			{ DNNL_ARG_TO, weights },
		};
		struct onednn_run run = {
			.primitive = primitive,
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
	dnnl_primitive_destroy(primitive);
	dnnl_memory_destroy(src);
	dnnl_memory_destroy(weights_plain);
	dnnl_memory_destroy(weights);
	dnnl_memory_destroy(bias);
	dnnl_memory_destroy(dst);
	if (stream)
		dnnl_stream_destroy(stream);
	return seconds;
}
