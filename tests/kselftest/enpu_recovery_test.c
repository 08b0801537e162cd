// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery, driven through the vnpu's fault injection (the rig's
 * --fault-relay): a hang fails the guilty job with -ETIMEDOUT while an
 * innocent job queued behind it from another context completes; three
 * hangs ban a context; a lost interrupt is recovered by the watchdog; and
 * a process killed with 100 jobs queued leaves a working device and no
 * leaked buffers; a thermal trip and failing firmware reboots are
 * retried until the device comes back (held jobs run, or after
 * recovery_hold_ms fail with -ENODEV). Skipped when the VM runs without
 * the relay.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

/*
 * The long job: LONG_NOPS NOPs of LONG_NOP_CYCLES, 12 s of device time even
 * at the fastest operating point (1000 MHz), so job_timeout_ms (10 s) or
 * the injected hang always ends it. One 4e9-cycle NOP took 4 s at 1000 MHz
 * and ended with status 0 before a hang the fault relay delivered late
 * (three_hangs_ban_the_context, "hang 2").
 */
#define LONG_NOP_CYCLES 4000000000u
#define LONG_NOPS	3

FIXTURE(recovery)
{
	enpu_device *device;
	enpu_cmdbuf *long_nop;
	enpu_cmdbuf *fill;
	struct enpu_job_bos bos;
	uint32_t dst;
};

FIXTURE_SETUP(recovery)
{
	char why[256], reply[256];
	int status = enpu_fault("status", sizeof(reply), reply);

	if (status == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, status) TH_LOG("relay: %d %s", status, reply);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	self->bos.device = self->device;
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, 8192, DRM_ENPU_SUBMIT_BO_WRITE,
				     NULL, 0, &self->dst));
	ASSERT_EQ(0, enpu_cmdbuf_create(&self->long_nop));
	for (int i = 0; i < LONG_NOPS; i++)
		ASSERT_EQ(0, enpu_cmdbuf_nop(self->long_nop, LONG_NOP_CYCLES));
	ASSERT_EQ(0, enpu_cmdbuf_create(&self->fill));
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(self->fill, self->dst, 0, 8192, 0x3c));
}

FIXTURE_TEARDOWN(recovery)
{
	enpu_job_bos_release(&self->bos);
	enpu_cmdbuf_destroy(self->long_nop);
	enpu_cmdbuf_destroy(self->fill);
	enpu_device_close(self->device);
}

/* A fresh fill job on the default context completes with status 0. */
static void device_still_works(struct __test_metadata *_metadata,
			       FIXTURE_DATA(recovery) *self)
{
	int job_status = 1;

	memset(self->bos.map[self->dst], 0, 8192);
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->fill, 0,
				  10 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0x3c, self->bos.map[self->dst][8191]);
}

/* Submits the long NOP on context, hangs the device once it runs. */
static void hang_job(struct __test_metadata *_metadata,
		     FIXTURE_DATA(recovery) *self, uint32_t context,
		     uint32_t syncobj)
{
	char reply[256];

	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->long_nop, context,
				     syncobj, NULL));
	enpu_sleep_ms(100);
	ASSERT_EQ(0, enpu_fault("hang", sizeof(reply), reply))
		TH_LOG("%s", reply);
}

TEST_F_TIMEOUT(recovery, hang_fails_the_guilty_job_only, 120)
{
	struct enpu_recovery_counters before, after;
	struct enpu_context_info info;
	enpu_context *guilty, *innocent;
	uint32_t guilty_id, innocent_id, guilty_done, innocent_done;
	int job_status = 1;
	int64_t start;

	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &guilty));
	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &innocent));
	enpu_context_id(guilty, &guilty_id);
	enpu_context_id(innocent, &innocent_id);
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &guilty_done));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &innocent_done));
	start = enpu_now_ns();
	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->long_nop, guilty_id,
				     guilty_done, NULL));
	/* Same priority, same hardware queue: queued behind the NOP. */
	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->fill, innocent_id,
				     innocent_done, NULL));
	enpu_sleep_ms(100);
	ASSERT_EQ(0, enpu_fault("hang", 0, NULL));
	ASSERT_EQ(0, enpu_job_wait(self->device, guilty_done,
				   30 * ENPU_SECOND_NS, 0, &job_status));
	EXPECT_EQ(-ETIMEDOUT, job_status);
	TH_LOG("hang detected after %lld ms",
	       (long long)((enpu_now_ns() - start) / 1000000));
	ASSERT_EQ(0, enpu_job_wait(self->device, innocent_done,
				   30 * ENPU_SECOND_NS, 0, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0x3c, self->bos.map[self->dst][0]);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_LT(before.hangs, after.hangs);
	EXPECT_LT(before.resets, after.resets);
	ASSERT_EQ(0, enpu_context_query(guilty, sizeof(info), &info));
	EXPECT_EQ(1u, info.hang_count);
	EXPECT_EQ(0u, info.flags);
	ASSERT_EQ(0, enpu_context_query(innocent, sizeof(info), &info));
	EXPECT_EQ(0u, info.hang_count);
	device_still_works(_metadata, self);
	enpu_syncobj_destroy(self->device, guilty_done);
	enpu_syncobj_destroy(self->device, innocent_done);
	enpu_context_destroy(guilty);
	enpu_context_destroy(innocent);
}

TEST_F_TIMEOUT(recovery, three_hangs_ban_the_context, 180)
{
	struct enpu_context_info info;
	enpu_context *context;
	uint32_t id = 0, syncobj = 0;
	int job_status;

	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &context));
	enpu_context_id(context, &id);
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	for (int hang = 1; hang <= 3; hang++) {
		job_status = 1;
		hang_job(_metadata, self, id, syncobj);
		ASSERT_EQ(0, enpu_job_wait(self->device, syncobj,
					   30 * ENPU_SECOND_NS, 0,
					   &job_status));
		EXPECT_EQ(-ETIMEDOUT, job_status) TH_LOG("hang %d", hang);
	}
	ASSERT_EQ(0, enpu_context_query(context, sizeof(info), &info));
	EXPECT_EQ(3u, info.hang_count);
	EXPECT_EQ((uint32_t)DRM_ENPU_CONTEXT_BANNED, info.flags);
	EXPECT_EQ(-ECANCELED, enpu_job_submit(&self->bos, self->fill, id, 0,
					      NULL));
	/* The ban is the context's, not the file's. */
	device_still_works(_metadata, self);
	enpu_syncobj_destroy(self->device, syncobj);
	enpu_context_destroy(context);
}

TEST_F_TIMEOUT(recovery, a_lost_interrupt_is_recovered_by_the_watchdog, 60)
{
	struct enpu_recovery_counters before, after;
	int job_status = 1;
	int64_t start;

	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_fault("lose-irq 1", 0, NULL));
	start = enpu_now_ns();
	/* Watchdog period 100 ms (docs/hw/vnpu.md): 2 s is a generous bound. */
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->fill, 0,
				  2 * ENPU_SECOND_NS, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0x3c, self->bos.map[self->dst][100]);
	TH_LOG("completed after %lld ms",
	       (long long)((enpu_now_ns() - start) / 1000000));
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.lost_irqs + 1, after.lost_irqs);
	EXPECT_EQ(before.resets, after.resets);
	device_still_works(_metadata, self);
}

/*
 * A child opens its own file, queues 100 jobs (each a NOP and a fill of
 * its own BO, exported as a dma-buf that the child closes again) and is
 * killed with SIGKILL while they run. The device must go on working, no
 * dma-buf may be left behind, and no hang may have been needed.
 */
TEST_F_TIMEOUT(recovery, kill_9_with_100_jobs_queued, 120)
{
	struct enpu_recovery_counters before, after;
	long dmabufs_before = 0, dmabufs_after = -1;
	pid_t child;
	int status;

	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_dmabuf_count(&dmabufs_before));
	ASSERT_EQ(0, enpu_job_child(100, 0, &child))
		TH_LOG("child failed to queue");
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	device_still_works(_metadata, self);
	/* The file's release finishes or cancels its jobs; give it time. */
	ASSERT_EQ(0, enpu_dmabuf_settle(dmabufs_before, 20000,
					&dmabufs_after));
	EXPECT_EQ(dmabufs_before, dmabufs_after);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.hangs, after.hangs);
	EXPECT_EQ(before.resets, after.resets);
}

/*
 * The vnpu writes the bitwise NOT of the job's tag into its completion
 * entry: the driver must see a completion for no job, recover without
 * blaming anyone, and run the job again; it completes, nobody hangs.
 */
TEST_F_TIMEOUT(recovery, a_corrupted_completion_is_recovered_without_blame, 60)
{
	struct enpu_recovery_counters before, after;
	int job_status = 1;
	int64_t start;

	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_fault("corrupt-completion", 0, NULL));
	memset(self->bos.map[self->dst], 0, 8192);
	start = enpu_now_ns();
	ASSERT_EQ(0, enpu_job_run(&self->bos, self->fill, 0,
				  30 * ENPU_SECOND_NS, &job_status));
	TH_LOG("completed after %lld ms",
	       (long long)((enpu_now_ns() - start) / 1000000));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0x3c, self->bos.map[self->dst][8191]);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.resets + 1, after.resets);
	EXPECT_EQ(before.hangs, after.hangs);
	device_still_works(_metadata, self);
}

/*
 * Runs cmdbuf (its commands, then a 4 s NOP) and halts the device with a
 * thermal trip once the commands have run: the byte at @ran (the last
 * one they write) holds @want. A reset the job did not cause then
 * interrupts it after it has written its outputs. Waiting for the byte,
 * not a fixed delay: on the debug kernel at load 14 the job had not
 * started 200 ms after the submit, so the trip came before the layer
 * and the rerun was (rightly) allowed. The NOP leaves the fault relay
 * seconds to deliver the trip while the job is still running; once the
 * device is down the vnpu runs 50 times faster, so cooling and the rerun
 * take a fraction of a second. The hot device may run the rerun at its
 * lowest clock, where the NOP alone is 20 s of device time, more than
 * job_timeout_ms: a made-up hang, not the rerun under test, so the
 * timeout is raised for the run. Returns the job's fence status.
 */
static int run_interrupted(struct __test_metadata *_metadata,
			   FIXTURE_DATA(recovery) *self, enpu_cmdbuf *cmdbuf,
			   const unsigned char *ran, unsigned char want)
{
	struct enpu_recovery_counters before, after;
	long long retries = enpu_recovery_value("retries");
	const volatile unsigned char *seen = ran;
	unsigned int timeout_ms = 0;
	int job_status = 1;
	int64_t deadline;
	uint32_t syncobj;

	ASSERT_EQ(0, enpu_param_read("job_timeout_ms", &timeout_ms));
	ASSERT_EQ(0, enpu_param_write("job_timeout_ms", 120000));
	EXPECT_EQ(0, enpu_recovery_counters(&before));
	EXPECT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 4000u * 1000 * 1000));
	EXPECT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	ASSERT_NE(want, *seen) TH_LOG("the output already holds %u", want);
	EXPECT_EQ(0, enpu_job_submit(&self->bos, cmdbuf, 0, syncobj, NULL));
	/* Bounded by the NOP: past it the job is over, not interrupted. */
	deadline = enpu_now_ns() + 30 * ENPU_SECOND_NS;
	while (*seen != want && enpu_now_ns() < deadline)
		enpu_sleep_ms(5);
	ASSERT_EQ(want, *seen) TH_LOG("the job's commands never ran");
	EXPECT_EQ(0, enpu_fault("thermal-spike 80000", 0, NULL));
	/* A count of failed attempts: "down" may be over between two polls. */
	for (int waited = 0; waited < 3000 &&
	     enpu_recovery_value("retries") <= retries; waited += 10)
		enpu_sleep_ms(10);
	EXPECT_LT(retries, enpu_recovery_value("retries"))
		TH_LOG("no failed attempt: booted while still too hot?");
	EXPECT_EQ(0, enpu_fault("speed 50", 0, NULL));
	EXPECT_EQ(0, enpu_job_wait(self->device, syncobj, 60 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, enpu_fault("speed 1", 0, NULL));
	EXPECT_EQ(0, enpu_param_write("job_timeout_ms", timeout_ms));
	EXPECT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_LT(before.resets, after.resets) TH_LOG("no reset happened");
	EXPECT_EQ(before.hangs, after.hangs);
	enpu_syncobj_destroy(self->device, syncobj);
	return job_status;
}

/*
 * A thermal trip halts the device mid-job. Recovery resets it, finds it
 * still above its critical temperature less the resume margin, and
 * retries with backoff until it has cooled; then it boots, and the job
 * the trip interrupted (not its fault) runs again and completes. Before
 * issue 8 (defect 5) the first failed reboot wedged the device for good.
 */
TEST_F_TIMEOUT(recovery, a_thermal_trip_recovers_once_cooled, 120)
{
	long long retries_before = enpu_recovery_value("retries");
	enpu_cmdbuf *cmdbuf;

	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(cmdbuf, self->dst, 0, 8192, 0x3c));
	memset(self->bos.map[self->dst], 0, 8192);
	EXPECT_EQ(0, run_interrupted(_metadata, self, cmdbuf,
				     &self->bos.map[self->dst][8191], 0x3c));
	EXPECT_EQ(0x3c, self->bos.map[self->dst][8191]);
	EXPECT_LT(retries_before, enpu_recovery_value("retries"))
		TH_LOG("the device booted while still too hot");
	EXPECT_EQ(0, enpu_recovery_value("down"));
	device_still_works(_metadata, self);
	enpu_cmdbuf_destroy(cmdbuf);
}

/* A short job whose completion entry the vnpu corrupts: recovery, no blame. */
static void corrupt_and_submit(struct __test_metadata *_metadata,
			       FIXTURE_DATA(recovery) *self, uint32_t syncobj)
{
	ASSERT_EQ(0, enpu_fault("corrupt-completion", 0, NULL));
	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->fill, 0, syncobj,
				     NULL));
}

/*
 * Firmware boot fails three times during a recovery: the device is down,
 * a job submitted meanwhile is held (accepted, not run), and the fourth
 * attempt brings the device back; both jobs then complete.
 */
TEST_F_TIMEOUT(recovery, failed_reboots_are_retried_and_held_jobs_run, 120)
{
	long long retries_before = enpu_recovery_value("retries");
	uint32_t first, held;
	int job_status = 1;

	ASSERT_EQ(0, enpu_syncobj_create(self->device, &first));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &held));
	ASSERT_EQ(0, enpu_fault("fail-boot 3", 0, NULL));
	corrupt_and_submit(_metadata, self, first);
	ASSERT_TRUE(enpu_recovery_reaches("down", 1, 5000))
		TH_LOG("the device never went down");
	ASSERT_EQ(0, enpu_job_submit(&self->bos, self->fill, 0, held, NULL))
		TH_LOG("a submit while recovering must be held, not refused");
	ASSERT_EQ(0, enpu_job_wait(self->device, first, 30 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, enpu_job_wait(self->device, held, 30 * ENPU_SECOND_NS, 0,
				   &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_LE(retries_before + 3, enpu_recovery_value("retries"));
	EXPECT_EQ(0, enpu_recovery_value("down"));
	device_still_works(_metadata, self);
	enpu_syncobj_destroy(self->device, first);
	enpu_syncobj_destroy(self->device, held);
}

/*
 * A device that stays down longer than recovery_hold_ms fails the jobs it
 * holds with -ENODEV and refuses submits, but recovery keeps trying: once
 * the fault is gone, the device works again without a reload.
 */
TEST_F_TIMEOUT(recovery, a_long_outage_fails_held_jobs_then_comes_back, 120)
{
	unsigned int hold = 0;
	uint32_t first;
	int job_status = 1;

	ASSERT_EQ(0, enpu_param_read("recovery_hold_ms", &hold));
	ASSERT_EQ(0, enpu_param_write("recovery_hold_ms", 300));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &first));
	ASSERT_EQ(0, enpu_fault("fail-boot 1000000", 0, NULL));
	corrupt_and_submit(_metadata, self, first);
	ASSERT_EQ(0, enpu_job_wait(self->device, first, 30 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(-ENODEV, job_status);
	EXPECT_TRUE(enpu_recovery_reaches("wedged", 1, 5000));
	EXPECT_EQ(-ENODEV, enpu_job_submit(&self->bos, self->fill, 0, 0, NULL));
	ASSERT_EQ(0, enpu_fault("fail-boot 0", 0, NULL));
	EXPECT_TRUE(enpu_recovery_reaches("wedged", 0, 10000))
		TH_LOG("recovery gave up for good");
	enpu_param_write("recovery_hold_ms", hold);
	device_still_works(_metadata, self);
	enpu_syncobj_destroy(self->device, first);
}

/* A 1x1x1024x4 uint8 tensor at the start of a BO. */
static struct enpu_layer_tensor add_tensor(uint32_t bo)
{
	return (struct enpu_layer_tensor){
		.buf = { bo, 0, 0 }, .batch = 1, .height = 1, .width = 1024,
		.channels = 4, .dtype = ENPU_DTYPE_UINT8,
	};
}

#define ADD_BYTES 4096

/* out = a + b exactly: Ma = Mb = 2^20, S = 20, zero points 0. */
static int append_add(enpu_cmdbuf *cmdbuf, uint32_t a, uint32_t b,
		      uint32_t out)
{
	struct enpu_add_layer add = {
		.a = add_tensor(a), .b = add_tensor(b),
		.output = add_tensor(out),
		.a_multiplier = 1 << 20, .b_multiplier = 1 << 20,
		.shift = 20, .min = 0, .max = 255,
	};

	return enpu_cmdbuf_add(cmdbuf, &add);
}

/*
 * An in-place layer (A = A + A) ran, then a reset interrupted its job.
 * Running it again would apply the layer twice (A would end 4x, not 2x),
 * so the job is not re-run: its fence gets -EIO (docs/jobs.md "Re-running
 * after a reset") and A holds what the one run wrote.
 */
TEST_F_TIMEOUT(recovery, an_interrupted_in_place_layer_is_not_applied_twice,
	       120)
{
	enpu_cmdbuf *cmdbuf;
	uint32_t a;

	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, ADD_BYTES,
				     DRM_ENPU_SUBMIT_BO_READ |
				     DRM_ENPU_SUBMIT_BO_WRITE, NULL, 3, &a));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, append_add(cmdbuf, a, a, a));
	EXPECT_EQ(-EIO, run_interrupted(_metadata, self, cmdbuf,
					&self->bos.map[a][ADD_BYTES - 1], 6));
	EXPECT_EQ(6, self->bos.map[a][0]) TH_LOG("the layer ran %s",
		self->bos.map[a][0] == 12 ? "twice" : "not once");
	EXPECT_EQ(6, self->bos.map[a][ADD_BYTES - 1]);
	device_still_works(_metadata, self);
	enpu_cmdbuf_destroy(cmdbuf);
}

/*
 * The same interruption for jobs that are safe to run again: C = A + A
 * into another BO, and a scratch tensor written densely by one layer and
 * then updated in place by the next (T = A + A; T = T + T), which a rerun
 * writes afresh before updating. Both run again and end as one
 * uninterrupted run would.
 */
TEST_F_TIMEOUT(recovery, an_interrupted_safe_job_runs_again_to_the_same_result,
	       180)
{
	enpu_cmdbuf *cmdbuf;
	uint32_t a, c;

	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, ADD_BYTES,
				     DRM_ENPU_SUBMIT_BO_READ, NULL, 3, &a));
	ASSERT_EQ(0, enpu_job_bo_add(&self->bos, ADD_BYTES,
				     DRM_ENPU_SUBMIT_BO_READ |
				     DRM_ENPU_SUBMIT_BO_WRITE, NULL, 0, &c));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, append_add(cmdbuf, a, a, c));
	EXPECT_EQ(0, run_interrupted(_metadata, self, cmdbuf,
				     &self->bos.map[c][ADD_BYTES - 1], 6));
	EXPECT_EQ(6, self->bos.map[c][0]);
	EXPECT_EQ(6, self->bos.map[c][ADD_BYTES - 1]);

	memset(self->bos.map[c], 0, ADD_BYTES);
	ASSERT_EQ(0, enpu_cmdbuf_reset(cmdbuf));
	ASSERT_EQ(0, append_add(cmdbuf, a, a, c));
	ASSERT_EQ(0, append_add(cmdbuf, c, c, c));
	EXPECT_EQ(0, run_interrupted(_metadata, self, cmdbuf,
				     &self->bos.map[c][ADD_BYTES - 1], 12));
	EXPECT_EQ(12, self->bos.map[c][0]);
	EXPECT_EQ(12, self->bos.map[c][ADD_BYTES - 1]);
	device_still_works(_metadata, self);
	enpu_cmdbuf_destroy(cmdbuf);
}

TEST_HARNESS_MAIN
