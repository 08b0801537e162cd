/* SPDX-License-Identifier: MIT */
/*
 * Scalar tile epilogue shared by the microkernels for their edge columns:
 * stores one accumulator with the tile's output rule.
 */
#ifndef ENPU_GEMM_EPILOGUE_H
#define ENPU_GEMM_EPILOGUE_H

#include "cpu_internal.h"

static inline void enpu_gemm_store_one(const struct enpu_gemm_tile *t,
				       size_t row, size_t col, int32_t acc)
{
	size_t ch = t->per_channel ? col : 0;
	int32_t out;

	if (t->c_type == ENPU_CPU_INT32) {
		((int32_t *)t->c)[row * t->ldc + col] = acc;
		return;
	}
	out = enpu_requantize(acc, t->multiplier[ch], t->shift[ch],
			      t->zero_point, t->min, t->max);
	if (t->c_type == ENPU_CPU_UINT8)
		((uint8_t *)t->c)[row * t->ldc + col] = (uint8_t)out;
	else
		((int8_t *)t->c)[row * t->ldc + col] = (int8_t)out;
}

#endif /* ENPU_GEMM_EPILOGUE_H */
