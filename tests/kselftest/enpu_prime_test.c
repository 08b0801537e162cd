// SPDX-License-Identifier: GPL-2.0
/*
 * PRIME and implicit sync: ENPU BOs shared between files through dma-buf
 * fds, vgem buffers imported and read/written by the device without a
 * CPU copy (proved by debugfs cpu_copy_bytes and by page identity between
 * last_job_sg and /proc/self/pagemap), vgem fences blocking a job until
 * signalled, and every order of closing importer and exporter.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define SECOND (1000 * 1000 * 1000LL)
#define MILLISECOND (1000 * 1000LL)
#define VGEM_SIZE (256 * 1024)
#define SG_CAPACITY 4096

FIXTURE(prime)
{
	enpu_device *device;
	int fd;
	int vgem;
	char vgem_path[PATH_MAX];
	char debugfs[512];
};

FIXTURE_SETUP(prime)
{
	char why[256], link[64];
	ssize_t length;

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(self->debugfs), self->debugfs));
	ASSERT_EQ(0, vgem_open(&self->vgem))
		TH_LOG("no vgem card node after modprobe vgem");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", self->vgem);
	length = readlink(link, self->vgem_path, sizeof(self->vgem_path) - 1);
	ASSERT_LT(0, length);
	self->vgem_path[length] = '\0';
}

FIXTURE_TEARDOWN(prime)
{
	if (self->vgem >= 0)
		close(self->vgem);
	enpu_device_close(self->device);
}

static void fill_pattern(unsigned char *bytes, size_t size, unsigned int seed)
{
	for (size_t i = 0; i < size; i++)
		bytes[i] = (unsigned char)(i * 131 + seed + (i >> 10));
}

static size_t first_mismatch(const unsigned char *bytes, size_t size,
			     unsigned int seed)
{
	for (size_t i = 0; i < size; i++)
		if (bytes[i] != (unsigned char)(i * 131 + seed + (i >> 10)))
			return i;
	return size;
}

static struct enpu_cmd_dma_copy copy_command(uint32_t src, uint32_t dst,
					     uint64_t size)
{
	return (struct enpu_cmd_dma_copy){
		.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(struct enpu_cmd_dma_copy) },
		.src = { .bo_index = src },
		.dst = { .bo_index = dst },
		.size = size,
	};
}

/* Submits one DMA_FILL of handle's range. */
static int fill_range(int fd, uint32_t handle, uint64_t offset, uint64_t size,
		      uint8_t value)
{
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.dst = { .bo_index = 0, .offset = offset },
		.size = size,
		.value = value,
	};
	struct drm_enpu_submit_bo bo = { handle, DRM_ENPU_SUBMIT_BO_WRITE };

	return enpu_raw_submit_simple(fd, &bo, 1, &fill, sizeof(fill), 0, 0);
}

/* Imports a new vgem buffer of size bytes, filled with pattern seed. */
static int vgem_buffer(FIXTURE_DATA(prime) *self, unsigned int seed,
		       uint32_t *vgem_handle, unsigned char **map,
		       uint32_t *enpu_handle)
{
	uint64_t size;
	int dmabuf, status;

	status = vgem_create(self->vgem, VGEM_SIZE, vgem_handle, &size);
	if (status)
		return status;
	if (size != VGEM_SIZE)
		return -EINVAL;
	*map = vgem_map(self->vgem, *vgem_handle, VGEM_SIZE);
	if (!*map)
		return -ENOMEM;
	fill_pattern(*map, VGEM_SIZE, seed);
	status = enpu_prime_export(self->vgem, *vgem_handle, &dmabuf);
	if (status)
		return status;
	status = enpu_prime_import(self->fd, dmabuf, enpu_handle);
	/* The imported BO keeps the dma-buf alive on its own. */
	close(dmabuf);
	return status;
}

/*
 * The device was given exactly the pages mapped at map: every page named
 * by the segments of BO `index` in last_job_sg holds the bytes the CPU
 * mapping shows at that offset, and a marker then stored through the
 * mapping appears at that physical address (a copy would not change).
 */
static int same_pages(FIXTURE_DATA(prime) *self, uint32_t index,
		      unsigned char *map, uint64_t size, const char *access,
		      char *why, size_t why_size)
{
	static uint64_t address[SG_CAPACITY], length[SG_CAPACITY];
	static unsigned char physical_page[ENPU_PAGE_SIZE];
	struct enpu_job_sg_bo bo = {
		.address = address, .length = length, .capacity = SG_CAPACITY,
	};
	size_t pages = size / ENPU_PAGE_SIZE, page = 0;
	uint64_t total = 0, marker;
	int status;

	status = enpu_last_job_sg(self->debugfs, index, &bo);
	if (status) {
		snprintf(why, why_size, "last_job_sg bo=%u: %s", index,
			 strerror(-status));
		return 0;
	}
	if (bo.size != size || strcmp(bo.access, access) ||
	    bo.listed != bo.segments || bo.segments == 0) {
		snprintf(why, why_size,
			 "bo=%u: size %llu (want %llu), access %s (want %s), %zu of %u segments listed",
			 index, (unsigned long long)bo.size,
			 (unsigned long long)size, bo.access, access,
			 bo.listed, bo.segments);
		return 0;
	}
	for (size_t s = 0; s < bo.listed; s++) {
		total += length[s];
		for (uint64_t at = 0; at < length[s] && page < pages;
		     at += ENPU_PAGE_SIZE, page++) {
			unsigned char *cpu = map + page * ENPU_PAGE_SIZE;
			uint64_t physical = address[s] + at;

			status = enpu_physical_read(physical, physical_page,
						    ENPU_PAGE_SIZE);
			if (!status && memcmp(physical_page, cpu,
					      ENPU_PAGE_SIZE))
				status = -EBADMSG;
			marker = 0x5eed000000000000ull ^ physical ^
				 ((uint64_t)index << 40);
			memcpy(cpu, &marker, sizeof(marker));
			/* Drains write-combining buffers (vgem maps WC). */
			__sync_synchronize();
			if (!status)
				status = enpu_physical_read(physical,
							    physical_page,
							    sizeof(marker));
			if (!status && memcmp(physical_page, &marker,
					      sizeof(marker)))
				status = -ESTALE;
			if (status) {
				snprintf(why, why_size,
					 "bo=%u page %zu at 0x%llx: %s",
					 index, page,
					 (unsigned long long)physical,
					 status == -EBADMSG ?
					 "contents differ from the CPU mapping" :
					 status == -ESTALE ?
					 "a CPU write did not reach it" :
					 strerror(-status));
				return 0;
			}
		}
	}
	if (total < size || page != pages) {
		snprintf(why, why_size,
			 "bo=%u: segments cover %llu bytes, %zu pages",
			 index, (unsigned long long)total, page);
		return 0;
	}
	return 1;
}

TEST_F(prime, export_import_between_two_files_shares_the_bytes)
{
	unsigned char *map, *other_map;
	uint32_t handle, imported;
	struct drm_enpu_bo_info info;
	int other, dmabuf;

	ASSERT_EQ(0, enpu_reopen(self->device, &other));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 5 * 4096, 0, &handle,
					NULL));
	map = enpu_raw_bo_map(self->fd, handle, 5 * 4096);
	ASSERT_NE(NULL, map);
	fill_pattern(map, 5 * 4096, 7);
	ASSERT_EQ(0, enpu_prime_export(self->fd, handle, &dmabuf));
	ASSERT_EQ(0, enpu_prime_import(other, dmabuf, &imported));
	ASSERT_EQ(0, close(dmabuf));
	ASSERT_EQ(0, enpu_raw_bo_info(other, imported, &info));
	EXPECT_EQ(5ULL * 4096, info.size);
	other_map = enpu_raw_bo_map(other, imported, 5 * 4096);
	ASSERT_NE(NULL, other_map);
	EXPECT_EQ((size_t)5 * 4096, first_mismatch(other_map, 5 * 4096, 7));
	/* The importer's device write shows up in the exporter's mapping. */
	ASSERT_EQ(0, fill_range(other, imported, 4096, 4096, 0xab));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, handle, 0, 5 * SECOND));
	for (int i = 4096; i < 8192; i++)
		ASSERT_EQ(0xab, map[i]);
	EXPECT_EQ((size_t)4096, first_mismatch(map, 4096, 7));
	/* Closing the exporter's handle leaves the importer's BO whole. */
	ASSERT_EQ(0, munmap(map, 5 * 4096));
	ASSERT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	EXPECT_EQ(0xab, other_map[4096]);
	EXPECT_EQ(0, enpu_raw_bo_info(other, imported, &info));
	munmap(other_map, 5 * 4096);
	EXPECT_EQ(0, enpu_raw_gem_close(other, imported));
	close(other);
}

TEST_F(prime, self_import_returns_the_same_handle)
{
	uint32_t handle, again, library_handle;
	enpu_bo *bo, *imported;
	int dmabuf;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	ASSERT_EQ(0, enpu_prime_export(self->fd, handle, &dmabuf));
	ASSERT_EQ(0, enpu_prime_import(self->fd, dmabuf, &again));
	EXPECT_EQ(handle, again);
	close(dmabuf);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));

	/* libenpu hands back the BO that owns the handle, counted. */
	ASSERT_EQ(0, enpu_bo_create(self->device, 4096, 0, &bo));
	ASSERT_EQ(0, enpu_bo_export(bo, &dmabuf));
	ASSERT_EQ(0, enpu_bo_import(self->device, dmabuf, &imported));
	EXPECT_EQ(bo, imported);
	ASSERT_EQ(0, close(dmabuf));
	ASSERT_EQ(0, enpu_bo_handle(bo, &library_handle));
	EXPECT_EQ(0, enpu_bo_destroy(imported));
	/* One reference left: the handle is still open. */
	EXPECT_EQ(0, enpu_bo_wait(bo, 0, 0));
	EXPECT_EQ(0, enpu_bo_destroy(bo));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_wait(self->fd, library_handle, 0, 0));
}

TEST_F(prime, exported_fd_is_cloexec_read_write_and_cpu_syncable)
{
	struct dma_buf_sync sync;
	unsigned char *map;
	enpu_bo *bo;
	uint32_t handle;
	int dmabuf;

	ASSERT_EQ(0, enpu_bo_create(self->device, 2 * 4096, 0, &bo));
	ASSERT_EQ(0, enpu_bo_export(bo, &dmabuf));
	EXPECT_TRUE(fcntl(dmabuf, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl(dmabuf, F_GETFL) & O_ACCMODE);
	/* CPU writes through the dma-buf mmap, bracketed by SYNC. */
	map = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf,
		   0);
	ASSERT_NE(MAP_FAILED, map);
	sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	memset(map, 0x11, 2 * 4096);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	/* The device overwrites the second page; the CPU reads it back. */
	ASSERT_EQ(0, enpu_bo_handle(bo, &handle));
	ASSERT_EQ(0, fill_range(self->fd, handle, 4096, 4096, 0x22));
	/* SYNC_START waits for the device's write (implicit fence). */
	sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	for (int i = 0; i < 2 * 4096; i++) {
		ASSERT_EQ(i < 4096 ? 0x11 : 0x22, map[i]) TH_LOG("byte %d", i);
	}
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	munmap(map, 2 * 4096);
	close(dmabuf);
	EXPECT_EQ(0, enpu_bo_destroy(bo));
}

TEST_F(prime, device_only_bo_exports_but_its_dma_buf_cannot_be_mapped)
{
	uint32_t handle;
	void *map;
	int dmabuf;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096,
					DRM_ENPU_BO_DEVICE_ONLY, &handle,
					NULL));
	ASSERT_EQ(0, enpu_prime_export(self->fd, handle, &dmabuf));
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	EXPECT_EQ(MAP_FAILED, map);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	close(dmabuf);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(prime, bad_export_and_import_arguments_fail)
{
	uint32_t handle;
	int dmabuf, pipe_fds[2];

	EXPECT_EQ(-ENOENT, enpu_prime_export(self->fd, 0x7fffffff, &dmabuf));
	ASSERT_EQ(0, pipe(pipe_fds));
	EXPECT_NE(0, enpu_prime_import(self->fd, pipe_fds[0], &handle));
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	EXPECT_EQ(-EBADF, enpu_prime_import(self->fd, 999999, &handle));
}

TEST_F(prime, imported_vgem_buffer_reports_its_size_and_import_flag)
{
	struct drm_enpu_bo_info info;
	uint32_t vgem_handle, handle;
	unsigned char *map;

	ASSERT_EQ(0, vgem_buffer(self, 1, &vgem_handle, &map, &handle));
	ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
	EXPECT_EQ((uint64_t)VGEM_SIZE, info.size);
	EXPECT_NE(0U, info.flags & DRM_ENPU_BO_IMPORTED);
	EXPECT_EQ(0ULL, info.device_addr);
	munmap(map, VGEM_SIZE);
}

TEST_F(prime, vgem_to_enpu_to_vgem_moves_every_byte_with_zero_cpu_copies)
{
	uint32_t in_vgem, out_vgem, in, out, middle;
	unsigned char *in_map, *out_map, *middle_map;
	uint64_t copied_before = 1, copied_after = 1;
	struct drm_enpu_submit_bo bos[3];
	struct {
		struct enpu_cmd_dma_copy to_middle;
		struct enpu_cmd_dma_copy to_out;
	} stream = { copy_command(0, 1, VGEM_SIZE),
		     copy_command(1, 2, VGEM_SIZE) };
	char why[256] = "";

	ASSERT_EQ(0, enpu_cpu_copy_bytes(self->debugfs, &copied_before));
	ASSERT_EQ(0, vgem_buffer(self, 3, &in_vgem, &in_map, &in));
	ASSERT_EQ(0, vgem_buffer(self, 9, &out_vgem, &out_map, &out));
	memset(out_map, 0, VGEM_SIZE);
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, VGEM_SIZE, 0, &middle,
					NULL));
	middle_map = enpu_raw_bo_map(self->fd, middle, VGEM_SIZE);
	ASSERT_NE(NULL, middle_map);
	bos[0] = (struct drm_enpu_submit_bo){ in, DRM_ENPU_SUBMIT_BO_READ };
	bos[1] = (struct drm_enpu_submit_bo){
		middle, DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE };
	bos[2] = (struct drm_enpu_submit_bo){ out, DRM_ENPU_SUBMIT_BO_WRITE };
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 3, &stream,
					    sizeof(stream), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, out, 0, 10 * SECOND));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(out_map, VGEM_SIZE, 3));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(middle_map, VGEM_SIZE, 3));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(in_map, VGEM_SIZE, 3));
	ASSERT_EQ(0, enpu_cpu_copy_bytes(self->debugfs, &copied_after));
	EXPECT_EQ(0ULL, copied_before);
	EXPECT_EQ(0ULL, copied_after);
	/* The device was pointed at the very pages both sides map. */
	EXPECT_TRUE(same_pages(self, 0, in_map, VGEM_SIZE, "r", why,
			       sizeof(why))) TH_LOG("%s", why);
	EXPECT_TRUE(same_pages(self, 1, middle_map, VGEM_SIZE, "rw", why,
			       sizeof(why))) TH_LOG("%s", why);
	EXPECT_TRUE(same_pages(self, 2, out_map, VGEM_SIZE, "w", why,
			       sizeof(why))) TH_LOG("%s", why);
	munmap(in_map, VGEM_SIZE);
	munmap(out_map, VGEM_SIZE);
	munmap(middle_map, VGEM_SIZE);
}

TEST_F(prime, imported_bo_outlives_the_exporters_handle_fd_and_file)
{
	struct drm_enpu_submit_bo bos[2];
	struct enpu_cmd_dma_copy copy = copy_command(0, 1, VGEM_SIZE);
	uint32_t vgem_handle, imported, dst;
	unsigned char *map, *dst_map;

	ASSERT_EQ(0, vgem_buffer(self, 5, &vgem_handle, &map, &imported));
	munmap(map, VGEM_SIZE);
	ASSERT_EQ(0, enpu_raw_gem_close(self->vgem, vgem_handle));
	ASSERT_EQ(0, close(self->vgem));
	self->vgem = -1;
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, VGEM_SIZE, 0, &dst, NULL));
	dst_map = enpu_raw_bo_map(self->fd, dst, VGEM_SIZE);
	ASSERT_NE(NULL, dst_map);
	bos[0] = (struct drm_enpu_submit_bo){ imported,
					      DRM_ENPU_SUBMIT_BO_READ };
	bos[1] = (struct drm_enpu_submit_bo){ dst, DRM_ENPU_SUBMIT_BO_WRITE };
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &copy,
					    sizeof(copy), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, dst, 0, 10 * SECOND));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(dst_map, VGEM_SIZE, 5));
	munmap(dst_map, VGEM_SIZE);
}

static int poll_in(int fd)
{
	struct pollfd poller = { .fd = fd, .events = POLLIN };

	if (poll(&poller, 1, 0) < 0)
		return -errno;
	return poller.revents & POLLIN ? 1 : 0;
}

TEST_F(prime, vgem_write_fence_holds_the_job_until_signalled)
{
	struct drm_enpu_submit_bo bos[2];
	struct enpu_cmd_dma_copy copy = copy_command(0, 1, VGEM_SIZE);
	uint32_t vgem_handle, src, dst, fence, syncobj;
	unsigned char *map, *dst_map;
	int dst_dmabuf, sync_file;

	ASSERT_EQ(0, vgem_buffer(self, 11, &vgem_handle, &map, &src));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, VGEM_SIZE, 0, &dst, NULL));
	dst_map = enpu_raw_bo_map(self->fd, dst, VGEM_SIZE);
	ASSERT_NE(NULL, dst_map);
	ASSERT_EQ(0, enpu_prime_export(self->fd, dst, &dst_dmabuf));
	EXPECT_EQ(1, poll_in(dst_dmabuf));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, vgem_fence_attach(self->vgem, vgem_handle, 1, &fence));

	bos[0] = (struct drm_enpu_submit_bo){ src, DRM_ENPU_SUBMIT_BO_READ };
	bos[1] = (struct drm_enpu_submit_bo){ dst, DRM_ENPU_SUBMIT_BO_WRITE };
	/* Submit does not block on the fence; the job does. */
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &copy,
					    sizeof(copy), 0, syncobj));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(self->fd, syncobj, &sync_file));
	enpu_sleep_ms(300);
	for (int i = 0; i < VGEM_SIZE; i++) {
		ASSERT_EQ(0, dst_map[i]) TH_LOG("written early at %d", i);
	}
	EXPECT_EQ(-ETIME, enpu_raw_bo_wait(self->fd, dst, 0,
					   50 * MILLISECOND));
	EXPECT_EQ(-ETIME, enpu_raw_bo_wait(self->fd, dst,
					   DRM_ENPU_WAIT_ABSOLUTE,
					   enpu_now_ns() + 20 * MILLISECOND));
	/* The foreign fence is visible through the importer's BO_WAIT. */
	EXPECT_EQ(-ETIME, enpu_raw_bo_wait(self->fd, src,
					   DRM_ENPU_WAIT_WRITERS_ONLY, 0));
	EXPECT_EQ(0, poll_in(dst_dmabuf));
	EXPECT_EQ(0, poll_in(sync_file));

	ASSERT_EQ(0, vgem_fence_signal(self->vgem, fence));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, dst, 0, 10 * SECOND));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(dst_map, VGEM_SIZE, 11));
	EXPECT_EQ(1, poll_in(dst_dmabuf));
	EXPECT_EQ(1, poll_in(sync_file));
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1, 0, 0, NULL));
	close(sync_file);
	close(dst_dmabuf);
	drmSyncobjDestroy(self->fd, syncobj);
	munmap(map, VGEM_SIZE);
	munmap(dst_map, VGEM_SIZE);
}

TEST_F(prime, no_implicit_flag_does_not_wait_for_the_vgem_fence)
{
	struct drm_enpu_submit_bo bos[2];
	struct enpu_cmd_dma_copy copy = copy_command(0, 1, VGEM_SIZE);
	uint32_t vgem_handle, src, dst, fence;
	unsigned char *map, *dst_map;

	ASSERT_EQ(0, vgem_buffer(self, 13, &vgem_handle, &map, &src));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, VGEM_SIZE, 0, &dst, NULL));
	dst_map = enpu_raw_bo_map(self->fd, dst, VGEM_SIZE);
	ASSERT_NE(NULL, dst_map);
	ASSERT_EQ(0, vgem_fence_attach(self->vgem, vgem_handle, 1, &fence));
	bos[0] = (struct drm_enpu_submit_bo){ src, DRM_ENPU_SUBMIT_BO_READ };
	bos[1] = (struct drm_enpu_submit_bo){ dst, DRM_ENPU_SUBMIT_BO_WRITE };
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &copy,
					    sizeof(copy),
					    DRM_ENPU_SUBMIT_NO_IMPLICIT, 0));
	/* Done well before the vgem fence's own 10 s expiry. */
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, dst, 0, 5 * SECOND));
	EXPECT_EQ((size_t)VGEM_SIZE, first_mismatch(dst_map, VGEM_SIZE, 13));
	EXPECT_EQ(0, vgem_fence_signal(self->vgem, fence));
	munmap(map, VGEM_SIZE);
	munmap(dst_map, VGEM_SIZE);
}

/* Waits (a job's references drop in a worker) for the dma-buf count. */
static long settle_dmabuf_count(long expected)
{
	long count = -1;

	for (int i = 0; i < 100; i++) {
		if (enpu_dmabuf_count(&count))
			return -1;
		if (count == expected)
			break;
		enpu_sleep_ms(20);
	}
	return count;
}

enum close_step {
	CLOSE_ENPU_HANDLE,
	CLOSE_DMABUF_FD,
	CLOSE_VGEM_HANDLE,
	CLOSE_ENPU_FD,
	CLOSE_VGEM_FD,
	CLOSE_STEPS,
};

static const char *const close_step_names[] = {
	"enpu-handle", "dmabuf-fd", "vgem-handle", "enpu-fd", "vgem-fd",
};

/* Permutation number n of CLOSE_STEPS steps (factorial numbering). */
static void permutation(unsigned int n, int *order)
{
	int left[CLOSE_STEPS];
	int count = CLOSE_STEPS;

	for (int i = 0; i < CLOSE_STEPS; i++)
		left[i] = i;
	for (int i = 0; i < CLOSE_STEPS; i++) {
		int pick = (int)(n % (unsigned int)count);

		n /= (unsigned int)count;
		order[i] = left[pick];
		memmove(left + pick, left + pick + 1,
			(size_t)(count - pick - 1) * sizeof(int));
		count--;
	}
}

/*
 * 120 rounds of a file, a vgem buffer, a job and five closes: more than
 * the harness's default 30 s on the debug kernel of a loaded machine
 * (check-debug at load 19), so a bound that only a hang reaches.
 */
TEST_F_TIMEOUT(prime, closing_importer_and_exporter_in_every_order_leaks_nothing,
	       300)
{
	const size_t size = 64 * 1024;
	long baseline = -1;

	ASSERT_EQ(0, enpu_dmabuf_count(&baseline));
	for (unsigned int n = 0; n < 120; n++) {
		struct enpu_cmd_dma_copy copy = copy_command(0, 1, size);
		struct drm_enpu_submit_bo bos[2];
		uint32_t vgem_handle, imported, dst;
		int enpu_fd, vgem_fd, dmabuf, order[CLOSE_STEPS];
		int enpu_open = 1, vgem_open_now = 1;
		unsigned char *map;
		uint64_t vgem_size;
		char sequence[128] = "";

		permutation(n, order);
		for (int i = 0; i < CLOSE_STEPS; i++) {
			strcat(sequence, close_step_names[order[i]]);
			strcat(sequence, i + 1 < CLOSE_STEPS ? "," : "");
		}
		ASSERT_EQ(0, enpu_reopen(self->device, &enpu_fd));
		vgem_fd = open(self->vgem_path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, vgem_fd);
		ASSERT_EQ(0, vgem_create(vgem_fd, size, &vgem_handle,
					 &vgem_size));
		map = vgem_map(vgem_fd, vgem_handle, size);
		ASSERT_NE(NULL, map);
		fill_pattern(map, size, n);
		ASSERT_EQ(0, munmap(map, size));
		ASSERT_EQ(0, enpu_prime_export(vgem_fd, vgem_handle, &dmabuf));
		ASSERT_EQ(0, enpu_prime_import(enpu_fd, dmabuf, &imported));
		/* Use the import in a job, so it was mapped for the device. */
		ASSERT_EQ(0, enpu_raw_bo_create(enpu_fd, size, 0, &dst, NULL));
		map = enpu_raw_bo_map(enpu_fd, dst, size);
		ASSERT_NE(NULL, map);
		bos[0] = (struct drm_enpu_submit_bo){
			imported, DRM_ENPU_SUBMIT_BO_READ };
		bos[1] = (struct drm_enpu_submit_bo){
			dst, DRM_ENPU_SUBMIT_BO_WRITE };
		ASSERT_EQ(0, enpu_raw_submit_simple(enpu_fd, bos, 2, &copy,
						    sizeof(copy), 0, 0));
		ASSERT_EQ(0, enpu_raw_bo_wait(enpu_fd, dst, 0, 10 * SECOND));
		ASSERT_EQ(size, first_mismatch(map, size, n))
			TH_LOG("order %s", sequence);
		ASSERT_EQ(0, munmap(map, size));
		ASSERT_EQ(0, enpu_raw_gem_close(enpu_fd, dst));

		for (int i = 0; i < CLOSE_STEPS; i++) {
			int status = 0;

			switch (order[i]) {
			case CLOSE_ENPU_HANDLE:
				/* A closed file already dropped its handles. */
				if (enpu_open)
					status = enpu_raw_gem_close(enpu_fd,
								    imported);
				break;
			case CLOSE_DMABUF_FD:
				status = close(dmabuf) ? -errno : 0;
				break;
			case CLOSE_VGEM_HANDLE:
				if (vgem_open_now)
					status = enpu_raw_gem_close(vgem_fd,
								    vgem_handle);
				break;
			case CLOSE_ENPU_FD:
				status = close(enpu_fd) ? -errno : 0;
				enpu_open = 0;
				break;
			case CLOSE_VGEM_FD:
				status = close(vgem_fd) ? -errno : 0;
				vgem_open_now = 0;
				break;
			}
			ASSERT_EQ(0, status)
				TH_LOG("order %s, step %s", sequence,
				       close_step_names[order[i]]);
		}
		ASSERT_EQ(baseline, settle_dmabuf_count(baseline))
			TH_LOG("dma-bufs left after order %s", sequence);
	}
}

TEST_HARNESS_MAIN
