/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's buffer: physically contiguous memory the kernel writes and the
 * device reads (command stream, BO table, scatter-gather lists), charged
 * to the memory cgroup of the task that submits the job.
 */
#ifndef ENPU_JOB_BUF_H
#define ENPU_JOB_BUF_H

#include <linux/sizes.h>
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

int enpu_job_buf_alloc(struct device *dev, size_t size,
		       struct enpu_job_buf *buf);
void enpu_job_buf_publish(struct device *dev, struct enpu_job_buf *buf);
void enpu_job_buf_free(struct device *dev, struct enpu_job_buf *buf);

#endif /* ENPU_JOB_BUF_H */
