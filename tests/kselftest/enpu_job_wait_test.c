// SPDX-License-Identifier: GPL-2.0
/*
 * DRM_IOCTL_ENPU_JOB_WAIT (driver uapi 1.1): one ioctl waits for a job's
 * out-syncobj and returns the job's status. A finished job reads 0, a
 * cancelled one -ECANCELED; a pending one times out with -ETIME (relative
 * 0, relative, absolute in the past) without touching job_status; a
 * signal ends the wait with -EINTR; every argument error has its errno.
 * libenpu's enpu_job_wait()/enpu_job_status() go through it: they need
 * no new file descriptor, which the generic sync_file path does. Every
 * case fails on a 1.0 driver, which answers -EINVAL to the ioctl.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

/* job_status before the call: a value no job status can have. */
#define UNTOUCHED 7

FIXTURE(job_wait)
{
	enpu_device *device;
	int fd;
	uint32_t syncobj;
	struct enpu_blocker blocker;
	uint32_t blocker_handle;
};

FIXTURE_SETUP(job_wait)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &self->syncobj));
	ASSERT_EQ(0, enpu_blocker_create(&self->blocker));
	ASSERT_EQ(0, enpu_blocker_import(&self->blocker, self->fd,
					 &self->blocker_handle));
}

FIXTURE_TEARDOWN(job_wait)
{
	enpu_blocker_destroy(&self->blocker);
	enpu_syncobj_destroy(self->device, self->syncobj);
	enpu_device_close(self->device);
}

/* The bare ioctl (no drmIoctl(): it would restart after a signal). */
static int raw_job_wait(int fd, struct drm_enpu_job_wait *wait)
{
	return ioctl(fd, DRM_IOCTL_ENPU_JOB_WAIT, wait) ? -errno : 0;
}

static int job_wait(int fd, uint32_t syncobj, uint32_t flags,
		    int64_t timeout_ns, int *job_status)
{
	struct drm_enpu_job_wait wait = {
		.syncobj = syncobj, .flags = flags, .timeout_ns = timeout_ns,
		.job_status = *job_status,
	};
	int status = raw_job_wait(fd, &wait);

	*job_status = wait.job_status;
	return status;
}

static int64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * ENPU_SECOND_NS + now.tv_nsec;
}

TEST_F_TIMEOUT(job_wait, a_finished_job_returns_status_zero, 60)
{
	struct enpu_job_bos bos = { .device = self->device };
	enpu_cmdbuf *cmdbuf;
	int job_status = UNTOUCHED;

	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 1000 * 1000));
	ASSERT_EQ(0, enpu_job_submit(&bos, cmdbuf, 0, self->syncobj, NULL));
	ASSERT_EQ(0, job_wait(self->fd, self->syncobj, 0,
			      20 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(0, job_status);
	/* A signalled fence answers a poll at once, again and again. */
	job_status = UNTOUCHED;
	EXPECT_EQ(0, job_wait(self->fd, self->syncobj, 0, 0, &job_status));
	EXPECT_EQ(0, job_status);
	job_status = UNTOUCHED;
	EXPECT_EQ(0, job_wait(self->fd, self->syncobj, DRM_ENPU_WAIT_ABSOLUTE,
			      0, &job_status));
	EXPECT_EQ(0, job_status);
	enpu_cmdbuf_destroy(cmdbuf);
}

TEST_F_TIMEOUT(job_wait, a_cancelled_job_returns_ecanceled, 60)
{
	enpu_context *context;
	uint32_t id;
	int job_status = UNTOUCHED;

	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &context));
	ASSERT_EQ(0, enpu_context_id(context, &id));
	/* Held by the blocker's fence, so never handed to the device. */
	ASSERT_EQ(0, enpu_blocked_submit(self->fd, id, self->blocker_handle,
					 self->syncobj));
	ASSERT_EQ(0, enpu_context_destroy(context));
	ASSERT_EQ(0, job_wait(self->fd, self->syncobj, 0, 5 * ENPU_SECOND_NS,
			      &job_status));
	EXPECT_EQ(-ECANCELED, job_status);
}

TEST_F_TIMEOUT(job_wait, a_pending_job_times_out_with_etime, 60)
{
	int64_t start, waited;
	int job_status = UNTOUCHED;

	ASSERT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocker_handle,
					 self->syncobj));
	EXPECT_EQ(-ETIME, job_wait(self->fd, self->syncobj, 0, 0,
				   &job_status));
	EXPECT_EQ(UNTOUCHED, job_status);
	EXPECT_EQ(-ETIME, job_wait(self->fd, self->syncobj,
				   DRM_ENPU_WAIT_ABSOLUTE,
				   monotonic_ns() - ENPU_SECOND_NS,
				   &job_status));
	EXPECT_EQ(UNTOUCHED, job_status);
	start = monotonic_ns();
	EXPECT_EQ(-ETIME, job_wait(self->fd, self->syncobj, 0,
				   50 * 1000 * 1000, &job_status));
	waited = monotonic_ns() - start;
	EXPECT_EQ(UNTOUCHED, job_status);
	/* A timeout is never cut short (it is rounded up to a jiffy). */
	EXPECT_GE(waited, 50 * 1000 * 1000) TH_LOG("waited %lld ns",
						   (long long)waited);
	ASSERT_EQ(0, enpu_blocker_release(&self->blocker));
	ASSERT_EQ(0, job_wait(self->fd, self->syncobj, 0, 5 * ENPU_SECOND_NS,
			      &job_status));
	EXPECT_EQ(0, job_status);
}

static void on_alarm(int signal)
{
	(void)signal;
}

TEST_F_TIMEOUT(job_wait, a_signal_interrupts_the_wait, 60)
{
	struct itimerval alarm_in = { .it_value = { 0, 100 * 1000 } };
	struct sigaction action = { .sa_handler = on_alarm };
	struct sigaction saved;
	int job_status = UNTOUCHED;
	int64_t start, waited;

	ASSERT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocker_handle,
					 self->syncobj));
	/* No SA_RESTART: the interrupted ioctl returns -EINTR. */
	ASSERT_EQ(0, sigaction(SIGALRM, &action, &saved));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &alarm_in, NULL));
	start = monotonic_ns();
	EXPECT_EQ(-EINTR, job_wait(self->fd, self->syncobj, 0,
				   8 * ENPU_SECOND_NS, &job_status));
	waited = monotonic_ns() - start;
	sigaction(SIGALRM, &saved, NULL);
	EXPECT_EQ(UNTOUCHED, job_status);
	/* Well before the timeout and the blocker's own 10 s. */
	EXPECT_LT(waited, 4 * ENPU_SECOND_NS) TH_LOG("waited %lld ns",
						     (long long)waited);
	ASSERT_EQ(0, enpu_blocker_release(&self->blocker));
	ASSERT_EQ(0, job_wait(self->fd, self->syncobj, 0, 5 * ENPU_SECOND_NS,
			      &job_status));
	EXPECT_EQ(0, job_status);
}

TEST_F(job_wait, each_bad_argument_has_its_errno)
{
	struct drm_enpu_job_wait wait = { .syncobj = self->syncobj };
	uint32_t unknown = self->syncobj + 1000;

	/* The syncobj holds no fence yet: no wait-for-submit. */
	EXPECT_EQ(-EINVAL, raw_job_wait(self->fd, &wait));
	ASSERT_EQ(0, enpu_blocked_submit(self->fd, 0, self->blocker_handle,
					 self->syncobj));
	/* Now the same call is a valid poll of a pending job. */
	EXPECT_EQ(-ETIME, raw_job_wait(self->fd, &wait));
	wait.flags = DRM_ENPU_WAIT_WRITERS_ONLY;
	EXPECT_EQ(-EINVAL, raw_job_wait(self->fd, &wait));
	wait.flags = 1u << 31;
	EXPECT_EQ(-EINVAL, raw_job_wait(self->fd, &wait));
	wait.flags = 0;
	wait.reserved = 1;
	EXPECT_EQ(-EINVAL, raw_job_wait(self->fd, &wait));
	wait.reserved = 0;
	wait.timeout_ns = -1;
	EXPECT_EQ(-EINVAL, raw_job_wait(self->fd, &wait));
	wait.timeout_ns = 0;
	wait.syncobj = unknown;
	EXPECT_EQ(-ENOENT, raw_job_wait(self->fd, &wait));
	wait.syncobj = 0;
	EXPECT_EQ(-ENOENT, raw_job_wait(self->fd, &wait));
	ASSERT_EQ(0, enpu_blocker_release(&self->blocker));
}

/*
 * The generic path exports a sync_file, which needs a free descriptor;
 * JOB_WAIT does not. With RLIMIT_NOFILE at the lowest free descriptor,
 * only the one-ioctl path can succeed.
 */
TEST_F_TIMEOUT(job_wait, libenpu_waits_without_a_new_file_descriptor, 60)
{
	struct enpu_job_bos bos = { .device = self->device };
	struct rlimit saved, limit;
	enpu_cmdbuf *cmdbuf;
	int job_status = UNTOUCHED, lowest_free, wait_status, status_status;
	const char *message = "";

	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 1000 * 1000));
	ASSERT_EQ(0, enpu_job_submit(&bos, cmdbuf, 0, self->syncobj, NULL));
	lowest_free = dup(0);
	ASSERT_LE(0, lowest_free);
	close(lowest_free);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
	limit = saved;
	limit.rlim_cur = lowest_free;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &limit));
	ASSERT_EQ(-1, dup(0));
	wait_status = enpu_job_wait(self->device, self->syncobj,
				    20 * ENPU_SECOND_NS, 0, &job_status);
	status_status = enpu_job_status(self->device, self->syncobj,
					&job_status);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
	enpu_device_last_error(self->device, &message);
	EXPECT_EQ(0, wait_status) TH_LOG("%s", message);
	EXPECT_EQ(0, status_status);
	EXPECT_EQ(0, job_status);
	enpu_cmdbuf_destroy(cmdbuf);
}

TEST_HARNESS_MAIN
