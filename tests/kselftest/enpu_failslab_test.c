// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures injected into the driver's paths (issue 8, deliver
 * 5), with the kernel's fault injection: failslab and fail_page_alloc
 * armed per task through /proc/thread-self/fail-nth, which fails the
 * N-th allocation this thread makes from then on. For BO_CREATE, the
 * import of a vgem dma-buf, SUBMIT, CONTEXT_CREATE and the device's
 * probe (unbind, then bind with the N-th allocation failing), N runs from
 * 1 until the operation makes fewer than N allocations: every run must
 * either succeed or fail with -ENOMEM (probe: any errno, and the device
 * must come back on the next bind), leave the device working, and, once
 * all are done, kmemleak must find no leaked object allocated by enpu
 * and the kernel log no report.
 *
 * fail-nth counts every fault-injection point the thread passes, not only
 * allocations: with CONFIG_FAULT_INJECTION_USERCOPY (the debug kernel has
 * it) each copy from or to user memory is one too, and the first point of
 * every ioctl is drm_ioctl()'s copy of the argument. So each sweep makes
 * the kernel name the point it failed (verbose 1: "FAULT_INJECTION:
 * forcing a failure. name <attr>" in the log; a user copy always says
 * so, an allocation with __GFP_NOWARN says nothing) and asserts the errno
 * of that kind: -EFAULT for a failed user copy, 0 or -ENOMEM for a failed
 * allocation.
 *
 * The probe sweep starts after devm_drm_dev_alloc() has returned: an
 * allocation failing inside 6.1's drm_dev_init() (drm_sysfs_minor_alloc())
 * leaves an ERR_PTR in drm_minor.kdev that drm_minor_alloc_release()
 * then passes to put_device(), a KASAN null-ptr-deref in kobject_put()
 * that takes the guest down (a DRM core bug, not enpu's error path; see
 * docs/security.md). It ends before the first register_irq_proc()
 * (request_irq() of the first MSI-X vector): from there on 6.1's core
 * error paths report on their own when an allocation fails —
 * register_irq_proc() ignores a failed proc_create() and
 * remove_proc_entry() WARNs when the vector is freed; devfreq_add_device()
 * releases an SRCU notifier head it has not initialised yet (ODEBUG and
 * a flush_work() WARN). Both ends are measured, not guessed: dry-run binds
 * with kprobe events on should_fail_ex() (every point fail-nth counts),
 * the return of __devm_drm_dev_alloc() and the entry of
 * register_irq_proc(); what is swept in between is enpu's own bring-up
 * (mailbox, queues, jobs, recovery, identification, scheduler, reset,
 * firmware boot).
 *
 * Needs a kernel with CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC and
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel, make check-debug);
 * Debian's stock 6.1 has none of them, so there every case is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "enpu_buffers.h"
#include "enpu_jobs.h"
#include "enpu_kreports.h"
#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define DEBUGFS "/sys/kernel/debug"
#define TRACEFS DEBUGFS "/tracing"
#define MAX_NTH 400

/* The fault-injection attributes fail-nth can hit, as the kernel names them. */
static const char *const fault_attrs[] = {
	"failslab", "fail_page_alloc", "fail_usercopy",
};

enum fault_kind { FAULT_NONE, FAULT_ALLOC, FAULT_USERCOPY };

/* The kernel log from now on, for what fail_dump() says. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Which attribute the kernel says it failed since kmsg_open(). */
static enum fault_kind kmsg_fault(int fd)
{
	enum fault_kind kind = FAULT_NONE;
	char record[2048];
	ssize_t got;

	while ((got = read(fd, record, sizeof(record) - 1)) > 0 ||
	       (got < 0 && errno == EPIPE)) {
		if (got <= 0)
			continue;
		record[got] = '\0';
		if (!strstr(record, "FAULT_INJECTION: forcing a failure"))
			continue;
		if (strstr(record, "name fail_usercopy,"))
			kind = FAULT_USERCOPY;
		else if (strstr(record, "name failslab,") ||
			 strstr(record, "name fail_page_alloc,"))
			kind = FAULT_ALLOC;
	}
	return kind;
}

/* Fail the nth fault-injection point of this thread from now on (0: stop). */
static void arm_nth(int nth)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", nth);
	enpu_write_file("/proc/thread-self/fail-nth", text);
}

/* 1 if the armed failure was injected (fail-nth counted down to 0). */
static int fail_nth_hit(void)
{
	char text[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, text, sizeof(text) - 1);
	close(fd);
	arm_nth(0);
	return got > 0 && atoi(text) == 0;
}

FIXTURE(failslab)
{
	enpu_device *device;
	int fd;
	struct enpu_kreports reports;
	char bdf[64];
	int ready;
	int kmsg;		/* the log since the last arm() */
	enum fault_kind kind;	/* what the last injected failure hit */
};

/* The harness runs the body even when the setup skipped: stop here. */
#define NEED_FAULT_INJECTION()						\
	do {								\
		if (!self->ready)					\
			SKIP(return, "no fault injection in this kernel"); \
	} while (0)

/* arm_nth(), with the kernel log read from here on. */
static void arm(FIXTURE_DATA(failslab) *self, int nth)
{
	if (self->kmsg >= 0)
		lseek(self->kmsg, 0, SEEK_END);
	arm_nth(nth);
}

/* Was the failure injected, and at which kind of point (self->kind)? */
static int injected(FIXTURE_DATA(failslab) *self)
{
	int hit = fail_nth_hit();

	self->kind = hit && self->kmsg >= 0 ? kmsg_fault(self->kmsg) :
		     FAULT_NONE;
	return hit;
}

FIXTURE_SETUP(failslab)
{
	char why[256], path[128];

	self->reports.fd = -1;
	self->kmsg = -1;
	if (access(DEBUGFS "/failslab", F_OK) ||
	    access(DEBUGFS "/fail_page_alloc", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "kernel without failslab/fail_page_alloc (the debug kernel has them)");
	/* Only fail-nth injects: no random failures, sleeping allocations too. */
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/failslab/probability", "0"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/failslab/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/probability", "0"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
				"N"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/fail_page_alloc/ignore-gfp-highmem",
				"N"));
	/* One line naming the attribute of each injected failure, no stack. */
	for (size_t i = 0; i < sizeof(fault_attrs) / sizeof(fault_attrs[0]);
	     i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s/verbose",
			 fault_attrs[i]);
		if (!access(path, F_OK))
			ASSERT_EQ(0, enpu_write_file(path, "1"));
	}
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(why), why))
		TH_LOG("%s", why);
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	ASSERT_EQ(0, enpu_kreports_start(&self->reports));
	self->ready = 1;
}

FIXTURE_TEARDOWN(failslab)
{
	arm_nth(0);
	if (self->kmsg >= 0)
		close(self->kmsg);
	/* A probe test that stopped early must not leave the device unbound. */
	if (self->bdf[0] && enpu_selftest_count_devices() == 0)
		enpu_write_file("/sys/bus/pci/drivers/enpu/bind", self->bdf);
	enpu_kreports_stop(&self->reports);
	if (self->device)
		enpu_device_close(self->device);
}

/* One fill job on a fresh BO of fd; 0 when its bytes are right. */
static int job_works(int fd)
{
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = ENPU_PAGE_SIZE, .value = 0x3a,
	};
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	unsigned char *map;
	int status;

	status = enpu_raw_bo_create(fd, ENPU_PAGE_SIZE, 0, &bo.handle, NULL);
	if (status)
		return status;
	map = enpu_raw_bo_map(fd, bo.handle, ENPU_PAGE_SIZE);
	status = map ? enpu_raw_submit_simple(fd, &bo, 1, &fill,
					      sizeof(fill), 0, 0) : -ENOMEM;
	if (!status)
		status = enpu_raw_bo_wait(fd, bo.handle, 0, 30 * ENPU_SECOND_NS);
	if (!status && (map[0] != 0x3a || map[ENPU_PAGE_SIZE - 1] != 0x3a))
		status = -EIO;
	if (map)
		munmap(map, ENPU_PAGE_SIZE);
	enpu_raw_gem_close(fd, bo.handle);
	return status;
}

/*
 * Runs op with the nth allocation of the operation failing, for n = 1,
 * 2, ... until the operation makes fewer than n allocations. op(self, n,
 * &hit) sets up unarmed, arms n right before the operation, reports in
 * hit whether the failure was injected, checks and cleans up, and
 * returns 0 or the operation's negative errno. Returns the runs that had
 * a failure injected.
 */
typedef int (*failslab_op)(FIXTURE_DATA(failslab) *self, int nth, int *hit);

static int sweep(struct __test_metadata *_metadata,
		 FIXTURE_DATA(failslab) *self, const char *what,
		 failslab_op op, int allow_any_errno)
{
	int runs = 0, usercopies = 0;

	for (int nth = 1; nth <= MAX_NTH; nth++) {
		int status, hit = 0;

		status = op(self, nth, &hit);
		if (!hit) {
			EXPECT_EQ(0, status)
				TH_LOG("%s: %d without an injected failure",
				       what, status);
			break;
		}
		runs++;
		/* No message: an allocation with __GFP_NOWARN (FAULT_NOWARN). */
		if (self->kind == FAULT_USERCOPY) {
			usercopies++;
			EXPECT_EQ(-EFAULT, status)
				TH_LOG("%s, user copy %d failing: %d (%s)",
				       what, nth, status, strerror(-status));
		} else if (!allow_any_errno) {
			EXPECT_TRUE(status == 0 || status == -ENOMEM)
				TH_LOG("%s, allocation %d failing: %d (%s)",
				       what, nth, status, strerror(-status));
		}
		EXPECT_EQ(0, job_works(self->fd))
			TH_LOG("%s: device broken after allocation %d failed",
			       what, nth);
	}
	TH_LOG("%s: %d failures injected, %d of them user copies", what, runs,
	       usercopies);
	EXPECT_LT(usercopies, runs);
	return runs;
}

static int op_bo_create(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	uint32_t handle;
	int status;

	arm(self, nth);
	status = enpu_raw_bo_create(self->fd, 64 * 1024, 0, &handle, NULL);
	*hit = injected(self);
	if (!status)
		enpu_raw_gem_close(self->fd, handle);
	return status;
}

static int op_context_create(FIXTURE_DATA(failslab) *self, int nth,
			     int *hit)
{
	struct drm_enpu_context_create create = {
		.priority = DRM_ENPU_PRIORITY_NORMAL,
	};
	struct drm_enpu_context_destroy destroy = { 0 };
	int status = 0;

	arm(self, nth);
	if (ioctl(self->fd, DRM_IOCTL_ENPU_CONTEXT_CREATE, &create))
		status = -errno;
	*hit = injected(self);
	if (!status) {
		destroy.context = create.context;
		ioctl(self->fd, DRM_IOCTL_ENPU_CONTEXT_DESTROY, &destroy);
	}
	return status;
}

/* A fill job; if accepted, it must complete and write every byte. */
static int op_submit(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	const size_t size = 64 * 1024;
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.size = size, .value = 0x17,
	};
	struct drm_enpu_submit_bo bo = { 0, DRM_ENPU_SUBMIT_BO_WRITE };
	unsigned char *map;
	int status;

	if (enpu_raw_bo_create(self->fd, size, 0, &bo.handle, NULL))
		return -EIO;
	map = enpu_raw_bo_map(self->fd, bo.handle, size);
	if (!map) {
		enpu_raw_gem_close(self->fd, bo.handle);
		return -EIO;
	}
	memset(map, 0, size);
	arm(self, nth);
	status = enpu_raw_submit_simple(self->fd, &bo, 1, &fill, sizeof(fill),
					0, 0);
	*hit = injected(self);
	if (!status && (enpu_raw_bo_wait(self->fd, bo.handle, 0,
					 30 * ENPU_SECOND_NS) ||
			map[0] != 0x17 || map[size - 1] != 0x17))
		status = -EIO;
	munmap(map, size);
	enpu_raw_gem_close(self->fd, bo.handle);
	return status;
}

static int op_import(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	uint32_t vgem_handle, handle;
	uint64_t size;
	int vgem, dmabuf, status;

	if (vgem_open(&vgem))
		return -EIO;
	if (vgem_create(vgem, 64 * 1024, &vgem_handle, &size) ||
	    drmPrimeHandleToFD(vgem, vgem_handle, DRM_CLOEXEC, &dmabuf)) {
		close(vgem);
		return -EIO;
	}
	close(vgem);
	arm(self, nth);
	status = enpu_prime_import(self->fd, dmabuf, &handle);
	*hit = injected(self);
	if (!status)
		enpu_raw_gem_close(self->fd, handle);
	close(dmabuf);
	return status;
}

/* /sys/bus/pci/devices/<bdf> of our device, from its DRM node. */
static int device_bdf(const char *node, size_t size, char *bdf)
{
	char link[PATH_MAX], target[PATH_MAX];
	const char *name = strrchr(node, '/');
	ssize_t length;

	snprintf(link, sizeof(link), "/sys/class/drm/%s/device",
		 name ? name + 1 : node);
	length = readlink(link, target, sizeof(target) - 1);
	if (length < 0)
		return -errno;
	target[length] = '\0';
	name = strrchr(target, '/');
	snprintf(bdf, size, "%.63s", name ? name + 1 : target);
	return 0;
}

#define DRIVER_DIR "/sys/bus/pci/drivers/enpu"

/* Probe with the nth allocation failing: bind, then unbind if it bound. */
static int op_probe(FIXTURE_DATA(failslab) *self, int nth, int *hit)
{
	int fd = open(DRIVER_DIR "/bind", O_WRONLY | O_CLOEXEC);
	ssize_t written;
	int status;

	if (fd < 0)
		return -errno;
	arm(self, nth);
	written = write(fd, self->bdf, strlen(self->bdf));
	status = written < 0 ? -errno : 0;
	*hit = injected(self);
	close(fd);
	if (!status) {
		status = enpu_selftest_count_devices() == 1 ? 0 : -ENODEV;
		enpu_write_file(DRIVER_DIR "/unbind", self->bdf);
	}
	return status;
}

/* Appends text to a tracefs file (kprobe_events adds, not replaces). */
static int trace_append(const char *name, const char *text)
{
	char path[128];
	int fd, status = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		status = -errno;
	close(fd);
	return status;
}

/* Empties a tracefs file (the trace, set_event_pid): open with O_TRUNC. */
static int trace_clear(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

#define PROBE_GROUP "enpu_failslab"

static void trace_cleanup(void)
{
	enpu_write_file(TRACEFS "/tracing_on", "0");
	enpu_write_file(TRACEFS "/events/" PROBE_GROUP "/enable", "0");
	trace_clear("set_event_pid");
	trace_append("kprobe_events", "-:" PROBE_GROUP "/point\n");
	trace_append("kprobe_events", "-:" PROBE_GROUP "/drm_alloc_done\n");
	trace_append("kprobe_events", "-:" PROBE_GROUP "/irq_proc_in\n");
}

/*
 * The points of a bind the sweep injects at: after devm_drm_dev_alloc()
 * has returned (first), up to the last one before register_irq_proc()
 * (last). The top of this file says why.
 */
struct probe_window {
	int first;
	int last;
};

static int trace_add_probes(void)
{
	static const char *const probes[] = {
		"p:" PROBE_GROUP "/point should_fail_ex\n",
		"r:" PROBE_GROUP "/drm_alloc_done __devm_drm_dev_alloc\n",
		"p:" PROBE_GROUP "/irq_proc_in register_irq_proc\n",
	};
	int status = 0;

	for (size_t i = 0; !status && i < sizeof(probes) / sizeof(probes[0]);
	     i++)
		status = trace_append("kprobe_events", probes[i]);
	return status;
}

/*
 * One dry-run bind, traced: the fault-injection points (every
 * should_fail_ex() call, which is what fail-nth counts) up to the return
 * of __devm_drm_dev_alloc(), and up to the first call of
 * register_irq_proc(). 0 or a negative errno.
 */
static int probe_trace(FIXTURE_DATA(failslab) *self, struct probe_window *w)
{
	char pid[16], line[512];
	int points = 0, done = 0, bind, on, status;
	FILE *trace;

	w->first = -1;
	w->last = -1;
	trace_cleanup();
	status = trace_add_probes();
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!status)
		status = enpu_write_file(TRACEFS "/set_event_pid", pid);
	if (!status)
		status = trace_clear("trace");
	if (!status)
		status = enpu_write_file(TRACEFS "/events/" PROBE_GROUP "/enable",
					 "1");
	bind = open(DRIVER_DIR "/bind", O_WRONLY | O_CLOEXEC);
	on = open(TRACEFS "/tracing_on", O_WRONLY | O_CLOEXEC);
	if (!status && (bind < 0 || on < 0))
		status = -errno;
	/* The same window as op_probe(): right before the bind's write. */
	if (!status && write(on, "1", 1) != 1)
		status = -errno;
	if (!status && write(bind, self->bdf, strlen(self->bdf)) < 0)
		status = -errno;
	if (on >= 0 && write(on, "0", 1) != 1 && !status)
		status = -errno;
	if (on >= 0)
		close(on);
	if (bind >= 0)
		close(bind);
	if (!status)
		enpu_write_file(DRIVER_DIR "/unbind", self->bdf);
	trace = status ? NULL : fopen(TRACEFS "/trace", "r");
	/*
	 * A kprobe handler's context flags are its own (int3, shown as NMI),
	 * so a call from an interrupt that came while this thread ran is
	 * counted too although fail-nth skips it; none is expected in a bind
	 * (no network, no allocating softirq), and before the first window
	 * it could only move the start later, never into drm_dev_init().
	 */
	while (trace && w->last < 0 && fgets(line, sizeof(line), trace)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, " drm_alloc_done: ")) {
			w->first = points;
			done = 1;
		} else if (done && strstr(line, " irq_proc_in: ")) {
			w->last = points;
		} else if (strstr(line, " point: ")) {
			points++;
		}
	}
	if (trace)
		fclose(trace);
	trace_cleanup();
	if (status)
		return status;
	return done && w->last >= 0 ? 0 : -ENOENT;
}

/*
 * The sequence of points varies by a few from one bind to the next
 * (preloads, caches): the window is the narrowest of three dry runs,
 * less a margin at its end.
 */
#define PROBE_DRY_RUNS 3
#define PROBE_MARGIN 8

static int probe_window(FIXTURE_DATA(failslab) *self, struct probe_window *w)
{
	struct probe_window run;
	int status = 0;

	w->first = 0;
	w->last = INT_MAX;
	for (int i = 0; !status && i < PROBE_DRY_RUNS; i++) {
		status = probe_trace(self, &run);
		if (run.first > w->first)
			w->first = run.first;
		if (run.last < w->last)
			w->last = run.last;
	}
	w->last -= PROBE_MARGIN;
	return status;
}

TEST_F_TIMEOUT(failslab, bo_create, 120)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "BO_CREATE", op_bo_create, 0);
}

TEST_F_TIMEOUT(failslab, context_create, 120)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "CONTEXT_CREATE", op_context_create, 0);
}

/*
 * 900 s for the two longest sweeps: a guard against a hang, not a speed
 * bound. On the debug kernel at load 15-20 the PRIME import sweep took
 * longer than the 300 s it had (make check-debug of 2026-12-03).
 */
TEST_F_TIMEOUT(failslab, submit, 900)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "SUBMIT", op_submit, 0);
}

TEST_F_TIMEOUT(failslab, vgem_import, 900)
{
	NEED_FAULT_INJECTION();
	sweep(_metadata, self, "PRIME import", op_import, 0);
}

/*
 * The probe: unbound, then bound with the nth point failing, from the
 * first point after devm_drm_dev_alloc() (the top of this file says
 * why). A failed probe may return any errno but must leave nothing
 * behind: the next bind brings the device back and it runs jobs.
 */
TEST_F_TIMEOUT(failslab, probe, 1800)
{
	struct probe_window window;
	const char *node;
	int runs = 0;

	NEED_FAULT_INJECTION();

	ASSERT_EQ(0, enpu_device_path(self->device, &node));
	ASSERT_EQ(0, device_bdf(node, sizeof(self->bdf), self->bdf));
	enpu_device_close(self->device);
	self->device = NULL;
	ASSERT_EQ(0, enpu_write_file(DRIVER_DIR "/unbind", self->bdf));
	if (access(TRACEFS "/kprobe_events", F_OK))
		SKIP(goto rebind, "no kprobe events: cannot start after drm_dev_init()");
	ASSERT_EQ(0, probe_window(self, &window));
	ASSERT_LT(window.first, window.last);
	TH_LOG("probe: points %d..%d, after devm_drm_dev_alloc() and before request_irq()",
	       window.first + 1, window.last);
	for (int nth = window.first + 1; nth <= window.last; nth++) {
		int status, hit = 0;

		status = op_probe(self, nth, &hit);
		if (!hit) {
			EXPECT_EQ(0, status);
			break;
		}
		runs++;
		TH_LOG("probe, %s %d failing: %d",
		       self->kind == FAULT_USERCOPY ? "user copy" : "allocation",
		       nth, status);
	}
	TH_LOG("probe: %d failures injected", runs);
	EXPECT_LT(0, runs);
rebind:
	ASSERT_EQ(0, enpu_write_file(DRIVER_DIR "/bind", self->bdf));
	for (int i = 0; i < 100 && enpu_selftest_count_devices() != 1; i++)
		enpu_sleep_ms(50);
	ASSERT_EQ(0, enpu_selftest_open(&self->device, sizeof(self->bdf),
					self->bdf));
	ASSERT_EQ(0, enpu_device_fd(self->device, &self->fd));
	EXPECT_EQ(0, job_works(self->fd));
}

/*
 * Last: after every injected failure above, kmemleak (if the kernel has
 * it) must find no unreferenced object whose allocation came from enpu,
 * and no kernel report may have appeared.
 */
TEST_F_TIMEOUT(failslab, nothing_leaked, 120)
{
	char line[512], first[512] = "";
	int leaks = 0, in_enpu = 0;
	FILE *file;

	NEED_FAULT_INJECTION();

	if (access(DEBUGFS "/kmemleak", F_OK))
		SKIP(return, "kernel without kmemleak");
	/* Objects younger than about 5 s are not reported: let them age. */
	enpu_sleep_ms(6000);
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/kmemleak", "scan"));
	ASSERT_EQ(0, enpu_write_file(DEBUGFS "/kmemleak", "scan"));
	file = fopen(DEBUGFS "/kmemleak", "r");
	ASSERT_NE(NULL, file);
	while (fgets(line, sizeof(line), file)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			leaks += in_enpu;
			in_enpu = 0;
		} else if (strstr(line, "[enpu]") && !in_enpu) {
			in_enpu = 1;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", line);
		}
	}
	leaks += in_enpu;
	fclose(file);
	EXPECT_EQ(0, leaks) TH_LOG("first leak backtrace line: %s", first);
	EXPECT_EQ(0, enpu_kreports_collect(&self->reports, sizeof(first),
					   first))
		TH_LOG("kernel report: %s", first);
}

TEST_HARNESS_MAIN
