/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's buffer: physically contiguous memory the kernel writes and the
 * device reads (command stream, BO table, scatter-gather lists), charged
 * to the memory cgroup of the task that submits the job.
 */
#ifndef ENPU_JOB_BUF_H
#define ENPU_JOB_BUF_H

#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct device;

/*
 * The largest job buffer: 4 MiB is the largest block the page allocator
 * hands out on x86-64 with 4 KiB pages (order 10).
 */
#define ENPU_JOB_BUF_MAX_SIZE	SZ_4M

/**
 * struct enpu_job_buf - one job buffer
 * @vaddr: kernel address, for the CPU; NULL when there is no buffer.
 * @dma: the device's address.
 * @size: bytes, rounded up to whole pages by the allocator.
 */
struct enpu_job_buf {
	void *vaddr;
	dma_addr_t dma;
	size_t size;
};

/*
 * What a context keeps mapped between its jobs (enpu_job_buf.c): buffers
 * of a power of two pages up to ENPU_JOB_BUF_CACHE_MAX_SIZE, at most
 * ENPU_JOB_BUF_CACHED of them and ENPU_JOB_BUF_CACHE_BYTES in all.
 */
#define ENPU_JOB_BUF_CACHED		8
#define ENPU_JOB_BUF_CACHE_MAX_SIZE	SZ_64K
#define ENPU_JOB_BUF_CACHE_BYTES	SZ_128K

/**
 * struct enpu_job_buf_cache - a context's mapped free job buffers
 * @lock: protects @count, @bytes and @bufs; taken with no other lock held.
 * @dev: the device they are mapped for.
 * @count: entries of @bufs in use.
 * @bytes: their sizes added up, at most ENPU_JOB_BUF_CACHE_BYTES.
 * @bufs: free buffers, mapped for @dev, each of a power of two pages up
 *	to ENPU_JOB_BUF_CACHE_MAX_SIZE.
 */
struct enpu_job_buf_cache {
	spinlock_t lock;	/* @count, @bytes and @bufs */
	struct device *dev;
	unsigned int count;
	size_t bytes;
	struct enpu_job_buf bufs[ENPU_JOB_BUF_CACHED];
};

void enpu_job_buf_cache_init(struct enpu_job_buf_cache *cache,
			     struct device *dev);
void enpu_job_buf_cache_fini(struct enpu_job_buf_cache *cache);

int enpu_job_buf_alloc(struct enpu_job_buf_cache *cache, size_t size,
		       struct enpu_job_buf *buf);
int enpu_job_buf_alloc_single(struct device *dev, size_t size,
			      struct enpu_job_buf *buf);
void enpu_job_buf_release(struct device *dev, struct enpu_job_buf *buf);
void enpu_job_buf_publish(struct device *dev, struct enpu_job_buf *buf);
void enpu_job_buf_free(struct enpu_job_buf_cache *cache,
		       struct enpu_job_buf *buf);

#endif /* ENPU_JOB_BUF_H */
