/* SPDX-License-Identifier: MIT */
/* Shared pieces of the CPU GEMM benchmark. */
#ifndef ENPU_BENCH_H
#define ENPU_BENCH_H

#include <stddef.h>
#include <stdint.h>

struct gemm_shape {
	size_t m, n, k;
	const char *note;
};

/* Seconds on the monotonic clock. */
double bench_now(void);

/*
 * Calls run(argument) repeatedly: batches of at least min_seconds, best
 * batch's time per call, which is the least disturbed by the other tenants
 * of this machine. Returns seconds per call, or a negative value if run()
 * failed.
 */
double bench_time(int (*run)(void *argument), void *argument,
		  double min_seconds, int batches);

struct peak {
	double ghz;                 /* measured core clock */
	double vnni_per_cycle;      /* measured zmm vpdpbusd throughput */
	double assumed_per_cycle;   /* what the peak uses */
	double gops_per_core;
};

void bench_measure_peak(struct peak *peak);

/*
 * oneDNN u8 x s8 -> u8 matmul with per-column output scales and zero points,
 * weights reordered once. Returns seconds per call or < 0 on error.
 */
double bench_onednn(const struct gemm_shape *shape, int threads,
		    double min_seconds);

#endif /* ENPU_BENCH_H */
