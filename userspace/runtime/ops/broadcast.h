/* SPDX-License-Identifier: MIT */
/*
 * Row-wise numpy broadcasting over up to RT_BCAST_MAX inputs of any
 * element types. The output's axes are merged where every input is
 * contiguous across both or broadcast across both, so the innermost row
 * is as long as it can be; each input is then either contiguous along
 * the row (step 1) or one repeated value (step 0). Row functions are
 * plain loops the compiler vectorizes when the steps are 1.
 */
#ifndef ENPU_RT_BROADCAST_H
#define ENPU_RT_BROADCAST_H

#include "rt_op.h"

#define RT_BCAST_MAX 4

/*
 * One row of @count outputs: in[i] points at input i's first element,
 * step[i] is 1 (contiguous) or 0 (repeated).
 */
typedef void (*rt_bcast_row_fn)(void *ctx, size_t count, void *out,
				const void *const *in, const size_t *step);

/*
 * Calls @row over all of @out (shape already broadcast from @in, which
 * must all be present). Types are taken from each tensor.
 */
void rt_bcast_apply(const struct rt_tensor *const *in, size_t n,
		    struct rt_tensor *out, rt_bcast_row_fn row, void *ctx);

#endif /* ENPU_RT_BROADCAST_H */
