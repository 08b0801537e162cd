/* SPDX-License-Identifier: GPL-2.0 */
/* debugfs: nop, ping and regs (see kernel/README.md). */
#ifndef ENPU_DEBUGFS_H
#define ENPU_DEBUGFS_H

#include "enpu_conftest.h"

struct drm_minor;
struct enpu_device;

int enpu_debugfs_init(struct enpu_device *edev);
#ifndef ENPU_HAVE_DRM_DEBUGFS_ADD_FILES
void enpu_debugfs_init_minor(struct drm_minor *minor);
#endif

#endif /* ENPU_DEBUGFS_H */
