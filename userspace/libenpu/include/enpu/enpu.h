/* SPDX-License-Identifier: MIT */
/*
 * libenpu: the userspace library over the ENPU uapi.
 *
 * Conventions (all functions):
 *   - The return value is a status: 0 on success, a negative errno on
 *     failure (-EINVAL bad argument, -ENOENT no such node or index,
 *     -ENODEV the node is not an ENPU, -ENOMEM, -ENOSPC buffer too small,
 *     or whatever the kernel returned for an ioctl).
 *   - Out-parameters come last. On failure they are left untouched.
 *   - Each _create/_open has exactly one _destroy/_close.
 *   - Functions that can fail before a device object exists take an
 *     optional struct enpu_error out-parameter (may be NULL) that receives
 *     a message naming the object and the reason. Once a device is open,
 *     enpu_device_last_error() returns the message of the last failure on
 *     that device. The library keeps no global mutable state.
 *   - An enpu_device may be used by one thread at a time; different
 *     devices are independent.
 */
#ifndef ENPU_ENPU_H
#define ENPU_ENPU_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_accel.h"

#if defined(__cplusplus)
extern "C" {
#endif

#if defined(__GNUC__)
#define ENPU_PUBLIC __attribute__((visibility("default")))
#else
#define ENPU_PUBLIC
#endif

typedef struct enpu_device enpu_device;
typedef struct enpu_device_list enpu_device_list;

/* Enough for a path and an errno string; longer messages are truncated. */
#define ENPU_ERROR_MESSAGE_SIZE 256

/** struct enpu_error - caller-owned holder of a failure message. */
struct enpu_error {
	char message[ENPU_ERROR_MESSAGE_SIZE];
};

/**
 * struct enpu_device_params - every DRM_ENPU_PARAM_* of one device.
 *
 * Versions are encoded as in uapi/enpu_accel.h; use the enpu_format_*
 * helpers to print them. New fields are only ever appended, and callers
 * pass sizeof(struct enpu_device_params) so that an old binary keeps
 * working with a newer library.
 */
struct enpu_device_params {
	uint64_t device_id;
	uint64_t hw_version;
	uint64_t fw_version;
	uint64_t fw_api_version;
	uint64_t num_queues;
	uint64_t clock_min_khz;
	uint64_t clock_max_khz;
	uint64_t clock_cur_khz;
	uint64_t capabilities;
	uint64_t sram_size;
	uint64_t macs_per_cycle;
	int64_t temperature_mc;
};

/*
 * Device discovery. Nodes are listed in this order: /dev/accel/accel*,
 * then /dev/dri/renderD* whose DRM driver name is "enpu", each group in
 * ascending minor number. Nodes that cannot be opened are skipped.
 */
ENPU_PUBLIC int enpu_device_list_create(enpu_device_list **list,
					struct enpu_error *error);
/* Same, looking under dev_directory instead of /dev (tests, containers). */
ENPU_PUBLIC int enpu_device_list_create_under(const char *dev_directory,
					      enpu_device_list **list,
					      struct enpu_error *error);
ENPU_PUBLIC int enpu_device_list_destroy(enpu_device_list *list);
ENPU_PUBLIC int enpu_device_list_count(const enpu_device_list *list,
				       size_t *count);
/* The path stays valid until the list is destroyed. */
ENPU_PUBLIC int enpu_device_list_path(const enpu_device_list *list,
				      size_t index, const char **path);

/* Opens the index-th device in discovery order; -ENOENT if there is none. */
ENPU_PUBLIC int enpu_device_open_index(size_t index, enpu_device **device,
				       struct enpu_error *error);
/* Opens a node by path; -ENODEV if it is not an ENPU. */
ENPU_PUBLIC int enpu_device_open_path(const char *path, enpu_device **device,
				      struct enpu_error *error);
/* Accepts NULL. */
ENPU_PUBLIC int enpu_device_close(enpu_device *device);

/* Message of the last failed call on this device, "" if none failed. */
ENPU_PUBLIC int enpu_device_last_error(const enpu_device *device,
				       const char **message);
ENPU_PUBLIC int enpu_device_path(const enpu_device *device, const char **path);
/* The DRM file descriptor, owned by the device; for poll() and libdrm. */
ENPU_PUBLIC int enpu_device_fd(const enpu_device *device, int *fd);
/* "enpu X.Y.Z (date)" from DRM_IOCTL_VERSION, owned by the device. */
ENPU_PUBLIC int enpu_device_driver_version(const enpu_device *device,
					   const char **version);

/* One DRM_IOCTL_ENPU_GET_PARAM; param is an enum drm_enpu_param. */
ENPU_PUBLIC int enpu_device_get_param(enpu_device *device, uint32_t param,
				      uint64_t *value);
/* All params; params_size is sizeof(struct enpu_device_params). */
ENPU_PUBLIC int enpu_device_query_params(enpu_device *device,
					 size_t params_size,
					 struct enpu_device_params *params);

/*
 * Formatting helpers. Each writes a NUL-terminated string into buffer and
 * returns -ENOSPC (buffer holding a truncated string) if it did not fit.
 */
/* DRM_ENPU_PARAM_HW_VERSION, major << 16 | minor, as "X.Y". */
ENPU_PUBLIC int enpu_format_hw_version(uint64_t hw_version, size_t size,
				       char *buffer);
/* DRM_ENPU_PARAM_FW_VERSION, major << 16 | minor << 8 | patch, as "X.Y.Z". */
ENPU_PUBLIC int enpu_format_fw_version(uint64_t fw_version, size_t size,
				       char *buffer);
/*
 * DRM_ENPU_CAP_* bits as "preempt,dma-copy,..."; unknown bits as a trailing
 * "0x..." so nothing is hidden; "none" for 0.
 */
ENPU_PUBLIC int enpu_format_capabilities(uint64_t capabilities, size_t size,
					 char *buffer);
/* The param's name as in enum drm_enpu_param, lower case ("device_id"). */
ENPU_PUBLIC int enpu_param_name(uint32_t param, const char **name);

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_ENPU_H */
