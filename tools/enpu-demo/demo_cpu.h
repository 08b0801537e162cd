/* SPDX-License-Identifier: MIT */
/*
 * Runs the demo network on the host with the CPU kernels of
 * userspace/runtime/cpu: the optimized path (weights packed once, the ISA
 * the context chose) or the scalar reference functions the device is
 * specified against. Host memory mirrors the job's BOs: one allocation per
 * enum demo_buffer, tensors at the same offsets.
 */
#ifndef ENPU_DEMO_CPU_H
#define ENPU_DEMO_CPU_H

#include "demo_network.h"

/* Packed weights for the optimized path, one slot per layer. */
struct demo_cpu_plan {
	enpu_cpu_conv_weights *conv[DEMO_MAX_LAYERS];
	enpu_cpu_gemm_weights *fc[DEMO_MAX_LAYERS];
};

int demo_cpu_plan_create(enpu_cpu_context *cpu,
			 const struct demo_network *network,
			 struct demo_cpu_plan *plan, size_t error_size,
			 char *error);
void demo_cpu_plan_release(struct demo_cpu_plan *plan);

/*
 * Runs layer index with the optimized kernels when plan is given, else
 * with the reference kernels; memory[b] is the host copy of buffer b.
 */
int demo_cpu_run_layer(enpu_cpu_context *cpu,
		       const struct demo_network *network,
		       const struct demo_cpu_plan *plan, size_t index,
		       unsigned char *const memory[DEMO_BUFFER_COUNT],
		       size_t error_size, char *error);
/* Every layer in order. */
int demo_cpu_run(enpu_cpu_context *cpu, const struct demo_network *network,
		 const struct demo_cpu_plan *plan,
		 unsigned char *const memory[DEMO_BUFFER_COUNT],
		 size_t error_size, char *error);

#endif /* ENPU_DEMO_CPU_H */
