/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ENPU kselftests: the single device under test, the
 * vnpu facts file the guest compares against, and the driver's debugfs.
 */
#ifndef ENPU_SELFTEST_H
#define ENPU_SELFTEST_H

#include <stddef.h>
#include <stdint.h>

#include <enpu/enpu.h>

#define ENPU_FACTS_MAX 32
#define ENPU_FACTS_KEY_SIZE 32

struct enpu_facts {
	size_t count;
	char keys[ENPU_FACTS_MAX][ENPU_FACTS_KEY_SIZE];
	uint64_t values[ENPU_FACTS_MAX];
};

/*
 * Opens the one ENPU the VM has; fails (with why filled) if there is none
 * or more than one, since every test assumes a single vnpu.
 */
int enpu_selftest_open(enpu_device **device, size_t why_size, char *why);

/* Number of ENPU nodes currently listed, or a negative errno. */
int enpu_selftest_count_devices(void);

/*
 * Polls until the number of ENPU nodes is wanted; returns the ms waited,
 * or -1 after timeout_ms.
 */
int enpu_selftest_wait_devices(int wanted, int timeout_ms);

/*
 * rmmod enpu until it works (fences are freed an RCU grace period late);
 * 0, or -EBUSY after timeout_ms.
 */
int enpu_selftest_unload(int timeout_ms);

/*
 * Loads $ENPU_VNPU_FACTS. If require_key is not NULL, waits up to
 * timeout_ms for it to appear (vnpu rewrites the file after firmware boot).
 */
int enpu_facts_load(const char *require_key, int timeout_ms,
		    struct enpu_facts *facts, size_t why_size, char *why);
int enpu_facts_get(const struct enpu_facts *facts, const char *key,
		   uint64_t *value);

/* The device's directory under /sys/kernel/debug/dri. */
int enpu_debugfs_dir(size_t size, char *dir);
/* Reads a whole debugfs file of that directory (one read = one action). */
int enpu_debugfs_read(const char *dir, const char *file, size_t size,
		      char *text);
/* Finds "key=<integer>" in text. */
int enpu_text_value(const char *text, const char *key, long long *value);

/*
 * A counter of one context from debugfs `sched` (its line, found by ctx
 * id: the caller's file must be the only one with that id); -1 if absent.
 */
long long enpu_sched_ctx_value(const char *debugfs, uint32_t ctx,
			       const char *key);
/* A counter of the scheduler's own line of debugfs `sched`; -1 if absent. */
long long enpu_sched_value(const char *key);

/* build/bin/<program>, found from this test binary's own location. */
int enpu_selftest_program(const char *program, size_t size, char *path);

/* Writes text to path (a sysfs, debugfs or cgroup file). */
int enpu_write_file(const char *path, const char *text);

/*
 * Runs build/bin/<program> with stderr joined to stdout, keeps what fits of
 * its output in output (NUL-terminated); returns its exit status, or -1 if
 * it could not be run or did not exit normally.
 */
int enpu_selftest_program_output(const char *program, size_t size,
				 char *output);

/* Runs a shell command, returns its exit status or -1. */
int enpu_run(const char *command);

#endif /* ENPU_SELFTEST_H */
