/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's mechanism: per-context FIFOs and fence timelines, the
 * dispatch loop that applies the policy (enpu_sched_policy.h) and is the
 * only producer of the hardware rings, preemption requests, the slice
 * and aging hrtimer, completion, and the recovery hooks. docs/scheduler.md
 * describes it; the lock order is written once, at the top of
 * enpu_sched.c.
 */
#ifndef ENPU_SCHED_H
#define ENPU_SCHED_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "enpu_queue.h"
#include "enpu_regs.h"
#include "enpu_sched_policy.h"

struct dma_fence;
struct enpu_device;
struct enpu_sched;
struct enpu_sched_job;
struct enpu_timeline;
struct seq_file;

/**
 * struct enpu_sched_job_ops - what the owner of a job provides
 * @retire: optional; the job is finished, its fence about to signal
 *	(e.g. give back its quota before a waiter can submit again).
 * @done: the job's fence has signalled; the scheduler holds no reference
 *	any more. Any context (the completion interrupt included): usually
 *	queues the job's free.
 * @rerun_safe: optional; a reset dropped the job after the device had
 *	started it: would running it again give one run's result? False
 *	fails it with -EIO instead. Process context, may sleep.
 */
struct enpu_sched_job_ops {
	void (*retire)(struct enpu_sched_job *sjob);
	void (*done)(struct enpu_sched_job *sjob);
	bool (*rerun_safe)(struct enpu_sched_job *sjob);
};

/**
 * struct enpu_sched_job - a job as the scheduler sees it, embedded in the
 *	owner's job (enpu_job.c, or the debugfs NOP)
 * @node: in its context's FIFO while it waits, in enpu_sched.on_device
 *	while the device holds it, in its context's done list until
 *	signalled.
 * @sctx: its context.
 * @fence: its fence, initialised by enpu_sched_push() on the context's
 *	timeline; the owner holds the reference.
 * @ops: the owner's callbacks.
 * @waiter: its completion-ring waiter, registered by the owner.
 * @desc: stream and BO table, filled by the owner; tag and save area are
 *	the scheduler's.
 * @id: job id, unique per device; the tag's cookie.
 * @deps_pending: unsignalled dependencies, plus one until it is pushed.
 * @error: why it must not run (a failed explicit dependency, -ECANCELED,
 *	-ETIMEDOUT for a hang); it then completes without the device.
 * @skip_deps: cancelled or guilty: completes without waiting for its
 *	dependencies.
 * @tag: the completion tag of its last dispatch.
 * @saveable: its last dispatch had the context's save area.
 * @level: the level it was dispatched at; its hardware queue follows.
 * @hw_queue: the hardware queue it was written to.
 * @ring_index: SQ_TAIL it was written at.
 * @preemptions: times the device saved it.
 * @consumed: the device had consumed it (SQ_HEAD past it) when a reset
 *	dropped it: it may have run, partly or wholly.
 * @rerun_check: recovery is checking whether @consumed may run again;
 *	it holds back its context meanwhile.
 * @rerun_node: on recovery's private list while @rerun_check.
 * @park: its fence is signalled while the device, not reset, may still
 *	read its buffers: ->done waits for enpu_sched_free_parked().
 * @done_error: the error its fence is signalled with.
 * @entry_at: ktime when its SUBMIT ioctl began (set by the owner; 0 if
 *	unknown), for the latency log.
 * @queued_at: ktime of enpu_sched_push().
 * @run_at: ktime of its last dispatch (just before the doorbell).
 */
struct enpu_sched_job {
	struct list_head node;
	struct enpu_sched_ctx *sctx;
	struct dma_fence *fence;
	const struct enpu_sched_job_ops *ops;
	struct enpu_cq_waiter waiter;
	struct enpu_job_desc desc;
	u64 id;
	atomic_t deps_pending;
	int error;
	bool skip_deps;
	u64 tag;
	bool saveable;
	u8 level;
	u8 hw_queue;
	u32 ring_index;
	u32 preemptions;
	bool consumed;
	bool rerun_check;
	struct list_head rerun_node;
	bool park;
	int done_error;
	ktime_t entry_at;
	ktime_t queued_at;
	ktime_t run_at;
};

/* Finished jobs whose latency debugfs `latency` can still report. */
#define ENPU_SCHED_LAT_LOG	4096

/**
 * struct enpu_sched_lat - where one job's time went (debugfs latency)
 * @ctx: its context's id.
 * @seqno: its fence seqno.
 * @entry: SUBMIT ioctl entry, ktime ns.
 * @run: its last dispatch, just before the doorbell.
 * @irq: its completion entry consumed (job-done interrupt).
 * @signal: its fence signalled (waiters woken from here).
 */
struct enpu_sched_lat {
	u32 ctx;
	u64 seqno;
	s64 entry;
	s64 run;
	s64 irq;
	s64 signal;
};

/**
 * struct enpu_usage - what the device ran for one open file (fdinfo)
 * @cycles: device cycles of its jobs' runs, as their completion entries
 *	report them (preempted runs included).
 * @ns: those cycles as device time (enpu_cq_waiter.ns: the device's own
 *	busy time per cycle around each completion).
 */
struct enpu_usage {
	atomic64_t cycles;
	atomic64_t ns;
};

/**
 * struct enpu_sched_ctx - a context's scheduling state, embedded in
 *	struct enpu_context
 * @ent: the policy's entity.
 * @fifo: its jobs not on the device and not finished, in job-id order;
 *	only the head may run, so a blocked head holds back this context only.
 * @node: in enpu_sched.contexts.
 * @done: its finished jobs not signalled yet, in order.
 * @done_node: in enpu_sched.done while @done is not empty.
 * @sched: the device's scheduler.
 * @timeline: its fence context: its jobs' fences signal in order.
 * @on_device: its jobs on the device (up to sched_depth, contiguous in
 *	one hardware queue, the oldest first).
 * @preempt_requested: it is to leave the device (a PREEMPT is posted, or
 *	to be posted, on every hardware queue it has jobs in).
 * @preempt_posted: hardware queues its request was posted to.
 * @save: its context-save area (CAP_PREEMPT devices), coherent DMA.
 * @save_dma: DMA address of @save.
 * @save_live: @save holds the state of the head job, preempted.
 * @closed: destroyed or its file closed: queued jobs are cancelled.
 * @banned: banned by recovery; new submits are refused.
 * @id: the uapi context id, for debugfs and tracepoints.
 * @submitted: jobs pushed.
 * @completed: jobs whose fence signalled.
 * @preempted: times one of its jobs was saved by the device.
 * @cycles: device cycles its jobs ran (completion entries), for the
 *	device time in debugfs.
 * @usage: its file's usage (fdinfo), added to at each completion; NULL
 *	for the driver's own context. Outlives the context.
 * @queued: jobs in @fifo now.
 */
struct enpu_sched_ctx {
	struct enpu_sched_entity ent;
	struct list_head fifo;
	struct list_head node;
	struct list_head done;
	struct list_head done_node;
	struct enpu_sched *sched;
	struct enpu_timeline *timeline;
	u32 on_device;
	bool preempt_requested;
	unsigned long preempt_posted;
	void *save;
	dma_addr_t save_dma;
	bool save_live;
	bool closed;
	bool banned;
	u32 id;
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t preempted;
	atomic64_t cycles;
	struct enpu_usage *usage;
	u32 queued;
};

/**
 * struct enpu_sched - the scheduler of one device, enpu_device.sched
 * @lock: protects everything below but the atomics; IRQ-safe (see the
 *	lock order in enpu_sched.c).
 * @rq: the policy's run queue.
 * @contexts: every enpu_sched_ctx of the device (debugfs, fail_all).
 * @on_device: jobs written to a ring and not completed, in dispatch order.
 * @on_device_count: entries in @on_device; read without @lock.
 * @done: contexts with finished jobs to signal.
 * @parked: signalled jobs whose ->done waits for a reset (@park).
 * @done_work: signals what a bounded call in atomic context, or a fence
 *	callback, left over.
 * @timer: the policy's next decision instant (slice end, aging step).
 * @edev: the device.
 * @kernel_ctx: the context of the driver's own jobs (debugfs NOP).
 * @next_id: last job id handed out.
 * @next_ctx: last context serial handed out (timeline names).
 * @preempt: jobs get save areas and may be preempted: the device has
 *	CAP_PREEMPT and sched_mode is not fifo.
 * @depth: jobs one context may have on the device (sched_depth).
 * @save_size: bytes per save area (ENPU_REG_CTX_SAVE_SIZE).
 * @preempt_retry: a request could not be posted (its queue's slot held
 *	another, unacknowledged): retried on every pump and by @timer.
 * @stopped: recovery is resetting the device: nothing is written.
 * @dead: the device is gone or beyond recovery.
 * @preempt_requests: PREEMPT requests posted.
 * @preempted: PREEMPTED completions.
 * @stale_saves: save areas found after a reset holding another job than
 *	the one their context runs next (enpu_sched_adopt_save()).
 * @lat_lock: protects @lat, @lat_head and @lat_count.
 * @lat: the latency log, a ring of the last ENPU_SCHED_LAT_LOG jobs.
 * @lat_head: next slot written.
 * @lat_count: entries in @lat.
 */
struct enpu_sched {
	spinlock_t lock;	/* everything but the atomics */
	struct enpu_sched_rq rq;
	struct list_head contexts;
	struct list_head on_device;
	unsigned int on_device_count;
	struct list_head done;
	struct list_head parked;
	struct work_struct done_work;
	struct hrtimer timer;
	struct enpu_device *edev;
	struct enpu_sched_ctx kernel_ctx;
	u64 next_id;
	atomic_t next_ctx;
	bool preempt;
	u32 depth;
	u32 save_size;
	bool preempt_retry;
	bool stopped;
	bool dead;
	atomic64_t preempt_requests;
	atomic64_t preempted;
	atomic64_t stale_saves;
	spinlock_t lat_lock;	/* the latency log */
	struct enpu_sched_lat *lat;
	u32 lat_head;
	u32 lat_count;
};

int enpu_sched_init(struct enpu_device *edev);
void enpu_sched_fini(struct enpu_device *edev);

int enpu_sched_ctx_init(struct enpu_device *edev, struct enpu_sched_ctx *sctx,
			u8 prio);
void enpu_sched_ctx_fini(struct enpu_sched_ctx *sctx);
void enpu_sched_ctx_cancel(struct enpu_sched_ctx *sctx);

void enpu_sched_job_init(struct enpu_sched_job *sjob,
			 struct enpu_sched_ctx *sctx, struct dma_fence *fence,
			 const struct enpu_sched_job_ops *ops);
u64 enpu_sched_push(struct enpu_sched_job *sjob);
void enpu_sched_dep_signalled(struct enpu_sched_job *sjob);
bool enpu_sched_inherit(struct enpu_sched_job *sjob, struct dma_fence *fence);
void enpu_sched_disinherit(struct enpu_sched_job *sjob,
			   struct dma_fence *fence);

/* For recovery (enpu_recovery.c). */
unsigned int enpu_sched_count_on_device(struct enpu_device *edev);
void enpu_sched_stop_rings(struct enpu_device *edev);
void enpu_sched_requeue_after_reset(struct enpu_device *edev,
				    const u32 sq_head[ENPU_MAX_QUEUES],
				    bool blame);
void enpu_sched_restart(struct enpu_device *edev);
void enpu_sched_fail_held(struct enpu_device *edev, int error, bool reset);
void enpu_sched_free_parked(struct enpu_device *edev);
void enpu_sched_fail_all(struct enpu_device *edev, int error);

void enpu_sched_show(struct seq_file *m, struct enpu_device *edev);
unsigned int enpu_sched_max_on_device(struct enpu_device *edev);
void enpu_sched_show_latency(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_SCHED_H */
