// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA engine: copies and fills byte ranges of BOs, one scatter-gather
 * segment at a time, directly in the guest RAM mapping. A BO's byte o lives
 * in the segment whose running length sum first exceeds o, so nothing here
 * assumes a BO is contiguous.
 *
 * bo_table.c checked the lists when the job started, but they stay in
 * guest RAM, where the guest can rewrite them at any time; every segment is
 * therefore checked again as it is read. A list that went bad makes the
 * command fail (false) instead of touching memory outside guest RAM.
 */
#include <string.h>

#include "shm_access.h"
#include "vnpu.h"

/* Where the engine is inside one BO: the rest of the current segment. */
struct sg_cursor {
	const struct guest_ram *ram;
	const struct vnpu_bo *bo;
	uint32_t index;
	uint64_t addr;
	uint64_t left;
};

/* The list's own place was checked at job start and the table is a
 * private copy, so this only guards against a bug, not the guest. */
static const uint8_t *sg_entry(const struct guest_ram *ram,
			       const struct vnpu_bo *bo, uint32_t index)
{
	uint64_t at = bo->sg_addr + (uint64_t)index * ENPU_SG_ENTRY_SIZE;

	if (index >= bo->sg_count ||
	    !guest_ram_range_ok(ram, at, ENPU_SG_ENTRY_SIZE))
		return NULL;
	return ram->base + at;
}

/* Loads segment c->index, skipping its first @skip bytes. */
static bool sg_load(struct sg_cursor *c, uint64_t skip)
{
	const uint8_t *seg = sg_entry(c->ram, c->bo, c->index);
	uint64_t addr, len;

	if (!seg)
		return false;
	addr = le64_get(seg + ENPU_SG_ADDR);
	len = le64_get(seg + ENPU_SG_LEN);
	if (skip >= len || !guest_ram_range_ok(c->ram, addr, len))
		return false;
	c->addr = addr + skip;
	c->left = len - skip;
	return true;
}

/* Positions @c at byte @offset of @bo. */
static bool sg_seek(struct sg_cursor *c, const struct guest_ram *ram,
		    const struct vnpu_bo *bo, uint64_t offset)
{
	const uint8_t *seg;

	c->ram = ram;
	c->bo = bo;
	for (c->index = 0; (seg = sg_entry(ram, bo, c->index)); c->index++) {
		uint64_t len = le64_get(seg + ENPU_SG_LEN);

		if (offset < len)
			return sg_load(c, offset);
		offset -= len;
	}
	return false;
}

/* Moves @c forward by @n bytes, @n at most what is left in the segment. */
static bool sg_advance(struct sg_cursor *c, uint64_t n, uint64_t remaining)
{
	c->addr += n;
	c->left -= n;
	if (c->left || !remaining)
		return true;
	c->index++;
	return sg_load(c, 0);
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;

	return m < c ? m : c;
}

bool dma_copy(const struct guest_ram *ram, const struct vnpu_bo *src,
	      uint64_t src_offset, const struct vnpu_bo *dst,
	      uint64_t dst_offset, uint64_t size)
{
	struct sg_cursor from, to;

	if (!sg_seek(&from, ram, src, src_offset) ||
	    !sg_seek(&to, ram, dst, dst_offset))
		return false;
	while (size) {
		uint64_t n = min3(size, from.left, to.left);

		/* Two BOs may share pages (the same dma-buf imported twice);
		 * memmove keeps that defined for the host. */
		memmove(ram->base + to.addr, ram->base + from.addr, n);
		size -= n;
		if (!sg_advance(&from, n, size) || !sg_advance(&to, n, size))
			return false;
	}
	return true;
}

bool dma_fill(const struct guest_ram *ram, const struct vnpu_bo *dst,
	      uint64_t offset, uint64_t size, uint8_t value)
{
	struct sg_cursor to;

	if (!sg_seek(&to, ram, dst, offset))
		return false;
	while (size) {
		uint64_t n = size < to.left ? size : to.left;

		memset(ram->base + to.addr, value, n);
		size -= n;
		if (!sg_advance(&to, n, size))
			return false;
	}
	return true;
}

/*
 * Strided transfers for layer commands: @runs runs of @run bytes, one every
 * @stride bytes from @offset, packed densely on the host side. A cursor
 * whose segment is used up loads the next one only when more bytes are
 * needed, so a range ending exactly at the end of the list is fine.
 */
static bool sg_ready(struct sg_cursor *c)
{
	if (c->left)
		return true;
	c->index++;
	return sg_load(c, 0);
}

static bool sg_transfer(struct sg_cursor *c, uint8_t *host, uint64_t n,
			bool to_guest)
{
	while (n) {
		uint64_t k;

		if (!sg_ready(c))
			return false;
		k = n < c->left ? n : c->left;
		if (host && to_guest)
			memcpy(c->ram->base + c->addr, host, k);
		else if (host)
			memcpy(host, c->ram->base + c->addr, k);
		if (host)
			host += k;
		c->addr += k;
		c->left -= k;
		n -= k;
	}
	return true;
}

static bool dma_strided(const struct guest_ram *ram, const struct vnpu_bo *bo,
			uint64_t offset, uint64_t run, uint64_t stride,
			uint64_t runs, uint8_t *host, bool to_guest)
{
	struct sg_cursor c;
	uint64_t i;

	if (!runs || !run)
		return true;
	if (stride == run) {
		/* Dense: one run (the caller's extent check bounds it). */
		run *= runs;
		runs = 1;
	}
	if (!sg_seek(&c, ram, bo, offset))
		return false;
	for (i = 0; i < runs; i++) {
		if (!sg_transfer(&c, host + i * run, run, to_guest))
			return false;
		if (i + 1 < runs && !sg_transfer(&c, NULL, stride - run, false))
			return false;
	}
	return true;
}

bool dma_gather(const struct guest_ram *ram, const struct vnpu_bo *bo,
		uint64_t offset, uint64_t run, uint64_t stride, uint64_t runs,
		void *dst)
{
	return dma_strided(ram, bo, offset, run, stride, runs, dst, false);
}

bool dma_scatter(const struct guest_ram *ram, const struct vnpu_bo *bo,
		 uint64_t offset, uint64_t run, uint64_t stride, uint64_t runs,
		 const void *src)
{
	/* sg_transfer only reads from @src when writing to the guest. */
	return dma_strided(ram, bo, offset, run, stride, runs, (uint8_t *)src,
			   true);
}
