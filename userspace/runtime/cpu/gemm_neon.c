// SPDX-License-Identifier: MIT
/*
 * Plain NEON GEMM microkernel, for AArch64 cores without dotprod (Cortex-A53,
 * A72, ...): 4 rows x 16 columns. LD4 de-interleaves a group of the packed
 * panel into one vector of 16 columns per k; the weights are widened to
 * int16 and SMLAL by lane multiplies them by one activation (uint8, exact
 * in int16) into int32 accumulators, 4 columns per instruction.
 */
#include "gemm_neon.h"

#define ROWS 4

/* acc[r][0..3] += a[lane] * w (16 columns: w_low 0-7, w_high 8-15). */
#define MLA_LANE(accs, w_low, w_high, a, lane)                                \
	do {                                                                   \
		(accs)[0] = vmlal_lane_s16((accs)[0], vget_low_s16(w_low), a,  \
					   lane);                              \
		(accs)[1] = vmlal_high_lane_s16((accs)[1], w_low, a, lane);    \
		(accs)[2] = vmlal_lane_s16((accs)[2], vget_low_s16(w_high), a, \
					   lane);                              \
		(accs)[3] = vmlal_high_lane_s16((accs)[3], w_high, a, lane);   \
	} while (0)

static inline __attribute__((always_inline)) void
group(int32x4_t (*acc)[4], const int8_t *b, const uint32_t *words)
{
	int8x16x4_t w = vld4q_s8(b);
	int16x8_t low[4], high[4];

	for (int j = 0; j < 4; j++) {
		low[j] = vmovl_s8(vget_low_s8(w.val[j]));
		high[j] = vmovl_high_s8(w.val[j]);
	}
	for (int r = 0; r < ROWS; r++) {
		int16x4_t a = vreinterpret_s16_u16(vget_low_u16(
			vmovl_u8(vcreate_u8(words[r]))));

		MLA_LANE(acc[r], low[0], high[0], a, 0);
		MLA_LANE(acc[r], low[1], high[1], a, 1);
		MLA_LANE(acc[r], low[2], high[2], a, 2);
		MLA_LANE(acc[r], low[3], high[3], a, 3);
	}
}

static void gemm_neon(const struct enpu_gemm_tile *t)
{
	int32x4_t acc[ROWS][4];
	const uint8_t *row[ROWS];
	size_t segments = t->indirection ? t->taps : 1;
	size_t segment_groups = t->indirection ? t->tap_bytes / 4 : t->k / 4;
	const int8_t *b = t->panel;
	uint32_t words[ROWS];

	for (int r = 0; r < ROWS; r++)
		for (int q = 0; q < 4; q++)
			acc[r][q] = vdupq_n_s32(0);
	for (size_t s = 0; s < segments; s++) {
		enpu_gemm_neon_rows(t, s, ROWS, row);
		for (size_t g = 0; g < segment_groups; g++, b += 64) {
			for (int r = 0; r < ROWS; r++)
				words[r] = enpu_gemm_neon_load_u32(row[r] + 4 * g) ^
					   t->a_flip;
			group(acc, b, words);
		}
	}
	if (!t->indirection && (t->k & 3)) {
		for (int r = 0; r < ROWS; r++)
			words[r] = enpu_gemm_load_a_tail(row[r], t->k) ^ t->a_flip;
		group(acc, b, words);
	}
	enpu_gemm_neon_epilogue(t, acc, t->a_zero_point);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon = {
	.kernel = gemm_neon,
	.rows = ROWS,
	.columns = ENPU_GEMM_PANEL_COLUMNS,
};
