/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the job kselftests: a BO list whose buffers are created,
 * filled and mapped in one call, running a cmdbuf on it and reading the
 * job's fence status; a seeded random generator (the seed is logged so a
 * failure can be replayed); fault injection through the rig's relay
 * (tools/vm/run --fault-relay); the driver's recovery counters. Every
 * function returns 0 or a negative errno.
 */
#ifndef ENPU_JOBS_H
#define ENPU_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include <enpu/enpu.h>

#define ENPU_JOB_MAX_BOS 16
#define ENPU_SECOND_NS (1000 * 1000 * 1000LL)

struct enpu_job_bos {
	enpu_device *device;
	uint32_t count;
	enpu_bo *bo[ENPU_JOB_MAX_BOS];
	unsigned char *map[ENPU_JOB_MAX_BOS];
	uint64_t size[ENPU_JOB_MAX_BOS];
	uint32_t access[ENPU_JOB_MAX_BOS];
};

/*
 * Adds a BO of size bytes with the given submit access; its bytes are a
 * copy of init (size bytes) or, with init NULL, all `fill`. Its list index
 * goes to *index.
 */
int enpu_job_bo_add(struct enpu_job_bos *bos, uint64_t size, uint32_t access,
		    const void *init, unsigned char fill, uint32_t *index);
/* Destroys the BO at index (its mapping too), leaving a hole in the list. */
void enpu_job_bo_drop(struct enpu_job_bos *bos, uint32_t index);
void enpu_job_bos_release(struct enpu_job_bos *bos);

/* Submits the cmdbuf on context with the list; out_syncobj may be 0. */
int enpu_job_submit(struct enpu_job_bos *bos, const enpu_cmdbuf *cmdbuf,
		    uint32_t context, uint32_t out_syncobj, uint64_t *seqno);
/*
 * Submits, waits up to timeout_ns for the fence and stores its status (0
 * or the negative errno the fence carries). A submit the kernel refused
 * returns its errno and leaves *job_status alone.
 */
int enpu_job_run(struct enpu_job_bos *bos, const enpu_cmdbuf *cmdbuf,
		 uint32_t context, int64_t timeout_ns, int *job_status);

/* xorshift64*; never returns the same stream for different seeds. */
struct enpu_random {
	uint64_t state;
};
void enpu_random_seed(struct enpu_random *random, uint64_t seed);
uint64_t enpu_random_next(struct enpu_random *random);
/* Uniform in [low, high]. */
int64_t enpu_random_range(struct enpu_random *random, int64_t low,
			  int64_t high);
/* The seed to use: $ENPU_TEST_SEED if set, else the time. */
uint64_t enpu_random_default_seed(void);

/*
 * Sends one command line to the vnpu control socket through the rig's
 * relay ($ENPU_VNPU_RELAY) and returns the reply line. -ENOSYS if the VM
 * was booted without --fault-relay, -ETIMEDOUT if no reply came within
 * 10 s, -EIO if the reply does not start with "ok".
 */
int enpu_fault(const char *command, size_t reply_size, char *reply);

struct enpu_recovery_counters {
	long long resets;
	long long hangs;
	long long lost_irqs;
};

/* debugfs `recovery`: resets=<n> hangs=<n> lost_irqs=<n>. */
int enpu_recovery_counters(struct enpu_recovery_counters *counters);
/* One key of debugfs `recovery` (retries, down, wedged...), or -1. */
long long enpu_recovery_value(const char *key);
/* Waits up to ms for that key to read value; 1 if it did. */
int enpu_recovery_reaches(const char *key, long long value, int ms);

/*
 * A vgem buffer with an unsignalled vgem write fence, exported once so
 * that any ENPU file can import it: a job that lists it (READ) waits in
 * the kernel until enpu_blocker_release() signals the fence (vgem's own
 * timeout signals it after 10 s otherwise).
 */
struct enpu_blocker {
	int vgem;
	uint32_t vgem_handle;
	uint32_t fence;
	int dmabuf;
	int signalled;
};

int enpu_blocker_create(struct enpu_blocker *blocker);
/* The blocker's BO as a handle of the ENPU file fd. */
int enpu_blocker_import(struct enpu_blocker *blocker, int fd,
			uint32_t *handle);
int enpu_blocker_release(struct enpu_blocker *blocker);
void enpu_blocker_destroy(struct enpu_blocker *blocker);
/* An empty job on context that reads the blocker's BO (imported as handle). */
int enpu_blocked_submit(int fd, uint32_t context, uint32_t handle,
			uint32_t out_syncobj);

/*
 * Forks a child with a file of its own that queues jobs (a 20 ms NOP and a
 * fill of a 1 MiB BO whose dma-buf it holds, on two contexts) and returns
 * its pid once `jobs` are queued; the child then waits for its death
 * (or, with keep_submitting, submits on until killed). -EIO if the child
 * failed before it was ready.
 */
int enpu_job_child(int jobs, int keep_submitting, pid_t *pid);

/* /sys/module/enpu/parameters/<name>. */
int enpu_param_read(const char *name, unsigned int *value);
int enpu_param_write(const char *name, unsigned int value);

#endif /* ENPU_JOBS_H */
