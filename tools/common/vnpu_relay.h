/* SPDX-License-Identifier: MIT */
/*
 * The guest side of `tools/vm/run --fault-relay` (tools/vm/README.md): one
 * command line to the vnpu's host-only control socket, through request
 * and reply files in $ENPU_VNPU_RELAY, and its one-line reply. Used by
 * the kselftests (enpu_fault()) and e2e-npu-bench (cost-stats, speed).
 */
#ifndef ENPU_TOOLS_VNPU_RELAY_H
#define ENPU_TOOLS_VNPU_RELAY_H

#include <stddef.h>

/*
 * Sends @command and copies the reply line (without its newline) to
 * @reply (@reply_size bytes; @reply may be NULL). The reply file is
 * looked for every @poll_ms milliseconds, for 10 s at most. Returns 0 for
 * a reply starting with "ok", -EIO for another reply, -ENOSYS if the VM
 * was booted without --fault-relay, -ETIMEDOUT if no reply came, or
 * another -errno from the relay directory.
 */
int vnpu_relay(const char *command, char *reply, size_t reply_size,
	       int poll_ms);

#endif
