// SPDX-License-Identifier: MIT
/*
 * Fork-join thread pool. Workers spin briefly after a job (small GEMMs come
 * back to back and a condition-variable wakeup costs tens of microseconds),
 * then sleep on the condition variable.
 *
 * A job is open for joining only until the caller has run out of tasks:
 * the caller then waits for the workers that joined, not for all of them.
 * Waiting for every worker to check in made each parallel region as slow
 * as the slowest-to-be-scheduled thread, which on a loaded machine is a
 * whole scheduler tick (tens of milliseconds for a ~60-region network).
 * Joining is a Dekker handshake on seq_cst atomics: the worker increments
 * active_workers then reads open_generation; the caller clears
 * open_generation then reads active_workers, so one of them sees the other.
 *
 * Tasks are not dealt from one counter: thread i first takes, in order, the
 * i-th contiguous share of the task indices, then helps the others with
 * theirs. Kernels number tasks in the order of the output rows, so the same
 * core produces a region of a tensor and then reads the same region in the
 * next layer. With one shared counter the rows fell to the cores at random:
 * about half of each layer's input sat in the other core's cache, and a
 * depthwise convolution, which reads its input once and does little with
 * it (stride 2: four input bytes per output byte), spent its second
 * thread's time pulling those lines across (56x56x144 stride 2: 1.0x on two
 * threads).
 */
#include "thread_pool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#else
static inline void cpu_relax(void) { }
#endif

#define SPIN_ITERATIONS 20000

/* One thread's share of a job; on its own cache line, as it is contended. */
struct task_range {
	_Alignas(64) atomic_size_t next;
	size_t end;
};

struct enpu_thread_pool {
	unsigned int thread_count;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* Incremented (under lock) for each job; workers watch it. */
	atomic_ulong generation;
	atomic_bool stopping;
	/* The current job. */
	enpu_task_function function;
	void *argument;
	struct task_range *ranges;      /* thread_count of them */
	atomic_uint next_worker_index;
	/* The generation workers may still join, 0 once the caller is done. */
	atomic_ulong open_generation;
	atomic_uint active_workers;
};

/* Own share first, then the others' in turn; each index runs once. */
static void run_tasks(struct enpu_thread_pool *pool, unsigned int self)
{
	for (unsigned int i = 0; i < pool->thread_count; i++) {
		struct task_range *range =
			&pool->ranges[(self + i) % pool->thread_count];

		for (;;) {
			size_t task = atomic_fetch_add(&range->next, 1);

			if (task >= range->end)
				break;
			pool->function(pool->argument, task);
		}
	}
}

static void *worker_main(void *data)
{
	struct enpu_thread_pool *pool = data;
	unsigned int self = atomic_fetch_add(&pool->next_worker_index, 1);
	unsigned long seen = 0;

	for (;;) {
		unsigned long now = atomic_load(&pool->generation);

		for (int i = 0; now == seen && i < SPIN_ITERATIONS; i++) {
			cpu_relax();
			now = atomic_load(&pool->generation);
		}
		if (now == seen) {
			pthread_mutex_lock(&pool->lock);
			while ((now = atomic_load(&pool->generation)) == seen &&
			       !atomic_load(&pool->stopping))
				pthread_cond_wait(&pool->wake, &pool->lock);
			pthread_mutex_unlock(&pool->lock);
		}
		if (atomic_load(&pool->stopping))
			return NULL;
		seen = now;
		atomic_fetch_add(&pool->active_workers, 1);
		if (atomic_load(&pool->open_generation) == now)
			run_tasks(pool, self);
		atomic_fetch_sub(&pool->active_workers, 1);
	}
}

int enpu_thread_pool_create(unsigned int thread_count,
			    struct enpu_thread_pool **out)
{
	struct enpu_thread_pool *pool;
	unsigned int started;
	int err;

	if (thread_count == 0 || thread_count > 1024 || !out)
		return -EINVAL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->thread_count = thread_count;
	if (pthread_mutex_init(&pool->lock, NULL)) {
		free(pool);
		return -ENOMEM;
	}
	if (pthread_cond_init(&pool->wake, NULL)) {
		pthread_mutex_destroy(&pool->lock);
		free(pool);
		return -ENOMEM;
	}
	atomic_init(&pool->next_worker_index, 1);
	pool->ranges = aligned_alloc(_Alignof(struct task_range),
				     thread_count * sizeof(*pool->ranges));
	if (!pool->ranges) {
		enpu_thread_pool_destroy(pool);
		return -ENOMEM;
	}
	pool->threads = calloc(thread_count, sizeof(*pool->threads));
	if (!pool->threads) {
		enpu_thread_pool_destroy(pool);
		return -ENOMEM;
	}
	for (started = 0; started + 1 < thread_count; started++) {
		err = pthread_create(&pool->threads[started], NULL, worker_main,
				     pool);
		if (err) {
			pool->thread_count = started + 1;
			enpu_thread_pool_destroy(pool);
			return -err;
		}
	}
	*out = pool;
	return 0;
}

void enpu_thread_pool_destroy(struct enpu_thread_pool *pool)
{
	if (!pool)
		return;
	if (pool->threads) {
		pthread_mutex_lock(&pool->lock);
		atomic_store(&pool->stopping, true);
		atomic_fetch_add(&pool->generation, 1);
		pthread_cond_broadcast(&pool->wake);
		pthread_mutex_unlock(&pool->lock);
		for (unsigned int i = 0; i + 1 < pool->thread_count; i++)
			pthread_join(pool->threads[i], NULL);
		free(pool->threads);
	}
	free(pool->ranges);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

unsigned int enpu_thread_pool_thread_count(const struct enpu_thread_pool *pool)
{
	return pool->thread_count;
}

void enpu_thread_pool_parallel_for(struct enpu_thread_pool *pool,
				   size_t task_count,
				   enpu_task_function function, void *argument)
{
	unsigned int workers = pool->thread_count - 1;
	unsigned long next;

	if (workers == 0 || task_count <= 1) {
		for (size_t i = 0; i < task_count; i++)
			function(argument, i);
		return;
	}
	pool->function = function;
	pool->argument = argument;
	for (unsigned int i = 0; i <= workers; i++) {
		atomic_store(&pool->ranges[i].next,
			     task_count * i / (workers + 1));
		pool->ranges[i].end = task_count * (i + 1) / (workers + 1);
	}
	/*
	 * Open the job before announcing it: a worker still spinning reads
	 * generation without the lock, and one that saw the new generation
	 * before open_generation was written would skip the job as closed
	 * (and leave the caller to run every task alone).
	 */
	pthread_mutex_lock(&pool->lock);
	next = atomic_load(&pool->generation) + 1;
	atomic_store(&pool->open_generation, next);
	atomic_store(&pool->generation, next);
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	run_tasks(pool, 0);
	atomic_store(&pool->open_generation, 0);
	for (int i = 0; atomic_load(&pool->active_workers) != 0; i++) {
		if (i < SPIN_ITERATIONS)
			cpu_relax();
		else
			sched_yield();
	}
}
