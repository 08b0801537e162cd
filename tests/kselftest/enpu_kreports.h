/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's own debug tools say while a test runs: report lines
 * in the kernel log (BUG, WARNING, Oops, KASAN, slab poison and redzone
 * checks, lockdep, kmemleak, UBSAN, hung tasks), and the slab debugging
 * of one cache (is it poisoned, validate it now). Every function returns
 * 0 (or a count) or a negative errno.
 */
#ifndef ENPU_KREPORTS_H
#define ENPU_KREPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enpu_kreports {
	int fd;			/* /dev/kmsg, positioned at the start */
};

/* Starts watching the kernel log from now on. */
int enpu_kreports_start(struct enpu_kreports *reports);
/*
 * Reads what the kernel logged since start (or the last collect) and
 * returns the number of report lines in it; the first one goes to first
 * (may be NULL).
 */
int enpu_kreports_collect(struct enpu_kreports *reports, size_t size,
			  char *first);
void enpu_kreports_stop(struct enpu_kreports *reports);
/*
 * Every line logged since start (or the last read), one per line, as much
 * as fits in text. Use a watcher of its own: reading consumes the lines.
 */
int enpu_kmsg_read(struct enpu_kreports *log, size_t size, char *text);

/* Is this kernel log line the start of a report? */
bool enpu_kreport_line(const char *text);

/* 1 if the slab cache poisons freed objects (slub_debug P), else 0. */
int enpu_slab_poisoned(const char *cache);
/* Makes the kernel check every object of the cache now (slub validate). */
int enpu_slab_validate(const char *cache);
/* 1 if the kernel was built with KASAN, else 0. */
int enpu_kernel_has_kasan(void);

/*
 * The DMA-API debug checks (CONFIG_DMA_API_DEBUG, the debug kernel's):
 * how many violations they counted since boot (every one, even those
 * they no longer print), and how many live mappings of the device the
 * driver named owns start at DMA address dma (debugfs dma-api/dump, one
 * line per mapped segment). -ENOENT on a kernel without them.
 */
int enpu_dma_api_errors(long long *count);
int enpu_dma_api_mappings_at(const char *driver, uint64_t dma, int *count);

#endif /* ENPU_KREPORTS_H */
