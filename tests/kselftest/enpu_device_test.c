// SPDX-License-Identifier: GPL-2.0
/* The ENPU shows up as one device node driven by "enpu". */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <xf86drm.h>

#include "enpu_selftest.h"
#include "kselftest_harness.h"

TEST(exactly_one_enpu_device_is_listed)
{
	ASSERT_EQ(1, enpu_selftest_count_devices());
}

TEST(device_node_reports_driver_name_enpu)
{
	enpu_device *device;
	drmVersionPtr version;
	char why[256];
	int fd;

	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(device, &fd));
	version = drmGetVersion(fd);
	ASSERT_NE(NULL, version);
	EXPECT_STREQ("enpu", version->name);
	drmFreeVersion(version);
	enpu_device_close(device);
}

TEST(driver_version_string_names_the_driver)
{
	const char *version;
	enpu_device *device;
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_driver_version(device, &version));
	EXPECT_EQ(0, strncmp(version, "enpu ", 5)) TH_LOG("'%s'", version);
	enpu_device_close(device);
}

TEST(node_of_another_driver_is_refused)
{
	struct enpu_error error = { "" };
	enpu_device *device = NULL;

	EXPECT_EQ(-ENODEV, enpu_device_open_path("/dev/null", &device,
						 &error));
	EXPECT_EQ(NULL, device);
	EXPECT_NE(NULL, strstr(error.message, "/dev/null"));
}

TEST(enpu_info_prints_the_device)
{
	char output[8192];

	EXPECT_EQ(0, enpu_selftest_program_output("enpu-info", sizeof(output),
						  output)) TH_LOG("%s", output);
	EXPECT_NE(NULL, strstr(output, "device 0: /dev/"));
	EXPECT_NE(NULL, strstr(output, "firmware:"));
	EXPECT_NE(NULL, strstr(output, " MHz"));
	EXPECT_NE(NULL, strstr(output, " °C"));
}

TEST_HARNESS_MAIN
