// SPDX-License-Identifier: MIT
/* Portable pooling microkernels: the plainest reading of enpu_pool_pass. */
#include "kernels_internal.h"

static int32_t load(const struct enpu_pool_pass *pass, size_t t, size_t c)
{
	const uint8_t *p = pass->inputs[t] + pass->input_offset + c;

	return pass->is_signed ? *(const int8_t *)p : *p;
}

void enpu_max_pool_scalar(const struct enpu_pool_pass *pass)
{
	for (size_t c = 0; c < pass->channels; c++) {
		int32_t value = pass->is_signed ? -128 : 0;

		for (size_t t = 0; t < pass->taps; t++)
			if (load(pass, t, c) > value)
				value = load(pass, t, c);
		((uint8_t *)pass->output)[c] = (uint8_t)value;
	}
}

void enpu_average_pool_scalar(const struct enpu_pool_pass *pass)
{
	for (size_t c = 0; c < pass->channels; c++) {
		int32_t sum = 0;

		for (size_t t = 0; t < pass->taps; t++)
			sum += load(pass, t, c) - pass->input_zero_point;
		((uint8_t *)pass->output)[c] = (uint8_t)enpu_requantize(
			(int32_t)((uint32_t)sum << pass->left_shift),
			pass->multiplier, pass->shift, pass->output_zero_point,
			pass->min, pass->max);
	}
}
