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

/*
 * The driver's debugfs directory is under accel/ where it registers an
 * accel node (6.12), under dri/ where it registers a render node (6.1).
 */
static const char *const debugfs_roots[] = {
	"/sys/kernel/debug/accel",
	"/sys/kernel/debug/dri",
};

static int counters_find_under(const char *root, char *path, size_t size)
{
	DIR *minors = opendir(root);
	struct dirent *entry;
	int status = -ENOENT;

	if (!minors)
		return -errno;
	while (status && (entry = readdir(minors))) {
		char name_path[512], name[64] = "";
		FILE *file;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(name_path, sizeof(name_path), "%s/%s/name", root,
			 entry->d_name);
		file = fopen(name_path, "r");
		if (!file)
			continue;
		if (fgets(name, sizeof(name), file) && !strncmp(name, "enpu", 4)) {
			snprintf(path, size, "%s/%s/regs", root, entry->d_name);
			status = 0;
		}
		fclose(file);
	}
	closedir(minors);
	return status;
}

int npu_counters_find(char *path, size_t size)
{
	int status = -ENOENT;

	for (size_t i = 0; status &&
	     i < sizeof(debugfs_roots) / sizeof(debugfs_roots[0]); i++)
		status = counters_find_under(debugfs_roots[i], path, size);
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
