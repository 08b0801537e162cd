/* SPDX-License-Identifier: GPL-2.0 */
/* Waits: the timeout rule of BO_WAIT and JOB_WAIT, and JOB_WAIT itself. */
#ifndef ENPU_JOB_WAIT_H
#define ENPU_JOB_WAIT_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

long enpu_wait_timeout_jiffies(u32 flags, s64 timeout_ns);
int enpu_job_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);

#endif /* ENPU_JOB_WAIT_H */
