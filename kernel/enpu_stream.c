// SPDX-License-Identifier: GPL-2.0
/*
 * Stream objects. A runtime submits the same command stream once per
 * frame; SUBMIT with @commands copies it from user memory into a fresh
 * job buffer (zeroing the buffer's tail) and validates it every time,
 * which in a TCG guest took about 45 + 30 + 75 us of the frame's SUBMIT
 * for a 17 KB, 83-command MobileNetV2 stream. A stream object is that
 * copy made once (enpu_job_buf.c's memory, mapped for the device, never
 * written again); SUBMIT with DRM_ENPU_SUBMIT_STREAM points the job at it.
 *
 * The validator is a function of the stream and of the job's BO sizes and
 * access flags alone (enpu_validate.c), so a stream that passed with one
 * such list passes with an equal one: the object remembers the last list
 * it passed with, and a job with an equal list skips the validator. Any
 * other list, and every list a stream failed with, is validated in full.
 * Handles are per file, like GEM handles; the file's handle and each job
 * hold a reference, so a stream destroyed with jobs in flight lives until
 * they are freed.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "enpu_accel.h"
#include "enpu_cmd.h"
#include "enpu_context.h"
#include "enpu_device.h"
#include "enpu_stream.h"

/**
 * enpu_stream_file_init() - the file's empty stream table, at open
 * @efile: the new file.
 */
void enpu_stream_file_init(struct enpu_file *efile)
{
	xa_init_flags(&efile->streams, XA_FLAGS_ALLOC1);
}

static void enpu_stream_release(struct kref *ref)
{
	struct enpu_stream *stream = container_of(ref, struct enpu_stream, ref);

	enpu_job_buf_release(stream->dev, &stream->buf);
	kvfree(stream->passed);
	mutex_destroy(&stream->lock);
	kfree(stream);
}

/**
 * enpu_stream_put() - drop a reference; the last one frees the stream
 * @stream: the stream, or NULL.
 */
void enpu_stream_put(struct enpu_stream *stream)
{
	if (stream)
		kref_put(&stream->ref, enpu_stream_release);
}

/**
 * enpu_stream_file_close() - drop every handle of a closing file
 * @efile: the file; no ioctl of it runs any more.
 */
void enpu_stream_file_close(struct enpu_file *efile)
{
	struct enpu_stream *stream;
	unsigned long handle;

	xa_for_each(&efile->streams, handle, stream) {
		xa_erase(&efile->streams, handle);
		enpu_stream_put(stream);
	}
	xa_destroy(&efile->streams);
}

/**
 * enpu_stream_lookup() - find a stream of a file and take a reference
 * @file: the file whose handle it is.
 * @handle: the handle.
 *
 * Return: the stream, or NULL for an unknown handle.
 */
struct enpu_stream *enpu_stream_lookup(struct drm_file *file, u32 handle)
{
	struct enpu_file *efile = file->driver_priv;
	struct enpu_stream *stream;

	/* Under the lock that xa_erase() takes: no put can come between. */
	xa_lock(&efile->streams);
	stream = xa_load(&efile->streams, handle);
	if (stream)
		kref_get(&stream->ref);
	xa_unlock(&efile->streams);
	return stream;
}

static bool enpu_stream_passed_with(const struct enpu_stream *stream,
				    const struct enpu_validate_bo *bos,
				    u32 bo_count)
{
	u32 i;

	if (!stream->passed || stream->passed_count != bo_count)
		return false;
	/* Field by field: the struct has padding, and kvmalloc'd bytes. */
	for (i = 0; i < bo_count; i++)
		if (stream->passed[i].size != bos[i].size ||
		    stream->passed[i].access != bos[i].access)
			return false;
	return true;
}

/**
 * enpu_stream_validate() - enpu_validate_stream() of a stream object
 * @stream: the stream.
 * @bos: the job's BOs, in submit order.
 * @bo_count: entries in @bos.
 * @bad_offset: as for enpu_validate_stream(); untouched on success.
 * @rule: as for enpu_validate_stream().
 *
 * Skips the validator when @bos equals, entry by entry, the list the
 * stream last passed with; otherwise validates and, on success, keeps a
 * copy of @bos (a failed allocation only costs the next job a full
 * validation). Sleeps.
 *
 * Return: 0 if the stream is valid with @bos, -EINVAL otherwise.
 */
int enpu_stream_validate(struct enpu_stream *stream,
			 const struct enpu_validate_bo *bos, u32 bo_count,
			 u32 *bad_offset, u32 *rule)
{
	struct enpu_validate_bo *copy;
	int ret;

	mutex_lock(&stream->lock);
	if (enpu_stream_passed_with(stream, bos, bo_count)) {
		mutex_unlock(&stream->lock);
		*rule = ENPU_RULE_NONE;
		return 0;
	}
	ret = enpu_validate_stream(stream->buf.vaddr, stream->size, bos,
				   bo_count, bad_offset, rule);
	if (!ret && bo_count) {
		copy = kvmalloc_array(bo_count, sizeof(*copy),
				      GFP_KERNEL_ACCOUNT);
		if (copy) {
			memcpy(copy, bos, bo_count * sizeof(*copy));
			kvfree(stream->passed);
			stream->passed = copy;
			stream->passed_count = bo_count;
		}
	}
	mutex_unlock(&stream->lock);
	return ret;
}

/**
 * enpu_stream_create_ioctl() - DRM_IOCTL_ENPU_STREAM_CREATE
 * @drm: the DRM device.
 * @data: struct drm_enpu_stream_create.
 * @file: the file that will own the handle.
 *
 * Return: 0 with @data->handle set; -EINVAL for a bad size, flags or
 * reserved field, -EFAULT for an unreadable stream, -EMFILE when the file
 * holds DRM_ENPU_MAX_STREAMS_PER_FILE streams, -ENOMEM, -ENODEV after the
 * device is gone.
 */
int enpu_stream_create_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_enpu_stream_create *args = data;
	struct enpu_file *efile = file->driver_priv;
	struct device *dev = to_enpu_device(drm)->dev;
	struct enpu_stream *stream;
	int ret, idx;
	u32 handle;

	if (args->flags || args->reserved) {
		drm_dbg(drm, "STREAM_CREATE: flags or reserved not 0\n");
		return -EINVAL;
	}
	if (!args->commands_size ||
	    !enpu_cmd_stream_size_valid(args->commands_size)) {
		drm_dbg(drm, "STREAM_CREATE: commands_size %u not a multiple of %u from %u to %u\n",
			args->commands_size, ENPU_CMD_ALIGN, ENPU_CMD_ALIGN,
			ENPU_CMD_MAX_STREAM);
		return -EINVAL;
	}
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	stream = kzalloc(sizeof(*stream), GFP_KERNEL_ACCOUNT);
	if (!stream) {
		ret = -ENOMEM;
		goto exit;
	}
	kref_init(&stream->ref);
	mutex_init(&stream->lock);
	stream->dev = dev;
	stream->size = args->commands_size;
	ret = enpu_job_buf_alloc_single(dev, stream->size, &stream->buf);
	if (ret)
		goto put;
	if (copy_from_user(stream->buf.vaddr, u64_to_user_ptr(args->commands),
			   stream->size)) {
		ret = -EFAULT;
		goto put;
	}
	enpu_job_buf_publish(dev, &stream->buf);
	ret = xa_alloc(&efile->streams, &handle, stream,
		       XA_LIMIT(1, DRM_ENPU_MAX_STREAMS_PER_FILE),
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		if (ret == -EBUSY) {
			drm_dbg(drm, "STREAM_CREATE: the file holds %u streams\n",
				DRM_ENPU_MAX_STREAMS_PER_FILE);
			ret = -EMFILE;
		}
		goto put;
	}
	args->handle = handle;
	goto exit;
put:
	enpu_stream_put(stream);
exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * enpu_stream_destroy_ioctl() - DRM_IOCTL_ENPU_STREAM_DESTROY
 * @drm: the DRM device.
 * @data: struct drm_enpu_stream_destroy.
 * @file: the file whose handle it is.
 *
 * Return: 0, -ENOENT for an unknown handle, -EINVAL for a non-zero
 * reserved field.
 */
int enpu_stream_destroy_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_enpu_stream_destroy *args = data;
	struct enpu_file *efile = file->driver_priv;
	struct enpu_stream *stream;

	if (args->reserved) {
		drm_dbg(drm, "STREAM_DESTROY: reserved not 0\n");
		return -EINVAL;
	}
	stream = xa_erase(&efile->streams, args->handle);
	if (!stream) {
		drm_dbg(drm, "STREAM_DESTROY: no stream %u\n", args->handle);
		return -ENOENT;
	}
	enpu_stream_put(stream);
	return 0;
}
