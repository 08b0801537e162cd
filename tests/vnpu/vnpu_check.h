/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tiny harness shared by the vnpu test files: CHECK counts a failure
 * of the running test and says where and why; main() in vnpu_test.c runs
 * the tables of tests.
 */
#ifndef VNPU_CHECK_H
#define VNPU_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vnpu_rig.h"

extern int test_failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		test_failures++;					\
		fprintf(stderr, "    %s:%d: check failed: %s: ",		\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

struct test {
	const char *name;
	void (*run)(struct rig *r);
};

/* vnpu_test.c: RESET, boot the good image, enable vectors. */
bool recover(struct rig *r);
/* vnpu_test.c: runs a table, one "ok"/"FAIL" line per test. */
void run_tests(struct rig *r, const struct test *list, size_t count,
	       unsigned int *passed, unsigned int *failed);

/* vnpu_dma_test.c: interface 1.1 (BO tables, DMA commands). They need a
 * READY device with all vectors enabled and leave it that way. */
extern const struct test dma_tests[];
extern const size_t dma_test_count;

/* vnpu_layer_test.c: interface 1.2 (layer commands); same conditions. */
extern const struct test layer_tests[];
extern const size_t layer_test_count;

/* vnpu_thermal_test.c: interface 1.5 (power, thermal); same conditions. */
extern const struct test thermal_tests[];
extern const size_t thermal_test_count;

/* vnpu_preempt_test.c: interface 1.3, on a vnpu of their own. */
int run_preempt_tests(const char *vnpu, unsigned int *passed,
		      unsigned int *failed);

#endif /* VNPU_CHECK_H */
