/* SPDX-License-Identifier: GPL-2.0 */
/* User jobs: SUBMIT, BOs, dependencies; the scheduler runs them. */
#ifndef ENPU_JOB_H
#define ENPU_JOB_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
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

struct enpu_job_sg_snapshot;

/**
 * struct enpu_job_dev - the job side's device-wide state, owned by enpu_job.c
 * @wq: frees finished jobs (unpin, unmap, DMA buffer) in process context;
 *	the scheduler's done work and the debugfs NOP use it too.
 * @completed: job fences signalled since probe (by the scheduler); the
 *	watchdog's progress measure.
 * @cpu_copy_bytes: bytes of buffer contents the driver copied with the
 *	CPU; the zero-copy design keeps it at 0 (debugfs cpu_copy_bytes).
 * @last_sg_lock: protects @last_sg and @spare_sg.
 * @last_sg: BO table and segments of the last submitted job, for debugfs
 *	last_job_sg; NULL before the first job.
 * @spare_sg: the snapshot @last_sg replaced, kept for the next SUBMIT to
 *	write into instead of allocating one; NULL if none.
 */
struct enpu_job_dev {
	struct workqueue_struct *wq;
	atomic64_t completed;
	atomic64_t cpu_copy_bytes;
	struct mutex last_sg_lock;	/* @last_sg, @spare_sg */
	struct enpu_job_sg_snapshot *last_sg;
	struct enpu_job_sg_snapshot *spare_sg;
};

int enpu_job_init(struct enpu_device *edev);
void enpu_job_fini(struct enpu_device *edev);
int enpu_job_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
void enpu_job_show_last_sg(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_JOB_H */
