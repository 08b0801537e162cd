// SPDX-License-Identifier: MIT
/* Device discovery over directories that hold no ENPU node. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "unit_test.h"

/* A fake /dev with empty dri/ and accel/ subdirectories. */
struct fake_dev {
	char root[64];
};

static int fake_dev_create(struct fake_dev *dev)
{
	char path[PATH_MAX];

	snprintf(dev->root, sizeof(dev->root), "/tmp/enpu-unit-XXXXXX");
	if (!mkdtemp(dev->root))
		return -1;
	snprintf(path, sizeof(path), "%s/dri", dev->root);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/accel", dev->root);
	return mkdir(path, 0755);
}

static int fake_dev_add_symlink(struct fake_dev *dev, const char *name,
				const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dev->root, name);
	return symlink(target, path);
}

static int fake_dev_add_file(struct fake_dev *dev, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dev->root, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void fake_dev_destroy(struct fake_dev *dev)
{
	static const char *const entries[] = {
		"dri/renderD128", "dri/renderD129", "dri/renderDx",
		"dri/card0", "accel/accel0", "dri", "accel", "",
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dev->root, entries[i]);
		if (remove(path) && errno != ENOENT)
			fprintf(stderr, "cannot remove %s: %s\n", path,
				strerror(errno));
	}
}

static size_t list_count_under(const char *root, int *status)
{
	struct enpu_error error = { "" };
	enpu_device_list *list;
	size_t count = (size_t)-1;

	*status = enpu_device_list_create_under(root, &list, &error);
	if (*status)
		return count;
	enpu_device_list_count(list, &count);
	enpu_device_list_destroy(list);
	return count;
}

static int directory_without_nodes_lists_no_device(void)
{
	struct fake_dev dev;
	size_t count;
	int status;

	CHECK(fake_dev_create(&dev) == 0);
	count = list_count_under(dev.root, &status);
	fake_dev_destroy(&dev);
	CHECK(status == 0);
	CHECK(count == 0);
	return 0;
}

static int directory_without_dri_or_accel_lists_no_device(void)
{
	char root[] = "/tmp/enpu-unit-XXXXXX";
	size_t count;
	int status;

	CHECK(mkdtemp(root));
	count = list_count_under(root, &status);
	rmdir(root);
	CHECK(status == 0);
	CHECK(count == 0);
	return 0;
}

static int non_enpu_nodes_are_not_listed(void)
{
	struct fake_dev dev;
	size_t count;
	int status;

	CHECK(fake_dev_create(&dev) == 0);
	/* Named like nodes, but a char device of another class and files. */
	CHECK(fake_dev_add_symlink(&dev, "dri/renderD128", "/dev/null") == 0);
	CHECK(fake_dev_add_file(&dev, "dri/renderD129") == 0);
	CHECK(fake_dev_add_file(&dev, "dri/renderDx") == 0);
	CHECK(fake_dev_add_symlink(&dev, "dri/card0", "/dev/zero") == 0);
	CHECK(fake_dev_add_symlink(&dev, "accel/accel0", "/dev/null") == 0);
	count = list_count_under(dev.root, &status);
	fake_dev_destroy(&dev);
	CHECK(status == 0);
	CHECK(count == 0);
	return 0;
}

static int missing_directory_fails_naming_it(void)
{
	struct enpu_error error = { "" };
	enpu_device_list *list = NULL;

	CHECK(enpu_device_list_create_under("/nonexistent-enpu-dev", &list,
					    &error) == -ENOENT);
	CHECK(list == NULL);
	CHECK(strstr(error.message, "/nonexistent-enpu-dev") != NULL);
	return 0;
}

static int list_rejects_null_arguments(void)
{
	struct enpu_error error = { "" };
	enpu_device_list *list;
	const char *path;
	size_t count;

	CHECK(enpu_device_list_create_under(NULL, &list, &error) == -EINVAL);
	CHECK(strstr(error.message, "dev_directory") != NULL);
	CHECK(enpu_device_list_create_under("/tmp", NULL, &error) == -EINVAL);
	CHECK(enpu_device_list_create(NULL, NULL) == -EINVAL);
	CHECK(enpu_device_list_count(NULL, &count) == -EINVAL);
	CHECK(enpu_device_list_path(NULL, 0, &path) == -EINVAL);
	CHECK(enpu_device_list_destroy(NULL) == 0);
	return 0;
}

static int index_past_the_end_is_enoent(void)
{
	struct fake_dev dev;
	enpu_device_list *list;
	const char *path = "untouched";
	size_t count = 1;

	CHECK(fake_dev_create(&dev) == 0);
	if (enpu_device_list_create_under(dev.root, &list, NULL)) {
		fake_dev_destroy(&dev);
		CHECK(!"list creation failed");
	}
	fake_dev_destroy(&dev);
	CHECK(enpu_device_list_count(list, &count) == 0);
	CHECK(count == 0);
	CHECK(enpu_device_list_path(list, 0, &path) == -ENOENT);
	CHECK(enpu_device_list_count(list, NULL) == -EINVAL);
	CHECK(enpu_device_list_path(list, 0, NULL) == -EINVAL);
	CHECK(strcmp(path, "untouched") == 0);
	enpu_device_list_destroy(list);
	return 0;
}

static int system_list_is_created_and_destroyed(void)
{
	enpu_device_list *list;
	size_t count;

	/* The host may or may not have ENPUs; only the contract is checked. */
	CHECK(enpu_device_list_create(&list, NULL) == 0);
	CHECK(enpu_device_list_count(list, &count) == 0);
	for (size_t i = 0; i < count; i++) {
		const char *path;

		CHECK(enpu_device_list_path(list, i, &path) == 0);
		CHECK(strncmp(path, "/dev/", 5) == 0);
	}
	CHECK(enpu_device_list_destroy(list) == 0);
	return 0;
}

UNIT_TEST_SUITE(device_list,
	UNIT_TEST(directory_without_nodes_lists_no_device),
	UNIT_TEST(directory_without_dri_or_accel_lists_no_device),
	UNIT_TEST(non_enpu_nodes_are_not_listed),
	UNIT_TEST(missing_directory_fails_naming_it),
	UNIT_TEST(list_rejects_null_arguments),
	UNIT_TEST(index_past_the_end_is_enoent),
	UNIT_TEST(system_list_is_created_and_destroyed));
