/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential fuzzing entry point: one input (validate_fuzz.h's
 * format: BO sizes and access bits, then a stream) through the kernel
 * validator and through the vnpu's own checker, which must agree.
 */
#ifndef ENPU_DIFFERENTIAL_FUZZ_H
#define ENPU_DIFFERENTIAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * abort()s when the two checkers break their contract:
 *  - the promise of docs/jobs.md: a stream the kernel accepts, the device
 *    never rejects (it would fail a job no driver can prevent);
 *  - the device's own strictness: when the kernel rejects a command, the
 *    device rejects the same command, unless the kernel's rule is one the
 *    device documents it does not check (an ENPU_BUF_NONE reference's
 *    offset); then the device may accept it or stop at a later command;
 *  - a command with a broken framing rule (header, size, opcode) is
 *    blamed on the same rule by both (kernel/enpu_cmd_rule.h gives the
 *    order); for contents each checker has its own order, so a command
 *    that breaks several content rules may be blamed on different ones
 *    (test-validate asserts the rule for every rule broken alone);
 *  - the device's job status is the one its spec gives the rule it names.
 * Returns 1 if both accepted, 0 otherwise (-1: input too short to decode).
 */
int differential_fuzz_one(const uint8_t *data, size_t size);

#endif /* ENPU_DIFFERENTIAL_FUZZ_H */
