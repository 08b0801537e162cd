// SPDX-License-Identifier: MIT
/*
 * Syncobj helpers over libdrm: the job's out-fence lands in a syncobj,
 * which can be waited on or turned into a pollable sync_file fd.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <xf86drm.h>

#include "enpu_internal.h"

int enpu_syncobj_create(enpu_device *device, uint32_t *syncobj)
{
	int status;

	if (!device)
		return -EINVAL;
	if (!syncobj)
		return enpu_device_fail(device, -EINVAL,
					"%s: syncobj_create: syncobj is NULL",
					device->path);
	status = drmSyncobjCreate(device->fd, 0, syncobj);
	if (status)
		return enpu_device_fail(device, -errno,
					"%s: syncobj create failed: %s",
					device->path, strerror(errno));
	return 0;
}

int enpu_syncobj_destroy(enpu_device *device, uint32_t syncobj)
{
	if (!device)
		return -EINVAL;
	if (drmSyncobjDestroy(device->fd, syncobj))
		return enpu_device_fail(device, -errno,
					"%s: syncobj %u destroy failed: %s",
					device->path, syncobj,
					strerror(errno));
	return 0;
}

int64_t enpu_deadline_ns(int64_t timeout_ns, uint32_t flags)
{
	struct timespec now;
	int64_t now_ns;

	if (flags & DRM_ENPU_WAIT_ABSOLUTE)
		return timeout_ns;
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (timeout_ns > INT64_MAX - now_ns)
		return INT64_MAX;
	return now_ns + timeout_ns;
}

int enpu_syncobj_wait(enpu_device *device, uint32_t syncobj,
		      int64_t timeout_ns, uint32_t flags)
{
	uint32_t handle = syncobj;
	int status;

	if (!device)
		return -EINVAL;
	if (timeout_ns < 0 || (flags & ~DRM_ENPU_WAIT_ABSOLUTE))
		return enpu_device_fail(device, -EINVAL,
					"%s: syncobj_wait: timeout %" PRId64
					" is negative or flags 0x%x unknown",
					device->path, timeout_ns, flags);
	status = drmSyncobjWait(device->fd, &handle, 1,
				enpu_deadline_ns(timeout_ns, flags),
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (status == 0)
		return 0;
	/* libdrm returns -1 with errno or -errno depending on version. */
	status = status == -1 ? -errno : status;
	if (status == -ETIME)
		return enpu_device_fail(device, status,
					"%s: syncobj %u not signalled within the timeout",
					device->path, syncobj);
	return enpu_device_fail(device, status,
				"%s: syncobj %u wait failed: %s",
				device->path, syncobj, strerror(-status));
}

int enpu_syncobj_export_sync_file(enpu_device *device, uint32_t syncobj,
				  int *sync_file_fd)
{
	if (!device)
		return -EINVAL;
	if (!sync_file_fd)
		return enpu_device_fail(device, -EINVAL,
					"%s: syncobj_export_sync_file: sync_file_fd is NULL",
					device->path);
	if (drmSyncobjExportSyncFile(device->fd, syncobj, sync_file_fd))
		return enpu_device_fail(device, -errno,
					"%s: export of syncobj %u as a sync_file failed: %s",
					device->path, syncobj,
					strerror(errno));
	return 0;
}

int enpu_syncobj_import_sync_file(enpu_device *device, uint32_t syncobj,
				  int sync_file_fd)
{
	if (!device)
		return -EINVAL;
	if (drmSyncobjImportSyncFile(device->fd, syncobj, sync_file_fd))
		return enpu_device_fail(device, -errno,
					"%s: import of sync_file fd %d into syncobj %u failed: %s",
					device->path, sync_file_fd, syncobj,
					strerror(errno));
	return 0;
}
