// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the command-stream validator (kernel/enpu_validate.c
 * built in userspace): `make fuzz-validate`. The invariants are checked by
 * validate_fuzz_one(); a crash, an ASan report or an abort() is a bug.
 */
#include <stddef.h>
#include <stdint.h>

#include "validate_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	validate_fuzz_one(data, size);
	return 0;
}
