// SPDX-License-Identifier: MIT
/*
 * Float depthwise 3x3 convolution over blocks of 8 channels on small
 * planes (fmath_internal.h says which), AVX2 + FMA. One channel plane at
 * a time, a 7x7 or 14x14 plane is a handful of vectors per row, and each
 * plane pays its own padded copy, edges and call: MobileNetV2's 960 @7
 * layers took about 400 cycles a channel that way. Here a block of 8
 * channels is turned pixel-major (8x8 transposes into a zero-padded
 * scratch in L1: a vector per pixel, one lane per channel), so each
 * output pixel is 9 FMAs of full vectors with the 9 taps' weights held
 * in registers, no edge case and no remainder; the outputs are turned
 * back to planes by the same transpose. Every output sums bias first,
 * then the taps row by row, column by column, one FMA each: the generic
 * kernel's order, a padding tap adding weight x 0.
 */
#include <immintrin.h>
#include <string.h>

#include "fmath_internal.h"

#define LANES ENPU_FDWCONV_BLOCK_CHANNELS
_Static_assert(LANES == 8, "one __m256 of floats per pixel");
#define SPAN (ENPU_FDWCONV_BLOCKED_MAX_SIDE + 2)

/* Transposes the 8 vectors at @r (8 x 8 floats) in place. */
static inline void transpose8(__m256 r[8])
{
	__m256 t0 = _mm256_unpacklo_ps(r[0], r[1]);
	__m256 t1 = _mm256_unpackhi_ps(r[0], r[1]);
	__m256 t2 = _mm256_unpacklo_ps(r[2], r[3]);
	__m256 t3 = _mm256_unpackhi_ps(r[2], r[3]);
	__m256 t4 = _mm256_unpacklo_ps(r[4], r[5]);
	__m256 t5 = _mm256_unpackhi_ps(r[4], r[5]);
	__m256 t6 = _mm256_unpacklo_ps(r[6], r[7]);
	__m256 t7 = _mm256_unpackhi_ps(r[6], r[7]);
	__m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
	__m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
	__m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
	__m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
	__m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
	__m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
	__m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
	__m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));

	r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
	r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
	r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
	r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
	r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
	r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
	r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
	r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/*
 * The block's input, pixel-major, into @in: row iy + 1, column ix + 1
 * of a (height + 2) x (width + 2) grid whose ring is zero (a pad of 0
 * reads the ring only where a stride-2 window reaches past the end);
 * lanes of channels past the block's are zero.
 */
static void load_block(const struct enpu_fdwconv_block_pass *p, __m256 *in)
{
	size_t span = p->width + 2, plane = p->height * p->width;
	size_t x = 0, iy, ix;

	memset(in, 0, span * sizeof(*in));
	memset(in + (p->height + 1) * span, 0, span * sizeof(*in));
	for (iy = 0; iy < p->height; iy++) {
		__m256 *row = in + (iy + 1) * span;

		row[0] = _mm256_setzero_ps();
		row[p->width + 1] = _mm256_setzero_ps();
	}
	/*
	 * 8 pixels of 8 planes at a time as one flat run across rows, the
	 * destination's row and column counted along (no division).
	 */
	iy = 0;
	ix = 0;
	for (; p->channels == LANES && x + LANES <= plane; x += LANES) {
		__m256 r[LANES];

		for (size_t c = 0; c < LANES; c++)
			r[c] = _mm256_loadu_ps(p->x + c * plane + x);
		transpose8(r);
		for (size_t j = 0; j < LANES; j++) {
			in[(iy + 1) * span + ix + 1] = r[j];
			if (++ix == p->width) {
				ix = 0;
				iy++;
			}
		}
	}
	for (; x < plane; x++) {
		float lanes[LANES] = { 0 };

		for (size_t c = 0; c < p->channels; c++)
			lanes[c] = p->x[c * plane + x];
		in[(iy + 1) * span + ix + 1] = _mm256_loadu_ps(lanes);
		if (++ix == p->width) {
			ix = 0;
			iy++;
		}
	}
}

/* Output pixels [o, o + n) (n <= 8) of the block, pixel-major, to planes. */
static void store_block(const struct enpu_fdwconv_block_pass *p,
			__m256 *out, size_t o, size_t n)
{
	size_t plane = p->out_height * p->out_width;

	if (n == LANES && p->channels == LANES) {
		transpose8(out);
		for (size_t c = 0; c < LANES; c++)
			_mm256_storeu_ps(p->y + c * plane + o, out[c]);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		float lanes[LANES];

		_mm256_storeu_ps(lanes, out[j]);
		for (size_t c = 0; c < p->channels; c++)
			p->y[c * plane + o + j] = lanes[c];
	}
}

void enpu_fdwconv_blocked_avx2(const struct enpu_fdwconv_block_pass *p)
{
	__m256 in[SPAN * SPAN], out[LANES];
	size_t span = p->width + 2, plane = p->out_height * p->out_width;
	size_t s = p->stride;
	float lanes[LANES] = { 0 };
	__m256 w[9], bias, lo, hi;

	load_block(p, in);
	for (size_t t = 0; t < 9; t++) {
		for (size_t c = 0; c < p->channels; c++)
			lanes[c] = p->w[c * 9 + t];
		w[t] = _mm256_loadu_ps(lanes);
	}
	for (size_t c = 0; c < LANES; c++)
		lanes[c] = p->bias && c < p->channels ? p->bias[c] : 0.0f;
	bias = _mm256_loadu_ps(lanes);
	lo = _mm256_set1_ps(p->clamp ? p->clamp[0] : 0.0f);
	hi = _mm256_set1_ps(p->clamp ? p->clamp[1] : 0.0f);
	/*
	 * Output pixels in runs of 8 across rows (the store's transpose
	 * takes 8); window (oy, ox) starts at grid row oy * s + 1 - pad_top,
	 * column ox * s + 1 - pad_left.
	 */
	size_t oy = 0, ox = 0;

	for (size_t o = 0; o < plane; o += LANES) {
		size_t n = plane - o < LANES ? plane - o : LANES;

		for (size_t j = 0; j < n; j++) {
			const __m256 *win = in + (oy * s + 1 - p->pad_top) * span +
					    ox * s + 1 - p->pad_left;
			__m256 acc = bias;

			acc = _mm256_fmadd_ps(w[0], win[0], acc);
			acc = _mm256_fmadd_ps(w[1], win[1], acc);
			acc = _mm256_fmadd_ps(w[2], win[2], acc);
			acc = _mm256_fmadd_ps(w[3], win[span], acc);
			acc = _mm256_fmadd_ps(w[4], win[span + 1], acc);
			acc = _mm256_fmadd_ps(w[5], win[span + 2], acc);
			acc = _mm256_fmadd_ps(w[6], win[2 * span], acc);
			acc = _mm256_fmadd_ps(w[7], win[2 * span + 1], acc);
			acc = _mm256_fmadd_ps(w[8], win[2 * span + 2], acc);
			/* max(lo, x), min(hi, x): NaN stays. */
			if (p->clamp)
				acc = _mm256_min_ps(hi, _mm256_max_ps(lo, acc));
			out[j] = acc;
			if (++ox == p->out_width) {
				ox = 0;
				oy++;
			}
		}
		store_block(p, out, o, n);
	}
}
