// SPDX-License-Identifier: MIT
/*
 * make bench-sched: the scheduler's figures, in one run and one boot of
 * the VM (tests/bench/sched/README.md says what each line means):
 *
 *   1. NOP dispatch latency: SUBMIT ioctl entry -> doorbell and -> waiter
 *      woken, split at the completion interrupt and the fence signal
 *      (debugfs latency), next to the raw doorbell -> interrupt ping;
 *   2. REALTIME latency (a 0.2 ms job every 5 ms of device time) on an
 *      idle device, and while LOW contexts saturate it with 50 ms jobs,
 *      preemptive and with sched_mode=fifo (the module is reloaded);
 *      LOW throughput under that load as a share of LOW alone; the
 *      preemption latency the device measured (PREEMPT received -> saved
 *      -> REALTIME job started, control socket preempt-stats) and what
 *      the preemption points cost LOW;
 *   3. the fairness of 4 NORMAL contexts (Jain's index of device time).
 *
 * Needs the rig's --fault-relay (vnpu speed and statistics).
 *
 *   sched-bench [--jobs N] [--speed F] [--low-jobs N] [--parts 123]
 *               [--no-pin]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "enpu_accel.h"
#include "enpu_jobs.h"
#include "enpu_selftest.h"

#define WARMUP		200
#define RT_CYCLES	200000u		/* 0.2 ms at 1 GHz */
#define RT_PERIOD_NS	5000000LL	/* 5 ms of device time */
#define LOW_NOP_CYCLES	50000000u	/* + the conv: > 50 ms */
#define LOW_CONTEXTS	2
#define FAIR_CONTEXTS	4
#define FAIR_JOB_CYCLES	20000000u	/* 20 ms */
#define FAIR_SECONDS	3
#define CONV_SIZE	32
#define CONV_CHANNELS	32

static double speed = 0.1;
static int pin = 1;
static char debugfs[256];

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void sleep_until(int64_t at)
{
	struct timespec t = { .tv_sec = at / 1000000000,
			      .tv_nsec = at % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) ==
	       EINTR)
		;
}

static void die(const char *what, int status)
{
	fprintf(stderr, "sched-bench: %s: %s\n", what, strerror(-status));
	exit(1);
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of @count samples (sorted here). */
static int64_t pct(int64_t *v, size_t count, double p)
{
	size_t rank = (size_t)(p / 100.0 * (double)count + 0.999999);

	qsort(v, count, sizeof(*v), compare);
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return count ? v[rank - 1] : 0;
}

struct stats {
	int64_t p50, p99, max;
};

static struct stats stats_of(int64_t *v, size_t count)
{
	struct stats s = { pct(v, count, 50), pct(v, count, 99),
			   pct(v, count, 100) };

	return s;
}

static void row(const char *name, int64_t *v, size_t count, double scale,
		struct stats *out)
{
	struct stats s = stats_of(v, count);

	printf("  %-44s %7zu %10.1f %10.1f %10.1f\n", name, count,
	       (double)s.p50 * scale / 1e3, (double)s.p99 * scale / 1e3,
	       (double)s.max * scale / 1e3);
	if (out)
		*out = s;
}

static void fault(const char *command, char *reply, size_t size)
{
	char buf[256];
	int status = enpu_fault(command, reply ? size : sizeof(buf),
				reply ? reply : buf);

	if (status)
		die(command, status);
}

static void set_speed(double f)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "speed %g", f);
	fault(cmd, NULL, 0);
}

static enpu_device *open_device(void)
{
	enpu_device *device;
	char why[256];

	if (enpu_selftest_open(&device, sizeof(why), why)) {
		fprintf(stderr, "sched-bench: %s\n", why);
		exit(1);
	}
	return device;
}

static void new_context(enpu_device *device, uint32_t priority,
			enpu_context **ctx, uint32_t *id)
{
	int status = enpu_context_create(device, priority, ctx);

	if (!status)
		status = enpu_context_id(*ctx, id);
	if (status)
		die("context", status);
}

static int submit_cmdbuf(enpu_device *device, const enpu_cmdbuf *cmdbuf,
			 const struct enpu_submit_bo *bos, uint32_t bo_count,
			 uint32_t context, uint32_t syncobj, uint64_t *seqno)
{
	struct enpu_submit_desc desc = { 0 };
	uint64_t ignored;
	int status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
				      &desc.commands_size);

	if (status)
		return status;
	desc.bos = bos;
	desc.bo_count = bo_count;
	desc.context = context;
	desc.out_syncobj = syncobj;
	return enpu_submit(device, &desc, seqno ? seqno : &ignored);
}

static enpu_cmdbuf *nop_cmdbuf(uint32_t cycles)
{
	enpu_cmdbuf *cmdbuf;

	if (enpu_cmdbuf_create(&cmdbuf) || enpu_cmdbuf_nop(cmdbuf, cycles)) {
		fprintf(stderr, "sched-bench: cmdbuf\n");
		exit(1);
	}
	return cmdbuf;
}

/* ---- 1. NOP dispatch latency ---- */

/*
 * The IRQ number of the interrupt named @name in /proc/interrupts, or -1.
 */
static int irq_number(const char *name)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];
	int irq = -1;

	while (f && irq < 0 && fgets(line, sizeof(line), f)) {
		char *end = line + strcspn(line, "\n");

		*end = 0;
		if (end - line > (long)strlen(name) &&
		    !strcmp(end - strlen(name), name))
			irq = atoi(line);
	}
	if (f)
		fclose(f);
	return irq;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/*
 * Both measurements with the waiter on the vCPU that takes its interrupt:
 * the job-done and mailbox interrupts are steered to CPU 0 and the bench
 * runs there. Otherwise each wake-up is an IPI to a halted vCPU, whose
 * QEMU thread the host must schedule first (tens of us to ms on a busy
 * host, and different for the two interrupts, which Linux spreads over
 * the vCPUs). Returns the number of steps that failed (printed).
 */
static int pin_to_interrupts(void)
{
	static const char *const names[] = { "enpu-job-done", "enpu-mailbox" };
	cpu_set_t one;
	int failed = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int irq = irq_number(names[i]);
		char path[64];

		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list",
			 irq);
		if (irq < 0 || write_text(path, "0")) {
			fprintf(stderr, "sched-bench: cannot steer %s to CPU 0\n",
				names[i]);
			failed++;
		}
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		fprintf(stderr, "sched-bench: cannot run on CPU 0\n");
		failed++;
	}
	return failed;
}

static void unpin(void)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

struct lat {
	uint64_t seqno;
	int64_t entry, run, irq, signal;
};

/* Parses debugfs latency lines of context @ctx into @out (by seqno). */
static void read_latency(uint32_t ctx, struct lat *out, uint64_t first,
			 size_t count)
{
	static char text[1 << 20];
	char *line;

	if (enpu_debugfs_read(debugfs, "latency", sizeof(text), text))
		die("debugfs latency", -EIO);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct lat l;
		unsigned int c;

		if (sscanf(line, "ctx=%u seqno=%lu entry=%ld run=%ld irq=%ld signal=%ld",
			   &c, &l.seqno, &l.entry, &l.run, &l.irq,
			   &l.signal) != 6 || c != ctx || l.seqno < first ||
		    l.seqno >= first + count)
			continue;
		out[l.seqno - first] = l;
	}
}

/*
 * One debugfs ping: the driver's doorbell -> interrupt time in ns. A ping
 * the driver timed out (100 ms, a busy host) is counted in *@lost and
 * taken again: the figure is the round trip, not the timeout.
 */
static int64_t ping_once(size_t *lost, size_t max_lost)
{
	for (;;) {
		char text[128];
		long long ns;

		if (!enpu_debugfs_read(debugfs, "ping", sizeof(text), text) &&
		    !enpu_text_value(text, "latency_ns", &ns))
			return ns;
		if (++*lost > max_lost)
			die("debugfs ping (over 1 % timed out)", -EIO);
	}
}

static struct stats nop_latency(size_t jobs, struct stats *ping_out)
{
	enpu_device *device = open_device();
	enpu_cmdbuf *cmdbuf = nop_cmdbuf(0);
	int64_t *user = calloc(jobs, sizeof(int64_t));
	int64_t *woken_at = calloc(jobs, sizeof(int64_t));
	int64_t *ping = calloc(jobs, sizeof(int64_t));
	struct lat *lat = calloc(jobs, sizeof(*lat));
	int64_t *seg[5];
	enpu_context *ctx;
	uint32_t id, syncobj;
	struct stats woken;
	uint64_t seqno, first_seqno = 0;
	size_t read = 0, pings_lost = 0;
	int pinned = pin && !pin_to_interrupts();

	for (int i = 0; i < 5; i++)
		seg[i] = calloc(jobs, sizeof(int64_t));
	if (!user || !woken_at || !ping || !lat || !seg[4])
		die("memory", -ENOMEM);
	new_context(device, DRM_ENPU_PRIORITY_NORMAL, &ctx, &id);
	if (enpu_syncobj_create(device, &syncobj))
		die("syncobj", -EIO);
	for (size_t i = 0; i < WARMUP + jobs; i++) {
		int64_t t0 = now_ns(), t1, ns;
		int status = submit_cmdbuf(device, cmdbuf, NULL, 0, id,
					   syncobj, &seqno);

		if (!status)
			status = enpu_syncobj_wait(device, syncobj,
						   5000000000LL, 0);
		t1 = now_ns();
		if (status)
			die("NOP job", status);
		/* Interleaved, so that both see the same host load. */
		ns = ping_once(&pings_lost, jobs / 100 + 1);
		if (i < WARMUP)
			continue;
		ping[i - WARMUP] = ns;
		if (i == WARMUP)
			first_seqno = seqno;
		user[i - WARMUP] = t1 - t0;
		woken_at[i - WARMUP] = t1;
		/* debugfs latency keeps the last 4096 jobs: read often. */
		if (i - WARMUP + 1 - read == 2048 || i + 1 == WARMUP + jobs) {
			read_latency(id, lat + read, first_seqno + read,
				     i - WARMUP + 1 - read);
			read = i - WARMUP + 1;
		}
	}
	for (size_t i = 0; i < jobs; i++) {
		struct lat *l = &lat[i];

		if (!l->entry)
			die("a job missing from debugfs latency", -ENOENT);
		seg[0][i] = l->run - l->entry;
		seg[1][i] = l->irq - l->run;
		seg[2][i] = l->signal - l->irq;
		seg[3][i] = woken_at[i] - l->signal;
		seg[4][i] = woken_at[i] - l->entry;
	}
	printf("\n1. NOP dispatch latency (us; the kernel's ktime and the waiter's CLOCK_MONOTONIC)\n");
	printf("  %s\n", pinned ?
	       "the waiter and the job-done and mailbox interrupts on CPU 0" :
	       "not pinned: a wake-up may be an IPI to a halted vCPU");
	printf("  %-44s %7s %10s %10s %10s\n", "", "samples", "p50", "p99",
	       "max");
	row("ioctl entry -> doorbell (device start)", seg[0], jobs, 1, NULL);
	row("doorbell -> completion consumed (IRQ)", seg[1], jobs, 1, NULL);
	row("completion consumed -> fence signalled", seg[2], jobs, 1, NULL);
	row("fence signalled -> waiter woken", seg[3], jobs, 1, NULL);
	row("ioctl entry -> waiter woken", seg[4], jobs, 1, &woken);
	row("user: before SUBMIT -> after the wait", user, jobs, 1, NULL);
	row("raw ping: doorbell -> interrupt", ping, jobs, 1, ping_out);
	if (pings_lost)
		printf("  (%zu pings timed out in the driver and were taken again)\n",
		       pings_lost);
	printf("  ratio (ioctl entry -> woken) / ping: p50 %.2fx, p99 %.2fx (target <= 1.5x)\n",
	       (double)woken.p50 / (double)ping_out->p50,
	       (double)woken.p99 / (double)ping_out->p99);
	if (pin)
		unpin();
	for (int i = 0; i < 5; i++)
		free(seg[i]);
	free(user);
	free(woken_at);
	free(ping);
	free(lat);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_context_destroy(ctx);
	enpu_device_close(device);
	return woken;
}

/* ---- 2. REALTIME under LOW load, 3. fairness ---- */

/*
 * One context's stream of jobs on its own file: a 3x3 conv (real work
 * for the vnpu) plus a NOP for LOW jobs, a NOP only for the fairness
 * ones; two queued at any time, until @jobs have completed or *@stop.
 */
/*
 * LOW jobs the watchdog blamed (-ETIMEDOUT) and the bench submitted again:
 * on a shared host a stalled vnpu process can stop the device's heartbeat
 * long enough for the driver to reset it. Printed when not 0.
 */
static int low_redone;

struct lane {
	pthread_t thread;
	enpu_device *device;
	enpu_context *ctx;
	uint32_t id;
	uint32_t sync[2];
	enpu_bo *bo[3];
	enpu_cmdbuf *cmdbuf;
	int conv;
	int jobs;
	const int *stop;
	int *finished;		/* set when this lane is done */
	int completed;
	int64_t done_at;
	int status;
};

static void lane_setup(struct lane *l, uint32_t priority, uint32_t cycles,
		       int conv)
{
	const size_t act = (size_t)CONV_SIZE * CONV_SIZE * CONV_CHANNELS;
	const size_t wts = (size_t)CONV_CHANNELS * CONV_CHANNELS * 9;
	size_t sizes[3] = { act, act, wts };
	struct enpu_conv2d_layer c = {
		.input = { .buf = { 0, 0, 0 }, .batch = 1, .height = CONV_SIZE,
			   .width = CONV_SIZE, .channels = CONV_CHANNELS,
			   .dtype = ENPU_DTYPE_UINT8, .zero_point = 3 },
		.output = { .buf = { 1, 0, 0 }, .batch = 1, .height = CONV_SIZE,
			    .width = CONV_SIZE, .channels = CONV_CHANNELS,
			    .dtype = ENPU_DTYPE_UINT8 },
		.weights = { 2, 0, 0 },
		.bias = { ENPU_BUF_NONE, 0, 0 },
		.requant = { { ENPU_BUF_NONE, 0, 0 }, 1 << 30, 40, 0, 255 },
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
		.groups = 1,
	};

	l->device = open_device();
	l->conv = conv;
	new_context(l->device, priority, &l->ctx, &l->id);
	for (int i = 0; i < 2; i++)
		if (enpu_syncobj_create(l->device, &l->sync[i]))
			die("syncobj", -EIO);
	for (int i = 0; conv && i < 3; i++) {
		void *map;

		if (enpu_bo_create(l->device, sizes[i], 0, &l->bo[i]) ||
		    enpu_bo_map(l->bo[i], &map))
			die("BO", -ENOMEM);
		memset(map, 0x11 * (i + 1), sizes[i]);
	}
	if (enpu_cmdbuf_create(&l->cmdbuf) ||
	    (conv && enpu_cmdbuf_conv2d(l->cmdbuf, &c)) ||
	    enpu_cmdbuf_nop(l->cmdbuf, cycles))
		die("cmdbuf", -EINVAL);
}

static int lane_submit(struct lane *l, uint32_t syncobj)
{
	struct enpu_submit_bo bos[3] = {
		{ l->bo[0], DRM_ENPU_SUBMIT_BO_READ, 0 },
		{ l->bo[1], DRM_ENPU_SUBMIT_BO_WRITE, 0 },
		{ l->bo[2], DRM_ENPU_SUBMIT_BO_READ, 0 },
	};

	return submit_cmdbuf(l->device, l->cmdbuf, bos, l->conv ? 3 : 0,
			     l->id, syncobj, NULL);
}

static int lane_stopped(const struct lane *l)
{
	return l->stop && __atomic_load_n(l->stop, __ATOMIC_ACQUIRE);
}

static void *lane_run(void *arg)
{
	struct lane *l = arg;
	int submitted = 0, job_status;

	for (int i = 0; i < 2 && submitted < l->jobs; i++, submitted++)
		if ((l->status = lane_submit(l, l->sync[i])))
			goto out;
	while (l->completed < submitted) {
		uint32_t s = l->sync[l->completed % 2];

		l->status = enpu_job_wait(l->device, s, 600 * 1000000000LL, 0,
					  &job_status);
		if (!l->status && (job_status == -ETIMEDOUT ||
				   job_status == ETIMEDOUT)) {
			__atomic_add_fetch(&low_redone, 1, __ATOMIC_RELAXED);
			if ((l->status = lane_submit(l, s)))
				goto out;
			continue;
		}
		if (l->status || (l->status = job_status))
			goto out;
		l->completed++;
		if (submitted < l->jobs && !lane_stopped(l)) {
			if ((l->status = lane_submit(l, s)))
				goto out;
			submitted++;
		}
	}
	l->done_at = now_ns();
out:
	if (l->finished)
		__atomic_store_n(l->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void lane_teardown(struct lane *l)
{
	enpu_cmdbuf_destroy(l->cmdbuf);
	for (int i = 0; l->conv && i < 3; i++)
		enpu_bo_destroy(l->bo[i]);
	enpu_context_destroy(l->ctx);
	enpu_device_close(l->device);
}

/*
 * REALTIME jobs every RT_PERIOD_NS of device time until *@stop (or @max
 * of them); their submit -> woken latencies (wall ns) into @lat.
 */
static size_t rt_series(int64_t *lat, size_t max, const int *stop)
{
	enpu_device *device = open_device();
	enpu_cmdbuf *cmdbuf = nop_cmdbuf(RT_CYCLES);
	int64_t period = (int64_t)((double)RT_PERIOD_NS / speed);
	int64_t next = now_ns() + period;
	enpu_context *ctx;
	uint32_t id, syncobj;
	size_t n = 0;

	new_context(device, DRM_ENPU_PRIORITY_REALTIME, &ctx, &id);
	if (enpu_syncobj_create(device, &syncobj))
		die("syncobj", -EIO);
	while (n < max && !(stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE))) {
		int64_t t0;
		int status, job_status = 1;

		sleep_until(next);
		next += period;
		t0 = now_ns();
		status = submit_cmdbuf(device, cmdbuf, NULL, 0, id, syncobj,
				       NULL);
		if (!status)
			status = enpu_job_wait(device, syncobj,
					       60 * 1000000000LL, 0,
					       &job_status);
		if (status || job_status)
			die("REALTIME job", status ? status : job_status);
		lat[n++] = now_ns() - t0;
	}
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_context_destroy(ctx);
	enpu_device_close(device);
	return n;
}

/*
 * LOW_CONTEXTS LOW contexts complete @low_jobs jobs in total; with @rt,
 * REALTIME jobs arrive meanwhile (while both are busy). Returns the
 * device time LOW took, and the REALTIME latencies in @rt (*@rt_count).
 */
static double low_load(int low_jobs, int64_t *rt, size_t rt_max,
		       size_t *rt_count)
{
	struct lane lanes[LOW_CONTEXTS];
	int64_t start, end = 0;
	int one_done = 0;

	memset(lanes, 0, sizeof(lanes));
	for (int i = 0; i < LOW_CONTEXTS; i++) {
		lane_setup(&lanes[i], DRM_ENPU_PRIORITY_LOW, LOW_NOP_CYCLES, 1);
		lanes[i].jobs = low_jobs / LOW_CONTEXTS;
		lanes[i].finished = &one_done;
	}
	start = now_ns();
	for (int i = 0; i < LOW_CONTEXTS; i++)
		pthread_create(&lanes[i].thread, NULL, lane_run, &lanes[i]);
	if (rt)
		*rt_count = rt_series(rt, rt_max, &one_done);
	for (int i = 0; i < LOW_CONTEXTS; i++) {
		pthread_join(lanes[i].thread, NULL);
		if (lanes[i].status)
			die("LOW job", lanes[i].status);
		if (lanes[i].done_at > end)
			end = lanes[i].done_at;
		lane_teardown(&lanes[i]);
	}
	return (double)(end - start) * speed / 1e9;
}

static long long reply_value(const char *reply, const char *key)
{
	long long v = 0;

	if (enpu_text_value(reply, key, &v))
		die(key, -EPROTO);
	return v;
}

static void reload(const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rmmod enpu && modprobe enpu %s", args);
	if (enpu_run(cmd))
		die(cmd, -EIO);
	for (int i = 0; i < 100 && enpu_selftest_count_devices() != 1; i++)
		usleep(100000);
	if (enpu_debugfs_dir(sizeof(debugfs), debugfs))
		die("debugfs after reload", -ENOENT);
}

/* REALTIME's hardware queue: its level (SQ_PRIORITY(q) = q, 4 queues). */
#define RT_QUEUE "3"

struct mode_result {
	double alone_s, loaded_s;
	size_t rt_count;
	int64_t rt[4096];
	char rt_device[256];	/* queue-stats of REALTIME's queue */
};

static void run_mode(const char *name, int low_jobs, struct mode_result *m,
		     char *preempt_reply, char *cost_reply)
{
	fault("stats-reset", NULL, 0);
	m->alone_s = low_load(low_jobs, NULL, 0, NULL);
	if (cost_reply)
		fault("cost-stats", cost_reply, 256);
	fault("stats-reset", NULL, 0);
	m->loaded_s = low_load(low_jobs, m->rt, 4096, &m->rt_count);
	fault("queue-stats " RT_QUEUE, m->rt_device, sizeof(m->rt_device));
	if (preempt_reply)
		fault("preempt-stats", preempt_reply, 256);
	printf("  %s: LOW alone %.3f s, with REALTIME %.3f s of device time for %d LOW jobs\n",
	       name, m->alone_s, m->loaded_s, low_jobs);
}

static void realtime_under_load(int low_jobs)
{
	static struct mode_result pre, fifo;
	static int64_t idle[4096], copy[4096];
	char preempt[256], cost[256], idle_device[256];
	struct stats s_idle, s_pre, s_fifo;
	const char *device_rows[3][2] = {
		{ "idle device", idle_device },
		{ "LOW load, preemptive", pre.rt_device },
		{ "LOW load, sched_mode=fifo", fifo.rt_device },
	};
	long long host_ns, busy_ns, points, point_cycles;
	size_t n_idle;

	set_speed(speed);
	fault("stats-reset", NULL, 0);
	n_idle = rt_series(idle, 200, NULL);
	fault("queue-stats " RT_QUEUE, idle_device, sizeof(idle_device));
	printf("\n2. REALTIME under LOW load (vnpu speed %g: device time = wall time x %g)\n",
	       speed, speed);
	printf("  REALTIME job: NOP of %u cycles (%.1f ms at 1 GHz) every %.0f ms of device time;\n",
	       RT_CYCLES, RT_CYCLES / 1e6, RT_PERIOD_NS / 1e6);
	printf("  LOW: %d contexts, jobs of a 3x3 conv (%dx%dx%d) + NOP of %u cycles (>= 50 ms), 2 queued each\n",
	       LOW_CONTEXTS, CONV_SIZE, CONV_SIZE, CONV_CHANNELS,
	       LOW_NOP_CYCLES);
	run_mode("preemptive", low_jobs, &pre, preempt, cost);
	reload("sched_mode=fifo");
	run_mode("fifo      ", low_jobs, &fifo, NULL, NULL);
	reload("");

	printf("\n  REALTIME latency in device time, measured by the vnpu: descriptor visible -> job done (us, queue-stats)\n");
	printf("  %-44s %7s %10s %10s %10s\n", "", "samples", "p50", "p99",
	       "max");
	for (int i = 0; i < 3; i++)
		printf("  %-44s %7lld %10.1f %10.1f %10.1f\n",
		       device_rows[i][0], reply_value(device_rows[i][1], "jobs"),
		       reply_value(device_rows[i][1], "p50_ns") / 1e3,
		       reply_value(device_rows[i][1], "p99_ns") / 1e3,
		       reply_value(device_rows[i][1], "max_ns") / 1e3);
	printf("  preemptive p99 / idle p99: %.2fx (target <= 1.2x); fifo p99 / idle p99: %.1fx\n",
	       (double)reply_value(pre.rt_device, "p99_ns") /
	       (double)reply_value(idle_device, "p99_ns"),
	       (double)reply_value(fifo.rt_device, "p99_ns") /
	       (double)reply_value(idle_device, "p99_ns"));

	printf("\n  the same, SUBMIT -> waiter woken, wall time x %g (includes the host's stalls)\n",
	       speed);
	printf("  %-44s %7s %10s %10s %10s\n", "", "samples", "p50", "p99",
	       "max");
	memcpy(copy, idle, n_idle * sizeof(*idle));
	row("idle device", copy, n_idle, speed, &s_idle);
	memcpy(copy, pre.rt, pre.rt_count * sizeof(*copy));
	row("LOW load, preemptive", copy, pre.rt_count, speed, &s_pre);
	memcpy(copy, fifo.rt, fifo.rt_count * sizeof(*copy));
	row("LOW load, sched_mode=fifo", copy, fifo.rt_count, speed,
	    &s_fifo);
	printf("  preemptive p99 / idle p99: %.2fx; fifo p99 / idle p99: %.1fx\n",
	       (double)s_pre.p99 / (double)s_idle.p99,
	       (double)s_fifo.p99 / (double)s_idle.p99);

	printf("\n  preemption latency, device time measured by the vnpu (preempt-stats over the preemptive run):\n");
	printf("  %s\n", preempt);
	printf("  PREEMPT received -> save complete: p50 %.2f us, p99 %.2f us, max %.2f us\n",
	       reply_value(preempt, "saved_p50_ns") / 1e3,
	       reply_value(preempt, "saved_p99_ns") / 1e3,
	       reply_value(preempt, "saved_max_ns") / 1e3);
	printf("  PREEMPT received -> REALTIME job started: p50 %.2f us, p99 %.2f us, max %.2f us (target p99 <= 50, stretch <= 20)\n",
	       reply_value(preempt, "start_p50_ns") / 1e3,
	       reply_value(preempt, "start_p99_ns") / 1e3,
	       reply_value(preempt, "start_max_ns") / 1e3);

	host_ns = reply_value(cost, "host_ns");
	busy_ns = reply_value(cost, "busy_ns");
	points = reply_value(cost, "points");
	point_cycles = reply_value(cost, "point_cycles");
	printf("\n  LOW throughput under REALTIME load: %.1f %% of LOW alone (preemptive), %.1f %% (fifo)\n",
	       100.0 * pre.alone_s / pre.loaded_s,
	       100.0 * fifo.alone_s / fifo.loaded_s);
	printf("  (REALTIME itself takes %.1f %% of the device: %.1f ms per %.0f ms)\n",
	       100.0 * RT_CYCLES / 1e6 / (RT_PERIOD_NS / 1e6),
	       RT_CYCLES / 1e6, RT_PERIOD_NS / 1e6);
	printf("  preemption points' cost to LOW alone: %lld points x 128 cycles = %.3f %% of its device time (vnpu cost-stats);\n",
	       points, 100.0 * (double)point_cycles / ((double)busy_ns));
	printf("  measured: LOW alone took %.2f %% longer preemptive (with save areas) than fifo (without)\n",
	       100.0 * (pre.alone_s / fifo.alone_s - 1));
	printf("  one LOW job: %.1f ms of device time, %.0f ms of wall time at speed %g, vnpu host compute %.1f ms (cost-stats host_ns / jobs)\n",
	       (LOW_NOP_CYCLES + (double)CONV_SIZE * CONV_SIZE * CONV_CHANNELS *
		CONV_CHANNELS * 9 / 1024) / 1e6,
	       (LOW_NOP_CYCLES / 1e6) / speed, speed,
	       (double)host_ns / 1e6 / low_jobs);
	if (low_redone)
		printf("  (%d LOW jobs were blamed by a watchdog reset, a stalled host, and submitted again: the figures above include those resets)\n",
		       low_redone);
}

static void fairness(void)
{
	struct lane lanes[FAIR_CONTEXTS];
	long long before[FAIR_CONTEXTS], got[FAIR_CONTEXTS];
	double sum = 0, sq = 0;
	int stop = 0;

	set_speed(1);
	memset(lanes, 0, sizeof(lanes));
	for (int i = 0; i < FAIR_CONTEXTS; i++) {
		lane_setup(&lanes[i], DRM_ENPU_PRIORITY_NORMAL,
			   FAIR_JOB_CYCLES, 0);
		lanes[i].jobs = 1 << 30;
		lanes[i].stop = &stop;
	}
	for (int i = 0; i < FAIR_CONTEXTS; i++) {
		before[i] = enpu_sched_ctx_value(debugfs, lanes[i].id,
						 "cycles");
		pthread_create(&lanes[i].thread, NULL, lane_run, &lanes[i]);
	}
	sleep(FAIR_SECONDS);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < FAIR_CONTEXTS; i++) {
		pthread_join(lanes[i].thread, NULL);
		if (lanes[i].status)
			die("NORMAL job", lanes[i].status);
		got[i] = enpu_sched_ctx_value(debugfs, lanes[i].id, "cycles") -
			 before[i];
		sum += (double)got[i];
		sq += (double)got[i] * (double)got[i];
	}
	printf("\n3. fairness: %d NORMAL contexts, 20 ms jobs, 2 queued each, %d s at speed 1\n",
	       FAIR_CONTEXTS, FAIR_SECONDS);
	printf("  device time per context (ms):");
	for (int i = 0; i < FAIR_CONTEXTS; i++)
		printf(" %.1f", got[i] / 1e6);
	printf("\n  Jain's index %.4f (target >= 0.95)\n",
	       sum * sum / (FAIR_CONTEXTS * sq));
	for (int i = 0; i < FAIR_CONTEXTS; i++)
		lane_teardown(&lanes[i]);
}

int main(int argc, char **argv)
{
	size_t jobs = 10000;
	int low_jobs = 60;
	const char *parts = "123";
	struct stats ping;
	char reply[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			jobs = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--speed") && i + 1 < argc)
			speed = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--low-jobs") && i + 1 < argc)
			low_jobs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--parts") && i + 1 < argc)
			parts = argv[++i];
		else if (!strcmp(argv[i], "--no-pin"))
			pin = 0;
		else {
			fprintf(stderr, "usage: %s [--jobs N] [--speed F] [--low-jobs N] [--parts 123] [--no-pin]\n",
				argv[0]);
			return 2;
		}
	}
	if (enpu_fault("status", sizeof(reply), reply) == -ENOSYS) {
		fprintf(stderr, "sched-bench: needs tools/vm/run --fault-relay\n");
		return 1;
	}
	if (enpu_debugfs_dir(sizeof(debugfs), debugfs))
		die("debugfs", -ENOENT);
	set_speed(1);
	if (strchr(parts, '1'))
		nop_latency(jobs, &ping);
	if (strchr(parts, '2'))
		realtime_under_load(low_jobs);
	if (strchr(parts, '3'))
		fairness();
	return 0;
}
