// SPDX-License-Identifier: MIT
/*
 * Plan switching at request boundaries with real runtime sessions (the
 * ONNX suite's Relu model, two CPU sessions standing in for an NPU plan
 * and a CPU plan) driven by a fake sysfs tree: the switch happens at the
 * first request after the sample that saw the heat, never more often than
 * the poll interval, every request completes with the right output on
 * whichever plan ran it, the switch is logged and measured (< 1 ms).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu_thermal_plans.h"

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "    %s:%d: %s: ", __FILE__, __LINE__,	\
			#cond);						\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s/%s)\"", root, rel);
	if (system(cmd))
		failures++;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f) {
		failures++;
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void npu_temp(const char *mc)
{
	put("sys/class/thermal/thermal_zone0/temp", mc);
}

int main(int argc, char **argv)
{
	static const struct enpu_th_plan_spec specs[] = {
		{ "npu", "cpu", 1, 1 },
		{ "cpu", "cpu", 1, 0 },
	};
	struct enpu_th_hooks_config config = { 0 };
	struct enpu_th_plans_stats stats;
	struct enpu_th_plans *plans = NULL;
	struct enpu_rt_tensor_info info;
	float x[60];
	char why[256], *log_text = NULL, cmd[128];
	size_t log_size = 0;
	unsigned int plan, i, j;
	uint32_t latency;
	FILE *log;
	static const struct {
		uint64_t t;
		const char *temp;
		unsigned int plan;
	} steps[] = {
		{ 0, "50000\n", 0 },
		{ 50, "82000\n", 0 },	/* hot, but not sampled yet */
		{ 100, "82000\n", 1 },	/* sampled: switched before this run */
		{ 150, "60000\n", 1 },
		{ 200, "60000\n", 0 },	/* cooled, back */
		{ 300, "60000\n", 0 },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test-thermal-plans MODEL.onnx\n");
		return 2;
	}
	snprintf(root, sizeof(root), "/tmp/enpu-plans-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	put("sys/class/thermal/thermal_zone0/type", "enpu\n");
	put("sys/class/thermal/thermal_zone0/trip_point_0_type", "passive\n");
	put("sys/class/thermal/thermal_zone0/trip_point_0_temp", "85000\n");
	npu_temp("50000\n");

	log = open_memstream(&log_text, &log_size);
	config.sysfs_root = root;
	config.poll_ms = 100;
	config.log = log;
	enpu_th_policy_defaults(&config.policy, 2);
	config.policy.dwell_ms = 0;
	CHECK(enpu_th_plans_create(argv[1], specs, 2, &config, &plans, why,
				   sizeof(why)) == 0, "create: %s", why);
	if (!plans)
		return 1;
	CHECK(!strcmp(enpu_th_plans_name(plans, 1), "cpu"), "names");
	CHECK(enpu_rt_session_input_info(enpu_th_plans_session(plans, 0), 0,
					 &info) == ENPU_RT_OK && info.rank == 3,
	      "input");
	for (i = 0; i < 60; i++)
		x[i] = (float)i - 30.0f;
	for (i = 0; i < 2; i++)
		CHECK(enpu_rt_session_bind_input(enpu_th_plans_session(plans, i), 0,
						 ENPU_RT_FLOAT, 3, info.dims, x,
						 sizeof(x)) == ENPU_RT_OK, "bind");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct enpu_rt_output out;

		npu_temp(steps[i].temp);
		CHECK(enpu_th_plans_run(plans, steps[i].t, &plan, &latency) ==
		      ENPU_RT_OK, "run %u", i);
		CHECK(plan == steps[i].plan, "request %u at %llu ms ran on plan %u, want %u",
		      i, (unsigned long long)steps[i].t, plan, steps[i].plan);
		CHECK(enpu_rt_session_output(enpu_th_plans_session(plans, plan), 0,
					     &out) == ENPU_RT_OK &&
		      out.byte_size == sizeof(x), "output %u", i);
		for (j = 0; j < 60 && out.data; j++)
			if (((const float *)out.data)[j] != fmaxf(x[j], 0)) {
				CHECK(0, "request %u element %u wrong", i, j);
				break;
			}
	}
	enpu_th_plans_stats(plans, &stats);
	CHECK(stats.requests == 6 && stats.switches == 2 && stats.samples == 4,
	      "requests %llu switches %llu samples %llu",
	      (unsigned long long)stats.requests,
	      (unsigned long long)stats.switches,
	      (unsigned long long)stats.samples);
	CHECK(stats.switch_ns_max < 1000000, "switch took %llu ns",
	      (unsigned long long)stats.switch_ns_max);
	CHECK(enpu_th_plans_select(plans, 2) < 0 && enpu_th_plans_select(plans, 1) == 0,
	      "select");
	fclose(log);
	CHECK(log_text && strstr(log_text, "t=100 ms plan npu -> cpu (npu-hot): npu headroom 3.0 C") &&
	      strstr(log_text, "t=200 ms plan cpu -> npu (cooled): npu headroom 25.0 C"),
	      "log: %s", log_text ? log_text : "(none)");
	printf("%s", log_text ? log_text : "");
	free(log_text);
	enpu_th_plans_destroy(plans);
	/* A plan that cannot load is named. */
	{
		static const struct enpu_th_plan_spec bad[] = {
			{ "gpu", "opencl", 1, 0 },
		};

		config.log = NULL;
		CHECK(enpu_th_plans_create(argv[1], bad, 1, &config, &plans, why,
					   sizeof(why)) == -1 && !plans &&
		      strstr(why, "thermal plan 'gpu'"), "bad plan: %s", why);
		CHECK(enpu_th_plans_create("/nonexistent.onnx", specs, 2, &config,
					   &plans, why, sizeof(why)) == -1 &&
		      strstr(why, "thermal plan 'npu'"), "bad model: %s", why);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		failures++;
	printf("test-thermal-plans: %d passed, %d failed\n", failures ? 0 : 1,
	       failures ? 1 : 0);
	return failures ? 1 : 0;
}
