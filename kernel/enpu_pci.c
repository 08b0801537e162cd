// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue for the virtual NPU: QEMU's ivshmem-doorbell device served by
 * the vnpu process. BAR0 holds the ivshmem doorbell, BAR2 the register
 * block and rings. Any ivshmem device matches the ID table, so nothing is
 * claimed before the BAR2 signature says it is an ENPU.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "enpu_device.h"
#include "enpu_drv.h"
#include "enpu_hw.h"

#define ENPU_PCI_VENDOR_IVSHMEM		0x1af4
#define ENPU_PCI_DEVICE_IVSHMEM		0x1110
#define ENPU_PCI_BAR_DOORBELL		0
#define ENPU_PCI_BAR_REGS		2

static void enpu_pci_set_bus_master(struct device *dev, bool on)
{
	if (on)
		pci_set_master(to_pci_dev(dev));
	else
		pci_clear_master(to_pci_dev(dev));
}

static int enpu_pci_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct enpu_bus_resources res = {
		.dev = &pdev->dev,
		.set_bus_master = enpu_pci_set_bus_master,
	};
	void __iomem *const *bars;
	struct enpu_device *edev;
	unsigned int vec;
	int ret, nvec;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (pci_resource_len(pdev, ENPU_PCI_BAR_REGS) < ENPU_BAR2_SIZE)
		return -ENODEV;	/* some other ivshmem user; stay quiet */
	ret = pcim_iomap_regions(pdev, BIT(ENPU_PCI_BAR_DOORBELL) |
				 BIT(ENPU_PCI_BAR_REGS), KBUILD_MODNAME);
	if (ret)
		return ret;
	bars = pcim_iomap_table(pdev);
	res.regs = bars[ENPU_PCI_BAR_REGS];
	res.doorbell = bars[ENPU_PCI_BAR_DOORBELL] + ENPU_IVSHMEM_DOORBELL;

	ret = enpu_hw_check_signature(&pdev->dev, res.regs);
	if (ret)
		return ret;

	/* No IOMMU on the virtual platform: the device reaches all of RAM. */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);

	/* Device-managed through pcim_enable_device(). */
	nvec = pci_alloc_irq_vectors(pdev, ENPU_NUM_VECTORS, ENPU_NUM_VECTORS,
				     PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "need %u MSI-X vectors (QEMU vectors=%u): %d\n",
			ENPU_NUM_VECTORS, ENPU_NUM_VECTORS, nvec);
		return nvec;
	}
	for (vec = 0; vec < ENPU_NUM_VECTORS; vec++)
		res.irqs[vec] = pci_irq_vector(pdev, vec);

	edev = enpu_device_probe(&res);
	if (IS_ERR(edev))
		return PTR_ERR(edev);
	pci_set_drvdata(pdev, edev);
	return 0;
}

static void enpu_pci_remove(struct pci_dev *pdev)
{
	enpu_device_remove(pci_get_drvdata(pdev));
}

static const struct pci_device_id enpu_pci_ids[] = {
	{ PCI_DEVICE(ENPU_PCI_VENDOR_IVSHMEM, ENPU_PCI_DEVICE_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, enpu_pci_ids);

static struct pci_driver enpu_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = enpu_pci_ids,
	.probe = enpu_pci_probe,
	.remove = enpu_pci_remove,
	.driver.pm = &enpu_pm_ops,
};

/**
 * enpu_pci_register() - register the PCI glue
 *
 * Return: 0 or a negative errno from pci_register_driver().
 */
int enpu_pci_register(void)
{
	return pci_register_driver(&enpu_pci_driver);
}

/**
 * enpu_pci_unregister() - unregister the PCI glue, removing its devices
 */
void enpu_pci_unregister(void)
{
	pci_unregister_driver(&enpu_pci_driver);
}
