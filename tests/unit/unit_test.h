/* SPDX-License-Identifier: MIT */
/*
 * A minimal test runner: each test is a function returning 0 on success;
 * CHECK() reports the failed condition with its location and fails it.
 */
#ifndef ENPU_UNIT_TEST_H
#define ENPU_UNIT_TEST_H

#include <stddef.h>
#include <stdio.h>

struct unit_test {
	const char *name;
	int (*run)(void);
};

struct unit_test_suite {
	const char *name;
	const struct unit_test *tests;
	size_t count;
};

#define CHECK(condition)                                                    \
	do {                                                                \
		if (!(condition)) {                                         \
			fprintf(stderr, "%s:%d: %s: check failed: %s\n",    \
				__FILE__, __LINE__, __func__, #condition);  \
			return 1;                                           \
		}                                                           \
	} while (0)

#define UNIT_TEST(function) { #function, function }

#define UNIT_TEST_SUITE(suite_name, ...)                                    \
	static const struct unit_test suite_name##_tests[] = { __VA_ARGS__ }; \
	const struct unit_test_suite suite_name##_suite = {                  \
		#suite_name, suite_name##_tests,                             \
		sizeof(suite_name##_tests) / sizeof(suite_name##_tests[0])   \
	}

extern const struct unit_test_suite device_list_suite;
extern const struct unit_test_suite device_open_suite;
extern const struct unit_test_suite format_suite;
extern const struct unit_test_suite enpu_info_suite;
extern const struct unit_test_suite cmdbuf_suite;
extern const struct unit_test_suite buffer_arguments_suite;
extern const struct unit_test_suite layer_commands_suite;
extern const struct unit_test_suite job_arguments_suite;

#endif /* ENPU_UNIT_TEST_H */
