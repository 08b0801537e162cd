// SPDX-License-Identifier: GPL-2.0
/*
 * Watchdog and recovery. While any job is on the device an hrtimer ticks
 * every ENPU_WATCHDOG_PERIOD_MS; its callback only queues the watchdog
 * work, which:
 *   - drains the completion ring itself when entries wait there and no
 *     job-done interrupt came since the last tick (a lost interrupt);
 *   - declares a hang when the device says HUNG, when HEARTBEAT did not
 *     move for ENPU_HEARTBEAT_STALL_TICKS of the device's own heartbeat
 *     period (HEARTBEAT_PERIOD_US, so a device running slower than real
 *     time is not taken for a hung one), at least
 *     ENPU_HEARTBEAT_STALL_MIN_MS, or when no job completed while the
 *     heartbeat advanced by job_timeout_ms device milliseconds (a job
 *     that never completes, e.g. its completion entry was lost);
 *   - recovers from ERROR (also asked for by the error interrupt) and
 *     from a completion entry whose tag matches no job.
 *
 * Recovery: stop writing to the rings, read every SQ_HEAD, drain what
 * completed, RESET (mailbox polled: the reset masks the mailbox vector),
 * boot the firmware again through the loader, restore the queue
 * priorities and interrupt mask, then hand the ring jobs back to their
 * FIFOs (enpu_job_requeue_after_reset()): the job the device had consumed
 * but not completed is guilty of a hang (-ETIMEDOUT, its context's
 * hang_count rises, ban at ENPU_CONTEXT_BAN_HANGS), every other job runs
 * again in order. If the device cannot be recovered every job is failed
 * with -ENODEV, so no fence is left unsignalled.
 *
 * Locking: enpu_recovery.lock (a mutex) serialises passes; under it the
 * mailbox lock (RESET, BOOT, SET_IRQ_MASK) and the job queue locks are
 * taken, one at a time. Nothing takes enpu_recovery.lock under another
 * driver lock. The timer callback and enpu_recovery_trigger() take no
 * lock at all (flag bits and queue_work()).
 */
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/time64.h>
#include <drm/drm_managed.h>

#include "enpu_device.h"
#include "enpu_fw_loader.h"
#include "enpu_hw.h"
#include "enpu_irq.h"
#include "enpu_job.h"
#include "enpu_mailbox.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"

#define ENPU_WATCHDOG_PERIOD_MS	100
/*
 * A heartbeat that stays still for this many of its periods is stopped;
 * never less than the minimum, which leaves room for a host that is slow
 * to run the vnpu's heartbeat thread.
 */
#define ENPU_HEARTBEAT_STALL_TICKS	8
#define ENPU_HEARTBEAT_STALL_MIN_MS	300

/* enpu_recovery.flags */
#define ENPU_RECOVERY_ARMED		0	/* timer running or work will re-arm */
#define ENPU_RECOVERY_DEAD		1	/* device removal: never again */
#define ENPU_RECOVERY_REQ_ERROR		2	/* the error interrupt came */
#define ENPU_RECOVERY_REQ_UNKNOWN_TAG	3	/* a completion matched no job */

static unsigned int job_timeout_ms = 10000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "device ms (heartbeat ticks) without any job completing, while jobs are on the device, before the watchdog declares a hang (0: heartbeat only)");

static struct enpu_device *to_edev(struct enpu_recovery *rec)
{
	return container_of(rec, struct enpu_device, recovery);
}

/* A thermal halt or a ring error is not the running job's doing. */
static bool enpu_recovery_error_blames_job(struct enpu_device *edev)
{
	u32 code = enpu_read(edev, ENPU_REG_ERROR_CODE);

	return code != ENPU_ERR_THERMAL && code != ENPU_ERR_RING;
}

static void enpu_recovery_reset(struct enpu_device *edev, bool blame,
				const char *why)
{
	struct enpu_recovery *rec = &edev->recovery;
	u32 sq_head[ENPU_MAX_QUEUES];
	unsigned int q;
	int ret;

	lockdep_assert_held(&rec->lock);
	dev_err(edev->dev, "%s: resetting the device (status %u, error %u)\n",
		why, enpu_read(edev, ENPU_REG_STATUS),
		enpu_read(edev, ENPU_REG_ERROR_CODE));
	atomic64_inc(&rec->resets);

	enpu_job_stop_queues(edev);
	/* RESET zeroes SQ_HEAD: what the device consumed must be read first. */
	for (q = 0; q < ENPU_MAX_QUEUES; q++)
		sq_head[q] = enpu_read(edev, ENPU_REG_SQ_HEAD(q));
	/* Jobs that did complete are signalled, not run twice. */
	enpu_queue_drain_all(edev);

	/* The reset masks every vector, the mailbox's included. */
	enpu_mailbox_use_polling(edev);
	ret = enpu_hw_reset(edev);
	/* A job-done handler still running must finish before requeueing. */
	synchronize_irq(edev->irqs[ENPU_VEC_JOB_DONE]);
	if (!ret)
		ret = enpu_fw_boot(edev);
	if (!ret) {
		enpu_hw_set_queue_priorities(edev);
		ret = enpu_mailbox_set_irq_mask(edev, ENPU_IRQ_MASK_ALL);
	}
	if (ret) {
		dev_err(edev->dev, "recovery failed (%d); failing every job\n",
			ret);
		rec->wedged = true;
		enpu_job_fail_all(edev, -ENODEV);
		return;
	}
	rec->tick_valid = false;
	enpu_job_requeue_after_reset(edev, sq_head, blame);
	dev_info(edev->dev, "device recovered\n");
}

static void enpu_recovery_hang(struct enpu_device *edev, const char *why)
{
	atomic64_inc(&edev->recovery.hangs);
	enpu_recovery_reset(edev, true, why);
}

/* One watchdog tick with the lock held. */
static void enpu_recovery_check(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;
	u64 irqs = atomic64_read(&edev->irq_count[ENPU_VEC_JOB_DONE]);
	u32 status, heartbeat, timeout;
	u64 completed, stall_ms;
	ktime_t now;

	lockdep_assert_held(&rec->lock);
	if (irqs == rec->last_irqs &&
	    enpu_read(edev, ENPU_REG_CQ_TAIL) !=
	    enpu_read(edev, ENPU_REG_CQ_HEAD) &&
	    enpu_queue_drain_all(edev)) {
		atomic64_inc(&rec->lost_irqs);
		dev_warn_ratelimited(edev->dev,
				     "completions without a job-done interrupt, drained by the watchdog\n");
	}
	rec->last_irqs = irqs;

	if (!enpu_job_count_on_device(edev)) {
		rec->tick_valid = false;
		return;
	}
	status = enpu_read(edev, ENPU_REG_STATUS);
	heartbeat = enpu_read(edev, ENPU_REG_HEARTBEAT);
	completed = atomic64_read(&edev->jobs_completed);
	now = ktime_get();
	stall_ms = max_t(u64, ENPU_HEARTBEAT_STALL_MIN_MS,
			 DIV_ROUND_UP_ULL((u64)enpu_hw_heartbeat_period_us(edev) *
					  ENPU_HEARTBEAT_STALL_TICKS,
					  USEC_PER_MSEC));
	if (!rec->tick_valid || heartbeat != rec->last_heartbeat) {
		rec->last_heartbeat = heartbeat;
		rec->heartbeat_moved = now;
	}
	if (!rec->tick_valid || completed != rec->last_completed) {
		rec->last_completed = completed;
		rec->progress_heartbeat = heartbeat;
	}
	timeout = READ_ONCE(job_timeout_ms);

	if (status == ENPU_STATUS_HUNG) {
		enpu_recovery_hang(edev, "device hung");
	} else if (status == ENPU_STATUS_ERROR) {
		enpu_recovery_reset(edev, enpu_recovery_error_blames_job(edev),
				    "device error");
	} else if (status != ENPU_STATUS_READY) {
		enpu_recovery_reset(edev, false, "device not ready");
	} else if (rec->tick_valid &&
		   ktime_ms_delta(now, rec->heartbeat_moved) > stall_ms) {
		enpu_recovery_hang(edev, "heartbeat stopped");
	} else if (timeout && heartbeat - rec->progress_heartbeat > timeout) {
		enpu_recovery_hang(edev, "no job completed in time");
	} else {
		rec->tick_valid = true;
	}
}

/* Keeps ticking while jobs are on the device, stops otherwise. */
static void enpu_recovery_rearm(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	if (test_bit(ENPU_RECOVERY_DEAD, &rec->flags))
		return;
	if (enpu_job_count_on_device(edev)) {
		set_bit(ENPU_RECOVERY_ARMED, &rec->flags);
		hrtimer_start(&rec->timer, ms_to_ktime(ENPU_WATCHDOG_PERIOD_MS),
			      HRTIMER_MODE_REL);
		return;
	}
	clear_bit(ENPU_RECOVERY_ARMED, &rec->flags);
	/* A job written meanwhile saw ARMED set and did not start the timer. */
	smp_mb__after_atomic();
	if (enpu_job_count_on_device(edev))
		enpu_recovery_arm(edev);
}

static void enpu_recovery_work(struct work_struct *work)
{
	struct enpu_recovery *rec =
		container_of(work, struct enpu_recovery, work);
	struct enpu_device *edev = to_edev(rec);

	mutex_lock(&rec->lock);
	if (test_bit(ENPU_RECOVERY_DEAD, &rec->flags) || rec->wedged) {
		mutex_unlock(&rec->lock);
		return;
	}
	if (test_and_clear_bit(ENPU_RECOVERY_REQ_ERROR, &rec->flags)) {
		clear_bit(ENPU_RECOVERY_REQ_UNKNOWN_TAG, &rec->flags);
		if (enpu_read(edev, ENPU_REG_STATUS) == ENPU_STATUS_HUNG)
			enpu_recovery_hang(edev, "device hung");
		else
			enpu_recovery_reset(edev,
					    enpu_recovery_error_blames_job(edev),
					    "error interrupt");
	} else if (test_and_clear_bit(ENPU_RECOVERY_REQ_UNKNOWN_TAG,
				      &rec->flags)) {
		enpu_recovery_reset(edev, false, "completion for no known job");
	} else {
		enpu_recovery_check(edev);
	}
	mutex_unlock(&rec->lock);
	enpu_recovery_rearm(edev);
}

static enum hrtimer_restart enpu_recovery_tick(struct hrtimer *timer)
{
	struct enpu_recovery *rec =
		container_of(timer, struct enpu_recovery, timer);

	if (!test_bit(ENPU_RECOVERY_DEAD, &rec->flags))
		queue_work(rec->wq, &rec->work);
	return HRTIMER_NORESTART;
}

/**
 * enpu_recovery_arm() - make sure the watchdog ticks
 * @edev: the device; a job was just written to a ring.
 *
 * Any context, any lock.
 */
void enpu_recovery_arm(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	if (test_bit(ENPU_RECOVERY_DEAD, &rec->flags))
		return;
	if (!test_and_set_bit(ENPU_RECOVERY_ARMED, &rec->flags))
		hrtimer_start(&rec->timer, ms_to_ktime(ENPU_WATCHDOG_PERIOD_MS),
			      HRTIMER_MODE_REL);
}

/**
 * enpu_recovery_trigger() - ask for recovery, e.g. from an interrupt
 * @edev: the device.
 * @reason: what went wrong.
 *
 * Any context: only queues the recovery work.
 */
void enpu_recovery_trigger(struct enpu_device *edev,
			   enum enpu_recovery_reason reason)
{
	struct enpu_recovery *rec = &edev->recovery;

	if (test_bit(ENPU_RECOVERY_DEAD, &rec->flags))
		return;
	set_bit(reason == ENPU_RECOVERY_ERROR ? ENPU_RECOVERY_REQ_ERROR :
		ENPU_RECOVERY_REQ_UNKNOWN_TAG, &rec->flags);
	queue_work(rec->wq, &rec->work);
}

/**
 * enpu_recovery_show() - debugfs recovery
 * @m: the seq_file.
 * @edev: the device.
 *
 * "resets=<n> hangs=<n> lost_irqs=<n>", counted since the driver bound.
 */
void enpu_recovery_show(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	seq_printf(m, "resets=%lld hangs=%lld lost_irqs=%lld\n",
		   (long long)atomic64_read(&rec->resets),
		   (long long)atomic64_read(&rec->hangs),
		   (long long)atomic64_read(&rec->lost_irqs));
}

static void enpu_recovery_release(struct drm_device *drm, void *data)
{
	struct enpu_recovery *rec = data;

	if (rec->wq)
		destroy_workqueue(rec->wq);
}

/**
 * enpu_recovery_init() - set up the watchdog, disarmed, at probe
 * @edev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_recovery_init(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;
	int ret;

	ret = drmm_mutex_init(&edev->drm, &rec->lock);
	if (ret)
		return ret;
	hrtimer_init(&rec->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	rec->timer.function = enpu_recovery_tick;
	INIT_WORK(&rec->work, enpu_recovery_work);
	ret = drmm_add_action_or_reset(&edev->drm, enpu_recovery_release, rec);
	if (ret)
		return ret;
	rec->wq = alloc_ordered_workqueue("enpu-recovery", 0);
	return rec->wq ? 0 : -ENOMEM;
}

/**
 * enpu_recovery_fini() - stop the watchdog for good, at removal
 * @edev: the device, unplugged; a recovery in progress is waited for.
 */
void enpu_recovery_fini(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	set_bit(ENPU_RECOVERY_DEAD, &rec->flags);
	hrtimer_cancel(&rec->timer);
	cancel_work_sync(&rec->work);
	/* The work may have re-armed the timer before it saw DEAD. */
	hrtimer_cancel(&rec->timer);
}
