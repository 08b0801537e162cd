/* SPDX-License-Identifier: MIT */
/*
 * A small fork-join pool: parallel_for() hands out task indices from an
 * atomic counter to the workers and the calling thread, and returns when all
 * are done. Owned by a context; there is no process-wide pool.
 */
#ifndef ENPU_THREAD_POOL_H
#define ENPU_THREAD_POOL_H

#include <stddef.h>

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
 * Moves the calling thread off cpu to another CPU of its mask and
 * restores the mask (no pinning); nothing if its mask has no other CPU.
 * A worker does this when it takes a job on the caller's CPU; declared
 * here for the unit test.
 */
void enpu_thread_pool_leave_cpu(int cpu);

#endif /* ENPU_THREAD_POOL_H */
