// SPDX-License-Identifier: GPL-2.0
/*
 * User jobs. DRM_IOCTL_ENPU_SUBMIT checks every argument, charges the job
 * to its context's, file's and device's job limits (enpu_limits.h), looks
 * up the BOs, copies the command stream into a job buffer that only the
 * kernel and the device can reach (enpu_job_buf.c, charged to the
 * submitter's memory cgroup like every other allocation a submit makes),
 * or takes the stream object named by DRM_ENPU_SUBMIT_STREAM, which holds
 * such a copy made once (enpu_stream.c), validates it (enpu_validate.c;
 * a stream object skips the validator for a BO list equal to the one it
 * last passed with), takes the BOs' device mappings (made
 * once per BO, enpu_gem.c) and writes their scatter-gather lists next
 * to the stream:
 *
 *   [ command stream | BO table (32 B per BO) | segments (16 B each) ]
 *
 * The job then waits for its in-fences (syncobjs) and, unless
 * NO_IMPLICIT, for the fences in its BOs' dma_resv; its own fence goes
 * into those dma_resv before the ioctl returns. A dependency that is a job
 * fence of a lower-priority context of this device lends that context the
 * job's priority while it waits (priority inheritance, enpu_sched.c).
 * The job is handed to the scheduler (scheduler/enpu_sched.c), which
 * queues it in its context's FIFO, puts it on the device, preempts and
 * resumes it, signals its fence, and calls back here to free it: a worker
 * lets go of the mappings and frees.
 *
 * A job holds a reference to its context and its BOs and nothing of the
 * file that submitted it, so closing the file with jobs in flight is
 * safe: the context's queued jobs are cancelled, the one on the device
 * completes normally.
 *
 * Locks taken here: the dma_resv ww-mutexes of the job's BOs
 * (drm_gem_lock_reservations()), the scheduler's lock inside the
 * scheduler calls, last_job_sg_lock alone. The order is written once, in
 * scheduler/enpu_sched.c.
 */
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/overflow.h>
#include <linux/ratelimit.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "enpu_accel.h"
#include "enpu_cmd.h"
#include "enpu_context.h"
#include "enpu_device.h"
#include "enpu_fence.h"
#include "enpu_gem.h"
#include "enpu_job.h"
#include "enpu_job_buf.h"
#include "enpu_limits.h"
#include "enpu_pm.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_rerun.h"
#include "enpu_sched.h"
#include "enpu_stream.h"
#include "enpu_validate.h"

/* The device's view of the BO table and segment lists (docs/hw/vnpu.md). */
struct enpu_hw_bo_entry {
	__le64 sg_addr;
	__le32 sg_count;
	__le32 access;
	__le64 size;
	__le64 reserved;
};

struct enpu_hw_sg_entry {
	__le64 addr;
	__le64 len;
};

static_assert(sizeof(struct enpu_hw_bo_entry) == ENPU_BO_ENTRY_SIZE);
static_assert(offsetof(struct enpu_hw_bo_entry, sg_count) == ENPU_BO_SG_COUNT);
static_assert(offsetof(struct enpu_hw_bo_entry, access) == ENPU_BO_ACCESS);
static_assert(offsetof(struct enpu_hw_bo_entry, size) == ENPU_BO_SIZE);
static_assert(sizeof(struct enpu_hw_sg_entry) == ENPU_SG_ENTRY_SIZE);

/**
 * struct enpu_job_bo - one BO of a job
 * @sgt: the segments the device gets: a created BO's one device mapping
 *	(enpu_gem_device_sgt(), the BO's until it is freed), or an import's
 *	mapping shared with the other jobs in flight (@import_map).
 * @synced: @sgt is a created BO's, synced for the device at submit and
 *	for the CPU when the job is freed.
 * @import_map: the import's mapping this job holds a use of; put under
 *	the reservation lock when the job is freed.
 * @access: ENPU_BO_ACCESS_* declared by the submit.
 * @size: bytes the device may address.
 */
struct enpu_job_bo {
	struct sg_table *sgt;
	bool synced;
	struct enpu_gem_import_map *import_map;
	u32 access;
	u64 size;
};

/**
 * struct enpu_job_dep - a fence the job waits for
 * @cb: armed on @fence.
 * @fence: a reference held by the job.
 * @job: the waiting job.
 * @propagate_error: an explicit in-fence, whose error the job inherits.
 * @inherited: the job lent its priority to @fence's context
 *	(enpu_sched_inherit()); given back when @fence signals.
 *	Implicit (dma_resv) fences only order memory access: a BO that a
 *	failed job touched must stay usable, or one hang would poison every
 *	later job that shares a buffer with it.
 */
struct enpu_job_dep {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
	struct enpu_job *job;
	bool propagate_error;
	bool inherited;
};

/**
 * struct enpu_job - one submitted job
 * @ref: the ioctl holds one reference until it returns, the scheduler one
 *	from enpu_sched_push() until the free worker runs after its fence
 *	signalled.
 * @edev: the device.
 * @ctx: the context the job was submitted to; a reference.
 * @objs: the BOs in submit order, each with a reference.
 * @bos: per-BO mapping state, same order.
 * @bo_count: entries in @objs and @bos.
 * @fence_live: the fence (@sched.fence) was initialised (release with
 *	dma_fence_put()); before that it is plain memory.
 * @deps: dependencies: appended while collected, then sorted by fence
 *	context and reduced to the latest fence of each (O(n log n) with the
 *	reservations held, not a scan per fence), then armed.
 * @dep_count: entries in @deps.
 * @dep_room: entries @deps has room for.
 * @deps_armed: callbacks were added to @deps (they must be removed before
 *	the job is freed, in case one never ran).
 * @sched: what the scheduler knows: fence, descriptor, waiter (registered
 *	for the job's life), dependency count, error.
 * @waiter_registered: @sched.waiter has its id.
 * @buf: the command stream, empty for a job without one or with @stream.
 * @stream: the stream object the job runs (DRM_ENPU_SUBMIT_STREAM), a
 *	reference; NULL for a stream copied into @buf.
 * @table_buf: the BO table and segment lists, empty for a job without
 *	BOs; written under the reservation locks, once the imports are
 *	mapped.
 * @charged: holds a unit of its context's, file's and device's job
 *	quotas; given back when the fence signals (or the submit fails).
 * @cmd_size: bytes of command stream in @buf.
 * @free_work: drops the scheduler's reference in process context.
 */
struct enpu_job {
	struct kref ref;
	struct enpu_device *edev;
	struct enpu_context *ctx;
	struct drm_gem_object **objs;
	struct enpu_job_bo *bos;
	u32 bo_count;
	bool fence_live;
	struct enpu_job_dep *deps;
	u32 dep_count;
	u32 dep_room;
	bool deps_armed;
	struct enpu_sched_job sched;
	bool waiter_registered;
	struct enpu_job_buf buf;
	struct enpu_stream *stream;
	struct enpu_job_buf table_buf;
	bool charged;
	u32 cmd_size;
	struct work_struct free_work;
};

/**
 * struct enpu_job_sg_snapshot - what debugfs last_job_sg prints
 * @room: bytes allocated, so that a later job's snapshot can reuse it.
 * @bo_count: BOs of the job.
 * @bos: per BO: addressable size, ENPU_BO_ACCESS_*, segment count.
 * @segs: every segment of every BO, in order.
 */
struct enpu_job_sg_snapshot {
	size_t room;
	u32 bo_count;
	struct enpu_job_sg_bo {
		u64 size;
		u32 access;
		u32 segs;
	} *bos;
	struct enpu_job_sg_seg {
		u64 addr;
		u64 len;
	} *segs;
};

/* Gives back the job's units of its quotas; once, at signal or release. */
static void enpu_job_uncharge(struct enpu_job *job)
{
	if (!job->charged)
		return;
	job->charged = false;
	enpu_quota_give(&job->ctx->jobs);
	enpu_quota_give(&job->ctx->file->jobs);
	enpu_quota_give(&job->edev->jobs);
	enpu_pm_job_end(job->edev);
}

static void enpu_job_release(struct kref *ref)
{
	struct enpu_job *job = container_of(ref, struct enpu_job, ref);
	struct device *dev = job->edev->dev;
	u32 i;

	for (i = 0; i < job->bo_count && job->bos; i++) {
		struct enpu_job_bo *bo = &job->bos[i];

		/* Where the DMA layer must bounce or flush, it does here. */
		if (bo->synced)
			dma_sync_sgtable_for_cpu(dev, bo->sgt,
						 DMA_BIDIRECTIONAL);
		if (bo->import_map)
			enpu_gem_import_put(job->objs[i], bo->import_map);
	}
	for (i = 0; i < job->bo_count && job->objs; i++)
		if (job->objs[i])
			drm_gem_object_put(job->objs[i]);
	/* @bos lives in the allocation of @objs (enpu_job_lookup_bos()). */
	kvfree(job->objs);

	for (i = 0; i < job->dep_count; i++) {
		struct enpu_job_dep *dep = &job->deps[i];

		/* A cancelled job may finish before its dependencies. */
		if (job->deps_armed &&
		    dma_fence_remove_callback(dep->fence, &dep->cb) &&
		    dep->inherited)
			enpu_sched_disinherit(&job->sched, dep->fence);
		dma_fence_put(dep->fence);
	}
	kvfree(job->deps);
	if (job->waiter_registered)
		enpu_queue_unregister_waiter(job->edev, &job->sched.waiter);

	if (job->ctx) {
		enpu_job_buf_free(&job->ctx->bufs, &job->buf);
		enpu_job_buf_free(&job->ctx->bufs, &job->table_buf);
	}
	enpu_stream_put(job->stream);
	enpu_job_uncharge(job);
	/* Before enpu_fence_init() the fence is plain memory (enpu_fence.c). */
	if (job->fence_live)
		dma_fence_put(job->sched.fence);
	else
		enpu_fence_free_uninit(job->sched.fence);
	if (job->ctx)
		enpu_context_put(job->ctx);
	kfree(job);
}

static void enpu_job_put(struct enpu_job *job)
{
	kref_put(&job->ref, enpu_job_release);
}

static void enpu_job_free_work(struct work_struct *work)
{
	enpu_job_put(container_of(work, struct enpu_job, free_work));
}

static struct enpu_job *enpu_job_alloc(struct enpu_device *edev)
{
	struct enpu_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);

	if (!job)
		return NULL;
	job->sched.fence = enpu_fence_alloc();
	if (!job->sched.fence) {
		kfree(job);
		return NULL;
	}
	kref_init(&job->ref);
	job->edev = edev;
	INIT_WORK(&job->free_work, enpu_job_free_work);
	if (enpu_queue_register_waiter(edev, &job->sched.waiter)) {
		enpu_job_put(job);
		return NULL;
	}
	job->waiter_registered = true;
	return job;
}

/* Checks every field of the ioctl argument; nothing is allocated yet. */
static int enpu_job_check_args(struct drm_device *drm,
			       const struct drm_enpu_submit *args)
{
	u64 end;

	if (args->flags & ~DRM_ENPU_SUBMIT_FLAGS) {
		drm_dbg(drm, "SUBMIT: unknown flags 0x%x\n",
			args->flags & ~DRM_ENPU_SUBMIT_FLAGS);
		return -EINVAL;
	}
	if (args->pad || args->reserved) {
		drm_dbg(drm, "SUBMIT: pad or reserved is not 0\n");
		return -EINVAL;
	}
	if (args->flags & DRM_ENPU_SUBMIT_STREAM ?
	    args->commands || args->commands_size : args->stream) {
		drm_dbg(drm, "SUBMIT: a stream object and commands, or a stream handle without DRM_ENPU_SUBMIT_STREAM\n");
		return -EINVAL;
	}
	if (args->bo_count > DRM_ENPU_SUBMIT_MAX_BOS) {
		drm_dbg(drm, "SUBMIT: bo_count %u above %u\n", args->bo_count,
			DRM_ENPU_SUBMIT_MAX_BOS);
		return -EINVAL;
	}
	if (args->bo_count &&
	    (args->bo_stride < sizeof(struct drm_enpu_submit_bo) ||
	     args->bo_stride > DRM_ENPU_SUBMIT_MAX_STRIDE)) {
		drm_dbg(drm, "SUBMIT: bo_stride %u not in %zu..%u\n",
			args->bo_stride, sizeof(struct drm_enpu_submit_bo),
			DRM_ENPU_SUBMIT_MAX_STRIDE);
		return -EINVAL;
	}
	if (args->in_fence_count > DRM_ENPU_SUBMIT_MAX_IN_FENCES) {
		drm_dbg(drm, "SUBMIT: in_fence_count %u above %u\n",
			args->in_fence_count, DRM_ENPU_SUBMIT_MAX_IN_FENCES);
		return -EINVAL;
	}
	if (args->in_fence_count &&
	    (args->in_fence_stride < sizeof(struct drm_enpu_fence) ||
	     args->in_fence_stride > DRM_ENPU_SUBMIT_MAX_STRIDE)) {
		drm_dbg(drm, "SUBMIT: in_fence_stride %u not in %zu..%u\n",
			args->in_fence_stride, sizeof(struct drm_enpu_fence),
			DRM_ENPU_SUBMIT_MAX_STRIDE);
		return -EINVAL;
	}
	if (!enpu_cmd_stream_size_valid(args->commands_size)) {
		drm_dbg(drm, "SUBMIT: commands_size %u not a multiple of %u up to %u\n",
			args->commands_size, ENPU_CMD_ALIGN,
			ENPU_CMD_MAX_STREAM);
		return -EINVAL;
	}
	/* Arrays that wrap around the address space are bad pointers. */
	if (check_add_overflow(args->bos,
			       (u64)args->bo_count * args->bo_stride, &end) ||
	    check_add_overflow(args->in_fences,
			       (u64)args->in_fence_count * args->in_fence_stride,
			       &end) ||
	    check_add_overflow(args->commands, (u64)args->commands_size, &end))
		return -EFAULT;
	return 0;
}

/*
 * Copies entry @index of a user array of @stride-byte entries; bytes past
 * the struct the kernel knows must be zero. @stride is at most
 * DRM_ENPU_SUBMIT_MAX_STRIDE, so the zero check reads a few hundred
 * bytes, and a fatal signal ends the array walk between entries.
 */
static int enpu_job_copy_entry(void *dst, size_t size, u64 array, u32 index,
			       u32 stride)
{
	void __user *src = u64_to_user_ptr(array + (u64)index * stride);
	int ret;

	if (fatal_signal_pending(current))
		return -EINTR;
	if (copy_from_user(dst, src, size))
		return -EFAULT;
	if (stride == size)
		return 0;
	ret = check_zeroed_user(src + size, stride - size);
	if (ret < 0)
		return ret;
	return ret ? 0 : -EINVAL;
}

static int enpu_job_cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A job with up to this many BOs needs no allocation for its duplicate
 * check (a pairwise scan, at most 120 comparisons, instead of a sorted
 * copy) nor for its validator's BO array (on the stack): in the VM each
 * allocation and free cost SUBMIT a few microseconds (tests/bench/README.md).
 */
#define ENPU_JOB_FEW_BOS	16

/* Two entries naming one object would alias the same pages. */
static int enpu_job_check_duplicates(struct drm_device *drm,
				     struct drm_gem_object **objs, u32 count)
{
	struct drm_gem_object **sorted;
	int ret = 0;
	u32 i, j;

	if (count < 2)
		return 0;
	if (count <= ENPU_JOB_FEW_BOS) {
		for (i = 1; i < count; i++)
			for (j = 0; j < i; j++)
				if (objs[i] == objs[j]) {
					drm_dbg(drm, "SUBMIT: a BO is listed twice\n");
					return -EINVAL;
				}
		return 0;
	}
	sorted = kvmalloc_array(count, sizeof(*objs), GFP_KERNEL_ACCOUNT);
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, objs, count * sizeof(*objs));
	sort(sorted, count, sizeof(*sorted), enpu_job_cmp_ptr, NULL);
	for (i = 1; i < count; i++) {
		if (sorted[i] == sorted[i - 1]) {
			drm_dbg(drm, "SUBMIT: a BO is listed twice\n");
			ret = -EINVAL;
			break;
		}
	}
	kvfree(sorted);
	return ret;
}

static int enpu_job_lookup_bos(struct enpu_job *job, struct drm_file *file,
			       const struct drm_enpu_submit *args)
{
	struct drm_device *drm = &job->edev->drm;
	struct drm_enpu_submit_bo entry;
	u32 i;
	int ret;

	if (!args->bo_count)
		return 0;
	/*
	 * One allocation for both arrays: @bos follows @objs. Each
	 * allocation and its free cost SUBMIT a few microseconds in the VM.
	 */
	job->objs = kvcalloc(args->bo_count,
			     sizeof(*job->objs) + sizeof(*job->bos),
			     GFP_KERNEL_ACCOUNT);
	if (!job->objs)
		return -ENOMEM;
	job->bos = (struct enpu_job_bo *)(job->objs + args->bo_count);
	job->bo_count = args->bo_count;

	for (i = 0; i < args->bo_count; i++) {
		ret = enpu_job_copy_entry(&entry, sizeof(entry), args->bos, i,
					  args->bo_stride);
		if (ret) {
			drm_dbg(drm, "SUBMIT: bos[%u] unreadable or tail not 0\n",
				i);
			return ret;
		}
		if (!entry.flags ||
		    entry.flags & ~(DRM_ENPU_SUBMIT_BO_READ |
				    DRM_ENPU_SUBMIT_BO_WRITE)) {
			drm_dbg(drm, "SUBMIT: bos[%u].flags 0x%x invalid\n",
				i, entry.flags);
			return -EINVAL;
		}
		job->objs[i] = drm_gem_object_lookup(file, entry.handle);
		if (!job->objs[i]) {
			drm_dbg(drm, "SUBMIT: bos[%u]: no handle %u\n", i,
				entry.handle);
			return -ENOENT;
		}
		if (entry.flags & DRM_ENPU_SUBMIT_BO_READ)
			job->bos[i].access |= ENPU_BO_ACCESS_READ;
		if (entry.flags & DRM_ENPU_SUBMIT_BO_WRITE)
			job->bos[i].access |= ENPU_BO_ACCESS_WRITE;
	}
	return enpu_job_check_duplicates(drm, job->objs, job->bo_count);
}

/*
 * Adds a dependency, consuming the caller's reference. Signalled fences
 * are dropped (an explicit one's error is kept); the rest are appended,
 * and enpu_job_prepare_deps() keeps one per fence context.
 */
static int enpu_job_add_dep(struct enpu_job *job, struct dma_fence *fence,
			    bool explicit_dep)
{
	struct enpu_job_dep *deps;
	u32 room;

	if (dma_fence_is_signaled(fence)) {
		if (explicit_dep && fence->error)
			cmpxchg(&job->sched.error, 0, fence->error);
		dma_fence_put(fence);
		return 0;
	}
	if (job->dep_count == job->dep_room) {
		room = max(16u, job->dep_room * 2);
		deps = kvmalloc_array(room, sizeof(*deps), GFP_KERNEL_ACCOUNT);
		if (!deps || room <= job->dep_room) {
			kvfree(deps);
			dma_fence_put(fence);
			return -ENOMEM;
		}
		if (job->dep_count)
			memcpy(deps, job->deps, job->dep_count * sizeof(*deps));
		kvfree(job->deps);
		job->deps = deps;
		job->dep_room = room;
	}
	job->deps[job->dep_count++] = (struct enpu_job_dep){
		.fence = fence,
		.job = job,
		.propagate_error = explicit_dep,
	};
	return 0;
}

static int enpu_job_add_in_fences(struct enpu_job *job, struct drm_file *file,
				  const struct drm_enpu_submit *args)
{
	struct drm_device *drm = &job->edev->drm;
	struct drm_enpu_fence entry;
	struct dma_fence *fence;
	u32 i;
	int ret;

	for (i = 0; i < args->in_fence_count; i++) {
		ret = enpu_job_copy_entry(&entry, sizeof(entry),
					  args->in_fences, i,
					  args->in_fence_stride);
		if (ret) {
			drm_dbg(drm, "SUBMIT: in_fences[%u] unreadable or tail not 0\n",
				i);
			return ret;
		}
		if (entry.flags) {
			drm_dbg(drm, "SUBMIT: in_fences[%u].flags not 0\n", i);
			return -EINVAL;
		}
		ret = drm_syncobj_find_fence(file, entry.handle, entry.point,
					     0, &fence);
		if (ret) {
			drm_dbg(drm, "SUBMIT: in_fences[%u]: syncobj %u point %llu: %d\n",
				i, entry.handle, entry.point, ret);
			return ret;
		}
		ret = enpu_job_add_dep(job, fence, true);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Takes a shmem BO's device mapping, pinning and mapping it if it is the
 * BO's first job, and syncs it for the device. An imported BO is mapped
 * later, under its reservation lock (enpu_job_map_imports()); until then
 * the validator takes its size to be the object's.
 */
static int enpu_job_map_bo(struct enpu_job *job, u32 index)
{
	struct drm_gem_object *obj = job->objs[index];
	struct enpu_job_bo *bo = &job->bos[index];
	struct scatterlist *sg;
	struct sg_table *sgt;
	u64 mapped = 0;
	unsigned int i;

	if (obj->import_attach) {
		bo->size = obj->size;
		return 0;
	}
	sgt = enpu_gem_device_sgt(obj);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	dma_sync_sgtable_for_device(job->edev->dev, sgt, DMA_BIDIRECTIONAL);
	bo->sgt = sgt;
	bo->synced = true;
	for_each_sgtable_dma_sg(bo->sgt, sg, i)
		mapped += sg_dma_len(sg);
	bo->size = min_t(u64, obj->size, mapped);
	if (!bo->size)
		return -EINVAL;
	return 0;
}

/* The job's command stream: its stream object's, or its own copy. */
static const struct enpu_job_buf *enpu_job_cmd_buf(const struct enpu_job *job)
{
	return job->stream ? &job->stream->buf : &job->buf;
}

/*
 * The stream object, or the stream buffer; -E2BIG above one job buffer
 * (never, for a valid size).
 */
static int enpu_job_alloc_stream(struct enpu_job *job, struct drm_file *file,
				 const struct drm_enpu_submit *args)
{
	if (args->flags & DRM_ENPU_SUBMIT_STREAM) {
		job->stream = enpu_stream_lookup(file, args->stream);
		if (!job->stream) {
			drm_dbg(&job->edev->drm, "SUBMIT: no stream %u\n",
				args->stream);
			return -ENOENT;
		}
		job->cmd_size = job->stream->size;
		return 0;
	}
	job->cmd_size = args->commands_size;
	if (!job->cmd_size)
		return 0;
	return enpu_job_buf_alloc(&job->ctx->bufs, job->cmd_size, &job->buf);
}

/*
 * The BO table and segment lists, once every BO is mapped; -E2BIG when
 * they need more than one job buffer (ENPU_JOB_BUF_MAX_SIZE).
 */
static int enpu_job_alloc_table(struct enpu_job *job)
{
	u64 size, segs = 0;
	u32 i;

	if (!job->bo_count)
		return 0;
	for (i = 0; i < job->bo_count; i++)
		segs += job->bos[i].sgt->nents;
	size = (u64)job->bo_count * ENPU_BO_ENTRY_SIZE +
	       segs * ENPU_SG_ENTRY_SIZE;
	if (size > ENPU_JOB_BUF_MAX_SIZE) {
		drm_dbg(&job->edev->drm,
			"SUBMIT: BO table and %llu segments need %llu bytes, more than %u\n",
			segs, size, ENPU_JOB_BUF_MAX_SIZE);
		return -E2BIG;
	}
	return enpu_job_buf_alloc(&job->ctx->bufs, size, &job->table_buf);
}

/* Validates the stream in the job buffer against the BOs' current sizes. */
static int enpu_job_validate(struct enpu_job *job)
{
	/* A fuzzer or a broken compiler must not flood the log. */
	static DEFINE_RATELIMIT_STATE(reject_log, 5 * HZ, 10);
	struct drm_device *drm = &job->edev->drm;
	struct enpu_validate_bo few[ENPU_JOB_FEW_BOS];
	struct enpu_validate_bo *vbos = few;
	u32 i, bad_offset, rule;
	int ret;

	if (job->bo_count > ARRAY_SIZE(few)) {
		vbos = kvmalloc_array(job->bo_count, sizeof(*vbos),
				      GFP_KERNEL_ACCOUNT);
		if (!vbos)
			return -ENOMEM;
	}
	for (i = 0; i < job->bo_count; i++) {
		vbos[i].size = job->bos[i].size;
		vbos[i].access = job->bos[i].access;
	}
	if (job->stream)
		ret = enpu_stream_validate(job->stream, vbos, job->bo_count,
					   &bad_offset, &rule);
	else
		ret = enpu_validate_stream(job->buf.vaddr, job->cmd_size, vbos,
					   job->bo_count, &bad_offset, &rule);
	if (vbos != few)
		kvfree(vbos);
	if (ret && __ratelimit(&reject_log))
		drm_dbg(drm, "SUBMIT: command at byte %u rejected: rule %s\n",
			bad_offset, enpu_cmd_rule_name(rule));
	return ret;
}

static int enpu_job_copy_and_validate(struct enpu_job *job,
				      const struct drm_enpu_submit *args)
{
	if (!job->cmd_size)
		return 0;
	/* The validator's private copy; not a buffer copy (cpu_copy_bytes). */
	if (!job->stream &&
	    copy_from_user(job->buf.vaddr, u64_to_user_ptr(args->commands),
			   job->cmd_size))
		return -EFAULT;
	return enpu_job_validate(job);
}

/*
 * Maps the imported BOs for this job, with their reservations held: the
 * dynamic-importer protocol (enpu_gem.c). An exporter may have moved the
 * buffer since the last job; this mapping is where it is now (shared
 * with the jobs in flight that use the same place), and the job's fence,
 * added to the same reservation before it is unlocked, keeps the
 * exporter from moving it again before the job is done. A mapping
 * shorter than the object (an exporter's odd size) shrinks what the job
 * may address, and the stream is validated again against it.
 */
static int enpu_job_map_imports(struct enpu_job *job)
{
	bool shrunk = false;
	struct scatterlist *sg;
	unsigned int k;
	u64 mapped;
	u32 i;

	for (i = 0; i < job->bo_count; i++) {
		struct drm_gem_object *obj = job->objs[i];
		struct enpu_job_bo *bo = &job->bos[i];
		struct enpu_gem_import_map *map;

		if (!obj->import_attach)
			continue;
		if (fatal_signal_pending(current))
			return -EINTR;
		map = enpu_gem_import_get(obj);
		if (IS_ERR(map)) {
			drm_dbg(&job->edev->drm, "SUBMIT: bos[%u]: the exporter cannot map it: %ld\n",
				i, PTR_ERR(map));
			return PTR_ERR(map);
		}
		bo->import_map = map;
		bo->sgt = map->sgt;
		mapped = 0;
		for_each_sgtable_dma_sg(bo->sgt, sg, k)
			mapped += sg_dma_len(sg);
		if (!mapped)
			return -EINVAL;
		if (mapped < bo->size) {
			bo->size = mapped;
			shrunk = true;
		}
	}
	return shrunk ? enpu_job_validate(job) : 0;
}

/*
 * Room for a snapshot of @size bytes: the spare one that the snapshot
 * before the last left (enpu_job_set_last_sg()) if it is large enough,
 * else a new one; NULL without memory (debugfs then shows nothing). A
 * stream of jobs with the same BOs allocates no snapshot per SUBMIT.
 */
static struct enpu_job_sg_snapshot *enpu_job_get_snapshot(struct enpu_device *edev,
							  size_t size)
{
	struct enpu_job_sg_snapshot *snap;

	mutex_lock(&edev->job.last_sg_lock);
	snap = edev->job.spare_sg;
	if (snap && snap->room >= size)
		edev->job.spare_sg = NULL;
	else
		snap = NULL;
	mutex_unlock(&edev->job.last_sg_lock);
	if (snap)
		return snap;
	snap = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (snap)
		snap->room = size;
	return snap;
}

/* Writes the BO table and segments; returns the debugfs snapshot. */
static struct enpu_job_sg_snapshot *enpu_job_write_bo_table(struct enpu_job *job)
{
	struct enpu_hw_bo_entry *table = NULL;
	struct enpu_hw_sg_entry *segs = NULL;
	struct enpu_job_sg_snapshot *snap;
	size_t total = 0, n = 0;
	struct scatterlist *sg;
	unsigned int k;
	u32 i;

	if (job->bo_count) {
		table = job->table_buf.vaddr;
		segs = (void *)(table + job->bo_count);
	}
	for (i = 0; i < job->bo_count; i++)
		total += job->bos[i].sgt->nents;
	snap = enpu_job_get_snapshot(job->edev,
				     sizeof(*snap) +
				     job->bo_count * sizeof(*snap->bos) +
				     total * sizeof(*snap->segs));
	if (snap) {
		snap->bo_count = job->bo_count;
		snap->bos = (void *)(snap + 1);
		snap->segs = (void *)(snap->bos + job->bo_count);
	}

	for (i = 0; i < job->bo_count; i++) {
		const struct enpu_job_bo *bo = &job->bos[i];
		dma_addr_t list = job->table_buf.dma +
				  ((void *)&segs[n] - job->table_buf.vaddr);

		table[i].sg_addr = cpu_to_le64(list);
		table[i].sg_count = cpu_to_le32(bo->sgt->nents);
		table[i].access = cpu_to_le32(bo->access);
		table[i].size = cpu_to_le64(bo->size);
		table[i].reserved = 0;
		if (snap) {
			snap->bos[i].size = bo->size;
			snap->bos[i].access = bo->access;
			snap->bos[i].segs = bo->sgt->nents;
		}
		/* One segment per DMA-mapped entry; nothing is merged here. */
		for_each_sgtable_dma_sg(bo->sgt, sg, k) {
			segs[n].addr = cpu_to_le64(sg_dma_address(sg));
			segs[n].len = cpu_to_le64(sg_dma_len(sg));
			if (snap) {
				snap->segs[n].addr = sg_dma_address(sg);
				snap->segs[n].len = sg_dma_len(sg);
			}
			n++;
		}
	}
	return snap;
}

static void enpu_job_set_last_sg(struct enpu_device *edev,
				 struct enpu_job_sg_snapshot *snap)
{
	struct enpu_job_sg_snapshot *old;

	mutex_lock(&edev->job.last_sg_lock);
	old = edev->job.last_sg;
	edev->job.last_sg = snap;
	/* The one replaced becomes the spare; of two, the larger is kept. */
	if (old && (!edev->job.spare_sg || old->room > edev->job.spare_sg->room))
		swap(old, edev->job.spare_sg);
	mutex_unlock(&edev->job.last_sg_lock);
	kvfree(old);
}

/**
 * enpu_job_show_last_sg() - debugfs last_job_sg
 * @m: the seq_file.
 * @edev: the device.
 *
 * One line per BO of the last submitted job, each followed by its
 * segments; a segment may span several physically contiguous pages.
 */
void enpu_job_show_last_sg(struct seq_file *m, struct enpu_device *edev)
{
	static const char *const access[] = { "-", "r", "w", "rw" };
	struct enpu_job_sg_snapshot *snap;
	u32 i, k, n = 0;

	mutex_lock(&edev->job.last_sg_lock);
	snap = edev->job.last_sg;
	for (i = 0; snap && i < snap->bo_count; i++) {
		seq_printf(m, "bo=%u handle-size=%llu segs=%u access=%s\n", i,
			   snap->bos[i].size, snap->bos[i].segs,
			   access[snap->bos[i].access & 3]);
		for (k = 0; k < snap->bos[i].segs; k++, n++)
			seq_printf(m, "  0x%llx %llu\n", snap->segs[n].addr,
				   snap->segs[n].len);
	}
	mutex_unlock(&edev->job.last_sg_lock);
}

/* Implicit sync: writers wait for everyone, readers for writers. */
static int enpu_job_add_implicit_deps(struct enpu_job *job)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	u32 i;
	int ret;

	for (i = 0; i < job->bo_count; i++) {
		enum dma_resv_usage usage =
			(job->bos[i].access & ENPU_BO_ACCESS_WRITE) ?
			DMA_RESV_USAGE_READ : DMA_RESV_USAGE_WRITE;

		dma_resv_for_each_fence(&cursor, job->objs[i]->resv, usage,
					fence) {
			ret = enpu_job_add_dep(job, dma_fence_get(fence),
					       false);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int enpu_job_cmp_dep(const void *a, const void *b)
{
	u64 x = ((const struct enpu_job_dep *)a)->fence->context;
	u64 y = ((const struct enpu_job_dep *)b)->fence->context;

	return x < y ? -1 : x > y;
}

/*
 * Keeps the latest fence of each fence context (a context signals in
 * order, so it covers the earlier ones) and error propagation if any of
 * them was explicit: a sort and one pass, with the reservations held.
 */
static void enpu_job_prepare_deps(struct enpu_job *job)
{
	struct enpu_job_dep *deps = job->deps, *kept;
	u32 i, count = 0;

	if (job->dep_count < 2)
		return;
	sort(deps, job->dep_count, sizeof(*deps), enpu_job_cmp_dep, NULL);
	for (i = 0; i < job->dep_count; i++) {
		kept = count ? &deps[count - 1] : NULL;
		if (!kept || kept->fence->context != deps[i].fence->context) {
			deps[count++] = deps[i];
			continue;
		}
		kept->propagate_error |= deps[i].propagate_error;
		if (dma_fence_is_later(deps[i].fence, kept->fence)) {
			dma_fence_put(kept->fence);
			kept->fence = deps[i].fence;
		} else {
			dma_fence_put(deps[i].fence);
		}
	}
	job->dep_count = count;
}

static void enpu_job_retire(struct enpu_sched_job *sjob)
{
	enpu_job_uncharge(container_of(sjob, struct enpu_job, sched));
}

/* The fence signalled: free in process context (unpin, unmap, put). */
static void enpu_job_done(struct enpu_sched_job *sjob)
{
	struct enpu_job *job = container_of(sjob, struct enpu_job, sched);

	queue_work(job->edev->job.wq, &job->free_work);
}

/*
 * Would running the job again from its first command give one run's
 * result (enpu_rerun.c)? Sleeps; a failed allocation answers no, which
 * costs the job -EIO, never a double write.
 */
static bool enpu_job_rerun_safe(struct enpu_sched_job *sjob)
{
	struct enpu_job *job = container_of(sjob, struct enpu_job, sched);
	struct enpu_validate_bo *vbos;
	bool safe;
	u32 i;

	if (!job->cmd_size || !job->bo_count)
		return true;
	vbos = kvmalloc_array(job->bo_count, sizeof(*vbos), GFP_KERNEL);
	if (!vbos)
		return false;
	for (i = 0; i < job->bo_count; i++) {
		vbos[i].size = job->bos[i].size;
		vbos[i].access = job->bos[i].access;
	}
	safe = enpu_rerun_safe(enpu_job_cmd_buf(job)->vaddr, job->cmd_size, vbos,
			       job->bo_count);
	kvfree(vbos);
	return safe;
}

static const struct enpu_sched_job_ops enpu_job_sched_ops = {
	.retire = enpu_job_retire,
	.done = enpu_job_done,
	.rerun_safe = enpu_job_rerun_safe,
};

static void enpu_job_dep_signalled(struct dma_fence *fence,
				   struct dma_fence_cb *cb)
{
	struct enpu_job_dep *dep = container_of(cb, struct enpu_job_dep, cb);
	struct enpu_job *job = dep->job;

	if (dep->propagate_error && fence->error)
		cmpxchg(&job->sched.error, 0, fence->error);
	if (dep->inherited)
		enpu_sched_disinherit(&job->sched, fence);
	/* Once the count hits 0 the job may run and be freed at any time. */
	if (atomic_dec_and_test(&job->sched.deps_pending))
		enpu_sched_dep_signalled(&job->sched);
}

static void enpu_job_arm_deps(struct enpu_job *job)
{
	u32 i;

	/* The extra count (enpu_sched_job_init()) keeps it back until pushed. */
	atomic_add(job->dep_count, &job->sched.deps_pending);
	job->deps_armed = true;
	for (i = 0; i < job->dep_count; i++) {
		struct enpu_job_dep *dep = &job->deps[i];
		struct dma_fence *fence = dep->fence;

		/* Lent before the callback can run, given back by it. */
		dep->inherited = enpu_sched_inherit(&job->sched, fence);
		if (dma_fence_add_callback(fence, &dep->cb,
					   enpu_job_dep_signalled)) {
			/* Signalled meanwhile. */
			if (dep->propagate_error && fence->error)
				cmpxchg(&job->sched.error, 0, fence->error);
			if (dep->inherited)
				enpu_sched_disinherit(&job->sched, fence);
			dep->inherited = false;
			atomic_dec(&job->sched.deps_pending);
		}
	}
}

/* What the device gets; the scheduler adds the tag and the save area. */
static void enpu_job_fill_desc(struct enpu_job *job)
{
	struct enpu_job_desc *desc = &job->sched.desc;

	memset(desc, 0, sizeof(*desc));
	if (job->cmd_size) {
		desc->cmd_addr = enpu_job_cmd_buf(job)->dma;
		desc->cmd_size = job->cmd_size;
	}
	if (job->bo_count) {
		desc->bo_table_addr = job->table_buf.dma;
		desc->bo_count = job->bo_count;
	}
}

static int enpu_job_lock_and_queue(struct enpu_job *job,
				   const struct drm_enpu_submit *args,
				   struct enpu_job_sg_snapshot **snap)
{
	struct ww_acquire_ctx ctx;
	u32 i;
	int ret;

	ret = drm_gem_lock_reservations(job->objs, job->bo_count, &ctx);
	if (ret)
		return ret;
	for (i = 0; i < job->bo_count; i++) {
		ret = dma_resv_reserve_fences(job->objs[i]->resv, 1);
		if (ret)
			goto unlock;
	}
	ret = enpu_job_map_imports(job);
	if (ret)
		goto unlock;
	ret = enpu_job_alloc_table(job);
	if (ret)
		goto unlock;
	*snap = enpu_job_write_bo_table(job);
	if (job->table_buf.vaddr)
		enpu_job_buf_publish(job->edev->dev, &job->table_buf);
	if (!(args->flags & DRM_ENPU_SUBMIT_NO_IMPLICIT)) {
		ret = enpu_job_add_implicit_deps(job);
		if (ret)
			goto unlock;
	}
	enpu_job_prepare_deps(job);

	/* Nothing below can fail: the job is committed. */
	enpu_job_fill_desc(job);
	enpu_job_arm_deps(job);
	kref_get(&job->ref);	/* the scheduler's, dropped by enpu_job_free_work */
	job->fence_live = true;
	enpu_sched_push(&job->sched);
	for (i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->objs[i]->resv, job->sched.fence,
				   (job->bos[i].access & ENPU_BO_ACCESS_WRITE) ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
unlock:
	drm_gem_unlock_reservations(job->objs, job->bo_count, &ctx);
	return ret;
}

/* One unit of each quota, or -EAGAIN naming the full one. */
static int enpu_job_charge(struct enpu_job *job)
{
	static const enum enpu_limit limits[] = {
		ENPU_LIMIT_JOBS_PER_CONTEXT, ENPU_LIMIT_JOBS_PER_FILE,
		ENPU_LIMIT_JOBS,
	};
	struct enpu_quota *quotas[] = {
		&job->ctx->jobs, &job->ctx->file->jobs, &job->edev->jobs,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(quotas); i++) {
		if (enpu_quota_take(quotas[i], enpu_limit(limits[i])))
			continue;
		drm_dbg(&job->edev->drm, "SUBMIT: %u jobs in flight (%s)\n",
			enpu_quota_used(quotas[i]), enpu_limit_name(limits[i]));
		while (i--)
			enpu_quota_give(quotas[i]);
		return -EAGAIN;
	}
	job->charged = true;
	enpu_pm_job_begin(job->edev);
	return 0;
}

static int enpu_job_submit(struct enpu_device *edev, struct drm_file *file,
			   struct drm_enpu_submit *args, ktime_t entry)
{
	struct drm_syncobj *out_syncobj = NULL;
	struct enpu_job_sg_snapshot *snap = NULL;
	struct enpu_job *job;
	u32 i;
	int ret;

	job = enpu_job_alloc(edev);
	if (!job)
		return -ENOMEM;
	job->ctx = enpu_context_lookup(file, args->context);
	if (!job->ctx) {
		drm_dbg(&edev->drm, "SUBMIT: no context %u\n", args->context);
		ret = -ENOENT;
		goto out;
	}
	if (READ_ONCE(job->ctx->sched.banned)) {
		drm_dbg(&edev->drm, "SUBMIT: context %u is banned\n",
			args->context);
		ret = -ECANCELED;
		goto out;
	}
	enpu_sched_job_init(&job->sched, &job->ctx->sched, job->sched.fence,
			    &enpu_job_sched_ops);
	job->sched.entry_at = entry;
	if (READ_ONCE(edev->recovery.wedged)) {
		ret = -ENODEV;
		goto out;
	}
	ret = enpu_job_charge(job);
	if (ret)
		goto out;
	if (args->out_syncobj) {
		out_syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!out_syncobj) {
			drm_dbg(&edev->drm, "SUBMIT: no out_syncobj %u\n",
				args->out_syncobj);
			ret = -ENOENT;
			goto out;
		}
	}
	ret = enpu_job_lookup_bos(job, file, args);
	if (ret)
		goto out;
	ret = enpu_job_add_in_fences(job, file, args);
	if (ret)
		goto out;
	for (i = 0; i < job->bo_count; i++) {
		/* Pinning a large BO allocates its pages: let a kill through. */
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		ret = enpu_job_map_bo(job, i);
		if (ret) {
			drm_dbg(&edev->drm, "SUBMIT: bos[%u] cannot be mapped: %d\n",
				i, ret);
			goto out;
		}
	}
	ret = enpu_job_alloc_stream(job, file, args);
	if (ret)
		goto out;
	ret = enpu_job_copy_and_validate(job, args);
	if (ret)
		goto out;
	if (job->buf.vaddr)
		enpu_job_buf_publish(edev->dev, &job->buf);

	ret = enpu_job_lock_and_queue(job, args, &snap);
	if (ret) {
		kvfree(snap);
		goto out;
	}
	enpu_job_set_last_sg(edev, snap);
	if (out_syncobj)
		drm_syncobj_replace_fence(out_syncobj, job->sched.fence);
	args->seqno = job->sched.fence->seqno;
out:
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	enpu_job_put(job);
	return ret;
}

/**
 * enpu_job_submit_ioctl() - DRM_IOCTL_ENPU_SUBMIT
 * @drm: the DRM device.
 * @data: struct drm_enpu_submit.
 * @file: the submitting file; BO and syncobj handles are looked up there.
 *
 * Return: 0 with the job queued and @data->seqno set; otherwise nothing is
 * queued: -EAGAIN when the context, the file or the device has as many
 * jobs in flight as its limit allows (max_jobs_per_context,
 * max_jobs_per_file, max_jobs), -E2BIG when stream, BO table and
 * segment lists exceed one job buffer (ENPU_JOB_BUF_MAX_SIZE), -EINVAL
 * for a bad field, count or stride above the uapi limits
 * (DRM_ENPU_SUBMIT_MAX_*), stride tail, BO flag, duplicate BO or command
 * (see enpu_validate.c), -ENOENT for an unknown context, BO or syncobj
 * handle, -ECANCELED for a banned context, -EFAULT for an unreadable
 * pointer, -ENOMEM, -ENODEV after the device is gone, -EINTR/-ERESTARTSYS
 * for a signal (a fatal one is seen between array entries and BOs) or
 * while waiting for a BO lock.
 */
int enpu_job_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_enpu_submit *args = data;
	ktime_t entry = ktime_get();
	int ret, idx;

	ret = enpu_job_check_args(drm, args);
	if (ret)
		return ret;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = enpu_job_submit(to_enpu_device(drm), file, args, entry);
	drm_dev_exit(idx);
	return ret;
}

static void enpu_job_release_device(struct drm_device *drm, void *data)
{
	struct enpu_device *edev = data;

	if (edev->job.wq)
		destroy_workqueue(edev->job.wq);
	kvfree(edev->job.last_sg);
	kvfree(edev->job.spare_sg);
}

/*
 * SUBMIT locks up to DRM_ENPU_SUBMIT_MAX_BOS reservations of one ww class
 * under one acquire context; lockdep folds them into one held_lock whose
 * reference count is a bitfield. Checked against this kernel's field, so
 * that a larger limit fails on the debug kernel at probe, not only once a
 * submit with that many BOs comes.
 */
static void enpu_job_check_lock_limit(struct enpu_device *edev)
{
#ifdef CONFIG_LOCKDEP
	struct held_lock hlock = { .references = 0 };

	hlock.references--;	/* the largest count the field holds */
	drm_WARN_ONCE(&edev->drm, hlock.references < DRM_ENPU_SUBMIT_MAX_BOS,
		      "DRM_ENPU_SUBMIT_MAX_BOS %u above lockdep's %u nested locks\n",
		      DRM_ENPU_SUBMIT_MAX_BOS, hlock.references);
#endif
}

/**
 * enpu_job_init() - the job workqueue and debugfs snapshot, at probe
 * @edev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_job_init(struct enpu_device *edev)
{
	int ret;

	enpu_job_check_lock_limit(edev);
	ret = drmm_mutex_init(&edev->drm, &edev->job.last_sg_lock);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&edev->drm, enpu_job_release_device,
				       edev);
	if (ret)
		return ret;
	edev->job.wq = alloc_workqueue("enpu-job", WQ_UNBOUND, 0);
	if (!edev->job.wq)
		return -ENOMEM;
	return 0;
}

/**
 * enpu_job_fini() - wait for the frees of finished jobs, at removal
 * @edev: the device; the scheduler has failed and signalled every job
 *	(enpu_sched_fini()).
 */
void enpu_job_fini(struct enpu_device *edev)
{
	flush_workqueue(edev->job.wq);
}
