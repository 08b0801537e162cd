// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the firmware image parser (fw_image_fuzz.c). */
#include "fw_image_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fw_image_fuzz_one(data, size);
}
