// SPDX-License-Identifier: GPL-2.0
/*
 * The (dev) half of the register block: identification, state, errors,
 * perf counters, and raising MSI-X vectors through the client's eventfds.
 */
#include <errno.h>
#include <unistd.h>

#include "shm_access.h"
#include "vnpu.h"

/* DMA_COPY covers the 1.1 DMA_COPY and DMA_FILL commands; PREEMPT is
 * interface 1.4 (engine.c). */
#define VNPU_CAPS (ENPU_CAP_PREEMPT | ENPU_CAP_DMA_COPY | \
		   ENPU_CAP_PERF_COUNTERS | ENPU_CAP_THERMAL | ENPU_CAP_DVFS)

static const char *const status_names[] = {
	[ENPU_STATUS_OFF] = "OFF",
	[ENPU_STATUS_WAIT_FW] = "WAIT_FW",
	[ENPU_STATUS_BOOTING] = "BOOTING",
	[ENPU_STATUS_READY] = "READY",
	[ENPU_STATUS_ERROR] = "ERROR",
	[ENPU_STATUS_HUNG] = "HUNG",
};

const char *status_name(uint32_t status)
{
	if (status < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[status];
	return "?";
}

/*
 * Power-on: STATUS reads OFF while the identification registers are
 * filled in, then WAIT_FW (published last, with release ordering) says
 * the rest of the block is valid.
 */
void regs_power_on(struct vnpu *v)
{
	uint8_t *shm = v->shm;
	uint32_t i;

	shm_write32(shm, ENPU_REG_STATUS, ENPU_STATUS_OFF);
	v->status = ENPU_STATUS_OFF;
	shm_write32(shm, ENPU_REG_HW_VERSION,
		    ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR, ENPU_HW_VERSION_MINOR));
	shm_write32(shm, ENPU_REG_DEVICE_ID, v->cfg.device_id);
	shm_write32(shm, ENPU_REG_CAPS, VNPU_CAPS);
	shm_write32(shm, ENPU_REG_NUM_QUEUES, v->cfg.num_queues);
	shm_write32(shm, ENPU_REG_SRAM_KB, VNPU_SRAM_KB);
	shm_write32(shm, ENPU_REG_MACS_PER_CYCLE, VNPU_MACS_PER_CYCLE);
	shm_write32(shm, ENPU_REG_SQ_ENTRIES, ENPU_SQ_ENTRIES);
	shm_write32(shm, ENPU_REG_CQ_ENTRIES, ENPU_CQ_ENTRIES);
	shm_write32(shm, ENPU_REG_CTX_SAVE_SIZE, VNPU_CTX_SAVE_SIZE);
	shm_write32(shm, ENPU_REG_PREEMPT_BOUND_NS, v->cfg.preempt_bound_ns);
	shm_write32(shm, ENPU_REG_PREEMPT_POINT_CYCLES, VNPU_POINT_CYCLES);
	shm_write32(shm, ENPU_REG_PREEMPT_SAVE_CYCLES, VNPU_SAVE_CYCLES);
	shm_write32(shm, ENPU_REG_PREEMPT_RESTORE_CYCLES, VNPU_RESTORE_CYCLES);
	shm_write32(shm, ENPU_REG_OPP_COUNT, VNPU_OPP_COUNT);
	for (i = 0; i < VNPU_OPP_COUNT; i++) {
		shm_write32(shm, ENPU_REG_OPP_KHZ(i), opp_khz(i));
		shm_write32(shm, ENPU_REG_OPP_MW(i), opp_mw(i));
		shm_write32(shm, ENPU_REG_OPP_MV(i), opp_mv(i));
	}
	v->power_state = ENPU_POWER_ON;
	shm_write32(shm, ENPU_REG_POWER_STATE, ENPU_POWER_ON);
	v->ambient_c = v->cfg.ambient_c;
	v->opp = VNPU_OPP_COUNT - 1;
	shm_write32(shm, ENPU_REG_OPP_CURRENT, v->opp);
	thermal_init(v);
	regs_publish_perf(v);
	fw_log_clear(v);
	shm_write32(shm, ENPU_REG_SIGNATURE, ENPU_SIGNATURE);
	regs_set_status(v, ENPU_STATUS_WAIT_FW);
}

void regs_set_status(struct vnpu *v, uint32_t status)
{
	if (v->status != status)
		vnpu_log(v, "state %s -> %s", status_name(v->status),
			 status_name(status));
	v->status = status;
	shm_write32(v->shm, ENPU_REG_STATUS, status);
	heartbeat_update(v);
}

/* Error code and info are published before STATUS so that a driver that
 * sees ERROR also sees why. */
void regs_set_error(struct vnpu *v, uint32_t status, uint32_t code,
		    uint32_t info)
{
	shm_write32(v->shm, ENPU_REG_ERROR_CODE, code);
	shm_write32(v->shm, ENPU_REG_ERROR_INFO, info);
	regs_set_status(v, status);
	vnpu_log(v, "error code=%u info=0x%x", code, info);
}

void regs_publish_perf(struct vnpu *v)
{
	uint8_t *shm = v->shm;

	shm_write64(shm, ENPU_REG_PERF_CYCLES_LO,
		    (uint64_t)(v->perf_units / UNITS_PER_CYCLE));
	shm_write64(shm, ENPU_REG_PERF_BUSY_NS_LO, v->perf_busy_ns);
	shm_write32(shm, ENPU_REG_PERF_JOBS_DONE, v->perf_jobs_done);
	shm_write64(shm, ENPU_REG_PERF_MACS_LO, v->perf_macs);
	shm_write64(shm, ENPU_REG_PERF_DMA_BYTES_LO, v->perf_dma_bytes);
	shm_write32(shm, ENPU_REG_PERF_PREEMPTIONS, v->perf_preemptions);
	shm_write64(shm, ENPU_REG_PERF_DEVICE_NS_LO, v->device_ns);
}

void device_raise_vector(struct vnpu *v, unsigned int vector)
{
	uint64_t one = 1;

	if (vector >= ENPU_NUM_VECTORS || !(v->irq_mask & (1u << vector)))
		return;
	if (vector == ENPU_VEC_JOB_DONE && v->lose_irqs) {
		v->lose_irqs--;
		vnpu_log(v, "fault: dropped a job-done interrupt (%u more to drop)",
			 v->lose_irqs);
		return;
	}
	/* The eventfd counter cannot overflow at our rates; EAGAIN would
	 * only mean the guest already has the vector pending. */
	if (write(v->msi_fd[vector], &one, sizeof(one)) != sizeof(one) &&
	    errno != EAGAIN)
		vnpu_log(v, "raising vector %u failed", vector);
}
