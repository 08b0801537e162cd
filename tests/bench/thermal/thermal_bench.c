// SPDX-License-Identifier: MIT
/*
 * thermal-bench: a periodic frame workload with a deadline, run in the VM
 * against the vnpu in a hot ambient, with the runtime's thermal hooks on
 * or off (make bench-thermal; tests/bench/thermal/README.md).
 *
 * A frame is released every --period-ms; it must finish within the
 * period (a frame that could not even start before its deadline is
 * dropped and counted as a miss). Plan "npu": one NPU job of --npu-cycles device cycles (a NOP
 * job: the device is busy, draws power and heats exactly as for layer
 * work of that length). Plan "cpu": the same frame's fallback on the CPU,
 * an int8 GEMM on the runtime's CPU kernels sized at start-up to take
 * --cpu-share of the period. With --hooks on the policy of
 * userspace/thermal reads the real sysfs (the enpu thermal zone, the NPU
 * devfreq node, cpufreq) at most once a second and switches plans at frame
 * boundaries; with --hooks off every frame runs on the NPU, throttled
 * only by the kernel (devfreq cooling, the critical-trip safe state).
 *
 * Runs until --seconds of device time have passed (device time = wall
 * time x --speed, the vnpu's factor) and writes one CSV row per frame.
 * Prints frames, deadline misses, miss rate and throughput.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enpu/enpu.h"
#include "enpu_cpu.h"
#include "enpu_thermal.h"

struct cfg {
	int hooks;
	double seconds, period_ms, speed, cpu_share;
	uint32_t npu_cycles;
	const char *csv;
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t at)
{
	struct timespec ts = {
		.tv_sec = (time_t)(at / 1000000000u),
		.tv_nsec = (long)(at % 1000000000u),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

struct cpu_frame {
	enpu_cpu_context *ctx;
	enpu_cpu_gemm_weights *w;
	uint8_t *a;
	uint8_t *c;
	size_t m, k, n;
	int32_t mult, shift;
};

static int cpu_frame_run(struct cpu_frame *f)
{
	struct enpu_cpu_requant rq = {
		.multiplier = &f->mult, .shift = &f->shift, .per_channel = 0,
		.zero_point = 0, .min = 0, .max = 255,
	};
	struct enpu_cpu_gemm_args args = {
		.m = f->m, .a = f->a, .lda = f->k, .a_type = ENPU_CPU_UINT8,
		.a_zero_point = 128, .weights = f->w, .c = f->c, .ldc = f->n,
		.c_type = ENPU_CPU_UINT8, .requant = &rq,
	};

	return enpu_cpu_gemm(f->ctx, &args);
}

/* Sizes M so that one CPU frame takes about share x period (wall). */
static int cpu_frame_init(struct cpu_frame *f, double target_ns)
{
	size_t i, m_max = 4096;
	int8_t *b;
	uint64_t t;

	memset(f, 0, sizeof(*f));
	f->k = 256;
	f->n = 256;
	f->mult = 1 << 30;
	f->shift = 40;
	if (enpu_cpu_context_create(1, &f->ctx))
		return -1;
	b = malloc(f->k * f->n);
	f->a = malloc(m_max * f->k);
	f->c = malloc(m_max * f->n);
	if (!b || !f->a || !f->c)
		return -1;
	for (i = 0; i < f->k * f->n; i++)
		b[i] = (int8_t)(i * 7);
	for (i = 0; i < m_max * f->k; i++)
		f->a[i] = (uint8_t)(i * 13);
	if (enpu_cpu_gemm_weights_pack(f->ctx, f->k, f->n, b, f->n, NULL, &f->w))
		return -1;
	free(b);
	f->m = 16;
	t = wall_ns();
	for (i = 0; i < 5; i++)
		if (cpu_frame_run(f)) {
			fprintf(stderr, "thermal-bench: CPU frame: %s\n",
				enpu_cpu_context_error(f->ctx));
			return -1;
		}
	t = (wall_ns() - t) / 5;
	f->m = (size_t)(16.0 * target_ns / (double)(t ? t : 1));
	if (f->m < 1)
		f->m = 1;
	if (f->m > m_max)
		f->m = m_max;
	return 0;
}

static int npu_frame_run(enpu_device *dev, const void *cmds, uint32_t size,
			 uint32_t syncobj)
{
	struct enpu_submit_desc desc = {
		.commands = cmds, .commands_size = size, .out_syncobj = syncobj,
	};
	uint64_t seqno;
	int status = 1, ret;

	ret = enpu_submit(dev, &desc, &seqno);
	if (!ret)
		ret = enpu_job_wait(dev, syncobj, 120000000000ll, 0, &status);
	return ret ? ret : status;
}

static long read_long(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

static int parse(int argc, char **argv, struct cfg *c)
{
	*c = (struct cfg){ .hooks = 1, .seconds = 60, .period_ms = 33.3,
			   .speed = 1, .cpu_share = 0.5, .npu_cycles = 24000000 };
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--hooks"))
			c->hooks = !strcmp(v, "on");
		else if (!strcmp(k, "--seconds"))
			c->seconds = atof(v);
		else if (!strcmp(k, "--period-ms"))
			c->period_ms = atof(v);
		else if (!strcmp(k, "--speed"))
			c->speed = atof(v);
		else if (!strcmp(k, "--cpu-share"))
			c->cpu_share = atof(v);
		else if (!strcmp(k, "--npu-cycles"))
			c->npu_cycles = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(k, "--csv"))
			c->csv = v;
		else
			return -1;
	}
	return c->csv && c->seconds > 0 && c->period_ms > 0 && c->speed > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const plan_names[] = { "npu", "cpu" };
	struct enpu_th_snapshot *snap = calloc(1, sizeof(*snap));
	struct enpu_th_monitor *mon = NULL;
	struct enpu_th_policy *pol = NULL;
	struct enpu_th_policy_config pc;
	struct cpu_frame cpu;
	struct cfg c;
	enpu_device *dev = NULL;
	enpu_cmdbuf *cmdbuf = NULL;
	const void *cmds;
	uint32_t cmds_size;
	uint32_t syncobj;
	uint64_t frames = 0, misses = 0, per_plan[2] = { 0 }, switches = 0;
	uint64_t dropped = 0, failed = 0;
	uint64_t start, period_wall, end_wall;
	double device_s;
	struct enpu_error err;
	char why[256];
	FILE *csv;

	if (!snap || parse(argc, argv, &c)) {
		fprintf(stderr, "usage: thermal-bench --csv FILE [--hooks on|off] [--seconds S] [--period-ms P] [--speed F] [--npu-cycles N] [--cpu-share X]\n");
		return 2;
	}
	if (enpu_device_open_index(0, &dev, &err)) {
		fprintf(stderr, "thermal-bench: %s\n", err.message);
		return 1;
	}
	if (enpu_cmdbuf_create(&cmdbuf) || enpu_cmdbuf_nop(cmdbuf, c.npu_cycles) ||
	    enpu_cmdbuf_data(cmdbuf, &cmds, &cmds_size) ||
	    enpu_syncobj_create(dev, &syncobj)) {
		fprintf(stderr, "thermal-bench: cannot build the NPU frame\n");
		return 1;
	}
	period_wall = (uint64_t)(c.period_ms * 1e6 / c.speed);
	if (cpu_frame_init(&cpu, c.cpu_share * (double)period_wall)) {
		fprintf(stderr, "thermal-bench: cannot set up the CPU frame\n");
		return 1;
	}
	enpu_th_policy_defaults(&pc, 2);
	pc.npu_plan_count = 1;
	pc.latency_target_us = (uint32_t)(c.period_ms * 1000);
	if (enpu_th_policy_create(&pc, &pol, why, sizeof(why)) ||
	    enpu_th_monitor_create("/", 1000, 1, &mon)) {
		fprintf(stderr, "thermal-bench: %s\n", why);
		return 1;
	}
	csv = fopen(c.csv, "w");
	if (!csv)
		return 1;
	fprintf(csv, "hooks,frame,t_ms,plan,latency_ms,miss,temp_mc,npu_khz,cpu_khz\n");
	start = wall_ns();
	end_wall = start + (uint64_t)(c.seconds * 1e9 / c.speed);
	for (uint64_t i = 0;; i++) {
		uint64_t release = start + i * period_wall, done, now;
		unsigned int plan = 0;
		double lat_ms, t_ms;
		long temp = -1, npu_khz = -1;
		int ret;

		if (release >= end_wall)
			break;
		now = wall_ns();
		if (now < release)
			sleep_until(release);
		now = wall_ns();
		/*
		 * A frame whose deadline passed before it could start is
		 * dropped (a miss), as a camera pipeline drops stale frames:
		 * one stall costs the frames it covers, not a backlog that
		 * every later frame inherits.
		 */
		if (now > release + period_wall) {
			dropped++;
			misses++;
			fprintf(csv, "%s,%llu,%.1f,drop,-1,1,-1,-1,-1\n",
				c.hooks ? "on" : "off", (unsigned long long)i,
				(double)(now - start) * c.speed / 1e6);
			continue;
		}
		/* device ms: the policy's clock and the CSV's time axis */
		t_ms = (double)(now - start) * c.speed / 1e6;
		/*
		 * The monitor runs on device time too: with the vnpu slowed
		 * down (--speed below 1, see the README) a once-a-second
		 * sample stays once per second of the device's thermal
		 * dynamics, as on silicon, instead of sampling a slowed
		 * device more often.
		 */
		if (enpu_th_monitor_poll(mon, (uint64_t)t_ms, snap) == 1 ||
		    frames == 0) {
			struct enpu_th_decision d;

			if (c.hooks) {
				enpu_th_policy_update(pol, snap, (uint64_t)t_ms, &d);
				if (d.changed) {
					switches++;
					fprintf(stderr, "thermal: t=%.0f ms plan %s (%s), npu headroom %.1f C (%.1f C projected), npu clock %.0f%%\n",
						t_ms, plan_names[d.plan],
						enpu_th_reason_name(d.reason),
						d.headroom.npu_mc / 1000.0,
						d.npu_projected_mc / 1000.0,
						d.headroom.npu_clock * 100);
				}
			}
		}
		plan = c.hooks ? enpu_th_policy_plan(pol) : 0;
		if (plan == 0)
			ret = npu_frame_run(dev, cmds, (uint32_t)cmds_size, syncobj);
		else
			ret = cpu_frame_run(&cpu);
		done = wall_ns();
		if (ret) {
			/*
			 * A frame the driver failed (e.g. -ETIMEDOUT from a
			 * reset the watchdog made) is a miss, counted and
			 * shown, not the end of the run.
			 */
			fprintf(stderr, "thermal-bench: frame %llu on %s failed: %d\n",
				(unsigned long long)i, plan_names[plan], ret);
			failed++;
			misses++;
			fprintf(csv, "%s,%llu,%.1f,fail,-1,1,-1,-1,-1\n",
				c.hooks ? "on" : "off", (unsigned long long)i,
				(double)(done - start) * c.speed / 1e6);
			if (failed > 10)
				return 1;
			continue;
		}
		lat_ms = (double)(done - release) * c.speed / 1e6;
		if (c.hooks)
			enpu_th_policy_observe_latency(pol, (uint32_t)(lat_ms * 1000));
		frames++;
		per_plan[plan]++;
		if (lat_ms > c.period_ms)
			misses++;
		if (snap->npu_zone >= 0) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/class/thermal/%s/temp",
				 snap->zones[snap->npu_zone].name);
			temp = read_long(path);
		}
		if (snap->npu.present) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/class/devfreq/%s/cur_freq",
				 snap->npu.name);
			npu_khz = read_long(path) / 1000;
		}
		fprintf(csv, "%s,%llu,%.1f,%s,%.3f,%d,%ld,%ld,%ld\n",
			c.hooks ? "on" : "off", (unsigned long long)i, t_ms,
			plan_names[plan], lat_ms, lat_ms > c.period_ms, temp,
			npu_khz,
			snap->policy_count && snap->policies[0].cur_khz > 0 ?
			(long)snap->policies[0].cur_khz : -1L);
	}
	device_s = (double)(wall_ns() - start) * c.speed / 1e9;
	fclose(csv);
	printf("thermal-bench hooks %s: %llu frames done in %.1f s of device time, %llu deadline misses of %llu released (%.2f %%, %llu dropped, %llu failed), throughput %.2f frames/s, npu %llu cpu %llu frames, %llu switches, cpu frame M=%zu\n",
	       c.hooks ? "on" : "off", (unsigned long long)frames, device_s,
	       (unsigned long long)misses,
	       (unsigned long long)(frames + dropped + failed),
	       frames + dropped + failed ?
	       100.0 * (double)misses / (double)(frames + dropped + failed) : 0.0,
	       (unsigned long long)dropped, (unsigned long long)failed,
	       (double)frames / device_s, (unsigned long long)per_plan[0],
	       (unsigned long long)per_plan[1], (unsigned long long)switches,
	       cpu.m);
	enpu_th_monitor_destroy(mon);
	enpu_th_policy_destroy(pol);
	enpu_syncobj_destroy(dev, syncobj);
	enpu_cmdbuf_destroy(cmdbuf);
	enpu_device_close(dev);
	free(snap);
	return 0;
}
