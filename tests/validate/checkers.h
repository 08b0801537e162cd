/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two command-stream checkers behind one call: the kernel validator
 * (kernel/enpu_validate.c, built for userspace) and the device model's
 * own checker (tools/vnpu cmdstream_validate(), an independent
 * implementation of the same rules). The unit test runs every case
 * through both; the differential fuzzer compares them.
 */
#ifndef ENPU_TEST_CHECKERS_H
#define ENPU_TEST_CHECKERS_H

#include <stdbool.h>
#include <stdint.h>

#include "enpu_validate.h"

/* What one checker said about a stream. */
struct verdict {
	bool rejected;
	uint32_t offset;	/* first bad command (or the stream size) */
	uint32_t rule;		/* enum enpu_cmd_rule */
	uint32_t status;	/* device only: ENPU_JOB_STATUS_* */
};

/* The kernel validator; @bos as SUBMIT would pass them. */
void check_with_kernel(const void *stream, uint32_t size,
		       const struct enpu_validate_bo *bos, uint32_t count,
		       struct verdict *out);

/*
 * The vnpu's checker, on an exact-size heap copy of @stream and a BO
 * table with the same sizes and access bits (scatter-gather lists play
 * no part in command checks). Returns false when the host is out of
 * memory.
 */
bool check_with_device(const void *stream, uint32_t size,
		       const struct enpu_validate_bo *bos, uint32_t count,
		       struct verdict *out);

/*
 * A vnpu job over exact-size heap copies of @stream and of @bos' sizes
 * and access bits (no scatter-gather lists), as check_with_device() runs
 * it; false when the host is out of memory. device_job_free() frees it.
 */
struct vnpu_job;
bool device_job_init(struct vnpu_job *job, const void *stream, uint32_t size,
		     const struct enpu_validate_bo *bos, uint32_t count);
void device_job_free(struct vnpu_job *job);

/*
 * The job status the device must give a command that breaks @rule
 * (docs/hw/vnpu.md): DMA_FAULT for a reference or extent outside its BO
 * or without its access, INVALID for every other rule.
 */
uint32_t device_status_for_rule(uint32_t rule);

#endif /* ENPU_TEST_CHECKERS_H */
