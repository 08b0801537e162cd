// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures injected into the driver's paths (issue 8, deliver
 * 5), with the kernel's fault injection: failslab and fail_page_alloc
 * armed per task through /proc/thread-self/fail-nth, which fails the
 * N-th allocation this thread makes from then on. For BO_CREATE, the
 * import of a vgem dma-buf, SUBMIT, CONTEXT_CREATE and the device's
 * probe (unbind, then bind with the N-th allocation failing), N runs from
 * 1 until the operation makes fewer than N allocations: every run must
 * either succeed or fail with -ENOMEM (probe: any errno, and the device
 * must come back on the next bind), leave the device working, and, once
 * all are done, kmemleak must find no leaked object allocated by enpu
 * and the kernel log no report.
 *
 * Needs a kernel with CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC and
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel, make check-debug);
 * Debian's stock 6.1 has none of them, so there every case is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define DEBUGFS "/sys/kernel/debug"
#define MAX_NTH 400

/* Fail the nth allocation of this thread from now on (0: stop). */
static void arm(int nth)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", nth);
	enpu_write_file("/proc/thread-self/fail-nth", text);
}

/* 1 if the armed failure was injected (fail-nth counted down to 0). */
static int injected(void)
{
	char text[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, text, sizeof(text) - 1);
	close(fd);
	arm(0);
	return got > 0 && atoi(text) == 0;
}

FIXTURE(failslab)
{
	enpu_device *device;
	int fd;
	struct enpu_kreports reports;
	char bdf[64];
	int ready;
};

/* The harness runs the body even when the setup skipped: stop here. */
#define NEED_FAULT_INJECTION()						\
	do {								\
		if (!self->ready)					\
			SKIP(return, "no fault injection in this kernel"); \
	} while (0)

FIXTURE_SETUP(failslab)
{
	char why[256];

	self->reports.fd = -1;
	if (access(DEBUGFS "/failslab", F_OK) ||
	    access(DEBUGFS "/fail_page_alloc", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "kernel without failslab/fail_page_alloc (the debug kernel has them)");
	/* Only fail-nth injects: no random failures, sleeping allocations too. */
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/failslab/probability", "0"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/failslab/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/failslab/verbose", "0"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/probability", "0"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
				"N"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/ignore-gfp-highmem",
				"N"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/verbose", "0"));
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_kreports_start(&self->reports));
	self->ready = 1;
}

FIXTURE_TEARDOWN(failslab)
{
	arm(0);
	enpu_kreports_stop(&self->reports);
	if (self->device)
		enpu_device_close(self->device);
}

/* One fill job on a fresh BO of fd; 0 when its bytes are right. */
static int job_works(int fd)
{
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = ENPU_PAGE_SIZE, .value = 0x3a,
	};
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	unsigned char *map;
	int status;

	status = enpu_raw_bo_create(fd, ENPU_PAGE_SIZE, 0, &bo.handle, NULL);
	if (status)
		return status;
	map = enpu_raw_bo_map(fd, bo.handle, ENPU_PAGE_SIZE);
	status = map ? enpu_raw_submit_simple(fd, &bo, 1, &fill,
					      sizeof(fill), 0, 0) : -ENOMEM;
	if (!status)
		status = enpu_raw_bo_wait(fd, bo.handle, 0, 30 * ENPU_SECOND_NS);
	if (!status && (map[0] != 0x3a || map[ENPU_PAGE_SIZE - 1] != 0x3a))
		status = -EIO;
	if (map)
		munmap(map, ENPU_PAGE_SIZE);
	enpu_raw_gem_close(fd, bo.handle);
	return status;
}

/*
 * Runs op with the nth allocation of the operation failing, for n = 1,
 * 2, ... until the operation makes fewer than n allocations. op(self, n,
 * &hit) sets up unarmed, arms n right before the operation, reports in
 * hit whether the failure was injected, checks and cleans up, and
 * returns 0 or the operation's negative errno. Returns the runs that had
 * a failure injected.
 */
typedef int (*failslab_op)(FIXTURE_DATA(failslab) *self, int nth, int *hit);

static int sweep(struct __test_metadata *_metadata,
		 FIXTURE_DATA(failslab) *self, const char *what,
		 failslab_op op, int allow_any_errno)
{
	int runs = 0;

	for (int nth = 1; nth <= MAX_NTH; nth++) {
		int status, hit = 0;

		status = op(self, nth, &hit);
		if (!hit) {
			EXPECT_EQ(0, status)
				TH_LOG("%s: %d without an injected failure",
				       what, status);
			break;
		}
		runs++;
		if (!allow_any_errno) {
			EXPECT_TRUE(status == 0 || status == -ENOMEM)
				TH_LOG("%s, allocation %d failing: %d (%s)",
				       what, nth, status, strerror(-status));
		}
		EXPECT_EQ(0, job_works(self->fd))
			TH_LOG("%s: device broken after allocation %d failed",
			       what, nth);
	}
	TH_LOG("%s: %d allocation failures injected", what, runs);
	EXPECT_LT(0, runs);
	return runs;
}

static int op_bo_create(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	uint32_t handle;
	int status;

	arm(nth);
	status = enpu_raw_bo_create(self->fd, 64 * 1024, 0, &handle, NULL);
	*hit = injected();
	if (!status)
		enpu_raw_gem_close(self->fd, handle);
	return status;
}

static int op_context_create(FIXTURE_DATA(failslab) *self, int nth,
			     int *hit)
{
	struct drm_enpu_context_create create = {
		.priority = DRM_ENPU_PRIORITY_NORMAL,
	};
	struct drm_enpu_context_destroy destroy = { 0 };
	int status = 0;

	arm(nth);
	if (ioctl(self->fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &create))
		status = -errno;
	*hit = injected();
	if (!status) {
		destroy.context = create.context;
		ioctl(self->fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &destroy);
	}
	return status;
}

/* A fill job; if accepted, it must complete and write every byte. */
static int op_submit(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	const size_t size = 64 * 1024;
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = size, .value = 0x17,
	};
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	unsigned char *map;
	int status;

	if (enpu_raw_bo_create(self->fd, size, 0, &bo.handle, NULL))
		return -EIO;
	map = enpu_raw_bo_map(self->fd, bo.handle, size);
	if (!map) {
		enpu_raw_gem_close(self->fd, bo.handle);
		return -EIO;
	}
	memset(map, 0, size);
	arm(nth);
	status = enpu_raw_submit_simple(self->fd, &bo, 1, &fill, sizeof(fill),
					0, 0);
	*hit = injected();
	if (!status && (enpu_raw_bo_wait(self->fd, bo.handle, 0,
					 30 * ENPU_SECOND_NS) ||
			map[0] != 0x17 || map[size - 1] != 0x17))
		status = -EIO;
	munmap(map, size);
	enpu_raw_gem_close(self->fd, bo.handle);
	return status;
}

static int op_import(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	uint32_t vgem_handle, handle;
	uint64_t size;
	int vgem, dmabuf, status;

	if (vgem_open(&vgem))
		return -EIO;
	if (vgem_create(vgem, 64 * 1024, &vgem_handle, &size) ||
	    drmPrimeHandleToFD(vgem, vgem_handle, DRM_CLOEXEC, &dmabuf)) {
		close(vgem);
		return -EIO;
	}
	close(vgem);
	arm(nth);
	status = enpu_prime_import(self->fd, dmabuf, &handle);
	*hit = injected();
	if (!status)
		enpu_raw_gem_close(self->fd, handle);
	close(dmabuf);
	return status;
}

/* /sys/bus/pci/devices/<bdf> of our device, from its DRM node. */
static int device_bdf(const char *node, size_t size, char *bdf)
{
	char link[PATH_MAX], target[PATH_MAX];
	const char *name = strrchr(node, '/');
	ssize_t length;

	snprintf(link, sizeof(link), "/sys/class/drm/%s/device",
		 name ? name + 1 : node);
	length = readlink(link, target, sizeof(target) - 1);
	if (length < 0)
		return -errno;
	target[length] = '\0';
	name = strrchr(target, '/');
	snprintf(bdf, size, "%.63s", name ? name + 1 : target);
	return 0;
}

#define DRIVER_DIR "/sys/bus/pci/drivers/enpu"

/* Probe with the nth allocation failing: bind, then unbind if it bound. */
static int op_probe(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	int fd = open(DRIVER_DIR "/bind", O_WRONLY | O_CLOEXEC);
	ssize_t written;
	int status;

	if (fd < 0)
		return -errno;
	arm(nth);
	written = write(fd, self->bdf, strlen(self->bdf));
	status = written < 0 ? -errno : 0;
	*hit = injected();
	close(fd);
	if (!status) {
		status = enpu_selftest_count_devices() == 1 ? 0 : -ENODEV;
		enpu_write_file(DRIVER_DIR "/unbind", self->bdf);
	}
	return status;
}

TEST_F(failslab, bo_create)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "BO_CREATE", op_bo_create, 0);
}

TEST_F(failslab, context_create)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "CONTEXT_CREATE", op_context_create, 0);
}

TEST_F_TIMEOUT(failslab, submit, 300)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "SUBMIT", op_submit, 0);
}

TEST_F(failslab, vgem_import)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "PRIME import", op_import, 0);
}

/*
 * The probe: unbound, then bound with the nth allocation failing. A
 * failed probe may return any errno but must leave nothing behind: the
 * next bind brings the device back and it runs jobs.
 */
TEST_F_TIMEOUT(failslab, probe, 900)
{
	const char *node;
	int runs = 0;

	NEED_FAULT_INJECTION();

	ASSERT_EQ(0, enpu_device_path(self->device, &node));
	ASSERT_EQ(0, device_bdf(node, sizeof(self->bdf), self->bdf));
	enpu_device_close(self->device);
	self->device = NULL;
	ASSERT_EQ(0, enpu_write_file(DRIVER_DIR "/unbind", self->bdf));
	for (int nth = 1; nth <= MAX_NTH; nth++) {
		int status, hit = 0;

		status = op_probe(self, nth, &hit);
		if (!hit) {
			EXPECT_EQ(0, status);
			break;
		}
		runs++;
		TH_LOG("probe, allocation %d failing: %d", nth, status);
	}
	TH_LOG("probe: %d allocation failures injected", runs);
	EXPECT_LT(0, runs);
	ASSERT_EQ(0, enpu_write_file(DRIVER_DIR "/bind", self->bdf));
	for (int i = 0; i < 100 && enpu_selftest_count_devices() != 1; i++)
		enpu_sleep_ms(50);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(self->bdf),
					self->bdf));
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	EXPECT_EQ(0, job_works(self->fd));
}

/*
 * Last: after every injected failure above, kmemleak (if the kernel has
 * it) must find no unreferenced object whose allocation came from enpu,
 * and no kernel report may have appeared.
 */
TEST_F_TIMEOUT(failslab, nothing_leaked, 120)
{
	char line[512], first[512] = "";
	int leaks = 0, in_enpu = 0;
	FILE *file;

	NEED_FAULT_INJECTION();

	if (access(DEBUGFS "/kmemleak", F_OK))
		SKIP(return, "kernel without kmemleak");
	/* Objects younger than about 5 s are not reported: let them age. */
	enpu_sleep_ms(6000);
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/kmemleak", "scan"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/kmemleak", "scan"));
	file = fopen(DEBUGFS "/kmemleak", "r");
	ASSERT_NE(NULL, file);
	while (fgets(line, sizeof(line), file)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			leaks += in_enpu;
			in_enpu = 0;
		} else if (strstr(line, "[enpu]") && !in_enpu) {
			in_enpu = 1;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", line);
		}
	}
	leaks += in_enpu;
	fclose(file);
	EXPECT_EQ(0, leaks) TH_LOG("first leak backtrace line: %s", first);
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);
}

TEST_HARNESS_MAIN
