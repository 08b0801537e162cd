// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "demo_counters.h"

#define DRI_DEBUGFS "/sys/kernel/debug/dri"

/* The first DRM debugfs directory whose `name` starts with "enpu". */
static int find_directory(size_t size, char *directory, size_t why_size,
			  char *why)
{
	DIR *dri = opendir(DRI_DEBUGFS);
	struct dirent *entry;
	int status = -ENOENT;

	if (!dri) {
		status = -errno;
		snprintf(why, why_size, "%s: %s", DRI_DEBUGFS,
			 strerror(errno));
		return status;
	}
	while ((entry = readdir(dri)) && status) {
		char path[512], name[64] = "";
		FILE *file;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DRI_DEBUGFS "/%s/name",
			 entry->d_name);
		file = fopen(path, "r");
		if (!file)
			continue;
		if (fgets(name, sizeof(name), file) &&
		    !strncmp(name, "enpu", 4)) {
			snprintf(directory, size, DRI_DEBUGFS "/%s",
				 entry->d_name);
			status = 0;
		}
		fclose(file);
	}
	closedir(dri);
	if (status)
		snprintf(why, why_size, "no enpu directory under %s",
			 DRI_DEBUGFS);
	return status;
}

/* Lines of `regs`: "<NAME> 0x<offset> 0x<value>". */
static void store(struct demo_counters *c, const char *name, uint32_t value,
		  unsigned int *seen)
{
	static const struct {
		const char *name;
		size_t field;
		int high;
	} registers[] = {
		{ "PERF_CYCLES_LO", offsetof(struct demo_counters, cycles), 0 },
		{ "PERF_CYCLES_HI", offsetof(struct demo_counters, cycles), 1 },
		{ "PERF_BUSY_NS_LO", offsetof(struct demo_counters, busy_ns), 0 },
		{ "PERF_BUSY_NS_HI", offsetof(struct demo_counters, busy_ns), 1 },
		{ "PERF_JOBS_DONE", offsetof(struct demo_counters, jobs_done), 0 },
		{ "PERF_MACS_LO", offsetof(struct demo_counters, macs), 0 },
		{ "PERF_MACS_HI", offsetof(struct demo_counters, macs), 1 },
		{ "PERF_DMA_BYTES_LO", offsetof(struct demo_counters, dma_bytes), 0 },
		{ "PERF_DMA_BYTES_HI", offsetof(struct demo_counters, dma_bytes), 1 },
	};

	for (size_t i = 0; i < sizeof(registers) / sizeof(registers[0]); i++) {
		uint64_t *field;

		if (strcmp(name, registers[i].name))
			continue;
		field = (uint64_t *)((char *)c + registers[i].field);
		*field |= (uint64_t)value << (registers[i].high ? 32 : 0);
		*seen |= 1u << i;
	}
}

int demo_counters_read(struct demo_counters *counters, size_t why_size,
		       char *why)
{
	struct demo_counters read = { 0 };
	char directory[320], path[400], line[256];
	unsigned int seen = 0;
	FILE *file;
	int status;

	status = find_directory(sizeof(directory), directory, why_size, why);
	if (status)
		return status;
	snprintf(path, sizeof(path), "%s/regs", directory);
	file = fopen(path, "r");
	if (!file) {
		status = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		return status;
	}
	while (fgets(line, sizeof(line), file)) {
		char name[32];
		unsigned int offset, value;

		if (sscanf(line, "%31s 0x%x 0x%x", name, &offset, &value) == 3)
			store(&read, name, value, &seen);
	}
	fclose(file);
	if (seen != 0x1ff) {
		snprintf(why, why_size, "%s lacks PERF_* registers", path);
		return -EPROTO;
	}
	*counters = read;
	return 0;
}
