// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime and system power management.
 *
 * Runtime PM: every job holds a usage reference from SUBMIT until its
 * fence signals (enpu_pm_job_begin/end, called where the job takes and
 * gives back its quota units), and SUBMIT itself resumes the device first
 * (enpu_pm_submit_ioctl), so a job arriving while the device is suspended
 * or suspending waits for the resume and then runs. Once the last job has
 * signalled, the device autosuspends after power/autosuspend_delay_ms
 * (module parameter autosuspend_ms at probe): interrupts masked, the
 * engine power-gated with SET_POWER(OFF) (interface 1.5), devfreq
 * sampling stopped. Resume powers it on, reloads the firmware (the image
 * is requested again: a suspended engine has lost it), restores the queue
 * priorities, interrupts and clock.
 *
 * On PCI runtime PM is enabled by the PCI core but, as for every PCI
 * device, only allowed once userspace writes "auto" to power/control
 * (udev rules, powertop, TLP do), unless the module parameter
 * runtime_pm_auto allows it at probe. A device older than interface 1.5
 * has no power states: it never suspends (the callbacks refuse).
 *
 * System suspend holds new work in the FIFOs, waits (bounded) for the jobs
 * on the rings, and powers the engine off the same way; resume powers it
 * on and lets the queues run. Nothing is failed across a suspend.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/seq_file.h>

#include "enpu_devfreq.h"
#include "enpu_device.h"
#include "enpu_fw_loader.h"
#include "enpu_hw.h"
#include "enpu_irq.h"
#include "enpu_job.h"
#include "enpu_mailbox.h"
#include "enpu_pm.h"
#include "enpu_thermal.h"

#define ENPU_SET_POWER_TIMEOUT_MS	1000
#define ENPU_SUSPEND_DRAIN_MS		5000

static unsigned int autosuspend_ms = 1000;
module_param(autosuspend_ms, uint, 0444);
MODULE_PARM_DESC(autosuspend_ms,
		 "idle ms before the NPU runtime-suspends (power/autosuspend_delay_ms after probe)");

static bool runtime_pm_auto;
module_param(runtime_pm_auto, bool, 0444);
MODULE_PARM_DESC(runtime_pm_auto,
		 "allow runtime suspend at probe, without power/control=auto from userspace");

static int enpu_pm_set_power(struct enpu_device *edev, u32 state)
{
	struct enpu_mbox_msg msg = {
		.cmd = ENPU_MBOX_SET_POWER,
		.arg = { state },
	};
	int ret;

	ret = enpu_mailbox_exec(edev, &msg, ENPU_SET_POWER_TIMEOUT_MS);
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE || msg.data != state) {
		dev_err(edev->dev, "SET_POWER %u refused, error %u\n", state,
			msg.result);
		return -EIO;
	}
	return 0;
}

/* With the recovery lock held and nothing on the rings. */
static int enpu_pm_power_off(struct enpu_device *edev)
{
	unsigned int vec;
	int ret;

	lockdep_assert_held(&edev->recovery.lock);
	enpu_devfreq_suspend(edev);
	ret = enpu_mailbox_set_irq_mask(edev, 0);
	if (!ret)
		ret = enpu_pm_set_power(edev, ENPU_POWER_OFF);
	if (ret) {
		if (enpu_mailbox_set_irq_mask(edev, ENPU_IRQ_MASK_ALL))
			dev_warn(edev->dev, "could not unmask interrupts\n");
		enpu_devfreq_resume(edev);
		return ret;
	}
	for (vec = 0; vec < ENPU_NUM_VECTORS; vec++)
		synchronize_irq(edev->irqs[vec]);
	/* The device zeroed its indices; ours restart with them. */
	enpu_hw_clear_ring_indices(edev);
	edev->pm.off = true;
	atomic64_inc(&edev->pm.suspends);
	return 0;
}

/* With the recovery lock held: power on, firmware, priorities, IRQs. */
static int enpu_pm_power_on(struct enpu_device *edev)
{
	ktime_t start = ktime_get();
	int ret;

	lockdep_assert_held(&edev->recovery.lock);
	ret = enpu_pm_set_power(edev, ENPU_POWER_ON);
	if (!ret)
		ret = enpu_fw_boot(edev);
	if (!ret) {
		enpu_hw_set_queue_priorities(edev);
		ret = enpu_mailbox_set_irq_mask(edev, ENPU_IRQ_MASK_ALL);
	}
	if (ret) {
		dev_err(edev->dev, "resume failed: %d\n", ret);
		return ret;
	}
	edev->pm.off = false;
	atomic64_inc(&edev->pm.resumes);
	WRITE_ONCE(edev->pm.last_resume_us,
		   ktime_us_delta(ktime_get(), start));
	enpu_devfreq_resume(edev);
	return 0;
}

static int enpu_pm_runtime_suspend(struct device *dev)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	int ret = -EBUSY;

	if (!edev->pm.enabled || enpu_quota_used(&edev->jobs))
		return -EBUSY;
	mutex_lock(&edev->recovery.lock);
	/* A recovery in progress or holding jobs owns the device. */
	if (!edev->recovery.down && !enpu_pm_jobs_on_device(edev))
		ret = enpu_pm_power_off(edev);
	mutex_unlock(&edev->recovery.lock);
	return ret ? -EBUSY : 0;
}

static int enpu_pm_runtime_resume(struct device *dev)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	int ret = 0;

	mutex_lock(&edev->recovery.lock);
	if (edev->pm.off)
		ret = enpu_pm_power_on(edev);
	mutex_unlock(&edev->recovery.lock);
	return ret;
}

static int enpu_pm_suspend(struct device *dev)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	unsigned int waited = 0;
	int ret;

	if (!edev->pm.enabled || pm_runtime_suspended(dev))
		return 0;
	mutex_lock(&edev->recovery.lock);
	enpu_pm_hold_rings(edev);
	mutex_unlock(&edev->recovery.lock);
	while (enpu_pm_jobs_on_device(edev) && waited < ENPU_SUSPEND_DRAIN_MS) {
		msleep(20);
		waited += 20;
	}
	mutex_lock(&edev->recovery.lock);
	ret = -EBUSY;
	if (!enpu_pm_jobs_on_device(edev) && !edev->recovery.down)
		ret = enpu_pm_power_off(edev);
	if (ret && !edev->recovery.down && !enpu_thermal_holding(edev))
		enpu_pm_release_rings(edev);
	mutex_unlock(&edev->recovery.lock);
	if (ret)
		dev_err(edev->dev, "system suspend refused: jobs still on the device\n");
	return ret;
}

static int enpu_pm_resume(struct device *dev)
{
	struct enpu_device *edev = dev_get_drvdata(dev);
	int ret = 0;

	if (!edev->pm.enabled || pm_runtime_suspended(dev))
		return 0;
	mutex_lock(&edev->recovery.lock);
	if (edev->pm.off)
		ret = enpu_pm_power_on(edev);
	if (!ret && !edev->recovery.down && !enpu_thermal_holding(edev))
		enpu_pm_release_rings(edev);
	mutex_unlock(&edev->recovery.lock);
	return ret;
}

const struct dev_pm_ops enpu_pm_ops = {
	SET_SYSTEM_SLEEP_PM_OPS(enpu_pm_suspend, enpu_pm_resume)
	SET_RUNTIME_PM_OPS(enpu_pm_runtime_suspend, enpu_pm_runtime_resume,
			   NULL)
};

/**
 * enpu_pm_submit_ioctl() - DRM_IOCTL_ENPU_SUBMIT with the device resumed
 * @drm: the DRM device.
 * @data: struct drm_enpu_submit.
 * @file: the submitter.
 *
 * A submit to a suspended (or suspending) device waits for its resume.
 * The job keeps its own reference (enpu_pm_job_begin()) after this one
 * is dropped.
 *
 * Return: what enpu_job_submit_ioctl() returns, or the resume's error.
 */
int enpu_pm_submit_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct enpu_device *edev = to_enpu_device(drm);
	int ret;

	ret = enpu_pm_get(edev);
	if (ret)
		return ret;
	ret = enpu_job_submit_ioctl(drm, data, file);
	enpu_pm_put(edev);
	return ret;
}

/**
 * enpu_pm_get() - resume the device and keep it powered
 * @edev: the device. Process context; may wait for a resume.
 *
 * For the driver's own users of the engine (SUBMIT, the debugfs NOP).
 *
 * Return: 0, or the resume's error (no reference kept then).
 */
int enpu_pm_get(struct enpu_device *edev)
{
	int ret = pm_runtime_resume_and_get(edev->dev);

	return ret < 0 ? ret : 0;
}

/**
 * enpu_pm_put() - drop what enpu_pm_get() or enpu_pm_job_begin() took
 * @edev: the device. Any context: the autosuspend is asynchronous.
 */
void enpu_pm_put(struct enpu_device *edev)
{
	pm_runtime_mark_last_busy(edev->dev);
	pm_runtime_put_autosuspend(edev->dev);
}

/**
 * enpu_pm_job_begin() - a job is in flight: keep the device powered
 * @edev: the device, resumed (the caller is inside SUBMIT).
 */
void enpu_pm_job_begin(struct enpu_device *edev)
{
	pm_runtime_get_noresume(edev->dev);
}

/**
 * enpu_pm_job_end() - a job's fence signalled
 * @edev: the device. Any context.
 */
void enpu_pm_job_end(struct enpu_device *edev)
{
	enpu_pm_put(edev);
}

/**
 * enpu_pm_init() - enable runtime PM with autosuspend
 * @edev: the device, booted, at the end of probe.
 */
void enpu_pm_init(struct enpu_device *edev)
{
	struct device *dev = edev->dev;

	edev->pm.enabled = (edev->id.hw_version & 0xffff) >= 5;
	if (!edev->pm.enabled)
		dev_info(dev, "device before interface 1.5: no runtime PM\n");
	pm_runtime_set_autosuspend_delay(dev, autosuspend_ms);
	pm_runtime_use_autosuspend(dev);
	pm_runtime_mark_last_busy(dev);
	if (dev_is_pci(dev)) {
		/* The PCI core holds a reference across probe: drop it. */
		if (runtime_pm_auto)
			pm_runtime_allow(dev);
		pm_runtime_put_autosuspend(dev);
	} else {
		pm_runtime_set_active(dev);
		pm_runtime_enable(dev);
	}
}

/**
 * enpu_pm_fini() - undo enpu_pm_init(), the device resumed
 * @edev: the device, at the start of remove.
 */
void enpu_pm_fini(struct enpu_device *edev)
{
	struct device *dev = edev->dev;

	if (dev_is_pci(dev)) {
		/* The PCI core resumed it before remove; keep it so. */
		pm_runtime_get_noresume(dev);
		if (runtime_pm_auto)
			pm_runtime_forbid(dev);
	} else {
		pm_runtime_get_sync(dev);
		pm_runtime_disable(dev);
		pm_runtime_put_noidle(dev);
	}
	pm_runtime_dont_use_autosuspend(dev);
	edev->pm.enabled = false;
}

/**
 * enpu_pm_show() - debugfs: power state and counts
 * @m: the seq_file.
 * @edev: the device.
 */
void enpu_pm_show(struct seq_file *m, struct enpu_device *edev)
{
	seq_printf(m, "runtime_pm=%d off=%d suspends=%lld resumes=%lld last_resume_us=%lld\n",
		   edev->pm.enabled, READ_ONCE(edev->pm.off),
		   atomic64_read(&edev->pm.suspends),
		   atomic64_read(&edev->pm.resumes),
		   READ_ONCE(edev->pm.last_resume_us));
}
