// SPDX-License-Identifier: MIT
/*
 * Runtime thermal hooks on fake sysfs trees (built in a temporary
 * directory per test): every field the reader takes, missing and odd
 * files, headroom figures, every transition of the policy with its
 * hysteresis, dwell, preferences and latency target, the monitor's rate
 * limit. Built with ASan and UBSan.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enpu_thermal.h"

static int failures;
static char root[64];

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "    %s:%d: %s: ", __FILE__, __LINE__,	\
			#cond);						\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

static void mkdirs(const char *path)
{
	char tmp[512], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* Writes root/rel with printf-style contents, creating directories. */
static void put(const char *rel, const char *fmt, ...)
{
	char path[512], dir[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	if (!f) {
		failures++;
		fprintf(stderr, "cannot write %s\n", path);
		return;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void link_driver(const char *devfreq, const char *driver)
{
	char path[512], target[128];

	snprintf(path, sizeof(path), "%s/sys/class/devfreq/%s/device", root,
		 devfreq);
	mkdirs(path);
	strcat(path, "/driver");
	snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
	if (symlink(target, path))
		failures++;
}

static void fresh_root(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			failures++;
	}
	snprintf(root, sizeof(root), "/tmp/enpu-thermal-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
}

/* The NPU zone (thermal_zone2, type enpu), a CPU zone, two policies and
 * the NPU's devfreq node, as the real kernel lays them out. */
/* cap_hz is devfreq's max_freq (where the cooling device's limit shows);
 * the current clock is the lowest OPP, as simple_ondemand leaves an idle
 * NPU, so the policy must not take it for throttling. */
static void npu_tree(int npu_mc, int cpu_mc, long cap_hz, int cpu_max_khz)
{
	put("sys/class/thermal/thermal_zone0/type", "acpitz\n");
	put("sys/class/thermal/thermal_zone0/temp", "27800\n");
	put("sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
	put("sys/class/thermal/thermal_zone1/temp", "%d\n", cpu_mc);
	put("sys/class/thermal/thermal_zone1/trip_point_0_type", "passive\n");
	put("sys/class/thermal/thermal_zone1/trip_point_0_temp", "90000\n");
	put("sys/class/thermal/thermal_zone2/type", "enpu\n");
	put("sys/class/thermal/thermal_zone2/temp", "%d\n", npu_mc);
	put("sys/class/thermal/thermal_zone2/trip_point_0_type", "passive\n");
	put("sys/class/thermal/thermal_zone2/trip_point_0_temp", "85000\n");
	put("sys/class/thermal/thermal_zone2/trip_point_0_hyst", "2000\n");
	put("sys/class/thermal/thermal_zone2/trip_point_1_type", "critical\n");
	put("sys/class/thermal/thermal_zone2/trip_point_1_temp", "95000\n");
	put("sys/class/thermal/thermal_zone2/trip_point_1_hyst", "0\n");
	put("sys/class/thermal/cooling_device0/type", "devfreq-0000:00:01.0\n");
	for (int i = 0; i < 2; i++) {
		char dir[128];

		snprintf(dir, sizeof(dir), "sys/devices/system/cpu/cpufreq/policy%d", i);
		put(strcat(strcpy((char[160]){ 0 }, dir), "/scaling_cur_freq"), "%d\n", 2100000 - i);
		put(strcat(strcpy((char[160]){ 0 }, dir), "/scaling_min_freq"), "800000\n");
		put(strcat(strcpy((char[160]){ 0 }, dir), "/scaling_max_freq"), "%d\n",
		    i ? cpu_max_khz : 3000000);
		put(strcat(strcpy((char[160]){ 0 }, dir), "/cpuinfo_min_freq"), "800000\n");
		put(strcat(strcpy((char[160]){ 0 }, dir), "/cpuinfo_max_freq"), "3000000\n");
	}
	put("sys/class/devfreq/0000:00:01.0/cur_freq", "200000000\n");
	put("sys/class/devfreq/0000:00:01.0/min_freq", "200000000\n");
	put("sys/class/devfreq/0000:00:01.0/max_freq", "%ld\n", cap_hz);
	put("sys/class/devfreq/0000:00:01.0/available_frequencies",
	    "200000000 400000000 600000000 800000000 1000000000 \n");
	link_driver("0000:00:01.0", "enpu");
}

static void reader_takes_every_field(void)
{
	struct enpu_th_snapshot s;
	const struct enpu_th_zone *z;

	fresh_root();
	npu_tree(61500, 55000, 800000000, 2400000);
	/* another driver's devfreq node is not the NPU's */
	put("sys/class/devfreq/gpu0/cur_freq", "1\n");
	link_driver("gpu0", "panfrost");
	CHECK(enpu_th_read(root, &s) == 0, "read");
	CHECK(s.zone_count == 3, "%u zones", s.zone_count);
	CHECK(s.npu_zone == 2, "npu zone %d", s.npu_zone);
	z = &s.zones[2];
	CHECK(!strcmp(z->name, "thermal_zone2") && !strcmp(z->type, "enpu"),
	      "%s %s", z->name, z->type);
	CHECK(z->temp_mc == 61500, "temp %d", z->temp_mc);
	CHECK(z->trip_count == 2, "%u trips", z->trip_count);
	CHECK(!strcmp(z->trips[0].type, "passive") && z->trips[0].temp_mc == 85000 &&
	      z->trips[0].hyst_mc == 2000, "trip 0 %s %d %d", z->trips[0].type,
	      z->trips[0].temp_mc, z->trips[0].hyst_mc);
	CHECK(!strcmp(z->trips[1].type, "critical") && z->trips[1].temp_mc == 95000 &&
	      z->trips[1].hyst_mc == 0, "trip 1");
	CHECK(s.zones[0].trip_count == 0 && s.zones[0].temp_mc == 27800, "acpitz");
	CHECK(s.zones[1].trips[0].hyst_mc == ENPU_TH_UNKNOWN, "missing hyst %d",
	      s.zones[1].trips[0].hyst_mc);
	CHECK(s.policy_count == 2, "%u policies", s.policy_count);
	CHECK(!strcmp(s.policies[1].name, "policy1") &&
	      s.policies[1].cur_khz == 2099999 && s.policies[1].min_khz == 800000 &&
	      s.policies[1].max_khz == 2400000 && s.policies[1].hw_min_khz == 800000 &&
	      s.policies[1].hw_max_khz == 3000000, "policy1");
	CHECK(s.npu.present && !strcmp(s.npu.name, "0000:00:01.0"), "devfreq %d %s",
	      s.npu.present, s.npu.name);
	CHECK(s.npu.cur_hz == 200000000 && s.npu.min_hz == 200000000 &&
	      s.npu.max_hz == 800000000 && s.npu.top_hz == 1000000000,
	      "devfreq values");
	CHECK(s.odd_files == 0, "%u odd files", s.odd_files);
}

static void reader_survives_missing_and_odd_files(void)
{
	struct enpu_th_snapshot s;

	fresh_root();
	CHECK(enpu_th_read(root, &s) == 0 && s.zone_count == 0 &&
	      s.policy_count == 0 && !s.npu.present && s.npu_zone == -1,
	      "empty root");
	CHECK(enpu_th_read("/nonexistent/enpu-root", &s) == -ENOENT,
	      "missing root");
	/* numeric order, not readdir or string order */
	put("sys/class/thermal/thermal_zone10/type", "enpu\n");
	put("sys/class/thermal/thermal_zone10/temp", "N/A\n");
	put("sys/class/thermal/thermal_zone2/type", "cpu-thermal\n");
	put("sys/class/thermal/thermal_zone2/temp", "-5000\n");
	put("sys/class/thermal/thermal_zone2/trip_point_0_type", "passive\n");
	put("sys/class/thermal/thermal_zone2/trip_point_0_temp", "99999999999\n");
	put("sys/class/thermal/thermal_zonex/type", "bogus\n");
	put("sys/class/thermal/thermal_zone3/temp", "40000\n");	/* no type */
	put("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "abc\n");
	put("sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq", "\n");
	put("sys/class/devfreq/npu/cur_freq", "12x\n");
	put("sys/class/devfreq/npu/max_freq", "0\n");
	put("sys/class/devfreq/npu/available_frequencies", "100 two 300\n");
	link_driver("npu", "enpu");
	CHECK(enpu_th_read(root, &s) == 0, "read");
	CHECK(s.zone_count == 3, "%u zones (thermal_zonex is not one)", s.zone_count);
	CHECK(!strcmp(s.zones[0].name, "thermal_zone2") &&
	      !strcmp(s.zones[1].name, "thermal_zone3") &&
	      !strcmp(s.zones[2].name, "thermal_zone10"), "order %s %s %s",
	      s.zones[0].name, s.zones[1].name, s.zones[2].name);
	CHECK(s.npu_zone == 2 && s.zones[2].temp_mc == ENPU_TH_UNKNOWN,
	      "N/A temperature %d", s.zones[2].temp_mc);
	CHECK(s.zones[0].temp_mc == -5000, "negative temperature %d",
	      s.zones[0].temp_mc);
	CHECK(s.zones[0].trip_count == 1 &&
	      s.zones[0].trips[0].temp_mc == ENPU_TH_UNKNOWN, "trip out of range");
	CHECK(s.zones[1].type[0] == '\0' && s.zones[1].temp_mc == 40000, "no type");
	CHECK(s.policy_count == 1 && s.policies[0].max_khz == ENPU_TH_UNKNOWN &&
	      s.policies[0].hw_max_khz == ENPU_TH_UNKNOWN &&
	      s.policies[0].cur_khz == ENPU_TH_UNKNOWN, "odd policy");
	CHECK(s.npu.present && s.npu.cur_hz == ENPU_TH_UNKNOWN && s.npu.top_hz == -1,
	      "odd devfreq %lld %lld", (long long)s.npu.cur_hz,
	      (long long)s.npu.top_hz);
	/* N/A, 99999999999, abc, "", 12x, max 0, "two" */
	CHECK(s.odd_files == 7, "%u odd files", s.odd_files);
}

static void headroom_figures(void)
{
	struct enpu_th_snapshot s;
	struct enpu_th_headroom h;

	fresh_root();
	npu_tree(80000, 70000, 400000000, 1500000);
	CHECK(enpu_th_read(root, &s) == 0, "read");
	enpu_th_headroom(&s, &h);
	CHECK(h.npu_mc == 5000, "npu %d", h.npu_mc);
	CHECK(h.cpu_mc == 20000, "cpu %d", h.cpu_mc);
	CHECK(fabs(h.npu_clock - 0.4) < 1e-9, "npu clock %g", h.npu_clock);
	CHECK(fabs(h.cpu_clock - 0.5) < 1e-9, "cpu clock %g", h.cpu_clock);
	/* nothing known: infinite headroom, full clocks */
	fresh_root();
	CHECK(enpu_th_read(root, &s) == 0, "read");
	enpu_th_headroom(&s, &h);
	CHECK(h.npu_mc == INT32_MAX && h.cpu_mc == INT32_MAX && h.npu_clock == 1 &&
	      h.cpu_clock == 1, "unknown");
	/* a zone with only a critical trip measures against it */
	put("sys/class/thermal/thermal_zone0/type", "enpu\n");
	put("sys/class/thermal/thermal_zone0/temp", "90000\n");
	put("sys/class/thermal/thermal_zone0/trip_point_0_type", "critical\n");
	put("sys/class/thermal/thermal_zone0/trip_point_0_temp", "95000\n");
	CHECK(enpu_th_read(root, &s) == 0, "read");
	enpu_th_headroom(&s, &h);
	CHECK(h.npu_mc == 5000, "critical only %d", h.npu_mc);
}

/* Policy driving helpers: a snapshot straight from figures. */
static struct enpu_th_snapshot snap(int npu_mc, int cpu_mc, long cur_hz)
{
	struct enpu_th_snapshot s;

	fresh_root();
	npu_tree(npu_mc, cpu_mc, cur_hz, 3000000);
	if (enpu_th_read(root, &s))
		failures++;
	return s;
}

static struct enpu_th_policy *policy_horizon(unsigned int plans,
					     enum enpu_th_preference pref,
					     uint32_t horizon_ms)
{
	struct enpu_th_policy_config c;
	struct enpu_th_policy *p = NULL;
	char why[128];

	enpu_th_policy_defaults(&c, plans);
	c.preference = pref;
	c.horizon_ms = horizon_ms;
	if (enpu_th_policy_create(&c, &p, why, sizeof(why))) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	return p;
}

/* The threshold, dwell and clock rules alone: their cases jump between
 * temperatures no device reaches that fast, which the projection (tested
 * on its own below) would rightly act on. */
static struct enpu_th_policy *policy(unsigned int plans,
				     enum enpu_th_preference pref)
{
	return policy_horizon(plans, pref, 0);
}

static void step(struct enpu_th_policy *p, int npu_mc, int cpu_mc, long hz,
		 uint64_t t, unsigned int want, enum enpu_th_reason reason,
		 int line)
{
	struct enpu_th_snapshot s = snap(npu_mc, cpu_mc, hz);
	struct enpu_th_decision d;

	enpu_th_policy_update(p, &s, t, &d);
	if (d.plan != want || d.reason != reason) {
		failures++;
		fprintf(stderr, "    line %d: at %llu ms npu %d cpu %d clock %ld: plan %u (%s), want %u (%s)\n",
			line, (unsigned long long)t, npu_mc, cpu_mc, hz, d.plan,
			enpu_th_reason_name(d.reason), want,
			enpu_th_reason_name(reason));
	}
	CHECK(d.changed == (reason != ENPU_TH_KEEP), "changed flag");
}

#define STEP(p, n, c, hz, t, want, reason) \
	step(p, n, c, hz, t, want, ENPU_TH_##reason, __LINE__)
#define GHZ 1000000000L
#define COOL 60000	/* 25 degC of headroom */

static void policy_walks_every_transition_with_hysteresis(void)
{
	struct enpu_th_policy *p = policy(4, ENPU_TH_PREFER_BALANCED);

	STEP(p, COOL, COOL, GHZ, 0, 0, KEEP);
	STEP(p, 81000, COOL, GHZ, 100, 1, NPU_HOT);	/* 4 degC < 5 */
	STEP(p, 81000, COOL, GHZ, 1000, 1, KEEP);	/* dwell: 2 s */
	STEP(p, 81000, COOL, GHZ, 2100, 2, NPU_HOT);	/* now CPU-only */
	STEP(p, 81000, COOL, GHZ, 9000, 2, KEEP);	/* last NPU-free plan */
	STEP(p, 77000, COOL, GHZ, 9100, 2, KEEP);	/* 8 degC: inside the band */
	STEP(p, 73001, COOL, GHZ, 9200, 2, KEEP);	/* 11.999 degC */
	STEP(p, 72000, COOL, GHZ, 9300, 1, COOLED);	/* 13 degC > 12 */
	STEP(p, 72000, COOL, GHZ, 9400, 1, KEEP);	/* dwell */
	STEP(p, 72000, COOL, GHZ, 11300, 0, COOLED);
	/* right after a switch, past the passive trip: leave at once */
	STEP(p, 86000, COOL, GHZ, 11400, 1, NPU_HOT);
	STEP(p, 86000, COOL, GHZ, 11500, 2, NPU_HOT);
	/* CPU hot on a CPU plan: fewer threads, then back */
	STEP(p, 86000, 86000, GHZ, 13600, 3, CPU_HOT);
	STEP(p, 86000, 80000, GHZ, 15700, 3, KEEP);	/* CPU 10 degC: band */
	STEP(p, 86000, 70000, GHZ, 17800, 2, COOLED);	/* CPU 20 degC */
	/* NPU cool again from the fewest-threads plan: straight to NPU+CPU */
	STEP(p, 86000, 86000, GHZ, 19900, 3, CPU_HOT);
	STEP(p, COOL, 86000, GHZ, 22000, 1, COOLED);
	enpu_th_policy_destroy(p);
}

/*
 * The projection: a headroom falling at the rate seen since the previous
 * sample leaves the NPU a sample before it is below enter_mc; a steady,
 * cooling, unknown or too-close reading projects nothing; within the
 * dwell only a projection past the passive trip leaves at once.
 */
static void projection_leaves_a_heating_npu_a_sample_early(void)
{
	struct enpu_th_policy *p = policy_horizon(2, ENPU_TH_PREFER_BALANCED,
						  1000);
	struct enpu_th_policy *q = policy(2, ENPU_TH_PREFER_BALANCED);
	struct enpu_th_snapshot s;
	struct enpu_th_decision d;

	/* 70 -> 76 degC in 1 s: 9 degC of headroom, 3 projected: leave. */
	STEP(p, 70000, COOL, GHZ, 0, 0, KEEP);
	STEP(q, 70000, COOL, GHZ, 0, 0, KEEP);
	s = snap(76000, COOL, GHZ);
	enpu_th_policy_update(p, &s, 1000, &d);
	CHECK(d.npu_projected_mc == 3000, "projected %d", d.npu_projected_mc);
	CHECK(d.plan == 1 && d.reason == ENPU_TH_NPU_HEATING, "left: plan %u %s",
	      d.plan, enpu_th_reason_name(d.reason));
	/* Without the projection the same readings keep the NPU. */
	STEP(q, 76000, COOL, GHZ, 1000, 0, KEEP);
	enpu_th_policy_destroy(p);
	enpu_th_policy_destroy(q);

	/* Steady 79 degC (6 of headroom): nothing projected. */
	p = policy_horizon(2, ENPU_TH_PREFER_BALANCED, 1000);
	STEP(p, 79000, COOL, GHZ, 0, 0, KEEP);
	s = snap(79000, COOL, GHZ);
	enpu_th_policy_update(p, &s, 1000, &d);
	CHECK(d.npu_projected_mc == 6000 && d.plan == 0, "steady %d plan %u",
	      d.npu_projected_mc, d.plan);
	/* Cooling 79.5 -> 79: nothing either. */
	STEP(p, 79500, COOL, GHZ, 2000, 0, KEEP);
	STEP(p, 79000, COOL, GHZ, 3000, 0, KEEP);
	/* 80 -> 80.2 degC in 1 s: 4.8 of headroom projected 4.6... but
	 * already below 5: npu-hot, not heating. */
	STEP(p, 80200, COOL, GHZ, 4000, 1, NPU_HOT);
	enpu_th_policy_destroy(p);

	/* Samples 100 ms apart give no rate: 70 -> 76 keeps the NPU; the
	 * rate is then taken over the 1 s since the first one. */
	p = policy_horizon(2, ENPU_TH_PREFER_BALANCED, 1000);
	STEP(p, 70000, COOL, GHZ, 0, 0, KEEP);
	STEP(p, 76000, COOL, GHZ, 100, 0, KEEP);
	STEP(p, 77000, COOL, GHZ, 1000, 1, NPU_HEATING);	/* 8 - 7 */
	enpu_th_policy_destroy(p);

	/* An unknown reading forgets the rate. */
	p = policy_horizon(2, ENPU_TH_PREFER_BALANCED, 1000);
	STEP(p, 70000, COOL, GHZ, 0, 0, KEEP);
	fresh_root();
	npu_tree(70000, COOL, GHZ, 3000000);
	put("sys/class/thermal/thermal_zone2/temp", "garbage\n");
	CHECK(enpu_th_read(root, &s) == 0, "read");
	enpu_th_policy_update(p, &s, 1000, &d);
	CHECK(d.npu_projected_mc == INT32_MAX && d.plan == 0, "unknown");
	STEP(p, 76000, COOL, GHZ, 2000, 0, KEEP);	/* new reference */
	enpu_th_policy_destroy(p);

	/*
	 * Within the dwell after coming back: heating towards enter_mc
	 * waits for the dwell; projected past the passive trip does not.
	 */
	p = policy_horizon(2, ENPU_TH_PREFER_BALANCED, 1000);
	q = policy(2, ENPU_TH_PREFER_BALANCED);
	STEP(p, 81000, COOL, GHZ, 0, 1, NPU_HOT);
	STEP(q, 81000, COOL, GHZ, 0, 1, NPU_HOT);
	STEP(p, 72000, COOL, GHZ, 2000, 0, COOLED);	/* 13 of headroom */
	STEP(q, 72000, COOL, GHZ, 2000, 0, COOLED);
	STEP(p, 76000, COOL, GHZ, 3000, 0, KEEP);	/* 9, 5 projected */
	STEP(p, 79000, COOL, GHZ, 3500, 0, KEEP);	/* 6, 0 projected */
	/* 3 of headroom, -4.5 projected: out within the dwell... */
	STEP(p, 82000, COOL, GHZ, 3900, 1, NPU_HOT);
	/* ...where without the projection it waits for the trip. */
	STEP(q, 82000, COOL, GHZ, 3900, 0, KEEP);
	enpu_th_policy_destroy(p);
	enpu_th_policy_destroy(q);
}

static void policy_follows_the_npu_clock(void)
{
	struct enpu_th_policy *p = policy(2, ENPU_TH_PREFER_BALANCED);

	STEP(p, COOL, COOL, 800000000, 0, 0, KEEP);	/* 0.8 >= 0.7 */
	STEP(p, COOL, COOL, 600000000, 10, 1, NPU_THROTTLED);
	STEP(p, COOL, COOL, 800000000, 5000, 1, KEEP);	/* 0.8 < 0.9 */
	STEP(p, COOL, COOL, GHZ, 5100, 0, COOLED);
	enpu_th_policy_destroy(p);
}

static void preferences_move_the_thresholds(void)
{
	struct enpu_th_policy *p = policy(4, ENPU_TH_PREFER_ENERGY);

	/* energy: from the last NPU plan straight to the fewest threads */
	STEP(p, 81000, COOL, GHZ, 0, 1, NPU_HOT);
	STEP(p, 81000, COOL, GHZ, 2000, 3, NPU_HOT);
	enpu_th_policy_destroy(p);
	p = policy(4, ENPU_TH_PREFER_LATENCY);
	STEP(p, 81000, COOL, GHZ, 0, 0, KEEP);		/* 4 degC >= 3 */
	STEP(p, 82500, COOL, GHZ, 100, 1, NPU_HOT);	/* 2.5 degC < 3 */
	STEP(p, 75500, COOL, GHZ, 2200, 0, COOLED);	/* 9.5 degC > 9 */
	enpu_th_policy_set_preference(p, ENPU_TH_PREFER_BALANCED);
	STEP(p, 81000, COOL, GHZ, 4300, 1, NPU_HOT);	/* 4 degC < 5 again */
	enpu_th_policy_destroy(p);
}

static void latency_target_brings_work_back(void)
{
	struct enpu_th_policy *p = policy(4, ENPU_TH_PREFER_BALANCED);

	STEP(p, 81000, COOL, GHZ, 0, 1, NPU_HOT);
	STEP(p, 81000, COOL, GHZ, 2000, 2, NPU_HOT);
	enpu_th_policy_set_latency_target(p, 20000);
	enpu_th_policy_observe_latency(p, 15000);
	STEP(p, 77000, COOL, GHZ, 4000, 2, KEEP);	/* meets the target */
	for (int i = 0; i < 8; i++)
		enpu_th_policy_observe_latency(p, 40000);
	STEP(p, 81000, COOL, GHZ, 6000, 2, KEEP);	/* NPU still hot */
	STEP(p, 77000, COOL, GHZ, 6100, 1, LATENCY);	/* 8 degC: not hot */
	enpu_th_policy_set_latency_target(p, 0);
	enpu_th_policy_destroy(p);
}

static void policy_config_is_checked(void)
{
	struct enpu_th_policy_config c;
	struct enpu_th_policy *p;
	char why[128];

	enpu_th_policy_defaults(&c, 4);
	CHECK(c.npu_plan_count == 2 && c.enter_mc == 5000 && c.exit_mc == 12000,
	      "defaults");
	c.exit_mc = c.enter_mc;
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "exit_mc") && !p, "no hysteresis: %s", why);
	enpu_th_policy_defaults(&c, 0);
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "plan_count"), "0 plans: %s", why);
	enpu_th_policy_defaults(&c, ENPU_TH_MAX_PLANS + 1);
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "plan_count"), "9 plans: %s", why);
	enpu_th_policy_defaults(&c, 2);
	c.npu_plan_count = 3;
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "npu_plan_count"), "npu plans: %s", why);
	enpu_th_policy_defaults(&c, 2);
	c.npu_clock_low = 1.5;
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "npu_clock_low"), "clock: %s", why);
	c.npu_clock_low = NAN;
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == -EINVAL,
	      "NaN clock");
	enpu_th_policy_defaults(&c, 1);
	CHECK(enpu_th_policy_create(&c, &p, why, sizeof(why)) == 0 && p, "1 plan");
	/* one plan: nowhere to go */
	{
		struct enpu_th_snapshot s = snap(90000, 90000, 200000000);
		struct enpu_th_decision d;

		enpu_th_policy_update(p, &s, 0, &d);
		CHECK(d.plan == 0 && !d.changed, "single plan moved to %u", d.plan);
	}
	enpu_th_policy_destroy(p);
	CHECK(!strcmp(enpu_th_reason_name(ENPU_TH_LATENCY), "latency") &&
	      !strcmp(enpu_th_reason_name((enum enpu_th_reason)99), "?"), "names");
}

static void monitor_reads_at_most_once_per_interval(void)
{
	struct enpu_th_snapshot s;
	struct enpu_th_monitor *m;

	fresh_root();
	npu_tree(50000, 50000, GHZ, 3000000);
	CHECK(enpu_th_monitor_create(root, 1000, true, &m) == 0, "create");
	CHECK(!enpu_th_monitor_has_netlink(m), "netlink on a fake root");
	CHECK(enpu_th_monitor_poll(m, 5000, &s) == 1 && s.npu_zone == 2, "first");
	put("sys/class/thermal/thermal_zone2/temp", "70000\n");
	CHECK(enpu_th_monitor_poll(m, 5999, &s) == 0, "within the interval");
	CHECK(enpu_th_monitor_poll(m, 6000, &s) == 1 &&
	      s.zones[2].temp_mc == 70000, "after the interval");
	CHECK(enpu_th_monitor_samples(m) == 2, "%llu samples",
	      (unsigned long long)enpu_th_monitor_samples(m));
	enpu_th_monitor_destroy(m);
	CHECK(enpu_th_monitor_create("/nonexistent/enpu", 1000, false, &m) == 0,
	      "create");
	CHECK(enpu_th_monitor_poll(m, 0, &s) == -ENOENT, "missing root");
	enpu_th_monitor_destroy(m);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} tests[] = {
#define T(fn) { #fn, fn }
		T(reader_takes_every_field),
		T(reader_survives_missing_and_odd_files),
		T(headroom_figures),
		T(policy_walks_every_transition_with_hysteresis),
		T(projection_leaves_a_heating_npu_a_sample_early),
		T(policy_follows_the_npu_clock),
		T(preferences_move_the_thresholds),
		T(latency_target_brings_work_back),
		T(policy_config_is_checked),
		T(monitor_reads_at_most_once_per_interval),
#undef T
	};
	unsigned int passed = 0, failed = 0;
	char cmd[128];

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;

		tests[i].run();
		if (failures == before) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
	}
	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", root);
	}
	printf("test-thermal: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
