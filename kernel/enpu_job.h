/* SPDX-License-Identifier: GPL-2.0 */
/* User jobs: SUBMIT, dependencies, the hardware queues, completion. */
#ifndef ENPU_JOB_H
#define ENPU_JOB_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "enpu_regs.h"

struct drm_device;
struct drm_file;
struct enpu_context;
struct enpu_device;
struct enpu_timeline;
struct seq_file;

/*
 * Descriptors one pump call writes before it leaves the rest to a worker:
 * pumps run with interrupts off, from the job-done interrupt and from
 * other drivers' fence callbacks.
 */
#define ENPU_PUMP_BATCH		16

/**
 * struct enpu_job_queue - the jobs of one hardware queue
 * @lock: protects @fifo, @inflight, @parked, @stopped and @dead, and orders seqno
 *	assignment with FIFO insertion; IRQ-safe.
 * @fifo: submitted jobs not yet written to the ring, in seqno order. Only
 *	the head may go to the ring, once its dependencies have signalled
 *	(or it was cancelled), so the queue's fences signal in seqno order.
 * @inflight: jobs written to the ring, in ring order, waiting for their
 *	completion.
 * @inflight_count: entries in @inflight; read without the lock by the
 *	watchdog.
 * @pump_work: continues a pump that stopped at its batch limit.
 * @parked: jobs that were on the ring of a device recovery could not
 *	reset: signalled, but kept until a reset succeeds (the device may
 *	still read their buffers).
 * @timeline: the fence context of the queue.
 * @edev: the device.
 * @index: hardware queue number.
 * @stopped: recovery is resetting the device; nothing is written to the
 *	ring until it restarts the queue.
 * @dead: the device is gone or could not be recovered; nothing is
 *	written to the ring any more.
 */
struct enpu_job_queue {
	spinlock_t lock;	/* fifo, inflight, stopped, dead, seqno order */
	struct list_head fifo;
	struct list_head inflight;
	unsigned int inflight_count;
	struct work_struct pump_work;
	struct list_head parked;
	struct enpu_timeline *timeline;
	struct enpu_device *edev;
	unsigned int index;
	bool stopped;
	bool dead;
};

struct enpu_job_sg_snapshot;

int enpu_job_init(struct enpu_device *edev);
void enpu_job_fini(struct enpu_device *edev);
int enpu_job_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
void enpu_job_show_last_sg(struct seq_file *m, struct enpu_device *edev);
void enpu_job_cancel_context(struct enpu_device *edev,
			     struct enpu_context *ctx);

/* For recovery (enpu_recovery.c). */
unsigned int enpu_job_count_on_device(struct enpu_device *edev);
void enpu_job_stop_queues(struct enpu_device *edev);
void enpu_job_requeue_after_reset(struct enpu_device *edev,
				  const u32 sq_head[ENPU_MAX_QUEUES],
				  bool blame);
void enpu_job_restart_queues(struct enpu_device *edev);
void enpu_job_fail_held(struct enpu_device *edev, int error, bool reset);
void enpu_job_free_parked(struct enpu_device *edev);
void enpu_job_fail_all(struct enpu_device *edev, int error);

#endif /* ENPU_JOB_H */
