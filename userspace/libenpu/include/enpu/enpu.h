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
#include "enpu_cmd.h"

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
typedef struct enpu_bo enpu_bo;
typedef struct enpu_cmdbuf enpu_cmdbuf;
typedef struct enpu_context enpu_context;
typedef struct enpu_stream enpu_stream;

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
/*
 * Accepts NULL. Closes the DRM fd, which releases every GEM handle and
 * syncobj the device's file still holds, and destroys every enpu_bo still
 * open on the device: their pointers are invalid afterwards (their CPU
 * mappings are unmapped). dma-buf and sync_file fds exported earlier are
 * the caller's and stay valid.
 */
ENPU_PUBLIC int enpu_device_close(enpu_device *device);

/* Message of the last failed call on this device, "" if none failed. */
ENPU_PUBLIC int enpu_device_last_error(const enpu_device *device,
				       const char **message);
ENPU_PUBLIC int enpu_device_path(const enpu_device *device, const char **path);
/*
 * The kind of node the device was opened through: "accel" (/dev/accel/accelN,
 * kernels with CONFIG_DRM_ACCEL), "render" (/dev/dri/renderDN, 6.1) or
 * "primary" (/dev/dri/cardN, opened by path). A static string.
 */
ENPU_PUBLIC int enpu_device_node_type(const enpu_device *device,
				      const char **type);
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

/*
 * Buffer objects (since 0.2; docs/buffers.md has the memory model).
 *
 * Ownership, for every handle and fd:
 *   - An enpu_bo belongs to the caller from enpu_bo_create/enpu_bo_import
 *     until enpu_bo_destroy, and never outlives its device (closing the
 *     device destroys it). It owns one GEM handle of the device's file.
 *   - enpu_bo_handle() lends that GEM handle: valid until the BO is
 *     destroyed; never close it with DRM_IOCTL_GEM_CLOSE yourself.
 *   - enpu_bo_export() returns a new dma-buf fd (O_CLOEXEC | O_RDWR) that
 *     the caller owns and must close(); it keeps the buffer's memory alive
 *     on its own, after the BO and even the device are gone.
 *   - enpu_bo_import() never takes the dma-buf fd: the caller keeps it and
 *     may close it right after the call, since the imported GEM object
 *     holds its own reference to the dma-buf.
 *   - A GEM object has one handle per file, so importing a dma-buf whose
 *     object this file already has a handle for (self-import of a BO
 *     exported from the same device, or the same dma-buf imported twice)
 *     returns the enpu_bo that already owns the handle, with a reference
 *     count: every successful create/import needs its own enpu_bo_destroy,
 *     and the handle is closed by the last one.
 *   - The pointer from enpu_bo_map() is valid until the matching
 *     enpu_bo_unmap() or the BO's destruction.
 *
 * An enpu_bo, like its device, may be used by one thread at a time.
 */

/*
 * Creates a BO of at least size bytes (page-rounded; enpu_bo_size() tells
 * the real size). flags: DRM_ENPU_BO_WC and/or DRM_ENPU_BO_DEVICE_ONLY.
 * The kernel returns -EINVAL for 0 or unknown flags, -E2BIG for sizes the
 * device or machine cannot back.
 */
ENPU_PUBLIC int enpu_bo_create(enpu_device *device, uint64_t size,
			       uint32_t flags, enpu_bo **bo);
/* Drops one reference (see above); the last closes the handle. NULL ok. */
ENPU_PUBLIC int enpu_bo_destroy(enpu_bo *bo);
ENPU_PUBLIC int enpu_bo_size(const enpu_bo *bo, uint64_t *size);
ENPU_PUBLIC int enpu_bo_handle(const enpu_bo *bo, uint32_t *handle);
/* DRM_ENPU_BO_* as BO_INFO reports them (DRM_ENPU_BO_IMPORTED included). */
ENPU_PUBLIC int enpu_bo_flags(const enpu_bo *bo, uint32_t *flags);

/*
 * Maps the whole BO read-write through the DRM fd. Calls nest: each map
 * returns the same address and needs an unmap; the last unmap munmap()s.
 * -EPERM for DRM_ENPU_BO_DEVICE_ONLY BOs. Cached BOs are coherent with the
 * device on this platform; still call enpu_bo_wait() before reading what a
 * job wrote (docs/buffers.md, Coherency).
 */
ENPU_PUBLIC int enpu_bo_map(enpu_bo *bo, void **address);
/* -EINVAL if the BO is not mapped. */
ENPU_PUBLIC int enpu_bo_unmap(enpu_bo *bo);

/* New dma-buf fd for the BO, owned by the caller (O_CLOEXEC | O_RDWR). */
ENPU_PUBLIC int enpu_bo_export(enpu_bo *bo, int *dmabuf_fd);
/* Imports a dma-buf fd as a BO; the caller keeps (and may close) the fd. */
ENPU_PUBLIC int enpu_bo_import(enpu_device *device, int dmabuf_fd,
			       enpu_bo **bo);

/*
 * Waits until every fence on the BO has signalled (flags:
 * DRM_ENPU_WAIT_WRITERS_ONLY to wait for writers only,
 * DRM_ENPU_WAIT_ABSOLUTE for an absolute CLOCK_MONOTONIC timeout_ns).
 * timeout_ns 0 (relative) only polls. -ETIME if it timed out.
 */
ENPU_PUBLIC int enpu_bo_wait(enpu_bo *bo, int64_t timeout_ns, uint32_t flags);

/*
 * Command-stream builder (uapi/enpu_cmd.h). Needs no device. The stream
 * grows as commands are appended, up to ENPU_CMD_MAX_STREAM bytes; an
 * append that would pass it fails with -ENOSPC and leaves the stream as it
 * was. Every append rejects what no BO could make valid (size 0, an
 * offset + size that wraps around 2^64) with -EINVAL; whether a reference
 * fits its BO is checked by the kernel at submit. Failures leave a message
 * for enpu_cmdbuf_last_error().
 */
ENPU_PUBLIC int enpu_cmdbuf_create(enpu_cmdbuf **cmdbuf);
/* Accepts NULL. */
ENPU_PUBLIC int enpu_cmdbuf_destroy(enpu_cmdbuf *cmdbuf);
/* Empties the stream, keeping its memory for reuse. */
ENPU_PUBLIC int enpu_cmdbuf_reset(enpu_cmdbuf *cmdbuf);
ENPU_PUBLIC int enpu_cmdbuf_nop(enpu_cmdbuf *cmdbuf, uint32_t cycles);
/* Device copy of size bytes; BOs are named by their submit-list index. */
ENPU_PUBLIC int enpu_cmdbuf_dma_copy(enpu_cmdbuf *cmdbuf, uint32_t src_index,
				     uint64_t src_offset, uint32_t dst_index,
				     uint64_t dst_offset, uint64_t size);
ENPU_PUBLIC int enpu_cmdbuf_dma_fill(enpu_cmdbuf *cmdbuf, uint32_t dst_index,
				     uint64_t dst_offset, uint64_t size,
				     uint8_t value);
/* The encoded stream, owned by the cmdbuf, valid until its next change. */
ENPU_PUBLIC int enpu_cmdbuf_data(const enpu_cmdbuf *cmdbuf, const void **data,
				 uint32_t *size);
ENPU_PUBLIC int enpu_cmdbuf_last_error(const enpu_cmdbuf *cmdbuf,
				       const char **message);

/*
 * Submission. The BO list names BOs by enpu_bo (of the same device) and
 * the access the job needs; command buffer references use list indices.
 * Syncobjs are plain handles of the device's file (see below). Nothing in
 * the descriptor is kept after enpu_submit() returns. Future fields come
 * with a new symbol version, so zero-initialise the structs.
 */
struct enpu_submit_bo {
	enpu_bo *bo;
	/* DRM_ENPU_SUBMIT_BO_READ and/or DRM_ENPU_SUBMIT_BO_WRITE. */
	uint32_t access;
	uint32_t reserved;
};

struct enpu_submit_fence {
	uint32_t syncobj;
	uint32_t reserved;
	/* Timeline point; 0 for a binary syncobj. */
	uint64_t point;
};

struct enpu_submit_desc {
	const void *commands;
	uint32_t commands_size;
	uint32_t bo_count;
	const struct enpu_submit_bo *bos;
	const struct enpu_submit_fence *in_fences;
	uint32_t in_fence_count;
	/* Receives the job's fence, 0 for none. */
	uint32_t out_syncobj;
	/* DRM_ENPU_SUBMIT_FLAGS. */
	uint32_t flags;
	/*
	 * Since 0.3 (was reserved, must-be-zero, before): the id of a
	 * context of this device (enpu_context_id()), or 0 for the file's
	 * default context. Only a program that created a context, and so
	 * needs libenpu 0.3 to run at all, can put anything but 0 here,
	 * which keeps 0.2 binaries and the 0.2 layout unchanged.
	 */
	uint32_t context;
};

/*
 * Queues one job on desc->context; seqno receives its fence seqno on the
 * context's own timeline. A banned context is -ECANCELED, an
 * unknown one -ENOENT.
 */
ENPU_PUBLIC int enpu_submit(enpu_device *device,
			    const struct enpu_submit_desc *desc,
			    uint64_t *seqno);

/*
 * Stream objects (since 0.6): a command stream handed to the kernel once
 * (driver uapi 1.2, DRM_IOCTL_ENPU_STREAM_CREATE) for jobs that run it
 * again and again. enpu_submit_stream() queues a job of it: desc as for
 * enpu_submit() with commands NULL and commands_size 0; the kernel copies
 * no stream and, for BOs of the same sizes and access as the last job
 * that passed validation, validates none. On an older driver the object
 * holds a copy that is submitted the ordinary way. The commands are
 * copied by enpu_stream_create(); the caller's buffer is free after it.
 * enpu_stream_handle() gives the kernel handle, 0 on an older driver.
 * Destroying a stream with jobs in flight is safe; closing the device
 * destroys the streams left.
 */
ENPU_PUBLIC int enpu_stream_create(enpu_device *device, const void *commands,
				   uint32_t size, enpu_stream **stream);
ENPU_PUBLIC int enpu_stream_destroy(enpu_stream *stream);
ENPU_PUBLIC int enpu_stream_handle(const enpu_stream *stream,
				   uint32_t *handle);
ENPU_PUBLIC int enpu_submit_stream(enpu_device *device,
				   const struct enpu_submit_desc *desc,
				   const enpu_stream *stream, uint64_t *seqno);

/*
 * Syncobjs of the device's file (libdrm drmSyncobj*). The handle belongs
 * to the caller until enpu_syncobj_destroy() or the device's close.
 * enpu_syncobj_export_sync_file() returns a new sync_file fd (pollable,
 * POLLIN once the fence signalled) owned by the caller; it holds the fence
 * the syncobj had at that moment, not later replacements.
 * enpu_syncobj_import_sync_file() does not take the fd: the caller keeps it.
 */
ENPU_PUBLIC int enpu_syncobj_create(enpu_device *device, uint32_t *syncobj);
ENPU_PUBLIC int enpu_syncobj_destroy(enpu_device *device, uint32_t syncobj);
/*
 * Waits for the syncobj's fence, also for one not submitted yet
 * (WAIT_FOR_SUBMIT). timeout_ns and flags as for enpu_bo_wait()
 * (DRM_ENPU_WAIT_ABSOLUTE only). -ETIME if it timed out.
 */
ENPU_PUBLIC int enpu_syncobj_wait(enpu_device *device, uint32_t syncobj,
				  int64_t timeout_ns, uint32_t flags);
ENPU_PUBLIC int enpu_syncobj_export_sync_file(enpu_device *device,
					      uint32_t syncobj,
					      int *sync_file_fd);
ENPU_PUBLIC int enpu_syncobj_import_sync_file(enpu_device *device,
					      uint32_t syncobj,
					      int sync_file_fd);

/*
 * Contexts (since 0.3). A context is a stream of jobs of the device's file
 * with a priority (enum drm_enpu_priority; above NORMAL needs
 * CAP_SYS_NICE, else -EACCES); its jobs complete in submission order and
 * it is what the kernel bans after repeated hangs (its submits then fail
 * with -ECANCELED). Context 0, the file's default, always exists and has
 * no enpu_context object.
 *
 * Ownership: an enpu_context belongs to the caller from
 * enpu_context_create() until enpu_context_destroy(), and never outlives
 * its device: enpu_device_close() destroys the contexts still open (the
 * kernel drops them with the file). Destroying a context does not cancel
 * its submitted jobs; they run and signal their fences.
 */
ENPU_PUBLIC int enpu_context_create(enpu_device *device, uint32_t priority,
				    enpu_context **context);
/* Accepts NULL. */
ENPU_PUBLIC int enpu_context_destroy(enpu_context *context);
/* The id to put in enpu_submit_desc.context (never 0). */
ENPU_PUBLIC int enpu_context_id(const enpu_context *context, uint32_t *id);

/*
 * What DRM_IOCTL_ENPU_CONTEXT_QUERY reports. New fields are only ever
 * appended; pass sizeof(struct enpu_context_info).
 */
struct enpu_context_info {
	uint32_t id;
	/* DRM_ENPU_CONTEXT_BANNED. */
	uint32_t flags;
	uint32_t priority;
	uint32_t hang_count;
	uint64_t submitted;
	uint64_t completed;
};

ENPU_PUBLIC int enpu_context_query(enpu_context *context, size_t info_size,
				   struct enpu_context_info *info);
/* Same for any context id of the device's file, 0 included. */
ENPU_PUBLIC int enpu_device_query_context(enpu_device *device, uint32_t id,
					  size_t info_size,
					  struct enpu_context_info *info);

/*
 * Job status (since 0.3). A job's fence signals once, carrying 0 or a
 * negative errno (table in uapi/enpu_accel.h: -EINVAL invalid at run time,
 * -EFAULT device fault, -ETIMEDOUT hang, -ECANCELED aborted, -ENODEV
 * device gone).
 *
 * enpu_job_status() reads the fence the out-syncobj holds now. If the
 * fence signalled it returns 0 and stores the job's status in
 * *job_status; if not, it returns -EBUSY and leaves *job_status alone. A
 * syncobj without a fence is -EINVAL.
 *
 * enpu_job_wait() waits up to timeout_ns (relative, or absolute
 * CLOCK_MONOTONIC with DRM_ENPU_WAIT_ABSOLUTE) for the out-syncobj's
 * fence, then reads its status as above; -ETIME if it did not signal in
 * time. The syncobj stays the caller's in both.
 *
 * On a driver of uapi 1.1 or later both take one DRM_IOCTL_ENPU_JOB_WAIT
 * and no file descriptor. Otherwise (a 1.0 driver, or a syncobj not yet
 * given a fence, which enpu_job_wait() waits for) they export the fence
 * as a temporary sync_file, ask SYNC_IOC_FILE_INFO and close it again;
 * the caller owns nothing new either way.
 *
 * enpu_sync_file_status() does the same for a sync_file fd the caller
 * holds (from enpu_syncobj_export_sync_file() or another driver); the fd
 * is only read, never closed.
 */
ENPU_PUBLIC int enpu_job_status(enpu_device *device, uint32_t out_syncobj,
				int *job_status);
ENPU_PUBLIC int enpu_job_wait(enpu_device *device, uint32_t out_syncobj,
			      int64_t timeout_ns, uint32_t flags,
			      int *job_status);
ENPU_PUBLIC int enpu_sync_file_status(int sync_file_fd, int *job_status,
				      struct enpu_error *error);

/*
 * Layer commands (since 0.3) for the command-stream builder. The argument
 * structs mirror uapi/enpu_cmd.h field for field, without headers and
 * reserved fields, which the builder writes as zero; they are plain data
 * any runtime can fill. The builder encodes what it is given: the kernel
 * validates shapes, ranges and references at submit (-EINVAL), so the
 * appends check only their pointers.
 */

/* A byte offset inside the BO at bo_index of the submit's list. */
struct enpu_layer_ref {
	/* ENPU_BUF_NONE for an absent optional operand. */
	uint32_t bo_index;
	uint32_t pad;		/* ignored */
	uint64_t offset;
};

/* struct enpu_tensor_desc: an NHWC tensor inside a BO. */
struct enpu_layer_tensor {
	struct enpu_layer_ref buf;
	uint32_t batch;
	uint32_t height;
	uint32_t width;
	uint32_t channels;
	/* Elements from one pixel to the next; 0 means channels. */
	uint32_t pixel_stride;
	/* enum enpu_dtype. */
	uint32_t dtype;
	int32_t zero_point;
	uint32_t pad;		/* ignored */
};

/* struct enpu_requant_desc. */
struct enpu_layer_requant {
	/* bo_index ENPU_BUF_NONE: per tensor, multiplier/shift below. */
	struct enpu_layer_ref per_channel;
	int32_t multiplier;
	int32_t shift;
	int32_t min;
	int32_t max;
};

/* struct enpu_cmd_conv2d (CONV2D and DEPTHWISE_CONV2D). */
struct enpu_conv2d_layer {
	struct enpu_layer_tensor input;
	struct enpu_layer_tensor output;
	struct enpu_layer_ref weights;
	struct enpu_layer_ref bias;
	struct enpu_layer_requant requant;
	uint32_t kernel_height;
	uint32_t kernel_width;
	uint32_t stride_height;
	uint32_t stride_width;
	uint32_t dilation_height;
	uint32_t dilation_width;
	uint32_t pad_top;
	uint32_t pad_left;
	uint32_t pad_bottom;
	uint32_t pad_right;
	uint32_t groups;
	uint32_t pad;		/* ignored */
};

/* struct enpu_cmd_fc. */
struct enpu_fc_layer {
	struct enpu_layer_tensor input;
	struct enpu_layer_tensor output;
	struct enpu_layer_ref weights;
	struct enpu_layer_ref bias;
	struct enpu_layer_requant requant;
};

/* struct enpu_cmd_eltwise for ADD. */
struct enpu_add_layer {
	struct enpu_layer_tensor a;
	struct enpu_layer_tensor b;
	struct enpu_layer_tensor output;
	int32_t a_multiplier;
	int32_t b_multiplier;
	int32_t shift;		/* add_shift */
	int32_t min;
	int32_t max;
	uint32_t pad;		/* ignored */
};

/* struct enpu_cmd_eltwise for MUL. */
struct enpu_mul_layer {
	struct enpu_layer_tensor a;
	struct enpu_layer_tensor b;
	struct enpu_layer_tensor output;
	int32_t left_shift;
	int32_t multiplier;
	int32_t shift;
	int32_t min;
	int32_t max;
	uint32_t pad;		/* ignored */
};

/* struct enpu_cmd_pool (MAX_POOL and AVG_POOL). */
struct enpu_pool_layer {
	struct enpu_layer_tensor input;
	struct enpu_layer_tensor output;
	/* AVG_POOL per-window-size table, or ENPU_BUF_NONE. */
	struct enpu_layer_ref params;
	uint32_t kernel_height;
	uint32_t kernel_width;
	uint32_t stride_height;
	uint32_t stride_width;
	uint32_t dilation_height;
	uint32_t dilation_width;
	uint32_t pad_top;
	uint32_t pad_left;
	uint32_t pad_bottom;
	uint32_t pad_right;
	/* ENPU_POOL_*. */
	uint32_t flags;
	int32_t multiplier;
	int32_t shift;
	int32_t left_shift;
	int32_t min;
	int32_t max;
};

ENPU_PUBLIC int enpu_cmdbuf_conv2d(enpu_cmdbuf *cmdbuf,
				   const struct enpu_conv2d_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_depthwise_conv2d(enpu_cmdbuf *cmdbuf,
					     const struct enpu_conv2d_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_fully_connected(enpu_cmdbuf *cmdbuf,
					    const struct enpu_fc_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_add(enpu_cmdbuf *cmdbuf,
				const struct enpu_add_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_mul(enpu_cmdbuf *cmdbuf,
				const struct enpu_mul_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_max_pool(enpu_cmdbuf *cmdbuf,
				     const struct enpu_pool_layer *layer);
ENPU_PUBLIC int enpu_cmdbuf_avg_pool(enpu_cmdbuf *cmdbuf,
				     const struct enpu_pool_layer *layer);
/* COPY: output = input element by element (concat, layout moves). */
ENPU_PUBLIC int enpu_cmdbuf_copy(enpu_cmdbuf *cmdbuf,
				 const struct enpu_layer_tensor *input,
				 const struct enpu_layer_tensor *output);

/*
 * struct enpu_cmd_quantize (since 0.5; hardware interface 1.6, so check
 * DRM_ENPU_PARAM_HW_VERSION first): float32 input, 8-bit output whose
 * zero point is the quantization's, out = saturate(rint(x / scale) + zp).
 */
struct enpu_quantize_layer {
	struct enpu_layer_tensor input;
	struct enpu_layer_tensor output;
	float scale;
	uint32_t pad;		/* ignored */
};

ENPU_PUBLIC int enpu_cmdbuf_quantize(enpu_cmdbuf *cmdbuf,
				     const struct enpu_quantize_layer *layer);

/*
 * struct enpu_cmd_dequantize (since 0.7; hardware interface 1.7, so check
 * DRM_ENPU_PARAM_HW_VERSION first): 8-bit input whose zero point is the
 * quantization's, float32 output, out = (x - zp) * scale.
 */
struct enpu_dequantize_layer {
	struct enpu_layer_tensor input;
	struct enpu_layer_tensor output;
	float scale;
	uint32_t pad;		/* ignored */
};

ENPU_PUBLIC int enpu_cmdbuf_dequantize(enpu_cmdbuf *cmdbuf,
				       const struct enpu_dequantize_layer *layer);

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_ENPU_H */
