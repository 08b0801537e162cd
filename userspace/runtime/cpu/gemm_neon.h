/* SPDX-License-Identifier: MIT */
/*
 * Pieces shared by the arm64 GEMM microkernels (plain NEON, dotprod,
 * i8mm): where each row of a tile reads K, and the tile epilogue (zero
 * point correction, bias, requantization, store) on 16 columns held as
 * four int32x4 per row. Only include from files compiled for aarch64.
 */
#ifndef ENPU_GEMM_NEON_H
#define ENPU_GEMM_NEON_H

#include "cpu_internal.h"
#include "requant_neon.h"

/*
 * K is read in segments: one for a plain GEMM, one per tap through the
 * indirection buffer (see struct enpu_gemm_tile). Rows past t->rows read
 * row 0 again, so that the kernels can keep a fixed row count (and their
 * accumulators in registers) without touching memory they may not read;
 * those rows are never stored.
 */
static inline void enpu_gemm_neon_rows(const struct enpu_gemm_tile *t,
				       size_t segment, size_t rows,
				       const uint8_t **row)
{
	for (size_t r = 0; r < rows; r++) {
		size_t src = r < t->rows ? r : 0;

		row[r] = t->indirection ?
			 t->indirection[src * t->taps + segment] + t->a_offset :
			 t->a + src * t->lda;
	}
}

static inline uint32_t enpu_gemm_neon_load_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Stores rows 0..t->rows-1 of @acc (16 columns each) with the tile's
 * output rule. @zero_point is the activation zero point in the domain the
 * kernel multiplied in (uint8, or int8 after the dot kernels' extra flip);
 * acc + bias - zero_point * column_sum is the true accumulator, modulo 2^32
 * like every path.
 */
static inline __attribute__((always_inline)) void
enpu_gemm_neon_epilogue(const struct enpu_gemm_tile *t, int32x4_t (*acc)[4],
			int32_t zero_point)
{
	int32x4_t init[4], multiplier[4], neg_shift[4];
	int32x4_t zp = vdupq_n_s32(zero_point);
	size_t count = t->columns;

	for (int q = 0; q < 4; q++)
		init[q] = vmlsq_s32(vld1q_s32(t->bias + 4 * q),
				    vld1q_s32(t->column_sum + 4 * q), zp);
	if (t->c_type == ENPU_CPU_INT32) {
		for (size_t r = 0; r < t->rows; r++) {
			int32_t lanes[16];

			for (int q = 0; q < 4; q++)
				vst1q_s32(lanes + 4 * q,
					  vaddq_s32(acc[r][q], init[q]));
			memcpy((int32_t *)t->c + r * t->ldc, lanes,
			       count * sizeof(int32_t));
		}
		return;
	}
	if (t->per_channel) {
		/* Only the tile's columns exist in the caller's arrays. */
		int32_t m[16] = { 0 }, s[16] = { 0 };

		memcpy(m, t->multiplier, count * sizeof(int32_t));
		memcpy(s, t->shift, count * sizeof(int32_t));
		for (int q = 0; q < 4; q++) {
			multiplier[q] = vld1q_s32(m + 4 * q);
			neg_shift[q] = vnegq_s32(vld1q_s32(s + 4 * q));
		}
	} else {
		for (int q = 0; q < 4; q++) {
			multiplier[q] = vdupq_n_s32(t->multiplier[0]);
			neg_shift[q] = vdupq_n_s32(-t->shift[0]);
		}
	}
	for (size_t r = 0; r < t->rows; r++) {
		int32x4_t out[4];

		for (int q = 0; q < 4; q++)
			out[q] = enpu_requantize_neon(
				vaddq_s32(acc[r][q], init[q]), multiplier[q],
				neg_shift[q], t->zero_point, t->min, t->max);
		enpu_store16_neon((uint8_t *)t->c + r * t->ldc, out[0], out[1],
				  out[2], out[3], count);
	}
}

#endif /* ENPU_GEMM_NEON_H */
