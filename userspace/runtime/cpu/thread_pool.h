/* SPDX-License-Identifier: MIT */
/*
 * A small fork-join pool: parallel_for() hands out task indices from an
 * atomic counter to the workers and the calling thread, and returns when all
 * are done. Owned by a context; there is no process-wide pool.
 */
#ifndef ENPU_THREAD_POOL_H
#define ENPU_THREAD_POOL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enpu_thread_pool;

typedef void (*enpu_task_function)(void *argument, size_t task);

/*
 * Regions a pool runs on the caller alone after a region whose worker
 * cost more waiting than it saved (the first time; doubled while asking
 * keeps costing). See thread_pool.c.
 */
#define ENPU_THREAD_POOL_SOLO_MIN 16

/* thread_count counts the caller; 1 creates no threads. */
int enpu_thread_pool_create(unsigned int thread_count,
			    struct enpu_thread_pool **pool);
void enpu_thread_pool_destroy(struct enpu_thread_pool *pool);
unsigned int enpu_thread_pool_thread_count(const struct enpu_thread_pool *pool);
/* Runs function(argument, i) for i in [0, task_count). Not reentrant. */
void enpu_thread_pool_parallel_for(struct enpu_thread_pool *pool,
				   size_t task_count,
				   enpu_task_function function,
				   void *argument);

/*
 * The grain rule (docs/runtime.md, "How big a region must be to split").
 * A region whose whole work, estimated on one thread, is under
 * ENPU_THREAD_POOL_SPLIT_NS runs on the caller alone: no worker is asked,
 * and the tasks run in order on the caller. Handing such a region to
 * two cores saved less than it cost: the handoff, and the next op
 * reading half of its input from the other core's cache (transformer
 * int8 at 2 threads: 32K-element DequantizeLinear 2.1 -> 7.3 us, the
 * serial Transpose after a split MatMul 15 -> 30 us). Work is estimated
 * from the bytes a region reads and writes and its float operations by
 * enpu_thread_pool_work_ns(), one rule for every op; an op passes what
 * it moves and computes, never a thread count. parallel_for() without a
 * work estimate (ENPU_THREAD_POOL_WORK_UNKNOWN) always offers the work.
 * The split changes only who runs a task, never what it computes, so
 * results are the same bits either way.
 */
#define ENPU_THREAD_POOL_SPLIT_NS 20000
#define ENPU_THREAD_POOL_BYTES_PER_NS 64
#define ENPU_THREAD_POOL_FLOPS_PER_NS 256
#define ENPU_THREAD_POOL_WORK_UNKNOWN UINT64_MAX
uint64_t enpu_thread_pool_work_ns(uint64_t bytes, uint64_t flops);
/*
 * The threshold of one pool (ENPU_THREAD_POOL_SPLIT_NS when created); 0
 * offers every region of two or more tasks, as tests of the threaded
 * paths want.
 */
void enpu_thread_pool_set_split_ns(struct enpu_thread_pool *pool,
				   uint64_t split_ns);
/* Whether a region of task_count tasks and work_ns is offered to workers. */
bool enpu_thread_pool_splits(const struct enpu_thread_pool *pool,
			     size_t task_count, uint64_t work_ns);
void enpu_thread_pool_parallel_for_work(struct enpu_thread_pool *pool,
					size_t task_count, uint64_t work_ns,
					enpu_task_function function,
					void *argument);

/*
 * Counts of the caller's regions on a pool with workers: all of them,
 * those run alone by the grain rule (small) or by the credit's backoff,
 * those offered to the workers (shared), and the wakeups of a sleeping
 * worker narrowed off the caller's CPU.
 */
struct enpu_thread_pool_stats {
	unsigned long regions, small, backoff, shared, narrowed;
};
void enpu_thread_pool_stats(const struct enpu_thread_pool *pool,
			    struct enpu_thread_pool_stats *stats);

/*
 * The mask a sleeping worker is woken with: its own mask without the
 * caller's CPU. False (leave the mask alone) when the caller's CPU is
 * not in it or is the only CPU in it.
 */
bool enpu_thread_pool_wake_mask(const cpu_set_t *mask, int caller_cpu,
				cpu_set_t *elsewhere);

/*
 * Moves the calling thread off cpu to another CPU of its mask and
 * restores the mask (no pinning); nothing if its mask has no other CPU.
 * A worker does this when it takes a job on the caller's CPU; declared
 * here for the unit test.
 */
void enpu_thread_pool_leave_cpu(int cpu);

#endif /* ENPU_THREAD_POOL_H */
