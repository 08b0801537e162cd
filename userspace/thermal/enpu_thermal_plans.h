/* SPDX-License-Identifier: MIT */
/*
 * Plans compiled ahead and switched by the thermal policy at a request
 * boundary (th_plans.c). A plan is one runtime session of the same model
 * with its own backends and thread count, all loaded (partitioned,
 * compiled) before the first request, all bound to the same input
 * buffers, so a switch is choosing another session for the next request:
 * no request is lost or re-run, and the switch itself costs what the
 * measurement says (switch_ns).
 */
#ifndef ENPU_THERMAL_PLANS_H
#define ENPU_THERMAL_PLANS_H

#include <stdio.h>

#include "enpu/enpu_rt.h"
#include "enpu_thermal.h"

struct enpu_th_plan_spec {
	const char *name;	/* "npu", "cpu", "cpu-1t", ... */
	const char *backends;	/* enpu_rt_options_set_backends() list */
	unsigned int threads;
	int uses_npu;		/* counted into npu_plan_count; first */
};

struct enpu_th_plans;

/* Hooks configuration for enpu_th_plans_create(). */
struct enpu_th_hooks_config {
	const char *sysfs_root;		/* "/" or a fake tree */
	uint32_t poll_ms;		/* >= 1000 unless testing */
	int use_netlink;
	struct enpu_th_policy_config policy;	/* plan counts filled in */
	FILE *log;			/* decisions, NULL: none */
};

/*
 * Loads one session per spec (NPU plans first) and sets up the monitor
 * and the policy. 0, or -1 with why filled in (naming the plan).
 */
int enpu_th_plans_create(const char *model,
			 const struct enpu_th_plan_spec *specs,
			 unsigned int count,
			 const struct enpu_th_hooks_config *config,
			 struct enpu_th_plans **plans, char *why,
			 size_t why_size);
void enpu_th_plans_destroy(struct enpu_th_plans *plans);
unsigned int enpu_th_plans_count(const struct enpu_th_plans *plans);
enpu_rt_session *enpu_th_plans_session(struct enpu_th_plans *plans,
				       unsigned int index);
const char *enpu_th_plans_name(const struct enpu_th_plans *plans,
			       unsigned int index);
struct enpu_th_policy *enpu_th_plans_policy(struct enpu_th_plans *plans);

/*
 * At a request boundary: samples (rate-limited), lets the policy decide,
 * switches if it says so (logged with the measured switch time). Then
 * runs the request on the current plan and feeds its latency back.
 * now_ms is the caller's clock (device time in benchmarks). Returns the
 * run's status; *plan and *latency_us describe the request.
 */
enum enpu_rt_status enpu_th_plans_run(struct enpu_th_plans *plans,
				      uint64_t now_ms, unsigned int *plan,
				      uint32_t *latency_us);
/* Forces a plan (tests, benchmarks with the hooks off). */
int enpu_th_plans_select(struct enpu_th_plans *plans, unsigned int index);

struct enpu_th_plans_stats {
	uint64_t requests;
	uint64_t switches;
	uint64_t switch_ns_max;
	uint64_t switch_ns_total;
	uint64_t samples;
};
void enpu_th_plans_stats(const struct enpu_th_plans *plans,
			 struct enpu_th_plans_stats *stats);

#endif /* ENPU_THERMAL_PLANS_H */
