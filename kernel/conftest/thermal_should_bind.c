// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: thermal zones bind cooling devices through .should_bind (6.12+)
 * instead of .bind/.unbind.
 */
#include <linux/thermal.h>

static bool enpu_conftest_should_bind(struct thermal_zone_device *tz,
				      const struct thermal_trip *trip,
				      struct thermal_cooling_device *cdev,
				      struct cooling_spec *spec)
{
	return false;
}

struct thermal_zone_device_ops enpu_conftest_ops = {
	.should_bind = enpu_conftest_should_bind,
};
