/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the buffer kselftests: raw ENPU ioctls (so that each test
 * sees the kernel's own errno), vgem as a foreign dma-buf exporter, the
 * driver's buffer debugfs files, /proc/self/pagemap and dma-buf counting.
 * Every function returns 0 or a negative errno.
 */
#ifndef ENPU_BUFFERS_H
#define ENPU_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include <enpu/enpu.h>

#define ENPU_PAGE_SIZE 4096u

int enpu_raw_bo_create(int fd, uint64_t size, uint32_t flags,
		       uint32_t *handle, uint64_t *size_out);
int enpu_raw_bo_info(int fd, uint32_t handle,
		     struct drm_enpu_bo_info *info);
int enpu_raw_bo_wait(int fd, uint32_t handle, uint32_t flags,
		     int64_t timeout_ns);
int enpu_raw_gem_close(int fd, uint32_t handle);
/* mmap()s the whole BO through BO_INFO's offset; NULL on failure. */
void *enpu_raw_bo_map(int fd, uint32_t handle, uint64_t size);
int enpu_raw_submit(int fd, struct drm_enpu_submit *submit);
/*
 * One job with the given BO list (handles, flags) and stream; fills the
 * strides and pointers. out_syncobj may be 0.
 */
int enpu_raw_submit_simple(int fd, const struct drm_enpu_submit_bo *bos,
			   uint32_t bo_count, const void *commands,
			   uint32_t commands_size, uint32_t flags,
			   uint32_t out_syncobj);
/* A context of the given priority on fd, and its destruction. */
int enpu_raw_context_create(int fd, uint32_t priority, uint32_t *id);
int enpu_raw_context_destroy(int fd, uint32_t id);
int enpu_prime_export(int fd, uint32_t handle, int *dmabuf_fd);
int enpu_prime_import(int fd, int dmabuf_fd, uint32_t *handle);

/* Opens a new fd on the same node as device (another DRM file). */
int enpu_reopen(enpu_device *device, int *fd);

/* modprobe vgem, then open its primary node (/dev/dri/card*). */
int vgem_open(int *fd);
/* A dumb buffer of at least size bytes (width 1024, 8 bpp). */
int vgem_create(int fd, uint64_t size, uint32_t *handle,
		uint64_t *size_out);
/* A dumb buffer of width x height at bpp bits per pixel. */
int vgem_create_image(int fd, uint32_t width, uint32_t height, uint32_t bpp,
		      uint32_t *handle, uint64_t *size_out);
void *vgem_map(int fd, uint32_t handle, uint64_t size);
int vgem_fence_attach(int fd, uint32_t handle, int write, uint32_t *fence);
int vgem_fence_signal(int fd, uint32_t fence);

/* Decimal value of debugfs cpu_copy_bytes. */
int enpu_cpu_copy_bytes(const char *debugfs_dir, uint64_t *bytes);

struct enpu_job_sg_bo {
	uint64_t size;
	uint32_t segments;
	char access[4];
	size_t listed;		/* segments stored below (capped) */
	uint64_t *address;	/* caller-provided arrays of capacity */
	uint64_t *length;
	size_t capacity;
};

/* Parses the entry of BO `index` in debugfs last_job_sg. */
int enpu_last_job_sg(const char *debugfs_dir, uint32_t index,
		     struct enpu_job_sg_bo *bo);

/*
 * Reads size bytes of physical memory at physical through /proc/kcore (its
 * RAM segments carry their physical address in p_paddr); needs root.
 * /proc/self/pagemap cannot name the pages of DRM mappings: they are
 * VM_PFNMAP, which the page walker skips, so the tests compare contents
 * at the device's addresses with the CPU mapping instead.
 */
int enpu_physical_read(uint64_t physical, void *buffer, size_t size);

/* Number of live dma-bufs from debugfs dma_buf/bufinfo ("Total N objects"). */
int enpu_dmabuf_count(long *count);
/*
 * Polls for up to ms until the count is back to expected (jobs drop their
 * references in a worker after their file closed); the last count seen
 * goes to count.
 */
int enpu_dmabuf_settle(long expected, int ms, long *count);

/* Milliseconds of sleep; a CLOCK_MONOTONIC ns timestamp. */
void enpu_sleep_ms(int ms);
int64_t enpu_now_ns(void);

#endif /* ENPU_BUFFERS_H */
