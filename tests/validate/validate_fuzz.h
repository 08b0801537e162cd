/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzing entry point of the command-stream validator, shared by the
 * libFuzzer target (fuzz_validate.c) and the host test, which replays its
 * seed inputs through it.
 *
 * Input format: byte 0 is the BO count (mod 9); then per BO 9 bytes, a
 * little-endian u64 size and an access byte (bits 0-1: READ, WRITE); the
 * rest is the command stream, cut to a multiple of 8 bytes and to
 * ENPU_CMD_MAX_STREAM.
 */
#ifndef ENPU_VALIDATE_FUZZ_H
#define ENPU_VALIDATE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_validate.h"

#define VALIDATE_FUZZ_MAX_BOS	8
#define VALIDATE_FUZZ_BO_BYTES	9

/* A decoded input; @stream is an exact-size heap copy. */
struct validate_fuzz_input {
	struct enpu_validate_bo bos[VALIDATE_FUZZ_MAX_BOS];
	unsigned int bo_count;
	uint8_t *stream;
	uint32_t stream_size;
};

/* 0, or -1 if @data is too short to decode. Free with _input_free(). */
int validate_fuzz_decode(const uint8_t *data, size_t size,
			 struct validate_fuzz_input *in);
void validate_fuzz_input_free(struct validate_fuzz_input *in);

/*
 * Runs the validator on @data and checks its invariants, abort()ing on a
 * violation: the result is 0 or -EINVAL; a rejection names a command
 * offset inside the stream, 8-aligned, and a rule; an accepted stream is
 * still accepted with every BO larger and every access granted.
 * Returns the validator's result (-1 if @data is too short to decode).
 */
int validate_fuzz_one(const uint8_t *data, size_t size);

/* Encodes an input for validate_fuzz_one(); returns its length. */
size_t validate_fuzz_encode(uint8_t *out, size_t room, const uint64_t *sizes,
			    const uint32_t *access, unsigned int bo_count,
			    const void *stream, size_t stream_size);

#endif /* ENPU_VALIDATE_FUZZ_H */
