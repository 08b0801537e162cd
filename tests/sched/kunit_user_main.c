// SPDX-License-Identifier: GPL-2.0
/* The userspace runner of KUnit-style suites (kunit_user.h). */
#include <stdlib.h>

#include "kunit_user.h"

struct kunit_suite *kunit_user_suites[KUNIT_USER_MAX_SUITES];
unsigned int kunit_user_suite_count;

/* In its own frame, so that nothing of the caller lives across longjmp. */
static int kunit_user_run(struct kunit_case *c)
{
	struct kunit test = { .name = c->name };

	if (!setjmp(test.abort))
		c->run_case(&test);
	return test.failures;
}

int kunit_user_main(void)
{
	unsigned int s, passed = 0, failed = 0;

	for (s = 0; s < kunit_user_suite_count; s++) {
		struct kunit_suite *suite = kunit_user_suites[s];
		struct kunit_case *c;

		printf("# suite %s\n", suite->name);
		for (c = suite->test_cases; c->run_case; c++) {
			if (kunit_user_run(c)) {
				failed++;
				printf("not ok %s.%s\n", suite->name, c->name);
			} else {
				passed++;
				printf("ok %s.%s\n", suite->name, c->name);
			}
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(void)
{
	return kunit_user_main();
}
