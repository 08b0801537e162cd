/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct enpu_device: one NPU, whatever bus it sits on.
 *
 * Lock order (outermost first):
 *   enpu_recovery.lock        one recovery or watchdog pass at a time
 *                             (enpu_recovery.c); a mutex, held across the
 *                             mailbox commands of RESET and BOOT
 *   dma_resv ww-mutexes of a submit's BOs, in ww-acquire order (enpu_job.c)
 *   enpu_device.nop_lock      debugfs NOP round trip (enpu_debugfs.c)
 *   enpu_device.last_job_sg_lock  debugfs snapshot (enpu_job.c), alone
 *   dma_fence lock of any fence we wait on, incl. enpu_timeline.lock:
 *                             held by dma_fence_signal() while it runs our
 *                             dependency callbacks (enpu_job.c)
 *   xarray lock of a file's contexts, lookup-and-get only (enpu_context.c)
 *   enpu_job_queue.lock       FIFO and in-flight lists, IRQ-safe; one queue's
 *                             at a time (enpu_job.c)
 *   enpu_device.submit_lock   submission ring producers, IRQ-safe (enpu_queue.c)
 *   enpu_device.cq_lock       completion waiters, IRQ-safe (enpu_queue.c)
 * enpu_device.cq_drain_lock (IRQ-safe) is outermost of all the spinlocks
 * above: it is held across one batch of completions and their callbacks
 * (fence signalling, hence the fence and queue locks), so that batches
 * are completed in ring order; nothing takes it with another lock held.
 * submit_lock and cq_lock are never nested in each other; cq_table's
 * xarray lock is taken alone. No driver lock
 * is held while a job's fence is signalled except that fence's own lock.
 * enpu_mailbox.lock (enpu_mailbox.c) takes no other lock; the only lock
 * held while a mailbox command runs is enpu_recovery.lock.
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
 * @pump_max_jobs: most descriptors one pump call wrote (at most
 *	ENPU_PUMP_BATCH).
 * @pump_deferred: pump calls that stopped at their batch and left the rest
 *	to a worker.
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
 * @irq_stats: completion-path work bounds actually seen.
 * @irq_count: interrupts taken, per ENPU_VEC_* cause.
 * @cq_unknown_tags: completions whose tag no waiter had.
 * @last_error_code: ENPU_REG_ERROR_CODE at the last error interrupt.
 * @last_error_info: ENPU_REG_ERROR_INFO at the last error interrupt.
 * @nop_lock: serialises the debugfs NOP job.
 * @nop_cmd: DMA-coherent buffer holding the NOP command stream.
 * @nop_cmd_dma: its DMA address.
 * @nop_seq: sequence number of the last NOP job, part of its tag.
 * @job_queues: user jobs, per hardware queue (enpu_job.c).
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
	struct enpu_irq_stats irq_stats;

	atomic64_t irq_count[ENPU_NUM_VECTORS];
	atomic64_t cq_unknown_tags;
	u32 last_error_code;
	u32 last_error_info;

	struct mutex nop_lock;		/* one debugfs NOP job at a time */
	void *nop_cmd;
	dma_addr_t nop_cmd_dma;
	u64 nop_seq;

	struct enpu_job_queue job_queues[ENPU_MAX_QUEUES];
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
