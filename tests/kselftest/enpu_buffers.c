// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <vgem_drm.h>

#include "drm_card.h"
#include "enpu_buffers.h"
#include "enpu_selftest.h"

static int ioctl_status(int fd, unsigned long request, void *argument)
{
	/* Plain ioctl: the tests want the kernel's errno, EINTR included. */
	return ioctl(fd, request, argument) ? -errno : 0;
}

int enpu_raw_bo_create(int fd, uint64_t size, uint32_t flags,
		       uint32_t *handle, uint64_t *size_out)
{
	struct drm_enpu_bo_create argument = { .size = size, .flags = flags };
	int status = ioctl_status(fd, DRM_IOCTL_ENPU_BO_CREATE, &argument);

	if (status)
		return status;
	*handle = argument.handle;
	if (size_out)
		*size_out = argument.size_out;
	return 0;
}

int enpu_raw_bo_info(int fd, uint32_t handle, struct drm_enpu_bo_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return ioctl_status(fd, DRM_IOCTL_ENPU_BO_INFO, info);
}

int enpu_raw_bo_wait(int fd, uint32_t handle, uint32_t flags,
		     int64_t timeout_ns)
{
	struct drm_enpu_bo_wait argument = {
		.handle = handle,
		.flags = flags,
		.timeout_ns = timeout_ns,
	};

	return ioctl_status(fd, DRM_IOCTL_ENPU_BO_WAIT, &argument);
}

int enpu_raw_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close argument = { .handle = handle };

	return ioctl_status(fd, DRM_IOCTL_GEM_CLOSE, &argument);
}

void *enpu_raw_bo_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_enpu_bo_info info;
	void *map;

	if (enpu_raw_bo_info(fd, handle, &info) || !info.mmap_offset)
		return NULL;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)info.mmap_offset);
	return map == MAP_FAILED ? NULL : map;
}

int enpu_raw_submit(int fd, struct drm_enpu_submit *submit)
{
	return ioctl_status(fd, DRM_IOCTL_ENPU_SUBMIT, submit);
}

int enpu_raw_submit_simple(int fd, const struct drm_enpu_submit_bo *bos,
			   uint32_t bo_count, const void *commands,
			   uint32_t commands_size, uint32_t flags,
			   uint32_t out_syncobj)
{
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)bos,
		.commands = (uintptr_t)commands,
		.bo_count = bo_count,
		.bo_stride = sizeof(struct drm_enpu_submit_bo),
		.commands_size = commands_size,
		.in_fence_stride = sizeof(struct drm_enpu_fence),
		.out_syncobj = out_syncobj,
		.flags = flags,
	};

	return enpu_raw_submit(fd, &submit);
}

int enpu_raw_context_create(int fd, uint32_t priority, uint32_t *id)
{
	struct drm_enpu_context_create create = { .priority = priority };
	int status = ioctl_status(fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &create);

	if (!status)
		*id = create.context;
	return status;
}

int enpu_raw_context_destroy(int fd, uint32_t id)
{
	struct drm_enpu_context_destroy destroy = { .context = id };

	return ioctl_status(fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &destroy);
}

int enpu_prime_export(int fd, uint32_t handle, int *dmabuf_fd)
{
	return drmPrimeHandleToFD(fd, handle, DRM_CLOEXEC | DRM_RDWR,
				  dmabuf_fd) ? -errno : 0;
}

int enpu_prime_import(int fd, int dmabuf_fd, uint32_t *handle)
{
	return drmPrimeFDToHandle(fd, dmabuf_fd, handle) ? -errno : 0;
}

int enpu_reopen(enpu_device *device, int *fd)
{
	const char *path;
	int opened;

	if (enpu_device_path(device, &path))
		return -EINVAL;
	opened = open(path, O_RDWR | O_CLOEXEC);
	if (opened < 0)
		return -errno;
	*fd = opened;
	return 0;
}

int vgem_open(int *fd)
{
	int status;

	/* Quiet if it is already loaded or built in. */
	enpu_run("modprobe vgem 2>/dev/null");
	status = drm_card_open("vgem");
	if (status < 0)
		return status;
	*fd = status;
	return 0;
}

int vgem_create_image(int fd, uint32_t width, uint32_t height, uint32_t bpp,
		      uint32_t *handle, uint64_t *size_out)
{
	struct drm_mode_create_dumb argument = {
		.width = width,
		.height = height,
		.bpp = bpp,
	};
	int status = ioctl_status(fd, DRM_IOCTL_MODE_CREATE_DUMB, &argument);

	if (status)
		return status;
	*handle = argument.handle;
	*size_out = argument.size;
	return 0;
}

int vgem_create(int fd, uint64_t size, uint32_t *handle, uint64_t *size_out)
{
	uint64_t rows = (size + 1023) / 1024;

	return vgem_create_image(fd, 1024, (uint32_t)rows, 8, handle,
				 size_out);
}

void *vgem_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_mode_map_dumb argument = { .handle = handle };
	void *map;

	if (ioctl_status(fd, DRM_IOCTL_MODE_MAP_DUMB, &argument))
		return NULL;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)argument.offset);
	return map == MAP_FAILED ? NULL : map;
}

int vgem_fence_attach(int fd, uint32_t handle, int write, uint32_t *fence)
{
	struct drm_vgem_fence_attach argument = {
		.handle = handle,
		.flags = write ? VGEM_FENCE_WRITE : 0,
	};
	int status = ioctl_status(fd, DRM_IOCTL_VGEM_FENCE_ATTACH, &argument);

	if (status)
		return status;
	*fence = argument.out_fence;
	return 0;
}

int vgem_fence_signal(int fd, uint32_t fence)
{
	struct drm_vgem_fence_signal argument = { .fence = fence };

	return ioctl_status(fd, DRM_IOCTL_VGEM_FENCE_SIGNAL, &argument);
}

int enpu_cpu_copy_bytes(const char *debugfs_dir, uint64_t *bytes)
{
	char text[64], *end;
	int status;

	status = enpu_debugfs_read(debugfs_dir, "cpu_copy_bytes", sizeof(text),
				   text);
	if (status)
		return status;
	errno = 0;
	*bytes = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

/* "bo=<index> handle-size=<bytes> segs=<n> access=<r|w|rw>" */
static int parse_bo_line(const char *line, struct enpu_job_sg_bo *bo,
			 long long *index)
{
	long long size, segments;
	const char *access;

	if (enpu_text_value(line, "bo", index) ||
	    (enpu_text_value(line, "handle-size", &size) &&
	     enpu_text_value(line, "size", &size)) ||
	    enpu_text_value(line, "segs", &segments))
		return -EINVAL;
	access = strstr(line, "access=");
	if (!access)
		return -EINVAL;
	access += strlen("access=");
	memset(bo->access, 0, sizeof(bo->access));
	for (size_t i = 0; i < sizeof(bo->access) - 1 &&
			   (access[i] == 'r' || access[i] == 'w'); i++)
		bo->access[i] = access[i];
	bo->size = (uint64_t)size;
	bo->segments = (uint32_t)segments;
	bo->listed = 0;
	return 0;
}

int enpu_last_job_sg(const char *debugfs_dir, uint32_t index,
		     struct enpu_job_sg_bo *bo)
{
	size_t text_size = 1 << 20;
	char *text = malloc(text_size), *line, *save = NULL;
	int found = 0, in_wanted = 0, status;

	if (!text)
		return -ENOMEM;
	status = enpu_debugfs_read(debugfs_dir, "last_job_sg", text_size,
				   text);
	if (status) {
		free(text);
		return status;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long address, length;
		long long line_index;

		if (!strncmp(line, "bo=", 3)) {
			struct enpu_job_sg_bo parsed = *bo;

			if (parse_bo_line(line, &parsed, &line_index)) {
				status = -EINVAL;
				break;
			}
			in_wanted = line_index == index;
			if (in_wanted) {
				*bo = parsed;
				found = 1;
			}
			continue;
		}
		if (sscanf(line, " 0x%llx %llu", &address, &length) != 2) {
			status = -EINVAL;
			break;
		}
		if (in_wanted && bo->listed < bo->capacity) {
			bo->address[bo->listed] = address;
			bo->length[bo->listed] = length;
			bo->listed++;
		}
	}
	free(text);
	if (status)
		return status;
	return found ? 0 : -ENOENT;
}

int enpu_physical_read(uint64_t physical, void *buffer, size_t size)
{
	Elf64_Ehdr header;
	int fd, status = -ENOENT;

	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &header, sizeof(header), 0) != sizeof(header) ||
	    memcmp(header.e_ident, ELFMAG, SELFMAG) ||
	    header.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return -EIO;
	}
	for (unsigned int i = 0; i < header.e_phnum; i++) {
		Elf64_Phdr segment;
		ssize_t got;

		if (pread(fd, &segment, sizeof(segment),
			  (off_t)(header.e_phoff + i * sizeof(segment))) !=
		    sizeof(segment)) {
			status = -EIO;
			break;
		}
		if (segment.p_type != PT_LOAD ||
		    segment.p_paddr == (Elf64_Addr)-1 ||
		    physical < segment.p_paddr ||
		    physical - segment.p_paddr + size > segment.p_memsz)
			continue;
		got = pread(fd, buffer, size,
			    (off_t)(segment.p_offset + physical -
				    segment.p_paddr));
		status = got == (ssize_t)size ? 0 : got < 0 ? -errno : -EIO;
		break;
	}
	close(fd);
	return status;
}

int enpu_dmabuf_count(long *count)
{
	char line[512];
	FILE *file = fopen("/sys/kernel/debug/dma_buf/bufinfo", "re");
	int status = -ENOENT;

	if (!file)
		return -errno;
	while (fgets(line, sizeof(line), file)) {
		if (sscanf(line, "Total %ld objects", count) == 1)
			status = 0;
	}
	fclose(file);
	return status;
}

int enpu_dmabuf_settle(long expected, int ms, long *count)
{
	for (int waited = 0; waited <= ms; waited += 100) {
		int status = enpu_dmabuf_count(count);

		if (status)
			return status;
		if (*count == expected)
			return 0;
		enpu_sleep_ms(100);
	}
	return 0;
}

void enpu_sleep_ms(int ms)
{
	struct timespec delay = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&delay, NULL);
}

int64_t enpu_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
