// SPDX-License-Identifier: GPL-2.0
/* The guest RAM stand-in of guest_model.h. */
#include <stdlib.h>
#include <string.h>

#include "guest_model.h"

int guest_model_init(struct guest_model *m, uint64_t ram_size,
		     uint64_t sg_bytes)
{
	memset(m, 0, sizeof(*m));
	m->ram.base = malloc(ram_size);
	m->ram.size = ram_size;
	m->sg_end = sg_bytes;
	m->job.bos = m->bos;
	return m->ram.base ? 0 : -1;
}

void guest_model_destroy(struct guest_model *m)
{
	free(m->ram.base);
	m->ram.base = NULL;
}

uint32_t guest_model_random(struct guest_model *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return (uint32_t)(m->rng >> 20);
}

uint32_t guest_model_pick(struct guest_model *m, uint32_t lo, uint32_t hi)
{
	return lo + guest_model_random(m) % (hi - lo + 1);
}

void guest_model_reset(struct guest_model *m, uint64_t seed)
{
	m->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	m->sg_next = 0x1000;
	m->data_next = m->sg_end;
	m->job.bo_count = 0;
	for (uint64_t i = 0; i + 4 <= m->ram.size; i += 4) {
		uint32_t v = guest_model_random(m);

		memcpy(m->ram.base + i, &v, 4);
	}
}

void guest_model_forget(struct guest_model *m)
{
	m->sg_next = 0x1000;
	m->data_next = m->sg_end;
	m->job.bo_count = 0;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

uint32_t guest_model_bo(struct guest_model *m, uint64_t size,
			uint32_t min_seg, uint32_t max_seg, uint32_t max_gap)
{
	uint64_t left = size ? size : 1, *len = NULL, *addr = NULL;
	uint32_t index = m->job.bo_count, count = 0, *place = NULL;
	uint64_t capacity = (m->sg_end - m->sg_next) / ENPU_SG_ENTRY_SIZE;
	struct vnpu_bo *bo = &m->bos[index];

	if (index == GUEST_MODEL_MAX_BOS)
		return GUEST_MODEL_MAX_BOS;
	len = malloc(capacity * sizeof(*len) + 1);
	addr = malloc(capacity * sizeof(*addr) + 1);
	place = malloc(capacity * sizeof(*place) + 1);
	if (!len || !addr || !place) {
		index = GUEST_MODEL_MAX_BOS;
		goto out;
	}
	while (left) {
		uint64_t n = guest_model_pick(m, min_seg, max_seg);

		if (count == capacity) {
			index = GUEST_MODEL_MAX_BOS;
			goto out;
		}
		len[count++] = n < left ? n : left;
		left -= len[count - 1];
	}
	for (uint32_t i = 0; i < count; i++)
		place[i] = i;
	for (uint32_t i = count - 1; i > 0; i--) {
		uint32_t j = guest_model_random(m) % (i + 1), t = place[i];

		place[i] = place[j];
		place[j] = t;
	}
	for (uint32_t i = 0; i < count; i++) {
		addr[place[i]] = m->data_next;
		m->data_next += len[place[i]] +
				(max_gap ? guest_model_pick(m, 0, max_gap) : 0);
	}
	if (m->data_next > m->ram.size) {
		index = GUEST_MODEL_MAX_BOS;
		goto out;
	}
	bo->sg_addr = m->sg_next;
	bo->sg_count = count;
	bo->access = ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE;
	bo->size = size;
	for (uint32_t i = 0; i < count; i++) {
		put64(m->ram.base + m->sg_next + ENPU_SG_ADDR, addr[i]);
		put64(m->ram.base + m->sg_next + ENPU_SG_LEN, len[i]);
		m->sg_next += ENPU_SG_ENTRY_SIZE;
	}
	m->job.bo_count = index + 1;
out:
	free(len);
	free(addr);
	free(place);
	return index;
}

void guest_model_write(struct guest_model *m, uint32_t bo, uint64_t offset,
		       const void *src, uint64_t size)
{
	dma_scatter(&m->ram, &m->bos[bo], offset, size, size, 1, src);
}

void guest_model_read(const struct guest_model *m, uint32_t bo,
		      uint64_t offset, void *dst, uint64_t size)
{
	dma_gather(&m->ram, &m->bos[bo], offset, size, size, 1, dst);
}

uint64_t guest_model_used(const struct guest_model *m)
{
	return m->data_next;
}
