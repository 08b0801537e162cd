// SPDX-License-Identifier: MIT
/*
 * Plans compiled ahead, switched at request boundaries (see
 * enpu_thermal_plans.h). The switch is measured from the policy's
 * decision to the moment the next request can start on the new plan; it
 * is a pointer change because everything a plan needs was built at load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu_thermal_plans.h"

struct th_plan {
	char name[32];
	enpu_rt_session *session;
};

struct enpu_th_plans {
	struct th_plan plan[ENPU_TH_MAX_PLANS];
	unsigned int count;
	unsigned int current;
	struct enpu_th_monitor *monitor;
	struct enpu_th_policy *policy;
	struct enpu_th_snapshot snapshot;	/* large: not on the stack */
	FILE *log;
	struct enpu_th_plans_stats stats;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(char *why, size_t size, const char *fmt, const char *a,
		const char *b)
{
	if (why && size)
		snprintf(why, size, fmt, a, b);
	return -1;
}

int enpu_th_plans_create(const char *model,
			 const struct enpu_th_plan_spec *specs,
			 unsigned int count,
			 const struct enpu_th_hooks_config *config,
			 struct enpu_th_plans **out, char *why,
			 size_t why_size)
{
	struct enpu_th_policy_config pc = config->policy;
	struct enpu_th_plans *p;
	unsigned int i, npu = 0;
	char reason[160];

	*out = NULL;
	if (count < 1 || count > ENPU_TH_MAX_PLANS)
		return fail(why, why_size, "thermal plans: %s%s",
			    "between 1 and 8 plans", "");
	for (i = 0; i < count; i++) {
		if (specs[i].uses_npu && i != npu)
			return fail(why, why_size,
				    "thermal plans: NPU plan '%s' after a CPU plan%s",
				    specs[i].name, "");
		npu += specs[i].uses_npu ? 1 : 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return fail(why, why_size, "thermal plans: %s%s", "out of memory", "");
	p->log = config->log;
	pc.plan_count = count;
	pc.npu_plan_count = npu;
	if (enpu_th_policy_create(&pc, &p->policy, reason, sizeof(reason))) {
		enpu_th_plans_destroy(p);
		return fail(why, why_size, "%s%s", reason, "");
	}
	if (enpu_th_monitor_create(config->sysfs_root, config->poll_ms,
				   config->use_netlink, &p->monitor)) {
		enpu_th_plans_destroy(p);
		return fail(why, why_size, "thermal plans: sysfs root '%s'%s",
			    config->sysfs_root ? config->sysfs_root : "/", "");
	}
	for (i = 0; i < count; i++) {
		enpu_rt_options *o = NULL;
		enum enpu_rt_status st;

		snprintf(p->plan[i].name, sizeof(p->plan[i].name), "%s",
			 specs[i].name);
		if (enpu_rt_options_create(&o) ||
		    enpu_rt_options_set_threads(o, specs[i].threads ? specs[i].threads : 1) ||
		    enpu_rt_options_set_backends(o, specs[i].backends)) {
			snprintf(reason, sizeof(reason), "%s",
				 o ? enpu_rt_options_error(o) : "out of memory");
			enpu_rt_options_destroy(o);
			enpu_th_plans_destroy(p);
			return fail(why, why_size, "thermal plan '%s': %s",
				    specs[i].name, reason);
		}
		st = enpu_rt_session_create_from_file(model, o, &p->plan[i].session);
		if (st) {
			snprintf(reason, sizeof(reason), "%s", enpu_rt_options_error(o));
			enpu_rt_options_destroy(o);
			enpu_th_plans_destroy(p);
			return fail(why, why_size, "thermal plan '%s': %s",
				    specs[i].name, reason);
		}
		enpu_rt_options_destroy(o);
		p->count++;
	}
	*out = p;
	return 0;
}

void enpu_th_plans_destroy(struct enpu_th_plans *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->count; i++)
		enpu_rt_session_destroy(p->plan[i].session);
	enpu_th_monitor_destroy(p->monitor);
	enpu_th_policy_destroy(p->policy);
	free(p);
}

unsigned int enpu_th_plans_count(const struct enpu_th_plans *p)
{
	return p->count;
}

enpu_rt_session *enpu_th_plans_session(struct enpu_th_plans *p,
				       unsigned int index)
{
	return index < p->count ? p->plan[index].session : NULL;
}

const char *enpu_th_plans_name(const struct enpu_th_plans *p,
			       unsigned int index)
{
	return index < p->count ? p->plan[index].name : "?";
}

struct enpu_th_policy *enpu_th_plans_policy(struct enpu_th_plans *p)
{
	return p->policy;
}

int enpu_th_plans_select(struct enpu_th_plans *p, unsigned int index)
{
	if (index >= p->count)
		return -EINVAL;
	p->current = index;
	return 0;
}

static void log_decision(struct enpu_th_plans *p, unsigned int from,
			 const struct enpu_th_decision *d, uint64_t switch_ns)
{
	const struct enpu_th_headroom *h = &d->headroom;

	if (!p->log)
		return;
	fprintf(p->log, "thermal: t=%llu ms plan %s -> %s (%s): npu headroom ",
		(unsigned long long)d->at_ms, p->plan[from].name,
		p->plan[d->plan].name, enpu_th_reason_name(d->reason));
	if (h->npu_mc == INT32_MAX)
		fprintf(p->log, "unknown");
	else
		fprintf(p->log, "%.1f C (%.1f C projected)", h->npu_mc / 1000.0,
			d->npu_projected_mc / 1000.0);
	fprintf(p->log, ", cpu headroom ");
	if (h->cpu_mc == INT32_MAX)
		fprintf(p->log, "unknown");
	else
		fprintf(p->log, "%.1f C", h->cpu_mc / 1000.0);
	fprintf(p->log, ", npu clock %.0f%%, cpu clock %.0f%%, switch %.1f us\n",
		h->npu_clock * 100, h->cpu_clock * 100, switch_ns / 1000.0);
	fflush(p->log);
}

enum enpu_rt_status enpu_th_plans_run(struct enpu_th_plans *p, uint64_t now_ms,
				      unsigned int *plan, uint32_t *latency_us)
{
	struct enpu_th_decision d;
	enum enpu_rt_status st;
	uint64_t start, ns;

	if (enpu_th_monitor_poll(p->monitor, now_ms, &p->snapshot) == 1) {
		uint64_t t0 = mono_ns();
		unsigned int from = p->current;

		p->stats.samples++;
		enpu_th_policy_update(p->policy, &p->snapshot, now_ms, &d);
		if (d.changed && d.plan < p->count) {
			/* Everything the new plan needs exists already. */
			p->current = d.plan;
			ns = mono_ns() - t0;
			p->stats.switches++;
			p->stats.switch_ns_total += ns;
			if (ns > p->stats.switch_ns_max)
				p->stats.switch_ns_max = ns;
			log_decision(p, from, &d, ns);
		}
	}
	start = mono_ns();
	st = enpu_rt_session_run(p->plan[p->current].session);
	ns = mono_ns() - start;
	p->stats.requests++;
	*plan = p->current;
	*latency_us = ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000);
	if (st == ENPU_RT_OK)
		enpu_th_policy_observe_latency(p->policy, *latency_us);
	return st;
}

void enpu_th_plans_stats(const struct enpu_th_plans *p,
			 struct enpu_th_plans_stats *stats)
{
	*stats = p->stats;
}
