// SPDX-License-Identifier: MIT
/*
 * Stream objects: DRM_IOCTL_ENPU_STREAM_CREATE/DESTROY and SUBMIT with
 * DRM_ENPU_SUBMIT_STREAM (driver uapi 1.2). A job that runs the same
 * stream every time (a runtime's partition, once per frame) then costs
 * the kernel no copy of the stream and, with the same BO sizes, no
 * validation. On a 1.1 driver STREAM_CREATE is -EINVAL (an ioctl it does
 * not have; the arguments were checked here first), and the object keeps
 * a copy of the stream that enpu_submit_stream() submits the ordinary
 * way, so callers need not care which driver they run on. Each object is
 * on its device's list, so that closing the device frees what the
 * caller left open; the kernel drops the handles with the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "enpu_internal.h"

static void unlink_stream(enpu_stream *stream)
{
	enpu_stream **link = &stream->device->streams;

	while (*link && *link != stream)
		link = &(*link)->next;
	if (*link)
		*link = stream->next;
}

static void free_stream(enpu_stream *stream)
{
	free(stream->copy);
	free(stream);
}

void enpu_stream_forget_all(enpu_device *device)
{
	while (device->streams) {
		enpu_stream *stream = device->streams;

		device->streams = stream->next;
		free_stream(stream);
	}
}

int enpu_stream_create(enpu_device *device, const void *commands,
		       uint32_t size, enpu_stream **stream)
{
	struct drm_enpu_stream_create argument;
	enpu_stream *created;
	int status;

	if (!device)
		return -EINVAL;
	if (!commands || !stream || !size ||
	    !enpu_cmd_stream_size_valid(size))
		return enpu_device_fail(device, -EINVAL,
					"%s: stream_create: commands or stream is NULL, or size %u is not a multiple of %u from %u to %u",
					device->path, size, ENPU_CMD_ALIGN,
					ENPU_CMD_ALIGN, ENPU_CMD_MAX_STREAM);
	created = calloc(1, sizeof(*created));
	if (!created)
		return enpu_device_fail(device, -ENOMEM,
					"%s: stream_create: out of memory",
					device->path);
	created->device = device;
	created->size = size;
	argument = (struct drm_enpu_stream_create){
		.commands = (uintptr_t)commands,
		.commands_size = size,
	};
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_STREAM_CREATE, &argument)) {
		status = -errno;
		if (status != -EINVAL) {
			free(created);
			return enpu_device_fail(device, status,
						"%s: STREAM_CREATE of %u bytes failed: %s",
						device->path, size,
						strerror(-status));
		}
		/* A 1.1 driver: submit a copy of our own. */
		created->copy = malloc(size);
		if (!created->copy) {
			free(created);
			return enpu_device_fail(device, -ENOMEM,
						"%s: stream_create: out of memory",
						device->path);
		}
		memcpy(created->copy, commands, size);
	} else {
		created->handle = argument.handle;
	}
	created->next = device->streams;
	device->streams = created;
	*stream = created;
	return 0;
}

int enpu_stream_destroy(enpu_stream *stream)
{
	struct drm_enpu_stream_destroy argument;
	enpu_device *device;
	int status = 0;

	if (!stream)
		return 0;
	device = stream->device;
	argument = (struct drm_enpu_stream_destroy){ .handle = stream->handle };
	/* The object goes whatever the kernel says, as a context's does. */
	if (stream->handle &&
	    drmIoctl(device->fd, DRM_IOCTL_ENPU_STREAM_DESTROY, &argument)) {
		status = -errno;
		enpu_device_fail(device, status,
				 "%s: STREAM_DESTROY of stream %u failed: %s",
				 device->path, stream->handle,
				 strerror(-status));
	}
	unlink_stream(stream);
	free_stream(stream);
	return status;
}

int enpu_stream_handle(const enpu_stream *stream, uint32_t *handle)
{
	if (!stream || !handle)
		return -EINVAL;
	*handle = stream->handle;
	return 0;
}

int enpu_submit_stream(enpu_device *device,
		       const struct enpu_submit_desc *desc,
		       const enpu_stream *stream, uint64_t *seqno)
{
	struct enpu_submit_desc copy;

	if (!device)
		return -EINVAL;
	if (!desc || !stream || stream->device != device || desc->commands ||
	    desc->commands_size || desc->flags & DRM_ENPU_SUBMIT_STREAM)
		return enpu_device_fail(device, -EINVAL,
					"%s: submit_stream: desc or stream is NULL, the stream is another device's, or desc names commands or DRM_ENPU_SUBMIT_STREAM itself",
					device->path);
	copy = *desc;
	if (stream->handle)
		return enpu_submit_with(device, &copy, stream->handle, seqno);
	copy.commands = stream->copy;
	copy.commands_size = stream->size;
	return enpu_submit(device, &copy, seqno);
}
