/* SPDX-License-Identifier: MIT */
/*
 * What the two oneDNN benchmarks (the u8 matmul and the u8 convolution)
 * share once each has described its primitive: the quantization attributes
 * and the timed run with the weights reordered once.
 */
#ifndef ENPU_BENCH_ONEDNN_H
#define ENPU_BENCH_ONEDNN_H

#include <oneapi/dnnl/dnnl.h>
#include <stddef.h>

/*
 * Attributes of a u8 x s8 -> u8 primitive: one output scale per output
 * channel (mask over dimension 1) and the zero points of bench.h. NULL on
 * error.
 */
dnnl_primitive_attr_t bench_onednn_attr(size_t channels, const float *scales);

/* A primitive's four arguments: descriptors and the caller's buffers. */
struct bench_onednn_args {
	const dnnl_memory_desc_t *src_md, *weights_plain_md, *bias_md, *dst_md;
	void *src, *weights_plain, *bias, *dst;
};

/*
 * Creates the primitive of pd (whose weights descriptor is
 * dnnl_format_tag_any), reorders the plain weights once into the layout
 * oneDNN chose, as our kernels pack theirs once, and times the primitive
 * with bench_time(). Returns seconds per call, or < 0 on error.
 */
double bench_onednn_time(dnnl_engine_t engine, dnnl_primitive_desc_t pd,
			 const struct bench_onednn_args *args,
			 double min_seconds);

#endif /* ENPU_BENCH_ONEDNN_H */
