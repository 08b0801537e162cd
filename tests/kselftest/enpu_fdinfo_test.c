// SPDX-License-Identifier: GPL-2.0
/*
 * fdinfo usage stats (kernel/enpu_fdinfo.c, docs/observability.md): the
 * keys of Documentation/gpu/drm-usage-stats.rst in their format, and
 * their values against what the device itself reports. The device time
 * of a file's jobs is compared with the vnpu's own busy-time and cycle
 * counters (PERF_BUSY_NS, PERF_CYCLES through debugfs `regs`) over the
 * same jobs, with nothing else running: no wall clock is involved.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define FDINFO_MAX_KEYS 64
#define FDINFO_KEY_SIZE 64
#define FDINFO_VALUE_SIZE 64

/* NOP jobs per run and their cycles: a few ms of device time each. */
#define ENGINE_JOBS 8
#define ENGINE_JOB_CYCLES 4000000u
/*
 * The vnpu rounds its busy time up to a whole ns at every step of its
 * model, and the driver converts each run's cycles at the clock of its
 * completion: allow 0.5 % and 1 us over the whole run.
 */
#define ENGINE_TOLERANCE_PERMILLE 5
#define ENGINE_TOLERANCE_NS 1000

struct fdinfo {
	size_t count;
	char key[FDINFO_MAX_KEYS][FDINFO_KEY_SIZE];
	char value[FDINFO_MAX_KEYS][FDINFO_VALUE_SIZE];
	/* The part of the value after its number and one space, or "". */
	char unit[FDINFO_MAX_KEYS][8];
	/* A drm- line that breaks the format, for the failure message. */
	char bad[512];
};

static int has_space(const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		if (isspace((unsigned char)text[i]))
			return 1;
	return 0;
}

/*
 * Reads /proc/self/fdinfo/<fd>: every "drm-" line must be key ':'
 * whitespace value [' ' unit], with no whitespace in key or value.
 */
static int fdinfo_read(int fd, struct fdinfo *info)
{
	char path[64], line[256];
	FILE *file;

	memset(info, 0, sizeof(*info));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	file = fopen(path, "re");
	if (!file)
		return -errno;
	while (fgets(line, sizeof(line), file)) {
		char *colon, *value, *space;
		size_t n = info->count;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "drm-", 4))
			continue;
		colon = strchr(line, ':');
		value = colon ? colon + 1 : NULL;
		while (value && (*value == ' ' || *value == '\t'))
			value++;
		if (!colon || has_space(line, (size_t)(colon - line)) ||
		    !*value || n == FDINFO_MAX_KEYS) {
			snprintf(info->bad, sizeof(info->bad), "%s", line);
			break;
		}
		*colon = '\0';
		space = strchr(value, ' ');
		if (space) {
			*space = '\0';
			snprintf(info->unit[n], sizeof(info->unit[n]), "%.7s",
				 space + 1);
			if (has_space(space + 1, strlen(space + 1))) {
				snprintf(info->bad, sizeof(info->bad),
					 "%.200s: %.100s %.100s", line, value,
					 space + 1);
				break;
			}
		}
		snprintf(info->key[n], sizeof(info->key[n]), "%.63s", line);
		snprintf(info->value[n], sizeof(info->value[n]), "%.63s",
			 value);
		info->count++;
	}
	fclose(file);
	return info->bad[0] ? -EINVAL : 0;
}

static int fdinfo_find(const struct fdinfo *info, const char *key)
{
	for (size_t i = 0; i < info->count; i++)
		if (!strcmp(info->key[i], key))
			return (int)i;
	return -1;
}

static int is_uint(const char *text)
{
	if (!*text)
		return 0;
	for (; *text; text++)
		if (!isdigit((unsigned char)*text))
			return 0;
	return 1;
}

/* The value of key as an integer in its base unit (ns, Hz, bytes). */
static long long fdinfo_uint(const struct fdinfo *info, const char *key)
{
	int i = fdinfo_find(info, key);
	long long value;

	if (i < 0 || !is_uint(info->value[i]))
		return -1;
	value = strtoll(info->value[i], NULL, 10);
	if (!strcmp(info->unit[i], "KiB"))
		value *= 1024;
	else if (!strcmp(info->unit[i], "MiB"))
		value *= 1024 * 1024;
	return value;
}

/* A 64-bit counter of debugfs `regs`, from its _LO and _HI lines. */
static long long regs_counter(const char *regs, const char *name)
{
	unsigned long long half[2];
	const char *suffix[2] = { "_LO", "_HI" };

	for (int i = 0; i < 2; i++) {
		char key[64];
		const char *at;

		snprintf(key, sizeof(key), "\n%s%s ", name, suffix[i]);
		at = strstr(regs, key);
		if (!at || sscanf(at + strlen(key), " 0x%*x 0x%llx",
				  &half[i]) != 1)
			return -1;
	}
	return (long long)(half[1] << 32 | half[0]);
}

struct device_counters {
	long long busy_ns;
	long long cycles;
};

static int read_device_counters(const char *debugfs,
				struct device_counters *counters)
{
	static char regs[16384];
	int status;

	/* The first line has no newline before it; PERF_* never is first. */
	status = enpu_debugfs_read(debugfs, "regs", sizeof(regs), regs);
	if (status)
		return status;
	counters->busy_ns = regs_counter(regs, "PERF_BUSY_NS");
	counters->cycles = regs_counter(regs, "PERF_CYCLES");
	return counters->busy_ns < 0 || counters->cycles < 0 ? -EPROTO : 0;
}

static int run_nops(enpu_device *device, int jobs, uint32_t cycles)
{
	struct enpu_job_bos bos = { .device = device };
	enpu_cmdbuf *cmdbuf;
	int status, job_status = 0;

	status = enpu_cmdbuf_create(&cmdbuf);
	if (status)
		return status;
	status = enpu_cmdbuf_nop(cmdbuf, cycles);
	for (int i = 0; !status && !job_status && i < jobs; i++)
		status = enpu_job_run(&bos, cmdbuf, 0, 30 * ENPU_SECOND_NS,
				      &job_status);
	enpu_cmdbuf_destroy(cmdbuf);
	return status ? status : job_status;
}

FIXTURE(fdinfo)
{
	enpu_device *device;
	int fd;
	char debugfs[300];
};

FIXTURE_SETUP(fdinfo)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(self->debugfs), self->debugfs));
}

FIXTURE_TEARDOWN(fdinfo)
{
	enpu_device_close(self->device);
}

TEST_F(fdinfo, keys_follow_the_drm_usage_stats_format)
{
	static const char *const uint_keys[][2] = {
		{ "drm-client-id", "" },
		{ "drm-engine-npu", "ns" },
		{ "drm-cycles-npu", "" },
		{ "drm-maxfreq-npu", "Hz" },
	};
	static const char *const memory_keys[] = {
		"drm-total-memory", "drm-resident-memory",
	};
	struct fdinfo info;
	unsigned int domain, bus, slot, function;
	uint64_t max_khz;
	enpu_bo *bo;
	void *map;
	int i;

	/* A resident BO: kernels print drm-resident-* once one is. */
	ASSERT_EQ(0, enpu_bo_create(self->device, 4096, 0, &bo));
	ASSERT_EQ(0, enpu_bo_map(bo, &map));
	memset(map, 1, 4096);
	ASSERT_EQ(0, run_nops(self->device, 1, 1000));

	ASSERT_EQ(0, fdinfo_read(self->fd, &info))
		TH_LOG("malformed line '%s'", info.bad);
	i = fdinfo_find(&info, "drm-driver");
	ASSERT_LE(0, i);
	EXPECT_STREQ("enpu", info.value[i]);
	EXPECT_STREQ("", info.unit[i]);
	i = fdinfo_find(&info, "drm-pdev");
	ASSERT_LE(0, i) TH_LOG("the vnpu is a PCI device: drm-pdev expected");
	EXPECT_EQ(4, sscanf(info.value[i], "%4x:%2x:%2x.%1x", &domain, &bus,
			    &slot, &function))
		TH_LOG("drm-pdev '%s'", info.value[i]);
	EXPECT_EQ(12u, strlen(info.value[i]));
	for (size_t k = 0; k < sizeof(uint_keys) / sizeof(uint_keys[0]); k++) {
		i = fdinfo_find(&info, uint_keys[k][0]);
		ASSERT_LE(0, i) TH_LOG("no %s", uint_keys[k][0]);
		EXPECT_TRUE(is_uint(info.value[i]))
			TH_LOG("%s: '%s'", uint_keys[k][0], info.value[i]);
		EXPECT_STREQ(uint_keys[k][1], info.unit[i])
			TH_LOG("unit of %s", uint_keys[k][0]);
	}
	for (size_t k = 0; k < 2; k++) {
		i = fdinfo_find(&info, memory_keys[k]);
		ASSERT_LE(0, i) TH_LOG("no %s", memory_keys[k]);
		EXPECT_TRUE(is_uint(info.value[i]));
		EXPECT_TRUE(!strcmp(info.unit[i], "") ||
			    !strcmp(info.unit[i], "KiB") ||
			    !strcmp(info.unit[i], "MiB"))
			TH_LOG("unit of %s: '%s'", memory_keys[k],
			       info.unit[i]);
	}
	/* Each key once: a parser keeps one value per key. */
	for (size_t a = 0; a < info.count; a++)
		for (size_t b = a + 1; b < info.count; b++)
			EXPECT_STRNE(info.key[a], info.key[b]);

	ASSERT_EQ(0, enpu_device_get_param(self->device,
					   DRM_ENPU_PARAM_CLOCK_MAX_KHZ,
					   &max_khz));
	EXPECT_EQ((long long)max_khz * 1000,
		  fdinfo_uint(&info, "drm-maxfreq-npu"));
	EXPECT_LT(0, fdinfo_uint(&info, "drm-cycles-npu"));
	EXPECT_LT(0, fdinfo_uint(&info, "drm-engine-npu"));
	enpu_bo_destroy(bo);
}

TEST_F(fdinfo, engine_time_grows_by_the_device_time_of_the_files_jobs)
{
	struct device_counters before, after;
	struct fdinfo first, last;
	long long engine, cycles, busy, tolerance;

	ASSERT_EQ(0, fdinfo_read(self->fd, &first));
	ASSERT_EQ(0, read_device_counters(self->debugfs, &before));
	ASSERT_EQ(0, run_nops(self->device, ENGINE_JOBS, ENGINE_JOB_CYCLES));
	ASSERT_EQ(0, read_device_counters(self->debugfs, &after));
	ASSERT_EQ(0, fdinfo_read(self->fd, &last));

	engine = fdinfo_uint(&last, "drm-engine-npu") -
		 fdinfo_uint(&first, "drm-engine-npu");
	cycles = fdinfo_uint(&last, "drm-cycles-npu") -
		 fdinfo_uint(&first, "drm-cycles-npu");
	busy = after.busy_ns - before.busy_ns;
	TH_LOG("%d jobs: fdinfo %lld ns %lld cycles, device busy %lld ns %lld cycles",
	       ENGINE_JOBS, engine, cycles, busy,
	       after.cycles - before.cycles);
	/* At least what was asked for; preemption points add a little. */
	EXPECT_LE((long long)ENGINE_JOBS * ENGINE_JOB_CYCLES, cycles);
	/* PERF_CYCLES drops each run's fraction of a cycle. */
	EXPECT_LE(after.cycles - before.cycles, cycles);
	EXPECT_GE(after.cycles - before.cycles + ENGINE_JOBS, cycles);
	tolerance = busy * ENGINE_TOLERANCE_PERMILLE / 1000 +
		    ENGINE_TOLERANCE_NS;
	EXPECT_GE(engine, busy - tolerance);
	EXPECT_LE(engine, busy + tolerance);
}

TEST_F(fdinfo, another_files_jobs_are_not_counted)
{
	struct fdinfo first, last, own;
	enpu_device *other;
	char why[256];
	int other_fd;

	ASSERT_EQ(0, enpu_selftest_open(&other, sizeof(why), why));
	ASSERT_EQ(0, enpu_device_fd(other, &other_fd));
	ASSERT_EQ(0, fdinfo_read(self->fd, &first));
	ASSERT_EQ(0, run_nops(other, 2, ENGINE_JOB_CYCLES));
	ASSERT_EQ(0, fdinfo_read(self->fd, &last));
	ASSERT_EQ(0, fdinfo_read(other_fd, &own));
	EXPECT_EQ(fdinfo_uint(&first, "drm-engine-npu"),
		  fdinfo_uint(&last, "drm-engine-npu"));
	EXPECT_EQ(fdinfo_uint(&first, "drm-cycles-npu"),
		  fdinfo_uint(&last, "drm-cycles-npu"));
	EXPECT_LE(2LL * ENGINE_JOB_CYCLES, fdinfo_uint(&own, "drm-cycles-npu"));
	enpu_device_close(other);
}

TEST_F(fdinfo, jobs_of_every_context_of_the_file_add_up)
{
	struct fdinfo first, last;
	struct enpu_job_bos bos = { .device = self->device };
	enpu_context *context;
	enpu_cmdbuf *cmdbuf;
	uint32_t id;
	int job_status = -1;

	ASSERT_EQ(0, fdinfo_read(self->fd, &first));
	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_LOW,
					 &context));
	ASSERT_EQ(0, enpu_context_id(context, &id));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, ENGINE_JOB_CYCLES));
	ASSERT_EQ(0, enpu_job_run(&bos, cmdbuf, id, 30 * ENPU_SECOND_NS,
				  &job_status));
	EXPECT_EQ(0, job_status);
	/* A destroyed context's time stays the file's. */
	ASSERT_EQ(0, enpu_context_destroy(context));
	ASSERT_EQ(0, enpu_job_run(&bos, cmdbuf, 0, 30 * ENPU_SECOND_NS,
				  &job_status));
	EXPECT_EQ(0, job_status);
	enpu_cmdbuf_destroy(cmdbuf);
	ASSERT_EQ(0, fdinfo_read(self->fd, &last));
	EXPECT_LE(2LL * ENGINE_JOB_CYCLES,
		  fdinfo_uint(&last, "drm-cycles-npu") -
		  fdinfo_uint(&first, "drm-cycles-npu"));
}

TEST_F(fdinfo, client_id_is_one_per_open_file)
{
	struct fdinfo mine, duplicate, other_info;
	enpu_device *other;
	char why[256];
	int copy, other_fd;

	ASSERT_EQ(0, enpu_selftest_open(&other, sizeof(why), why));
	ASSERT_EQ(0, enpu_device_fd(other, &other_fd));
	copy = dup(self->fd);
	ASSERT_LE(0, copy);
	ASSERT_EQ(0, fdinfo_read(self->fd, &mine));
	ASSERT_EQ(0, fdinfo_read(copy, &duplicate));
	ASSERT_EQ(0, fdinfo_read(other_fd, &other_info));
	EXPECT_EQ(fdinfo_uint(&mine, "drm-client-id"),
		  fdinfo_uint(&duplicate, "drm-client-id"));
	EXPECT_NE(fdinfo_uint(&mine, "drm-client-id"),
		  fdinfo_uint(&other_info, "drm-client-id"));
	close(copy);
	enpu_device_close(other);
}

TEST_F(fdinfo, memory_counts_the_files_buffers)
{
	const uint64_t size = 1 << 20;
	struct fdinfo before, created, mapped, destroyed;
	enpu_bo *bo;
	void *map;

	ASSERT_EQ(0, fdinfo_read(self->fd, &before));
	ASSERT_EQ(0, enpu_bo_create(self->device, size, 0, &bo));
	ASSERT_EQ(0, fdinfo_read(self->fd, &created));
	EXPECT_EQ(fdinfo_uint(&before, "drm-total-memory") + (long long)size,
		  fdinfo_uint(&created, "drm-total-memory"));
	/* Pages come with the first CPU fault (or a job's pin). */
	ASSERT_EQ(0, enpu_bo_map(bo, &map));
	memset(map, 0x5a, size);
	ASSERT_EQ(0, fdinfo_read(self->fd, &mapped));
	EXPECT_LE((long long)size, fdinfo_uint(&mapped, "drm-resident-memory"));
	ASSERT_EQ(0, enpu_bo_destroy(bo));
	ASSERT_EQ(0, fdinfo_read(self->fd, &destroyed));
	EXPECT_EQ(fdinfo_uint(&before, "drm-total-memory"),
		  fdinfo_uint(&destroyed, "drm-total-memory"));
}

TEST_HARNESS_MAIN
