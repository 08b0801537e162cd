/* SPDX-License-Identifier: MIT */
/*
 * The kernel table: every family's microkernels for one instruction set,
 * chosen once when the context's ISA is set (enpu_cpu_kernels_select),
 * the way XNNPACK fills its configs. Drivers call through
 * context->kernels and never switch on the ISA themselves.
 */
#ifndef ENPU_CPU_KERNELS_H
#define ENPU_CPU_KERNELS_H

#include "enpu_cpu.h"
#include "fmath_internal.h"
#include "kernels_internal.h"
#include "sgemm_internal.h"

struct enpu_gemm_kernel_info;

struct enpu_cpu_kernels {
	/* int8 */
	const struct enpu_gemm_kernel_info *gemm;
	enpu_dwconv_kernel dwconv;
	/* NULL where the ISA has none: the per-pixel kernel runs those. */
	enpu_dwconv_rows_kernel dwconv_rows;
	enpu_dwconv_rows_prepare dwconv_rows_prepare;
	enpu_pool_kernel max_pool;
	enpu_pool_kernel average_pool;
	enpu_eltwise_kernel add;
	enpu_eltwise_kernel mul;
	enpu_eltwise_kernel clamp;
	enpu_lookup_kernel lookup;
	/* float */
	const struct enpu_sgemm_kernel_info *sgemm;
	enpu_fdwconv_kernel fdwconv;
	/* NULL where the ISA has none: fdwconv runs those planes one by one. */
	enpu_fdwconv_blocked_kernel fdwconv_blocked;
	/* NULL where the ISA has none: the GEMM path runs those convs. */
	enpu_fconv_few_taps_kernel fconv_few_taps;
	const struct enpu_fmath_kernels *fmath;
};

/* Fills @k for @isa (never AUTO); ISAs without a kernel get the portable one. */
void enpu_cpu_kernels_select(enum enpu_cpu_isa isa, struct enpu_cpu_kernels *k);

#endif /* ENPU_CPU_KERNELS_H */
