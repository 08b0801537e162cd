// SPDX-License-Identifier: MIT
/*
 * enpu-run --thermal: the runtime thermal hooks (userspace/thermal) on a
 * model. Loads the plans ahead (NPU-heavy "npu,cpu", "cpu" with the
 * threads asked for, "cpu-1t" when that is more than one), binds the same
 * inputs to all of them, and runs the iterations through the policy:
 * sysfs sampled at most once per --thermal-poll-ms (1000), plan switched
 * at request boundaries. --verbose prints every decision (the headroom
 * figures, the reason, the switch time) and the plan of every request.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "enpu_thermal_plans.h"
#include "run.h"

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int run_thermal(const struct run_thermal_args *t, const char *model,
		const struct run_input_file *files, size_t file_count,
		int random, uint32_t seed, unsigned int threads,
		int iterations)
{
	struct enpu_th_plan_spec specs[3] = {
		{ "npu", "npu,cpu", threads, 1 },
		{ "cpu", "cpu", threads, 0 },
		{ "cpu-1t", "cpu", 1, 0 },
	};
	struct enpu_th_hooks_config config = { 0 };
	uint64_t per_plan[3] = { 0 };
	struct enpu_th_plans_stats stats;
	struct run_inputs inputs = { 0 };
	struct enpu_th_plans *plans = NULL;
	unsigned int count = threads > 1 ? 3 : 2, i;
	char why[256];
	int rc = 1;

	config.sysfs_root = t->root;
	config.poll_ms = t->poll_ms;
	config.use_netlink = 1;
	config.log = t->verbose ? stderr : NULL;
	enpu_th_policy_defaults(&config.policy, count);
	config.policy.latency_target_us = t->latency_target_us;
	config.policy.preference = t->preference;
	if (enpu_th_plans_create(model, specs, count, &config, &plans, why,
				 sizeof(why))) {
		/* No NPU backend (or device): the CPU plans alone. */
		fprintf(stderr, "enpu-run: %s; running without the NPU plan\n",
			why);
		enpu_th_policy_defaults(&config.policy, --count);
		config.policy.latency_target_us = t->latency_target_us;
		config.policy.preference = t->preference;
		if (enpu_th_plans_create(model, specs + 1, count, &config,
					 &plans, why, sizeof(why))) {
			fprintf(stderr, "enpu-run: %s\n", why);
			return 1;
		}
	}
	if (run_inputs_bind(enpu_th_plans_session(plans, 0), files, file_count,
			    random, seed, &inputs))
		goto out;
	for (i = 1; i < count; i++)
		if (run_inputs_rebind(&inputs, enpu_th_plans_session(plans, i)))
			goto out;
	for (int r = 0; r < iterations; r++) {
		unsigned int plan;
		uint32_t us;

		if (enpu_th_plans_run(plans, wall_ms(), &plan, &us)) {
			fprintf(stderr, "enpu-run: %s\n",
				enpu_rt_session_error(enpu_th_plans_session(plans, plan)));
			goto out;
		}
		per_plan[plan]++;
		if (t->verbose)
			fprintf(stderr, "thermal: request %d on %s, %.3f ms\n", r,
				enpu_th_plans_name(plans, plan), us / 1000.0);
	}
	enpu_th_plans_stats(plans, &stats);
	printf("thermal: %llu request(s):", (unsigned long long)stats.requests);
	for (i = 0; i < count; i++)
		printf(" %s %llu", enpu_th_plans_name(plans, i),
		       (unsigned long long)per_plan[i]);
	printf("; %llu switch(es), longest %.1f us; %llu sysfs sample(s)\n",
	       (unsigned long long)stats.switches, stats.switch_ns_max / 1000.0,
	       (unsigned long long)stats.samples);
	rc = 0;
out:
	run_inputs_free(&inputs);
	enpu_th_plans_destroy(plans);
	return rc;
}
