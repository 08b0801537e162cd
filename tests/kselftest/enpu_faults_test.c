// SPDX-License-Identifier: GPL-2.0
/*
 * Faults during a running workload (issue 8, deliver 5): every vnpu fault
 * the control socket offers (hang, error interrupt, lost interrupts, a
 * corrupted completion, a thermal trip, failing firmware boots) is
 * injected while two contexts have a train of jobs queued and running.
 * Each job must end with a status the fault allows (the one the fault
 * blames gets -ETIMEDOUT; everything else completes), every job that
 * reports 0 must have written its bytes, the kernel log must hold no
 * report, and the device must work afterwards. Then processes are killed
 * at random points of their jobs, repeatedly: nothing is left behind (no
 * dma-buf, no hang) and the device works. Needs the rig's --fault-relay.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define TRAIN 24
#define SLOT 256
#define JOB_CYCLES 20000000u	/* 20 ms at 1 GHz */

FIXTURE(faults)
{
	enpu_device *device;
	int fd;
	uint32_t result;
	unsigned char *map;
	struct enpu_kreports reports;
	int ready;	/* the harness runs bodies after a SKIP in setup */
};

FIXTURE_SETUP(faults)
{
	char why[256], reply[256];
	int status = enpu_fault("status", sizeof(reply), reply);

	self->reports.fd = -1;
	if (status == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, TRAIN * SLOT, 0,
					&self->result, NULL));
	self->map = enpu_raw_bo_map(self->fd, self->result, TRAIN * SLOT);
	ASSERT_NE(NULL, self->map);
	ASSERT_EQ(0, enpu_kreports_start(&self->reports));
	self->ready = 1;
}

FIXTURE_TEARDOWN(faults)
{
	enpu_fault("fail-boot 0", 0, NULL);
	enpu_fault("lose-irq 0", 0, NULL);
	enpu_kreports_stop(&self->reports);
	if (self->device)
		enpu_device_close(self->device);
}

/* A NOP of cycles, then fill slot k with k + 1; fence in syncobj. */
static int submit_nop_fill(FIXTURE_DATA(faults) *self, uint32_t context,
			   int k, uint32_t cycles, uint32_t syncobj)
{
	struct {
		struct enpu_cmd_nop nop;
		struct enpu_cmd_dma_fill fill;
	} stream = {
		.nop = { .hdr = { ENPU_CMD_NOP, 0, sizeof(stream.nop) },
			 .cycles = cycles },
		.fill = { .hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(stream.fill) },
			  .dst = { .bo_index = 0, .offset = (uint64_t)k * SLOT },
			  .size = SLOT, .value = (uint32_t)k + 1 },
	};
	struct drm_enpu_submit_bo bo = { self->result,
					 DRM_ENPU_SUBMIT_BO_WRITE };
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)&bo, .bo_count = 1, .bo_stride = sizeof(bo),
		.commands = (uintptr_t)&stream,
		.commands_size = sizeof(stream),
		.in_fence_stride = sizeof(struct drm_enpu_fence),
		/* Implicit sync would chain the train: keep it parallel. */
		.flags = DRM_ENPU_SUBMIT_NO_IMPLICIT,
		.out_syncobj = syncobj, .context = context,
	};

	return enpu_raw_submit(self->fd, &submit);
}

/* Job k of a train: a 20 ms NOP, then its slot. */
static int submit_train_job(FIXTURE_DATA(faults) *self, uint32_t context,
			    int k, uint32_t syncobj)
{
	return submit_nop_fill(self, context, k, JOB_CYCLES, syncobj);
}

/* Fills slot 0 with value and waits for it. */
static int fill_and_wait(FIXTURE_DATA(faults) *self, unsigned char value)
{
	struct drm_enpu_submit_bo bo = { self->result,
					 DRM_ENPU_SUBMIT_BO_WRITE };
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = SLOT, .value = value,
	};
	int status = enpu_raw_submit_simple(self->fd, &bo, 1, &fill,
					    sizeof(fill), 0, 0);

	return status ? status : enpu_raw_bo_wait(self->fd, self->result, 0,
						  30 * ENPU_SECOND_NS);
}

struct fault_case {
	const char *name;
	const char *commands[2];	/* sent after a third of the train */
	int may_time_out;		/* one job may be blamed */
};

static const struct fault_case cases[] = {
	{ "hang", { "hang" }, 1 },
	{ "error-irq", { "error-irq" }, 1 },
	{ "lose-irq", { "lose-irq 5" }, 0 },
	{ "corrupt-completion", { "corrupt-completion" }, 0 },
	{ "thermal-spike", { "thermal-spike 80000" }, 0 },
	{ "fail-boot", { "fail-boot 3", "error-irq" }, 1 },
};

TEST_F_TIMEOUT(faults, every_vnpu_fault_during_a_workload_ends_cleanly, 600)
{
	struct enpu_recovery_counters before, after;
	char first[512];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t contexts[2], syncobjs[TRAIN];
		int ok = 0, timed_out = 0, other = 0;

		memset(self->map, 0, TRAIN * SLOT);
		ASSERT_EQ(0, enpu_recovery_counters(&before));
		for (int i = 0; i < 2; i++)
			ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &contexts[i]));
		for (int k = 0; k < TRAIN; k++) {
			ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobjs[k]));
			ASSERT_EQ(0, submit_train_job(self, contexts[k % 2], k,
						      syncobjs[k]))
				TH_LOG("%s: job %d", cases[c].name, k);
			if (k == TRAIN / 3) {
				for (int i = 0; i < 2 && cases[c].commands[i]; i++)
					ASSERT_EQ(0, enpu_fault(cases[c].commands[i],
								0, NULL));
			}
		}
		for (int k = 0; k < TRAIN; k++) {
			int job_status = 1;

			ASSERT_EQ(0, enpu_job_wait(self->device, syncobjs[k],
						   120 * ENPU_SECOND_NS, 0,
						   &job_status))
				TH_LOG("%s: job %d never completed",
				       cases[c].name, k);
			if (job_status == 0) {
				ok++;
				EXPECT_EQ(k + 1, self->map[k * SLOT]);
				EXPECT_EQ(k + 1, self->map[k * SLOT + SLOT - 1]);
			} else if (job_status == -ETIMEDOUT) {
				timed_out++;
			} else {
				other++;
				TH_LOG("%s: job %d status %d", cases[c].name,
				       k, job_status);
			}
			drmSyncobjDestroy(self->fd, syncobjs[k]);
		}
		ASSERT_EQ(0, enpu_recovery_counters(&after));
		TH_LOG("%-18s %2d ok, %d timed out, %d other; resets +%lld, hangs +%lld, lost irqs +%lld",
		       cases[c].name, ok, timed_out, other,
		       after.resets - before.resets,
		       after.hangs - before.hangs,
		       after.lost_irqs - before.lost_irqs);
		EXPECT_EQ(0, other);
		EXPECT_GE(cases[c].may_time_out, timed_out);
		EXPECT_EQ(0, enpu_kreports_collect(&self->reports,
						   sizeof(first), first))
			TH_LOG("%s: kernel report: %s", cases[c].name, first);
		enpu_fault("fail-boot 0", 0, NULL);
	}
}

#define STALE_ROUNDS 8

/*
 * A completion the driver never sees must not hand its context's save
 * area to the wrong job. Context X queues a short job A and a long job B
 * (they go to the ring together), context Y one job C. A's completion is
 * corrupted and its interrupt lost, so the driver still believes A runs
 * while B runs; when X's slice ends B is saved, the next interrupt brings
 * the corrupted entry, and the device is reset. X's save area then holds
 * B while A is X's next job: the driver must not resume A from it (the
 * device refuses another job's state: A got -EINVAL), A runs again from
 * its start and B after it, and every job ends with 0 and its bytes.
 * Whether B was saved before the reset depends on the watchdog's tick, so
 * rounds repeat until the scheduler reports such a save area once.
 */
TEST_F_TIMEOUT(faults, a_lost_completion_leaves_no_other_jobs_save_behind, 300)
{
	static const uint32_t cycles[3] = { 100000, 100000000, 1000000 };
	long long before = enpu_sched_value("stale_saves"), seen = 0;
	int rounds = 0;

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_LE(0, before);
	while (rounds < STALE_ROUNDS && !seen) {
		uint32_t contexts[2], syncobjs[3];

		rounds++;
		memset(self->map, 0, 3 * SLOT);
		for (int i = 0; i < 2; i++)
			ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &contexts[i]));
		ASSERT_EQ(0, enpu_fault("lose-irq 1", 0, NULL));
		ASSERT_EQ(0, enpu_fault("corrupt-completion", 0, NULL));
		for (int k = 0; k < 3; k++) {
			ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobjs[k]));
			ASSERT_EQ(0, submit_nop_fill(self, contexts[k == 2], k,
						     cycles[k], syncobjs[k]));
		}
		for (int k = 0; k < 3; k++) {
			int job_status = 1;

			ASSERT_EQ(0, enpu_job_wait(self->device, syncobjs[k],
						   60 * ENPU_SECOND_NS, 0,
						   &job_status))
				TH_LOG("round %d: job %c never completed",
				       rounds, 'A' + k);
			EXPECT_EQ(0, job_status)
				TH_LOG("round %d: job %c", rounds, 'A' + k);
			EXPECT_EQ(k + 1, self->map[k * SLOT]);
			EXPECT_EQ(k + 1, self->map[k * SLOT + SLOT - 1]);
			drmSyncobjDestroy(self->fd, syncobjs[k]);
		}
		enpu_fault("lose-irq 0", 0, NULL);
		seen = enpu_sched_value("stale_saves") - before;
	}
	TH_LOG("%d rounds, %lld stale save areas", rounds, seen);
	EXPECT_LT(0, seen)
		TH_LOG("B was never saved before the reset in %d rounds", rounds);
}

/* Error interrupts the kernel took so far (/proc/interrupts), or -1. */
static long long error_interrupts(void)
{
	char line[512];
	long long total = -1;
	FILE *f = fopen("/proc/interrupts", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *at = strchr(line, ':'), *end;

		if (!at || !strstr(line, "enpu-error"))
			continue;
		total = 0;
		for (at++;; at = end) {
			long long n = strtoll(at, &end, 10);

			if (end == at)
				break;
			total += n;
		}
	}
	fclose(f);
	return total;
}

#define LATE_ROUNDS 5
#define LATE_MS 500

/*
 * An error interrupt still in flight when the watchdog found ERROR by
 * itself and reset the device must not reset it again: that second
 * reset blamed whichever job ran by then (a second -ETIMEDOUT for one
 * fault). The vnpu enters ERROR and raises the vector LATE_MS later; a
 * round counts when the reset came before the vector did.
 */
TEST_F_TIMEOUT(faults, a_late_error_interrupt_after_recovery_blames_nobody, 300)
{
	int arranged = 0, rounds = 0;
	char late[32];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	snprintf(late, sizeof(late), "error-irq %d", LATE_MS);
	ASSERT_LE(0, error_interrupts());
	while (rounds < LATE_ROUNDS && !arranged) {
		struct enpu_recovery_counters before, after;
		long long irqs = error_interrupts();
		uint32_t context, syncobjs[TRAIN];
		int timed_out = 0, other = 0, vector = 0;

		rounds++;
		memset(self->map, 0, TRAIN * SLOT);
		ASSERT_EQ(0, enpu_recovery_counters(&before));
		ASSERT_EQ(0, enpu_raw_context_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, &context));
		for (int k = 0; k < TRAIN; k++) {
			ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobjs[k]));
			ASSERT_EQ(0, submit_train_job(self, context, k,
						      syncobjs[k]));
			if (k == 2)
				ASSERT_EQ(0, enpu_fault(late, 0, NULL));
		}
		/* The watchdog's tick (100 ms) resets well before the vector. */
		arranged = enpu_recovery_reaches("resets", before.resets + 1,
						 LATE_MS * 3 / 4) &&
			   error_interrupts() == irqs;
		for (int waited = 0; waited < 10000 && !vector; waited += 10) {
			vector = error_interrupts() > irqs;
			enpu_sleep_ms(10);
		}
		EXPECT_TRUE(vector) TH_LOG("round %d: no error interrupt", rounds);
		for (int k = 0; k < TRAIN; k++) {
			int job_status = 1;

			ASSERT_EQ(0, enpu_job_wait(self->device, syncobjs[k],
						   60 * ENPU_SECOND_NS, 0,
						   &job_status));
			if (job_status == -ETIMEDOUT)
				timed_out++;
			else if (job_status)
				other++;
			else
				EXPECT_EQ(k + 1, self->map[k * SLOT + SLOT - 1]);
			drmSyncobjDestroy(self->fd, syncobjs[k]);
		}
		ASSERT_EQ(0, enpu_recovery_counters(&after));
		TH_LOG("round %d: %s; resets +%lld, %d timed out, %d other",
		       rounds, arranged ? "reset before the vector" :
		       "the vector came first", after.resets - before.resets,
		       timed_out, other);
		EXPECT_EQ(1, after.resets - before.resets);
		EXPECT_GE(1, timed_out);
		EXPECT_EQ(0, other);
	}
	EXPECT_TRUE(arranged)
		TH_LOG("the watchdog never reset before the vector in %d rounds",
		       rounds);
}

#define KILLS 8

/*
 * A child queues jobs on two contexts (and keeps a dma-buf of its own
 * BO) and is killed with SIGKILL at a random point, KILLS times: each
 * child must be reaped promptly, and afterwards no dma-buf may be left,
 * no hang may have been counted, and a job of ours must run.
 */
TEST_F_TIMEOUT(faults, processes_killed_mid_job_leave_nothing_behind, 300)
{
	struct enpu_recovery_counters before, after;
	long dmabufs_before = 0, dmabufs_after = -1;
	struct enpu_random random;
	uint64_t seed = enpu_random_default_seed();
	char first[512];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	TH_LOG("seed %llu (ENPU_TEST_SEED replays)", (unsigned long long)seed);
	enpu_random_seed(&random, seed);
	ASSERT_EQ(0, enpu_recovery_counters(&before));
	ASSERT_EQ(0, enpu_dmabuf_count(&dmabufs_before));
	for (int kill_round = 0; kill_round < KILLS; kill_round++) {
		int status = 0;
		pid_t child;

		ASSERT_EQ(0, enpu_job_child(20, 1, &child));
		enpu_sleep_ms((int)enpu_random_range(&random, 0, 300));
		ASSERT_EQ(0, kill(child, SIGKILL));
		for (int waited = 0; waited < 10000; waited += 10) {
			if (waitpid(child, &status, WNOHANG) == child)
				break;
			enpu_sleep_ms(10);
		}
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("round %d: child not reaped 10 s after SIGKILL",
			       kill_round);
	}
	ASSERT_EQ(0, enpu_dmabuf_settle(dmabufs_before, 30000,
					&dmabufs_after));
	EXPECT_EQ(dmabufs_before, dmabufs_after);
	ASSERT_EQ(0, enpu_recovery_counters(&after));
	EXPECT_EQ(before.hangs, after.hangs);
	EXPECT_EQ(before.resets, after.resets);
	EXPECT_EQ(0, fill_and_wait(self, 0x6b));
	EXPECT_EQ(0x6b, self->map[SLOT - 1]);
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);
}

/*
 * The fault relay is shared by every process of a test: requests made
 * at the same time from several processes each get their own reply
 * (each asks for a different vnpu speed and must hear its own value
 * back). A number claimed twice would give two processes one request,
 * one reply, and a wrong value or a 10 s timeout for the other.
 */
TEST_F_TIMEOUT(faults, relay_answers_each_of_concurrent_processes, 300)
{
	enum { PROCESSES = 6, REQUESTS = 40 };
	pid_t pids[PROCESSES];

	if (!self->ready)
		SKIP(return, "VM booted without --fault-relay");
	for (int p = 0; p < PROCESSES; p++) {
		pids[p] = fork();
		ASSERT_LE(0, pids[p]);
		if (pids[p])
			continue;
		for (int i = 0; i < REQUESTS; i++) {
			char cmd[64], want[64], reply[256];
			double speed = 1 + (p * 100 + i + 1) / 1e5;

			snprintf(cmd, sizeof(cmd), "speed %.5f", speed);
			snprintf(want, sizeof(want), "ok speed=%g",
				 strtod(cmd + 6, NULL));
			if (enpu_fault(cmd, sizeof(reply), reply) ||
			    strcmp(reply, want)) {
				fprintf(stderr, "process %d request %d: '%s' for '%s'\n",
					p, i, reply, cmd);
				_exit(1);
			}
		}
		_exit(0);
	}
	for (int p = 0; p < PROCESSES; p++) {
		int status = 0;

		ASSERT_EQ(pids[p], waitpid(pids[p], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("process %d: status %#x", p, status);
	}
	EXPECT_EQ(0, enpu_fault("speed 1", 0, NULL));
}

TEST_HARNESS_MAIN
