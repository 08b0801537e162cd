// SPDX-License-Identifier: MIT
/*
 * A dma-buf standing in for a camera frame: a vgem dumb buffer (the VM
 * has vgem; `modprobe vgem` is tried), filled through its own mapping and
 * exported as a dma-buf fd for enpu_rt_session_bind_input_dmabuf().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>
#include <xf86drm.h>

#include "drm_card.h"
#include "run.h"

static int open_vgem(void)
{
	if (access("/sys/module/vgem", F_OK) &&
	    system("modprobe vgem 2>/dev/null") != 0)
		return -1;
	return drm_card_open("vgem");
}

int run_dmabuf_create(struct run_dmabuf *d, const void *data, size_t bytes)
{
	/* Rows of 4 KiB: dumb buffer widths are capped, heights hardly. */
	struct drm_mode_create_dumb create = {
		.width = 1024, .height = (uint32_t)((bytes + 4095) / 4096),
		.bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	void *cpu;

	memset(d, 0, sizeof(*d));
	d->vgem = d->fd = -1;
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
	d->bytes = bytes;
	return 0;
}

void run_dmabuf_destroy(struct run_dmabuf *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->vgem >= 0) {
		struct drm_mode_destroy_dumb destroy = { .handle = d->handle };

		ioctl(d->vgem, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
		close(d->vgem);
	}
	d->fd = d->vgem = -1;
}

int run_inputs_bind_dmabuf(const struct run_inputs *in, enpu_rt_session *s,
			   struct run_dmabuf *d)
{
	const struct run_input *b = &in->inputs[0];

	if (!in->count)
		return -1;
	if ((d->fd < 0 && run_dmabuf_create(d, b->data, b->byte_size)) ||
	    enpu_rt_session_bind_input_dmabuf(s, 0, b->dtype, b->rank, b->dims,
					      d->fd, b->byte_size)) {
		fprintf(stderr, "enpu-run: binding a dma-buf: %s\n",
			enpu_rt_session_error(s));
		return -1;
	}
	return 0;
}
