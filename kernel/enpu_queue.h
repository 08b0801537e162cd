/* SPDX-License-Identifier: GPL-2.0 */
/* Submission rings (driver -> device) and the completion ring (back). */
#ifndef ENPU_QUEUE_H
#define ENPU_QUEUE_H

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "enpu_regs.h"

struct enpu_device;

/**
 * struct enpu_job_desc - what goes into one submission ring slot
 * @cmd_addr: DMA address of the command stream.
 * @cmd_size: bytes in the command stream.
 * @tag: echoed in the completion entry; must be unique among jobs in flight.
 * @ctx_save_addr: DMA address of the context-save area, 0 if none.
 * @ctx_save_size: bytes in the context-save area.
 * @bo_table_addr: DMA address of the BO table (interface 1.1), 0 if none.
 * @bo_count: entries in the BO table.
 */
struct enpu_job_desc {
	u64 cmd_addr;
	u32 cmd_size;
	u64 tag;
	u64 ctx_save_addr;
	u32 ctx_save_size;
	u64 bo_table_addr;
	u32 bo_count;
};

struct enpu_cq_waiter;

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
 * struct enpu_rings - the rings' state of one device, owned by enpu_queue.c
 * @submit_lock: serialises writers of the submission rings; IRQ-safe.
 * @cq_lock: protects the pending state of the waiters in @cq_table;
 *	taken in hard IRQ context.
 * @cq_drain_lock: one completion batch (entries and callbacks) at a time.
 * @cq_table: id -> registered struct enpu_cq_waiter; the low half of a
 *	completion tag is the id.
 * @unknown_tag: called for a completion whose tag no waiter has (set by
 *	recovery, which owns the device's health: the ring does not call up).
 * @unknown_tags: completions whose tag no waiter had.
 * @clock: the device's busy-time and cycle counters at the last
 *	completion batch and the ratio they moved by since the one before,
 *	under @cq_lock (device time of a run).
 * @preempt_seq: last SQ_PREEMPT_SEQ written per queue; under @submit_lock.
 * @preempt_area: the save area that request named; under @submit_lock.
 */
struct enpu_rings {
	spinlock_t submit_lock;		/* SQ_TAIL writers; IRQ-safe */
	spinlock_t cq_lock;		/* waiter state, CQ_HEAD; IRQ-safe */
	spinlock_t cq_drain_lock;	/* one completion batch at a time */
	struct xarray cq_table;
	void (*unknown_tag)(struct enpu_device *edev);
	atomic64_t unknown_tags;
	struct enpu_cq_clock clock;
	u32 preempt_seq[ENPU_MAX_QUEUES];
	dma_addr_t preempt_area[ENPU_MAX_QUEUES];
};

/*
 * A completion tag: the waiter's id (from enpu_queue_register_waiter())
 * in the low 32 bits, which is what the completion is looked up by, and
 * a caller-chosen cookie above it that tells a stale or corrupted entry
 * from the waiter's own. A cookie whose top byte is exactly
 * ENPU_TAG_COOKIE_QUIET marks a waiter that may give up waiting (the
 * debugfs NOP): its late completion is dropped without asking for
 * recovery. Other cookies keep their top byte 0 (ENPU_TAG_COOKIE_MASK),
 * so that a corrupted tag (bits flipped) never looks quiet.
 */
#define ENPU_TAG_ID_MASK	GENMASK_ULL(31, 0)
#define ENPU_TAG_COOKIE_MASK	GENMASK(23, 0)
#define ENPU_TAG_COOKIE_QUIET	0x80000000u

/* Was @tag's waiter one that may have given up? */
static inline bool enpu_tag_quiet(u64 tag)
{
	return upper_32_bits(tag) >> 24 == ENPU_TAG_COOKIE_QUIET >> 24;
}

/* Completion entries consumed per call before the caller looks again. */
#define ENPU_CQ_BATCH		32

/*
 * Called once the completion entry of the waiter's tag has been consumed,
 * outside enpu_device.rings.cq_lock, in the context that drained the ring (the
 * job-done interrupt or its thread, or a waiter that suspected a lost
 * interrupt).
 */
typedef void (*enpu_cq_complete_t)(struct enpu_cq_waiter *waiter);

/**
 * struct enpu_cq_waiter - someone waiting for the completion of one tag
 * @id: its slot in enpu_device.rings.cq_table, for as long as it is registered.
 * @pending: waiting for @tag; set by enpu_queue_add_waiter(), cleared by
 *	the completion or enpu_queue_remove_waiter(), under cq_lock.
 * @done_node: on the draining context's private list between the moment
 *	the entry is consumed and the call of @complete_fn.
 * @tag: the job tag to wait for; its low 32 bits are @id.
 * @done: completed from the job-done interrupt when @complete_fn is NULL.
 * @complete_fn: called instead of completing @done, if set.
 * @completed_at: ktime_get() when the completion entry was consumed.
 * @queue: from the completion entry.
 * @status: ENPU_JOB_STATUS_* from the completion entry.
 * @info: status-specific detail from the completion entry.
 * @cycles: device cycles the job took.
 * @ns: device time of those cycles (enpu_queue.c: the device's busy time
 *	per cycle since the previous completion batch).
 */
struct enpu_cq_waiter {
	u32 id;
	bool pending;
	struct list_head done_node;
	u64 tag;
	struct completion done;
	enpu_cq_complete_t complete_fn;
	ktime_t completed_at;
	u32 queue;
	u32 status;
	u32 info;
	u64 cycles;
	u64 ns;
};

/**
 * enpu_queue_tag() - the tag of a registered waiter with a cookie
 * @waiter: registered with enpu_queue_register_waiter().
 * @cookie: ENPU_TAG_COOKIE_QUIET, or any value in ENPU_TAG_COOKIE_MASK,
 *	optionally ORed into ENPU_TAG_COOKIE_QUIET.
 *
 * Return: the tag to put into the descriptor and enpu_queue_add_waiter().
 */
static inline u64 enpu_queue_tag(const struct enpu_cq_waiter *waiter,
				 u32 cookie)
{
	return (u64)cookie << 32 | waiter->id;
}

int enpu_queue_init(struct enpu_device *edev);
int enpu_queue_register_waiter(struct enpu_device *edev,
			       struct enpu_cq_waiter *waiter);
void enpu_queue_unregister_waiter(struct enpu_device *edev,
				  struct enpu_cq_waiter *waiter);
void enpu_queue_add_waiter(struct enpu_device *edev,
			   struct enpu_cq_waiter *waiter, u64 tag);
bool enpu_queue_remove_waiter(struct enpu_device *edev,
			      struct enpu_cq_waiter *waiter);
int enpu_queue_submit(struct enpu_device *edev, unsigned int queue,
		      const struct enpu_job_desc *desc, u32 *ring_index);
bool enpu_queue_preempt(struct enpu_device *edev, unsigned int queue,
			dma_addr_t area);
unsigned int enpu_queue_drain_completions(struct enpu_device *edev,
					  unsigned int budget);
bool enpu_queue_completions_waiting(struct enpu_device *edev);
unsigned int enpu_queue_drain_all(struct enpu_device *edev);

#endif /* ENPU_QUEUE_H */
