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
 * Allocating, clearing (init_on_alloc) and mapping pages is a good part
 * of a job's dispatch latency (docs/scheduler.md, "Dispatch overhead"),
 * so each context keeps some buffers mapped between its jobs (struct
 * enpu_job_buf_cache, in struct enpu_context): a buffer of up to
 * ENPU_JOB_BUF_CACHE_MAX_SIZE is rounded up to a power of two pages, so
 * that jobs of similar sizes share a size class, taken from the cache
 * when it holds one of its class and given back when its job is freed.
 * The cache holds at most ENPU_JOB_BUF_CACHED buffers and
 * ENPU_JOB_BUF_CACHE_BYTES per context; they stay charged to the memory
 * cgroup that first allocated them and are freed with the context. Only
 * jobs of the one context share them, and each job's buffer holds its
 * own bytes and zeros after them: what enpu_job_buf_alloc() hands out
 * past the requested size is cleared, whether the buffer is new or was
 * another job's. Larger buffers are allocated to the page and freed with
 * their job.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "enpu_job_buf.h"

static int enpu_job_buf_map(struct device *dev, size_t size,
			    struct enpu_job_buf *buf)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;

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
	return 0;
}

static void enpu_job_buf_unmap(struct device *dev, struct enpu_job_buf *buf)
{
	dma_unmap_single(dev, buf->dma, buf->size, DMA_TO_DEVICE);
	free_pages_exact(buf->vaddr, buf->size);
	buf->vaddr = NULL;
}

/**
 * enpu_job_buf_cache_init() - an empty cache
 * @cache: the context's cache.
 * @dev: the device its buffers are mapped for.
 */
void enpu_job_buf_cache_init(struct enpu_job_buf_cache *cache,
			     struct device *dev)
{
	spin_lock_init(&cache->lock);
	cache->dev = dev;
	cache->count = 0;
	cache->bytes = 0;
}

/**
 * enpu_job_buf_cache_fini() - unmap and free the cached buffers
 * @cache: a cache no job uses any more.
 */
void enpu_job_buf_cache_fini(struct enpu_job_buf_cache *cache)
{
	while (cache->count)
		enpu_job_buf_unmap(cache->dev, &cache->bufs[--cache->count]);
}

/**
 * enpu_job_buf_alloc() - a mapped job buffer for the CPU to fill
 * @cache: the submitting context's cache; a buffer of up to
 *	ENPU_JOB_BUF_CACHE_MAX_SIZE comes from it when it has one of the
 *	same power of two pages.
 * @size: bytes, not 0.
 * @buf: filled in.
 *
 * Sleeps. The buffer's bytes from @size on are zero, those before are
 * undefined (the caller writes them).
 *
 * Return: 0; -E2BIG above ENPU_JOB_BUF_MAX_SIZE; -ENOMEM, also when the
 * caller's memory cgroup is at its limit.
 */
int enpu_job_buf_alloc(struct enpu_job_buf_cache *cache, size_t size,
		       struct enpu_job_buf *buf)
{
	unsigned int i;
	int ret;

	if (size > ENPU_JOB_BUF_MAX_SIZE)
		return -E2BIG;
	if (size <= ENPU_JOB_BUF_CACHE_MAX_SIZE) {
		size_t class = PAGE_SIZE << get_order(size);

		spin_lock(&cache->lock);
		for (i = 0; i < cache->count; i++) {
			if (cache->bufs[i].size != class)
				continue;
			*buf = cache->bufs[i];
			cache->bufs[i] = cache->bufs[--cache->count];
			cache->bytes -= class;
			break;
		}
		spin_unlock(&cache->lock);
		if (buf->vaddr)
			goto cpu_owns;
		ret = enpu_job_buf_map(cache->dev, class, buf);
	} else {
		ret = enpu_job_buf_map(cache->dev, size, buf);
	}
	if (ret)
		return ret;
cpu_owns:
	/* The CPU owns it until enpu_job_buf_publish(). */
	dma_sync_single_for_cpu(cache->dev, buf->dma, buf->size,
				DMA_TO_DEVICE);
	/* No bytes of an earlier job, nor of whoever had the pages. */
	memset(buf->vaddr + size, 0, buf->size - size);
	return 0;
}

/**
 * enpu_job_buf_alloc_single() - a job buffer of its own, outside any cache
 * @dev: the device to map it for.
 * @size: bytes wanted, at most ENPU_JOB_BUF_MAX_SIZE.
 * @buf: set to the buffer, owned by the CPU until enpu_job_buf_publish();
 *	the bytes past @size are zero.
 *
 * For memory that outlives the jobs that use it (stream objects); freed
 * with enpu_job_buf_release().
 *
 * Return: 0, -E2BIG above ENPU_JOB_BUF_MAX_SIZE, or -ENOMEM.
 */
int enpu_job_buf_alloc_single(struct device *dev, size_t size,
			      struct enpu_job_buf *buf)
{
	int ret;

	if (size > ENPU_JOB_BUF_MAX_SIZE)
		return -E2BIG;
	/* Whole pages, so that the zeroed tail covers the last one. */
	ret = enpu_job_buf_map(dev, PAGE_ALIGN(size), buf);
	if (ret)
		return ret;
	dma_sync_single_for_cpu(dev, buf->dma, buf->size, DMA_TO_DEVICE);
	memset(buf->vaddr + size, 0, buf->size - size);
	return 0;
}

/**
 * enpu_job_buf_release() - unmap and free enpu_job_buf_alloc_single()'s
 * @dev: the device it was mapped for.
 * @buf: the buffer; nothing if it has none.
 */
void enpu_job_buf_release(struct device *dev, struct enpu_job_buf *buf)
{
	if (buf->vaddr)
		enpu_job_buf_unmap(dev, buf);
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
 * enpu_job_buf_free() - give a job buffer back to its context's cache, or
 *	unmap and free it
 * @cache: the cache it came from (the device no longer reads it).
 * @buf: a buffer from enpu_job_buf_alloc(), or one whose allocation
 *	failed or never happened (zeroed), which is left alone.
 */
void enpu_job_buf_free(struct enpu_job_buf_cache *cache,
		       struct enpu_job_buf *buf)
{
	if (!buf->vaddr)
		return;
	if (buf->size <= ENPU_JOB_BUF_CACHE_MAX_SIZE &&
	    is_power_of_2(buf->size)) {
		spin_lock(&cache->lock);
		if (cache->count < ENPU_JOB_BUF_CACHED &&
		    cache->bytes + buf->size <= ENPU_JOB_BUF_CACHE_BYTES) {
			cache->bytes += buf->size;
			cache->bufs[cache->count++] = *buf;
			buf->vaddr = NULL;
		}
		spin_unlock(&cache->lock);
		if (!buf->vaddr)
			return;
	}
	enpu_job_buf_unmap(cache->dev, buf);
}
