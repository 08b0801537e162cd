/* SPDX-License-Identifier: GPL-2.0 */
/* The DRM driver description shared by every bus glue. */
#ifndef ENPU_DRV_H
#define ENPU_DRV_H

#include <drm/drm_drv.h>

extern const struct drm_driver enpu_drm_driver;

int enpu_pci_register(void);
void enpu_pci_unregister(void);
int enpu_platform_register(void);
void enpu_platform_unregister(void);

#endif /* ENPU_DRV_H */
