/* SPDX-License-Identifier: MIT */
/*
 * Minimal test harness for the CPU kernel tests: each test is a function,
 * CHECK() records a failure with its location and keeps going, and the
 * runner ends with the line "N passed, N failed".
 */
#ifndef ENPU_TEST_HARNESS_H
#define ENPU_TEST_HARNESS_H

#include <stdio.h>

struct test_state {
	int failures;       /* failed checks in the current test */
};

#define CHECK(state, cond, ...)                                              \
	do {                                                                 \
		if (!(cond)) {                                               \
			(state)->failures++;                                 \
			fprintf(stderr, "  %s:%d: check failed: %s: ",       \
				__FILE__, __LINE__, #cond);                  \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
		}                                                            \
	} while (0)

struct test_case {
	const char *name;
	void (*run)(struct test_state *state);
};

#endif /* ENPU_TEST_HARNESS_H */
