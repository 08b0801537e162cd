// SPDX-License-Identifier: MIT
/*
 * A dma-buf standing in for a camera frame, filled by the "camera" through
 * its own mapping and exported as a dma-buf fd for
 * enpu_rt_session_bind_input_dmabuf(). Two exporters, because the NPU
 * imports them through different paths: a vgem dumb buffer (the VM has
 * vgem; `modprobe vgem` is tried), a GEM driver's BO as a display or GPU
 * would hand one out; and a udmabuf over a sealed memfd (/dev/udmabuf:
 * the stock 6.12 kernels have it, Debian's 6.1 does not), plain shmem
 * pages as a V4L2 or virtio producer would.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include <drm.h>
#include <drm_mode.h>
#include <xf86drm.h>

#include "drm_card.h"
#include "run.h"

static const char *const kind_names[] = {
	[RUN_BUFFER_VGEM] = "vgem",
	[RUN_BUFFER_UDMABUF] = "udmabuf",
};

int run_buffer_kind_parse(const char *name, enum run_buffer_kind *kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i])) {
			*kind = (enum run_buffer_kind)i;
			return 0;
		}
	return -1;
}

const char *run_buffer_kind_name(enum run_buffer_kind kind)
{
	return kind_names[kind];
}

static int open_vgem(void)
{
	if (access("/sys/module/vgem", F_OK) &&
	    system("modprobe vgem 2>/dev/null") != 0)
		return -1;
	return drm_card_open("vgem");
}

static int create_vgem(struct run_dmabuf *d, const void *data, size_t bytes)
{
	/* Rows of 4 KiB: dumb buffer widths are capped, heights hardly. */
	struct drm_mode_create_dumb create = {
		.width = 1024, .height = (uint32_t)((bytes + 4095) / 4096),
		.bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	void *cpu;

	d->vgem = open_vgem();
	if (d->vgem < 0) {
		fprintf(stderr, "enpu-run: no vgem device for a dma-buf\n");
		return -1;
	}
	if (ioctl(d->vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create) ||
	    create.size < bytes) {
		fprintf(stderr, "enpu-run: vgem buffer: %s\n", strerror(errno));
		return -1;
	}
	d->handle = create.handle;
	d->size = create.size;
	map.handle = create.handle;
	if (ioctl(d->vgem, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -1;
	cpu = mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_SHARED, d->vgem,
		   (off_t)map.offset);
	if (cpu == MAP_FAILED)
		return -1;
	/* The "camera" writes the frame. */
	memcpy(cpu, data, bytes);
	munmap(cpu, d->size);
	if (drmPrimeHandleToFD(d->vgem, d->handle, DRM_CLOEXEC | DRM_RDWR,
			       &d->fd)) {
		fprintf(stderr, "enpu-run: exporting the vgem buffer: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static int create_udmabuf(struct run_dmabuf *d, const void *data,
			  size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	struct udmabuf_create create = { .flags = UDMABUF_FLAGS_CLOEXEC };
	int dev;
	void *cpu;

	/* udmabuf takes whole pages of a memfd that can no longer shrink. */
	d->size = (bytes + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
	d->memfd = memfd_create("enpu-run-frame", MFD_CLOEXEC |
				MFD_ALLOW_SEALING);
	if (d->memfd < 0 || ftruncate(d->memfd, (off_t)d->size) ||
	    fcntl(d->memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		fprintf(stderr, "enpu-run: memfd for a udmabuf: %s\n",
			strerror(errno));
		return -1;
	}
	cpu = mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_SHARED, d->memfd,
		   0);
	if (cpu == MAP_FAILED) {
		fprintf(stderr, "enpu-run: mapping the memfd: %s\n",
			strerror(errno));
		return -1;
	}
	memcpy(cpu, data, bytes);
	munmap(cpu, d->size);
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		fprintf(stderr, "enpu-run: /dev/udmabuf: %s (CONFIG_UDMABUF)\n",
			strerror(errno));
		return -1;
	}
	create.memfd = (uint32_t)d->memfd;
	create.size = d->size;
	d->fd = ioctl(dev, UDMABUF_CREATE, &create);
	if (d->fd < 0)
		fprintf(stderr, "enpu-run: UDMABUF_CREATE: %s\n",
			strerror(errno));
	close(dev);
	return d->fd < 0 ? -1 : 0;
}

int run_dmabuf_create(struct run_dmabuf *d, enum run_buffer_kind kind,
		      const void *data, size_t bytes)
{
	int status;

	*d = (struct run_dmabuf)RUN_DMABUF_INIT;
	d->kind = kind;
	status = kind == RUN_BUFFER_UDMABUF ? create_udmabuf(d, data, bytes) :
					      create_vgem(d, data, bytes);
	if (status) {
		run_dmabuf_destroy(d);
		return -1;
	}
	d->bytes = bytes;
	return 0;
}

void run_dmabuf_destroy(struct run_dmabuf *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->memfd >= 0)
		close(d->memfd);
	if (d->vgem >= 0) {
		struct drm_mode_destroy_dumb destroy = { .handle = d->handle };

		if (d->handle)
			ioctl(d->vgem, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
		close(d->vgem);
	}
	d->fd = d->memfd = d->vgem = -1;
	d->handle = 0;
}

int run_inputs_bind_dmabuf(const struct run_inputs *in, enpu_rt_session *s,
			   enum run_buffer_kind kind, struct run_dmabuf *d)
{
	const struct run_input *b;

	if (!in->count)
		return -1;
	b = &in->inputs[0];
	if (d->fd < 0 && run_dmabuf_create(d, kind, b->data, b->byte_size))
		return -1;
	if (enpu_rt_session_bind_input_dmabuf(s, 0, b->dtype, b->rank, b->dims,
					      d->fd, b->byte_size)) {
		fprintf(stderr, "enpu-run: binding a dma-buf: %s\n",
			enpu_rt_session_error(s));
		return -1;
	}
	return 0;
}

uint64_t run_seam_copies(const enpu_rt_session *s)
{
	uint64_t bytes = 0;

	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		if (!enpu_rt_session_partition(s, p, &info))
			bytes += info.copied_bytes;
	}
	return bytes;
}
