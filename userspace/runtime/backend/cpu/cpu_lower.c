// SPDX-License-Identifier: MIT
/*
 * The CPU lowering table. Fusions first (they need the plain ops), then
 * the layout pass (it moves integer activations to NHWC), then the
 * first-layer rewrite (it needs NHWC QConv and a Quantize8 producer).
 */
#include "cpu_lower.h"

const struct rt_pass rt_cpu_lowering[] = {
	{ "fuse-bias", rt_cpu_pass_fuse_bias },
	{ "fuse-activation", rt_cpu_pass_fuse_activation },
	{ "layout-nhwc", rt_cpu_pass_layout_nhwc },
	{ "first-layer-patches", rt_cpu_pass_first_layer_patches },
};

const size_t rt_cpu_lowering_count =
	sizeof(rt_cpu_lowering) / sizeof(rt_cpu_lowering[0]);
