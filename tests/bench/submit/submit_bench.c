// SPDX-License-Identifier: MIT
/*
 * make bench-submit: NOP-job round trip through the whole job path, from
 * the SUBMIT ioctl to the waiter woken on the job's out-syncobj, next to
 * the raw device round trip measured in the same boot (debugfs `ping`: a
 * mailbox doorbell answered by an interrupt, timed by the driver). Runs in
 * the VM; prints p50 / p99 / max and the submit/raw ratio.
 *
 *   submit-bench [--jobs N] [--pings N]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "enpu_selftest.h"

#define MIN_SAMPLES 10000
#define WARMUP 200

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static int64_t percentile(const int64_t *sorted, size_t count, double p)
{
	size_t rank = (size_t)(p / 100.0 * (double)count + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return sorted[rank - 1];
}

/* One read of debugfs ping = one mailbox round trip; its latency_ns. */
static int ping(const char *path, int64_t *latency)
{
	char text[256];
	const char *at;
	ssize_t length;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	length = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (length <= 0)
		return -EIO;
	text[length] = '\0';
	at = strstr(text, "latency_ns=");
	if (!at)
		return -EPROTO;
	*latency = strtoll(at + strlen("latency_ns="), NULL, 10);
	return 0;
}

static void row(const char *name, int64_t *samples, size_t count,
		int64_t *p50, int64_t *p99)
{
	qsort(samples, count, sizeof(*samples), compare);
	*p50 = percentile(samples, count, 50);
	*p99 = percentile(samples, count, 99);
	printf("%-34s %8zu %10.1f %10.1f %10.1f\n", name, count, *p50 / 1e3,
	       *p99 / 1e3, samples[count - 1] / 1e3);
}

int main(int argc, char **argv)
{
	size_t jobs = MIN_SAMPLES, pings = MIN_SAMPLES;
	struct enpu_submit_desc desc = { 0 };
	struct enpu_error error = { "" };
	int64_t *submit_ns, *ping_ns, s50, s99, p50, p99;
	char dir[512], ping_path[600];
	const char *message;
	enpu_device *device;
	enpu_cmdbuf *cmdbuf;
	uint32_t syncobj;
	uint64_t seqno;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			jobs = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--pings") && i + 1 < argc)
			pings = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: %s [--jobs N] [--pings N]\n",
				argv[0]);
			return 2;
		}
	}
	if (jobs < MIN_SAMPLES || pings < MIN_SAMPLES) {
		fprintf(stderr, "submit-bench: at least %d jobs and pings\n",
			MIN_SAMPLES);
		return 2;
	}
	if (enpu_device_open_index(0, &device, &error)) {
		fprintf(stderr, "submit-bench: %s\n", error.message);
		return 1;
	}
	if (enpu_debugfs_dir(sizeof(dir), dir)) {
		fprintf(stderr, "submit-bench: no enpu debugfs directory\n");
		return 1;
	}
	snprintf(ping_path, sizeof(ping_path), "%s/ping", dir);
	submit_ns = calloc(jobs, sizeof(*submit_ns));
	ping_ns = calloc(pings, sizeof(*ping_ns));
	if (!submit_ns || !ping_ns || enpu_cmdbuf_create(&cmdbuf) ||
	    enpu_cmdbuf_nop(cmdbuf, 0) ||
	    enpu_syncobj_create(device, &syncobj) ||
	    enpu_cmdbuf_data(cmdbuf, &desc.commands, &desc.commands_size)) {
		fprintf(stderr, "submit-bench: setup failed\n");
		return 1;
	}
	desc.out_syncobj = syncobj;
	for (size_t i = 0; i < WARMUP + jobs; i++) {
		int64_t start = now_ns();

		if (enpu_submit(device, &desc, &seqno) ||
		    enpu_syncobj_wait(device, syncobj, 5000000000LL, 0)) {
			enpu_device_last_error(device, &message);
			fprintf(stderr, "submit-bench: job %zu: %s\n", i, message);
			return 1;
		}
		if (i >= WARMUP)
			submit_ns[i - WARMUP] = now_ns() - start;
	}
	for (size_t i = 0; i < WARMUP + pings; i++) {
		int64_t latency = 0;
		int status = ping(ping_path, &latency);

		if (status) {
			fprintf(stderr, "submit-bench: %s: %s\n", ping_path,
				strerror(-status));
			return 1;
		}
		if (i >= WARMUP)
			ping_ns[i - WARMUP] = latency;
	}
	printf("%-34s %8s %10s %10s %10s\n", "round trip (us)", "samples",
	       "p50", "p99", "max");
	row("NOP job: SUBMIT -> waiter woken", submit_ns, jobs, &s50, &s99);
	row("raw device: ping doorbell -> irq", ping_ns, pings, &p50, &p99);
	printf("%-34s %8s %10.2f %10.2f\n", "ratio submit / raw", "",
	       p50 ? (double)s50 / (double)p50 : 0.0,
	       p99 ? (double)s99 / (double)p99 : 0.0);
	free(submit_ns);
	free(ping_ns);
	enpu_syncobj_destroy(device, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_device_close(device);
	return 0;
}
