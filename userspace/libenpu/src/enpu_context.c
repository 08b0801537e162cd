// SPDX-License-Identifier: MIT
/*
 * Contexts: DRM_IOCTL_ENPU_CONTEXT_CREATE/DESTROY/QUERY. The library keeps
 * each context on its device's list so that closing the device frees what
 * the caller left open; the kernel drops the contexts with the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "enpu_internal.h"

static void unlink_context(enpu_context *context)
{
	enpu_context **link = &context->device->contexts;

	while (*link && *link != context)
		link = &(*link)->next;
	if (*link)
		*link = context->next;
}

void enpu_context_forget_all(enpu_device *device)
{
	while (device->contexts) {
		enpu_context *context = device->contexts;

		device->contexts = context->next;
		free(context);
	}
}

int enpu_context_create(enpu_device *device, uint32_t priority,
			enpu_context **context)
{
	struct drm_enpu_context_create argument = { .priority = priority };
	enpu_context *created;
	int status;

	if (!device)
		return -EINVAL;
	if (!context)
		return enpu_device_fail(device, -EINVAL,
					"%s: context_create: context is NULL",
					device->path);
	created = calloc(1, sizeof(*created));
	if (!created)
		return enpu_device_fail(device, -ENOMEM,
					"%s: context_create: out of memory",
					device->path);
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &argument)) {
		status = -errno;
		free(created);
		if (status == -EACCES)
			return enpu_device_fail(device, status,
						"%s: context of priority %u needs CAP_SYS_NICE",
						device->path, priority);
		return enpu_device_fail(device, status,
					"%s: CONTEXT_CREATE with priority %u failed: %s",
					device->path, priority,
					strerror(-status));
	}
	created->device = device;
	created->id = argument.context;
	created->next = device->contexts;
	device->contexts = created;
	*context = created;
	return 0;
}

int enpu_context_destroy(enpu_context *context)
{
	struct drm_enpu_context_destroy argument;
	enpu_device *device;
	int status = 0;

	if (!context)
		return 0;
	device = context->device;
	argument = (struct drm_enpu_context_destroy){ .context = context->id };
	/*
	 * The object goes whatever the kernel says: a context the kernel no
	 * longer knows cannot be destroyed again either.
	 */
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &argument)) {
		status = -errno;
		enpu_device_fail(device, status,
				 "%s: CONTEXT_DESTROY of context %u failed: %s",
				 device->path, context->id, strerror(-status));
	}
	unlink_context(context);
	free(context);
	return status;
}

int enpu_context_id(const enpu_context *context, uint32_t *id)
{
	if (!context || !id)
		return -EINVAL;
	*id = context->id;
	return 0;
}

int enpu_device_query_context(enpu_device *device, uint32_t id,
			      size_t info_size, struct enpu_context_info *info)
{
	struct drm_enpu_context_query argument = { .context = id };
	struct enpu_context_info full;
	int status;

	if (!device)
		return -EINVAL;
	/* Older callers pass a smaller struct; every caller gets id at least. */
	if (!info || info_size < sizeof(uint32_t) ||
	    info_size > sizeof(full))
		return enpu_device_fail(device, -EINVAL,
					"%s: query_context: info is NULL or its size %zu is not in 4..%zu",
					device->path, info_size, sizeof(full));
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_CONTEXT_QUERY, &argument)) {
		status = -errno;
		return enpu_device_fail(device, status,
					"%s: CONTEXT_QUERY of context %u failed: %s",
					device->path, id, strerror(-status));
	}
	full = (struct enpu_context_info){
		.id = id,
		.flags = argument.flags,
		.priority = argument.priority,
		.hang_count = argument.hang_count,
		.submitted = argument.submitted,
		.completed = argument.completed,
	};
	memcpy(info, &full, info_size);
	return 0;
}

int enpu_context_query(enpu_context *context, size_t info_size,
		       struct enpu_context_info *info)
{
	if (!context)
		return -EINVAL;
	return enpu_device_query_context(context->device, context->id,
					 info_size, info);
}
