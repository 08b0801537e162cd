// SPDX-License-Identifier: MIT
/* Portable byte lookup: one load of the table per byte. */
#include "kernels_internal.h"

void enpu_lookup_scalar(const uint8_t *table, const uint8_t *x,
			size_t x_stride, uint8_t *y, size_t y_stride,
			size_t rows, size_t row_bytes)
{
	for (size_t r = 0; r < rows; r++, x += x_stride, y += y_stride)
		for (size_t i = 0; i < row_bytes; i++)
			y[i] = table[x[i]];
}
