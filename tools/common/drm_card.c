// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "drm_card.h"

static int driver_is(int fd, const char *driver)
{
	drmVersionPtr version = drmGetVersion(fd);
	int match = version && version->name && !strcmp(version->name, driver);

	drmFreeVersion(version);
	return match;
}

int drm_card_open(const char *driver)
{
	struct dirent *entry;
	int fd = -ENODEV;
	DIR *dri = opendir("/dev/dri");

	if (!dri)
		return -errno;
	while (fd < 0 && (entry = readdir(dri))) {
		char path[300];

		if (strncmp(entry->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", entry->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !driver_is(fd, driver)) {
			close(fd);
			fd = -ENODEV;
		} else if (fd < 0) {
			fd = -ENODEV;
		}
	}
	closedir(dri);
	return fd;
}
