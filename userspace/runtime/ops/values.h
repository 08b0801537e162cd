/* SPDX-License-Identifier: MIT */
/*
 * Sequence and optional values inside ops: a tensor of dtype
 * ENPU_RT_SEQUENCE or ENPU_RT_OPTIONAL, rank 1, whose bytes are the
 * packed form of enpu_rt.h (enpu_rt_value_pack()). Items read from one
 * are views into its bytes; packing copies.
 */
#ifndef ENPU_RT_OPS_VALUES_H
#define ENPU_RT_OPS_VALUES_H

#include "rt_op.h"

static inline int rt_is_packed(int32_t dtype)
{
	return dtype == ENPU_RT_SEQUENCE || dtype == ENPU_RT_OPTIONAL;
}

/*
 * Kind (SEQUENCE/OPTIONAL), element type (0 if unknown) and item count
 * of packed @t; errors through k if @t is not a valid packed value, or
 * not of @want_kind (0: either).
 */
int rt_packed_info(struct rt_kernel *k, const struct rt_tensor *t,
		   int32_t want_kind, int32_t *elem, size_t *count);
/* Item @i of packed @t as a tensor view (nested values: packed again). */
int rt_packed_item(struct rt_kernel *k, const struct rt_tensor *t, size_t i,
		   struct rt_tensor *item);
/* Sets @out's shape for packing @items (infer()). */
int rt_packed_shape(struct rt_kernel *k, struct rt_tensor *out, int32_t kind,
		    const struct rt_tensor *const *items, size_t count);
/* Packs @items into @out, whose shape rt_packed_shape() set (run()). */
int rt_packed_write(struct rt_kernel *k, struct rt_tensor *out, int32_t kind,
		    int32_t elem, const struct rt_tensor *const *items,
		    size_t count);

#endif /* ENPU_RT_OPS_VALUES_H */
