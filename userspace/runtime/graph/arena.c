// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define ARENA_BLOCK_SIZE (64 * 1024)
#define ARENA_ALIGN 64

struct rt_arena_block {
	struct rt_arena_block *next;
	size_t used, capacity;
	/* Data starts at the next ARENA_ALIGN boundary after the header. */
};

static size_t header_size(void)
{
	return (sizeof(struct rt_arena_block) + ARENA_ALIGN - 1) &
	       ~(size_t)(ARENA_ALIGN - 1);
}

void *rt_arena_alloc(struct rt_arena *arena, size_t size)
{
	struct rt_arena_block *block = arena->head;
	size_t rounded;

	if (size > SIZE_MAX - 2 * ARENA_ALIGN - header_size())
		return NULL;
	rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (arena->limit && (rounded > arena->limit ||
			     arena->total > arena->limit - rounded))
		return NULL;
	if (!block || block->capacity - block->used < rounded) {
		/* Big objects get their own block, behind the current one. */
		size_t capacity = rounded > ARENA_BLOCK_SIZE / 4 ?
				  rounded : ARENA_BLOCK_SIZE;
		struct rt_arena_block *fresh;

		if (posix_memalign((void **)&fresh, ARENA_ALIGN,
				   header_size() + capacity))
			return NULL;
		fresh->used = 0;
		fresh->capacity = capacity;
		if (block && capacity == rounded && capacity != ARENA_BLOCK_SIZE) {
			fresh->next = block->next;
			block->next = fresh;
		} else {
			fresh->next = block;
			arena->head = fresh;
		}
		block = fresh;
	}
	void *p = (char *)block + header_size() + block->used;

	block->used += rounded;
	arena->total += rounded;
	memset(p, 0, size);
	return p;
}

char *rt_arena_strndup(struct rt_arena *arena, const char *s, size_t len)
{
	char *copy = rt_arena_alloc(arena, len + 1);

	if (copy) {
		memcpy(copy, s, len);
		copy[len] = 0;
	}
	return copy;
}

char *rt_arena_strdup(struct rt_arena *arena, const char *s)
{
	return rt_arena_strndup(arena, s, strlen(s));
}

void rt_arena_free_all(struct rt_arena *arena)
{
	struct rt_arena_block *block = arena->head;

	while (block) {
		struct rt_arena_block *next = block->next;

		free(block);
		block = next;
	}
	arena->head = NULL;
	arena->total = 0;
}
