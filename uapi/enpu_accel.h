/* SPDX-License-Identifier: MIT */
/*
 * ENPU accelerator uapi: ioctls and their argument structs.
 *
 * Rules every struct follows: sizes are multiples of 8 bytes, pointers travel
 * as __u64, reserved fields and unknown flags must be zero (the kernel
 * rejects anything else with -EINVAL), so new fields can be added later
 * without breaking old binaries.
 */
#ifndef ENPU_ACCEL_H
#define ENPU_ACCEL_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* The driver name reported by DRM_IOCTL_VERSION. */
#define ENPU_DRIVER_NAME		"enpu"

#define DRM_ENPU_GET_PARAM		0x00

/**
 * enum drm_enpu_param - what DRM_IOCTL_ENPU_GET_PARAM can read
 *
 * @DRM_ENPU_PARAM_DEVICE_ID: PCI device id or DT-provided id of the NPU.
 * @DRM_ENPU_PARAM_HW_VERSION: hardware interface version, major << 16 | minor.
 * @DRM_ENPU_PARAM_FW_VERSION: running firmware, major << 16 | minor << 8 | patch.
 * @DRM_ENPU_PARAM_FW_API_VERSION: firmware API the driver negotiated.
 * @DRM_ENPU_PARAM_NUM_QUEUES: number of hardware submission queues.
 * @DRM_ENPU_PARAM_CLOCK_MIN_KHZ: lowest operating point, kHz.
 * @DRM_ENPU_PARAM_CLOCK_MAX_KHZ: highest operating point, kHz.
 * @DRM_ENPU_PARAM_CLOCK_CUR_KHZ: current operating point, kHz.
 * @DRM_ENPU_PARAM_CAPABILITIES: DRM_ENPU_CAP_* bit mask.
 * @DRM_ENPU_PARAM_SRAM_SIZE: on-chip SRAM in bytes.
 * @DRM_ENPU_PARAM_MACS_PER_CYCLE: int8 multiply-accumulates per clock.
 * @DRM_ENPU_PARAM_TEMPERATURE_MC: NPU temperature in milli-degrees Celsius.
 */
enum drm_enpu_param {
	DRM_ENPU_PARAM_DEVICE_ID = 0,
	DRM_ENPU_PARAM_HW_VERSION = 1,
	DRM_ENPU_PARAM_FW_VERSION = 2,
	DRM_ENPU_PARAM_FW_API_VERSION = 3,
	DRM_ENPU_PARAM_NUM_QUEUES = 4,
	DRM_ENPU_PARAM_CLOCK_MIN_KHZ = 5,
	DRM_ENPU_PARAM_CLOCK_MAX_KHZ = 6,
	DRM_ENPU_PARAM_CLOCK_CUR_KHZ = 7,
	DRM_ENPU_PARAM_CAPABILITIES = 8,
	DRM_ENPU_PARAM_SRAM_SIZE = 9,
	DRM_ENPU_PARAM_MACS_PER_CYCLE = 10,
	DRM_ENPU_PARAM_TEMPERATURE_MC = 11,
};

/* Capability bits reported by DRM_ENPU_PARAM_CAPABILITIES. */
#define DRM_ENPU_CAP_PREEMPT		(1ull << 0)
#define DRM_ENPU_CAP_DMA_COPY		(1ull << 1)
#define DRM_ENPU_CAP_PERF_COUNTERS	(1ull << 2)
#define DRM_ENPU_CAP_THERMAL		(1ull << 3)
#define DRM_ENPU_CAP_DVFS		(1ull << 4)

/**
 * struct drm_enpu_get_param - argument of DRM_IOCTL_ENPU_GET_PARAM
 *
 * @param: in, one of enum drm_enpu_param; anything else is -EINVAL.
 * @reserved: in, must be zero.
 * @value: out, the parameter's value.
 */
struct drm_enpu_get_param {
	__u32 param;
	__u32 reserved;
	__u64 value;
};

#define DRM_IOCTL_ENPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_GET_PARAM, struct drm_enpu_get_param)

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_ACCEL_H */
