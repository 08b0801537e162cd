// SPDX-License-Identifier: GPL-2.0
/*
 * Firmware boot: request_firmware(), check the image, copy it into a
 * DMA-coherent buffer, send BOOT through the mailbox and wait for READY.
 * The device copies what it needs during BOOT, so the buffer is freed
 * afterwards: once BOOT was answered, once a RESET after an unanswered
 * BOOT was, or once bus mastering is off when not even RESET was (a bus
 * without that switch leaks the buffer instead). Runs before interrupts
 * are installed: the mailbox polls.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/firmware.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "enpu_device.h"
#include "enpu_fw_format.h"
#include "enpu_fw_image.h"
#include "enpu_fw_loader.h"
#include "enpu_hw.h"
#include "enpu_mailbox.h"

/* The reference timeout of the hardware specification. */
#define ENPU_FW_BOOT_TIMEOUT_MS	1000

MODULE_FIRMWARE(ENPU_FW_NAME_V1);

static const char *enpu_fw_boot_error(u32 result)
{
	switch (result) {
	case ENPU_ERR_BAD_STATE:
		return "device not waiting for firmware";
	case ENPU_ERR_DMA_FAULT:
		return "DMA fault reading the image";
	case ENPU_ERR_FW_FORMAT:
		return "image header rejected";
	case ENPU_ERR_FW_DIGEST:
		return "payload digest mismatch";
	case ENPU_ERR_FW_API:
		return "firmware API not supported by the device";
	default:
		return "unexpected error";
	}
}

/* Sends BOOT for an image already in DMA memory and checks the outcome. */
static int enpu_fw_send_boot(struct enpu_device *edev, dma_addr_t dma,
			     size_t size)
{
	struct enpu_mbox_msg msg = {
		.cmd = ENPU_MBOX_BOOT,
		.arg = { lower_32_bits(dma), upper_32_bits(dma), size },
	};
	u32 status;
	int ret;

	ret = enpu_mailbox_exec(edev, &msg, ENPU_FW_BOOT_TIMEOUT_MS);
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE) {
		dev_err(edev->dev, "firmware boot failed: %s (error %u)\n",
			enpu_fw_boot_error(msg.result), msg.result);
		return -EIO;
	}
	status = enpu_read(edev, ENPU_REG_STATUS);
	if (status != ENPU_STATUS_READY) {
		dev_err(edev->dev, "status %u after firmware boot, expected READY\n",
			status);
		return -EIO;
	}
	return 0;
}

/**
 * enpu_fw_boot() - load the firmware and boot the NPU with it
 * @edev: the device, in WAIT_FW with interrupts masked.
 *
 * Return: 0 with the device READY and @edev->fw_version set, or a negative
 * errno: from request_firmware(), -EINVAL/-EBADMSG/-ENOEXEC for a rejected
 * image, -ENOMEM, -ETIMEDOUT, or -EIO if the device refused the image.
 */
int enpu_fw_boot(struct enpu_device *edev)
{
	struct enpu_fw_image_info info;
	const struct firmware *fw;
	const char *reason = "";
	dma_addr_t dma;
	ktime_t start;
	void *buf;
	int ret;

	ret = request_firmware(&fw, ENPU_FW_NAME_V1, edev->dev);
	if (ret) {
		dev_err(edev->dev, "firmware %s not available: %d\n",
			ENPU_FW_NAME_V1, ret);
		return ret;
	}
	ret = enpu_fw_image_parse(fw->data, fw->size, &info, &reason);
	if (ret) {
		dev_err(edev->dev, "firmware %s rejected: %s\n",
			ENPU_FW_NAME_V1, reason);
		goto out_release;
	}

	buf = dma_alloc_coherent(edev->dev, fw->size, &dma, GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_release;
	}
	memcpy(buf, fw->data, fw->size);

	/* An earlier boot that went unanswered may have switched it off. */
	if (edev->set_bus_master)
		edev->set_bus_master(edev->dev, true);
	start = ktime_get();
	ret = enpu_fw_send_boot(edev, dma, fw->size);
	if (ret == -ETIMEDOUT && enpu_mailbox_reset(edev)) {
		/*
		 * The device may still be reading the image; handing the
		 * memory back could let it DMA from someone else's page.
		 * Without bus mastering it issues no memory request at all.
		 */
		if (!edev->set_bus_master) {
			dev_err(edev->dev, "device unresponsive, leaking %zu-byte firmware buffer\n",
				fw->size);
			goto out_release;
		}
		edev->set_bus_master(edev->dev, false);
		dev_err(edev->dev, "device unresponsive: bus mastering off, %zu-byte firmware buffer freed\n",
			fw->size);
	}
	dma_free_coherent(edev->dev, fw->size, buf, dma);
	if (ret)
		goto out_release;

	edev->fw_version = enpu_read(edev, ENPU_REG_FW_VERSION);
	edev->fw_api_version = enpu_read(edev, ENPU_REG_FW_API_VERSION);
	dev_info(edev->dev, "firmware %u.%u.%u (API %u) booted in %lld us\n",
		 edev->fw_version >> 16, (edev->fw_version >> 8) & 0xff,
		 edev->fw_version & 0xff, edev->fw_api_version,
		 ktime_us_delta(ktime_get(), start));
	if (edev->fw_version != info.fw_version)
		dev_warn(edev->dev, "device reports firmware 0x%x, image says 0x%x\n",
			 edev->fw_version, info.fw_version);

out_release:
	release_firmware(fw);
	return ret;
}
