/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subset of <kunit/test.h> our suites use, for userspace: the same
 * suite source builds as a KUnit module (make check-kunit, UML) and as a
 * host program under ASan/UBSan (make test-sched). Expectations record a
 * failure and go on; assertions end the case (longjmp), as in KUnit.
 * Each case prints one TAP line; kunit_user_main() ends with
 * "N passed, N failed" like every runner of make check.
 */
#ifndef KUNIT_USER_H
#define KUNIT_USER_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct kunit {
	const char *name;
	int failures;
	jmp_buf abort;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn)	{ .run_case = fn, .name = #fn }

#define KUNIT_USER_MAX_SUITES 32
extern struct kunit_suite *kunit_user_suites[KUNIT_USER_MAX_SUITES];
extern unsigned int kunit_user_suite_count;

#define kunit_test_suite(suite)						\
	static void __attribute__((constructor))			\
	kunit_user_register_##suite(void)				\
	{								\
		if (kunit_user_suite_count < KUNIT_USER_MAX_SUITES)	\
			kunit_user_suites[kunit_user_suite_count++] = &suite; \
	}

#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)

static inline void kunit_user_fail(struct kunit *test, const char *file,
				   int line, const char *what)
{
	test->failures++;
	printf("    # %s: %s:%d: expectation failed: %s\n", test->name, file,
	       line, what);
}

#define KUNIT_USER_CHECK(test, cond, text, fatal)			\
	do {								\
		if (!(cond)) {						\
			kunit_user_fail(test, __FILE__, __LINE__, text); \
			if (fatal)					\
				longjmp((test)->abort, 1);		\
		}							\
	} while (0)

#define KUNIT_USER_BINARY(test, l, op, r, fatal)			\
	do {								\
		long long kl_ = (long long)(l), kr_ = (long long)(r);	\
		if (!(kl_ op kr_)) {					\
			char kbuf_[256];				\
			snprintf(kbuf_, sizeof(kbuf_),			\
				 "%s %s %s (%lld vs %lld)", #l, #op, #r, \
				 kl_, kr_);				\
			kunit_user_fail(test, __FILE__, __LINE__, kbuf_); \
			if (fatal)					\
				longjmp((test)->abort, 1);		\
		}							\
	} while (0)

#define KUNIT_EXPECT_TRUE(t, c)	KUNIT_USER_CHECK(t, c, #c, false)
#define KUNIT_EXPECT_FALSE(t, c)	KUNIT_USER_CHECK(t, !(c), "!(" #c ")", false)
#define KUNIT_ASSERT_TRUE(t, c)	KUNIT_USER_CHECK(t, c, #c, true)
#define KUNIT_ASSERT_FALSE(t, c)	KUNIT_USER_CHECK(t, !(c), "!(" #c ")", true)
#define KUNIT_EXPECT_EQ(t, l, r)	KUNIT_USER_BINARY(t, l, ==, r, false)
#define KUNIT_EXPECT_NE(t, l, r)	KUNIT_USER_BINARY(t, l, !=, r, false)
#define KUNIT_EXPECT_LT(t, l, r)	KUNIT_USER_BINARY(t, l, <, r, false)
#define KUNIT_EXPECT_LE(t, l, r)	KUNIT_USER_BINARY(t, l, <=, r, false)
#define KUNIT_EXPECT_GT(t, l, r)	KUNIT_USER_BINARY(t, l, >, r, false)
#define KUNIT_EXPECT_GE(t, l, r)	KUNIT_USER_BINARY(t, l, >=, r, false)
#define KUNIT_ASSERT_EQ(t, l, r)	KUNIT_USER_BINARY(t, l, ==, r, true)
#define KUNIT_ASSERT_LE(t, l, r)	KUNIT_USER_BINARY(t, l, <=, r, true)
#define KUNIT_EXPECT_PTR_EQ(t, l, r) \
	KUNIT_USER_CHECK(t, (const void *)(l) == (const void *)(r), \
			 #l " == " #r, false)
#define KUNIT_ASSERT_PTR_EQ(t, l, r) \
	KUNIT_USER_CHECK(t, (const void *)(l) == (const void *)(r), \
			 #l " == " #r, true)
#define KUNIT_EXPECT_NULL(t, p) \
	KUNIT_USER_CHECK(t, (p) == NULL, #p " == NULL", false)
#define KUNIT_ASSERT_NOT_NULL(t, p) \
	KUNIT_USER_CHECK(t, (p) != NULL, #p " != NULL", true)

/* Runs every registered suite; returns the process exit status. */
int kunit_user_main(void);

#endif /* KUNIT_USER_H */
