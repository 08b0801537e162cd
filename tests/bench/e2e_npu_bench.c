// SPDX-License-Identifier: MIT
/*
 * e2e-npu-bench: the MobileNetV2-shaped int8 model (tests/rt/
 * mobilenet_model.c) through the runtime on npu,cpu in the VM, the second
 * half of `make bench-e2e`:
 *
 *   e2e-npu-bench --spin              host: ns per iteration of a
 *                                     CPU-bound loop (TCG reference)
 *   e2e-npu-bench --frames N --model M.onnx
 *                                     guest: N frames alone, median wall
 *                                     and process CPU (for a profiler)
 *   e2e-npu-bench --model M.onnx --host-spin-ns X [--runs N]
 *                 [--uint8-model U.onnx] [--small S.onnx] [--ort FILE]
 *                                    guest (tools/vm/run --fault-relay)
 *
 * Prints: the TCG slowdown (the same loop in the guest over the host);
 * latency with NPU offload (best and median of N frames); per frame the
 * device's busy time (PERF_BUSY_NS through the vnpu's control socket,
 * `cost-stats`), the vnpu's host compute for the layers, and what is left:
 * guest code (runtime, driver, CPU partitions); the driver+runtime
 * overhead share (total - device busy) / total as measured, and with the
 * guest part divided by the TCG slowdown and the vnpu's host compute
 * taken out (silicon computes a layer in its modeled time); the share of
 * MACs on the NPU; pipelined (two sessions, run_async/run_wait) vs
 * unpipelined throughput at vnpu speed 1 and at a speed where device time
 * dominates; bytes copied at partition seams with the input in host
 * memory and bound as a vgem dma-buf (for the MobileNet and, with
 * --small, for a model whose uint8 input the NPU reads directly); and
 * with --ort (the CPU half's ONNX Runtime figures) both side by side.
 * The frames write their input into the session's input memory
 * (enpu_rt_session_input_memory(): a buffer object the NPU reads in
 * place), as a producer would; a before/after line per model compares
 * that with an input in the caller's memory, which every run copies, and
 * another the stream submitted by copy, validated by every SUBMIT, with
 * a stream object (driver uapi 1.2, the runtime's default).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enpu/enpu_rt.h"
#include "engine.h"
#include "e2e_npu_probe.h"
#include "mobilenet_model.h"
#include "run.h"
#include "vnpu_relay.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The reference loop: what the CPU partitions of this model do, quantizing
 * 150528 floats to uint8 (loads, a division, rounding, stores), then a
 * dependent integer chain. On the host its CPU time counts (the machine is
 * shared: wall time would include other processes); in the guest its wall
 * time, which is what guest code costs here, contention included.
 */
static double spin_ns_per_iteration(int host)
{
	enum { N = 150528 };
	static float src[N];
	static uint8_t dst[N];
	volatile uint64_t sink;
	double best = 1e30;

	for (int i = 0; i < N; i++)
		src[i] = (float)((i * 37 % 2001) - 1000) / 500.0f;
	for (int round = 0; round < 5; round++) {
		uint64_t x = 88172645463325252ull;
		double t0 = host ? cpu_ms() : now_ms(), t;

		for (int rep = 0; rep < 20; rep++) {
			for (int i = 0; i < N; i++) {
				float q = nearbyintf(src[i] / 0.0157f) + 128;

				dst[i] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
			}
			for (int i = 0; i < N; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				x += dst[(x >> 7) % N];
			}
		}
		sink = x;
		(void)sink;
		t = (host ? cpu_ms() : now_ms()) - t0;
		if (t < best)
			best = t;
	}
	return best * 1e6 / (20.0 * 2 * N);
}

/* One command to the vnpu's control socket through the rig's relay. */
static int relay(const char *command, char *reply, size_t size)
{
	return vnpu_relay(command, reply, size, 5);
}

static int cost_stats(unsigned long long *busy_ns,
		      unsigned long long *host_ns)
{
	char reply[512], *p;

	if (relay("cost-stats", reply, sizeof(reply)))
		return -1;
	p = strstr(reply, "busy_ns=");
	*busy_ns = p ? strtoull(p + 8, NULL, 10) : 0;
	p = strstr(reply, "host_ns=");
	*host_ns = p ? strtoull(p + 8, NULL, 10) : 0;
	return 0;
}

static enpu_rt_session *load_with(const char *model, int device_time,
				  int stream_copies)
{
	enpu_rt_options *o = NULL;
	enpu_rt_session *s = NULL;

	if (enpu_rt_options_create(&o) ||
	    enpu_rt_options_set_backends(o, "npu,cpu") ||
	    enpu_rt_options_set_device_time(o, device_time) ||
	    rt_options_set_stream_copies(o, stream_copies) ||
	    enpu_rt_options_set_cost_placement(o, 0) ||
	    enpu_rt_session_create_from_file(model, o, &s))
		fprintf(stderr, "e2e-npu-bench: %s: %s\n", model,
			o ? enpu_rt_options_error(o) : "no memory");
	enpu_rt_options_destroy(o);
	return s;
}

static enpu_rt_session *load(const char *model)
{
	return load_with(model, 0, 0);
}

static size_t input_bytes(enpu_rt_session *s, struct run_input *in)
{
	struct enpu_rt_tensor_info info;
	size_t n = 1;

	enpu_rt_session_input_info(s, 0, &info);
	in->dtype = info.dtype;
	in->rank = (size_t)info.rank;
	for (int d = 0; d < info.rank; d++) {
		in->dims[d] = info.dims[d] < 0 ? 1 : info.dims[d];
		n *= (size_t)in->dims[d];
	}
	in->byte_size = n * enpu_rt_dtype_size(info.dtype);
	in->data = malloc(in->byte_size);
	if (info.dtype == ENPU_RT_FLOAT)
		mobilenet_input(in->data, n, 3);
	else
		for (size_t i = 0; i < in->byte_size; i++)
			((uint8_t *)in->data)[i] = (uint8_t)(i * 37 + 11);
	return in->byte_size;
}

static int bind_host(enpu_rt_session *s, const struct run_input *in)
{
	return enpu_rt_session_bind_input(s, 0, in->dtype, in->rank, in->dims,
					  in->data, in->byte_size);
}

/*
 * The frame written into the session's input memory (for an input the NPU
 * reads, a buffer object of the device: enpu_rt_session_input_memory()),
 * as a producer would write it, and bound there: no copy at the seam.
 */
static int bind_in_place(enpu_rt_session *s, const struct run_input *in)
{
	void *mem;

	if (enpu_rt_session_input_memory(s, 0, in->byte_size, &mem))
		return -1;
	memcpy(mem, in->data, in->byte_size);
	return enpu_rt_session_bind_input(s, 0, in->dtype, in->rank, in->dims,
					  mem, in->byte_size);
}

/* ms per frame, sequential or pipelined over the pair. */
static double frames(enpu_rt_session *const s[2], int runs, int pipelined)
{
	double t0 = now_ms();

	for (int i = 0; i < runs; i++) {
		if (!pipelined) {
			if (enpu_rt_session_run(s[0]))
				return -1;
			continue;
		}
		if (enpu_rt_session_run_async(s[i % 2]) ||
		    (i && enpu_rt_session_run_wait(s[(i - 1) % 2])))
			return -1;
	}
	if (pipelined && enpu_rt_session_run_wait(s[(runs - 1) % 2]))
		return -1;
	return (now_ms() - t0) / runs;
}

/*
 * The machine is shared: blocks of @runs frames alternate between the two
 * ways, 5 times, and each way's best block counts.
 */
static void throughput(enpu_rt_session *const pair[2], int runs,
		       const char *label)
{
	double seq = 1e30, pipe = 1e30;

	for (int round = 0; round < 5; round++) {
		double a = frames(pair, runs, 0), b = frames(pair, runs, 1);

		if (a < 0 || b < 0) {
			seq = pipe = -1;
			break;
		}
		if (a < seq)
			seq = a;
		if (b < pipe)
			pipe = b;
	}
	if (seq < 0 || pipe < 0) {
		printf("  %s: run failed: %s\n", label,
		       enpu_rt_session_error(pair[0]));
		return;
	}
	printf("  %-26s unpipelined %8.3f ms/frame (%6.1f frames/s), "
	       "pipelined %8.3f ms/frame (%6.1f frames/s): %.2fx (best of 5 "
	       "alternating blocks of %d)\n", label,
	       seq, 1000 / seq, pipe, 1000 / pipe, seq / pipe, runs);
}

/* Copies of every output of the last run of @s; NULL on OOM. */
static void **outputs_copy(const enpu_rt_session *s)
{
	size_t n = enpu_rt_session_output_count(s);
	void **copy = calloc(n + 1, sizeof(*copy));

	for (size_t i = 0; copy && i < n; i++) {
		struct enpu_rt_output out;

		copy[i] = enpu_rt_session_output(s, i, &out) ? NULL :
			  malloc(out.byte_size + 1);
		if (copy[i])
			memcpy(copy[i], out.data, out.byte_size);
	}
	return copy;
}

/* 1 when the last run of @s produced @copy again, bit for bit. */
static int outputs_equal(const enpu_rt_session *s, void *const *copy)
{
	for (size_t i = 0; i < enpu_rt_session_output_count(s); i++) {
		struct enpu_rt_output out;

		if (!copy[i] || enpu_rt_session_output(s, i, &out) ||
		    memcmp(copy[i], out.data, out.byte_size))
			return 0;
	}
	return 1;
}

static void outputs_free(const enpu_rt_session *s, void **copy)
{
	for (size_t i = 0; copy && i < enpu_rt_session_output_count(s); i++)
		free(copy[i]);
	free(copy);
}

/*
 * Bytes copied at the seams with input 0 in host memory (staged) and
 * bound as a dma-buf of each exporter the guest has, and whether the
 * dma-buf runs' outputs equal the host-memory run's.
 */
static int dmabuf_copies(const char *model, const char *label)
{
	static const enum run_buffer_kind kinds[] = {
		RUN_BUFFER_VGEM, RUN_BUFFER_UDMABUF,
	};
	enpu_rt_session *s = load(model);
	struct run_input in;
	struct run_inputs inputs = { &in, 1 };
	uint64_t host_copies;
	void **want;

	if (!s)
		return -1;
	input_bytes(s, &in);
	if (bind_host(s, &in) || enpu_rt_session_run(s)) {
		enpu_rt_session_destroy(s);
		free(in.data);
		return -1;
	}
	host_copies = run_seam_copies(s);
	want = outputs_copy(s);
	printf("  %-26s input %zu bytes: copied at seams %llu bytes from host "
	       "memory\n", label, in.byte_size,
	       (unsigned long long)host_copies);
	for (size_t k = 0; want && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const char *name = run_buffer_kind_name(kinds[k]);
		struct run_dmabuf d = RUN_DMABUF_INIT;
		uint64_t bytes;

		if (kinds[k] == RUN_BUFFER_UDMABUF &&
		    access("/dev/udmabuf", F_OK)) {
			printf("  %-26s %s: no /dev/udmabuf in this kernel\n", "",
			       name);
			continue;
		}
		if (run_inputs_bind_dmabuf(&inputs, s, kinds[k], &d) ||
		    enpu_rt_session_run(s)) {
			printf("  %-26s %s: dma-buf run failed: %s\n", "", name,
			       enpu_rt_session_error(s));
			run_dmabuf_destroy(&d);
			continue;
		}
		bytes = run_seam_copies(s);
		printf("  %-26s as a %s dma-buf: copied at seams %llu bytes%s, "
		       "outputs %s the host-memory run\n", "", name,
		       (unsigned long long)bytes,
		       bytes ? "  (target 0: MISSED)" : "  (target 0: met)",
		       outputs_equal(s, want) ? "equal" : "DIFFER FROM");
		/* Back to host memory before the dma-buf goes away. */
		bind_host(s, &in);
		run_dmabuf_destroy(&d);
	}
	outputs_free(s, want);
	enpu_rt_session_destroy(s);
	free(in.data);
	return 0;
}

struct frame {
	double total;			/* wall ms */
	double process, others, guest;	/* guest CPU ms; guest = the sum */
	double cpu_parts, npu_round;	/* partitions' host ms */
};

static int cmp_frame(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	return x->total < y->total ? -1 : x->total > y->total;
}

/* The last run's host time of the CPU partitions and of the NPU jobs
 * (submit to wait return), ms. */
static void partition_split(const enpu_rt_session *s, struct frame *f)
{
	f->cpu_parts = f->npu_round = 0;
	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		if (!strcmp(info.backend, "npu"))
			f->npu_round += (double)info.host_ns / 1e6;
		else
			f->cpu_parts += (double)info.host_ns / 1e6;
	}
}

struct slowdowns {
	double cpu;		/* the quantize + integer chain loop */
	double syscall;		/* small read() system calls */
};

/*
 * @runs frames back to back, the device's busy time and the vnpu's host
 * compute read (cost-stats) once before and once after them, so each
 * figure is the block's mean per frame; per frame the wall time and the
 * guest's CPU time (this process, and every other task: the driver's IRQ
 * thread, workers).
 *
 * The cost-stats exchange is not read around every frame: it is the
 * bench's own apparatus (request and reply files over 9p, polled), and
 * with two exchanges between consecutive frames the RCU callbacks and
 * softirqs freeing their lookups ran in the frames, charged to this
 * process or counted as other tasks: back-to-back frames took 0.56 ms of
 * process CPU where frames between exchanges took 0.99-1.66 ms in the
 * same run. Whatever a frame leaves behind (the job's free worker, its
 * own RCU callbacks) still lands in the next frame, as it would on a
 * device running frames back to back.
 *
 * What silicon would take for the frame: the guest's CPU work at native
 * speed (its CPU time over the TCG slowdown) plus the device's busy time.
 * Neither the vnpu's host compute nor the time the guest sits idle waiting
 * for it (or for QEMU to deliver a doorbell or an interrupt) exists there.
 *
 * Which guest CPU time per frame: the target is judged on the MEAN over
 * the block (its whole guest CPU time over its frames). Much of that work
 * does not come every frame: an RCU grace period about every third
 * frame, the devfreq poll every 50 ms, the watchdog tick every 100 ms,
 * a job's free worker landing in the next frame. A frame's own figure
 * (the one of median latency, which this bench used until session 8, or
 * the median of the per-frame figures) leaves such work out whenever it
 * comes less often than every other frame, and swung 0.19-1.7 ms between
 * runs. The median of the per-frame sums is printed as well, scaled the
 * same way, with the quartiles of both parts, and so is the median-
 * latency frame's figure.
 */
static int latency(enpu_rt_session *s, int runs,
		   const struct slowdowns *slow, const char *label,
		   double *median_ms, double *scaled_ms)
{
	struct frame *f = calloc((size_t)runs, sizeof(*f)), m;
	double *v = calloc((size_t)runs, sizeof(*v));
	struct probe_spread wall, proc, others, guest;
	unsigned long long b0, b1, h0, h1;
	double busy, vhost, scaled, scaled_med, scaled_sys, old, block;
	double sum[2] = { 0, 0 };
	struct probe_tasks *tasks = probe_tasks_open();
	int ret = -1;

	if (!f || !v || cost_stats(&b0, &h0))
		goto out;
	/* Flushed: a host-side observer timestamps the block's edges. */
	printf("%s, vnpu speed 1, %d frames:\n", label, runs);
	fflush(stdout);
	block = now_ms();
	for (int i = 0; i < runs; i++) {
		double t0, c0, o0;

		o0 = probe_tasks_cpu_ms(tasks);
		c0 = probe_process_cpu_ms();
		t0 = now_ms();
		if (enpu_rt_session_run(s))
			goto out;
		f[i].total = now_ms() - t0;
		f[i].process = probe_process_cpu_ms() - c0;
		f[i].others = probe_tasks_cpu_ms(tasks) - o0;
		f[i].guest = f[i].process + f[i].others;
		partition_split(s, &f[i]);
	}
	block = now_ms() - block;
	for (int i = 0; i < runs; i++) {
		sum[0] += f[i].process;
		sum[1] += f[i].others;
	}
	printf("  block: %d frames back to back in %.1f ms of wall time, "
	       "guest CPU %.1f ms (this process %.1f, other tasks %.1f)\n",
	       runs, block, sum[0] + sum[1], sum[0], sum[1]);
	fflush(stdout);
	if (cost_stats(&b1, &h1))
		goto out;
	busy = (double)(b1 - b0) / 1e6 / runs;
	vhost = (double)(h1 - h0) / 1e6 / runs;
#define SPREAD(field, dst)					\
	do {							\
		for (int i = 0; i < runs; i++)			\
			v[i] = f[i].field;			\
		if (probe_spread(v, runs, dst))			\
			goto out;				\
	} while (0)
	SPREAD(total, &wall);
	SPREAD(process, &proc);
	SPREAD(others, &others);
	SPREAD(guest, &guest);
#undef SPREAD
	qsort(f, (size_t)runs, sizeof(*f), cmp_frame);
	m = f[runs / 2];
	scaled = guest.mean / slow->cpu;
	scaled_med = guest.median / slow->cpu;
	scaled_sys = slow->syscall > 0 ? guest.mean / slow->syscall : 0;
	old = wall.median - busy - vhost;
	old = old > 0 ? old / slow->cpu : 0;
	printf("  latency with NPU offload: best %.3f ms, quartiles %.3f / "
	       "%.3f / %.3f ms, mean %.3f ms\n", f[0].total, wall.q1,
	       wall.median, wall.q3, wall.mean);
	printf("  guest CPU per frame, ms (quartiles q1 / median / q3; "
	       "mean):\n");
	printf("    this process   %.3f / %.3f / %.3f; mean %.3f\n",
	       proc.q1, proc.median, proc.q3, proc.mean);
	printf("    other tasks    %.3f / %.3f / %.3f; mean %.3f\n",
	       others.q1, others.median, others.q3, others.mean);
	printf("    both (each frame's sum) %.3f / %.3f / %.3f; mean %.3f "
	       "(the block's guest CPU over its frames)\n", guest.q1,
	       guest.median, guest.q3, guest.mean);
	printf("    the frame of median latency (the estimator until session "
	       "8): %.3f ms = this process %.3f + other tasks %.3f; guest "
	       "idle %.3f ms\n", m.guest, m.process, m.others,
	       m.total - m.process > 0 ? m.total - m.process : 0);
	printf("  NPU job round trips (submit to wait return) %.3f ms at the "
	       "median-latency frame; device busy %.3f ms, vnpu host compute "
	       "%.3f ms (the block's means per frame; overlapping: the vnpu's "
	       "clock runs while it computes)\n", m.npu_round, busy, vhost);
	printf("  CPU partitions %.3f ms; the rest of the run (engine, NPU "
	       "backend outside the round trips) %.3f ms (median-latency "
	       "frame)\n", m.cpu_parts, m.total - m.npu_round - m.cpu_parts);
	probe_tasks_close(tasks, runs);
	tasks = NULL;
	printf("  driver+runtime overhead share (total - busy) / total: "
	       "measured %.1f%% (median latency)\n",
	       100 * (wall.median - busy) / wall.median);
	printf("  scaled, judged on the MEAN guest CPU per frame: %.3f ms / "
	       "%.1f (TCG, the CPU loop) = %.3f ms of guest work, over that + "
	       "device busy %.3f ms = %.1f%% (target <= 5%%: %s)\n",
	       guest.mean, slow->cpu, scaled, busy,
	       100 * scaled / (scaled + busy),
	       100 * scaled / (scaled + busy) <= 5 ? "met" : "MISSED");
	printf("          on the MEDIAN per-frame guest CPU instead (not "
	       "judged): %.3f ms / %.1f = %.3f ms, %.1f%%\n", guest.median,
	       slow->cpu, scaled_med, 100 * scaled_med / (scaled_med + busy));
	if (scaled_sys > 0)
		printf("          the mean with the system-call slowdown "
		       "(%.1fx) instead: %.3f ms, %.1f%%\n", slow->syscall,
		       scaled_sys, 100 * scaled_sys / (scaled_sys + busy));
	printf("          (the formula before: (median wall - busy - vnpu "
	       "host compute) / %.1f = %.3f ms, %.1f%%; it took the idle wait "
	       "for code and busy and host compute for disjoint)\n",
	       slow->cpu, old, 100 * old / (old + busy));
	*median_ms = wall.median;
	*scaled_ms = scaled + busy;
	ret = 0;
out:
	probe_tasks_close(tasks, runs);
	free(v);
	free(f);
	return ret;
}

/*
 * Alternating frames of the two sessions @s (both loaded), input 0
 * bound in the caller's memory in s[0] and, with IN_PLACE_1, in s[1]'s
 * input memory (else the caller's too); with IN_PLACE_0 in s[0]'s input
 * memory as well. After one warm-up run each:
 * @med gets the median latency and process CPU of s[0], then of s[1];
 * @copied the bytes each copied at its seams. 0, or -1 if a run failed.
 */
enum { IN_PLACE_1 = 1, IN_PLACE_0 = 2 };

static int alternate(enpu_rt_session *const s[2], int in_place, int runs,
		     double med[4], uint64_t copied[2])
{
	double *wall = calloc(2 * (size_t)runs, sizeof(double));
	double *cpu = calloc(2 * (size_t)runs, sizeof(double));
	struct run_input in = { 0 };
	int ok = s[0] && s[1] && wall && cpu;

	if (ok) {
		input_bytes(s[0], &in);
		ok = !(in_place & IN_PLACE_0 ? bind_in_place(s[0], &in) :
					       bind_host(s[0], &in)) &&
		     !(in_place & IN_PLACE_1 ? bind_in_place(s[1], &in) :
					       bind_host(s[1], &in)) &&
		     !enpu_rt_session_run(s[0]) && !enpu_rt_session_run(s[1]);
	}
	for (int i = 0; ok && i < 2 * runs; i++) {
		double t0 = now_ms(), c0 = probe_process_cpu_ms();

		ok = !enpu_rt_session_run(s[i % 2]);
		wall[(i % 2) * runs + i / 2] = now_ms() - t0;
		cpu[(i % 2) * runs + i / 2] = probe_process_cpu_ms() - c0;
	}
	if (ok) {
		med[0] = probe_median(wall, runs);
		med[1] = probe_median(cpu, runs);
		med[2] = probe_median(wall + runs, runs);
		med[3] = probe_median(cpu + runs, runs);
		copied[0] = run_seam_copies(s[0]);
		copied[1] = run_seam_copies(s[1]);
	}
	free(wall);
	free(cpu);
	free(in.data);
	enpu_rt_session_destroy(s[0]);
	enpu_rt_session_destroy(s[1]);
	return ok ? 0 : -1;
}

/*
 * Before/after, alternately in one run: the same model in two sessions,
 * one reading the device's busy counter around its job (the old default,
 * enpu_rt_options_set_device_time(1)), one not; median latency and
 * process CPU time of @runs frames each.
 */
static void device_time_ab(const char *model, int runs)
{
	enpu_rt_session *s[2] = { load_with(model, 1, 0),
				  load_with(model, 0, 0) };
	uint64_t copied[2];
	double m[4];

	if (!alternate(s, 0, runs, m, copied))
		printf("  before/after, alternating frames (%d each): device "
		       "busy counter read around each job (before) %.3f ms "
		       "latency, %.3f ms process CPU; not read (now the "
		       "default) %.3f ms, %.3f ms\n", runs, m[0], m[1], m[2],
		       m[3]);
	else
		printf("  before/after device-time reading: run failed\n");
}

/*
 * Before/after, alternately in one run: the input bound in the caller's
 * memory (copied into a staging buffer object by every run, the way before
 * enpu_rt_session_input_memory()) and in the session's input memory (read
 * in place); median latency and process CPU of @runs frames each.
 */
static void input_copy_ab(const char *model, int runs)
{
	enpu_rt_session *s[2] = { load(model), load(model) };
	uint64_t copied[2];
	double m[4];

	if (!alternate(s, IN_PLACE_1, runs, m, copied))
		printf("  before/after, alternating frames (%d each): input in "
		       "the caller's memory, staged (%llu bytes copied per "
		       "frame; before) %.3f ms latency, %.3f ms process CPU; "
		       "in the session's input memory (%llu bytes; now) %.3f "
		       "ms, %.3f ms\n", runs, (unsigned long long)copied[0],
		       m[0], m[1], (unsigned long long)copied[1], m[2], m[3]);
	else
		printf("  before/after input staging: run failed\n");
}

/*
 * Before/after, alternately in one run: the stream copied by every SUBMIT
 * and validated every time (before stream objects) and a stream object
 * (driver uapi 1.2: no copy, validation skipped for the same BOs); input
 * in place in both; median latency and process CPU of @runs frames each.
 */
static void stream_object_ab(const char *model, int runs)
{
	enpu_rt_session *s[2] = { load_with(model, 0, 1),
				  load_with(model, 0, 0) };
	uint64_t copied[2];
	double m[4];

	if (!alternate(s, IN_PLACE_0 | IN_PLACE_1, runs, m, copied))
		printf("  before/after, alternating frames (%d each): stream "
		       "copied and validated by every SUBMIT (before) %.3f ms "
		       "latency, %.3f ms process CPU; a stream object (now) "
		       "%.3f ms, %.3f ms\n", runs, m[0], m[1], m[2], m[3]);
	else
		printf("  before/after stream objects: run failed\n");
}

/* ONNX Runtime's lines of the CPU half: "ort_e2e THREADS MEDIAN [BEST]". */
static void side_by_side(const char *ort, const double median[2],
			 const double scaled[2])
{
	FILE *f = ort ? fopen(ort, "r") : NULL;
	char line[256];

	printf("side by side, the same int8 MobileNetV2-shaped model, batch 1 "
	       "(median ms per frame):\n");
	while (f && fgets(line, sizeof(line), f)) {
		double ms, best = 0;
		int threads;

		if (sscanf(line, "ort_e2e %d %lf %lf", &threads, &ms, &best) >= 2)
			printf("  %-58s %9.3f\n", threads == 1 ?
			       "ONNX Runtime CPU provider, host, 1 thread" :
			       "ONNX Runtime CPU provider, host, 2 threads", ms);
	}
	if (f)
		fclose(f);
	else
		printf("  (ONNX Runtime: run `make bench-e2e` for its rows)\n");
	for (int v = 0; v < 2; v++) {
		if (median[v] <= 0)
			continue;
		printf("  ENPU npu,cpu, %s, VM measured %*s %9.3f\n",
		       v ? "uint8 frame in" : "float in", v ? 15 : 21, "",
		       median[v]);
		printf("  ENPU npu,cpu, %s, scaled (guest / TCG + device) %*s "
		       "%9.3f\n", v ? "uint8 frame in" : "float in",
		       v ? 0 : 6, "", scaled[v]);
	}
}

/*
 * @runs frames of @model and nothing else (no relay, no probes but the
 * schedstat reads between frames), so that a profiler (perf record -a or
 * ftrace in the guest) sees only what a frame costs, and two modules can
 * be compared in one boot: per frame the wall time and the guest CPU
 * (this process, other tasks), as quartiles and mean.
 */
static int frames_alone(const char *model, int runs)
{
	enpu_rt_session *s = load(model);
	double *v = calloc(3 * (size_t)runs, sizeof(double));
	struct probe_tasks *tasks = probe_tasks_open();
	struct run_input in = { 0 };
	struct probe_spread sp[3];
	int status = 1;

	if (!s || !v)
		goto out;
	input_bytes(s, &in);
	if (bind_in_place(s, &in))
		goto out;
	for (int i = 0; i < runs; i++) {
		double o0 = probe_tasks_cpu_ms(tasks);
		double c0 = probe_process_cpu_ms(), t0 = now_ms();

		if (enpu_rt_session_run(s)) {
			fprintf(stderr, "e2e-npu-bench: %s\n",
				enpu_rt_session_error(s));
			goto out;
		}
		v[i] = now_ms() - t0;
		v[runs + i] = probe_process_cpu_ms() - c0;
		v[2 * runs + i] = probe_tasks_cpu_ms(tasks) - o0;
	}
	for (int k = 0; k < 3; k++)
		if (probe_spread(v + k * runs, runs, &sp[k]))
			goto out;
	printf("%s: %d frames: median %.3f ms wall, %.3f ms process CPU\n",
	       model, runs, sp[0].median, sp[1].median);
	for (int k = 0; k < 3; k++)
		printf("  %-13s q1 %.3f, median %.3f, q3 %.3f, mean %.3f ms\n",
		       k == 0 ? "wall" : k == 1 ? "this process" :
		       "other tasks", sp[k].q1, sp[k].median, sp[k].q3,
		       sp[k].mean);
	probe_tasks_close(tasks, runs);
	tasks = NULL;
	status = 0;
out:
	probe_tasks_close(tasks, runs);
	free(in.data);
	free(v);
	enpu_rt_session_destroy(s);
	return status;
}

static void mac_share(const enpu_rt_session *s)
{
	uint64_t macs = 0, npu_macs = 0;

	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		macs += info.macs;
		if (!strcmp(info.backend, "npu"))
			npu_macs += info.macs;
	}
	printf("  MACs on the NPU: %.2f%% of %llu (target >= 95%%: %s)\n",
	       macs ? 100.0 * (double)npu_macs / (double)macs : 0,
	       (unsigned long long)macs,
	       macs && npu_macs * 100 >= macs * 95 ? "met" : "MISSED");
}

enum { AB_RUNS = 50 };

int main(int argc, char **argv)
{
	const char *model = NULL, *small = NULL, *frame_model = NULL;
	const char *ort = NULL;
	double median[2] = { 0, 0 }, scaled[2] = { 0, 0 };
	double host_spin = 0, host_sys = 0, guest_spin;
	struct slowdowns slow;
	struct probe_clock clock;
	int runs = 300, alone = 0, ab;
	enpu_rt_session *pair[2] = { NULL, NULL };
	struct run_input in;
	char reply[256];

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--spin")) {
			printf("%.4f\n", spin_ns_per_iteration(1));
			return 0;
		} else if (!strcmp(argv[i], "--syscall")) {
			printf("%.4f\n", probe_syscall_ns(1));
			return 0;
		} else if (!strcmp(argv[i], "--frames") && v) {
			alone = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--host-syscall-ns") && v) {
			host_sys = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--model") && v) {
			model = argv[++i];
		} else if (!strcmp(argv[i], "--uint8-model") && v) {
			frame_model = argv[++i];
		} else if (!strcmp(argv[i], "--ort") && v) {
			ort = argv[++i];
		} else if (!strcmp(argv[i], "--small") && v) {
			small = argv[++i];
		} else if (!strcmp(argv[i], "--host-spin-ns") && v) {
			host_spin = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--runs") && v) {
			runs = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: e2e-npu-bench --spin | --model "
				"M.onnx --host-spin-ns X [--uint8-model U.onnx] "
				"[--runs N] [--small S.onnx] [--ort FILE] | --frames N "
				"--model M.onnx\n");
			return 2;
		}
	}
	if (!model || runs < 2)
		return 2;
	if (alone > 0)
		return frames_alone(model, alone);
	guest_spin = spin_ns_per_iteration(0);
	slow.cpu = host_spin > 0 ? guest_spin / host_spin : 1;
	printf("TCG slowdown: the same loop (quantizing floats, an integer "
	       "chain) takes %.3f ns per iteration in the guest (wall), %.3f "
	       "on the host (CPU time): %.1fx\n", guest_spin, host_spin,
	       slow.cpu);
	slow.syscall = 0;
	if (host_sys > 0) {
		double guest_sys = probe_syscall_ns(0);

		slow.syscall = guest_sys / host_sys;
		printf("system-call slowdown: a 64-byte read() of /dev/zero "
		       "takes %.0f ns in the guest (wall), %.0f on the host "
		       "(CPU time): %.1fx\n", guest_sys, host_sys,
		       slow.syscall);
	}
	if (probe_pin_top_clock(&clock))
		printf("NPU clock: not pinned (no devfreq device of enpu, or "
		       "not writable): device times are at whatever OPP "
		       "devfreq picks\n");
	else
		printf("NPU clock: pinned at %s Hz for the benchmark "
		       "(devfreq %s: min_freq = max_freq, restored after)\n",
		       clock.top, clock.dir);
	/*
	 * The before/after lines and the primitives compare medians of
	 * their own frames: 50 of each are enough, and the latency block's
	 * larger count (the mean it is judged on) stays affordable.
	 */
	ab = runs < AB_RUNS ? runs : AB_RUNS;
	probe_primitives(ab);
	for (int v = 0; v < 2; v++) {
		const char *m = v ? frame_model : model;
		enpu_rt_session *s;

		if (!m)
			continue;
		s = load(m);
		if (!s)
			return 1;
		input_bytes(s, &in);
		if (bind_in_place(s, &in))
			return 1;
		for (int i = 0; i < 3; i++)
			if (enpu_rt_session_run(s)) {
				fprintf(stderr, "e2e-npu-bench: %s\n",
					enpu_rt_session_error(s));
				return 1;
			}
		if (cost_stats(&(unsigned long long){ 0 },
			       &(unsigned long long){ 0 })) {
			fprintf(stderr, "e2e-npu-bench: no vnpu control socket "
				"(run with tools/vm/run --fault-relay)\n");
			return 1;
		}
		if (latency(s, runs, &slow, v ?
			    "MobileNetV2-shaped int8 224x224, uint8 frame in "
			    "(logits' DequantizeLinear on the NPU from "
			    "interface 1.7)" :
			    "MobileNetV2-shaped int8 224x224, float in "
			    "(QuantizeLinear on the NPU from interface 1.6, "
			    "DequantizeLinear from 1.7)",
			    &median[v],
			    &scaled[v]))
			return 1;
		mac_share(s);
		input_copy_ab(m, ab);
		stream_object_ab(m, ab);
		if (v)
			device_time_ab(m, ab);
		enpu_rt_session_destroy(s);
		free(in.data);
	}
	pair[0] = load(model);
	pair[1] = load(model);
	if (!pair[0] || !pair[1])
		return 1;
	input_bytes(pair[0], &in);
	if (bind_in_place(pair[0], &in) || bind_in_place(pair[1], &in))
		return 1;
	printf("throughput, float-in model, double buffering on two sessions:\n");
	throughput(pair, 10, "vnpu speed 1:");
	if (!relay("speed 0.05", reply, sizeof(reply))) {
		throughput(pair, 6, "vnpu speed 0.05 (20x):");
		relay("speed 1", reply, sizeof(reply));
	}
	enpu_rt_session_destroy(pair[0]);
	enpu_rt_session_destroy(pair[1]);
	free(in.data);
	printf("bytes copied at partition seams:\n");
	dmabuf_copies(model, "MobileNetV2, float in:");
	if (frame_model)
		dmabuf_copies(frame_model, "MobileNetV2, uint8 frame in:");
	if (small)
		dmabuf_copies(small, "small model, uint8 in:");
	side_by_side(ort, median, scaled);
	probe_restore_clock(&clock);
	return 0;
}
