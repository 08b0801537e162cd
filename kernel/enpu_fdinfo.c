// SPDX-License-Identifier: GPL-2.0
/*
 * fdinfo: what one open file of the device used, in the DRM usage-stats
 * format (Documentation/gpu/drm-usage-stats.rst), so that generic tools
 * (nvtop, gputop, tools/enpu-top) read it from /proc/<pid>/fdinfo/<fd>.
 *
 * The device has one engine, "npu". Its time is what the device reports:
 * every completion entry carries the cycles that run of the job took
 * (preempted runs included), and the completion path turns them into
 * device time with the device's own busy-time and cycle counters
 * (PERF_BUSY_NS / PERF_CYCLES since the previous completion batch, so a
 * clock change by devfreq in between is followed; enpu_queue.c). The
 * scheduler adds both to the file's struct enpu_usage. A job that
 * outlives its file is still counted there; nobody reads it any more.
 *
 * Memory is the file's GEM objects: the DRM core's drm_show_memory_stats()
 * where it exists, our own walk of the same objects with the same
 * resident rule (enpu_gem_resident()) before.
 */
#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "enpu_accel.h"
#include "enpu_context.h"
#include "enpu_device.h"
#include "enpu_fdinfo.h"
#include "enpu_gem.h"
#include "enpu_hw.h"

/* The drm-engine-<name>, drm-cycles-<name> and drm-maxfreq-<name> suffix. */
#define ENPU_FDINFO_ENGINE	"npu"

/**
 * enpu_fdinfo_file_init() - the usage state of a new file
 * @efile: the file's driver state, zeroed.
 *
 * Kernels whose DRM core has no drm_file.client_id get one from here:
 * unique for the module's lifetime across every device, as the format
 * asks of an id printed without drm-pdev (platform devices).
 */
void enpu_fdinfo_file_init(struct enpu_file *efile)
{
	static atomic64_t next_client_id = ATOMIC64_INIT(0);

	efile->client_id = atomic64_inc_return(&next_client_id);
}

#ifdef ENPU_HAVE_DRM_SHOW_MEMORY_STATS
static void enpu_fdinfo_memory(struct drm_printer *p, struct drm_file *file)
{
	drm_show_memory_stats(p, file);
}
#else
/* A size with the largest unit that keeps it exact, as the core does. */
static void enpu_fdinfo_size(struct drm_printer *p, const char *stat, u64 size)
{
	static const char *const units[] = { "", " KiB", " MiB" };
	unsigned int u;

	for (u = 0; u < ARRAY_SIZE(units) - 1; u++) {
		if (!size || !IS_ALIGNED(size, SZ_1K))
			break;
		size /= SZ_1K;
	}
	drm_printf(p, "drm-%s-memory:\t%llu%s\n", stat, size, units[u]);
}

static void enpu_fdinfo_memory(struct drm_printer *p, struct drm_file *file)
{
	u64 total = 0, shared = 0, resident = 0;
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		total += obj->size;
		if (obj->handle_count > 1 || obj->dma_buf)
			shared += obj->size;
		if (enpu_gem_resident(obj))
			resident += obj->size;
	}
	spin_unlock(&file->table_lock);
	enpu_fdinfo_size(p, "total", total);
	enpu_fdinfo_size(p, "shared", shared);
	enpu_fdinfo_size(p, "resident", resident);
}
#endif

/**
 * enpu_fdinfo_show() - the driver's keys of one file's fdinfo
 * @p: where to print.
 * @file: the DRM file.
 *
 * drm_driver.show_fdinfo where the DRM core has drm_show_fdinfo(), which
 * printed drm-driver, drm-client-id and drm-pdev before; called by
 * enpu_fdinfo_show_file() otherwise. drm-maxfreq-npu is left out once
 * the device is gone (its registers are).
 */
void enpu_fdinfo_show(struct drm_printer *p, struct drm_file *file)
{
	struct enpu_file *efile = file->driver_priv;
	struct drm_device *drm = file->minor->dev;
	int idx;

	drm_printf(p, "drm-engine-" ENPU_FDINFO_ENGINE ":\t%llu ns\n",
		   (u64)atomic64_read(&efile->usage.ns));
	drm_printf(p, "drm-cycles-" ENPU_FDINFO_ENGINE ":\t%llu\n",
		   (u64)atomic64_read(&efile->usage.cycles));
	if (drm_dev_enter(drm, &idx)) {
		drm_printf(p, "drm-maxfreq-" ENPU_FDINFO_ENGINE ":\t%llu Hz\n",
			   enpu_hw_clock_khz(to_enpu_device(drm),
					     DRM_ENPU_PARAM_CLOCK_MAX_KHZ) *
			   1000);
		drm_dev_exit(idx);
	}
	enpu_fdinfo_memory(p, file);
}

#ifndef ENPU_HAVE_DRM_SHOW_FDINFO
/**
 * enpu_fdinfo_show_file() - file_operations.show_fdinfo without the core's
 * @m: the fdinfo seq_file.
 * @f: the open file of the DRM node.
 *
 * Prints the common keys the DRM core prints on later kernels, then
 * enpu_fdinfo_show().
 */
void enpu_fdinfo_show_file(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct drm_device *drm = file->minor->dev;
	struct enpu_file *efile = file->driver_priv;
	struct drm_printer p = drm_seq_file_printer(m);

	drm_printf(&p, "drm-driver:\t%s\n", drm->driver->name);
	drm_printf(&p, "drm-client-id:\t%llu\n", efile->client_id);
	if (dev_is_pci(drm->dev))
		drm_printf(&p, "drm-pdev:\t%s\n",
			   pci_name(to_pci_dev(drm->dev)));
	enpu_fdinfo_show(&p, file);
}
#endif
