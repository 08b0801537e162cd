// SPDX-License-Identifier: GPL-2.0
/*
 * JOB_WAIT: wait for a job's fence and read its status in one ioctl. The
 * generic way takes three (DRM_IOCTL_SYNCOBJ_WAIT, an export of the fence
 * as a sync_file, SYNC_IOC_FILE_INFO) plus a close, and each ioctl costs
 * a guest several microseconds; a runtime waits once per partition and
 * frame. The wait itself is the DRM core's: the syncobj's fence, waited
 * for interruptibly with no lock held, bounded by the caller's timeout.
 * The timeout rule (relative or absolute CLOCK_MONOTONIC nanoseconds) is
 * BO_WAIT's, and lives here once for both.
 */
#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_utils.h>

#include "enpu_accel.h"
#include "enpu_job_wait.h"

/**
 * enpu_wait_timeout_jiffies() - the jiffies a wait may sleep
 * @flags: the ioctl's flags; only DRM_ENPU_WAIT_ABSOLUTE matters here.
 * @timeout_ns: relative nanoseconds, or absolute CLOCK_MONOTONIC
 *	nanoseconds with DRM_ENPU_WAIT_ABSOLUTE; the caller has refused a
 *	negative one.
 *
 * Relative and absolute timeouts both become an absolute monotonic time,
 * rounded up to the next jiffy and capped near MAX_SCHEDULE_TIMEOUT by
 * drm_timeout_abs_to_jiffies(); a relative sum that overflows waits as
 * long as the cap allows.
 *
 * Return: the timeout in jiffies; 0 (poll) for a relative 0, an absolute
 * 0 or an absolute time in the past.
 */
long enpu_wait_timeout_jiffies(u32 flags, s64 timeout_ns)
{
	s64 deadline;

	if (flags & DRM_ENPU_WAIT_ABSOLUTE)
		return timeout_ns ? drm_timeout_abs_to_jiffies(timeout_ns) : 0;
	if (timeout_ns == 0)
		return 0;
	if (check_add_overflow((s64)ktime_get_ns(), timeout_ns, &deadline))
		deadline = S64_MAX;
	return drm_timeout_abs_to_jiffies(deadline);
}

/**
 * enpu_job_wait_ioctl() - DRM_IOCTL_ENPU_JOB_WAIT
 * @drm: the DRM device.
 * @data: struct drm_enpu_job_wait.
 * @file: the caller's file, whose syncobj table holds the handle.
 *
 * Takes a reference to the fence the syncobj holds now, waits for it
 * without holding any lock (the syncobj may be replaced or destroyed
 * meanwhile; the reference keeps this fence) and reads its error. Any
 * fence counts, also one imported from another driver's sync_file.
 *
 * Return: 0 with @job_status set once the fence signalled, -ETIME on
 * timeout, -ERESTARTSYS on a signal, -ENOENT for an unknown syncobj,
 * -EINVAL for unknown flags, reserved bits, a negative timeout or a
 * syncobj without a fence.
 */
int enpu_job_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_enpu_job_wait *args = data;
	struct dma_fence *fence;
	long remaining;
	int ret;

	if (args->flags & ~DRM_ENPU_JOB_WAIT_FLAGS) {
		drm_dbg(drm, "JOB_WAIT: unknown flags 0x%x\n",
			args->flags & ~DRM_ENPU_JOB_WAIT_FLAGS);
		return -EINVAL;
	}
	if (args->reserved) {
		drm_dbg(drm, "JOB_WAIT: reserved is 0x%x, must be 0\n",
			args->reserved);
		return -EINVAL;
	}
	if (args->timeout_ns < 0) {
		drm_dbg(drm, "JOB_WAIT: negative timeout %lld\n",
			args->timeout_ns);
		return -EINVAL;
	}
	/* Point 0, no flags: the binary fence now, no wait-for-submit. */
	ret = drm_syncobj_find_fence(file, args->syncobj, 0, 0, &fence);
	if (ret) {
		drm_dbg(drm, "JOB_WAIT: syncobj %u %s\n", args->syncobj,
			ret == -ENOENT ? "is unknown" : "holds no fence");
		return ret;
	}
	remaining = dma_fence_wait_timeout(fence, true,
					   enpu_wait_timeout_jiffies(args->flags,
								     args->timeout_ns));
	if (remaining > 0) {
		/* Signalled: 1 for success, else the fence's error. */
		ret = dma_fence_get_status(fence);
		args->job_status = ret < 0 ? ret : 0;
		ret = 0;
	} else {
		ret = remaining ? (int)remaining : -ETIME;
	}
	dma_fence_put(fence);
	return ret;
}
