/* SPDX-License-Identifier: GPL-2.0 */
/* Buffer objects: GEM shmem objects, mmap, PRIME, BO ioctls. */
#ifndef ENPU_GEM_H
#define ENPU_GEM_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <drm/drm_gem_shmem_helper.h>

struct dma_buf;
struct drm_device;
struct drm_file;
struct sg_table;

/**
 * struct enpu_gem_import_map - an imported BO's mapping, shared by jobs
 * @sgt: the exporter's dma_buf_map_attachment() table.
 * @users: jobs using it; the last one unmaps it. Under the BO's
 *	reservation lock.
 */
struct enpu_gem_import_map {
	struct sg_table *sgt;
	unsigned int users;
};

/**
 * struct enpu_bo - an ENPU buffer object
 * @base: the shmem object; imported dma-bufs are shmem objects too, with
 *	@base.base.import_attach set (a dynamic attachment) and no @base.sgt:
 *	they are mapped for the jobs using them (enpu_gem_import_get()).
 * @flags: DRM_ENPU_BO_CREATE_FLAGS given at creation (0 for imports).
 * @sgt_lock: serialises the creation of @sgt.
 * @sgt: a created BO's pages, pinned and DMA-mapped for the device from
 *	its first job until the BO is freed (enpu_gem_device_sgt()); set
 *	once, read without the lock.
 * @import_map: an import's current mapping, or NULL when no job uses it
 *	or the exporter moved the buffer since; under the reservation lock.
 */
struct enpu_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
	struct mutex sgt_lock;	/* creation of @sgt */
	struct sg_table *sgt;
	struct enpu_gem_import_map *import_map;
};

static inline struct enpu_bo *to_enpu_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct enpu_bo, base);
}

struct drm_gem_object *enpu_gem_create_object(struct drm_device *drm,
					      size_t size);
u64 enpu_gem_max_size(void);
bool enpu_gem_resident(struct drm_gem_object *obj);
int enpu_gem_create_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int enpu_gem_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int enpu_gem_wait_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
struct drm_gem_object *enpu_gem_prime_import(struct drm_device *drm,
					     struct dma_buf *dma_buf);
struct sg_table *enpu_gem_device_sgt(struct drm_gem_object *obj);
struct enpu_gem_import_map *enpu_gem_import_get(struct drm_gem_object *obj);
void enpu_gem_import_put(struct drm_gem_object *obj,
			 struct enpu_gem_import_map *map);

#endif /* ENPU_GEM_H */
