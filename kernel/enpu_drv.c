// SPDX-License-Identifier: GPL-2.0
/*
 * The DRM driver: node type, ioctl table and module entry points. Ioctl
 * handlers stay thin and call into the file that owns the concept.
 */
#include <linux/module.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "enpu_accel.h"
#include "enpu_conftest.h"
#include "enpu_context.h"
#include "enpu_debugfs.h"
#include "enpu_device.h"
#include "enpu_drv.h"
#include "enpu_fdinfo.h"
#include "enpu_fence.h"
#include "enpu_gem.h"
#include "enpu_hw.h"
#include "enpu_job.h"
#include "enpu_job_wait.h"
#include "enpu_stream.h"

#ifdef ENPU_HAVE_DRM_ACCEL
#include <drm/drm_accel.h>
#endif

static int enpu_ioctl_get_param(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_enpu_get_param *args = data;
	int ret, idx;

	if (args->reserved) {
		drm_dbg(drm, "GET_PARAM: reserved is 0x%x, must be 0\n",
			args->reserved);
		return -EINVAL;
	}
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = enpu_hw_get_param(to_enpu_device(drm), args->param,
				&args->value);
	drm_dev_exit(idx);
	if (ret)
		drm_dbg(drm, "GET_PARAM: unknown param %u\n", args->param);
	return ret;
}

/* Ioctl numbers past this table are rejected with -EINVAL by drm_ioctl(). */
static const struct drm_ioctl_desc enpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(ENPU_GET_PARAM, enpu_ioctl_get_param,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_BO_CREATE, enpu_gem_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_BO_INFO, enpu_gem_info_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_BO_WAIT, enpu_gem_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_SUBMIT, enpu_pm_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_CONTEXT_CREATE, enpu_context_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_CONTEXT_DESTROY, enpu_context_destroy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_CONTEXT_QUERY, enpu_context_query_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_JOB_WAIT, enpu_job_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_STREAM_CREATE, enpu_stream_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(ENPU_STREAM_DESTROY, enpu_stream_destroy_ioctl,
			  DRM_RENDER_ALLOW),
};

#ifdef ENPU_HAVE_DRM_ACCEL
#define ENPU_NODE_FOPS		DRM_ACCEL_FOPS
#define ENPU_DRIVER_NODE	DRIVER_COMPUTE_ACCEL
#else
/* 6.1 has no accel class: a render node carries the same ioctls. */
#define ENPU_NODE_FOPS		DRM_GEM_FOPS
#define ENPU_DRIVER_NODE	DRIVER_RENDER
#endif

/* The node's file operations, plus fdinfo usage stats (enpu_fdinfo.c). */
static const struct file_operations enpu_fops = {
	.owner = THIS_MODULE,
	ENPU_NODE_FOPS,
	.show_fdinfo = ENPU_FDINFO_FOPS_SHOW,
};

const struct drm_driver enpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE |
			   ENPU_DRIVER_NODE,
	.ioctls = enpu_ioctls,
	.num_ioctls = ARRAY_SIZE(enpu_ioctls),
	.fops = &enpu_fops,
	.open = enpu_context_file_open,
	.postclose = enpu_context_file_close,
#ifdef ENPU_FDINFO_DRIVER_SHOW
	.show_fdinfo = ENPU_FDINFO_DRIVER_SHOW,
#endif
	/* The shmem helpers' PRIME hooks, minus dumb buffers (no display). */
	.gem_create_object = enpu_gem_create_object,
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import = enpu_gem_prime_import,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
#ifdef ENPU_HAVE_DRM_DRIVER_GEM_PRIME_MMAP
	.gem_prime_mmap = drm_gem_prime_mmap,
#endif
#ifndef ENPU_HAVE_DRM_DEBUGFS_ADD_FILES
	.debugfs_init = enpu_debugfs_init_minor,
#endif
	.name = ENPU_DRIVER_NAME,
	.desc = "ENPU edge neural processing unit",
#ifdef ENPU_HAVE_DRM_DRIVER_DATE
	.date = "20250101",
#endif
	/*
	 * The uapi version: 1.1 added DRM_IOCTL_ENPU_JOB_WAIT, 1.2 stream
	 * objects (DRM_IOCTL_ENPU_STREAM_CREATE, DRM_ENPU_SUBMIT_STREAM).
	 */
	.major = 1,
	.minor = 2,
};

static int __init enpu_init(void)
{
	int ret;

	ret = enpu_fence_cache_init();
	if (ret)
		return ret;
	ret = enpu_context_cache_init();
	if (ret)
		goto err_fence;
	ret = enpu_pci_register();
	if (ret)
		goto err_cache;
	ret = enpu_platform_register();
	if (ret)
		goto err_pci;
	return 0;

err_pci:
	enpu_pci_unregister();
err_cache:
	enpu_context_cache_fini();
err_fence:
	enpu_fence_exit();
	return ret;
}
module_init(enpu_init);

static void __exit enpu_exit(void)
{
	enpu_platform_unregister();
	enpu_pci_unregister();
	enpu_context_cache_fini();
	/*
	 * Last: the fence batch work and the last batch's RCU callback may
	 * still be running the instructions after its call_rcu() and its
	 * module_put() (enpu_fence.c); this returns once they and every
	 * earlier RCU callback (kfree_rcu of timelines) are done.
	 */
	enpu_fence_exit();
}
module_exit(enpu_exit);

MODULE_DESCRIPTION("ENPU edge NPU accelerator driver");
MODULE_LICENSE("GPL");
