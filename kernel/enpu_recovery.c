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
 *     that never completes, e.g. its completion entry was lost). The
 *     stillness is summed over ticks, each counting the time since the
 *     previous one but at most ENPU_WATCHDOG_LATE_MS: a guest that ran
 *     late (a debug kernel, a loaded TCG host) or was paused sees a jump
 *     in wall time that the device could not have ticked through, and
 *     only time the watchdog itself saw pass can make a hang;
 *   - recovers from ERROR (also asked for by the error interrupt) and
 *     from a completion entry whose tag matches no job.
 *
 * Recovery: stop writing to the rings, read every SQ_HEAD, drain what
 * completed, RESET (mailbox polled: the reset masks the mailbox vector),
 * boot the firmware again through the loader, restore the queue
 * priorities and interrupt mask, then hand the ring jobs back to their
 * contexts' FIFOs (enpu_sched_requeue_after_reset()): the job the device
 * had consumed
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
#include "enpu_mailbox.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_sched.h"
#include "enpu_thermal.h"

#define ENPU_WATCHDOG_PERIOD_MS	100
/* The most one tick counts towards a still heartbeat. */
#define ENPU_WATCHDOG_LATE_MS		(2 * ENPU_WATCHDOG_PERIOD_MS)
/*
 * A heartbeat that stays still for this many of its periods is stopped;
 * never less than the minimum, which leaves room for a host that is slow
 * to run the vnpu's heartbeat thread: with 300 ms, healthy vnpus were
 * reset as hung on a loaded two-core host running TCG guests. A second
 * is still ten watchdog periods and far below job_timeout_ms.
 */
#define ENPU_HEARTBEAT_STALL_TICKS	8
#define ENPU_HEARTBEAT_STALL_MIN_MS	1000
/* Delays between recovery attempts: doubling from the first to the last. */
#define ENPU_RECOVERY_RETRY_MIN_MS	50u
#define ENPU_RECOVERY_RETRY_MAX_MS	2000u
/* After a thermal halt, boot only once this far below the critical trip. */
#define ENPU_THERMAL_RESUME_MARGIN_MC	5000

/* enpu_recovery.flags */
#define ENPU_RECOVERY_ARMED		0	/* timer running or work will re-arm */
#define ENPU_RECOVERY_DEAD		1	/* device removal: never again */
#define ENPU_RECOVERY_REQ_ERROR		2	/* the error interrupt came */
#define ENPU_RECOVERY_REQ_UNKNOWN_TAG	3	/* a completion matched no job */

static unsigned int job_timeout_ms = 10000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "device ms (heartbeat ticks) without any job completing, while jobs are on the device, before the watchdog declares a hang (0: heartbeat only)");

static unsigned int recovery_hold_ms = 30000;
module_param(recovery_hold_ms, uint, 0644);
MODULE_PARM_DESC(recovery_hold_ms,
		 "ms a device that cannot be recovered holds its jobs (retrying) before they fail with -ENODEV; retries go on");

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

/* Reboots a device that was just reset: firmware, priorities, interrupts. */
static int enpu_recovery_restart(struct enpu_device *edev)
{
	s32 temp = (s32)enpu_read(edev, ENPU_REG_TEMP_MC);
	u32 crit = enpu_read(edev, ENPU_REG_TEMP_CRIT_MC);
	int ret;

	/* Booting a device that is still too hot only trips it again. */
	if (crit && (s64)temp >= (s64)crit - ENPU_THERMAL_RESUME_MARGIN_MC) {
		dev_info_ratelimited(edev->dev,
				     "%d mC, waiting for the device to cool below %lld mC\n",
				     temp,
				     (s64)crit - ENPU_THERMAL_RESUME_MARGIN_MC);
		return -EAGAIN;
	}
	ret = enpu_fw_boot(edev);
	if (ret)
		return ret;
	enpu_hw_set_queue_priorities(edev);
	return enpu_mailbox_set_irq_mask(edev, ENPU_IRQ_MASK_ALL);
}

/*
 * One attempt: RESET (reading what the device consumed first), hand the
 * jobs that were on the rings back to their FIFOs once the device is
 * known to be reset (it no longer reads their buffers), then reboot. A
 * failed RESET leaves the jobs on the rings for the next attempt.
 */
static int enpu_recovery_attempt(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;
	u32 sq_head[ENPU_MAX_QUEUES];
	unsigned int q;
	int ret;

	lockdep_assert_held(&rec->lock);
	atomic64_inc(&rec->resets);
	/* RESET zeroes SQ_HEAD: what the device consumed must be read first. */
	for (q = 0; q < ENPU_MAX_QUEUES; q++)
		sq_head[q] = enpu_read(edev, ENPU_REG_SQ_HEAD(q));
	/* Jobs that did complete are signalled, not run twice. */
	enpu_queue_drain_all(edev);
	/* The reset masks every vector, the mailbox's included. */
	enpu_mailbox_use_polling(edev);
	ret = enpu_mailbox_reset(edev);
	/* A job-done handler still running must finish before requeueing. */
	synchronize_irq(edev->irqs[ENPU_VEC_JOB_DONE]);
	if (ret)
		return ret;
	if (!rec->requeued) {
		enpu_sched_requeue_after_reset(edev, sq_head, rec->blame);
		rec->requeued = true;
	}
	enpu_sched_free_parked(edev);
	return enpu_recovery_restart(edev);
}

static void enpu_recovery_recovered(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	if (rec->down)
		dev_info(edev->dev, "device recovered after %u attempts\n",
			 rec->attempts);
	else
		dev_info(edev->dev, "device recovered\n");
	rec->down = false;
	rec->requeued = false;
	rec->tick_valid = false;
	rec->attempts = 0;
	WRITE_ONCE(rec->wedged, false);
	/* The thermal safe state restarts them once the device is cool. */
	if (!enpu_thermal_holding(edev))
		enpu_sched_restart(edev);
}

/*
 * An attempt failed: the device is down. Jobs are held (queues stopped,
 * new submits queue behind them) while attempts continue with a doubling
 * delay; once recovery_hold_ms have passed since the device went down,
 * the held jobs get -ENODEV and SUBMIT fails (wedged), but attempts go on
 * at the longest delay, and the device comes back when one succeeds.
 */
static void enpu_recovery_failed(struct enpu_device *edev, int ret)
{
	struct enpu_recovery *rec = &edev->recovery;
	unsigned int delay;

	if (!rec->down) {
		rec->down = true;
		rec->down_since = ktime_get();
		rec->retry_ms = ENPU_RECOVERY_RETRY_MIN_MS;
	}
	delay = rec->retry_ms;
	rec->retry_ms = min(rec->retry_ms * 2, ENPU_RECOVERY_RETRY_MAX_MS);
	if (!READ_ONCE(rec->wedged) &&
	    ktime_ms_delta(ktime_get(), rec->down_since) >=
	    READ_ONCE(recovery_hold_ms)) {
		dev_err(edev->dev, "device down for %lld ms (%d); failing the jobs it holds\n",
			ktime_ms_delta(ktime_get(), rec->down_since), ret);
		WRITE_ONCE(rec->wedged, true);
		enpu_sched_fail_held(edev, -ENODEV, rec->requeued);
	}
	dev_err_ratelimited(edev->dev,
			    "recovery attempt %u failed (%d); next in %u ms\n",
			    rec->attempts, ret, delay);
	if (!test_bit(ENPU_RECOVERY_DEAD, &rec->flags))
		queue_delayed_work(rec->wq, &rec->retry,
				   msecs_to_jiffies(delay));
}

static void enpu_recovery_try(struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;
	int ret;

	lockdep_assert_held(&rec->lock);
	rec->attempts++;
	if (rec->attempts > 1)
		atomic64_inc(&rec->retries);
	ret = enpu_recovery_attempt(edev);
	if (ret)
		enpu_recovery_failed(edev, ret);
	else
		enpu_recovery_recovered(edev);
}

static void enpu_recovery_reset(struct enpu_device *edev, bool blame,
				const char *why)
{
	struct enpu_recovery *rec = &edev->recovery;

	lockdep_assert_held(&rec->lock);
	dev_err(edev->dev, "%s: resetting the device (status %u, error %u)\n",
		why, enpu_read(edev, ENPU_REG_STATUS),
		enpu_read(edev, ENPU_REG_ERROR_CODE));
	enpu_sched_stop_rings(edev);
	rec->blame = blame;
	rec->requeued = false;
	rec->attempts = 0;
	enpu_recovery_try(edev);
}

static void enpu_recovery_retry_work(struct work_struct *work)
{
	struct enpu_recovery *rec =
		container_of(to_delayed_work(work), struct enpu_recovery,
			     retry);
	struct enpu_device *edev = to_edev(rec);

	mutex_lock(&rec->lock);
	if (!test_bit(ENPU_RECOVERY_DEAD, &rec->flags) && rec->down)
		enpu_recovery_try(edev);
	mutex_unlock(&rec->lock);
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
	u64 irqs = atomic64_read(&edev->irq.count[ENPU_VEC_JOB_DONE]);
	u32 status, heartbeat, timeout;
	u64 completed, stall_ms;
	ktime_t now;

	lockdep_assert_held(&rec->lock);
	if (irqs == rec->last_irqs && enpu_queue_completions_waiting(edev)) {
		/*
		 * Counted before the drain signals the fences: a waiter they
		 * wake may read the count at once, and drain_all reschedules
		 * between batches. Taken back when an interrupt that was
		 * late, not lost, drained the entries first.
		 */
		atomic64_inc(&rec->lost_irqs);
		if (enpu_queue_drain_all(edev))
			dev_warn_ratelimited(edev->dev,
					     "completions without a job-done interrupt, drained by the watchdog\n");
		else
			atomic64_dec(&rec->lost_irqs);
	}
	rec->last_irqs = irqs;

	if (!enpu_sched_count_on_device(edev)) {
		rec->tick_valid = false;
		return;
	}
	status = enpu_read(edev, ENPU_REG_STATUS);
	heartbeat = enpu_read(edev, ENPU_REG_HEARTBEAT);
	completed = atomic64_read(&edev->job.completed);
	now = ktime_get();
	stall_ms = max_t(u64, ENPU_HEARTBEAT_STALL_MIN_MS,
			 DIV_ROUND_UP_ULL((u64)enpu_hw_heartbeat_period_us(edev) *
					  ENPU_HEARTBEAT_STALL_TICKS,
					  USEC_PER_MSEC));
	if (!rec->tick_valid || heartbeat != rec->last_heartbeat) {
		rec->last_heartbeat = heartbeat;
		rec->still_ms = 0;
	} else {
		rec->still_ms += min_t(s64, ktime_ms_delta(now, rec->last_tick),
				       ENPU_WATCHDOG_LATE_MS);
	}
	rec->last_tick = now;
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
	} else if (rec->tick_valid && rec->still_ms > stall_ms) {
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
	if (enpu_sched_count_on_device(edev)) {
		set_bit(ENPU_RECOVERY_ARMED, &rec->flags);
		hrtimer_start(&rec->timer, ms_to_ktime(ENPU_WATCHDOG_PERIOD_MS),
			      HRTIMER_MODE_REL);
		return;
	}
	clear_bit(ENPU_RECOVERY_ARMED, &rec->flags);
	/* A job written meanwhile saw ARMED set and did not start the timer. */
	smp_mb__after_atomic();
	if (enpu_sched_count_on_device(edev))
		enpu_recovery_arm(edev);
}

static void enpu_recovery_work(struct work_struct *work)
{
	struct enpu_recovery *rec =
		container_of(work, struct enpu_recovery, work);
	struct enpu_device *edev = to_edev(rec);
	u32 status;

	mutex_lock(&rec->lock);
	/* While down, the retry work owns the device. */
	if (test_bit(ENPU_RECOVERY_DEAD, &rec->flags) || rec->down) {
		clear_bit(ENPU_RECOVERY_REQ_ERROR, &rec->flags);
		clear_bit(ENPU_RECOVERY_REQ_UNKNOWN_TAG, &rec->flags);
		mutex_unlock(&rec->lock);
		return;
	}
	/*
	 * An error interrupt still in flight when a watchdog tick found the
	 * ERROR and reset the device arrives for a device that is fine
	 * again: resetting once more would blame whatever job runs now.
	 * (Without a request there is no STATUS to look at here.)
	 */
	status = test_and_clear_bit(ENPU_RECOVERY_REQ_ERROR, &rec->flags) ?
		 enpu_read(edev, ENPU_REG_STATUS) : ENPU_STATUS_READY;
	if (status == ENPU_STATUS_HUNG || status == ENPU_STATUS_ERROR) {
		clear_bit(ENPU_RECOVERY_REQ_UNKNOWN_TAG, &rec->flags);
		if (status == ENPU_STATUS_HUNG)
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
 * "resets=<n> hangs=<n> lost_irqs=<n> ...", counted since the driver bound,
 * and "on_device=<n>", the jobs on the rings now (those a file close or
 * CONTEXT_DESTROY no longer cancels).
 */
void enpu_recovery_show(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_recovery *rec = &edev->recovery;

	seq_printf(m, "resets=%lld hangs=%lld lost_irqs=%lld retries=%lld down=%d wedged=%d on_device=%u\n",
		   (long long)atomic64_read(&rec->resets),
		   (long long)atomic64_read(&rec->hangs),
		   (long long)atomic64_read(&rec->lost_irqs),
		   (long long)atomic64_read(&rec->retries),
		   READ_ONCE(rec->down), READ_ONCE(rec->wedged),
		   enpu_sched_count_on_device(edev));
}

static void enpu_recovery_release(struct drm_device *drm, void *data)
{
	struct enpu_recovery *rec = data;

	if (rec->wq)
		destroy_workqueue(rec->wq);
}

/* The ring layer's report of a completion no waiter had. */
static void enpu_recovery_unknown_tag(struct enpu_device *edev)
{
	enpu_recovery_trigger(edev, ENPU_RECOVERY_UNKNOWN_TAG);
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

	edev->rings.unknown_tag = enpu_recovery_unknown_tag;

	ret = drmm_mutex_init(&edev->drm, &rec->lock);
	if (ret)
		return ret;
	hrtimer_init(&rec->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	rec->timer.function = enpu_recovery_tick;
	INIT_WORK(&rec->work, enpu_recovery_work);
	INIT_DELAYED_WORK(&rec->retry, enpu_recovery_retry_work);
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
	cancel_delayed_work_sync(&rec->retry);
	/* The work may have re-armed the timer before it saw DEAD. */
	hrtimer_cancel(&rec->timer);
}
