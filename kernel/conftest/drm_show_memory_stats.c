// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: drm_show_memory_stats() prints drm-total-memory and friends for
 * a file's GEM objects, asking drm_gem_object_funcs.status which of them
 * are resident. Without it, the driver walks the file's objects itself.
 */
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

static enum drm_gem_object_status enpu_conftest_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

const struct drm_gem_object_funcs enpu_conftest_funcs = {
	.status = enpu_conftest_status,
};

typedef void (*enpu_conftest_show_t)(struct drm_printer *p,
				     struct drm_file *file);
const enpu_conftest_show_t enpu_conftest_memory = drm_show_memory_stats;
