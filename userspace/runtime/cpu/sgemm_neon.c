// SPDX-License-Identifier: MIT
/*
 * NEON float GEMM microkernel, 4 x 16: 16 q accumulators, four B vectors
 * and one broadcast per row and k (FMLA). Rows past mr alias row 0; a
 * column tail goes through a stack row.
 */
#include <arm_neon.h>
#include <string.h>

#include "sgemm_internal.h"

#define MR 4
#define NR 16

/*
 * The body of both entry points: B rows at b + kk * ldb, or at
 * b + b_offsets[kk]; inlined into each with the other NULL, so the
 * choice costs nothing.
 */
static inline __attribute__((always_inline)) void
body(size_t mr, size_t nr, size_t k, const float *a, size_t lda,
     const float *b, size_t ldb, const ptrdiff_t *b_offsets, float *c,
     size_t ldc, const float *bias, int bias_rows, const float *clamp)
{
	const float *rows[MR];
	float32x4_t acc[MR][4];

	rows[0] = a;
	for (size_t r = 1; r < MR; r++)
		rows[r] = r < mr ? rows[r - 1] + lda : rows[r - 1];
	for (size_t r = 0; r < MR; r++)
		for (int q = 0; q < 4; q++)
			acc[r][q] = vdupq_n_f32(0);
	for (size_t kk = 0; kk < k; kk++) {
		const float *bk = b_offsets ? b + b_offsets[kk] :
				  b + kk * ldb;

		float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4);
		float32x4_t b2 = vld1q_f32(bk + 8), b3 = vld1q_f32(bk + 12);

		for (size_t r = 0; r < MR; r++) {
			float32x4_t v = vdupq_n_f32(rows[r][kk]);

			acc[r][0] = vfmaq_f32(acc[r][0], v, b0);
			acc[r][1] = vfmaq_f32(acc[r][1], v, b1);
			acc[r][2] = vfmaq_f32(acc[r][2], v, b2);
			acc[r][3] = vfmaq_f32(acc[r][3], v, b3);
		}
	}
	for (size_t r = 0; r < mr; r++) {
		float row[NR], padded[NR] = { 0 };

		if (bias && !bias_rows)
			memcpy(padded, bias, nr * sizeof(float));
		for (int q = 0; q < 4; q++) {
			float32x4_t v = acc[r][q];

			if (bias)
				v = vaddq_f32(v, bias_rows ? vdupq_n_f32(bias[r]) :
					      vld1q_f32(padded + 4 * q));
			if (clamp) {
				float32x4_t lo = vdupq_n_f32(clamp[0]);
				float32x4_t hi = vdupq_n_f32(clamp[1]);

				/* Selects keep a NaN accumulator. */
				v = vbslq_f32(vcltq_f32(v, lo), lo, v);
				v = vbslq_f32(vcgtq_f32(v, hi), hi, v);
			}
			vst1q_f32(row + 4 * q, v);
		}
		memcpy(c + r * ldc, row, nr * sizeof(float));
	}
}

static void sgemm_neon(size_t mr, size_t nr, size_t k, const float *a,
		size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias, bias_rows,
	     clamp);
}

static void sgemm_neon_indirect(size_t mr, size_t nr, size_t k,
		const float *a, size_t lda, const float *b,
		const ptrdiff_t *b_offsets, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias, bias_rows,
	     clamp);
}

const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_neon = {
	sgemm_neon, sgemm_neon_indirect, MR, NR, NULL, 0, 0, NULL,
	{ { NULL, 0, 0 } },
};
