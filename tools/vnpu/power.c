// SPDX-License-Identifier: GPL-2.0
/*
 * Power states (interface 1.5, docs/hw/vnpu.md): SET_POWER(OFF) gates the
 * engine's power the way a runtime-suspended SoC block is gated. What was
 * on the rings is dropped as by RESET, the firmware is lost, STATUS reads
 * OFF, the engine draws nothing and cools towards ambient; the clock
 * controller, the sensor, the counters and the mailbox stay on (they are
 * in the always-on domain). SET_POWER(ON) brings it back to WAIT_FW, so
 * the driver boots the firmware again, exactly as after a RESET.
 */
#include "shm_access.h"
#include "vnpu.h"

static void power_off(struct vnpu *v)
{
	queues_abort(v);
	v->hung = false;
	v->irq_mask = 0;
	heartbeat_restart(v);
	shm_write32(v->shm, ENPU_REG_FW_VERSION, 0);
	shm_write32(v->shm, ENPU_REG_FW_API_VERSION, 0);
	shm_write32(v->shm, ENPU_REG_ERROR_CODE, ENPU_ERR_NONE);
	shm_write32(v->shm, ENPU_REG_ERROR_INFO, 0);
	v->power_state = ENPU_POWER_OFF;
	shm_write32(v->shm, ENPU_REG_POWER_STATE, ENPU_POWER_OFF);
	regs_set_status(v, ENPU_STATUS_OFF);
	fw_log_printf(v, "power off");
}

static void power_on(struct vnpu *v)
{
	v->power_state = ENPU_POWER_ON;
	shm_write32(v->shm, ENPU_REG_POWER_STATE, ENPU_POWER_ON);
	regs_set_status(v, ENPU_STATUS_WAIT_FW);
	fw_log_printf(v, "power on");
}

uint32_t power_set_state(struct vnpu *v, uint32_t state, uint32_t *data)
{
	if (state != ENPU_POWER_ON && state != ENPU_POWER_OFF)
		return ENPU_ERR_BAD_ARGUMENT;
	if (state != v->power_state) {
		vnpu_log(v, "power %s", state == ENPU_POWER_ON ? "on" : "off");
		if (state == ENPU_POWER_OFF)
			power_off(v);
		else
			power_on(v);
	}
	*data = v->power_state;
	return ENPU_ERR_NONE;
}
