// SPDX-License-Identifier: GPL-2.0
/*
 * ADD and MUL of two quantized tensors, with broadcasting: a dimension of
 * size 1 in an input repeats along the output's. The fixed-point rules are
 * those of enpu_cpu_add() / enpu_cpu_mul() (userspace/runtime/cpu/enpu_cpu.h)
 * and of struct enpu_cmd_eltwise:
 *
 *   ADD: acc = (a - a_zp) * Ma + (b - b_zp) * Mb        exact in int32
 *        out = clamp(floor((acc + 2^(S-1)) / 2^S) + out_zp, min, max)
 *   MUL: out = enpu_requantize(((a - a_zp) * (b - b_zp)) * 2^L, M, S,
 *                              out_zp, min, max)
 *
 * With Ma, Mb < 2^21 and |x - zp| <= 255, |acc| < 2^30; with L <= 15 the
 * product fits in int32 too. Both are computed in int64 anyway, so no
 * parameter the checks let through can overflow.
 */
#include "layer.h"

/* floor(v / 2^s) for 1 <= s <= 31, without relying on how C shifts
 * negative numbers. */
static int64_t floor_shift(int64_t v, int32_t s)
{
	int64_t d = (int64_t)1 << s;

	return v >= 0 ? v / d : -((-v + d - 1) / d);
}

static int32_t clamp(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

static uint64_t index_of(const struct layer_tensor *t, uint64_t n, uint64_t y,
			 uint64_t x, uint64_t c)
{
	/* A broadcast dimension always reads index 0. */
	n = t->n == 1 ? 0 : n;
	y = t->h == 1 ? 0 : y;
	x = t->w == 1 ? 0 : x;
	c = t->c == 1 ? 0 : c;
	return ((n * t->h + y) * t->w + x) * t->c + c;
}

/* Output elements [first, end) in NHWC order. */
void eltwise_compute(const struct layer *l, const int32_t *a,
		     const int32_t *b, uint64_t first, uint64_t end,
		     int32_t *out)
{
	const struct layer_tensor *o = &l->out;
	bool add = l->opcode == ENPU_CMD_ADD;

	for (uint64_t at = first; at < end; at++) {
		struct out_index i = out_index_of(o, at);
		int64_t da = a[index_of(&l->in, i.n, i.y, i.x, i.c)] -
			     l->in.zero_point;
		int64_t db = b[index_of(&l->in2, i.n, i.y, i.x, i.c)] -
			     l->in2.zero_point;

		if (add) {
			int64_t acc = da * l->a_multiplier +
				      db * l->b_multiplier;
			int64_t scaled = floor_shift(
				acc + ((int64_t)1 << (l->add_shift - 1)),
				l->add_shift);

			out[at] = clamp(scaled + o->zero_point, l->min, l->max);
		} else {
			int64_t product = da * db * ((int64_t)1 << l->left_shift);

			out[at] = enpu_requantize((int32_t)product,
						  l->multiplier, l->shift,
						  o->zero_point, l->min,
						  l->max);
		}
	}
}
