// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps the driver module loaded. For every kind of reference a
 * user can keep after closing every ENPU file — an open file, a BO
 * mapping, an exported dma-buf, a sync_file of a job fence, a syncobj fd
 * holding a job fence, a job fence left in an imported vgem buffer's
 * reservation, a job still running — `rmmod enpu` must refuse (the module
 * stays, nothing crashes, the reference still works: a sync_file still
 * reports "enpu" as its driver), and once the reference is gone the
 * module unloads and loads again. Last, rmmod while recovery keeps
 * retrying a device whose firmware will not boot. Before issue 8 (defect 4) a job fence
 * kept nothing alive: rmmod succeeded and the next use of the fence ran
 * freed module code. Released fences are freed in batches
 * (kernel/enpu_fence.c), each still holding the module until its batch is
 * freed: the module's reference count (/sys/module/enpu/refcnt) counts
 * every fence, comes back to where it was once hundreds of fences are
 * released (not lower: no fence is put twice), and an rmmod issued in a
 * tight loop right after the last fence went is refused until the batch
 * is freed, then succeeds with no kernel report. Reloads the module, so
 * it runs near the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define NODE_WAIT_MS 10000
#define UNLOAD_WAIT_MS 10000
/*
 * The running job: two NOPs of 4 s at 1 GHz (below the 10 s watchdog
 * timeout). Device time runs with wall time, so the job must outlast a
 * shell starting rmmod on a loaded host (1.5 s did not).
 */
#define RUNNING_NOP_CYCLES 4000000000u
#define RUNNING_NOPS 2
/*
 * Fences released at once: more than three batches of
 * ENPU_FENCE_FREE_BATCH_MAX (128, kernel/enpu_fence.h), so that early
 * flushes and the last, timed batch are all exercised.
 */
#define RELEASED_FENCES 400
/* Jobs of the many-jobs loop, and how many are submitted per wait. */
#define LOOP_JOBS 3000
#define LOOP_CHUNK 32	/* below max_jobs_per_context (64) */
/* Longest wait for the count to settle (batch delay 100 ms + grace period). */
#define SETTLE_MS 5000

/* One kind of reference: what was kept, and how to let go of it. */
struct reference {
	int fd;			/* a file descriptor to close, or -1 */
	void *map;		/* a mapping to unmap, or NULL */
	size_t map_size;
	int vgem;		/* the vgem file of a vgem buffer, or -1 */
	int wait_ms;		/* time for a running job to finish */
};

static int module_loaded(void)
{
	return access("/sys/module/enpu", F_OK) == 0;
}

FIXTURE(lifetime)
{
	enpu_device *device;
	int fd;
	struct reference ref;
};

FIXTURE_SETUP(lifetime)
{
	char why[256];

	if (geteuid() != 0)
		SKIP(return, "needs root for rmmod");
	self->ref = (struct reference){ .fd = -1, .vgem = -1 };
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
}

FIXTURE_TEARDOWN(lifetime)
{
	if (self->device)
		enpu_device_close(self->device);
	if (self->ref.fd >= 0)
		close(self->ref.fd);
	if (self->ref.map)
		munmap(self->ref.map, self->ref.map_size);
	if (self->ref.vgem >= 0)
		close(self->ref.vgem);
	/* Leave the driver loaded for whatever runs next. */
	enpu_fault("fail-boot 0", 0, NULL);
	if (!module_loaded()) {
		enpu_run("modprobe enpu");
		enpu_selftest_wait_devices(1, NODE_WAIT_MS);
	}
}

/* A job of nops NOPs on fd's context 0, its fence in syncobj. */
static int submit_nops_to(int fd, unsigned int nops, uint32_t cycles,
			  uint32_t syncobj)
{
	struct enpu_cmd_nop nop[RUNNING_NOPS];
	struct drm_enpu_submit submit = {
		.commands = (uintptr_t)nop,
		.commands_size = nops * sizeof(nop[0]),
		.bo_stride = sizeof(struct drm_enpu_submit_bo),
		.in_fence_stride = sizeof(struct drm_enpu_fence),
		.out_syncobj = syncobj,
	};

	if (nops > RUNNING_NOPS)
		return -EINVAL;
	for (unsigned int i = 0; i < nops; i++)
		nop[i] = (struct enpu_cmd_nop){
			.hdr = { ENPU_CMD_NOP, 0, sizeof(nop[0]) },
			.cycles = cycles,
		};
	return enpu_raw_submit(fd, &submit);
}

/* The same, its fence in a new syncobj. */
static int submit_nops(int fd, unsigned int nops, uint32_t cycles,
		       uint32_t *syncobj)
{
	if (drmSyncobjCreate(fd, 0, syncobj))
		return -errno;
	return submit_nops_to(fd, nops, cycles, *syncobj);
}

/*
 * With every ENPU file closed and only self->ref left: rmmod is refused
 * and the module stays; once check() (if any) used the reference and it
 * is released, the module unloads and loads again with a working device.
 */
static void kept_alive(struct __test_metadata *_metadata,
		       FIXTURE_DATA(lifetime) *self,
		       void (*check)(struct __test_metadata *_metadata,
				     FIXTURE_DATA(lifetime) *self))
{
	enpu_device_close(self->device);
	self->device = NULL;
	EXPECT_NE(0, enpu_run("rmmod enpu 2>/dev/null"))
		TH_LOG("rmmod succeeded while the reference was held");
	EXPECT_TRUE(module_loaded());
	if (check)
		check(_metadata, self);
	if (self->ref.wait_ms)
		enpu_sleep_ms(self->ref.wait_ms);
	if (self->ref.fd >= 0)
		close(self->ref.fd);
	if (self->ref.map)
		munmap(self->ref.map, self->ref.map_size);
	if (self->ref.vgem >= 0)
		close(self->ref.vgem);
	self->ref = (struct reference){ .fd = -1, .vgem = -1 };
	ASSERT_EQ(0, enpu_selftest_unload(UNLOAD_WAIT_MS))
		TH_LOG("rmmod still refused once the reference was gone");
	EXPECT_FALSE(module_loaded());
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	ASSERT_LE(0, enpu_selftest_wait_devices(1, NODE_WAIT_MS));
}

TEST_F_TIMEOUT(lifetime, an_open_file, 60)
{
	ASSERT_EQ(0, enpu_reopen(self->device, &self->ref.fd));
	kept_alive(_metadata, self, NULL);
}

TEST_F_TIMEOUT(lifetime, a_bo_mapping, 60)
{
	uint32_t handle;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, ENPU_PAGE_SIZE, 0, &handle,
					NULL));
	self->ref.map = enpu_raw_bo_map(self->fd, handle, ENPU_PAGE_SIZE);
	ASSERT_NE(NULL, self->ref.map);
	self->ref.map_size = ENPU_PAGE_SIZE;
	kept_alive(_metadata, self, NULL);
}

TEST_F_TIMEOUT(lifetime, an_exported_dmabuf, 60)
{
	uint32_t handle;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, ENPU_PAGE_SIZE, 0, &handle,
					NULL));
	ASSERT_EQ(0, enpu_prime_export(self->fd, handle, &self->ref.fd));
	kept_alive(_metadata, self, NULL);
}

/* The fence's ops are the module's: its driver name must still read. */
static void sync_file_works(struct __test_metadata *_metadata,
			    FIXTURE_DATA(lifetime) *self)
{
	struct sync_fence_info info = { 0 };
	struct sync_file_info file = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)&info,
	};

	ASSERT_EQ(0, ioctl(self->ref.fd, SYNC_IOC_FILE_INFO, &file));
	EXPECT_STREQ(ENPU_DRIVER_NAME, info.driver_name);
	EXPECT_EQ(1, file.status);
}

TEST_F_TIMEOUT(lifetime, a_sync_file_of_a_job_fence, 60)
{
	uint32_t syncobj;
	int job_status = 1;

	ASSERT_EQ(0, submit_nops(self->fd, 1, 1000, &syncobj));
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 10 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, drmSyncobjExportSyncFile(self->fd, syncobj,
					      &self->ref.fd));
	kept_alive(_metadata, self, sync_file_works);
}

TEST_F_TIMEOUT(lifetime, a_syncobj_fd_holding_a_job_fence, 60)
{
	uint32_t syncobj;

	ASSERT_EQ(0, submit_nops(self->fd, 1, 1000, &syncobj));
	ASSERT_EQ(0, drmSyncobjHandleToFD(self->fd, syncobj, &self->ref.fd));
	kept_alive(_metadata, self, NULL);
}

/*
 * A job writes an imported vgem buffer, so its fence sits in the vgem
 * BO's dma_resv, which outlives every ENPU file and handle.
 */
TEST_F_TIMEOUT(lifetime, a_job_fence_in_a_vgem_reservation, 60)
{
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = ENPU_PAGE_SIZE,
		.value = 0x42,
	};
	uint32_t vgem_handle, syncobj;
	uint64_t size;
	int dmabuf, job_status = 1;

	ASSERT_EQ(0, vgem_open(&self->ref.vgem));
	ASSERT_EQ(0, vgem_create(self->ref.vgem, ENPU_PAGE_SIZE, &vgem_handle,
				 &size));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->ref.vgem, vgem_handle,
					DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, enpu_prime_import(self->fd, dmabuf, &bo.handle));
	close(dmabuf);
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, &bo, 1, &fill,
					    sizeof(fill), 0, syncobj));
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 10 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	kept_alive(_metadata, self, NULL);
}

/* Closing the file leaves a job on the ring running to its end. */
TEST_F_TIMEOUT(lifetime, a_running_job, 60)
{
	uint32_t syncobj;

	ASSERT_EQ(0, submit_nops(self->fd, RUNNING_NOPS, RUNNING_NOP_CYCLES,
				 &syncobj));
	/*
	 * Only a job on a ring outlives the close (a queued one is cancelled);
	 * after a reload the firmware may still be booting, so wait for it.
	 */
	ASSERT_TRUE(enpu_recovery_reaches("on_device", 1, NODE_WAIT_MS))
		TH_LOG("the job never reached the device");
	self->ref.wait_ms = RUNNING_NOPS * 4000 + 1000;
	kept_alive(_metadata, self, NULL);
}

/*
 * rmmod while recovery is retrying a device whose firmware will not boot:
 * the job it holds keeps the module until recovery_hold_ms fail it, then
 * the module unloads (the pending retry is cancelled, nothing is left
 * running) and loads again once the firmware boots.
 */
TEST_F_TIMEOUT(lifetime, rmmod_while_recovery_retries, 120)
{
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = ENPU_PAGE_SIZE, .value = 0x21,
	};
	uint32_t syncobj;
	int down = 0;

	if (enpu_fault("status", 0, NULL) == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, enpu_param_write("recovery_hold_ms", 300));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, ENPU_PAGE_SIZE, 0,
					&bo.handle, NULL));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_fault("fail-boot 1000000", 0, NULL));
	ASSERT_EQ(0, enpu_fault("corrupt-completion", 0, NULL));
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, &bo, 1, &fill,
					    sizeof(fill), 0, syncobj));
	for (int waited = 0; waited < 5000 && !down; waited += 10) {
		down = enpu_recovery_value("down") == 1;
		if (!down)
			enpu_sleep_ms(10);
	}
	EXPECT_TRUE(down) TH_LOG("the device never went down");
	enpu_device_close(self->device);
	self->device = NULL;
	EXPECT_EQ(0, enpu_selftest_unload(UNLOAD_WAIT_MS))
		TH_LOG("rmmod refused after the hold time");
	EXPECT_FALSE(module_loaded());
	ASSERT_EQ(0, enpu_fault("fail-boot 0", 0, NULL));
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	ASSERT_LE(0, enpu_selftest_wait_devices(1, NODE_WAIT_MS));
}

/* The module's reference count, or -1. */
static long module_refcount(void)
{
	FILE *file = fopen("/sys/module/enpu/refcnt", "r");
	long count = -1;

	if (!file)
		return -1;
	if (fscanf(file, "%ld", &count) != 1)
		count = -1;
	fclose(file);
	return count;
}

/*
 * Waits up to ms for the count to stay the same for 300 ms (three batch
 * delays of nothing happening); returns it, or -1.
 */
static long module_refcount_settled(int ms)
{
	long last = module_refcount();

	for (int waited = 0, still = 0; waited < ms; waited += 50) {
		long now;

		enpu_sleep_ms(50);
		now = module_refcount();
		still = now == last ? still + 50 : 0;
		last = now;
		if (still >= 300)
			return last;
	}
	return -1;
}

/*
 * Every job fence holds the module while it lives and until its batch is
 * freed; once hundreds are released at once, and once thousands went
 * through one syncobj, the count comes back exactly to where it was:
 * none leaked (the count would stay high), none put twice (it would drop
 * below). The excess seen during the loop (live fences plus those
 * waiting to be freed) is printed.
 */
TEST_F_TIMEOUT(lifetime, released_fences_give_back_every_module_reference, 300)
{
	uint32_t *syncobjs = calloc(RELEASED_FENCES, sizeof(*syncobjs));
	uint32_t loop_syncobj;
	long base, count, most = 0, lowest;
	int job_status = 1;

	ASSERT_NE(NULL, syncobjs);
	base = module_refcount_settled(SETTLE_MS);
	ASSERT_LE(0, base) TH_LOG("the module count never settled");
	for (int i = 0; i < RELEASED_FENCES; i++) {
		ASSERT_EQ(0, submit_nops(self->fd, 1, 1000, &syncobjs[i]));
		if (i % LOOP_CHUNK == LOOP_CHUNK - 1)
			ASSERT_EQ(0, enpu_job_wait(self->device, syncobjs[i],
						   10 * ENPU_SECOND_NS, 0,
						   &job_status));
	}
	ASSERT_EQ(0, enpu_job_wait(self->device,
				   syncobjs[RELEASED_FENCES - 1],
				   10 * ENPU_SECOND_NS, 0, &job_status));
	EXPECT_EQ(0, job_status);
	/* Each syncobj keeps its fence, and each fence the module. */
	EXPECT_LE(base + RELEASED_FENCES, module_refcount());
	for (int i = 0; i < RELEASED_FENCES; i++)
		ASSERT_EQ(0, drmSyncobjDestroy(self->fd, syncobjs[i]));
	free(syncobjs);
	lowest = module_refcount();
	for (int waited = 0; waited < SETTLE_MS; waited += 10) {
		count = module_refcount();
		lowest = count < lowest ? count : lowest;
		if (count == base)
			break;
		enpu_sleep_ms(10);
	}
	EXPECT_EQ(base, module_refcount_settled(SETTLE_MS))
		TH_LOG("%d released fences: module count %ld, was %ld",
		       RELEASED_FENCES, module_refcount(), base);
	EXPECT_LE(base, lowest);

	/* Many jobs through one syncobj: each replaces the last fence. */
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &loop_syncobj));
	for (int i = 0; i < LOOP_JOBS; i++) {
		ASSERT_EQ(0, submit_nops_to(self->fd, 1, 1000, loop_syncobj));
		if (i % LOOP_CHUNK == LOOP_CHUNK - 1) {
			ASSERT_EQ(0, enpu_job_wait(self->device, loop_syncobj,
						   10 * ENPU_SECOND_NS, 0,
						   &job_status));
			ASSERT_EQ(0, job_status);
			count = module_refcount();
			most = count - base > most ? count - base : most;
			ASSERT_LE(base, count);
		}
	}
	ASSERT_EQ(0, drmSyncobjDestroy(self->fd, loop_syncobj));
	TH_LOG("%d jobs: at most %ld fences held the module at once",
	       LOOP_JOBS, most);
	EXPECT_EQ(base, module_refcount_settled(SETTLE_MS))
		TH_LOG("after %d jobs: module count %ld, was %ld", LOOP_JOBS,
		       module_refcount(), base);
}

/*
 * rmmod in a tight loop from the moment the last fences are released (the
 * file holding them in syncobjs is closed): refused while their batches
 * wait (a fence still holds the module there), then the module unloads
 * within the settle time, with no kernel report (a batch freed after the
 * unload would run unloaded code: an Oops), and loads again.
 */
TEST_F_TIMEOUT(lifetime, rmmod_racing_the_last_fence_batch, 120)
{
	struct enpu_kreports reports;
	uint32_t syncobj = 0;
	int refused = 0, job_status = 1, ret = -1;
	int64_t start;
	char first[512];

	ASSERT_EQ(0, enpu_kreports_start(&reports));
	for (int i = 0; i < RELEASED_FENCES; i++) {
		ASSERT_EQ(0, submit_nops(self->fd, 1, 1000, &syncobj));
		if (i % LOOP_CHUNK == LOOP_CHUNK - 1)
			ASSERT_EQ(0, enpu_job_wait(self->device, syncobj,
						   10 * ENPU_SECOND_NS, 0,
						   &job_status));
	}
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 10 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	/* Closing the only file destroys its syncobjs: every fence goes. */
	enpu_device_close(self->device);
	self->device = NULL;
	start = enpu_now_ns();
	while (enpu_now_ns() - start < SETTLE_MS * 1000000LL) {
		ret = syscall(SYS_delete_module, "enpu", O_NONBLOCK);
		if (!ret)
			break;
		ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY)
			TH_LOG("delete_module: %s", strerror(errno));
		refused++;
		sched_yield();
	}
	TH_LOG("rmmod refused %d times, then %s after %lld ms", refused,
	       ret ? "still refused" : "unloaded",
	       (long long)(enpu_now_ns() - start) / 1000000);
	EXPECT_EQ(0, ret);
	EXPECT_LT(0, refused) TH_LOG("unloaded with fences still held");
	EXPECT_FALSE(module_loaded());
	/* Time for a stray batch of the unloaded module to crash. */
	enpu_sleep_ms(500);
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	ASSERT_LE(0, enpu_selftest_wait_devices(1, NODE_WAIT_MS));
	EXPECT_EQ(0, enpu_kreports_collect(&reports, sizeof(first), first))
		TH_LOG("kernel report: %s", first);
	enpu_kreports_stop(&reports);
}

TEST_HARNESS_MAIN
