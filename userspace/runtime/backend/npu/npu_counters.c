// SPDX-License-Identifier: MIT
/*
 * The device's PERF_BUSY_NS counter, read from the driver's debugfs
 * `regs` file (lines "<NAME> 0x<offset> 0x<value>"), which only root can
 * read. It counts every job of the device, other processes' too, so a
 * partition's device time from two readings is exact only when nothing
 * else runs on the NPU.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "npu.h"

#define DRI_DEBUGFS "/sys/kernel/debug/dri"

int npu_counters_find(char *path, size_t size)
{
	DIR *dri = opendir(DRI_DEBUGFS);
	struct dirent *entry;
	int status = -ENOENT;

	if (!dri)
		return -errno;
	while (status && (entry = readdir(dri))) {
		char name_path[512], name[64] = "";
		FILE *file;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(name_path, sizeof(name_path), DRI_DEBUGFS "/%s/name",
			 entry->d_name);
		file = fopen(name_path, "r");
		if (!file)
			continue;
		if (fgets(name, sizeof(name), file) && !strncmp(name, "enpu", 4)) {
			snprintf(path, size, DRI_DEBUGFS "/%s/regs",
				 entry->d_name);
			status = 0;
		}
		fclose(file);
	}
	closedir(dri);
	return status;
}

int npu_counters_busy_ns(const char *path, uint64_t *busy_ns)
{
	char line[256];
	uint64_t value = 0;
	unsigned int seen = 0;
	FILE *file;

	file = fopen(path, "r");
	if (!file)
		return -1;
	while (fgets(line, sizeof(line), file) && seen != 3) {
		char name[32];
		unsigned int offset, v;

		if (sscanf(line, "%31s 0x%x 0x%x", name, &offset, &v) != 3)
			continue;
		if (!strcmp(name, "PERF_BUSY_NS_LO")) {
			value |= v;
			seen |= 1;
		} else if (!strcmp(name, "PERF_BUSY_NS_HI")) {
			value |= (uint64_t)v << 32;
			seen |= 2;
		}
	}
	fclose(file);
	if (seen != 3)
		return -1;
	*busy_ns = value;
	return 0;
}
