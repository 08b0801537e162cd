// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware rings. Producers write a descriptor into a submission ring,
 * publish it with SQ_TAIL and ring the queue doorbell; the job-done
 * interrupt drains the shared completion ring and wakes whoever waits for
 * each tag. The scheduler (scheduler/enpu_sched.c) is the only producer;
 * this layer calls nothing above it: a completion whose tag names no
 * waiter is reported through enpu_device.rings.unknown_tag.
 *
 * Work done with interrupts off is bounded: a completion finds its waiter
 * in O(1) through the waiter's id in the low half of its tag (an IRQ-safe
 * xarray of registered waiters, cq_table), not by scanning the waiters,
 * and a drain consumes at most a batch of entries per call; the job-done
 * handler drains one batch in hard-IRQ context and leaves the rest to its
 * thread (enpu_irq.c).
 *
 * Both locks are spinlocks taken with interrupts disabled: jobs are pushed
 * to the ring from dma_fence callbacks and from the job-done interrupt.
 * submit_lock and cq_lock are never held together; either may be taken
 * under enpu_sched.lock (scheduler/enpu_sched.c). Completion callbacks
 * (enpu_cq_waiter.complete_fn) run with neither held. cq_table's own lock
 * is taken alone (registration) or under nothing; lookups are lockless
 * (RCU) under cq_lock.
 */
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "enpu_hw.h"
#include "enpu_queue.h"

/**
 * enpu_queue_init() - set up the ring bookkeeping
 * @edev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_queue_init(struct enpu_device *edev)
{
	unsigned int q;

	/* Any change of SQ_PREEMPT_SEQ is a request: start where it is. */
	for (q = 0; q < ENPU_MAX_QUEUES; q++)
		edev->rings.preempt_seq[q] =
			enpu_read(edev, ENPU_REG_SQ_PREEMPT_SEQ(q));
	spin_lock_init(&edev->rings.submit_lock);
	spin_lock_init(&edev->rings.cq_lock);
	spin_lock_init(&edev->rings.cq_drain_lock);
	xa_init_flags(&edev->rings.cq_table, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	return 0;
}

/**
 * enpu_queue_register_waiter() - give a waiter its id
 * @edev: the device.
 * @waiter: caller-owned, zeroed or unregistered.
 *
 * Process context. The id stays the waiter's until
 * enpu_queue_unregister_waiter(); ids are reused lowest first, so the
 * table stays as small as the number of live waiters.
 *
 * Return: 0, or -ENOMEM / -EBUSY when no id is left.
 */
int enpu_queue_register_waiter(struct enpu_device *edev,
			       struct enpu_cq_waiter *waiter)
{
	waiter->pending = false;
	/* Ids below 2^31: a bit-flipped tag never names a live waiter. */
	return xa_alloc_irq(&edev->rings.cq_table, &waiter->id, waiter,
			    XA_LIMIT(0, INT_MAX), GFP_KERNEL_ACCOUNT);
}

/**
 * enpu_queue_unregister_waiter() - give the id back
 * @edev: the device.
 * @waiter: registered, and not pending any more.
 *
 * Returns once no drain still looks at @waiter, so its memory may be
 * freed afterwards.
 */
void enpu_queue_unregister_waiter(struct enpu_device *edev,
				  struct enpu_cq_waiter *waiter)
{
	unsigned long flags;

	xa_erase_irq(&edev->rings.cq_table, waiter->id);
	/* A drain that found it before the erase holds cq_lock. */
	spin_lock_irqsave(&edev->rings.cq_lock, flags);
	WARN_ON_ONCE(waiter->pending);
	spin_unlock_irqrestore(&edev->rings.cq_lock, flags);
}

/**
 * enpu_queue_add_waiter() - start waiting for a completion tag
 * @edev: the device.
 * @waiter: registered (enpu_queue_register_waiter()), not pending; stays
 *	pending until completed or removed.
 * @tag: the tag of the job about to be submitted, from enpu_queue_tag().
 *
 * Must be called before the job is submitted: the interrupt can arrive
 * before enpu_queue_submit() returns. @waiter->complete_fn must be set (or
 * NULL) by the caller; any context.
 */
void enpu_queue_add_waiter(struct enpu_device *edev,
			   struct enpu_cq_waiter *waiter, u64 tag)
{
	unsigned long flags;

	WARN_ON_ONCE((tag & ENPU_TAG_ID_MASK) != waiter->id);
	waiter->tag = tag;
	init_completion(&waiter->done);
	spin_lock_irqsave(&edev->rings.cq_lock, flags);
	waiter->pending = true;
	spin_unlock_irqrestore(&edev->rings.cq_lock, flags);
}

/**
 * enpu_queue_remove_waiter() - stop waiting, e.g. after a timeout
 * @edev: the device.
 * @waiter: a waiter passed to enpu_queue_add_waiter().
 *
 * Return: true if the waiter was still pending, false if its completion
 * raced in (its result fields are then valid).
 */
bool enpu_queue_remove_waiter(struct enpu_device *edev,
			      struct enpu_cq_waiter *waiter)
{
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&edev->rings.cq_lock, flags);
	pending = waiter->pending;
	waiter->pending = false;
	spin_unlock_irqrestore(&edev->rings.cq_lock, flags);
	return pending;
}

static void enpu_queue_write_desc(struct enpu_device *edev, unsigned int queue,
				  u32 index, const struct enpu_job_desc *desc)
{
	u32 slot = index & (edev->id.sq_entries - 1);
	void __iomem *d = edev->regs + ENPU_SQ_OFFSET(queue) +
			  slot * ENPU_JOB_DESC_SIZE;

	lockdep_assert_held(&edev->rings.submit_lock);
	lo_hi_writeq(desc->cmd_addr, d + ENPU_JOB_CMD_ADDR);
	writel(desc->cmd_size, d + ENPU_JOB_CMD_SIZE);
	writel(0, d + ENPU_JOB_FLAGS);
	lo_hi_writeq(desc->tag, d + ENPU_JOB_TAG);
	lo_hi_writeq(desc->ctx_save_addr, d + ENPU_JOB_CTX_SAVE_ADDR);
	writel(desc->ctx_save_size, d + ENPU_JOB_CTX_SAVE_SIZE);
	lo_hi_writeq(desc->bo_table_addr, d + ENPU_JOB_BO_TABLE_ADDR);
	writel(desc->bo_count, d + ENPU_JOB_BO_COUNT);
}

/**
 * enpu_queue_submit() - hand one job descriptor to the device
 * @edev: the device.
 * @queue: hardware queue, below the device's queue count.
 * @desc: the job.
 * @ring_index: if not NULL, set to the producer index the descriptor was
 *	written at (the device has consumed it once SQ_HEAD is past it).
 *
 * Any context: the ring is written under a spinlock.
 *
 * Return: 0, -EINVAL for a queue the device does not have, -EBUSY when the
 * ring is full, -EIO if the device reports an impossible ring state.
 */
int enpu_queue_submit(struct enpu_device *edev, unsigned int queue,
		      const struct enpu_job_desc *desc, u32 *ring_index)
{
	unsigned long flags;
	u32 head, tail;
	int ret = 0;

	if (queue >= edev->id.num_queues)
		return -EINVAL;

	spin_lock_irqsave(&edev->rings.submit_lock, flags);
	/* SQ_TAIL has a single writer, us, so it is our producer index. */
	tail = enpu_read(edev, ENPU_REG_SQ_TAIL(queue));
	head = enpu_read(edev, ENPU_REG_SQ_HEAD(queue));
	if (tail - head > edev->id.sq_entries) {
		dev_err_ratelimited(edev->dev,
				    "queue %u: head %u beyond tail %u\n",
				    queue, head, tail);
		ret = -EIO;
	} else if (tail - head == edev->id.sq_entries) {
		ret = -EBUSY;
	} else {
		enpu_queue_write_desc(edev, queue, tail, desc);
		if (ring_index)
			*ring_index = tail;
		/* Publishes the descriptor: writel() is a release. */
		enpu_write(edev, ENPU_REG_SQ_TAIL(queue), tail + 1);
		enpu_hw_ring_doorbell(edev, ENPU_DB_QUEUE);
	}
	spin_unlock_irqrestore(&edev->rings.submit_lock, flags);
	return ret;
}

/**
 * enpu_queue_preempt() - post PREEMPT(@queue) for the context of @area
 * @edev: the device; its CAPS have ENPU_CAP_PREEMPT.
 * @queue: the hardware queue the context's jobs were written to.
 * @area: DMA address of the context's save area, which names it.
 *
 * Writes the request registers and rings ENPU_DB_QUEUE (docs/hw/vnpu.md,
 * "Interface 1.4"); no wait, any context. The device saves the context's
 * running job of @queue at its next preemption point and returns its
 * descriptors there that have not started (NOT_STARTED).
 *
 * A queue has one request slot: while the device has not acknowledged a
 * request for another area (SQ_PREEMPT_ACK behind SQ_PREEMPT_SEQ),
 * writing this one would replace it unseen, so it is not written.
 *
 * Return: true if the request was posted, false if the slot is busy (the
 * caller tries again later).
 */
bool enpu_queue_preempt(struct enpu_device *edev, unsigned int queue,
			dma_addr_t area)
{
	unsigned long flags;

	if (queue >= edev->id.num_queues)
		return true;
	spin_lock_irqsave(&edev->rings.submit_lock, flags);
	if (edev->rings.preempt_area[queue] != area &&
	    enpu_read(edev, ENPU_REG_SQ_PREEMPT_ACK(queue)) !=
	    edev->rings.preempt_seq[queue]) {
		spin_unlock_irqrestore(&edev->rings.submit_lock, flags);
		return false;
	}
	edev->rings.preempt_area[queue] = area;
	enpu_write(edev, ENPU_REG_SQ_PREEMPT_AREA_LO(queue),
		   lower_32_bits(area));
	enpu_write(edev, ENPU_REG_SQ_PREEMPT_AREA_HI(queue),
		   upper_32_bits(area));
	/* Publishes the tag: writel() is a release. */
	enpu_write(edev, ENPU_REG_SQ_PREEMPT_SEQ(queue),
		   ++edev->rings.preempt_seq[queue]);
	enpu_hw_ring_doorbell(edev, ENPU_DB_QUEUE);
	spin_unlock_irqrestore(&edev->rings.submit_lock, flags);
	return true;
}

/*
 * Samples the device's busy time and cycles before a batch is consumed
 * (the device counts both before it publishes a completion). Their ratio
 * since the previous sample is the device time one cycle took on average
 * over that span, clock changes included; counters that did not move
 * forward (idle, a device without them, a reset) keep the last ratio.
 */
static void enpu_queue_sample_clock(struct enpu_device *edev)
{
	struct enpu_cq_clock *clock = &edev->rings.clock;
	u64 busy_ns = enpu_hw_read_counter(edev, ENPU_REG_PERF_BUSY_NS_LO);
	u64 cycles = enpu_hw_read_counter(edev, ENPU_REG_PERF_CYCLES_LO);

	lockdep_assert_held(&edev->rings.cq_lock);
	if (cycles > clock->cycles && busy_ns >= clock->busy_ns) {
		clock->ratio_ns = busy_ns - clock->busy_ns;
		clock->ratio_cycles = cycles - clock->cycles;
	}
	clock->busy_ns = busy_ns;
	clock->cycles = cycles;
}

static u64 enpu_queue_run_ns(struct enpu_device *edev, u64 cycles)
{
	struct enpu_cq_clock *clock = &edev->rings.clock;

	if (!clock->ratio_cycles)
		return enpu_hw_cycles_to_ns(edev, cycles);
	return mul_u64_u64_div_u64(cycles, clock->ratio_ns,
				   clock->ratio_cycles);
}

static void enpu_queue_complete_one(struct enpu_device *edev,
				    void __iomem *cqe, ktime_t now,
				    struct list_head *callbacks)
{
	u64 tag = lo_hi_readq(cqe + ENPU_CQE_TAG);
	struct enpu_cq_waiter *waiter;

	lockdep_assert_held(&edev->rings.cq_lock);
	/* O(1): the tag names its waiter's slot. */
	waiter = xa_load(&edev->rings.cq_table, tag & ENPU_TAG_ID_MASK);
	if (waiter && waiter->pending && waiter->tag == tag) {
		waiter->queue = readl(cqe + ENPU_CQE_QUEUE);
		waiter->status = readl(cqe + ENPU_CQE_STATUS);
		waiter->cycles = lo_hi_readq(cqe + ENPU_CQE_CYCLES);
		waiter->ns = enpu_queue_run_ns(edev, waiter->cycles);
		waiter->info = readl(cqe + ENPU_CQE_INFO);
		waiter->completed_at = now;
		waiter->pending = false;
		if (waiter->complete_fn)
			list_add_tail(&waiter->done_node, callbacks);
		else
			complete(&waiter->done);
		return;
	}
	atomic64_inc(&edev->rings.unknown_tags);
	dev_warn_ratelimited(edev->dev,
			     "completion for unknown tag 0x%llx dropped\n", tag);
	/*
	 * The job it belonged to would never complete: whoever owns the
	 * device's health is told (recovery, through the callback it set).
	 * Quiet waiters give up after a timeout; their late completion is
	 * harmless.
	 */
	if (!enpu_tag_quiet(tag) && edev->rings.unknown_tag)
		edev->rings.unknown_tag(edev);
}

/**
 * enpu_queue_drain_completions() - consume published completions
 * @edev: the device.
 * @budget: at most this many entries.
 *
 * Called from the job-done interrupt and its thread, and by waiters that
 * suspect a lost interrupt. The device writes entries before CQ_TAIL;
 * reading CQ_TAIL with readl() (acquire) before the entries pairs with
 * that. Waiters with a complete_fn are called after cq_lock is dropped,
 * in ring order. Interrupts stay off for @budget lookups of O(1) each.
 *
 * Return: the number of entries consumed.
 */
unsigned int enpu_queue_drain_completions(struct enpu_device *edev,
					  unsigned int budget)
{
	struct enpu_cq_waiter *waiter, *next;
	u32 mask = edev->id.cq_entries - 1;
	LIST_HEAD(callbacks);
	unsigned int consumed = 0;
	unsigned long flags, drain_flags;
	ktime_t now;
	u32 head, tail;

	/* Batches complete in ring order, whoever drains them. */
	spin_lock_irqsave(&edev->rings.cq_drain_lock, drain_flags);
	now = ktime_get();
	spin_lock_irqsave(&edev->rings.cq_lock, flags);
	head = enpu_read(edev, ENPU_REG_CQ_HEAD);
	tail = enpu_read(edev, ENPU_REG_CQ_TAIL);
	if (tail - head > edev->id.cq_entries) {
		/* Entries are lost either way; resynchronise with the device. */
		dev_err_ratelimited(edev->dev,
				    "completion ring tail %u is %u entries past head %u\n",
				    tail, tail - head, head);
		head = tail;
	}
	if (head != tail)
		enpu_queue_sample_clock(edev);
	for (; head != tail && consumed < budget; head++, consumed++)
		enpu_queue_complete_one(edev, edev->regs + ENPU_CQ_OFFSET +
					(head & mask) * ENPU_CQE_SIZE, now,
					&callbacks);
	enpu_write(edev, ENPU_REG_CQ_HEAD, head);
	spin_unlock_irqrestore(&edev->rings.cq_lock, flags);

	/* A callback may free its waiter, so unlink before calling. */
	list_for_each_entry_safe(waiter, next, &callbacks, done_node) {
		list_del(&waiter->done_node);
		waiter->complete_fn(waiter);
	}
	spin_unlock_irqrestore(&edev->rings.cq_drain_lock, drain_flags);
	return consumed;
}

/**
 * enpu_queue_completions_waiting() - are there entries nobody consumed?
 * @edev: the device.
 *
 * Return: true when CQ_TAIL is ahead of CQ_HEAD.
 */
bool enpu_queue_completions_waiting(struct enpu_device *edev)
{
	return enpu_read(edev, ENPU_REG_CQ_TAIL) !=
	       enpu_read(edev, ENPU_REG_CQ_HEAD);
}

/**
 * enpu_queue_drain_all() - consume every published completion
 * @edev: the device.
 *
 * Process context: batch by batch, rescheduling in between.
 *
 * Return: the number of entries consumed.
 */
unsigned int enpu_queue_drain_all(struct enpu_device *edev)
{
	unsigned int total = 0, consumed;

	do {
		consumed = enpu_queue_drain_completions(edev, ENPU_CQ_BATCH);
		total += consumed;
		cond_resched();
	} while (consumed == ENPU_CQ_BATCH);
	return total;
}
