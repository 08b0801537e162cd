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

/* Runs @test, prints its "ok"/"FAIL" line and counts it. */
static inline void test_run(const struct test_case *test, int *passed,
			    int *failed)
{
	struct test_state state = { 0 };

	test->run(&state);
	printf("%s %s\n", state.failures ? "FAIL" : "ok  ", test->name);
	fflush(stdout);
	if (state.failures)
		(*failed)++;
	else
		(*passed)++;
}

#endif /* ENPU_TEST_HARNESS_H */
