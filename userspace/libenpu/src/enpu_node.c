// SPDX-License-Identifier: MIT
/*
 * Deciding whether a device node is an ENPU. Opening an arbitrary character
 * device can have side effects (a watchdog arms itself on open), so the node
 * is first checked through sysfs to belong to the drm or accel class, and
 * only then opened and asked for its DRM driver name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_internal.h"

/*
 * Returns 0 if the char device's sysfs class is drm or accel, or if sysfs
 * cannot tell (not mounted: the DRM_IOCTL_VERSION check still follows);
 * *is_accel says which.
 */
static int check_device_class(const struct stat *st, const char *path,
			      int *is_accel, struct enpu_error *error)
{
	char link_path[64], target[256];
	const char *class_name;
	ssize_t length;

	snprintf(link_path, sizeof(link_path), "/sys/dev/char/%u:%u/subsystem",
		 major(st->st_rdev), minor(st->st_rdev));
	*is_accel = 0;
	length = readlink(link_path, target, sizeof(target) - 1);
	if (length < 0)
		return 0;
	target[length] = '\0';
	class_name = strrchr(target, '/');
	class_name = class_name ? class_name + 1 : target;
	if (strcmp(class_name, "drm") && strcmp(class_name, "accel"))
		return enpu_fail(error, -ENODEV,
				 "%s is not an ENPU: it is a '%s' device, not a DRM or accel node",
				 path, class_name);
	*is_accel = !strcmp(class_name, "accel");
	return 0;
}

/*
 * The accel class has its own major; libdrm 2.4.114 does not know it, so
 * only DRM nodes are asked for their type.
 */
static const char *node_type_of(int fd, int is_accel, const char *path)
{
	if (is_accel || !strncmp(path, "/dev/accel/", 11))
		return "accel";
	switch (drmGetNodeTypeFromFd(fd)) {
	case DRM_NODE_RENDER:
		return "render";
	case DRM_NODE_PRIMARY:
		return "primary";
	default:
		return "unknown";
	}
}

static int identify_driver(int fd, const char *path, size_t version_size,
			   char *version, struct enpu_error *error)
{
	drmVersionPtr drm_version;
	int status = 0;

	errno = 0;
	drm_version = drmGetVersion(fd);
	if (!drm_version) {
		int saved = errno ? errno : ENODEV;

		return enpu_fail(error, -ENODEV,
				 "%s is not an ENPU: not a DRM device (DRM_IOCTL_VERSION: %s)",
				 path, strerror(saved));
	}
	if (!drm_version->name ||
	    strcmp(drm_version->name, ENPU_DRIVER_NAME)) {
		status = enpu_fail(error, -ENODEV,
				   "%s is not an ENPU: its DRM driver is '%s', not '%s'",
				   path,
				   drm_version->name ? drm_version->name : "",
				   ENPU_DRIVER_NAME);
	} else if (version) {
		snprintf(version, version_size, "%s %d.%d.%d (%s)",
			 drm_version->name, drm_version->version_major,
			 drm_version->version_minor,
			 drm_version->version_patchlevel,
			 drm_version->date ? drm_version->date : "no date");
	}
	drmFreeVersion(drm_version);
	return status;
}

int enpu_node_open(const char *path, size_t version_size, char *version,
		   const char **node_type, int *fd_out, struct enpu_error *error)
{
	struct stat before, after;
	int fd, status, is_accel = 0;

	if (stat(path, &before))
		return enpu_fail(error, -errno, "cannot open %s: %s", path,
				 strerror(errno));
	if (!S_ISCHR(before.st_mode))
		return enpu_fail(error, -ENODEV,
				 "%s is not an ENPU: not a character device",
				 path);
	status = check_device_class(&before, path, &is_accel, error);
	if (status)
		return status;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return enpu_fail(error, -errno, "cannot open %s: %s", path,
				 strerror(errno));
	/* The node may have been replaced between stat() and open(). */
	if (fstat(fd, &after) || !S_ISCHR(after.st_mode) ||
	    after.st_rdev != before.st_rdev) {
		close(fd);
		return enpu_fail(error, -EAGAIN,
				 "%s changed while it was being opened", path);
	}
	status = identify_driver(fd, path, version_size, version, error);
	if (status) {
		close(fd);
		return status;
	}
	if (node_type)
		*node_type = node_type_of(fd, is_accel, path);
	*fd_out = fd;
	return 0;
}
