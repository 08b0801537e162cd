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
#define DRM_ENPU_BO_CREATE		0x01
#define DRM_ENPU_BO_INFO		0x02
#define DRM_ENPU_BO_WAIT		0x03
#define DRM_ENPU_SUBMIT			0x04
#define DRM_ENPU_CONTEXT_CREATE		0x05
#define DRM_ENPU_CONTEXT_DESTROY	0x06
#define DRM_ENPU_CONTEXT_QUERY		0x07
#define DRM_ENPU_JOB_WAIT		0x08
#define DRM_ENPU_STREAM_CREATE		0x09
#define DRM_ENPU_STREAM_DESTROY		0x0a

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

/*
 * Buffer objects. A BO is a GEM object backed by shmem pages (or by an
 * imported dma-buf's pages); the device reaches it through the scatter-gather
 * table the kernel builds for each job, so BOs need not be contiguous. Pages
 * are pinned only while a job that uses the BO is in flight. Handles are per
 * open file and closed with the generic DRM_IOCTL_GEM_CLOSE; sharing goes
 * through PRIME (DRM_IOCTL_PRIME_HANDLE_TO_FD / FD_TO_HANDLE).
 */

/* CPU mapping is write-combined instead of cached. */
#define DRM_ENPU_BO_WC			(1u << 0)
/*
 * No CPU mapping at all: BO_INFO reports no mmap offset (mmap on the DRM fd
 * fails with EINVAL, as for any unknown offset), and mmap of an exported
 * dma-buf fails with EPERM. Export and device use are allowed.
 */
#define DRM_ENPU_BO_DEVICE_ONLY		(1u << 1)
/*
 * Reported by BO_INFO only: the BO wraps a dma-buf of another device. A
 * dma-buf exported by this device and imported again (in any open file)
 * yields the original BO, with its creation flags and without this bit.
 */
#define DRM_ENPU_BO_IMPORTED		(1u << 31)

#define DRM_ENPU_BO_CREATE_FLAGS	(DRM_ENPU_BO_WC | DRM_ENPU_BO_DEVICE_ONLY)

/**
 * struct drm_enpu_bo_create - argument of DRM_IOCTL_ENPU_BO_CREATE
 *
 * @size: in, bytes; rounded up to the page size. 0 is -EINVAL; more than the
 *        device or the machine can back is -E2BIG (see docs/buffers.md).
 *        The limit is half of RAM, at most 4 GiB, checked before rounding.
 * @flags: in, DRM_ENPU_BO_CREATE_FLAGS; anything else is -EINVAL.
 * @handle: out, the new GEM handle.
 * @reserved: in, must be zero.
 * @size_out: out, the page-rounded size actually allocated.
 */
struct drm_enpu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 reserved;
	__u64 size_out;
};

/**
 * struct drm_enpu_bo_info - argument of DRM_IOCTL_ENPU_BO_INFO
 *
 * @handle: in, a GEM handle of this file; another file's is -ENOENT.
 * @flags: out, creation flags, plus DRM_ENPU_BO_IMPORTED for imports.
 * @size: out, bytes.
 * @mmap_offset: out, fake offset to mmap() on the DRM fd; 0 for
 *               DRM_ENPU_BO_DEVICE_ONLY BOs.
 * @device_addr: out, the address the device uses when the BO is contiguous
 *               in device address space; 0 when it is not, which on the
 *               virtual NPU (scatter-gather, no device MMU) is always.
 * @reserved: in, must be zero.
 */
struct drm_enpu_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u64 mmap_offset;
	__u64 device_addr;
	__u64 reserved;
};

/* timeout_ns is an absolute CLOCK_MONOTONIC time instead of relative. */
#define DRM_ENPU_WAIT_ABSOLUTE		(1u << 0)
/* Wait only for writers (enough before CPU reads); default waits for all. */
#define DRM_ENPU_WAIT_WRITERS_ONLY	(1u << 1)

/**
 * struct drm_enpu_bo_wait - argument of DRM_IOCTL_ENPU_BO_WAIT
 *
 * Waits until the device is done with the BO (every fence in its dma_resv
 * signalled), including fences other drivers attached to an imported
 * dma-buf. Returns 0 when idle, -ETIME when the timeout passed first,
 * -EINTR/-ERESTARTSYS on a signal. A relative timeout of 0 only polls.
 *
 * @handle: in, GEM handle.
 * @flags: in, DRM_ENPU_WAIT_*.
 * @timeout_ns: in, relative nanoseconds, or absolute CLOCK_MONOTONIC
 *              nanoseconds with DRM_ENPU_WAIT_ABSOLUTE; negative is -EINVAL.
 */
struct drm_enpu_bo_wait {
	__u32 handle;
	__u32 flags;
	__s64 timeout_ns;
};

/* The job reads / writes this BO (at least one is required). */
#define DRM_ENPU_SUBMIT_BO_READ		(1u << 0)
#define DRM_ENPU_SUBMIT_BO_WRITE	(1u << 1)

/**
 * struct drm_enpu_submit_bo - one entry of the submit's BO list
 *
 * Command-stream buffer references (struct enpu_buf_ref in enpu_cmd.h)
 * name BOs by their index in this list.
 *
 * @handle: GEM handle of this file.
 * @flags: DRM_ENPU_SUBMIT_BO_READ and/or _WRITE; the validator rejects a
 *         command that writes a BO not marked WRITE or reads one not
 *         marked READ.
 */
struct drm_enpu_submit_bo {
	__u32 handle;
	__u32 flags;
};

/**
 * struct drm_enpu_fence - a syncobj point to wait for
 *
 * @handle: syncobj handle.
 * @flags: must be zero.
 * @point: timeline point; 0 for a binary syncobj.
 */
struct drm_enpu_fence {
	__u32 handle;
	__u32 flags;
	__u64 point;
};

/*
 * Limits of struct drm_enpu_submit; a larger count or stride is -EINVAL.
 * Strides larger than the kernel's struct leave room for new fields; the
 * kernel checks that the unknown tail of each entry is zero, and the
 * stride limit keeps that check short. SUBMIT holds the reservation locks
 * of all its BOs at once, under one ww_acquire_ctx; lockdep counts such
 * nested locks of one class in an 11-bit field (6.1 and 6.12: at most
 * 2047), so more BOs than that would switch lockdep off with a warning.
 * The BO limit stays a power of two below it (the kernel checks the
 * field's width at probe on a lockdep kernel).
 */
#define DRM_ENPU_SUBMIT_MAX_BOS		1024
#define DRM_ENPU_SUBMIT_MAX_IN_FENCES	64
#define DRM_ENPU_SUBMIT_MAX_STRIDE	256

/* Skip implicit sync: don't wait for the BOs' dma_resv fences. */
#define DRM_ENPU_SUBMIT_NO_IMPLICIT	(1u << 0)
/*
 * Since driver version 1.2: the command stream is the stream object
 * @stream (DRM_IOCTL_ENPU_STREAM_CREATE) instead of @commands, which must
 * then be 0 with @commands_size 0 (-EINVAL otherwise).
 */
#define DRM_ENPU_SUBMIT_STREAM		(1u << 1)
#define DRM_ENPU_SUBMIT_FLAGS		(DRM_ENPU_SUBMIT_NO_IMPLICIT | \
					 DRM_ENPU_SUBMIT_STREAM)

/**
 * struct drm_enpu_submit - argument of DRM_IOCTL_ENPU_SUBMIT
 *
 * The kernel copies the command stream into a kernel-only buffer, validates
 * every command against the BO list, and queues the job. The job runs when
 * its in-fences, and (unless DRM_ENPU_SUBMIT_NO_IMPLICIT) the fences already
 * in its BOs' dma_resv, have signalled; its own fence is added to every BO's
 * dma_resv (as a writer for WRITE BOs, a reader otherwise) and, if
 * @out_syncobj is set, replaces that syncobj's fence. Anything invalid is
 * -EINVAL (or -ENOENT for an unknown handle, -EFAULT for a bad pointer) and
 * nothing is queued. A BO listed twice (also under two handles) is
 * -EINVAL. An in-fence syncobj must already hold a fence (or the timeline
 * point must exist): -EINVAL otherwise, there is no wait-for-submit. If an
 * explicit in-fence signals with an error, the job runs no command and its
 * fence carries that error (a chain of jobs fails as a whole). Implicit
 * (dma_resv) fences only order buffer access: their errors are not
 * inherited, so a BO that a failed job touched stays usable (its contents
 * are whatever the failed job left). Otherwise the fence error follows the
 * job-status table below (-EIO for a device answer outside that table).
 * Every job still queued when the device goes away, or still held when
 * recovery has not brought the device back within its hold time
 * (docs/jobs.md), gets -ENODEV.
 *
 * Limits (docs/jobs.md "Limits"; enpu module parameters, changeable by
 * root): a job counts from SUBMIT until its fence signals against its
 * context (max_jobs_per_context), its file (max_jobs_per_file) and the
 * device (max_jobs); one more is -EAGAIN, try again once a job is done.
 * The kernel memory a submit allocates is charged to the submitting
 * task's memory cgroup (-ENOMEM at its limit). A job whose command
 * stream, BO table (32 bytes per BO) and scatter-gather lists (16 bytes
 * per physically contiguous run of a BO's pages) do not fit in one 4 MiB
 * job buffer is -E2BIG.
 *
 * @bos: in, user pointer to @bo_count entries of @bo_stride bytes, each
 *       starting with struct drm_enpu_submit_bo.
 * @commands: in, user pointer to the command stream.
 * @in_fences: in, user pointer to @in_fence_count entries of
 *             @in_fence_stride bytes, each starting with struct drm_enpu_fence.
 * @bo_count: in, number of BOs, at most DRM_ENPU_SUBMIT_MAX_BOS.
 * @bo_stride: in, sizeof(struct drm_enpu_submit_bo) up to
 *             DRM_ENPU_SUBMIT_MAX_STRIDE; larger entries must have their
 *             unknown tail zero.
 * @commands_size: in, bytes, multiple of 8, at most ENPU_CMD_MAX_STREAM.
 * @in_fence_count: in, number of in-fences, at most
 *                  DRM_ENPU_SUBMIT_MAX_IN_FENCES.
 * @in_fence_stride: in, sizeof(struct drm_enpu_fence) up to
 *                   DRM_ENPU_SUBMIT_MAX_STRIDE, unknown tail zero.
 * @out_syncobj: in, syncobj handle to receive the job's fence, or 0.
 * @flags: in, DRM_ENPU_SUBMIT_FLAGS.
 * @context: in, 0 (the per-file default context) or an id from
 *           DRM_IOCTL_ENPU_CONTEXT_CREATE; unknown is -ENOENT, a banned
 *           context -ECANCELED.
 * @seqno: out, the job's fence seqno. Each context has its own fence
 *         context (timeline) whose seqno rises by one per job; its jobs
 *         complete in that order.
 * @stream: in, with DRM_ENPU_SUBMIT_STREAM a stream handle of this file
 *          (unknown is -ENOENT), else 0. Since 1.2; a 1.1 driver took
 *          this word for reserved and refuses a non-zero value.
 * @pad: in, must be zero.
 * @reserved: in, must be zero.
 */
struct drm_enpu_submit {
	__u64 bos;
	__u64 commands;
	__u64 in_fences;
	__u32 bo_count;
	__u32 bo_stride;
	__u32 commands_size;
	__u32 in_fence_count;
	__u32 in_fence_stride;
	__u32 out_syncobj;
	__u32 flags;
	__u32 context;
	__u64 seqno;
	__u32 stream;
	__u32 pad;
	__u64 reserved;
};

/**
 * enum drm_enpu_priority - scheduling priority of a context
 *
 * Above NORMAL requires CAP_SYS_NICE (-EACCES otherwise).
 *
 * @DRM_ENPU_PRIORITY_LOW: background work.
 * @DRM_ENPU_PRIORITY_NORMAL: the default.
 * @DRM_ENPU_PRIORITY_HIGH: interactive work.
 * @DRM_ENPU_PRIORITY_REALTIME: latency-critical work.
 */
enum drm_enpu_priority {
	DRM_ENPU_PRIORITY_LOW = 0,
	DRM_ENPU_PRIORITY_NORMAL = 1,
	DRM_ENPU_PRIORITY_HIGH = 2,
	DRM_ENPU_PRIORITY_REALTIME = 3,
};

/**
 * struct drm_enpu_context_create - argument of DRM_IOCTL_ENPU_CONTEXT_CREATE
 *
 * A context is a stream of jobs of one open file: its jobs complete in
 * submission order, it carries a priority, and it is what gets banned
 * after repeated hangs (docs/jobs.md). Context 0 always exists: the
 * per-file default context, NORMAL priority. Contexts die with the file.
 * A file may hold max_contexts_per_file contexts besides context 0
 * (-EMFILE beyond), the device max_contexts created contexts, each
 * counted until its last job is done (-ENOSPC beyond); both are enpu
 * module parameters (docs/jobs.md "Limits").
 *
 * @priority: in, enum drm_enpu_priority.
 * @flags: in, must be zero.
 * @context: out, the new context id (never 0).
 * @reserved: in, must be zero.
 */
struct drm_enpu_context_create {
	__u32 priority;
	__u32 flags;
	__u32 context;
	__u32 reserved;
};

/**
 * struct drm_enpu_context_destroy - argument of DRM_IOCTL_ENPU_CONTEXT_DESTROY
 *
 * Jobs already handed to the device still run; jobs of the context not
 * yet handed to it are cancelled: their fences signal with -ECANCELED
 * (see the job-status table below). Every fence still signals, in order.
 * Destroying context 0 is -EINVAL; an id this file does not have is
 * -ENOENT. Closing the file does the same to all its contexts.
 *
 * @context: in, a context id of this file.
 * @reserved: in, must be zero.
 */
struct drm_enpu_context_destroy {
	__u32 context;
	__u32 reserved;
};

/* drm_enpu_context_query.flags (out) */
#define DRM_ENPU_CONTEXT_BANNED		(1u << 0)

/**
 * struct drm_enpu_context_query - argument of DRM_IOCTL_ENPU_CONTEXT_QUERY
 *
 * @context: in, a context id of this file (0 included).
 * @flags: out, DRM_ENPU_CONTEXT_BANNED once the context caused too many
 *	hangs; its submits then fail with -ECANCELED.
 * @priority: out.
 * @hang_count: out, hangs this context's jobs caused.
 * @submitted: out, jobs submitted.
 * @completed: out, jobs whose fence signalled (with or without error).
 * @reserved: in, must be zero.
 */
struct drm_enpu_context_query {
	__u32 context;
	__u32 flags;
	__u32 priority;
	__u32 hang_count;
	__u64 submitted;
	__u64 completed;
	__u64 reserved;
};

/*
 * Job status. Every job's fence signals exactly once; a failed job's fence
 * carries an error (read it with SYNC_IOC_FILE_INFO on a sync_file exported
 * from the out-syncobj, or dma_fence status in the kernel):
 *   0            ok
 *   -EINVAL      invalid at run time (the device rejected data the kernel
 *                cannot check, e.g. out-of-range per-channel parameters)
 *   -EFAULT      the device faulted on a buffer access
 *   -ETIMEDOUT   the job hung the device and was killed by the watchdog
 *   -EIO         a reset it did not cause interrupted it after it had
 *                started, and it is not safe to run again (it writes
 *                memory it read earlier, e.g. a layer in place): its
 *                outputs are undefined (docs/jobs.md)
 *   -ECANCELED   aborted: dropped by a reset it did not cause, or its
 *                context was banned or destroyed before it ran
 *   -ENODEV      the device went away, or stayed down past recovery's
 *                hold time
 */

/* The flags DRM_IOCTL_ENPU_JOB_WAIT accepts; anything else is -EINVAL. */
#define DRM_ENPU_JOB_WAIT_FLAGS		DRM_ENPU_WAIT_ABSOLUTE

/**
 * struct drm_enpu_job_wait - argument of DRM_IOCTL_ENPU_JOB_WAIT
 *
 * Since driver version 1.1 (DRM_IOCTL_VERSION; 1.0 answers -EINVAL, as
 * for any ioctl it does not have). Waits for the fence a syncobj holds,
 * normally the out-fence SUBMIT put there, and returns the job's status
 * in the same call: what otherwise takes DRM_IOCTL_SYNCOBJ_WAIT, an
 * export of the fence as a sync_file and SYNC_IOC_FILE_INFO.
 *
 * The fence is the one the syncobj holds when the ioctl starts; a later
 * SUBMIT that replaces it is not waited for. There is no wait-for-submit:
 * a syncobj holding no fence is -EINVAL at once. The wait holds no lock
 * and takes no device reference, so it is bounded by @timeout_ns alone,
 * and every job fence signals (docs/jobs.md), -ENODEV included.
 *
 * Returns 0 once the fence has signalled, with @job_status set; -ETIME
 * if @timeout_ns passed first (a relative 0 or an absolute time in the
 * past only polls), -ERESTARTSYS (seen as -EINTR unless the call is
 * restarted) on a signal; a restarted relative wait starts its timeout
 * again. -ENOENT for a syncobj handle this file does not have, -EINVAL
 * for unknown @flags, a non-zero @reserved, a negative @timeout_ns or a
 * syncobj without a fence. @job_status is written only on 0.
 *
 * @syncobj: in, a binary syncobj handle of this file.
 * @flags: in, DRM_ENPU_JOB_WAIT_FLAGS.
 * @timeout_ns: in, relative nanoseconds, or absolute CLOCK_MONOTONIC
 *              nanoseconds with DRM_ENPU_WAIT_ABSOLUTE; as for
 *              DRM_IOCTL_ENPU_BO_WAIT.
 * @job_status: out, 0 for a job that succeeded, else the negative errno
 *              its fence carries (the job-status table above).
 * @reserved: in, must be zero.
 */
struct drm_enpu_job_wait {
	__u32 syncobj;
	__u32 flags;
	__s64 timeout_ns;
	__s32 job_status;
	__u32 reserved;
};

/*
 * A file holds at most this many stream objects; one more is -EMFILE.
 * Each holds up to ENPU_CMD_MAX_STREAM bytes of kernel memory, charged
 * to the creator's memory cgroup.
 */
#define DRM_ENPU_MAX_STREAMS_PER_FILE	256

/**
 * struct drm_enpu_stream_create - argument of DRM_IOCTL_ENPU_STREAM_CREATE
 *
 * Since driver version 1.2. Copies a command stream once into a
 * kernel-only buffer the device reads (the copy SUBMIT makes of
 * @commands on every job), for jobs that run the same stream again and
 * again, as a runtime does once per frame: SUBMIT with
 * DRM_ENPU_SUBMIT_STREAM then copies nothing and allocates no stream
 * buffer. The stream is validated at SUBMIT against that job's BO list,
 * like any stream, and the kernel remembers the BO sizes and access
 * flags of the last list it passed with: a job whose list has the same
 * sizes and flags, BO by BO, is not validated again (the validator is a
 * function of the stream and those alone). Any other list is validated
 * in full. The object is immutable; jobs hold it until they are freed,
 * so destroying it with jobs in flight is safe.
 *
 * Returns 0 with @handle set; -EINVAL for a @commands_size that is 0,
 * not a multiple of 8 or above ENPU_CMD_MAX_STREAM, or non-zero @flags or
 * @reserved; -EFAULT for an unreadable @commands; -EMFILE when the file
 * holds DRM_ENPU_MAX_STREAMS_PER_FILE streams; -ENOMEM.
 *
 * @commands: in, user pointer to the command stream.
 * @commands_size: in, bytes.
 * @handle: out, the stream's handle (never 0), valid in this file only.
 * @flags: in, must be zero.
 * @reserved: in, must be zero.
 */
struct drm_enpu_stream_create {
	__u64 commands;
	__u32 commands_size;
	__u32 handle;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct drm_enpu_stream_destroy - argument of DRM_IOCTL_ENPU_STREAM_DESTROY
 *
 * Since driver version 1.2. Drops the handle; jobs that use the stream
 * keep it until they are freed. -ENOENT for an unknown handle, -EINVAL
 * for a non-zero @reserved. Closing the file destroys its streams.
 *
 * @handle: in, from DRM_IOCTL_ENPU_STREAM_CREATE.
 * @reserved: in, must be zero.
 */
struct drm_enpu_stream_destroy {
	__u32 handle;
	__u32 reserved;
};

#define DRM_IOCTL_ENPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_GET_PARAM, struct drm_enpu_get_param)
#define DRM_IOCTL_ENPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_BO_CREATE, struct drm_enpu_bo_create)
#define DRM_IOCTL_ENPU_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_BO_INFO, struct drm_enpu_bo_info)
#define DRM_IOCTL_ENPU_BO_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ENPU_BO_WAIT, struct drm_enpu_bo_wait)
#define DRM_IOCTL_ENPU_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_SUBMIT, struct drm_enpu_submit)
#define DRM_IOCTL_ENPU_CONTEXT_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_CONTEXT_CREATE, \
		 struct drm_enpu_context_create)
#define DRM_IOCTL_ENPU_CONTEXT_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ENPU_CONTEXT_DESTROY, \
		struct drm_enpu_context_destroy)
#define DRM_IOCTL_ENPU_CONTEXT_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_CONTEXT_QUERY, \
		 struct drm_enpu_context_query)
#define DRM_IOCTL_ENPU_JOB_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_JOB_WAIT, struct drm_enpu_job_wait)
#define DRM_IOCTL_ENPU_STREAM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_ENPU_STREAM_CREATE, \
		 struct drm_enpu_stream_create)
#define DRM_IOCTL_ENPU_STREAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_ENPU_STREAM_DESTROY, \
		struct drm_enpu_stream_destroy)

#if defined(__cplusplus)
}
#endif

#endif /* ENPU_ACCEL_H */
