// SPDX-License-Identifier: GPL-2.0
/*
 * Imports of buffers that can move (issue 8, defect 7). enpu imports
 * dma-bufs as a dynamic importer and maps them for the jobs in flight
 * (one mapping they share) under the reservation lock; the exporter here is enpu_test_exporter.ko (built
 * with the driver, loaded from the repository by this test), whose
 * buffers move to fresh pages on request, refusing while pinned, mapped
 * or fenced. Jobs read and write such a buffer; between jobs it is
 * neither pinned nor mapped, so it can move, and the next job uses its
 * new pages; while a job may use it, it cannot move. vgem and other
 * pinned exporters are covered by enpu_prime_test (zero copy, page
 * identity).
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
#include "enpu_selftest.h"
#include "exporter/enpu_test_exporter.h"
#include "kselftest_harness.h"

#define SIZE (64 * 1024)
#define EXPORTER_NODE "/dev/enpu_test_exporter"

/*
 * The exporter built for the running kernel, next to its enpu.ko
 * (tools/vm/kernel.sh, ENPU_VM_KO): <repo>/enpu_test_exporter.ko on the
 * default kernel, <repo>/build/kmod/<kernel>/ on the others. <repo> is
 * four levels above this binary, <repo>/build/tests/kselftest/<me>.
 */
static int exporter_module(size_t size, char *path)
{
	const char *kernel = getenv("ENPU_VM_KERNEL");
	char self[PATH_MAX], dir[64] = "", *slash;
	ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (length < 0)
		return -errno;
	self[length] = '\0';
	for (int i = 0; i < 4; i++) {
		slash = strrchr(self, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	if (kernel && *kernel && strcmp(kernel, "6.1") && strcmp(kernel, "stock") &&
	    (size_t)snprintf(dir, sizeof(dir), "/build/kmod/%s", kernel) >= sizeof(dir))
		return -ENAMETOOLONG;
	if ((size_t)snprintf(path, size, "%.*s%s/enpu_test_exporter.ko",
			     (int)(size - 96), self, dir) >= size)
		return -ENAMETOOLONG;
	return access(path, R_OK) ? -errno : 0;
}

FIXTURE(dynamic)
{
	enpu_device *device;
	int fd, exporter;
	int dmabuf;
	uint32_t imported, dst;
	unsigned char *dst_map;
	char debugfs[256];
};

FIXTURE_SETUP(dynamic)
{
	struct enpu_test_export export = { .size = SIZE, .fill = 0x11 };
	char why[256], module[PATH_MAX], command[PATH_MAX + 32];

	self->exporter = self->dmabuf = -1;
	if (access(EXPORTER_NODE, F_OK)) {
		ASSERT_EQ(0, exporter_module(sizeof(module), module))
			TH_LOG("enpu_test_exporter.ko not built (make module)");
		snprintf(command, sizeof(command), "insmod %s", module);
		ASSERT_EQ(0, enpu_run(command));
		for (int i = 0; i < 100 && access(EXPORTER_NODE, F_OK); i++)
			enpu_sleep_ms(10);
	}
	self->exporter = open(EXPORTER_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->exporter);
	ASSERT_EQ(0, ioctl(self->exporter, ENPU_TEST_EXPORT, &export));
	self->dmabuf = export.fd;
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_prime_import(self->fd, self->dmabuf,
				       &self->imported));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, SIZE, 0, &self->dst, NULL));
	self->dst_map = enpu_raw_bo_map(self->fd, self->dst, SIZE);
	ASSERT_NE(NULL, self->dst_map);
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(self->debugfs), self->debugfs));
}

FIXTURE_TEARDOWN(dynamic)
{
	if (self->dst_map)
		munmap(self->dst_map, SIZE);
	if (self->device)
		enpu_device_close(self->device);
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	if (self->exporter >= 0)
		close(self->exporter);
}

static int exporter_call(FIXTURE_DATA(dynamic) *self, unsigned long request,
			 struct enpu_test_buf *state)
{
	*state = (struct enpu_test_buf){ .fd = self->dmabuf };
	return ioctl(self->exporter, request, state) ? -errno : 0;
}

/* Fills the imported buffer with value and waits for the job. */
static int fill_imported(FIXTURE_DATA(dynamic) *self, unsigned char value)
{
	struct drm_enpu_submit_bo bo = { self->imported,
					 DRM_ENPU_SUBMIT_BO_WRITE };
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = SIZE,
		.value = value,
	};
	int status = enpu_raw_submit_simple(self->fd, &bo, 1, &fill,
					    sizeof(fill), 0, 0);

	return status ? status :
	       enpu_raw_bo_wait(self->fd, self->imported, 0, 10 * ENPU_SECOND_NS);
}

/* Copies the imported buffer into dst and waits for the job. */
static int copy_imported(FIXTURE_DATA(dynamic) *self)
{
	struct drm_enpu_submit_bo bos[2] = {
		{ self->imported, DRM_ENPU_SUBMIT_BO_READ },
		{ self->dst, DRM_ENPU_SUBMIT_BO_WRITE },
	};
	struct enpu_cmd_dma_copy copy = {
		.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(copy) },
		.src = { .bo_index = 0 },
		.dst = { .bo_index = 1 },
		.size = SIZE,
	};
	int status;

	memset(self->dst_map, 0, SIZE);
	status = enpu_raw_submit_simple(self->fd, bos, 2, &copy, sizeof(copy),
					0, 0);
	return status ? status :
	       enpu_raw_bo_wait(self->fd, self->dst, 0, 10 * ENPU_SECOND_NS);
}

static size_t first_not(const unsigned char *map, unsigned char value)
{
	for (size_t i = 0; i < SIZE; i++)
		if (map[i] != value)
			return i;
	return SIZE;
}

/* A job's mapping goes when its worker frees it: poll for that. */
static int idle_within(FIXTURE_DATA(dynamic) *self, int ms,
		       struct enpu_test_buf *state)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		if (exporter_call(self, ENPU_TEST_STATE, state))
			return 0;
		if (!state->pins && !state->maps)
			return 1;
		enpu_sleep_ms(10);
	}
	return 0;
}

TEST_F(dynamic, jobs_read_and_write_a_movable_buffer)
{
	struct enpu_test_buf state;

	ASSERT_EQ(0, copy_imported(self));
	EXPECT_EQ((size_t)SIZE, first_not(self->dst_map, 0x11));
	ASSERT_EQ(0, fill_imported(self, 0x22));
	ASSERT_EQ(0, exporter_call(self, ENPU_TEST_STATE, &state));
	EXPECT_EQ(0x2222222222222222ull, state.first);
}

/*
 * Importing maps nothing and pins nothing; a job maps the buffer and lets
 * go of it when it is done. A static importer keeps a pinned mapping
 * from import to close.
 */
TEST_F(dynamic, neither_pinned_nor_mapped_between_jobs)
{
	struct enpu_test_buf state;

	ASSERT_EQ(0, exporter_call(self, ENPU_TEST_STATE, &state));
	EXPECT_EQ(0u, state.pins) TH_LOG("pinned at import");
	EXPECT_EQ(0u, state.maps) TH_LOG("mapped at import");
	ASSERT_EQ(0, copy_imported(self));
	EXPECT_TRUE(idle_within(self, 5000, &state))
		TH_LOG("%u pins, %u mappings after the job", state.pins,
		       state.maps);
}

/*
 * Between jobs the exporter moves the buffer to new pages; enpu is told
 * (move_notify), the next job reads the moved contents and writes the
 * new pages, not the freed old ones.
 */
TEST_F(dynamic, a_move_between_jobs_is_followed)
{
	char text[64];
	long long moves_before = 0, moves_after = 0;
	struct enpu_test_buf state;

	ASSERT_EQ(0, fill_imported(self, 0x33));
	ASSERT_TRUE(idle_within(self, 5000, &state));
	ASSERT_EQ(0, enpu_debugfs_read(self->debugfs, "dmabuf_moves",
				       sizeof(text), text));
	moves_before = strtoll(text, NULL, 10);
	ASSERT_EQ(0, exporter_call(self, ENPU_TEST_MOVE, &state))
		TH_LOG("the exporter could not move the buffer");
	EXPECT_EQ(1u, state.moves);
	ASSERT_EQ(0, enpu_debugfs_read(self->debugfs, "dmabuf_moves",
				       sizeof(text), text));
	moves_after = strtoll(text, NULL, 10);
	EXPECT_EQ(moves_before + 1, moves_after);
	ASSERT_EQ(0, copy_imported(self));
	EXPECT_EQ((size_t)SIZE, first_not(self->dst_map, 0x33));
	ASSERT_EQ(0, fill_imported(self, 0x44));
	ASSERT_EQ(0, exporter_call(self, ENPU_TEST_STATE, &state));
	EXPECT_EQ(0x4444444444444444ull, state.first)
		TH_LOG("the job wrote somewhere else than the buffer's pages");
}

/*
 * A job held back by a vgem fence has the buffer mapped and its fence in
 * the reservation: the exporter cannot move it. Once the job is done,
 * it can.
 */
TEST_F_TIMEOUT(dynamic, no_move_while_a_job_may_use_it, 60)
{
	struct enpu_blocker blocker;
	struct enpu_test_buf state;
	struct drm_enpu_submit_bo bos[2] = {
		{ self->imported, DRM_ENPU_SUBMIT_BO_WRITE },
		{ 0, DRM_ENPU_SUBMIT_BO_READ },
	};
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = SIZE,
		.value = 0x55,
	};
	int moved = 0;

	ASSERT_EQ(0, enpu_blocker_create(&blocker));
	ASSERT_EQ(0, enpu_blocker_import(&blocker, self->fd, &bos[1].handle));
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &fill,
					    sizeof(fill), 0, 0));
	EXPECT_EQ(-EBUSY, exporter_call(self, ENPU_TEST_MOVE, &state));
	EXPECT_NE(0u, state.maps + state.pins);
	ASSERT_EQ(0, enpu_blocker_release(&blocker));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->imported, 0,
				      10 * ENPU_SECOND_NS));
	for (int waited = 0; waited < 5000 && !moved; waited += 10) {
		moved = !exporter_call(self, ENPU_TEST_MOVE, &state);
		if (!moved)
			enpu_sleep_ms(10);
	}
	EXPECT_TRUE(moved) TH_LOG("the buffer stayed busy after the job");
	EXPECT_EQ(0x5555555555555555ull, state.first);
	enpu_blocker_destroy(&blocker);
}

/*
 * Jobs in flight together share one mapping of the buffer: the exporter
 * maps it once, not per job (its pages mapped twice would be
 * overlapping DMA mappings). Two jobs, a fill and a copy of the buffer,
 * wait behind a vgem fence; then both run, and the buffer is let go.
 */
TEST_F_TIMEOUT(dynamic, jobs_in_flight_share_one_mapping, 60)
{
	struct drm_enpu_submit_bo fill_bos[2] = {
		{ self->imported, DRM_ENPU_SUBMIT_BO_WRITE },
		{ 0, DRM_ENPU_SUBMIT_BO_READ },
	};
	struct drm_enpu_submit_bo copy_bos[3] = {
		{ self->imported, DRM_ENPU_SUBMIT_BO_READ },
		{ self->dst, DRM_ENPU_SUBMIT_BO_WRITE },
		{ 0, DRM_ENPU_SUBMIT_BO_READ },
	};
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = SIZE,
		.value = 0x66,
	};
	struct enpu_cmd_dma_copy copy = {
		.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(copy) },
		.src = { .bo_index = 0 },
		.dst = { .bo_index = 1 },
		.size = SIZE,
	};
	struct enpu_test_buf state, held;
	struct enpu_blocker blocker;

	memset(self->dst_map, 0, SIZE);
	ASSERT_EQ(0, enpu_blocker_create(&blocker));
	ASSERT_EQ(0, enpu_blocker_import(&blocker, self->fd,
					 &fill_bos[1].handle));
	copy_bos[2].handle = fill_bos[1].handle;
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, fill_bos, 2, &fill,
					    sizeof(fill), 0, 0));
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, copy_bos, 3, &copy,
					    sizeof(copy), 0, 0));
	ASSERT_EQ(0, exporter_call(self, ENPU_TEST_STATE, &held));
	/* 0 only if vgem's own 10 s timeout already let both jobs run. */
	EXPECT_GE(1u, held.maps)
		TH_LOG("%u mappings for two jobs in flight", held.maps);
	EXPECT_GE(1u, held.pins);
	if (!held.maps)
		TH_LOG("the jobs had run already: sharing not seen");
	ASSERT_EQ(0, enpu_blocker_release(&blocker));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0,
				      10 * ENPU_SECOND_NS));
	EXPECT_EQ((size_t)SIZE, first_not(self->dst_map, 0x66));
	EXPECT_TRUE(idle_within(self, 5000, &state))
		TH_LOG("%u pins, %u mappings after the jobs", state.pins,
		       state.maps);
	enpu_blocker_destroy(&blocker);
}

TEST_HARNESS_MAIN
