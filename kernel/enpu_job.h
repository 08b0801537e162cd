/* SPDX-License-Identifier: GPL-2.0 */
/* User jobs: SUBMIT, dependencies, the hardware queue, completion. */
#ifndef ENPU_JOB_H
#define ENPU_JOB_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct drm_device;
struct drm_file;
struct enpu_device;
struct enpu_timeline;
struct seq_file;

/* Limits of struct drm_enpu_submit (uapi/enpu_accel.h). */
#define ENPU_SUBMIT_MAX_BOS		4096
#define ENPU_SUBMIT_MAX_IN_FENCES	64

/**
 * struct enpu_job_queue - the jobs of one hardware queue
 * @lock: protects @fifo, @inflight and @dead, and orders seqno
 *	assignment with FIFO insertion; IRQ-safe.
 * @fifo: submitted jobs not yet written to the ring, in seqno order. Only
 *	the head may go to the ring, once its dependencies have signalled,
 *	so the queue's fences signal in seqno order.
 * @inflight: jobs written to the ring, waiting for their completion.
 * @timeline: the fence context of the queue.
 * @index: hardware queue number.
 * @dead: set at device removal; nothing is written to the ring any more.
 */
struct enpu_job_queue {
	spinlock_t lock;	/* fifo, inflight, dead, seqno order */
	struct list_head fifo;
	struct list_head inflight;
	struct enpu_timeline *timeline;
	unsigned int index;
	bool dead;
};

struct enpu_job_sg_snapshot;

int enpu_job_init(struct enpu_device *edev);
void enpu_job_fini(struct enpu_device *edev);
int enpu_job_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
void enpu_job_show_last_sg(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_JOB_H */
