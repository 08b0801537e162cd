// SPDX-License-Identifier: MIT
/*
 * Argument checks shared by the convolution, pooling and elementwise
 * kernels, so that every op names the same problems the same way.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void enpu_cpu_type_range(enum enpu_cpu_dtype type, int32_t *lo, int32_t *hi)
{
	if (type == ENPU_CPU_INT8) {
		*lo = -128;
		*hi = 127;
	} else {
		*lo = 0;
		*hi = 255;
	}
}

int enpu_cpu_check_activation(enpu_cpu_context *context, const char *op,
			      const char *what, enum enpu_cpu_dtype type,
			      int32_t zero_point)
{
	int32_t lo, hi;

	if (type != ENPU_CPU_UINT8 && type != ENPU_CPU_INT8)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: %s type %d is not uint8 or int8", op,
				     what, (int)type);
	enpu_cpu_type_range(type, &lo, &hi);
	if (zero_point < lo || zero_point > hi)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: %s zero point %d outside %d..%d", op,
				     what, zero_point, lo, hi);
	return 0;
}

int enpu_cpu_check_output(enpu_cpu_context *context, const char *op,
			  enum enpu_cpu_dtype type,
			  const struct enpu_cpu_requant *rq, size_t channels)
{
	int32_t lo, hi;

	if (type == ENPU_CPU_INT32)
		return 0;
	if (type != ENPU_CPU_UINT8 && type != ENPU_CPU_INT8)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: output type %d is not uint8, int8 or int32",
				     op, (int)type);
	enpu_cpu_type_range(type, &lo, &hi);
	if (!rq || !rq->multiplier || !rq->shift)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: 8-bit output needs requant multiplier and shift",
				     op);
	if (rq->zero_point < lo || rq->zero_point > hi)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: output zero point %d outside %d..%d", op,
				     rq->zero_point, lo, hi);
	if (rq->min < lo || rq->max > hi || rq->min > rq->max)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: output clamp [%d, %d] not inside [%d, %d]",
				     op, rq->min, rq->max, lo, hi);
	for (size_t i = 0; i < (rq->per_channel ? channels : 1); i++) {
		if (rq->multiplier[i] < 0)
			return enpu_cpu_fail(context, -EINVAL,
					     "%s: channel %zu multiplier %d is negative",
					     op, i, rq->multiplier[i]);
		if (rq->shift[i] < ENPU_REQUANT_SHIFT_MIN ||
		    rq->shift[i] > ENPU_REQUANT_SHIFT_MAX)
			return enpu_cpu_fail(context, -EINVAL,
					     "%s: channel %zu shift %d outside %d..%d",
					     op, i, rq->shift[i],
					     ENPU_REQUANT_SHIFT_MIN,
					     ENPU_REQUANT_SHIFT_MAX);
	}
	return 0;
}

void *enpu_cpu_aligned_calloc(size_t size)
{
	void *p;

	size = (size + 63) & ~(size_t)63;
	if (size == 0)
		size = 64;
	p = aligned_alloc(64, size);
	if (p)
		memset(p, 0, size);
	return p;
}
