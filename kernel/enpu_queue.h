/* SPDX-License-Identifier: GPL-2.0 */
/* Submission rings (driver -> device) and the completion ring (back). */
#ifndef ENPU_QUEUE_H
#define ENPU_QUEUE_H

#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/types.h>

struct enpu_device;

/**
 * struct enpu_job_desc - what goes into one submission ring slot
 * @cmd_addr: DMA address of the command stream.
 * @cmd_size: bytes in the command stream.
 * @tag: echoed in the completion entry; must be unique among jobs in flight.
 * @ctx_save_addr: DMA address of the context-save area, 0 if none.
 * @ctx_save_size: bytes in the context-save area.
 */
struct enpu_job_desc {
	u64 cmd_addr;
	u32 cmd_size;
	u64 tag;
	u64 ctx_save_addr;
	u32 ctx_save_size;
};

/**
 * struct enpu_cq_waiter - someone waiting for the completion of one tag
 * @node: in enpu_device.cq_waiters until completed or removed.
 * @tag: the job tag to wait for.
 * @done: completed from the job-done interrupt.
 * @completed_at: ktime_get() when the completion entry was consumed.
 * @queue: from the completion entry.
 * @status: ENPU_JOB_STATUS_* from the completion entry.
 * @info: status-specific detail from the completion entry.
 * @cycles: device cycles the job took.
 */
struct enpu_cq_waiter {
	struct list_head node;
	u64 tag;
	struct completion done;
	ktime_t completed_at;
	u32 queue;
	u32 status;
	u32 info;
	u64 cycles;
};

int enpu_queue_init(struct enpu_device *edev);
void enpu_queue_add_waiter(struct enpu_device *edev,
			   struct enpu_cq_waiter *waiter, u64 tag);
bool enpu_queue_remove_waiter(struct enpu_device *edev,
			      struct enpu_cq_waiter *waiter);
int enpu_queue_submit(struct enpu_device *edev, unsigned int queue,
		      const struct enpu_job_desc *desc);
unsigned int enpu_queue_drain_completions(struct enpu_device *edev);

#endif /* ENPU_QUEUE_H */
