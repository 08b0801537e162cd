// SPDX-License-Identifier: GPL-2.0
/*
 * DRM_IOCTL_ENPU_GET_PARAM: every value is what the device (the vnpu
 * facts file) says, and every malformed request gets its errno.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_selftest.h"
#include "kselftest_harness.h"

/* Not defined by the driver; DRM_COMMAND_END is 0xa0. */
#define ENPU_UNDEFINED_IOCTL_NR 0x3f

FIXTURE(device)
{
	enpu_device *device;
	int fd;
};

FIXTURE_SETUP(device)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
}

FIXTURE_TEARDOWN(device)
{
	enpu_device_close(self->device);
}

static int get_param(int fd, __u32 param, __u32 reserved, __u64 *value)
{
	struct drm_enpu_get_param argument = {
		.param = param,
		.reserved = reserved,
	};

	if (ioctl(fd, DRM_IOCTL_ENPU_GET_PARAM, &argument))
		return -errno;
	*value = argument.value;
	return 0;
}

TEST_F(device, every_param_matches_the_vnpu_facts)
{
	static const struct {
		const char *key;
		__u32 param;
	} checks[] = {
		{ "device_id", DRM_ENPU_PARAM_DEVICE_ID },
		{ "hw_version", DRM_ENPU_PARAM_HW_VERSION },
		{ "fw_version", DRM_ENPU_PARAM_FW_VERSION },
		{ "fw_api_version", DRM_ENPU_PARAM_FW_API_VERSION },
		{ "num_queues", DRM_ENPU_PARAM_NUM_QUEUES },
		{ "clock_min_khz", DRM_ENPU_PARAM_CLOCK_MIN_KHZ },
		{ "clock_max_khz", DRM_ENPU_PARAM_CLOCK_MAX_KHZ },
		{ "caps", DRM_ENPU_PARAM_CAPABILITIES },
		{ "sram_size", DRM_ENPU_PARAM_SRAM_SIZE },
		{ "macs_per_cycle", DRM_ENPU_PARAM_MACS_PER_CYCLE },
	};
	struct enpu_facts facts;
	char why[256];

	ASSERT_EQ(0, enpu_facts_load("fw_version", 5000, &facts, sizeof(why),
				     why))
		TH_LOG("%s", why);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		uint64_t expected = 0;
		__u64 value = 0;

		ASSERT_EQ(0, enpu_facts_get(&facts, checks[i].key, &expected))
			TH_LOG("facts file has no %s", checks[i].key);
		ASSERT_EQ(0, get_param(self->fd, checks[i].param, 0, &value))
			TH_LOG("GET_PARAM %s failed", checks[i].key);
		EXPECT_EQ(expected, value)
			TH_LOG("%s: facts 0x%llx, GET_PARAM 0x%llx",
			       checks[i].key, (unsigned long long)expected,
			       (unsigned long long)value);
	}
}

TEST_F(device, current_clock_is_an_operating_point_within_min_and_max)
{
	__u64 minimum = 0, maximum = 0, current = 0;

	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_CLOCK_MIN_KHZ, 0,
			       &minimum));
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_CLOCK_MAX_KHZ, 0,
			       &maximum));
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_CLOCK_CUR_KHZ, 0,
			       &current));
	EXPECT_LT(0ULL, minimum);
	EXPECT_LE(minimum, current);
	EXPECT_GE(maximum, current);
}

TEST_F(device, temperature_is_plausible)
{
	__u64 value = 0;
	int64_t millicelsius;

	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_TEMPERATURE_MC, 0,
			       &value));
	millicelsius = (int64_t)value;
	/* Ambient is 35 °C in the vnpu; nothing ran hot yet. */
	EXPECT_LE(-40000, millicelsius);
	EXPECT_GE(150000, millicelsius);
}

TEST_F(device, library_query_matches_single_get_params)
{
	struct enpu_device_params params;
	__u64 value = 0;

	ASSERT_EQ(0, enpu_device_query_params(self->device, sizeof(params),
					      &params));
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_DEVICE_ID, 0, &value));
	EXPECT_EQ(value, params.device_id);
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_NUM_QUEUES, 0, &value));
	EXPECT_EQ(value, params.num_queues);
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_FW_VERSION, 0, &value));
	EXPECT_EQ(value, params.fw_version);
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_CAPABILITIES, 0,
			       &value));
	EXPECT_EQ(value, params.capabilities);
}

TEST_F(device, older_caller_params_size_gets_only_its_fields)
{
	struct enpu_device_params params;
	__u64 value = 0;

	memset(&params, 0xa5, sizeof(params));
	/* A caller built when the struct had two fields. */
	ASSERT_EQ(0, enpu_device_query_params(self->device,
					      2 * sizeof(uint64_t), &params));
	ASSERT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_HW_VERSION, 0, &value));
	EXPECT_EQ(value, params.hw_version);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, params.fw_version);
	EXPECT_EQ(-EINVAL, enpu_device_query_params(self->device, 12,
						    &params));
	EXPECT_EQ(-EINVAL, enpu_device_query_params(self->device,
						    sizeof(params) + 8,
						    &params));
	EXPECT_EQ(-EINVAL, enpu_device_query_params(self->device,
						    sizeof(params), NULL));
}

TEST_F(device, unknown_param_is_einval)
{
	static const __u32 unknown[] = {
		DRM_ENPU_PARAM_TEMPERATURE_MC + 1, 0x7fffffff, 0xffffffff,
	};
	__u64 value = 0xdeadbeef;

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		EXPECT_EQ(-EINVAL, get_param(self->fd, unknown[i], 0, &value))
			TH_LOG("param 0x%x", unknown[i]);
	}
}

TEST_F(device, nonzero_reserved_is_einval)
{
	__u64 value = 0;

	EXPECT_EQ(-EINVAL, get_param(self->fd, DRM_ENPU_PARAM_DEVICE_ID, 1,
				     &value));
	EXPECT_EQ(-EINVAL, get_param(self->fd, DRM_ENPU_PARAM_DEVICE_ID,
				     0x80000000, &value));
	/* The same request with reserved zero works: only reserved differs. */
	EXPECT_EQ(0, get_param(self->fd, DRM_ENPU_PARAM_DEVICE_ID, 0, &value));
}

TEST_F(device, undefined_driver_ioctl_is_einval)
{
	struct drm_enpu_get_param argument = { 0 };
	unsigned long request = DRM_IOWR(DRM_COMMAND_BASE +
					 ENPU_UNDEFINED_IOCTL_NR,
					 struct drm_enpu_get_param);

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, request, &argument));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(device, bad_argument_pointer_is_efault)
{
	long page_size = sysconf(_SC_PAGESIZE);
	void *unmapped;

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_GET_PARAM, (void *)8));
	EXPECT_EQ(EFAULT, errno);

	/* An address that was valid and no longer is. */
	unmapped = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	ASSERT_EQ(0, munmap(unmapped, page_size));
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_GET_PARAM, unmapped));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(device, read_only_argument_page_is_efault)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct drm_enpu_get_param *argument;

	/* The kernel can read the request but must fail writing the value. */
	argument = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, argument);
	argument->param = DRM_ENPU_PARAM_DEVICE_ID;
	ASSERT_EQ(0, mprotect(argument, page_size, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_GET_PARAM, argument));
	EXPECT_EQ(EFAULT, errno);
	munmap(argument, page_size);
}

TEST_F(device, library_failure_message_names_param_and_node)
{
	const char *message = "", *path = "";
	uint64_t value = 0;

	EXPECT_EQ(-EINVAL, enpu_device_get_param(self->device, 0x7fffffff,
						 &value));
	ASSERT_EQ(0, enpu_device_last_error(self->device, &message));
	ASSERT_EQ(0, enpu_device_path(self->device, &path));
	EXPECT_NE(NULL, strstr(message, path)) TH_LOG("'%s'", message);
	EXPECT_NE(NULL, strstr(message, "2147483647")) TH_LOG("'%s'", message);

	EXPECT_EQ(-EINVAL, enpu_device_get_param(self->device,
						 DRM_ENPU_PARAM_DEVICE_ID,
						 NULL));
	ASSERT_EQ(0, enpu_device_last_error(self->device, &message));
	EXPECT_NE(NULL, strstr(message, "device_id")) TH_LOG("'%s'", message);
}

TEST_HARNESS_MAIN
