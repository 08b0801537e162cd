// SPDX-License-Identifier: MIT
/*
 * The guest's own costs, for e2e-npu-bench (e2e_npu_probe.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <enpu/enpu.h>

#include "e2e_npu_probe.h"
#include "npu.h"

static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double probe_process_cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

/*
 * Every other task's schedstat file, opened once and read with pread():
 * opening thousands of procfs files per frame would itself keep RCU and
 * ksoftirqd busy freeing their dentries, and be counted as other tasks'
 * work.
 */
struct probe_tasks {
	size_t count;
	struct {
		int fd;
		unsigned long long first, last;
		char comm[20];
	} t[2048];
};

static void open_task(struct probe_tasks *s, const char *pid,
		      const char *tid)
{
	char path[600], comm[64] = "";
	FILE *f;
	int fd;

	if (s->count == sizeof(s->t) / sizeof(s->t[0]))
		return;
	snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid, tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
	}
	s->t[s->count].fd = fd;
	snprintf(s->t[s->count].comm, sizeof(s->t[0].comm), "%s", comm);
	s->count++;
}

/* A task that exited keeps the time it had when last read. */
static unsigned long long task_ns(struct probe_tasks *s, size_t i)
{
	char line[128];
	ssize_t n = pread(s->t[i].fd, line, sizeof(line) - 1, 0);

	if (n > 0) {
		line[n] = 0;
		s->t[i].last = strtoull(line, NULL, 10);
	}
	return s->t[i].last;
}

struct probe_tasks *probe_tasks_open(void)
{
	struct probe_tasks *s = calloc(1, sizeof(*s));
	char self[32], path[300];
	struct dirent *p, *t;
	DIR *procs = opendir("/proc"), *tasks;

	if (!s || !procs) {
		free(s);
		if (procs)
			closedir(procs);
		return NULL;
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	while ((p = readdir(procs))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9' ||
		    !strcmp(p->d_name, self))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks)))
			if (t->d_name[0] >= '0' && t->d_name[0] <= '9')
				open_task(s, p->d_name, t->d_name);
		closedir(tasks);
	}
	closedir(procs);
	for (size_t i = 0; i < s->count; i++)
		s->t[i].first = task_ns(s, i);
	return s;
}

double probe_tasks_cpu_ms(struct probe_tasks *s)
{
	unsigned long long sum = 0;

	for (size_t i = 0; s && i < s->count; i++)
		sum += task_ns(s, i);
	return (double)sum / 1e6;
}

void probe_tasks_close(struct probe_tasks *s, int frames)
{
	double best[4] = { 0 };
	const char *name[4] = { NULL };

	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++) {
		double ms = (double)(task_ns(s, i) - s->t[i].first) / 1e6 /
			    frames;

		for (int k = 0; k < 4; k++)
			if (ms > best[k]) {
				for (int m = 3; m > k; m--) {
					best[m] = best[m - 1];
					name[m] = name[m - 1];
				}
				best[k] = ms;
				name[k] = s->t[i].comm;
				break;
			}
	}
	printf("    other tasks, the busiest over the whole loop (the "
	       "frames, back to back; ms per frame):");
	for (int k = 0; k < 4 && name[k]; k++)
		printf(" %s %.3f%s", name[k], best[k], k < 3 && name[k + 1] ?
		       "," : "");
	printf("\n");
	for (size_t i = 0; i < s->count; i++)
		close(s->t[i].fd);
	free(s);
}

double probe_syscall_ns(int host)
{
	enum { CALLS = 20000 };
	char buf[64];
	double best = 1e30;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (int round = 0; round < 5; round++) {
		double t0 = clock_ms(host ? CLOCK_PROCESS_CPUTIME_ID :
				     CLOCK_MONOTONIC), t;

		for (int i = 0; i < CALLS; i++)
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				break;
		t = clock_ms(host ? CLOCK_PROCESS_CPUTIME_ID :
			     CLOCK_MONOTONIC) - t0;
		if (t < best)
			best = t;
	}
	close(fd);
	return best * 1e6 / CALLS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double probe_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int probe_spread(const double *v, int n, struct probe_spread *out)
{
	double *c = n > 0 ? malloc((size_t)n * sizeof(*c)) : NULL, sum = 0;

	if (!c)
		return -1;
	for (int i = 0; i < n; i++) {
		c[i] = v[i];
		sum += v[i];
	}
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	out->q1 = c[n / 4];
	out->median = c[n / 2];
	out->q3 = c[3 * n / 4];
	out->mean = sum / n;
	free(c);
	return 0;
}

enum { P_SUBMIT, P_WAIT, P_ROUND, P_DONE_WAIT, P_GENERIC_WAIT, P_STATUS,
       P_SYNCOBJ, P_BO_WAIT, P_COUNTERS, P_COUNT };

static const char *const probe_names[P_COUNT] = {
	"enpu_submit() of a 1-cycle NOP job, 2 BOs (the SUBMIT ioctl)",
	"enpu_job_wait() until it signalled (fence, IRQ, wake-up)",
	"  the whole round trip, submit to wait return",
	"enpu_job_wait() of a signalled job (one JOB_WAIT ioctl)",
	"  the generic way (SYNCOBJ_WAIT, sync_file, FILE_INFO)",
	"enpu_job_status() of a signalled job (JOB_WAIT, 0 timeout)",
	"enpu_syncobj_wait() on a signalled syncobj",
	"enpu_bo_wait() on an idle BO",
	"PERF_BUSY_NS read from debugfs regs (npu_counters_busy_ns)",
};

/*
 * What a job's size costs at SUBMIT: the same NOP job with 100 NOP
 * commands instead of 1 (the validator per command), and with an 8 MiB BO
 * added to its list (pinning and mapping per page, the BO table).
 */
static void submit_variants(enpu_device *d, uint32_t syncobj, enpu_bo **small,
			    int runs)
{
	enpu_cmdbuf *cb = NULL;
	enpu_bo *big = NULL;
	double *t = calloc((size_t)runs, sizeof(*t));
	void *map;

	if (!t || enpu_cmdbuf_create(&cb) ||
	    enpu_bo_create(d, 8u << 20, 0, &big) || enpu_bo_map(big, &map)) {
		free(t);
		enpu_cmdbuf_destroy(cb);
		enpu_bo_destroy(big);
		return;
	}
	memset(map, 1, 8u << 20);	/* the pages exist, as an arena's do */
	enpu_bo_unmap(big);
	for (int v = 0; v < 2; v++) {
		struct enpu_submit_bo list[3] = {
			{ small[0], DRM_ENPU_SUBMIT_BO_READ |
				    DRM_ENPU_SUBMIT_BO_WRITE, 0 },
			{ small[1], DRM_ENPU_SUBMIT_BO_READ, 0 },
			{ big, DRM_ENPU_SUBMIT_BO_READ, 0 },
		};
		struct enpu_submit_desc desc = { 0 };
		const void *stream;
		uint32_t size;
		int n = 0;

		enpu_cmdbuf_reset(cb);
		for (int i = 0; i < (v ? 1 : 100); i++)
			enpu_cmdbuf_nop(cb, 1);
		enpu_cmdbuf_data(cb, &stream, &size);
		desc.commands = stream;
		desc.commands_size = size;
		desc.bos = list;
		desc.bo_count = v ? 3 : 2;
		desc.out_syncobj = syncobj;
		for (int i = 0; i < runs; i++) {
			uint64_t seqno;
			int job = 0;
			double t0 = clock_ms(CLOCK_MONOTONIC);

			if (enpu_submit(d, &desc, &seqno))
				break;
			t[n++] = clock_ms(CLOCK_MONOTONIC) - t0;
			enpu_job_wait(d, syncobj, NPU_JOB_TIMEOUT_NS, 0, &job);
		}
		if (n)
			printf("    %-64s %7.3f\n", v ?
			       "enpu_submit(), the same job with an 8 MiB BO added" :
			       "enpu_submit(), the same job with 100 NOP commands",
			       probe_median(t, n));
	}
	free(t);
	enpu_cmdbuf_destroy(cb);
	enpu_bo_destroy(big);
}

/*
 * What enpu_job_wait() did before JOB_WAIT, and still does on a 1.0
 * driver: wait for the syncobj, export its fence as a sync_file, read
 * the status, close. Done by hand so that both ways run in one VM.
 */
static int generic_job_wait(int fd, uint32_t syncobj, int *job_status)
{
	struct sync_file_info info;
	uint32_t handle = syncobj;
	int sync_file;

	if (drmSyncobjWait(fd, &handle, 1, INT64_MAX,
			   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ||
	    drmSyncobjExportSyncFile(fd, syncobj, &sync_file))
		return -1;
	memset(&info, 0, sizeof(info));
	if (ioctl(sync_file, SYNC_IOC_FILE_INFO, &info)) {
		close(sync_file);
		return -1;
	}
	close(sync_file);
	*job_status = info.status > 0 ? 0 : info.status;
	return 0;
}

void probe_primitives(int runs)
{
	enpu_device *d = NULL;
	enpu_bo *bo[2] = { NULL, NULL };
	enpu_cmdbuf *cb = NULL;
	struct enpu_error failure = { "" };
	struct enpu_submit_bo list[2];
	struct enpu_submit_desc desc = { 0 };
	uint32_t syncobj = 0, size;
	const void *stream;
	char counters[600] = "";
	double *t[P_COUNT];
	int ok = 1, fd = -1;

	for (int p = 0; p < P_COUNT; p++)
		t[p] = calloc((size_t)runs, sizeof(double));
	if (enpu_device_open_index(0, &d, &failure) ||
	    enpu_bo_create(d, 4096, 0, &bo[0]) ||
	    enpu_bo_create(d, 4096, 0, &bo[1]) ||
	    enpu_device_fd(d, &fd) ||
	    enpu_syncobj_create(d, &syncobj) || enpu_cmdbuf_create(&cb) ||
	    enpu_cmdbuf_nop(cb, 1) || enpu_cmdbuf_data(cb, &stream, &size)) {
		printf("  (primitives: no device: %s)\n", failure.message);
		ok = 0;
	}
	if (npu_counters_find(counters, sizeof(counters)))
		counters[0] = 0;
	for (int i = 0; ok && i < runs; i++) {
		uint64_t seqno, busy;
		int job = 0;
		double t0, t1, t2;

		list[0] = (struct enpu_submit_bo){ bo[0],
			DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE, 0 };
		list[1] = (struct enpu_submit_bo){ bo[1],
			DRM_ENPU_SUBMIT_BO_READ, 0 };
		desc.commands = stream;
		desc.commands_size = size;
		desc.bos = list;
		desc.bo_count = 2;
		desc.out_syncobj = syncobj;
		t0 = clock_ms(CLOCK_MONOTONIC);
		if (enpu_submit(d, &desc, &seqno))
			ok = 0;
		t1 = clock_ms(CLOCK_MONOTONIC);
		if (ok && (enpu_job_wait(d, syncobj, NPU_JOB_TIMEOUT_NS, 0,
					 &job) || job))
			ok = 0;
		t2 = clock_ms(CLOCK_MONOTONIC);
		t[P_SUBMIT][i] = t1 - t0;
		t[P_WAIT][i] = t2 - t1;
		t[P_ROUND][i] = t2 - t0;
		t0 = clock_ms(CLOCK_MONOTONIC);
		enpu_job_wait(d, syncobj, NPU_JOB_TIMEOUT_NS, 0, &job);
		t1 = clock_ms(CLOCK_MONOTONIC);
		generic_job_wait(fd, syncobj, &job);
		t2 = clock_ms(CLOCK_MONOTONIC);
		t[P_DONE_WAIT][i] = t1 - t0;
		t[P_GENERIC_WAIT][i] = t2 - t1;
		t0 = clock_ms(CLOCK_MONOTONIC);
		enpu_job_status(d, syncobj, &job);
		t1 = clock_ms(CLOCK_MONOTONIC);
		enpu_syncobj_wait(d, syncobj, NPU_JOB_TIMEOUT_NS, 0);
		t2 = clock_ms(CLOCK_MONOTONIC);
		t[P_STATUS][i] = t1 - t0;
		t[P_SYNCOBJ][i] = t2 - t1;
		t0 = clock_ms(CLOCK_MONOTONIC);
		enpu_bo_wait(bo[0], NPU_JOB_TIMEOUT_NS, 0);
		t1 = clock_ms(CLOCK_MONOTONIC);
		if (counters[0])
			npu_counters_busy_ns(counters, &busy);
		t2 = clock_ms(CLOCK_MONOTONIC);
		t[P_BO_WAIT][i] = t1 - t0;
		t[P_COUNTERS][i] = counters[0] ? t2 - t1 : -1;
	}
	if (ok) {
		printf("  driver primitives in the guest (median of %d, wall "
		       "ms):\n", runs);
		submit_variants(d, syncobj, bo, runs);
		for (int p = 0; p < P_COUNT; p++)
			if (p != P_COUNTERS || counters[0])
				printf("    %-64s %7.3f\n", probe_names[p],
				       probe_median(t[p], runs));
	}
	for (int p = 0; p < P_COUNT; p++)
		free(t[p]);
	enpu_cmdbuf_destroy(cb);
	if (syncobj)
		enpu_syncobj_destroy(d, syncobj);
	enpu_bo_destroy(bo[0]);
	enpu_bo_destroy(bo[1]);
	enpu_device_close(d);
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok ? 0 : -1;
}

static int write_line(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ok = f && fprintf(f, "%s\n", value) > 0;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

int probe_pin_top_clock(struct probe_clock *c)
{
	const char *root = "/sys/class/devfreq";
	DIR *dir = opendir(root);
	struct dirent *e;

	memset(c, 0, sizeof(*c));
	if (!dir)
		return -1;
	while ((e = readdir(dir)) && !c->dir[0]) {
		char path[400], target[256];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/device/driver", root,
			 e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strcmp(strrchr(target, '/') ? strrchr(target, '/') + 1 :
			   target, "enpu"))
			continue;
		snprintf(c->dir, sizeof(c->dir), "%s/%s", root, e->d_name);
	}
	closedir(dir);
	if (!c->dir[0])
		return -1;
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/min_freq", c->dir);
		if (read_line(path, c->saved_min, sizeof(c->saved_min)))
			return -1;
		snprintf(path, sizeof(path), "%s/max_freq", c->dir);
		if (read_line(path, c->top, sizeof(c->top)))
			return -1;
		snprintf(path, sizeof(path), "%s/min_freq", c->dir);
		if (write_line(path, c->top))
			return -1;
	}
	c->pinned = 1;
	return 0;
}

void probe_restore_clock(const struct probe_clock *c)
{
	char path[600];

	if (!c->pinned)
		return;
	snprintf(path, sizeof(path), "%s/min_freq", c->dir);
	write_line(path, c->saved_min);
}
