// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler through the uapi (docs/scheduler.md): per-context
 * ordering, a REALTIME job preempting a long LOW one, layers preempted
 * many times giving the bytes of an uninterrupted run, priority
 * inheritance through a fence, round robin between equals, and
 * sched_mode=fifo running every job whole (the module reloaded). The
 * device-time checks are orders of events, not wall-clock durations: the
 * vnpu's model decides them, whatever the load of the host.
 */
#include <errno.h>
#include <linux/sync_file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include <enpu/enpu.h>

#include "enpu_accel.h"
#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

FIXTURE(sched)
{
	enpu_device *device;
	int fd;
	char debugfs[256];
	int slowed;
};

FIXTURE_SETUP(sched)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(self->debugfs), self->debugfs));
	self->slowed = 0;
}

FIXTURE_TEARDOWN(sched)
{
	char reply[128];

	if (self->slowed)
		enpu_fault("speed 1", sizeof(reply), reply);
	enpu_device_close(self->device);
}

/*
 * Whether the scheduler must preempt: the device has CAP_PREEMPT and
 * sched_mode is not fifo. Then debugfs must say preempt=1 (a scheduler
 * that silently stopped preempting fails here instead of skipping).
 */
static int sched_preempts(struct __test_metadata *_metadata,
			  enpu_device *device)
{
	struct enpu_device_params params;
	long long value;
	char mode[32] = "";
	FILE *file;

	if (enpu_device_query_params(device, sizeof(params), &params) ||
	    !(params.capabilities & DRM_ENPU_CAP_PREEMPT))
		return 0;
	file = fopen("/sys/module/enpu/parameters/sched_mode", "r");
	if (file) {
		if (!fgets(mode, sizeof(mode), file))
			mode[0] = '\0';
		fclose(file);
	}
	if (!strncmp(mode, "fifo", 4))
		return 0;
	value = enpu_sched_value("preempt");
	EXPECT_EQ(1, value) TH_LOG("CAP_PREEMPT, mode %s, yet not preempting",
				   mode);
	return 1;
}

/* A context of @priority, its id, and a syncobj for its jobs' fences. */
static int new_context(enpu_device *device, uint32_t priority,
		       enpu_context **context, uint32_t *id, uint32_t *syncobj)
{
	int status = enpu_context_create(device, priority, context);

	if (!status)
		status = enpu_context_id(*context, id);
	if (!status)
		status = enpu_syncobj_create(device, syncobj);
	return status;
}

/* One NOP job of @cycles on @context, its fence into @syncobj. */
static int submit_nop(enpu_device *device, uint32_t context, uint32_t cycles,
		      uint32_t syncobj, const struct enpu_submit_fence *in)
{
	struct enpu_submit_desc desc = { 0 };
	enpu_cmdbuf *cmdbuf;
	uint64_t seqno;
	int status;

	status = enpu_cmdbuf_create(&cmdbuf);
	if (status)
		return status;
	status = enpu_cmdbuf_nop(cmdbuf, cycles);
	if (!status)
		status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
					  &desc.commands_size);
	desc.context = context;
	desc.out_syncobj = syncobj;
	desc.in_fences = in;
	desc.in_fence_count = in ? 1 : 0;
	if (!status)
		status = enpu_submit(device, &desc, &seqno);
	enpu_cmdbuf_destroy(cmdbuf);
	return status;
}

static int job_pending(enpu_device *device, uint32_t syncobj)
{
	int job_status;

	return enpu_job_status(device, syncobj, &job_status) == -EBUSY;
}

/*
 * A job waiting for a fence holds back the later jobs of its own context
 * only: another context of the same priority runs meanwhile (one FIFO per
 * hardware queue held it back too).
 */
TEST_F(sched, a_blocked_job_holds_back_only_its_own_context)
{
	uint32_t a_id, b_id, handle, a1, a2, b[3];
	enpu_context *a, *b_ctx;
	struct enpu_blocker blocker;
	int job_status = 1;

	ASSERT_EQ(0, enpu_blocker_create(&blocker));
	ASSERT_EQ(0, enpu_blocker_import(&blocker, self->fd, &handle));
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_NORMAL, &a,
				 &a_id, &a1));
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_NORMAL,
				 &b_ctx, &b_id, &b[0]));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &a2));
	ASSERT_EQ(0, enpu_blocked_submit(self->fd, a_id, handle, a1));
	ASSERT_EQ(0, submit_nop(self->device, a_id, 1000, a2, NULL));
	for (int i = 0; i < 3; i++) {
		if (i)
			ASSERT_EQ(0, enpu_syncobj_create(self->device, &b[i]));
		ASSERT_EQ(0, submit_nop(self->device, b_id, 100000, b[i],
					NULL));
	}
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, enpu_job_wait(self->device, b[i],
					   5 * ENPU_SECOND_NS, 0,
					   &job_status));
		EXPECT_EQ(0, job_status);
	}
	/* A's second job needs nothing, but it is behind A's first. */
	EXPECT_TRUE(job_pending(self->device, a1));
	EXPECT_TRUE(job_pending(self->device, a2));
	ASSERT_EQ(0, enpu_blocker_release(&blocker));
	ASSERT_EQ(0, enpu_job_wait(self->device, a2, 5 * ENPU_SECOND_NS, 0,
				   &job_status));
	EXPECT_EQ(0, job_status);
	/* In order: the first had signalled when the second did. */
	ASSERT_EQ(0, enpu_job_status(self->device, a1, &job_status));
	EXPECT_EQ(0, job_status);
	enpu_blocker_destroy(&blocker);
	enpu_context_destroy(a);
	enpu_context_destroy(b_ctx);
}

/*
 * A REALTIME job does not wait for a 300 ms LOW job: it preempts it. At
 * vnpu speed 0.1 (with the fault relay) the LOW job takes 3 s, so that a
 * stalled host cannot let it finish before the REALTIME job is submitted.
 */
TEST_F(sched, realtime_preempts_a_long_low_job)
{
	uint32_t low_id, rt_id, low_sync, rt_sync;
	enpu_context *low, *rt;
	int job_status = 1;
	char reply[128];

	if (!sched_preempts(_metadata, self->device))
		SKIP(return, "the device does not preempt (sched_mode=fifo?)");
	if (!enpu_fault("speed 0.1", sizeof(reply), reply))
		self->slowed = 1;
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_LOW, &low,
				 &low_id, &low_sync));
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_REALTIME,
				 &rt, &rt_id, &rt_sync));
	ASSERT_EQ(0, submit_nop(self->device, low_id, 300000000, low_sync,
				NULL));
	enpu_sleep_ms(20);
	ASSERT_EQ(0, submit_nop(self->device, rt_id, 10000, rt_sync, NULL));
	ASSERT_EQ(0, enpu_job_wait(self->device, rt_sync, 5 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_TRUE(job_pending(self->device, low_sync))
		TH_LOG("the REALTIME job waited for the LOW one");
	ASSERT_EQ(0, enpu_job_wait(self->device, low_sync,
				   10 * ENPU_SECOND_NS, 0, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_LE(1, enpu_sched_ctx_value(self->debugfs, low_id, "preempted"));
	enpu_context_destroy(low);
	enpu_context_destroy(rt);
}

#define L_SIZE		40
#define L_CHANNELS	64
#define L_LAYERS	4

/* L_LAYERS 3x3 convolutions, 64 -> 64 channels on 40x40, chained
 * through two activation BOs (ping-pong), per-tensor requantization. */
static int build_layers(enpu_cmdbuf *cmdbuf)
{
	for (int l = 0; l < L_LAYERS; l++) {
		struct enpu_conv2d_layer c = {
			.input = { .buf = { l % 2, 0, 0 }, .batch = 1,
				   .height = L_SIZE, .width = L_SIZE,
				   .channels = L_CHANNELS,
				   .dtype = ENPU_DTYPE_UINT8,
				   .zero_point = 100 },
			.output = { .buf = { 1 - l % 2, 0, 0 }, .batch = 1,
				    .height = L_SIZE, .width = L_SIZE,
				    .channels = L_CHANNELS,
				    .dtype = ENPU_DTYPE_UINT8,
				    .zero_point = 7 },
			.weights = { 2, 0, (uint64_t)l * L_CHANNELS *
					   L_CHANNELS * 9 },
			.bias = { ENPU_BUF_NONE, 0, 0 },
			.requant = { { ENPU_BUF_NONE, 0, 0 }, 1 << 30, 45, 0,
				     255 },
			.kernel_height = 3, .kernel_width = 3,
			.stride_height = 1, .stride_width = 1,
			.dilation_height = 1, .dilation_width = 1,
			.pad_top = 1, .pad_left = 1, .pad_bottom = 1,
			.pad_right = 1, .groups = 1,
		};
		int status = enpu_cmdbuf_conv2d(cmdbuf, &c);

		if (status)
			return status;
	}
	return 0;
}

/*
 * A LOW job of convolutions, preempted again and again by REALTIME jobs,
 * ends with exactly the bytes of the same job run alone. The vnpu runs
 * slowly (speed 0.00005) so that the requests land inside the layers,
 * and at full speed again once the LOW job has been preempted
 * PREEMPTIONS times: how many REALTIME jobs fit into a fixed stretch of
 * device time depends on how fast this process gets through its loop
 * (at load 14 only 5 did, at 0.0002, against 16 on an idle machine).
 */
#define PREEMPTIONS	6
TEST_F_TIMEOUT(sched, preempted_layers_match_an_uninterrupted_run, 600)
{
	const size_t act = (size_t)L_SIZE * L_SIZE * L_CHANNELS;
	const size_t wts = (size_t)L_LAYERS * L_CHANNELS * L_CHANNELS * 9;
	struct enpu_job_bos bos = { .device = self->device };
	uint32_t low_id, rt_id, low_sync, rt_sync, index;
	unsigned char *input, *weights, *alone;
	long long before, after;
	enpu_context *low, *rt;
	struct enpu_random random;
	enpu_cmdbuf *cmdbuf;
	int job_status = 1, rt_jobs = 0;
	char reply[128];

	if (!sched_preempts(_metadata, self->device))
		SKIP(return, "the device does not preempt (sched_mode=fifo?)");
	if (enpu_fault("status", sizeof(reply), reply) == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	enpu_random_seed(&random, enpu_random_default_seed());
	input = malloc(act);
	weights = malloc(wts);
	alone = malloc(act);
	ASSERT_TRUE(input && weights && alone);
	for (size_t i = 0; i < act; i++)
		input[i] = (unsigned char)enpu_random_next(&random);
	for (size_t i = 0; i < wts; i++)
		weights[i] = (unsigned char)(enpu_random_range(&random, -3, 3));
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_LOW, &low,
				 &low_id, &low_sync));
	ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_REALTIME,
				 &rt, &rt_id, &rt_sync));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, build_layers(cmdbuf));
	ASSERT_EQ(0, enpu_job_bo_add(&bos, act, DRM_ENPU_SUBMIT_BO_READ |
				     DRM_ENPU_SUBMIT_BO_WRITE, input, 0,
				     &index));
	ASSERT_EQ(0, enpu_job_bo_add(&bos, act, DRM_ENPU_SUBMIT_BO_READ |
				     DRM_ENPU_SUBMIT_BO_WRITE, NULL, 0,
				     &index));
	ASSERT_EQ(0, enpu_job_bo_add(&bos, wts, DRM_ENPU_SUBMIT_BO_READ,
				     weights, 0, &index));

	/* Alone. */
	ASSERT_EQ(0, enpu_job_run(&bos, cmdbuf, low_id, 60 * ENPU_SECOND_NS,
				  &job_status));
	ASSERT_EQ(0, job_status);
	memcpy(alone, bos.map[0], act);

	/* Again from the same input, with REALTIME jobs arriving. */
	memcpy(bos.map[0], input, act);
	memset(bos.map[1], 0, act);
	ASSERT_EQ(0, enpu_fault("speed 0.00005", sizeof(reply), reply));
	self->slowed = 1;
	before = enpu_sched_ctx_value(self->debugfs, low_id, "preempted");
	ASSERT_EQ(0, enpu_job_submit(&bos, cmdbuf, low_id, low_sync, NULL));
	while (job_pending(self->device, low_sync) && rt_jobs < 400 &&
	       enpu_sched_ctx_value(self->debugfs, low_id, "preempted") -
	       before < PREEMPTIONS) {
		enpu_sleep_ms((int)enpu_random_range(&random, 5, 60));
		ASSERT_EQ(0, submit_nop(self->device, rt_id, 10, rt_sync,
					NULL));
		ASSERT_EQ(0, enpu_job_wait(self->device, rt_sync,
					   60 * ENPU_SECOND_NS, 0,
					   &job_status));
		ASSERT_EQ(0, job_status);
		rt_jobs++;
	}
	ASSERT_EQ(0, enpu_fault("speed 1", sizeof(reply), reply));
	self->slowed = 0;
	ASSERT_EQ(0, enpu_job_wait(self->device, low_sync,
				   300 * ENPU_SECOND_NS, 0, &job_status));
	EXPECT_EQ(0, job_status);
	after = enpu_sched_ctx_value(self->debugfs, low_id, "preempted");
	TH_LOG("%d REALTIME jobs, the LOW job was preempted %lld times",
	       rt_jobs, after - before);
	EXPECT_LE(PREEMPTIONS, after - before);
	/* It progressed across preemptions (a restart would never end). */
	EXPECT_GT(400, rt_jobs);
	EXPECT_EQ(0, memcmp(alone, bos.map[0], act));

	enpu_cmdbuf_destroy(cmdbuf);
	enpu_job_bos_release(&bos);
	enpu_context_destroy(low);
	enpu_context_destroy(rt);
	free(input);
	free(weights);
	free(alone);
}

/*
 * When the fence in @syncobj signalled (CLOCK_MONOTONIC ns, the clock
 * dma_fence_signal() stamps with): sync_file's fence info.
 */
static int signal_time_ns(int fd, uint32_t syncobj, int64_t *ns)
{
	struct sync_fence_info info = { 0 };
	struct sync_file_info file = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)&info,
	};
	int sync_file, status;

	if (drmSyncobjExportSyncFile(fd, syncobj, &sync_file))
		return -errno;
	status = ioctl(sync_file, SYNC_IOC_FILE_INFO, &file) ? -errno : 0;
	close(sync_file);
	if (!status && (file.status != 1 || !info.timestamp_ns))
		status = -EBUSY;
	*ns = (int64_t)info.timestamp_ns;
	return status;
}

/*
 * Two NORMAL contexts with one 200 ms job each share the device in
 * slices: both are preempted many times, neither waits for the other.
 * Both jobs queue behind one blocker and become ready when it is
 * released, so a stall of this thread between the submits (seen: 0.7 s
 * at load 18, which let the first job run alone for a third of it) does
 * not give either a head start.
 */
TEST_F(sched, equal_contexts_take_turns)
{
	uint32_t id[2], sync[2], gate[2], handle;
	struct enpu_blocker blocker;
	enpu_context *ctx[2];
	int job_status = 1;
	char reply[128];

	if (!sched_preempts(_metadata, self->device))
		SKIP(return, "the device does not preempt (sched_mode=fifo?)");
	if (!enpu_fault("speed 0.1", sizeof(reply), reply))
		self->slowed = 1;
	ASSERT_EQ(0, enpu_blocker_create(&blocker));
	ASSERT_EQ(0, enpu_blocker_import(&blocker, self->fd, &handle));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, new_context(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &ctx[i], &id[i], &sync[i]));
		ASSERT_EQ(0, enpu_syncobj_create(self->device, &gate[i]));
		ASSERT_EQ(0, enpu_blocked_submit(self->fd, id[i], handle,
						 gate[i]));
		ASSERT_EQ(0, submit_nop(self->device, id[i], 200000000,
					sync[i], NULL));
	}
	ASSERT_EQ(0, enpu_blocker_release(&blocker));
	ASSERT_EQ(0, enpu_job_wait(self->device, sync[0], 20 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	/* The other one ran too: it is (nearly) done as well. */
	EXPECT_LE(10, enpu_sched_ctx_value(self->debugfs, id[1], "preempted"));
	EXPECT_LE(10, enpu_sched_ctx_value(self->debugfs, id[0], "preempted"));
	EXPECT_LE(150000000, enpu_sched_ctx_value(self->debugfs, id[1], "cycles"));
	ASSERT_EQ(0, enpu_job_wait(self->device, sync[1], 20 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	enpu_blocker_destroy(&blocker);
	for (int i = 0; i < 2; i++)
		enpu_context_destroy(ctx[i]);
}

/* Reloads the module with @args; 0 once its device is back. */
static int reload(const char *args)
{
	char command[128];
	int i;

	/* Fences are freed an RCU grace period after their last put. */
	for (i = 0; i < 100 && enpu_run("rmmod enpu 2>/dev/null"); i++)
		enpu_sleep_ms(50);
	snprintf(command, sizeof(command), "modprobe enpu %s", args);
	if (enpu_run(command))
		return -EIO;
	for (i = 0; i < 100; i++) {
		if (enpu_selftest_count_devices() == 1)
			return 0;
		enpu_sleep_ms(50);
	}
	return -ETIMEDOUT;
}

/*
 * sched_mode=fifo turns preemption off (docs/scheduler.md): a REALTIME
 * job submitted while a 300 ms LOW job runs completes after it, and
 * nothing is preempted. The module is reloaded with the default after.
 */
TEST(sched_mode_fifo_runs_each_job_whole)
{
	uint32_t low_id, rt_id, low_sync, rt_sync;
	static char text[1 << 16];
	enpu_context *low, *rt;
	enpu_device *device;
	char debugfs[256], why[256];
	int job_status = 1;

	if (geteuid() != 0)
		SKIP(return, "needs root to reload the module");
	ASSERT_EQ(0, reload("sched_mode=fifo"));
	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(debugfs), debugfs));
	ASSERT_EQ(0, enpu_debugfs_read(debugfs, "sched", sizeof(text), text));
	EXPECT_NE(NULL, strstr(text, "mode=fifo preempt=0 "))
		TH_LOG("debugfs sched: %.120s", text);
	ASSERT_EQ(0, new_context(device, DRM_ENPU_PRIORITY_LOW, &low, &low_id,
				 &low_sync));
	ASSERT_EQ(0, new_context(device, DRM_ENPU_PRIORITY_REALTIME, &rt,
				 &rt_id, &rt_sync));
	ASSERT_EQ(0, submit_nop(device, low_id, 300000000, low_sync, NULL));
	enpu_sleep_ms(20);
	ASSERT_EQ(0, submit_nop(device, rt_id, 10000, rt_sync, NULL));
	ASSERT_EQ(0, enpu_job_wait(device, rt_sync, 10 * ENPU_SECOND_NS, 0,
				   &job_status));
	EXPECT_EQ(0, job_status);
	/* The LOW job had finished: the REALTIME one waited for it. */
	ASSERT_EQ(0, enpu_job_status(device, low_sync, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0, enpu_sched_ctx_value(debugfs, low_id, "preempted"));
	enpu_context_destroy(low);
	enpu_context_destroy(rt);
	enpu_device_close(device);
	EXPECT_EQ(0, reload(""));
}

#define INHERIT_NORMAL_JOBS	8

/*
 * Priority inheritance: a REALTIME job needs a LOW job's result while
 * NORMAL jobs keep the device busy. The LOW job is lent REALTIME for as
 * long as the REALTIME job waits, so both finish before the NORMAL job
 * running when they were submitted; without the loan the LOW job would
 * wait for aging, behind NORMAL. The module is reloaded with
 * sched_aging_ms=1000 (and the default after), longer than all the NORMAL
 * jobs together, so that a missing loan shows as every NORMAL job
 * finishing first, not as one 40 ms job against the default 50 ms of
 * aging, which a slow guest between the submits could hide. The check
 * compares the fences' signal times, each NORMAL job with its own
 * syncobj: no NORMAL job may signal after the REALTIME submit returned
 * and before the REALTIME job signalled. A stall
 * of this thread before the submit, or between the REALTIME job's end and
 * any query (the device runs on meanwhile, at load 14 long enough for a
 * NORMAL job to finish), changes no timestamp.
 */
TEST(a_low_job_a_realtime_one_waits_for_inherits_its_priority)
{
	uint32_t normal_id, low_id, rt_id, low_sync, rt_sync;
	uint32_t normal_sync[INHERIT_NORMAL_JOBS];
	enpu_context *normal, *low, *rt;
	struct enpu_submit_fence in = { 0 };
	int64_t submitted, rt_done, low_done, done;
	int job_status = 1, overtaken = 0, fd;
	enpu_device *device;
	char why[256];

	if (geteuid() != 0)
		SKIP(return, "needs root to reload the module");
	ASSERT_EQ(0, reload("sched_aging_ms=1000"));
	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(device, &fd));
	if (!sched_preempts(_metadata, device)) {
		enpu_device_close(device);
		ASSERT_EQ(0, reload(""));
		SKIP(return, "the device does not preempt (sched_mode=fifo?)");
	}
	ASSERT_EQ(0, new_context(device, DRM_ENPU_PRIORITY_NORMAL, &normal,
				 &normal_id, &normal_sync[0]));
	ASSERT_EQ(0, new_context(device, DRM_ENPU_PRIORITY_LOW, &low,
				 &low_id, &low_sync));
	ASSERT_EQ(0, new_context(device, DRM_ENPU_PRIORITY_REALTIME,
				 &rt, &rt_id, &rt_sync));
	for (int i = 0; i < INHERIT_NORMAL_JOBS; i++) {
		if (i)
			ASSERT_EQ(0, enpu_syncobj_create(device,
							 &normal_sync[i]));
		ASSERT_EQ(0, submit_nop(device, normal_id, 40000000,
					normal_sync[i], NULL));
	}
	enpu_sleep_ms(5);
	ASSERT_EQ(0, submit_nop(device, low_id, 2000000, low_sync, NULL));
	in.syncobj = low_sync;
	ASSERT_EQ(0, submit_nop(device, rt_id, 1000, rt_sync, &in));
	submitted = enpu_now_ns();
	ASSERT_EQ(0, enpu_job_wait(device, rt_sync, 10 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, enpu_job_wait(device,
				   normal_sync[INHERIT_NORMAL_JOBS - 1],
				   30 * ENPU_SECOND_NS, 0, &job_status));
	ASSERT_EQ(0, signal_time_ns(fd, rt_sync, &rt_done));
	ASSERT_EQ(0, signal_time_ns(fd, low_sync, &low_done));
	EXPECT_LE(low_done, rt_done);
	for (int i = 0; i < INHERIT_NORMAL_JOBS; i++) {
		ASSERT_EQ(0, signal_time_ns(fd, normal_sync[i], &done));
		if (done > submitted && done < rt_done)
			overtaken++;
	}
	EXPECT_EQ(0, overtaken)
		TH_LOG("%d NORMAL jobs signalled between the REALTIME job's "
		       "submit and its fence (%lld ns after the submit)",
		       overtaken, (long long)(rt_done - submitted));
	enpu_context_destroy(normal);
	enpu_context_destroy(low);
	enpu_context_destroy(rt);
	enpu_device_close(device);
	EXPECT_EQ(0, reload(""));
}

TEST_HARNESS_MAIN
