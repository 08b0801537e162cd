// SPDX-License-Identifier: MIT
/*
 * Buffers for the kernel tests that end exactly at an inaccessible page,
 * so that a kernel reading one byte past its input faults instead of
 * passing by luck.
 */
#include "test_cpu.h"

#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t mapped_size(size_t size)
{
	size_t page = page_size();

	return (size + page - 1) / page * page + page;
}

void *test_guarded_alloc(size_t size)
{
	size_t total = mapped_size(size), page = page_size();
	uint8_t *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base + total - page, page, PROT_NONE)) {
		munmap(base, total);
		return NULL;
	}
	return base + total - page - size;
}

void test_guarded_free(void *buffer, size_t size)
{
	size_t total = mapped_size(size), page = page_size();

	if (buffer)
		munmap((uint8_t *)buffer + size + page - total, total);
}
