// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware boot's mailbox waits (kernel/enpu_mailbox.c) and what the
 * loader does with the image buffer when the device never answers
 * (firmware-loader/enpu_fw_loader.c), each on a fresh probe (rmmod and
 * modprobe):
 *   - a device whose clock runs but whose mailbox is muted for longer than
 *     BOOT's and RESET's timeouts fails the probe, and the loader frees
 *     the image buffer after switching bus mastering off: no "leaking"
 *     line, and on the debug kernel no DMA-API report of an allocation
 *     left at unbind (which the old leak produced);
 *   - a device the host does not run at all (its clock stands still) for
 *     longer than BOOT's timeout is waited for, and the probe succeeds.
 * Needs root and the fault relay (tools/vm/run --fault-relay).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define NODE_WAIT_MS 10000
#define UNLOAD_WAIT_MS 10000
/* Longer than BOOT (1 s) and RESET (1 s) together, with room for modprobe. */
#define MUTE_MS 10000
/* Longer than BOOT's 1 s timeout, shorter than the driver's 10 s for a
 * device whose clock stands still. */
#define STALL_MS 4000
#define OLD_BOOT_TIMEOUT_US 1000000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_until_ms(long long when)
{
	while (now_ms() < when) {
		struct timespec step = { 0, 50 * 1000000L };

		nanosleep(&step, NULL);
	}
}

#define LOG_SIZE (64 * 1024)

FIXTURE(fw_boot)
{
	struct enpu_kreports reports;	/* checker reports */
	struct enpu_kreports log;	/* the driver's own lines */
	char *text;
	int ready;
};

FIXTURE_SETUP(fw_boot)
{
	char reply[128];

	self->reports.fd = self->log.fd = -1;
	self->text = malloc(LOG_SIZE);
	ASSERT_NE(NULL, self->text);
	if (geteuid() != 0 || enpu_fault("status", sizeof(reply), reply))
		return;
	ASSERT_EQ(0, enpu_kreports_start(&self->reports));
	self->ready = 1;
}

FIXTURE_TEARDOWN(fw_boot)
{
	enpu_kreports_stop(&self->log);
	enpu_kreports_stop(&self->reports);
	free(self->text);
	/* Leave a working device for whatever runs next. */
	if (self->ready && enpu_selftest_count_devices() != 1) {
		enpu_selftest_unload(UNLOAD_WAIT_MS);
		enpu_run("modprobe enpu");
		enpu_selftest_wait_devices(1, NODE_WAIT_MS);
	}
}

/* A device that answers GET_PARAM with a booted firmware. */
static int device_works(void)
{
	enpu_device *device;
	uint64_t version = 0;
	char why[256];

	if (enpu_selftest_wait_devices(1, NODE_WAIT_MS) < 0 ||
	    enpu_selftest_open(&device, sizeof(why), why))
		return 0;
	enpu_device_get_param(device, DRM_ENPU_PARAM_FW_VERSION, &version);
	enpu_device_close(device);
	return version != 0;
}

/* Unloads the driver and watches the log from then on. */
static int unload_and_watch(FIXTURE_DATA(fw_boot) *self)
{
	int ret = enpu_selftest_unload(UNLOAD_WAIT_MS);

	enpu_kreports_stop(&self->log);
	return ret ? ret : enpu_kreports_start(&self->log);
}

TEST_F_TIMEOUT(fw_boot, an_unanswered_boot_frees_the_image_with_bus_mastering_off, 300)
{
	char command[64], first[512];
	long long muted_at;

	if (!self->ready)
		SKIP(return, "needs root and the fault relay");
	ASSERT_EQ(0, unload_and_watch(self));
	snprintf(command, sizeof(command), "mute-mailbox %d", MUTE_MS);
	ASSERT_EQ(0, enpu_fault(command, 0, NULL));
	muted_at = now_ms();
	/* A PCI probe that fails does not fail the module load. */
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	ASSERT_GT(muted_at + MUTE_MS, now_ms())
		TH_LOG("modprobe outlasted the mute: nothing was tested");
	EXPECT_EQ(0, enpu_selftest_count_devices());

	ASSERT_EQ(0, enpu_kmsg_read(&self->log, LOG_SIZE, self->text));
	EXPECT_NE(NULL, strstr(self->text, "mailbox command 2 "))
		TH_LOG("BOOT did not time out:\n%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "mailbox command 3 "))
		TH_LOG("RESET did not time out:\n%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "device unresponsive: bus mastering off, "))
		TH_LOG("no free with bus mastering off:\n%s", self->text);
	EXPECT_EQ(NULL, strstr(self->text, "leaking"))
		TH_LOG("the image buffer leaked:\n%s", self->text);
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);

	/* Once the mute is over the same device probes again. */
	sleep_until_ms(muted_at + MUTE_MS + 500);
	ASSERT_EQ(0, enpu_selftest_unload(UNLOAD_WAIT_MS));
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	EXPECT_TRUE(device_works()) TH_LOG("no working device after the mute");
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);
}

TEST_F_TIMEOUT(fw_boot, a_device_the_host_does_not_run_is_waited_for, 300)
{
	char command[64], first[512];
	long long booted_us = -1;
	const char *line;

	if (!self->ready)
		SKIP(return, "needs root and the fault relay");
	ASSERT_EQ(0, unload_and_watch(self));
	snprintf(command, sizeof(command), "stall %d", STALL_MS);
	ASSERT_EQ(0, enpu_fault(command, 0, NULL));
	ASSERT_EQ(0, enpu_run("modprobe enpu"));
	EXPECT_TRUE(device_works()) TH_LOG("the probe gave up on a stalled device");

	ASSERT_EQ(0, enpu_kmsg_read(&self->log, LOG_SIZE, self->text));
	EXPECT_EQ(NULL, strstr(self->text, "timed out"))
		TH_LOG("%s", self->text);
	line = strstr(self->text, ") booted in ");
	if (line)
		booted_us = atoll(line + strlen(") booted in "));
	/* Only a BOOT sent inside the stall tests the wait. */
	EXPECT_LT(OLD_BOOT_TIMEOUT_US, booted_us)
		TH_LOG("BOOT not inside the stall:\n%s", self->text);
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);
}

TEST_HARNESS_MAIN
