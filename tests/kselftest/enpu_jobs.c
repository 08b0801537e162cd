// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"
#include "vnpu_relay.h"

int enpu_job_bo_add(struct enpu_job_bos *bos, uint64_t size, uint32_t access,
		    const void *init, unsigned char fill, uint32_t *index)
{
	uint32_t i = bos->count;
	void *map;
	int status;

	if (i >= ENPU_JOB_MAX_BOS)
		return -ENOSPC;
	status = enpu_bo_create(bos->device, size ? size : 1, 0, &bos->bo[i]);
	if (status)
		return status;
	status = enpu_bo_map(bos->bo[i], &map);
	if (status) {
		enpu_bo_destroy(bos->bo[i]);
		bos->bo[i] = NULL;
		return status;
	}
	bos->map[i] = map;
	bos->size[i] = size;
	bos->access[i] = access;
	if (init)
		memcpy(map, init, size);
	else
		memset(map, fill, size);
	bos->count++;
	*index = i;
	return 0;
}

void enpu_job_bo_drop(struct enpu_job_bos *bos, uint32_t index)
{
	if (index >= bos->count || !bos->bo[index])
		return;
	enpu_bo_destroy(bos->bo[index]);
	bos->bo[index] = NULL;
	bos->map[index] = NULL;
}

void enpu_job_bos_release(struct enpu_job_bos *bos)
{
	for (uint32_t i = 0; i < bos->count; i++)
		enpu_job_bo_drop(bos, i);
	bos->count = 0;
}

int enpu_job_submit(struct enpu_job_bos *bos, const enpu_cmdbuf *cmdbuf,
		    uint32_t context, uint32_t out_syncobj, uint64_t *seqno)
{
	struct enpu_submit_bo list[ENPU_JOB_MAX_BOS];
	struct enpu_submit_desc desc = { 0 };
	uint64_t ignored;
	int status;

	for (uint32_t i = 0; i < bos->count; i++)
		list[i] = (struct enpu_submit_bo){ bos->bo[i],
						   bos->access[i], 0 };
	status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
				  &desc.commands_size);
	if (status)
		return status;
	desc.bos = list;
	desc.bo_count = bos->count;
	desc.out_syncobj = out_syncobj;
	desc.context = context;
	return enpu_submit(bos->device, &desc, seqno ? seqno : &ignored);
}

int enpu_job_run(struct enpu_job_bos *bos, const enpu_cmdbuf *cmdbuf,
		 uint32_t context, int64_t timeout_ns, int *job_status)
{
	uint32_t syncobj;
	int status;

	status = enpu_syncobj_create(bos->device, &syncobj);
	if (status)
		return status;
	status = enpu_job_submit(bos, cmdbuf, context, syncobj, NULL);
	if (!status)
		status = enpu_job_wait(bos->device, syncobj, timeout_ns, 0,
				       job_status);
	enpu_syncobj_destroy(bos->device, syncobj);
	return status;
}

void enpu_random_seed(struct enpu_random *random, uint64_t seed)
{
	random->state = seed * 0x9e3779b97f4a7c15ull + 1;
	if (!random->state)
		random->state = 1;
}

uint64_t enpu_random_next(struct enpu_random *random)
{
	uint64_t x = random->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	random->state = x;
	return x * 0x2545f4914f6cdd1dull;
}

int64_t enpu_random_range(struct enpu_random *random, int64_t low,
			  int64_t high)
{
	uint64_t span = (uint64_t)(high - low) + 1;

	return low + (int64_t)(enpu_random_next(random) % span);
}

uint64_t enpu_random_default_seed(void)
{
	const char *text = getenv("ENPU_TEST_SEED");

	if (text && *text)
		return strtoull(text, NULL, 0);
	return (uint64_t)time(NULL);
}

/* The relay client is tools/common/vnpu_relay.c; 10 ms between looks. */
int enpu_fault(const char *command, size_t reply_size, char *reply)
{
	return vnpu_relay(command, reply, reply_size, 10);
}

int enpu_recovery_counters(struct enpu_recovery_counters *counters)
{
	char dir[256], text[256];
	int status;

	status = enpu_debugfs_dir(sizeof(dir), dir);
	if (status)
		return status;
	status = enpu_debugfs_read(dir, "recovery", sizeof(text), text);
	if (status)
		return status;
	if (enpu_text_value(text, "resets", &counters->resets) ||
	    enpu_text_value(text, "hangs", &counters->hangs) ||
	    enpu_text_value(text, "lost_irqs", &counters->lost_irqs))
		return -EPROTO;
	return 0;
}

long long enpu_recovery_value(const char *key)
{
	char dir[256], text[256];
	long long value = -1;

	if (enpu_debugfs_dir(sizeof(dir), dir) ||
	    enpu_debugfs_read(dir, "recovery", sizeof(text), text) ||
	    enpu_text_value(text, key, &value))
		return -1;
	return value;
}

int enpu_recovery_reaches(const char *key, long long value, int ms)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		if (enpu_recovery_value(key) == value)
			return 1;
		enpu_sleep_ms(10);
	}
	return 0;
}

int enpu_blocker_create(struct enpu_blocker *blocker)
{
	uint64_t size;
	int status;

	*blocker = (struct enpu_blocker){ .vgem = -1, .dmabuf = -1 };
	status = vgem_open(&blocker->vgem);
	if (status)
		return status;
	status = vgem_create(blocker->vgem, ENPU_PAGE_SIZE,
			     &blocker->vgem_handle, &size);
	if (!status)
		status = vgem_fence_attach(blocker->vgem, blocker->vgem_handle,
					   1, &blocker->fence);
	if (!status)
		status = drmPrimeHandleToFD(blocker->vgem, blocker->vgem_handle,
					    DRM_CLOEXEC | DRM_RDWR,
					    &blocker->dmabuf) ? -errno : 0;
	if (status)
		enpu_blocker_destroy(blocker);
	return status;
}

int enpu_blocker_import(struct enpu_blocker *blocker, int fd,
			uint32_t *handle)
{
	return enpu_prime_import(fd, blocker->dmabuf, handle);
}

int enpu_blocker_release(struct enpu_blocker *blocker)
{
	int status = 0;

	if (!blocker->signalled && blocker->vgem >= 0)
		status = vgem_fence_signal(blocker->vgem, blocker->fence);
	blocker->signalled = 1;
	return status;
}

void enpu_blocker_destroy(struct enpu_blocker *blocker)
{
	if (blocker->vgem >= 0)
		enpu_blocker_release(blocker);
	if (blocker->dmabuf >= 0)
		close(blocker->dmabuf);
	if (blocker->vgem >= 0)
		close(blocker->vgem);
	blocker->dmabuf = blocker->vgem = -1;
}

int enpu_blocked_submit(int fd, uint32_t context, uint32_t handle,
			uint32_t out_syncobj)
{
	struct drm_enpu_submit_bo bo = { handle, DRM_ENPU_SUBMIT_BO_READ };
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)&bo,
		.bo_count = 1,
		.bo_stride = sizeof(bo),
		.in_fence_stride = sizeof(struct drm_enpu_fence),
		.out_syncobj = out_syncobj,
		.context = context,
	};

	return enpu_raw_submit(fd, &submit);
}

static void job_child_run(int ready, int jobs, int keep_submitting)
{
	struct enpu_job_bos bos = { 0 };
	enpu_context *second;
	enpu_cmdbuf *cmdbuf;
	uint32_t index, second_id = 0;
	char why[256];
	int dmabuf;

	if (enpu_selftest_open(&bos.device, sizeof(why), why) ||
	    enpu_job_bo_add(&bos, 1 << 20, DRM_ENPU_SUBMIT_BO_WRITE, NULL, 0,
			    &index) ||
	    enpu_bo_export(bos.bo[index], &dmabuf) ||
	    enpu_context_create(bos.device, DRM_ENPU_PRIORITY_NORMAL,
				&second) ||
	    enpu_context_id(second, &second_id) ||
	    enpu_cmdbuf_create(&cmdbuf) ||
	    enpu_cmdbuf_nop(cmdbuf, 20 * 1000 * 1000) ||
	    enpu_cmdbuf_dma_fill(cmdbuf, index, 0, 1 << 20, 1))
		_exit(2);
	/* Two contexts: one may hold max_jobs_per_context. */
	for (int i = 0; i < jobs; i++)
		if (enpu_job_submit(&bos, cmdbuf, i % 2 ? second_id : 0, 0,
				    NULL))
			_exit(3);
	if (write(ready, "r", 1) != 1)
		_exit(4);
	for (;;) {
		if (keep_submitting)
			enpu_job_submit(&bos, cmdbuf, 0, 0, NULL);
		else
			pause();
	}
}

int enpu_job_child(int jobs, int keep_submitting, pid_t *pid)
{
	int ready[2];
	char byte;

	if (pipe(ready))
		return -errno;
	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		close(ready[0]);
		job_child_run(ready[1], jobs, keep_submitting);
	}
	close(ready[1]);
	if (read(ready[0], &byte, 1) != 1) {
		close(ready[0]);
		waitpid(*pid, NULL, 0);
		return -EIO;
	}
	close(ready[0]);
	return 0;
}

static void param_path(const char *name, size_t size, char *path)
{
	snprintf(path, size, "/sys/module/enpu/parameters/%s", name);
}

int enpu_param_read(const char *name, unsigned int *value)
{
	char path[256];
	FILE *file;
	int status = 0;

	param_path(name, sizeof(path), path);
	file = fopen(path, "r");
	if (!file)
		return -errno;
	if (fscanf(file, "%u", value) != 1)
		status = -EPROTO;
	fclose(file);
	return status;
}

int enpu_param_write(const char *name, unsigned int value)
{
	char path[256];
	FILE *file;

	param_path(name, sizeof(path), path);
	file = fopen(path, "w");
	if (!file)
		return -errno;
	fprintf(file, "%u\n", value);
	return fclose(file) ? -errno : 0;
}
