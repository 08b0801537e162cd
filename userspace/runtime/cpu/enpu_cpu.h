/* SPDX-License-Identifier: MIT */
/*
 * ENPU CPU fallback runtime: int8 kernels for the operators the NPU cannot
 * take. A context owns the thread pool and the chosen instruction set; no
 * state lives outside it. Every function returns 0 or a negative errno; the
 * context keeps a message naming the object and the reason of the last
 * failure (enpu_cpu_context_error()).
 */
#ifndef ENPU_CPU_H
#define ENPU_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_quantization.h"

typedef struct enpu_cpu_context enpu_cpu_context;
typedef struct enpu_cpu_gemm_weights enpu_cpu_gemm_weights;

/* Kernel families; AUTO picks the best one the CPU and the OS support. */
enum enpu_cpu_isa {
	ENPU_CPU_ISA_AUTO = 0,
	ENPU_CPU_ISA_SCALAR,
	ENPU_CPU_ISA_AVX2,
	ENPU_CPU_ISA_AVX512_VNNI,
	ENPU_CPU_ISA_COUNT,
};

enum enpu_cpu_dtype {
	ENPU_CPU_UINT8 = 1,
	ENPU_CPU_INT8,
	ENPU_CPU_INT32,
};

/* "auto", "scalar", "avx2", "avx512vnni". */
const char *enpu_cpu_isa_name(enum enpu_cpu_isa isa);
/* Parses the names above; returns -EINVAL for anything else. */
int enpu_cpu_isa_from_name(const char *name, enum enpu_cpu_isa *isa);
/* 1 when this CPU and OS can run @isa, else 0. */
int enpu_cpu_isa_supported(enum enpu_cpu_isa isa);

/*
 * Creates a context running on @thread_count threads (the caller's thread
 * is one of them). The instruction set is AUTO unless the environment
 * variable ENPU_CPU_ISA names one, which lets tests force a path.
 */
int enpu_cpu_context_create(unsigned int thread_count,
			    enpu_cpu_context **context);
void enpu_cpu_context_destroy(enpu_cpu_context *context);
int enpu_cpu_context_set_thread_count(enpu_cpu_context *context,
				      unsigned int thread_count);
unsigned int enpu_cpu_context_thread_count(const enpu_cpu_context *context);
/* Forces an instruction set; -ENOTSUP if this machine cannot run it. */
int enpu_cpu_context_set_isa(enpu_cpu_context *context,
			     enum enpu_cpu_isa isa);
/* The resolved instruction set (never AUTO). */
enum enpu_cpu_isa enpu_cpu_context_isa(const enpu_cpu_context *context);
/* Message describing the last failure on this context, or "". */
const char *enpu_cpu_context_error(const enpu_cpu_context *context);

/*
 * Packs the int8 weights B[K][N] (row stride @ldb elements) and the optional
 * int32 bias[N] once, at model load. The packed object holds the column sums
 * needed to correct for the activation zero point, is read-only afterwards
 * and may be shared by concurrent GEMM calls. One layout serves every ISA.
 * K is limited to ENPU_CPU_GEMM_MAX_K so that the int32 sum of products
 * cannot overflow.
 */
#define ENPU_CPU_GEMM_MAX_K 65536
int enpu_cpu_gemm_weights_pack(enpu_cpu_context *context, size_t k, size_t n,
			       const int8_t *b, size_t ldb,
			       const int32_t *bias,
			       enpu_cpu_gemm_weights **weights);
void enpu_cpu_gemm_weights_destroy(enpu_cpu_gemm_weights *weights);
size_t enpu_cpu_gemm_weights_k(const enpu_cpu_gemm_weights *weights);
size_t enpu_cpu_gemm_weights_n(const enpu_cpu_gemm_weights *weights);

/*
 * Output quantization of a GEMM. Per output channel n:
 *   C[m][n] = enpu_requantize(acc[m][n], multiplier[n], shift[n],
 *                             zero_point, min, max)
 * min/max are in the output type's range and express a fused ReLU/ReLU6.
 * With per_channel == 0 only multiplier[0]/shift[0] are read.
 * Ignored when the output type is ENPU_CPU_INT32.
 */
struct enpu_cpu_requant {
	const int32_t *multiplier;
	const int32_t *shift;
	int per_channel;
	int32_t zero_point;
	int32_t min;
	int32_t max;
};

/*
 * C[M][N] = requant(sum_k (A[m][k] - a_zero_point) * B[k][n] + bias[n]).
 * A is uint8 or int8 (row stride lda elements); C is uint8, int8 or the raw
 * int32 accumulators (row stride ldc elements).
 */
struct enpu_cpu_gemm_args {
	size_t m;
	const void *a;
	size_t lda;
	enum enpu_cpu_dtype a_type;
	int32_t a_zero_point;
	const enpu_cpu_gemm_weights *weights;
	void *c;
	size_t ldc;
	enum enpu_cpu_dtype c_type;
	const struct enpu_cpu_requant *requant;
};

int enpu_cpu_gemm(enpu_cpu_context *context,
		  const struct enpu_cpu_gemm_args *args);

/*
 * The definition every optimized path is tested against: straight loops over
 * the unpacked B, no packing, no threads. Same argument checks as
 * enpu_cpu_gemm(), B given unpacked.
 */
int enpu_cpu_gemm_reference(enpu_cpu_context *context,
			    const struct enpu_cpu_gemm_args *args,
			    const int8_t *b, size_t ldb, const int32_t *bias,
			    size_t k, size_t n);

/*
 * Converts a real scale (input_scale * weight_scale / output_scale) to the
 * (multiplier, shift) pair of enpu_requantize(). The scale must be finite and
 * in (0, 1); returns -EINVAL otherwise, -ERANGE when it is below what the
 * rule can represent (< 2^-62 rounds to a zero multiplier, reported).
 */
int enpu_requant_from_scale(double scale, int32_t *multiplier,
			    int32_t *shift);

#endif /* ENPU_CPU_H */
