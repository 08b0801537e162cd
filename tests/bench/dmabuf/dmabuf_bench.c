// SPDX-License-Identifier: GPL-2.0
/*
 * dmabuf-bench: a 1920x1080 RGB frame exported by vgem (standing in for a
 * camera) is read by the NPU (DMA_COPY into an ENPU BO), N times:
 *   zero-copy  the vgem dma-buf is imported and the device reads its pages;
 *   cpu-copy   the CPU first memcpy()s the frame from the vgem mapping into
 *              an ENPU BO, then the device does the same DMA_COPY from it.
 * Prints the time per frame of each path, the vnpu's modelled device time,
 * and the driver's CPU-copied bytes (debugfs cpu_copy_bytes) across the
 * zero-copy path, which must stay 0 (exit status 1 otherwise, or if the
 * bytes that arrive are wrong). Runs in the VM: make bench-dmabuf.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <enpu/enpu.h>

#include "drm_card.h"
#include "enpu_selftest.h"

#define WIDTH 1920
#define HEIGHT 1080
#define BYTES_PER_PIXEL 3
#define FRAME_BYTES ((uint64_t)WIDTH * HEIGHT * BYTES_PER_PIXEL)
/* vnpu timing model (docs/hw/vnpu.md, Interface 1.1). */
#define DMA_BYTES_PER_CYCLE 32

struct options {
	unsigned int frames;
	double speed;
};

struct vgem_frame {
	int fd;
	uint32_t handle;
	uint64_t size;
	unsigned char *map;
};

static double now_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int usage(const char *program)
{
	fprintf(stderr, "usage: %s [--frames N] [--speed F]\n"
		"  --frames N  frames per path (default 30)\n"
		"  --speed F   the vnpu's --speed, for the device-time model (default 1)\n",
		program);
	return 2;
}

static int parse_options(int argc, char **argv, struct options *options)
{
	options->frames = 30;
	options->speed = 1.0;
	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
			unsigned long frames = strtoul(argv[++i], &end, 10);

			if (*end || frames == 0 || frames > 100000)
				return -EINVAL;
			options->frames = (unsigned int)frames;
		} else if (!strcmp(argv[i], "--speed") && i + 1 < argc) {
			options->speed = strtod(argv[++i], &end);
			if (*end || !(options->speed > 0))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static int open_vgem(void)
{
	if (system("modprobe vgem 2>/dev/null") != 0)
		fprintf(stderr, "dmabuf-bench: modprobe vgem failed\n");
	return drm_card_open("vgem");
}

static int vgem_frame_create(struct vgem_frame *frame)
{
	struct drm_mode_create_dumb create = {
		.width = WIDTH, .height = HEIGHT, .bpp = 8 * BYTES_PER_PIXEL,
	};
	struct drm_mode_map_dumb map = { 0 };

	frame->fd = open_vgem();
	if (frame->fd < 0) {
		fprintf(stderr, "dmabuf-bench: no vgem device\n");
		return -ENODEV;
	}
	if (ioctl(frame->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) ||
	    create.size < FRAME_BYTES) {
		fprintf(stderr, "dmabuf-bench: vgem dumb buffer: %s\n",
			strerror(errno));
		return -EIO;
	}
	frame->handle = create.handle;
	frame->size = create.size;
	map.handle = create.handle;
	if (ioctl(frame->fd, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -errno;
	frame->map = mmap(NULL, frame->size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, frame->fd, (off_t)map.offset);
	if (frame->map == MAP_FAILED) {
		frame->map = NULL;
		return -errno;
	}
	/* A camera would have written it: the CPU fills it once. */
	for (uint64_t i = 0; i < FRAME_BYTES; i++)
		frame->map[i] = (unsigned char)(i * 7 + (i >> 11));
	return 0;
}

/* The driver's count of bytes it copied with the CPU (debugfs). */
static int debugfs_cpu_copy_bytes(uint64_t *bytes)
{
	char dir[256], text[64];
	int status = enpu_debugfs_dir(sizeof(dir), dir);

	if (!status)
		status = enpu_debugfs_read(dir, "cpu_copy_bytes", sizeof(text),
					   text);
	if (!status)
		status = sscanf(text, "%" SCNu64, bytes) == 1 ? 0 : -EIO;
	return status;
}

/* One device read of the frame: DMA_COPY source -> destination, waited. */
static int device_read(enpu_device *device, enpu_bo *source,
		       enpu_bo *destination, enpu_cmdbuf *cmdbuf,
		       uint32_t syncobj)
{
	struct enpu_submit_bo bos[2] = {
		{ source, DRM_ENPU_SUBMIT_BO_READ, 0 },
		{ destination, DRM_ENPU_SUBMIT_BO_WRITE, 0 },
	};
	struct enpu_submit_desc desc = {
		.bos = bos, .bo_count = 2, .out_syncobj = syncobj,
	};
	uint64_t seqno;
	int status;

	status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
				  &desc.commands_size);
	if (!status)
		status = enpu_submit(device, &desc, &seqno);
	if (!status)
		status = enpu_syncobj_wait(device, syncobj, 30000000000LL, 0);
	return status;
}

static void report_failure(enpu_device *device, const char *what, int status)
{
	const char *message = "";

	enpu_device_last_error(device, &message);
	fprintf(stderr, "dmabuf-bench: %s failed: %s (%s)\n", what,
		strerror(-status), message);
}

static int run(const struct options *options, enpu_device *device,
	       struct vgem_frame *frame)
{
	enpu_bo *imported = NULL, *staging = NULL, *destination = NULL;
	uint64_t copied_before = 0, copied_after = 0, clock_khz = 0;
	double zero_copy = 0, cpu_copy = 0, memcpy_time = 0, start;
	unsigned char *staging_map = NULL, *destination_map = NULL;
	enpu_cmdbuf *cmdbuf = NULL;
	uint32_t syncobj = 0;
	int dmabuf = -1, status, result = 1;

	status = drmPrimeHandleToFD(frame->fd, frame->handle,
				    DRM_CLOEXEC | DRM_RDWR, &dmabuf) ? -errno :
									0;
	if (!status)
		status = enpu_bo_import(device, dmabuf, &imported);
	if (dmabuf >= 0)
		close(dmabuf);
	if (!status)
		status = enpu_bo_create(device, FRAME_BYTES, 0, &staging);
	if (!status)
		status = enpu_bo_create(device, FRAME_BYTES, 0, &destination);
	if (!status)
		status = enpu_bo_map(staging, (void **)&staging_map);
	if (!status)
		status = enpu_bo_map(destination, (void **)&destination_map);
	if (!status)
		status = enpu_cmdbuf_create(&cmdbuf);
	if (!status)
		status = enpu_cmdbuf_dma_copy(cmdbuf, 0, 0, 1, 0, FRAME_BYTES);
	if (!status)
		status = enpu_syncobj_create(device, &syncobj);
	if (!status)
		status = enpu_device_get_param(device,
					       DRM_ENPU_PARAM_CLOCK_CUR_KHZ,
					       &clock_khz);
	if (status) {
		report_failure(device, "setup", status);
		goto out;
	}
	status = debugfs_cpu_copy_bytes(&copied_before);
	if (status) {
		fprintf(stderr, "dmabuf-bench: debugfs cpu_copy_bytes: %s\n",
			strerror(-status));
		goto out;
	}

	/* Warm-up of both paths (first-touch faults, page pinning). */
	status = device_read(device, imported, destination, cmdbuf, syncobj);
	if (!status)
		status = device_read(device, staging, destination, cmdbuf,
				     syncobj);
	if (status) {
		report_failure(device, "warm-up", status);
		goto out;
	}

	start = now_seconds();
	for (unsigned int i = 0; i < options->frames && !status; i++)
		status = device_read(device, imported, destination, cmdbuf,
				     syncobj);
	zero_copy = (now_seconds() - start) / options->frames;
	if (status) {
		report_failure(device, "zero-copy frame", status);
		goto out;
	}
	if (memcmp(destination_map, frame->map, FRAME_BYTES)) {
		fprintf(stderr, "dmabuf-bench: zero-copy frame arrived wrong\n");
		goto out;
	}
	status = debugfs_cpu_copy_bytes(&copied_after);
	if (status)
		goto out;

	memset(destination_map, 0, FRAME_BYTES);
	for (unsigned int i = 0; i < options->frames && !status; i++) {
		double copy_start = now_seconds();

		memcpy(staging_map, frame->map, FRAME_BYTES);
		memcpy_time += now_seconds() - copy_start;
		status = device_read(device, staging, destination, cmdbuf,
				     syncobj);
		cpu_copy += now_seconds() - copy_start;
	}
	cpu_copy /= options->frames;
	memcpy_time /= options->frames;
	if (status) {
		report_failure(device, "cpu-copy frame", status);
		goto out;
	}
	if (memcmp(destination_map, frame->map, FRAME_BYTES)) {
		fprintf(stderr, "dmabuf-bench: cpu-copy frame arrived wrong\n");
		goto out;
	}

	{
		double cycles = (double)FRAME_BYTES / DMA_BYTES_PER_CYCLE;
		double device_ms = clock_khz ? cycles / ((double)clock_khz *
						 1e3) * 1e3 / options->speed :
					     0;

		printf("dmabuf-bench: %ux%u RGB frame (%" PRIu64
		       " bytes) from vgem, read by the NPU (DMA_COPY), %u frames per path\n",
		       WIDTH, HEIGHT, FRAME_BYTES, options->frames);
		printf("  vnpu model: %.0f cycles per frame at %" PRIu64
		       " kHz, --speed %g: %.3f ms device time per frame\n",
		       cycles, clock_khz, options->speed, device_ms);
		printf("  %-34s %10.3f ms/frame\n",
		       "zero-copy (imported dma-buf):", zero_copy * 1e3);
		printf("  %-34s %10.3f ms/frame (memcpy %.3f ms + device read)\n",
		       "cpu-copy (memcpy, then device):", cpu_copy * 1e3,
		       memcpy_time * 1e3);
		printf("  driver CPU bytes copied on the zero-copy path: %" PRIu64
		       " (cpu_copy_bytes %" PRIu64 " -> %" PRIu64 ")\n",
		       copied_after - copied_before, copied_before,
		       copied_after);
	}
	if (copied_after != 0) {
		fprintf(stderr, "dmabuf-bench: the driver copied bytes on the zero-copy path\n");
		goto out;
	}
	result = 0;
out:
	if (syncobj)
		enpu_syncobj_destroy(device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_bo_destroy(imported);
	enpu_bo_destroy(staging);
	enpu_bo_destroy(destination);
	return result;
}

int main(int argc, char **argv)
{
	struct vgem_frame frame = { .fd = -1 };
	struct enpu_error error = { "" };
	struct options options;
	enpu_device *device;
	int result;

	if (parse_options(argc, argv, &options))
		return usage(argv[0]);
	if (enpu_device_open_index(0, &device, &error)) {
		fprintf(stderr, "dmabuf-bench: %s\n", error.message);
		return 1;
	}
	if (vgem_frame_create(&frame)) {
		enpu_device_close(device);
		return 1;
	}
	result = run(&options, device, &frame);
	munmap(frame.map, frame.size);
	close(frame.fd);
	enpu_device_close(device);
	return result;
}
