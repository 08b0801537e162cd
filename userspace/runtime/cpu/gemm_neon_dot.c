// SPDX-License-Identifier: MIT
/*
 * ARMv8.2 dotprod GEMM microkernel: SDOT on int8 x int8, the activations
 * flipped from uint8 to int8 (gemm_neon_dot.h). Compiled with
 * -march=armv8.2-a+dotprod; only called when HWCAP_ASIMDDP is set.
 */
#define NEON_DOT_FLIP 0x80808080u
#define NEON_DOT(acc, a, b) vdotq_s32(acc, vreinterpretq_s8_u8(a), b)
#include "gemm_neon_dot.h"

static void gemm_neon_dot(const struct enpu_gemm_tile *t)
{
	neon_dot_tile(t);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon_dot = {
	.kernel = gemm_neon_dot,
	.rows = NEON_DOT_ROWS,
	.columns = ENPU_GEMM_PANEL_COLUMNS,
};
