// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: the compute-accelerator DRM node (DRIVER_COMPUTE_ACCEL, /dev/accel)
 * exists and is enabled. Absent on 6.1, where the driver uses a render node.
 */
#include <drm/drm_accel.h>
#include <drm/drm_drv.h>

#ifndef CONFIG_DRM_ACCEL
#error "CONFIG_DRM_ACCEL is not set"
#endif

u32 enpu_conftest_drm_accel(void);
u32 enpu_conftest_drm_accel(void)
{
	return DRIVER_COMPUTE_ACCEL;
}
