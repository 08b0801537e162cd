/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FAST mode internals shared by layer_exec.c and layer_fast.c: the CPU
 * kernels' packed form of a convolution or fully-connected layer.
 * Functions return 0, or -1 when the kernels refuse (the caller then
 * runs the oracle).
 */
#ifndef VNPU_LAYER_FAST_H
#define VNPU_LAYER_FAST_H

#include "enpu_cpu.h"
#include "layer.h"

struct fast_conv {
	enpu_cpu_conv_weights *weights;
	bool cached;		/* a cache entry's (shared), else owned */
	int32_t *multiplier;
	int32_t *shift;
	struct enpu_cpu_requant requant;
};

int fast_conv_prepare(const struct layer_engine *e, const struct layer *l,
		      const int8_t *weights, const int32_t *bias,
		      const struct requant_channel *rq, bool per_channel,
		      struct fast_conv *f);
void fast_conv_release(struct fast_conv *f);

/*
 * layer_cache.c. get/put return a reference (NULL: not cached) that
 * layer_cache_release() gives back; put takes over @conv on success.
 */
struct layer_cache *layer_cache_create(void);
void layer_cache_destroy(struct layer_cache *c);
const struct fast_conv *layer_cache_get(struct layer_cache *c,
					const void *key, uint64_t key_bytes);
const struct fast_conv *layer_cache_put(struct layer_cache *c,
					const void *key, uint64_t key_bytes,
					struct fast_conv *conv,
					uint64_t packed_bytes);
void layer_cache_release(struct layer_cache *c, const struct fast_conv *conv);
void layer_cache_stats(const struct layer_cache *c, uint64_t *hits,
		       uint64_t *misses, uint64_t *bytes);

#endif /* VNPU_LAYER_FAST_H */
