// SPDX-License-Identifier: MIT
/*
 * dma-bufs bound to graph inputs and outputs (a vgem or udmabuf camera
 * frame, a display buffer): the engine maps the buffer for the CPU
 * partitions and hands it to every backend that can import it
 * (seam_import: the NPU imports it as a BO), so whichever side reads or
 * writes it, nothing is copied at the seam. The session keeps a dup of the
 * fd until the binding is replaced or the session destroyed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine.h"

static void forget(struct enpu_rt_session *s, struct rt_dmabuf *d)
{
	if (d->fd < 0)
		return;
	for (size_t b = 0; b < s->active_count; b++)
		if (s->active[b].ops->seam_forget)
			s->active[b].ops->seam_forget(s->active[b].self, d->map);
	munmap(d->map, d->size);
	close(d->fd);
	d->fd = -1;
	d->map = NULL;
	d->size = 0;
}

void rt_engine_release_dmabufs(struct enpu_rt_session *s)
{
	for (size_t i = 0; s->in_dmabufs && i < s->graph.input_count; i++)
		forget(s, &s->in_dmabufs[i]);
	for (size_t i = 0; s->out_dmabufs && i < s->graph.output_count; i++)
		forget(s, &s->out_dmabufs[i]);
	free(s->in_dmabufs);
	free(s->out_dmabufs);
	s->in_dmabufs = s->out_dmabufs = NULL;
}

static int ensure_tables(struct enpu_rt_session *s)
{
	if (!s->in_dmabufs) {
		s->in_dmabufs = malloc((s->graph.input_count + 1) *
				       sizeof(*s->in_dmabufs));
		s->out_dmabufs = malloc((s->graph.output_count + 1) *
					sizeof(*s->out_dmabufs));
		if (!s->in_dmabufs || !s->out_dmabufs) {
			free(s->in_dmabufs);
			free(s->out_dmabufs);
			s->in_dmabufs = s->out_dmabufs = NULL;
			return rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
					    "out of memory");
		}
		for (size_t i = 0; i <= s->graph.input_count; i++)
			s->in_dmabufs[i] = (struct rt_dmabuf){ .fd = -1 };
		for (size_t i = 0; i <= s->graph.output_count; i++)
			s->out_dmabufs[i] = (struct rt_dmabuf){ .fd = -1 };
	}
	return 0;
}

/* Maps @fd (dup'd) and offers it to the backends. */
static int attach(struct enpu_rt_session *s, struct rt_dmabuf *d, int fd,
		  size_t bytes, const char *what)
{
	void *map;
	off_t end;
	int own;

	if (s->running)
		return rt_error_set(&s->errors, ENPU_RT_NOT_READY,
				    "%s: a run is in flight: run_wait before "
				    "binding", what);
	if (fd < 0 || !bytes)
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "%s: no dma-buf fd or size", what);
	own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0)
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "%s: fd %d: %s", what, fd, strerror(errno));
	/* A dma-buf tells its size by seeking to its end (so does a memfd):
	 * a mapping past it would fault at the first access, not here. */
	end = lseek(own, 0, SEEK_END);
	if (end >= 0 && (uint64_t)end < bytes) {
		close(own);
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "%s: the dma-buf holds %lld bytes, the "
				    "binding needs %zu", what, (long long)end,
				    bytes);
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
	if (map == MAP_FAILED) {
		int err = errno;

		close(own);
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "%s: mapping the dma-buf: %s", what,
				    strerror(err));
	}
	forget(s, d);
	d->fd = own;
	d->map = map;
	d->size = bytes;
	for (size_t b = 0; b < s->active_count; b++)
		if (s->active[b].ops->seam_import &&
		    s->active[b].ops->seam_import(s->active[b].self, own, map,
						  bytes))
			return rt_error_set(&s->errors, ENPU_RT_RUNTIME_ERROR,
					    "%s: backend %s cannot import the "
					    "dma-buf", what,
					    s->active[b].ops->name);
	return 0;
}

enum enpu_rt_status enpu_rt_session_bind_input_dmabuf(
	enpu_rt_session *s, size_t index, int32_t dtype, size_t rank,
	const int64_t *dims, int dmabuf_fd, size_t byte_size)
{
	int status;

	if (!s)
		return ENPU_RT_INVALID_ARGUMENT;
	if (index >= s->graph.input_count)
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input index %zu out of range", index);
	status = ensure_tables(s);
	if (!status)
		status = attach(s, &s->in_dmabufs[index], dmabuf_fd, byte_size,
				s->graph.values[s->graph.inputs[index]].name);
	if (status)
		return status;
	return enpu_rt_session_bind_input(s, index, dtype, rank, dims,
					  s->in_dmabufs[index].map, byte_size);
}

enum enpu_rt_status enpu_rt_session_bind_output_dmabuf(enpu_rt_session *s,
						       size_t index,
						       int dmabuf_fd,
						       size_t byte_size)
{
	int status;

	if (!s)
		return ENPU_RT_INVALID_ARGUMENT;
	if (index >= s->graph.output_count)
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "output index %zu out of range", index);
	status = ensure_tables(s);
	if (!status)
		status = attach(s, &s->out_dmabufs[index], dmabuf_fd, byte_size,
				s->graph.values[s->graph.outputs[index]].name);
	s->ran = 0;
	return status;
}

void *rt_engine_output_dmabuf(struct enpu_rt_session *s, int value,
			      size_t bytes)
{
	for (size_t i = 0; s->out_dmabufs && i < s->graph.output_count; i++)
		if (s->graph.outputs[i] == value && s->out_dmabufs[i].fd >= 0 &&
		    s->out_dmabufs[i].size >= bytes)
			return s->out_dmabufs[i].map;
	return NULL;
}
