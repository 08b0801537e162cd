/* SPDX-License-Identifier: GPL-2.0 */
/* Interrupt handlers, one per ENPU_VEC_* cause. */
#ifndef ENPU_IRQ_H
#define ENPU_IRQ_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/types.h>

#include "enpu_regs.h"

struct enpu_device;

/**
 * struct enpu_irq_stats - the most work done at once on the completion path
 * @hard_max_ns: longest run of the job-done hard-IRQ handler.
 * @hard_max_entries: most completion entries one hard-IRQ run consumed
 *	(at most ENPU_CQ_BATCH).
 * @thread_runs: runs of the job-done thread (entries were left after the
 *	hard-IRQ batch).
 * @thread_entries: entries the thread consumed.
 * @pump_max_jobs: most jobs the device held after a dispatch loop (at
 *	most enpu_sched_max_on_device(), the ring depth policy's bound).
 * @pump_deferred: times finished jobs were left to the scheduler's
 *	worker to signal: more than a batch in atomic context, or any from
 *	a fence callback (scheduler/enpu_sched.c).
 *
 * debugfs irq_stats prints them; they are maxima and counters since
 * probe, written racily (they are statistics, not state).
 */
struct enpu_irq_stats {
	atomic64_t hard_max_ns;
	atomic_t hard_max_entries;
	atomic64_t thread_runs;
	atomic64_t thread_entries;
	atomic_t pump_max_jobs;
	atomic64_t pump_deferred;
};

/* Raises @stat to @value if it is below. */
static inline void enpu_stat_max(atomic_t *stat, int value)
{
	int old = atomic_read(stat);

	while (old < value && !atomic_try_cmpxchg(stat, &old, value))
		;
}

static inline void enpu_stat_max64(atomic64_t *stat, s64 value)
{
	s64 old = atomic64_read(stat);

	while (old < value && !atomic64_try_cmpxchg(stat, &old, value))
		;
}

/**
 * struct enpu_irq - interrupt state of one device, owned by enpu_irq.c
 * @stats: completion-path work bounds actually seen.
 * @count: interrupts taken, per ENPU_VEC_* cause.
 * @last_error_code: ENPU_REG_ERROR_CODE at the last error interrupt.
 * @last_error_info: ENPU_REG_ERROR_INFO at the last error interrupt.
 */
struct enpu_irq {
	struct enpu_irq_stats stats;
	atomic64_t count[ENPU_NUM_VECTORS];
	u32 last_error_code;
	u32 last_error_info;
};

#define ENPU_IRQ_MASK_ALL	GENMASK(ENPU_NUM_VECTORS - 1, 0)

int enpu_irq_install(struct enpu_device *edev);

#endif /* ENPU_IRQ_H */
