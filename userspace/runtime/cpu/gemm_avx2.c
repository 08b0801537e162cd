// SPDX-License-Identifier: MIT
/*
 * AVX2 GEMM microkernels for CPUs without VNNI: up to 3 rows x 16 columns.
 *
 * Why not vpmaddubsw (what ONNX Runtime's MLAS runs on such CPUs): it
 * multiplies u8 x s8 pairs and adds each two products into an int16 with
 * saturation, and 255 * -128 * 2 = -65280 does not fit; MLAS documents
 * the saturation and asks for reduce_range on these CPUs. Our outputs
 * must equal the reference's bit for bit, so both operands are int16 and
 * vpmaddwd multiplies them: a product is at most 255 * 128 in magnitude,
 * a pair's sum at most 65280, exact in its int32 lane (vpmaddwd saturates
 * nothing but -32768 * -32768 twice, which int16 bytes never give), and
 * the int32 accumulators wrap like every other path's. vpmaddwd does 16
 * multiply-adds an instruction, as vpmaddubsw plus the vpmaddwd by ones
 * that MLAS needs to reach int32 does in two, so exactness costs the
 * multiply ports nothing; what it costs is the widening, kept out of the
 * inner loop:
 *
 * - Weights are packed once as int16 (cpu_internal.h, packed16) in the
 *   order the loop reads them: per group of 4 k, one ymm per quarter of
 *   the panel, (k0, k1) of its 4 columns in the low half and (k2, k3) in
 *   the high half, read as memory operands of vpmaddwd.
 * - An A row's 4 bytes are one vpbroadcastd (a load) and one vpshufb
 *   that zero-extends (a0, a1) into the low half's int16 pairs and
 *   (a2, a3) into the high half's; one shuffle serves 16 columns.
 * - The accumulator of a quarter holds 4 columns' k0+k1 partial sums in
 *   its low half and k2+k3 in its high half; the two are added once, at
 *   the end (two lane permutes and an add per 8 columns).
 *
 * Per row and group: 1 shuffle, 4 vpmaddwd, 4 vpaddd (the XOR of int8 A
 * besides); 12 accumulators for 3 rows. Weights packed by a context of
 * another ISA have no int16 copy: a 2-row kernel widens their bytes as it
 * loads them (vpmovsxbw), which also runs a plain GEMM's one- and two-row
 * tiles, where int16 weights would be twice the bytes to stream for as
 * many multiplies (a batch-1 classifier). The requantization of the 16
 * columns is set up once per tile (requant_avx2.h). With an indirection
 * buffer (convolution) each row's K comes in taps pieces from one pointer
 * per row and tap (see struct enpu_gemm_tile). Compiled with -mavx2 -mfma.
 */
#include "cpu_internal.h"
#include "requant_avx2.h"

#include <immintrin.h>
#include <string.h>

#define ROWS 3
#define COLUMNS 16

static inline uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define Z (char)0x80	/* vpshufb: a zero byte */

/* Where the accumulators start and how they end. */
struct tile_end {
	__m256i init[2];	/* bias - a_zero_point * column_sum, 8 columns each */
	struct enpu_requant8_avx2 requant[2];
	struct enpu_requant_clamp_avx2 clamp;
};

static inline __attribute__((always_inline)) void
tile_end_setup(const struct enpu_gemm_tile *t, struct tile_end *e)
{
	const __m256i zero_point = _mm256_set1_epi32(t->a_zero_point);

	for (size_t h = 0; h < 2; h++)
		e->init[h] = _mm256_sub_epi32(
			_mm256_loadu_si256((const __m256i *)(t->bias + 8 * h)),
			_mm256_mullo_epi32(_mm256_loadu_si256(
				(const __m256i *)(t->column_sum + 8 * h)),
				zero_point));
	e->clamp = enpu_requant_clamp_avx2_setup(t->zero_point, t->min, t->max,
						 t->c_type == ENPU_CPU_UINT8);
	if (t->c_type == ENPU_CPU_INT32)
		return;
	for (size_t h = 0; h < 2; h++) {
		size_t first = t->per_channel ? 8 * h : 0;

		e->requant[h] = enpu_requant8_avx2_load(
			t->multiplier + first, t->shift + first,
			t->per_channel,
			t->columns > 8 * h ? t->columns - 8 * h : 0);
	}
}

/* Row r's 16 sums (columns 0-7 in @low, 8-15 in @high) to C. */
static inline __attribute__((always_inline)) void
store_row(const struct enpu_gemm_tile *t, const struct tile_end *e, size_t r,
	  __m256i low, __m256i high)
{
	if (t->c_type == ENPU_CPU_INT32) {
		int32_t *c = (int32_t *)t->c + r * t->ldc;
		int32_t lanes[COLUMNS];

		if (t->columns == COLUMNS) {
			_mm256_storeu_si256((__m256i *)c, low);
			_mm256_storeu_si256((__m256i *)(c + 8), high);
			return;
		}
		_mm256_storeu_si256((__m256i *)lanes, low);
		_mm256_storeu_si256((__m256i *)(lanes + 8), high);
		memcpy(c, lanes, t->columns * sizeof(int32_t));
		return;
	}
	{
		uint8_t *c = (uint8_t *)t->c + r * t->ldc;
		__m128i bytes = enpu_requant16_avx2_bytes(
			enpu_requant8_avx2_scaled(low, &e->requant[0]),
			enpu_requant8_avx2_scaled(high, &e->requant[1]),
			&e->clamp);
		uint8_t lanes[COLUMNS];

		if (t->columns == COLUMNS) {
			_mm_storeu_si128((__m128i *)c, bytes);
			return;
		}
		_mm_storeu_si128((__m128i *)lanes, bytes);
		memcpy(c, lanes, t->columns);
	}
}

/*
 * Rows [row0, row0 + @rows) of the tile, @rows of 1..3, int8 A (@flip),
 * indirect rows. @wide: the weights' int16 copy (packed16, 3 rows at
 * most: 12 accumulators, its 4 vectors read as memory operands); else the
 * int8 panels, each group's 64 bytes widened by four vpmovsxbw into one
 * ymm per quarter, [c0: (k0, k1), (k2, k3); c1: ...] in each half (2 rows
 * at most: the 4 widened vectors stay in registers), A's 4 bytes shuffled
 * into (a0, a1), (a2, a3) repeated, so each 32-bit lane of a product holds
 * one column's pair and vphaddd adds a column's pairs at the end.
 *
 * The accumulators are named variables, not an array: with an array GCC
 * keeps them on the stack (see gemm_avx512_vnni.c).
 */
#define FOR_EACH_ROW(X) X(0) X(1) X(2)
#define FOR_EACH_QUARTER_OF_ROW(X, r) X(r, 0) X(r, 1) X(r, 2) X(r, 3)

static inline __attribute__((always_inline)) void
tile_kernel(const struct enpu_gemm_tile *t, const struct tile_end *e,
	    const size_t row0, const size_t rows, const int flip,
	    const int indirect, const int wide)
{
	const size_t full_bytes = indirect ? t->tap_bytes : (t->k / 4) * 4;
	const size_t taps = indirect ? t->taps : 1;
	const __m256i spread = wide ?
		_mm256_setr_epi8(0, Z, 1, Z, 0, Z, 1, Z, 0, Z, 1, Z, 0, Z, 1, Z,
				 2, Z, 3, Z, 2, Z, 3, Z, 2, Z, 3, Z, 2, Z, 3, Z) :
		_mm256_setr_epi8(0, Z, 1, Z, 2, Z, 3, Z, 0, Z, 1, Z, 2, Z, 3, Z,
				 0, Z, 1, Z, 2, Z, 3, Z, 0, Z, 1, Z, 2, Z, 3, Z);
	const __m256i flip_vector = _mm256_set1_epi32((int)0x80808080u);
	const int16_t *b16 = t->panel16;
	const int8_t *b8 = t->panel;
	__m256i start[4];

	if (wide) {
		/* The sums start at init, in the low halves (k0 + k1). */
		start[0] = _mm256_zextsi128_si256(
			_mm256_castsi256_si128(e->init[0]));
		start[1] = _mm256_permute2x128_si256(e->init[0], e->init[0],
						     0x81);
		start[2] = _mm256_zextsi128_si256(
			_mm256_castsi256_si128(e->init[1]));
		start[3] = _mm256_permute2x128_si256(e->init[1], e->init[1],
						     0x81);
	} else {
		start[0] = start[1] = start[2] = start[3] =
			_mm256_setzero_si256();
	}

#define DECLARE_QUARTER(r, q) __m256i acc##r##_##q = start[q];
#define DECLARE_ROW(r)                                                    \
	const uint8_t *a##r = indirect ? NULL :                           \
			      t->a + (row0 + (rows > r ? r : 0)) * t->lda; \
	FOR_EACH_QUARTER_OF_ROW(DECLARE_QUARTER, r)
	FOR_EACH_ROW(DECLARE_ROW)
#undef DECLARE_ROW
#undef DECLARE_QUARTER

#define WEIGHTS(q) (wide ?                                                \
	_mm256_load_si256((const __m256i *)(b16 + o * 16 + 16 * (q))) :   \
	_mm256_cvtepi8_epi16(                                             \
		_mm_load_si128((const __m128i *)(b8 + o * 16 + 16 * (q)))))
#define QUARTER_STEP(r, q)                                                \
	acc##r##_##q = _mm256_add_epi32(acc##r##_##q,                     \
					_mm256_madd_epi16(x, WEIGHTS(q)));
#define ROW_STEP(r, word)                                                 \
	if (rows > r) {                                                   \
		__m256i x = _mm256_set1_epi32((int)(word));               \
		if (flip)                                                 \
			x = _mm256_xor_si256(x, flip_vector);             \
		x = _mm256_shuffle_epi8(x, spread);                       \
		FOR_EACH_QUARTER_OF_ROW(QUARTER_STEP, r)                  \
	}
#define ROW_LOAD(r) ROW_STEP(r, load_u32(a##r + o))
#define ROW_POINTER(r)                                                    \
	a##r = t->indirection[(row0 + (rows > r ? r : 0)) * taps + tap] + \
	       t->a_offset;
	for (size_t tap = 0; tap < taps; tap++) {
		if (indirect) {
			FOR_EACH_ROW(ROW_POINTER)
		}
		for (size_t o = 0; o < full_bytes; o += 4) {
			FOR_EACH_ROW(ROW_LOAD)
		}
		if (indirect) {
			b16 += full_bytes * 16;
			b8 += full_bytes * 16;
		}
	}
#undef ROW_POINTER
#undef ROW_LOAD
	if (!indirect && full_bytes < t->k) {
		const size_t o = full_bytes;

#define ROW_TAIL(r) ROW_STEP(r, enpu_gemm_load_a_tail(a##r, t->k))
		FOR_EACH_ROW(ROW_TAIL)
#undef ROW_TAIL
	}
#undef ROW_STEP
#undef QUARTER_STEP
#undef WEIGHTS

	/*
	 * Wide: low halves + high halves, columns 0-3 | 4-7 and 8-11 |
	 * 12-15. Else vphaddd: columns 0 1 4 5 | 2 3 6 7, put in order by
	 * vpermq.
	 */
#define SUMS(r, q0, q1) (wide ?                                           \
	_mm256_add_epi32(                                                 \
		_mm256_permute2x128_si256(acc##r##_##q0, acc##r##_##q1, 0x20), \
		_mm256_permute2x128_si256(acc##r##_##q0, acc##r##_##q1, 0x31)) : \
	_mm256_add_epi32(e->init[q0 / 2], _mm256_permute4x64_epi64(         \
		_mm256_hadd_epi32(acc##r##_##q0, acc##r##_##q1), 0xd8)))
#define ROW_STORE(r)                                                      \
	if (rows > r)                                                     \
		store_row(t, e, row0 + r, SUMS(r, 0, 1), SUMS(r, 2, 3));
	FOR_EACH_ROW(ROW_STORE)
#undef ROW_STORE
#undef SUMS
}

#undef FOR_EACH_QUARTER_OF_ROW
#undef FOR_EACH_ROW

/* The int16 copy: one call, up to 3 rows. */
static inline __attribute__((always_inline)) void
wide_tile(const struct enpu_gemm_tile *t, const size_t rows, const int flip,
	  const int indirect)
{
	struct tile_end e;

	tile_end_setup(t, &e);
	tile_kernel(t, &e, 0, rows, flip, indirect, 1);
}

/* Int8 panels: rows in pairs, the last one alone. */
static inline __attribute__((always_inline)) void
narrow_tile(const struct enpu_gemm_tile *t, const int flip, const int indirect)
{
	struct tile_end e;
	size_t r = 0;

	tile_end_setup(t, &e);
	for (; r + 2 <= t->rows; r += 2)
		tile_kernel(t, &e, r, 2, flip, indirect, 0);
	if (r < t->rows)
		tile_kernel(t, &e, r, 1, flip, indirect, 0);
}

#define DEFINE_WIDE(name, rows, flip, indirect)                            \
	static void name(const struct enpu_gemm_tile *t)                   \
	{                                                                  \
		wide_tile(t, rows, flip, indirect);                        \
	}
DEFINE_WIDE(direct_0, ROWS, 0, 0) DEFINE_WIDE(direct_1, ROWS, 1, 0)
DEFINE_WIDE(indirect_1_0, 1, 0, 1) DEFINE_WIDE(indirect_2_0, 2, 0, 1)
DEFINE_WIDE(indirect_3_0, 3, 0, 1) DEFINE_WIDE(indirect_1_1, 1, 1, 1)
DEFINE_WIDE(indirect_2_1, 2, 1, 1) DEFINE_WIDE(indirect_3_1, 3, 1, 1)
#undef DEFINE_WIDE

static void narrow_direct_0(const struct enpu_gemm_tile *t) { narrow_tile(t, 0, 0); }
static void narrow_direct_1(const struct enpu_gemm_tile *t) { narrow_tile(t, 1, 0); }
static void narrow_indirect_0(const struct enpu_gemm_tile *t) { narrow_tile(t, 0, 1); }
static void narrow_indirect_1(const struct enpu_gemm_tile *t) { narrow_tile(t, 1, 1); }

/* [flip] */
static const enpu_gemm_microkernel wide_direct[2] = { direct_0, direct_1 };
/* [flip][rows - 1] */
static const enpu_gemm_microkernel wide_indirect[2][ROWS] = {
	{ indirect_1_0, indirect_2_0, indirect_3_0 },
	{ indirect_1_1, indirect_2_1, indirect_3_1 },
};
/* [indirect][flip] */
static const enpu_gemm_microkernel narrow_tiles[2][2] = {
	{ narrow_direct_0, narrow_direct_1 },
	{ narrow_indirect_0, narrow_indirect_1 },
};

/*
 * A plain GEMM's tiles of 1-2 rows (a batch-1 classifier, the last tile
 * of M) read the int8 panels: half the weight bytes for as many
 * multiplies. A convolution's are only ever the last tile of a block.
 */
static void gemm_avx2(const struct enpu_gemm_tile *t)
{
	int indirect = t->indirection != NULL, flip = t->a_flip != 0;

	if (t->panel16 && indirect)
		wide_indirect[flip][t->rows - 1](t);
	else if (t->panel16 && t->rows == ROWS)
		wide_direct[flip](t);
	else
		narrow_tiles[indirect][flip](t);
}

const struct enpu_gemm_kernel_info enpu_gemm_kernel_avx2 = {
	.kernel = gemm_avx2,
	.rows = ROWS,
	.columns = COLUMNS,
	.int16_panels = 1,
};
