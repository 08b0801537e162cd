// SPDX-License-Identifier: MIT
/*
 * The NPU backend (struct rt_backend_ops): a session's connection to one
 * ENPU device through libenpu. open() finds the device (or says why there
 * is none), claim() is npu_claim.c, compile() is the cache or the compiler
 * plus the partition's BOs (arena, constants) and a syncobj; run() points
 * the job at the seams' BOs, submits, and returns with the fence in
 * flight; wait() waits for it and reads the job's status.
 *
 * Seams. The engine asks the backend for the memory of every value at a
 * seam it touches (seam_alloc): a BO mapped for the host, so the CPU side
 * reads and writes the very bytes the device does and nothing is copied.
 * A seam the backend did not allocate (a graph input in the caller's
 * memory) goes through a staging BO, and the bytes copied are counted
 * (enpu_rt_session_partition()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "npu.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int device_error(struct npu_backend *b, struct rt_error_sink *why,
			int status, const char *what)
{
	const char *m = "";

	if (b->device)
		enpu_device_last_error(b->device, &m);
	return rt_error_set(why, ENPU_RT_RUNTIME_ERROR, "NPU: %s: %s", what,
			    m && *m ? m : strerror(-status));
}

/* Why there is no device, in terms of what the user can do about it. */
static void explain_no_device(struct rt_error_sink *why)
{
	if (access("/sys/module/enpu", F_OK))
		rt_error_set(why, ENPU_RT_UNSUPPORTED,
			     "no ENPU device: the enpu kernel module is not "
			     "loaded (modprobe enpu; see kernel/README.md)");
	else if (access("/sys/bus/pci/drivers/enpu", F_OK) &&
		 access("/sys/bus/platform/drivers/enpu", F_OK))
		rt_error_set(why, ENPU_RT_UNSUPPORTED,
			     "no ENPU device: module enpu is loaded but "
			     "registered no driver");
	else
		rt_error_set(why, ENPU_RT_UNSUPPORTED,
			     "no ENPU device: module enpu is loaded but no "
			     "device node is bound to it (is the vnpu "
			     "attached? see dmesg)");
}

static int open_device(struct npu_backend *b, const char *path,
		       struct rt_error_sink *why)
{
	struct enpu_error failure = { "" };
	enpu_device_list *list = NULL;
	size_t count = 0;
	int status;

	if (path) {
		status = enpu_device_open_path(path, &b->device, &failure);
		return status ? rt_error_set(why, ENPU_RT_UNSUPPORTED, "NPU: %s",
					     failure.message) : 0;
	}
	status = enpu_device_list_create(&list, &failure);
	if (status)
		return rt_error_set(why, ENPU_RT_UNSUPPORTED, "NPU: %s",
				    failure.message);
	enpu_device_list_count(list, &count);
	enpu_device_list_destroy(list);
	if (!count) {
		explain_no_device(why);
		return ENPU_RT_UNSUPPORTED;
	}
	status = enpu_device_open_index(0, &b->device, &failure);
	return status ? rt_error_set(why, ENPU_RT_UNSUPPORTED, "NPU: %s",
				     failure.message) : 0;
}

static void npu_close(void *self)
{
	struct npu_backend *b = self;

	if (!b)
		return;
	for (size_t i = 0; i < b->seam_count; i++) {
		if (!b->seams[i].imported)
			enpu_bo_unmap(b->seams[i].bo);
		enpu_bo_destroy(b->seams[i].bo);
	}
	free(b->seams);
	enpu_context_destroy(b->context);
	enpu_device_close(b->device);
	free(b);
}

static int npu_open(const struct rt_backend_env *env, void **self,
		    struct rt_backend_info *info, struct rt_error_sink *why)
{
	struct npu_backend *b = calloc(1, sizeof(*b));
	const char *version = "";
	uint64_t busy;
	int status;

	*self = NULL;
	if (!b)
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory opening the NPU backend");
	b->cpu = env->cpu;
	b->errors = env->errors;
	b->model_hash = env->model_hash;
	b->bound_ns = NPU_COMMAND_BOUND_NS;
	status = open_device(b, env->device_path, why);
	if (!status) {
		status = enpu_device_query_params(b->device, sizeof(b->params),
						  &b->params);
		if (status)
			status = device_error(b, why, status, "GET_PARAM");
	}
	if (!status && b->params.hw_version < (1u << 16 | 2))
		status = rt_error_set(why, ENPU_RT_UNSUPPORTED,
				      "NPU: hardware interface %llu.%llu has "
				      "no layer commands (1.2 needed)",
				      (unsigned long long)(b->params.hw_version >> 16),
				      (unsigned long long)(b->params.hw_version &
							   0xffff));
	if (!status) {
		status = enpu_context_create(b->device, DRM_ENPU_PRIORITY_NORMAL,
					     &b->context);
		if (status)
			status = device_error(b, why, status, "context");
		else
			enpu_context_id(b->context, &b->context_id);
	}
	if (status) {
		npu_close(b);
		return status;
	}
	enpu_device_driver_version(b->device, &version);
	snprintf(b->driver_version, sizeof(b->driver_version), "%s", version);
	snprintf(b->cache_dir, sizeof(b->cache_dir), "%s",
		 env->cache_dir ? env->cache_dir : "");
	b->stream_copies = env->stream_copies;
	/* Profiling only (enpu_rt_options_set_device_time()). */
	if (!env->device_time ||
	    npu_counters_find(b->counters, sizeof(b->counters)) ||
	    npu_counters_busy_ns(b->counters, &busy))
		b->counters[0] = 0;
	memset(info, 0, sizeof(*info));
	info->dispatch_ns = NPU_DISPATCH_NS;
	info->shares_host_memory = 1;
	info->asynchronous = 1;
	*self = b;
	return 0;
}

static void npu_claim_op(void *self, const struct rt_graph *g, size_t n,
			 struct rt_claim *claim)
{
	npu_claim(self, g, n, claim);
}

static struct npu_seam_bo *seam_of(struct npu_backend *b, const void *data,
				   uint64_t bytes)
{
	for (size_t i = 0; i < b->seam_count; i++)
		if (b->seams[i].map == data && bytes <= b->seams[i].size)
			return &b->seams[i];
	return NULL;
}

static void *npu_seam_alloc(void *self, size_t bytes)
{
	struct npu_backend *b = self;
	struct npu_seam_bo *grown, *s;
	void *map;

	grown = realloc(b->seams, (b->seam_count + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	b->seams = grown;
	s = &b->seams[b->seam_count];
	memset(s, 0, sizeof(*s));
	if (enpu_bo_create(b->device, bytes ? bytes : 1, 0, &s->bo))
		return NULL;
	if (enpu_bo_map(s->bo, &map)) {
		enpu_bo_destroy(s->bo);
		return NULL;
	}
	s->map = map;
	enpu_bo_size(s->bo, &s->size);
	b->seam_count++;
	return map;
}

static void npu_seam_free(void *self, void *data)
{
	struct npu_backend *b = self;

	for (size_t i = 0; i < b->seam_count; i++)
		if (b->seams[i].map == data) {
			if (!b->seams[i].imported)
				enpu_bo_unmap(b->seams[i].bo);
			enpu_bo_destroy(b->seams[i].bo);
			b->seams[i] = b->seams[--b->seam_count];
			return;
		}
}

/* A dma-buf bound by the caller: imported, found again by its mapping. */
static int npu_seam_import(void *self, int fd, void *map, size_t bytes)
{
	struct npu_backend *b = self;
	struct npu_seam_bo *grown;
	enpu_bo *bo;
	uint64_t size = 0;

	grown = realloc(b->seams, (b->seam_count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	b->seams = grown;
	if (enpu_bo_import(b->device, fd, &bo))
		return -EINVAL;
	enpu_bo_size(bo, &size);
	if (size < bytes) {
		enpu_bo_destroy(bo);
		return -EINVAL;
	}
	b->seams[b->seam_count++] = (struct npu_seam_bo){ bo, map, bytes, 1 };
	return 0;
}

static void npu_release(void *self, void *compiled)
{
	struct npu_backend *b = self;
	struct npu_compiled *c = compiled;

	if (!c)
		return;
	if (c->busy)
		enpu_syncobj_wait(b->device, c->syncobj, NPU_JOB_TIMEOUT_NS, 0);
	for (uint32_t i = 0; c->staging && i < c->boundary_count; i++) {
		if (c->staging_map && c->staging_map[i])
			enpu_bo_unmap(c->staging[i]);
		enpu_bo_destroy(c->staging[i]);
	}
	free(c->staging);
	free(c->staging_map);
	free(c->list);
	if (c->arena_map)
		enpu_bo_unmap(c->arena);
	if (c->consts_map)
		enpu_bo_unmap(c->consts_bo);
	enpu_bo_destroy(c->arena);
	enpu_bo_destroy(c->consts_bo);
	if (c->syncobj)
		enpu_syncobj_destroy(b->device, c->syncobj);
	enpu_stream_destroy(c->stream_obj);
	npu_compiled_free_form(c);
	free(c);
}

/* The device side of a compiled form: BOs, constants, a syncobj. */
static int instantiate(struct npu_backend *b, struct npu_compiled *c,
		       struct rt_error_sink *why)
{
	int status;

	status = enpu_bo_create(b->device, c->arena_size, 0, &c->arena);
	if (status)
		return device_error(b, why, status, "arena BO");
	status = enpu_bo_create(b->device, c->consts_size, 0, &c->consts_bo);
	if (status)
		return device_error(b, why, status, "constants BO");
	/*
	 * Both BOs stay mapped while the form lives, though the CPU touches
	 * only the constants, once: a mapping holds the pages of a shmem BO,
	 * so each job's pin in SUBMIT finds them resident and the unpin when
	 * it retires keeps them, where otherwise both walk every page of the
	 * BO (looked up again in the shmem file, then released) on every job.
	 */
	status = enpu_bo_map(c->consts_bo, &c->consts_map);
	if (status)
		return device_error(b, why, status, "mapping the constants");
	memcpy(c->consts_map, c->consts, c->consts_size);
	status = enpu_bo_map(c->arena, &c->arena_map);
	if (status)
		return device_error(b, why, status, "mapping the arena");
	status = enpu_syncobj_create(b->device, &c->syncobj);
	if (status)
		return device_error(b, why, status, "syncobj");
	/*
	 * The stream is the same on every run: handed to the kernel once,
	 * each SUBMIT copies none of it and, with the same BOs, validates
	 * none of it (a 17 KB MobileNetV2 stream cost a TCG guest about
	 * 150 us of every SUBMIT: copy, buffer tail, validator).
	 */
	if (c->stream_size && !b->stream_copies) {
		status = enpu_stream_create(b->device, c->stream,
					    c->stream_size, &c->stream_obj);
		if (status)
			return device_error(b, why, status, "stream object");
	}
	c->staging = calloc(c->boundary_count + 1, sizeof(*c->staging));
	c->staging_map = calloc(c->boundary_count + 1,
				sizeof(*c->staging_map));
	c->list = calloc(c->boundary_count + NPU_BO_SEAMS, sizeof(*c->list));
	if (!c->staging || !c->staging_map || !c->list)
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory for the NPU job");
	/* The constants were copied; keep the form small. */
	free(c->consts);
	c->consts = NULL;
	return 0;
}

static int npu_compile_op(void *self, struct rt_graph *g,
			  const struct rt_partition *p, void **compiled,
			  struct rt_error_sink *why)
{
	struct npu_backend *b = self;
	struct npu_compiled *c = calloc(1, sizeof(*c));
	int status = 0;

	*compiled = NULL;
	if (!c)
		return rt_error_set(why, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory compiling for the NPU");
	c->backend = b;
	c->graph = g;
	if (b->cache_dir[0] && !npu_cache_load(b, g, p, c)) {
		c->from_cache = 1;
	} else {
		status = npu_compile(b, g, p, c, why);
		if (!status && b->cache_dir[0])
			npu_cache_store(b, g, p, c);
	}
	if (!status)
		status = instantiate(b, c, why);
	if (status) {
		npu_release(b, c);
		return status;
	}
	*compiled = c;
	return 0;
}

/* The BO of boundary @i for this run: its seam BO, or a staging BO. */
static int boundary_bo(struct npu_backend *b, struct npu_compiled *c,
		       uint32_t i, const struct rt_value *v, enpu_bo **bo)
{
	const struct npu_boundary *nb = &c->boundaries[i];
	struct npu_seam_bo *s = seam_of(b, v->tensor.data, nb->bytes);
	void *map;
	int status;

	if (s) {
		*bo = s->bo;
		return 0;
	}
	if (!c->staging[i]) {
		status = enpu_bo_create(b->device, nb->bytes ? nb->bytes : 1, 0,
					&c->staging[i]);
		if (!status)
			status = enpu_bo_map(c->staging[i], &map);
		if (status)
			return device_error(b, b->errors, status,
					    "staging BO");
		c->staging_map[i] = map;
	}
	if (!nb->output) {
		memcpy(c->staging_map[i], v->tensor.data, nb->bytes);
		c->copied_bytes += nb->bytes;
	}
	*bo = c->staging[i];
	return 0;
}

static int npu_run(void *self, void *compiled, const struct rt_exec_host *host,
		   struct rt_fence *fence)
{
	struct npu_backend *b = self;
	struct npu_compiled *c = compiled;
	struct rt_graph *g = c->graph;
	struct enpu_submit_desc desc = { 0 };
	uint64_t seqno;
	int status;

	c->copied_bytes = 0;
	c->submitted_ns = now_ns();
	c->list[NPU_BO_ARENA] = (struct enpu_submit_bo){
		c->arena, DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE, 0 };
	c->list[NPU_BO_CONSTS] = (struct enpu_submit_bo){
		c->consts_bo, DRM_ENPU_SUBMIT_BO_READ, 0 };
	for (uint32_t i = 0; i < c->boundary_count; i++) {
		const struct npu_boundary *nb = &c->boundaries[i];
		struct rt_value *v = &g->values[nb->value];
		enpu_bo *bo = NULL;

		if (nb->output) {
			status = host->provide(host->ctx, nb->value);
			if (status)
				return status;
		}
		status = boundary_bo(b, c, i, v, &bo);
		if (status)
			return status;
		c->list[NPU_BO_SEAMS + i] = (struct enpu_submit_bo){
			bo, nb->output ? DRM_ENPU_SUBMIT_BO_READ |
					 DRM_ENPU_SUBMIT_BO_WRITE :
					 DRM_ENPU_SUBMIT_BO_READ, 0 };
	}
	if (!c->stream_obj) {
		desc.commands = c->stream;
		desc.commands_size = c->stream_size;
	}
	desc.bos = c->list;
	desc.bo_count = NPU_BO_SEAMS + c->boundary_count;
	desc.out_syncobj = c->syncobj;
	desc.context = b->context_id;
	if (b->counters[0] &&
	    npu_counters_busy_ns(b->counters, &c->busy_before))
		b->counters[0] = 0;
	status = c->stream_obj ?
		 enpu_submit_stream(b->device, &desc, c->stream_obj, &seqno) :
		 enpu_submit(b->device, &desc, &seqno);
	if (status)
		return device_error(b, b->errors, status, "submit");
	c->busy = 1;
	fence->token = c->syncobj;
	return 0;
}

static const char *job_status_name(int status)
{
	switch (status) {
	case -EINVAL: return "invalid at run time";
	case -EFAULT: return "device fault";
	case -ETIMEDOUT: return "hang";
	case -ECANCELED: return "aborted";
	case -ENODEV: return "device gone";
	}
	return strerror(-status);
}

static int npu_wait(void *self, void *compiled, struct rt_fence *fence)
{
	struct npu_backend *b = self;
	struct npu_compiled *c = compiled;
	uint64_t busy_after;
	int job_status = 0, status;

	fence->token = 0;
	if (!c->busy)
		return 0;
	c->busy = 0;
	/*
	 * The deadline counts from the submit, whose clock read host_ns
	 * takes too: a relative timeout would cost libenpu one more read
	 * per job (a system call of about 3 us in a TCG guest, which has
	 * no vDSO clock).
	 */
	status = enpu_job_wait(b->device, c->syncobj,
			       (int64_t)c->submitted_ns + NPU_JOB_TIMEOUT_NS,
			       DRM_ENPU_WAIT_ABSOLUTE, &job_status);
	c->host_ns = now_ns() - c->submitted_ns;
	if (status)
		return device_error(b, b->errors, status, "waiting for the job");
	if (job_status)
		return rt_error_set(b->errors, ENPU_RT_RUNTIME_ERROR,
				    "NPU job failed: %s (%d)",
				    job_status_name(job_status), job_status);
	c->device_ns = 0;
	if (b->counters[0] && !npu_counters_busy_ns(b->counters, &busy_after))
		c->device_ns = busy_after - c->busy_before;
	for (uint32_t i = 0; i < c->boundary_count; i++) {
		const struct npu_boundary *nb = &c->boundaries[i];
		struct rt_value *v = &c->graph->values[nb->value];

		/*
		 * No BO_WAIT before the CPU reads an output: the job's
		 * out-syncobj, waited for above, is one of the waits the
		 * coherency rule names (docs/buffers.md), and the job is the
		 * only writer of the seam and staging BOs the backend made
		 * (a caller's output dma-buf is the caller's to sync). A
		 * BO_WAIT per output was one more ioctl per frame.
		 */
		if (nb->output &&
		    c->list[NPU_BO_SEAMS + i].bo == c->staging[i]) {
			memcpy(v->tensor.data, c->staging_map[i], nb->bytes);
			c->copied_bytes += nb->bytes;
		}
	}
	return 0;
}

static void npu_stats(void *self, void *compiled,
		      struct rt_partition_stats *stats)
{
	const struct npu_backend *b = self;
	const struct npu_compiled *c = compiled;

	stats->host_ns = c->host_ns;
	stats->device_ns = c->device_ns;
	stats->modeled_ns = b->params.clock_max_khz ?
			    c->cycles * 1000000 / b->params.clock_max_khz : 0;
	stats->copied_bytes = c->copied_bytes;
	stats->commands = c->command_count;
	stats->from_cache = c->from_cache;
}

const struct rt_backend_ops rt_backend_npu = {
	.name = "npu",
	.open = npu_open,
	.close = npu_close,
	.claim = npu_claim_op,
	.compile = npu_compile_op,
	.run = npu_run,
	.wait = npu_wait,
	.release = npu_release,
	.seam_alloc = npu_seam_alloc,
	.seam_free = npu_seam_free,
	.seam_import = npu_seam_import,
	.seam_forget = npu_seam_free,
	.stats = npu_stats,
};
