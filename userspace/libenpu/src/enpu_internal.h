/* SPDX-License-Identifier: MIT */
/* Internal to libenpu: the device object and error-message helpers. */
#ifndef ENPU_INTERNAL_H
#define ENPU_INTERNAL_H

#include <enpu/enpu.h>

/* Longest "enpu X.Y.Z (date)" we keep; the DRM date is 8 characters. */
#define ENPU_DRIVER_VERSION_SIZE 128

struct enpu_device {
	int fd;
	char *path;
	char driver_version[ENPU_DRIVER_VERSION_SIZE];
	char last_error[ENPU_ERROR_MESSAGE_SIZE];
};

/*
 * Writes a formatted message into error (if not NULL) and returns status,
 * so that failure paths read `return enpu_fail(error, -EINVAL, ...)`.
 */
int enpu_fail(struct enpu_error *error, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, for the per-device message. */
int enpu_device_fail(enpu_device *device, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Opens path read-write if and only if it is an ENPU node; on success fills
 * version (may be NULL) with "enpu X.Y.Z (date)".
 */
int enpu_node_open(const char *path, size_t version_size, char *version,
		   int *fd, struct enpu_error *error);

#endif /* ENPU_INTERNAL_H */
