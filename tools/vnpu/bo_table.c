// SPDX-License-Identifier: GPL-2.0
/*
 * The job's BO table (interface 1.1, docs/hw/vnpu.md): fetched and checked
 * when the job starts, before its first command runs, so that a job with a
 * bad table never half-executes.
 *
 * The table itself is copied (at most VNPU_MAX_BOS entries); the
 * scatter-gather lists are only checked here and stay in guest RAM. A
 * guest may point thousands of BOs at one huge list, so copying the lists
 * would let it make the host allocate without bound; reading them in place
 * costs nothing but the bounds checks that dma.c repeats on every use.
 */
#include <stdlib.h>

#include "shm_access.h"
#include "vnpu.h"

#define KNOWN_ACCESS (ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE)

/* Every segment inside guest RAM, none empty, enough bytes for SIZE:
 * ENPU_RULE_NONE or the enum vnpu_job_rule the list breaks. */
static uint32_t sg_list_rule(const struct guest_ram *ram,
			     const struct vnpu_bo *bo)
{
	uint64_t list_bytes = (uint64_t)bo->sg_count * ENPU_SG_ENTRY_SIZE;
	uint64_t covered = 0;
	uint32_t i;

	if (!bo->sg_count)
		return VNPU_RULE_SG_COUNT;
	if (!guest_ram_range_ok(ram, bo->sg_addr, list_bytes))
		return VNPU_RULE_SG_LIST_RANGE;
	for (i = 0; i < bo->sg_count; i++) {
		const uint8_t *seg = ram->base + bo->sg_addr +
				     (uint64_t)i * ENPU_SG_ENTRY_SIZE;
		uint64_t addr = le64_get(seg + ENPU_SG_ADDR);
		uint64_t len = le64_get(seg + ENPU_SG_LEN);

		if (!len)
			return VNPU_RULE_SG_SEGMENT_EMPTY;
		if (!guest_ram_range_ok(ram, addr, len))
			return VNPU_RULE_SG_SEGMENT_RANGE;
		/* Segments may repeat, so the sum can exceed any real size;
		 * saturating is enough to compare it with SIZE. */
		covered = covered > UINT64_MAX - len ? UINT64_MAX : covered + len;
	}
	return covered >= bo->size ? ENPU_RULE_NONE : VNPU_RULE_SG_SHORT;
}

static uint32_t bo_entry_rule(const struct guest_ram *ram,
			      const uint8_t *entry, const struct vnpu_bo *bo)
{
	if (le64_get(entry + ENPU_BO_RESERVED))
		return VNPU_RULE_BO_RESERVED;
	if (bo->access & ~KNOWN_ACCESS)
		return VNPU_RULE_BO_ACCESS;
	return sg_list_rule(ram, bo);
}

/*
 * Loads @count entries from @addr into a new array in *@bos (NULL when
 * @count is 0, whatever @addr says: such a job touches no BO).
 */
enum bo_table_result bo_table_load(const struct guest_ram *ram, uint64_t addr,
				   uint32_t count, struct vnpu_bo **bos,
				   uint32_t *rule)
{
	struct vnpu_bo *table;
	uint32_t i;

	*bos = NULL;
	*rule = ENPU_RULE_NONE;
	if (!count)
		return BO_TABLE_OK;
	if (count > VNPU_MAX_BOS)
		*rule = VNPU_RULE_BO_COUNT;
	else if (!guest_ram_range_ok(ram, addr,
				     (uint64_t)count * ENPU_BO_ENTRY_SIZE))
		*rule = VNPU_RULE_BO_TABLE_RANGE;
	if (*rule)
		return BO_TABLE_FAULT;
	table = calloc(count, sizeof(*table));
	if (!table)
		return BO_TABLE_NO_MEMORY;
	for (i = 0; i < count; i++) {
		const uint8_t *entry = ram->base + addr +
				       (uint64_t)i * ENPU_BO_ENTRY_SIZE;
		struct vnpu_bo *bo = &table[i];

		bo->sg_addr = le64_get(entry + ENPU_BO_SG_ADDR);
		bo->sg_count = le32_get(entry + ENPU_BO_SG_COUNT);
		bo->access = le32_get(entry + ENPU_BO_ACCESS);
		bo->size = le64_get(entry + ENPU_BO_SIZE);
		*rule = bo_entry_rule(ram, entry, bo);
		if (*rule) {
			free(table);
			return BO_TABLE_FAULT;
		}
	}
	*bos = table;
	return BO_TABLE_OK;
}
