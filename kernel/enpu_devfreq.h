/* SPDX-License-Identifier: GPL-2.0 */
/* DVFS of the NPU clock through devfreq (enpu_devfreq.c). */
#ifndef ENPU_DEVFREQ_H
#define ENPU_DEVFREQ_H

#include <linux/atomic.h>
#include <linux/devfreq.h>
#include <linux/types.h>

struct enpu_device;
struct thermal_cooling_device;

/**
 * struct enpu_dvfs - the devfreq device of the NPU clock
 * @profile: what devfreq calls (target, status, current frequency).
 * @ondemand: simple_ondemand's thresholds.
 * @devfreq: the devfreq device, NULL when DVFS is not available.
 * @cooling: its cooling device, bound to the thermal zone's passive trip.
 * @last_busy_ns: PERF_BUSY_NS at the previous sample.
 * @last_total_ns: PERF_DEVICE_NS at the previous sample.
 * @transitions: OPP changes this driver made.
 */
struct enpu_dvfs {
	struct devfreq_dev_profile profile;
	struct devfreq_simple_ondemand_data ondemand;
	struct devfreq *devfreq;
	struct thermal_cooling_device *cooling;
	u64 last_busy_ns;
	u64 last_total_ns;
	atomic64_t transitions;
};

int enpu_devfreq_init(struct enpu_device *edev);
void enpu_devfreq_fini(struct enpu_device *edev);
int enpu_devfreq_set_opp(struct enpu_device *edev, u32 index);
void enpu_devfreq_suspend(struct enpu_device *edev);
void enpu_devfreq_resume(struct enpu_device *edev);

#endif /* ENPU_DEVFREQ_H */
