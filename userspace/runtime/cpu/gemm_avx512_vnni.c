// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI GEMM microkernel: up to 8 rows x 32 columns (two weight
 * panels, 16 zmm accumulators). Per group of 4 k it loads two 64-byte weight
 * vectors, broadcasts 4 activation bytes per row and issues one vpdpbusd per
 * accumulator. The same kernel, instantiated with indirect = 1, runs
 * convolutions: rows then come from an indirection buffer, one pointer per
 * row and kernel tap (see struct enpu_gemm_tile). Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni;
 * only called after CPUID and XCR0 said so.
 */
#include "gemm_epilogue.h"
#include "requant_avx512.h"

#include <immintrin.h>
#include <string.h>

#define ROWS 8
#define PANELS 2

static inline uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The accumulators are named variables, not an array: with an array GCC 12
 * shuffles them through extra register moves and stack spills every k step.
 */
#define FOR_EACH_ROW(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

static inline __attribute__((always_inline)) struct enpu_requant_avx512
requant_setup(const struct enpu_gemm_tile *t, size_t panel, __mmask16 mask)
{
	size_t first = t->per_channel ? 16 * panel : 0;

	return enpu_requant_avx512_setup(t->multiplier + first,
					 t->shift + first, t->per_channel,
					 t->zero_point, t->min, t->max, mask);
}

/*
 * Rows r and s (a missing s repeats r: computed, not stored) of both
 * panels to bytes, one row's 32 bytes per 256-bit half.
 */
#define PAIR_STORE(r, s, is_signed)                                       \
	if (rows > r) {                                                   \
		__m512i out = enpu_requant_avx512_narrow4_ordered(        \
			enpu_requant_avx512_scaled_high(acc##r##_0, &v0), \
			enpu_requant_avx512_scaled_high(acc##r##_1, &v1), \
			enpu_requant_avx512_scaled_high(                  \
				rows > s ? acc##s##_0 : acc##r##_0, &v0), \
			enpu_requant_avx512_scaled_high(                  \
				rows > s ? acc##s##_1 : acc##r##_1, &v1), \
			&v0, is_signed);                                  \
		_mm256_mask_storeu_epi8((uint8_t *)t->c + r * t->ldc, mask, \
					_mm512_castsi512_si256(out));     \
		if (rows > s)                                             \
			_mm256_mask_storeu_epi8(                          \
				(uint8_t *)t->c + s * t->ldc, mask,       \
				_mm512_extracti64x4_epi64(out, 1));       \
	}
#define FOR_EACH_PAIR(is_signed)                                          \
	PAIR_STORE(0, 1, is_signed) PAIR_STORE(2, 3, is_signed)           \
	PAIR_STORE(4, 5, is_signed) PAIR_STORE(6, 7, is_signed)

static inline __attribute__((always_inline)) void
tile_kernel(const struct enpu_gemm_tile *t, const size_t rows,
	    const size_t panels, const int flip, const int indirect)
{
	const size_t full_bytes = indirect ? t->tap_bytes : (t->k / 4) * 4;
	const size_t taps = indirect ? t->taps : 1;
	const int8_t *b0 = t->panel;
	const int8_t *b1 = t->panel + (panels > 1 ? t->panel_stride : 0);
	const __m512i flip_vector = _mm512_set1_epi32((int)0x80808080u);
	const __m512i zero_point = _mm512_set1_epi32(t->a_zero_point);
	const __m512i init0 = _mm512_sub_epi32(
		_mm512_load_si512(t->bias),
		_mm512_mullo_epi32(_mm512_load_si512(t->column_sum), zero_point));
	const __m512i init1 = panels > 1 ? _mm512_sub_epi32(
		_mm512_load_si512(t->bias + 16),
		_mm512_mullo_epi32(_mm512_load_si512(t->column_sum + 16),
				   zero_point)) : init0;
	__m512i w0, w1 = init0, x;

#define DECLARE_ROW(r)                                                    \
	const uint8_t *a##r = indirect ? NULL :                           \
			      t->a + (rows > r ? r : 0) * t->lda;         \
	__m512i acc##r##_0 = init0, acc##r##_1 = init1;
	FOR_EACH_ROW(DECLARE_ROW)
#undef DECLARE_ROW

#define ROW_STEP(r)                                                       \
	if (rows > r) {                                                   \
		if (flip)                                                 \
			x = _mm512_xor_si512(x##r, flip_vector);          \
		else                                                      \
			x = x##r;                                         \
		acc##r##_0 = _mm512_dpbusd_epi32(acc##r##_0, x, w0);      \
		if (panels > 1)                                           \
			acc##r##_1 = _mm512_dpbusd_epi32(acc##r##_1, x, w1); \
	}
#define ROW_LOAD(r) \
	__m512i x##r = _mm512_set1_epi32(rows > r ? (int)load_u32(a##r + o) : 0);

#define ROW_POINTER(r)                                                    \
	a##r = t->indirection[(rows > r ? r : 0) * taps + tap] + t->a_offset;
	for (size_t tap = 0; tap < taps; tap++) {
		if (indirect) {
			FOR_EACH_ROW(ROW_POINTER)
		}
		for (size_t o = 0; o < full_bytes; o += 4) {
			w0 = _mm512_load_si512(b0 + o * 16);
			if (panels > 1)
				w1 = _mm512_load_si512(b1 + o * 16);
			{
				FOR_EACH_ROW(ROW_LOAD)
				FOR_EACH_ROW(ROW_STEP)
			}
		}
		if (indirect) {
			b0 += full_bytes * 16;
			b1 += full_bytes * 16;
		}
	}
#undef ROW_POINTER
#undef ROW_LOAD
	if (!indirect && full_bytes < t->k) {
#define ROW_LOAD(r) __m512i x##r = _mm512_set1_epi32(rows > r ? \
		(int)enpu_gemm_load_a_tail(a##r, t->k) : 0);
		w0 = _mm512_load_si512(b0 + full_bytes * 16);
		if (panels > 1)
			w1 = _mm512_load_si512(b1 + full_bytes * 16);
		{
			FOR_EACH_ROW(ROW_LOAD)
			FOR_EACH_ROW(ROW_STEP)
		}
#undef ROW_LOAD
	}
#undef ROW_STEP

	if (t->c_type != ENPU_CPU_INT32 && panels > 1) {
		/*
		 * Two panels, 8-bit output, every shift >= 33 (nearly every
		 * layer): two rows' four vectors requantized on the high-dword
		 * path and narrowed by saturating packs, then 32 bytes per row
		 * (requant_avx512.h; 8 instructions per vector where the loop
		 * below takes 14).
		 */
		const __mmask32 mask = t->columns >= 32 ? ~(__mmask32)0 :
				       ((__mmask32)1 << t->columns) - 1;
		const struct enpu_requant_avx512 v0 = requant_setup(t, 0, 0xffff);
		const struct enpu_requant_avx512 v1 = requant_setup(
			t, 1, (__mmask16)((1u << (t->columns - 16)) - 1));

		if (v0.high_ok && v1.high_ok) {
			if (t->c_type == ENPU_CPU_INT8) {
				FOR_EACH_PAIR(1)
			} else {
				FOR_EACH_PAIR(0)
			}
			return;
		}
	}
	for (size_t p = 0; p < panels; p++) {
		size_t first = 16 * p;
		size_t count = t->columns - first < 16 ? t->columns - first : 16;
		__mmask16 mask = (__mmask16)((1u << count) - 1);

		if (t->c_type == ENPU_CPU_INT32) {
#define ROW_STORE(r)                                                      \
			if (rows > r)                                     \
				_mm512_mask_storeu_epi32(                 \
					(int32_t *)t->c + r * t->ldc + first, \
					mask, p ? acc##r##_1 : acc##r##_0);
			FOR_EACH_ROW(ROW_STORE)
#undef ROW_STORE
			continue;
		}
		struct enpu_requant_avx512 v = requant_setup(t, p, mask);

#define ROW_STORE(r)                                                      \
		if (rows > r)                                             \
			_mm512_mask_cvtepi32_storeu_epi8(                 \
				(int8_t *)t->c + r * t->ldc + first, mask, \
				enpu_requantize_avx512(p ? acc##r##_1 : acc##r##_0, &v));
		FOR_EACH_ROW(ROW_STORE)
#undef ROW_STORE
	}
}

#undef FOR_EACH_PAIR
#undef PAIR_STORE

/*
 * One or two rows (GEMV-like shapes such as a classifier at batch 1): the
 * 8-row kernel would leave only 2-4 accumulator chains, and vpdpbusd's
 * 5-cycle latency would cap it near a fifth of peak. Here each output vector
 * gets 4 partial accumulators over alternating k groups, summed at the end.
 */
#define PARTIALS 4

static inline __attribute__((always_inline)) void
few_rows_kernel(const struct enpu_gemm_tile *t, const size_t rows,
		const size_t panels, const int flip)
{
	const size_t full_bytes = (t->k / 4) * 4;
	const size_t unrolled_bytes = full_bytes / (4 * PARTIALS) * (4 * PARTIALS);
	const int8_t *b[2] = { t->panel,
			       t->panel + (panels > 1 ? t->panel_stride : 0) };
	const uint8_t *a[2] = { t->a, t->a + (rows > 1 ? t->lda : 0) };
	const __m512i flip_vector = _mm512_set1_epi32((int)0x80808080u);
	const __m512i zero_point = _mm512_set1_epi32(t->a_zero_point);
	__m512i acc[2][2][PARTIALS];
	size_t o;

	for (size_t r = 0; r < 2; r++)
		for (size_t p = 0; p < 2; p++)
			for (size_t u = 0; u < PARTIALS; u++)
				acc[r][p][u] = _mm512_setzero_si512();
	for (o = 0; o < unrolled_bytes; o += 4 * PARTIALS) {
		for (size_t u = 0; u < PARTIALS; u++) {
			for (size_t r = 0; r < rows; r++) {
				__m512i x = _mm512_set1_epi32(
					(int)load_u32(a[r] + o + 4 * u));

				if (flip)
					x = _mm512_xor_si512(x, flip_vector);
				for (size_t p = 0; p < panels; p++)
					acc[r][p][u] = _mm512_dpbusd_epi32(
						acc[r][p][u], x,
						_mm512_load_si512(b[p] + (o + 4 * u) * 16));
			}
		}
	}
	for (; o < t->k; o += 4) {
		for (size_t r = 0; r < rows; r++) {
			uint32_t word = o < full_bytes ? load_u32(a[r] + o) :
					enpu_gemm_load_a_tail(a[r], t->k);
			__m512i x = _mm512_set1_epi32((int)(word ^ t->a_flip));

			for (size_t p = 0; p < panels; p++)
				acc[r][p][0] = _mm512_dpbusd_epi32(
					acc[r][p][0], x,
					_mm512_load_si512(b[p] + o * 16));
		}
	}

	for (size_t p = 0; p < panels; p++) {
		size_t first = 16 * p;
		size_t count = t->columns - first < 16 ? t->columns - first : 16;
		__mmask16 mask = (__mmask16)((1u << count) - 1);
		__m512i init = _mm512_sub_epi32(
			_mm512_load_si512(t->bias + first),
			_mm512_mullo_epi32(_mm512_load_si512(t->column_sum + first),
					   zero_point));
		struct enpu_requant_avx512 v;

		if (t->c_type != ENPU_CPU_INT32)
			v = requant_setup(t, p, mask);
		for (size_t r = 0; r < rows; r++) {
			__m512i sum = _mm512_add_epi32(
				_mm512_add_epi32(acc[r][p][0], acc[r][p][1]),
				_mm512_add_epi32(acc[r][p][2], acc[r][p][3]));

			sum = _mm512_add_epi32(sum, init);
			if (t->c_type == ENPU_CPU_INT32)
				_mm512_mask_storeu_epi32((int32_t *)t->c +
							 r * t->ldc + first,
							 mask, sum);
			else
				_mm512_mask_cvtepi32_storeu_epi8(
					(int8_t *)t->c + r * t->ldc + first,
					mask, enpu_requantize_avx512(sum, &v));
		}
	}
}

/*
 * Convolutions go through tile_kernel at every row count: their K per tap
 * is short, and one or two rows only happen at the edge of a large M.
 */
#define DEFINE_TILE(rows, panels, flip)                                  \
	static void tile_##rows##_##panels##_##flip(                      \
		const struct enpu_gemm_tile *t)                           \
	{                                                                 \
		if (rows <= 2)                                            \
			few_rows_kernel(t, rows, panels, flip);           \
		else                                                      \
			tile_kernel(t, rows, panels, flip, 0);            \
	}                                                                 \
	static void indirect_##rows##_##panels##_##flip(                  \
		const struct enpu_gemm_tile *t)                           \
	{                                                                 \
		tile_kernel(t, rows, panels, flip, 1);                    \
	}
#define DEFINE_ROWS(rows)                                                 \
	DEFINE_TILE(rows, 1, 0) DEFINE_TILE(rows, 2, 0)                   \
	DEFINE_TILE(rows, 1, 1) DEFINE_TILE(rows, 2, 1)

DEFINE_ROWS(1) DEFINE_ROWS(2) DEFINE_ROWS(3) DEFINE_ROWS(4)
DEFINE_ROWS(5) DEFINE_ROWS(6) DEFINE_ROWS(7) DEFINE_ROWS(8)

#define TILE_ENTRY(rows, kind) \
	{ { kind##_##rows##_1_0, kind##_##rows##_2_0 }, \
	  { kind##_##rows##_1_1, kind##_##rows##_2_1 } }
#define TILE_TABLE(kind) {                                                \
	TILE_ENTRY(1, kind), TILE_ENTRY(2, kind), TILE_ENTRY(3, kind),    \
	TILE_ENTRY(4, kind), TILE_ENTRY(5, kind), TILE_ENTRY(6, kind),    \
	TILE_ENTRY(7, kind), TILE_ENTRY(8, kind) }

/* [indirect][rows - 1][flip][panels - 1] */
static const enpu_gemm_microkernel tiles[2][ROWS][2][PANELS] = {
	TILE_TABLE(tile), TILE_TABLE(indirect),
};

static void gemm_avx512_vnni(const struct enpu_gemm_tile *t)
{
	tiles[t->indirection != NULL][t->rows - 1][t->a_flip != 0]
	     [t->columns > 16](t);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_avx512_vnni = {
	.kernel = gemm_avx512_vnni,
	.rows = ROWS,
	.columns = 16 * PANELS,
};
