// SPDX-License-Identifier: MIT
/*
 * AVX-512 float GEMM microkernel, 8 x 32: 16 zmm accumulators, two B
 * vectors per k and one embedded broadcast of A per row and k (the FMA's
 * memory operand), so the loop is bound by the two FMA ports. Rows past
 * mr alias row 0 (computed, not stored); the column tail is a masked
 * store.
 */
#include <immintrin.h>

#include "hsum_x86.h"
#include "sgemm_internal.h"
#include "avx512_mask.h"

#define MR 8
#define NR 32
/* B rows a one-row product prefetches ahead: 4 KB of a packed panel. */
#define GEMV_AHEAD 32

/*
 * Columns kk..kk + 15 of the 8 rows after this block's (the driver's next
 * block of A): one line of each per 16 k, so over the block's K the next
 * block arrives whole. A convolution's weights (A) are 8 rows of K read
 * once per block; their next rows are a new stretch of memory the
 * stream prefetcher meets only when they are read (320->1280 at 7x7:
 * 1.6 MB of weights for 49 columns). Past the end of A the prefetch is
 * a hint that never faults.
 */
static inline void prefetch_next_block(const float *a0, size_t lda, size_t kk)
{
	const float *next = a0 + MR * lda + kk;

	for (int r = 0; r < MR; r++)
		_mm_prefetch((const char *)(next + r * lda), _MM_HINT_T0);
}

/*
 * One row's 32 results out: the clamp, max(lo, x) then min(hi, x) so
 * that NaN in x comes out, and a store under the panel's lane masks.
 */
static inline void store_row(float *c, __m512 v0, __m512 v1, __mmask16 m0,
			     __mmask16 m1, const float *clamp)
{
	if (clamp) {
		__m512 lo = _mm512_set1_ps(clamp[0]);
		__m512 hi = _mm512_set1_ps(clamp[1]);

		v0 = _mm512_min_ps(hi, _mm512_max_ps(lo, v0));
		v1 = _mm512_min_ps(hi, _mm512_max_ps(lo, v1));
	}
	_mm512_mask_storeu_ps(c, m0, v0);
	_mm512_mask_storeu_ps(c + 16, m1, v1);
}

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
	const float *a6 = mr > 6 ? a5 + lda : a5, *a7 = mr > 7 ? a6 + lda : a6;
	__m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00;
	__m512 c20 = c00, c21 = c00, c30 = c00, c31 = c00;
	__m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	__m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00;
	__m512 acc[MR][2];
	__mmask16 m0, m1;

	/*
	 * One row (a matrix-vector product: a batch-1 Gemm): two FMAs per k
	 * instead of sixteen on aliased rows, so the loop streams B at the
	 * rate memory gives it. Same order of the sum. B (packed: one
	 * sequential stream of all the weights) is prefetched GEMV_AHEAD
	 * rows ahead: the hardware's stream prefetcher stops at every 4 KB
	 * page and starts again only after misses in the next one.
	 */
	if (mr == 1) {
		for (size_t kk = 0; kk < k; kk++) {
			const float *bk = b_offsets ? b + b_offsets[kk] :
				  b + kk * ldb;
			__m512 v = _mm512_set1_ps(a0[kk]);

			_mm_prefetch((const char *)(bk + GEMV_AHEAD * ldb),
				     _MM_HINT_T0);
			_mm_prefetch((const char *)(bk + GEMV_AHEAD * ldb + 16),
				     _MM_HINT_T0);
			c00 = _mm512_fmadd_ps(v, _mm512_loadu_ps(bk), c00);
			c01 = _mm512_fmadd_ps(v, _mm512_loadu_ps(bk + 16), c01);
		}
		k = 0;
	}
	/*
	 * At most 16 columns (a tail panel): one B vector per k, half the
	 * FMAs (the second half of the panel is dropped anyway).
	 */
	if (nr <= 16) {
		for (size_t kk = 0; kk < k; kk++) {
			const float *bk = b_offsets ? b + b_offsets[kk] :
					  b + kk * ldb;
			__m512 b0 = _mm512_loadu_ps(bk);

			c00 = _mm512_fmadd_ps(_mm512_set1_ps(a0[kk]), b0, c00);
			c10 = _mm512_fmadd_ps(_mm512_set1_ps(a1[kk]), b0, c10);
			c20 = _mm512_fmadd_ps(_mm512_set1_ps(a2[kk]), b0, c20);
			c30 = _mm512_fmadd_ps(_mm512_set1_ps(a3[kk]), b0, c30);
			c40 = _mm512_fmadd_ps(_mm512_set1_ps(a4[kk]), b0, c40);
			c50 = _mm512_fmadd_ps(_mm512_set1_ps(a5[kk]), b0, c50);
			c60 = _mm512_fmadd_ps(_mm512_set1_ps(a6[kk]), b0, c60);
			c70 = _mm512_fmadd_ps(_mm512_set1_ps(a7[kk]), b0, c70);
		}
		k = 0;
	}
	for (size_t kk = 0; kk < k; kk++) {
		const float *bk = b_offsets ? b + b_offsets[kk] :
				  b + kk * ldb;
		__m512 b0, b1;

		if (!(kk & 15))
			prefetch_next_block(a0, lda, kk);
		b0 = _mm512_loadu_ps(bk);
		b1 = _mm512_loadu_ps(bk + 16);
		__m512 v;

#define ROW(i)								\
		v = _mm512_set1_ps(a##i[kk]);				\
		c##i##0 = _mm512_fmadd_ps(v, b0, c##i##0);		\
		c##i##1 = _mm512_fmadd_ps(v, b1, c##i##1);
		ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7)
#undef ROW
	}
	acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
	acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
	acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
	acc[6][0] = c60; acc[6][1] = c61; acc[7][0] = c70; acc[7][1] = c71;
	m0 = enpu_mask16(nr);
	m1 = nr <= 16 ? 0 : enpu_mask16(nr - 16);
	for (size_t r = 0; r < mr; r++) {
		__m512 v0 = acc[r][0], v1 = acc[r][1];

		if (bias && bias_rows) {
			__m512 br = _mm512_set1_ps(bias[r]);

			v0 = _mm512_add_ps(v0, br);
			v1 = _mm512_add_ps(v1, br);
		} else if (bias) {
			v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, bias));
			v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, bias + 16));
		}
		store_row(c + r * ldc, v0, v1, m0, m1, clamp);
	}
}

static void sgemm_avx512(size_t mr, size_t nr, size_t k, const float *a,
		size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, ldb, NULL, c, ldc, bias, bias_rows,
	     clamp);
}

static void sgemm_avx512_indirect(size_t mr, size_t nr, size_t k,
		const float *a, size_t lda, const float *b,
		const ptrdiff_t *b_offsets, float *c, size_t ldc,
		const float *bias, int bias_rows, const float *clamp)
{
	body(mr, nr, k, a, lda, b, 0, b_offsets, c, ldc, bias, bias_rows,
	     clamp);
}

/*
 * A full panel and a tail of at most 16 columns (sgemm_internal.h), 8 x 48:
 * 24 accumulators, three B vectors per k (the third under the tail's
 * mask) and one broadcast of A per row and k for all three, so a 7x7
 * plane's 49 columns cost 11 loads per 24 FMAs instead of 10 per 16 in
 * the panel and 9 per 8 in a tail panel of their own.
 */
static void sgemm_avx512_wide(size_t mr, size_t nr, size_t k, const float *a,
			      size_t lda, const float *b, size_t ldb,
			      const float *b2, size_t ldb2, float *c,
			      size_t ldc, const float *bias, int bias_rows,
			      const float *clamp)
{
	const float *a0 = a, *a1 = mr > 1 ? a0 + lda : a0;
	const float *a2 = mr > 2 ? a1 + lda : a1, *a3 = mr > 3 ? a2 + lda : a2;
	const float *a4 = mr > 4 ? a3 + lda : a3, *a5 = mr > 5 ? a4 + lda : a4;
	const float *a6 = mr > 6 ? a5 + lda : a5, *a7 = mr > 7 ? a6 + lda : a6;
	__mmask16 m2 = enpu_mask16(nr - NR);
	__m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00;
	__m512 c10 = c00, c11 = c00, c12 = c00, c20 = c00, c21 = c00;
	__m512 c22 = c00, c30 = c00, c31 = c00, c32 = c00, c40 = c00;
	__m512 c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00;
	__m512 c60 = c00, c61 = c00, c62 = c00, c70 = c00, c71 = c00;
	__m512 c72 = c00;
	__m512 acc[MR][3];

	for (size_t kk = 0; kk < k; kk++) {
		const float *bk = b + kk * ldb;
		__m512 b0, b1, bt, v;

		if (!(kk & 15))
			prefetch_next_block(a0, lda, kk);
		b0 = _mm512_loadu_ps(bk);
		b1 = _mm512_loadu_ps(bk + 16);
		bt = _mm512_maskz_loadu_ps(m2, b2 + kk * ldb2);

#define ROW3(i) do {						\
		v = _mm512_set1_ps(a##i[kk]);				\
		c##i##0 = _mm512_fmadd_ps(v, b0, c##i##0);		\
		c##i##1 = _mm512_fmadd_ps(v, b1, c##i##1);		\
		c##i##2 = _mm512_fmadd_ps(v, bt, c##i##2);		\
	} while (0)
		ROW3(0);
		ROW3(1);
		ROW3(2);
		ROW3(3);
		ROW3(4);
		ROW3(5);
		ROW3(6);
		ROW3(7);
#undef ROW3
	}
	acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02;
	acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12;
	acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22;
	acc[3][0] = c30; acc[3][1] = c31; acc[3][2] = c32;
	acc[4][0] = c40; acc[4][1] = c41; acc[4][2] = c42;
	acc[5][0] = c50; acc[5][1] = c51; acc[5][2] = c52;
	acc[6][0] = c60; acc[6][1] = c61; acc[6][2] = c62;
	acc[7][0] = c70; acc[7][1] = c71; acc[7][2] = c72;
	for (size_t r = 0; r < mr; r++) {
		__m512 v[3] = { acc[r][0], acc[r][1], acc[r][2] };
		__mmask16 m[3] = { 0xffff, 0xffff, m2 };

		for (int q = 0; q < 3; q++) {
			if (bias) {
				__m512 bq = bias_rows ? _mm512_set1_ps(bias[r]) :
					    _mm512_maskz_loadu_ps(m[q],
								  bias + 16 * q);

				v[q] = _mm512_add_ps(v[q], bq);
			}
			if (clamp) {
				/* max(lo, x), min(hi, x): NaN comes out. */
				v[q] = _mm512_max_ps(_mm512_set1_ps(clamp[0]),
						     v[q]);
				v[q] = _mm512_min_ps(_mm512_set1_ps(clamp[1]),
						     v[q]);
			}
			_mm512_mask_storeu_ps(c + r * ldc + 16 * q, m[q], v[q]);
		}
	}
}

/* Sum of the 16 lanes. */
static inline float lanes_sum(__m512 v)
{
	__m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
				 _mm512_extractf32x8_ps(v, 1));
	return enpu_hsum128(_mm_add_ps(_mm256_castps256_ps128(h),
				       _mm256_extractf128_ps(h, 1)));
}

/*
 * A thin column (sgemm_internal.h): four rows at a time, each a dot
 * product along k in 16-float vectors (the last one masked), so a
 * 7x7-plane convolution's 49th output column costs k / 16 FMAs a row,
 * not the k of a vector with one lane in use.
 */
static void column_avx512(size_t m, size_t k, const float *a, size_t lda,
			  const float *x, float *c, size_t ldc,
			  const float *bias, int bias_rows, const float *clamp)
{
	size_t r = 0;

	for (; r < m; r += 4) {
		size_t rows = m - r < 4 ? m - r : 4;
		const float *row[4];
		__m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
		enpu_sgemm_column_rows(a, lda, r, rows, row);

		for (size_t kk = 0; kk < k; kk += 16) {
			__mmask16 m16 = enpu_mask16(k - kk);
			__m512 v = _mm512_maskz_loadu_ps(m16, x + kk);

			s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m16, row[0] + kk), v, s0);
			s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m16, row[1] + kk), v, s1);
			s2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m16, row[2] + kk), v, s2);
			s3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m16, row[3] + kk), v, s3);
		}
		{
			const float out[4] = { lanes_sum(s0), lanes_sum(s1),
					       lanes_sum(s2), lanes_sum(s3) };

			enpu_sgemm_column_store(out, rows, r, c, ldc, bias,
						bias_rows, clamp);
		}
	}
}

/*
 * Blocks of rows x 32 over B rows by offset (sgemm_internal.h): 2 x rows
 * accumulators, two B vectors and one broadcast per row and k, with A
 * packed so a k's broadcasts come from one line. The convolution's
 * in-place path (fconv.c) runs its output channels through them in
 * blocks of 14, 12 and 8 rows. k runs two steps per iteration: over a
 * band of a 3x3 convolution (K = 288, 576, 1152, B rows 66 floats
 * apart, from L2) the 12-row kernel went 158-161 -> 173-178 GFLOPS of
 * about 212, the 14-row one reached 180, the 8-row one 150 -> 152-167
 * (one thread, scratch loop; the one-step loop spent its issue slots on
 * the offset load and the branch of every step).
 */
static inline __attribute__((always_inline)) void
tall_body(const size_t rows, size_t mr, size_t nr, size_t k, const float *a,
	  const float *b, const ptrdiff_t *b_offsets, float *c, size_t ldc,
	  const float *bias, const float *clamp)
{
	__m512 acc[14][2];
	__mmask16 m0 = enpu_mask16(nr);
	__mmask16 m1 = nr <= 16 ? 0 : enpu_mask16(nr - 16);
	size_t kk = 0;

#pragma GCC unroll 14
	for (size_t r = 0; r < rows; r++) {
		acc[r][0] = _mm512_setzero_ps();
		acc[r][1] = acc[r][0];
	}
#define TALL_STEP(kq) do {						\
		const float *bk = b + b_offsets[kq];			\
		__m512 b0 = _mm512_loadu_ps(bk);			\
		__m512 b1 = _mm512_loadu_ps(bk + 16);			\
									\
		_Pragma("GCC unroll 14")				\
		for (size_t r = 0; r < rows; r++) {			\
			__m512 v = _mm512_set1_ps(a[(kq) * rows + r]);	\
									\
			acc[r][0] = _mm512_fmadd_ps(v, b0, acc[r][0]);	\
			acc[r][1] = _mm512_fmadd_ps(v, b1, acc[r][1]);	\
		}							\
	} while (0)
	for (; kk + 2 <= k; kk += 2) {
		TALL_STEP(kk);
		TALL_STEP(kk + 1);
	}
	if (kk < k)
		TALL_STEP(kk);
#undef TALL_STEP
#pragma GCC unroll 14
	for (size_t r = 0; r < rows; r++) {
		__m512 v0 = acc[r][0], v1 = acc[r][1];

		if (r >= mr)
			break;
		if (bias) {
			__m512 br = _mm512_set1_ps(bias[r]);

			v0 = _mm512_add_ps(v0, br);
			v1 = _mm512_add_ps(v1, br);
		}
		store_row(c + r * ldc, v0, v1, m0, m1, clamp);
	}
}

#define TALL_KERNEL(rows)						\
static void sgemm_avx512_tall##rows(size_t mr, size_t nr, size_t k,	\
				    const float *a, const float *b,	\
				    const ptrdiff_t *b_offsets, float *c, \
				    size_t ldc, const float *bias,	\
				    const float *clamp)		\
{									\
	tall_body(rows, mr, nr, k, a, b, b_offsets, c, ldc, bias, clamp); \
}
TALL_KERNEL(14)
TALL_KERNEL(12)
TALL_KERNEL(8)
#undef TALL_KERNEL

const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_avx512 = {
	sgemm_avx512, sgemm_avx512_indirect, MR, NR, column_avx512, 16, 2,
	sgemm_avx512_wide,
	/* Costs: 1000 x rows / GFLOPS of the loop above (180, 175, 160). */
	{ { sgemm_avx512_tall14, 14, 78 }, { sgemm_avx512_tall12, 12, 69 },
	  { sgemm_avx512_tall8, 8, 50 } },
};
