/* SPDX-License-Identifier: MIT */
/* Internal to libenpu: the device object and error-message helpers. */
#ifndef ENPU_INTERNAL_H
#define ENPU_INTERNAL_H

#include <enpu/enpu.h>

/* Longest "enpu X.Y.Z (date)" we keep; the DRM date is 8 characters. */
#define ENPU_DRIVER_VERSION_SIZE 128

struct enpu_device {
	int fd;
	char *path;
	/* "accel" (/dev/accel, CONFIG_DRM_ACCEL kernels) or "render". */
	const char *node_type;
	char driver_version[ENPU_DRIVER_VERSION_SIZE];
	char last_error[ENPU_ERROR_MESSAGE_SIZE];
	/*
	 * Every live enpu_bo of this device, so that an import returning a
	 * handle the file already has finds the BO that owns it, and so that
	 * closing the device frees what the caller left open.
	 */
	struct enpu_bo *bos;
	/* Every live enpu_context, freed by enpu_device_close(). */
	struct enpu_context *contexts;
	/* Every live enpu_stream, freed by enpu_device_close(). */
	struct enpu_stream *streams;
};

/*
 * A stream object (enpu_stream.c): a kernel handle, or 0 on a driver
 * without stream objects, where @copy holds the stream to submit.
 */
struct enpu_stream {
	enpu_device *device;
	struct enpu_stream *next;
	uint32_t handle;
	uint32_t size;
	void *copy;
};

/* Frees every stream object of the device without the destroy ioctl. */
void enpu_stream_forget_all(enpu_device *device);

/*
 * enpu_submit() with stream object @stream (its kernel handle; the desc
 * names no commands) or 0 (the desc's commands).
 */
int enpu_submit_with(enpu_device *device, const struct enpu_submit_desc *desc,
		     uint32_t stream, uint64_t *seqno);

/* One context of the device's file (kernel id, never 0). */
struct enpu_context {
	enpu_device *device;
	struct enpu_context *next;
	uint32_t id;
};

/* Frees every context object of the device without the destroy ioctl. */
void enpu_context_forget_all(enpu_device *device);

/*
 * Appends one encoded command of size bytes to the cmdbuf, all or nothing
 * (-ENOSPC past ENPU_CMD_MAX_STREAM); name is for the message.
 */
int enpu_cmdbuf_append(enpu_cmdbuf *cmdbuf, const char *name,
		       const void *command, uint32_t size);

/*
 * One GEM handle of the device's file. references counts the successful
 * create/import calls that returned this object; map_count the nested
 * enpu_bo_map() calls.
 */
struct enpu_bo {
	enpu_device *device;
	struct enpu_bo *next;
	uint32_t handle;
	uint32_t flags;
	uint64_t size;
	uint64_t mmap_offset;
	unsigned int references;
	unsigned int map_count;
	void *map;
};

/* Unmaps and frees every BO of the device without closing handles. */
void enpu_bo_forget_all(enpu_device *device);

/*
 * Writes a formatted message into error (if not NULL) and returns status,
 * so that failure paths read `return enpu_fail(error, -EINVAL, ...)`.
 */
int enpu_fail(struct enpu_error *error, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, for the per-device message. */
int enpu_device_fail(enpu_device *device, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Opens path read-write if and only if it is an ENPU node; on success fills
 * version (may be NULL) with "enpu X.Y.Z (date)" and node_type (may be
 * NULL) with "accel", "render" or "primary" (a static string).
 */
/*
 * The absolute CLOCK_MONOTONIC deadline of a wait of timeout_ns (relative,
 * or already absolute with DRM_ENPU_WAIT_ABSOLUTE), INT64_MAX past the
 * clock's range: what DRM_IOCTL_SYNCOBJ_WAIT takes, and what JOB_WAIT is
 * given so that a restart after a signal keeps the caller's deadline.
 */
int64_t enpu_deadline_ns(int64_t timeout_ns, uint32_t flags);

int enpu_node_open(const char *path, size_t version_size, char *version,
		   const char **node_type, int *fd, struct enpu_error *error);

#endif /* ENPU_INTERNAL_H */
