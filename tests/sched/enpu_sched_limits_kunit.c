// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the per-context queue limit (rule 6 of docs/scheduler.md):
 * the quota a SUBMIT takes one unit of per context, file and device
 * (kernel/enpu_limits.[ch]; enpu_job.c turns a refused unit into -EAGAIN
 * and gives back the units it took). Kernel only: the quota is a kernel
 * atomic, so there is no host build of this suite (make check-kunit).
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "enpu_limits.h"

/* Up to the limit a unit is granted; at the limit it is refused. */
static void limits_test_take_to_the_limit(struct kunit *test)
{
	struct enpu_quota q = { .used = ATOMIC_INIT(0) };
	unsigned int i;

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, enpu_quota_take(&q, 3));
	KUNIT_EXPECT_EQ(test, enpu_quota_used(&q), 3u);
	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 3));
	/* A refusal takes nothing. */
	KUNIT_EXPECT_EQ(test, enpu_quota_used(&q), 3u);
}

/* A unit given back (a fence signalled) makes room for exactly one. */
static void limits_test_give_makes_room(struct kunit *test)
{
	struct enpu_quota q = { .used = ATOMIC_INIT(0) };

	KUNIT_EXPECT_TRUE(test, enpu_quota_take(&q, 1));
	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 1));
	enpu_quota_give(&q);
	KUNIT_EXPECT_EQ(test, enpu_quota_used(&q), 0u);
	KUNIT_EXPECT_TRUE(test, enpu_quota_take(&q, 1));
	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 1));
}

/* A limit lowered below what is in flight refuses until enough return. */
static void limits_test_lowered_limit(struct kunit *test)
{
	struct enpu_quota q = { .used = ATOMIC_INIT(0) };
	unsigned int i;

	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, enpu_quota_take(&q, 4));
	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 2));
	enpu_quota_give(&q);
	enpu_quota_give(&q);
	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 2));
	enpu_quota_give(&q);
	KUNIT_EXPECT_TRUE(test, enpu_quota_take(&q, 2));
}

/* Limit 0 refuses everything (a context that may not queue at all). */
static void limits_test_zero(struct kunit *test)
{
	struct enpu_quota q = { .used = ATOMIC_INIT(0) };

	KUNIT_EXPECT_FALSE(test, enpu_quota_take(&q, 0));
	KUNIT_EXPECT_EQ(test, enpu_quota_used(&q), 0u);
}

/* The documented defaults and names (docs/scheduler.md, kernel/README.md). */
static void limits_test_defaults(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, enpu_limit(ENPU_LIMIT_JOBS_PER_CONTEXT), 64u);
	KUNIT_EXPECT_EQ(test, enpu_limit(ENPU_LIMIT_JOBS_PER_FILE), 256u);
	KUNIT_EXPECT_EQ(test, enpu_limit(ENPU_LIMIT_JOBS), 1024u);
	KUNIT_EXPECT_STREQ(test, enpu_limit_name(ENPU_LIMIT_JOBS_PER_CONTEXT),
			   "max_jobs_per_context");
	/* A context's limit is below a file's, a file's below the device's:
	 * one context cannot fill its file's or the device's share. */
	KUNIT_EXPECT_LT(test, enpu_limit(ENPU_LIMIT_JOBS_PER_CONTEXT),
			enpu_limit(ENPU_LIMIT_JOBS_PER_FILE));
	KUNIT_EXPECT_LT(test, enpu_limit(ENPU_LIMIT_JOBS_PER_FILE),
			enpu_limit(ENPU_LIMIT_JOBS));
}

static struct kunit_case enpu_sched_limits_cases[] = {
	KUNIT_CASE(limits_test_take_to_the_limit),
	KUNIT_CASE(limits_test_give_makes_room),
	KUNIT_CASE(limits_test_lowered_limit),
	KUNIT_CASE(limits_test_zero),
	KUNIT_CASE(limits_test_defaults),
	{}
};

static struct kunit_suite enpu_sched_limits_suite = {
	.name = "enpu_sched_limits",
	.test_cases = enpu_sched_limits_cases,
};

kunit_test_suite(enpu_sched_limits_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("enpu per-context queue limits: KUnit suite");
