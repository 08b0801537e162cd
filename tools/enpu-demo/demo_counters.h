/* SPDX-License-Identifier: MIT */
/*
 * The device's performance counters (PERF_* registers), read from the
 * driver's debugfs `regs` dump: the only place they are visible to
 * userspace today. Needs root and a mounted debugfs.
 */
#ifndef ENPU_DEMO_COUNTERS_H
#define ENPU_DEMO_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

struct demo_counters {
	uint64_t cycles;
	uint64_t busy_ns;
	uint64_t jobs_done;
	uint64_t macs;
	uint64_t dma_bytes;
};

/* 0, or a negative errno with the reason in why. */
int demo_counters_read(struct demo_counters *counters, size_t why_size,
		       char *why);

#endif /* ENPU_DEMO_COUNTERS_H */
