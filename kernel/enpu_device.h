/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct enpu_device: one NPU, whatever bus it sits on.
 *
 * The driver's lock order is written once, at the top of
 * scheduler/enpu_sched.c; every file that takes a lock refers there.
 */
#ifndef ENPU_DEVICE_H
#define ENPU_DEVICE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>

#include "enpu_job.h"
#include "enpu_limits.h"
#include "enpu_recovery.h"
#include "enpu_regs.h"
#include "enpu_sched.h"

struct device;

/**
 * struct enpu_bus_resources - what a bus glue hands the core
 * @dev: the device used for DMA, firmware requests and logging.
 * @regs: the register window (ivshmem BAR2 or the DT "reg" window), at
 *	least ENPU_BAR2_SIZE bytes with the layout of kernel/enpu_regs.h.
 * @doorbell: the ivshmem BAR0 doorbell register, or NULL when the doorbell
 *	is ENPU_REG_DOORBELL inside @regs (SoC integration).
 * @irqs: Linux IRQ numbers of the ENPU_VEC_* causes, in vector order.
 */
struct enpu_bus_resources {
	struct device *dev;
	void __iomem *regs;
	void __iomem *doorbell;
	int irqs[ENPU_NUM_VECTORS];
};

/**
 * struct enpu_identity - constant identification registers, read at probe
 * @hw_version: ENPU_REG_HW_VERSION, major << 16 | minor.
 * @device_id: ENPU_REG_DEVICE_ID.
 * @caps: ENPU_CAP_* bits.
 * @num_queues: hardware submission queues, 1..ENPU_MAX_QUEUES.
 * @sram_kb: on-chip SRAM in KiB.
 * @macs_per_cycle: int8 MACs per clock.
 * @sq_entries: descriptors per submission ring, a power of two.
 * @cq_entries: entries in the completion ring, a power of two.
 * @ctx_save_size: bytes of a context-save area (ENPU_REG_CTX_SAVE_SIZE),
 *	0 without ENPU_CAP_PREEMPT.
 * @preempt_bound_ns: the device's bound between two preemption points
 *	(ENPU_REG_PREEMPT_BOUND_NS), 0 without ENPU_CAP_PREEMPT.
 */
struct enpu_identity {
	u32 hw_version;
	u32 device_id;
	u32 caps;
	u32 num_queues;
	u32 sram_kb;
	u32 macs_per_cycle;
	u32 sq_entries;
	u32 cq_entries;
	u32 ctx_save_size;
	u32 preempt_bound_ns;
};

/**
 * struct enpu_mailbox - the one-command-at-a-time control channel
 * @lock: serialises commands; held for the whole request/reply.
 * @done: completed by the mailbox interrupt.
 * @use_irq: wait for the interrupt instead of polling; only changed with
 *	@lock held.
 */
struct enpu_mailbox {
	struct mutex lock;	/* one command at a time */
	struct completion done;
	bool use_irq;
};

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
 * struct enpu_cq_clock - device time per cycle, from the device's counters
 * @busy_ns: PERF_BUSY_NS at the last sample.
 * @cycles: PERF_CYCLES at the last sample.
 * @ratio_ns: busy ns between the last two samples that moved;
 * @ratio_cycles: cycles between them (0: none yet, use the clock).
 */
struct enpu_cq_clock {
	u64 busy_ns;
	u64 cycles;
	u64 ratio_ns;
	u64 ratio_cycles;
};

/**
 * struct enpu_device - driver state of one NPU
 * @drm: the DRM device; the structure is allocated with it.
 * @dev: bus device, for DMA and logging.
 * @regs: register window.
 * @doorbell: where doorbells are written (see struct enpu_bus_resources).
 * @irqs: Linux IRQ numbers per ENPU_VEC_* cause.
 * @id: identification registers.
 * @fw_version: version of the running firmware.
 * @fw_api_version: API version of the running firmware.
 * @mbox: mailbox channel.
 * @submit_lock: serialises writers of the submission rings; IRQ-safe.
 * @cq_lock: protects the pending state of the waiters in @cq_table;
 *	taken in hard IRQ context.
 * @cq_drain_lock: one completion batch (entries and callbacks) at a time.
 * @cq_table: id -> registered struct enpu_cq_waiter; the low half of a
 *	completion tag is the id (enpu_queue.h).
 * @cq_unknown_tag: called by the ring layer for a completion whose tag no
 *	waiter has (set by recovery, which owns the device's health).
 * @cq_clock: the device's busy-time and cycle counters at the last
 *	completion batch and the ratio they moved by since the one before,
 *	under @cq_lock (enpu_queue.c, device time of a run).
 * @preempt_seq: last SQ_PREEMPT_SEQ written per queue; under @submit_lock.
 * @preempt_area: the save area that request named; under @submit_lock.
 * @irq_stats: completion-path work bounds actually seen.
 * @irq_count: interrupts taken, per ENPU_VEC_* cause.
 * @cq_unknown_tags: completions whose tag no waiter had.
 * @last_error_code: ENPU_REG_ERROR_CODE at the last error interrupt.
 * @last_error_info: ENPU_REG_ERROR_INFO at the last error interrupt.
 * @nop_lock: serialises the debugfs NOP job.
 * @nop_cmd: DMA-coherent buffer holding the NOP command stream.
 * @nop_cmd_dma: its DMA address.
 * @nop_seq: sequence number of the last NOP job, part of its tag.
 * @sched: the scheduler: contexts' FIFOs, dispatch, preemption
 *	(scheduler/enpu_sched.c).
 * @jobs_completed: job fences signalled since probe; the watchdog's
 *	progress measure.
 * @recovery: watchdog and hang recovery (enpu_recovery.c).
 * @job_wq: frees finished jobs (unpin, unmap, DMA buffer) in process
 *	context.
 * @cpu_copy_bytes: bytes of buffer contents the driver copied with the
 *	CPU; the zero-copy design keeps it at 0 (debugfs cpu_copy_bytes).
 * @last_job_sg_lock: protects @last_job_sg.
 * @last_job_sg: BO table and segments of the last submitted job, for
 *	debugfs last_job_sg; NULL before the first job.
 * @jobs: jobs whose fence has not signalled, against ENPU_LIMIT_JOBS.
 * @contexts: created contexts not yet freed, against ENPU_LIMIT_CONTEXTS.
 * @import_moves: move_notify calls of imported buffers' exporters.
 */
struct enpu_device {
	struct drm_device drm;
	struct device *dev;
	void __iomem *regs;
	void __iomem *doorbell;
	int irqs[ENPU_NUM_VECTORS];

	struct enpu_identity id;
	u32 fw_version;
	u32 fw_api_version;

	struct enpu_mailbox mbox;

	spinlock_t submit_lock;		/* SQ_TAIL writers; IRQ-safe */
	spinlock_t cq_lock;		/* waiter state, CQ_HEAD; IRQ-safe */
	spinlock_t cq_drain_lock;	/* one completion batch at a time */
	struct xarray cq_table;
	void (*cq_unknown_tag)(struct enpu_device *edev);
	struct enpu_cq_clock cq_clock;
	u32 preempt_seq[ENPU_MAX_QUEUES];
	dma_addr_t preempt_area[ENPU_MAX_QUEUES];
	struct enpu_irq_stats irq_stats;

	atomic64_t irq_count[ENPU_NUM_VECTORS];
	atomic64_t cq_unknown_tags;
	u32 last_error_code;
	u32 last_error_info;

	struct mutex nop_lock;		/* one debugfs NOP job at a time */
	void *nop_cmd;
	dma_addr_t nop_cmd_dma;
	u64 nop_seq;

	struct enpu_sched sched;
	atomic64_t jobs_completed;
	struct enpu_recovery recovery;
	struct workqueue_struct *job_wq;
	atomic64_t cpu_copy_bytes;
	struct mutex last_job_sg_lock;	/* last_job_sg */
	struct enpu_job_sg_snapshot *last_job_sg;
	struct enpu_quota jobs;
	struct enpu_quota contexts;
	atomic64_t import_moves;
};

static inline struct enpu_device *to_enpu_device(struct drm_device *drm)
{
	return container_of(drm, struct enpu_device, drm);
}

struct enpu_device *enpu_device_probe(const struct enpu_bus_resources *res);
void enpu_device_remove(struct enpu_device *edev);

#endif /* ENPU_DEVICE_H */
