/* SPDX-License-Identifier: GPL-2.0 */
/* Mailbox: synchronous control commands (PING, BOOT, RESET, ...). */
#ifndef ENPU_MAILBOX_H
#define ENPU_MAILBOX_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct enpu_device;

/**
 * struct enpu_mailbox - the one-command-at-a-time control channel
 * @lock: serialises commands; held for the whole request/reply.
 * @done: completed by the mailbox interrupt.
 * @use_irq: wait for the interrupt instead of polling; only changed with
 *	@lock held.
 */
struct enpu_mailbox {
	struct mutex lock;	/* one command at a time */
	struct completion done;
	bool use_irq;
};

/**
 * struct enpu_mbox_msg - one mailbox command and its reply
 * @cmd: in, ENPU_MBOX_*.
 * @arg: in, ENPU_REG_CMD_ARG0..3.
 * @result: out, ENPU_ERR_* from the device.
 * @data: out, ENPU_REG_CMD_RESULT_DATA.
 */
struct enpu_mbox_msg {
	u32 cmd;
	u32 arg[4];
	u32 result;
	u32 data;
};

int enpu_mailbox_init(struct enpu_device *edev);
int enpu_mailbox_exec(struct enpu_device *edev, struct enpu_mbox_msg *msg,
		      unsigned int timeout_ms);
int enpu_mailbox_set_irq_mask(struct enpu_device *edev, u32 mask);
void enpu_mailbox_use_polling(struct enpu_device *edev);
int enpu_mailbox_reset(struct enpu_device *edev);
void enpu_mailbox_irq(struct enpu_device *edev);

#endif /* ENPU_MAILBOX_H */
