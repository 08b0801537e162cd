// SPDX-License-Identifier: GPL-2.0
/*
 * The NPU's thermal zone.
 *
 * One zone, "enpu", reads the device's sensor (TEMP_MC) and has two trips
 * taken from the device (interface 1.5): a passive trip at
 * TEMP_PASSIVE_MC, to which the devfreq cooling device of the NPU clock
 * (enpu_devfreq.c) is bound, so the thermal governor (step_wise by
 * default) lowers the clock one OPP at a time while the zone is above it
 * and raises it again once below; and a critical trip at TEMP_HOT_MC.
 * The device itself halts at TEMP_CRIT_MC, 10 degC higher, and recovery
 * (enpu_recovery.c) brings it back once cool; the critical trip is there
 * so that it does not come to that.
 *
 * The thermal core's default for a critical trip is to power the machine
 * off; an accelerator must not do that to its host. Ours instead enters a
 * safe state: nothing more is written to the rings (the jobs stay queued
 * in their FIFOs, new submits queue behind them; nothing is failed), the
 * clock goes to the lowest OPP, and a work item watches the sensor until
 * the zone is below the passive trip, then lets the queues run again.
 *
 * The zone is interrupt driven: the device raises ENPU_VEC_EVENT when the
 * temperature crosses a trip (enpu_irq.c calls enpu_thermal_event()), and
 * the core polls every ENPU_THERMAL_PASSIVE_MS while passive cooling is
 * active. The device has no programmable thresholds and no hysteresis of
 * its own: a device held at its passive trip by the cooling crosses it
 * every few milliseconds, and one zone update per crossing made step_wise
 * move the clock up and down hundreds of times a second (a SET_OPP each).
 * An event therefore updates the zone at once only if the last
 * event-driven update is ENPU_THERMAL_PASSIVE_MS old, else that much
 * after it: the first crossing is seen at once, a storm at the passive
 * polling rate. Without CONFIG_THERMAL, or on a device without the 1.5 trip
 * registers, there is no zone and the device protects itself (halt and
 * recovery) only.
 */
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/thermal.h>
#include <linux/workqueue.h>

#include "enpu_conftest.h"
#include "enpu_devfreq.h"
#include "enpu_device.h"
#include "enpu_hw.h"
#include "enpu_pm.h"
#include "enpu_thermal.h"

#define ENPU_THERMAL_PASSIVE_MS		100
#define ENPU_THERMAL_SAFE_POLL_MS	100
#define ENPU_THERMAL_PASSIVE_HYST_MC	2000

enum { ENPU_TRIP_PASSIVE, ENPU_TRIP_CRITICAL, ENPU_TRIPS };

static struct enpu_device *enpu_thermal_edev(struct thermal_zone_device *tz)
{
#ifdef ENPU_HAVE_THERMAL_ZONE_DEVICE_PRIV
	return thermal_zone_device_priv(tz);
#else
	return tz->devdata;
#endif
}

static int enpu_thermal_get_temp(struct thermal_zone_device *tz, int *temp)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	*temp = (int)enpu_read(edev, ENPU_REG_TEMP_MC);
	return 0;
}

#ifdef ENPU_HAVE_THERMAL_GET_TRIP_TEMP_OP
/* Kernels that read trips through ops rather than the registered array. */
static int enpu_thermal_get_trip_type(struct thermal_zone_device *tz, int trip,
				      enum thermal_trip_type *type)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	if (trip < 0 || trip >= ENPU_TRIPS)
		return -EINVAL;
	*type = edev->thermal.trips[trip].type;
	return 0;
}

static int enpu_thermal_get_trip_temp(struct thermal_zone_device *tz, int trip,
				      int *temp)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	if (trip < 0 || trip >= ENPU_TRIPS)
		return -EINVAL;
	*temp = edev->thermal.trips[trip].temperature;
	return 0;
}

static int enpu_thermal_get_trip_hyst(struct thermal_zone_device *tz, int trip,
				      int *hyst)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	if (trip < 0 || trip >= ENPU_TRIPS)
		return -EINVAL;
	*hyst = edev->thermal.trips[trip].hysteresis;
	return 0;
}
#endif

/* Instead of the core's emergency power-off: hold the jobs (see above). */
static void enpu_thermal_critical(struct thermal_zone_device *tz)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	dev_warn_ratelimited(edev->dev, "NPU at %d mC, at or above its critical trip: holding jobs\n",
			     (int)enpu_read(edev, ENPU_REG_TEMP_MC));
	WRITE_ONCE(edev->thermal.tripped, true);
	mod_delayed_work(system_wq, &edev->thermal.safe_work, 0);
}

#ifdef ENPU_HAVE_THERMAL_SHOULD_BIND
static bool enpu_thermal_should_bind(struct thermal_zone_device *tz,
				     const struct thermal_trip *trip,
				     struct thermal_cooling_device *cdev,
				     struct cooling_spec *spec)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	return cdev == edev->dvfs.cooling && trip->type == THERMAL_TRIP_PASSIVE;
}
#else
static int enpu_thermal_bind(struct thermal_zone_device *tz,
			     struct thermal_cooling_device *cdev)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	if (cdev != edev->dvfs.cooling)
		return 0;
	return thermal_zone_bind_cooling_device(tz, ENPU_TRIP_PASSIVE, cdev,
						THERMAL_NO_LIMIT,
						THERMAL_NO_LIMIT,
						THERMAL_WEIGHT_DEFAULT);
}

static int enpu_thermal_unbind(struct thermal_zone_device *tz,
			       struct thermal_cooling_device *cdev)
{
	struct enpu_device *edev = enpu_thermal_edev(tz);

	if (cdev != edev->dvfs.cooling)
		return 0;
	return thermal_zone_unbind_cooling_device(tz, ENPU_TRIP_PASSIVE, cdev);
}
#endif

static struct thermal_zone_device_ops enpu_thermal_ops = {
	.get_temp = enpu_thermal_get_temp,
	.critical = enpu_thermal_critical,
#ifdef ENPU_HAVE_THERMAL_GET_TRIP_TEMP_OP
	.get_trip_type = enpu_thermal_get_trip_type,
	.get_trip_temp = enpu_thermal_get_trip_temp,
	.get_trip_hyst = enpu_thermal_get_trip_hyst,
#endif
#ifdef ENPU_HAVE_THERMAL_SHOULD_BIND
	.should_bind = enpu_thermal_should_bind,
#else
	.bind = enpu_thermal_bind,
	.unbind = enpu_thermal_unbind,
#endif
};

/**
 * enpu_thermal_holding() - is the thermal safe state holding the jobs?
 * @edev: the device.
 *
 * Recovery asks before it lets the queues run again after a reboot.
 *
 * Return: true while the queues must stay stopped for cooling.
 */
bool enpu_thermal_holding(struct enpu_device *edev)
{
	return READ_ONCE(edev->thermal.holding);
}

/*
 * Enters the safe state at or above the critical trip and leaves it once
 * below the passive trip; re-arms itself while holding. Runs under the
 * recovery lock, so that recovery never restarts the queues between our
 * decision and our stop, and we never restart them while it holds them.
 */
static void enpu_thermal_safe_work(struct work_struct *work)
{
	struct enpu_thermal *thermal = container_of(to_delayed_work(work),
						    struct enpu_thermal,
						    safe_work);
	struct enpu_device *edev = container_of(thermal, struct enpu_device,
						thermal);
	int temp = (int)enpu_read(edev, ENPU_REG_TEMP_MC);

	mutex_lock(&edev->recovery.lock);
	/* The zone saw the trip even if the sensor has dropped since. */
	if (!thermal->holding &&
	    (xchg(&thermal->tripped, false) ||
	     temp >= thermal->trips[ENPU_TRIP_CRITICAL].temperature)) {
		WRITE_ONCE(thermal->holding, true);
		atomic64_inc(&thermal->holds);
		enpu_pm_hold_rings(edev);
		/* The cooling device will follow; do not wait for it. */
		if (enpu_devfreq_set_opp(edev, 0))
			dev_warn(edev->dev, "could not lower the clock\n");
		dev_warn(edev->dev, "thermal safe state at %d mC: jobs held until below %d mC\n",
			 temp, thermal->trips[ENPU_TRIP_PASSIVE].temperature);
	} else if (thermal->holding &&
		   temp < thermal->trips[ENPU_TRIP_PASSIVE].temperature) {
		WRITE_ONCE(thermal->holding, false);
		/* A recovery that holds the queues restarts them itself. */
		if (!edev->recovery.down)
			enpu_pm_release_rings(edev);
		dev_info(edev->dev, "thermal safe state left at %d mC\n", temp);
	}
	if (thermal->holding)
		queue_delayed_work(system_wq, &thermal->safe_work,
				   msecs_to_jiffies(ENPU_THERMAL_SAFE_POLL_MS));
	mutex_unlock(&edev->recovery.lock);
}

static void enpu_thermal_event_work(struct work_struct *work)
{
	struct enpu_thermal *thermal = container_of(to_delayed_work(work),
						    struct enpu_thermal,
						    event_work);

	WRITE_ONCE(thermal->last_event_update, jiffies);
	atomic64_inc(&thermal->event_updates);
	thermal_zone_device_update(thermal->tz, THERMAL_EVENT_UNSPECIFIED);
}

/**
 * enpu_thermal_event() - the device says the temperature crossed a trip
 * @edev: the device. Any context (called from the event interrupt).
 */
void enpu_thermal_event(struct enpu_device *edev)
{
	struct enpu_thermal *thermal = &edev->thermal;
	unsigned long next, delay = 0;

	if (!READ_ONCE(thermal->tz))
		return;
	next = READ_ONCE(thermal->last_event_update) +
	       msecs_to_jiffies(ENPU_THERMAL_PASSIVE_MS);
	if (time_before(jiffies, next))
		delay = next - jiffies;
	/* Already pending: that update will see this crossing too. */
	queue_delayed_work(system_wq, &thermal->event_work, delay);
}

/**
 * enpu_thermal_init() - register the NPU thermal zone
 * @edev: the device, booted, after enpu_devfreq_init() (so the zone binds
 *	the cooling device when it registers).
 *
 * A missing zone is not fatal (see the top of this file).
 *
 * Return: 0.
 */
int enpu_thermal_init(struct enpu_device *edev)
{
	struct enpu_thermal *thermal = &edev->thermal;
	struct thermal_zone_device *tz;
	int passive = (int)enpu_read(edev, ENPU_REG_TEMP_PASSIVE_MC);
	int hot = (int)enpu_read(edev, ENPU_REG_TEMP_HOT_MC);
	int ret;

	INIT_DELAYED_WORK(&thermal->safe_work, enpu_thermal_safe_work);
	INIT_DELAYED_WORK(&thermal->event_work, enpu_thermal_event_work);
	thermal->last_event_update = jiffies -
				     msecs_to_jiffies(ENPU_THERMAL_PASSIVE_MS);
	if (!IS_ENABLED(CONFIG_THERMAL) || !(edev->id.caps & ENPU_CAP_THERMAL) ||
	    passive <= 0 || hot <= passive) {
		dev_info(edev->dev, "no thermal zone (device trips %d/%d mC)\n",
			 passive, hot);
		return 0;
	}
	thermal->trips[ENPU_TRIP_PASSIVE] = (struct thermal_trip){
		.temperature = passive,
		.hysteresis = ENPU_THERMAL_PASSIVE_HYST_MC,
		.type = THERMAL_TRIP_PASSIVE,
	};
	thermal->trips[ENPU_TRIP_CRITICAL] = (struct thermal_trip){
		.temperature = hot,
		.type = THERMAL_TRIP_CRITICAL,
	};
#ifdef ENPU_HAVE_THERMAL_REGISTER_NO_MASK
	tz = thermal_zone_device_register_with_trips("enpu", thermal->trips,
						     ENPU_TRIPS, edev,
						     &enpu_thermal_ops, NULL,
						     ENPU_THERMAL_PASSIVE_MS, 0);
#else
	tz = thermal_zone_device_register_with_trips("enpu", thermal->trips,
						     ENPU_TRIPS, 0, edev,
						     &enpu_thermal_ops, NULL,
						     ENPU_THERMAL_PASSIVE_MS, 0);
#endif
	if (IS_ERR(tz)) {
		dev_warn(edev->dev, "no thermal zone: %ld\n", PTR_ERR(tz));
		return 0;
	}
	ret = thermal_zone_device_enable(tz);
	if (ret) {
		dev_warn(edev->dev, "thermal zone not enabled: %d\n", ret);
		thermal_zone_device_unregister(tz);
		return 0;
	}
	WRITE_ONCE(thermal->tz, tz);
	dev_info(edev->dev, "thermal zone: passive %d mC, critical %d mC%s\n",
		 passive, hot,
		 edev->dvfs.cooling ? ", devfreq cooling bound" : "");
	return 0;
}

/**
 * enpu_thermal_fini() - unregister the zone, stop watching
 * @edev: the device, its interrupts quiesced.
 */
void enpu_thermal_fini(struct enpu_device *edev)
{
	struct enpu_thermal *thermal = &edev->thermal;
	struct thermal_zone_device *tz = thermal->tz;

	WRITE_ONCE(thermal->tz, NULL);
	cancel_delayed_work_sync(&thermal->event_work);
	if (tz)
		thermal_zone_device_unregister(tz);
	cancel_delayed_work_sync(&thermal->safe_work);
}

/**
 * enpu_thermal_show() - debugfs: the zone and the safe state
 * @m: the seq_file.
 * @edev: the device.
 */
void enpu_thermal_show(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_thermal *thermal = &edev->thermal;

	seq_printf(m, "temp_mc=%d zone=%d holding=%d holds=%lld opp=%u event_updates=%lld\n",
		   (int)enpu_read(edev, ENPU_REG_TEMP_MC), thermal->tz ? 1 : 0,
		   READ_ONCE(thermal->holding),
		   atomic64_read(&thermal->holds),
		   enpu_read(edev, ENPU_REG_OPP_CURRENT),
		   atomic64_read(&thermal->event_updates));
}
