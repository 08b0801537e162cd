/* SPDX-License-Identifier: GPL-2.0 */
/* User jobs: SUBMIT, BOs, dependencies; the scheduler runs them. */
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

struct enpu_job_sg_snapshot;

int enpu_job_init(struct enpu_device *edev);
void enpu_job_fini(struct enpu_device *edev);
int enpu_job_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
void enpu_job_show_last_sg(struct seq_file *m, struct enpu_device *edev);

#endif /* ENPU_JOB_H */
