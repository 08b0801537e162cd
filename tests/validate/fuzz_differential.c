// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the kernel validator against the vnpu's checker
 * (`make fuzz-differential`, part of `make fuzz`). The contract is checked
 * by differential_fuzz_one(); a crash, a sanitizer report or an abort() is
 * a bug in one of the two.
 */
#include <stddef.h>
#include <stdint.h>

#include "differential_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	differential_fuzz_one(data, size);
	return 0;
}
