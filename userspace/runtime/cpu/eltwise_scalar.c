// SPDX-License-Identifier: MIT
/* Portable elementwise microkernels: the plainest reading of the rules. */
#include "kernels_internal.h"

static int32_t load(const uint8_t *p, int is_signed)
{
	return is_signed ? *(const int8_t *)p : *p;
}

void enpu_add_scalar(const struct enpu_eltwise_pass *pass)
{
	for (size_t i = 0; i < pass->count; i++)
		pass->out[i] = (uint8_t)enpu_add_one(
			pass->params, load(pass->a + i * pass->a_step, pass->is_signed),
			load(pass->b + i * pass->b_step, pass->is_signed));
}

void enpu_mul_scalar(const struct enpu_eltwise_pass *pass)
{
	for (size_t i = 0; i < pass->count; i++)
		pass->out[i] = (uint8_t)enpu_mul_one(
			pass->params, load(pass->a + i * pass->a_step, pass->is_signed),
			load(pass->b + i * pass->b_step, pass->is_signed));
}

void enpu_clamp_scalar(const struct enpu_eltwise_pass *pass)
{
	for (size_t i = 0; i < pass->count; i++) {
		int32_t v = load(pass->a + i, pass->is_signed);

		pass->out[i] = (uint8_t)(v < pass->params->min ? pass->params->min :
					 v > pass->params->max ? pass->params->max : v);
	}
}
