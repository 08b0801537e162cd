// SPDX-License-Identifier: MIT
/*
 * The workload of the trace VM test: every tracepoint of the scheduler
 * once at least. A LOW context runs a 2 s NOP; 200 ms in, a REALTIME
 * context submits a short NOP, which preempts it (preempt, a PREEMPTED
 * done, resume); the default context runs two short NOPs meanwhile.
 * Exits 0 once every job completed with status 0.
 */
#include <stdio.h>
#include <time.h>

#include <enpu/enpu.h>

#define LOAD_TIMEOUT_NS (120 * 1000000000LL)

static int submit_nop(enpu_device *device, uint32_t context, uint32_t cycles,
		      uint32_t *syncobj)
{
	struct enpu_submit_desc desc = { 0 };
	enpu_cmdbuf *cmdbuf;
	uint64_t seqno;
	int status;

	status = enpu_syncobj_create(device, syncobj);
	if (status)
		return status;
	status = enpu_cmdbuf_create(&cmdbuf);
	if (!status)
		status = enpu_cmdbuf_nop(cmdbuf, cycles);
	if (!status)
		status = enpu_cmdbuf_data(cmdbuf, &desc.commands,
					  &desc.commands_size);
	desc.context = context;
	desc.out_syncobj = *syncobj;
	if (!status)
		status = enpu_submit(device, &desc, &seqno);
	enpu_cmdbuf_destroy(cmdbuf);
	return status;
}

int main(void)
{
	struct timespec delay = { 0, 200 * 1000000L };
	struct enpu_error error = { "" };
	enpu_context *low, *realtime;
	uint32_t low_id, realtime_id, sync[4];
	enpu_device *device;
	int status, job_status, failed = 0;

	if (enpu_device_open_index(0, &device, &error)) {
		fprintf(stderr, "enpu-trace-load: %s\n", error.message);
		return 1;
	}
	status = enpu_context_create(device, DRM_ENPU_PRIORITY_LOW, &low);
	if (!status)
		status = enpu_context_create(device, DRM_ENPU_PRIORITY_REALTIME,
					     &realtime);
	if (!status)
		status = enpu_context_id(low, &low_id);
	if (!status)
		status = enpu_context_id(realtime, &realtime_id);
	if (!status)
		status = submit_nop(device, low_id, 2000000000u, &sync[0]);
	nanosleep(&delay, NULL);
	if (!status)
		status = submit_nop(device, realtime_id, 10000, &sync[1]);
	if (!status)
		status = submit_nop(device, 0, 1000000, &sync[2]);
	if (!status)
		status = submit_nop(device, 0, 1000000, &sync[3]);
	for (int i = 0; !status && i < 4; i++) {
		status = enpu_job_wait(device, sync[i], LOAD_TIMEOUT_NS, 0,
				       &job_status);
		failed |= job_status != 0;
	}
	if (status || failed) {
		const char *message = "";

		enpu_device_last_error(device, &message);
		fprintf(stderr, "enpu-trace-load: status %d (%s), a job failed: %d\n",
			status, message, failed);
	}
	enpu_device_close(device);
	return status || failed ? 1 : 0;
}
