/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator for everything that lives as long as the graph (names,
 * attributes, constant tensors): one free at the end instead of one per
 * object on every error path.
 */
#ifndef ENPU_RT_ARENA_H
#define ENPU_RT_ARENA_H

#include <stddef.h>

struct rt_arena_block;

struct rt_arena {
	struct rt_arena_block *head;
	size_t total;		/* bytes handed out, for the size limit */
	size_t limit;		/* 0: no limit */
};

/* Zeroed, 64-byte aligned memory; NULL on OOM or when over the limit. */
void *rt_arena_alloc(struct rt_arena *arena, size_t size);
char *rt_arena_strndup(struct rt_arena *arena, const char *s, size_t len);
char *rt_arena_strdup(struct rt_arena *arena, const char *s);
void rt_arena_free_all(struct rt_arena *arena);

#endif /* ENPU_RT_ARENA_H */
