// SPDX-License-Identifier: GPL-2.0
/*
 * The watchdog must not take a healthy device for a hung one (issue 8,
 * defect 9): a vnpu running 1000 times slower than real time (its
 * heartbeat ticks once per wall second) finishes a 3 s job with status 0
 * and no reset, and so does one layer that keeps the vnpu's event loop
 * computing for far longer than a watchdog period (its heartbeat thread
 * keeps ticking meanwhile), with the layer's output exact. Needs the
 * rig's --fault-relay (the speed is changed through the control socket).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

/* Well below the 0.01 at which the old 100 ms sampling failed. */
#define SLOW_SPEED "0.001"
#define SLOW_JOB_CYCLES 3000000u	/* 3 ms of device time at 1 GHz */

FIXTURE(watchdog)
{
	enpu_device *device;
	struct enpu_job_bos bos;
	int slowed;
	int oracle;
	int ready;	/* the harness runs bodies after a SKIP in setup */
};

FIXTURE_SETUP(watchdog)
{
	char why[256], reply[256];
	int status = enpu_fault("status", sizeof(reply), reply);

	if (status == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, status) TH_LOG("relay: %d %s", status, reply);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	self->bos.device = self->device;
	self->ready = 1;
}

FIXTURE_TEARDOWN(watchdog)
{
	if (self->slowed)
		enpu_fault("speed 1", 0, NULL);
	if (self->oracle)
		enpu_fault("layers fast", 0, NULL);
	enpu_job_bos_release(&self->bos);
	if (self->device)
		enpu_device_close(self->device);
}

/* "NAME 0x<offset> 0x<value>" of debugfs regs. */
static long long debugfs_register(const char *name)
{
	char dir[256], text[16384], *line;
	unsigned int offset, value;

	if (enpu_debugfs_dir(sizeof(dir), dir) ||
	    enpu_debugfs_read(dir, "regs", sizeof(text), text))
		return -1;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char key[64];

		if (sscanf(line, "%63s 0x%x 0x%x", key, &offset, &value) == 3 &&
		    !strcmp(key, name))
			return value;
	}
	return -1;
}

TEST_F_TIMEOUT(watchdog, a_slow_device_is_not_hung, 120)
{
	struct enpu_recovery_counters before, after;
	enpu_cmdbuf *cmdbuf;
	int job_status = 1;
	int64_t start, took;
	char reply[256];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_fault("speed " SLOW_SPEED, sizeof(reply), reply))
		TH_LOG("%s", reply);
	self->slowed = 1;
	TH_LOG("HEARTBEAT_PERIOD_US at speed " SLOW_SPEED ": %lld",
	       debugfs_register("HEARTBEAT_PERIOD_US"));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, SLOW_JOB_CYCLES));
	start = enpu_now_ns();
	ASSERT_EQ(0, enpu_job_run(&self->bos, cmdbuf, 0, 60 * ENPU_SECOND_NS,
				  &job_status));
	took = enpu_now_ns() - start;
	TH_LOG("3 ms of device time took %lld ms", (long long)(took / 1000000));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.resets, after.resets);
	EXPECT_EQ(before.hangs, after.hangs);
	/* It really ran slowly: the watchdog ticked many times meanwhile. */
	EXPECT_LE(2000, took / 1000000);
	enpu_cmdbuf_destroy(cmdbuf);
}

/*
 * One CONV2D with INT32 output, all inputs and weights 1: every output
 * value is the number of input values its window covers, which needs no
 * reference kernel. Channel counts double until the layer keeps the
 * vnpu busy for at least LONG_LAYER_MS (its host compute, not its device
 * time, which stays below a millisecond), so the test keeps testing what
 * it says when the vnpu gets faster. The vnpu computes it with its own
 * loops (control socket `layers oracle`): its default engine, the CPU
 * runtime's kernels, finishes even 4096 channels in less than that.
 */
#define LONG_LAYER_MS 500
#define SIDE 32u
#define CIN 64u

static int run_conv(struct __test_metadata *_metadata,
		    FIXTURE_DATA(watchdog) *self, uint32_t cout,
		    int64_t *took_ns)
{
	size_t in_bytes = (size_t)SIDE * SIDE * CIN;
	size_t w_bytes = (size_t)cout * CIN * 9;
	size_t out_bytes = (size_t)SIDE * SIDE * cout * 4;
	uint32_t in, w, out;
	struct enpu_conv2d_layer layer;
	enpu_cmdbuf *cmdbuf;
	int job_status = 1, status;
	int64_t start;

	enpu_job_bos_release(&self->bos);
	if (enpu_job_bo_add(&self->bos, in_bytes, DRM_ENPU_SUBMIT_BO_READ,
			    NULL, 1, &in) ||
	    enpu_job_bo_add(&self->bos, w_bytes, DRM_ENPU_SUBMIT_BO_READ,
			    NULL, 1, &w) ||
	    enpu_job_bo_add(&self->bos, out_bytes, DRM_ENPU_SUBMIT_BO_WRITE,
			    NULL, 0, &out))
		return -ENOMEM;
	memset(&layer, 0, sizeof(layer));
	layer.input = (struct enpu_layer_tensor){
		.buf = { in, 0, 0 }, .batch = 1, .height = SIDE, .width = SIDE,
		.channels = CIN, .dtype = ENPU_DTYPE_UINT8,
	};
	layer.output = (struct enpu_layer_tensor){
		.buf = { out, 0, 0 }, .batch = 1, .height = SIDE,
		.width = SIDE, .channels = cout, .dtype = ENPU_DTYPE_INT32,
	};
	layer.weights = (struct enpu_layer_ref){ w, 0, 0 };
	layer.bias = (struct enpu_layer_ref){ ENPU_BUF_NONE, 0, 0 };
	layer.requant.per_channel = (struct enpu_layer_ref){ ENPU_BUF_NONE, 0,
							     0 };
	layer.kernel_height = layer.kernel_width = 3;
	layer.stride_height = layer.stride_width = 1;
	layer.dilation_height = layer.dilation_width = 1;
	layer.pad_top = layer.pad_left = layer.pad_bottom = layer.pad_right = 1;
	layer.groups = 1;
	if (enpu_cmdbuf_create(&cmdbuf))
		return -ENOMEM;
	status = enpu_cmdbuf_conv2d(cmdbuf, &layer);
	start = enpu_now_ns();
	if (!status)
		status = enpu_job_run(&self->bos, cmdbuf, 0,
				      120 * ENPU_SECOND_NS, &job_status);
	*took_ns = enpu_now_ns() - start;
	enpu_cmdbuf_destroy(cmdbuf);
	if (status)
		return status;
	EXPECT_EQ(0, job_status) TH_LOG("Cout %u", cout);
	if (job_status)
		return job_status;
	for (uint32_t y = 0; y < SIDE; y++) {
		for (uint32_t x = 0; x < SIDE; x++) {
			int32_t rows = 3 - (y == 0) - (y == SIDE - 1);
			int32_t cols = 3 - (x == 0) - (x == SIDE - 1);
			const int32_t *pixel = (const int32_t *)
				self->bos.map[out] + ((size_t)y * SIDE + x) * cout;

			for (uint32_t c = 0; c < cout; c++)
				if (pixel[c] != rows * cols * (int32_t)CIN) {
					TH_LOG("output (%u,%u,%u) = %d, want %d",
					       y, x, c, pixel[c],
					       rows * cols * (int32_t)CIN);
					return -EIO;
				}
		}
	}
	return 0;
}

TEST_F_TIMEOUT(watchdog, a_long_layer_is_not_a_hang, 300)
{
	struct enpu_recovery_counters before, after;
	int64_t took = 0;
	uint32_t cout;

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_fault("layers oracle", 0, NULL));
	self->oracle = 1;
	for (cout = 64; cout <= 4096; cout *= 2) {
		ASSERT_EQ(0, run_conv(_metadata, self, cout, &took));
		TH_LOG("one CONV2D 1x%ux%ux%u -> %u channels, %llu MACs: %lld ms",
		       SIDE, SIDE, CIN, cout,
		       (unsigned long long)SIDE * SIDE * cout * 9 * CIN,
		       (long long)(took / 1000000));
		if (took / 1000000 >= LONG_LAYER_MS)
			break;
	}
	EXPECT_LE(LONG_LAYER_MS, took / 1000000)
		TH_LOG("no layer kept the vnpu busy for %d ms", LONG_LAYER_MS);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.resets, after.resets);
	EXPECT_EQ(before.hangs, after.hangs);
}

/*
 * The heartbeat thread not scheduled by the host for STALL_MS (the vnpu's
 * `stall-heartbeat`; the count catches up afterwards) while a job runs is
 * not a hang: more than the 300 ms that once reset healthy devices under
 * host load, less than the watchdog's floor.
 */
#define STALL_MS 600
#define LONG_NOP_CYCLES 1500000000u	/* 1.5 s of device time at 1 GHz */

/* Submits a LONG_NOP_CYCLES job and returns once it is on the device. */
static void start_long_nop(struct __test_metadata *_metadata,
			   FIXTURE_DATA(watchdog) *self, enpu_cmdbuf **cmdbuf,
			   uint32_t *done)
{
	int waited = 0;

	ASSERT_EQ(0, enpu_cmdbuf_create(cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(*cmdbuf, LONG_NOP_CYCLES));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, done));
	ASSERT_EQ(0, enpu_job_submit(&self->bos, *cmdbuf, 0, *done, NULL));
	while (enpu_sched_value("on_device") < 1 && waited++ < 3000)
		enpu_sleep_ms(10);
	ASSERT_LE(1, enpu_sched_value("on_device"))
		TH_LOG("the NOP never got on the device");
}

static int job_running(FIXTURE_DATA(watchdog) *self, uint32_t done)
{
	return enpu_syncobj_wait(self->device, done, 0, 0) == -ETIME;
}

/*
 * One try: the NOP at the given speed, the stall sent once it runs.
 * Returns 1 if the job was still running when the stall was over (seen
 * from the guest: the heartbeat moved again after the relay's reply, and
 * STALL_MS have passed since), 0 if the job ended first and the try
 * tested nothing. Either way the job must end with status 0, no hang.
 */
static int stall_during_a_job(struct __test_metadata *_metadata,
			      FIXTURE_DATA(watchdog) *self, const char *speed)
{
	struct enpu_recovery_counters before, after;
	char command[64], reply[256];
	long long heartbeat;
	int job_status = 1, overlapped = 0;
	enpu_cmdbuf *cmdbuf;
	int64_t replied;
	uint32_t done;

	snprintf(command, sizeof(command), "speed %s", speed);
	ASSERT_EQ(0, enpu_fault(command, sizeof(reply), reply))
		TH_LOG("%s", reply);
	self->slowed = 1;
	ASSERT_EQ(0, enpu_recovery_counters(&before));
	start_long_nop(_metadata, self, &cmdbuf, &done);
	snprintf(command, sizeof(command), "stall-heartbeat %d", STALL_MS);
	ASSERT_EQ(0, enpu_fault(command, sizeof(reply), reply))
		TH_LOG("%s", reply);
	replied = enpu_now_ns();
	/* The stall began before the reply: no tick until it is over. */
	heartbeat = debugfs_register("HEARTBEAT");
	ASSERT_LE(0, heartbeat);
	while (job_running(self, done) &&
	       (debugfs_register("HEARTBEAT") == heartbeat ||
		enpu_now_ns() - replied < STALL_MS * 1000000LL))
		enpu_sleep_ms(10);
	overlapped = job_running(self, done);
	TH_LOG("speed %s: the job %s when the %d ms stall was over", speed,
	       overlapped ? "was still running" : "had ended", STALL_MS);
	ASSERT_EQ(0, enpu_job_wait(self->device, done, 300 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.hangs, after.hangs);
	EXPECT_EQ(before.resets, after.resets);
	enpu_syncobj_destroy(self->device, done);
	enpu_cmdbuf_destroy(cmdbuf);
	return overlapped;
}

/*
 * At speed 1 the stall arrived after the 1.5 s NOP in both runs looked
 * at (6.1 and the debug kernel: the relay's round trip from the guest is
 * slow), so the test passed without testing anything. The NOP runs at
 * speed 0.1 (15 s), and at 0.02 if the stall still missed it; 8
 * heartbeat periods are 80 and 400 ms there, so the watchdog's 1 s floor
 * is what the stall is measured against, as at speed 1. It fails if no
 * try overlapped.
 */
TEST_F_TIMEOUT(watchdog, a_host_stall_of_the_heartbeat_is_not_a_hang, 400)
{
	static const char *const speeds[] = { "0.1", "0.02" };
	int overlapped = 0;

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]) &&
	     !overlapped; i++) {
		overlapped = stall_during_a_job(_metadata, self, speeds[i]);
		if (!_metadata->passed)
			return;
	}
	EXPECT_TRUE(overlapped)
		TH_LOG("no try had the stall while the job was running");
}

/*
 * The other side: a device whose heartbeat stops while STATUS still says
 * READY (the vnpu's `freeze`) is hung: the running job fails with
 * -ETIMEDOUT, one hang and a reset are counted, and the device works
 * afterwards.
 */
TEST_F_TIMEOUT(watchdog, a_frozen_heartbeat_is_a_hang, 120)
{
	struct enpu_recovery_counters before, after;
	enpu_cmdbuf *cmdbuf, *nop;
	uint32_t done;
	int job_status = 1;
	int64_t start;
	char reply[256];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, enpu_recovery_counters(&before));
	/*
	 * Device time runs with wall time, and on the debug kernel the relay's
	 * round trip took longer than the 1.5 s NOP, which then finished
	 * before the freeze. At speed 0.1 it needs 15 s; `slowed` has the
	 * fixture's teardown set speed 1 again.
	 */
	ASSERT_EQ(0, enpu_fault("speed 0.1", sizeof(reply), reply))
		TH_LOG("%s", reply);
	self->slowed = 1;
	start_long_nop(_metadata, self, &cmdbuf, &done);
	ASSERT_EQ(0, enpu_fault("freeze", sizeof(reply), reply))
		TH_LOG("%s", reply);
	start = enpu_now_ns();
	ASSERT_EQ(0, enpu_job_wait(self->device, done, 60 * ENPU_SECOND_NS, 0,
				   &job_status));
	EXPECT_EQ(-ETIMEDOUT, job_status);
	TH_LOG("frozen heartbeat taken for a hang after %lld ms",
	       (long long)((enpu_now_ns() - start) / 1000000));
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.hangs + 1, after.hangs);
	EXPECT_LT(before.resets, after.resets);
	ASSERT_EQ(0, enpu_cmdbuf_create(&nop));
	ASSERT_EQ(0, enpu_cmdbuf_nop(nop, SLOW_JOB_CYCLES));
	job_status = 1;
	ASSERT_EQ(0, enpu_job_run(&self->bos, nop, 0, 30 * ENPU_SECOND_NS,
				  &job_status));
	EXPECT_EQ(0, job_status);
	enpu_cmdbuf_destroy(nop);
	enpu_syncobj_destroy(self->device, done);
	enpu_cmdbuf_destroy(cmdbuf);
}

TEST_HARNESS_MAIN
