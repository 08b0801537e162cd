/* SPDX-License-Identifier: MIT */
/* Shared helpers of the CPU kernel tests. */
#ifndef ENPU_TEST_CPU_H
#define ENPU_TEST_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_cpu.h"
#include "test_harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* xorshift64*: deterministic, state owned by the caller. */
static inline uint64_t test_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * A buffer of @size bytes followed by an inaccessible page: reading past
 * its end faults. Free with test_guarded_free(buffer, size).
 */
void *test_guarded_alloc(size_t size);
void test_guarded_free(void *buffer, size_t size);

/*
 * Calls @run on @ctx set to every ISA this machine supports, each at 1
 * and 2 threads (@path names the ISA), then leaves @ctx on AUTO and 1
 * thread: the loop of every "paths match the reference" test.
 */
typedef void (*test_path_function)(enpu_cpu_context *ctx, void *argument,
				   const char *path, unsigned int threads);
void test_each_path(enpu_cpu_context *ctx, test_path_function run,
		    void *argument);

/*
 * The offset of the first byte in which @got differs from @expected,
 * @size when none does.
 */
size_t test_first_difference(const uint8_t *got, const uint8_t *expected,
			     size_t size);

/*
 * A kernel's output against the reference's on every path of
 * test_each_path(): @got's @size bytes are filled with 0x5a first (so a
 * byte the kernel never writes shows), then @run is called and the bytes
 * compared. At the first path whose @run fails or whose bytes differ,
 * @report is called and the remaining paths are skipped.
 */
struct test_path_difference {
	const char *path;
	unsigned int threads;
	int err;		/* what @run returned */
	size_t at;		/* the first differing byte, size if none */
	unsigned int got, expected;	/* its values, 0 if none */
};

struct test_output_check {
	int (*run)(enpu_cpu_context *ctx, const void *argument);
	void (*report)(enpu_cpu_context *ctx, const void *argument,
		       const struct test_path_difference *difference);
	const void *argument;
	uint8_t *got;
	const uint8_t *expected;
	size_t size;
};

/* 0 when every path matched, -1 after a report. */
int test_each_path_output(enpu_cpu_context *ctx,
			  const struct test_output_check *check);

/* Hand-computed cases of the requantization rule (test_requant.c). */
struct requant_vector {
	int32_t acc, multiplier, shift, zero_point, qmin, qmax, expected;
	const char *why;
};
extern const struct requant_vector requant_vectors[];
extern const size_t requant_vector_count;

extern const struct test_case requant_tests[];
extern const struct test_case requant_neon_tests[];
extern const struct test_case gemm_tests[];
extern const struct test_case context_tests[];
extern const struct test_case conv_tests[];
extern const struct test_case pool_tests[];
extern const struct test_case eltwise_tests[];
extern const struct test_case lookup_tests[];
extern const struct test_case float_tests[];
extern const struct test_case limits_tests[];

#endif /* ENPU_TEST_CPU_H */
