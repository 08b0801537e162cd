// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading the driver removes the node; loading it again brings the
 * device back, firmware booted and answering GET_PARAM. Three cycles,
 * since teardown bugs often show only on the second load.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define RELOAD_CYCLES 3
#define NODE_WAIT_MS 10000

FIXTURE(module)
{
};

FIXTURE_SETUP(module)
{
}

FIXTURE_TEARDOWN(module)
{
}

TEST_F_TIMEOUT(module, reload_removes_and_restores_the_device, 300)
{
	struct enpu_facts facts;
	uint64_t device_id = 0;
	char why[256];

	if (geteuid() != 0)
		SKIP(return, "needs root for modprobe");
	ASSERT_EQ(0, enpu_facts_load("fw_version", 5000, &facts, sizeof(why),
				     why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_facts_get(&facts, "device_id", &device_id));

	for (int cycle = 1; cycle <= RELOAD_CYCLES; cycle++) {
		enpu_device *device;
		const char *path;
		char old_path[256];
		uint64_t value = 0;

		ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
			TH_LOG("cycle %d: %s", cycle, why);
		ASSERT_EQ(0, enpu_device_path(device, &path));
		snprintf(old_path, sizeof(old_path), "%s", path);
		enpu_device_close(device);

		ASSERT_EQ(0, enpu_run("modprobe -r enpu"))
			TH_LOG("cycle %d: modprobe -r enpu failed", cycle);
		ASSERT_LE(0, enpu_selftest_wait_devices(0, NODE_WAIT_MS))
			TH_LOG("cycle %d: ENPU still listed after unload",
			       cycle);
		EXPECT_NE(0, access(old_path, F_OK))
			TH_LOG("cycle %d: %s still exists after unload", cycle,
			       old_path);

		ASSERT_EQ(0, enpu_run("modprobe enpu"))
			TH_LOG("cycle %d: modprobe enpu failed", cycle);
		ASSERT_LE(0, enpu_selftest_wait_devices(1, NODE_WAIT_MS))
			TH_LOG("cycle %d: no ENPU after load", cycle);

		ASSERT_EQ(0, enpu_selftest_open(&device, sizeof(why), why))
			TH_LOG("cycle %d: %s", cycle, why);
		EXPECT_EQ(0, enpu_device_get_param(device,
						   DRM_ENPU_PARAM_DEVICE_ID,
						   &value));
		EXPECT_EQ(device_id, value);
		EXPECT_EQ(0, enpu_device_get_param(device,
						   DRM_ENPU_PARAM_FW_VERSION,
						   &value));
		EXPECT_NE((uint64_t)0, value) TH_LOG("cycle %d: no firmware", cycle);
		enpu_device_close(device);
	}
}

TEST_HARNESS_MAIN
