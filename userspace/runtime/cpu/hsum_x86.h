/* SPDX-License-Identifier: MIT */
/*
 * The last steps of a horizontal float sum, shared by the x86 kernels
 * that end a dot product in one vector (the GEMM column kernels): the 4
 * lanes of an SSE vector added pairwise, the same order on every ISA.
 * Included only by files built with -mavx2 or more (movshdup is SSE3).
 */
#ifndef ENPU_CPU_HSUM_X86_H
#define ENPU_CPU_HSUM_X86_H

#include <immintrin.h>

static inline float enpu_hsum128(__m128 q)
{
	q = _mm_add_ps(q, _mm_movehl_ps(q, q));
	q = _mm_add_ss(q, _mm_movehdup_ps(q));
	return _mm_cvtss_f32(q);
}

#endif /* ENPU_CPU_HSUM_X86_H */
