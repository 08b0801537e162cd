// SPDX-License-Identifier: MIT
/*
 * Host unit tests of libenpu and enpu-info: everything that can be checked
 * without the driver. Prints one line per test and "N passed, N failed";
 * exits 1 if any test failed. An argument runs only the tests whose name
 * contains it.
 */
#include <stdio.h>
#include <string.h>

#include "unit_test.h"

int main(int argc, char **argv)
{
	const struct unit_test_suite *suites[] = {
		&device_list_suite,
		&device_open_suite,
		&format_suite,
		&enpu_info_suite,
		&cmdbuf_suite,
		&buffer_arguments_suite,
		&layer_commands_suite,
		&job_arguments_suite,
	};
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int passed = 0, failed = 0;

	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		for (size_t t = 0; t < suites[s]->count; t++) {
			const struct unit_test *test = &suites[s]->tests[t];

			if (filter && !strstr(test->name, filter))
				continue;
			/* Flush so a test's stderr lands after its name. */
			fflush(stdout);
			if (test->run() == 0) {
				printf("ok   %s.%s\n", suites[s]->name,
				       test->name);
				passed++;
			} else {
				printf("FAIL %s.%s\n", suites[s]->name,
				       test->name);
				failed++;
			}
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
