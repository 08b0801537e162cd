// SPDX-License-Identifier: MIT
/*
 * Buffer objects: GEM handles of the device's file, their CPU mapping and
 * their dma-buf export/import. The kernel hands out one handle per object
 * and file, so the device keeps a list of its BOs and an import that
 * returns a handle already on the list shares that BO (see enpu.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_internal.h"

static struct enpu_bo *find_bo(enpu_device *device, uint32_t handle)
{
	for (struct enpu_bo *bo = device->bos; bo; bo = bo->next)
		if (bo->handle == handle)
			return bo;
	return NULL;
}

static void unlink_bo(struct enpu_bo *bo)
{
	struct enpu_bo **link = &bo->device->bos;

	while (*link && *link != bo)
		link = &(*link)->next;
	if (*link)
		*link = bo->next;
}

static void close_handle(enpu_device *device, uint32_t handle)
{
	struct drm_gem_close argument = { .handle = handle };

	/* Only fails for a handle the file does not have: nothing to undo. */
	drmIoctl(device->fd, DRM_IOCTL_GEM_CLOSE, &argument);
}

/* Fills a new BO from BO_INFO and puts it on the device's list. */
static int adopt_handle(enpu_device *device, uint32_t handle,
			const char *operation, enpu_bo **bo_out)
{
	struct drm_enpu_bo_info info = { .handle = handle };
	struct enpu_bo *bo;

	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return enpu_device_fail(device, -ENOMEM,
					"%s: %s: out of memory", device->path,
					operation);
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_BO_INFO, &info)) {
		int status = -errno;

		free(bo);
		return enpu_device_fail(device, status,
					"%s: %s: BO_INFO of handle %u failed: %s",
					device->path, operation, handle,
					strerror(-status));
	}
	bo->device = device;
	bo->handle = handle;
	bo->flags = info.flags;
	bo->size = info.size;
	bo->mmap_offset = info.mmap_offset;
	bo->references = 1;
	bo->next = device->bos;
	device->bos = bo;
	*bo_out = bo;
	return 0;
}

int enpu_bo_create(enpu_device *device, uint64_t size, uint32_t flags,
		   enpu_bo **bo)
{
	struct drm_enpu_bo_create argument = { .size = size, .flags = flags };
	int status;

	if (!device)
		return -EINVAL;
	if (!bo)
		return enpu_device_fail(device, -EINVAL,
					"%s: bo_create: bo is NULL",
					device->path);
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_BO_CREATE, &argument)) {
		status = -errno;
		return enpu_device_fail(device, status,
					"%s: BO_CREATE of %" PRIu64
					" bytes with flags 0x%x failed: %s",
					device->path, size, flags,
					strerror(-status));
	}
	status = adopt_handle(device, argument.handle, "bo_create", bo);
	if (status)
		close_handle(device, argument.handle);
	return status;
}

int enpu_bo_import(enpu_device *device, int dmabuf_fd, enpu_bo **bo)
{
	struct enpu_bo *existing;
	uint32_t handle;
	int status;

	if (!device)
		return -EINVAL;
	if (!bo || dmabuf_fd < 0)
		return enpu_device_fail(device, -EINVAL,
					"%s: bo_import: bo is NULL or dma-buf fd %d is invalid",
					device->path, dmabuf_fd);
	if (drmPrimeFDToHandle(device->fd, dmabuf_fd, &handle)) {
		status = -errno;
		return enpu_device_fail(device, status,
					"%s: import of dma-buf fd %d failed: %s",
					device->path, dmabuf_fd,
					strerror(-status));
	}
	existing = find_bo(device, handle);
	if (existing) {
		/* The kernel took no new reference; the count tracks ours. */
		existing->references++;
		*bo = existing;
		return 0;
	}
	status = adopt_handle(device, handle, "bo_import", bo);
	if (status)
		close_handle(device, handle);
	return status;
}

static void release(struct enpu_bo *bo)
{
	if (bo->map)
		munmap(bo->map, (size_t)bo->size);
	unlink_bo(bo);
	free(bo);
}

int enpu_bo_destroy(enpu_bo *bo)
{
	struct drm_gem_close argument;
	enpu_device *device;
	int status = 0;

	if (!bo)
		return 0;
	if (--bo->references)
		return 0;
	device = bo->device;
	argument = (struct drm_gem_close){ .handle = bo->handle };
	if (drmIoctl(device->fd, DRM_IOCTL_GEM_CLOSE, &argument)) {
		status = -errno;
		enpu_device_fail(device, status,
				 "%s: GEM_CLOSE of handle %u failed: %s",
				 device->path, bo->handle, strerror(-status));
	}
	release(bo);
	return status;
}

void enpu_bo_forget_all(enpu_device *device)
{
	while (device->bos)
		release(device->bos);
}

int enpu_bo_size(const enpu_bo *bo, uint64_t *size)
{
	if (!bo || !size)
		return -EINVAL;
	*size = bo->size;
	return 0;
}

int enpu_bo_handle(const enpu_bo *bo, uint32_t *handle)
{
	if (!bo || !handle)
		return -EINVAL;
	*handle = bo->handle;
	return 0;
}

int enpu_bo_flags(const enpu_bo *bo, uint32_t *flags)
{
	if (!bo || !flags)
		return -EINVAL;
	*flags = bo->flags;
	return 0;
}

int enpu_bo_map(enpu_bo *bo, void **address)
{
	enpu_device *device;
	void *map;

	if (!bo)
		return -EINVAL;
	device = bo->device;
	if (!address)
		return enpu_device_fail(device, -EINVAL,
					"%s: bo_map of handle %u: address is NULL",
					device->path, bo->handle);
	if ((bo->flags & DRM_ENPU_BO_DEVICE_ONLY) || !bo->mmap_offset)
		return enpu_device_fail(device, -EPERM,
					"%s: bo_map of handle %u: the BO is device-only and has no CPU mapping",
					device->path, bo->handle);
	if (bo->map) {
		bo->map_count++;
		*address = bo->map;
		return 0;
	}
	if (bo->size > SIZE_MAX)
		return enpu_device_fail(device, -ENOMEM,
					"%s: bo_map of handle %u: %" PRIu64
					" bytes do not fit the address space",
					device->path, bo->handle, bo->size);
	map = mmap(NULL, (size_t)bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   device->fd, (off_t)bo->mmap_offset);
	if (map == MAP_FAILED) {
		int status = -errno;

		return enpu_device_fail(device, status,
					"%s: mmap of BO handle %u (%" PRIu64
					" bytes) failed: %s",
					device->path, bo->handle, bo->size,
					strerror(-status));
	}
	bo->map = map;
	bo->map_count = 1;
	*address = map;
	return 0;
}

int enpu_bo_unmap(enpu_bo *bo)
{
	if (!bo)
		return -EINVAL;
	if (!bo->map)
		return enpu_device_fail(bo->device, -EINVAL,
					"%s: bo_unmap of handle %u: not mapped",
					bo->device->path, bo->handle);
	if (--bo->map_count)
		return 0;
	munmap(bo->map, (size_t)bo->size);
	bo->map = NULL;
	return 0;
}

int enpu_bo_export(enpu_bo *bo, int *dmabuf_fd)
{
	enpu_device *device;
	int fd, status;

	if (!bo)
		return -EINVAL;
	device = bo->device;
	if (!dmabuf_fd)
		return enpu_device_fail(device, -EINVAL,
					"%s: bo_export of handle %u: dmabuf_fd is NULL",
					device->path, bo->handle);
	if (drmPrimeHandleToFD(device->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR,
			       &fd)) {
		status = -errno;
		return enpu_device_fail(device, status,
					"%s: export of BO handle %u failed: %s",
					device->path, bo->handle,
					strerror(-status));
	}
	*dmabuf_fd = fd;
	return 0;
}

int enpu_bo_wait(enpu_bo *bo, int64_t timeout_ns, uint32_t flags)
{
	struct drm_enpu_bo_wait argument;
	enpu_device *device;
	int status;

	if (!bo)
		return -EINVAL;
	device = bo->device;
	argument = (struct drm_enpu_bo_wait){
		.handle = bo->handle,
		.flags = flags,
		.timeout_ns = timeout_ns,
	};
	if (!drmIoctl(device->fd, DRM_IOCTL_ENPU_BO_WAIT, &argument))
		return 0;
	status = -errno;
	if (status == -ETIME)
		return enpu_device_fail(device, status,
					"%s: BO handle %u still busy after the %s timeout %" PRId64
					" ns",
					device->path, bo->handle,
					flags & DRM_ENPU_WAIT_ABSOLUTE ?
						"absolute" : "relative",
					timeout_ns);
	return enpu_device_fail(device, status,
				"%s: BO_WAIT on handle %u (flags 0x%x, timeout %" PRId64
				" ns) failed: %s",
				device->path, bo->handle, flags, timeout_ns,
				strerror(-status));
}
