// SPDX-License-Identifier: MIT
/*
 * Load for the enpu-top VM test: NOP jobs of 20 ms of device time, one
 * after another, on the first ENPU, for the given number of seconds of
 * wall time. Prints "running" once the first job completed, so the test
 * knows the device time it then sees is this process's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <enpu/enpu.h>

#define LOAD_JOB_CYCLES 20000000u
#define LOAD_JOB_TIMEOUT_NS (60 * 1000000000LL)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct enpu_submit_desc desc = { 0 };
	struct enpu_error error = { "" };
	double seconds = argc > 1 ? atof(argv[1]) : 10.0, end;
	enpu_device *device;
	enpu_cmdbuf *cmdbuf;
	uint32_t syncobj;
	uint64_t seqno;
	int status, job_status = 0, jobs = 0;

	if (enpu_device_open_index(0, &device, &error)) {
		fprintf(stderr, "enpu-top-load: %s\n", error.message);
		return 1;
	}
	status = enpu_cmdbuf_create(&cmdbuf);
	if (!status)
		status = enpu_cmdbuf_nop(cmdbuf, LOAD_JOB_CYCLES);
	if (!status)
		status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
					  &desc.commands_size);
	if (!status)
		status = enpu_syncobj_create(device, &syncobj);
	desc.out_syncobj = syncobj;
	end = now_s() + seconds;
	while (!status && !job_status && now_s() < end) {
		status = enpu_submit(device, &desc, &seqno);
		if (!status)
			status = enpu_job_wait(device, syncobj,
					       LOAD_JOB_TIMEOUT_NS, 0,
					       &job_status);
		if (!status && !job_status && ++jobs == 1) {
			printf("running\n");
			fflush(stdout);
		}
	}
	if (status || job_status)
		fprintf(stderr, "enpu-top-load: job %d: status %d, job status %d\n",
			jobs, status, job_status);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_device_close(device);
	return status || job_status ? 1 : 0;
}
