// SPDX-License-Identifier: MIT
/*
 * Job status: a job's fence carries 0 or a negative errno once signalled
 * (uapi/enpu_accel.h). A driver of uapi 1.1 or later waits for it and
 * reads it in one ioctl, DRM_IOCTL_ENPU_JOB_WAIT. The generic way, kept
 * for what that ioctl does not do, goes through a sync_file, the one
 * fence object with a status query (SYNC_IOC_FILE_INFO); syncobjs have
 * none, so a temporary sync_file is exported from the out-syncobj.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "enpu_internal.h"

/*
 * SYNC_IOC_FILE_INFO's status: 1 signalled fine, 0 still pending,
 * negative the error the fence was signalled with.
 */
static int read_sync_file(int fd, int *fence_status)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	*fence_status = info.status;
	return 0;
}

/*
 * One DRM_IOCTL_ENPU_JOB_WAIT; the deadline is absolute, so that
 * drmIoctl()'s restart after a signal does not start the wait anew.
 * -EINVAL has two causes this cannot tell apart, a syncobj without a
 * fence and a 1.0 driver, which has no such ioctl (the callers checked
 * the other fields); both callers then take the generic path, which
 * waits for a submit and reads the status through a sync_file.
 */
static int job_wait_ioctl(enpu_device *device, uint32_t out_syncobj,
			  int64_t deadline_ns, int *job_status)
{
	struct drm_enpu_job_wait wait;

	memset(&wait, 0, sizeof(wait));
	wait.syncobj = out_syncobj;
	wait.flags = DRM_ENPU_WAIT_ABSOLUTE;
	wait.timeout_ns = deadline_ns;
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_JOB_WAIT, &wait))
		return -errno;
	*job_status = wait.job_status;
	return 0;
}

int enpu_sync_file_status(int sync_file_fd, int *job_status,
			  struct enpu_error *error)
{
	int fence_status = 0;
	int status;

	if (!job_status)
		return enpu_fail(error, -EINVAL,
				 "sync_file_status: job_status is NULL");
	status = read_sync_file(sync_file_fd, &fence_status);
	if (status)
		return enpu_fail(error, status,
				 "sync_file_status: fd %d is not a sync_file: %s",
				 sync_file_fd, strerror(-status));
	if (fence_status == 0)
		return enpu_fail(error, -EBUSY,
				 "sync_file_status: fd %d has not signalled yet",
				 sync_file_fd);
	*job_status = fence_status > 0 ? 0 : fence_status;
	return 0;
}

/* The generic path of enpu_job_status(): a temporary sync_file. */
static int job_status_sync_file(enpu_device *device, uint32_t out_syncobj,
				int *job_status)
{
	int fence_status = 0;
	int fd, status;

	if (drmSyncobjExportSyncFile(device->fd, out_syncobj, &fd))
		return enpu_device_fail(device, -errno,
					"%s: job_status: syncobj %u holds no fence or is unknown: %s",
					device->path, out_syncobj,
					strerror(errno));
	status = read_sync_file(fd, &fence_status);
	close(fd);
	if (status)
		return enpu_device_fail(device, status,
					"%s: job_status: SYNC_IOC_FILE_INFO on syncobj %u's fence failed: %s",
					device->path, out_syncobj,
					strerror(-status));
	if (fence_status == 0)
		return enpu_device_fail(device, -EBUSY,
					"%s: job_status: the job of syncobj %u has not completed",
					device->path, out_syncobj);
	*job_status = fence_status > 0 ? 0 : fence_status;
	return 0;
}

int enpu_job_status(enpu_device *device, uint32_t out_syncobj,
		    int *job_status)
{
	int status;

	if (!device)
		return -EINVAL;
	if (!job_status)
		return enpu_device_fail(device, -EINVAL,
					"%s: job_status: job_status is NULL",
					device->path);
	/* An absolute 0 only polls. */
	status = job_wait_ioctl(device, out_syncobj, 0, job_status);
	if (status == -ETIME)
		return enpu_device_fail(device, -EBUSY,
					"%s: job_status: the job of syncobj %u has not completed",
					device->path, out_syncobj);
	if (status == -EINVAL)
		return job_status_sync_file(device, out_syncobj, job_status);
	if (status)
		return enpu_device_fail(device, status,
					"%s: job_status: syncobj %u: %s",
					device->path, out_syncobj,
					strerror(-status));
	return 0;
}

int enpu_job_wait(enpu_device *device, uint32_t out_syncobj,
		  int64_t timeout_ns, uint32_t flags, int *job_status)
{
	int status;

	if (!device)
		return -EINVAL;
	if (!job_status)
		return enpu_device_fail(device, -EINVAL,
					"%s: job_wait: job_status is NULL",
					device->path);
	if (timeout_ns >= 0 && !(flags & ~DRM_ENPU_WAIT_ABSOLUTE)) {
		status = job_wait_ioctl(device, out_syncobj,
					enpu_deadline_ns(timeout_ns, flags),
					job_status);
		if (status == 0)
			return 0;
		if (status == -ETIME)
			return enpu_device_fail(device, status,
						"%s: syncobj %u not signalled within the timeout",
						device->path, out_syncobj);
		if (status != -EINVAL)
			return enpu_device_fail(device, status,
						"%s: job_wait: syncobj %u: %s",
						device->path, out_syncobj,
						strerror(-status));
	}
	/* Also refuses what the test above let through, with a message. */
	status = enpu_syncobj_wait(device, out_syncobj, timeout_ns, flags);
	if (status)
		return status;
	return enpu_job_status(device, out_syncobj, job_status);
}
