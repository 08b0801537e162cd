/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job run by the vnpu's own validator and layer engines on the host
 * (sim_device.c), for the NPU backend's tests: no kernel, no QEMU.
 */
#ifndef ENPU_TEST_SIM_DEVICE_H
#define ENPU_TEST_SIM_DEVICE_H

#include <stdint.h>

struct sim_bo {
	void *data;		/* copied in; copied back when @write */
	uint64_t size;
	int write;
};

struct sim_result {
	uint64_t cycles;	/* every command's, as the device models them */
	uint64_t longest_cycles;
	uint32_t commands;
	uint32_t offset;	/* of the failing command */
	uint64_t macs, dma_bytes;
};

/* ENPU_JOB_STATUS_OK (0), or the status the device completes it with. */
uint32_t sim_device_run(const void *stream, uint32_t stream_size,
			struct sim_bo *bos, uint32_t count, int oracle,
			struct sim_result *result);

#endif /* ENPU_TEST_SIM_DEVICE_H */
