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
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
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

/*
 * What a command's timeout counts (struct enpu_mbox_wait). Each look at
 * the device counts at most ENPU_MBOX_STEP_MAX_MS of the wall time since
 * the previous one: a guest that ran late (a debug kernel, a loaded TCG
 * host, a paused VM) sees a jump the device had no chance to answer in.
 * A device whose clock (PERF_DEVICE_NS, interface 1.5) has not moved for
 * ENPU_MBOX_STILL_MS is not running at all: the host did not schedule the
 * vnpu, or silicon's always-on domain is stuck. That time counts towards
 * ENPU_MBOX_DEAD_MS instead of the command's timeout, since a device that
 * was never given the time to answer has not refused to. In
 * check-debug a probe's BOOT and RESET both timed out after 1 s each on a
 * loaded host, and the probe failed on a healthy vnpu.
 */
#define ENPU_MBOX_STEP_MAX_MS		20
#define ENPU_MBOX_STILL_MS		100
#define ENPU_MBOX_DEAD_MS		10000

/**
 * struct enpu_mbox_wait - how long a command has been waited for
 * @last: when the device was last looked at.
 * @device_ns: the device clock then; U64_MAX before the first look.
 * @still_us: counted time since the device clock last moved.
 * @running_us: counted time while the device ran, against the timeout.
 * @dead_us: counted time while it did not, against ENPU_MBOX_DEAD_MS.
 * @has_clock: the device has PERF_DEVICE_NS.
 */
struct enpu_mbox_wait {
	ktime_t last;
	u64 device_ns;
	s64 still_us;
	s64 running_us;
	s64 dead_us;
	bool has_clock;
};

static void enpu_mbox_wait_start(struct enpu_device *edev,
				 struct enpu_mbox_wait *w)
{
	*w = (struct enpu_mbox_wait){
		.last = ktime_get(),
		.device_ns = U64_MAX,
		/* Before enpu_hw_identify() hw_version is 0: wall time only. */
		.has_clock = edev->id.hw_version >=
			     ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR, 5),
	};
}

/* Counts the time since the last look; true once the wait is over. */
static bool enpu_mbox_wait_expired(struct enpu_device *edev,
				   struct enpu_mbox_wait *w,
				   unsigned int timeout_ms)
{
	ktime_t now = ktime_get();
	s64 step = min_t(s64, ktime_us_delta(now, w->last),
			 ENPU_MBOX_STEP_MAX_MS * USEC_PER_MSEC);

	w->last = now;
	if (w->has_clock) {
		u64 device_ns = enpu_hw_read_counter(edev,
						     ENPU_REG_PERF_DEVICE_NS_LO);

		if (device_ns != w->device_ns) {
			w->device_ns = device_ns;
			w->still_us = 0;
		} else {
			w->still_us += step;
		}
	}
	if (w->still_us < ENPU_MBOX_STILL_MS * USEC_PER_MSEC)
		w->running_us += step;
	else
		w->dead_us += step;
	return w->running_us >= (s64)timeout_ms * USEC_PER_MSEC ||
	       w->dead_us >= ENPU_MBOX_DEAD_MS * USEC_PER_MSEC;
}

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
	struct enpu_mbox_wait w;

	lockdep_assert_held(&edev->mbox.lock);
	enpu_mbox_wait_start(edev, &w);
	while (!enpu_mailbox_done(edev, seq)) {
		if (enpu_mbox_wait_expired(edev, &w, timeout_ms))
			return enpu_mailbox_done(edev, seq) ? 0 : -ETIMEDOUT;
		usleep_range(ENPU_MBOX_POLL_US / 2, ENPU_MBOX_POLL_US);
	}
	return 0;
}

/*
 * The completion may also have been completed by a reply to an earlier
 * command that timed out, so the sequence register decides, not the
 * wakeup. The wait is sliced so that each slice is one counted step.
 */
static int enpu_mailbox_wait_irq(struct enpu_device *edev, u32 seq,
				 unsigned int timeout_ms)
{
	unsigned long slice = msecs_to_jiffies(ENPU_MBOX_STEP_MAX_MS);
	struct enpu_mbox_wait w;

	lockdep_assert_held(&edev->mbox.lock);
	enpu_mbox_wait_start(edev, &w);
	while (!enpu_mailbox_done(edev, seq)) {
		if (enpu_mbox_wait_expired(edev, &w, timeout_ms))
			return enpu_mailbox_done(edev, seq) ? 0 : -ETIMEDOUT;
		wait_for_completion_timeout(&edev->mbox.done, slice);
		reinit_completion(&edev->mbox.done);
	}
	return 0;
}

/**
 * enpu_mailbox_exec() - run one mailbox command and wait for its reply
 * @edev: the device.
 * @msg: command and arguments in, result and data out.
 * @timeout_ms: how long to wait for the reply, counted while the device
 *	runs (see struct enpu_mbox_wait).
 *
 * Sleeps. Waits for the mailbox interrupt once enabled, polls before.
 *
 * Return: 0 when the device answered (@msg->result says how the command
 * went), -ETIMEDOUT when it did not: after @timeout_ms of counted time
 * while its clock ran, or ENPU_MBOX_DEAD_MS while it stood still.
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
