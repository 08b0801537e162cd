// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects. Every BO is a drm_gem_shmem object, whether created here
 * or imported from another driver's dma-buf (the shmem helper wraps the
 * exporter's sg_table): mmap through the DRM node, PRIME export/import and
 * vmap are the helpers'. What is ours: the creation flags (write-combined
 * CPU mapping, device-only BOs without any CPU mapping), the size limit,
 * BO_INFO and BO_WAIT.
 *
 * A created BO is pinned and DMA-mapped for the device once, by its
 * first job, and stays so until it is freed (enpu_gem_device_sgt(); the
 * way drm_gem_shmem_get_pages_sgt() serves panfrost, v3d or ivpu): every
 * later job, and every job in flight at the same time, uses that one
 * mapping. Mapping per job would map the same pages again while another
 * job (or a second entry of the same job) had them mapped: the DMA API
 * does not support overlapping mappings (its debug checks say
 * "overlapping mappings aren't supported") and a non-coherent or
 * bouncing DMA layer would copy or flush one mapping under the other.
 * Our own table rather than the helper's because the helper allocates it
 * uncharged and takes a lock that differs between 6.1 (pages_lock) and
 * 6.12 (the reservation, which SUBMIT must not hold yet); pinning goes
 * through drm_gem_shmem_pin() as before. The price: pages a job used
 * stay resident until the BO is freed (no shrinker, like those drivers);
 * a BO no job used may still be swapped out.
 *
 * Imports are dynamic (dma_buf_dynamic_attach() with move_notify): the
 * import maps nothing; the first job that needs the buffer maps it under
 * its reservation lock (enpu_gem_import_get(), from SUBMIT with the
 * job's reservations held), jobs in flight together share that mapping,
 * and the last of them unmaps it when it is freed, so an exporter that
 * can move its buffers (one with pin/unpin ops) may move them between
 * jobs and never while a job may use them: the jobs' fences are in the
 * same reservation, which the exporter waits for before moving.
 * move_notify forgets the shared mapping, so that later jobs map the
 * buffer where it is now; the jobs still using the old one unmap it
 * when done. With CONFIG_DMABUF_MOVE_NOTIFY off (Debian's 6.1) the
 * dma-buf core pins such a buffer for as long as a mapping exists, so:
 * while jobs use it, instead of from import to close. A pinned exporter
 * (vgem, udmabuf, our own BOs in another driver) is mapped once by the
 * core at attach and gets the same table every time: still zero copy.
 *
 * No driver lock is taken here; BO_WAIT waits on the BO's dma_resv.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "enpu_accel.h"
#include "enpu_conftest.h"
#include "enpu_device.h"
#include "enpu_gem.h"
#include "enpu_job_wait.h"

MODULE_IMPORT_NS(DMA_BUF);

/* The device addresses a BO through u64 fields; this is a memory limit. */
#define ENPU_GEM_MAX_SIZE	SZ_4G

/*
 * A DEVICE_ONLY BO has no fake offset, so drm_gem_mmap() never finds it;
 * this refuses the other way in, mmap() of an exported dma-buf.
 */
static int enpu_gem_mmap(struct drm_gem_object *obj,
			 struct vm_area_struct *vma)
{
	if (to_enpu_bo(obj)->flags & DRM_ENPU_BO_DEVICE_ONLY)
		return -EPERM;
	return drm_gem_shmem_object_mmap(obj, vma);
}

/**
 * enpu_gem_resident() - whether a BO's memory is in use now (fdinfo)
 * @obj: a BO of this driver.
 *
 * A shmem BO has pages from its first mmap fault or job pin until the
 * last user lets go; an import is the exporter's memory, always there.
 * Read without the object's lock: a statistic, not a decision.
 *
 * Return: true if resident.
 */
bool enpu_gem_resident(struct drm_gem_object *obj)
{
	return obj->import_attach || READ_ONCE(to_drm_gem_shmem_obj(obj)->pages);
}

#ifdef ENPU_HAVE_DRM_SHOW_MEMORY_STATS
static enum drm_gem_object_status enpu_gem_status(struct drm_gem_object *obj)
{
	return enpu_gem_resident(obj) ? DRM_GEM_OBJECT_RESIDENT : 0;
}
#endif

/*
 * Every job that used the BO held a reference to it, so none is left:
 * the device is done with the mapping.
 */
static void enpu_gem_free(struct drm_gem_object *obj)
{
	struct enpu_bo *bo = to_enpu_bo(obj);

	WARN_ON(bo->import_map);
	if (bo->sgt) {
		dma_unmap_sgtable(obj->dev->dev, bo->sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(bo->sgt);
		kfree(bo->sgt);
		drm_gem_shmem_unpin(&bo->base);
	}
	mutex_destroy(&bo->sgt_lock);
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs enpu_gem_funcs = {
	.free = enpu_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = enpu_gem_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
#ifdef ENPU_HAVE_DRM_SHOW_MEMORY_STATS
	.status = enpu_gem_status,
#endif
};

/**
 * enpu_gem_create_object() - drm_driver.gem_create_object
 * @drm: the DRM device.
 * @size: object size, already page-aligned.
 *
 * Called by the shmem helper for created and for imported objects alike,
 * so that every GEM object of this driver is a struct enpu_bo.
 *
 * Return: the embedded GEM object or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *enpu_gem_create_object(struct drm_device *drm,
					      size_t size)
{
	struct enpu_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	mutex_init(&bo->sgt_lock);
	bo->base.base.funcs = &enpu_gem_funcs;
	return &bo->base.base;
}

/**
 * enpu_gem_max_size() - largest BO size BO_CREATE accepts
 *
 * Half of the machine's RAM, at most 4 GiB, rounded down to a page:
 * shmem allocates lazily, so without a limit a single create could promise
 * far more than the machine can ever back and fail much later, at fault or
 * submit time, in the OOM killer.
 *
 * Return: the limit in bytes.
 */
u64 enpu_gem_max_size(void)
{
	u64 half_ram = ((u64)totalram_pages() << PAGE_SHIFT) / 2;

	return round_down(min_t(u64, half_ram, ENPU_GEM_MAX_SIZE), PAGE_SIZE);
}

/*
 * drm_prime_pages_to_sg() with the table charged to the submitter's
 * memory cgroup: for a large BO it is megabytes.
 */
static struct sg_table *enpu_gem_pages_to_sgt(struct device *dev,
					      struct page **pages,
					      unsigned int count)
{
	size_t max_segment = min_t(size_t, dma_max_mapping_size(dev),
				   dma_get_max_seg_size(dev));
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL_ACCOUNT);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages_segment(sgt, pages, count, 0,
						(size_t)count << PAGE_SHIFT,
						max_segment, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

/**
 * enpu_gem_device_sgt() - a created BO's pages as the device sees them
 * @obj: a BO created by this driver (not an import).
 *
 * The first call pins the pages (allocating them) and DMA-maps them;
 * every later call returns that same table, until the BO is freed (see
 * the top of this file). Process context, no reservation held.
 *
 * Return: the table, or an ERR_PTR(): -ENOMEM, -EINTR on a signal, or
 * what pinning or dma_map_sgtable() returned.
 */
struct sg_table *enpu_gem_device_sgt(struct drm_gem_object *obj)
{
	struct enpu_bo *bo = to_enpu_bo(obj);
	struct device *dev = obj->dev->dev;
	struct sg_table *sgt;
	int ret;

	/* Published whole, once, and unchanged until the BO is freed. */
	sgt = smp_load_acquire(&bo->sgt);
	if (sgt)
		return sgt;
	if (mutex_lock_interruptible(&bo->sgt_lock))
		return ERR_PTR(-EINTR);
	sgt = bo->sgt;
	if (sgt)
		goto unlock;
	ret = drm_gem_shmem_pin(&bo->base);
	if (ret) {
		sgt = ERR_PTR(ret);
		goto unlock;
	}
	sgt = enpu_gem_pages_to_sgt(dev, bo->base.pages,
				    obj->size >> PAGE_SHIFT);
	if (IS_ERR(sgt))
		goto unpin;
	ret = dma_map_sgtable(dev, sgt, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		sgt = ERR_PTR(ret);
		goto unpin;
	}
	/* Pairs with the acquire above: a reader sees the table mapped. */
	smp_store_release(&bo->sgt, sgt);
	goto unlock;
unpin:
	drm_gem_shmem_unpin(&bo->base);
unlock:
	mutex_unlock(&bo->sgt_lock);
	return sgt;
}

/**
 * enpu_gem_create_ioctl() - DRM_IOCTL_ENPU_BO_CREATE
 * @drm: the DRM device.
 * @data: struct drm_enpu_bo_create.
 * @file: the caller's file; the handle is created there.
 *
 * Return: 0; -EINVAL for unknown flags, non-zero reserved or size 0;
 * -E2BIG for a size above enpu_gem_max_size() (checked before rounding,
 * so nothing can wrap); -ENOMEM.
 */
int enpu_gem_create_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_enpu_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct enpu_bo *bo;
	u64 size;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_ENPU_BO_CREATE_FLAGS) {
		drm_dbg(drm, "BO_CREATE: unknown flags 0x%x\n",
			args->flags & ~DRM_ENPU_BO_CREATE_FLAGS);
		return -EINVAL;
	}
	if (args->reserved) {
		drm_dbg(drm, "BO_CREATE: reserved is not 0\n");
		return -EINVAL;
	}
	if (args->size == 0) {
		drm_dbg(drm, "BO_CREATE: size 0\n");
		return -EINVAL;
	}
	if (args->size > enpu_gem_max_size()) {
		drm_dbg(drm, "BO_CREATE: size %llu above limit %llu\n",
			args->size, enpu_gem_max_size());
		return -E2BIG;
	}
	size = PAGE_ALIGN(args->size);

	shmem = drm_gem_shmem_create(drm, size);
	/*
	 * shmem_file_setup() says -ENOSPC when it cannot allocate the
	 * inode (6.1's shmem_get_inode() returns NULL for every failure);
	 * the kernel's internal shmem mount has no inode or size limit, so
	 * that is memory, as is the other -ENOSPC (drm_vma_offset_add()
	 * out of mmap offsets, which BOs bounded by RAM cannot reach).
	 */
	if (shmem == ERR_PTR(-ENOSPC))
		return -ENOMEM;
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);
	bo = to_enpu_bo(&shmem->base);
	bo->flags = args->flags;
	shmem->map_wc = !!(args->flags & DRM_ENPU_BO_WC);
	if (args->flags & DRM_ENPU_BO_DEVICE_ONLY)
		drm_gem_free_mmap_offset(&shmem->base);

	ret = drm_gem_handle_create(file, &shmem->base, &handle);
	/* The handle holds the object now, or it is freed here on error. */
	drm_gem_object_put(&shmem->base);
	if (ret)
		return ret;
	args->handle = handle;
	args->size_out = size;
	return 0;
}

/**
 * enpu_gem_info_ioctl() - DRM_IOCTL_ENPU_BO_INFO
 * @drm: the DRM device.
 * @data: struct drm_enpu_bo_info.
 * @file: the caller's file.
 *
 * Return: 0, -EINVAL for non-zero reserved, -ENOENT for a handle that is
 * not one of @file's.
 */
int enpu_gem_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_enpu_bo_info *args = data;
	struct drm_gem_object *obj;
	struct enpu_bo *bo;

	if (args->reserved) {
		drm_dbg(drm, "BO_INFO: reserved is not 0\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "BO_INFO: no handle %u\n", args->handle);
		return -ENOENT;
	}
	bo = to_enpu_bo(obj);
	args->flags = bo->flags;
	if (obj->import_attach)
		args->flags |= DRM_ENPU_BO_IMPORTED;
	args->size = obj->size;
	args->mmap_offset = (bo->flags & DRM_ENPU_BO_DEVICE_ONLY) ? 0 :
			    drm_vma_node_offset_addr(&obj->vma_node);
	/* Scatter-gather, no device MMU: there is no single device address. */
	args->device_addr = 0;
	drm_gem_object_put(obj);
	return 0;
}

#define ENPU_GEM_WAIT_FLAGS \
	(DRM_ENPU_WAIT_ABSOLUTE | DRM_ENPU_WAIT_WRITERS_ONLY)

/**
 * enpu_gem_wait_ioctl() - DRM_IOCTL_ENPU_BO_WAIT
 * @drm: the DRM device.
 * @data: struct drm_enpu_bo_wait.
 * @file: the caller's file.
 *
 * Waits for the BO's writers (DRM_ENPU_WAIT_WRITERS_ONLY) or for readers
 * and writers, i.e. DMA_RESV_USAGE_WRITE or DMA_RESV_USAGE_READ fences.
 * The timeout follows enpu_wait_timeout_jiffies(); 0 (relative) only
 * polls.
 *
 * Return: 0 when idle, -ETIME on timeout, -EINVAL for unknown flags or a
 * negative timeout, -ENOENT for an unknown handle, -ERESTARTSYS on a signal.
 */
int enpu_gem_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_enpu_bo_wait *args = data;
	enum dma_resv_usage usage;
	struct drm_gem_object *obj;
	long ret;

	if (args->flags & ~ENPU_GEM_WAIT_FLAGS) {
		drm_dbg(drm, "BO_WAIT: unknown flags 0x%x\n",
			args->flags & ~ENPU_GEM_WAIT_FLAGS);
		return -EINVAL;
	}
	if (args->timeout_ns < 0) {
		drm_dbg(drm, "BO_WAIT: negative timeout %lld\n",
			args->timeout_ns);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "BO_WAIT: no handle %u\n", args->handle);
		return -ENOENT;
	}
	usage = (args->flags & DRM_ENPU_WAIT_WRITERS_ONLY) ?
		DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
	ret = dma_resv_wait_timeout(obj->resv, usage, true,
				    enpu_wait_timeout_jiffies(args->flags,
							      args->timeout_ns));
	drm_gem_object_put(obj);
	if (ret == 0)
		return -ETIME;
	return ret < 0 ? ret : 0;
}

/*
 * The exporter moves the buffer (reservation held): later jobs map it
 * afresh; the jobs using the old mapping keep it until they are done,
 * which the exporter waits for. Counted for debugfs.
 */
static void enpu_gem_move_notify(struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->importer_priv;

	dma_resv_assert_held(obj->resv);
	to_enpu_bo(obj)->import_map = NULL;
	atomic64_inc(&to_enpu_device(obj->dev)->import_moves);
}

static const struct dma_buf_attach_ops enpu_gem_importer_ops = {
	.allow_peer2peer = false,
	.move_notify = enpu_gem_move_notify,
};

/**
 * enpu_gem_prime_import() - drm_driver.gem_prime_import, a dynamic importer
 * @drm: the DRM device.
 * @dma_buf: the buffer to import.
 *
 * A dma-buf this device exported comes back as its own BO (the DRM
 * core's rule). Any other is attached dynamically and not mapped: see the
 * comment at the top of this file.
 *
 * Return: the BO, or an ERR_PTR().
 */
struct drm_gem_object *enpu_gem_prime_import(struct drm_device *drm,
					     struct dma_buf *dma_buf)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_object *obj;

	/* Our exports are drm_gem_prime_export()'s, owned by this module. */
	if (dma_buf->owner == THIS_MODULE &&
	    ((struct drm_gem_object *)dma_buf->priv)->dev == drm)
		return drm_gem_prime_import(drm, dma_buf);

	attach = dma_buf_dynamic_attach(dma_buf, drm->dev,
					&enpu_gem_importer_ops, NULL);
	if (IS_ERR(attach))
		return ERR_CAST(attach);
	get_dma_buf(dma_buf);
	obj = drm_gem_shmem_prime_import_sg_table(drm, attach, NULL);
	if (IS_ERR(obj)) {
		dma_buf_detach(dma_buf, attach);
		dma_buf_put(dma_buf);
		return obj;
	}
	obj->import_attach = attach;
	obj->resv = dma_buf->resv;
	attach->importer_priv = obj;
	return obj;
}

/**
 * enpu_gem_import_get() - the mapping of an imported BO for one more job
 * @obj: an imported BO whose reservation the caller holds.
 *
 * The jobs in flight share one mapping: the exporter's table for where
 * the buffer is now, made by the first of them.
 *
 * Return: the mapping, or an ERR_PTR(); undo with enpu_gem_import_put().
 */
struct enpu_gem_import_map *enpu_gem_import_get(struct drm_gem_object *obj)
{
	struct enpu_bo *bo = to_enpu_bo(obj);
	struct enpu_gem_import_map *map;
	struct sg_table *sgt;

	dma_resv_assert_held(obj->resv);
	map = bo->import_map;
	if (map) {
		map->users++;
		return map;
	}
	map = kmalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		return ERR_PTR(-ENOMEM);
	sgt = dma_buf_map_attachment(obj->import_attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		kfree(map);
		return ERR_CAST(sgt);
	}
	map->sgt = sgt;
	map->users = 1;
	bo->import_map = map;
	return map;
}

/**
 * enpu_gem_import_put() - undo enpu_gem_import_get()
 * @obj: the BO.
 * @map: its mapping; the job no longer uses it.
 *
 * Process context, no reservation held: it takes @obj's. The last user
 * unmaps.
 */
void enpu_gem_import_put(struct drm_gem_object *obj,
			 struct enpu_gem_import_map *map)
{
	struct enpu_bo *bo = to_enpu_bo(obj);

	dma_resv_lock(obj->resv, NULL);
	if (!--map->users) {
		if (bo->import_map == map)
			bo->import_map = NULL;
		dma_buf_unmap_attachment(obj->import_attach, map->sgt,
					 DMA_BIDIRECTIONAL);
		kfree(map);
	}
	dma_resv_unlock(obj->resv);
}
