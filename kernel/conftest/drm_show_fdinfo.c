// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: the DRM core prints the common fdinfo keys (drm_show_fdinfo():
 * drm-driver, drm-client-id from drm_file.client_id, drm-pdev) and calls
 * drm_driver.show_fdinfo for the rest. Without it, the driver's
 * file_operations.show_fdinfo prints every key itself.
 */
#include <linux/fs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

static void enpu_conftest_show(struct drm_printer *p, struct drm_file *file)
{
	drm_printf(p, "drm-client-id:\t%llu\n", file->client_id);
}

const struct drm_driver enpu_conftest_driver = {
	.show_fdinfo = enpu_conftest_show,
};

const struct file_operations enpu_conftest_fops = {
	.show_fdinfo = drm_show_fdinfo,
};
