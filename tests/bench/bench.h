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

/*
 * The data every implementation compared is given: u8 inputs with this zero
 * point, s8 weights, a u8 output with that one and a per-channel output
 * scale near 1 / (128 * reduction depth), so results use the u8 range.
 */
#define BENCH_INPUT_ZERO_POINT 128
#define BENCH_OUTPUT_ZERO_POINT 131

static inline void bench_fill(uint8_t *input, size_t input_size,
			      int8_t *weights, size_t weight_size)
{
	for (size_t i = 0; i < input_size; i++)
		input[i] = (uint8_t)(i * 2654435761u >> 13);
	for (size_t i = 0; i < weight_size; i++)
		weights[i] = (int8_t)(i * 2246822519u >> 17);
}

static inline double bench_output_scale(size_t channel, size_t depth)
{
	return 1.0 / (128.0 * (double)depth) *
	       (1.0 + (double)(channel % 7) / 8.0);
}

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
