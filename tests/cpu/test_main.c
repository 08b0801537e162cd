// SPDX-License-Identifier: MIT
/*
 * Runner for the CPU kernel tests. Optional argument: a substring; only
 * tests whose name contains it run.
 */
#include "test_cpu.h"

#include <string.h>

static const struct test_case *const suites[] = {
	requant_tests,
	requant_neon_tests,
	gemm_tests,
	context_tests,
	conv_tests,
	pool_tests,
	eltwise_tests,
	lookup_tests,
	float_tests,
	limits_tests,
};

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(suites); i++) {
		for (const struct test_case *t = suites[i]; t->name; t++) {
			if (!filter || strstr(t->name, filter))
				test_run(t, &passed, &failed);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
