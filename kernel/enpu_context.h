/* SPDX-License-Identifier: GPL-2.0 */
/* Per-file contexts: priority, hardware queue, hang accounting, ban. */
#ifndef ENPU_CONTEXT_H
#define ENPU_CONTEXT_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "enpu_job_buf.h"
#include "enpu_limits.h"
#include "enpu_sched.h"

struct drm_device;
struct drm_file;
struct enpu_device;
struct enpu_file;

/* Hangs after which a context is banned (docs/jobs.md). */
#define ENPU_CONTEXT_BAN_HANGS	3

/**
 * struct enpu_context - a stream of jobs of one open file
 * @ref: one for the file's table until destroy or close, one per job.
 * @id: the uapi id; 0 is the per-file default context.
 * @priority: enum drm_enpu_priority.
 * @hang_count: hangs its jobs caused.
 * @edev: the device.
 * @file: the file that created it; a reference (its job quota).
 * @jobs: its jobs whose fence has not signalled, against
 *	ENPU_LIMIT_JOBS_PER_CONTEXT; this is also the scheduler's
 *	per-context queue limit (docs/scheduler.md).
 * @device_counted: holds a unit of the device's context quota (every
 *	context but context 0), given back when the context is freed.
 * @bufs: job buffers kept mapped for its next jobs (enpu_job_buf.c).
 * @sched: its scheduling state: FIFO, fence timeline, save area, the
 *	banned and closed flags and the job counters (scheduler/).
 */
struct enpu_context {
	struct kref ref;
	u32 id;
	u32 priority;
	atomic_t hang_count;
	struct enpu_device *edev;
	struct enpu_file *file;
	struct enpu_quota jobs;
	bool device_counted;
	struct enpu_job_buf_cache bufs;
	struct enpu_sched_ctx sched;
};

/**
 * struct enpu_file - driver state of one open file
 * @ref: one for the open file, one per context; the file's job quota
 *	outlives the file for as long as a job of it may run.
 * @contexts: id -> struct enpu_context, context 0 included; the xarray's
 *	lock makes lookup-and-get atomic against erase. Destroyed at close.
 * @streams: handle -> struct enpu_stream (enpu_stream.c), the same way;
 *	its handles are dropped at close.
 * @jobs: jobs of all its contexts whose fence has not signalled, against
 *	ENPU_LIMIT_JOBS_PER_FILE.
 * @usage: device time and cycles of its jobs, for fdinfo; every context's
 *	scheduling state points here.
 * @client_id: drm-client-id on kernels whose drm_file has none
 *	(enpu_fdinfo.c).
 */
struct enpu_file {
	struct kref ref;
	struct xarray contexts;
	struct xarray streams;
	struct enpu_quota jobs;
	struct enpu_usage usage;
	u64 client_id;
};

int enpu_context_cache_init(void);
void enpu_context_cache_fini(void);
int enpu_context_file_open(struct drm_device *drm, struct drm_file *file);
void enpu_context_file_close(struct drm_device *drm, struct drm_file *file);
struct enpu_context *enpu_context_lookup(struct drm_file *file, u32 id);
struct enpu_context *enpu_context_get(struct enpu_context *ctx);
void enpu_context_put(struct enpu_context *ctx);
int enpu_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int enpu_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int enpu_context_query_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);

#endif /* ENPU_CONTEXT_H */
