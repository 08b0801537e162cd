// SPDX-License-Identifier: GPL-2.0
/*
 * The device clock. Device time advances by wall time times the speed
 * factor; a job of N cycles at clock f takes N / f device seconds, so
 * N / f / speed wall seconds. Work is measured in cycle-units
 * (device_ns * kHz), which is exact at every OPP, and a job that is cut
 * short (hang, reset, later preemption) has consumed exactly the work its
 * elapsed device time allowed.
 *
 * The heartbeat counts device milliseconds while the device is READY and
 * not hung, on a thread of its own: the event loop computes a layer in one
 * go, and a layer can take the host seconds, during which a heartbeat
 * driven by the loop would stop and the driver would take a healthy
 * device for a hung one. Silicon's firmware heartbeat keeps ticking while
 * a layer runs; so does this one. HEARTBEAT_PERIOD_US (interface 1.3)
 * tells the driver how much wall time one tick takes at the current
 * speed, so that its watchdog can wait long enough on a slow device.
 * The thread asks for real-time priority (SCHED_FIFO 1, when allowed: it
 * sleeps a millisecond and works microseconds), as a firmware heartbeat
 * on its own core is not delayed by what the host's cores are doing; a
 * host that cannot grant it runs it as an ordinary thread.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
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
		uint32_t khz = opp_khz(v->opp);
		work_units used;

		used = engine_advance(v, (work_units)device_ns * khz);
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
	}

	v->device_ns += device_ns;
	/*
	 * The engine was busy from the start of the interval until the job
	 * stopped, then idle: heat first, then cool, not the average of the
	 * two. A host stall that covers a job's end (one long interval)
	 * would otherwise smear the job's heat over the idle rest, and the
	 * device would never reach a trip it did reach.
	 */
	if (busy_ns > device_ns)
		busy_ns = device_ns;
	thermal_advance(v, busy_ns, busy_ns);
	thermal_advance(v, device_ns - busy_ns, 0);
	if (busy_ns)
		regs_publish_perf(v);
	else
		shm_write64(v->shm, ENPU_REG_PERF_DEVICE_NS_LO, v->device_ns);
}

/* Arms the job timer for the wall time at which the running job ends. */
static void schedule_job_timer(struct vnpu *v)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (v->job.active && engine_runs(v)) {
		uint32_t khz = opp_khz(v->opp);
		work_units device_ns = (engine_work_to_stop(&v->job) + khz - 1) /
				       khz;
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
	/* The 1 ms tick brings the loop here: a late vector's only clock. */
	if (v->error_vector_at_ns && monotonic_ns() >= v->error_vector_at_ns) {
		v->error_vector_at_ns = 0;
		vnpu_log(v, "fault: late error interrupt raised");
		device_raise_vector(v, ENPU_VEC_ERROR);
	}
	if (v->mbox_muted_until_ns && monotonic_ns() >= v->mbox_muted_until_ns) {
		v->mbox_muted_until_ns = 0;
		vnpu_log(v, "fault: mailbox mute ended");
		mailbox_doorbell(v);
	}
	if (engine_runs(v))
		queues_run(v);
	schedule_job_timer(v);
}

void device_set_speed(struct vnpu *v, double speed)
{
	device_advance(v);
	v->speed = speed;
	heartbeat_update(v);
	vnpu_log(v, "speed factor %g", speed);
}

/* With hb->lock held: counts the device time since the last call. */
static void heartbeat_advance(struct vnpu *v)
{
	struct vnpu_heartbeat *hb = &v->hb;
	uint64_t now = monotonic_ns();
	double ticks;

	if (hb->running) {
		hb->acc_ns += (double)(now - hb->last_wall_ns) * hb->speed;
		ticks = floor(hb->acc_ns / NS_PER_MS);
		if (ticks >= 1) {
			hb->acc_ns -= ticks * NS_PER_MS;
			hb->count += (uint32_t)fmod(ticks, 4294967296.0);
			shm_write32(v->shm, ENPU_REG_HEARTBEAT, hb->count);
		}
	}
	hb->last_wall_ns = now;
}

static void *heartbeat_thread(void *arg)
{
	struct vnpu *v = arg;
	struct timespec tick = { 0, NS_PER_MS };

	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&v->hb.lock);
		if (v->hb.stop) {
			pthread_mutex_unlock(&v->hb.lock);
			return NULL;
		}
		/* A host that does not run this thread: the count catches up. */
		if (monotonic_ns() >= v->hb.stalled_until_ns)
			heartbeat_advance(v);
		pthread_mutex_unlock(&v->hb.lock);
	}
}

int heartbeat_init(struct vnpu *v)
{
	v->hb.last_wall_ns = monotonic_ns();
	v->hb.speed = v->speed;
	return pthread_mutex_init(&v->hb.lock, NULL);
}

int heartbeat_start(struct vnpu *v)
{
	struct sched_param param = { .sched_priority = 1 };
	int err = pthread_create(&v->hb.thread, NULL, heartbeat_thread, v);

	if (err) {
		errno = err;
		return -1;
	}
	v->hb.started = true;
	err = pthread_setschedparam(v->hb.thread, SCHED_FIFO, &param);
	vnpu_log(v, "heartbeat thread: %s", err ? "ordinary priority (no SCHED_FIFO)" :
		 "SCHED_FIFO 1");
	return 0;
}

/* Control `stall-heartbeat`: the thread skips its ticks for ns of wall time. */
void heartbeat_stall(struct vnpu *v, uint64_t ns)
{
	pthread_mutex_lock(&v->hb.lock);
	v->hb.stalled_until_ns = monotonic_ns() + ns;
	pthread_mutex_unlock(&v->hb.lock);
}

void heartbeat_stop(struct vnpu *v)
{
	if (!v->hb.started)
		return;
	pthread_mutex_lock(&v->hb.lock);
	v->hb.stop = true;
	pthread_mutex_unlock(&v->hb.lock);
	pthread_join(v->hb.thread, NULL);
	v->hb.started = false;
}

/*
 * The heartbeat runs while READY and not hung, at the current speed.
 * Called by the event loop after every change of status, hang or speed.
 */
void heartbeat_update(struct vnpu *v)
{
	double period_us = 1000.0 / v->speed;

	pthread_mutex_lock(&v->hb.lock);
	heartbeat_advance(v);
	v->hb.running = v->status == ENPU_STATUS_READY && !v->hung;
	v->hb.speed = v->speed;
	pthread_mutex_unlock(&v->hb.lock);
	if (period_us < 1)
		period_us = 1;
	if (period_us > UINT32_MAX)
		period_us = UINT32_MAX;
	shm_write32(v->shm, ENPU_REG_HEARTBEAT_PERIOD_US,
		    (uint32_t)lround(period_us));
}

/* HEARTBEAT = 0, at RESET and at every successful BOOT. */
void heartbeat_restart(struct vnpu *v)
{
	pthread_mutex_lock(&v->hb.lock);
	heartbeat_advance(v);
	v->hb.count = 0;
	v->hb.acc_ns = 0;
	shm_write32(v->shm, ENPU_REG_HEARTBEAT, 0);
	pthread_mutex_unlock(&v->hb.lock);
}

uint32_t heartbeat_read(struct vnpu *v)
{
	uint32_t count;

	pthread_mutex_lock(&v->hb.lock);
	heartbeat_advance(v);
	count = v->hb.count;
	pthread_mutex_unlock(&v->hb.lock);
	return count;
}
