// SPDX-License-Identifier: GPL-2.0
/*
 * The limits of docs/jobs.md "Limits", each from both sides: the last
 * unit below the limit is accepted, the next one refused with the
 * documented errno while a neighbour that is not full still gets one (so
 * the right limit refused it), and capacity freed by completing jobs or
 * destroying contexts is usable again. Jobs are held in the kernel behind
 * a vgem write fence (enpu_blocker). The per-context limit is tested at
 * its default value, the others after lowering their module parameters
 * (restored afterwards). Last, the memory a submit makes the kernel hold
 * is charged to the submitter's memory cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

static const char *const params[] = {
	"max_jobs_per_context", "max_jobs_per_file", "max_jobs",
	"max_contexts_per_file", "max_contexts",
};
#define PARAMS (sizeof(params) / sizeof(params[0]))

FIXTURE(limits)
{
	enpu_device *device;
	int fd;
	struct enpu_blocker blocker;
	uint32_t blocked;	/* the blocker's BO in fd */
	unsigned int saved[PARAMS];
};

FIXTURE_SETUP(limits)
{
	char why[256];

	self->blocker.vgem = -1;
	for (size_t i = 0; i < PARAMS; i++) {
		ASSERT_EQ(0, enpu_param_read(params[i], &self->saved[i]))
			TH_LOG("module parameter %s", params[i]);
	}
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_blocker_create(&self->blocker));
	ASSERT_EQ(0, enpu_blocker_import(&self->blocker, self->fd,
					 &self->blocked));
}

FIXTURE_TEARDOWN(limits)
{
	enpu_blocker_destroy(&self->blocker);
	for (size_t i = 0; i < PARAMS; i++)
		enpu_param_write(params[i], self->saved[i]);
	enpu_device_close(self->device);
}

/* Submits n blocked jobs on context; the last one's fence in syncobj. */
static int submit_blocked(int fd, uint32_t context, uint32_t handle,
			  unsigned int n, uint32_t syncobj)
{
	for (unsigned int i = 0; i < n; i++) {
		int status = enpu_blocked_submit(fd, context, handle,
						 i + 1 == n ? syncobj : 0);

		if (status)
			return status;
	}
	return 0;
}

/* Signals the blocker and waits for the job whose fence is in syncobj. */
static int release_and_wait(FIXTURE_DATA(limits) *self, int fd,
			    uint32_t syncobj)
{
	int status = enpu_blocker_release(&self->blocker);

	if (!status && drmSyncobjWait(fd, &syncobj, 1, INT64_MAX,
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      NULL))
		status = -errno;
	return status;
}

static int set_param(const char *name, unsigned int value)
{
	return enpu_param_write(name, value);
}

/*
 * max_jobs_per_context at its default: that many blocked jobs on context
 * 0 are queued, one more is EAGAIN while another context of the same
 * file still gets one; once they complete, context 0 submits again.
 */
TEST_F_TIMEOUT(limits, jobs_per_context_both_sides, 60)
{
	unsigned int limit = 0, per_file = 0;
	uint32_t syncobj = 0, other = 0;

	ASSERT_EQ(0, enpu_param_read("max_jobs_per_context", &limit));
	ASSERT_EQ(0, enpu_param_read("max_jobs_per_file", &per_file));
	ASSERT_LT(limit, per_file) TH_LOG("defaults leave no room to tell them apart");
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &other));
	ASSERT_EQ(0, submit_blocked(self->fd, 0, self->blocked, limit - 1, 0));
	ASSERT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocked, syncobj));
	EXPECT_EQ(-EAGAIN, enpu_blocked_submit(self->fd, 0, self->blocked, 0));
	EXPECT_EQ(0, enpu_blocked_submit(self->fd, other, self->blocked, 0));
	ASSERT_EQ(0, release_and_wait(self, self->fd, syncobj));
	EXPECT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocked, 0));
	drmSyncobjDestroy(self->fd, syncobj);
}

/*
 * max_jobs_per_file: context A fills its own limit, context B the rest of
 * the file's; B's next job is EAGAIN although B is below its own limit,
 * while another file still submits. Completion frees the file's units.
 */
TEST_F_TIMEOUT(limits, jobs_per_file_both_sides, 60)
{
	uint32_t a = 0, b = 0, syncobj = 0, handle = 0;
	int second;

	ASSERT_EQ(0, set_param("max_jobs_per_context", 4));
	ASSERT_EQ(0, set_param("max_jobs_per_file", 6));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &a));
	ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &b));
	ASSERT_EQ(0, submit_blocked(self->fd, a, self->blocked, 4, 0));
	EXPECT_EQ(-EAGAIN, enpu_blocked_submit(self->fd, a, self->blocked, 0));
	ASSERT_EQ(0, submit_blocked(self->fd, b, self->blocked, 2, syncobj));
	EXPECT_EQ(-EAGAIN, enpu_blocked_submit(self->fd, b, self->blocked, 0));
	ASSERT_EQ(0, enpu_reopen(self->device, &second));
	ASSERT_EQ(0, enpu_blocker_import(&self->blocker, second, &handle));
	EXPECT_EQ(0, enpu_blocked_submit(second, 0, handle, 0));
	ASSERT_EQ(0, release_and_wait(self, self->fd, syncobj));
	EXPECT_EQ(0, submit_blocked(self->fd, b, self->blocked, 4, 0));
	close(second);
	drmSyncobjDestroy(self->fd, syncobj);
}

/*
 * max_jobs: two files, each below its own limits, share the device's;
 * the job past it is EAGAIN from whichever file submits it.
 */
TEST_F_TIMEOUT(limits, jobs_per_device_both_sides, 60)
{
	uint32_t syncobj = 0, handle = 0;
	int second;

	ASSERT_EQ(0, set_param("max_jobs_per_context", 4));
	ASSERT_EQ(0, set_param("max_jobs_per_file", 4));
	ASSERT_EQ(0, set_param("max_jobs", 5));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_reopen(self->device, &second));
	ASSERT_EQ(0, enpu_blocker_import(&self->blocker, second, &handle));
	ASSERT_EQ(0, submit_blocked(self->fd, 0, self->blocked, 4, syncobj));
	ASSERT_EQ(0, enpu_blocked_submit(second, 0, handle, 0));
	EXPECT_EQ(-EAGAIN, enpu_blocked_submit(second, 0, handle, 0));
	ASSERT_EQ(0, release_and_wait(self, self->fd, syncobj));
	/* Both of the second file's jobs may have to finish first. */
	for (int waited = 0; waited < 5000; waited += 10) {
		if (!enpu_raw_bo_wait(second, handle, 0, 0))
			break;
		enpu_sleep_ms(10);
	}
	EXPECT_EQ(0, submit_blocked(second, 0, handle, 4, 0));
	close(second);
	drmSyncobjDestroy(self->fd, syncobj);
}

/* max_contexts_per_file: at the default, and lowered to 3. */
TEST_F(limits, contexts_per_file_both_sides)
{
	unsigned int limit = 0;
	uint32_t ids[256] = { 0 }, extra = 0;
	int second;

	ASSERT_EQ(0, enpu_param_read("max_contexts_per_file", &limit));
	ASSERT_GE(256u, limit);
	for (unsigned int i = 0; i < limit; i++) {
		ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &ids[i])) TH_LOG("%u", i);
	}
	EXPECT_EQ(-EMFILE, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &extra));
	/* Another file is not affected. */
	ASSERT_EQ(0, enpu_reopen(self->device, &second));
	EXPECT_EQ(0, enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra));
	ASSERT_EQ(0, enpu_raw_context_destroy(self->fd, ids[limit / 2]));
	EXPECT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &ids[limit / 2]));
	EXPECT_EQ(-EMFILE, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &extra));
	for (unsigned int i = 0; i < limit; i++)
		ASSERT_EQ(0, enpu_raw_context_destroy(self->fd, ids[i]));

	ASSERT_EQ(0, set_param("max_contexts_per_file", 3));
	for (unsigned int i = 0; i < 3; i++)
		ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &ids[i]));
	EXPECT_EQ(-EMFILE, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &extra));
	ASSERT_EQ(0, enpu_raw_context_destroy(self->fd, ids[0]));
	EXPECT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &ids[0]));
	/* Context 0 does not count and still takes jobs. */
	EXPECT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocked, 0));
	close(second);
}

/* A job of 2 s of device time on context: on the ring, it runs to the end. */
static int submit_long_nop(int fd, uint32_t context, uint32_t syncobj)
{
	struct enpu_cmd_nop nop = {
		.hdr = { ENPU_CMD_NOP, 0, sizeof(nop) },
		.cycles = 2000000000u,
	};
	struct drm_enpu_submit submit = {
		.commands = (uintptr_t)&nop,
		.commands_size = sizeof(nop),
		.bo_stride = sizeof(struct drm_enpu_submit_bo),
		.in_fence_stride = sizeof(struct drm_enpu_fence),
		.out_syncobj = syncobj,
		.context = context,
	};

	return enpu_raw_submit(fd, &submit);
}

/*
 * max_contexts: created contexts of all files count; a destroyed context
 * whose job is running counts until that job is done.
 */
TEST_F_TIMEOUT(limits, contexts_per_device_both_sides, 60)
{
	uint32_t ids[3] = { 0 }, extra = 0, syncobj = 0;
	int second;

	ASSERT_EQ(0, set_param("max_contexts", 4));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_reopen(self->device, &second));
	for (unsigned int i = 0; i < 3; i++)
		ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &ids[i]));
	ASSERT_EQ(0, enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra));
	EXPECT_EQ(-ENOSPC, enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra));
	EXPECT_EQ(-ENOSPC, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &extra));
	ASSERT_EQ(0, submit_long_nop(self->fd, ids[0], syncobj));
	enpu_sleep_ms(100);
	ASSERT_EQ(0, enpu_raw_context_destroy(self->fd, ids[0]));
	ASSERT_EQ(0, enpu_raw_context_destroy(self->fd, ids[1]));
	ASSERT_EQ(0, enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra));
	EXPECT_EQ(-ENOSPC, enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra))
		TH_LOG("the destroyed context with a running job was not counted");
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1, INT64_MAX,
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				    NULL));
	/* Its job is signalled; the context is freed just after. */
	for (int waited = 0; waited < 5000; waited += 10) {
		int status = enpu_raw_context_create(second, DRM_ENPU_PRIORITY_NORMAL, &extra);

		if (status != -ENOSPC) {
			EXPECT_EQ(0, status);
			break;
		}
		enpu_sleep_ms(10);
	}
	close(second);
	drmSyncobjDestroy(self->fd, syncobj);
}

#define CGROUP_ROOT "/sys/fs/cgroup"
#define STREAM_BYTES (1024 * 1024)
#define MEMCG_JOBS 32

static long long read_number(const char *path)
{
	long long value = -1;
	FILE *file = fopen(path, "r");

	if (!file)
		return -errno;
	if (fscanf(file, "%lld", &value) != 1)
		value = -EPROTO;
	fclose(file);
	return value;
}

/*
 * A child in its own memory cgroup queues MEMCG_JOBS jobs with a 1 MiB
 * command stream each (NOPs) behind the blocker and reports the cgroup's
 * memory.current before and after: the job buffers alone are 32 MiB, and
 * all of it must be charged there, not to the kernel at large.
 */
TEST_F_TIMEOUT(limits, job_memory_is_charged_to_the_submitters_cgroup, 60)
{
	char group[128], path[256], text[32];
	long long report[2] = { -1, -1 };
	int pipe_fds[2], status;
	pid_t child;

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK)) {
		mkdir(CGROUP_ROOT, 0755);
		ASSERT_EQ(0, mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL))
			TH_LOG("mounting cgroup2: %s", strerror(errno));
	}
	ASSERT_EQ(0, enpu_write_file(CGROUP_ROOT "/cgroup.subtree_control",
				"+memory"));
	snprintf(group, sizeof(group), CGROUP_ROOT "/enpu-limits-%d", getpid());
	ASSERT_EQ(0, mkdir(group, 0755));
	ASSERT_EQ(0, pipe(pipe_fds));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct enpu_cmd_nop *stream = calloc(1, STREAM_BYTES);
		struct drm_enpu_submit_bo bo = { self->blocked,
						 DRM_ENPU_SUBMIT_BO_READ };
		struct drm_enpu_submit submit = {
			.bos = (uintptr_t)&bo,
			.bo_count = 1,
			.bo_stride = sizeof(bo),
			.commands = (uintptr_t)stream,
			.commands_size = STREAM_BYTES,
			.in_fence_stride = sizeof(struct drm_enpu_fence),
		};
		long long numbers[2];

		if (!stream)
			_exit(2);
		for (size_t i = 0; i < STREAM_BYTES / sizeof(*stream); i++)
			stream[i].hdr = (struct enpu_cmd_header){
				ENPU_CMD_NOP, 0, sizeof(*stream) };
		snprintf(path, sizeof(path), "%s/cgroup.procs", group);
		snprintf(text, sizeof(text), "%d", getpid());
		if (enpu_write_file(path, text))
			_exit(3);
		snprintf(path, sizeof(path), "%s/memory.current", group);
		numbers[0] = read_number(path);
		for (int i = 0; i < MEMCG_JOBS; i++)
			if (enpu_raw_submit(self->fd, &submit))
				_exit(4);
		numbers[1] = read_number(path);
		if (write(pipe_fds[1], numbers, sizeof(numbers)) !=
		    sizeof(numbers))
			_exit(5);
		/* The blocker is released by the parent's teardown. */
		_exit(0);
	}
	close(pipe_fds[1]);
	EXPECT_EQ((ssize_t)sizeof(report),
		  read(pipe_fds[0], report, sizeof(report)));
	close(pipe_fds[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
	TH_LOG("cgroup memory.current %lld -> %lld bytes for %d jobs",
	       report[0], report[1], MEMCG_JOBS);
	EXPECT_LE(report[0] + (long long)MEMCG_JOBS * STREAM_BYTES, report[1]);
	ASSERT_EQ(0, enpu_blocker_release(&self->blocker));
	/* Jobs finish, the child is gone: the group can be removed. */
	for (int waited = 0; waited < 10000; waited += 50) {
		if (!rmdir(group))
			break;
		enpu_sleep_ms(50);
	}
}

TEST_HARNESS_MAIN
