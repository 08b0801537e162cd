// SPDX-License-Identifier: GPL-2.0
/*
 * DRM_IOCTL_ENPU_SUBMIT: every validation rule of uapi/enpu_accel.h and
 * uapi/enpu_cmd.h gets its errno and leaves the target BO untouched (the
 * rejected job would have filled it); DMA_FILL and DMA_COPY really move
 * the bytes; the out-syncobj signals; stream objects (uapi 1.2).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define BO_SIZE (64 * 1024)
#define UNTOUCHED 0x5a
#define POISON 0xee
#define SECOND (1000 * 1000 * 1000LL)

FIXTURE(submit)
{
	enpu_device *device;
	int fd;
	uint32_t src, dst;
	unsigned char *src_map, *dst_map;
	struct drm_enpu_submit_bo bos[2];
};

FIXTURE_SETUP(submit)
{
	char why[256];

	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, BO_SIZE, 0, &self->src,
					NULL));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, BO_SIZE, 0, &self->dst,
					NULL));
	self->src_map = enpu_raw_bo_map(self->fd, self->src, BO_SIZE);
	self->dst_map = enpu_raw_bo_map(self->fd, self->dst, BO_SIZE);
	ASSERT_NE(NULL, self->src_map);
	ASSERT_NE(NULL, self->dst_map);
	for (unsigned int i = 0; i < BO_SIZE; i++)
		self->src_map[i] = (unsigned char)(i * 13 + 1);
	memset(self->dst_map, UNTOUCHED, BO_SIZE);
	self->bos[0] = (struct drm_enpu_submit_bo){
		self->src, DRM_ENPU_SUBMIT_BO_READ };
	self->bos[1] = (struct drm_enpu_submit_bo){
		self->dst, DRM_ENPU_SUBMIT_BO_WRITE };
}

FIXTURE_TEARDOWN(submit)
{
	if (self->src_map)
		munmap(self->src_map, BO_SIZE);
	if (self->dst_map)
		munmap(self->dst_map, BO_SIZE);
	enpu_device_close(self->device);
}

static struct enpu_cmd_dma_fill fill_command(uint32_t index, uint64_t offset,
					     uint64_t size)
{
	return (struct enpu_cmd_dma_fill){
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(struct enpu_cmd_dma_fill) },
		.dst = { .bo_index = index, .offset = offset },
		.size = size,
		.value = POISON,
	};
}

static struct enpu_cmd_dma_copy copy_command(uint32_t src, uint64_t src_offset,
					     uint32_t dst, uint64_t dst_offset,
					     uint64_t size)
{
	return (struct enpu_cmd_dma_copy){
		.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(struct enpu_cmd_dma_copy) },
		.src = { .bo_index = src, .offset = src_offset },
		.dst = { .bo_index = dst, .offset = dst_offset },
		.size = size,
	};
}

/* The default submit of the fixture: fill all of dst (bos[1]). */
static struct drm_enpu_submit base_submit(FIXTURE_DATA(submit) *self,
					  const void *commands,
					  uint32_t commands_size)
{
	return (struct drm_enpu_submit){
		.bos = (uintptr_t)self->bos,
		.commands = (uintptr_t)commands,
		.bo_count = 2,
		.bo_stride = sizeof(struct drm_enpu_submit_bo),
		.commands_size = commands_size,
		.in_fence_stride = sizeof(struct drm_enpu_fence),
	};
}

/*
 * A rejected job must not have run: once dst is idle (a queued job would
 * have put its fence there), every byte still holds UNTOUCHED.
 */
static int dst_untouched(FIXTURE_DATA(submit) *self)
{
	if (enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND))
		return 0;
	for (unsigned int i = 0; i < BO_SIZE; i++)
		if (self->dst_map[i] != UNTOUCHED)
			return 0;
	return 1;
}

#define EXPECT_REJECTED(errno_value, submit_argument)                        \
	do {                                                                 \
		struct drm_enpu_submit rejected_ = (submit_argument);         \
		EXPECT_EQ(-(errno_value),                                     \
			  enpu_raw_submit(self->fd, &rejected_));             \
		EXPECT_TRUE(dst_untouched(self));                             \
	} while (0)

TEST_F(submit, valid_fill_runs_then_rejections_leave_dst_alone)
{
	/* The control experiment: the same job, unmodified, does run. */
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit good = base_submit(self, &fill, sizeof(fill));

	ASSERT_EQ(0, enpu_raw_submit(self->fd, &good));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	for (unsigned int i = 0; i < BO_SIZE; i++)
		ASSERT_EQ(POISON, self->dst_map[i]);
}

TEST_F(submit, bo_stride_too_small_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));

	submit.bo_stride = sizeof(struct drm_enpu_submit_bo) - 4;
	EXPECT_REJECTED(EINVAL, submit);
	submit.bo_stride = 0;
	EXPECT_REJECTED(EINVAL, submit);
}

TEST_F(submit, larger_bo_stride_needs_a_zero_tail)
{
	struct { struct drm_enpu_submit_bo bo; __u64 tail; } wide[2] = {
		{ self->bos[0], 0 }, { self->bos[1], 0 },
	};
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));

	submit.bos = (uintptr_t)wide;
	submit.bo_stride = sizeof(wide[0]);
	wide[1].tail = 1;
	EXPECT_REJECTED(EINVAL, submit);
	wide[1].tail = 0;
	EXPECT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_EQ(POISON, self->dst_map[0]);
	EXPECT_EQ(POISON, self->dst_map[BO_SIZE - 1]);
}

TEST_F(submit, in_fence_stride_too_small_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));
	struct drm_enpu_fence fence = { 0 };

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
				      &fence.handle));
	submit.in_fences = (uintptr_t)&fence;
	submit.in_fence_count = 1;
	submit.in_fence_stride = sizeof(fence) - 8;
	EXPECT_REJECTED(EINVAL, submit);
	fence.flags = 1;
	submit.in_fence_stride = sizeof(fence);
	EXPECT_REJECTED(EINVAL, submit);
	/* With a valid, already signalled in-fence it runs. */
	fence.flags = 0;
	EXPECT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_EQ(POISON, self->dst_map[100]);
	drmSyncobjDestroy(self->fd, fence.handle);
}

/*
 * Both sides of DRM_ENPU_SUBMIT_MAX_STRIDE for both arrays: entries
 * exactly that far apart run; 8 bytes more is EINVAL even though the
 * memory behind every entry is readable and its tail zero, so only the
 * limit can have refused it.
 */
TEST_F(submit, strides_above_the_limit_are_einval)
{
	enum { MAX = DRM_ENPU_SUBMIT_MAX_STRIDE, OVER = MAX + 8 };
	static unsigned char bos[2 * OVER], fences[OVER];
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));
	struct drm_enpu_fence fence = { 0 };

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
				      &fence.handle));
	memcpy(fences, &fence, sizeof(fence));
	submit.in_fences = (uintptr_t)fences;
	submit.in_fence_count = 1;
	submit.bos = (uintptr_t)bos;

	memset(bos, 0, sizeof(bos));
	memcpy(bos, &self->bos[0], sizeof(self->bos[0]));
	memcpy(bos + OVER, &self->bos[1], sizeof(self->bos[1]));
	submit.bo_stride = OVER;
	submit.in_fence_stride = MAX;
	EXPECT_REJECTED(EINVAL, submit);
	submit.bo_stride = 0xfffff000u;
	EXPECT_REJECTED(EINVAL, submit);

	memset(bos, 0, sizeof(bos));
	memcpy(bos, &self->bos[0], sizeof(self->bos[0]));
	memcpy(bos + MAX, &self->bos[1], sizeof(self->bos[1]));
	submit.bo_stride = MAX;
	submit.in_fence_stride = OVER;
	EXPECT_REJECTED(EINVAL, submit);
	submit.in_fence_stride = 0xfffff000u;
	EXPECT_REJECTED(EINVAL, submit);

	submit.in_fence_stride = MAX;
	EXPECT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_EQ(POISON, self->dst_map[0]);
	EXPECT_EQ(POISON, self->dst_map[BO_SIZE - 1]);
	drmSyncobjDestroy(self->fd, fence.handle);
}

/* 64 entries 4 GiB apart: the attack of issue 8 (defect 2). */
#define ATTACK_STRIDE 0xfffff000u
#define ATTACK_FENCES DRM_ENPU_SUBMIT_MAX_IN_FENCES
#define ATTACK_BYTES ((size_t)ATTACK_FENCES * ATTACK_STRIDE)

/* Waits up to ms for fd to be readable; 1 if it is. */
static int readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

/* Waits up to ms for the child to be reaped; 1 if it was. */
static int reaped_within(pid_t child, int ms, int *status)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		if (waitpid(child, status, WNOHANG) == child)
			return 1;
		enpu_sleep_ms(10);
	}
	return 0;
}

/*
 * A child submits 64 valid, signalled in-fences 4 GiB apart with the gaps
 * readable and zero, over and over. The ioctl must refuse it at once
 * (EINVAL: stride above DRM_ENPU_SUBMIT_MAX_STRIDE) and SIGKILL must end
 * the child promptly. Unbounded, each submit walked 256 GiB of zero
 * pages in the kernel without looking at signals.
 */
TEST_F_TIMEOUT(submit, huge_stride_attack_fails_at_once_and_dies_on_kill, 120)
{
	int result[2], ready[2], status = 0, child_errno = 0;
	pid_t child;
	char byte;

	ASSERT_EQ(0, pipe(result));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct drm_enpu_submit attack = { 0 };
		unsigned char *area;
		uint32_t handle;
		int err;

		area = mmap(NULL, ATTACK_BYTES + 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (area == MAP_FAILED ||
		    drmSyncobjCreate(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
				     &handle))
			_exit(2);
		for (size_t i = 0; i < ATTACK_FENCES; i++)
			((struct drm_enpu_fence *)(area + i * ATTACK_STRIDE))
				->handle = handle;
		attack.in_fences = (uintptr_t)area;
		attack.in_fence_count = ATTACK_FENCES;
		attack.in_fence_stride = ATTACK_STRIDE;
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		err = enpu_raw_submit(self->fd, &attack);
		if (write(result[1], &err, sizeof(err)) != sizeof(err))
			_exit(4);
		for (;;)
			enpu_raw_submit(self->fd, &attack);
	}
	close(ready[1]);
	close(result[1]);
	ASSERT_EQ(1, read(ready[0], &byte, 1)) TH_LOG("child failed to set up");
	/* At once: 10 s is only a bound for a loaded machine. */
	EXPECT_TRUE(readable_within(result[0], 10000))
		TH_LOG("the attack submit did not return within 10 s");
	if (readable_within(result[0], 0))
		ASSERT_EQ((ssize_t)sizeof(child_errno),
			  read(result[0], &child_errno, sizeof(child_errno)));
	EXPECT_EQ(-EINVAL, child_errno);
	ASSERT_EQ(0, kill(child, SIGKILL));
	EXPECT_TRUE(reaped_within(child, 10000, &status))
		TH_LOG("child still in the kernel 10 s after SIGKILL");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(ready[0]);
	close(result[0]);
}

TEST_F(submit, reserved_context_and_flags_are_checked)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));

	/* A stream handle without DRM_ENPU_SUBMIT_STREAM. */
	submit.stream = 1;
	EXPECT_REJECTED(EINVAL, submit);
	submit.stream = 0;
	submit.pad = 1;
	EXPECT_REJECTED(EINVAL, submit);
	submit.pad = 0;
	submit.reserved = 1ull << 63;
	EXPECT_REJECTED(EINVAL, submit);
	submit.reserved = 0;
	/* A context this file never created. */
	submit.context = 1;
	EXPECT_REJECTED(ENOENT, submit);
	submit.context = 0;
	/* A stream object and a stream in @commands at once. */
	submit.flags = DRM_ENPU_SUBMIT_STREAM;
	EXPECT_REJECTED(EINVAL, submit);
	submit.flags = 1u << 2;
	EXPECT_REJECTED(EINVAL, submit);
	submit.flags = 1u << 31;
	EXPECT_REJECTED(EINVAL, submit);
}

TEST_F(submit, bo_access_flags_are_checked)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));

	self->bos[1].flags = 0;
	EXPECT_REJECTED(EINVAL, submit);
	self->bos[1].flags = DRM_ENPU_SUBMIT_BO_WRITE | (1u << 2);
	EXPECT_REJECTED(EINVAL, submit);
	/* Writing a BO the job declared READ only. */
	self->bos[1].flags = DRM_ENPU_SUBMIT_BO_READ;
	EXPECT_REJECTED(EINVAL, submit);
}

TEST_F(submit, reading_a_write_only_bo_is_einval)
{
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 1, 0, 4096);
	struct drm_enpu_submit submit = base_submit(self, &copy, sizeof(copy));

	self->bos[0].flags = DRM_ENPU_SUBMIT_BO_WRITE;
	EXPECT_REJECTED(EINVAL, submit);
}

TEST_F(submit, bo_index_outside_the_list_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(2, 0, 4096);
	struct enpu_cmd_dma_copy copy = copy_command(7, 0, 1, 0, 4096);

	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill.dst.bo_index = UINT32_MAX;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
}

TEST_F(submit, ranges_past_the_bo_are_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, BO_SIZE - 8, 16);
	struct enpu_cmd_dma_copy copy = copy_command(0, BO_SIZE - 4095, 1, 0,
						     4096);

	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, BO_SIZE, 1);
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 0, BO_SIZE + 1);
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	/* Source past its BO; then the destination. */
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
	copy = copy_command(0, 0, 1, BO_SIZE - 1, 2);
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
}

TEST_F(submit, overflowing_offsets_are_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, UINT64_MAX - 7, 16);
	struct enpu_cmd_dma_copy copy = copy_command(0, UINT64_MAX, 1, 0, 1);

	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 16, UINT64_MAX);
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 1ull << 63, 1ull << 63);
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
	copy = copy_command(0, 0, 1, UINT64_MAX - 4095, 4097);
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
}

TEST_F(submit, unknown_opcode_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);

	fill.hdr.opcode = ENPU_CMD_DEQUANTIZE + 1;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill.hdr.opcode = 0xffff;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
}

TEST_F(submit, malformed_command_sizes_are_einval)
{
	struct enpu_cmd_dma_fill commands[2] = {
		fill_command(1, 0, BO_SIZE), fill_command(1, 0, 8),
	};
	struct {
		struct enpu_cmd_dma_fill fill;
		__u64 extra;
	} padded = { fill_command(1, 0, BO_SIZE), 0 };

	/* A stream that is not a multiple of 8 bytes. */
	EXPECT_REJECTED(EINVAL, base_submit(self, commands,
					    sizeof(commands[0]) + 4));
	/* A command cut short by the end of the stream. */
	EXPECT_REJECTED(EINVAL, base_submit(self, commands,
					    sizeof(commands[0]) + 8));
	/* Header sizes: 0 (would never advance), not a multiple of 8, past
	 * the stream. The first, valid fill must not run either. */
	commands[1].hdr.size = 0;
	EXPECT_REJECTED(EINVAL, base_submit(self, commands, sizeof(commands)));
	commands[1].hdr.size = sizeof(commands[1]) - 4;
	EXPECT_REJECTED(EINVAL, base_submit(self, commands, sizeof(commands)));
	commands[1].hdr.size = sizeof(commands[1]) + 8;
	EXPECT_REJECTED(EINVAL, base_submit(self, commands, sizeof(commands)));
	/* In the stream, but not the opcode's size (uapi: size is
	 * sizeof(struct enpu_cmd_dma_fill)). */
	padded.fill.hdr.size = sizeof(padded);
	EXPECT_REJECTED(EINVAL, base_submit(self, &padded, sizeof(padded)));
}

TEST_F(submit, nonzero_reserved_command_fields_are_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 1, 0, 4096);
	struct {
		struct enpu_cmd_nop nop;
		struct enpu_cmd_dma_fill fill;
	} pair = {
		.nop = { .hdr = { ENPU_CMD_NOP, 0, sizeof(pair.nop) } },
		.fill = fill_command(1, 0, BO_SIZE),
	};

	fill.hdr.flags = 1;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 0, BO_SIZE);
	fill.dst.reserved = 1;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 0, BO_SIZE);
	fill.reserved = 1;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	fill = fill_command(1, 0, BO_SIZE);
	fill.value = 0x1ee;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	copy.src.reserved = 2;
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
	copy = copy_command(0, 0, 1, 0, 4096);
	copy.dst.reserved = 2;
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
	pair.nop.reserved = 1;
	EXPECT_REJECTED(EINVAL, base_submit(self, &pair, sizeof(pair)));
}

TEST_F(submit, zero_size_dma_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, 0);
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 1, 0, 0);

	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	EXPECT_REJECTED(EINVAL, base_submit(self, &copy, sizeof(copy)));
}

TEST_F(submit, overlapping_copy_in_one_bo_is_einval)
{
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 0, 4095, 4096);
	struct drm_enpu_submit submit = base_submit(self, &copy, sizeof(copy));
	struct drm_enpu_submit_bo one = {
		self->dst, DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE
	};

	submit.bos = (uintptr_t)&one;
	submit.bo_count = 1;
	EXPECT_REJECTED(EINVAL, submit);
	/* Adjacent ranges do not overlap: this one runs. */
	copy = copy_command(0, 0, 0, 4096, 4096);
	submit.commands = (uintptr_t)&copy;
	self->dst_map[0] = 1;
	self->dst_map[4095] = 2;
	EXPECT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_EQ(1, self->dst_map[4096]);
	EXPECT_EQ(2, self->dst_map[8191]);
	EXPECT_EQ(UNTOUCHED, self->dst_map[8192]);
}

TEST_F(submit, duplicate_handle_in_bo_list_is_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);

	self->bos[0] = self->bos[1];
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
	self->bos[0].flags = DRM_ENPU_SUBMIT_BO_READ;
	EXPECT_REJECTED(EINVAL, base_submit(self, &fill, sizeof(fill)));
}

/*
 * SUBMIT looks for a BO listed twice by a pairwise scan in a short list
 * (up to 16 BOs, kernel/enpu_job.c) and by sorting a longer one: lists
 * of 2, 16, 17 and 40 BOs with dst again at the far end and, in a second
 * round, next to the front are refused; the same lists with distinct
 * BOs run. A scan that stopped one entry short, or the sorting path
 * skipped, lets one of them through.
 */
#define DUP_LIST_MAX 40

TEST_F(submit, a_bo_listed_twice_is_einval_in_short_and_long_lists)
{
	static const uint32_t counts[] = { 2, 16, 17, DUP_LIST_MAX };
	struct drm_enpu_submit_bo bos[DUP_LIST_MAX];
	struct enpu_cmd_dma_fill fill = fill_command(0, 0, BO_SIZE);
	uint32_t extra[DUP_LIST_MAX];

	for (int i = 0; i < DUP_LIST_MAX; i++)
		ASSERT_EQ(0, enpu_raw_bo_create(self->fd, ENPU_PAGE_SIZE, 0,
						&extra[i], NULL));
	for (unsigned int c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		uint32_t n = counts[c];

		bos[0] = (struct drm_enpu_submit_bo){
			self->dst, DRM_ENPU_SUBMIT_BO_WRITE };
		for (uint32_t i = 1; i < n; i++)
			bos[i] = (struct drm_enpu_submit_bo){
				extra[i], DRM_ENPU_SUBMIT_BO_READ };
		EXPECT_EQ(0, enpu_raw_submit_simple(self->fd, bos, n, &fill,
						    sizeof(fill), 0, 0))
			TH_LOG("%u distinct BOs refused", n);
		ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0,
					      5 * SECOND));
		memset(self->dst_map, UNTOUCHED, BO_SIZE);
		bos[n - 1].handle = self->dst;
		EXPECT_EQ(-EINVAL, enpu_raw_submit_simple(self->fd, bos, n,
							  &fill, sizeof(fill),
							  0, 0))
			TH_LOG("%u BOs, dst first and last: not refused", n);
		EXPECT_TRUE(dst_untouched(self));
		if (n > 2) {
			bos[n - 1].handle = extra[n - 1];
			bos[1].handle = bos[n - 1].handle;
			EXPECT_EQ(-EINVAL,
				  enpu_raw_submit_simple(self->fd, bos, n,
							 &fill, sizeof(fill),
							 0, 0))
				TH_LOG("%u BOs, one at 1 and %u: not refused",
				       n, n - 1);
			EXPECT_TRUE(dst_untouched(self));
		}
	}
	for (int i = 0; i < DUP_LIST_MAX; i++)
		enpu_raw_gem_close(self->fd, extra[i]);
}

TEST_F(submit, unknown_or_foreign_handles_are_enoent)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));
	uint32_t foreign, syncobj;
	int other;

	self->bos[0].handle = 0x7fff0000;
	EXPECT_REJECTED(ENOENT, submit);
	self->bos[0].handle = 0;
	EXPECT_REJECTED(ENOENT, submit);
	/* A BO of another file, numbered so that this file has no such
	 * handle. */
	ASSERT_EQ(0, enpu_reopen(self->device, &other));
	do {
		ASSERT_EQ(0, enpu_raw_bo_create(other, 4096, 0, &foreign,
						NULL));
	} while (foreign <= self->dst || foreign <= self->src);
	self->bos[0].handle = foreign;
	EXPECT_REJECTED(ENOENT, submit);
	close(other);
	self->bos[0].handle = self->src;
	/* Unknown syncobjs: in-fence and out-syncobj. */
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	submit.out_syncobj = syncobj + 100;
	EXPECT_REJECTED(ENOENT, submit);
	submit.out_syncobj = 0;
	{
		struct drm_enpu_fence fence = { .handle = syncobj + 100 };

		submit.in_fences = (uintptr_t)&fence;
		submit.in_fence_count = 1;
		EXPECT_REJECTED(ENOENT, submit);
	}
	drmSyncobjDestroy(self->fd, syncobj);
}

TEST_F(submit, counts_above_the_limits_are_einval)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));

	submit.bo_count = DRM_ENPU_SUBMIT_MAX_BOS + 1;
	EXPECT_REJECTED(EINVAL, submit);
	submit.bo_count = 2;
	submit.in_fence_count = DRM_ENPU_SUBMIT_MAX_IN_FENCES + 1;
	EXPECT_REJECTED(EINVAL, submit);
	submit.in_fence_count = 0;
	submit.commands_size = ENPU_CMD_MAX_STREAM + 8;
	EXPECT_REJECTED(EINVAL, submit);
}

/*
 * The other side of the BO limit: a job listing exactly
 * DRM_ENPU_SUBMIT_MAX_BOS BOs is accepted and runs. SUBMIT locks all their
 * reservations under one acquire context, which lockdep counts in a
 * bitfield: on the debug kernel a limit above that field's range makes
 * this job a lockdep report (the kernel log is checked here too).
 */
TEST_F_TIMEOUT(submit, exactly_the_bo_limit_is_accepted, 120)
{
	static struct drm_enpu_submit_bo bos[DRM_ENPU_SUBMIT_MAX_BOS];
	struct enpu_cmd_dma_fill fill = fill_command(DRM_ENPU_SUBMIT_MAX_BOS - 1,
						     0, ENPU_PAGE_SIZE);
	struct enpu_kreports reports = { .fd = -1 };
	unsigned char *map;
	char first[512];

	ASSERT_EQ(0, enpu_kreports_start(&reports));
	for (int i = 0; i < DRM_ENPU_SUBMIT_MAX_BOS; i++) {
		ASSERT_EQ(0, enpu_raw_bo_create(self->fd, ENPU_PAGE_SIZE, 0,
						&bos[i].handle, NULL));
		bos[i].flags = DRM_ENPU_SUBMIT_BO_READ;
	}
	bos[DRM_ENPU_SUBMIT_MAX_BOS - 1].flags = DRM_ENPU_SUBMIT_BO_WRITE;
	map = enpu_raw_bo_map(self->fd, bos[DRM_ENPU_SUBMIT_MAX_BOS - 1].handle,
			      ENPU_PAGE_SIZE);
	ASSERT_NE(NULL, map);
	memset(map, UNTOUCHED, ENPU_PAGE_SIZE);
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos,
					    DRM_ENPU_SUBMIT_MAX_BOS, &fill,
					    sizeof(fill), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd,
				      bos[DRM_ENPU_SUBMIT_MAX_BOS - 1].handle,
				      0, 60 * SECOND));
	EXPECT_EQ(POISON, map[0]);
	EXPECT_EQ(POISON, map[ENPU_PAGE_SIZE - 1]);
	EXPECT_EQ(0, enpu_kreports_collect(&reports, sizeof(first), first))
		TH_LOG("kernel report: %s", first);
	enpu_kreports_stop(&reports);
	munmap(map, ENPU_PAGE_SIZE);
	for (int i = 0; i < DRM_ENPU_SUBMIT_MAX_BOS; i++)
		enpu_raw_gem_close(self->fd, bos[i].handle);
}

TEST_F(submit, bad_pointers_are_efault)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));
	void *unmapped = mmap(NULL, 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, unmapped);
	submit.bos = (uintptr_t)unmapped;
	EXPECT_REJECTED(EFAULT, submit);
	submit.bos = (uintptr_t)self->bos;
	submit.commands = (uintptr_t)unmapped;
	EXPECT_REJECTED(EFAULT, submit);
	submit.commands = 8;
	EXPECT_REJECTED(EFAULT, submit);
	submit.commands = (uintptr_t)&fill;
	submit.in_fences = (uintptr_t)unmapped;
	submit.in_fence_count = 1;
	EXPECT_REJECTED(EFAULT, submit);
	munmap(unmapped, 4096);
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_SUBMIT, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(submit, dma_fill_writes_exactly_its_range)
{
	static const struct { uint64_t offset, size; } ranges[] = {
		{ 0, 1 }, { 3, 5 }, { 4095, 2 }, { 5000, 12345 },
		{ BO_SIZE - 7, 7 },
	};
	unsigned char expected[BO_SIZE];

	memset(expected, UNTOUCHED, sizeof(expected));
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		struct enpu_cmd_dma_fill fill =
			fill_command(1, ranges[r].offset, ranges[r].size);

		fill.value = (uint32_t)(0x10 + r);
		ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, self->bos, 2,
						    &fill, sizeof(fill), 0, 0));
		memset(expected + ranges[r].offset, (int)fill.value,
		       ranges[r].size);
	}
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	for (unsigned int i = 0; i < BO_SIZE; i++) {
		ASSERT_EQ(expected[i], self->dst_map[i]) TH_LOG("byte %u", i);
	}
}

TEST_F(submit, dma_copy_moves_every_byte_of_its_range)
{
	struct {
		struct enpu_cmd_dma_copy first;
		struct enpu_cmd_dma_copy second;
		struct enpu_cmd_dma_fill third;
	} stream = {
		/* Unaligned, crossing pages, then a fill over part of it:
		 * commands of one job run in order. */
		copy_command(0, 1, 1, 4093, 20000),
		copy_command(0, BO_SIZE - 100, 1, 0, 100),
		fill_command(1, 4093 + 19990, 20),
	};
	unsigned char expected[BO_SIZE];

	memset(expected, UNTOUCHED, sizeof(expected));
	memcpy(expected + 4093, self->src_map + 1, 20000);
	memcpy(expected, self->src_map + BO_SIZE - 100, 100);
	memset(expected + 4093 + 19990, POISON, 20);
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, self->bos, 2, &stream,
					    sizeof(stream), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	for (unsigned int i = 0; i < BO_SIZE; i++) {
		ASSERT_EQ(expected[i], self->dst_map[i]) TH_LOG("byte %u", i);
	}
	/* The source was only read. */
	for (unsigned int i = 0; i < BO_SIZE; i++)
		ASSERT_EQ((unsigned char)(i * 13 + 1), self->src_map[i]);
}

/*
 * A context reuses its job buffers (kernel/enpu_job_buf.c: a power of two
 * pages up to 64 KiB, kept between jobs): a job that gets the buffer of a
 * longer job before it must run its own commands and none of the stale
 * ones after them. Each pair is a long stream of one-byte fills at bytes
 * 0..long-1, then, with dst reset, a short one of the same size class at
 * 0..short-1: bytes from short on must stay untouched. Classes of 1, 2
 * and 16 pages, and above the cached sizes (allocated per job).
 */
TEST_F(submit, reused_job_buffers_run_only_their_own_commands)
{
	static const uint32_t classes[] = { 4096, 8192, 65536, 131072 };
	const uint32_t each = sizeof(struct enpu_cmd_dma_fill);
	static struct enpu_cmd_dma_fill stream[131072 /
					      sizeof(struct enpu_cmd_dma_fill)];

	for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
		uint32_t counts[2] = { classes[k] / each,
				       classes[k] / 2 / each + 1 };

		for (unsigned int pass = 0; pass < 2; pass++) {
			uint32_t n = counts[pass];
			unsigned char value = (unsigned char)(0x30 + k * 2 +
							      pass);

			ASSERT_LE(n, (uint32_t)BO_SIZE);
			memset(self->dst_map, UNTOUCHED, BO_SIZE);
			for (uint32_t i = 0; i < n; i++) {
				stream[i] = fill_command(1, i, 1);
				stream[i].value = value;
			}
			ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, self->bos,
							    2, stream,
							    n * each, 0, 0));
			ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0,
						      5 * SECOND));
			for (uint32_t i = 0; i < BO_SIZE; i++) {
				ASSERT_EQ(i < n ? value : UNTOUCHED,
					  self->dst_map[i])
					TH_LOG("class %u, %u commands: byte %u",
					       classes[k], n, i);
			}
		}
	}
}

TEST_F(submit, large_multi_page_bos_are_filled_and_copied_whole)
{
	const uint64_t size = 3 * 1024 * 1024 + 4096;
	struct drm_enpu_submit_bo bos[2];
	unsigned char *a, *b;
	uint32_t first, second;
	struct {
		struct enpu_cmd_dma_fill fill;
		struct enpu_cmd_dma_copy copy;
	} stream;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, size, 0, &first, NULL));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, size, DRM_ENPU_BO_WC,
					&second, NULL));
	a = enpu_raw_bo_map(self->fd, first, size);
	b = enpu_raw_bo_map(self->fd, second, size);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	for (uint64_t i = 0; i < size; i++)
		a[i] = (unsigned char)(i ^ (i >> 12));
	bos[0] = (struct drm_enpu_submit_bo){ first, DRM_ENPU_SUBMIT_BO_READ };
	bos[1] = (struct drm_enpu_submit_bo){ second,
					      DRM_ENPU_SUBMIT_BO_WRITE };
	stream.fill = fill_command(1, 0, size);
	stream.copy = copy_command(0, 0, 1, 0, size - 1);
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &stream,
					    sizeof(stream), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, second, 0, 10 * SECOND));
	for (uint64_t i = 0; i < size - 1; i++) {
		ASSERT_EQ((unsigned char)(i ^ (i >> 12)), b[i])
			TH_LOG("byte %llu", (unsigned long long)i);
	}
	EXPECT_EQ(POISON, b[size - 1]);
	munmap(a, size);
	munmap(b, size);
}

/*
 * A BO's physically adjacent pages are merged into long scatter-gather
 * segments (fresh memory after boot mostly is adjacent), and the device
 * takes segments of any length: the driver must say so to the DMA layer,
 * or the debug kernel's DMA-API checks warn that the mapping breaks the
 * device's (default, 64 KiB) segment limit. On the stock kernels this
 * checks the job and prints the longest segment; the report scan is what
 * fails on the debug kernel.
 */
TEST_F(submit, long_segments_map_without_dma_api_reports)
{
	const uint64_t size = 8 * 1024 * 1024;
	uint64_t addresses[4096], lengths[4096], longest = 0;
	struct enpu_job_sg_bo sg = {
		.address = addresses, .length = lengths, .capacity = 4096,
	};
	struct enpu_kreports reports = { .fd = -1 };
	struct drm_enpu_submit_bo bo;
	char debugfs[256], first[512];
	struct enpu_cmd_dma_fill fill;
	unsigned char *map;
	uint32_t handle;

	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(debugfs), debugfs));
	ASSERT_EQ(0, enpu_kreports_start(&reports));
	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, size, 0, &handle, NULL));
	map = enpu_raw_bo_map(self->fd, handle, size);
	ASSERT_NE(NULL, map);
	memset(map, UNTOUCHED, size);
	bo = (struct drm_enpu_submit_bo){ handle, DRM_ENPU_SUBMIT_BO_WRITE };
	fill = fill_command(0, 0, size);
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, &bo, 1, &fill,
					    sizeof(fill), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, handle, 0, 30 * SECOND));
	EXPECT_EQ(POISON, map[0]);
	EXPECT_EQ(POISON, map[size - 1]);
	ASSERT_EQ(0, enpu_last_job_sg(debugfs, 0, &sg));
	for (size_t i = 0; i < sg.listed; i++)
		if (lengths[i] > longest)
			longest = lengths[i];
	TH_LOG("%u segments, the longest %llu bytes%s", sg.segments,
	       (unsigned long long)longest,
	       longest > 65536 ? "" : " (none above 64 KiB: nothing to check)");
	EXPECT_EQ(0, enpu_kreports_collect(&reports, sizeof(first), first))
		TH_LOG("kernel report: %s", first);
	enpu_kreports_stop(&reports);
	munmap(map, size);
}

/*
 * debugfs last_job_sg shows the last job's BOs and no other's. SUBMIT
 * writes the listing into the allocation of the one before the last
 * when it is large enough (kernel/enpu_job.c), so jobs with 3, 1, 2, 1
 * and 3 BOs of different sizes alternate between fitting and not: after
 * each, every BO of the job is listed with its size and access, and none
 * past the job's count. A reused listing that kept an earlier job's
 * count or BOs, or one written into too small a room (also a kernel
 * report on the debug kernel), fails here.
 */
TEST_F(submit, last_job_sg_lists_only_the_last_jobs_bos)
{
	static const uint32_t pages[3] = { 1, 2, 3 };
	static const int jobs[][4] = {
		{ 3, 0, 1, 2 }, { 1, 1 }, { 2, 2, 0 }, { 1, 0 }, { 3, 2, 1, 0 },
	};
	struct enpu_kreports reports = { .fd = -1 };
	uint64_t address[4], length[4];
	uint32_t handles[3];
	char debugfs[256], first[512];

	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(debugfs), debugfs));
	ASSERT_EQ(0, enpu_kreports_start(&reports));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, enpu_raw_bo_create(self->fd,
						pages[i] * ENPU_PAGE_SIZE, 0,
						&handles[i], NULL));
	for (unsigned int j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		uint32_t n = (uint32_t)jobs[j][0];
		struct drm_enpu_submit_bo bos[3];
		struct enpu_cmd_dma_fill fill;

		for (uint32_t i = 0; i < n; i++)
			bos[i] = (struct drm_enpu_submit_bo){
				handles[jobs[j][1 + i]],
				i ? DRM_ENPU_SUBMIT_BO_READ :
				    DRM_ENPU_SUBMIT_BO_WRITE };
		fill = fill_command(0, 0, ENPU_PAGE_SIZE);
		ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, n, &fill,
						    sizeof(fill), 0, 0));
		for (uint32_t i = 0; i <= n; i++) {
			struct enpu_job_sg_bo sg = {
				.address = address, .length = length,
				.capacity = 4,
			};
			int status = enpu_last_job_sg(debugfs, i, &sg);

			if (i == n) {
				EXPECT_EQ(-ENOENT, status)
					TH_LOG("job %u (%u BOs) lists a BO %u",
					       j, n, i);
				continue;
			}
			ASSERT_EQ(0, status);
			EXPECT_EQ(pages[jobs[j][1 + i]] * ENPU_PAGE_SIZE,
				  sg.size)
				TH_LOG("job %u, BO %u", j, i);
			EXPECT_STREQ(i ? "r" : "w", sg.access)
				TH_LOG("job %u, BO %u", j, i);
			EXPECT_NE((size_t)0, sg.listed);
		}
		ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, bos[0].handle, 0,
					      5 * SECOND));
	}
	EXPECT_EQ(0, enpu_kreports_collect(&reports, sizeof(first), first))
		TH_LOG("kernel report: %s", first);
	enpu_kreports_stop(&reports);
	for (int i = 0; i < 3; i++)
		enpu_raw_gem_close(self->fd, handles[i]);
}

/*
 * Every job of a BO uses its one DMA mapping (kernel/enpu_gem.c), the
 * jobs in flight together and the ones after: mapping the pages again
 * per job makes overlapping mappings, which the DMA API does not
 * support. Nine jobs (one more than the overlaps the DMA-API debug
 * checks track) each fill a page of dst while a vgem fence holds them
 * in the kernel, and one more runs after them. On a kernel with those
 * checks (the debug kernel) the test counts dst's mappings in the DMA
 * API's own table and its violation count; elsewhere it checks what the
 * jobs wrote and that they were given the same pages.
 */
#define HELD_JOBS 9
#define PAGE 4096

TEST_F_TIMEOUT(submit, jobs_in_flight_share_one_dma_mapping_of_a_bo, 60)
{
	struct drm_enpu_submit_bo bos[2] = {
		{ self->dst, DRM_ENPU_SUBMIT_BO_WRITE },
		{ 0, DRM_ENPU_SUBMIT_BO_READ },
	};
	uint64_t held_address[1], address[1], length[1];
	struct enpu_job_sg_bo sg = {
		.address = held_address, .length = length, .capacity = 1,
	};
	long long errors_before = 0, errors_after = 0;
	int dma_api, held, mappings = -1;
	struct enpu_cmd_dma_fill fill;
	struct enpu_blocker blocker;
	char debugfs[256];

	ASSERT_EQ(0, enpu_debugfs_dir(sizeof(debugfs), debugfs));
	dma_api = !enpu_dma_api_errors(&errors_before);
	ASSERT_EQ(0, enpu_blocker_create(&blocker));
	ASSERT_EQ(0, enpu_blocker_import(&blocker, self->fd, &bos[1].handle));
	for (int i = 0; i < HELD_JOBS; i++) {
		fill = fill_command(0, (uint64_t)i * PAGE, PAGE);
		fill.value = (uint8_t)(i + 1);
		ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 2, &fill,
						    sizeof(fill), 0, 0));
	}
	ASSERT_EQ(0, enpu_last_job_sg(debugfs, 0, &sg));
	if (dma_api)
		ASSERT_EQ(0, enpu_dma_api_mappings_at("enpu", held_address[0],
						      &mappings));
	/* Only a log: vgem signals the fence by itself after 10 s. */
	held = self->dst_map[(HELD_JOBS - 1) * PAGE] == UNTOUCHED;
	ASSERT_EQ(0, enpu_blocker_release(&blocker));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 30 * SECOND));
	for (int i = 0; i < HELD_JOBS; i++) {
		EXPECT_EQ(i + 1, self->dst_map[i * PAGE]);
		EXPECT_EQ(i + 1, self->dst_map[i * PAGE + PAGE - 1]);
	}
	EXPECT_EQ(UNTOUCHED, self->dst_map[HELD_JOBS * PAGE]);

	fill = fill_command(0, HELD_JOBS * PAGE, PAGE);
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, bos, 1, &fill,
					    sizeof(fill), 0, 0));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 30 * SECOND));
	EXPECT_EQ(POISON, self->dst_map[HELD_JOBS * PAGE]);
	sg.address = address;
	ASSERT_EQ(0, enpu_last_job_sg(debugfs, 0, &sg));
	EXPECT_EQ(held_address[0], address[0]);

	if (dma_api) {
		EXPECT_EQ(1, mappings)
			TH_LOG("%d DMA mappings of dst's first segment with %d jobs %s",
			       mappings, HELD_JOBS,
			       held ? "in flight" : "that had run");
		ASSERT_EQ(0, enpu_dma_api_errors(&errors_after));
		EXPECT_EQ(errors_before, errors_after)
			TH_LOG("the DMA-API checks counted %lld violations",
			       errors_after - errors_before);
	} else {
		TH_LOG("no DMA-API debug checks on this kernel: mappings not counted");
	}
	enpu_blocker_destroy(&blocker);
}

TEST_F(submit, seqno_rises_and_out_syncobj_signals)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = base_submit(self, &fill, sizeof(fill));
	uint64_t previous = 0;
	uint32_t syncobj;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	submit.out_syncobj = syncobj;
	for (int i = 0; i < 5; i++) {
		submit.seqno = 0;
		fill.value = (uint32_t)(0x40 + i);
		ASSERT_EQ(0, enpu_raw_submit(self->fd, &submit));
		if (i)
			EXPECT_LT(previous, submit.seqno);
		previous = submit.seqno;
		ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
					    enpu_now_ns() + 5 * SECOND, 0,
					    NULL));
		/* Signalled means done: the bytes are there without BO_WAIT. */
		EXPECT_EQ(0x40 + i, self->dst_map[BO_SIZE / 2]);
	}
	drmSyncobjDestroy(self->fd, syncobj);
}

TEST_F(submit, sync_file_of_the_out_syncobj_polls_readable)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct pollfd poller;
	uint32_t syncobj;
	int sync_file;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, enpu_raw_submit_simple(self->fd, self->bos, 2, &fill,
					    sizeof(fill), 0, syncobj));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(self->fd, syncobj, &sync_file));
	poller = (struct pollfd){ .fd = sync_file, .events = POLLIN };
	ASSERT_EQ(1, poll(&poller, 1, 5000));
	EXPECT_TRUE(poller.revents & POLLIN);
	EXPECT_EQ(POISON, self->dst_map[0]);
	close(sync_file);
	drmSyncobjDestroy(self->fd, syncobj);
}

TEST_F(submit, library_builder_and_submit_run_a_job)
{
	struct enpu_submit_bo bos[2];
	struct enpu_submit_desc desc = { 0 };
	enpu_bo *src, *dst;
	enpu_cmdbuf *cmdbuf;
	unsigned char *in, *out;
	uint64_t seqno = 0;
	uint32_t syncobj;

	ASSERT_EQ(0, enpu_bo_create(self->device, 3 * 4096, 0, &src));
	ASSERT_EQ(0, enpu_bo_create(self->device, 3 * 4096, 0, &dst));
	ASSERT_EQ(0, enpu_bo_map(src, (void **)&in));
	ASSERT_EQ(0, enpu_bo_map(dst, (void **)&out));
	for (int i = 0; i < 3 * 4096; i++)
		in[i] = (unsigned char)(i * 31);
	ASSERT_EQ(0, enpu_cmdbuf_create(&cmdbuf));
	ASSERT_EQ(0, enpu_cmdbuf_nop(cmdbuf, 10));
	ASSERT_EQ(0, enpu_cmdbuf_dma_fill(cmdbuf, 1, 0, 3 * 4096, 0x77));
	ASSERT_EQ(0, enpu_cmdbuf_dma_copy(cmdbuf, 0, 10, 1, 20, 8000));
	bos[0] = (struct enpu_submit_bo){ src, DRM_ENPU_SUBMIT_BO_READ, 0 };
	bos[1] = (struct enpu_submit_bo){ dst, DRM_ENPU_SUBMIT_BO_WRITE, 0 };
	ASSERT_EQ(0, enpu_syncobj_create(self->device, &syncobj));
	ASSERT_EQ(0, enpu_cmdbuf_data(cmdbuf, &desc.commands,
				      &desc.commands_size));
	desc.bos = bos;
	desc.bo_count = 2;
	desc.out_syncobj = syncobj;
	ASSERT_EQ(0, enpu_submit(self->device, &desc, &seqno));
	EXPECT_NE(0ULL, seqno);
	ASSERT_EQ(0, enpu_syncobj_wait(self->device, syncobj, 5 * SECOND, 0));
	ASSERT_EQ(0, enpu_bo_wait(dst, 0, DRM_ENPU_WAIT_WRITERS_ONLY));
	for (int i = 0; i < 3 * 4096; i++) {
		unsigned char want = i >= 20 && i < 8020 ?
				     (unsigned char)((i - 10) * 31) : 0x77;

		ASSERT_EQ(want, out[i]) TH_LOG("byte %d", i);
	}
	/* A foreign or missing BO is refused by the library, naming it. */
	bos[1].bo = NULL;
	EXPECT_EQ(-EINVAL, enpu_submit(self->device, &desc, &seqno));
	enpu_syncobj_destroy(self->device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_bo_destroy(src);
	enpu_bo_destroy(dst);
}

TEST_F(submit, library_reports_kernel_rejections)
{
	struct enpu_cmd_dma_fill fill = fill_command(5, 0, 8);
	struct enpu_submit_desc desc = {
		.commands = &fill,
		.commands_size = sizeof(fill),
	};
	const char *message;
	uint64_t seqno = 0;

	EXPECT_EQ(-EINVAL, enpu_submit(self->device, &desc, &seqno));
	ASSERT_EQ(0, enpu_device_last_error(self->device, &message));
	EXPECT_NE(NULL, strstr(message, "SUBMIT")) TH_LOG("%s", message);
	EXPECT_EQ(0ULL, seqno);
}

/*
 * Stream objects (driver uapi 1.2): STREAM_CREATE and _DESTROY, SUBMIT
 * with DRM_ENPU_SUBMIT_STREAM. A job of a stream object moves the same
 * bytes as a job of the same commands; the stream is the copy made at
 * create; the validation remembered for one BO list never passes a job
 * with another (a smaller BO, a BO without the access, fewer BOs); a
 * stream that failed is validated, and refused, again; arguments,
 * handles of another file and the per-file limit; a stream destroyed
 * with its job in flight; libenpu's enpu_submit_stream().
 */
#define SMALL_SIZE 4096

static int stream_create(int fd, const void *commands, uint32_t size,
			 uint32_t *handle)
{
	struct drm_enpu_stream_create create = {
		.commands = (uintptr_t)commands,
		.commands_size = size,
	};

	if (ioctl(fd, DRM_IOCTL_ENPU_STREAM_CREATE, &create))
		return -errno;
	*handle = create.handle;
	return 0;
}

static int stream_destroy(int fd, uint32_t handle)
{
	struct drm_enpu_stream_destroy destroy = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_ENPU_STREAM_DESTROY, &destroy) ? -errno : 0;
}

/* A job of stream @handle with the first @bo_count entries of @bos. */
static int submit_stream(int fd, uint32_t handle,
			 const struct drm_enpu_submit_bo *bos,
			 uint32_t bo_count)
{
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)bos,
		.bo_count = bo_count,
		.bo_stride = sizeof(*bos),
		.flags = DRM_ENPU_SUBMIT_STREAM,
		.stream = handle,
	};

	return enpu_raw_submit(fd, &submit);
}

static int all_bytes(const unsigned char *map, size_t size, unsigned char v)
{
	for (size_t i = 0; i < size; i++)
		if (map[i] != v)
			return 0;
	return 1;
}

TEST_F(submit, stream_a_stream_job_moves_what_a_copied_job_does)
{
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 1, 0, BO_SIZE);
	uint32_t handle = 0;

	ASSERT_EQ(0, stream_create(self->fd, &copy, sizeof(copy), &handle));
	ASSERT_NE(0u, handle);
	/* The second job is the one whose validation was remembered. */
	for (int round = 0; round < 2; round++) {
		memset(self->dst_map, UNTOUCHED, BO_SIZE);
		ASSERT_EQ(0, submit_stream(self->fd, handle, self->bos, 2));
		ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0,
					      5 * SECOND));
		ASSERT_EQ(0, memcmp(self->src_map, self->dst_map, BO_SIZE))
			TH_LOG("round %d", round);
	}
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
}

TEST_F(submit, stream_the_stream_is_the_copy_made_at_create)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	uint32_t handle = 0;

	ASSERT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &handle));
	/* An invalid command now in the caller's memory is not the job's. */
	fill.dst.bo_index = 7;
	ASSERT_EQ(0, submit_stream(self->fd, handle, self->bos, 2));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_TRUE(all_bytes(self->dst_map, BO_SIZE, POISON));
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
}

/*
 * The remembered validation is for one list of BO sizes and access flags:
 * a 64 KiB fill that passed with a 64 KiB BO must be refused with a 4 KiB
 * BO in its place or with the BO marked READ, every time, and pass again
 * with the list it passed with.
 */
TEST_F(submit, stream_a_remembered_validation_passes_no_other_bo_list)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit_bo small[2] = { self->bos[0] };
	struct drm_enpu_submit_bo read_only[2] = {
		self->bos[0], { self->dst, DRM_ENPU_SUBMIT_BO_READ },
	};
	unsigned char *small_map;
	uint32_t handle = 0;

	ASSERT_EQ(0, enpu_raw_bo_create(self->fd, SMALL_SIZE, 0,
					&small[1].handle, NULL));
	small[1].flags = DRM_ENPU_SUBMIT_BO_WRITE;
	small_map = enpu_raw_bo_map(self->fd, small[1].handle, SMALL_SIZE);
	ASSERT_NE(NULL, small_map);
	memset(small_map, UNTOUCHED, SMALL_SIZE);
	ASSERT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &handle));
	for (int round = 0; round < 2; round++) {
		memset(self->dst_map, UNTOUCHED, BO_SIZE);
		ASSERT_EQ(0, submit_stream(self->fd, handle, self->bos, 2));
		ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0,
					      5 * SECOND));
		EXPECT_TRUE(all_bytes(self->dst_map, BO_SIZE, POISON));
		memset(self->dst_map, UNTOUCHED, BO_SIZE);
		EXPECT_EQ(-EINVAL, submit_stream(self->fd, handle, small, 2))
			TH_LOG("round %d: a 64 KiB fill of a 4 KiB BO", round);
		EXPECT_EQ(-EINVAL, submit_stream(self->fd, handle, read_only,
						 2))
			TH_LOG("round %d: a fill of a READ BO", round);
		/* One BO fewer: the fill's index is past the list. */
		EXPECT_EQ(-EINVAL, submit_stream(self->fd, handle, self->bos,
						 1));
		ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, small[1].handle, 0,
					      5 * SECOND));
		EXPECT_TRUE(all_bytes(small_map, SMALL_SIZE, UNTOUCHED));
		EXPECT_TRUE(all_bytes(self->dst_map, BO_SIZE, UNTOUCHED));
	}
	munmap(small_map, SMALL_SIZE);
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
}

TEST_F(submit, stream_a_failing_stream_is_refused_every_time)
{
	struct enpu_cmd_dma_fill fill = fill_command(5, 0, BO_SIZE);
	uint32_t handle = 0;

	ASSERT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &handle));
	for (int round = 0; round < 3; round++)
		EXPECT_EQ(-EINVAL, submit_stream(self->fd, handle, self->bos,
						 2));
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
}

TEST_F(submit, stream_create_and_destroy_check_their_arguments)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_stream_create create = {
		.commands = (uintptr_t)&fill,
		.commands_size = sizeof(fill),
	};
	struct drm_enpu_stream_destroy destroy = { 0 };
	uint32_t handle = 0;

	EXPECT_EQ(-EINVAL, stream_create(self->fd, &fill, 0, &handle));
	EXPECT_EQ(-EINVAL, stream_create(self->fd, &fill, 12, &handle));
	EXPECT_EQ(-EINVAL, stream_create(self->fd, &fill,
					 ENPU_CMD_MAX_STREAM + 8, &handle));
	EXPECT_EQ(-EFAULT, stream_create(self->fd, (void *)8, sizeof(fill),
					 &handle));
	create.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_STREAM_CREATE, &create));
	EXPECT_EQ(EINVAL, errno);
	create.flags = 0;
	create.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_STREAM_CREATE, &create));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0u, handle);

	ASSERT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &handle));
	destroy.handle = handle;
	destroy.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_ENPU_STREAM_DESTROY,
			    &destroy));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
	EXPECT_EQ(-ENOENT, stream_destroy(self->fd, handle));
	EXPECT_EQ(-ENOENT, stream_destroy(self->fd, 0));
	/* Destroyed: its handle no longer submits. */
	EXPECT_EQ(-ENOENT, submit_stream(self->fd, handle, self->bos, 2));
}

TEST_F(submit, stream_submit_checks_the_stream_fields)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)self->bos,
		.bo_count = 2,
		.bo_stride = sizeof(self->bos[0]),
		.flags = DRM_ENPU_SUBMIT_STREAM,
	};
	enpu_device *other = NULL;
	uint32_t handle = 0;
	char why[256];
	int other_fd;

	ASSERT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &handle));
	submit.stream = handle + 1;
	EXPECT_EQ(-ENOENT, enpu_raw_submit(self->fd, &submit));
	submit.stream = handle;
	submit.commands = (uintptr_t)&fill;
	EXPECT_EQ(-EINVAL, enpu_raw_submit(self->fd, &submit));
	submit.commands = 0;
	submit.commands_size = sizeof(fill);
	EXPECT_EQ(-EINVAL, enpu_raw_submit(self->fd, &submit));
	submit.commands_size = 0;
	/* A handle is the file's: another open file does not have it. */
	ASSERT_EQ(0, enpu_selftest_open(&other, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(other, &other_fd));
	EXPECT_EQ(-ENOENT, stream_destroy(other_fd, handle));
	enpu_device_close(other);
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_TRUE(all_bytes(self->dst_map, BO_SIZE, UNTOUCHED));
	EXPECT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, enpu_raw_bo_wait(self->fd, self->dst, 0, 5 * SECOND));
	EXPECT_TRUE(all_bytes(self->dst_map, BO_SIZE, POISON));
	EXPECT_EQ(0, stream_destroy(self->fd, handle));
}

TEST_F(submit, stream_a_file_holds_at_most_the_limit)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	static uint32_t handles[DRM_ENPU_MAX_STREAMS_PER_FILE];
	uint32_t extra = 0;
	unsigned int i;

	for (i = 0; i < DRM_ENPU_MAX_STREAMS_PER_FILE; i++) {
		int status = stream_create(self->fd, &fill, sizeof(fill),
					   &handles[i]);

		ASSERT_EQ(0, status)
			TH_LOG("stream %u", i);
	}
	EXPECT_EQ(-EMFILE, stream_create(self->fd, &fill, sizeof(fill),
					 &extra));
	EXPECT_EQ(0, stream_destroy(self->fd, handles[17]));
	EXPECT_EQ(0, stream_create(self->fd, &fill, sizeof(fill), &extra));
	EXPECT_EQ(handles[17], extra);
	/* The rest go with the file (the fixture's teardown closes it). */
}

TEST_F(submit, stream_destroyed_with_its_job_in_flight_the_job_still_runs)
{
	struct enpu_cmd_dma_copy copy = copy_command(0, 0, 1, 0, BO_SIZE);
	uint32_t handle = 0, syncobj = 0;
	struct drm_enpu_submit submit = {
		.bos = (uintptr_t)self->bos,
		.bo_count = 2,
		.bo_stride = sizeof(self->bos[0]),
		.flags = DRM_ENPU_SUBMIT_STREAM,
	};
	int job_status = 1;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, stream_create(self->fd, &copy, sizeof(copy), &handle));
	submit.stream = handle;
	submit.out_syncobj = syncobj;
	ASSERT_EQ(0, enpu_raw_submit(self->fd, &submit));
	ASSERT_EQ(0, stream_destroy(self->fd, handle));
	ASSERT_EQ(0, enpu_job_wait(self->device, syncobj, 5 * SECOND, 0,
				   &job_status));
	EXPECT_EQ(0, job_status);
	EXPECT_EQ(0, memcmp(self->src_map, self->dst_map, BO_SIZE));
	drmSyncobjDestroy(self->fd, syncobj);
}

/* libenpu: the object, its handle, enpu_submit_stream()'s own checks. */
TEST_F(submit, stream_libenpu_submits_a_stream_object)
{
	struct enpu_cmd_dma_fill fill = fill_command(1, 0, BO_SIZE);
	struct enpu_submit_desc desc;
	struct enpu_submit_bo list[2];
	enpu_bo *src = NULL, *dst = NULL;
	enpu_stream *stream = NULL;
	uint32_t handle = 0;
	uint64_t seqno = 0;
	void *map = NULL;

	ASSERT_EQ(0, enpu_bo_create(self->device, BO_SIZE, 0, &src));
	ASSERT_EQ(0, enpu_bo_create(self->device, BO_SIZE, 0, &dst));
	ASSERT_EQ(0, enpu_stream_create(self->device, &fill, sizeof(fill),
					&stream));
	ASSERT_EQ(0, enpu_stream_handle(stream, &handle));
	EXPECT_NE(0u, handle);
	list[0] = (struct enpu_submit_bo){ src, DRM_ENPU_SUBMIT_BO_READ, 0 };
	list[1] = (struct enpu_submit_bo){ dst, DRM_ENPU_SUBMIT_BO_WRITE, 0 };
	memset(&desc, 0, sizeof(desc));
	desc.bos = list;
	desc.bo_count = 2;
	/* A desc naming commands too is the caller's mistake. */
	desc.commands = &fill;
	desc.commands_size = sizeof(fill);
	EXPECT_EQ(-EINVAL, enpu_submit_stream(self->device, &desc, stream,
					      &seqno));
	desc.commands = NULL;
	desc.commands_size = 0;
	ASSERT_EQ(0, enpu_submit_stream(self->device, &desc, stream, &seqno));
	EXPECT_NE(0ull, (unsigned long long)seqno);
	ASSERT_EQ(0, enpu_bo_wait(dst, 5 * SECOND, 0));
	ASSERT_EQ(0, enpu_bo_map(dst, &map));
	EXPECT_TRUE(all_bytes(map, BO_SIZE, POISON));
	enpu_bo_unmap(dst);
	EXPECT_EQ(0, enpu_stream_destroy(stream));
	enpu_bo_destroy(src);
	enpu_bo_destroy(dst);
}

/*
 * libenpu keeps up to 32 BOs and 32 in-fences of a submit on its stack
 * and allocates beyond that: 40 of each reach the kernel intact. The
 * last BO is the one the job writes, and an unknown handle in the last
 * in-fence entry is ENOENT, so both arrays' tails were passed on.
 */
TEST_F(submit, libenpu_passes_arrays_longer_than_its_stack_ones)
{
	enum { COUNT = 40 };
	struct enpu_cmd_dma_fill fill = fill_command(COUNT - 1, 0, BO_SIZE);
	struct enpu_submit_fence fences[COUNT];
	struct enpu_submit_bo list[COUNT];
	struct enpu_submit_desc desc;
	enpu_bo *bo[COUNT] = { NULL };
	uint32_t signalled = 0;
	uint64_t seqno = 0;
	void *map = NULL;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, DRM_SYNCOBJ_CREATE_SIGNALED,
				      &signalled));
	for (int i = 0; i < COUNT; i++) {
		ASSERT_EQ(0, enpu_bo_create(self->device, BO_SIZE, 0, &bo[i]));
		list[i] = (struct enpu_submit_bo){ bo[i],
						   DRM_ENPU_SUBMIT_BO_READ, 0 };
		fences[i] = (struct enpu_submit_fence){ signalled, 0, 0 };
	}
	list[COUNT - 1].access = DRM_ENPU_SUBMIT_BO_WRITE;
	memset(&desc, 0, sizeof(desc));
	desc.commands = &fill;
	desc.commands_size = sizeof(fill);
	desc.bos = list;
	desc.bo_count = COUNT;
	desc.in_fences = fences;
	desc.in_fence_count = COUNT;
	fences[COUNT - 1].syncobj = signalled + 1000;
	EXPECT_EQ(-ENOENT, enpu_submit(self->device, &desc, &seqno));
	fences[COUNT - 1].syncobj = signalled;
	ASSERT_EQ(0, enpu_submit(self->device, &desc, &seqno));
	ASSERT_EQ(0, enpu_bo_wait(bo[COUNT - 1], 5 * SECOND, 0));
	ASSERT_EQ(0, enpu_bo_map(bo[COUNT - 1], &map));
	EXPECT_TRUE(all_bytes(map, BO_SIZE, POISON));
	enpu_bo_unmap(bo[COUNT - 1]);
	for (int i = 0; i < COUNT; i++)
		enpu_bo_destroy(bo[i]);
	drmSyncobjDestroy(self->fd, signalled);
}

TEST_HARNESS_MAIN
