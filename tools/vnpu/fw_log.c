// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware log in BAR2 (ENPU_FW_LOG_OFFSET, 64 KiB of NUL-padded
 * text): what the "firmware" says, readable by the driver's debugfs.
 * Lines are appended; when the area is full it starts over from the top,
 * so the newest lines are always there.
 */
#include <stdarg.h>
#include <string.h>

#include "vnpu.h"

#define FW_LOG_SIZE 0x10000u

void fw_log_clear(struct vnpu *v)
{
	memset(v->shm + ENPU_FW_LOG_OFFSET, 0, FW_LOG_SIZE);
}

void fw_log_printf(struct vnpu *v, const char *fmt, ...)
{
	uint8_t *log = v->shm + ENPU_FW_LOG_OFFSET;
	char line[256];
	size_t used, len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = strnlen(line, sizeof(line) - 2);
	line[len++] = '\n';
	used = strnlen((const char *)log, FW_LOG_SIZE);
	if (used + len >= FW_LOG_SIZE) {
		fw_log_clear(v);
		used = 0;
	}
	memcpy(log + used, line, len);
}
