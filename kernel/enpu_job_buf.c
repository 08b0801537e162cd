// SPDX-License-Identifier: GPL-2.0
/*
 * Job buffers. dma_alloc_coherent() memory is not charged to any memory
 * cgroup, and coherent memory may come from a CMA pool that is not either,
 * so a user could make the kernel hold memory without bound outside their
 * cgroup's limits. A job buffer is therefore plain pages allocated with
 * __GFP_ACCOUNT (charged to the submitter), exactly as many as it needs
 * (alloc_pages_exact() frees the rest of the power-of-two block and splits
 * the charge), and mapped for the device with the streaming DMA API: the
 * CPU writes it between enpu_job_buf_alloc() and enpu_job_buf_publish(),
 * the device only reads it afterwards.
 * __GFP_RETRY_MAYFAIL makes a cgroup at its limit fail the submit with
 * -ENOMEM instead of running its OOM killer for kernel memory.
 *
 * A pool of preallocated buffers (for dispatch latency) fits behind the
 * same three calls.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/mm.h>

#include "enpu_job_buf.h"

/**
 * enpu_job_buf_alloc() - allocate and map a job buffer for the CPU to fill
 * @dev: the device that will read it.
 * @size: bytes, not 0.
 * @buf: filled in.
 *
 * Sleeps. The buffer's contents are undefined.
 *
 * Return: 0; -E2BIG above ENPU_JOB_BUF_MAX_SIZE; -ENOMEM, also when the
 * caller's memory cgroup is at its limit.
 */
int enpu_job_buf_alloc(struct device *dev, size_t size,
		       struct enpu_job_buf *buf)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;

	if (size > ENPU_JOB_BUF_MAX_SIZE)
		return -E2BIG;
	/* A device that cannot address all memory gets low pages. */
	if (dma_get_mask(dev) <= DMA_BIT_MASK(32))
		gfp |= GFP_DMA32;
	buf->size = size;
	buf->vaddr = alloc_pages_exact(size, gfp);
	if (!buf->vaddr)
		return -ENOMEM;
	buf->dma = dma_map_single(dev, buf->vaddr, size, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, buf->dma)) {
		free_pages_exact(buf->vaddr, size);
		buf->vaddr = NULL;
		return -ENOMEM;
	}
	/* The CPU owns it until enpu_job_buf_publish(). */
	dma_sync_single_for_cpu(dev, buf->dma, size, DMA_TO_DEVICE);
	return 0;
}

/**
 * enpu_job_buf_publish() - hand the written buffer to the device
 * @dev: the device.
 * @buf: a buffer from enpu_job_buf_alloc(); not written by the CPU again.
 */
void enpu_job_buf_publish(struct device *dev, struct enpu_job_buf *buf)
{
	dma_sync_single_for_device(dev, buf->dma, buf->size, DMA_TO_DEVICE);
}

/**
 * enpu_job_buf_free() - unmap and free a job buffer
 * @dev: the device.
 * @buf: a buffer from enpu_job_buf_alloc(), or one whose allocation
 *	failed or never happened (zeroed), which is left alone.
 */
void enpu_job_buf_free(struct device *dev, struct enpu_job_buf *buf)
{
	if (!buf->vaddr)
		return;
	dma_unmap_single(dev, buf->dma, buf->size, DMA_TO_DEVICE);
	free_pages_exact(buf->vaddr, buf->size);
	buf->vaddr = NULL;
}
