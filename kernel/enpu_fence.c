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
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "enpu_fence.h"

/**
 * struct enpu_fence - a job fence
 * @base: the fence.
 * @timeline: holds a reference until the fence is released.
 */
struct enpu_fence {
	struct dma_fence base;
	struct enpu_timeline *timeline;
};

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

/* RCU callback: frees the fence, then lets the module go. */
static void enpu_fence_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *fence = container_of(rcu, struct dma_fence, rcu);

	kfree(to_enpu_fence(fence));
	/* Last: module exit's rcu_barrier() waits for this to return. */
	module_put(THIS_MODULE);
}

static void enpu_fence_release(struct dma_fence *fence)
{
	struct enpu_fence *efence = to_enpu_fence(fence);

	if (efence->timeline)
		enpu_timeline_put(efence->timeline);
	call_rcu(&fence->rcu, enpu_fence_free_rcu);
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
 * fence must be freed with kfree(), not dma_fence_put().
 *
 * Return: the fence, or NULL without memory.
 */
struct dma_fence *enpu_fence_alloc(void)
{
	struct enpu_fence *efence = kzalloc(sizeof(*efence), GFP_KERNEL_ACCOUNT);

	return efence ? &efence->base : NULL;
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
