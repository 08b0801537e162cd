// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's mechanism. Every context has a FIFO and a fence
 * timeline; the policy (enpu_sched_policy.c) chooses among the contexts
 * whose head job may run; this file is the only producer of the hardware
 * rings. The dispatch loop (enpu_sched_pump_locked()) runs wherever
 * something changed — the SUBMIT ioctl, the completion interrupt, a
 * dependency's fence callback, the policy's hrtimer — with no thread hop.
 *
 * Ring depth policy (the one copy; docs/scheduler.md links here): the
 * device holds the jobs of one context — the policy's choice, up to
 * sched_depth of its ready jobs, contiguous in the hardware queue of its
 * level (SQ_PRIORITY(q) = q) and topped up as they complete — plus, to
 * preempt, the head job of a context whose level is above every level the
 * device holds, or equal to that one context's once its slice is used up.
 * A preemption is one PREEMPT request per hardware queue the device holds
 * jobs of, naming the context by its save area: the device saves the job
 * of it that runs and returns the others unstarted (NOT_STARTED), and its
 * arbiter runs the preempter next. So a context's jobs stay in order
 * across preemption, a preempting job never waits behind a queue of lower
 * work, and what runs next is always the policy's choice. Without
 * CAP_PREEMPT, or with sched_mode=fifo, there is no preemption: the device
 * holds one context's jobs at a time.
 *
 * Completion: the job-done interrupt drains the ring (enpu_queue.c) and
 * calls enpu_sched_hw_done(): a PREEMPTED job goes back into its FIFO in
 * job-id order (the saved one first: its context's save area holds its
 * progress) and resumes when the policy picks its context again; any
 * other job is finished. A job
 * that must not run (cancelled, failed dependency, guilty of a hang)
 * never reaches the device: it finishes when it is its FIFO's head.
 * Finished jobs wait on their context's done list and are signalled
 * outside the scheduler lock, in order, under their context's timeline
 * lock (the lock dma_fence_signal() takes anyway), which is what keeps two
 * signallers of one context in order without handing work from one CPU to
 * another; in atomic context a bounded batch, the rest from a worker;
 * from inside a fence callback never (a worker does it), so that no fence
 * is signalled under another fence's lock.
 *
 * Lock order (outermost first; enpu_device.h refers here):
 *   enpu_recovery.lock (mutex, recovery only)
 *   dma_resv ww-mutexes of a submit's BOs (enpu_job.c)
 *   enpu_stream.lock (mutex, enpu_stream.c): the stream object's last
 *	passing BO list, also taken with no lock held
 *   enpu_device.nop.lock (mutex, debugfs NOP)
 *   enpu_device.rings.cq_drain_lock (IRQ-safe, enpu_queue.c): held while
 *	completion callbacks run, hence around everything below
 *   the lock of a fence being signalled (dependency callbacks run under
 *	it); ours is the context's enpu_timeline.lock, also held while a
 *	context's done list is taken and signalled
 *   enpu_sched.lock (IRQ-safe): contexts' FIFOs and done lists, the
 *	policy, on_device
 *   enpu_device.rings.submit_lock or enpu_device.rings.cq_lock
 *	(enpu_queue.c), never nested in each other
 * The hrtimer callback takes enpu_sched.lock only. enpu_mailbox.lock
 * (mutex) takes no other lock; only enpu_recovery.lock is held around it.
 */
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <drm/drm_managed.h>

#include "enpu_context.h"
#include "enpu_device.h"
#include "enpu_fence.h"
#include "enpu_hw.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_sched.h"

#define CREATE_TRACE_POINTS
#include "enpu_trace.h"

/* Fences signalled per call in atomic context; a worker does the rest. */
#define ENPU_SCHED_SIGNAL_BATCH	32
/*
 * A PREEMPT request whose queue's slot was busy is tried again this much
 * later (the device looks at requests whenever it handles a doorbell:
 * microseconds).
 */
#define ENPU_SCHED_PREEMPT_RETRY_NS	(20 * NSEC_PER_USEC)

static char *sched_mode = "preemptive";
module_param(sched_mode, charp, 0444);
MODULE_PARM_DESC(sched_mode,
		 "preemptive (priorities, preemption, round-robin slices, aging) or fifo (priorities at job boundaries only); read at probe");

static unsigned int sched_slice_us = 4000;
module_param(sched_slice_us, uint, 0444);
MODULE_PARM_DESC(sched_slice_us,
		 "round-robin slice among contexts of one priority, us (>= 100); read at probe");

static unsigned int sched_depth = 8;
module_param(sched_depth, uint, 0444);
MODULE_PARM_DESC(sched_depth,
		 "jobs of one context on the device at once (1..64), so short jobs run back to back; read at probe");

static unsigned int sched_aging_ms = 50;
module_param(sched_aging_ms, uint, 0444);
MODULE_PARM_DESC(sched_aging_ms,
		 "a waiting priority counts one level higher per this many ms, up to HIGH (at least the slice); read at probe");

static struct enpu_sched *to_sched(struct enpu_device *edev)
{
	return &edev->sched;
}

static struct enpu_sched_ctx *to_sctx(struct enpu_sched_entity *e)
{
	return container_of(e, struct enpu_sched_ctx, ent);
}

static u64 enpu_sched_now(void)
{
	return ktime_get_ns();
}

/* The job-status table of uapi/enpu_accel.h. */
static int enpu_sched_status_errno(u32 status)
{
	switch (status) {
	case ENPU_JOB_STATUS_OK:
		return 0;
	case ENPU_JOB_STATUS_INVALID:
		/* Run-time data the validator cannot see (parameter tables). */
		return -EINVAL;
	case ENPU_JOB_STATUS_DMA_FAULT:
		return -EFAULT;
	case ENPU_JOB_STATUS_ABORTED:
		return -ECANCELED;
	default:
		/* PREEMPTED without a save area: the device misbehaved. */
		return -EIO;
	}
}

static bool enpu_sched_job_runnable(struct enpu_sched_job *sjob)
{
	/* Acquire: pairs with the dependency callbacks' decrement. */
	return sjob->skip_deps || !atomic_read_acquire(&sjob->deps_pending);
}

/* A saved state whose job will never resume must not reach another job. */
static void enpu_sched_forget_save(struct enpu_sched_ctx *sctx)
{
	if (sctx->save_live && sctx->save)
		memset(sctx->save, 0, ENPU_SAVE_HEADER_SIZE);
	sctx->save_live = false;
}

static void enpu_sched_finish(struct enpu_sched *s, struct enpu_sched_job *sjob,
			      int error)
{
	struct enpu_sched_ctx *sctx = sjob->sctx;

	lockdep_assert_held(&s->lock);
	sjob->done_error = error;
	list_move_tail(&sjob->node, &sctx->done);
	if (list_empty(&sctx->done_node))
		list_add_tail(&sctx->done_node, &s->done);
}

/*
 * Finishes the FIFO head of @sctx while it must not run; returns whether
 * a head that may run is left. Nothing happens while a job of @sctx is on
 * the device: its jobs finish in order.
 */
static bool enpu_sched_ctx_next(struct enpu_sched *s,
				struct enpu_sched_ctx *sctx)
{
	struct enpu_sched_job *head;

	lockdep_assert_held(&s->lock);
	if (sctx->on_device)
		return false;
	while ((head = list_first_entry_or_null(&sctx->fifo,
						struct enpu_sched_job, node))) {
		if (!enpu_sched_job_runnable(head) || head->rerun_check)
			return false;
		if (!READ_ONCE(head->error))
			return true;
		if (sctx->save_live)
			enpu_sched_forget_save(sctx);
		sctx->queued--;
		trace_enpu_job_done(head->id, sctx->id, sctx->ent.prio,
				    READ_ONCE(head->error), 0);
		enpu_sched_finish(s, head, READ_ONCE(head->error));
	}
	return false;
}

/* Brings @sctx's entity in line with its FIFO head. */
static void enpu_sched_ctx_refresh(struct enpu_sched *s,
				   struct enpu_sched_ctx *sctx, u64 now)
{
	struct enpu_sched_job *head;

	if (sctx->on_device)
		return;
	if (enpu_sched_ctx_next(s, sctx)) {
		head = list_first_entry(&sctx->fifo, struct enpu_sched_job,
					node);
		enpu_sched_ready(&s->rq, &sctx->ent, now, head->id);
	} else {
		enpu_sched_unready(&sctx->ent);
	}
}

static unsigned int enpu_sched_hw_queue(struct enpu_sched *s, u8 level)
{
	return min_t(unsigned int, level, s->edev->id.num_queues - 1);
}

static void enpu_sched_hw_done(struct enpu_cq_waiter *waiter);

/* Back into its FIFO in job-id order: the oldest of its context first. */
static void enpu_sched_requeue(struct enpu_sched_ctx *sctx,
			       struct enpu_sched_job *sjob)
{
	struct enpu_sched_job *pos;

	list_for_each_entry(pos, &sctx->fifo, node)
		if (pos->id > sjob->id)
			break;
	list_move_tail(&sjob->node, &pos->node);
	sctx->queued++;
}

/*
 * Writes @sctx's FIFO head to hardware queue @hw_queue at @level; false
 * if the ring refused it. The caller has checked that it may run.
 */
static bool enpu_sched_write(struct enpu_sched *s, struct enpu_sched_ctx *sctx,
			     unsigned int hw_queue, u8 level, u64 now)
{
	struct enpu_sched_job *sjob = list_first_entry(&sctx->fifo,
						       struct enpu_sched_job,
						       node);
	struct enpu_device *edev = s->edev;
	struct enpu_job_desc desc = sjob->desc;
	int ret;

	lockdep_assert_held(&s->lock);
	desc.tag = enpu_queue_tag(&sjob->waiter, lower_32_bits(sjob->id) &
				  ENPU_TAG_COOKIE_MASK);
	sjob->tag = desc.tag;
	sjob->saveable = s->preempt && sctx->save;
	if (sjob->saveable) {
		/*
		 * A fresh job must not find an older job's state; with jobs of
		 * the context on the device the area is theirs to clear.
		 */
		if (!sctx->save_live && !sctx->on_device)
			memset(sctx->save, 0, ENPU_SAVE_HEADER_SIZE);
		desc.ctx_save_addr = sctx->save_dma;
		desc.ctx_save_size = s->save_size;
	}
	sjob->level = level;
	sjob->hw_queue = hw_queue;
	sjob->waiter.complete_fn = enpu_sched_hw_done;
	enpu_queue_add_waiter(edev, &sjob->waiter, desc.tag);
	/* The ring write publishes the save area's memset (writel). */
	ret = enpu_queue_submit(edev, hw_queue, &desc, &sjob->ring_index);
	if (ret) {
		enpu_queue_remove_waiter(edev, &sjob->waiter);
		dev_err_ratelimited(edev->dev, "queue %u: cannot submit: %d\n",
				    hw_queue, ret);
		return false;
	}
	list_move_tail(&sjob->node, &s->on_device);
	WRITE_ONCE(s->on_device_count, s->on_device_count + 1);
	sctx->on_device++;
	sctx->queued--;
	sjob->run_at = ns_to_ktime(now);
	if (sctx->save_live && sctx->on_device == 1)
		trace_enpu_job_resume(sjob->id, sctx->id, sctx->ent.prio, level);
	trace_enpu_job_run(sjob->id, sctx->id, sctx->ent.prio, level, hw_queue);
	return true;
}

/* The policy's choice @sctx goes to the device: its head job now. */
static bool enpu_sched_dispatch(struct enpu_sched *s,
				struct enpu_sched_ctx *sctx, u64 now)
{
	u8 level = enpu_sched_level_of(&s->rq, &sctx->ent, now);

	if (!enpu_sched_write(s, sctx, enpu_sched_hw_queue(s, level), level,
			      now))
		return false;
	sctx->preempt_requested = false;
	sctx->preempt_posted = 0;
	enpu_sched_start(&s->rq, &sctx->ent, now);
	return true;
}

/*
 * When the device holds the jobs of one context only, and nobody asked it
 * to stop them: more of its ready jobs, behind them in the same queue, up
 * to sched_depth, so that short jobs run back to back.
 */
static void enpu_sched_top_up(struct enpu_sched *s, u64 now)
{
	struct enpu_sched_job *first, *last, *head;
	struct enpu_sched_ctx *sctx;

	lockdep_assert_held(&s->lock);
	if (list_empty(&s->on_device))
		return;
	first = list_first_entry(&s->on_device, struct enpu_sched_job, node);
	last = list_last_entry(&s->on_device, struct enpu_sched_job, node);
	sctx = first->sctx;
	if (last->sctx != sctx || sctx->on_device != s->on_device_count ||
	    sctx->preempt_requested)
		return;
	while (sctx->on_device < s->depth &&
	       (head = list_first_entry_or_null(&sctx->fifo,
						struct enpu_sched_job, node)) &&
	       enpu_sched_job_runnable(head) && !READ_ONCE(head->error) &&
	       enpu_sched_write(s, sctx, last->hw_queue, last->level, now))
		last = head;
}

/*
 * Posts the PREEMPT requests of @victim not posted yet, one per hardware
 * queue it has jobs in. A queue whose request slot holds another
 * context's request the device has not looked at yet refuses it
 * (enpu_queue_preempt()); @s->preempt_retry then has it tried again.
 */
static void enpu_sched_post_preempt(struct enpu_sched *s,
				    struct enpu_sched_ctx *victim)
{
	struct enpu_sched_job *sjob;

	lockdep_assert_held(&s->lock);
	list_for_each_entry(sjob, &s->on_device, node) {
		if (sjob->sctx != victim || !sjob->saveable ||
		    (victim->preempt_posted & BIT(sjob->hw_queue)))
			continue;
		if (!enpu_queue_preempt(s->edev, sjob->hw_queue,
					victim->save_dma)) {
			s->preempt_retry = true;
			continue;
		}
		victim->preempt_posted |= BIT(sjob->hw_queue);
		atomic64_inc(&s->preempt_requests);
		trace_enpu_job_preempt(sjob->id, victim->id, victim->ent.prio,
				       sjob->level);
	}
}

/* Asks the device to take @victim's jobs off the queues they are in. */
static void enpu_sched_request_preempt(struct enpu_sched *s,
				       struct enpu_sched_ctx *victim)
{
	lockdep_assert_held(&s->lock);
	if (!victim->save)
		return;
	victim->preempt_requested = true;
	enpu_sched_post_preempt(s, victim);
}

/* Requests that found their queue's slot busy, again. */
static void enpu_sched_retry_preempts(struct enpu_sched *s)
{
	struct enpu_sched_job *sjob;
	struct enpu_sched_ctx *last = NULL;

	lockdep_assert_held(&s->lock);
	if (!s->preempt_retry)
		return;
	s->preempt_retry = false;
	list_for_each_entry(sjob, &s->on_device, node) {
		if (sjob->sctx == last || !sjob->sctx->preempt_requested)
			continue;
		last = sjob->sctx;
		enpu_sched_post_preempt(s, sjob->sctx);
	}
}

/*
 * Rule (b) of the ring depth policy for candidate @cand: dispatch it and
 * ask the device to stop what it holds. Returns whether it did.
 */
static bool enpu_sched_try_preempt(struct enpu_sched *s,
				   struct enpu_sched_ctx *cand, u64 now)
{
	struct enpu_sched_job *first, *sjob;
	struct enpu_sched_ctx *only;
	u8 top = 0, lc;

	lockdep_assert_held(&s->lock);
	first = list_first_entry(&s->on_device, struct enpu_sched_job, node);
	only = first->sctx->on_device == s->on_device_count ? first->sctx :
	       NULL;
	list_for_each_entry(sjob, &s->on_device, node)
		top = max(top, sjob->level);
	lc = enpu_sched_level_of(&s->rq, &cand->ent, now);
	if (lc <= top &&
	    !(only && first->saveable && !only->preempt_requested &&
	      enpu_sched_should_preempt(&s->rq, &only->ent, &cand->ent, now)))
		return false;
	/*
	 * The requests go out before @cand's descriptor: the device starts
	 * saving while the descriptor is written, and a guest vCPU stalled
	 * between the two doorbells no longer delays the save (the device
	 * counts @cand's latency from its doorbell). A dispatch that fails
	 * after them has only cost the victims a save and a resume.
	 */
	list_for_each_entry(sjob, &s->on_device, node)
		if (sjob->sctx != cand)
			enpu_sched_request_preempt(s, sjob->sctx);
	return enpu_sched_dispatch(s, cand, now);
}

static void enpu_sched_arm_timer(struct enpu_sched *s, u64 now)
{
	struct enpu_sched_job *first;
	u64 next;

	if (!s->preempt || list_empty(&s->on_device))
		return;
	first = list_first_entry(&s->on_device, struct enpu_sched_job, node);
	next = enpu_sched_next_event(&s->rq, &first->sctx->ent, now);
	if (s->preempt_retry)
		next = min(next, now + ENPU_SCHED_PREEMPT_RETRY_NS);
	if (next != U64_MAX)
		hrtimer_start(&s->timer, ns_to_ktime(next), HRTIMER_MODE_ABS);
}

/*
 * The dispatch loop at time @now (enpu_sched_now()): the policy's choice
 * goes to the device, or preempts.
 */
static void enpu_sched_pump_at(struct enpu_sched *s, u64 now)
{
	struct enpu_sched_entity *e;

	lockdep_assert_held(&s->lock);
	if (s->stopped || s->dead)
		return;
	enpu_sched_retry_preempts(s);
	while ((e = enpu_sched_pick(&s->rq, now))) {
		struct enpu_sched_ctx *sctx = to_sctx(e);

		if (list_empty(&s->on_device)) {
			if (!enpu_sched_dispatch(s, sctx, now))
				break;
			enpu_recovery_arm(s->edev);
			continue;
		}
		if (!s->preempt || !enpu_sched_try_preempt(s, sctx, now))
			break;
	}
	enpu_sched_top_up(s, now);
	enpu_stat_max(&s->edev->irq.stats.pump_max_jobs, s->on_device_count);
	enpu_sched_arm_timer(s, now);
}

static void enpu_sched_pump_locked(struct enpu_sched *s)
{
	enpu_sched_pump_at(s, enpu_sched_now());
}

/* Logs where @sjob's time went, once its fence has signalled. */
static void enpu_sched_log_latency(struct enpu_sched *s,
				   struct enpu_sched_job *sjob, ktime_t signal)
{
	struct enpu_sched_lat *e;
	unsigned long flags;

	if (!s->lat)
		return;
	spin_lock_irqsave(&s->lat_lock, flags);
	e = &s->lat[s->lat_head];
	s->lat_head = (s->lat_head + 1) % ENPU_SCHED_LAT_LOG;
	s->lat_count = min_t(u32, s->lat_count + 1, ENPU_SCHED_LAT_LOG);
	*e = (struct enpu_sched_lat){
		.ctx = sjob->sctx->id,
		.seqno = sjob->fence->seqno,
		.entry = ktime_to_ns(sjob->entry_at),
		.run = ktime_to_ns(sjob->run_at),
		.irq = ktime_to_ns(sjob->waiter.completed_at),
		.signal = ktime_to_ns(signal),
	};
	spin_unlock_irqrestore(&s->lat_lock, flags);
}

/*
 * Signals up to @budget (0: all) of the finished jobs of @tl's context, in
 * order, under @tl's lock; returns whether none is left. The caller holds
 * a reference to @tl, not to the context: a context whose jobs another
 * signaller finished may be gone (@tl->owner is then NULL). The context
 * lives while we hold finished jobs of it, until their ->done.
 */
static bool enpu_sched_signal_timeline(struct enpu_sched *s,
				       struct enpu_timeline *tl,
				       unsigned int budget)
{
	struct enpu_sched_job *sjob, *next;
	struct enpu_sched_ctx *sctx;
	unsigned long flags, tflags;
	unsigned int n = 0;
	LIST_HEAD(signalled);
	bool empty = true;
	ktime_t at;

	spin_lock_irqsave(&tl->lock, tflags);
	spin_lock_irqsave(&s->lock, flags);
	sctx = tl->owner;
	if (sctx) {
		list_for_each_entry_safe(sjob, next, &sctx->done, node) {
			if (budget && n++ == budget)
				break;
			list_move_tail(&sjob->node, &signalled);
		}
		empty = list_empty(&sctx->done);
		if (empty)
			list_del_init(&sctx->done_node);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry(sjob, &signalled, node) {
		if (sjob->done_error)
			dma_fence_set_error(sjob->fence, sjob->done_error);
		/* Before the waiter wakes: it may submit again at once. */
		if (sjob->ops->retire)
			sjob->ops->retire(sjob);
		dma_fence_signal_locked(sjob->fence);
	}
	spin_unlock_irqrestore(&tl->lock, tflags);
	at = ktime_get();
	list_for_each_entry_safe(sjob, next, &signalled, node) {
		list_del_init(&sjob->node);
		enpu_sched_log_latency(s, sjob, at);
		atomic64_inc(&sctx->completed);
		atomic64_inc(&s->edev->job.completed);
		if (sjob->park) {
			/* The device may still read it: freed after a reset. */
			spin_lock_irqsave(&s->lock, flags);
			list_add_tail(&sjob->node, &s->parked);
			spin_unlock_irqrestore(&s->lock, flags);
			continue;
		}
		/* May free the job, and with it the context: last. */
		sjob->ops->done(sjob);
	}
	return empty;
}

/*
 * The timeline of a context with finished jobs, referenced: @sctx's if it
 * has some, else the first such context's; NULL if there is none.
 * *@others says whether more contexts have finished jobs. @s->lock held.
 */
static struct enpu_timeline *enpu_sched_hold_done(struct enpu_sched *s,
						  struct enpu_sched_ctx *sctx,
						  bool *others)
{
	lockdep_assert_held(&s->lock);
	if (!sctx || list_empty(&sctx->done))
		sctx = list_first_entry_or_null(&s->done,
						struct enpu_sched_ctx,
						done_node);
	*others = sctx && !list_is_singular(&s->done);
	if (!sctx)
		return NULL;
	kref_get(&sctx->timeline->ref);
	return sctx->timeline;
}

/* Every context's finished jobs, in process context. */
static void enpu_sched_signal_all(struct enpu_sched *s)
{
	struct enpu_timeline *tl;
	unsigned long flags;
	bool others;

	for (;;) {
		spin_lock_irqsave(&s->lock, flags);
		tl = enpu_sched_hold_done(s, NULL, &others);
		spin_unlock_irqrestore(&s->lock, flags);
		if (!tl)
			return;
		enpu_sched_signal_timeline(s, tl, 0);
		enpu_timeline_put(tl);
		cond_resched();
	}
}

/*
 * Drops @s->lock (taken with @flags) after a change that may have
 * finished jobs, @sctx's first, and signals them: all of them in process
 * context; in atomic context (@atomic) a bounded batch of one context's,
 * and a worker the rest.
 */
static void enpu_sched_unlock_signal(struct enpu_sched *s,
				     struct enpu_sched_ctx *sctx,
				     unsigned long flags, bool atomic)
	__releases(&s->lock)
{
	struct enpu_timeline *tl;
	bool others, empty;

	tl = enpu_sched_hold_done(s, sctx, &others);
	spin_unlock_irqrestore(&s->lock, flags);
	if (!tl)
		return;
	empty = enpu_sched_signal_timeline(s, tl, atomic ?
					   ENPU_SCHED_SIGNAL_BATCH : 0);
	enpu_timeline_put(tl);
	if (empty && !others)
		return;
	if (!atomic) {
		enpu_sched_signal_all(s);
		return;
	}
	atomic64_inc(&s->edev->irq.stats.pump_deferred);
	queue_work(s->edev->job.wq, &s->done_work);
}

static void enpu_sched_done_work(struct work_struct *work)
{
	enpu_sched_signal_all(container_of(work, struct enpu_sched, done_work));
}

/*
 * Drops @s->lock (taken with @flags) where no fence may be signalled
 * (inside a fence callback, in the hrtimer): a worker signals what
 * finished.
 */
static void enpu_sched_unlock_defer(struct enpu_sched *s, unsigned long flags)
	__releases(&s->lock)
{
	bool finished = !list_empty(&s->done);

	spin_unlock_irqrestore(&s->lock, flags);
	if (!finished)
		return;
	atomic64_inc(&s->edev->irq.stats.pump_deferred);
	queue_work(s->edev->job.wq, &s->done_work);
}

/* Completion-ring callback: any context, cq_drain_lock held. */
static void enpu_sched_hw_done(struct enpu_cq_waiter *waiter)
{
	struct enpu_sched_job *sjob = container_of(waiter,
						   struct enpu_sched_job,
						   waiter);
	struct enpu_sched_ctx *sctx = sjob->sctx;
	struct enpu_sched *s = sctx->sched;
	u64 now = enpu_sched_now();
	struct enpu_sched_job *head;
	unsigned long flags;
	bool more;
	int error;

	if (sctx->usage && waiter->cycles) {
		atomic64_add(waiter->cycles, &sctx->usage->cycles);
		atomic64_add(waiter->ns, &sctx->usage->ns);
	}
	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(s->on_device_count, s->on_device_count - 1);
	sctx->on_device--;
	atomic64_add(waiter->cycles, &sctx->cycles);
	if (waiter->status == ENPU_JOB_STATUS_PREEMPTED && sjob->saveable) {
		/* Back in order; a saved one resumes from the save area. */
		enpu_sched_requeue(sctx, sjob);
		if (waiter->info != ENPU_CQE_INFO_NOT_STARTED) {
			sctx->save_live = true;
			sjob->preemptions++;
			atomic64_inc(&sctx->preempted);
			atomic64_inc(&s->preempted);
		}
		trace_enpu_job_done(sjob->id, sctx->id, sctx->ent.prio,
				    -EINPROGRESS, waiter->cycles);
	} else {
		/* The device cleared the save area at the end of the job. */
		sctx->save_live = false;
		error = READ_ONCE(sjob->error);
		if (!error)
			error = enpu_sched_status_errno(waiter->status);
		if (error)
			dev_dbg(s->edev->dev, "job %llu of context %u: status %u info 0x%x, error %d\n",
				sjob->id, sctx->id, waiter->status,
				waiter->info, error);
		trace_enpu_job_done(sjob->id, sctx->id, sctx->ent.prio, error,
				    waiter->cycles);
		enpu_sched_finish(s, sjob, error);
	}
	if (!sctx->on_device) {
		/* Its last job left: the policy's stop, slice charged. */
		more = enpu_sched_ctx_next(s, sctx);
		head = more ? list_first_entry(&sctx->fifo,
					       struct enpu_sched_job, node) :
		       NULL;
		enpu_sched_stop(&s->rq, &sctx->ent, now, more,
				head ? head->id : 0);
		sctx->preempt_requested = false;
		sctx->preempt_posted = 0;
	}
	enpu_sched_pump_locked(s);
	enpu_sched_unlock_signal(s, sctx, flags, true);
}

/* The policy's instant: only the dispatch loop (nothing finishes here). */
static enum hrtimer_restart enpu_sched_timer(struct hrtimer *timer)
{
	struct enpu_sched *s = container_of(timer, struct enpu_sched, timer);
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	enpu_sched_pump_locked(s);
	enpu_sched_unlock_defer(s, flags);
	return HRTIMER_NORESTART;
}

/**
 * enpu_sched_job_init() - prepare a job for enpu_sched_push()
 * @sjob: the owner's job, zeroed, with @sjob->waiter registered and
 *	@sjob->desc filled in.
 * @sctx: its context.
 * @fence: its fence, allocated with enpu_fence_alloc(), not initialised.
 * @ops: the owner's callbacks.
 *
 * The job counts one pending dependency until it is pushed.
 */
void enpu_sched_job_init(struct enpu_sched_job *sjob,
			 struct enpu_sched_ctx *sctx, struct dma_fence *fence,
			 const struct enpu_sched_job_ops *ops)
{
	INIT_LIST_HEAD(&sjob->node);
	sjob->sctx = sctx;
	sjob->fence = fence;
	sjob->ops = ops;
	atomic_set(&sjob->deps_pending, 1);
}

/**
 * enpu_sched_push() - queue a committed job
 * @sjob: from enpu_sched_job_init(), its dependency callbacks armed.
 *
 * Gives the fence its seqno on the context's timeline, queues the job at
 * the tail of its context's FIFO and runs the dispatch loop: with the
 * device idle and the job ready it is on the ring when this returns.
 * Cannot fail: a job of a closed or banned context is cancelled, and on a
 * dead device it finishes with -ENODEV. Process context.
 *
 * Return: the fence's seqno.
 */
u64 enpu_sched_push(struct enpu_sched_job *sjob)
{
	struct enpu_sched_ctx *sctx = sjob->sctx;
	struct enpu_sched *s = sctx->sched;
	unsigned long flags;
	u64 seqno, now;

	spin_lock_irqsave(&s->lock, flags);
	enpu_fence_init(sjob->fence, sctx->timeline);
	seqno = sjob->fence->seqno;
	sjob->id = ++s->next_id;
	/*
	 * One clock read for the queue time, the refresh and the dispatch
	 * loop: in the VM the clocksource is the HPET and each read costs
	 * SUBMIT 1-3 us (tests/bench/README.md).
	 */
	sjob->queued_at = ktime_get();
	now = ktime_to_ns(sjob->queued_at);
	if (READ_ONCE(sctx->closed) || READ_ONCE(sctx->banned)) {
		cmpxchg(&sjob->error, 0, -ECANCELED);
		sjob->skip_deps = true;
	}
	/* Pairs with recovery setting wedged before failing what it holds. */
	if (s->dead || READ_ONCE(s->edev->recovery.wedged)) {
		cmpxchg(&sjob->error, 0, -ENODEV);
		sjob->skip_deps = true;
	}
	list_add_tail(&sjob->node, &sctx->fifo);
	sctx->queued++;
	atomic64_inc(&sctx->submitted);
	trace_enpu_job_queue(sjob->id, sctx->id, sctx->ent.prio, seqno);
	/* Drops the count that kept it back until it was in the FIFO. */
	atomic_dec(&sjob->deps_pending);
	enpu_sched_ctx_refresh(s, sctx, now);
	enpu_sched_pump_at(s, now);
	enpu_sched_unlock_signal(s, sctx, flags, false);
	return seqno;
}

/**
 * enpu_sched_dep_signalled() - the job's last dependency signalled
 * @sjob: a pushed job whose deps_pending the caller took to 0.
 *
 * Called from the dependency's fence callback (any context, that fence's
 * lock held): dispatches at once if the policy says so; never signals a
 * fence itself.
 */
void enpu_sched_dep_signalled(struct enpu_sched_job *sjob)
{
	struct enpu_sched_ctx *sctx = sjob->sctx;
	struct enpu_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	enpu_sched_ctx_refresh(s, sctx, enpu_sched_now());
	enpu_sched_pump_locked(s);
	enpu_sched_unlock_defer(s, flags);
}

/* The context a fence of ours belongs to, if it is one of this device. */
static struct enpu_sched_ctx *enpu_sched_fence_ctx(struct enpu_sched *s,
						   struct dma_fence *fence)
{
	struct enpu_timeline *tl = enpu_fence_timeline(fence);
	struct enpu_sched_ctx *owner;

	lockdep_assert_held(&s->lock);
	if (!tl)
		return NULL;
	owner = tl->owner;
	return owner && owner->sched == s ? owner : NULL;
}

/**
 * enpu_sched_inherit() - @sjob waits on @fence: lend its priority
 * @sjob: a job being submitted, not pushed yet.
 * @fence: one of its dependencies, unsignalled, a reference held.
 *
 * If @fence is a job fence of this device whose context has a lower
 * priority, that context's level is raised to @sjob's priority until
 * enpu_sched_disinherit() (priority inheritance, one level deep).
 *
 * Return: true if a boost was lent (enpu_sched_disinherit() must follow).
 */
bool enpu_sched_inherit(struct enpu_sched_job *sjob, struct dma_fence *fence)
{
	struct enpu_sched *s = sjob->sctx->sched;
	struct enpu_sched_ctx *owner;
	unsigned long flags;
	bool lent = false;

	spin_lock_irqsave(&s->lock, flags);
	owner = enpu_sched_fence_ctx(s, fence);
	if (owner && owner != sjob->sctx &&
	    owner->ent.prio < sjob->sctx->ent.prio &&
	    !dma_fence_is_signaled(fence)) {
		enpu_sched_boost(&s->rq, &owner->ent, sjob->sctx->ent.prio,
				 enpu_sched_now());
		enpu_sched_pump_locked(s);
		lent = true;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return lent;
}

/**
 * enpu_sched_disinherit() - undo enpu_sched_inherit()
 * @sjob: the waiting job.
 * @fence: the same fence, its reference still held.
 *
 * Any context (the fence's callback included).
 */
void enpu_sched_disinherit(struct enpu_sched_job *sjob,
			   struct dma_fence *fence)
{
	struct enpu_sched *s = sjob->sctx->sched;
	struct enpu_sched_ctx *owner;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	owner = enpu_sched_fence_ctx(s, fence);
	if (owner)
		enpu_sched_unboost(&s->rq, &owner->ent, sjob->sctx->ent.prio,
				   enpu_sched_now());
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * enpu_sched_ctx_cancel() - cancel a context's queued jobs
 * @sctx: a context being destroyed, or whose file is closing; @closed is
 *	set here.
 *
 * Jobs still in its FIFO finish with -ECANCELED, in order, without
 * waiting for their dependencies; a job on the device runs to completion
 * (or to its preemption: a preempted job is queued, so it is cancelled
 * then). Process context.
 */
void enpu_sched_ctx_cancel(struct enpu_sched_ctx *sctx)
{
	struct enpu_sched *s = sctx->sched;
	struct enpu_sched_job *sjob;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(sctx->closed, true);
	list_for_each_entry(sjob, &sctx->fifo, node) {
		cmpxchg(&sjob->error, 0, -ECANCELED);
		sjob->skip_deps = true;
	}
	enpu_sched_ctx_refresh(s, sctx, enpu_sched_now());
	enpu_sched_pump_locked(s);
	spin_unlock_irqrestore(&s->lock, flags);
	enpu_sched_signal_all(s);
}

/**
 * enpu_sched_ctx_init() - a context's FIFO, timeline and save area
 * @edev: the device.
 * @sctx: zeroed, inside the new context.
 * @prio: its priority, a level (checked by the caller).
 *
 * Process context.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_sched_ctx_init(struct enpu_device *edev, struct enpu_sched_ctx *sctx,
			u8 prio)
{
	struct enpu_sched *s = to_sched(edev);
	unsigned long flags;
	char name[24];

	INIT_LIST_HEAD(&sctx->fifo);
	INIT_LIST_HEAD(&sctx->done);
	INIT_LIST_HEAD(&sctx->done_node);
	INIT_LIST_HEAD(&sctx->node);
	sctx->sched = s;
	enpu_sched_entity_init(&sctx->ent, prio);
	snprintf(name, sizeof(name), "enpu-ctx%d",
		 atomic_inc_return(&s->next_ctx));
	sctx->timeline = enpu_timeline_create(name);
	if (!sctx->timeline)
		return -ENOMEM;
	if (s->preempt) {
		sctx->save = dma_alloc_coherent(edev->dev, s->save_size,
						&sctx->save_dma, GFP_KERNEL);
		if (!sctx->save) {
			enpu_timeline_put(sctx->timeline);
			sctx->timeline = NULL;
			return -ENOMEM;
		}
	}
	spin_lock_irqsave(&s->lock, flags);
	sctx->timeline->owner = sctx;
	list_add_tail(&sctx->node, &s->contexts);
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

/**
 * enpu_sched_ctx_fini() - the last of a context, when it is freed
 * @sctx: initialised (or zeroed: nothing to do); no job of it exists.
 *
 * Process context.
 */
void enpu_sched_ctx_fini(struct enpu_sched_ctx *sctx)
{
	struct enpu_sched *s = sctx->sched;
	unsigned long flags;

	if (!s || !sctx->timeline)
		return;
	spin_lock_irqsave(&s->lock, flags);
	WARN_ON_ONCE(!list_empty(&sctx->fifo) || !list_empty(&sctx->done) ||
		     sctx->on_device);
	enpu_sched_unready(&sctx->ent);
	sctx->timeline->owner = NULL;
	list_del_init(&sctx->node);
	spin_unlock_irqrestore(&s->lock, flags);
	if (sctx->save)
		dma_free_coherent(s->edev->dev, s->save_size, sctx->save,
				  sctx->save_dma);
	enpu_timeline_put(sctx->timeline);
	sctx->timeline = NULL;
}

/**
 * enpu_sched_count_on_device() - jobs written to a ring, not completed
 * @edev: the device.
 *
 * Return: a snapshot of the count; any context, no lock.
 */
unsigned int enpu_sched_count_on_device(struct enpu_device *edev)
{
	return READ_ONCE(to_sched(edev)->on_device_count);
}

/**
 * enpu_sched_stop_rings() - write nothing more to the rings
 * @edev: the device, about to be reset by recovery.
 *
 * Submission keeps queueing; enpu_sched_requeue_after_reset() restarts.
 */
void enpu_sched_stop_rings(struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->stopped = true;
	spin_unlock_irqrestore(&s->lock, flags);
}

/* Blames @guilty: -ETIMEDOUT, a hang counted, a ban at the limit. */
static void enpu_sched_blame(struct enpu_sched *s, struct enpu_sched_job *guilty)
{
	struct enpu_sched_ctx *sctx = guilty->sctx;
	struct enpu_context *ctx = container_of(sctx, struct enpu_context,
						sched);
	struct enpu_sched_job *sjob;
	int hangs;

	lockdep_assert_held(&s->lock);
	WRITE_ONCE(guilty->error, -ETIMEDOUT);
	guilty->skip_deps = true;
	hangs = atomic_inc_return(&ctx->hang_count);
	dev_warn(s->edev->dev, "job %llu of context %u hung the device (%d hangs)\n",
		 guilty->id, sctx->id, hangs);
	if (hangs < ENPU_CONTEXT_BAN_HANGS || READ_ONCE(sctx->banned))
		return;
	WRITE_ONCE(sctx->banned, true);
	dev_warn(s->edev->dev, "context %u banned\n", sctx->id);
	list_for_each_entry(sjob, &sctx->fifo, node) {
		cmpxchg(&sjob->error, 0, -ECANCELED);
		sjob->skip_deps = true;
	}
}

/* Marks @sctx's jobs that the device had started for the rerun check. */
static void enpu_sched_collect_reruns(struct enpu_sched_ctx *sctx,
				      struct list_head *started)
{
	struct enpu_sched_job *sjob;

	list_for_each_entry(sjob, &sctx->fifo, node) {
		if (!sjob->consumed)
			continue;
		sjob->consumed = false;
		if (READ_ONCE(sjob->error) || !sjob->ops->rerun_safe)
			continue;
		sjob->rerun_check = true;
		list_add_tail(&sjob->rerun_node, started);
	}
}

/*
 * The jobs the device had started before a reset they did not cause run
 * again only if that gives one run's result (the owner's ->rerun_safe,
 * enpu_rerun.c, which sleeps); the others get -EIO and finish in order
 * without the device. A job being checked holds back its context, so
 * nothing finishes (frees) it meanwhile. A preempted one resumes from its
 * save, so only the rest of it runs again: the whole stream's answer
 * covers that. Process context, the rings stopped.
 */
static void enpu_sched_check_reruns(struct enpu_sched *s)
{
	struct enpu_sched_job *sjob, *next;
	struct enpu_sched_ctx *sctx;
	unsigned long flags;
	LIST_HEAD(started);
	bool safe;

	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(sctx, &s->contexts, node)
		enpu_sched_collect_reruns(sctx, &started);
	enpu_sched_collect_reruns(&s->kernel_ctx, &started);
	spin_unlock_irqrestore(&s->lock, flags);

	list_for_each_entry_safe(sjob, next, &started, rerun_node) {
		safe = sjob->ops->rerun_safe(sjob);
		spin_lock_irqsave(&s->lock, flags);
		list_del(&sjob->rerun_node);
		sjob->rerun_check = false;
		if (!safe) {
			dev_warn(s->edev->dev,
				 "job %llu of context %u was interrupted by a reset and writes what it read; failing it (-EIO) instead of running it twice\n",
				 sjob->id, sjob->sctx->id);
			cmpxchg(&sjob->error, 0, -EIO);
			sjob->skip_deps = true;
		}
		spin_unlock_irqrestore(&s->lock, flags);
	}
}

/*
 * After a reset, which job does @sctx's save area hold? The driver's own
 * record (save_live) follows the completions it saw, and a lost or
 * corrupted one hides that the job finished (the device cleared the area)
 * or that a later job of the context, already on the ring, ran and was
 * saved there. The header the device wrote is the truth: the area is
 * live only if it names the context's next job, one the device had
 * started; anything else is cleared, so that job starts from its first
 * command (a job whose save is dropped was started too, and its rerun is
 * checked like the others). The device is reset: nothing writes the area.
 */
static void enpu_sched_adopt_save(struct enpu_sched *s,
				  struct enpu_sched_ctx *sctx)
{
	struct enpu_sched_job *sjob, *named = NULL;
	const __le32 *magic;
	u64 tag;

	if (!sctx->save)
		return;
	magic = sctx->save + ENPU_SAVE_OFF_MAGIC;
	if (le32_to_cpu(READ_ONCE(*magic)) != ENPU_SAVE_MAGIC) {
		sctx->save_live = false;
		return;
	}
	tag = le64_to_cpu(*(const __le64 *)(sctx->save + ENPU_SAVE_OFF_TAG));
	list_for_each_entry(sjob, &sctx->fifo, node) {
		if (sjob->tag == tag && (sjob->consumed || sjob->preemptions)) {
			named = sjob;
			break;
		}
	}
	if (named && list_is_first(&named->node, &sctx->fifo)) {
		sctx->save_live = true;
		return;
	}
	/* The saved job had run part of the way: it is checked like those. */
	if (named)
		named->consumed = true;
	atomic64_inc(&s->stale_saves);
	memset(sctx->save, 0, ENPU_SAVE_HEADER_SIZE);
	sctx->save_live = false;
}

/**
 * enpu_sched_requeue_after_reset() - hand the device's jobs back
 * @edev: the device, reset; stopped before the reset, its completions
 *	drained.
 * @sq_head: SQ_HEAD of every queue read before the reset.
 * @blame: the reset was a hang: the job the device had consumed but not
 *	completed is guilty.
 *
 * Every job the device held goes back into its context's FIFO in order
 * and runs again — from its last save if the save area, which survives
 * a reset, still holds it (enpu_sched_adopt_save()) — except the guilty
 * one, which finishes with -ETIMEDOUT; its context counts a hang and is
 * banned at ENPU_CONTEXT_BAN_HANGS, which cancels its queued jobs. The
 * device runs one job at a time, so one job should be consumed and not
 * completed; if several are (a completion was lost), the one of the
 * highest level is blamed; the others run again if that is safe
 * (enpu_sched_check_reruns()), else they get -EIO. Nothing is written to a ring before
 * enpu_sched_restart().
 */
void enpu_sched_requeue_after_reset(struct enpu_device *edev,
				    const u32 sq_head[ENPU_MAX_QUEUES],
				    bool blame)
{
	struct enpu_sched *s = to_sched(edev);
	struct enpu_sched_job *sjob, *next, *guilty = NULL;
	u64 now = enpu_sched_now();
	struct enpu_sched_ctx *sctx;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry_safe(sjob, next, &s->on_device, node) {
		sctx = sjob->sctx;
		if (!enpu_queue_remove_waiter(edev, &sjob->waiter))
			continue;	/* its completion callback has it */
		if ((s32)(sjob->ring_index - sq_head[sjob->hw_queue]) < 0) {
			/* Started, maybe finished: may have written. */
			sjob->consumed = true;
			if (!guilty || sjob->level > guilty->level)
				guilty = sjob;
		}
		enpu_sched_requeue(sctx, sjob);
		WRITE_ONCE(s->on_device_count, s->on_device_count - 1);
		if (!--sctx->on_device) {
			enpu_sched_stop(&s->rq, &sctx->ent, now, true, sjob->id);
			sctx->preempt_requested = false;
			sctx->preempt_posted = 0;
		}
	}
	if (blame && guilty)
		enpu_sched_blame(s, guilty);
	list_for_each_entry(sctx, &s->contexts, node)
		enpu_sched_adopt_save(s, sctx);
	enpu_sched_adopt_save(s, &s->kernel_ctx);
	spin_unlock_irqrestore(&s->lock, flags);
	enpu_sched_check_reruns(s);
}

/**
 * enpu_sched_restart() - write to the rings again, after recovery
 * @edev: the device, rebooted with interrupts enabled. Process context.
 */
void enpu_sched_restart(struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);
	u64 now = enpu_sched_now();
	struct enpu_sched_ctx *sctx;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->stopped = false;
	list_for_each_entry(sctx, &s->contexts, node)
		enpu_sched_ctx_refresh(s, sctx, now);
	enpu_sched_ctx_refresh(s, &s->kernel_ctx, now);
	enpu_sched_pump_locked(s);
	spin_unlock_irqrestore(&s->lock, flags);
	enpu_sched_signal_all(s);
}

/* Every job of @sctx to the done list with @error; @s->lock held. */
static void enpu_sched_fail_ctx(struct enpu_sched *s,
				struct enpu_sched_ctx *sctx, int error)
{
	struct enpu_sched_job *sjob, *next;

	enpu_sched_unready(&sctx->ent);
	list_for_each_entry_safe(sjob, next, &sctx->fifo, node) {
		sctx->queued--;
		enpu_sched_finish(s, sjob, READ_ONCE(sjob->error) ?: error);
	}
	sctx->save_live = false;
}

/*
 * Every job held gets @error (or its own), in order per context; @dead:
 * for good; @park: the jobs on the rings are parked once signalled.
 */
static void enpu_sched_fail(struct enpu_sched *s, int error, bool dead,
			    bool park)
{
	struct enpu_sched_job *sjob, *next;
	struct enpu_sched_ctx *sctx;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (dead)
		s->dead = true;
	list_for_each_entry_safe(sjob, next, &s->on_device, node) {
		if (!enpu_queue_remove_waiter(s->edev, &sjob->waiter))
			continue;	/* its completion callback has it */
		WRITE_ONCE(s->on_device_count, s->on_device_count - 1);
		if (!--sjob->sctx->on_device) {
			enpu_sched_stop(&s->rq, &sjob->sctx->ent,
					enpu_sched_now(), false, 0);
			sjob->sctx->preempt_requested = false;
			sjob->sctx->preempt_posted = 0;
		}
		sjob->park = park;
		enpu_sched_finish(s, sjob, READ_ONCE(sjob->error) ?: error);
	}
	list_for_each_entry(sctx, &s->contexts, node)
		enpu_sched_fail_ctx(s, sctx, error);
	enpu_sched_fail_ctx(s, &s->kernel_ctx, error);
	spin_unlock_irqrestore(&s->lock, flags);
	enpu_sched_signal_all(s);
}

/**
 * enpu_sched_fail_all() - fail every job the driver holds, for good
 * @edev: the device, gone or beyond recovery.
 * @error: the fence error, -ENODEV.
 *
 * Nothing is written to a ring again; every job still held is signalled
 * with @error (or its own error), in order per context. A job whose
 * completion entry was consumed meanwhile is left to its callback.
 * Process context.
 */
void enpu_sched_fail_all(struct enpu_device *edev, int error)
{
	enpu_sched_fail(to_sched(edev), error, true, false);
	enpu_sched_free_parked(edev);
}

/**
 * enpu_sched_fail_held() - recovery gave up waiting: fail what it holds
 * @edev: the device, down (rings stopped) for longer than its hold time.
 * @error: the fence error, -ENODEV.
 * @reset: the device was reset since the recovery began, so every job it
 *	held is back in its FIFO. Otherwise the jobs still on the rings are
 *	signalled but parked until a later reset succeeds or the device is
 *	removed (enpu_sched_free_parked()): the device may still read them.
 *
 * The scheduler stays usable: once recovery succeeds it runs jobs again.
 * Process context.
 */
void enpu_sched_fail_held(struct enpu_device *edev, int error, bool reset)
{
	enpu_sched_fail(to_sched(edev), error, false, !reset);
}

/**
 * enpu_sched_free_parked() - free the jobs kept for a device not yet reset
 * @edev: the device, reset since they were parked (or gone).
 */
void enpu_sched_free_parked(struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);
	struct enpu_sched_job *sjob, *next;
	unsigned long flags;
	LIST_HEAD(jobs);

	spin_lock_irqsave(&s->lock, flags);
	list_splice_init(&s->parked, &jobs);
	spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(sjob, next, &jobs, node) {
		list_del_init(&sjob->node);
		sjob->ops->done(sjob);
	}
}

/**
 * enpu_sched_show() - debugfs sched: the scheduler and every context
 * @m: the seq_file.
 * @edev: the device.
 *
 * One line for the scheduler, then one per context: its id, priority,
 * state and the counters of docs/scheduler.md ("Observability").
 */
void enpu_sched_show(struct seq_file *m, struct enpu_device *edev)
{
	static const char *const states[] = { "idle", "ready", "running" };
	struct enpu_sched *s = to_sched(edev);
	struct enpu_sched_ctx *sctx;
	unsigned long flags;
	u32 opps = clamp_t(u32, enpu_read(edev, ENPU_REG_OPP_COUNT), 1,
			   ENPU_MAX_OPPS);
	/* Device time at the nominal (top) clock. */
	u32 khz = enpu_read(edev, ENPU_REG_OPP_KHZ(opps - 1));

	spin_lock_irqsave(&s->lock, flags);
	seq_printf(m, "mode=%s preempt=%d slice_us=%llu aging_ms=%llu on_device=%u preempt_requests=%lld preempted=%lld stale_saves=%lld\n",
		   s->rq.params.mode == ENPU_SCHED_FIFO ? "fifo" : "preemptive",
		   s->preempt, s->rq.params.slice_ns / NSEC_PER_USEC,
		   s->rq.params.aging_ns / NSEC_PER_MSEC, s->on_device_count,
		   (long long)atomic64_read(&s->preempt_requests),
		   (long long)atomic64_read(&s->preempted),
		   (long long)atomic64_read(&s->stale_saves));
	list_for_each_entry(sctx, &s->contexts, node)
		seq_printf(m, "ctx=%u prio=%u level=%u state=%s submitted=%lld completed=%lld preempted=%lld cycles=%lld device_us=%llu queued=%u on_device=%u\n",
			   sctx->id, sctx->ent.prio, sctx->ent.level,
			   states[sctx->ent.state],
			   (long long)atomic64_read(&sctx->submitted),
			   (long long)atomic64_read(&sctx->completed),
			   (long long)atomic64_read(&sctx->preempted),
			   (long long)atomic64_read(&sctx->cycles),
			   khz ? div_u64(atomic64_read(&sctx->cycles) * 1000,
					 khz) : 0,
			   sctx->queued, sctx->on_device);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * enpu_sched_max_on_device() - the most jobs the device ever holds
 * @edev: the device.
 *
 * The ring depth policy's bound: one context's sched_depth jobs plus one
 * preempter per level.
 *
 * Return: the bound.
 */
unsigned int enpu_sched_max_on_device(struct enpu_device *edev)
{
	return to_sched(edev)->depth + ENPU_SCHED_LEVELS;
}

/**
 * enpu_sched_show_latency() - debugfs latency: where jobs' time went
 * @m: the seq_file.
 * @edev: the device.
 *
 * One line per job among the last ENPU_SCHED_LAT_LOG finished, oldest
 * first: "ctx=<id> seqno=<n> entry=<ns> run=<ns> irq=<ns> signal=<ns>",
 * ktime_get() nanoseconds (CLOCK_MONOTONIC) of the SUBMIT ioctl's entry,
 * the dispatch (just before the doorbell), the completion entry consumed
 * and the fence signalled. (Not consumed by the read: seq_file may call
 * this more than once for one read.)
 */
void enpu_sched_show_latency(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);
	struct enpu_sched_lat *copy;
	unsigned long flags;
	u32 i, count, first;

	copy = kvmalloc_array(ENPU_SCHED_LAT_LOG, sizeof(*copy), GFP_KERNEL);
	if (!copy || !s->lat) {
		kvfree(copy);
		return;
	}
	spin_lock_irqsave(&s->lat_lock, flags);
	count = s->lat_count;
	first = (s->lat_head + ENPU_SCHED_LAT_LOG - count) % ENPU_SCHED_LAT_LOG;
	for (i = 0; i < count; i++)
		copy[i] = s->lat[(first + i) % ENPU_SCHED_LAT_LOG];
	spin_unlock_irqrestore(&s->lat_lock, flags);
	for (i = 0; i < count; i++)
		seq_printf(m, "ctx=%u seqno=%llu entry=%lld run=%lld irq=%lld signal=%lld\n",
			   copy[i].ctx, copy[i].seqno, copy[i].entry,
			   copy[i].run, copy[i].irq, copy[i].signal);
	kvfree(copy);
}

static void enpu_sched_release(struct drm_device *drm, void *data)
{
	struct enpu_sched *s = data;

	hrtimer_cancel(&s->timer);
	enpu_sched_ctx_fini(&s->kernel_ctx);
	kvfree(s->lat);
}

/**
 * enpu_sched_init() - the scheduler, at probe, after identification
 * @edev: the device.
 *
 * Reads the module parameters and the device's preemption registers.
 *
 * Return: 0 or a negative errno.
 */
int enpu_sched_init(struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);
	struct enpu_sched_params params = {
		.mode = ENPU_SCHED_PREEMPTIVE,
		.slice_ns = (u64)max(sched_slice_us, 100u) * NSEC_PER_USEC,
		.aging_ns = (u64)max(sched_aging_ms, 1u) * NSEC_PER_MSEC,
	};
	int ret;

	if (sysfs_streq(sched_mode, "fifo")) {
		params.mode = ENPU_SCHED_FIFO;
	} else if (!sysfs_streq(sched_mode, "preemptive")) {
		dev_err(edev->dev, "sched_mode=%s: use preemptive or fifo\n",
			sched_mode);
		return -EINVAL;
	}
	spin_lock_init(&s->lock);
	spin_lock_init(&s->lat_lock);
	/* Without it only debugfs latency is empty. */
	s->lat = kvcalloc(ENPU_SCHED_LAT_LOG, sizeof(*s->lat), GFP_KERNEL);
	INIT_LIST_HEAD(&s->contexts);
	INIT_LIST_HEAD(&s->on_device);
	INIT_LIST_HEAD(&s->done);
	INIT_LIST_HEAD(&s->parked);
	INIT_WORK(&s->done_work, enpu_sched_done_work);
	hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	s->timer.function = enpu_sched_timer;
	s->edev = edev;
	enpu_sched_rq_init(&s->rq, &params);
	s->save_size = edev->id.ctx_save_size;
	s->preempt = (edev->id.caps & ENPU_CAP_PREEMPT) && s->save_size &&
		     params.mode == ENPU_SCHED_PREEMPTIVE;
	s->depth = clamp(sched_depth, 1u, 64u);
	ret = enpu_sched_ctx_init(edev, &s->kernel_ctx, ENPU_SCHED_NORMAL);
	if (ret) {
		/* enpu_sched_release() is not registered yet. */
		kvfree(s->lat);
		s->lat = NULL;
		return ret;
	}
	/* The kernel context is not a user's: it is not listed. */
	list_del_init(&s->kernel_ctx.node);
	return drmm_add_action_or_reset(&edev->drm, enpu_sched_release, s);
}

/**
 * enpu_sched_fini() - at device removal
 * @edev: the device, unplugged, recovery stopped, the device reset and
 *	the job-done interrupt quiesced.
 *
 * The reset dropped the jobs on the device without completions: every job
 * still held is failed with -ENODEV and signalled before this returns.
 */
void enpu_sched_fini(struct enpu_device *edev)
{
	struct enpu_sched *s = to_sched(edev);

	hrtimer_cancel(&s->timer);
	enpu_sched_fail_all(edev, -ENODEV);
	flush_work(&s->done_work);
	enpu_sched_signal_all(s);
}
