/* SPDX-License-Identifier: MIT */
/*
 * ENPU runtime thermal hooks: what the kernel says about heat and clocks
 * (thermal zones, cpufreq policies, the NPU's devfreq node), read from a
 * sysfs root that tests point at a fake tree; a policy that turns them into
 * headroom figures and, with hysteresis, picks one of the plans the
 * application compiled ahead; a plan set that switches between them at a
 * request boundary. docs/thermal.md, "Runtime hooks".
 *
 * No global state: everything lives in the objects below. Not thread
 * safe per object; one policy per session.
 */
#ifndef ENPU_THERMAL_H
#define ENPU_THERMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENPU_TH_MAX_ZONES	32
#define ENPU_TH_MAX_TRIPS	12
#define ENPU_TH_MAX_POLICIES	32
#define ENPU_TH_MAX_PLANS	8
#define ENPU_TH_NAME		48
#define ENPU_TH_UNKNOWN		INT32_MIN	/* a value sysfs did not give */

/* One trip point of a zone, as /sys/class/thermal shows it. */
struct enpu_th_trip {
	char type[16];		/* passive, active, hot, critical */
	int32_t temp_mc;
	int32_t hyst_mc;	/* ENPU_TH_UNKNOWN if not readable */
};

struct enpu_th_zone {
	char name[ENPU_TH_NAME];	/* thermal_zoneN */
	char type[ENPU_TH_NAME];	/* "enpu", "x86_pkg_temp", ... */
	int32_t temp_mc;		/* ENPU_TH_UNKNOWN if unreadable */
	unsigned int trip_count;
	struct enpu_th_trip trips[ENPU_TH_MAX_TRIPS];
};

/* One cpufreq policy; kHz, ENPU_TH_UNKNOWN where unreadable. */
struct enpu_th_cpufreq {
	char name[ENPU_TH_NAME];	/* policyN */
	int32_t cur_khz;
	int32_t min_khz;		/* scaling_min_freq */
	int32_t max_khz;		/* scaling_max_freq: where limits show */
	int32_t hw_min_khz;		/* cpuinfo_min_freq */
	int32_t hw_max_khz;		/* cpuinfo_max_freq */
};

/* The NPU's devfreq node (its device's driver is "enpu"). Hz. */
struct enpu_th_devfreq {
	bool present;
	char name[ENPU_TH_NAME];
	int64_t cur_hz;
	int64_t min_hz;
	int64_t max_hz;
	int64_t top_hz;		/* highest available frequency */
};

struct enpu_th_snapshot {
	unsigned int zone_count;
	struct enpu_th_zone zones[ENPU_TH_MAX_ZONES];
	int npu_zone;			/* index of the "enpu" zone or -1 */
	unsigned int policy_count;
	struct enpu_th_cpufreq policies[ENPU_TH_MAX_POLICIES];
	struct enpu_th_devfreq npu;
	unsigned int odd_files;		/* present but unparsable */
};

/*
 * Reads everything under root ("/" for the real system; a fake tree in
 * tests): root/sys/class/thermal, root/sys/devices/system/cpu/cpufreq,
 * root/sys/class/devfreq. Missing directories give empty lists; a file
 * that is missing or does not parse leaves its field ENPU_TH_UNKNOWN
 * (odd ones are counted). Returns 0, or -errno only for a root that
 * cannot be opened at all.
 */
int enpu_th_read(const char *root, struct enpu_th_snapshot *snapshot);

/* Headroom figures of a snapshot. */
struct enpu_th_headroom {
	int32_t npu_mc;		/* first passive trip - temp; INT32_MAX unknown */
	int32_t cpu_mc;		/* least over CPU zones; INT32_MAX unknown */
	double npu_clock;	/* max (the cap) / top of devfreq; 1 unknown */
	double cpu_clock;	/* least max/hw_max over policies; 1 unknown */
};

void enpu_th_headroom(const struct enpu_th_snapshot *snapshot,
		      struct enpu_th_headroom *headroom);

/* What the application prefers when the policy has a choice. */
enum enpu_th_preference {
	ENPU_TH_PREFER_BALANCED,
	ENPU_TH_PREFER_LATENCY,		/* leave the NPU later, come back sooner */
	ENPU_TH_PREFER_ENERGY,		/* stay on the (efficient) NPU longer */
};

/*
 * Plans are ordered from the most NPU work to the least: 0 NPU-heavy,
 * then e.g. NPU+CPU, CPU-only, CPU with fewer threads. The policy moves
 * one step at a time.
 */
struct enpu_th_policy_config {
	unsigned int plan_count;	/* 1..ENPU_TH_MAX_PLANS */
	unsigned int npu_plan_count;	/* plans 0..n-1 use the NPU */
	int32_t enter_mc;	/* step away from the NPU below this headroom */
	int32_t exit_mc;	/* step back above this headroom (> enter_mc) */
	double npu_clock_low;	/* devfreq below this share: NPU throttled */
	uint32_t dwell_ms;	/* least time between two switches */
	/*
	 * Leave the NPU when the headroom projected this far ahead (at the
	 * rate it fell since the previous sample) is below enter_mc: the
	 * sampling interval, so that the next sample, not the one after,
	 * is already on the other plan. 0: no projection.
	 */
	uint32_t horizon_ms;
	uint32_t latency_target_us;	/* 0: none */
	enum enpu_th_preference preference;
};

/* Defaults: enter 5 degC, exit 12 degC, clock 0.7, dwell 2 s, horizon
 * 1 s (the monitor's least polling interval), balanced, the first half of
 * the plans (rounded up) on the NPU. */
void enpu_th_policy_defaults(struct enpu_th_policy_config *config,
			     unsigned int plan_count);

struct enpu_th_policy;

enum enpu_th_reason {
	ENPU_TH_KEEP,
	ENPU_TH_NPU_HOT,	/* NPU headroom below enter_mc */
	ENPU_TH_NPU_THROTTLED,	/* NPU clock below npu_clock_low */
	ENPU_TH_CPU_HOT,	/* CPU headroom below enter_mc on a CPU plan */
	ENPU_TH_COOLED,		/* headroom back above exit_mc */
	ENPU_TH_LATENCY,	/* latency target missed: back to a faster plan */
	ENPU_TH_NPU_HEATING,	/* NPU headroom projected below enter_mc */
};

const char *enpu_th_reason_name(enum enpu_th_reason reason);

struct enpu_th_decision {
	unsigned int plan;
	bool changed;
	enum enpu_th_reason reason;
	struct enpu_th_headroom headroom;
	/* NPU headroom horizon_ms ahead at the current rate (== npu_mc when
	 * not falling or unknown). */
	int32_t npu_projected_mc;
	uint64_t at_ms;
};

/* Returns 0 or -EINVAL (naming the bad field in why). */
int enpu_th_policy_create(const struct enpu_th_policy_config *config,
			  struct enpu_th_policy **policy, char *why,
			  size_t why_size);
void enpu_th_policy_destroy(struct enpu_th_policy *policy);
/* Latency target and preference can change at any time. */
void enpu_th_policy_set_latency_target(struct enpu_th_policy *policy,
				       uint32_t target_us);
void enpu_th_policy_set_preference(struct enpu_th_policy *policy,
				   enum enpu_th_preference preference);
/* The latency of the last request on the current plan. */
void enpu_th_policy_observe_latency(struct enpu_th_policy *policy,
				    uint32_t latency_us);
/* One evaluation: a snapshot taken at now_ms. */
void enpu_th_policy_update(struct enpu_th_policy *policy,
			   const struct enpu_th_snapshot *snapshot,
			   uint64_t now_ms, struct enpu_th_decision *decision);
unsigned int enpu_th_policy_plan(const struct enpu_th_policy *policy);

/*
 * The monitor: samples root at most once per min_interval_ms (at least
 * 1000 when polling) or, where the kernel's thermal netlink family is
 * available and root is "/", also as soon as a thermal event arrives.
 * enpu_th_monitor_poll() returns 1 with a new snapshot, 0 if it is not
 * time yet, -errno on failure.
 */
struct enpu_th_monitor;

int enpu_th_monitor_create(const char *root, uint32_t min_interval_ms,
			   bool use_netlink, struct enpu_th_monitor **monitor);
void enpu_th_monitor_destroy(struct enpu_th_monitor *monitor);
int enpu_th_monitor_poll(struct enpu_th_monitor *monitor, uint64_t now_ms,
			 struct enpu_th_snapshot *snapshot);
bool enpu_th_monitor_has_netlink(const struct enpu_th_monitor *monitor);
uint64_t enpu_th_monitor_samples(const struct enpu_th_monitor *monitor);

#endif /* ENPU_THERMAL_H */
