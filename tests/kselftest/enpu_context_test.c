// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts: CONTEXT_CREATE/DESTROY/QUERY and their errnos, the
 * CAP_SYS_NICE rule for priorities above NORMAL (as root, and with the
 * capability dropped in a child), submits on a context, and fence chains
 * across two contexts (B waits on A's out-syncobj, binary and timeline),
 * and a create/destroy storm from several threads that the kernel's
 * slab poisoning (or KASAN) must find no write to a freed context in.
 */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define SIZE (256 * 1024)

FIXTURE(contexts)
{
	enpu_device *device;
	int fd;
};

FIXTURE_SETUP(contexts)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
}

FIXTURE_TEARDOWN(contexts)
{
	enpu_device_close(self->device);
}

static int raw_create(int fd, uint32_t priority, uint32_t flags,
		      uint32_t reserved, uint32_t *id)
{
	struct drm_enpu_context_create create = {
		.priority = priority, .flags = flags, .reserved = reserved,
	};

	if (ioctl(fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &create))
		return -errno;
	*id = create.context;
	return 0;
}

static int raw_destroy(int fd, uint32_t id, uint32_t reserved)
{
	struct drm_enpu_context_destroy destroy = { id, reserved };

	return ioctl(fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &destroy) ? -errno : 0;
}

static int raw_query(int fd, struct drm_enpu_context_query *query)
{
	return ioctl(fd, DRM_IOCTL_ENPU_CONTEXT_QUERY, query) ? -errno : 0;
}

TEST_F(contexts, create_query_destroy)
{
	struct enpu_context_info info;
	enpu_context *context;
	uint32_t id = 0, other = 0;

	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_LOW,
					 &context));
	ASSERT_EQ(0, enpu_context_id(context, &id));
	EXPECT_NE(0u, id);
	ASSERT_EQ(0, enpu_context_query(context, sizeof(info), &info));
	EXPECT_EQ(id, info.id);
	EXPECT_EQ((uint32_t)DRM_ENPU_PRIORITY_LOW, info.priority);
	EXPECT_EQ(0u, info.flags);
	EXPECT_EQ(0u, info.hang_count);
	EXPECT_EQ(0ull, info.submitted);
	ASSERT_EQ(0, raw_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, 0, 0,
				&other));
	EXPECT_NE(id, other);
	/* Context 0 is the file's default, NORMAL. */
	ASSERT_EQ(0, enpu_device_query_context(self->device, 0, sizeof(info),
					       &info));
	EXPECT_EQ((uint32_t)DRM_ENPU_PRIORITY_NORMAL, info.priority);
	EXPECT_EQ(0, enpu_context_destroy(context));
	EXPECT_EQ(-ENOENT, raw_destroy(self->fd, id, 0));
	EXPECT_EQ(-ENOENT, enpu_device_query_context(self->device, id,
						     sizeof(info), &info));
	EXPECT_EQ(0, raw_destroy(self->fd, other, 0));
}

TEST_F(contexts, bad_arguments_are_refused)
{
	struct drm_enpu_context_query query = { 0 };
	uint32_t id = 0;
	int other;

	EXPECT_EQ(-EINVAL, raw_create(self->fd, 4, 0, 0, &id));
	EXPECT_EQ(-EINVAL, raw_create(self->fd, UINT32_MAX, 0, 0, &id));
	EXPECT_EQ(-EINVAL, raw_create(self->fd, 0, 1, 0, &id));
	EXPECT_EQ(-EINVAL, raw_create(self->fd, 0, 0, 1, &id));
	EXPECT_EQ(-EINVAL, raw_destroy(self->fd, 0, 0));
	EXPECT_EQ(-ENOENT, raw_destroy(self->fd, 12345, 0));
	ASSERT_EQ(0, raw_create(self->fd, 0, 0, 0, &id));
	EXPECT_EQ(-EINVAL, raw_destroy(self->fd, id, 1));
	query.context = id;
	query.reserved = 1;
	EXPECT_EQ(-EINVAL, raw_query(self->fd, &query));
	query.reserved = 0;
	EXPECT_EQ(0, raw_query(self->fd, &query));
	/* Contexts are per file. */
	ASSERT_EQ(0, enpu_reopen(self->device, &other));
	query.context = id;
	EXPECT_EQ(-ENOENT, raw_query(other, &query));
	EXPECT_EQ(-ENOENT, raw_destroy(other, id, 0));
	close(other);
	EXPECT_EQ(0, raw_destroy(self->fd, id, 0));
}

TEST_F(contexts, root_may_create_every_priority)
{
	enpu_context *context;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	for (uint32_t p = DRM_ENPU_PRIORITY_LOW;
	     p <= DRM_ENPU_PRIORITY_REALTIME; p++) {
		struct enpu_context_info info;

		ASSERT_EQ(0, enpu_context_create(self->device, p, &context));
		ASSERT_EQ(0, enpu_context_query(context, sizeof(info), &info));
		EXPECT_EQ(p, info.priority);
		enpu_context_destroy(context);
	}
}

/* Drops CAP_SYS_NICE from every set of this process. */
static int drop_sys_nice(void)
{
	struct __user_cap_header_struct header = {
		_LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &header, data))
		return -errno;
	data[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	data[CAP_SYS_NICE / 32].permitted &= ~(1u << (CAP_SYS_NICE % 32));
	data[CAP_SYS_NICE / 32].inheritable &= ~(1u << (CAP_SYS_NICE % 32));
	if (syscall(SYS_capset, &header, data))
		return -errno;
	return prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0) ? -errno : 0;
}

TEST_F(contexts, above_normal_needs_cap_sys_nice)
{
	pid_t child;
	int status;

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		uint32_t id;
		int code = 0;

		if (drop_sys_nice())
			_exit(10);
		if (raw_create(self->fd, DRM_ENPU_PRIORITY_HIGH, 0, 0, &id) !=
		    -EACCES)
			code |= 1;
		if (raw_create(self->fd, DRM_ENPU_PRIORITY_REALTIME, 0, 0,
			       &id) != -EACCES)
			code |= 2;
		if (raw_create(self->fd, DRM_ENPU_PRIORITY_NORMAL, 0, 0, &id))
			code |= 4;
		if (raw_create(self->fd, DRM_ENPU_PRIORITY_LOW, 0, 0, &id))
			code |= 8;
		_exit(code);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("1/2: HIGH/REALTIME not EACCES, 4/8: NORMAL/LOW refused, 10: capset failed");
}

TEST_F(contexts, submits_on_a_context_are_counted)
{
	struct enpu_job_bos bos = { .device = self->device };
	struct enpu_context_info info;
	enpu_context *context;
	enpu_cmdbuf *cmdbuf;
	uint32_t id = 0, dst = 0;
	int job_status = 1;

	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &context));
	ASSERT_EQ(0, enpu_context_id(context, &id));
	ASSERT_EQ(0, enpu_job_bo_add(&bos, 4096, DRM_ENPU_SUBMIT_BO_WRITE,
				     NULL, 0, &dst));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(cmdbuf, dst, 0, 4096, 0x42));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, enpu_job_run(&bos, cmdbuf, id, 5 * ENPU_SECOND_NS,
					  &job_status));
		EXPECT_EQ(0, job_status);
	}
	EXPECT_EQ(0x42, bos.map[dst][4095]);
	ASSERT_EQ(0, enpu_context_query(context, sizeof(info), &info));
	EXPECT_EQ(3ull, info.submitted);
	EXPECT_EQ(3ull, info.completed);
	/* An unknown context is ENOENT; after destroy too. */
	EXPECT_EQ(-ENOENT, enpu_job_run(&bos, cmdbuf, id + 1000,
					5 * ENPU_SECOND_NS, &job_status));
	enpu_context_destroy(context);
	EXPECT_EQ(-ENOENT, enpu_job_run(&bos, cmdbuf, id, 5 * ENPU_SECOND_NS,
					&job_status));
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_job_bos_release(&bos);
}

/*
 * Context A fills a BO after a long NOP; context B copies it with A's
 * out-syncobj as its in-fence and NO_IMPLICIT, so only the explicit fence
 * orders them. B must see all of A's bytes. timeline: the fence is moved
 * to point 5 of a timeline syncobj and B waits on that point.
 */
static void fence_chain(struct __test_metadata *_metadata,
			FIXTURE_DATA(contexts) *self, int timeline)
{
	struct enpu_submit_bo list[2];
	struct enpu_submit_fence in_fence = { 0 };
	struct enpu_submit_desc desc = { 0 };
	enpu_context *a, *b;
	enpu_cmdbuf *writer, *reader;
	enpu_bo *shared, *copy;
	unsigned char *shared_map, *copy_map;
	uint32_t a_id, b_id, a_done, b_done, chain = 0;
	uint64_t seqno;
	int job_status = 1;
	const void *data;

	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_NORMAL,
					 &a));
	ASSERT_EQ(0, enpu_context_create(self->device, DRM_ENPU_PRIORITY_LOW,
					 &b));
	enpu_context_id(a, &a_id);
	enpu_context_id(b, &b_id);
	ASSERT_EQ(0, enpu_bo_create(self->device, SIZE, 0, &shared));
	ASSERT_EQ(0, enpu_bo_create(self->device, SIZE, 0, &copy));
	ASSERT_EQ(0, enpu_bo_map(shared, (void **)&shared_map));
	ASSERT_EQ(0, enpu_bo_map(copy, (void **)&copy_map));
	memset(shared_map, 0x11, SIZE);
	memset(copy_map, 0x22, SIZE);
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &a_done));
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &b_done));

	ASSERT_EQ(0, enpu_cmdbuf_create(&writer));
	ASSERT_EQ(0, enpu_cmdbuf_nop(writer, 100 * 1000 * 1000));
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(writer, 0, 0, SIZE, 0xab));
	list[0] = (struct enpu_submit_bo){ shared, DRM_ENPU_SUBMIT_BO_WRITE, 0 };
	ASSERT_EQ(0, enpu_cmdbuf_data(writer, &data, &desc.commands_size));
	desc.commands = data;
	desc.bos = list;
	desc.bo_count = 1;
	desc.out_syncobj = a_done;
	desc.flags = DRM_ENPU_SUBMIT_NO_IMPLICIT;
	desc.context = a_id;
	ASSERT_EQ(0, enpu_submit(self->device, &desc, &seqno));

	in_fence.syncobj = a_done;
	if (timeline) {
		ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &chain));
		/* Needs DRIVER_SYNCOBJ_TIMELINE in the driver. */
		ASSERT_EQ(0, drmSyncobjTransfer(self->fd, chain, 5, a_done, 0,
						0))
			TH_LOG("syncobj transfer to a timeline point: %s",
			       strerror(errno));
		in_fence.syncobj = chain;
		in_fence.point = 5;
	}
	ASSERT_EQ(0, enpu_cmdbuf_create(&reader));
	ASSERT_EQ(0, enpu_cmdbuf_dma_copy(reader, 0, 0, 1, 0, SIZE));
	list[0] = (struct enpu_submit_bo){ shared, DRM_ENPU_SUBMIT_BO_READ, 0 };
	list[1] = (struct enpu_submit_bo){ copy, DRM_ENPU_SUBMIT_BO_WRITE, 0 };
	ASSERT_EQ(0, enpu_cmdbuf_data(reader, &data, &desc.commands_size));
	desc.commands = data;
	desc.bo_count = 2;
	desc.in_fences = &in_fence;
	desc.in_fence_count = 1;
	desc.out_syncobj = b_done;
	desc.context = b_id;
	ASSERT_EQ(0, enpu_submit(self->device, &desc, &seqno));

	/* B cannot be done before A: poll B first. */
	ASSERT_EQ(0, enpu_job_wait(self->device, b_done, 20 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	ASSERT_EQ(0, enpu_job_status(self->device, a_done, &job_status));
	EXPECT_EQ(0, job_status);
	for (int i = 0; i < SIZE; i++) {
		ASSERT_EQ(0xab, copy_map[i]) TH_LOG("byte %d", i);
	}
	if (chain)
		drmSyncobjDestroy(self->fd, chain);
	enpu_syncobj_destroy(self->device, a_done);
	enpu_syncobj_destroy(self->device, b_done);
	enpu_cmdbuf_destroy(writer);
	enpu_cmdbuf_destroy(reader);
	enpu_bo_destroy(shared);
	enpu_bo_destroy(copy);
	enpu_context_destroy(a);
	enpu_context_destroy(b);
}

TEST_F_TIMEOUT(contexts, context_b_waits_for_context_a_binary, 60)
{
	fence_chain(_metadata, self, 0);
}

TEST_F_TIMEOUT(contexts, context_b_waits_for_context_a_timeline_point, 60)
{
	fence_chain(_metadata, self, 1);
}

TEST_F(contexts, job_status_of_a_pending_and_an_empty_syncobj)
{
	struct enpu_job_bos bos = { .device = self->device };
	enpu_cmdbuf *cmdbuf;
	uint32_t syncobj;
	int job_status = 7, sync_file;

	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	EXPECT_EQ(-EINVAL, enpu_job_status(self->device, syncobj, &job_status));
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 200 * 1000 * 1000));
	ASSERT_EQ(0, enpu_job_submit(&bos, cmdbuf, 0, syncobj, NULL));
	EXPECT_EQ(-EBUSY, enpu_job_status(self->device, syncobj, &job_status));
	EXPECT_EQ(7, job_status);
	EXPECT_EQ(-ETIME, enpu_job_wait(self->device, syncobj, 1000, 0,
					&job_status));
	ASSERT_EQ(0, enpu_syncobj_export_sync_file(self->device, syncobj,
						   &sync_file));
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 20 * ENPU_SECOND_NS,
				   0, &job_status));
	EXPECT_EQ(0, job_status);
	job_status = 7;
	EXPECT_EQ(0, enpu_sync_file_status(sync_file, &job_status, NULL));
	EXPECT_EQ(0, job_status);
	close(sync_file);
	enpu_syncobj_destroy(self->device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
}

/* The kernel's slab cache of contexts (kernel/enpu_context.c). */
#define CONTEXT_CACHE "enpu_context"
#define STORM_THREADS 4
#define STORM_ROUNDS 100000
/* KASAN sees a write to freed memory at once; its kernel is slow. */
#define STORM_ROUNDS_KASAN 10000
/* Destroyers aim at the lowest ids, which the allocator hands out next. */
#define STORM_IDS 8

struct storm {
	int fd;
	int rounds;
	atomic_uint created;
	atomic_uint destroyed;
	atomic_int errors;
	int thread;
};

static void *storm_create(void *arg)
{
	struct storm *storm = arg;
	uint32_t id = 0;

	for (int i = 0; i < storm->rounds; i++) {
		int status = raw_create(storm->fd, DRM_ENPU_PRIORITY_NORMAL,
					0, 0, &id);

		if (status) {
			atomic_fetch_add(&storm->errors, 1);
			continue;
		}
		atomic_fetch_add(&storm->created, 1);
		status = raw_destroy(storm->fd, id, 0);
		if (status == 0)
			atomic_fetch_add(&storm->destroyed, 1);
		else if (status != -ENOENT)
			atomic_fetch_add(&storm->errors, 1);
	}
	return NULL;
}

static void *storm_destroy(void *arg)
{
	struct storm *storm = arg;

	for (int i = 0; i < storm->rounds; i++) {
		for (uint32_t id = 1; id <= STORM_IDS; id++) {
			int status = raw_destroy(storm->fd, id, 0);

			if (status == 0)
				atomic_fetch_add(&storm->destroyed, 1);
			else if (status != -ENOENT)
				atomic_fetch_add(&storm->errors, 1);
		}
	}
	return NULL;
}

/*
 * Half the threads create a context and destroy it again, the other half
 * destroy the ids the allocator is about to hand out, all on one file. A
 * context freed by a destroy before its create finished with it is a
 * write to freed memory: slab poisoning reports it once the cache is
 * validated, KASAN at once. Without either detector the storm still runs
 * (a crash would show) but the test says it cannot see such writes.
 */
TEST_F_TIMEOUT(contexts, create_destroy_storm_writes_no_freed_context, 300)
{
	struct storm storm = { .fd = self->fd };
	pthread_t threads[STORM_THREADS];
	struct enpu_kreports reports;
	int poisoned = enpu_slab_poisoned(CONTEXT_CACHE);
	int kasan = enpu_kernel_has_kasan();
	char first[512];

	storm.rounds = kasan == 1 ? STORM_ROUNDS_KASAN : STORM_ROUNDS;
	ASSERT_EQ(0, enpu_kreports_start(&reports));
	for (int i = 0; i < STORM_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL,
					    i % 2 ? storm_destroy : storm_create,
					    &storm));
	for (int i = 0; i < STORM_THREADS; i++)
		pthread_join(threads[i], NULL);
	TH_LOG("%u created, %u destroyed, slab poisoning %s, KASAN %s",
	       atomic_load(&storm.created), atomic_load(&storm.destroyed),
	       poisoned == 1 ? "on" : "off", kasan == 1 ? "on" : "off");
	EXPECT_EQ(0, atomic_load(&storm.errors));
	/* Every context of the storm is gone again. */
	EXPECT_EQ(atomic_load(&storm.created), atomic_load(&storm.destroyed));
	if (poisoned == 1)
		ASSERT_EQ(0, enpu_slab_validate(CONTEXT_CACHE));
	EXPECT_EQ(0, enpu_kreports_collect(&reports, sizeof(first), first))
		TH_LOG("kernel report: %s", first);
	enpu_kreports_stop(&reports);
	if (poisoned != 1 && kasan != 1)
		SKIP(return, "neither slub_debug=P on " CONTEXT_CACHE
		     " nor KASAN: writes to freed contexts cannot be seen");
}

TEST_HARNESS_MAIN
