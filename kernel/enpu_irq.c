// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts. Each cause has its own vector (MSI-X on PCI, one line per
 * cause on SoCs), so handlers need no status register and never share.
 * Every hard-IRQ handler does bounded work: the job-done handler consumes
 * at most ENPU_CQ_BATCH completion entries (each an O(1) lookup and one
 * run of the scheduler's bounded dispatch loop and signalling,
 * scheduler/enpu_sched.c) and wakes its thread for whatever is left; the
 * others only read a few registers and queue work.
 */
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>

#include "enpu_device.h"
#include "enpu_hw.h"
#include "enpu_irq.h"
#include "enpu_mailbox.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_thermal.h"

static irqreturn_t enpu_irq_job_done(int irq, void *arg)
{
	struct enpu_device *edev = arg;
	ktime_t start = ktime_get();
	unsigned int consumed;

	atomic64_inc(&edev->irq.count[ENPU_VEC_JOB_DONE]);
	consumed = enpu_queue_drain_completions(edev, ENPU_CQ_BATCH);
	enpu_stat_max(&edev->irq.stats.hard_max_entries, consumed);
	enpu_stat_max64(&edev->irq.stats.hard_max_ns,
			ktime_to_ns(ktime_sub(ktime_get(), start)));
	if (consumed == ENPU_CQ_BATCH && enpu_queue_completions_waiting(edev))
		return IRQ_WAKE_THREAD;
	return IRQ_HANDLED;
}

/* The rest of a burst, batch by batch in process context. */
static irqreturn_t enpu_irq_job_done_thread(int irq, void *arg)
{
	struct enpu_device *edev = arg;

	atomic64_inc(&edev->irq.stats.thread_runs);
	atomic64_add(enpu_queue_drain_all(edev),
		     &edev->irq.stats.thread_entries);
	return IRQ_HANDLED;
}

static irqreturn_t enpu_irq_error(int irq, void *arg)
{
	struct enpu_device *edev = arg;
	u32 status = enpu_read(edev, ENPU_REG_STATUS);
	u32 code = enpu_read(edev, ENPU_REG_ERROR_CODE);
	u32 info = enpu_read(edev, ENPU_REG_ERROR_INFO);

	atomic64_inc(&edev->irq.count[ENPU_VEC_ERROR]);
	WRITE_ONCE(edev->irq.last_error_code, code);
	WRITE_ONCE(edev->irq.last_error_info, info);
	dev_err_ratelimited(edev->dev,
			    "device error: status %u, code %u, info 0x%x\n",
			    status, code, info);
	/* Reset, firmware reload and resubmission, in process context. */
	enpu_recovery_trigger(edev, ENPU_RECOVERY_ERROR);
	return IRQ_HANDLED;
}

static irqreturn_t enpu_irq_event(int irq, void *arg)
{
	struct enpu_device *edev = arg;

	atomic64_inc(&edev->irq.count[ENPU_VEC_EVENT]);
	enpu_thermal_event(edev);
	dev_dbg(edev->dev, "event: temperature %d mC, OPP %u\n",
		(s32)enpu_read(edev, ENPU_REG_TEMP_MC),
		enpu_read(edev, ENPU_REG_OPP_CURRENT));
	return IRQ_HANDLED;
}

static irqreturn_t enpu_irq_mailbox(int irq, void *arg)
{
	struct enpu_device *edev = arg;

	atomic64_inc(&edev->irq.count[ENPU_VEC_MAILBOX]);
	enpu_mailbox_irq(edev);
	return IRQ_HANDLED;
}

static const struct {
	irq_handler_t handler;
	irq_handler_t thread;
	const char *name;
} enpu_irq_handlers[ENPU_NUM_VECTORS] = {
	[ENPU_VEC_JOB_DONE] = { enpu_irq_job_done, enpu_irq_job_done_thread,
				"enpu-job-done" },
	[ENPU_VEC_ERROR] = { enpu_irq_error, NULL, "enpu-error" },
	[ENPU_VEC_EVENT] = { enpu_irq_event, NULL, "enpu-event" },
	[ENPU_VEC_MAILBOX] = { enpu_irq_mailbox, NULL, "enpu-mailbox" },
};

/**
 * enpu_irq_install() - request the handler of every interrupt cause
 * @edev: the device, with @edev->irqs filled in by the bus glue.
 *
 * The handlers are device-managed and freed after the driver's remove
 * callback, by which time the device has masked all causes.
 *
 * Return: 0 or a negative errno from request_irq().
 */
int enpu_irq_install(struct enpu_device *edev)
{
	unsigned int vec;
	int ret;

	for (vec = 0; vec < ENPU_NUM_VECTORS; vec++) {
		ret = devm_request_threaded_irq(edev->dev, edev->irqs[vec],
						enpu_irq_handlers[vec].handler,
						enpu_irq_handlers[vec].thread, 0,
						enpu_irq_handlers[vec].name,
						edev);
		if (ret) {
			dev_err(edev->dev, "cannot request IRQ %d (%s): %d\n",
				edev->irqs[vec], enpu_irq_handlers[vec].name,
				ret);
			return ret;
		}
	}
	return 0;
}
