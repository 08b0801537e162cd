/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A host buffer standing in for guest RAM, with BOs laid out in it the way
 * the driver hands them to the device: a scatter-gather list per BO whose
 * segments lie in a shuffled order, so consecutive bytes of a BO jump
 * around RAM (docs/hw/vnpu.md, "Interface 1.1"). Used by the layer
 * execution test and the vnpu layer benchmark, which drive
 * tools/vnpu/layer_exec.c without the device around it.
 */
#ifndef VNPU_GUEST_MODEL_H
#define VNPU_GUEST_MODEL_H

#include <stdint.h>

#include "vnpu.h"

#define GUEST_MODEL_MAX_BOS	16

struct guest_model {
	struct guest_ram ram;
	struct vnpu_bo bos[GUEST_MODEL_MAX_BOS];
	struct vnpu_job job;
	uint64_t sg_next, sg_end, data_next;
	uint64_t rng;
};

/* @ram_size bytes; the first @sg_bytes hold the lists. 0 or -1. */
int guest_model_init(struct guest_model *m, uint64_t ram_size,
		     uint64_t sg_bytes);
void guest_model_destroy(struct guest_model *m);
/* No BOs; RAM refilled with bytes from @seed. */
void guest_model_reset(struct guest_model *m, uint64_t seed);
/* No BOs; RAM keeps its bytes (cheaper than a reset between cases). */
void guest_model_forget(struct guest_model *m);

uint32_t guest_model_random(struct guest_model *m);
/* Uniform in lo..hi. */
uint32_t guest_model_pick(struct guest_model *m, uint32_t lo, uint32_t hi);

/*
 * A read-write BO of @size bytes in segments of @min_seg..@max_seg bytes
 * with gaps of 0..@max_gap bytes between them; its index, or
 * GUEST_MODEL_MAX_BOS when RAM, list space or BO slots run out.
 */
uint32_t guest_model_bo(struct guest_model *m, uint64_t size,
			uint32_t min_seg, uint32_t max_seg, uint32_t max_gap);
void guest_model_write(struct guest_model *m, uint32_t bo, uint64_t offset,
		       const void *src, uint64_t size);
void guest_model_read(const struct guest_model *m, uint32_t bo,
		      uint64_t offset, void *dst, uint64_t size);
/* Bytes of RAM lists and BOs occupy (everything below this). */
uint64_t guest_model_used(const struct guest_model *m);

#endif /* VNPU_GUEST_MODEL_H */
