// SPDX-License-Identifier: GPL-2.0
/*
 * The device clock. Device time advances by wall time times the speed
 * factor; a job of N cycles at clock f takes N / f device seconds, so
 * N / f / speed wall seconds. Work is measured in cycle-units
 * (device_ns * kHz), which is exact at every OPP, and a job that is cut
 * short (hang, reset, later preemption) has consumed exactly the work its
 * elapsed device time allowed.
 */
#include <math.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "shm_access.h"
#include "vnpu.h"

#define NS_PER_MS 1000000u

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool engine_runs(const struct vnpu *v)
{
	return v->status == ENPU_STATUS_READY && !v->hung;
}

/* Brings the model up to the current wall time. */
void device_advance(struct vnpu *v)
{
	uint64_t now = monotonic_ns();
	uint64_t wall = now - v->last_wall_ns;
	uint64_t device_ns, busy_ns = 0;
	double scaled;

	v->last_wall_ns = now;
	scaled = (double)wall * v->speed + v->device_carry_ns;
	device_ns = (uint64_t)scaled;
	v->device_carry_ns = scaled - (double)device_ns;
	if (!device_ns)
		return;

	if (v->job.active && engine_runs(v)) {
		struct cmdstream_counters counters = {
			.dma_bytes = v->perf_dma_bytes,
			.macs = v->perf_macs,
		};
		uint32_t khz = opp_khz(v->opp);
		work_units used;

		used = cmdstream_execute(&v->job, &v->ram,
					 (work_units)device_ns * khz,
					 &counters);
		v->perf_dma_bytes = counters.dma_bytes;
		v->perf_macs = counters.macs;
		if (v->job.host_trouble) {
			/* Not the job's fault: the device stops until RESET
			 * (which drops the job), as for a descriptor the
			 * host could not fetch. */
			vnpu_log(v, "host out of scratch memory for the layer at %u",
				 v->job.info);
			regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_BAD_JOB,
				       v->job.info);
			device_raise_vector(v, ENPU_VEC_ERROR);
		}
		busy_ns = (uint64_t)((used + khz - 1) / khz);
		v->perf_units += used;
		v->perf_busy_ns += busy_ns;
	}

	if (engine_runs(v)) {
		v->heartbeat_acc_ns += device_ns;
		if (v->heartbeat_acc_ns >= NS_PER_MS) {
			v->heartbeat += (uint32_t)(v->heartbeat_acc_ns / NS_PER_MS);
			v->heartbeat_acc_ns %= NS_PER_MS;
			shm_write32(v->shm, ENPU_REG_HEARTBEAT, v->heartbeat);
		}
	}
	thermal_advance(v, device_ns, busy_ns);
	if (busy_ns)
		regs_publish_perf(v);
}

/* Arms the job timer for the wall time at which the running job ends. */
static void schedule_job_timer(struct vnpu *v)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (v->job.active && engine_runs(v)) {
		uint32_t khz = opp_khz(v->opp);
		work_units device_ns = (v->job.left + khz - 1) / khz;
		double wall = ceil((double)device_ns / v->speed);
		uint64_t at;

		/* Long jobs are re-armed on the next tick anyway. */
		if (wall > 3600e9)
			wall = 3600e9;
		if (wall < 1)
			wall = 1;
		at = v->last_wall_ns + (uint64_t)wall;
		its.it_value.tv_sec = (time_t)(at / 1000000000u);
		its.it_value.tv_nsec = (long)(at % 1000000000u);
	}
	timerfd_settime(v->job_timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

void device_settle(struct vnpu *v)
{
	if (engine_runs(v))
		queues_run(v);
	schedule_job_timer(v);
}

void device_set_speed(struct vnpu *v, double speed)
{
	device_advance(v);
	v->speed = speed;
	vnpu_log(v, "speed factor %g", speed);
}
