// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: struct platform_driver's .remove itself returns void (the probes
 * run with -Werror, so a pointer-type mismatch fails the probe).
 */
#include <linux/platform_device.h>

static void enpu_conftest_remove(struct platform_device *pdev)
{
}

struct platform_driver enpu_conftest_driver = {
	.remove = enpu_conftest_remove,
};
