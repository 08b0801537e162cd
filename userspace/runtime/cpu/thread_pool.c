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
 * The caller's CPU is published before the job (the mutex orders it), so
 * a worker woken on that CPU moves off it before joining
 * (enpu_thread_pool_leave_cpu()).
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
 *
 * Workers are only asked when they pay. On a machine whose other core is
 * busy with someone else's process, a worker is preempted for a whole
 * time slice every few milliseconds, and when that happens inside one of
 * its tasks the caller waits for the slice to end: measured at load 2-4
 * (another process at 100 % of the second core), the caller of a 2-thread
 * MobileNetV2-shaped run waited in 15-18 % of the regions, 2.7-3.5 ms per
 * 12 ms run, and 2 threads ran no faster or slower than 1. So the caller
 * weighs each region: the time the worker's tasks saved it (its own time
 * per task times the worker's task count) against the time it then
 * waited. A running credit, capped at CREDIT_CAP_NS so that a long good
 * stretch cannot hide a change of load, going negative makes the next
 * solo_backoff regions run on the caller alone (no handoff at all), then
 * the workers are asked again; the backoff doubles while asking keeps
 * costing (up to SOLO_MAX regions) and falls back to SOLO_MIN after a
 * region that paid. Counted in regions, not time, so a caller that is
 * itself preempted does not shorten it.
 *
 * A sleeping worker is woken off the caller's CPU (wake_sleepers()), and
 * a region of less estimated work than ENPU_THREAD_POOL_SPLIT_NS is not
 * offered at all (the grain rule, thread_pool.h); docs/runtime.md has
 * the traces behind both.
 */
#include "thread_pool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#else
static inline void cpu_relax(void) { }
#endif

#define SPIN_ITERATIONS 20000
#define CREDIT_CAP_NS 1000000
#define SOLO_MIN ENPU_THREAD_POOL_SOLO_MIN
#define SOLO_MAX 1024

/*
 * A worker's sleep, guarded by the pool's lock: the mask it had when it
 * went to sleep, and whether the caller narrowed it to wake it elsewhere.
 */
struct worker_sleep {
	pthread_t thread;
	cpu_set_t mask;
	bool asleep, narrowed, mask_known;
};

/* One thread's share of a job; on its own cache line, as it is contended. */
struct task_range {
	_Alignas(64) atomic_size_t next;
	size_t end;
};

struct enpu_thread_pool {
	unsigned int thread_count;
	pthread_t *threads;
	struct worker_sleep *sleeps;    /* thread_count - 1 of them */
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
	/* CPUs the caller and the last joining worker ran on (-1: unknown). */
	atomic_int caller_cpu, worker_cpu;
	/* The caller's own bookkeeping (parallel_for is not reentrant). */
	int64_t credit_ns;
	uint64_t split_ns;              /* the grain rule's threshold */
	unsigned int solo_left, solo_backoff;
	struct enpu_thread_pool_stats stats;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Own share first, then the others' in turn; each index runs once.
 * Returns how many this thread ran.
 */
static size_t run_tasks(struct enpu_thread_pool *pool, unsigned int self)
{
	size_t ran = 0;

	for (unsigned int i = 0; i < pool->thread_count; i++) {
		struct task_range *range =
			&pool->ranges[(self + i) % pool->thread_count];

		for (;;) {
			size_t task = atomic_fetch_add(&range->next, 1);

			if (task >= range->end)
				break;
			pool->function(pool->argument, task);
			ran++;
		}
	}
	return ran;
}

/*
 * When the scheduler has put a worker on the caller's CPU (the other core
 * busy with another process), a spinning worker takes half of the
 * caller's time for nothing: it sleeps instead, and the caller, waiting
 * for a worker on its own CPU, yields to it rather than spin. Seen on a
 * 2-thread int8 transformer at load 4-6: ~160 short regions per run, few
 * waits, and the 2-thread run twice as slow as the 1-thread one.
 */
static bool on_callers_cpu(struct enpu_thread_pool *pool)
{
	int cpu = atomic_load_explicit(&pool->caller_cpu, memory_order_relaxed);

	return cpu >= 0 && sched_getcpu() == cpu;
}

/*
 * A worker that wakes on the caller's CPU moves itself to another CPU it
 * may use and at once gives itself back the mask it had: the move is
 * immediate (the kernel migrates a thread whose mask excludes its CPU
 * before the call returns), and the restored mask leaves the scheduler
 * free to place it later. The scheduler wakes a worker from a condition
 * variable on the caller's CPU even with the other CPU idle (this VM's
 * kernel: 14 to 40 of a MobileNetV2 run's 58 regions after the bench's
 * 20 ms gap, per-region trace, load 0.6), and there it ran only while it
 * preempted the caller: 2 threads at 0.95x of 1. Not pinned: a worker
 * pinned away from a CPU that another process holds waited for the
 * other CPU up to 3.9 s at load 5 (docs/runtime.md). Errors leave the
 * worker where it was; a failed restore leaves it on the other CPUs, of
 * which there is at least one, and is as rare as a failed getaffinity.
 */
void enpu_thread_pool_leave_cpu(int cpu)
{
	cpu_set_t allowed, elsewhere;

	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	elsewhere = allowed;
	CPU_CLR(cpu, &elsewhere);
	if (!CPU_COUNT(&elsewhere) ||
	    sched_setaffinity(0, sizeof(elsewhere), &elsewhere))
		return;
	(void)sched_setaffinity(0, sizeof(allowed), &allowed);
}

/*
 * Sleeps on the condition variable until a job newer than seen (or
 * stopping) and returns its generation. The mask the worker had is kept
 * with the sleep, so that the caller can narrow it (wake_sleepers()) and
 * the worker, once awake, gives it back.
 */
static unsigned long sleep_until_job(struct enpu_thread_pool *pool,
				     struct worker_sleep *sleep,
				     unsigned long seen)
{
	cpu_set_t mask;
	bool known = !sched_getaffinity(0, sizeof(mask), &mask), narrowed;
	unsigned long now;

	pthread_mutex_lock(&pool->lock);
	sleep->thread = pthread_self();
	sleep->mask = mask;
	sleep->mask_known = known;
	sleep->asleep = true;
	while ((now = atomic_load(&pool->generation)) == seen &&
	       !atomic_load(&pool->stopping))
		pthread_cond_wait(&pool->wake, &pool->lock);
	sleep->asleep = false;
	narrowed = sleep->narrowed;
	sleep->narrowed = false;
	pthread_mutex_unlock(&pool->lock);
	if (narrowed)
		(void)sched_setaffinity(0, sizeof(mask), &mask);
	return now;
}

bool enpu_thread_pool_wake_mask(const cpu_set_t *mask, int caller_cpu,
				cpu_set_t *elsewhere)
{
	if (caller_cpu < 0 || caller_cpu >= CPU_SETSIZE ||
	    !CPU_ISSET(caller_cpu, mask))
		return false;
	*elsewhere = *mask;
	CPU_CLR(caller_cpu, elsewhere);
	return CPU_COUNT(elsewhere) > 0;
}

/*
 * Called by the caller with the lock held, before it announces a job:
 * every sleeping worker whose mask has the caller's CPU and another one
 * gets the mask without the caller's CPU, so the wakeup puts it on
 * another CPU (it gives its mask back as soon as it runs). Left alone,
 * this VM's kernel woke the worker on the caller's CPU in most runs,
 * where it waited behind the caller for 1 to 3.4 ms, about a whole
 * run of the int8 transformer (docs/runtime.md). The lock keeps the
 * worker from waking and restoring its mask in between.
 */
static void wake_sleepers(struct enpu_thread_pool *pool, int caller_cpu)
{
	for (unsigned int i = 0; i + 1 < pool->thread_count; i++) {
		struct worker_sleep *sleep = &pool->sleeps[i];
		cpu_set_t elsewhere;

		if (!sleep->asleep || sleep->narrowed || !sleep->mask_known ||
		    !enpu_thread_pool_wake_mask(&sleep->mask, caller_cpu,
						&elsewhere))
			continue;
		if (!pthread_setaffinity_np(sleep->thread, sizeof(elsewhere),
					    &elsewhere)) {
			sleep->narrowed = true;
			pool->stats.narrowed++;
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
			if (!(i & 255) && on_callers_cpu(pool))
				break;
			cpu_relax();
			now = atomic_load(&pool->generation);
		}
		if (now == seen)
			now = sleep_until_job(pool, &pool->sleeps[self - 1],
					      seen);
		if (atomic_load(&pool->stopping))
			return NULL;
		seen = now;
		/* Before joining: the caller must not wait for the move. */
		if (on_callers_cpu(pool))
			enpu_thread_pool_leave_cpu(sched_getcpu());
		atomic_fetch_add(&pool->active_workers, 1);
		if (atomic_load(&pool->open_generation) == now) {
			atomic_store_explicit(&pool->worker_cpu, sched_getcpu(),
					      memory_order_relaxed);
			run_tasks(pool, self);
		}
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
	pool->solo_backoff = SOLO_MIN;
	pool->split_ns = ENPU_THREAD_POOL_SPLIT_NS;
	atomic_init(&pool->caller_cpu, -1);
	atomic_init(&pool->worker_cpu, -1);
	pool->ranges = aligned_alloc(_Alignof(struct task_range),
				     thread_count * sizeof(*pool->ranges));
	if (!pool->ranges) {
		enpu_thread_pool_destroy(pool);
		return -ENOMEM;
	}
	pool->sleeps = calloc(thread_count, sizeof(*pool->sleeps));
	pool->threads = calloc(thread_count, sizeof(*pool->threads));
	if (!pool->threads || !pool->sleeps) {
		pool->thread_count = 1;         /* no thread to join */
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
	free(pool->sleeps);
	free(pool->ranges);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

unsigned int enpu_thread_pool_thread_count(const struct enpu_thread_pool *pool)
{
	return pool->thread_count;
}

uint64_t enpu_thread_pool_work_ns(uint64_t bytes, uint64_t flops)
{
	return bytes / ENPU_THREAD_POOL_BYTES_PER_NS +
	       flops / ENPU_THREAD_POOL_FLOPS_PER_NS;
}

bool enpu_thread_pool_splits(const struct enpu_thread_pool *pool,
			     size_t task_count, uint64_t work_ns)
{
	return pool->thread_count > 1 && task_count > 1 &&
	       work_ns >= pool->split_ns;
}

void enpu_thread_pool_set_split_ns(struct enpu_thread_pool *pool,
				   uint64_t split_ns)
{
	pool->split_ns = split_ns;
}

void enpu_thread_pool_stats(const struct enpu_thread_pool *pool,
			    struct enpu_thread_pool_stats *stats)
{
	*stats = pool->stats;
}

void enpu_thread_pool_parallel_for(struct enpu_thread_pool *pool,
				   size_t task_count,
				   enpu_task_function function, void *argument)
{
	enpu_thread_pool_parallel_for_work(pool, task_count,
					   ENPU_THREAD_POOL_WORK_UNKNOWN,
					   function, argument);
}

void enpu_thread_pool_parallel_for_work(struct enpu_thread_pool *pool,
					size_t task_count, uint64_t work_ns,
					enpu_task_function function,
					void *argument)
{
	unsigned int workers = pool->thread_count - 1;
	unsigned long next;
	size_t own, theirs;
	int64_t start, own_done, saved, waited;
	int caller_cpu;

	if (workers)
		pool->stats.regions++;
	if (!enpu_thread_pool_splits(pool, task_count, work_ns) ||
	    pool->solo_left) {
		if (workers && task_count > 1) {
			if (work_ns < pool->split_ns) {
				pool->stats.small++;
			} else {
				pool->solo_left--;
				pool->stats.backoff++;
			}
		}
		for (size_t i = 0; i < task_count; i++)
			function(argument, i);
		return;
	}
	pool->stats.shared++;
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
	caller_cpu = sched_getcpu();
	atomic_store_explicit(&pool->caller_cpu, caller_cpu,
			      memory_order_relaxed);
	pthread_mutex_lock(&pool->lock);
	wake_sleepers(pool, caller_cpu);
	next = atomic_load(&pool->generation) + 1;
	atomic_store(&pool->open_generation, next);
	atomic_store(&pool->generation, next);
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	start = now_ns();
	own = run_tasks(pool, 0);
	own_done = now_ns();
	atomic_store(&pool->open_generation, 0);
	for (int i = 0; atomic_load(&pool->active_workers) != 0; i++) {
		if (i < SPIN_ITERATIONS &&
		    atomic_load_explicit(&pool->worker_cpu,
					 memory_order_relaxed) != caller_cpu)
			cpu_relax();
		else
			sched_yield();
	}
	theirs = task_count - own;
	if (!theirs)
		return;
	waited = now_ns() - own_done;
	saved = (own_done - start) * (int64_t)theirs / (int64_t)(own ? own : 1);
	pool->credit_ns += saved - waited;
	if (pool->credit_ns > CREDIT_CAP_NS)
		pool->credit_ns = CREDIT_CAP_NS;
	if (pool->credit_ns < 0) {
		pool->solo_left = pool->solo_backoff;
		if (pool->solo_backoff < SOLO_MAX)
			pool->solo_backoff *= 2;
		pool->credit_ns = 0;
	} else if (saved > waited) {
		pool->solo_backoff = SOLO_MIN;
	}
}
