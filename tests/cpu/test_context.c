// SPDX-License-Identifier: MIT
/* Context, instruction-set selection and thread pool behaviour. */
#include "test_cpu.h"
#include "cpu_internal.h"
#include "thread_pool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void test_isa_names_round_trip(struct test_state *s)
{
	enum enpu_cpu_isa isa;

	for (int i = 0; i < ENPU_CPU_ISA_COUNT; i++) {
		CHECK(s, enpu_cpu_isa_from_name(enpu_cpu_isa_name(i), &isa) == 0 &&
		      isa == (enum enpu_cpu_isa)i, "isa %d", i);
	}
	CHECK(s, enpu_cpu_isa_from_name("sse9", &isa) == -EINVAL,
	      "unknown name accepted");
}

static void test_environment_forces_the_isa(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	char *saved = getenv("ENPU_CPU_ISA") ? strdup(getenv("ENPU_CPU_ISA")) : NULL;

	setenv("ENPU_CPU_ISA", "scalar", 1);
	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "create");
	if (ctx)
		CHECK(s, enpu_cpu_context_isa(ctx) == ENPU_CPU_ISA_SCALAR,
		      "isa %s", enpu_cpu_isa_name(enpu_cpu_context_isa(ctx)));
	enpu_cpu_context_destroy(ctx);
	ctx = NULL;
	setenv("ENPU_CPU_ISA", "no-such-isa", 1);
	CHECK(s, enpu_cpu_context_create(1, &ctx) == -EINVAL && !ctx,
	      "bad ENPU_CPU_ISA accepted");
	enpu_cpu_context_destroy(ctx);
	if (saved)
		setenv("ENPU_CPU_ISA", saved, 1);
	else
		unsetenv("ENPU_CPU_ISA");
	free(saved);
}

static void test_auto_picks_a_supported_isa(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	char *saved = getenv("ENPU_CPU_ISA") ? strdup(getenv("ENPU_CPU_ISA")) : NULL;

	unsetenv("ENPU_CPU_ISA");
	CHECK(s, enpu_cpu_context_create(2, &ctx) == 0, "create");
	if (ctx) {
		enum enpu_cpu_isa isa = enpu_cpu_context_isa(ctx);

		CHECK(s, isa != ENPU_CPU_ISA_AUTO && enpu_cpu_isa_supported(isa),
		      "isa %d", isa);
		/* The best one: nothing above it is supported. */
		for (int i = isa + 1; i < ENPU_CPU_ISA_COUNT; i++)
			CHECK(s, !enpu_cpu_isa_supported(i),
			      "auto chose %s but %s is supported",
			      enpu_cpu_isa_name(isa), enpu_cpu_isa_name(i));
		printf("  auto isa: %s\n", enpu_cpu_isa_name(isa));
		CHECK(s, enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)42) ==
		      -EINVAL, "isa 42 accepted");
	}
	enpu_cpu_context_destroy(ctx);
	if (saved)
		setenv("ENPU_CPU_ISA", saved, 1);
	free(saved);
}

/*
 * The arm64 runner (tests/cpu-arm64) runs this binary under qemu CPU models
 * with known features and names the level auto must pick for each in
 * ENPU_CPU_TEST_EXPECT_ISA; natively the variable is unset and only the
 * environment override of every supported level is checked.
 */
static void test_auto_matches_the_expected_isa(struct test_state *s)
{
	const char *expected = getenv("ENPU_CPU_TEST_EXPECT_ISA");
	char *saved = getenv("ENPU_CPU_ISA") ? strdup(getenv("ENPU_CPU_ISA")) : NULL;
	enpu_cpu_context *ctx = NULL;

	unsetenv("ENPU_CPU_ISA");
	if (expected) {
		CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "create");
		if (ctx)
			CHECK(s, !strcmp(enpu_cpu_isa_name(enpu_cpu_context_isa(ctx)),
					 expected),
			      "auto chose %s, this CPU model should give %s",
			      enpu_cpu_isa_name(enpu_cpu_context_isa(ctx)),
			      expected);
		enpu_cpu_context_destroy(ctx);
		ctx = NULL;
	}
	for (int i = ENPU_CPU_ISA_SCALAR; i < ENPU_CPU_ISA_COUNT; i++) {
		int supported = enpu_cpu_isa_supported((enum enpu_cpu_isa)i);
		int err;

		/* Documented as 1 or 0, not any truth value. */
		CHECK(s, supported == 0 || supported == 1, "%s supported: %d",
		      enpu_cpu_isa_name((enum enpu_cpu_isa)i), supported);

		setenv("ENPU_CPU_ISA", enpu_cpu_isa_name((enum enpu_cpu_isa)i), 1);
		err = enpu_cpu_context_create(1, &ctx);
		CHECK(s, supported ? err == 0 && ctx &&
			  enpu_cpu_context_isa(ctx) == (enum enpu_cpu_isa)i :
			  err == -ENOTSUP && !ctx,
		      "ENPU_CPU_ISA=%s (supported %d): err %d",
		      enpu_cpu_isa_name((enum enpu_cpu_isa)i), supported, err);
		enpu_cpu_context_destroy(ctx);
		ctx = NULL;
	}
	if (saved)
		setenv("ENPU_CPU_ISA", saved, 1);
	else
		unsetenv("ENPU_CPU_ISA");
	free(saved);
}

/* Kernels of the other architecture are not even built: never supported. */
static void test_foreign_isas_are_refused(struct test_state *s)
{
	static const enum enpu_cpu_isa x86[] = {
		ENPU_CPU_ISA_AVX2, ENPU_CPU_ISA_AVX512_VNNI,
	};
	static const enum enpu_cpu_isa arm64[] = {
		ENPU_CPU_ISA_NEON, ENPU_CPU_ISA_NEON_DOTPROD,
		ENPU_CPU_ISA_NEON_I8MM,
	};
	enpu_cpu_context *ctx = NULL;

#if defined(__aarch64__)
	const enum enpu_cpu_isa *foreign = x86;
	size_t count = ARRAY_SIZE(x86);

	(void)arm64;
	/* Advanced SIMD is part of every AArch64 Linux system. */
	CHECK(s, enpu_cpu_isa_supported(ENPU_CPU_ISA_NEON), "neon unsupported");
#else
	const enum enpu_cpu_isa *foreign = arm64;
	size_t count = ARRAY_SIZE(arm64);

	(void)x86;
#endif
	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "create");
	if (!ctx)
		return;
	for (size_t i = 0; i < count; i++) {
		CHECK(s, !enpu_cpu_isa_supported(foreign[i]), "%s supported",
		      enpu_cpu_isa_name(foreign[i]));
		CHECK(s, enpu_cpu_context_set_isa(ctx, foreign[i]) == -ENOTSUP,
		      "%s accepted", enpu_cpu_isa_name(foreign[i]));
	}
	enpu_cpu_context_destroy(ctx);
}

/* Word 0 CPUID.1:ECX, 1 CPUID.7:EBX, 2 CPUID.7:ECX, 3 XCR0. */
static void x86_set_bit(struct enpu_cpu_x86_words *w, int word, int bit,
			int on)
{
	uint64_t *xcr0 = &w->xcr0;
	uint32_t *word32 = word == 0 ? &w->leaf1_ecx :
			   word == 1 ? &w->leaf7_ebx : &w->leaf7_ecx;

	if (word == 3)
		*xcr0 = on ? *xcr0 | 1ull << bit : *xcr0 & ~(1ull << bit);
	else
		*word32 = on ? *word32 | 1u << bit : *word32 & ~(1u << bit);
}

/*
 * The x86 decision on CPUID/XCR0 words fed by hand: this host has every
 * bit, so only here does a missing one show. Bit positions from the
 * Intel SDM (CPUID leaves 1 and 7, XCR0), written down independently of
 * cpu_features.c.
 */
static void test_x86_levels_need_every_bit(struct test_state *s)
{
	static const struct {
		const char *name;
		int word;
		int bit;
		unsigned int left;	/* levels without it */
	} bits[] = {
		{ "OSXSAVE", 0, 27, 0 },
		{ "FMA", 0, 12, 0 },
		{ "AVX2", 1, 5, 0 },
		{ "XCR0.SSE", 3, 1, 0 },
		{ "XCR0.AVX", 3, 2, 0 },
		{ "AVX512F", 1, 16, ENPU_CPU_X86_AVX2 },
		{ "AVX512BW", 1, 30, ENPU_CPU_X86_AVX2 },
		{ "AVX512VL", 1, 31, ENPU_CPU_X86_AVX2 },
		{ "AVX512_VNNI", 2, 11, ENPU_CPU_X86_AVX2 },
		{ "XCR0.opmask", 3, 5, ENPU_CPU_X86_AVX2 },
		{ "XCR0.ZMM_Hi256", 3, 6, ENPU_CPU_X86_AVX2 },
		{ "XCR0.Hi16_ZMM", 3, 7, ENPU_CPU_X86_AVX2 },
	};
	const unsigned int both = ENPU_CPU_X86_AVX2 | ENPU_CPU_X86_AVX512_VNNI;
	struct enpu_cpu_x86_words all = { .max_leaf = 7 }, w;

	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		x86_set_bit(&all, bits[i].word, bits[i].bit, 1);
	/* Exactly the listed bits suffice: nothing else is read. */
	CHECK(s, enpu_cpu_x86_levels(&all) == both, "all bits: levels %#x",
	      enpu_cpu_x86_levels(&all));
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		w = all;
		x86_set_bit(&w, bits[i].word, bits[i].bit, 0);
		CHECK(s, enpu_cpu_x86_levels(&w) == bits[i].left,
		      "without %s: levels %#x, want %#x", bits[i].name,
		      enpu_cpu_x86_levels(&w), bits[i].left);
	}
	/* Leaf 7 exists from max_leaf 7 on: 6 has no AVX2 at all. */
	w = all;
	w.max_leaf = 6;
	CHECK(s, enpu_cpu_x86_levels(&w) == 0, "max leaf 6: levels %#x",
	      enpu_cpu_x86_levels(&w));
	w.max_leaf = 0x20;
	CHECK(s, enpu_cpu_x86_levels(&w) == both, "max leaf 0x20: levels %#x",
	      enpu_cpu_x86_levels(&w));
}

/* VBMI counts only on top of the AVX-512 level (the VBMI byte lookup). */
static void test_x86_vbmi_needs_the_avx512_level(struct test_state *s)
{
	struct enpu_cpu_x86_words w = {
		.max_leaf = 7,
		.leaf1_ecx = (1u << 27) | (1u << 12),
		.leaf7_ebx = (1u << 5) | (1u << 16) | (1u << 30) | (1u << 31),
		.leaf7_ecx = (1u << 11) | (1u << 1),
		.xcr0 = 0xe6,
	};
	unsigned int all = ENPU_CPU_X86_AVX2 | ENPU_CPU_X86_AVX512_VNNI |
			   ENPU_CPU_X86_AVX512_VBMI;

	CHECK(s, enpu_cpu_x86_levels(&w) == all, "with VBMI: levels %#x",
	      enpu_cpu_x86_levels(&w));
	w.leaf7_ecx &= ~(1u << 1);
	CHECK(s, enpu_cpu_x86_levels(&w) == (all & ~ENPU_CPU_X86_AVX512_VBMI),
	      "without VBMI: levels %#x", enpu_cpu_x86_levels(&w));
	w.leaf7_ecx = (1u << 1);
	CHECK(s, enpu_cpu_x86_levels(&w) == ENPU_CPU_X86_AVX2,
	      "VBMI without VNNI: levels %#x", enpu_cpu_x86_levels(&w));
}

/*
 * The CPUID reader, checked against what the kernel says (its flags are
 * cleared for state the OS does not save, like XCR0 here). x86 only: the
 * arm64 runner checks the level per CPU model instead.
 */
static int cpuinfo_has(const char *flags, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

static void test_x86_detection_matches_proc_cpuinfo(struct test_state *s)
{
#if defined(__x86_64__)
	static const char *const avx512[] = {
		"avx512f", "avx512bw", "avx512vl", "avx512_vnni",
	};
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0, avx2, vnni;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			found = 1;
			break;
		}
	if (f)
		fclose(f);
	if (!found) {
		printf("  skipped: no flags line in /proc/cpuinfo\n");
		return;
	}
	avx2 = cpuinfo_has(line, "avx2") && cpuinfo_has(line, "fma");
	vnni = avx2;
	for (size_t i = 0; i < ARRAY_SIZE(avx512); i++)
		vnni = vnni && cpuinfo_has(line, avx512[i]);
	CHECK(s, enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX2) == avx2,
	      "AVX2 %d, /proc/cpuinfo says %d",
	      enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX2), avx2);
	CHECK(s, enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX512_VNNI) == vnni,
	      "AVX-512 VNNI %d, /proc/cpuinfo says %d",
	      enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX512_VNNI), vnni);
#else
	(void)s;
	(void)cpuinfo_has;
#endif
}

static void test_thread_count_is_settable(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;

	CHECK(s, enpu_cpu_context_create(0, &ctx) == -EINVAL && !ctx,
	      "0 threads accepted");
	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "create");
	if (!ctx)
		return;
	CHECK(s, enpu_cpu_context_set_thread_count(ctx, 3) == 0, "set 3");
	CHECK(s, enpu_cpu_context_thread_count(ctx) == 3, "count %u",
	      enpu_cpu_context_thread_count(ctx));
	CHECK(s, enpu_cpu_context_set_thread_count(ctx, 0) == -EINVAL,
	      "set 0 accepted");
	CHECK(s, enpu_cpu_context_thread_count(ctx) == 3,
	      "failed set changed the count");
	enpu_cpu_context_destroy(ctx);
}

struct coverage {
	atomic_int hits[1000];
};

static void count_task(void *argument, size_t task)
{
	struct coverage *c = argument;

	atomic_fetch_add(&c->hits[task], 1);
}

static void test_thread_pool_runs_every_task_once(struct test_state *s)
{
	static const unsigned int counts[] = { 1, 2, 4 };

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		struct enpu_thread_pool *pool = NULL;
		struct coverage *c = calloc(1, sizeof(*c));

		if (!c || enpu_thread_pool_create(counts[i], &pool)) {
			CHECK(s, 0, "setup");
			free(c);
			return;
		}
		for (int round = 0; round < 50; round++)
			enpu_thread_pool_parallel_for(pool, 1 + (size_t)round * 19,
						      count_task, c);
		for (size_t t = 0; t < 1000; t++) {
			int want = 0;

			for (int round = 0; round < 50; round++)
				want += t < 1 + (size_t)round * 19;
			if (atomic_load(&c->hits[t]) != want) {
				CHECK(s, 0, "%u threads: task %zu ran %d times, expected %d",
				      counts[i], t, atomic_load(&c->hits[t]), want);
				break;
			}
		}
		enpu_thread_pool_destroy(pool);
		free(c);
	}
}

/* The context's public parallel-for reaches the same pool, at any count. */
static void test_context_parallel_for_runs_every_task_once(
	struct test_state *s)
{
	static const unsigned int counts[] = { 1, 2, 3 };

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		enpu_cpu_context *ctx = NULL;
		struct coverage *c = calloc(1, sizeof(*c));

		if (!c || enpu_cpu_context_create(counts[i], &ctx)) {
			CHECK(s, 0, "setup");
			free(c);
			return;
		}
		enpu_cpu_parallel_for(ctx, 0, count_task, c);
		for (int round = 0; round < 20; round++)
			enpu_cpu_parallel_for(ctx, 1000 - (size_t)round * 37,
					      count_task, c);
		for (size_t t = 0; t < 1000; t++) {
			int want = 0;

			for (int round = 0; round < 20; round++)
				want += t < 1000 - (size_t)round * 37;
			if (atomic_load(&c->hits[t]) != want) {
				CHECK(s, 0, "%u threads: task %zu ran %d times, expected %d",
				      counts[i], t, atomic_load(&c->hits[t]), want);
				break;
			}
		}
		enpu_cpu_context_destroy(ctx);
		free(c);
	}
}

struct join_probe {
	pthread_t caller;
	atomic_int others;	/* tasks run by another thread */
	atomic_int waited_out;
};

/* Yields until *others is set; gives up (sets *waited_out) after 30 s. */
static void wait_for_a_worker(atomic_int *others, atomic_int *waited_out)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!atomic_load(others)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 30) {
			atomic_store(waited_out, 1);
			return;
		}
		sched_yield();
	}
}

static void join_task(void *argument, size_t task)
{
	struct join_probe *p = argument;

	if (!pthread_equal(pthread_self(), p->caller)) {
		atomic_fetch_add(&p->others, 1);
		return;
	}
	/* The caller's first task: wait for a worker to take one. */
	if (task == 0)
		wait_for_a_worker(&p->others, &p->waited_out);
}

/*
 * A job is open to the workers while the caller is still busy with its
 * own share: with the caller held in its first task, a worker of a
 * 2-thread pool takes the other half (a liveness check: 30 s, far above
 * any scheduling delay, before it counts as never).
 */
static void test_thread_pool_workers_join(struct test_state *s)
{
	struct join_probe p = { .caller = pthread_self() };

	/*
	 * A fresh pool each round: a worker that joined late (preempted, or
	 * slow under qemu-user) may leave a pool's next regions to the caller
	 * alone, which thread_pool_skips_a_costly_worker tests; here rounds 1
	 * and 2 then found nobody to join.
	 */
	for (int round = 0; round < 3; round++) {
		struct enpu_thread_pool *pool = NULL;

		if (enpu_thread_pool_create(2, &pool)) {
			CHECK(s, 0, "setup");
			return;
		}
		atomic_store(&p.others, 0);
		/* Round 0: 2 tasks, the fewest that are shared out. */
		enpu_thread_pool_parallel_for(pool, round ? 16 : 2, join_task,
					      &p);
		CHECK(s, !atomic_load(&p.waited_out) &&
		      atomic_load(&p.others) >= 1,
		      "round %d: no worker joined (%d tasks elsewhere)", round,
		      atomic_load(&p.others));
		enpu_thread_pool_destroy(pool);
	}
}

struct costly_probe {
	pthread_t caller;
	atomic_int others;
	atomic_int waited_out;
	int worker_sleeps;	/* a worker's task sleeps 300 ms */
	int caller_spins;	/* the caller's task 0 spins 2 ms */
};

static void costly_task(void *argument, size_t task)
{
	struct costly_probe *p = argument;
	struct timespec start, now;

	if (!pthread_equal(pthread_self(), p->caller)) {
		struct timespec nap = { 0, 300 * 1000 * 1000 };

		if (atomic_fetch_add(&p->others, 1) == 0 && p->worker_sleeps)
			nanosleep(&nap, NULL);
		return;
	}
	if (task != 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (p->caller_spins) {
			if ((now.tv_sec - start.tv_sec) * 1000000000L +
			    now.tv_nsec - start.tv_nsec > 2000000)
				return;
			continue;
		}
		if (atomic_load(&p->others))
			return;
		if (now.tv_sec - start.tv_sec > 30) {
			atomic_store(&p->waited_out, 1);
			return;
		}
		sched_yield();
	}
}

/*
 * A worker that makes the caller wait longer than its tasks saved (here:
 * it sleeps 300 ms in its one task while the caller's are instant) is
 * not asked for the next ENPU_THREAD_POOL_SOLO_MIN regions: they run on
 * the caller alone even though it holds its first task 2 ms, long enough
 * for a spinning worker to join an open job. The region after them asks
 * the workers again, and one joins.
 */
static void test_thread_pool_skips_a_costly_worker(struct test_state *s)
{
	struct enpu_thread_pool *pool = NULL;
	struct costly_probe p = { .caller = pthread_self(),
				  .worker_sleeps = 1 };

	if (enpu_thread_pool_create(2, &pool)) {
		CHECK(s, 0, "setup");
		return;
	}
	/*
	 * 64 tasks: the caller runs 63, so the saving it credits the worker
	 * (its own time / 63) stays below the 300 ms unless the worker took
	 * over 18 s to join.
	 */
	enpu_thread_pool_parallel_for(pool, 64, costly_task, &p);
	CHECK(s, !atomic_load(&p.waited_out) && atomic_load(&p.others) >= 1,
	      "the costly region: no worker joined");
	p.worker_sleeps = 0;
	p.caller_spins = 1;
	for (int region = 0; region < ENPU_THREAD_POOL_SOLO_MIN; region++) {
		atomic_store(&p.others, 0);
		enpu_thread_pool_parallel_for(pool, 16, costly_task, &p);
		CHECK(s, atomic_load(&p.others) == 0,
		      "region %d after the costly one: %d tasks on a worker",
		      region, atomic_load(&p.others));
	}
	p.caller_spins = 0;
	atomic_store(&p.others, 0);
	enpu_thread_pool_parallel_for(pool, 16, costly_task, &p);
	CHECK(s, !atomic_load(&p.waited_out) && atomic_load(&p.others) >= 1,
	      "after %d solo regions no worker joined again",
	      ENPU_THREAD_POOL_SOLO_MIN);
	enpu_thread_pool_destroy(pool);
}

struct affinity_probe {
	pthread_t caller;
	cpu_set_t allowed;	/* the process's mask, the worker's too */
	atomic_int hits[16];
	atomic_int others;	/* tasks a worker ran */
	atomic_int changed;	/* of those, seen with another mask */
	atomic_int waited_out;
};

static void affinity_task(void *argument, size_t task)
{
	struct affinity_probe *p = argument;

	atomic_fetch_add(&p->hits[task], 1);
	if (!pthread_equal(pthread_self(), p->caller)) {
		cpu_set_t mask;

		if (sched_getaffinity(0, sizeof(mask), &mask) ||
		    !CPU_EQUAL(&mask, &p->allowed))
			atomic_fetch_add(&p->changed, 1);
		atomic_fetch_add(&p->others, 1);
		return;
	}
	/* As in join_task: hold the region open until a worker took one. */
	if (task == 0)
		wait_for_a_worker(&p->others, &p->waited_out);
}

/*
 * A worker woken on the caller's CPU moves to another one for the region
 * and then has its own affinity back: with the caller pinned to one CPU
 * and a 3 ms nap before each region (the worker's spin is over, it sleeps
 * and is woken; this VM's kernel often wakes it on the caller's CPU),
 * every task runs once and every task a worker runs sees the process's
 * whole mask, never the CPUs it was moved to. A fresh pool each round,
 * as in thread_pool_workers_join: a worker preempted inside a task (the
 * asan build at load 5 did that) makes the pool run its next regions on
 * the caller alone, and this caller waits in its first task for a worker.
 */
static void test_thread_pool_worker_keeps_its_affinity(struct test_state *s)
{
	struct affinity_probe *p = calloc(1, sizeof(*p));
	const struct timespec nap = { 0, 3 * 1000 * 1000 };
	cpu_set_t here;
	int cpu = sched_getcpu();
	const int rounds = 20;

	if (!p || cpu < 0 ||
	    sched_getaffinity(0, sizeof(p->allowed), &p->allowed)) {
		CHECK(s, 0, "setup");
		free(p);
		return;
	}
	p->caller = pthread_self();
	CPU_ZERO(&here);
	CPU_SET(cpu, &here);
	for (int round = 0; round < rounds; round++) {
		struct enpu_thread_pool *pool = NULL;

		/* Created unpinned: the worker gets the process's mask. */
		if (enpu_thread_pool_create(2, &pool)) {
			CHECK(s, 0, "round %d: pool", round);
			break;
		}
		CHECK(s, sched_setaffinity(0, sizeof(here), &here) == 0,
		      "pinning the caller to CPU %d", cpu);
		nanosleep(&nap, NULL);
		atomic_store(&p->others, 0);
		enpu_thread_pool_parallel_for(pool, ARRAY_SIZE(p->hits),
					      affinity_task, p);
		CHECK(s, sched_setaffinity(0, sizeof(p->allowed),
					   &p->allowed) == 0,
		      "restoring the caller's mask");
		enpu_thread_pool_destroy(pool);
		if (atomic_load(&p->waited_out) || atomic_load(&p->changed))
			break;
	}
	CHECK(s, !atomic_load(&p->waited_out), "no worker joined in 30 s");
	CHECK(s, atomic_load(&p->changed) == 0,
	      "%d worker tasks ran with a mask other than the process's",
	      atomic_load(&p->changed));
	for (size_t t = 0; t < ARRAY_SIZE(p->hits); t++) {
		if (atomic_load(&p->waited_out) || atomic_load(&p->changed))
			break;
		if (atomic_load(&p->hits[t]) != rounds) {
			CHECK(s, 0, "task %zu ran %d times, expected %d", t,
			      atomic_load(&p->hits[t]), rounds);
			break;
		}
	}
	free(p);
}

/*
 * The move itself, on the test's thread: off the CPU it names (checked
 * at once: the kernel migrates the thread before sched_setaffinity()
 * returns), with the mask as it was; with no other CPU in the mask, no
 * move and no change. Needs two CPUs for the first half.
 */
static void test_thread_pool_leave_cpu(struct test_state *s)
{
	cpu_set_t allowed, now, one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(allowed), &allowed)) {
		CHECK(s, 0, "setup");
		return;
	}
	if (CPU_COUNT(&allowed) >= 2) {
		int moved = 0;

		for (int i = 0; i < 10; i++) {
			int from = sched_getcpu();

			enpu_thread_pool_leave_cpu(from);
			moved += sched_getcpu() != from;
			CHECK(s, !sched_getaffinity(0, sizeof(now), &now) &&
			      CPU_EQUAL(&now, &allowed),
			      "try %d: mask not restored", i);
		}
		/* Half, not all: a preempted thread may be moved back. */
		CHECK(s, moved >= 5, "moved off its CPU in %d of 10 tries",
		      moved);
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		CHECK(s, 0, "pinning to CPU %d", cpu);
		return;
	}
	enpu_thread_pool_leave_cpu(cpu);
	CHECK(s, sched_getcpu() == cpu, "moved off its only CPU %d", cpu);
	CHECK(s, !sched_getaffinity(0, sizeof(now), &now) &&
	      CPU_EQUAL(&now, &one), "a one-CPU mask changed");
	CHECK(s, sched_setaffinity(0, sizeof(allowed), &allowed) == 0,
	      "restoring the mask");
}

struct order_probe {
	pthread_t caller;
	atomic_int next;
	size_t order[32];	/* the task that ran n-th */
	atomic_int others;	/* tasks run off the caller's thread */
	atomic_int waited_out;
	int hold;		/* caller's task 0 waits for a worker */
};

static void order_task(void *argument, size_t task)
{
	struct order_probe *p = argument;

	int n = atomic_fetch_add(&p->next, 1);

	if (n < (int)ARRAY_SIZE(p->order))
		p->order[n] = task;
	if (!pthread_equal(pthread_self(), p->caller)) {
		atomic_fetch_add(&p->others, 1);
		return;
	}
	if (task == 0 && p->hold)
		wait_for_a_worker(&p->others, &p->waited_out);
}

/*
 * The grain rule (thread_pool.h): the estimate is bytes over
 * ENPU_THREAD_POOL_BYTES_PER_NS plus operations over
 * ENPU_THREAD_POOL_FLOPS_PER_NS; a region is offered to the workers from
 * ENPU_THREAD_POOL_SPLIT_NS of it on, with two tasks or more, on a pool
 * with workers. One nanosecond under the threshold a 2-thread pool runs
 * all 16 tasks on the caller, in order, and counts the region small,
 * even with a spinning worker ready (a region just before); at the
 * threshold, with the caller holding its first task until a worker took
 * one, a worker joins and the region counts shared. A pool's threshold
 * is settable (0: every region of two tasks is offered).
 */
static void test_thread_pool_grain_rule(struct test_state *s)
{
	struct enpu_thread_pool *pool = NULL, *solo = NULL;
	struct enpu_thread_pool_stats before, after;
	struct order_probe *p = calloc(1, sizeof(*p));
	const uint64_t at = ENPU_THREAD_POOL_SPLIT_NS;

	CHECK(s, enpu_thread_pool_work_ns(ENPU_THREAD_POOL_BYTES_PER_NS * 1000,
					  0) == 1000 &&
	      enpu_thread_pool_work_ns(0, ENPU_THREAD_POOL_FLOPS_PER_NS *
				       1000) == 1000 &&
	      enpu_thread_pool_work_ns(ENPU_THREAD_POOL_BYTES_PER_NS * 3,
				       ENPU_THREAD_POOL_FLOPS_PER_NS * 4) == 7,
	      "work estimate");
	if (!p || enpu_thread_pool_create(2, &pool) ||
	    enpu_thread_pool_create(1, &solo)) {
		CHECK(s, 0, "setup");
		goto out;
	}
	CHECK(s, !enpu_thread_pool_splits(pool, 2, at - 1), "split under");
	CHECK(s, enpu_thread_pool_splits(pool, 2, at), "not split at");
	CHECK(s, !enpu_thread_pool_splits(pool, 1, UINT64_MAX),
	      "one task split");
	CHECK(s, !enpu_thread_pool_splits(solo, 2, UINT64_MAX),
	      "split on a pool without workers");
	CHECK(s, enpu_thread_pool_splits(pool, 2,
					 ENPU_THREAD_POOL_WORK_UNKNOWN),
	      "unknown work not offered");

	/* Under: all on the caller, in task order. */
	p->caller = pthread_self();
	enpu_thread_pool_parallel_for(pool, 2, order_task, p);
	enpu_thread_pool_stats(pool, &before);
	atomic_store(&p->next, 0);
	atomic_store(&p->others, 0);
	enpu_thread_pool_parallel_for_work(pool, 16, at - 1, order_task, p);
	enpu_thread_pool_stats(pool, &after);
	CHECK(s, atomic_load(&p->others) == 0 && atomic_load(&p->next) == 16,
	      "under the threshold: %d of %d tasks on a worker",
	      atomic_load(&p->others), atomic_load(&p->next));
	for (size_t t = 0; t < 16; t++)
		if (p->order[t] != t) {
			CHECK(s, 0, "under the threshold: task %zu ran %zu-th",
			      p->order[t], t);
			break;
		}
	CHECK(s, after.regions == before.regions + 1 &&
	      after.small == before.small + 1 && after.shared == before.shared,
	      "under: counted %lu/%lu/%lu regions/small/shared after %lu/%lu/%lu",
	      after.regions, after.small, after.shared, before.regions,
	      before.small, before.shared);

	/*
	 * At the threshold: offered, and a worker joins. On a fresh pool:
	 * the regions above may have cost this pool's credit enough (a
	 * worker slow to arrive, as under qemu-user) to put it in its solo
	 * backoff, which would run this region on the caller alone and wait
	 * out the hold.
	 */
	enpu_thread_pool_destroy(pool);
	pool = NULL;
	if (enpu_thread_pool_create(2, &pool)) {
		CHECK(s, 0, "setup");
		goto out;
	}
	enpu_thread_pool_stats(pool, &after);
	p->hold = 1;
	atomic_store(&p->next, 0);
	atomic_store(&p->others, 0);
	enpu_thread_pool_parallel_for_work(pool, 16, at, order_task, p);
	enpu_thread_pool_stats(pool, &before);
	CHECK(s, !atomic_load(&p->waited_out) && atomic_load(&p->others) >= 1,
	      "at the threshold: no worker joined");
	CHECK(s, before.shared == after.shared + 1 &&
	      before.small == after.small, "at: not counted shared");

	/* Threshold 0: a region of no work estimate at all is offered. */
	enpu_thread_pool_set_split_ns(pool, 0);
	CHECK(s, enpu_thread_pool_splits(pool, 2, 0), "threshold 0");
	enpu_thread_pool_set_split_ns(pool, at);
out:
	enpu_thread_pool_destroy(pool);
	enpu_thread_pool_destroy(solo);
	free(p);
}

/*
 * The mask a sleeping worker is woken with (enpu_thread_pool_wake_mask()):
 * its own without the caller's CPU; nothing when the caller's CPU is not
 * in it, is its only CPU, or is no CPU. Then on a pool: after a nap long
 * enough for the worker to sleep, a region narrows it (counted), and
 * with the caller pinned the worker's tasks still see the process's
 * whole mask (thread_pool_worker_keeps_its_affinity checks that on every
 * round). Needs two CPUs for the pool half.
 */
static void test_thread_pool_wakes_a_sleeper_elsewhere(struct test_state *s)
{
	cpu_set_t mask, out, allowed;
	struct enpu_thread_pool *pool = NULL;
	struct enpu_thread_pool_stats st = { 0 };
	struct order_probe *p = calloc(1, sizeof(*p));
	const struct timespec nap = { 0, 20 * 1000 * 1000 };

	CPU_ZERO(&mask);
	CPU_SET(1, &mask);
	CPU_SET(3, &mask);
	CHECK(s, enpu_thread_pool_wake_mask(&mask, 1, &out) &&
	      CPU_COUNT(&out) == 1 && CPU_ISSET(3, &out) && !CPU_ISSET(1, &out),
	      "{1,3} without 1");
	CHECK(s, !enpu_thread_pool_wake_mask(&mask, 2, &out),
	      "caller's CPU 2 not in the mask");
	CHECK(s, !enpu_thread_pool_wake_mask(&mask, -1, &out) &&
	      !enpu_thread_pool_wake_mask(&mask, CPU_SETSIZE, &out),
	      "no caller CPU");
	CPU_CLR(3, &mask);
	CHECK(s, !enpu_thread_pool_wake_mask(&mask, 1, &out),
	      "the caller's CPU the only one");
	if (!p || sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    enpu_thread_pool_create(2, &pool)) {
		CHECK(s, 0, "setup");
		goto out;
	}
	p->caller = pthread_self();
	if (CPU_COUNT(&allowed) >= 2) {
		/* up to 50 naps: a loaded machine may not run the worker */
		for (int i = 0; i < 50 && !st.narrowed; i++) {
			nanosleep(&nap, NULL);
			enpu_thread_pool_parallel_for(pool, 2, order_task, p);
			enpu_thread_pool_stats(pool, &st);
		}
		CHECK(s, st.narrowed >= 1, "no sleeping worker narrowed");
	}
out:
	enpu_thread_pool_destroy(pool);
	free(p);
}

const struct test_case context_tests[] = {
	{ "isa_names_round_trip", test_isa_names_round_trip },
	{ "environment_forces_the_isa", test_environment_forces_the_isa },
	{ "auto_picks_a_supported_isa", test_auto_picks_a_supported_isa },
	{ "auto_matches_the_expected_isa", test_auto_matches_the_expected_isa },
	{ "foreign_isas_are_refused", test_foreign_isas_are_refused },
	{ "x86_levels_need_every_bit", test_x86_levels_need_every_bit },
	{ "x86_vbmi_needs_the_avx512_level",
	  test_x86_vbmi_needs_the_avx512_level },
	{ "x86_detection_matches_proc_cpuinfo",
	  test_x86_detection_matches_proc_cpuinfo },
	{ "thread_count_is_settable", test_thread_count_is_settable },
	{ "thread_pool_runs_every_task_once",
	  test_thread_pool_runs_every_task_once },
	{ "thread_pool_workers_join", test_thread_pool_workers_join },
	{ "thread_pool_skips_a_costly_worker",
	  test_thread_pool_skips_a_costly_worker },
	{ "thread_pool_worker_keeps_its_affinity",
	  test_thread_pool_worker_keeps_its_affinity },
	{ "thread_pool_leave_cpu", test_thread_pool_leave_cpu },
	{ "thread_pool_grain_rule", test_thread_pool_grain_rule },
	{ "thread_pool_wakes_a_sleeper_elsewhere",
	  test_thread_pool_wakes_a_sleeper_elsewhere },
	{ "context_parallel_for_runs_every_task_once",
	  test_context_parallel_for_runs_every_task_once },
	{ NULL, NULL },
};
