// SPDX-License-Identifier: MIT
/*
 * enpu-demo: a trained int8 CNN (tools/enpu-demo/digits_train.c, quantized
 * by enpu-quantize) classifying the held-out handwritten digits through
 * the runtime: partitioned onto the NPU (through the kernel driver) with
 * the unsupported remainder on the CPU. A thin client of enpu_rt.h: it
 * only loads, binds, runs and reads reports. Prints the plan, the
 * accuracy next to the float model's, whether the NPU's outputs equal the
 * CPU's bit for bit, and where the time went (NPU vs CPU partitions).
 *
 * The model is small enough that the partitioner's cost estimate would
 * keep it on the CPU (a job's dispatch costs more than the NPU saves), so
 * the demo places without the estimate unless --cost is given.
 *
 * Exit status: 0 when every output equals the CPU's bytes, an NPU
 * partition ran, and the int8 accuracy is within --tolerance points of
 * the float model's; 1 otherwise (or on any error, e.g. no device: the
 * message says why); 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu/enpu_rt.h"

#define CLASSES 10
#define PIXELS 64

struct args {
	const char *model, *reference, *data, *backends, *device;
	unsigned int threads;
	int runs, cost;
	double tolerance;
};

struct digits {
	float *x;		/* count x 64 */
	uint8_t *y;
	size_t count;
};

struct split {
	uint64_t npu_host_ns, npu_device_ns, npu_modeled_ns, cpu_ns, wall_ns;
	uint64_t copied;
	uint32_t commands;
	size_t npu_partitions;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: enpu-demo [--model INT8.onnx] [--reference "
		"FP32.onnx] [--data TEST.bin] [--backends npu,cpu] [--device "
		"PATH] [--threads N] [--runs N] [--tolerance POINTS] "
		"[--cost]\n");
}

static int parse(int argc, char **argv, struct args *a)
{
	*a = (struct args){
		.model = "build/demo/digits-int8.onnx",
		.reference = "build/demo/digits-fp32.onnx",
		.data = "build/demo/digits-test.bin",
		.backends = "npu,cpu", .threads = 1, .runs = 1,
		.tolerance = 2.0,
	};
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--cost")) {
			a->cost = 1;
			continue;
		}
		if (!v)
			return -1;
		if (!strcmp(argv[i], "--model"))
			a->model = v;
		else if (!strcmp(argv[i], "--reference"))
			a->reference = v;
		else if (!strcmp(argv[i], "--data"))
			a->data = v;
		else if (!strcmp(argv[i], "--backends"))
			a->backends = v;
		else if (!strcmp(argv[i], "--device"))
			a->device = v;
		else if (!strcmp(argv[i], "--threads"))
			a->threads = (unsigned int)atoi(v);
		else if (!strcmp(argv[i], "--runs"))
			a->runs = atoi(v);
		else if (!strcmp(argv[i], "--tolerance"))
			a->tolerance = atof(v);
		else
			return -1;
		i++;
	}
	return a->runs >= 1 && a->threads >= 1 ? 0 : -1;
}

/* digits-train's "ENPUDIGT" file: count, 64, then (64 floats, label). */
static int read_digits(const char *path, struct digits *d)
{
	FILE *f = fopen(path, "rb");
	char magic[8];
	uint32_t header[2];
	int ok;

	if (!f) {
		fprintf(stderr, "enpu-demo: %s: %s (make demo builds it)\n",
			path, strerror(errno));
		return -1;
	}
	ok = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "ENPUDIGT", 8) &&
	     fread(header, sizeof(header), 1, f) == 1 &&
	     header[1] == PIXELS && header[0] && header[0] < 100000;
	if (ok) {
		d->count = header[0];
		d->x = malloc(d->count * PIXELS * sizeof(float));
		d->y = malloc(d->count);
		ok = d->x && d->y;
	}
	for (size_t i = 0; ok && i < d->count; i++)
		ok = fread(d->x + i * PIXELS, sizeof(float), PIXELS, f) ==
		     PIXELS && fread(d->y + i, 1, 1, f) == 1 &&
		     d->y[i] < CLASSES;
	fclose(f);
	if (!ok)
		fprintf(stderr, "enpu-demo: %s: not a digits test file\n",
			path);
	return ok ? 0 : -1;
}

static enpu_rt_session *load(const struct args *a, const char *model,
			     const char *backends)
{
	enpu_rt_options *o = NULL;
	enpu_rt_session *s = NULL;

	if (enpu_rt_options_create(&o) ||
	    enpu_rt_options_set_threads(o, a->threads) ||
	    enpu_rt_options_set_backends(o, backends) ||
	    enpu_rt_options_set_cost_placement(o, a->cost) ||
	    enpu_rt_options_set_device_time(o, 1) ||
	    (a->device && enpu_rt_options_set_device(o, a->device)) ||
	    enpu_rt_session_create_from_file(model, o, &s))
		fprintf(stderr, "enpu-demo: %s on %s: %s\n", model, backends,
			o ? enpu_rt_options_error(o) : "out of memory");
	enpu_rt_options_destroy(o);
	return s;
}

static int run_one(enpu_rt_session *s, const float *image,
		   struct enpu_rt_output *out)
{
	static const int64_t dims[4] = { 1, 1, 8, 8 };

	if (enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 4, dims, image,
				       PIXELS * sizeof(float)) ||
	    enpu_rt_session_run(s) || enpu_rt_session_output(s, 0, out) ||
	    out->byte_size != CLASSES * sizeof(float)) {
		fprintf(stderr, "enpu-demo: run: %s\n",
			enpu_rt_session_error(s));
		return -1;
	}
	return 0;
}

static int argmax(const float *p)
{
	int best = 0;

	for (int k = 1; k < CLASSES; k++)
		if (p[k] > p[best])
			best = k;
	return best;
}

static void add_split(const enpu_rt_session *s, struct split *t)
{
	t->npu_partitions = 0;
	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		if (!strcmp(info.backend, "npu")) {
			t->npu_partitions++;
			t->npu_host_ns += info.host_ns;
			t->npu_device_ns += info.device_ns;
			t->npu_modeled_ns += info.modeled_ns;
			t->copied += info.copied_bytes;
			t->commands = info.commands;
		} else {
			t->cpu_ns += info.host_ns;
		}
	}
}

static void print_plan(const enpu_rt_session *s)
{
	uint64_t macs = 0, npu_macs = 0;

	for (size_t i = 0; i < enpu_rt_session_backend_count(s); i++) {
		struct enpu_rt_backend_info b;

		enpu_rt_session_backend(s, i, &b);
		printf("backend %s: %s\n", b.name,
		       b.active ? "in use" : b.note);
	}
	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		printf("  partition %zu: %-3s %2zu nodes %8llu MACs\n", p,
		       info.backend, info.node_count,
		       (unsigned long long)info.macs);
		macs += info.macs;
		if (!strcmp(info.backend, "npu"))
			npu_macs += info.macs;
	}
	for (size_t i = 0; i < enpu_rt_session_node_count(s); i++) {
		struct enpu_rt_node_placement n;

		enpu_rt_session_node_placement(s, i, &n);
		printf("    %-28s %-20s %s%s%s%s\n", n.name, n.op_type,
		       n.backend, n.reason[0] ? "  (" : "", n.reason,
		       n.reason[0] ? ")" : "");
	}
	printf("MAC share on the NPU: %.2f%% of %llu\n",
	       macs ? 100.0 * (double)npu_macs / (double)macs : 0.0,
	       (unsigned long long)macs);
}

int main(int argc, char **argv)
{
	struct args a;
	struct digits d = { 0 };
	struct split split = { 0 };
	enpu_rt_session *npu = NULL, *cpu = NULL, *fp32 = NULL;
	size_t right_npu = 0, right_fp32 = 0, agree = 0, identical = 0, runs = 0;
	int status = 1;

	if (parse(argc, argv, &a)) {
		usage();
		return 2;
	}
	if (read_digits(a.data, &d))
		return 1;
	npu = load(&a, a.model, a.backends);
	cpu = load(&a, a.model, "cpu");
	fp32 = load(&a, a.reference, "cpu");
	if (!npu || !cpu || !fp32)
		goto out;
	printf("== int8 model %s on %s ==\n", a.model, a.backends);
	if (!a.cost)
		printf("(placement without the cost estimate: a model this "
		       "small saves less on the NPU than a job's dispatch "
		       "costs, so the partitioner would keep it on the CPU; "
		       "--cost lets it)\n");
	print_plan(npu);
	for (int r = 0; r < a.runs; r++)
		for (size_t i = 0; i < d.count; i++) {
			const float *image = d.x + i * PIXELS;
			struct enpu_rt_output o_npu, o_cpu, o_fp32;
			uint64_t t0 = now_ns();

			if (run_one(npu, image, &o_npu))
				goto out;
			split.wall_ns += now_ns() - t0;
			add_split(npu, &split);
			runs++;
			if (run_one(cpu, image, &o_cpu) ||
			    run_one(fp32, image, &o_fp32))
				goto out;
			identical += !memcmp(o_npu.data, o_cpu.data,
					     o_npu.byte_size);
			if (r)
				continue;
			right_npu += argmax(o_npu.data) == d.y[i];
			right_fp32 += argmax(o_fp32.data) == d.y[i];
			agree += argmax(o_npu.data) == argmax(o_fp32.data);
		}
	printf("== %zu held-out digits ==\n", d.count);
	printf("accuracy int8 (%s): %zu/%zu = %.2f%%\n", a.backends,
	       right_npu, d.count, 100.0 * (double)right_npu / (double)d.count);
	printf("accuracy fp32 (cpu): %zu/%zu = %.2f%%\n", right_fp32, d.count,
	       100.0 * (double)right_fp32 / (double)d.count);
	printf("int8 and fp32 agree on %zu/%zu; int8 outputs equal to the "
	       "CPU's bytes: %zu/%zu runs\n", agree, d.count, identical, runs);
	printf("per inference (mean of %zu): wall %.3f ms; NPU partitions: "
	       "host %.3f ms, device %.3f ms (modeled %.3f ms, %u commands); "
	       "CPU partitions: %.3f ms; bytes copied at NPU seams %.1f\n",
	       runs, (double)split.wall_ns / 1e6 / (double)runs,
	       (double)split.npu_host_ns / 1e6 / (double)runs,
	       (double)split.npu_device_ns / 1e6 / (double)runs,
	       (double)split.npu_modeled_ns / 1e6 / (double)runs,
	       split.commands, (double)split.cpu_ns / 1e6 / (double)runs,
	       (double)split.copied / (double)runs);
	status = 0;
	if (identical != runs) {
		printf("enpu-demo: FAIL: %zu runs differ from the CPU\n",
		       runs - identical);
		status = 1;
	}
	if (strstr(a.backends, "npu") && !split.npu_partitions) {
		printf("enpu-demo: FAIL: nothing ran on the NPU\n");
		status = 1;
	}
	if ((double)right_fp32 - (double)right_npu >
	    a.tolerance / 100 * (double)d.count) {
		printf("enpu-demo: FAIL: int8 accuracy more than %.1f points "
		       "below fp32\n", a.tolerance);
		status = 1;
	}
	printf("enpu-demo: %s\n", status ? "FAIL" : "ok");
out:
	enpu_rt_session_destroy(npu);
	enpu_rt_session_destroy(cpu);
	enpu_rt_session_destroy(fp32);
	free(d.x);
	free(d.y);
	return status;
}
