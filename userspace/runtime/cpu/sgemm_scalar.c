// SPDX-License-Identifier: MIT
/* Portable float GEMM microkernel, 4 x 8 (sgemm_internal.h). */
#include "sgemm_internal.h"

#define MR 4
#define NR 8

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
	float acc[MR][NR] = { { 0 } };

	for (size_t kk = 0; kk < k; kk++)
		for (size_t r = 0; r < mr; r++) {
			float av = a[r * lda + kk];

			for (size_t j = 0; j < NR; j++)
				acc[r][j] += av * (b_offsets ?
						  b + b_offsets[kk] :
						  b + kk * ldb)[j];
		}
	for (size_t r = 0; r < mr; r++)
		for (size_t j = 0; j < nr; j++) {
			float v = acc[r][j];

			if (bias)
				v += bias_rows ? bias[r] : bias[j];
			if (clamp) {
				v = v < clamp[0] ? clamp[0] : v;
				v = v > clamp[1] ? clamp[1] : v;
			}
			c[r * ldc + j] = v;
		}
}

static void sgemm_scalar(size_t mr, size_t nr, size_t k, const float *a,
		size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias, bias_rows,
	     clamp);
}

static void sgemm_scalar_indirect(size_t mr, size_t nr, size_t k,
		const float *a, size_t lda, const float *b,
		const ptrdiff_t *b_offsets, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias, bias_rows,
	     clamp);
}

const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_scalar = {
	sgemm_scalar, sgemm_scalar_indirect, MR, NR, NULL, 0, 0, NULL,
	{ { NULL, 0, 0 } },
};
