// SPDX-License-Identifier: GPL-2.0
/*
 * The mailbox (docs/hw/vnpu.md, "Mailbox"): one command outstanding at a
 * time, identified by CMD_SEQ. The reply is CMD_RESULT and
 * CMD_RESULT_DATA, published by CMD_DONE_SEQ with release ordering.
 *
 * A hung device answers nothing but RESET, which is a hardware reset and
 * always works; other commands stay pending (CMD_DONE_SEQ does not move).
 * A muted mailbox (control `mute-mailbox`) answers nothing, RESET
 * included, until the mute ends; then the last command rung is answered:
 * a controller that was busy, while the device clock went on.
 */
#include "shm_access.h"
#include "vnpu.h"

#define IRQ_MASK_ALL ((1u << ENPU_NUM_VECTORS) - 1)

void device_reset(struct vnpu *v)
{
	queues_abort(v);
	v->hung = false;
	v->irq_mask = 0;
	v->reset_count++;
	heartbeat_restart(v);
	shm_write32(v->shm, ENPU_REG_FW_VERSION, 0);
	shm_write32(v->shm, ENPU_REG_FW_API_VERSION, 0);
	shm_write32(v->shm, ENPU_REG_ERROR_CODE, ENPU_ERR_NONE);
	shm_write32(v->shm, ENPU_REG_ERROR_INFO, 0);
	shm_write32(v->shm, ENPU_REG_RESET_COUNT, v->reset_count);
	regs_set_status(v, ENPU_STATUS_WAIT_FW);
	fw_log_printf(v, "reset #%u", v->reset_count);
}

static uint32_t set_opp(struct vnpu *v, uint32_t index, uint32_t *data)
{
	if (index >= VNPU_OPP_COUNT)
		return ENPU_ERR_BAD_ARGUMENT;
	/* device_advance() ran before this command, so work done so far
	 * was counted at the old clock. */
	if (index != v->opp) {
		vnpu_log(v, "OPP %u -> %u (%u kHz)", v->opp, index,
			 opp_khz(index));
		v->opp = index;
		shm_write32(v->shm, ENPU_REG_OPP_CURRENT, index);
	}
	*data = opp_khz(index);
	return ENPU_ERR_NONE;
}

static uint32_t execute(struct vnpu *v, uint32_t cmd, const uint32_t arg[4],
			uint32_t *data, bool *opp_event)
{
	switch (cmd) {
	case ENPU_MBOX_PING:
		return ENPU_ERR_NONE;
	case ENPU_MBOX_BOOT:
		if (v->status != ENPU_STATUS_WAIT_FW)
			return ENPU_ERR_BAD_STATE;
		return firmware_boot(v, (uint64_t)arg[1] << 32 | arg[0], arg[2],
				     data);
	case ENPU_MBOX_RESET:
		/* A power-gated device has nothing to reset: power it on. */
		if (v->power_state == ENPU_POWER_OFF)
			return ENPU_ERR_BAD_STATE;
		device_reset(v);
		*data = v->reset_count;
		return ENPU_ERR_NONE;
	case ENPU_MBOX_SET_OPP:
		*opp_event = true;
		return set_opp(v, arg[0], data);
	case ENPU_MBOX_SET_IRQ_MASK:
		if (arg[0] & ~IRQ_MASK_ALL)
			return ENPU_ERR_BAD_ARGUMENT;
		v->irq_mask = arg[0];
		*data = v->irq_mask;
		return ENPU_ERR_NONE;
	case ENPU_MBOX_PREEMPT:
		return queues_preempt_mailbox(v, arg, data);
	case ENPU_MBOX_SET_POWER:
		return power_set_state(v, arg[0], data);
	default:
		return ENPU_ERR_BAD_COMMAND;
	}
}

void mailbox_doorbell(struct vnpu *v)
{
	uint32_t seq = shm_read32(v->shm, ENPU_REG_CMD_SEQ);
	uint32_t cmd, arg[4], result, data = 0;
	bool opp_event = false;
	unsigned int i;

	if (seq == v->mbox_done_seq)
		return;		/* nothing new: a spurious or repeated ring */
	if (v->mbox_muted_until_ns) {
		vnpu_log(v, "muted: mailbox seq %u waits for the mute to end", seq);
		return;
	}
	cmd = shm_read32(v->shm, ENPU_REG_CMD);
	for (i = 0; i < 4; i++)
		arg[i] = shm_read32(v->shm, ENPU_REG_CMD_ARG0 + 4 * i);
	if (v->hung && cmd != ENPU_MBOX_RESET) {
		vnpu_log(v, "hung: mailbox command %u (seq %u) not answered",
			 cmd, seq);
		return;
	}
	result = execute(v, cmd, arg, &data, &opp_event);
	if (cmd != ENPU_MBOX_PING)
		vnpu_log(v, "mailbox cmd=%u args=%#x,%#x,%#x,%#x seq=%u -> result=%u data=%#x",
			 cmd, arg[0], arg[1], arg[2], arg[3], seq, result, data);
	shm_write32(v->shm, ENPU_REG_CMD_RESULT, result);
	shm_write32(v->shm, ENPU_REG_CMD_RESULT_DATA, data);
	shm_write32(v->shm, ENPU_REG_CMD_DONE_SEQ, seq);
	v->mbox_done_seq = seq;
	if (opp_event && result == ENPU_ERR_NONE)
		device_raise_vector(v, ENPU_VEC_EVENT);
	device_raise_vector(v, ENPU_VEC_MAILBOX);
}
