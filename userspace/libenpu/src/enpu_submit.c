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
/*
 * Arrays up to this many entries live on the stack (256 bytes of BOs,
 * 512 of fences): a runtime's job has a handful of each, and a malloc and
 * two frees per SUBMIT were the only allocations of a MobileNetV2 frame
 * on the NPU.
 */
#define SUBMIT_FEW 32u

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
	struct drm_enpu_submit_bo few_bos[SUBMIT_FEW];
	struct drm_enpu_fence few_fences[SUBMIT_FEW];
	struct drm_enpu_submit_bo *bos = few_bos;
	struct drm_enpu_fence *fences = few_fences;
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
	if (desc->bo_count > SUBMIT_FEW)
		bos = malloc(desc->bo_count * sizeof(*bos));
	if (desc->in_fence_count > SUBMIT_FEW)
		fences = malloc(desc->in_fence_count * sizeof(*fences));
	if (!bos || !fences) {
		if (bos != few_bos)
			free(bos);
		if (fences != few_fences)
			free(fences);
		return enpu_device_fail(device, -ENOMEM,
					"%s: submit: out of memory",
					device->path);
	}
	/* Every field is written: flags and the rest must be 0. */
	for (uint32_t i = 0; i < desc->bo_count; i++)
		bos[i] = (struct drm_enpu_submit_bo){
			.handle = desc->bos[i].bo->handle,
			.flags = desc->bos[i].access,
		};
	for (uint32_t i = 0; i < desc->in_fence_count; i++)
		fences[i] = (struct drm_enpu_fence){
			.handle = desc->in_fences[i].syncobj,
			.point = desc->in_fences[i].point,
		};
	argument = (struct drm_enpu_submit){
		.bos = desc->bo_count ? (uintptr_t)bos : 0,
		.commands = (uintptr_t)desc->commands,
		.in_fences = desc->in_fence_count ? (uintptr_t)fences : 0,
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
	if (fences != few_fences)
		free(fences);
	if (bos != few_bos)
		free(bos);
	return status;
}
