// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: thermal_zone_device_register_with_trips() without the writable
 * trips mask argument (it went away after 6.1).
 */
#include <linux/thermal.h>

struct thermal_zone_device *enpu_conftest_register(struct thermal_trip *trips,
						   struct thermal_zone_device_ops *ops);

struct thermal_zone_device *enpu_conftest_register(struct thermal_trip *trips,
						   struct thermal_zone_device_ops *ops)
{
	return thermal_zone_device_register_with_trips("probe", trips, 1, NULL,
						       ops, NULL, 0, 0);
}
