// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: drm_debugfs_add_files() registers debugfs files against the
 * drm_device before drm_dev_register(). Without it, files are created from
 * the drm_driver.debugfs_init callback, once per minor.
 */
#include <drm/drm_debugfs.h>
#include <drm/drm_device.h>

void enpu_conftest_debugfs(struct drm_device *drm,
			   const struct drm_debugfs_info *files, int count);
void enpu_conftest_debugfs(struct drm_device *drm,
			   const struct drm_debugfs_info *files, int count)
{
	drm_debugfs_add_files(drm, files, count);
}
