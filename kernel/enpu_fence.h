/* SPDX-License-Identifier: GPL-2.0 */
/* Job fences: one dma_fence context (timeline) per context. */
#ifndef ENPU_FENCE_H
#define ENPU_FENCE_H

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct enpu_sched_ctx;

/*
 * Released fences are freed in batches (enpu_fence.c): at most this long
 * after the first of a batch is released, and at once when this many are
 * waiting, so at most ENPU_FENCE_FREE_BATCH_MAX released fences wait
 * for their batch (not counting batches waiting for their grace period).
 */
#define ENPU_FENCE_FREE_DELAY_MS	100
#define ENPU_FENCE_FREE_BATCH_MAX	128

/**
 * struct enpu_timeline - the fence context of one context's jobs
 * @ref: held by the device and by every fence of the timeline, so that a
 *	fence kept by another driver or a syncobj never points at freed
 *	memory for its lock or name after the device is gone.
 * @lock: the dma_fence lock of every fence of the timeline.
 * @context: from dma_fence_context_alloc().
 * @seqno: last seqno handed out; protected by the scheduler's lock,
 *	which also orders the jobs (fences of a context signal in order).
 * @owner: the scheduling context whose jobs it orders, while that
 *	context exists; set and cleared under the scheduler's lock (priority
 *	inheritance finds a fence's context through it).
 * @rcu: frees the timeline after concurrent RCU fence readers.
 * @name: "enpu-ctx<N>", reported as the timeline name.
 */
struct enpu_timeline {
	struct kref ref;
	spinlock_t lock;	/* dma_fence lock of this timeline */
	u64 context;
	u64 seqno;
	struct enpu_sched_ctx *owner;
	struct rcu_head rcu;
	char name[24];
};

struct enpu_timeline *enpu_timeline_create(const char *name);
struct enpu_timeline *enpu_fence_timeline(struct dma_fence *fence);
void enpu_timeline_put(struct enpu_timeline *timeline);
int enpu_fence_cache_init(void);
void enpu_fence_exit(void);
struct dma_fence *enpu_fence_alloc(void);
void enpu_fence_free_uninit(struct dma_fence *fence);
void enpu_fence_init(struct dma_fence *fence, struct enpu_timeline *timeline);

#endif /* ENPU_FENCE_H */
