// SPDX-License-Identifier: GPL-2.0
/*
 * Mailbox commands. Until interrupts are installed (firmware boot during
 * probe, teardown) the reply is polled; afterwards the caller sleeps until
 * the mailbox interrupt. Either way the wait is bounded.
 *
 * Locking: enpu_mailbox.lock serialises whole commands, since the hardware
 * has a single request slot. No other driver lock is held while taking it
 * and none is taken under it (see enpu_device.h).
 */
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <drm/drm_managed.h>

#include "enpu_hw.h"
#include "enpu_mailbox.h"

#define ENPU_MBOX_POLL_US		50
/*
 * A device answers in microseconds, but the vnpu under TCG on a loaded
 * host took over 100 ms after a module reload, and a late answer here
 * fails the probe: wait as long as for a reset.
 */
#define ENPU_MBOX_IRQ_MASK_TIMEOUT_MS	1000

/**
 * enpu_mailbox_init() - set up the mailbox state, in polling mode
 * @edev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_mailbox_init(struct enpu_device *edev)
{
	init_completion(&edev->mbox.done);
	edev->mbox.use_irq = false;
	return drmm_mutex_init(&edev->drm, &edev->mbox.lock);
}

static bool enpu_mailbox_done(struct enpu_device *edev, u32 seq)
{
	return enpu_read(edev, ENPU_REG_CMD_DONE_SEQ) == seq;
}

static int enpu_mailbox_poll(struct enpu_device *edev, u32 seq,
			     unsigned int timeout_ms)
{
	u32 done_seq;

	lockdep_assert_held(&edev->mbox.lock);
	return readl_poll_timeout(edev->regs + ENPU_REG_CMD_DONE_SEQ, done_seq,
				  done_seq == seq, ENPU_MBOX_POLL_US,
				  timeout_ms * USEC_PER_MSEC);
}

/*
 * The completion may also have been completed by a reply to an earlier
 * command that timed out, so the sequence register decides, not the wakeup.
 */
static int enpu_mailbox_wait_irq(struct enpu_device *edev, u32 seq,
				 unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);

	lockdep_assert_held(&edev->mbox.lock);
	while (!enpu_mailbox_done(edev, seq)) {
		long left = (long)(deadline - jiffies);

		if (left <= 0)
			return enpu_mailbox_done(edev, seq) ? 0 : -ETIMEDOUT;
		wait_for_completion_timeout(&edev->mbox.done, left);
		reinit_completion(&edev->mbox.done);
	}
	return 0;
}

/**
 * enpu_mailbox_exec() - run one mailbox command and wait for its reply
 * @edev: the device.
 * @msg: command and arguments in, result and data out.
 * @timeout_ms: how long to wait for the reply.
 *
 * Sleeps. Waits for the mailbox interrupt once enabled, polls before.
 *
 * Return: 0 when the device answered (@msg->result says how the command
 * went), -ETIMEDOUT when it did not.
 */
int enpu_mailbox_exec(struct enpu_device *edev, struct enpu_mbox_msg *msg,
		      unsigned int timeout_ms)
{
	struct enpu_mailbox *mbox = &edev->mbox;
	u32 seq;
	int ret;

	mutex_lock(&mbox->lock);
	/* CMD_SEQ is written only by the driver, so it is our own counter. */
	seq = enpu_read(edev, ENPU_REG_CMD_SEQ) + 1;
	enpu_write(edev, ENPU_REG_CMD, msg->cmd);
	enpu_write(edev, ENPU_REG_CMD_ARG0, msg->arg[0]);
	enpu_write(edev, ENPU_REG_CMD_ARG1, msg->arg[1]);
	enpu_write(edev, ENPU_REG_CMD_ARG2, msg->arg[2]);
	enpu_write(edev, ENPU_REG_CMD_ARG3, msg->arg[3]);
	reinit_completion(&mbox->done);
	enpu_write(edev, ENPU_REG_CMD_SEQ, seq);
	enpu_hw_ring_doorbell(edev, ENPU_DB_CONTROL);

	if (mbox->use_irq)
		ret = enpu_mailbox_wait_irq(edev, seq, timeout_ms);
	else
		ret = enpu_mailbox_poll(edev, seq, timeout_ms);

	if (ret) {
		dev_err(edev->dev, "mailbox command %u (seq %u) timed out\n",
			msg->cmd, seq);
	} else {
		/* Ordered after CMD_DONE_SEQ by readl() (acquire). */
		msg->result = enpu_read(edev, ENPU_REG_CMD_RESULT);
		msg->data = enpu_read(edev, ENPU_REG_CMD_RESULT_DATA);
	}
	mutex_unlock(&mbox->lock);
	return ret;
}

/**
 * enpu_mailbox_set_irq_mask() - choose which interrupt causes the device
 *	raises, and switch the mailbox to match
 * @edev: the device.
 * @mask: BIT(ENPU_VEC_*) of the causes to enable; 0 masks everything.
 *
 * The command itself is polled. Interrupt waits start only once the device
 * confirmed that the mailbox vector is enabled, and stop before it is
 * masked.
 *
 * Return: 0, -ETIMEDOUT, or -EIO if the device refused the mask.
 */
int enpu_mailbox_set_irq_mask(struct enpu_device *edev, u32 mask)
{
	struct enpu_mbox_msg msg = {
		.cmd = ENPU_MBOX_SET_IRQ_MASK,
		.arg = { mask },
	};
	int ret;

	mutex_lock(&edev->mbox.lock);
	edev->mbox.use_irq = false;
	mutex_unlock(&edev->mbox.lock);

	ret = enpu_mailbox_exec(edev, &msg, ENPU_MBOX_IRQ_MASK_TIMEOUT_MS);
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE) {
		dev_err(edev->dev, "SET_IRQ_MASK 0x%x refused, error %u\n",
			mask, msg.result);
		return -EIO;
	}

	mutex_lock(&edev->mbox.lock);
	edev->mbox.use_irq = mask & BIT(ENPU_VEC_MAILBOX);
	mutex_unlock(&edev->mbox.lock);
	return 0;
}

/**
 * enpu_mailbox_use_polling() - poll for replies from now on
 * @edev: the device, about to be reset (which masks the mailbox vector)
 *	possibly while hung, when no other command would be answered.
 *
 * enpu_mailbox_set_irq_mask() switches back to interrupts.
 */
void enpu_mailbox_use_polling(struct enpu_device *edev)
{
	mutex_lock(&edev->mbox.lock);
	edev->mbox.use_irq = false;
	mutex_unlock(&edev->mbox.lock);
}

/**
 * enpu_mailbox_irq() - the mailbox interrupt: wake the waiting command
 * @edev: the device.
 */
void enpu_mailbox_irq(struct enpu_device *edev)
{
	complete(&edev->mbox.done);
}

/* RESET may have to wait for the device to abandon a long command. */
#define ENPU_RESET_TIMEOUT_MS	1000

/**
 * enpu_mailbox_reset() - abort everything and return the device to WAIT_FW
 * @edev: the device.
 *
 * RESET works in any state, including HUNG. Afterwards all interrupt
 * causes are masked by the device, the rings are empty and the firmware
 * must be booted again.
 *
 * Return: 0, -ETIMEDOUT, or -EIO if the device refused or did not reach
 * WAIT_FW.
 */
int enpu_mailbox_reset(struct enpu_device *edev)
{
	struct enpu_mbox_msg msg = { .cmd = ENPU_MBOX_RESET };
	u32 status;
	int ret;

	ret = enpu_mailbox_exec(edev, &msg, ENPU_RESET_TIMEOUT_MS);
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE) {
		dev_err(edev->dev, "RESET refused, error %u\n", msg.result);
		return -EIO;
	}
	status = enpu_read(edev, ENPU_REG_STATUS);
	if (status != ENPU_STATUS_WAIT_FW) {
		dev_err(edev->dev, "status %u after RESET, expected WAIT_FW\n",
			status);
		return -EIO;
	}
	enpu_hw_clear_ring_indices(edev);
	return 0;
}
