// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_kreports.h"

#define SLAB_DIR "/sys/kernel/slab"

int enpu_kreports_start(struct enpu_kreports *reports)
{
	reports->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (reports->fd < 0)
		return -errno;
	if (lseek(reports->fd, 0, SEEK_END) < 0) {
		int saved = errno;

		close(reports->fd);
		reports->fd = -1;
		return -saved;
	}
	return 0;
}

/*
 * The words the kernel's checkers start their reports with (lib/bug.c,
 * mm/slub.c, mm/kasan, kernel/locking/lockdep.c, mm/kmemleak.c,
 * lib/ubsan.c, kernel/hung_task.c, lib/refcount.c).
 */
bool enpu_kreport_line(const char *text)
{
	static const char *const starts[] = {
		"BUG", "WARNING:", "Oops", "general protection fault",
		"UBSAN:", "INFO: task", "INFO: possible", "INFO: trying",
		"kernel BUG", "Kernel panic", "refcount_t:",
	};
	static const char *const anywhere[] = {
		"Poison overwritten", "Redzone overwritten", "Object already free",
		"KASAN:", "possible circular locking", "possible recursive locking",
		"suspected memory leak", "inconsistent lock state",
		"sleeping function called from invalid context",
	};

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(text, starts[i], strlen(starts[i])))
			return true;
	for (size_t i = 0; i < sizeof(anywhere) / sizeof(anywhere[0]); i++)
		if (strstr(text, anywhere[i]))
			return true;
	return false;
}

/* Hands each line logged since the last read to line(); -errno or 0. */
static int read_lines(struct enpu_kreports *reports,
		      void (*line)(const char *text, void *arg), void *arg)
{
	char record[8192];

	for (;;) {
		ssize_t got = read(reports->fd, record, sizeof(record) - 1);
		char *text;

		if (got < 0) {
			if (errno == EAGAIN)
				return 0;
			if (errno == EPIPE)	/* overwritten meanwhile */
				continue;
			return -errno;
		}
		record[got] = '\0';
		/* "prio,seq,usec,flags;text\n continuation lines" */
		text = strchr(record, ';');
		if (!text)
			continue;
		text++;
		text[strcspn(text, "\n")] = '\0';
		line(text, arg);
	}
}

struct report_scan {
	int found;
	size_t size;
	char *first;
};

static void scan_report(const char *text, void *arg)
{
	struct report_scan *scan = arg;

	if (!enpu_kreport_line(text))
		return;
	if (!scan->found && scan->first && scan->size)
		snprintf(scan->first, scan->size, "%s", text);
	scan->found++;
}

int enpu_kreports_collect(struct enpu_kreports *reports, size_t size,
			  char *first)
{
	struct report_scan scan = { 0, size, first };
	int ret;

	if (first && size)
		first[0] = '\0';
	ret = read_lines(reports, scan_report, &scan);
	return ret ? ret : scan.found;
}

struct log_text {
	size_t used;
	size_t size;
	char *text;
};

static void append_line(const char *line, void *arg)
{
	struct log_text *log = arg;
	int n = snprintf(log->text + log->used, log->size - log->used, "%s\n",
			 line);

	if (n > 0)
		log->used += (size_t)n < log->size - log->used ?
			     (size_t)n : log->size - log->used - 1;
}

int enpu_kmsg_read(struct enpu_kreports *log, size_t size, char *text)
{
	struct log_text all = { 0, size, text };

	if (!size)
		return -EINVAL;
	text[0] = '\0';
	return read_lines(log, append_line, &all);
}

void enpu_kreports_stop(struct enpu_kreports *reports)
{
	if (reports->fd >= 0)
		close(reports->fd);
	reports->fd = -1;
}

static int slab_attribute(const char *cache, const char *attribute,
			  char *value, size_t size)
{
	char path[256];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), SLAB_DIR "/%s/%s", cache, attribute);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, value, size - 1);
	close(fd);
	if (got < 0)
		return -errno;
	value[got] = '\0';
	return 0;
}

int enpu_slab_poisoned(const char *cache)
{
	char value[16];
	int status = slab_attribute(cache, "poison", value, sizeof(value));

	if (status)
		return status;
	return value[0] == '1';
}

int enpu_slab_validate(const char *cache)
{
	char path[256];
	int fd, status = 0;

	snprintf(path, sizeof(path), SLAB_DIR "/%s/validate", cache);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		status = -errno;
	close(fd);
	return status;
}

int enpu_kernel_has_kasan(void)
{
	char record[8192];
	int fd, found = 0;

	/* The whole log from boot: KASAN announces itself early. */
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got = read(fd, record, sizeof(record) - 1);

		if (got < 0) {
			if (errno == EPIPE)
				continue;
			break;
		}
		record[got] = '\0';
		if (strstr(record, "KernelAddressSanitizer initialized")) {
			found = 1;
			break;
		}
	}
	close(fd);
	return found;
}

#define DMA_API_DIR "/sys/kernel/debug/dma-api"

int enpu_dma_api_errors(long long *count)
{
	FILE *file = fopen(DMA_API_DIR "/error_count", "re");
	int status = 0;

	if (!file)
		return -errno;
	if (fscanf(file, "%lld", count) != 1)
		status = -EIO;
	fclose(file);
	return status;
}

int enpu_dma_api_mappings_at(const char *driver, uint64_t dma, int *count)
{
	char line[512], name[64], owner[64];
	FILE *file = fopen(DMA_API_DIR "/dump", "re");
	uint64_t address;
	const char *d;

	if (!file)
		return -errno;
	*count = 0;
	/* "<device> <driver> <type> idx <n> P=<phys> N=<pfn> D=<dma> L=..." */
	while (fgets(line, sizeof(line), file)) {
		if (sscanf(line, "%63s %63s", name, owner) != 2 ||
		    strcmp(owner, driver))
			continue;
		d = strstr(line, " D=");
		if (d && sscanf(d, " D=%" SCNx64, &address) == 1 &&
		    address == dma)
			(*count)++;
	}
	fclose(file);
	return 0;
}
