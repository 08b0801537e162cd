// SPDX-License-Identifier: GPL-2.0
/*
 * BO_CREATE, BO_INFO, BO_WAIT, mmap and GEM_CLOSE: the happy cycles, page
 * rounding, per-file handles, and every malformed argument's errno; plus
 * libenpu's BO wrappers over them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "enpu_buffers.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

FIXTURE(bo)
{
	enpu_device *device;
	int fd;
};

FIXTURE_SETUP(bo)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
}

FIXTURE_TEARDOWN(bo)
{
	enpu_device_close(self->device);
}

TEST_F(bo, size_is_rounded_up_to_whole_pages)
{
	static const uint64_t sizes[] = { 1, 4095, 4096, 4097, 3 * 4096 + 1,
					  1 << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t expected = (sizes[i] + ENPU_PAGE_SIZE - 1) /
				    ENPU_PAGE_SIZE * ENPU_PAGE_SIZE;
		struct drm_enpu_bo_info info;
		uint64_t size_out = 0;
		uint32_t handle = 0;

		ASSERT_EQ(0, enpu_raw_bo_create(self->fd, sizes[i], 0, &handle,
						&size_out));
		EXPECT_NE(0U, handle);
		EXPECT_EQ(expected, size_out)
			TH_LOG("asked %llu", (unsigned long long)sizes[i]);
		ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
		EXPECT_EQ(expected, info.size);
		EXPECT_EQ(0U, info.flags);
		EXPECT_NE(0ULL, info.mmap_offset);
		/* Scatter-gather, no device MMU: never contiguous here. */
		EXPECT_EQ(0ULL, info.device_addr);
		EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	}
}

TEST_F(bo, create_map_write_read_close_cycles)
{
	for (unsigned int cycle = 0; cycle < 64; cycle++) {
		uint64_t size = (cycle % 8 + 1) * ENPU_PAGE_SIZE - cycle;
		uint32_t flags = cycle % 2 ? DRM_ENPU_BO_WC : 0;
		unsigned char *map;
		uint64_t size_out;
		uint32_t handle;

		ASSERT_EQ(0, enpu_raw_bo_create(self->fd, size, flags, &handle,
						&size_out));
		map = enpu_raw_bo_map(self->fd, handle, size_out);
		ASSERT_NE(NULL, map);
		/* Fresh shmem pages are zero: nothing leaks between BOs. */
		for (uint64_t i = 0; i < size_out; i++) {
			ASSERT_EQ(0, map[i]) TH_LOG("cycle %u byte %llu", cycle,
						    (unsigned long long)i);
		}
		for (uint64_t i = 0; i < size_out; i++)
			map[i] = (unsigned char)(i * 7 + cycle);
		ASSERT_EQ(0, munmap(map, size_out));
		map = enpu_raw_bo_map(self->fd, handle, size_out);
		ASSERT_NE(NULL, map);
		for (uint64_t i = 0; i < size_out; i++)
			ASSERT_EQ((unsigned char)(i * 7 + cycle), map[i]);
		ASSERT_EQ(0, munmap(map, size_out));
		ASSERT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	}
}

TEST_F(bo, zero_size_is_einval)
{
	uint32_t handle;

	EXPECT_EQ(-EINVAL, enpu_raw_bo_create(self->fd, 0, 0, &handle, NULL));
}

TEST_F(bo, absurd_sizes_are_e2big)
{
	struct sysinfo machine;
	uint64_t beyond_memory, limit;
	uint32_t handle;

	ASSERT_EQ(0, sysinfo(&machine));
	beyond_memory = ((uint64_t)machine.totalram + machine.totalswap) *
			machine.mem_unit + ENPU_PAGE_SIZE;
	EXPECT_EQ(-E2BIG, enpu_raw_bo_create(self->fd, UINT64_MAX, 0, &handle,
					     NULL));
	/* Rounding this one up to a page would wrap to 0. */
	EXPECT_EQ(-E2BIG, enpu_raw_bo_create(self->fd, UINT64_MAX - 4095, 0,
					     &handle, NULL));
	EXPECT_EQ(-E2BIG, enpu_raw_bo_create(self->fd, 1ull << 40, 0, &handle,
					     NULL));
	EXPECT_EQ(-E2BIG, enpu_raw_bo_create(self->fd, beyond_memory, 0,
					     &handle, NULL))
		TH_LOG("RAM + swap + a page = %llu bytes",
		       (unsigned long long)beyond_memory);
	/* docs/buffers.md: the limit is min(RAM / 2, 4 GiB), page-aligned. */
	limit = (uint64_t)machine.totalram * machine.mem_unit / 2;
	if (limit > 1ull << 32)
		limit = 1ull << 32;
	limit -= limit % ENPU_PAGE_SIZE;
	EXPECT_EQ(-E2BIG, enpu_raw_bo_create(self->fd, limit + 1, 0, &handle,
					     NULL))
		TH_LOG("limit %llu", (unsigned long long)limit);
}

TEST_F(bo, unknown_create_flags_are_einval)
{
	uint32_t handle;

	for (unsigned int bit = 0; bit < 32; bit++) {
		uint32_t flag = 1u << bit;

		if (flag & DRM_ENPU_BO_CREATE_FLAGS)
			continue;
		/* DRM_ENPU_BO_IMPORTED is reported, never requested. */
		EXPECT_EQ(-EINVAL, enpu_raw_bo_create(self->fd, 4096, flag,
						      &handle, NULL))
			TH_LOG("flag bit %u", bit);
	}
}

TEST_F(bo, create_reserved_nonzero_is_einval)
{
	struct drm_enpu_bo_create argument = { .size = 4096, .reserved = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_BO_CREATE, &argument));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(bo, info_reports_creation_flags)
{
	static const uint32_t flag_sets[] = {
		0, DRM_ENPU_BO_WC, DRM_ENPU_BO_DEVICE_ONLY,
		DRM_ENPU_BO_WC | DRM_ENPU_BO_DEVICE_ONLY,
	};

	for (size_t i = 0; i < 4; i++) {
		struct drm_enpu_bo_info info;
		uint32_t handle;

		ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 8192, flag_sets[i],
						&handle, NULL));
		ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
		EXPECT_EQ(flag_sets[i], info.flags);
		EXPECT_EQ(8192ULL, info.size);
		if (flag_sets[i] & DRM_ENPU_BO_DEVICE_ONLY) {
			EXPECT_EQ(0ULL, info.mmap_offset);
		} else {
			EXPECT_NE(0ULL, info.mmap_offset);
		}
		EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	}
}

TEST_F(bo, info_of_unknown_or_closed_handle_is_enoent)
{
	struct drm_enpu_bo_info info;
	uint32_t handle;

	EXPECT_EQ(-ENOENT, enpu_raw_bo_info(self->fd, 0, &info));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_info(self->fd, 0x7fffffff, &info));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	ASSERT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_info(self->fd, handle, &info));
}

TEST_F(bo, info_reserved_nonzero_is_einval)
{
	struct drm_enpu_bo_info info = { .reserved = 1 };
	uint32_t handle;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	info.handle = handle;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_BO_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(bo, handles_of_another_file_are_enoent_and_cannot_be_closed)
{
	struct drm_enpu_bo_info info;
	unsigned char *map;
	uint32_t handle, other_handle;
	int other;

	ASSERT_EQ(0, enpu_reopen(self->device, &other));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	ASSERT_EQ(0, enpu_raw_bo_create(other, 4096, 0, &other_handle, NULL));
	/* The other file's handle numbering starts over. */
	if (handle != other_handle)
		EXPECT_EQ(-ENOENT, enpu_raw_bo_info(other, handle, &info));
	EXPECT_EQ(0, enpu_raw_gem_close(other, other_handle));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_info(other, handle, &info));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_wait(other, handle, 0, 0));
	EXPECT_NE(0, enpu_raw_gem_close(other, handle));
	/* Still alive and usable in its own file. */
	map = enpu_raw_bo_map(self->fd, handle, 4096);
	ASSERT_NE(NULL, map);
	map[0] = 1;
	munmap(map, 4096);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
	close(other);
}

TEST_F(bo, device_only_bo_cannot_be_mapped)
{
	struct drm_enpu_bo_info info;
	uint32_t handle;
	void *map;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096,
					DRM_ENPU_BO_DEVICE_ONLY, &handle,
					NULL));
	ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
	EXPECT_EQ(0ULL, info.mmap_offset);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		   (off_t)info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, map);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(bo, mapping_more_than_the_bo_fails)
{
	struct drm_enpu_bo_info info;
	uint32_t handle;
	void *map;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
	map = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, self->fd,
		   (off_t)info.mmap_offset);
	EXPECT_EQ(MAP_FAILED, map);
	if (map != MAP_FAILED)
		munmap(map, 2 * 4096);
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(bo, wait_on_idle_bo_returns_at_once)
{
	uint32_t handle;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	EXPECT_EQ(0, enpu_raw_bo_wait(self->fd, handle, 0, 0));
	EXPECT_EQ(0, enpu_raw_bo_wait(self->fd, handle,
				      DRM_ENPU_WAIT_WRITERS_ONLY, 1000000));
	/* An absolute deadline already past still reports idle. */
	EXPECT_EQ(0, enpu_raw_bo_wait(self->fd, handle,
				      DRM_ENPU_WAIT_ABSOLUTE, 1));
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(bo, wait_with_bad_arguments_fails)
{
	uint32_t handle;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, 4096, 0, &handle, NULL));
	EXPECT_EQ(-EINVAL, enpu_raw_bo_wait(self->fd, handle, 1u << 2, 0));
	EXPECT_EQ(-EINVAL, enpu_raw_bo_wait(self->fd, handle, 1u << 31, 0));
	EXPECT_EQ(-EINVAL, enpu_raw_bo_wait(self->fd, handle, 0, -1));
	EXPECT_EQ(-EINVAL, enpu_raw_bo_wait(self->fd, handle,
					    DRM_ENPU_WAIT_ABSOLUTE, -5));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_wait(self->fd, 0, 0, 0));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_wait(self->fd, handle + 1000, 0, 0));
	EXPECT_EQ(0, enpu_raw_gem_close(self->fd, handle));
}

TEST_F(bo, bad_argument_pointers_are_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_BO_CREATE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_BO_INFO, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_BO_WAIT, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(bo, library_bo_maps_once_and_reports_its_size)
{
	enpu_bo *bo;
	void *first, *second;
	uint64_t size;
	uint32_t flags, handle;
	struct drm_enpu_bo_info info;

	ASSERT_EQ(0, enpu_bo_create(self->device, 5000, DRM_ENPU_BO_WC, &bo));
	ASSERT_EQ(0, enpu_bo_size(bo, &size));
	EXPECT_EQ(8192ULL, size);
	ASSERT_EQ(0, enpu_bo_flags(bo, &flags));
	EXPECT_EQ(DRM_ENPU_BO_WC, flags);
	ASSERT_EQ(0, enpu_bo_handle(bo, &handle));
	ASSERT_EQ(0, enpu_raw_bo_info(self->fd, handle, &info));
	ASSERT_EQ(0, enpu_bo_map(bo, &first));
	ASSERT_EQ(0, enpu_bo_map(bo, &second));
	EXPECT_EQ(first, second);
	memset(first, 0x3c, 8192);
	EXPECT_EQ(0, enpu_bo_unmap(bo));
	/* Still mapped once: the memory is reachable. */
	EXPECT_EQ(0x3c, ((unsigned char *)first)[8191]);
	EXPECT_EQ(0, enpu_bo_unmap(bo));
	EXPECT_EQ(-EINVAL, enpu_bo_unmap(bo));
	EXPECT_EQ(0, enpu_bo_wait(bo, 0, 0));
	EXPECT_EQ(0, enpu_bo_destroy(bo));
	EXPECT_EQ(-ENOENT, enpu_raw_bo_info(self->fd, handle, &info));
}

TEST_F(bo, library_refuses_to_map_a_device_only_bo)
{
	const char *message;
	enpu_bo *bo;
	void *address = NULL;

	ASSERT_EQ(0, enpu_bo_create(self->device, 4096,
				    DRM_ENPU_BO_DEVICE_ONLY, &bo));
	EXPECT_EQ(-EPERM, enpu_bo_map(bo, &address));
	EXPECT_EQ(NULL, address);
	ASSERT_EQ(0, enpu_device_last_error(self->device, &message));
	EXPECT_NE(NULL, strstr(message, "device-only")) TH_LOG("%s", message);
	EXPECT_EQ(0, enpu_bo_destroy(bo));
}

TEST_F(bo, library_create_failure_names_the_reason)
{
	const char *message;
	enpu_bo *bo = NULL;

	EXPECT_EQ(-EINVAL, enpu_bo_create(self->device, 0, 0, &bo));
	EXPECT_EQ(NULL, bo);
	ASSERT_EQ(0, enpu_device_last_error(self->device, &message));
	EXPECT_NE(NULL, strstr(message, "BO_CREATE")) TH_LOG("%s", message);
	EXPECT_EQ(-E2BIG, enpu_bo_create(self->device, UINT64_MAX, 0, &bo));
}

/* Lines of /proc/self/maps that map the device node. */
static int count_device_mappings(const char *path)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "re");
	int count = 0;

	if (!maps)
		return -1;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, path))
			count++;
	fclose(maps);
	return count;
}

TEST_F(bo, closing_the_device_unmaps_and_frees_bos_left_open)
{
	const char *device_path;
	char path[256];
	enpu_bo *bo;
	void *address;

	ASSERT_EQ(0, enpu_device_path(self->device, &device_path));
	snprintf(path, sizeof(path), "%s", device_path);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, enpu_bo_create(self->device, 4096, 0, &bo));
		ASSERT_EQ(0, enpu_bo_map(bo, &address));
	}
	EXPECT_EQ(4, count_device_mappings(path));
	enpu_device_close(self->device);
	self->device = NULL;
	EXPECT_EQ(0, count_device_mappings(path));
}

TEST_HARNESS_MAIN
