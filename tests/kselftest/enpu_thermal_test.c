// SPDX-License-Identifier: GPL-2.0
/*
 * Thermal, DVFS and runtime PM through the kernel's own interfaces
 * (/sys/class/thermal, /sys/class/devfreq, the device's power/ directory),
 * driven by the vnpu's fault injection (--fault-relay): a hot ambient
 * keeps the device above the passive trip, and the thermal core must lower
 * the NPU clock through the devfreq cooling device, and raise it again once
 * the ambient is back and the device cool; an ambient that keeps it above
 * the critical trip holds jobs (never fails them) until it is cool; an
 * idle device runtime-suspends (the engine powered off), and a job
 * submitted to it, or the driver's own debugfs NOP, resumes it (firmware
 * reloaded) and completes.
 *
 * The device is heated and kept hot by the ambient alone: it approaches
 * its steady temperature without overshoot, so no step races the
 * device's heating or cooling (under load a relay round trip or the
 * thermal core's work may take seconds of wall time; a spike computed from
 * a temperature read a round trip earlier overshoots).
 * Every wait is bounded by wall time (WAIT_MS), only so that a broken
 * driver fails instead of hanging; nothing asserts how fast anything is.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define GHZ 1000000000L
/* The bound of every wait for the device or the kernel to act. */
#define WAIT_MS 60000
#define WAIT_NS ((int64_t)WAIT_MS * 1000000)

static int read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

static long read_long(const char *dir, const char *file)
{
	char path[PATH_MAX + 64], text[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_text(path, text, sizeof(text)))
		return -1;
	return strtol(text, NULL, 10);
}

/* The entry of /sys/class/CLASS whose FILE reads WANT (or whose device's
 * driver is enpu when FILE is NULL). */
static int find_class_entry(const char *class, const char *file,
			    const char *want, size_t size, char *out)
{
	char base[64], path[512], text[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = -ENOENT;

	snprintf(base, sizeof(base), "/sys/class/%s", class);
	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (file) {
			snprintf(path, sizeof(path), "%s/%s/%s", base,
				 de->d_name, file);
			if (read_text(path, text, sizeof(text)) ||
			    strcmp(text, want))
				continue;
		} else {
			ssize_t n;

			snprintf(path, sizeof(path), "%s/%s/device/driver",
				 base, de->d_name);
			n = readlink(path, text, sizeof(text) - 1);
			if (n < 0)
				continue;
			text[n] = '\0';
			if (strcmp(strrchr(text, '/') ? strrchr(text, '/') + 1 : text,
				   want))
				continue;
		}
		snprintf(out, size, "%s/%s", base, de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/* "key=<n>" of the vnpu's status line, or -1. */
static long vnpu_status(const char *key)
{
	char reply[256], pattern[64];
	const char *p;

	if (enpu_fault("status", sizeof(reply), reply))
		return -1;
	snprintf(pattern, sizeof(pattern), " %s=", key);
	p = strstr(reply, pattern);
	return p ? strtol(p + strlen(pattern), NULL, 10) : -1;
}

static int vnpu_state_is(const char *state)
{
	char reply[256], pattern[64];

	if (enpu_fault("status", sizeof(reply), reply))
		return 0;
	snprintf(pattern, sizeof(pattern), "state=%s ", state);
	return strstr(reply, pattern) != NULL;
}

/* debugfs power: "key=<n>" of its lines. */
static long long debugfs_power(const char *key)
{
	char dir[256], text[1024];
	long long value;

	if (enpu_debugfs_dir(sizeof(dir), dir) ||
	    enpu_debugfs_read(dir, "power", sizeof(text), text) ||
	    enpu_text_value(text, key, &value))
		return -1;
	return value;
}

static void sleep_ms(int ms)
{
	usleep((useconds_t)ms * 1000);
}

FIXTURE(thermal)
{
	enpu_device *device;
	struct enpu_job_bos bos;
	char zone[512];
	char devfreq[512];
	char power[PATH_MAX];
	int restore_speed;
	int restore_min_freq;
	int restore_power;
	long ambient_mc;
};

FIXTURE_SETUP(thermal)
{
	char why[256], reply[256], path[PATH_MAX];
	int status = enpu_fault("status", sizeof(reply), reply);

	if (status == -ENOSYS)
		SKIP(return, "VM booted without --fault-relay");
	ASSERT_EQ(0, status) TH_LOG("relay: %d %s", status, reply);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	self->bos.device = self->device;
	ASSERT_EQ(0, find_class_entry("thermal", "type", "enpu",
				      sizeof(self->zone), self->zone))
		TH_LOG("no thermal zone of type enpu");
	ASSERT_EQ(0, find_class_entry("devfreq", NULL, "enpu",
				      sizeof(self->devfreq), self->devfreq))
		TH_LOG("no devfreq device of the enpu driver");
	snprintf(path, sizeof(path), "%s/device/power", self->devfreq);
	ASSERT_NE(NULL, realpath(path, self->power));
	/* Start from a cool, idle device at speed 1. */
	ASSERT_EQ(0, enpu_fault("speed 1", 0, NULL));
	self->ambient_mc = vnpu_status("ambient_mc");
	ASSERT_LT(0, self->ambient_mc);
}

/* Sets the vnpu's ambient temperature; the teardown puts it back. */
static int set_ambient(long mc)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "ambient %ld", mc);
	return enpu_fault(cmd, 0, NULL);
}

FIXTURE_TEARDOWN(thermal)
{
	char path[PATH_MAX + 64];

	if (self->restore_min_freq) {
		snprintf(path, sizeof(path), "%s/min_freq", self->devfreq);
		write_text(path, "0");
	}
	if (self->restore_power) {
		snprintf(path, sizeof(path), "%s/control", self->power);
		write_text(path, "on");
		snprintf(path, sizeof(path), "%s/autosuspend_delay_ms",
			 self->power);
		write_text(path, "1000");
	}
	if (self->restore_speed)
		enpu_fault("speed 1", 0, NULL);
	if (self->ambient_mc > 0)
		set_ambient(self->ambient_mc);
	enpu_job_bos_release(&self->bos);
	if (self->device)
		enpu_device_close(self->device);
}

/* Waits up to timeout_ms for the clock the device runs at to be (or not
 * be, with differ) khz; returns the last value seen. */
static long wait_opp_khz(long khz, int differ, int timeout_ms)
{
	int64_t deadline = enpu_now_ns() + (int64_t)timeout_ms * 1000000;
	long seen = -1;

	/* Wall-clock bound: a relay round trip can take long under load. */
	do {
		long opp = vnpu_status("opp");

		seen = opp < 0 ? -1 : 200000L * (opp + 1);
		if (differ ? seen != khz : seen == khz)
			break;
		sleep_ms(20);
	} while (enpu_now_ns() < deadline);
	return seen;
}

/* 300 s like the others: the setup's relay round trips and the zone's
 * temperature reads through the mailbox took over 60 s on the debug
 * kernel at load 14. */
TEST_F_TIMEOUT(thermal, zone_and_devfreq_describe_the_device, 300)
{
	char path[PATH_MAX + 64], text[256];

	snprintf(path, sizeof(path), "%s/trip_point_0_type", self->zone);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)));
	EXPECT_STREQ("passive", text);
	EXPECT_EQ(85000, read_long(self->zone, "trip_point_0_temp"));
	snprintf(path, sizeof(path), "%s/trip_point_1_type", self->zone);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)));
	EXPECT_STREQ("critical", text);
	EXPECT_EQ(95000, read_long(self->zone, "trip_point_1_temp"));
	EXPECT_LT(20000, read_long(self->zone, "temp"));
	snprintf(path, sizeof(path), "%s/available_frequencies", self->devfreq);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)));
	EXPECT_STREQ("200000000 400000000 600000000 800000000 1000000000", text);
	snprintf(path, sizeof(path), "%s/governor", self->devfreq);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)));
	EXPECT_STREQ("simple_ondemand", text);
	/* The devfreq cooling device is bound to the passive trip. */
	snprintf(path, sizeof(path), "%s/cdev0_trip_point", self->zone);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)))
		TH_LOG("no cooling device bound to %s", self->zone);
	EXPECT_STREQ("0", text);
	snprintf(path, sizeof(path), "%s/cdev0/type", self->zone);
	ASSERT_EQ(0, read_text(path, text, sizeof(text)));
	EXPECT_EQ(0, strncmp(text, "devfreq", 7)) TH_LOG("cdev0 is %s", text);
}

/* Idle, simple_ondemand picks the lowest clock; a write to min_freq pins
 * it at the top (userspace's control with any governor). */
TEST_F_TIMEOUT(thermal, idle_device_slows_down_and_min_freq_pins_it, 300)
{
	char path[PATH_MAX + 64];

	EXPECT_EQ(200000, wait_opp_khz(200000, 0, WAIT_MS));
	EXPECT_EQ(200000000, read_long(self->devfreq, "cur_freq"));
	snprintf(path, sizeof(path), "%s/min_freq", self->devfreq);
	ASSERT_EQ(0, write_text(path, "1000000000"));
	self->restore_min_freq = 1;
	EXPECT_EQ(1000000, wait_opp_khz(1000000, 0, WAIT_MS));
	EXPECT_EQ(GHZ, read_long(self->devfreq, "cur_freq"));
}

/*
 * In a 77 degC ambient the idle device settles near 89 degC at the top
 * clock (vnpu thermal model): above the passive trip (85), below the
 * critical one (95), for as long as the ambient stays. The cooling device
 * must lower the clock (about 400-600 MHz is where the device drops below
 * the trip); with the ambient back the device cools and the clock returns
 * to the pinned top.
 */
TEST_F_TIMEOUT(thermal, hot_ambient_lowers_the_clock_until_cool, 300)
{
	char path[PATH_MAX + 64];
	long long before, updates;
	int64_t t0, ms;
	long seen;

	snprintf(path, sizeof(path), "%s/min_freq", self->devfreq);
	ASSERT_EQ(0, write_text(path, "1000000000"));
	self->restore_min_freq = 1;
	ASSERT_EQ(1000000, wait_opp_khz(1000000, 0, WAIT_MS));
	ASSERT_GT(80000, vnpu_status("temp_mc"));
	ASSERT_EQ(0, set_ambient(77000));
	seen = wait_opp_khz(1000000, 1, WAIT_MS);
	TH_LOG("clock at %ld kHz, zone %ld mC", seen,
	       read_long(self->zone, "temp"));
	EXPECT_GT(1000000, seen);
	EXPECT_LT(0, seen);
	EXPECT_GT(GHZ, read_long(self->devfreq, "max_freq"));
	EXPECT_EQ(0, debugfs_power("holding"));
	/*
	 * Held at the passive trip, the device crosses it every few device
	 * ms; the zone must not be updated for each crossing (a clock change
	 * each): at most one event-driven update per 100 ms. A bound the
	 * driver enforces by its own clock: a slow machine only lowers it.
	 */
	before = debugfs_power("event_updates");
	t0 = enpu_now_ns();
	sleep_ms(2000);
	updates = debugfs_power("event_updates") - before;
	ms = (enpu_now_ns() - t0) / 1000000;
	TH_LOG("%lld event-driven zone updates in %lld ms, zone %ld mC",
	       updates, (long long)ms, read_long(self->zone, "temp"));
	ASSERT_LE(0, before);
	EXPECT_GE(ms / 100 + 2, updates);
	/* The ambient back, cooling fast: the clock returns to the top. */
	ASSERT_EQ(0, set_ambient(self->ambient_mc));
	ASSERT_EQ(0, enpu_fault("speed 5", 0, NULL));
	self->restore_speed = 1;
	EXPECT_EQ(1000000, wait_opp_khz(1000000, 0, WAIT_MS));
	EXPECT_GT(85000, read_long(self->zone, "temp"));
	EXPECT_EQ(0, debugfs_power("holding"));
}

/* The first time the device holding the jobs says @want, bounded. */
static long long wait_holding(long long want)
{
	int64_t end = enpu_now_ns() + WAIT_NS;
	long long seen;

	while ((seen = debugfs_power("holding")) != want &&
	       enpu_now_ns() < end)
		sleep_ms(20);
	return seen;
}

/*
 * In a 91 degC ambient the idle device at its lowest clock settles near
 * 98 degC: above the zone's critical trip (95), below the device's own
 * halt (105). The safe state must hold a job (not fail it, not let the
 * device halt) for as long as the ambient stays, and run it once the
 * device has cooled below the passive trip.
 */
TEST_F_TIMEOUT(thermal, critical_trip_holds_jobs_until_cool, 300)
{
	long long holds = debugfs_power("holds");
	long long resets = -1, resets_after = -1;
	char dir[256], text[1024];
	enpu_cmdbuf *cmdbuf;
	uint32_t syncobj;
	int job_status = 1;

	ASSERT_LE(0, holds);
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(dir), dir));
	ASSERT_EQ(0, enpu_debugfs_read(dir, "recovery", sizeof(text), text));
	ASSERT_EQ(0, enpu_text_value(text, "resets", &resets));
	ASSERT_GT(80000, vnpu_status("temp_mc"));
	/* At the lowest clock the device cannot get past 98.4 degC. */
	ASSERT_EQ(200000, wait_opp_khz(200000, 0, WAIT_MS));
	ASSERT_EQ(0, set_ambient(91000));
	ASSERT_EQ(1, wait_holding(1));
	EXPECT_EQ(holds + 1, debugfs_power("holds"));
	EXPECT_EQ(200000, wait_opp_khz(200000, 0, WAIT_MS));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 100000));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	ASSERT_EQ(0, enpu_job_submit(&self->bos, cmdbuf, 0, syncobj, NULL));
	/* Held, not failed: still pending a second later, device READY. */
	EXPECT_EQ(-ETIME, enpu_job_wait(self->device, syncobj,
					ENPU_SECOND_NS, 0, &job_status));
	EXPECT_TRUE(vnpu_state_is("READY"));
	EXPECT_EQ(1, debugfs_power("holding"));
	EXPECT_LT(95000, vnpu_status("temp_mc"));
	/* The ambient back and cooling fast: below the passive trip it runs. */
	ASSERT_EQ(0, set_ambient(self->ambient_mc));
	ASSERT_EQ(0, enpu_fault("speed 5", 0, NULL));
	self->restore_speed = 1;
	EXPECT_EQ(0, enpu_job_wait(self->device, syncobj,
				   WAIT_NS, 0, &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0, wait_holding(0));
	EXPECT_GT(85000, vnpu_status("temp_mc"));
	/* Held by the driver, never halted by the device: no reset. */
	ASSERT_EQ(0, enpu_debugfs_read(dir, "recovery", sizeof(text), text));
	ASSERT_EQ(0, enpu_text_value(text, "resets", &resets_after));
	EXPECT_EQ(resets, resets_after);
	enpu_syncobj_destroy(self->device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
}

static int wait_runtime_status(const char *power, const char *want,
			       int timeout_ms)
{
	int64_t deadline = enpu_now_ns() + (int64_t)timeout_ms * 1000000;
	char path[PATH_MAX + 64], text[64];

	snprintf(path, sizeof(path), "%s/runtime_status", power);
	do {
		if (!read_text(path, text, sizeof(text)) && !strcmp(text, want))
			return 1;
		sleep_ms(20);
	} while (enpu_now_ns() < deadline);
	return 0;
}

/* The vnpu's power reading, once 0 or after WAIT_MS. */
static long wait_power_mw_zero(void)
{
	int64_t end = enpu_now_ns() + WAIT_NS;
	long mw;

	while ((mw = vnpu_status("power_mw")) != 0 && enpu_now_ns() < end)
		sleep_ms(20);
	return mw;
}

TEST_F_TIMEOUT(thermal, runtime_suspend_and_a_job_that_resumes, 300)
{
	long long suspends, resumes, nop_status = -1;
	char path[PATH_MAX + 64], dir[256], text[256];
	enpu_cmdbuf *cmdbuf;
	int job_status = 1;
	uint32_t syncobj;

	suspends = debugfs_power("suspends");
	resumes = debugfs_power("resumes");
	ASSERT_EQ(1, debugfs_power("runtime_pm"));
	/* The long job below takes 2 s at the top clock. */
	snprintf(path, sizeof(path), "%s/min_freq", self->devfreq);
	ASSERT_EQ(0, write_text(path, "1000000000"));
	self->restore_min_freq = 1;
	snprintf(path, sizeof(path), "%s/autosuspend_delay_ms", self->power);
	ASSERT_EQ(0, write_text(path, "300"));
	snprintf(path, sizeof(path), "%s/control", self->power);
	ASSERT_EQ(0, write_text(path, "auto"));
	self->restore_power = 1;

	/* Idle: suspends, the engine is powered off. */
	ASSERT_TRUE(wait_runtime_status(self->power, "suspended", WAIT_MS));
	EXPECT_EQ(suspends + 1, debugfs_power("suspends"));
	EXPECT_EQ(1, debugfs_power("off"));
	EXPECT_TRUE(vnpu_state_is("OFF"));
	/* The power register follows at the model's next step. */
	EXPECT_EQ(0, wait_power_mw_zero());

	/* A job arriving now resumes the device, firmware reloaded, and
	 * keeps its reference while it runs: no suspend for 2 s. */
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 2000000000u));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	ASSERT_EQ(0, enpu_job_submit(&self->bos, cmdbuf, 0, syncobj, NULL));
	EXPECT_EQ(resumes + 1, debugfs_power("resumes"));
	TH_LOG("resume with firmware reload took %lld us",
	       debugfs_power("last_resume_us"));
	sleep_ms(1000);
	EXPECT_EQ(-EBUSY, enpu_job_status(self->device, syncobj, &job_status));
	EXPECT_TRUE(wait_runtime_status(self->power, "active", 0));
	EXPECT_EQ(suspends + 1, debugfs_power("suspends"));
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, WAIT_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);

	/* Idle again: suspends again; the driver's own NOP resumes it. */
	EXPECT_TRUE(wait_runtime_status(self->power, "suspended", WAIT_MS));
	EXPECT_EQ(suspends + 2, debugfs_power("suspends"));
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(dir), dir));
	ASSERT_EQ(0, enpu_debugfs_read(dir, "nop", sizeof(text), text));
	EXPECT_EQ(0, enpu_text_value(text, "status", &nop_status));
	EXPECT_EQ(0, nop_status);
	EXPECT_EQ(resumes + 2, debugfs_power("resumes"));

	/* And once more suspended, the next job resumes it again. */
	EXPECT_TRUE(wait_runtime_status(self->power, "suspended", WAIT_MS));
	EXPECT_EQ(suspends + 3, debugfs_power("suspends"));
	enpu_cmdbuf_destroy(cmdbuf);
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 1000));
	job_status = 1;
	ASSERT_EQ(0, enpu_job_run(&self->bos, cmdbuf, 0, WAIT_NS,
				  &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(resumes + 3, debugfs_power("resumes"));
	enpu_syncobj_destroy(self->device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
	/* Back on for the tests after this one. */
	snprintf(path, sizeof(path), "%s/control", self->power);
	ASSERT_EQ(0, write_text(path, "on"));
	EXPECT_TRUE(wait_runtime_status(self->power, "active", WAIT_MS));
	EXPECT_TRUE(vnpu_state_is("READY"));
}

TEST_HARNESS_MAIN
