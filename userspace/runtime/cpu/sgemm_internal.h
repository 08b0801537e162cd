/* SPDX-License-Identifier: MIT */
/*
 * The float GEMM microkernel contract (sgemm.c drives it):
 *
 *   C[r][j] = clamp(bias + sum_{kk < k} A[r][kk] * B[kk][j])
 *             for r < mr <= MR, j < nr <= NR
 *
 * A: mr rows at a + r * lda, k floats each (rows past mr are never read).
 * B: k rows of NR floats at b + kk * ldb; all NR are readable (the driver
 *    packs a tail panel), columns past nr are computed and dropped.
 * bias: NULL, or per row (bias[r], @bias_rows) or per column (bias[j]).
 * clamp: NULL, or {min, max} applied as max(min, x) then min(max, x) in
 *    that operand order, so a NaN accumulator stays NaN (ONNX Relu/Clip).
 * The whole K is accumulated in registers; every microkernel sums in the
 * same order (k ascending, one fused multiply-add per step where the ISA
 * has FMA), so paths may differ from the reference by rounding only; a
 * column kernel (below) sums in another order, also rounding only.
 */
#ifndef ENPU_CPU_SGEMM_INTERNAL_H
#define ENPU_CPU_SGEMM_INTERNAL_H

#include <stddef.h>

typedef void (*enpu_sgemm_ukernel)(size_t mr, size_t nr, size_t k,
				   const float *a, size_t lda,
				   const float *b, size_t ldb,
				   float *c, size_t ldc, const float *bias,
				   int bias_rows, const float *clamp);

/*
 * The same with B's rows given by offset: row kk is at b + b_offsets[kk]
 * (NR readable floats each), for convolutions that read a padded input
 * in place: the offsets of the taps are the same for every output pixel,
 * so they are worked out once per convolution and only b moves.
 */
typedef void (*enpu_sgemm_ukernel_indirect)(size_t mr, size_t nr, size_t k,
					    const float *a, size_t lda,
					    const float *b,
					    const ptrdiff_t *b_offsets,
					    float *c, size_t ldc,
					    const float *bias, int bias_rows,
					    const float *clamp);

/*
 * One column: c[r * ldc] = clamp(bias + sum_kk a[r * lda + kk] * x[kk])
 * for r < m (bias: NULL, bias[r] with @bias_rows, else bias[0]), the sum
 * across k in vectors (so in another order than the microkernel's).
 */
typedef void (*enpu_sgemm_column_kernel)(size_t m, size_t k, const float *a,
					 size_t lda, const float *x,
					 float *c, size_t ldc,
					 const float *bias, int bias_rows,
					 const float *clamp);

/*
 * A column kernel's rows r.. of A, four at a time: @rows (<= 4) real
 * ones, the others aliasing the last real one (computed, not stored).
 */
static inline void enpu_sgemm_column_rows(const float *a, size_t lda,
					  size_t r, size_t rows,
					  const float *row[4])
{
	row[0] = a + r * lda;
	for (size_t i = 1; i < 4; i++)
		row[i] = i < rows ? row[i - 1] + lda : row[i - 1];
}

/*
 * A column kernel's last step: the @rows (<= 4) dot products @out of
 * rows r.. get the bias and clamp and go to their column of C, c[(r +
 * i) * ldc], with the clamp's operand order of the microkernels.
 */
static inline void enpu_sgemm_column_store(const float *out, size_t rows,
					   size_t r, float *c, size_t ldc,
					   const float *bias, int bias_rows,
					   const float *clamp)
{
	for (size_t i = 0; i < rows; i++) {
		float v = out[i];

		if (bias)
			v += bias_rows ? bias[r + i] : bias[0];
		if (clamp) {
			/* max(lo, x), min(hi, x): NaN comes out. */
			v = clamp[0] > v ? clamp[0] : v;
			v = clamp[1] < v ? clamp[1] : v;
		}
		c[(r + i) * ldc] = v;
	}
}

/*
 * A full NR panel and up to 16 columns after it in one pass (NR < nr <=
 * NR + 16): B's first NR columns as the microkernel reads them (rows at
 * b + kk * ldb), the rest at b2 + kk * ldb2, read under a lane mask (so
 * a tail read in place needs no copy). Each A element is loaded once for
 * both, where a tail panel of its own loaded every A element again for
 * half the FMAs. Same sum in the same order as the microkernel, so the
 * same bits.
 */
typedef void (*enpu_sgemm_ukernel_wide)(size_t mr, size_t nr, size_t k,
					const float *a, size_t lda,
					const float *b, size_t ldb,
					const float *b2, size_t ldb2,
					float *c, size_t ldc,
					const float *bias, int bias_rows,
					const float *clamp);

/*
 * A block of rows at once over B rows by offset (the indirect case): A
 * packed k-major, a[kk * rows + r] for the block's rows (struct
 * enpu_sgemm_tall), so each k reads one contiguous group of broadcasts;
 * rows r < mr are stored (the others are computed from the packing's
 * padding and dropped); bias per row (NULL: none); nr <= NR columns. The
 * same sum in the same order as the indirect microkernel, so the same
 * bits row by row.
 */
typedef void (*enpu_sgemm_ukernel_tall)(size_t mr, size_t nr, size_t k,
					const float *a_packed,
					const float *b,
					const ptrdiff_t *b_offsets,
					float *c, size_t ldc,
					const float *bias,
					const float *clamp);

/*
 * One tall kernel, the rows of its block and what a block costs (time
 * in arbitrary units, rows / measured GFLOPS: fconv.c splits output
 * channels into the blocks that cost least).
 */
struct enpu_sgemm_tall {
	enpu_sgemm_ukernel_tall kernel;
	size_t rows;
	size_t cost;
};

/* Tall kernels an ISA may have (block sizes). */
#define ENPU_SGEMM_TALLS 3

struct enpu_sgemm_kernel_info {
	enpu_sgemm_ukernel kernel;
	enpu_sgemm_ukernel_indirect indirect;
	size_t mr;
	size_t nr;
	/*
	 * NULL, or the column kernel and the microkernel's vector width:
	 * the last n % lanes columns, when at most thin_columns, are left
	 * to the column kernel, whose vectors run along k, instead of
	 * filling a vector of lanes of which they use 1 or 2.
	 */
	enpu_sgemm_column_kernel column;
	size_t lanes, thin_columns;
	/* NULL, or the panel-and-tail kernel above. */
	enpu_sgemm_ukernel_wide wide;
	/*
	 * The tall indirect kernels above, rows descending; none (kernel
	 * NULL) on ISAs without them.
	 */
	struct enpu_sgemm_tall talls[ENPU_SGEMM_TALLS];
};

extern const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_scalar;
extern const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_avx2;
extern const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_avx512;
extern const struct enpu_sgemm_kernel_info enpu_sgemm_kernel_neon;

#endif /* ENPU_CPU_SGEMM_INTERNAL_H */
