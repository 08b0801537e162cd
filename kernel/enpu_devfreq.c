// SPDX-License-Identifier: GPL-2.0
/*
 * DVFS of the NPU clock through the kernel's devfreq framework.
 *
 * The OPP table comes from the device (OPP_COUNT, OPP_KHZ(i), OPP_MV(i)
 * since interface 1.5) and is registered with the OPP library, so devfreq,
 * its sysfs node under /sys/class/devfreq and the devfreq cooling device
 * (enpu_thermal.c) all see the same table. A frequency change is the
 * mailbox command SET_OPP. Busy and total time come from the device's own
 * counters, PERF_BUSY_NS and PERF_DEVICE_NS (device time, so a vnpu
 * running faster or slower than real time is judged by its own clock).
 *
 * The governor is simple_ondemand when the kernel has it (Debian builds it
 * as a module, loaded on demand by devfreq); the userspace governor is
 * selectable through sysfs where the kernel has it built (Debian's 6.1 and
 * 6.12 do not; min_freq/max_freq pin the clock with any governor).
 * Without CONFIG_PM_DEVFREQ, or with no governor available, the device
 * runs at its power-on OPP and this file only says so in the log.
 */
#include <linux/device.h>
#include <linux/devfreq.h>
#include <linux/devfreq_cooling.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pm_opp.h>

#include "enpu_devfreq.h"
#include "enpu_device.h"
#include "enpu_hw.h"
#include "enpu_mailbox.h"

#define ENPU_DEVFREQ_POLL_MS		50
#define ENPU_SET_OPP_TIMEOUT_MS		1000

static unsigned int devfreq_poll_ms = ENPU_DEVFREQ_POLL_MS;
module_param(devfreq_poll_ms, uint, 0444);
MODULE_PARM_DESC(devfreq_poll_ms,
		 "devfreq sampling period of the NPU load, ms (read at probe)");

static u32 enpu_devfreq_opp_count(struct enpu_device *edev)
{
	return min_t(u32, enpu_read(edev, ENPU_REG_OPP_COUNT), ENPU_MAX_OPPS);
}

/* The index of the OPP whose clock is @hz, or -EINVAL. */
static int enpu_devfreq_index(struct enpu_device *edev, unsigned long hz)
{
	u32 i, count = enpu_devfreq_opp_count(edev);

	for (i = 0; i < count; i++)
		if ((unsigned long)enpu_read(edev, ENPU_REG_OPP_KHZ(i)) * 1000 == hz)
			return i;
	return -EINVAL;
}

/**
 * enpu_devfreq_set_opp() - switch the NPU clock to OPP @index
 * @edev: the device.
 * @index: OPP index, below OPP_COUNT.
 *
 * Return: 0, -ETIMEDOUT, or -EIO if the device refused.
 */
int enpu_devfreq_set_opp(struct enpu_device *edev, u32 index)
{
	struct enpu_mbox_msg msg = {
		.cmd = ENPU_MBOX_SET_OPP,
		.arg = { index },
	};
	int ret;

	ret = enpu_mailbox_exec(edev, &msg, ENPU_SET_OPP_TIMEOUT_MS);
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE) {
		dev_err_ratelimited(edev->dev, "SET_OPP %u refused, error %u\n",
				    index, msg.result);
		return -EIO;
	}
	return 0;
}

static int enpu_devfreq_target(struct device *dev, unsigned long *freq,
			       u32 flags)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	struct dev_pm_opp *opp;
	int index, ret;

	opp = devfreq_recommended_opp(dev, freq, flags);
	if (IS_ERR(opp))
		return PTR_ERR(opp);
	dev_pm_opp_put(opp);
	index = enpu_devfreq_index(edev, *freq);
	if (index < 0)
		return index;
	if (index == (int)enpu_read(edev, ENPU_REG_OPP_CURRENT))
		return 0;
	ret = enpu_devfreq_set_opp(edev, index);
	if (!ret)
		atomic64_inc(&edev->dvfs.transitions);
	return ret;
}

static int enpu_devfreq_get_cur_freq(struct device *dev, unsigned long *freq)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	u32 index = enpu_read(edev, ENPU_REG_OPP_CURRENT);

	if (index >= enpu_devfreq_opp_count(edev))
		return -EIO;
	*freq = (unsigned long)enpu_read(edev, ENPU_REG_OPP_KHZ(index)) * 1000;
	return 0;
}

/* Utilisation since the last call, in device time. */
static int enpu_devfreq_get_dev_status(struct device *dev,
				       struct devfreq_dev_status *stat)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	struct enpu_dvfs *dvfs = &edev->dvfs;
	u64 busy = enpu_hw_read_counter(edev, ENPU_REG_PERF_BUSY_NS_LO);
	u64 total = enpu_hw_read_counter(edev, ENPU_REG_PERF_DEVICE_NS_LO);
	u64 dbusy = busy - dvfs->last_busy_ns;
	u64 dtotal = total - dvfs->last_total_ns;

	dvfs->last_busy_ns = busy;
	dvfs->last_total_ns = total;
	/* devfreq's fields are unsigned long; scale to microseconds. */
	stat->busy_time = (unsigned long)min_t(u64, div_u64(dbusy, 1000),
					       ULONG_MAX);
	stat->total_time = (unsigned long)min_t(u64, div_u64(dtotal, 1000),
						ULONG_MAX);
	if (stat->busy_time > stat->total_time)
		stat->busy_time = stat->total_time;
	return enpu_devfreq_get_cur_freq(dev, &stat->current_frequency);
}

static int enpu_devfreq_add_opps(struct enpu_device *edev)
{
	u32 i, count = enpu_devfreq_opp_count(edev);
	int ret;

	if (!count)
		return -ENODEV;
	for (i = 0; i < count; i++) {
		unsigned long hz = (unsigned long)enpu_read(edev, ENPU_REG_OPP_KHZ(i)) * 1000;
		/* 0 on a device before interface 1.5: no voltage known. */
		unsigned long uv = (unsigned long)enpu_read(edev, ENPU_REG_OPP_MV(i)) * 1000;

		ret = dev_pm_opp_add(edev->dev, hz, uv);
		if (ret) {
			dev_err(edev->dev, "OPP %u (%lu Hz): %d\n", i, hz, ret);
			return ret;
		}
	}
	return 0;
}

static void enpu_devfreq_remove_opps(void *data)
{
	dev_pm_opp_remove_all_dynamic(data);
}

/**
 * enpu_devfreq_init() - register the devfreq device and its cooling device
 * @edev: the device, booted.
 *
 * Failure to set up DVFS is not fatal: the device works at its current
 * clock and the reason is logged; edev->dvfs.devfreq stays NULL.
 *
 * Return: 0, or a negative errno only for an error that must fail probe
 * (none at present).
 */
int enpu_devfreq_init(struct enpu_device *edev)
{
	struct enpu_dvfs *dvfs = &edev->dvfs;
	struct devfreq_dev_profile *profile = &dvfs->profile;
	struct devfreq *devfreq;
	unsigned long freq;
	int ret;

	/*
	 * The callbacks find the device through it; the bus glue sets the
	 * same pointer once probe returns.
	 */
	dev_set_drvdata(edev->dev, edev);
	if (!IS_ENABLED(CONFIG_PM_DEVFREQ)) {
		dev_info(edev->dev, "kernel without CONFIG_PM_DEVFREQ: fixed NPU clock\n");
		return 0;
	}
	if (!(edev->id.caps & ENPU_CAP_DVFS)) {
		dev_info(edev->dev, "device has no DVFS: fixed NPU clock\n");
		return 0;
	}
	ret = enpu_devfreq_add_opps(edev);
	if (ret)
		goto out_opps;
	ret = devm_add_action_or_reset(edev->dev, enpu_devfreq_remove_opps,
				       edev->dev);
	if (ret)
		return ret;
	ret = enpu_devfreq_get_cur_freq(edev->dev, &freq);
	if (ret)
		return 0;
	dvfs->last_busy_ns = enpu_hw_read_counter(edev, ENPU_REG_PERF_BUSY_NS_LO);
	dvfs->last_total_ns = enpu_hw_read_counter(edev, ENPU_REG_PERF_DEVICE_NS_LO);
	profile->initial_freq = freq;
	profile->polling_ms = devfreq_poll_ms;
	profile->timer = DEVFREQ_TIMER_DELAYED;
	profile->target = enpu_devfreq_target;
	profile->get_dev_status = enpu_devfreq_get_dev_status;
	profile->get_cur_freq = enpu_devfreq_get_cur_freq;
	/* Ups at 60 % busy, downs below 50 %: simple_ondemand's rule. */
	dvfs->ondemand.upthreshold = 60;
	dvfs->ondemand.downdifferential = 10;

	devfreq = devm_devfreq_add_device(edev->dev, profile,
					  DEVFREQ_GOV_SIMPLE_ONDEMAND,
					  &dvfs->ondemand);
	if (IS_ERR(devfreq)) {
		ret = PTR_ERR(devfreq);
		goto out_opps;
	}
	dvfs->devfreq = devfreq;
	dvfs->cooling = devfreq_cooling_register(devfreq);
	if (IS_ERR(dvfs->cooling)) {
		dev_warn(edev->dev, "no devfreq cooling device: %ld\n",
			 PTR_ERR(dvfs->cooling));
		dvfs->cooling = NULL;
	}
	dev_info(edev->dev, "devfreq %s: %u OPPs, governor %s\n",
		 dev_name(&devfreq->dev), enpu_devfreq_opp_count(edev),
		 DEVFREQ_GOV_SIMPLE_ONDEMAND);
	return 0;

out_opps:
	/* e.g. governor_simpleondemand not available to request_module() */
	dev_warn(edev->dev, "DVFS disabled, fixed NPU clock: %d\n", ret);
	return 0;
}

/**
 * enpu_devfreq_fini() - unregister the cooling device
 * @edev: the device; the devfreq device itself is device-managed.
 */
void enpu_devfreq_fini(struct enpu_device *edev)
{
	if (edev->dvfs.cooling)
		devfreq_cooling_unregister(edev->dvfs.cooling);
	edev->dvfs.cooling = NULL;
}

/**
 * enpu_devfreq_suspend() - stop sampling, for runtime or system suspend
 * @edev: the device.
 */
void enpu_devfreq_suspend(struct enpu_device *edev)
{
	if (edev->dvfs.devfreq)
		devfreq_suspend_device(edev->dvfs.devfreq);
}

/**
 * enpu_devfreq_resume() - sample again and re-apply the clock
 * @edev: the device, powered and booted again.
 */
void enpu_devfreq_resume(struct enpu_device *edev)
{
	struct enpu_dvfs *dvfs = &edev->dvfs;

	if (!dvfs->devfreq)
		return;
	/* The counters went on while the device was off. */
	dvfs->last_busy_ns = enpu_hw_read_counter(edev, ENPU_REG_PERF_BUSY_NS_LO);
	dvfs->last_total_ns = enpu_hw_read_counter(edev, ENPU_REG_PERF_DEVICE_NS_LO);
	devfreq_resume_device(dvfs->devfreq);
}
