// SPDX-License-Identifier: GPL-2.0
/*
 * FAST mode's cache of packed weights. Packing a layer's weights for the
 * CPU kernels costs about as much as running a small layer, and a network
 * submits the same weights job after job. An entry is keyed by
 * everything the packed form depends on, compared byte for byte: the
 * layer's shape and the weights, bias and requantization table as read
 * from the guest for this run. A guest that rewrites its weights simply
 * misses, so the cache can never return a stale result; it only saves
 * the packing. Bounded (LAYER_CACHE_BYTES), least recently used first
 * out; entries in use by a layer in progress are never evicted.
 */
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "layer_fast.h"

struct cache_entry {
	struct cache_entry *next;
	uint8_t *key;
	uint64_t key_bytes;
	uint64_t cost;		/* key + packed weights, bytes */
	uint64_t last_use;
	unsigned int users;
	struct fast_conv conv;
};

struct layer_cache {
	struct cache_entry *head;
	uint64_t bytes;
	uint64_t clock;
	uint64_t hits, misses;
};

struct layer_cache *layer_cache_create(void)
{
	return calloc(1, sizeof(struct layer_cache));
}

static void entry_free(struct cache_entry *e)
{
	fast_conv_release(&e->conv);
	free(e->key);
	free(e);
}

void layer_cache_destroy(struct layer_cache *c)
{
	if (!c)
		return;
	while (c->head) {
		struct cache_entry *e = c->head;

		c->head = e->next;
		entry_free(e);
	}
	free(c);
}

const struct fast_conv *layer_cache_get(struct layer_cache *c,
					const void *key, uint64_t key_bytes)
{
	for (struct cache_entry *e = c->head; e; e = e->next)
		if (e->key_bytes == key_bytes &&
		    !memcmp(e->key, key, key_bytes)) {
			e->users++;
			e->last_use = ++c->clock;
			c->hits++;
			return &e->conv;
		}
	c->misses++;
	return NULL;
}

/* Drops unused entries, oldest first, until @need more bytes fit. */
static void make_room(struct layer_cache *c, uint64_t need)
{
	while (c->bytes + need > LAYER_CACHE_BYTES) {
		struct cache_entry **victim = NULL;

		for (struct cache_entry **p = &c->head; *p; p = &(*p)->next)
			if (!(*p)->users &&
			    (!victim || (*p)->last_use < (*victim)->last_use))
				victim = p;
		if (!victim)
			return;
		{
			struct cache_entry *e = *victim;

			*victim = e->next;
			c->bytes -= e->cost;
			entry_free(e);
		}
	}
}

const struct fast_conv *layer_cache_put(struct layer_cache *c,
					const void *key, uint64_t key_bytes,
					struct fast_conv *conv,
					uint64_t packed_bytes)
{
	struct cache_entry *e;
	uint64_t cost = key_bytes + packed_bytes;

	if (cost > LAYER_CACHE_BYTES / 4)
		return NULL;	/* too big to be worth keeping */
	make_room(c, cost);
	if (c->bytes + cost > LAYER_CACHE_BYTES)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = malloc(key_bytes);
	if (!e->key) {
		free(e);
		return NULL;
	}
	memcpy(e->key, key, key_bytes);
	e->key_bytes = key_bytes;
	e->cost = cost;
	e->conv = *conv;
	memset(conv, 0, sizeof(*conv));	/* the entry owns it now */
	e->users = 1;
	e->last_use = ++c->clock;
	e->next = c->head;
	c->head = e;
	c->bytes += cost;
	return &e->conv;
}

void layer_cache_release(struct layer_cache *c, const struct fast_conv *conv)
{
	for (struct cache_entry *e = c->head; e; e = e->next)
		if (&e->conv == conv) {
			e->users--;
			return;
		}
}

void layer_cache_stats(const struct layer_cache *c, uint64_t *hits,
		       uint64_t *misses, uint64_t *bytes)
{
	*hits = c->hits;
	*misses = c->misses;
	*bytes = c->bytes;
}
