// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: struct platform_driver has .remove_new, the void-returning remove
 * callback of the transition period.
 */
#include <linux/platform_device.h>

static void enpu_conftest_remove(struct platform_device *pdev)
{
}

struct platform_driver enpu_conftest_driver = {
	.remove_new = enpu_conftest_remove,
};
