/* SPDX-License-Identifier: MIT */
/*
 * The demo network on the NPU through libenpu: one BO per enum
 * demo_buffer (the submit list in that order, so a tensor's buffer is its
 * BO index), every layer encoded into one command stream, submitted as
 * one job on a context with an out-syncobj.
 */
#ifndef ENPU_DEMO_NPU_H
#define ENPU_DEMO_NPU_H

#include <stddef.h>
#include <stdint.h>

#include <enpu/enpu.h>

#include "demo_network.h"

struct demo_npu {
	enpu_device *device;
	enpu_context *context;
	uint32_t syncobj;
	enpu_cmdbuf *cmdbuf;
	enpu_bo *bo[DEMO_BUFFER_COUNT];
	unsigned char *map[DEMO_BUFFER_COUNT];
	uint64_t size[DEMO_BUFFER_COUNT];
};

/*
 * Opens the device at path, or the first ENPU device with path NULL. The
 * message for "no device" names the kernel module and whether it is
 * loaded.
 */
int demo_npu_open(struct demo_npu *npu, const char *path, size_t error_size,
		  char *error);
/*
 * Creates the context (enum drm_enpu_priority), the BOs with the input and
 * parameters copied in, the syncobj, and encodes the network.
 */
int demo_npu_prepare(struct demo_npu *npu, const struct demo_network *network,
		     uint32_t priority, size_t error_size, char *error);
/*
 * One inference: fills the arena and output BOs with a poison pattern (so
 * only what this job writes can match), submits, waits up to timeout_ns
 * and checks the job's status. latency_ns: submit call to fence waited.
 */
int demo_npu_run(struct demo_npu *npu, int64_t timeout_ns,
		 uint64_t *latency_ns, size_t error_size, char *error);
/* Accepts a partly opened npu. */
void demo_npu_close(struct demo_npu *npu);

/* The command stream's size in bytes. */
uint32_t demo_npu_stream_size(const struct demo_npu *npu);

#endif /* ENPU_DEMO_NPU_H */
