/* SPDX-License-Identifier: MIT */
/*
 * Internal pieces shared by the CPU runtime's files: the context, the packed
 * weight layout and the GEMM microkernel contract.
 */
#ifndef ENPU_CPU_INTERNAL_H
#define ENPU_CPU_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "enpu_cpu.h"
#include "thread_pool.h"

/* The context's fields: context_internal.h (it needs the kernel table). */

/* Records a message for enpu_cpu_context_error() and returns @err. */
int enpu_cpu_fail(enpu_cpu_context *context, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Bits of enpu_cpu_cpu_features(). */
int enpu_cpu_detect_isa_support(enum enpu_cpu_isa isa);
/*
 * AVX-512 VBMI (vpermi2b) on top of the AVX-512 VNNI level, which does
 * not imply it: kernels.c picks the VBMI byte lookup only then.
 */
int enpu_cpu_detect_avx512_vbmi(void);

/*
 * The CPUID and XCR0 words the x86 ISA decision reads. Reading them
 * (x86 only) is apart from deciding on them (every architecture), so a
 * test can take away each bit a host that has them all never lacks.
 */
struct enpu_cpu_x86_words {
	uint32_t max_leaf;	/* CPUID.0:EAX */
	uint32_t leaf1_ecx;	/* CPUID.1:ECX */
	uint32_t leaf7_ebx;	/* CPUID.(EAX=7,ECX=0):EBX */
	uint32_t leaf7_ecx;	/* CPUID.(EAX=7,ECX=0):ECX */
	uint64_t xcr0;		/* XGETBV(0); 0 when OSXSAVE is clear */
};

#define ENPU_CPU_X86_AVX2 (1u << 0)
#define ENPU_CPU_X86_AVX512_VNNI (1u << 1)
/* Not an ISA level: VBMI on top of AVX512_VNNI (the VBMI byte lookup). */
#define ENPU_CPU_X86_AVX512_VBMI (1u << 2)

/* ENPU_CPU_X86_* levels that @words allow (AVX-512 only with AVX2). */
unsigned int enpu_cpu_x86_levels(const struct enpu_cpu_x86_words *words);

/*
 * Packed weights. Columns are grouped in panels of ENPU_GEMM_PANEL_COLUMNS;
 * within a panel, K is cut in groups of 4 and each group stores, column after
 * column, the 4 consecutive k values of that column:
 *
 *   panel p, group g: bytes [g * 64 + c * 4 + j] = B[4g + j][16p + c]
 *
 * That is exactly the operand shape of vpdpbusd (4 u8 x 4 s8 per int32 lane)
 * and costs the other ISAs nothing. K is zero-padded to a multiple of 4 and
 * N to a multiple of 16, so padded lanes contribute 0 whatever A holds.
 */
#define ENPU_GEMM_PANEL_COLUMNS 16
#define ENPU_GEMM_K_GROUP 4

/*
 * A second copy of the same weights as int16, for the AVX2 kernel (no
 * VNNI: it multiplies int16 pairs with vpmaddwd). Made only when the
 * packing context's GEMM kernel asks for it (enpu_gemm_kernel_info
 * .int16_panels); weights without it still run everywhere (the AVX2
 * kernel then widens the bytes itself). Within a panel, per group of 4 k,
 * four quarters of 4 columns, each one ymm: the low 128 bits hold the
 * pair (k0, k1) of its 4 columns, the high 128 bits the pair (k2, k3):
 *
 *   panel p, group g, quarter q, half h, column i, element e:
 *   packed16[p * panel16_stride + g * 64 + q * 16 + h * 8 + i * 2 + e]
 *       = B[4g + 2h + e][16p + 4q + i]
 *
 * so one 32-bit broadcast of an A row's 4 bytes, shuffled into (a0, a1)
 * in the low half and (a2, a3) in the high half, multiplies all of them.
 */
#define ENPU_GEMM_PANEL16_GROUP 64	/* int16 elements per group of 4 k */

struct enpu_cpu_gemm_weights {
	size_t k;
	size_t n;
	size_t k_groups;      /* ceil(k / 4) */
	size_t panel_count;   /* ceil(n / 16) */
	size_t panel_stride;  /* bytes per panel: k_groups * 64 */
	int8_t *packed;       /* panel_count * panel_stride bytes, 64-aligned */
	int32_t *bias;        /* panel_count * 16, zero padded */
	int32_t *column_sum;  /* panel_count * 16: sum_k B[k][n], zero padded */
	/* NULL, or panel_count * panel16_stride int16 (layout above) */
	int16_t *packed16;
	size_t panel16_stride;	/* int16 elements per panel: k_groups * 64 */
};

/*
 * One microkernel call computes a tile of at most the ISA's rows x columns.
 * Accumulators start at bias[n] - a_zero_point_u8 * column_sum[n]; int8
 * activations are turned into uint8 by flipping the sign bit (a ^ 0x80),
 * which adds 128 to both the value and the zero point, so kernels only ever
 * see uint8 A. All int32 arithmetic wraps (two's complement), identically on
 * every path.
 */
struct enpu_gemm_tile {
	const uint8_t *a;         /* row 0, column 0 of the tile */
	size_t lda;               /* bytes */
	size_t rows;              /* 1..kernel rows */
	size_t columns;           /* 1..kernel columns, valid output columns */
	uint32_t a_flip;          /* 0 for uint8 A, 0x80808080 for int8 A */
	int32_t a_zero_point;     /* uint8 domain, 0..255 */
	size_t k;
	size_t k_groups;
	const int8_t *panel;      /* first panel of the tile */
	size_t panel_stride;
	/* The same panels as int16 (packed16 above), or NULL */
	const int16_t *panel16;
	size_t panel16_stride;    /* int16 elements */
	const int32_t *bias;      /* at the tile's first column, padded */
	const int32_t *column_sum;
	const int32_t *multiplier;  /* at the first column; NULL = int32 out */
	const int32_t *shift;
	int per_channel;
	int32_t zero_point;
	int32_t min;
	int32_t max;
	enum enpu_cpu_dtype c_type;
	void *c;                  /* row 0, column 0 of the tile */
	size_t ldc;               /* elements */
	/*
	 * Indirect rows (convolution through an indirection buffer): NULL for
	 * a plain GEMM, where row r is a + r * lda. Otherwise row r reads K as
	 * taps pieces of tap_bytes each, piece t starting at
	 * indirection[r * taps + t] + a_offset; tap_bytes is a multiple of 4
	 * (no piece has a tail) and k == taps * tap_bytes. Each piece may be
	 * read in full: the caller guarantees the bytes exist.
	 */
	const uint8_t *const *indirection;
	size_t taps;
	size_t tap_bytes;
	size_t a_offset;
};

typedef void (*enpu_gemm_microkernel)(const struct enpu_gemm_tile *tile);

struct enpu_gemm_kernel_info {
	enpu_gemm_microkernel kernel;
	size_t rows;
	size_t columns;   /* a multiple of ENPU_GEMM_PANEL_COLUMNS */
	/* Weights packed for this kernel also get packed16 (above). */
	int int16_panels;
};

extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_scalar;
extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_avx2;
extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_avx512_vnni;
extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon;
extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon_dot;
extern const struct enpu_gemm_kernel_info enpu_gemm_kernel_neon_i8mm;


/* Copies the requantization of @rq into a tile (not for int32 outputs). */
void enpu_gemm_tile_set_requant(struct enpu_gemm_tile *tile,
				const struct enpu_cpu_requant *rq);

static inline size_t enpu_divide_up(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/*
 * Reads the last, partial group of 4 bytes of an A row without touching
 * memory past the row's end; the bytes beyond K are zero (their weights are
 * zero anyway).
 */
static inline uint32_t enpu_gemm_load_a_tail(const uint8_t *row, size_t k)
{
	size_t start = k & ~(size_t)3;
	uint32_t value = 0;

	for (size_t j = 0; j < (k & 3); j++)
		value |= (uint32_t)row[start + j] << (8 * j);
	return value;
}

#endif /* ENPU_CPU_INTERNAL_H */
