// SPDX-License-Identifier: MIT
/*
 * AVX2 + FMA float GEMM microkernel, 6 x 16: 12 ymm accumulators, two B
 * vectors and one broadcast per row and k. Rows past mr alias row 0; a
 * column tail goes through a stack row. A tail panel of at most 8
 * columns runs the same loop on one B vector (6 FMAs a k, not 12 with
 * half of them dropped): 14x14 planes end in one of 4 columns.
 */
#include <immintrin.h>
#include <string.h>

#include "avx2_mask.h"
#include "hsum_x86.h"
#include "sgemm_internal.h"

#define MR 6
#define NR 16
/* B rows a one-row product prefetches ahead: 4 KB of a packed panel. */
#define GEMV_AHEAD 64


/*
 * The body of both entry points: B rows at b + kk * ldb, or at
 * b + b_offsets[kk]; inlined into each with the other NULL, so the
 * choice costs nothing.
 */
static inline __attribute__((always_inline)) void
body(size_t mr, size_t nr, size_t k, const float *a, size_t lda,
     const float *b, size_t ldb, const ptrdiff_t *b_offsets, float *c,
     size_t ldc, const float *bias, int bias_rows, const float *clamp,
     const int half)
{
	const float *a0 = a, *a1 = mr > 1 ? a0 + lda : a0;
	const float *a2 = mr > 2 ? a1 + lda : a1, *a3 = mr > 3 ? a2 + lda : a2;
	const float *a4 = mr > 4 ? a3 + lda : a3, *a5 = mr > 5 ? a4 + lda : a4;
	__m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00;
	__m256 c20 = c00, c21 = c00, c30 = c00, c31 = c00;
	__m256 c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	__m256 acc[MR][2];

	/*
	 * One row (a batch-1 Gemm): 2 FMAs a k instead of 12 on aliased
	 * rows, B streamed and prefetched GEMV_AHEAD rows ahead (the stream
	 * prefetcher stops at each 4 KB page). The same sum in the same
	 * order.
	 */
	if (mr == 1) {
		for (size_t kk = 0; kk < k; kk++) {
			const float *bk = b_offsets ? b + b_offsets[kk] :
					  b + kk * ldb;
			__m256 v = _mm256_broadcast_ss(a0 + kk);

			_mm_prefetch((const char *)(bk + GEMV_AHEAD * ldb),
				     _MM_HINT_T0);
			c00 = _mm256_fmadd_ps(v, _mm256_loadu_ps(bk), c00);
			if (!half)
				c01 = _mm256_fmadd_ps(v, _mm256_loadu_ps(bk + 8),
						      c01);
		}
		k = 0;
	}
	for (size_t kk = 0; kk < k; kk++) {
		const float *bk = b_offsets ? b + b_offsets[kk] :
				  b + kk * ldb;

		__m256 b0, b1;
		__m256 v;

		b0 = _mm256_loadu_ps(bk);
		if (half) {
#define ROW(i)								\
			v = _mm256_broadcast_ss(a##i + kk);		\
			c##i##0 = _mm256_fmadd_ps(v, b0, c##i##0);
			ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
			continue;
		}
		b1 = _mm256_loadu_ps(bk + 8);
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
	if (nr <= NR / 2)
		body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias,
		     bias_rows, clamp, 1);
	else
		body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias,
		     bias_rows, clamp, 0);
}

static void sgemm_avx2_indirect(size_t mr, size_t nr, size_t k,
		const float *a, size_t lda, const float *b,
		const ptrdiff_t *b_offsets, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	if (nr <= NR / 2)
		body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias,
		     bias_rows, clamp, 1);
	else
		body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias,
		     bias_rows, clamp, 0);
}

/* Sum of the 8 lanes. */
static inline float lanes_sum(__m256 v)
{
	return enpu_hsum128(_mm_add_ps(_mm256_castps256_ps128(v),
				       _mm256_extractf128_ps(v, 1)));
}

/*
 * A thin column (sgemm_internal.h): four rows at a time, each a dot
 * product along k in 8-float vectors (the last one a masked load, which
 * reads nothing past k), so a 7x7 plane's 49th output column costs k / 8
 * FMAs a row instead of a whole 16-column panel's 2 k (320->1280 at 7x7:
 * 4 panels of FMAs for 49 columns, 3 and an eighth this way).
 */
static void column_avx2(size_t m, size_t k, const float *a, size_t lda,
			const float *x, float *c, size_t ldc,
			const float *bias, int bias_rows, const float *clamp)
{
	for (size_t r = 0; r < m; r += 4) {
		size_t rows = m - r < 4 ? m - r : 4;
		const float *row[4];
		__m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
		size_t kk = 0;
		enpu_sgemm_column_rows(a, lda, r, rows, row);
		for (; kk + 8 <= k; kk += 8) {
			__m256 v = _mm256_loadu_ps(x + kk);

			s0 = _mm256_fmadd_ps(_mm256_loadu_ps(row[0] + kk), v, s0);
			s1 = _mm256_fmadd_ps(_mm256_loadu_ps(row[1] + kk), v, s1);
			s2 = _mm256_fmadd_ps(_mm256_loadu_ps(row[2] + kk), v, s2);
			s3 = _mm256_fmadd_ps(_mm256_loadu_ps(row[3] + kk), v, s3);
		}
		if (kk < k) {
			__m256i in = enpu_mask8(k - kk);
			__m256 v = _mm256_maskload_ps(x + kk, in);

			s0 = _mm256_fmadd_ps(_mm256_maskload_ps(row[0] + kk, in), v, s0);
			s1 = _mm256_fmadd_ps(_mm256_maskload_ps(row[1] + kk, in), v, s1);
			s2 = _mm256_fmadd_ps(_mm256_maskload_ps(row[2] + kk, in), v, s2);
			s3 = _mm256_fmadd_ps(_mm256_maskload_ps(row[3] + kk, in), v, s3);
		}
		{
			const float out[4] = { lanes_sum(s0), lanes_sum(s1),
					       lanes_sum(s2), lanes_sum(s3) };

			enpu_sgemm_column_store(out, rows, r, c, ldc, bias,
						bias_rows, clamp);
		}
	}
}

const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_avx2 = {
	sgemm_avx2, sgemm_avx2_indirect, MR, NR, column_avx2, NR / 2, 2, NULL,
	{ { NULL, 0, 0 } },
};
