/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stream objects (uapi 1.2, DRM_IOCTL_ENPU_STREAM_CREATE): a command
 * stream copied once into a job buffer the device reads, for jobs that
 * run the same stream again and again.
 */
#ifndef ENPU_STREAM_H
#define ENPU_STREAM_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "enpu_job_buf.h"
#include "enpu_validate.h"

struct drm_device;
struct drm_file;
struct enpu_file;

/**
 * struct enpu_stream - one stream object
 * @ref: the file's handle holds one reference, every job using it one.
 * @dev: the device @buf is mapped for.
 * @buf: the stream, published for the device at creation and never
 *	written again.
 * @size: bytes of stream in @buf.
 * @lock: protects @passed and @passed_count; taken with no lock held, or
 *	inside a submit's reservation locks (the order in enpu_sched.c).
 * @passed: the BO sizes and access flags the stream last passed the
 *	validator with, or NULL.
 * @passed_count: entries in @passed.
 */
struct enpu_stream {
	struct kref ref;
	struct device *dev;
	struct enpu_job_buf buf;
	u32 size;
	struct mutex lock;	/* @passed, @passed_count */
	struct enpu_validate_bo *passed;
	u32 passed_count;
};

void enpu_stream_file_init(struct enpu_file *efile);
void enpu_stream_file_close(struct enpu_file *efile);
struct enpu_stream *enpu_stream_lookup(struct drm_file *file, u32 handle);
void enpu_stream_put(struct enpu_stream *stream);
int enpu_stream_validate(struct enpu_stream *stream,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset, u32 *rule);
int enpu_stream_create_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);
int enpu_stream_destroy_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);

#endif /* ENPU_STREAM_H */
