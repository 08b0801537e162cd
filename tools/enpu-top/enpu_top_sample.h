/* SPDX-License-Identifier: MIT */
/*
 * One sample of everything enpu-top shows, read from a root directory
 * ("/" normally; a fake tree in the tests): the devices and their sysfs
 * (devfreq clock, thermal zone), the driver's debugfs (busy and device
 * time counters, per-context queue depths) and every process's DRM
 * fdinfo. Reading never fails as a whole: what is missing stays marked
 * absent and is printed as "n/a".
 */
#ifndef ENPU_TOP_SAMPLE_H
#define ENPU_TOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TOP_MAX_DEVICES 8
#define TOP_PRIORITIES 4	/* DRM_ENPU_PRIORITY_LOW .. _REALTIME */
#define TOP_NAME_SIZE 64

struct top_device {
	char node[TOP_NAME_SIZE];	/* renderD128, accel0 */
	char pdev[TOP_NAME_SIZE];	/* PCI slot, or the node for others */
	bool has_clock;
	uint64_t clock_hz, max_clock_hz;	/* devfreq cur_freq, max_freq */
	bool has_temperature;
	long temperature_mc;		/* thermal zone "enpu" */
	bool has_busy;			/* debugfs regs (root) */
	uint64_t busy_ns;		/* PERF_BUSY_NS */
	bool has_device_time;		/* interface 1.5, if debugfs lists it */
	uint64_t device_ns;		/* PERF_DEVICE_NS */
	bool has_queues;		/* debugfs sched (root) */
	unsigned int queued[TOP_PRIORITIES];
	unsigned int on_device[TOP_PRIORITIES];
};

/* One DRM client (open file) of an ENPU, from a process's fdinfo. */
struct top_client {
	pid_t pid;
	char command[TOP_NAME_SIZE];
	char pdev[TOP_NAME_SIZE];	/* drm-pdev, "" if absent */
	uint64_t client_id;
	uint64_t engine_ns, cycles;
	uint64_t total_bytes, resident_bytes;
};

struct top_sample {
	uint64_t time_ns;		/* CLOCK_MONOTONIC, given by the caller */
	size_t device_count;
	struct top_device devices[TOP_MAX_DEVICES];
	size_t client_count, client_capacity;
	struct top_client *clients;
};

/*
 * Reads a sample under root. Returns 0, or -ENOMEM (the sample is then
 * still valid, with fewer clients). Free with top_sample_release().
 */
int top_sample_read(const char *root, uint64_t time_ns,
		    struct top_sample *sample);
void top_sample_release(struct top_sample *sample);

/*
 * Parses one fdinfo text: 1 and *client filled (pid and command left
 * alone) if it is an open file of the enpu DRM driver, 0 otherwise.
 */
int top_parse_fdinfo(const char *text, struct top_client *client);

#endif /* ENPU_TOP_SAMPLE_H */
