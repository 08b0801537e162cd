// SPDX-License-Identifier: MIT
/* Opening nodes that are not ENPUs, and device calls without a device. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "unit_test.h"

static int missing_path_is_enoent_naming_the_path(void)
{
	struct enpu_error error = { "" };
	enpu_device *device = NULL;

	CHECK(enpu_device_open_path("/nonexistent/renderD128", &device,
				    &error) == -ENOENT);
	CHECK(device == NULL);
	CHECK(strstr(error.message, "/nonexistent/renderD128") != NULL);
	return 0;
}

static int dev_null_is_enodev_naming_the_path(void)
{
	struct enpu_error error = { "" };
	enpu_device *device = NULL;

	CHECK(enpu_device_open_path("/dev/null", &device, &error) == -ENODEV);
	CHECK(device == NULL);
	CHECK(strstr(error.message, "/dev/null") != NULL);
	CHECK(strstr(error.message, "not an ENPU") != NULL);
	return 0;
}

static int regular_file_is_enodev(void)
{
	char path[] = "/tmp/enpu-unit-file-XXXXXX";
	struct enpu_error error = { "" };
	enpu_device *device = NULL;
	int fd, status;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	status = enpu_device_open_path(path, &device, &error);
	unlink(path);
	CHECK(status == -ENODEV);
	CHECK(device == NULL);
	CHECK(strstr(error.message, path) != NULL);
	CHECK(strstr(error.message, "not a character device") != NULL);
	return 0;
}

static int directory_is_enodev(void)
{
	struct enpu_error error = { "" };
	enpu_device *device = NULL;

	CHECK(enpu_device_open_path("/tmp", &device, &error) == -ENODEV);
	CHECK(device == NULL);
	CHECK(strstr(error.message, "/tmp") != NULL);
	return 0;
}

static int open_without_error_holder_still_fails_cleanly(void)
{
	enpu_device *device = NULL;

	CHECK(enpu_device_open_path("/dev/null", &device, NULL) == -ENODEV);
	CHECK(device == NULL);
	return 0;
}

static int open_rejects_null_arguments(void)
{
	struct enpu_error error = { "" };
	enpu_device *device;

	CHECK(enpu_device_open_path(NULL, &device, &error) == -EINVAL);
	CHECK(strstr(error.message, "path is NULL") != NULL);
	CHECK(enpu_device_open_path("/dev/null", NULL, &error) == -EINVAL);
	CHECK(strstr(error.message, "/dev/null") != NULL);
	CHECK(enpu_device_open_index(0, NULL, &error) == -EINVAL);
	return 0;
}

static int open_index_past_the_last_device_is_enoent(void)
{
	struct enpu_error error = { "" };
	enpu_device *device = NULL;

	CHECK(enpu_device_open_index(SIZE_MAX, &device, &error) == -ENOENT);
	CHECK(device == NULL);
	CHECK(strstr(error.message, "no ENPU device") != NULL);
	return 0;
}

static int device_calls_reject_null_device(void)
{
	struct enpu_device_params params;
	const char *text;
	uint64_t value;
	int fd;

	CHECK(enpu_device_get_param(NULL, DRM_ENPU_PARAM_DEVICE_ID, &value) ==
	      -EINVAL);
	CHECK(enpu_device_query_params(NULL, sizeof(params), &params) ==
	      -EINVAL);
	CHECK(enpu_device_last_error(NULL, &text) == -EINVAL);
	CHECK(enpu_device_path(NULL, &text) == -EINVAL);
	CHECK(enpu_device_fd(NULL, &fd) == -EINVAL);
	CHECK(enpu_device_driver_version(NULL, &text) == -EINVAL);
	CHECK(enpu_device_close(NULL) == 0);
	return 0;
}

UNIT_TEST_SUITE(device_open,
	UNIT_TEST(missing_path_is_enoent_naming_the_path),
	UNIT_TEST(dev_null_is_enodev_naming_the_path),
	UNIT_TEST(regular_file_is_enodev),
	UNIT_TEST(directory_is_enodev),
	UNIT_TEST(open_without_error_holder_still_fails_cleanly),
	UNIT_TEST(open_rejects_null_arguments),
	UNIT_TEST(open_index_past_the_last_device_is_enoent),
	UNIT_TEST(device_calls_reject_null_device));
