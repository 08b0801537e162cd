/* SPDX-License-Identifier: GPL-2.0 */
/* debugfs: nop, ping and regs (see kernel/README.md). */
#ifndef ENPU_DEBUGFS_H
#define ENPU_DEBUGFS_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "enpu_conftest.h"

struct drm_minor;
struct enpu_device;

/**
 * struct enpu_nop - the debugfs NOP job's state, owned by enpu_debugfs.c
 * @lock: serialises the debugfs NOP job.
 * @cmd: DMA-coherent buffer holding the NOP command stream.
 * @cmd_dma: its DMA address.
 */
struct enpu_nop {
	struct mutex lock;	/* one debugfs NOP job at a time */
	void *cmd;
	dma_addr_t cmd_dma;
};

int enpu_debugfs_init(struct enpu_device *edev);
#ifndef ENPU_HAVE_DRM_DEBUGFS_ADD_FILES
void enpu_debugfs_init_minor(struct drm_minor *minor);
#endif

#endif /* ENPU_DEBUGFS_H */
