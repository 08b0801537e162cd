/* SPDX-License-Identifier: GPL-2.0 */
/* Runtime and system power management (enpu_pm.c). */
#ifndef ENPU_PM_H
#define ENPU_PM_H

#include <linux/atomic.h>
#include <linux/pm.h>
#include <linux/types.h>

#include "enpu_sched.h"

struct drm_device;
struct drm_file;
struct enpu_device;
struct seq_file;

/**
 * struct enpu_pm - power state of the engine
 * @enabled: the device has power states (interface 1.5) and runtime PM
 *	is set up.
 * @off: the engine is power-gated (runtime or system suspend); written
 *	under the recovery lock.
 * @suspends: times it was powered off.
 * @resumes: times it was powered on again.
 * @last_resume_us: wall time the last power-on with firmware reload took.
 */
struct enpu_pm {
	bool enabled;
	bool off;
	atomic64_t suspends;
	atomic64_t resumes;
	s64 last_resume_us;
};

extern const struct dev_pm_ops enpu_pm_ops;

/*
 * The scheduler's ring controls that power and thermal management use,
 * named once here: hold new work off the rings (it stays in the
 * contexts' FIFOs), let it run again, count what is on the device. The
 * scheduler stays the rings' only producer. Callers hold the recovery
 * lock, which orders these against recovery's own stop and restart.
 */
static inline void enpu_pm_hold_rings(struct enpu_device *edev)
{
	enpu_sched_stop_rings(edev);
}

static inline void enpu_pm_release_rings(struct enpu_device *edev)
{
	enpu_sched_restart(edev);
}

static inline unsigned int enpu_pm_jobs_on_device(struct enpu_device *edev)
{
	return enpu_sched_count_on_device(edev);
}

void enpu_pm_init(struct enpu_device *edev);
void enpu_pm_fini(struct enpu_device *edev);
int enpu_pm_submit_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int enpu_pm_get(struct enpu_device *edev);
void enpu_pm_put(struct enpu_device *edev);
void enpu_pm_job_begin(struct enpu_device *edev);
void enpu_pm_job_end(struct enpu_device *edev);
void enpu_pm_show(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_PM_H */
