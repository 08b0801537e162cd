// SPDX-License-Identifier: GPL-2.0
/*
 * BOOT: DMA-read the image, verify it with the driver's own parser
 * (firmware-loader/enpu_fw_image.c, built for userspace; a boot ROM checks
 * again what the driver already checked), then start the "firmware". The
 * image is copied out of guest memory first, so the guest cannot change it
 * between the check and the use.
 */
#include <errno.h>
#include <stdlib.h>

#include "enpu_fw_image.h"
#include "shm_access.h"
#include "vnpu.h"

static uint32_t boot_failed(struct vnpu *v, uint32_t err, const char *why)
{
	vnpu_log(v, "BOOT rejected (err %u): %s", err, why);
	fw_log_printf(v, "boot: image rejected: %s", why);
	regs_set_status(v, ENPU_STATUS_WAIT_FW);
	return err;
}

uint32_t firmware_boot(struct vnpu *v, uint64_t addr, uint32_t size,
		       uint32_t *result_data)
{
	struct enpu_fw_image_info info;
	const char *reason;
	uint8_t *image;
	char why[160];
	int ret;

	regs_set_status(v, ENPU_STATUS_BOOTING);
	if (v->fail_boots) {
		v->fail_boots--;
		return boot_failed(v, ENPU_ERR_INJECTED,
				   "injected boot failure (fail-boot)");
	}
	if (!guest_ram_range_ok(&v->ram, addr, size)) {
		snprintf(why, sizeof(why),
			 "image at 0x%llx+%u is outside guest RAM (%llu bytes)",
			 (unsigned long long)addr, size,
			 (unsigned long long)v->ram.size);
		return boot_failed(v, ENPU_ERR_DMA_FAULT, why);
	}
	/* Bounds the host allocation; the parser judges the contents. */
	if (size < sizeof(struct enpu_fw_header) ||
	    size > sizeof(struct enpu_fw_header) + ENPU_FW_MAX_PAYLOAD) {
		snprintf(why, sizeof(why), "image size %u out of range", size);
		return boot_failed(v, ENPU_ERR_FW_FORMAT, why);
	}
	image = malloc(size);
	if (!image)
		return boot_failed(v, ENPU_ERR_BAD_ARGUMENT,
				   "no host memory for the image");
	guest_ram_read(&v->ram, addr, image, size);
	v->perf_dma_bytes += size;
	regs_publish_perf(v);
	ret = enpu_fw_image_parse(image, size, &info, &reason);
	free(image);
	if (ret == -EBADMSG)
		return boot_failed(v, ENPU_ERR_FW_DIGEST, reason);
	if (ret == -ENOEXEC) {
		snprintf(why, sizeof(why), "firmware API %u, device speaks %u",
			 info.header.api_version, ENPU_FW_API_VERSION);
		return boot_failed(v, ENPU_ERR_FW_API, why);
	}
	if (ret)
		return boot_failed(v, ENPU_ERR_FW_FORMAT, reason);

	shm_write32(v->shm, ENPU_REG_FW_VERSION, info.fw_version);
	shm_write32(v->shm, ENPU_REG_FW_API_VERSION, info.api_version);
	heartbeat_restart(v);
	fw_log_printf(v, "ENPU firmware %u.%u.%u (API %u) running",
		      info.fw_version >> 16, (info.fw_version >> 8) & 0xff,
		      info.fw_version & 0xff, info.api_version);
	regs_set_status(v, ENPU_STATUS_READY);
	*result_data = info.fw_version;
	v->fw_booted = true;
	v->fw_version = info.fw_version;
	v->fw_api_version = info.api_version;
	if (v->cfg.facts_path)
		facts_write(v);
	return ENPU_ERR_NONE;
}
