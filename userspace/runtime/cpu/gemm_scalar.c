// SPDX-License-Identifier: MIT
/*
 * Portable GEMM microkernel on the packed layout: the fallback on CPUs with
 * no vector path, and the plainest reading of the tile contract (direct rows
 * or, for convolutions, an indirection buffer).
 */
#include "gemm_epilogue.h"

#define ROWS 4
#define COLUMNS ENPU_GEMM_PANEL_COLUMNS

static void gemm_scalar(const struct enpu_gemm_tile *t)
{
	uint32_t acc[ROWS][COLUMNS];
	size_t full_groups = t->k / 4;

	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < COLUMNS; c++)
			acc[r][c] = (uint32_t)t->bias[c] -
				    (uint32_t)t->a_zero_point *
				    (uint32_t)t->column_sum[c];
	for (size_t g = 0; g < t->k_groups; g++) {
		const int8_t *b = t->panel + g * 64;

		for (size_t r = 0; r < t->rows; r++) {
			const uint8_t *row = t->a + r * t->lda;
			size_t at = 4 * g;
			uint32_t word;

			if (t->indirection) {
				/* K comes in taps pieces of tap_bytes. */
				size_t tap = 4 * g / t->tap_bytes;

				row = t->indirection[r * t->taps + tap] +
				      t->a_offset;
				at -= tap * t->tap_bytes;
			}
			if (g < full_groups)
				word = (uint32_t)row[at] |
				       (uint32_t)row[at + 1] << 8 |
				       (uint32_t)row[at + 2] << 16 |
				       (uint32_t)row[at + 3] << 24;
			else
				word = enpu_gemm_load_a_tail(row, t->k);
			word ^= t->a_flip;
			for (size_t c = 0; c < COLUMNS; c++)
				for (size_t j = 0; j < 4; j++)
					acc[r][c] += ((word >> (8 * j)) & 0xff) *
						     (uint32_t)(int32_t)b[c * 4 + j];
		}
	}
	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->columns; c++)
			enpu_gemm_store_one(t, r, c, (int32_t)acc[r][c]);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_scalar = {
	.kernel = gemm_scalar,
	.rows = ROWS,
	.columns = COLUMNS,
};
