// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_internal.h"

int enpu_device_open_path(const char *path, enpu_device **device_out,
			  struct enpu_error *error)
{
	enpu_device *device;
	int status;

	if (!path)
		return enpu_fail(error, -EINVAL,
				 "enpu_device_open_path: path is NULL");
	if (!device_out)
		return enpu_fail(error, -EINVAL,
				 "enpu_device_open_path: device is NULL (opening %s)",
				 path);
	device = calloc(1, sizeof(*device));
	if (!device)
		return enpu_fail(error, -ENOMEM, "out of memory opening %s",
				 path);
	device->path = strdup(path);
	if (!device->path) {
		free(device);
		return enpu_fail(error, -ENOMEM, "out of memory opening %s",
				 path);
	}
	status = enpu_node_open(path, sizeof(device->driver_version),
				device->driver_version, &device->node_type,
				&device->fd, error);
	if (status) {
		free(device->path);
		free(device);
		return status;
	}
	*device_out = device;
	return 0;
}

int enpu_device_open_index(size_t index, enpu_device **device,
			   struct enpu_error *error)
{
	enpu_device_list *list;
	const char *path;
	size_t count;
	int status;

	if (!device)
		return enpu_fail(error, -EINVAL,
				 "enpu_device_open_index: device is NULL");
	status = enpu_device_list_create(&list, error);
	if (status)
		return status;
	enpu_device_list_count(list, &count);
	if (count == 0) {
		status = enpu_fail(error, -ENOENT,
				   "no ENPU device found (is the enpu module loaded?)");
	} else if (index >= count) {
		status = enpu_fail(error, -ENOENT,
				   "no ENPU device with index %zu (%zu found)",
				   index, count);
	} else {
		enpu_device_list_path(list, index, &path);
		status = enpu_device_open_path(path, device, error);
	}
	enpu_device_list_destroy(list);
	return status;
}

int enpu_device_close(enpu_device *device)
{
	if (!device)
		return 0;
	enpu_bo_forget_all(device);
	enpu_context_forget_all(device);
	enpu_stream_forget_all(device);
	/*
	 * close() of a DRM fd cannot fail in a way the caller could handle;
	 * it also releases the GEM handles and syncobjs of the file.
	 */
	close(device->fd);
	free(device->path);
	free(device);
	return 0;
}

int enpu_device_last_error(const enpu_device *device, const char **message)
{
	if (!device || !message)
		return -EINVAL;
	*message = device->last_error;
	return 0;
}

int enpu_device_path(const enpu_device *device, const char **path)
{
	if (!device || !path)
		return -EINVAL;
	*path = device->path;
	return 0;
}

int enpu_device_node_type(const enpu_device *device, const char **type)
{
	if (!device || !type)
		return -EINVAL;
	*type = device->node_type;
	return 0;
}

int enpu_device_fd(const enpu_device *device, int *fd)
{
	if (!device || !fd)
		return -EINVAL;
	*fd = device->fd;
	return 0;
}

int enpu_device_driver_version(const enpu_device *device,
			       const char **version)
{
	if (!device || !version)
		return -EINVAL;
	*version = device->driver_version;
	return 0;
}

int enpu_device_get_param(enpu_device *device, uint32_t param,
			  uint64_t *value)
{
	struct drm_enpu_get_param argument = { .param = param };
	const char *name = "unknown";

	if (!device)
		return -EINVAL;
	enpu_param_name(param, &name);
	if (!value)
		return enpu_device_fail(device, -EINVAL,
					"%s: get_param %s: value is NULL",
					device->path, name);
	if (drmIoctl(device->fd, DRM_IOCTL_ENPU_GET_PARAM, &argument))
		return enpu_device_fail(device, -errno,
					"%s: GET_PARAM %s (%u) failed: %s",
					device->path, name, param,
					strerror(errno));
	*value = argument.value;
	return 0;
}

int enpu_device_query_params(enpu_device *device, size_t params_size,
			     struct enpu_device_params *params)
{
	struct enpu_device_params all;
	uint64_t temperature;
	int status;
	const struct {
		uint32_t param;
		uint64_t *value;
	} fields[] = {
		{ DRM_ENPU_PARAM_DEVICE_ID, &all.device_id },
		{ DRM_ENPU_PARAM_HW_VERSION, &all.hw_version },
		{ DRM_ENPU_PARAM_FW_VERSION, &all.fw_version },
		{ DRM_ENPU_PARAM_FW_API_VERSION, &all.fw_api_version },
		{ DRM_ENPU_PARAM_NUM_QUEUES, &all.num_queues },
		{ DRM_ENPU_PARAM_CLOCK_MIN_KHZ, &all.clock_min_khz },
		{ DRM_ENPU_PARAM_CLOCK_MAX_KHZ, &all.clock_max_khz },
		{ DRM_ENPU_PARAM_CLOCK_CUR_KHZ, &all.clock_cur_khz },
		{ DRM_ENPU_PARAM_CAPABILITIES, &all.capabilities },
		{ DRM_ENPU_PARAM_SRAM_SIZE, &all.sram_size },
		{ DRM_ENPU_PARAM_MACS_PER_CYCLE, &all.macs_per_cycle },
		{ DRM_ENPU_PARAM_TEMPERATURE_MC, &temperature },
	};

	if (!device)
		return -EINVAL;
	/* A smaller size is an older caller: it gets the fields it knows. */
	if (!params || params_size == 0 ||
	    params_size % sizeof(uint64_t) ||
	    params_size > sizeof(all))
		return enpu_device_fail(device, -EINVAL,
					"%s: query_params: params is NULL or params_size %zu is not a known struct size",
					device->path, params_size);
	memset(&all, 0, sizeof(all));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		status = enpu_device_get_param(device, fields[i].param,
					       fields[i].value);
		if (status)
			return status;
	}
	/* The kernel carries the signed temperature in a __u64. */
	all.temperature_mc = (int64_t)temperature;
	memcpy(params, &all, params_size);
	return 0;
}
