/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's own lowering: rewrites that exist because of how the
 * CPU kernels work, run after placement on the nodes the CPU runs
 * (docs/runtime.md, "CPU lowering"). Each is a pass of graph/passes.h's
 * form, in the order of rt_cpu_lowering[].
 */
#ifndef ENPU_RT_CPU_LOWER_H
#define ENPU_RT_CPU_LOWER_H

#include "passes.h"

/* MatMul + Add of a constant bias: the bias becomes an extra input of an
 * op declaring RT_OP_FUSES_BIAS (cpu_fuse.c). Needs bound defs. */
int rt_cpu_pass_fuse_bias(struct rt_graph *graph);
/* Relu / Clip after an op declaring RT_OP_FUSES_ACTIVATION (cpu_fuse.c). */
int rt_cpu_pass_fuse_activation(struct rt_graph *graph);
/* Integer activations stay NHWC between integer ops (cpu_layout.c). */
int rt_cpu_pass_layout_nhwc(struct rt_graph *graph);
/* A first convolution of <= 4 channels fed by Quantize8 becomes
 * QuantizePatches + a 1x1 QConv (cpu_patches.c). After the layout. */
int rt_cpu_pass_first_layer_patches(struct rt_graph *graph);

extern const struct rt_pass rt_cpu_lowering[];
extern const size_t rt_cpu_lowering_count;

#endif /* ENPU_RT_CPU_LOWER_H */
