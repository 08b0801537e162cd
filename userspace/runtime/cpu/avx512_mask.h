/* SPDX-License-Identifier: MIT */
/*
 * The lane mask of a row tail for the AVX-512 kernels: the first @left of
 * 16 lanes (all 16 when at least that many are left). Masked loads do not
 * fault on the lanes left out, which is what lets a kernel read and write
 * the last partial vector of a row in place.
 */
#ifndef ENPU_AVX512_MASK_H
#define ENPU_AVX512_MASK_H

#include <immintrin.h>
#include <stddef.h>

static inline __mmask16 enpu_mask16(size_t left)
{
	return left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
}

#endif /* ENPU_AVX512_MASK_H */
