/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access to BAR2, the memory shared with the guest. Each register has a
 * single writer (docs/hw/vnpu.md), so plain atomic loads and stores are
 * enough; no read-modify-write ever touches shared memory.
 *
 * Ordering: the device writes data (completion entry, mailbox result)
 * first and then the index register with release semantics, and reads a
 * driver-written index (SQ_TAIL, CMD_SEQ) with acquire semantics before
 * reading the data it guards. The guest driver does the mirror image.
 */
#ifndef VNPU_SHM_ACCESS_H
#define VNPU_SHM_ACCESS_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the register block is little endian and accessed natively");

static inline _Atomic uint32_t *shm_reg(uint8_t *shm, uint32_t offset)
{
	return (_Atomic uint32_t *)(void *)(shm + offset);
}

static inline uint32_t shm_read32(uint8_t *shm, uint32_t offset)
{
	return atomic_load_explicit(shm_reg(shm, offset),
				    memory_order_acquire);
}

static inline void shm_write32(uint8_t *shm, uint32_t offset, uint32_t value)
{
	atomic_store_explicit(shm_reg(shm, offset), value,
			      memory_order_release);
}

/*
 * 64-bit counters are lo/hi pairs at an 8-byte aligned offset. Storing
 * both halves with one 64-bit store means a guest that reads hi, lo, hi
 * and retries when hi changed always gets a value the counter really had.
 */
static inline void shm_write64(uint8_t *shm, uint32_t offset, uint64_t value)
{
	atomic_store_explicit((_Atomic uint64_t *)(void *)(shm + offset),
			      value, memory_order_release);
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void le32_put(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline uint64_t le64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t le32_get(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t le16_get(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif /* VNPU_SHM_ACCESS_H */
