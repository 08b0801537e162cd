// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: thermal_zone_device_priv() returns a zone's devdata (6.4+; the
 * field itself became private).
 */
#include <linux/thermal.h>

void *enpu_conftest_priv(struct thermal_zone_device *tz);

void *enpu_conftest_priv(struct thermal_zone_device *tz)
{
	return thermal_zone_device_priv(tz);
}
