// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts. Every open file has a table of contexts; context 0 exists from
 * open to close (NORMAL priority), others come from CONTEXT_CREATE. A
 * context is a scheduling entity (scheduler/enpu_sched.c: its own FIFO,
 * fence timeline and save area, its priority the policy's level), counts
 * its hangs, and is banned by recovery after ENPU_CONTEXT_BAN_HANGS hangs.
 *
 * A context is reference counted: the file's table holds one reference,
 * every job one more, so the memory outlives CONTEXT_DESTROY and file
 * close for as long as a job of it is queued. Destroy and close cancel
 * the context's jobs that have not reached the device yet (-ECANCELED on
 * their fences); jobs on the device run to completion (docs/jobs.md).
 *
 * A context is published in the file's table only once it is complete:
 * CONTEXT_CREATE allocates its id and stores it under the xarray's lock
 * and writes @id before dropping that lock, so a concurrent DESTROY of
 * the new id (which erases under the same lock) cannot free it first.
 * Contexts come from their own slab cache, so that slab debugging can be
 * switched on for them alone (slub_debug=FZPU,enpu_context, see
 * tests/kselftest/README.md).
 *
 * Locking: the xarray's own lock, around lookup-and-get and around
 * id allocation with publication; taken alone or outside nothing.
 * enpu_sched_ctx_cancel() takes the scheduler's lock with no context lock
 * held (lock order: scheduler/enpu_sched.c).
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "enpu_accel.h"
#include "enpu_context.h"
#include "enpu_fdinfo.h"
#include "enpu_device.h"
#include "enpu_stream.h"

static struct kmem_cache *enpu_context_cache;

/**
 * enpu_context_cache_init() - create the contexts' slab cache, at module load
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_context_cache_init(void)
{
	enpu_context_cache = KMEM_CACHE(enpu_context, SLAB_ACCOUNT);
	return enpu_context_cache ? 0 : -ENOMEM;
}

/**
 * enpu_context_cache_fini() - destroy it, at module unload
 *
 * Every context is gone by then: files hold the module, jobs are freed
 * before their device is removed.
 */
void enpu_context_cache_fini(void)
{
	kmem_cache_destroy(enpu_context_cache);
}

static void enpu_file_release(struct kref *ref)
{
	kfree(container_of(ref, struct enpu_file, ref));
}

static void enpu_file_put(struct enpu_file *efile)
{
	kref_put(&efile->ref, enpu_file_release);
}

static struct enpu_context *enpu_context_alloc(struct enpu_device *edev,
					       struct enpu_file *efile,
					       u32 priority)
{
	struct enpu_context *ctx = kmem_cache_zalloc(enpu_context_cache,
						     GFP_KERNEL_ACCOUNT);

	if (!ctx)
		return NULL;
	if (enpu_sched_ctx_init(edev, &ctx->sched, priority)) {
		kmem_cache_free(enpu_context_cache, ctx);
		return NULL;
	}
	kref_init(&ctx->ref);
	enpu_job_buf_cache_init(&ctx->bufs, edev->dev);
	ctx->priority = priority;
	ctx->edev = edev;
	kref_get(&efile->ref);
	ctx->file = efile;
	ctx->sched.usage = &efile->usage;
	return ctx;
}

static void enpu_context_release(struct kref *ref)
{
	struct enpu_context *ctx = container_of(ref, struct enpu_context, ref);

	enpu_sched_ctx_fini(&ctx->sched);
	enpu_job_buf_cache_fini(&ctx->bufs);
	if (ctx->device_counted)
		enpu_quota_give(&ctx->edev->contexts);
	enpu_file_put(ctx->file);
	kmem_cache_free(enpu_context_cache, ctx);
}

/**
 * enpu_context_get() - take a reference
 * @ctx: a context the caller holds a reference to.
 *
 * Return: @ctx.
 */
struct enpu_context *enpu_context_get(struct enpu_context *ctx)
{
	kref_get(&ctx->ref);
	return ctx;
}

/**
 * enpu_context_put() - drop a reference; the last one frees the context
 * @ctx: the context.
 */
void enpu_context_put(struct enpu_context *ctx)
{
	kref_put(&ctx->ref, enpu_context_release);
}

/**
 * enpu_context_lookup() - find a context of a file and take a reference
 * @file: the open file.
 * @id: the context id.
 *
 * Return: the context, or NULL if the file has no such context.
 */
struct enpu_context *enpu_context_lookup(struct drm_file *file, u32 id)
{
	struct enpu_file *efile = file->driver_priv;
	struct enpu_context *ctx;

	xa_lock(&efile->contexts);
	ctx = xa_load(&efile->contexts, id);
	if (ctx)
		enpu_context_get(ctx);
	xa_unlock(&efile->contexts);
	return ctx;
}

/* The file lets go of @ctx: its queued jobs are cancelled. */
static void enpu_context_close(struct enpu_device *edev,
			       struct enpu_context *ctx)
{
	enpu_sched_ctx_cancel(&ctx->sched);
	enpu_context_put(ctx);
}

/**
 * enpu_context_file_open() - drm_driver.open: the file's context table
 * @drm: the DRM device.
 * @file: the new file.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_context_file_open(struct drm_device *drm, struct drm_file *file)
{
	struct enpu_file *efile;
	struct enpu_context *ctx;
	int ret;

	efile = kzalloc(sizeof(*efile), GFP_KERNEL_ACCOUNT);
	if (!efile)
		return -ENOMEM;
	kref_init(&efile->ref);
	xa_init_flags(&efile->contexts, XA_FLAGS_ALLOC);
	enpu_stream_file_init(efile);
	enpu_fdinfo_file_init(efile);
	ctx = enpu_context_alloc(to_enpu_device(drm), efile,
				 DRM_ENPU_PRIORITY_NORMAL);
	if (!ctx) {
		enpu_file_put(efile);
		return -ENOMEM;
	}
	ret = xa_insert(&efile->contexts, 0, ctx, GFP_KERNEL_ACCOUNT);
	if (ret) {
		enpu_context_put(ctx);
		enpu_file_put(efile);
		return ret;
	}
	file->driver_priv = efile;
	return 0;
}

/**
 * enpu_context_file_close() - drm_driver.postclose: drop every context
 * @drm: the DRM device.
 * @file: the file being closed.
 *
 * Jobs on the device keep running; queued ones are cancelled. The
 * contexts are freed with their last job.
 */
void enpu_context_file_close(struct drm_device *drm, struct drm_file *file)
{
	struct enpu_file *efile = file->driver_priv;
	struct enpu_context *ctx;
	unsigned long id;

	xa_for_each(&efile->contexts, id, ctx) {
		xa_erase(&efile->contexts, id);
		enpu_context_close(to_enpu_device(drm), ctx);
	}
	xa_destroy(&efile->contexts);
	enpu_stream_file_close(efile);
	file->driver_priv = NULL;
	enpu_file_put(efile);
}

/**
 * enpu_context_create_ioctl() - DRM_IOCTL_ENPU_CONTEXT_CREATE
 * @drm: the DRM device.
 * @data: struct drm_enpu_context_create.
 * @file: the file that will own the context.
 *
 * Return: 0 with @data->context set; -EINVAL for a bad priority, flags or
 * reserved field, -EACCES for HIGH or REALTIME without CAP_SYS_NICE,
 * -EMFILE when the file holds max_contexts_per_file contexts besides
 * context 0, -ENOSPC when the device holds max_contexts, -ENOMEM.
 */
int enpu_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_enpu_context_create *args = data;
	struct enpu_device *edev = to_enpu_device(drm);
	struct enpu_file *efile = file->driver_priv;
	u32 per_file = enpu_limit(ENPU_LIMIT_CONTEXTS_PER_FILE);
	struct enpu_context *ctx;
	u32 id;
	int ret;

	if (args->flags || args->reserved) {
		drm_dbg(drm, "CONTEXT_CREATE: flags or reserved not 0\n");
		return -EINVAL;
	}
	if (args->priority > DRM_ENPU_PRIORITY_REALTIME) {
		drm_dbg(drm, "CONTEXT_CREATE: unknown priority %u\n",
			args->priority);
		return -EINVAL;
	}
	if (args->priority > DRM_ENPU_PRIORITY_NORMAL &&
	    !capable(CAP_SYS_NICE)) {
		drm_dbg(drm, "CONTEXT_CREATE: priority %u needs CAP_SYS_NICE\n",
			args->priority);
		return -EACCES;
	}
	if (!enpu_quota_take(&edev->contexts,
			     enpu_limit(ENPU_LIMIT_CONTEXTS))) {
		drm_dbg(drm, "CONTEXT_CREATE: device has %u contexts (%s)\n",
			enpu_quota_used(&edev->contexts),
			enpu_limit_name(ENPU_LIMIT_CONTEXTS));
		return -ENOSPC;
	}
	ctx = enpu_context_alloc(edev, efile, args->priority);
	if (!ctx) {
		enpu_quota_give(&edev->contexts);
		return -ENOMEM;
	}
	ctx->device_counted = true;
	/*
	 * __xa_alloc() stores @ctx with the lock held (it drops the lock only
	 * to allocate, before storing), so @id is written before DESTROY or
	 * a lookup can find the context. After the unlock the context may be
	 * gone already: only the local @id is used.
	 */
	xa_lock(&efile->contexts);
	/*
	 * Ids are handed out lowest first, so "no free id up to the limit"
	 * is "the file holds that many contexts" (-EBUSY from the xarray).
	 */
	ret = per_file ? __xa_alloc(&efile->contexts, &id, ctx,
				    XA_LIMIT(1, per_file), GFP_KERNEL_ACCOUNT) :
			 -EBUSY;
	if (!ret) {
		ctx->id = id;
		ctx->sched.id = id;
	}
	xa_unlock(&efile->contexts);
	if (ret) {
		enpu_context_put(ctx);
		if (ret != -EBUSY)
			return ret;
		drm_dbg(drm, "CONTEXT_CREATE: file holds %u contexts (%s)\n",
			per_file,
			enpu_limit_name(ENPU_LIMIT_CONTEXTS_PER_FILE));
		return -EMFILE;
	}
	args->context = id;
	return 0;
}

/**
 * enpu_context_destroy_ioctl() - DRM_IOCTL_ENPU_CONTEXT_DESTROY
 * @drm: the DRM device.
 * @data: struct drm_enpu_context_destroy.
 * @file: the owning file.
 *
 * Return: 0; -EINVAL for context 0 or a reserved field, -ENOENT for an id
 * the file does not have.
 */
int enpu_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_enpu_context_destroy *args = data;
	struct enpu_file *efile = file->driver_priv;
	struct enpu_context *ctx;

	if (args->reserved) {
		drm_dbg(drm, "CONTEXT_DESTROY: reserved not 0\n");
		return -EINVAL;
	}
	if (!args->context) {
		drm_dbg(drm, "CONTEXT_DESTROY: context 0 lives as long as the file\n");
		return -EINVAL;
	}
	ctx = xa_erase(&efile->contexts, args->context);
	if (!ctx) {
		drm_dbg(drm, "CONTEXT_DESTROY: no context %u\n", args->context);
		return -ENOENT;
	}
	enpu_context_close(to_enpu_device(drm), ctx);
	return 0;
}

/**
 * enpu_context_query_ioctl() - DRM_IOCTL_ENPU_CONTEXT_QUERY
 * @drm: the DRM device.
 * @data: struct drm_enpu_context_query.
 * @file: the owning file.
 *
 * Return: 0 with the counters filled in; -EINVAL for a reserved field,
 * -ENOENT for an id the file does not have.
 */
int enpu_context_query_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_enpu_context_query *args = data;
	struct enpu_context *ctx;

	if (args->reserved) {
		drm_dbg(drm, "CONTEXT_QUERY: reserved not 0\n");
		return -EINVAL;
	}
	ctx = enpu_context_lookup(file, args->context);
	if (!ctx) {
		drm_dbg(drm, "CONTEXT_QUERY: no context %u\n", args->context);
		return -ENOENT;
	}
	args->flags = READ_ONCE(ctx->sched.banned) ?
		      DRM_ENPU_CONTEXT_BANNED : 0;
	args->priority = ctx->priority;
	args->hang_count = atomic_read(&ctx->hang_count);
	args->submitted = atomic64_read(&ctx->sched.submitted);
	args->completed = atomic64_read(&ctx->sched.completed);
	enpu_context_put(ctx);
	return 0;
}
