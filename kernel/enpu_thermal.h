/* SPDX-License-Identifier: GPL-2.0 */
/* The NPU thermal zone and its safe state (enpu_thermal.c). */
#ifndef ENPU_THERMAL_H
#define ENPU_THERMAL_H

#include <linux/atomic.h>
#include <linux/thermal.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct enpu_device;
struct seq_file;

/**
 * struct enpu_thermal - the thermal zone of the NPU sensor
 * @tz: the zone, NULL when there is none.
 * @trips: passive (devfreq cooling) and critical (safe state) trips.
 * @event_work: updates the zone after the device's trip interrupt, at
 *	most once per ENPU_THERMAL_PASSIVE_MS.
 * @last_event_update: jiffies of @event_work's last update.
 * @safe_work: enters and leaves the safe state, polling while in it.
 * @holding: the safe state holds the queues; written under the recovery
 *	lock, read anywhere.
 * @tripped: the zone's critical callback ran since @safe_work last looked.
 * @holds: times the safe state was entered.
 * @event_updates: zone updates @event_work made.
 */
struct enpu_thermal {
	struct thermal_zone_device *tz;
	struct thermal_trip trips[2];
	struct delayed_work event_work;
	unsigned long last_event_update;
	struct delayed_work safe_work;
	bool holding;
	bool tripped;
	atomic64_t holds;
	atomic64_t event_updates;
};

int enpu_thermal_init(struct enpu_device *edev);
void enpu_thermal_fini(struct enpu_device *edev);
void enpu_thermal_event(struct enpu_device *edev);
bool enpu_thermal_holding(struct enpu_device *edev);
void enpu_thermal_show(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_THERMAL_H */
