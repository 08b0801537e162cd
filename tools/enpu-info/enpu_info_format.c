// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "enpu_info_format.h"

static int formatted(int length, size_t size)
{
	if (length < 0)
		return -EINVAL;
	return (size_t)length < size ? 0 : -ENOSPC;
}

int enpu_info_format_clock(uint64_t khz, size_t size, char *buffer)
{
	if (!buffer || size == 0)
		return -EINVAL;
	if (khz % 1000 == 0)
		return formatted(snprintf(buffer, size, "%" PRIu64 " MHz",
					  khz / 1000), size);
	return formatted(snprintf(buffer, size, "%" PRIu64 ".%03" PRIu64 " MHz",
				  khz / 1000, khz % 1000), size);
}

int enpu_info_format_temperature(int64_t millicelsius, size_t size,
				 char *buffer)
{
	/* Integer rounding to tenths, away from zero, so -2250 is -2.3. */
	int64_t magnitude = millicelsius < 0 ? -millicelsius : millicelsius;
	int64_t tenths = (magnitude + 50) / 100;

	if (!buffer || size == 0)
		return -EINVAL;
	return formatted(snprintf(buffer, size, "%s%" PRId64 ".%" PRId64 " °C",
				  millicelsius < 0 && tenths ? "-" : "",
				  tenths / 10, tenths % 10), size);
}

int enpu_info_format_bytes(uint64_t bytes, size_t size, char *buffer)
{
	static const char *const units[] = { "KiB", "MiB", "GiB" };
	const char *unit = NULL;
	uint64_t scaled = bytes;

	if (!buffer || size == 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (scaled == 0 || scaled % 1024)
			break;
		scaled /= 1024;
		unit = units[i];
	}
	if (!unit)
		return formatted(snprintf(buffer, size, "%" PRIu64 " bytes",
					  bytes), size);
	return formatted(snprintf(buffer, size, "%" PRIu64 " %s (%" PRIu64
				  " bytes)", scaled, unit, bytes), size);
}
