// SPDX-License-Identifier: MIT
/*
 * Built by test-libenpu-install against an installed libenpu through
 * pkg-config only, the way an outside project would: proves the installed
 * headers, library and .pc file are complete.
 */
#include <stdio.h>

#include <enpu/enpu.h>

int main(void)
{
	char version[16], capabilities[64];

	/* The uapi constants come through enpu.h's installed enpu_accel.h. */
	if (enpu_format_fw_version(1 << 16 | 2 << 8 | 3, sizeof(version),
				   version) ||
	    enpu_format_capabilities(DRM_ENPU_CAP_DVFS, sizeof(capabilities),
				     capabilities))
		return 1;
	printf("%s %s\n", version, capabilities);
	return 0;
}
