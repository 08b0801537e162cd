/* SPDX-License-Identifier: MIT */
/* The NPU backend on a simulated device (npu_sim.c). */
#ifndef ENPU_TEST_NPU_SIM_H
#define ENPU_TEST_NPU_SIM_H

#include <stdint.h>

#include "backend.h"

struct npu_compiled;

struct npu_sim_config {
	uint64_t clock_khz;		/* the top clock: sets the bound */
	uint64_t macs_per_cycle;
	uint64_t sram_bytes;
	uint32_t bound_ns;		/* 0: the backend's own */
	int oracle;			/* the vnpu's own loops */
	int deferred;			/* jobs run at the fence wait */
	uint64_t hw_version;		/* 0: the vnpu's (enpu_regs.h) */
};

extern const struct rt_backend_ops npu_sim_backend;

/* For sessions opened afterwards. */
void npu_sim_configure(const struct npu_sim_config *config);

/* What the device saw in the last run of a compiled partition. */
struct npu_sim_run {
	uint64_t cycles, longest_cycles, macs;
	uint32_t commands, status;
};

const struct npu_compiled *npu_sim_compiled(const void *compiled,
					    struct npu_sim_run *last);

#endif /* ENPU_TEST_NPU_SIM_H */
