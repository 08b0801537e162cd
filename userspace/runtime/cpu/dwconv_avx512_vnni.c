// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI depthwise microkernel: 16 channels per zmm, 4 output pixels
 * at a time (4 independent accumulator chains hide vpdpbusd's latency;
 * a row's last 1-3 pixels too).
 * Each activation byte is zero-extended to a dword (vpmovzxbd) and
 * vpdpbusd multiplies it by the sign-extended int32 weight: the activation's
 * upper bytes are 0, so the lane gets exactly x * w, in one instruction
 * instead of vpmaddwd + vpaddd. Channel tails use masked loads, so no byte
 * past the channels is read. Compiled with -mavx512f -mavx512bw -mavx512vl
 * -mavx512vnni.
 */
#include "kernels_internal.h"
#include "requant_avx512.h"

#define PIXELS 4

static inline __attribute__((always_inline)) __m512i
load_activations(const uint8_t *p, __mmask16 mask, const int full,
		 const int flip)
{
	__m128i x = full ? _mm_loadu_si128((const __m128i *)p) :
			   _mm_maskz_loadu_epi8(mask, p);

	if (flip)
		x = _mm_xor_si128(x, _mm_set1_epi8((char)0x80));
	return _mm512_cvtepu8_epi32(x);
}

static inline __attribute__((always_inline)) void
channel_block(const struct enpu_dwconv_pass *pass, size_t c, __mmask16 mask,
	      const int full, const int flip)
{
	const size_t taps = pass->taps;
	const int32_t *weights = pass->weights + c;
	const __m512i init = _mm512_load_si512(pass->init + c);
	struct enpu_requant_avx512 v;
	size_t p = 0;

	if (pass->output_type != ENPU_CPU_INT32)
		v = enpu_requant_avx512_setup(
			pass->multiplier + (pass->per_channel ? c : 0),
			pass->shift + (pass->per_channel ? c : 0),
			pass->per_channel, pass->zero_point, pass->min,
			pass->max, mask);

#define STORE(acc, pixel)                                                 \
	do {                                                              \
		size_t at = (pixel) * pass->output_pixel_stride + c;      \
		if (pass->output_type == ENPU_CPU_INT32)                  \
			_mm512_mask_storeu_epi32((int32_t *)pass->output + at, \
						 mask, acc);              \
		else                                                      \
			_mm512_mask_cvtepi32_storeu_epi8(                 \
				(uint8_t *)pass->output + at, mask,       \
				enpu_requantize_avx512(acc, &v));         \
	} while (0)

	/*
	 * A last group of 1-3 pixels runs as a group of 4 too, its missing
	 * pixels repeating the last one (computed, not stored): one pixel
	 * alone would be a chain of dependent vpdpbusd, several times
	 * slower than four interleaved (a 7x7 layer has 3 such pixels per
	 * row for every 4 in groups).
	 */
	for (; p < pass->pixels; p += PIXELS) {
		size_t left = pass->pixels - p, k;
		const uint8_t *const *in[PIXELS];
		__m512i acc0 = init, acc1 = init, acc2 = init, acc3 = init;

		for (k = 0; k < PIXELS; k++)
			in[k] = pass->inputs +
				(p + (k < left ? k : left - 1)) * taps;

		for (size_t t = 0; t < taps; t++) {
			__m512i w = _mm512_load_si512(weights +
						      t * pass->channels_padded);

			acc0 = _mm512_dpbusd_epi32(acc0, load_activations(
				in[0][t] + c, mask, full, flip), w);
			acc1 = _mm512_dpbusd_epi32(acc1, load_activations(
				in[1][t] + c, mask, full, flip), w);
			acc2 = _mm512_dpbusd_epi32(acc2, load_activations(
				in[2][t] + c, mask, full, flip), w);
			acc3 = _mm512_dpbusd_epi32(acc3, load_activations(
				in[3][t] + c, mask, full, flip), w);
		}
		STORE(acc0, p);
		if (left > 1)
			STORE(acc1, p + 1);
		if (left > 2)
			STORE(acc2, p + 2);
		if (left > 3)
			STORE(acc3, p + 3);
	}
#undef STORE
}

static void run(const struct enpu_dwconv_pass *pass, const int flip)
{
	size_t c = 0;

	for (; c + 16 <= pass->channels; c += 16)
		channel_block(pass, c, 0xffff, 1, flip);
	if (c < pass->channels)
		channel_block(pass, c,
			      (__mmask16)((1u << (pass->channels - c)) - 1), 0,
			      flip);
}

void enpu_dwconv_avx512_vnni(const struct enpu_dwconv_pass *pass)
{
	if (pass->flip)
		run(pass, 1);
	else
		run(pass, 0);
}

/*
 * Depthwise by flat rows (struct enpu_dwconv_rows_pass): 64 output bytes
 * per step, whatever the channel count. For each kernel row the four
 * kernel columns' input vectors (64 bytes of one input row, shifted by
 * a column each) are interleaved byte by byte into four dword
 * vectors, each dword one output byte's four column inputs, and one
 * vpdpbusd per vector multiplies them by the four column weights: 3
 * loads, 8 unpacks and 4 vpdpbusd per kernel row for 64 outputs, where
 * the per-pixel kernel spends 12 loads, 12 widenings and 12 vpdpbusd on
 * 16 channels of 4 pixels. Saturating packs put the 64 requantized
 * bytes back in order (the values are clamped already, so exactly).
 */
/*
 * 64 bytes of an input row from byte @at (of @bytes), flipped to uint8;
 * bytes outside the row (and a padding row, NULL) the zero point.
 */
static inline __attribute__((always_inline)) __m512i
row_load(const uint8_t *row, ptrdiff_t at, ptrdiff_t bytes, __m512i zp,
	 __m512i flip)
{
	ptrdiff_t lo, hi;
	__mmask64 m;

	if (!row)
		return _mm512_xor_si512(zp, flip);
	if (at >= 0 && at + 64 <= bytes)
		return _mm512_xor_si512(
			_mm512_loadu_si512((const void *)(row + at)), flip);
	lo = at < 0 ? -at : 0;
	hi = bytes - at < 64 ? bytes - at : 64;
	if (lo >= hi)
		return _mm512_xor_si512(zp, flip);
	m = (hi == 64 ? ~(__mmask64)0 : (((__mmask64)1 << hi) - 1)) &
	    ~(((__mmask64)1 << lo) - 1);
	/* Masked-off bytes are never read: the address may lie outside
	 * the row, so it is formed as an integer. */
	return _mm512_xor_si512(
		_mm512_mask_loadu_epi8(zp, m, (const void *)((uintptr_t)row +
							    (uintptr_t)at)),
		flip);
}

/* The per-entry part of struct enpu_requant_avx512, 6 vectors of 16. */
struct rows_lanes {
	__m512i multiplier_even, multiplier_odd;
	__m512i shift_even, shift_odd;
	__m512i round_even, round_odd;
};

_Static_assert(sizeof(struct rows_lanes) == 16 * ENPU_DWCONV_ROWS_LANE_BYTES,
	       "ENPU_DWCONV_ROWS_LANE_BYTES");

/*
 * Every table entry's shift at least ENPU_REQUANT_AVX512_HIGH_SHIFT: the
 * lanes then hold the high-dword form (requant_avx512.h), its shift and
 * rounding in the even slots.
 */
static int rows_high(const struct enpu_dwconv_rows_pass *pass)
{
	return pass->min_shift >= ENPU_REQUANT_AVX512_HIGH_SHIFT;
}

void enpu_dwconv_rows_prepare_avx512_vnni(const struct enpu_dwconv_rows_pass *pass)
{
	struct rows_lanes *lanes = pass->lanes;
	const int high = rows_high(pass);

	for (size_t e = 0; e < pass->period; e += 16, lanes++) {
		struct enpu_requant_avx512 v = enpu_requant_avx512_setup(
			pass->multiplier + (pass->per_channel ? e : 0),
			pass->shift + (pass->per_channel ? e : 0),
			pass->per_channel, pass->zero_point, pass->min,
			pass->max, 0xffff);

		lanes->multiplier_even = v.multiplier_even;
		lanes->multiplier_odd = v.multiplier_odd;
		lanes->shift_even = high ? v.shift_high : v.shift_even;
		lanes->shift_odd = v.shift_odd;
		lanes->round_even = high ? v.round_high : v.round_even;
		lanes->round_odd = v.round_odd;
	}
}

/* The rule up to the clamp for one vector of a chunk (16 entries). */
static inline __attribute__((always_inline)) __m512i
rows_scaled(__m512i acc, const struct rows_lanes *l, const int high)
{
	struct enpu_requant_avx512 v;

	v.multiplier_even = _mm512_load_si512(&l->multiplier_even);
	v.multiplier_odd = _mm512_load_si512(&l->multiplier_odd);
	if (high) {
		v.shift_high = _mm512_load_si512(&l->shift_even);
		v.round_high = _mm512_load_si512(&l->round_even);
		return enpu_requant_avx512_scaled_high(acc, &v);
	}
	v.shift_even = _mm512_load_si512(&l->shift_even);
	v.shift_odd = _mm512_load_si512(&l->shift_odd);
	v.round_even = _mm512_load_si512(&l->round_even);
	v.round_odd = _mm512_load_si512(&l->round_odd);
	return enpu_requant_avx512_scaled(acc, &v);
}

/*
 * 64 bytes of an input row in the row's interior (every byte inside it),
 * flipped to uint8; a padding row (NULL) is the zero point.
 */
static inline __attribute__((always_inline)) __m512i
row_load_inside(const uint8_t *row, ptrdiff_t at, __m512i zp, __m512i flip,
		const int flipped)
{
	__m512i x = row ? _mm512_loadu_si512((const void *)(row + at)) : zp;

	return flipped ? _mm512_xor_si512(x, flip) : x;
}

static inline __attribute__((always_inline)) void
rows_run(const struct enpu_dwconv_rows_pass *pass, const size_t kw,
	 const int high, const int flipped)
{
	const ptrdiff_t c = (ptrdiff_t)pass->channels;
	const ptrdiff_t in_bytes = (ptrdiff_t)pass->input_width * c;
	const __m512i flip = _mm512_set1_epi8((char)pass->flip);
	const __m512i zp = _mm512_set1_epi8((char)pass->input_zero_point);
	/* Clamp and zero point: the same for every entry. */
	const struct enpu_requant_avx512 clamp = enpu_requant_avx512_setup(
		pass->multiplier, pass->shift, 0, pass->zero_point, pass->min,
		pass->max, 0xffff);
	const int is_signed = pass->output_type == ENPU_CPU_INT8;
	const struct rows_lanes *lanes = pass->lanes;
	const size_t kh = pass->kernel_height;
	ptrdiff_t offset[4], inside_first, inside_end;
	size_t j = pass->first % pass->period;

	for (size_t kx = 0; kx < 4; kx++)
		offset[kx] = ((ptrdiff_t)(kx * pass->dilation_width) -
			      (ptrdiff_t)pass->pad_left) * c;
	/* Steps whose every load lies inside the input row. */
	inside_first = -offset[0];
	inside_end = in_bytes - 64 - offset[kw - 1] + 1;
	for (size_t i = pass->first; i < pass->end; i += 64) {
		const int32_t *init = pass->init + j;
		const struct rows_lanes *l = lanes + j / 16;
		__m512i acc0 = _mm512_load_si512(init);
		__m512i acc1 = _mm512_load_si512(init + 16);
		__m512i acc2 = _mm512_load_si512(init + 32);
		__m512i acc3 = _mm512_load_si512(init + 48);
		__m512i bytes;
		size_t left = pass->end - i;
		const int inside = (ptrdiff_t)i >= inside_first &&
				   (ptrdiff_t)i < inside_end;

		for (size_t ky = 0; ky < kh; ky++) {
			const uint8_t *row = pass->rows[ky];
			const int32_t *w = pass->weights + ky * pass->period + j;
			__m512i r[4], a_lo, a_hi, b_lo, b_hi;

			for (size_t kx = 0; kx < 4; kx++) {
				ptrdiff_t at = (ptrdiff_t)i + offset[kx];

				if (kx >= kw)
					r[kx] = _mm512_setzero_si512();
				else if (inside)
					r[kx] = row_load_inside(row, at, zp,
								flip, flipped);
				else
					r[kx] = row_load(row, at, in_bytes, zp,
							 flip);
			}
			a_lo = _mm512_unpacklo_epi8(r[0], r[1]);
			a_hi = _mm512_unpackhi_epi8(r[0], r[1]);
			b_lo = _mm512_unpacklo_epi8(r[2], r[3]);
			b_hi = _mm512_unpackhi_epi8(r[2], r[3]);
			acc0 = _mm512_dpbusd_epi32(acc0,
				_mm512_unpacklo_epi16(a_lo, b_lo),
				_mm512_load_si512(w));
			acc1 = _mm512_dpbusd_epi32(acc1,
				_mm512_unpackhi_epi16(a_lo, b_lo),
				_mm512_load_si512(w + 16));
			acc2 = _mm512_dpbusd_epi32(acc2,
				_mm512_unpacklo_epi16(a_hi, b_hi),
				_mm512_load_si512(w + 32));
			acc3 = _mm512_dpbusd_epi32(acc3,
				_mm512_unpackhi_epi16(a_hi, b_hi),
				_mm512_load_si512(w + 48));
		}
		/* The packs restore the byte order the unpacks took. */
		bytes = enpu_requant_avx512_narrow4(
			rows_scaled(acc0, l, high), rows_scaled(acc1, l + 1, high),
			rows_scaled(acc2, l + 2, high),
			rows_scaled(acc3, l + 3, high), &clamp, is_signed);
		if (left >= 64)
			_mm512_storeu_si512((void *)(pass->output + i), bytes);
		else
			_mm512_mask_storeu_epi8(pass->output + i,
						((__mmask64)1 << left) - 1,
						bytes);
		j += 64;
		if (j == pass->period)
			j = 0;
	}
}

/*
 * The kernel width as a constant (3, MobileNet's, else any up to 4), the
 * requantization's form and the flip of int8 input.
 */
#define ROWS_RUN(kw, high)                                                \
	do {                                                              \
		if (pass->flip)                                           \
			rows_run(pass, kw, high, 1);                      \
		else                                                      \
			rows_run(pass, kw, high, 0);                      \
	} while (0)

void enpu_dwconv_rows_avx512_vnni(const struct enpu_dwconv_rows_pass *pass)
{
	const int high = rows_high(pass);

	if (pass->kernel_width == 3 && high)
		ROWS_RUN(3, 1);
	else if (pass->kernel_width == 3)
		ROWS_RUN(3, 0);
	else if (high)
		ROWS_RUN(4, 1);
	else
		ROWS_RUN(4, 0);
}
