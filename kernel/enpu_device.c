// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifetime, shared by every bus glue. Probe order matters:
 * identify, boot the firmware with the mailbox polled (no handlers yet),
 * install handlers, unmask causes, and only then expose the DRM node.
 * Remove undoes it: hide the node, mask, reset; managed resources
 * (IRQs, DMA buffers, the drm_device) are released after that.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <drm/drm_drv.h>

#include "enpu_debugfs.h"
#include "enpu_devfreq.h"
#include "enpu_device.h"
#include "enpu_drv.h"
#include "enpu_fw_loader.h"
#include "enpu_hw.h"
#include "enpu_irq.h"
#include "enpu_job.h"
#include "enpu_mailbox.h"
#include "enpu_pm.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_thermal.h"

/* A device left running by a previous driver instance must start over. */
static int enpu_device_reset_if_running(struct enpu_device *edev)
{
	u32 status = enpu_read(edev, ENPU_REG_STATUS);

	if (status == ENPU_STATUS_WAIT_FW) {
		/* A previous instance may have left its indices behind. */
		enpu_hw_clear_ring_indices(edev);
		return 0;
	}
	dev_info(edev->dev, "device in state %u, resetting\n", status);
	return enpu_mailbox_reset(edev);
}

/* Quiesce the device: no interrupts, no jobs, no DMA. */
static void enpu_device_stop(struct enpu_device *edev)
{
	if (enpu_mailbox_set_irq_mask(edev, 0))
		dev_warn(edev->dev, "could not mask interrupts\n");
	if (enpu_mailbox_reset(edev))
		dev_warn(edev->dev, "reset failed; the device may still run\n");
}

/**
 * enpu_device_probe() - bring up an NPU found by a bus glue
 * @res: register window, doorbell, IRQs and struct device.
 *
 * The glue must already have checked the signature and set the DMA mask.
 * On success the DRM node is registered; undo with enpu_device_remove().
 *
 * Return: the device, or an ERR_PTR().
 */
struct enpu_device *enpu_device_probe(const struct enpu_bus_resources *res)
{
	struct enpu_device *edev;
	unsigned int vec;
	int ret;

	/*
	 * A scatter-gather segment is {u64 ADDR; u64 LEN} (docs/hw/vnpu.md),
	 * so any length a scatterlist entry holds; without this the DMA layer
	 * assumes 64 KiB and the merged segments of a BO's pages break that
	 * claim (the DMA-API debug check warns on every such mapping). No
	 * return value to check: it is void since 6.11, and the scatterlists
	 * are built with whatever dma_get_max_seg_size() then says.
	 */
	dma_set_max_seg_size(res->dev, UINT_MAX);
	edev = devm_drm_dev_alloc(res->dev, &enpu_drm_driver,
				  struct enpu_device, drm);
	if (IS_ERR(edev))
		return edev;
	edev->dev = res->dev;
	edev->regs = res->regs;
	edev->doorbell = res->doorbell;
	edev->set_bus_master = res->set_bus_master;
	for (vec = 0; vec < ENPU_NUM_VECTORS; vec++)
		edev->irqs[vec] = res->irqs[vec];
	ret = enpu_mailbox_init(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_queue_init(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_job_init(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_recovery_init(edev);
	if (ret)
		return ERR_PTR(ret);

	ret = enpu_hw_identify(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_sched_init(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_device_reset_if_running(edev);
	if (ret)
		return ERR_PTR(ret);
	ret = enpu_fw_boot(edev);
	if (ret)
		goto err_stop;
	enpu_hw_set_queue_priorities(edev);
	ret = enpu_irq_install(edev);
	if (ret)
		goto err_stop;
	ret = enpu_mailbox_set_irq_mask(edev, ENPU_IRQ_MASK_ALL);
	if (ret)
		goto err_stop;
	ret = enpu_devfreq_init(edev);
	if (ret)
		goto err_stop;
	ret = enpu_thermal_init(edev);
	if (ret)
		goto err_devfreq;
	ret = enpu_debugfs_init(edev);
	if (ret)
		goto err_thermal;
	ret = drm_dev_register(&edev->drm, 0);
	if (ret)
		goto err_thermal;
	enpu_pm_init(edev);
	return edev;

err_thermal:
	enpu_thermal_fini(edev);
err_devfreq:
	enpu_devfreq_fini(edev);
err_stop:
	/* The error interrupt may have queued recovery already. */
	enpu_recovery_fini(edev);
	enpu_device_stop(edev);
	return ERR_PTR(ret);
}

/**
 * enpu_device_remove() - tear down what enpu_device_probe() set up
 * @edev: the device.
 *
 * After drm_dev_unplug() no ioctl or debugfs reader touches the hardware
 * any more; once the watchdog and any recovery in progress are stopped,
 * the device can be masked and reset underneath. The reset
 * drops queued jobs without completions; once a job-done handler that may
 * still be running has finished, the jobs the driver holds are failed.
 */
void enpu_device_remove(struct enpu_device *edev)
{
	enpu_pm_fini(edev);
	drm_dev_unplug(&edev->drm);
	enpu_thermal_fini(edev);
	enpu_devfreq_fini(edev);
	enpu_recovery_fini(edev);
	enpu_device_stop(edev);
	synchronize_irq(edev->irqs[ENPU_VEC_JOB_DONE]);
	enpu_sched_fini(edev);
	enpu_job_fini(edev);
}
