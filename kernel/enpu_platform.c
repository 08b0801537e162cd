// SPDX-License-Identifier: GPL-2.0
/*
 * Platform/DT glue for SoCs (docs/dt-bindings/enpu.yaml): one register
 * window with the same layout as the virtual NPU's BAR2, the doorbell at
 * ENPU_REG_DOORBELL inside it, and one interrupt per cause. DMA goes
 * through the SoC's interconnect as described by the device tree.
 */
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "enpu_conftest.h"
#include "enpu_device.h"
#include "enpu_drv.h"
#include "enpu_hw.h"

/* interrupt-names, in ENPU_VEC_* order. */
static const char *const enpu_platform_irq_names[ENPU_NUM_VECTORS] = {
	[ENPU_VEC_JOB_DONE] = "job",
	[ENPU_VEC_ERROR] = "error",
	[ENPU_VEC_EVENT] = "event",
	[ENPU_VEC_MAILBOX] = "mailbox",
};

static int enpu_platform_probe(struct platform_device *pdev)
{
	struct enpu_bus_resources res = { .dev = &pdev->dev };
	struct enpu_device *edev;
	struct resource *window;
	unsigned int vec;
	int ret;

	res.regs = devm_platform_get_and_ioremap_resource(pdev, 0, &window);
	if (IS_ERR(res.regs))
		return PTR_ERR(res.regs);
	if (resource_size(window) < ENPU_BAR2_SIZE) {
		dev_err(&pdev->dev, "register window %pR smaller than %u bytes\n",
			window, ENPU_BAR2_SIZE);
		return -EINVAL;
	}
	res.doorbell = NULL;

	for (vec = 0; vec < ENPU_NUM_VECTORS; vec++) {
		ret = platform_get_irq_byname(pdev,
					      enpu_platform_irq_names[vec]);
		if (ret < 0)
			return ret;
		res.irqs[vec] = ret;
	}

	ret = enpu_hw_check_signature(&pdev->dev, res.regs);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	edev = enpu_device_probe(&res);
	if (IS_ERR(edev))
		return PTR_ERR(edev);
	platform_set_drvdata(pdev, edev);
	return 0;
}

static void enpu_platform_remove(struct platform_device *pdev)
{
	enpu_device_remove(platform_get_drvdata(pdev));
}

#if !defined(ENPU_HAVE_PLATFORM_REMOVE_VOID) && \
	!defined(ENPU_HAVE_PLATFORM_REMOVE_NEW)
static int enpu_platform_remove_int(struct platform_device *pdev)
{
	enpu_platform_remove(pdev);
	return 0;
}
#endif

static const struct of_device_id enpu_of_match[] = {
	{ .compatible = "enpu,npu-v1" },
	{ }
};
MODULE_DEVICE_TABLE(of, enpu_of_match);

static struct platform_driver enpu_platform_driver = {
	.driver = {
		.name = KBUILD_MODNAME,
		.of_match_table = enpu_of_match,
		.pm = &enpu_pm_ops,
	},
	.probe = enpu_platform_probe,
#if defined(ENPU_HAVE_PLATFORM_REMOVE_VOID)
	.remove = enpu_platform_remove,
#elif defined(ENPU_HAVE_PLATFORM_REMOVE_NEW)
	.remove_new = enpu_platform_remove,
#else
	.remove = enpu_platform_remove_int,
#endif
};

/**
 * enpu_platform_register() - register the platform/DT glue
 *
 * Return: 0 or a negative errno from platform_driver_register().
 */
int enpu_platform_register(void)
{
	return platform_driver_register(&enpu_platform_driver);
}

/**
 * enpu_platform_unregister() - unregister the platform/DT glue
 */
void enpu_platform_unregister(void)
{
	platform_driver_unregister(&enpu_platform_driver);
}
