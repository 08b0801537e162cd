// SPDX-License-Identifier: MIT
/*
 * Headroom figures and the plan policy.
 *
 * Plans are ordered from the most NPU work to the least; the first
 * npu_plan_count use the NPU, the rest are CPU-only (the last one with
 * the fewest CPU threads). The policy moves one plan at a time:
 *
 *   away from the NPU   NPU headroom below enter_mc, or the headroom
 *                       projected horizon_ms ahead below it (heating at
 *                       the rate seen since the previous sample), or the
 *                       NPU clock (devfreq cap/top) below npu_clock_low;
 *   to fewer threads    on a CPU plan, CPU headroom below enter_mc;
 *   back                headroom above exit_mc (and the NPU clock back
 *                       above npu_clock_low + 0.2): one step per dwell.
 *
 * The projection is there because sampling is slow next to the heat: at
 * most once a second, while a device with a 2 s thermal time constant
 * under load rises several degrees between two samples, so a policy that
 * waits to see the threshold crossed is a sample late and the device is
 * at its passive trip (clock capped, frames late) before the switch.
 *
 * enter_mc < exit_mc is the hysteresis; dwell_ms is the least time between
 * two switches, except that an NPU already past its passive trip (negative
 * headroom), or projected past it, is left at once. A latency target missed on a CPU plan while
 * the NPU has headroom again steps back without waiting for exit_mc. The
 * latency preference leaves the NPU 2 degC later and returns 3 degC
 * sooner; the energy preference goes from the NPU straight to the
 * fewest-threads CPU plan.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_thermal.h"

#define CLOCK_HYSTERESIS	0.2
#define LATENCY_PREF_ENTER_MC	2000
#define LATENCY_PREF_EXIT_MC	3000
#define EWMA_SHIFT		2	/* new sample weighs 1/4 */
/* Samples closer than this give no rate (a netlink event right after a
 * poll would turn sensor noise into a slope). */
#define RATE_MIN_MS		200

struct enpu_th_policy {
	struct enpu_th_policy_config config;
	unsigned int plan;
	bool switched;
	uint64_t last_switch_ms;
	uint32_t latency_us[ENPU_TH_MAX_PLANS];	/* EWMA, 0: none yet */
	bool have_ref;			/* ref_* hold an earlier sample */
	int32_t ref_npu_mc;		/* its NPU headroom */
	uint64_t ref_ms;		/* its time */
};

static const char *const reason_names[] = {
	[ENPU_TH_KEEP] = "keep",
	[ENPU_TH_NPU_HOT] = "npu-hot",
	[ENPU_TH_NPU_THROTTLED] = "npu-throttled",
	[ENPU_TH_CPU_HOT] = "cpu-hot",
	[ENPU_TH_COOLED] = "cooled",
	[ENPU_TH_LATENCY] = "latency",
	[ENPU_TH_NPU_HEATING] = "npu-heating",
};

const char *enpu_th_reason_name(enum enpu_th_reason reason)
{
	if ((unsigned int)reason < sizeof(reason_names) / sizeof(reason_names[0]))
		return reason_names[reason];
	return "?";
}

static bool is_cpu_zone(const char *type)
{
	static const char *const types[] = {
		"x86_pkg_temp", "coretemp", "acpitz", "soc_thermal",
	};
	size_t i;

	if (!strncmp(type, "cpu", 3))
		return true;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i]))
			return true;
	return false;
}

/* The zone's first cooling trip (passive, else hot or critical) minus its
 * temperature; INT32_MAX if either is unknown. */
static int32_t zone_headroom(const struct enpu_th_zone *z)
{
	int64_t trip = INT64_MAX;
	unsigned int i, pass;

	if (z->temp_mc == ENPU_TH_UNKNOWN)
		return INT32_MAX;
	for (pass = 0; pass < 2 && trip == INT64_MAX; pass++)
		for (i = 0; i < z->trip_count; i++) {
			const struct enpu_th_trip *t = &z->trips[i];
			bool wanted = pass == 0 ? !strcmp(t->type, "passive") :
				      (!strcmp(t->type, "hot") ||
				       !strcmp(t->type, "critical"));

			if (wanted && t->temp_mc != ENPU_TH_UNKNOWN &&
			    t->temp_mc > 0 && t->temp_mc < trip)
				trip = t->temp_mc;
		}
	if (trip == INT64_MAX)
		return INT32_MAX;
	trip -= z->temp_mc;
	return trip > INT32_MAX - 1 ? INT32_MAX - 1 :
	       trip < INT32_MIN + 1 ? INT32_MIN + 1 : (int32_t)trip;
}

void enpu_th_headroom(const struct enpu_th_snapshot *s,
		      struct enpu_th_headroom *h)
{
	unsigned int i;

	h->npu_mc = s->npu_zone >= 0 && (unsigned int)s->npu_zone < s->zone_count ?
		    zone_headroom(&s->zones[s->npu_zone]) : INT32_MAX;
	h->cpu_mc = INT32_MAX;
	for (i = 0; i < s->zone_count; i++) {
		int32_t mc;

		if (!is_cpu_zone(s->zones[i].type))
			continue;
		mc = zone_headroom(&s->zones[i]);
		if (mc < h->cpu_mc)
			h->cpu_mc = mc;
	}
	/*
	 * The cap (devfreq's max_freq, which shows the cooling device's
	 * limit), not the current clock: an idle NPU at its lowest OPP under
	 * simple_ondemand is not throttled.
	 */
	h->npu_clock = 1.0;
	if (s->npu.present && s->npu.top_hz > 0 &&
	    (s->npu.max_hz > 0 || s->npu.cur_hz > 0)) {
		h->npu_clock = (double)(s->npu.max_hz > 0 ? s->npu.max_hz :
					s->npu.cur_hz) / (double)s->npu.top_hz;
		if (h->npu_clock > 1)
			h->npu_clock = 1;
	}
	h->cpu_clock = 1.0;
	for (i = 0; i < s->policy_count; i++) {
		const struct enpu_th_cpufreq *p = &s->policies[i];
		double share;

		if (p->max_khz <= 0 || p->hw_max_khz <= 0)
			continue;
		share = (double)p->max_khz / (double)p->hw_max_khz;
		if (share < h->cpu_clock)
			h->cpu_clock = share;
	}
}

void enpu_th_policy_defaults(struct enpu_th_policy_config *c,
			     unsigned int plan_count)
{
	memset(c, 0, sizeof(*c));
	c->plan_count = plan_count;
	c->npu_plan_count = plan_count > 1 ? (plan_count + 1) / 2 : plan_count;
	c->enter_mc = 5000;
	c->exit_mc = 12000;
	c->npu_clock_low = 0.7;
	c->dwell_ms = 2000;
	c->horizon_ms = 1000;
	c->preference = ENPU_TH_PREFER_BALANCED;
}

static int invalid(char *why, size_t size, const char *what)
{
	if (why && size)
		snprintf(why, size, "thermal policy: %s", what);
	return -EINVAL;
}

int enpu_th_policy_create(const struct enpu_th_policy_config *c,
			  struct enpu_th_policy **out, char *why,
			  size_t why_size)
{
	struct enpu_th_policy *p;

	*out = NULL;
	if (c->plan_count < 1 || c->plan_count > ENPU_TH_MAX_PLANS)
		return invalid(why, why_size, "plan_count must be 1..8");
	if (c->npu_plan_count > c->plan_count)
		return invalid(why, why_size, "npu_plan_count exceeds plan_count");
	if (c->exit_mc <= c->enter_mc)
		return invalid(why, why_size,
			       "exit_mc must be above enter_mc (the hysteresis)");
	if (!(c->npu_clock_low >= 0 && c->npu_clock_low <= 1))
		return invalid(why, why_size, "npu_clock_low must be in [0, 1]");
	if (c->preference > ENPU_TH_PREFER_ENERGY)
		return invalid(why, why_size, "unknown preference");
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->config = *c;
	*out = p;
	return 0;
}

void enpu_th_policy_destroy(struct enpu_th_policy *p)
{
	free(p);
}

void enpu_th_policy_set_latency_target(struct enpu_th_policy *p,
				       uint32_t target_us)
{
	p->config.latency_target_us = target_us;
}

void enpu_th_policy_set_preference(struct enpu_th_policy *p,
				   enum enpu_th_preference preference)
{
	if (preference <= ENPU_TH_PREFER_ENERGY)
		p->config.preference = preference;
}

void enpu_th_policy_observe_latency(struct enpu_th_policy *p,
				    uint32_t latency_us)
{
	uint32_t *avg = &p->latency_us[p->plan];

	if (!*avg)
		*avg = latency_us ? latency_us : 1;
	else
		*avg = (uint32_t)((int64_t)*avg +
				  (((int64_t)latency_us - *avg) >> EWMA_SHIFT));
}

unsigned int enpu_th_policy_plan(const struct enpu_th_policy *p)
{
	return p->plan;
}

/*
 * The NPU headroom horizon_ms ahead if it keeps falling at the rate seen
 * since the reference sample; @npu_mc itself if it is not falling, or
 * unknown, or there is no usable reference. Moves the reference on.
 */
static int32_t project(struct enpu_th_policy *p, int32_t npu_mc,
		       uint64_t now_ms)
{
	int64_t projected = npu_mc;

	if (npu_mc == INT32_MAX) {
		p->have_ref = false;
		return npu_mc;
	}
	if (p->have_ref && now_ms < p->ref_ms)
		p->have_ref = false;	/* a clock that went back */
	if (p->have_ref && now_ms - p->ref_ms < RATE_MIN_MS)
		return npu_mc;
	if (p->have_ref && p->config.horizon_ms && npu_mc < p->ref_npu_mc) {
		int64_t fall = (int64_t)p->ref_npu_mc - npu_mc;

		projected -= fall * p->config.horizon_ms /
			     (int64_t)(now_ms - p->ref_ms);
		if (projected < INT32_MIN + 1)
			projected = INT32_MIN + 1;
	}
	p->have_ref = true;
	p->ref_npu_mc = npu_mc;
	p->ref_ms = now_ms;
	return (int32_t)projected;
}

static void choose(struct enpu_th_policy *p, const struct enpu_th_headroom *h,
		   int32_t npu_projected, bool dwelt, unsigned int *plan,
		   enum enpu_th_reason *reason)
{
	const struct enpu_th_policy_config *c = &p->config;
	int32_t enter = c->enter_mc, exit = c->exit_mc;
	unsigned int npu_plans = c->npu_plan_count, last = c->plan_count - 1;
	bool on_npu = p->plan < npu_plans;
	bool npu_hot, npu_heating, npu_throttled, npu_cool, cpu_hot, cpu_cool;

	if (c->preference == ENPU_TH_PREFER_LATENCY) {
		enter -= LATENCY_PREF_ENTER_MC;
		exit -= LATENCY_PREF_EXIT_MC;
		if (exit <= enter)
			exit = enter + 1;
	}
	npu_hot = h->npu_mc < enter;
	npu_heating = !npu_hot && npu_projected < enter;
	npu_throttled = h->npu_clock < c->npu_clock_low;
	npu_cool = h->npu_mc > exit &&
		   h->npu_clock >= c->npu_clock_low + CLOCK_HYSTERESIS - 1e-9;
	cpu_hot = h->cpu_mc < enter;
	cpu_cool = h->cpu_mc > exit;

	*plan = p->plan;
	*reason = ENPU_TH_KEEP;
	if (on_npu && (npu_hot || npu_heating || npu_throttled)) {
		/* Past the trip, or past it by the next sample: no waiting. */
		if (!dwelt && h->npu_mc >= 0 && npu_projected >= 0)
			return;
		*reason = npu_hot ? ENPU_TH_NPU_HOT :
			  npu_throttled ? ENPU_TH_NPU_THROTTLED :
			  ENPU_TH_NPU_HEATING;
		*plan = p->plan + 1;
		if (*plan == npu_plans && c->preference == ENPU_TH_PREFER_ENERGY)
			*plan = last;
		return;
	}
	if (!dwelt)
		return;
	if (!on_npu && npu_plans && npu_cool) {
		*reason = ENPU_TH_COOLED;
		*plan = npu_plans - 1;
		return;
	}
	if (on_npu && p->plan > 0 && npu_cool) {
		*reason = ENPU_TH_COOLED;
		*plan = p->plan - 1;
		return;
	}
	if (!on_npu && p->plan < last && cpu_hot) {
		*reason = ENPU_TH_CPU_HOT;
		*plan = p->plan + 1;
		return;
	}
	if (!on_npu && p->plan > npu_plans && cpu_cool) {
		*reason = ENPU_TH_COOLED;
		*plan = p->plan - 1;
		return;
	}
	/* Missing the target on a slower plan while the NPU could take
	 * work again: go back without waiting for exit_mc. */
	if (c->latency_target_us && p->plan > 0 &&
	    p->latency_us[p->plan] > c->latency_target_us && !npu_hot &&
	    !npu_heating && !npu_throttled && (on_npu || npu_plans)) {
		*reason = ENPU_TH_LATENCY;
		*plan = on_npu ? p->plan - 1 : npu_plans - 1;
	}
}

void enpu_th_policy_update(struct enpu_th_policy *p,
			   const struct enpu_th_snapshot *s, uint64_t now_ms,
			   struct enpu_th_decision *d)
{
	bool dwelt = !p->switched ||
		     now_ms - p->last_switch_ms >= p->config.dwell_ms;
	unsigned int plan;
	enum enpu_th_reason reason;

	memset(d, 0, sizeof(*d));
	enpu_th_headroom(s, &d->headroom);
	d->npu_projected_mc = project(p, d->headroom.npu_mc, now_ms);
	choose(p, &d->headroom, d->npu_projected_mc, dwelt, &plan, &reason);
	if (plan > p->config.plan_count - 1)
		plan = p->config.plan_count - 1;
	d->at_ms = now_ms;
	d->reason = reason;
	if (plan != p->plan) {
		p->plan = plan;
		p->switched = true;
		p->last_switch_ms = now_ms;
		d->changed = true;
	} else {
		d->reason = ENPU_TH_KEEP;
	}
	d->plan = p->plan;
}
