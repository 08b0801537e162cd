/* SPDX-License-Identifier: GPL-2.0 */
/* Buffer objects: GEM shmem objects, mmap, PRIME, BO ioctls. */
#ifndef ENPU_GEM_H
#define ENPU_GEM_H

#include <linux/types.h>
#include <drm/drm_gem_shmem_helper.h>

struct dma_buf;
struct drm_device;
struct drm_file;
struct sg_table;

/**
 * struct enpu_bo - an ENPU buffer object
 * @base: the shmem object; imported dma-bufs are shmem objects too, with
 *	@base.base.import_attach set (a dynamic attachment) and no @base.sgt:
 *	they are mapped per job (enpu_gem_import_map()).
 * @flags: DRM_ENPU_BO_CREATE_FLAGS given at creation (0 for imports).
 */
struct enpu_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
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
struct sg_table *enpu_gem_import_map(struct drm_gem_object *obj);
void enpu_gem_import_unmap(struct drm_gem_object *obj, struct sg_table *sgt);

#endif /* ENPU_GEM_H */
