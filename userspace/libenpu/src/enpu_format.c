// SPDX-License-Identifier: MIT
/* Human-readable forms of param values, shared by every tool. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "enpu_internal.h"

static int formatted(int length, size_t size)
{
	if (length < 0)
		return -EINVAL;
	return (size_t)length < size ? 0 : -ENOSPC;
}

int enpu_format_hw_version(uint64_t hw_version, size_t size, char *buffer)
{
	if (!buffer || size == 0)
		return -EINVAL;
	return formatted(snprintf(buffer, size, "%" PRIu64 ".%" PRIu64,
				  (hw_version >> 16) & 0xffff,
				  hw_version & 0xffff), size);
}

int enpu_format_fw_version(uint64_t fw_version, size_t size, char *buffer)
{
	if (!buffer || size == 0)
		return -EINVAL;
	return formatted(snprintf(buffer, size,
				  "%" PRIu64 ".%" PRIu64 ".%" PRIu64,
				  (fw_version >> 16) & 0xffff,
				  (fw_version >> 8) & 0xff, fw_version & 0xff),
			 size);
}

int enpu_format_capabilities(uint64_t capabilities, size_t size,
			     char *buffer)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ DRM_ENPU_CAP_PREEMPT, "preempt" },
		{ DRM_ENPU_CAP_DMA_COPY, "dma-copy" },
		{ DRM_ENPU_CAP_PERF_COUNTERS, "perf-counters" },
		{ DRM_ENPU_CAP_THERMAL, "thermal" },
		{ DRM_ENPU_CAP_DVFS, "dvfs" },
	};
	uint64_t remaining = capabilities;
	size_t used = 0;
	int status = 0;

	if (!buffer || size == 0)
		return -EINVAL;
	buffer[0] = '\0';
	if (!capabilities)
		return formatted(snprintf(buffer, size, "none"), size);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(capabilities & names[i].bit))
			continue;
		remaining &= ~names[i].bit;
		status = formatted(snprintf(buffer + used, size - used, "%s%s",
					    used ? "," : "", names[i].name),
				   size - used);
		if (status)
			return status;
		used += strlen(buffer + used);
	}
	if (remaining)
		status = formatted(snprintf(buffer + used, size - used,
					    "%s0x%" PRIx64, used ? "," : "",
					    remaining),
				   size - used);
	return status;
}

int enpu_param_name(uint32_t param, const char **name)
{
	static const char *const names[] = {
		[DRM_ENPU_PARAM_DEVICE_ID] = "device_id",
		[DRM_ENPU_PARAM_HW_VERSION] = "hw_version",
		[DRM_ENPU_PARAM_FW_VERSION] = "fw_version",
		[DRM_ENPU_PARAM_FW_API_VERSION] = "fw_api_version",
		[DRM_ENPU_PARAM_NUM_QUEUES] = "num_queues",
		[DRM_ENPU_PARAM_CLOCK_MIN_KHZ] = "clock_min_khz",
		[DRM_ENPU_PARAM_CLOCK_MAX_KHZ] = "clock_max_khz",
		[DRM_ENPU_PARAM_CLOCK_CUR_KHZ] = "clock_cur_khz",
		[DRM_ENPU_PARAM_CAPABILITIES] = "capabilities",
		[DRM_ENPU_PARAM_SRAM_SIZE] = "sram_size",
		[DRM_ENPU_PARAM_MACS_PER_CYCLE] = "macs_per_cycle",
		[DRM_ENPU_PARAM_TEMPERATURE_MC] = "temperature_mc",
	};

	if (!name)
		return -EINVAL;
	if (param >= sizeof(names) / sizeof(names[0]) || !names[param])
		return -EINVAL;
	*name = names[param];
	return 0;
}
