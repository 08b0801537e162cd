// SPDX-License-Identifier: MIT
/*
 * i8mm GEMM microkernel: USDOT multiplies the uint8 activations by the int8
 * weights directly, saving the dotprod kernel's flip (gemm_neon_dot.h).
 * Compiled with -march=armv8.2-a+dotprod+i8mm; only called when
 * HWCAP2_I8MM is set.
 */
#define NEON_DOT_FLIP 0u
#define NEON_DOT(acc, a, b) vusdotq_s32(acc, a, b)
#include "gemm_neon_dot.h"

static void gemm_neon_i8mm(const struct enpu_gemm_tile *t)
{
	neon_dot_tile(t);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon_i8mm = {
	.kernel = gemm_neon_i8mm,
	.rows = NEON_DOT_ROWS,
	.columns = ENPU_GEMM_PANEL_COLUMNS,
};
