/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests of what the vnpu does with a stream its checker accepted
 * (device_plan_test.c): the decoded layer, its cost, the job's cycle
 * total, the units a command is cut into, and the DMA commands' effect.
 * Run by test-validate after its rule-by-rule tests.
 */
#ifndef ENPU_TEST_DEVICE_PLAN_H
#define ENPU_TEST_DEVICE_PLAN_H

/* Checks made and failed by one test. */
struct test_tally {
	int checks;
	int failures;
};

struct device_plan_test {
	const char *name;
	void (*run)(struct test_tally *t);
};

extern const struct device_plan_test device_plan_tests[];
extern const unsigned int device_plan_test_count;

#endif /* ENPU_TEST_DEVICE_PLAN_H */
