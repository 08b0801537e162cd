// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the scheduling policy (scheduler/enpu_sched_policy.c),
 * one case per rule, each boundary from both sides, plus simulations
 * against a mock backend (a device that runs one job at a time and
 * preempts instantly) for the properties stated in docs/scheduler.md:
 * the starvation bound, fairness among equals, REALTIME latency under a
 * LOW load, and priority inheritance through fences.
 *
 * Builds as a KUnit suite (make check-kunit) and, with kunit_user.h, as a
 * host test (make test-sched).
 */
#ifdef __KERNEL__
#include <kunit/test.h>
#include <linux/module.h>
#else
#include "kunit_user.h"
#endif

#include "enpu_sched_policy.h"

#define US		1000ull
#define MS		1000000ull
#define SLICE		(4 * MS)
#define AGING		(50 * MS)

static void rq_setup(struct enpu_sched_rq *rq, enum enpu_sched_mode mode,
		     u64 slice, u64 aging)
{
	struct enpu_sched_params p = {
		.mode = mode,
		.slice_ns = slice,
		.aging_ns = aging,
	};

	enpu_sched_rq_init(rq, &p);
}

static void rq_default(struct enpu_sched_rq *rq)
{
	rq_setup(rq, ENPU_SCHED_PREEMPTIVE, SLICE, AGING);
}

static void sched_test_empty(struct kunit *test)
{
	struct enpu_sched_rq rq;

	rq_default(&rq);
	KUNIT_EXPECT_NULL(test, enpu_sched_pick(&rq, 0));
	KUNIT_EXPECT_NULL(test, enpu_sched_pick(&rq, 1000 * AGING));
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, NULL, 5), U64_MAX);
}

/* Highest level first, whatever the order they became ready in. */
static void sched_test_priority_order(struct kunit *test)
{
	struct enpu_sched_entity e[ENPU_SCHED_LEVELS];
	struct enpu_sched_rq rq;
	int l;

	rq_default(&rq);
	for (l = 0; l < ENPU_SCHED_LEVELS; l++) {
		enpu_sched_entity_init(&e[l], l);
		enpu_sched_ready(&rq, &e[l], l, l);
	}
	for (l = ENPU_SCHED_LEVELS - 1; l >= 0; l--) {
		KUNIT_ASSERT_PTR_EQ(test, enpu_sched_pick(&rq, 10), &e[l]);
		enpu_sched_start(&rq, &e[l], 10);
		KUNIT_EXPECT_EQ(test, e[l].state, ENPU_SCHED_RUNNING);
	}
	KUNIT_EXPECT_NULL(test, enpu_sched_pick(&rq, 10));
}

/* Within a level: the order they became ready in. */
static void sched_test_ready_order(struct kunit *test)
{
	struct enpu_sched_entity e[3];
	struct enpu_sched_rq rq;
	int i;

	rq_default(&rq);
	for (i = 2; i >= 0; i--)
		enpu_sched_entity_init(&e[i], ENPU_SCHED_NORMAL);
	enpu_sched_ready(&rq, &e[1], 100, 0);
	enpu_sched_ready(&rq, &e[0], 200, 0);
	enpu_sched_ready(&rq, &e[2], 300, 0);
	/* Ready twice is a no-op: it keeps its place. */
	enpu_sched_ready(&rq, &e[1], 400, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 500), &e[1]);
	enpu_sched_start(&rq, &e[1], 500);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 500), &e[0]);
	enpu_sched_unready(&e[0]);
	KUNIT_EXPECT_EQ(test, e[0].state, ENPU_SCHED_IDLE);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 500), &e[2]);
	/* Equal keys (ready in the same ns): arrival order. */
	enpu_sched_ready(&rq, &e[0], 300, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 500), &e[2]);
}

/* A higher level preempts at once, a lower or equal one does not. */
static void sched_test_preempt_higher(struct kunit *test)
{
	struct enpu_sched_entity run, low, same, high, rt;
	struct enpu_sched_rq rq;

	rq_default(&rq);
	enpu_sched_entity_init(&run, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&same, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&high, ENPU_SCHED_HIGH);
	enpu_sched_entity_init(&rt, ENPU_SCHED_REALTIME);
	enpu_sched_ready(&rq, &run, 0, 0);
	enpu_sched_start(&rq, &run, 0);
	enpu_sched_ready(&rq, &low, 1, 0);
	enpu_sched_ready(&rq, &same, 1, 0);
	enpu_sched_ready(&rq, &high, 1, 0);
	enpu_sched_ready(&rq, &rt, 1, 0);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &run, &low, 1));
	KUNIT_EXPECT_FALSE(test,
			   enpu_sched_should_preempt(&rq, &run, &same, 1));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &run, &high, 1));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &run, &rt, 1));
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &run, NULL, 1));
}

/* Round robin: an equal level preempts exactly when the slice is used. */
static void sched_test_slice_boundary(struct kunit *test)
{
	struct enpu_sched_entity a, b;
	struct enpu_sched_rq rq;

	rq_default(&rq);
	enpu_sched_entity_init(&a, ENPU_SCHED_HIGH);
	enpu_sched_entity_init(&b, ENPU_SCHED_HIGH);
	enpu_sched_ready(&rq, &a, 1000, 0);
	enpu_sched_start(&rq, &a, 1000);
	enpu_sched_ready(&rq, &b, 2000, 0);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &a, &b,
							    1000 + SLICE - 1));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &a, &b,
							   1000 + SLICE));
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &a, 5000),
			1000 + SLICE);
	/* Nothing else ready: no timer needed for the slice. */
	enpu_sched_unready(&b);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &a, 5000), U64_MAX);
}

/*
 * Slice accounting over several jobs: an entity that finishes a job with
 * slice time left keeps its turn; once the slice is used it goes behind
 * the others with a fresh slice.
 */
static void sched_test_slice_accounting(struct kunit *test)
{
	struct enpu_sched_entity a, b;
	struct enpu_sched_rq rq;
	u64 t = 0;

	rq_default(&rq);
	enpu_sched_entity_init(&a, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&b, ENPU_SCHED_NORMAL);
	enpu_sched_ready(&rq, &a, t, 0);
	enpu_sched_start(&rq, &a, t);
	enpu_sched_ready(&rq, &b, t + 1, 0);
	t += 1 * MS;
	enpu_sched_stop(&rq, &a, t, true, 0);
	KUNIT_EXPECT_EQ(test, a.slice_used, 1 * MS);
	KUNIT_ASSERT_PTR_EQ(test, enpu_sched_pick(&rq, t), &a);
	enpu_sched_start(&rq, &a, t);
	t += SLICE - 1 * MS - 1;
	enpu_sched_stop(&rq, &a, t, true, 0);
	KUNIT_EXPECT_EQ(test, a.slice_used, SLICE - 1);
	KUNIT_ASSERT_PTR_EQ(test, enpu_sched_pick(&rq, t), &a);
	enpu_sched_start(&rq, &a, t);
	/* One ns of slice left: b may preempt after it, not before. */
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &a, &b, t));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &a, &b, t + 1));
	t += 1;
	enpu_sched_stop(&rq, &a, t, true, 0);
	KUNIT_EXPECT_EQ(test, a.slice_used, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, t), &b);
	/* A stop without more work goes idle and forgets the slice. */
	enpu_sched_start(&rq, &b, t);
	enpu_sched_stop(&rq, &b, t + 10, false, 0);
	KUNIT_EXPECT_EQ(test, b.state, ENPU_SCHED_IDLE);
	KUNIT_EXPECT_EQ(test, b.slice_used, 0);
}

/* Preempted by a higher level: keeps its turn and the rest of its slice. */
static void sched_test_preempted_keeps_turn(struct kunit *test)
{
	struct enpu_sched_entity a, b, rt;
	struct enpu_sched_rq rq;
	u64 t = 0;

	rq_default(&rq);
	enpu_sched_entity_init(&a, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&b, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&rt, ENPU_SCHED_REALTIME);
	enpu_sched_ready(&rq, &a, t, 0);
	enpu_sched_start(&rq, &a, t);
	enpu_sched_ready(&rq, &b, t + 10, 0);
	t = 1 * MS;
	enpu_sched_ready(&rq, &rt, t, 0);
	KUNIT_ASSERT_TRUE(test, enpu_sched_should_preempt(&rq, &a, &rt, t));
	enpu_sched_stop(&rq, &a, t, true, 0);
	enpu_sched_start(&rq, &rt, t);
	t += 200 * US;
	enpu_sched_stop(&rq, &rt, t, false, 0);
	KUNIT_ASSERT_PTR_EQ(test, enpu_sched_pick(&rq, t), &a);
	enpu_sched_start(&rq, &a, t);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &a, &b,
							    t + SLICE - MS - 1));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &a, &b,
							   t + SLICE - MS));
}

/* Aging: one level per aging period, capped at HIGH; HIGH never ages. */
static void sched_test_aging_steps(struct kunit *test)
{
	struct enpu_sched_entity low, normal, high, rt;
	struct enpu_sched_rq rq;
	u64 t0 = 7 * MS;

	rq_default(&rq);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&normal, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&high, ENPU_SCHED_HIGH);
	enpu_sched_entity_init(&rt, ENPU_SCHED_REALTIME);
	enpu_sched_ready(&rq, &low, t0, 0);
	enpu_sched_ready(&rq, &normal, t0, 0);
	enpu_sched_ready(&rq, &high, t0, 0);
	enpu_sched_ready(&rq, &rt, t0, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, t0 + AGING - 1),
			ENPU_SCHED_LOW);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, t0 + AGING),
			ENPU_SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low,
						  t0 + 2 * AGING - 1),
			ENPU_SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, t0 + 2 * AGING),
			ENPU_SCHED_HIGH);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low,
						  t0 + 1000 * AGING),
			ENPU_SCHED_HIGH);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &normal,
						  t0 + AGING - 1),
			ENPU_SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &normal, t0 + AGING),
			ENPU_SCHED_HIGH);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &high,
						  t0 + 1000 * AGING),
			ENPU_SCHED_HIGH);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &rt, t0 + 1000 * AGING),
			ENPU_SCHED_REALTIME);
	/* Time before the level started waiting counts as no wait. */
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, t0 - 1),
			ENPU_SCHED_LOW);
}

/* An aged level beats an equal one that became ready later, not sooner. */
static void sched_test_aging_tie(struct kunit *test)
{
	struct enpu_sched_entity low, normal;
	struct enpu_sched_rq rq;

	rq_default(&rq);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&normal, ENPU_SCHED_NORMAL);
	enpu_sched_ready(&rq, &low, 0, 0);
	enpu_sched_ready(&rq, &normal, AGING / 2, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, AGING - 1), &normal);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, AGING), &low);
	/* Both at HIGH now (NORMAL aged too): LOW is still the older one. */
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 2 * AGING), &low);
	enpu_sched_unready(&low);
	enpu_sched_ready(&rq, &low, AGING, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 2 * AGING), &normal);
}

/* The aging period is never shorter than the slice. */
static void sched_test_aging_clamp(struct kunit *test)
{
	struct enpu_sched_entity low;
	struct enpu_sched_rq rq;

	rq_setup(&rq, ENPU_SCHED_PREEMPTIVE, 10 * MS, 4 * MS);
	KUNIT_EXPECT_EQ(test, rq.params.aging_ns, 10 * MS);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_ready(&rq, &low, 0, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, 10 * MS - 1),
			ENPU_SCHED_LOW);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &low, 10 * MS),
			ENPU_SCHED_NORMAL);
}

/* A start of the level restarts its aging, for every entity of it. */
static void sched_test_aging_resets(struct kunit *test)
{
	struct enpu_sched_entity a, b;
	struct enpu_sched_rq rq;
	u64 t = 2 * AGING;

	rq_default(&rq);
	enpu_sched_entity_init(&a, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&b, ENPU_SCHED_LOW);
	enpu_sched_ready(&rq, &a, 0, 0);
	enpu_sched_ready(&rq, &b, 0, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &b, t),
			ENPU_SCHED_HIGH);
	enpu_sched_start(&rq, &a, t);
	KUNIT_EXPECT_EQ(test, a.run_level, ENPU_SCHED_HIGH);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &b, t),
			ENPU_SCHED_LOW);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &b, t + AGING),
			ENPU_SCHED_NORMAL);
	/* A level that empties and fills again starts from zero. */
	enpu_sched_unready(&b);
	enpu_sched_ready(&rq, &b, t + 3 * AGING, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &b, t + 3 * AGING),
			ENPU_SCHED_LOW);
}

/*
 * An entity started at an aged level defends that level for its slice,
 * then only its own: NORMAL waits for the slice, REALTIME does not.
 */
static void sched_test_aged_slice(struct kunit *test)
{
	struct enpu_sched_entity low, normal, rt;
	struct enpu_sched_rq rq;
	u64 t = 2 * AGING;

	rq_default(&rq);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&normal, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&rt, ENPU_SCHED_REALTIME);
	enpu_sched_ready(&rq, &low, 0, 0);
	enpu_sched_start(&rq, &low, t);
	enpu_sched_ready(&rq, &normal, t, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_running_level(&rq, &low, t),
			ENPU_SCHED_HIGH);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &low, &normal,
							    t + SLICE - 1));
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &low, &normal,
							   t + SLICE));
	KUNIT_EXPECT_EQ(test, enpu_sched_running_level(&rq, &low, t + SLICE),
			ENPU_SCHED_LOW);
	enpu_sched_ready(&rq, &rt, t, 0);
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &low, &rt, t));
}

/* The timer points: slice end and the next aging step of each level. */
static void sched_test_next_event(struct kunit *test)
{
	struct enpu_sched_entity run, low, normal;
	struct enpu_sched_rq rq;

	rq_setup(&rq, ENPU_SCHED_PREEMPTIVE, 20 * MS, 30 * MS);
	enpu_sched_entity_init(&run, ENPU_SCHED_HIGH);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&normal, ENPU_SCHED_NORMAL);
	enpu_sched_ready(&rq, &run, 0, 0);
	enpu_sched_start(&rq, &run, 0);
	enpu_sched_ready(&rq, &low, 5 * MS, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &run, 6 * MS),
			20 * MS);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &run, 20 * MS),
			35 * MS);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &run, 35 * MS),
			65 * MS);
	/* LOW reached the cap and the slice is over: nothing left. */
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &run, 65 * MS),
			U64_MAX);
	enpu_sched_ready(&rq, &normal, 70 * MS, 0);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &run, 70 * MS),
			100 * MS);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, NULL, 99 * MS),
			100 * MS);
}

/* FIFO mode: submission order within a level, no preemption, no aging. */
static void sched_test_fifo_mode(struct kunit *test)
{
	struct enpu_sched_entity a, b, low, rt;
	struct enpu_sched_rq rq;

	rq_setup(&rq, ENPU_SCHED_FIFO, SLICE, AGING);
	enpu_sched_entity_init(&a, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&b, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&rt, ENPU_SCHED_REALTIME);
	enpu_sched_ready(&rq, &a, 100, 9);
	enpu_sched_ready(&rq, &b, 200, 4);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 300), &b);
	enpu_sched_ready(&rq, &low, 0, 1);
	enpu_sched_start(&rq, &low, 0);
	enpu_sched_ready(&rq, &rt, 10, 20);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &low, &rt,
							    10 * SLICE));
	KUNIT_EXPECT_EQ(test, enpu_sched_level_of(&rq, &a, 100 * AGING),
			ENPU_SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, enpu_sched_next_event(&rq, &low, 10), U64_MAX);
	/* A stop with more work re-keys by the new head's order. */
	enpu_sched_stop(&rq, &low, 100 * AGING, true, 3);
	KUNIT_EXPECT_EQ(test, low.key, 3);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 100 * AGING), &rt);
}

/*
 * Priority inheritance: a LOW entity whose fence a REALTIME job waits on
 * competes and defends at REALTIME until the waiter is released.
 */
static void sched_test_boost(struct kunit *test)
{
	struct enpu_sched_entity low, normal, high;
	struct enpu_sched_rq rq;

	rq_default(&rq);
	enpu_sched_entity_init(&low, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&normal, ENPU_SCHED_NORMAL);
	enpu_sched_entity_init(&high, ENPU_SCHED_HIGH);
	enpu_sched_ready(&rq, &normal, 0, 0);
	enpu_sched_start(&rq, &normal, 0);
	enpu_sched_ready(&rq, &high, 1, 0);
	enpu_sched_ready(&rq, &low, 2, 0);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 3), &high);
	enpu_sched_boost(&rq, &low, ENPU_SCHED_REALTIME, 3);
	KUNIT_EXPECT_EQ(test, low.level, ENPU_SCHED_REALTIME);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 3), &low);
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &normal, &low,
							   3));
	/* Two waiters: the higher counts; each release undoes one. */
	enpu_sched_boost(&rq, &low, ENPU_SCHED_HIGH, 4);
	enpu_sched_unboost(&rq, &low, ENPU_SCHED_REALTIME, 5);
	KUNIT_EXPECT_EQ(test, low.level, ENPU_SCHED_HIGH);
	/* Equal to HIGH now, and became ready after it. */
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 5), &high);
	enpu_sched_unboost(&rq, &low, ENPU_SCHED_HIGH, 6);
	KUNIT_EXPECT_EQ(test, low.level, ENPU_SCHED_LOW);
	/* An unmatched release changes nothing. */
	enpu_sched_unboost(&rq, &low, ENPU_SCHED_HIGH, 7);
	enpu_sched_unboost(&rq, &low, ENPU_SCHED_LEVELS, 7);
	enpu_sched_boost(&rq, &low, ENPU_SCHED_LEVELS, 7);
	KUNIT_EXPECT_EQ(test, low.level, ENPU_SCHED_LOW);
	/* A boost below the entity's own priority changes nothing either. */
	enpu_sched_boost(&rq, &high, ENPU_SCHED_LOW, 8);
	KUNIT_EXPECT_EQ(test, high.level, ENPU_SCHED_HIGH);

	/* Boosted while running: HIGH cannot preempt it any more. */
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &normal, &high,
							   9));
	enpu_sched_boost(&rq, &normal, ENPU_SCHED_REALTIME, 9);
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &normal,
							    &high, 9));
	KUNIT_EXPECT_FALSE(test, enpu_sched_should_preempt(&rq, &normal,
							    &high,
							    9 + 10 * SLICE));
	enpu_sched_unboost(&rq, &normal, ENPU_SCHED_REALTIME, 10);
	KUNIT_EXPECT_TRUE(test, enpu_sched_should_preempt(&rq, &normal, &high,
							   10));
}

/* A boosted entity joins its new level by age, not at the tail. */
static void sched_test_boost_order(struct kunit *test)
{
	struct enpu_sched_entity old, young;
	struct enpu_sched_rq rq;

	rq_default(&rq);
	enpu_sched_entity_init(&old, ENPU_SCHED_LOW);
	enpu_sched_entity_init(&young, ENPU_SCHED_HIGH);
	enpu_sched_ready(&rq, &old, 10, 0);
	enpu_sched_ready(&rq, &young, 20, 0);
	enpu_sched_boost(&rq, &old, ENPU_SCHED_HIGH, 30);
	KUNIT_EXPECT_PTR_EQ(test, enpu_sched_pick(&rq, 30), &old);
}

/*
 * The mock backend: a device that runs one job at a time, preempts and
 * resumes instantly, and a mechanism that asks the policy at every event
 * (job done, arrival, the policy's own timer) exactly as scheduler/ does.
 */
#define SIM_MAX		8

struct sim_ent {
	struct enpu_sched_entity se;
	u64 job_len;		/* base length of its jobs */
	u64 jobs;		/* jobs left to run, incl. the head */
	u64 head_left;		/* device time left in the head job */
	u64 count;		/* jobs finished */
	u64 ready_at;		/* when it last began to wait */
	u64 max_wait;		/* longest wait for a start */
	u64 service;		/* device time received */
	u64 first_start;
	bool started;
	bool varied;		/* job lengths 1..7 x job_len / 4 */
};

struct sim {
	struct enpu_sched_rq rq;
	struct sim_ent e[SIM_MAX];
	unsigned int n;
	struct sim_ent *running;
	u64 now;
	u64 order;
	u64 preemptions;
};

static u64 sim_len(struct sim_ent *x)
{
	if (!x->varied)
		return x->job_len;
	return x->job_len / 4 * (1 + (x->count * 7919 + 3) % 7);
}

static struct sim_ent *sim_add(struct sim *s, u8 prio, u64 job_len, u64 jobs)
{
	struct sim_ent *x = &s->e[s->n++];

	enpu_sched_entity_init(&x->se, prio);
	x->job_len = job_len;
	x->jobs = 0;
	x->count = 0;
	x->max_wait = 0;
	x->service = 0;
	x->started = false;
	x->varied = false;
	if (jobs) {
		x->jobs = jobs;
		x->head_left = sim_len(x);
		x->ready_at = s->now;
		enpu_sched_ready(&s->rq, &x->se, s->now, ++s->order);
	}
	return x;
}

/* More jobs for an idle entity (an arrival). */
static void sim_submit(struct sim *s, struct sim_ent *x, u64 jobs)
{
	if (!x->jobs) {
		x->head_left = sim_len(x);
		x->ready_at = s->now;
		enpu_sched_ready(&s->rq, &x->se, s->now, ++s->order);
	}
	x->jobs += jobs;
}

static void sim_start(struct sim *s, struct sim_ent *x)
{
	u64 wait = s->now - x->ready_at;

	if (wait > x->max_wait)
		x->max_wait = wait;
	if (!x->started) {
		x->started = true;
		x->first_start = s->now;
	}
	enpu_sched_start(&s->rq, &x->se, s->now);
	s->running = x;
}

static void sim_decide(struct sim *s)
{
	struct enpu_sched_entity *c = enpu_sched_pick(&s->rq, s->now);
	struct sim_ent *cand = c ? container_of(c, struct sim_ent, se) : NULL;

	if (!cand)
		return;
	if (!s->running) {
		sim_start(s, cand);
		return;
	}
	if (!enpu_sched_should_preempt(&s->rq, &s->running->se, c, s->now))
		return;
	s->preemptions++;
	enpu_sched_stop(&s->rq, &s->running->se, s->now, true, ++s->order);
	s->running->ready_at = s->now;
	s->running = NULL;
	sim_start(s, container_of(enpu_sched_pick(&s->rq, s->now),
				  struct sim_ent, se));
}

/* Runs the model until @end. */
static void sim_run(struct sim *s, u64 end)
{
	while (s->now < end) {
		struct sim_ent *x;
		u64 next = end, ev;

		sim_decide(s);
		x = s->running;
		if (x && s->now + x->head_left < next)
			next = s->now + x->head_left;
		ev = enpu_sched_next_event(&s->rq, x ? &x->se : NULL, s->now);
		if (ev < next)
			next = ev;
		if (x) {
			x->head_left -= next - s->now;
			x->service += next - s->now;
		}
		s->now = next;
		if (x && !x->head_left) {
			x->count++;
			x->jobs--;
			if (x->jobs)
				x->head_left = sim_len(x);
			x->ready_at = s->now;
			enpu_sched_stop(&s->rq, &x->se, s->now, x->jobs > 0,
					++s->order);
			s->running = NULL;
		}
	}
}

#define SIM_FOREVER	(1ull << 40)

/*
 * The starvation bound: under a saturating NORMAL load each of k LOW
 * contexts waits at most k * (aging + slice) for each start (the mock
 * preempts instantly, so the preemption latency term is 0).
 */
static void sim_starvation(struct kunit *test, u64 slice, u64 aging,
			   unsigned int normals, unsigned int lows)
{
	u64 bound = lows * (aging + slice), total = 5000 * MS;
	static struct sim s;
	unsigned int i;

	memset(&s, 0, sizeof(s));
	rq_setup(&s.rq, ENPU_SCHED_PREEMPTIVE, slice, aging);
	for (i = 0; i < normals; i++)
		sim_add(&s, ENPU_SCHED_NORMAL, (40 + 30 * i) * MS,
			SIM_FOREVER)->varied = i & 1;
	for (i = 0; i < lows; i++)
		sim_add(&s, ENPU_SCHED_LOW, 60 * MS, SIM_FOREVER);
	sim_run(&s, total);
	for (i = normals; i < normals + lows; i++) {
		struct sim_ent *low = &s.e[i];

		KUNIT_EXPECT_TRUE(test, low->started);
		KUNIT_EXPECT_LE(test, low->max_wait, bound);
		/* Not trivially met: LOW did wait an aging period. */
		KUNIT_EXPECT_GE(test, low->max_wait, aging);
		/* And it got its share of one slice per round. */
		KUNIT_EXPECT_GE(test, low->service,
				total / (bound + slice) * slice - slice);
	}
	for (i = 0; i < normals; i++)
		KUNIT_EXPECT_LE(test, s.e[i].max_wait, normals * slice + bound);
}

static void sched_test_sim_starvation(struct kunit *test)
{
	sim_starvation(test, SLICE, AGING, 3, 1);
	sim_starvation(test, 2 * MS, 20 * MS, 5, 2);
	/* Aging equal to the slice, the shortest allowed. */
	sim_starvation(test, 10 * MS, 10 * MS, 2, 1);
}

/* Without aging (FIFO mode) the same load starves LOW: the control. */
static void sched_test_sim_fifo_starves(struct kunit *test)
{
	static struct sim s;
	struct sim_ent *low;
	int i;

	memset(&s, 0, sizeof(s));
	rq_setup(&s.rq, ENPU_SCHED_FIFO, SLICE, AGING);
	for (i = 0; i < 3; i++)
		sim_add(&s, ENPU_SCHED_NORMAL, 100 * MS, SIM_FOREVER);
	low = sim_add(&s, ENPU_SCHED_LOW, 60 * MS, SIM_FOREVER);
	sim_run(&s, 5000 * MS);
	KUNIT_EXPECT_FALSE(test, low->started);
	KUNIT_EXPECT_EQ(test, s.preemptions, 0);
}

/* Jain's index of the service, in thousandths. */
static u64 jain_milli(struct sim *s, unsigned int n)
{
	u64 sum = 0, sq = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		u64 us = s->e[i].service / US;

		sum += us;
		sq += us * us;
	}
	return sq ? sum * sum * 1000 / (n * sq) : 0;
}

/* Four equal contexts with jobs of mixed lengths share the device fairly. */
static void sched_test_sim_fairness(struct kunit *test)
{
	static struct sim s;
	unsigned int i;

	memset(&s, 0, sizeof(s));
	rq_default(&s.rq);
	for (i = 0; i < 4; i++) {
		sim_add(&s, ENPU_SCHED_NORMAL, (i + 1) * 2 * MS, 0)->varied =
			true;
		sim_submit(&s, &s.e[i], SIM_FOREVER);
	}
	sim_run(&s, 2000 * MS);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_GE(test, s.e[i].service, 500 * MS - 2 * SLICE);
		KUNIT_EXPECT_LE(test, s.e[i].service, 500 * MS + 2 * SLICE);
	}
	KUNIT_EXPECT_GE(test, jain_milli(&s, 4), 999);
}

/*
 * REALTIME latency: a 0.2 ms job every 5 ms while LOW contexts run 50 ms
 * jobs starts at once in preemptive mode; in FIFO mode it waits for the
 * LOW job.
 */
static u64 sim_rt_worst(enum enpu_sched_mode mode, u64 *low_service)
{
	static struct sim s;
	struct sim_ent *rt;
	u64 worst = 0, t;

	memset(&s, 0, sizeof(s));
	rq_setup(&s.rq, mode, SLICE, AGING);
	sim_add(&s, ENPU_SCHED_LOW, 50 * MS, SIM_FOREVER);
	sim_add(&s, ENPU_SCHED_LOW, 50 * MS, SIM_FOREVER);
	rt = sim_add(&s, ENPU_SCHED_REALTIME, 200 * US, 0);
	for (t = 1 * MS; t < 1000 * MS; t += 5 * MS) {
		sim_run(&s, t);
		rt->max_wait = 0;
		sim_submit(&s, rt, 1);
		sim_run(&s, t + 4 * MS);
		if (rt->jobs)	/* not even started: worse than 4 ms */
			worst = 5 * MS;
		if (rt->max_wait > worst)
			worst = rt->max_wait;
	}
	*low_service = s.e[0].service + s.e[1].service;
	return worst;
}

static void sched_test_sim_realtime(struct kunit *test)
{
	u64 low_pre, low_fifo;

	KUNIT_EXPECT_EQ(test, sim_rt_worst(ENPU_SCHED_PREEMPTIVE, &low_pre),
			0);
	KUNIT_EXPECT_GE(test, sim_rt_worst(ENPU_SCHED_FIFO, &low_fifo),
			4 * MS);
	/* LOW keeps the rest of the device: 96 % minus the 1 ms start. */
	KUNIT_EXPECT_GE(test, low_pre, 999 * MS - 200 * US * 200);
}

/*
 * Priority inversion through a fence: a REALTIME job needs the result of
 * a LOW job while NORMAL saturates the device. The mechanism boosts the
 * LOW entity for as long as the REALTIME job waits: it runs at once and
 * the REALTIME job starts when it is done. Without the boost (the
 * control) LOW would wait for aging.
 */
static u64 sim_inversion(bool boost)
{
	static struct sim s;
	struct sim_ent *low, *rt;

	memset(&s, 0, sizeof(s));
	rq_default(&s.rq);
	sim_add(&s, ENPU_SCHED_NORMAL, 100 * MS, SIM_FOREVER);
	low = sim_add(&s, ENPU_SCHED_LOW, 1 * MS, 0);
	rt = sim_add(&s, ENPU_SCHED_REALTIME, 200 * US, 0);
	sim_run(&s, 10 * MS);
	sim_submit(&s, low, 1);
	if (boost)
		enpu_sched_boost(&s.rq, &low->se, ENPU_SCHED_REALTIME, s.now);
	while (low->jobs)
		sim_run(&s, s.now + 100 * US);
	if (boost)
		enpu_sched_unboost(&s.rq, &low->se, ENPU_SCHED_REALTIME,
				   s.now);
	sim_submit(&s, rt, 1);
	sim_run(&s, s.now + 1 * MS);
	return rt->first_start - 10 * MS;
}

static void sched_test_sim_inversion(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, sim_inversion(true), 1 * MS + 100 * US);
	KUNIT_EXPECT_GE(test, sim_inversion(false), AGING);
}

static struct kunit_case enpu_sched_policy_cases[] = {
	KUNIT_CASE(sched_test_empty),
	KUNIT_CASE(sched_test_priority_order),
	KUNIT_CASE(sched_test_ready_order),
	KUNIT_CASE(sched_test_preempt_higher),
	KUNIT_CASE(sched_test_slice_boundary),
	KUNIT_CASE(sched_test_slice_accounting),
	KUNIT_CASE(sched_test_preempted_keeps_turn),
	KUNIT_CASE(sched_test_aging_steps),
	KUNIT_CASE(sched_test_aging_tie),
	KUNIT_CASE(sched_test_aging_clamp),
	KUNIT_CASE(sched_test_aging_resets),
	KUNIT_CASE(sched_test_aged_slice),
	KUNIT_CASE(sched_test_next_event),
	KUNIT_CASE(sched_test_fifo_mode),
	KUNIT_CASE(sched_test_boost),
	KUNIT_CASE(sched_test_boost_order),
	KUNIT_CASE(sched_test_sim_starvation),
	KUNIT_CASE(sched_test_sim_fifo_starves),
	KUNIT_CASE(sched_test_sim_fairness),
	KUNIT_CASE(sched_test_sim_realtime),
	KUNIT_CASE(sched_test_sim_inversion),
	{}
};

static struct kunit_suite enpu_sched_policy_suite = {
	.name = "enpu_sched_policy",
	.test_cases = enpu_sched_policy_cases,
};
kunit_test_suite(enpu_sched_policy_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the ENPU scheduling policy");
