/* SPDX-License-Identifier: MIT */
/*
 * The arm64 dot-product GEMM microkernel, 6 rows x 16 columns, written once
 * for two instructions. A packed group (16 columns x 4 k, see
 * cpu_internal.h) is exactly four SDOT/USDOT operands: lane c of vector q
 * holds the 4 k of column 4q + c. Each row's 4 activations are broadcast
 * to every lane and one dot instruction adds 4 products per lane.
 *
 * The including file defines, before the include:
 *   NEON_DOT_FLIP   extra XOR on the activations: 0x80808080 turns the
 *                   kernels' uint8 A into int8 for SDOT (value and zero
 *                   point both drop by 128, docs/quantization.md), 0 for
 *                   USDOT, which takes uint8 x int8 directly;
 *   NEON_DOT(acc, a, b)  acc += dot(a: uint8x16_t, b: int8x16_t).
 * Only include from files compiled with the matching -march extensions.
 */
#ifndef ENPU_GEMM_NEON_DOT_H
#define ENPU_GEMM_NEON_DOT_H

#include "gemm_neon.h"

#define NEON_DOT_ROWS 6

static inline __attribute__((always_inline)) void
neon_dot_group(int32x4_t (*acc)[4], const int8_t *b, const uint32_t *words)
{
	int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16);
	int8x16_t b2 = vld1q_s8(b + 32), b3 = vld1q_s8(b + 48);

	for (int r = 0; r < NEON_DOT_ROWS; r++) {
		uint8x16_t a = vreinterpretq_u8_u32(vdupq_n_u32(words[r]));

		acc[r][0] = NEON_DOT(acc[r][0], a, b0);
		acc[r][1] = NEON_DOT(acc[r][1], a, b1);
		acc[r][2] = NEON_DOT(acc[r][2], a, b2);
		acc[r][3] = NEON_DOT(acc[r][3], a, b3);
	}
}

static inline __attribute__((always_inline)) void
neon_dot_tile(const struct enpu_gemm_tile *t)
{
	int32x4_t acc[NEON_DOT_ROWS][4];
	const uint8_t *row[NEON_DOT_ROWS];
	size_t segments = t->indirection ? t->taps : 1;
	size_t segment_groups = t->indirection ? t->tap_bytes / 4 : t->k / 4;
	const uint32_t flip = t->a_flip ^ (uint32_t)NEON_DOT_FLIP;
	const int8_t *b = t->panel;
	uint32_t words[NEON_DOT_ROWS];

	for (int r = 0; r < NEON_DOT_ROWS; r++)
		for (int q = 0; q < 4; q++)
			acc[r][q] = vdupq_n_s32(0);
	for (size_t s = 0; s < segments; s++) {
		enpu_gemm_neon_rows(t, s, NEON_DOT_ROWS, row);
		for (size_t g = 0; g < segment_groups; g++, b += 64) {
			for (int r = 0; r < NEON_DOT_ROWS; r++)
				words[r] = enpu_gemm_neon_load_u32(row[r] + 4 * g) ^
					   flip;
			neon_dot_group(acc, b, words);
		}
	}
	if (!t->indirection && (t->k & 3)) {
		/* Bytes past K read as 0 (then flipped); their weights are 0. */
		for (int r = 0; r < NEON_DOT_ROWS; r++)
			words[r] = enpu_gemm_load_a_tail(row[r], t->k) ^ flip;
		neon_dot_group(acc, b, words);
	}
	enpu_gemm_neon_epilogue(t, acc, t->a_zero_point -
				(NEON_DOT_FLIP ? 128 : 0));
}

#endif /* ENPU_GEMM_NEON_DOT_H */
