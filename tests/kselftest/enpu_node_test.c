// SPDX-License-Identifier: GPL-2.0
/*
 * The node type per kernel: an accel node (/dev/accel/accelN, class
 * "accel") where the kernel has CONFIG_DRM_ACCEL (6.12, 6.12-rt), a render
 * node otherwise (6.1 and the debug kernel built from it). The expectation
 * comes from two independent places: a table keyed on the kernel the rig
 * booted ($ENPU_VM_KERNEL), and the kernel itself (whether the accel class
 * exists once drm.ko is loaded). libenpu must open the node the driver
 * registered and say which kind it is, and no node of the other kind may
 * lead to the device.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_selftest.h"
#include "kselftest_harness.h"

static const struct {
	const char *kernel;
	const char *node;
} expected_nodes[] = {
	{ "6.1", "render" },
	{ "debug", "render" },
	{ "6.12", "accel" },
	{ "6.12-rt", "accel" },
};

/* The node type the table gives for the booted kernel, or NULL. */
static const char *expected_node(void)
{
	const char *kernel = getenv("ENPU_VM_KERNEL");
	size_t i;

	for (i = 0; kernel && i < sizeof(expected_nodes) / sizeof(expected_nodes[0]); i++)
		if (!strcmp(kernel, expected_nodes[i].kernel))
			return expected_nodes[i].node;
	return NULL;
}

/* Does the path's char device belong to the enpu driver? */
static int node_is_enpu(const char *path)
{
	drmVersionPtr version;
	int fd, is_enpu;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	version = drmGetVersion(fd);
	is_enpu = version && version->name && !strcmp(version->name, "enpu");
	if (version)
		drmFreeVersion(version);
	close(fd);
	return is_enpu;
}

/* ENPU nodes in directory whose names start with prefix. */
static int count_enpu_nodes(const char *directory, const char *prefix)
{
	char path[512];
	struct dirent *entry;
	int count = 0;
	DIR *dir = opendir(directory);

	if (!dir)
		return 0;
	while ((entry = readdir(dir))) {
		if (strncmp(entry->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", directory, entry->d_name);
		count += node_is_enpu(path);
	}
	closedir(dir);
	return count;
}

TEST(the_rig_names_a_known_kernel)
{
	ASSERT_NE(NULL, expected_node())
		TH_LOG("ENPU_VM_KERNEL='%s' is not in the table",
		       getenv("ENPU_VM_KERNEL") ? getenv("ENPU_VM_KERNEL") : "");
}

/* The kernel's own answer: the accel class exists with CONFIG_DRM_ACCEL. */
TEST(the_kernel_agrees_with_the_table)
{
	struct stat st;
	int has_accel = !stat("/sys/class/accel", &st);

	ASSERT_NE(NULL, expected_node());
	EXPECT_EQ(!strcmp(expected_node(), "accel"), has_accel)
		TH_LOG("kernel %s: /sys/class/accel %s", getenv("ENPU_VM_KERNEL"),
		       has_accel ? "exists" : "is missing");
}

TEST(libenpu_opens_the_node_of_the_kernels_type)
{
	const char *path, *type, *want = expected_node();
	enpu_device *device;
	char why[256];

	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_path(device, &path));
	ASSERT_EQ(0, enpu_device_node_type(device, &type));
	EXPECT_STREQ(want, type);
	if (!strcmp(want, "accel")) {
		EXPECT_EQ(0, strncmp(path, "/dev/accel/accel", 16)) TH_LOG("%s", path);
	} else {
		EXPECT_EQ(0, strncmp(path, "/dev/dri/renderD", 16)) TH_LOG("%s", path);
	}
	enpu_device_close(device);
}

/* The node's sysfs class is the one its type implies. */
TEST(the_node_is_in_the_matching_sysfs_class)
{
	char link[128], target[256];
	const char *path, *want = expected_node(), *class_name;
	enpu_device *device;
	struct stat st;
	char why[256];
	ssize_t n;

	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_path(device, &path));
	ASSERT_EQ(0, stat(path, &st));
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	ASSERT_LT(0, n) TH_LOG("%s: %s", link, strerror(errno));
	target[n] = '\0';
	class_name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	EXPECT_STREQ(!strcmp(want, "accel") ? "accel" : "drm", class_name);
	enpu_device_close(device);
}

/* One node for the device: never both kinds. */
TEST(no_node_of_the_other_type_leads_to_the_device)
{
	const char *want = expected_node();
	int accel = count_enpu_nodes("/dev/accel", "accel");
	int render = count_enpu_nodes("/dev/dri", "renderD");

	ASSERT_NE(NULL, want);
	if (!strcmp(want, "accel")) {
		EXPECT_EQ(1, accel);
		EXPECT_EQ(0, render);
		EXPECT_EQ(0, count_enpu_nodes("/dev/dri", "card"));
	} else {
		EXPECT_EQ(0, accel);
		EXPECT_EQ(1, render);
	}
}

TEST(enpu_info_says_which_node_it_opened)
{
	char output[8192], want[64];

	ASSERT_NE(NULL, expected_node());
	EXPECT_EQ(0, enpu_selftest_program_output("enpu-info", sizeof(output),
						  output)) TH_LOG("%s", output);
	snprintf(want, sizeof(want), "  node:            %s\n", expected_node());
	EXPECT_NE(NULL, strstr(output, want)) TH_LOG("%s", output);
}

TEST_HARNESS_MAIN
