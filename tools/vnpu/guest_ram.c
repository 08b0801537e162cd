// SPDX-License-Identifier: GPL-2.0
/*
 * Device DMA into guest RAM. The guest RAM file is mapped shared, and a
 * DMA address is a byte offset into it. Every access is bounds-checked
 * here, so a bad address from the guest is a DMA fault, never a host crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vnpu.h"

int guest_ram_map(struct guest_ram *ram, const char *path, char *why,
		  size_t why_size)
{
	struct stat st;
	void *base;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_size, "--ram %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		snprintf(why, why_size, "--ram %s: not a non-empty regular file",
			 path);
		close(fd);
		return -1;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		snprintf(why, why_size, "--ram %s: mmap: %s", path,
			 strerror(errno));
		return -1;
	}
	ram->base = base;
	ram->size = (uint64_t)st.st_size;
	return 0;
}

void guest_ram_unmap(struct guest_ram *ram)
{
	if (ram->base)
		munmap(ram->base, ram->size);
	ram->base = NULL;
	ram->size = 0;
}

bool guest_ram_range_ok(const struct guest_ram *ram, uint64_t addr,
			uint64_t len)
{
	return addr <= ram->size && len <= ram->size - addr;
}

bool guest_ram_read(const struct guest_ram *ram, uint64_t addr, void *dst,
		    uint64_t len)
{
	if (!guest_ram_range_ok(ram, addr, len))
		return false;
	memcpy(dst, ram->base + addr, len);
	return true;
}
