// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: a thermal zone's trips are read through .get_trip_type and
 * .get_trip_temp ops (before 6.6; later the core reads the trips array).
 */
#include <linux/thermal.h>

static int enpu_conftest_trip_temp(struct thermal_zone_device *tz, int trip,
				   int *temp)
{
	return 0;
}

struct thermal_zone_device_ops enpu_conftest_ops = {
	.get_trip_temp = enpu_conftest_trip_temp,
};
