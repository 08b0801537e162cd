// SPDX-License-Identifier: MIT
/*
 * AVX2 + FMA float GEMM microkernel, 6 x 16: 12 ymm accumulators, two B
 * vectors and one broadcast per row and k. Rows past mr alias row 0; a
 * column tail goes through a stack row.
 */
#include <immintrin.h>
#include <string.h>

#include "sgemm_internal.h"

#define MR 6
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
	const float *a0 = a, *a1 = mr > 1 ? a0 + lda : a0;
	const float *a2 = mr > 2 ? a1 + lda : a1, *a3 = mr > 3 ? a2 + lda : a2;
	const float *a4 = mr > 4 ? a3 + lda : a3, *a5 = mr > 5 ? a4 + lda : a4;
	__m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00;
	__m256 c20 = c00, c21 = c00, c30 = c00, c31 = c00;
	__m256 c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	__m256 acc[MR][2];

	for (size_t kk = 0; kk < k; kk++) {
		const float *bk = b_offsets ? b + b_offsets[kk] :
				  b + kk * ldb;

		__m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8);
		__m256 v;

#define ROW(i)								\
		v = _mm256_broadcast_ss(a##i + kk);			\
		c##i##0 = _mm256_fmadd_ps(v, b0, c##i##0);		\
		c##i##1 = _mm256_fmadd_ps(v, b1, c##i##1);
		ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
	}
	acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
	acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
	acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
	for (size_t r = 0; r < mr; r++) {
		__m256 v0 = acc[r][0], v1 = acc[r][1];
		float row[NR];

		if (bias && bias_rows) {
			__m256 br = _mm256_set1_ps(bias[r]);

			v0 = _mm256_add_ps(v0, br);
			v1 = _mm256_add_ps(v1, br);
		} else if (bias) {
			float padded[NR] = { 0 };

			memcpy(padded, bias, nr * sizeof(float));
			v0 = _mm256_add_ps(v0, _mm256_loadu_ps(padded));
			v1 = _mm256_add_ps(v1, _mm256_loadu_ps(padded + 8));
		}
		if (clamp) {
			__m256 lo = _mm256_set1_ps(clamp[0]);
			__m256 hi = _mm256_set1_ps(clamp[1]);

			/* max(lo, x), min(hi, x): NaN in x comes out. */
			v0 = _mm256_min_ps(hi, _mm256_max_ps(lo, v0));
			v1 = _mm256_min_ps(hi, _mm256_max_ps(lo, v1));
		}
		if (nr == NR) {
			_mm256_storeu_ps(c + r * ldc, v0);
			_mm256_storeu_ps(c + r * ldc + 8, v1);
		} else {
			_mm256_storeu_ps(row, v0);
			_mm256_storeu_ps(row + 8, v1);
			memcpy(c + r * ldc, row, nr * sizeof(float));
		}
	}
}

static void sgemm_avx2(size_t mr, size_t nr, size_t k, const float *a,
		size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias, bias_rows,
	     clamp);
}

static void sgemm_avx2_indirect(size_t mr, size_t nr, size_t k,
		const float *a, size_t lda, const float *b,
		const ptrdiff_t *b_offsets, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias, bias_rows,
	     clamp);
}

const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_avx2 = {
	sgemm_avx2, sgemm_avx2_indirect, MR, NR, NULL, 0, 0, NULL,
	{ { NULL, 0, 0 } },
};
