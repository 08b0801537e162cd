/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The firmware image parser's fuzzing entry point, shared by the libFuzzer
 * target (fuzz_fw_image.c) and the replay in the host test: the input is
 * the image itself. Returns 0; abort()s with a message when an invariant
 * of the parser's contract is broken (see fw_image_fuzz.c).
 */
#ifndef ENPU_FW_IMAGE_FUZZ_H
#define ENPU_FW_IMAGE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int fw_image_fuzz_one(const uint8_t *data, size_t size);

#endif /* ENPU_FW_IMAGE_FUZZ_H */
