// SPDX-License-Identifier: GPL-2.0
/* Probe: struct drm_driver still has the .date string (removed later). */
#include <drm/drm_drv.h>

const struct drm_driver enpu_conftest_driver = {
	.date = "20250101",
};
