// SPDX-License-Identifier: GPL-2.0
/*
 * enpu-stress: a seeded random-ioctl program against the ENPU driver.
 *
 *   enpu-stress [--seed N] [--ops N] [--threads N] [--procs N]
 *               [--faults] [--quiet]
 *
 * --procs processes (forked after the seed is printed) each run --threads
 * threads of --ops operations. Every ENPU ioctl is called with random and
 * boundary arguments (sizes 0, 1, page, page+1, the limits and one past,
 * UINT64_MAX; flag bits one at a time and all of them; strides at and
 * past DRM_ENPU_SUBMIT_MAX_STRIDE), handles that are valid, closed, from
 * another file or random; the threads of a process share a small table of
 * device fds that they close and reopen under each other (so an fd number
 * may name a new file by the time another thread uses it), and contexts
 * are created and destroyed concurrently. Submits are valid jobs (NOPs,
 * fills and copies of the BOs listed, in-fences from earlier jobs) or
 * random streams, sent with the submit or as stream objects (created and
 * destroyed concurrently too, one submit in three names one). With --faults the first process also injects vnpu
 * faults through the rig's relay (hang, error interrupt, lost interrupt,
 * corrupted completion, thermal spike, failing firmware boots) and, on a
 * kernel with failslab and fail_page_alloc (the debug kernel), makes the
 * N-th fault-injection point (allocation, user copy) of one ioctl in 25
 * fail (/proc/thread-self/fail-nth, N random in 1..32), in every thread
 * of that process. Only the ioctl is armed, never the calls around it
 * (mmap and the page faults of a mapping, opening files), so whatever
 * fails, fails inside the driver's or the DRM core's ioctl path.
 *
 * Every errno an ioctl returns must be one that ioctl documents;
 * anything else counts as a failure. At the end every worker waits for
 * its jobs, closes everything, and the parent checks that the device
 * still runs a job correctly, that no dma-buf is left behind, and that
 * the kernel log holds no report (BUG, WARNING, KASAN, slab poison,
 * lockdep, kmemleak...). It prints
 *
 *   enpu-stress: seed=S ioctls=I jobs=J faults=F alloc_faults=A unexpected=U
 *                reports=R dmabufs_left=D device=ok
 *
 * and exits 0 only if U and R are 0 and the device is usable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"

#define FDS 4
#define HANDLES 32
#define CONTEXTS 16
#define SYNCOBJS 16
#define STREAMS 8
#define MAX_THREADS 16

/* Counters shared by every process (MAP_SHARED). */
struct stats {
	atomic_ullong ioctls;
	atomic_ullong jobs;
	atomic_ullong faults;
	atomic_ullong alloc_faults;	/* fault points made to fail */
	atomic_ullong unexpected;
	atomic_ullong submit_errno[160];	/* refused submits by errno */
	atomic_ullong streams_created, streams_destroyed, stream_jobs;
	char first_unexpected[256];
	atomic_int first_taken;
};

struct process_state {
	pthread_mutex_t lock;	/* the fd table below */
	int fds[FDS];
	const char *path;
};

struct worker {
	struct process_state *ps;
	struct stats *stats;
	struct enpu_random random;
	unsigned long ops;
	int inject;
	int alloc_faults;		/* arm fail-nth before some ioctls */
	int fail_nth;			/* this thread's fail-nth, or -1 */
	unsigned int arm;		/* fail the arm-th point of the next ioctl */
	int fd;				/* the file this session uses */
	unsigned int session;		/* ops left on it */
	uint32_t handles[HANDLES];	/* made on @fd (mostly) */
	uint32_t contexts[CONTEXTS];
	uint32_t syncobjs[SYNCOBJS];
	uint32_t streams[STREAMS];
	int vgem;
	uint32_t vgem_handle;
};

static struct stats *stats;

static uint64_t rnd(struct worker *w, uint64_t n)
{
	return n ? enpu_random_next(&w->random) % n : 0;
}

static void unexpected(struct worker *w, const char *what, int err)
{
	int taken = 0;

	atomic_fetch_add(&w->stats->unexpected, 1);
	if (atomic_compare_exchange_strong(&w->stats->first_taken, &taken, 1))
		snprintf(w->stats->first_unexpected,
			 sizeof(w->stats->first_unexpected), "%s: %s (%d)",
			 what, strerror(err), err);
}

/*
 * errno sets, one per ioctl (uapi/enpu_accel.h, docs/jobs.md), each ending
 * in 0. Every ioctl may also see the DRM core's and the VFS's own.
 */
#define COMMON EBADF, ENOTTY, EFAULT, ENODEV, EINTR, ENOMEM, EACCES
static const int allowed_param[] = { COMMON, EINVAL, 0 };
static const int allowed_bo[] = { COMMON, EINVAL, E2BIG, ENOENT, ETIME,
				  ENOSPC, 0 };
static const int allowed_context[] = { COMMON, EINVAL, ENOENT, EMFILE,
				       ENOSPC, 0 };
static const int allowed_submit[] = { COMMON, EINVAL, ENOENT, E2BIG, EAGAIN,
				      ECANCELED, 0 };
static const int allowed_prime[] = { COMMON, EINVAL, ENOENT, EMFILE, ENFILE,
				     EPERM, 0 };
static const int allowed_syncobj[] = { COMMON, EINVAL, ENOENT, ETIME,
				       EMFILE, ENFILE, 0 };
static const int allowed_stream[] = { COMMON, EINVAL, ENOENT, EMFILE, 0 };

static bool errno_allowed(const int *allowed, int err)
{
	for (; *allowed; allowed++)
		if (*allowed == err)
			return true;
	return false;
}

/*
 * fail-nth of the calling thread: writing N fails its N-th fault point
 * from now on; reading gives what is left, 0 once the fault was injected.
 * Opened once per thread, as an open() while armed would itself count.
 */
static void fail_nth_write(struct worker *w, unsigned int nth)
{
	char text[16];
	int length = snprintf(text, sizeof(text), "%u", nth);

	if (pwrite(w->fail_nth, text, (size_t)length, 0) != length)
		unexpected(w, "fail-nth write", errno);
}

/*
 * Disarms; 1 if the armed fault was injected by the ioctl. The read and
 * the write of fail-nth copy to and from user space, and each copy is a
 * fault point while armed (CONFIG_FAULT_INJECTION_USERCOPY): with one
 * point left after the ioctl the read's copy takes it, with two the
 * write's. Either then fails with -EFAULT and leaves fail-nth at 0, so
 * that -EFAULT is the disarming, not an error.
 */
static int fail_nth_injected(struct worker *w)
{
	char text[16] = "";
	ssize_t got = pread(w->fail_nth, text, sizeof(text) - 1, 0);

	if (got < 0) {
		if (errno != EFAULT)
			unexpected(w, "fail-nth read", errno);
		return 0;
	}
	if (atoi(text) == 0)
		return 1;
	if (pwrite(w->fail_nth, "0", 1, 0) != 1 && errno != EFAULT)
		unexpected(w, "fail-nth write", errno);
	return 0;
}

/* One ioctl, with the fault point armed by worker_run() if any. */
static int do_ioctl(struct worker *w, int fd, unsigned long request,
		    void *arg)
{
	unsigned int arm = w->arm;
	int ret, err;

	w->arm = 0;
	atomic_fetch_add(&w->stats->ioctls, 1);
	if (arm)
		fail_nth_write(w, arm);
	ret = ioctl(fd, request, arg);
	err = errno;
	if (arm && fail_nth_injected(w))
		atomic_fetch_add(&w->stats->alloc_faults, 1);
	errno = err;
	return ret;
}

static void call(struct worker *w, int fd, unsigned long request, void *arg,
		 const int *allowed, const char *what)
{
	if (do_ioctl(w, fd, request, arg) == 0)
		return;
	if (!errno_allowed(allowed, errno))
		unexpected(w, what, errno);
}

/* An fd of the table, or -1; may be closed and reused by another thread. */
static int pick_fd(struct worker *w)
{
	int fd;

	pthread_mutex_lock(&w->ps->lock);
	fd = w->ps->fds[rnd(w, FDS)];
	pthread_mutex_unlock(&w->ps->lock);
	return fd;
}

static void reopen_fd(struct worker *w)
{
	unsigned int slot = (unsigned int)rnd(w, FDS);
	int fd, old;

	fd = open(w->ps->path, O_RDWR | O_CLOEXEC);
	pthread_mutex_lock(&w->ps->lock);
	old = w->ps->fds[slot];
	w->ps->fds[slot] = fd;
	pthread_mutex_unlock(&w->ps->lock);
	/* Another thread may be in an ioctl on it: that is the point. */
	if (old >= 0)
		close(old);
}

/* A filled entry of table (random start, first non-zero), or 0. */
static uint32_t pick_live(struct worker *w, const uint32_t *table,
			  unsigned int n)
{
	unsigned int start = (unsigned int)rnd(w, n);

	for (unsigned int i = 0; i < n; i++)
		if (table[(start + i) % n])
			return table[(start + i) % n];
	return 0;
}

static uint32_t pick_handle(struct worker *w)
{
	switch (rnd(w, 10)) {
	case 0:
		return (uint32_t)rnd(w, UINT32_MAX);
	case 1:
		return w->handles[rnd(w, HANDLES)];	/* maybe closed */
	default:
		return pick_live(w, w->handles, HANDLES);
	}
}

static uint64_t boundary_size(struct worker *w)
{
	static const uint64_t sizes[] = {
		0, 1, 4095, 4096, 4097, 65536, 1 << 20, (1 << 20) + 1,
		1ull << 32, (1ull << 32) + 1, UINT64_MAX, UINT64_MAX - 4095,
	};

	return rnd(w, 2) ? sizes[rnd(w, sizeof(sizes) / sizeof(sizes[0]))] :
			   rnd(w, 256 * 1024) + 1;
}

static uint32_t random_flags(struct worker *w, uint32_t valid)
{
	switch (rnd(w, 4)) {
	case 0:
		return 1u << rnd(w, 32);
	case 1:
		return (uint32_t)rnd(w, UINT32_MAX);
	default:
		return valid & (uint32_t)rnd(w, UINT32_MAX);
	}
}

static void op_param(struct worker *w, int fd)
{
	struct drm_enpu_get_param p = {
		.param = (uint32_t)rnd(w, 16),
		.reserved = rnd(w, 8) ? 0 : 1,
	};

	call(w, fd, DRM_IOCTL_ENPU_GET_PARAM, &p, allowed_param, "GET_PARAM");
}

static void op_bo_create(struct worker *w, int fd)
{
	struct drm_enpu_bo_create c = {
		.size = rnd(w, 4) ? rnd(w, 64 * 1024) + 1 : boundary_size(w),
		.flags = rnd(w, 3) ? 0 : random_flags(w, DRM_ENPU_BO_CREATE_FLAGS),
		.reserved = rnd(w, 16) ? 0 : 1,
	};

	call(w, fd, DRM_IOCTL_ENPU_BO_CREATE, &c, allowed_bo, "BO_CREATE");
	w->handles[rnd(w, HANDLES)] = c.handle;
}

static void op_bo_info_wait_close(struct worker *w, int fd)
{
	struct drm_enpu_bo_info info = { .handle = pick_handle(w) };
	struct drm_enpu_bo_wait wait = {
		.handle = pick_handle(w),
		.flags = random_flags(w, DRM_ENPU_WAIT_WRITERS_ONLY),
		.timeout_ns = rnd(w, 8) ? (int64_t)rnd(w, 1000000) : -1,
	};
	struct drm_gem_close close_arg = { .handle = pick_handle(w) };

	switch (rnd(w, 3)) {
	case 0:
		info.reserved = rnd(w, 16) ? 0 : 1;
		call(w, fd, DRM_IOCTL_ENPU_BO_INFO, &info, allowed_bo, "BO_INFO");
		if (info.mmap_offset && info.size && info.size <= (1 << 20) &&
		    rnd(w, 2)) {
			void *map = mmap(NULL, info.size, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, (off_t)info.mmap_offset);

			if (map != MAP_FAILED) {
				((volatile unsigned char *)map)[rnd(w, info.size)] = 1;
				munmap(map, info.size);
			}
		}
		break;
	case 1:
		call(w, fd, DRM_IOCTL_ENPU_BO_WAIT, &wait, allowed_bo, "BO_WAIT");
		break;
	default:
		call(w, fd, DRM_IOCTL_GEM_CLOSE, &close_arg,
		     allowed_bo, "GEM_CLOSE");
		break;
	}
}

static void op_context(struct worker *w, int fd)
{
	struct drm_enpu_context_create c = {
		.priority = (uint32_t)rnd(w, 6),
		.flags = rnd(w, 16) ? 0 : 1,
	};
	struct drm_enpu_context_destroy d = {
		.context = rnd(w, 4) ? w->contexts[rnd(w, CONTEXTS)] :
				       (uint32_t)rnd(w, 70),
	};
	struct drm_enpu_context_query q = {
		.context = w->contexts[rnd(w, CONTEXTS)],
		.reserved = rnd(w, 16) ? 0 : 1,
	};

	switch (rnd(w, 3)) {
	case 0:
		call(w, fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &c, allowed_context,
		     "CONTEXT_CREATE");
		w->contexts[rnd(w, CONTEXTS)] = c.context;
		break;
	case 1:
		call(w, fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &d,
		     allowed_context, "CONTEXT_DESTROY");
		break;
	default:
		call(w, fd, DRM_IOCTL_ENPU_CONTEXT_QUERY, &q, allowed_context,
		     "CONTEXT_QUERY");
		break;
	}
}

static void op_syncobj(struct worker *w, int fd)
{
	uint32_t *slot = &w->syncobjs[rnd(w, SYNCOBJS)];
	struct drm_syncobj_create create = {
		.flags = rnd(w, 2) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0,
	};
	struct drm_syncobj_destroy destroy = { .handle = *slot };
	struct drm_syncobj_wait wait = {
		.handles = (uintptr_t)slot,
		.count_handles = 1,
		.timeout_nsec = (int64_t)rnd(w, 2000000),
	};
	struct drm_syncobj_handle export = { .handle = *slot,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1 };
	struct drm_enpu_job_wait job_wait = {
		.syncobj = *slot,
		.flags = random_flags(w, DRM_ENPU_JOB_WAIT_FLAGS),
		.timeout_ns = rnd(w, 8) ? (int64_t)rnd(w, 2000000) : -1,
		.reserved = rnd(w, 16) ? 0 : 1,
	};

	switch (rnd(w, 5)) {
	case 0:
		call(w, fd, DRM_IOCTL_SYNCOBJ_CREATE, &create, allowed_syncobj,
		     "SYNCOBJ_CREATE");
		*slot = create.handle;
		break;
	case 1:
		call(w, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &destroy,
		     allowed_syncobj, "SYNCOBJ_DESTROY");
		break;
	case 2:
		call(w, fd, DRM_IOCTL_SYNCOBJ_WAIT, &wait, allowed_syncobj,
		     "SYNCOBJ_WAIT");
		break;
	case 3:
		call(w, fd, DRM_IOCTL_ENPU_JOB_WAIT, &job_wait, allowed_syncobj,
		     "JOB_WAIT");
		break;
	default:
		call(w, fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &export,
		     allowed_syncobj, "SYNCOBJ_EXPORT_SYNC_FILE");
		if (export.fd >= 0)
			close(export.fd);
		break;
	}
}

static void op_prime(struct worker *w, int fd)
{
	struct drm_prime_handle to_fd = {
		.handle = pick_handle(w),
		.flags = DRM_CLOEXEC | (rnd(w, 2) ? DRM_RDWR : 0),
		.fd = -1,
	};
	struct drm_prime_handle from_fd = { .fd = -1 };
	int other;

	if (rnd(w, 3) == 0 && w->vgem >= 0) {
		/* A vgem buffer into this file. */
		if (drmPrimeHandleToFD(w->vgem, w->vgem_handle, DRM_CLOEXEC,
				       &from_fd.fd))
			return;
		call(w, fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &from_fd,
		     allowed_prime, "PRIME_FD_TO_HANDLE(vgem)");
		close(from_fd.fd);
		w->handles[rnd(w, HANDLES)] = from_fd.handle;
		return;
	}
	call(w, fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &to_fd, allowed_prime,
	     "PRIME_HANDLE_TO_FD");
	if (to_fd.fd < 0)
		return;
	/* Back into this file, or another one of the table. */
	other = rnd(w, 2) ? fd : pick_fd(w);
	from_fd.fd = to_fd.fd;
	if (other >= 0) {
		call(w, other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &from_fd,
		     allowed_prime, "PRIME_FD_TO_HANDLE");
		if (other == fd)
			w->handles[rnd(w, HANDLES)] = from_fd.handle;
	}
	close(to_fd.fd);
}

/* A stream: valid commands on the listed BOs, or random words. */
static uint32_t build_stream(struct worker *w, uint8_t *buf, uint32_t room,
			     uint32_t bo_count, uint64_t bo_size)
{
	uint32_t used = 0;

	if (rnd(w, 8) == 0) {
		uint32_t size = (uint32_t)rnd(w, room / 8 + 1) * 8;

		for (uint32_t i = 0; i < size; i++)
			buf[i] = (uint8_t)(rnd(w, 4) ? 0 : rnd(w, 256));
		return size;
	}
	while (used + 64 <= room && rnd(w, 3)) {
		switch (bo_count ? rnd(w, 3) : 0) {
		case 0: {
			struct enpu_cmd_nop nop = {
				.hdr = { ENPU_CMD_NOP, 0, sizeof(nop) },
				.cycles = (uint32_t)rnd(w, 200000),
			};

			memcpy(buf + used, &nop, sizeof(nop));
			used += sizeof(nop);
			break;
		}
		case 1: {
			uint64_t size = rnd(w, bo_size) + 1;
			struct enpu_cmd_dma_fill fill = {
				.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
				.dst = { .bo_index = (uint32_t)rnd(w, bo_count) },
				.size = size,
				.value = (uint32_t)rnd(w, 256),
			};

			fill.dst.offset = rnd(w, bo_size - size + 1);
			memcpy(buf + used, &fill, sizeof(fill));
			used += sizeof(fill);
			break;
		}
		default: {
			uint64_t size = rnd(w, bo_size / 2) + 1;
			struct enpu_cmd_dma_copy copy = {
				.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(copy) },
				.src = { .bo_index = (uint32_t)rnd(w, bo_count),
					 .offset = 0 },
				.dst = { .bo_index = (uint32_t)rnd(w, bo_count),
					 .offset = bo_size / 2 },
				.size = size,
			};

			memcpy(buf + used, &copy, sizeof(copy));
			used += sizeof(copy);
			break;
		}
		}
	}
	return used;
}

static void op_submit(struct worker *w, int fd)
{
	static const uint32_t strides[] = {
		0, 4, 8, 16, DRM_ENPU_SUBMIT_MAX_STRIDE,
		DRM_ENPU_SUBMIT_MAX_STRIDE + 8, 0xfffff000u,
	};
	uint8_t stream[1024], bo_array[8 * 64], fence_array[4 * 64];
	uint32_t bo_count = (uint32_t)rnd(w, 4),
		 fence_count = rnd(w, 2) ? 0 : (uint32_t)rnd(w, 3);
	uint32_t bo_stride = 8, fence_stride = 16;
	struct drm_enpu_submit s = { 0 };

	memset(bo_array, 0, sizeof(bo_array));
	memset(fence_array, 0, sizeof(fence_array));
	if (rnd(w, 8) == 0) {
		bo_stride = strides[rnd(w, 7)];
		fence_stride = strides[rnd(w, 7)];
		if (bo_stride > 64 || fence_stride > 64) {
			/* Only the count check may look past the arrays. */
			bo_count = bo_stride > 64 ? 0 : bo_count;
			fence_count = fence_stride > 64 ? 0 : fence_count;
		}
	}
	for (uint32_t i = 0; i < bo_count && bo_stride >= 8; i++) {
		struct drm_enpu_submit_bo *bo =
			(void *)(bo_array + (size_t)i * bo_stride);

		bo->handle = pick_handle(w);
		bo->flags = rnd(w, 8) ? DRM_ENPU_SUBMIT_BO_READ |
					DRM_ENPU_SUBMIT_BO_WRITE :
					random_flags(w, 3);
	}
	for (uint32_t i = 0; i < fence_count && fence_stride >= 16; i++) {
		struct drm_enpu_fence *f =
			(void *)(fence_array + (size_t)i * fence_stride);

		f->handle = rnd(w, 8) ? pick_live(w, w->syncobjs, SYNCOBJS) :
				       w->syncobjs[rnd(w, SYNCOBJS)];
		f->point = rnd(w, 8) ? 0 : rnd(w, 4);
		f->flags = rnd(w, 16) ? 0 : 1;
	}
	s.bos = (uintptr_t)bo_array;
	s.bo_count = rnd(w, 64) ? bo_count : DRM_ENPU_SUBMIT_MAX_BOS + 1;
	s.bo_stride = bo_stride;
	s.in_fences = (uintptr_t)fence_array;
	s.in_fence_count = fence_count;
	s.in_fence_stride = fence_stride;
	s.commands = (uintptr_t)stream;
	/* Small BOs of the pool: fills within 4 KiB stay in range. */
	s.commands_size = build_stream(w, stream, sizeof(stream), bo_count,
				       4096);
	if (rnd(w, 32) == 0)
		s.commands_size = (uint32_t)rnd(w, 2) ? 7 : ENPU_CMD_MAX_STREAM + 8;
	s.flags = rnd(w, 4) ? 0 : random_flags(w, DRM_ENPU_SUBMIT_FLAGS);
	if (rnd(w, 3) == 0) {
		/* A stream object instead (sometimes with commands too). */
		s.flags |= DRM_ENPU_SUBMIT_STREAM;
		s.stream = rnd(w, 8) ? pick_live(w, w->streams, STREAMS) :
				      (uint32_t)rnd(w, 300);
		if (rnd(w, 16)) {
			s.commands = 0;
			s.commands_size = 0;
		}
	} else if (rnd(w, 32) == 0) {
		s.stream = pick_live(w, w->streams, STREAMS);
	}
	s.context = rnd(w, 2) ? 0 : w->contexts[rnd(w, CONTEXTS)];
	s.out_syncobj = rnd(w, 2) ? pick_live(w, w->syncobjs, SYNCOBJS) : 0;
	s.reserved = rnd(w, 32) ? 0 : 1;
	if (do_ioctl(w, fd, DRM_IOCTL_ENPU_SUBMIT, &s) == 0) {
		atomic_fetch_add(&w->stats->jobs, 1);
		if (s.flags & DRM_ENPU_SUBMIT_STREAM)
			atomic_fetch_add(&w->stats->stream_jobs, 1);
		return;
	}
	if (errno > 0 && errno < 160)
		atomic_fetch_add(&w->stats->submit_errno[errno], 1);
	if (!errno_allowed(allowed_submit, errno))
		unexpected(w, "SUBMIT", errno);
}

/*
 * Stream objects: created from the streams a submit would send (or at and
 * past the size limits, with stray flags), destroyed while jobs may still
 * use them, by handles live, closed or made up.
 */
static void op_stream(struct worker *w, int fd)
{
	uint8_t stream[1024];
	struct drm_enpu_stream_create c = {
		.commands = (uintptr_t)stream,
		.flags = rnd(w, 32) ? 0 : 1u << rnd(w, 32),
		.reserved = rnd(w, 32) ? 0 : 1,
	};
	struct drm_enpu_stream_destroy d = {
		.handle = rnd(w, 8) ? pick_live(w, w->streams, STREAMS) :
				     w->streams[rnd(w, STREAMS)],
		.reserved = rnd(w, 32) ? 0 : 1,
	};
	unsigned int slot = (unsigned int)rnd(w, STREAMS);

	if (rnd(w, 3)) {
		c.commands_size = build_stream(w, stream, sizeof(stream),
					       1 + (uint32_t)rnd(w, 3), 4096);
		if (rnd(w, 16) == 0)
			c.commands_size = (uint32_t)rnd(w, 3) == 0 ? 0 :
					  rnd(w, 2) ? 7 : ENPU_CMD_MAX_STREAM + 8;
		call(w, fd, DRM_IOCTL_ENPU_STREAM_CREATE, &c, allowed_stream,
		     "STREAM_CREATE");
		if (c.handle) {
			w->streams[slot] = c.handle;
			atomic_fetch_add(&w->stats->streams_created, 1);
		}
		return;
	}
	if (do_ioctl(w, fd, DRM_IOCTL_ENPU_STREAM_DESTROY, &d) == 0) {
		atomic_fetch_add(&w->stats->streams_destroyed, 1);
		for (unsigned int i = 0; i < STREAMS; i++)
			if (w->streams[i] == d.handle)
				w->streams[i] = 0;
	} else if (!errno_allowed(allowed_stream, errno)) {
		unexpected(w, "STREAM_DESTROY", errno);
	}
}

static const char *const faults[] = {
	"hang", "error-irq", "lose-irq 3", "corrupt-completion",
	"thermal-spike 80000", "fail-boot 2",
};

static void op_fault(struct worker *w)
{
	char reply[256];

	if (enpu_fault(faults[rnd(w, sizeof(faults) / sizeof(faults[0]))],
		       sizeof(reply), reply) == 0)
		atomic_fetch_add(&w->stats->faults, 1);
}

/*
 * Only fail-nth injects (no random failures anywhere else), sleeping and
 * single-page allocations included; quiet, since each failure would print
 * a stack. 0 when the kernel has both failslab and fail_page_alloc.
 */
static int alloc_faults_setup(void)
{
	static const char *const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/probability", "0" },
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/probability", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};

	if (access("/proc/thread-self/fail-nth", W_OK))
		return -ENOENT;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (enpu_write_file(knobs[i][0], knobs[i][1]))
			return -ENOENT;
	/* fail-nth counts user-copy points too (CONFIG_FAULT_INJECTION_USERCOPY). */
	if (!access("/sys/kernel/debug/fail_usercopy", F_OK) &&
	    enpu_write_file("/sys/kernel/debug/fail_usercopy/verbose", "0"))
		return -ENOENT;
	return 0;
}

/*
 * Handles, contexts and syncobjs are per file: a worker keeps to one fd
 * of the table for a session of up to 64 operations (its tables then
 * mostly name live objects), and uses a random fd of the table one time
 * in ten. Another thread may close and reopen any fd meanwhile.
 */
static int session_fd(struct worker *w)
{
	if (!w->session--) {
		w->fd = pick_fd(w);
		w->session = (unsigned int)rnd(w, 64);
		memset(w->handles, 0, sizeof(w->handles));
		memset(w->contexts, 0, sizeof(w->contexts));
		memset(w->syncobjs, 0, sizeof(w->syncobjs));
		memset(w->streams, 0, sizeof(w->streams));
	}
	return rnd(w, 10) ? w->fd : pick_fd(w);
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	w->fail_nth = w->alloc_faults ?
		open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC) : -1;
	if (w->alloc_faults && w->fail_nth < 0)
		unexpected(w, "open fail-nth", errno);
	for (unsigned long i = 0; i < w->ops; i++) {
		int fd = session_fd(w);
		unsigned int what = (unsigned int)rnd(w, 100);

		if (fd < 0 || what < 3) {
			reopen_fd(w);
			continue;
		}
		if (w->inject && rnd(w, 150) == 0) {
			op_fault(w);
			continue;
		}
		/* ENOMEM and EFAULT are in every ioctl's allowed set. */
		if (w->fail_nth >= 0 && rnd(w, 25) == 0)
			w->arm = 1 + (unsigned int)rnd(w, 32);
		if (what < 10)
			op_param(w, fd);
		else if (what < 25)
			op_bo_create(w, fd);
		else if (what < 40)
			op_bo_info_wait_close(w, fd);
		else if (what < 50)
			op_context(w, fd);
		else if (what < 60)
			op_syncobj(w, fd);
		else if (what < 68)
			op_prime(w, fd);
		else if (what < 74)
			op_stream(w, fd);
		else
			op_submit(w, fd);
		w->arm = 0;
	}
	if (w->fail_nth >= 0)
		close(w->fail_nth);
	return NULL;
}

static int run_process(const char *path, uint64_t seed, unsigned long ops,
		       unsigned int threads, int inject, int alloc_faults)
{
	struct process_state ps = { .path = path };
	struct worker workers[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	uint64_t size;
	int vgem = -1;
	uint32_t vgem_handle = 0;

	pthread_mutex_init(&ps.lock, NULL);
	for (int i = 0; i < FDS; i++)
		ps.fds[i] = open(path, O_RDWR | O_CLOEXEC);
	if (vgem_open(&vgem) || vgem_create(vgem, 4096, &vgem_handle, &size)) {
		if (vgem >= 0)
			close(vgem);
		vgem = -1;
	}
	for (unsigned int t = 0; t < threads; t++) {
		struct worker *w = &workers[t];

		memset(w, 0, sizeof(*w));
		w->ps = &ps;
		w->stats = stats;
		w->ops = ops;
		w->inject = inject && t == 0;
		w->alloc_faults = alloc_faults;
		w->vgem = vgem;
		w->vgem_handle = vgem_handle;
		enpu_random_seed(&w->random, seed * 1000 + t);
		pthread_create(&tids[t], NULL, worker_run, w);
	}
	for (unsigned int t = 0; t < threads; t++)
		pthread_join(tids[t], NULL);
	/* Closing every file cancels what is queued; jobs on the rings end. */
	for (int i = 0; i < FDS; i++)
		if (ps.fds[i] >= 0)
			close(ps.fds[i]);
	if (vgem >= 0)
		close(vgem);
	return 0;
}

/* One fill job on a fresh file must run and write every byte. */
static int device_usable(void)
{
	struct enpu_job_bos bos = { 0 };
	enpu_cmdbuf *cmdbuf = NULL;
	uint32_t index;
	int job_status = 1, status;
	char why[256];

	status = enpu_selftest_open(&bos.device, sizeof(why), why);
	if (status) {
		fprintf(stderr, "enpu-stress: %s\n", why);
		return 0;
	}
	status = enpu_job_bo_add(&bos, 8192, DRM_ENPU_SUBMIT_BO_WRITE, NULL, 0,
				 &index);
	if (!status)
		status = enpu_cmdbuf_create(&cmdbuf);
	if (!status)
		status = enpu_cmdbuf_dma_fill(cmdbuf, index, 0, 8192, 0x5a);
	/* A fault injected last may still be recovering: retry a while. */
	for (int attempt = 0; !status && attempt < 60; attempt++) {
		status = enpu_job_run(&bos, cmdbuf, 0, 30 * ENPU_SECOND_NS,
				      &job_status);
		if (!status && job_status == 0)
			break;
		status = 0;
		enpu_sleep_ms(500);
	}
	status = !status && job_status == 0 && bos.map[index][0] == 0x5a &&
		 bos.map[index][8191] == 0x5a;
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_job_bos_release(&bos);
	enpu_device_close(bos.device);
	return status;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: enpu-stress [--seed N] [--ops N] [--threads N] [--procs N] [--faults] [--quiet]\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "faults", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = enpu_random_default_seed();
	unsigned long ops = 2000;
	unsigned int threads = 4, procs = 2;
	int inject = 0, alloc_faults = 0, opt, reports, usable, failed = 0;
	long dmabufs_before = -1, dmabufs_after = -1;
	struct enpu_kreports watch;
	enpu_device *device;
	char why[256], first[512];
	const char *path;
	pid_t pids[64];

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			ops = strtoul(optarg, NULL, 0);
			break;
		case 't':
			threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			procs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			inject = 1;
			break;
		case 'q':
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!threads || threads > MAX_THREADS || !procs || procs > 64) {
		usage();
		return 2;
	}
	if (inject && enpu_fault("status", 0, NULL) == -ENOSYS) {
		fprintf(stderr, "enpu-stress: --faults needs the rig's --fault-relay\n");
		return 2;
	}
	if (enpu_selftest_open(&device, sizeof(why), why)) {
		fprintf(stderr, "enpu-stress: %s\n", why);
		return 2;
	}
	if (enpu_device_path(device, &path)) {
		enpu_device_close(device);
		return 2;
	}
	path = strdup(path);
	enpu_device_close(device);
	alloc_faults = inject && alloc_faults_setup() == 0;
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED || enpu_kreports_start(&watch))
		return 2;
	enpu_dmabuf_count(&dmabufs_before);
	printf("enpu-stress: seed=%" PRIu64 " ops=%lu threads=%u procs=%u faults=%s%s\n",
	       seed, ops, threads, procs, inject ? "on" : "off",
	       alloc_faults ? " (vnpu and allocations)" :
	       inject ? " (vnpu; no failslab in this kernel)" : "");
	fflush(stdout);

	for (unsigned int p = 0; p < procs; p++) {
		pids[p] = fork();
		if (pids[p] == 0)
			_exit(run_process(path, seed + p, ops, threads,
					  inject && p == 0,
					  alloc_faults && p == 0));
	}
	for (unsigned int p = 0; p < procs; p++) {
		int status;

		if (pids[p] < 0 || waitpid(pids[p], &status, 0) != pids[p] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "enpu-stress: process %u failed (status 0x%x)\n",
				p, pids[p] < 0 ? -1 : status);
			failed = 1;
		}
	}
	if (inject)
		enpu_fault("fail-boot 0", 0, NULL);
	usable = device_usable();
	/* Jobs of closed files finish and drop their dma-buf references. */
	enpu_dmabuf_settle(dmabufs_before, 20000, &dmabufs_after);
	reports = enpu_kreports_collect(&watch, sizeof(first), first);
	printf("enpu-stress: seed=%" PRIu64 " ioctls=%llu jobs=%llu faults=%llu alloc_faults=%llu unexpected=%llu reports=%d dmabufs_left=%ld device=%s\n",
	       seed, (unsigned long long)atomic_load(&stats->ioctls),
	       (unsigned long long)atomic_load(&stats->jobs),
	       (unsigned long long)atomic_load(&stats->faults),
	       (unsigned long long)atomic_load(&stats->alloc_faults),
	       (unsigned long long)atomic_load(&stats->unexpected), reports,
	       dmabufs_after - dmabufs_before, usable ? "ok" : "BROKEN");
	printf("enpu-stress: stream objects: created=%llu destroyed=%llu jobs=%llu\n",
	       (unsigned long long)atomic_load(&stats->streams_created),
	       (unsigned long long)atomic_load(&stats->streams_destroyed),
	       (unsigned long long)atomic_load(&stats->stream_jobs));
	printf("enpu-stress: refused submits:");
	for (int e = 1; e < 160; e++)
		if (atomic_load(&stats->submit_errno[e]))
			printf(" %s=%llu", strerrorname_np(e) ?: "?",
			       (unsigned long long)atomic_load(&stats->submit_errno[e]));
	printf("\n");
	if (atomic_load(&stats->unexpected))
		printf("enpu-stress: first unexpected errno: %s\n",
		       stats->first_unexpected);
	if (reports)
		printf("enpu-stress: first kernel report: %s\n", first);
	return failed || !usable || reports ||
	       atomic_load(&stats->unexpected) ||
	       dmabufs_after > dmabufs_before;
}
