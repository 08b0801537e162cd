// SPDX-License-Identifier: GPL-2.0
/*
 * Job fences. Every job gets a dma_fence on the timeline of its context
 * (scheduler/enpu_sched.c); a context's jobs finish in order, so fences of
 * one timeline signal in seqno order as dma_fence requires. A fence may outlive
 * the device (it sits in other drivers' dma_resv and in syncobjs), so its
 * lock and name live in a reference-counted timeline, not in the device.
 *
 * A fence may also outlive every file of the driver (a sync_file, a
 * syncobj fd, another driver's reservation), and its ops, release
 * function and names are this module's code and data. So every live
 * fence holds a module reference: taken when the fence is initialised
 * (always from SUBMIT, whose open file already holds the module, so
 * __module_get() cannot race an unload) and dropped when the fence's
 * memory is freed; rmmod / modprobe -r refuse with "in use" meanwhile.
 *
 * Dropping that reference is the classic problem of a module putting its
 * own last reference: after module_put() the module may be unloaded
 * while its code is still running the rest of the function. The put is
 * therefore the last statement of an RCU callback (the fence memory is
 * freed there too, after readers of dma_fence_get_rcu() are done, which
 * is what dma_fence_free() would have done), and module exit calls
 * rcu_barrier() (enpu_drv.c), which returns only once every callback
 * queued before it has returned, including one that is still executing
 * its last instructions after module_put(). Later kernels let a signalled
 * fence stop pointing at its driver's ops instead; 6.1 has no such help.
 *
 * Freeing in batches. One call_rcu() per fence gave RCU work on every
 * frame: the grace-period kthread (rcu_preempt) ran about one grace
 * period per frame, 0.6-0.7 ms of guest CPU per frame in the VM bench
 * (tests/bench/README.md, sessions 8 and 9). kfree_rcu() did not help:
 * it batches the frees too, but it was measured to leave the grace
 * periods per frame as they were (README, "Tried and not kept"). So a
 * released fence goes on a lock-free list
 * (enpu_fence_release() may run in any context, hard IRQ included) and
 * a delayed work item, armed by the release that finds the list empty,
 * hands the whole list to RCU with one call_rcu() at most
 * ENPU_FENCE_FREE_DELAY_MS later, or at once when
 * ENPU_FENCE_FREE_BATCH_MAX fences are waiting: that bounds the memory
 * held back to one batch (128 fences, each a dma_fence and two pointers)
 * plus the batches already waiting for their grace period, as with one
 * call_rcu() per fence, and RCU runs about one grace period per batch
 * instead of about one per frame. The callback frees every fence
 * of the batch, then drops their module references, the last put as its
 * last statement as before. A fence on the list is already unreachable
 * (its refcount is zero, dma_fence_get_rcu() fails on it), and its memory
 * is freed only after a grace period that began after the list was
 * taken, so after every reader that saw it; a fence on the list still
 * holds its module reference, so the module cannot unload while a batch
 * is pending. The release publishes the fence and arms the work inside
 * an RCU read-side section, so the batch's grace period (and with it the
 * last module_put()) cannot end before the release is done with the
 * module's data. Module exit (enpu_fence_exit()) flushes the work item
 * (it may still be returning from its call_rcu()) and then waits for
 * the callbacks with rcu_barrier().
 *
 * Fences come from their own slab cache, so slab debugging can be
 * switched on for them alone (slub_debug=FZPU,enpu_fence): a fence freed
 * twice, or written after its batch freed it, is a slab report.
 */
#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "enpu_fence.h"

/**
 * struct enpu_fence - a job fence
 * @base: the fence.
 * @timeline: holds a reference until the fence is released.
 * @free_node: on enpu_fence_free_list from release until its batch is
 *	freed; links the batch handed to RCU.
 */
struct enpu_fence {
	struct dma_fence base;
	struct enpu_timeline *timeline;
	struct llist_node free_node;
};

static struct kmem_cache *enpu_fence_cache;

/* Released fences waiting for enpu_fence_free_work; see the top. */
static LLIST_HEAD(enpu_fence_free_list);
/* How many are on it (may run ahead of the list by a release or two). */
static atomic_t enpu_fence_free_pending = ATOMIC_INIT(0);

static void enpu_fence_free_batch(struct work_struct *work);
static DECLARE_DELAYED_WORK(enpu_fence_free_work, enpu_fence_free_batch);

static struct enpu_fence *to_enpu_fence(struct dma_fence *fence)
{
	return container_of(fence, struct enpu_fence, base);
}

static const char *enpu_fence_driver_name(struct dma_fence *fence)
{
	return "enpu";
}

static const char *enpu_fence_timeline_name(struct dma_fence *fence)
{
	return to_enpu_fence(fence)->timeline->name;
}

/*
 * RCU callback of one batch: @rcu is the first fence's, the others follow
 * it through @free_node. Frees them, then lets the module go.
 */
static void enpu_fence_free_batch_rcu(struct rcu_head *rcu)
{
	struct dma_fence *first = container_of(rcu, struct dma_fence, rcu);
	struct enpu_fence *efence, *next;
	unsigned long count = 0;

	llist_for_each_entry_safe(efence, next, &to_enpu_fence(first)->free_node,
				  free_node) {
		kmem_cache_free(enpu_fence_cache, efence);
		count++;
	}
	/* Last: module exit's rcu_barrier() waits for this to return. */
	while (count--)
		module_put(THIS_MODULE);
}

/* The work item: hands everything on the list to RCU as one batch. */
static void enpu_fence_free_batch(struct work_struct *work)
{
	struct llist_node *batch = llist_del_all(&enpu_fence_free_list);
	struct llist_node *node;
	int count = 0;

	if (!batch)
		return;
	llist_for_each(node, batch)
		count++;
	atomic_sub(count, &enpu_fence_free_pending);
	call_rcu(&llist_entry(batch, struct enpu_fence, free_node)->base.rcu,
		 enpu_fence_free_batch_rcu);
}

static void enpu_fence_release(struct dma_fence *fence)
{
	struct enpu_fence *efence = to_enpu_fence(fence);
	bool first;

	if (efence->timeline)
		enpu_timeline_put(efence->timeline);
	/*
	 * Until the unlock no batch holding this fence can finish its grace
	 * period, so the module (pinned by this fence until then) stays.
	 */
	rcu_read_lock();
	first = llist_add(&efence->free_node, &enpu_fence_free_list);
	if (atomic_inc_return(&enpu_fence_free_pending) >=
	    ENPU_FENCE_FREE_BATCH_MAX)
		mod_delayed_work(system_wq, &enpu_fence_free_work, 0);
	else if (first)
		queue_delayed_work(system_wq, &enpu_fence_free_work,
				   msecs_to_jiffies(ENPU_FENCE_FREE_DELAY_MS));
	rcu_read_unlock();
}

static const struct dma_fence_ops enpu_fence_ops = {
	.get_driver_name = enpu_fence_driver_name,
	.get_timeline_name = enpu_fence_timeline_name,
	.release = enpu_fence_release,
};

/**
 * enpu_timeline_create() - a new fence context
 * @name: the timeline name fences report (copied, truncated to fit).
 *
 * Return: the timeline with one reference, or NULL without memory.
 */
struct enpu_timeline *enpu_timeline_create(const char *name)
{
	struct enpu_timeline *timeline;

	timeline = kzalloc(sizeof(*timeline), GFP_KERNEL_ACCOUNT);
	if (!timeline)
		return NULL;
	kref_init(&timeline->ref);
	spin_lock_init(&timeline->lock);
	timeline->context = dma_fence_context_alloc(1);
	strscpy(timeline->name, name, sizeof(timeline->name));
	return timeline;
}

/**
 * enpu_fence_timeline() - the timeline of one of our job fences
 * @fence: any fence, a reference held (which keeps the timeline).
 *
 * Return: its timeline if @fence is an enpu job fence, else NULL.
 */
struct enpu_timeline *enpu_fence_timeline(struct dma_fence *fence)
{
	if (fence->ops != &enpu_fence_ops)
		return NULL;
	return to_enpu_fence(fence)->timeline;
}

static void enpu_timeline_release(struct kref *ref)
{
	struct enpu_timeline *timeline =
		container_of(ref, struct enpu_timeline, ref);

	kfree_rcu(timeline, rcu);
}

/**
 * enpu_timeline_put() - drop a reference to a timeline
 * @timeline: the timeline.
 */
void enpu_timeline_put(struct enpu_timeline *timeline)
{
	kref_put(&timeline->ref, enpu_timeline_release);
}

/**
 * enpu_fence_alloc() - allocate a job fence, to be initialised later
 *
 * Allocation happens early in submit, so that the step which assigns the
 * seqno (under the queue lock) cannot fail. Before enpu_fence_init() the
 * fence must be freed with enpu_fence_free_uninit(), not dma_fence_put().
 *
 * Return: the fence, or NULL without memory.
 */
struct dma_fence *enpu_fence_alloc(void)
{
	struct enpu_fence *efence = kmem_cache_zalloc(enpu_fence_cache,
						      GFP_KERNEL);

	return efence ? &efence->base : NULL;
}

/**
 * enpu_fence_free_uninit() - free a fence enpu_fence_init() never saw
 * @fence: from enpu_fence_alloc(), or NULL.
 */
void enpu_fence_free_uninit(struct dma_fence *fence)
{
	if (fence)
		kmem_cache_free(enpu_fence_cache, to_enpu_fence(fence));
}

/**
 * enpu_fence_init() - give a fence the next seqno of a timeline
 * @fence: from enpu_fence_alloc().
 * @timeline: the context's timeline; the caller holds the lock that
 *	orders the context's jobs, which also protects @timeline->seqno.
 *
 * The fence holds a reference to the module from here until it is freed.
 * The caller must hold the module already (an ioctl of an open file).
 */
void enpu_fence_init(struct dma_fence *fence, struct enpu_timeline *timeline)
{
	struct enpu_fence *efence = to_enpu_fence(fence);

	__module_get(THIS_MODULE);
	kref_get(&timeline->ref);
	efence->timeline = timeline;
	dma_fence_init(fence, &enpu_fence_ops, &timeline->lock,
		       timeline->context, ++timeline->seqno);
}

/**
 * enpu_fence_cache_init() - create the fences' slab cache, at module load
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_fence_cache_init(void)
{
	enpu_fence_cache = KMEM_CACHE(enpu_fence, SLAB_ACCOUNT);
	return enpu_fence_cache ? 0 : -ENOMEM;
}

/**
 * enpu_fence_exit() - wait for every fence free, at module unload
 *
 * Called last in module exit: no fence is live or pending by then (each
 * holds the module until its batch's RCU callback), but the work item may
 * still be returning from the call_rcu() of the last batch and that
 * callback may still be running its last instructions after its
 * module_put(). Also waits for every other RCU callback of the module
 * (the timelines' kfree_rcu()), then destroys the cache.
 */
void enpu_fence_exit(void)
{
	flush_delayed_work(&enpu_fence_free_work);
	rcu_barrier();
	kmem_cache_destroy(enpu_fence_cache);
}
