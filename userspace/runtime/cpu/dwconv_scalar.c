// SPDX-License-Identifier: MIT
/*
 * Portable depthwise microkernel: the plainest reading of the pass
 * contract (struct enpu_dwconv_pass).
 */
#include "kernels_internal.h"

void enpu_dwconv_scalar(const struct enpu_dwconv_pass *pass)
{
	for (size_t p = 0; p < pass->pixels; p++) {
		const uint8_t *const *inputs = pass->inputs + p * pass->taps;

		for (size_t c = 0; c < pass->channels; c++) {
			/* uint32: int32 arithmetic that wraps instead of UB. */
			uint32_t acc = (uint32_t)pass->init[c];

			for (size_t t = 0; t < pass->taps; t++)
				acc += (uint32_t)((inputs[t][c] ^ pass->flip) *
						  pass->weights[t * pass->channels_padded + c]);
			enpu_dwconv_store_one(pass, p, c, (int32_t)acc);
		}
	}
}
