// SPDX-License-Identifier: MIT
/*
 * The int8 peak of this CPU. perf's cycle counter is not available in this
 * VM, so the clock is measured with a chain of dependent register adds (one
 * per cycle on every x86 core since the P6; add with an immediate would not
 * do, Golden Cove folds those at rename), and vpdpbusd throughput with 12
 * independent accumulator chains (latency 5 x 2 ports needs >= 10).
 * Both keep the best of many short runs: other tenants of this machine
 * steal whole time slices, they never make a core faster.
 */
#include "bench.h"

#include <immintrin.h>
#include <stdio.h>
#include <time.h>

double bench_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double bench_time(int (*run)(void *argument), void *argument,
		  double min_seconds, int batches)
{
	double best = -1.0;

	if (run(argument))   /* warm up: caches, pages, thread wakeup */
		return -1.0;
	for (int b = 0; b < batches; b++) {
		double start = bench_now(), elapsed;
		long calls = 0;

		do {
			if (run(argument))
				return -1.0;
			calls++;
			elapsed = bench_now() - start;
		} while (elapsed < min_seconds);
		if (best < 0 || elapsed / (double)calls < best)
			best = elapsed / (double)calls;
	}
	return best;
}

static double measure_ghz(void)
{
	const long iterations = 5000000;
	double best = 0;

	for (int r = 0; r < 40; r++) {
		unsigned long x = 0;
		double start = bench_now(), seconds;

		for (long i = 0; i < iterations; i++)
			__asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
					 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
					 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
					 "add %1, %0"
					 : "+r"(x) : "r"(i));
		seconds = bench_now() - start;
		if (10.0 * (double)iterations / seconds / 1e9 > best)
			best = 10.0 * (double)iterations / seconds / 1e9;
	}
	return best;
}

__attribute__((target("avx512f,avx512vnni")))
static double measure_vnni_per_second(void)
{
	const long iterations = 1000000;
	__m512i x = _mm512_set1_epi32(0x01010101);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0,
		a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0,
		a10 = a0, a11 = a0;
	double best = 0;

	for (int r = 0; r < 40; r++) {
		double start = bench_now(), rate;

		for (long i = 0; i < iterations; i++) {
#define STEP(acc) acc = _mm512_dpbusd_epi32(acc, x, x);
			STEP(a0) STEP(a1) STEP(a2) STEP(a3) STEP(a4) STEP(a5)
			STEP(a6) STEP(a7) STEP(a8) STEP(a9) STEP(a10) STEP(a11)
#undef STEP
			__asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2),
					 "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6),
					 "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10),
					 "+v"(a11));
		}
		rate = 12.0 * (double)iterations / (bench_now() - start);
		if (rate > best)
			best = rate;
	}
	return best;
}

void bench_measure_peak(struct peak *peak)
{
	peak->ghz = measure_ghz();
	if (__builtin_cpu_supports("avx512vnni"))
		peak->vnni_per_cycle = measure_vnni_per_second() /
				       (peak->ghz * 1e9);
	else
		peak->vnni_per_cycle = 0;
	/*
	 * Sapphire/Emerald Rapids Xeons run 512-bit vpdpbusd on two ports
	 * (p0 and p5); the measurement above confirms or refutes that.
	 */
	peak->assumed_per_cycle = peak->vnni_per_cycle > 1.5 ? 2.0 :
				  peak->vnni_per_cycle > 0.5 ? 1.0 : 0.0;
	peak->gops_per_core = peak->ghz * peak->assumed_per_cycle * 64.0 * 2.0;
}
