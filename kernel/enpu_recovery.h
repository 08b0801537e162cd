/* SPDX-License-Identifier: GPL-2.0 */
/* Watchdog and recovery: hang and lost-interrupt detection, reset, rerun. */
#ifndef ENPU_RECOVERY_H
#define ENPU_RECOVERY_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct enpu_device;
struct seq_file;

/**
 * enum enpu_recovery_reason - why recovery was asked for
 * @ENPU_RECOVERY_ERROR: the error interrupt (device in ERROR or HUNG).
 * @ENPU_RECOVERY_UNKNOWN_TAG: a completion named no job we have; the job
 *	it belonged to will never complete otherwise.
 */
enum enpu_recovery_reason {
	ENPU_RECOVERY_ERROR,
	ENPU_RECOVERY_UNKNOWN_TAG,
};

/**
 * struct enpu_recovery - the watchdog and its recovery work
 * @lock: one watchdog pass or recovery at a time.
 * @timer: ticks every ENPU_WATCHDOG_PERIOD_MS while jobs are on the
 *	device; its callback only queues @work.
 * @work: the watchdog pass, and recovery when needed.
 * @wq: ordered workqueue running @work.
 * @flags: ENPU_RECOVERY_* bits: armed timer, requested reasons, dead.
 * @last_heartbeat: HEARTBEAT at the previous tick.
 * @last_tick: when the previous tick with jobs on the device ran.
 * @still_ms: how long @last_heartbeat has not moved, summed over ticks,
 *	each counting at most ENPU_WATCHDOG_LATE_MS (a tick that comes late
 *	is a guest or host that did not run, not a device that stopped).
 * @last_irqs: job-done interrupts counted at the previous tick.
 * @last_completed: enpu_device.job.completed at the last progress.
 * @progress_heartbeat: HEARTBEAT when @last_completed last changed; the
 *	job timeout counts device time (heartbeat ticks) from there.
 * @tick_valid: the fields above describe a tick with jobs on the device.
 * @resets: device resets done by recovery.
 * @hangs: hangs detected (heartbeat stopped, HUNG, or no progress).
 * @lost_irqs: watchdog ticks that found completions nobody drained.
 * @retries: recovery attempts after the first of a recovery.
 * @retry: the next recovery attempt while the device is down.
 * @blame: the recovery in progress was asked for by a hang.
 * @requeued: the device was reset since the recovery began and the jobs
 *	that were on its rings are back in their FIFOs.
 * @down: an attempt failed; jobs are held, @retry is scheduled.
 * @down_since: when the device went down.
 * @retry_ms: the delay before the attempt after the next one.
 * @attempts: attempts of the recovery in progress.
 * @wedged: down for longer than recovery_hold_ms: the held jobs were
 *	failed with -ENODEV and SUBMIT fails with -ENODEV until an attempt
 *	succeeds.
 */
struct enpu_recovery {
	struct mutex lock;	/* one pass at a time */
	struct hrtimer timer;
	struct work_struct work;
	struct workqueue_struct *wq;
	unsigned long flags;
	u32 last_heartbeat;
	ktime_t last_tick;
	u64 still_ms;
	u64 last_irqs;
	u64 last_completed;
	u32 progress_heartbeat;
	bool tick_valid;
	atomic64_t resets;
	atomic64_t hangs;
	atomic64_t lost_irqs;
	atomic64_t retries;
	struct delayed_work retry;
	bool blame;
	bool requeued;
	bool down;
	ktime_t down_since;
	unsigned int retry_ms;
	unsigned int attempts;
	bool wedged;
};

int enpu_recovery_init(struct enpu_device *edev);
void enpu_recovery_fini(struct enpu_device *edev);
void enpu_recovery_arm(struct enpu_device *edev);
void enpu_recovery_trigger(struct enpu_device *edev,
			   enum enpu_recovery_reason reason);
void enpu_recovery_show(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_RECOVERY_H */
