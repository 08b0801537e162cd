// SPDX-License-Identifier: MIT
/*
 * The one place that maps an instruction set to its kernels
 * (kernels.h). x86-64 builds carry the AVX2 and AVX-512 files, arm64
 * builds the NEON ones; an ISA without a kernel of some family (there is
 * no AVX-512 float depthwise distinct from AVX2 on arm64, say) falls
 * back to the portable one.
 */
#include "cpu_internal.h"
#include "kernels.h"

static const struct enpu_cpu_kernels portable = {
	.gemm = &enpu_gemm_kernel_scalar,
	.dwconv = enpu_dwconv_scalar,
	.max_pool = enpu_max_pool_scalar,
	.average_pool = enpu_average_pool_scalar,
	.add = enpu_add_scalar,
	.mul = enpu_mul_scalar,
	.clamp = enpu_clamp_scalar,
	.lookup = enpu_lookup_scalar,
	.sgemm = &enpu_sgemm_kernel_scalar,
	.fdwconv = enpu_fdwconv_scalar,
	.fmath = &enpu_fmath_scalar,
};

void enpu_cpu_kernels_select(enum enpu_cpu_isa isa, struct enpu_cpu_kernels *k)
{
	*k = portable;
	switch (isa) {
#if defined(__x86_64__)
	case ENPU_CPU_ISA_AVX512_VNNI:
		k->gemm = &enpu_gemm_kernel_avx512_vnni;
		k->dwconv = enpu_dwconv_avx512_vnni;
		k->dwconv_rows = enpu_dwconv_rows_avx512_vnni;
		k->dwconv_rows_prepare = enpu_dwconv_rows_prepare_avx512_vnni;
		k->max_pool = enpu_max_pool_avx512;
		k->average_pool = enpu_average_pool_avx512;
		k->add = enpu_add_avx512;
		k->mul = enpu_mul_avx512;
		k->clamp = enpu_clamp_avx512;
		if (enpu_cpu_detect_avx512_vbmi())
			k->lookup = enpu_lookup_avx512_vbmi;
		k->sgemm = &enpu_sgemm_kernel_avx512;
		k->fdwconv = enpu_fdwconv_avx512;
		k->fconv_few_taps = enpu_fconv_few_taps_avx512;
		k->fmath = &enpu_fmath_avx512;
		break;
	case ENPU_CPU_ISA_AVX2:
		k->gemm = &enpu_gemm_kernel_avx2;
		k->dwconv = enpu_dwconv_avx2;
		k->max_pool = enpu_max_pool_avx2;
		k->average_pool = enpu_average_pool_avx2;
		k->add = enpu_add_avx2;
		k->mul = enpu_mul_avx2;
		k->clamp = enpu_clamp_avx2;
		k->sgemm = &enpu_sgemm_kernel_avx2;
		k->fdwconv = enpu_fdwconv_avx2;
		k->fdwconv_blocked = enpu_fdwconv_blocked_avx2;
		k->fconv_few_taps = enpu_fconv_few_taps_avx2;
		k->fmath = &enpu_fmath_avx2;
		break;
#endif
#if defined(__aarch64__)
	case ENPU_CPU_ISA_NEON_I8MM:
		k->gemm = &enpu_gemm_kernel_neon_i8mm;
		goto neon;
	case ENPU_CPU_ISA_NEON_DOTPROD:
		k->gemm = &enpu_gemm_kernel_neon_dot;
		goto neon;
	case ENPU_CPU_ISA_NEON:
		k->gemm = &enpu_gemm_kernel_neon;
neon:
		/* Loads bound these families: one NEON kernel each. */
		k->dwconv = enpu_dwconv_neon;
		k->max_pool = enpu_max_pool_neon;
		k->average_pool = enpu_average_pool_neon;
		k->add = enpu_add_neon;
		k->mul = enpu_mul_neon;
		k->clamp = enpu_clamp_neon;
		k->sgemm = &enpu_sgemm_kernel_neon;
		k->fdwconv = enpu_fdwconv_neon;
		k->fmath = &enpu_fmath_neon;
		break;
#endif
	default:
		break;
	}
}
