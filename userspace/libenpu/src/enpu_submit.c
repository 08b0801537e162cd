// SPDX-License-Identifier: MIT
/*
 * Job submission: translates the library's descriptor (enpu_bo pointers)
 * into DRM_IOCTL_ENPU_SUBMIT's arrays. The kernel validates the stream and
 * the references; the library only checks what the kernel cannot see (a
 * NULL or foreign enpu_bo) so that its message can name the entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "enpu_internal.h"

/* Beyond the uapi's limits the kernel refuses anyway; bounds the malloc. */
#define SUBMIT_MAX_BOS ((uint32_t)DRM_ENPU_SUBMIT_MAX_BOS)
#define SUBMIT_MAX_IN_FENCES ((uint32_t)DRM_ENPU_SUBMIT_MAX_IN_FENCES)

static int check_desc(enpu_device *device,
		      const struct enpu_submit_desc *desc)
{
	if ((desc->commands_size && !desc->commands) ||
	    (desc->bo_count && !desc->bos) ||
	    (desc->in_fence_count && !desc->in_fences))
		return enpu_device_fail(device, -EINVAL,
					"%s: submit: a non-empty commands, bos or in_fences array is NULL",
					device->path);
	if (desc->bo_count > SUBMIT_MAX_BOS ||
	    desc->in_fence_count > SUBMIT_MAX_IN_FENCES)
		return enpu_device_fail(device, -EINVAL,
					"%s: submit: %u BOs / %u in-fences, at most %u / %u",
					device->path, desc->bo_count,
					desc->in_fence_count, SUBMIT_MAX_BOS,
					SUBMIT_MAX_IN_FENCES);
	for (uint32_t i = 0; i < desc->in_fence_count; i++)
		if (desc->in_fences[i].reserved)
			return enpu_device_fail(device, -EINVAL,
						"%s: submit: in_fences[%u].reserved is not 0",
						device->path, i);
	for (uint32_t i = 0; i < desc->bo_count; i++) {
		if (desc->bos[i].reserved)
			return enpu_device_fail(device, -EINVAL,
						"%s: submit: bos[%u].reserved is not 0",
						device->path, i);
		if (!desc->bos[i].bo)
			return enpu_device_fail(device, -EINVAL,
						"%s: submit: bos[%u].bo is NULL",
						device->path, i);
		if (desc->bos[i].bo->device != device)
			return enpu_device_fail(device, -EINVAL,
						"%s: submit: bos[%u] belongs to another device (%s)",
						device->path, i,
						desc->bos[i].bo->device->path);
	}
	return 0;
}

int enpu_submit(enpu_device *device, const struct enpu_submit_desc *desc,
		uint64_t *seqno)
{
	return enpu_submit_with(device, desc, 0, seqno);
}

/* enpu_submit(), with the stream object @stream (a kernel handle) or 0. */
int enpu_submit_with(enpu_device *device, const struct enpu_submit_desc *desc,
		     uint32_t stream, uint64_t *seqno)
{
	struct drm_enpu_submit argument;
	struct drm_enpu_submit_bo *bos = NULL;
	struct drm_enpu_fence *fences = NULL;
	int status;

	if (!device)
		return -EINVAL;
	if (!desc || !seqno)
		return enpu_device_fail(device, -EINVAL,
					"%s: submit: desc or seqno is NULL",
					device->path);
	status = check_desc(device, desc);
	if (status)
		return status;
	if (desc->bo_count) {
		bos = calloc(desc->bo_count, sizeof(*bos));
		if (!bos)
			return enpu_device_fail(device, -ENOMEM,
						"%s: submit: out of memory",
						device->path);
	}
	if (desc->in_fence_count) {
		fences = calloc(desc->in_fence_count, sizeof(*fences));
		if (!fences) {
			free(bos);
			return enpu_device_fail(device, -ENOMEM,
						"%s: submit: out of memory",
						device->path);
		}
	}
	for (uint32_t i = 0; i < desc->bo_count; i++) {
		bos[i].handle = desc->bos[i].bo->handle;
		bos[i].flags = desc->bos[i].access;
	}
	for (uint32_t i = 0; i < desc->in_fence_count; i++) {
		fences[i].handle = desc->in_fences[i].syncobj;
		fences[i].point = desc->in_fences[i].point;
	}
	argument = (struct drm_enpu_submit){
		.bos = (uintptr_t)bos,
		.commands = (uintptr_t)desc->commands,
		.in_fences = (uintptr_t)fences,
		.bo_count = desc->bo_count,
		.bo_stride = sizeof(*bos),
		.commands_size = desc->commands_size,
		.in_fence_count = desc->in_fence_count,
		.in_fence_stride = sizeof(*fences),
		.out_syncobj = desc->out_syncobj,
		.flags = desc->flags | (stream ? DRM_ENPU_SUBMIT_STREAM : 0),
		.context = desc->context,
		.stream = stream,
	};
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_SUBMIT, &argument)) {
		status = -errno;
		enpu_device_fail(device, status,
				 "%s: SUBMIT of %u command bytes (stream object %u) with %u BOs and %u in-fences on context %u failed: %s",
				 device->path, desc->commands_size, stream,
				 desc->bo_count, desc->in_fence_count,
				 desc->context, strerror(-status));
	} else {
		*seqno = argument.seqno;
	}
	free(fences);
	free(bos);
	return status;
}
