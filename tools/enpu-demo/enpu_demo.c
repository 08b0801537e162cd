// SPDX-License-Identifier: MIT
/*
 * enpu-demo: runs a small int8 MobileNet-style CNN on the NPU through the
 * kernel driver (all layers in one job), runs the same network with the
 * CPU kernels (optimized and scalar reference) and checks that every
 * layer's output and the logits agree bit for bit. Exit status: 0
 * bit-exact, 1 a mismatch or an error, 2 bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <enpu/enpu.h>

#include "demo_counters.h"
#include "demo_cpu.h"
#include "demo_network.h"
#include "demo_npu.h"

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define JOB_TIMEOUT_NS (30 * 1000000000ll)
#define MAX_RUNS 100000

struct options {
	unsigned int runs;
	uint32_t priority;
	const char *device;
	uint64_t seed;
	unsigned int threads;
	int corrupt_weights;
};

/* Host memory for one executor: input and params shared, the rest own. */
struct host_run {
	unsigned char *memory[DEMO_BUFFER_COUNT];
};

static void usage(FILE *stream)
{
	fprintf(stream,
		"usage: enpu-demo [--runs N] [--priority low|normal|high|realtime]\n"
		"                 [--device PATH] [--seed N] [--threads N]\n"
		"                 [--corrupt-weights]\n"
		"\n"
		"Runs a small int8 CNN (MobileNet-style blocks, 12 layers, one job)\n"
		"on the first ENPU device and on the CPU, and checks that every\n"
		"layer output and the 10 logits are bit-exact.\n"
		"\n"
		"  --runs N           submit the job N times (default 1), report the\n"
		"                     mean latency; every run is checked\n"
		"  --priority P       context priority (default normal; above normal\n"
		"                     needs CAP_SYS_NICE)\n"
		"  --device PATH      use this device node instead of the first\n"
		"  --seed N           weight generator seed (default 1)\n"
		"  --threads N        CPU kernel threads (default 1)\n"
		"  --corrupt-weights  flip one weight bit in the device's copy only,\n"
		"                     to show that a wrong result is caught (exit 1)\n"
		"\n"
		"Exit status: 0 bit-exact; 1 mismatch or error; 2 bad usage.\n");
}

static int parse_unsigned(const char *text, unsigned long long max,
			  unsigned long long *value)
{
	char *end;

	errno = 0;
	*value = strtoull(text, &end, 0);
	return errno || end == text || *end || text[0] == '-' || *value > max ?
	       -EINVAL : 0;
}

static int parse_priority(const char *text, uint32_t *priority)
{
	static const char *const names[] = { "low", "normal", "high",
					     "realtime" };

	for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(text, names[i])) {
			*priority = DRM_ENPU_PRIORITY_LOW + i;
			return 0;
		}
	return -EINVAL;
}

static const char *priority_name(uint32_t priority)
{
	static const char *const names[] = { "low", "normal", "high",
					     "realtime" };

	return priority < 4 ? names[priority] : "?";
}

static int parse_options(int argc, char **argv, struct options *options)
{
	static const struct option longs[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "priority", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "corrupt-weights", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long value;
	int option;

	*options = (struct options){ .runs = 1,
				     .priority = DRM_ENPU_PRIORITY_NORMAL,
				     .seed = 1, .threads = 1 };
	while ((option = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (option) {
		case 'r':
			if (parse_unsigned(optarg, MAX_RUNS, &value) || !value) {
				fprintf(stderr,
					"enpu-demo: --runs '%s' is not a count in 1..%d\n",
					optarg, MAX_RUNS);
				return -EINVAL;
			}
			options->runs = (unsigned int)value;
			break;
		case 'p':
			if (parse_priority(optarg, &options->priority)) {
				fprintf(stderr,
					"enpu-demo: --priority '%s' is not low, normal, high or realtime\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'd':
			options->device = optarg;
			break;
		case 's':
			if (parse_unsigned(optarg, UINT64_MAX, &value)) {
				fprintf(stderr,
					"enpu-demo: --seed '%s' is not a number\n",
					optarg);
				return -EINVAL;
			}
			options->seed = value;
			break;
		case 't':
			if (parse_unsigned(optarg, 64, &value) || !value) {
				fprintf(stderr,
					"enpu-demo: --threads '%s' is not in 1..64\n",
					optarg);
				return -EINVAL;
			}
			options->threads = (unsigned int)value;
			break;
		case 'c':
			options->corrupt_weights = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "enpu-demo: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int host_run_create(const struct demo_network *network,
			   struct host_run *run)
{
	memset(run, 0, sizeof(*run));
	run->memory[DEMO_BUFFER_INPUT] = network->input;
	run->memory[DEMO_BUFFER_PARAMS] = network->params;
	run->memory[DEMO_BUFFER_ARENA] =
		calloc(1, network->size[DEMO_BUFFER_ARENA]);
	run->memory[DEMO_BUFFER_OUTPUT] =
		calloc(1, network->size[DEMO_BUFFER_OUTPUT]);
	return run->memory[DEMO_BUFFER_ARENA] &&
	       run->memory[DEMO_BUFFER_OUTPUT] ? 0 : -ENOMEM;
}

static void host_run_release(struct host_run *run)
{
	free(run->memory[DEMO_BUFFER_ARENA]);
	free(run->memory[DEMO_BUFFER_OUTPUT]);
}

/* Bytes of layer's output that differ between two copies of the buffers. */
static uint64_t layer_differences(const struct demo_layer *layer,
				  unsigned char *const a[DEMO_BUFFER_COUNT],
				  unsigned char *const b[DEMO_BUFFER_COUNT])
{
	const struct demo_tensor *t = &layer->output;
	const unsigned char *x = a[t->buffer] + t->offset;
	const unsigned char *y = b[t->buffer] + t->offset;
	uint64_t count = 0;

	for (uint64_t i = 0; i < demo_tensor_bytes(t); i++)
		count += x[i] != y[i];
	return count;
}

static const int8_t *logits_of(const struct demo_network *network,
			       unsigned char *const memory[DEMO_BUFFER_COUNT])
{
	return (const int8_t *)(memory[network->logits.buffer] +
				network->logits.offset);
}

static uint32_t argmax(const struct demo_network *network,
		       const int8_t *logits)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < network->logits.channels; i++)
		if (logits[i] > logits[best])
			best = i;
	return best;
}

static void print_device(struct demo_npu *npu, uint32_t priority)
{
	struct enpu_device_params params;
	const char *path = "?", *version = "?";
	char hw[32] = "?", fw[32] = "?";
	uint32_t id = 0;

	enpu_device_path(npu->device, &path);
	enpu_device_driver_version(npu->device, &version);
	if (!enpu_device_query_params(npu->device, sizeof(params), &params)) {
		enpu_format_hw_version(params.hw_version, sizeof(hw), hw);
		enpu_format_fw_version(params.fw_version, sizeof(fw), fw);
		printf("device:   %s, %s, hw %s, fw %s, %" PRIu64
		       " MACs/cycle, clock %" PRIu64 " MHz\n",
		       path, version, hw, fw, params.macs_per_cycle,
		       params.clock_cur_khz / 1000);
	} else {
		printf("device:   %s, %s\n", path, version);
	}
	enpu_context_id(npu->context, &id);
	printf("context:  id %u, priority %s\n", id, priority_name(priority));
}

static void print_layers(const struct demo_network *network,
			 const uint64_t *npu_differences)
{
	printf("\n  #  layer                 op                input       output        MACs  NPU vs CPU ref\n");
	for (size_t i = 0; i < network->layer_count; i++) {
		const struct demo_layer *l = &network->layer[i];
		char input[32], output[32], macs[24] = "-", check[40];

		demo_tensor_format(&l->input, sizeof(input), input);
		demo_tensor_format(&l->output, sizeof(output), output);
		if (l->macs)
			snprintf(macs, sizeof(macs), "%" PRIu64, l->macs);
		if (npu_differences[i])
			snprintf(check, sizeof(check), "DIFFERS (%" PRIu64
				 " bytes)", npu_differences[i]);
		else
			snprintf(check, sizeof(check), "identical");
		printf(" %2zu  %-20s  %-16s  %-10s  %-10s  %8s  %s%s%s%s\n", i,
		       l->name, demo_layer_kind_name(l->kind), input, output,
		       macs, check, *l->note ? " [" : "", l->note,
		       *l->note ? "]" : "");
	}
	printf("     total %" PRIu64 " MACs; params %" PRIu64
	       " bytes, activations %" PRIu64 " bytes\n",
	       network->total_macs, network->size[DEMO_BUFFER_PARAMS],
	       network->size[DEMO_BUFFER_ARENA]);
}

static void print_timing(const struct options *options, struct demo_npu *npu,
			 const struct demo_network *network,
			 uint64_t total_ns, uint64_t min_ns, uint64_t max_ns,
			 int have_counters, const struct demo_counters *before,
			 const struct demo_counters *after,
			 const char *counters_why)
{
	uint64_t clock_khz = 0;

	printf("\nNPU:      %u run%s, one job of %zu layers (%u-byte command stream) each\n",
	       options->runs, options->runs == 1 ? "" : "s",
	       network->layer_count, demo_npu_stream_size(npu));
	printf("          wall latency submit->fence: mean %.1f us (min %.1f, max %.1f)\n",
	       total_ns / 1e3 / options->runs, min_ns / 1e3, max_ns / 1e3);
	if (!have_counters) {
		printf("          device counters: not readable (%s); wall time only\n",
		       counters_why);
		return;
	}
	enpu_device_get_param(npu->device, DRM_ENPU_PARAM_CLOCK_CUR_KHZ,
			      &clock_khz);
	{
		double runs = options->runs;
		double cycles = (double)(after->cycles - before->cycles) / runs;
		double busy = (double)(after->busy_ns - before->busy_ns) / runs;
		uint64_t macs = after->macs - before->macs;
		uint64_t bytes = after->dma_bytes - before->dma_bytes;
		uint64_t jobs = after->jobs_done - before->jobs_done;

		printf("          device time per run: %.0f cycles", cycles);
		if (clock_khz)
			printf(" = %.2f us at %" PRIu64 " MHz", cycles * 1e3 /
			       (double)clock_khz, clock_khz / 1000);
		printf(", busy %.2f us\n", busy / 1e3);
		printf("          device counters over all runs: %" PRIu64
		       " job(s), %" PRIu64 " MACs (network: %" PRIu64
		       " x %u = %" PRIu64 "), %" PRIu64 " bytes moved\n",
		       jobs, macs, network->total_macs, options->runs,
		       network->total_macs * options->runs, bytes);
	}
}

static void print_logits(const struct demo_network *network,
			 const int8_t *npu, const int8_t *optimized,
			 const int8_t *reference)
{
	const struct demo_tensor *t = &network->logits;

	printf("\nlogits (int8, scale %.5f, zero point %d):\n", t->scale,
	       t->zero_point);
	printf("  class   NPU  CPU-opt  CPU-ref    real\n");
	for (uint32_t i = 0; i < t->channels; i++)
		printf("  %5u  %4d  %7d  %7d  %6.3f%s\n", i, npu[i],
		       optimized[i], reference[i],
		       (npu[i] - t->zero_point) * t->scale,
		       npu[i] != reference[i] ? "  <- differs" : "");
}

int main(int argc, char **argv)
{
	struct demo_counters before = { 0 }, after = { 0 };
	struct demo_network network = { 0 };
	struct demo_cpu_plan plan = { 0 };
	struct host_run reference = { 0 }, optimized = { 0 };
	struct demo_npu npu = { 0 };
	struct options options;
	enpu_cpu_context *cpu = NULL;
	uint64_t npu_differences[DEMO_MAX_LAYERS] = { 0 };
	uint64_t cpu_differences = 0, total_ns = 0, min_ns = UINT64_MAX;
	uint64_t max_ns = 0, reference_ns, optimized_ns = 0;
	unsigned char *device_memory[DEMO_BUFFER_COUNT];
	char error[512] = "", counters_why[256] = "";
	int have_counters, bit_exact, status, exit_code = EXIT_MISMATCH;
	unsigned int mismatched_runs = 0;
	uint32_t npu_class, cpu_class;

	if (parse_options(argc, argv, &options))
		return EXIT_USAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);

	status = demo_npu_open(&npu, options.device, sizeof(error), error);
	if (status)
		goto fail;
	status = enpu_cpu_context_create(options.threads, &cpu);
	if (status) {
		snprintf(error, sizeof(error), "CPU context: %s",
			 strerror(-status));
		goto fail;
	}
	status = demo_network_build(&network, cpu, options.seed,
				    sizeof(error), error);
	if (status)
		goto fail;
	status = demo_npu_prepare(&npu, &network, options.priority,
				  sizeof(error), error);
	if (status)
		goto fail;
	printf("enpu-demo: int8 MobileNet-style CNN, %zu layers in one job, seed %" PRIu64 "\n",
	       network.layer_count, options.seed);
	print_device(&npu, options.priority);

	/* The CPU: scalar reference once, optimized as often as the NPU. */
	status = demo_cpu_plan_create(cpu, &network, &plan, sizeof(error),
				      error);
	if (!status)
		status = host_run_create(&network, &reference);
	if (!status)
		status = host_run_create(&network, &optimized);
	if (status) {
		if (!*error)
			snprintf(error, sizeof(error), "out of memory");
		goto fail;
	}
	/*
	 * One untimed pass of each path first: the first call pays for page
	 * faults, thread start-up and, in the VM, the JIT translating the
	 * kernels, none of which is the kernels' speed.
	 */
	status = demo_cpu_run(cpu, &network, &plan, optimized.memory,
			      sizeof(error), error);
	if (!status)
		status = demo_cpu_run(cpu, &network, NULL, reference.memory,
				      sizeof(error), error);
	if (status)
		goto fail;
	memset(reference.memory[DEMO_BUFFER_ARENA], 0,
	       network.size[DEMO_BUFFER_ARENA]);
	memset(reference.memory[DEMO_BUFFER_OUTPUT], 0,
	       network.size[DEMO_BUFFER_OUTPUT]);
	memset(optimized.memory[DEMO_BUFFER_ARENA], 0,
	       network.size[DEMO_BUFFER_ARENA]);
	memset(optimized.memory[DEMO_BUFFER_OUTPUT], 0,
	       network.size[DEMO_BUFFER_OUTPUT]);
	reference_ns = now_ns();
	status = demo_cpu_run(cpu, &network, NULL, reference.memory,
			      sizeof(error), error);
	reference_ns = now_ns() - reference_ns;
	for (unsigned int run = 0; run < options.runs && !status; run++) {
		uint64_t start = now_ns();

		status = demo_cpu_run(cpu, &network, &plan, optimized.memory,
				      sizeof(error), error);
		optimized_ns += now_ns() - start;
	}
	if (status)
		goto fail;
	for (size_t i = 0; i < network.layer_count; i++)
		cpu_differences += layer_differences(&network.layer[i],
						     optimized.memory,
						     reference.memory);

	if (options.corrupt_weights) {
		npu.map[DEMO_BUFFER_PARAMS][network.layer[0].weights_offset] ^=
			0x40;
		printf("note:     --corrupt-weights: one weight bit of layer 0 flipped in the device's copy\n");
	}

	/* The NPU, checked run by run against the reference. */
	for (int i = 0; i < DEMO_BUFFER_COUNT; i++)
		device_memory[i] = npu.map[i];
	have_counters = !demo_counters_read(&before, sizeof(counters_why),
					    counters_why);
	for (unsigned int run = 0; run < options.runs; run++) {
		uint64_t latency = 0, differences = 0;

		status = demo_npu_run(&npu, JOB_TIMEOUT_NS, &latency,
				      sizeof(error), error);
		if (status)
			goto fail;
		total_ns += latency;
		min_ns = latency < min_ns ? latency : min_ns;
		max_ns = latency > max_ns ? latency : max_ns;
		for (size_t i = 0; i < network.layer_count; i++) {
			uint64_t d = layer_differences(&network.layer[i],
						       device_memory,
						       reference.memory);

			/* The table shows the first run that differed. */
			if (!mismatched_runs)
				npu_differences[i] = d;
			differences += d;
		}
		mismatched_runs += differences != 0;
	}
	if (have_counters)
		have_counters = !demo_counters_read(&after,
						    sizeof(counters_why),
						    counters_why);

	print_layers(&network, npu_differences);
	print_timing(&options, &npu, &network, total_ns, min_ns, max_ns,
		     have_counters, &before, &after, counters_why);
	printf("CPU:      optimized (%s, %u thread%s) mean %.1f us; scalar reference %.1f us\n",
	       enpu_cpu_isa_name(enpu_cpu_context_isa(cpu)), options.threads,
	       options.threads == 1 ? "" : "s",
	       optimized_ns / 1e3 / options.runs, reference_ns / 1e3);
	print_logits(&network, logits_of(&network, device_memory),
		     logits_of(&network, optimized.memory),
		     logits_of(&network, reference.memory));

	bit_exact = !mismatched_runs && !cpu_differences;
	npu_class = argmax(&network, logits_of(&network, device_memory));
	cpu_class = argmax(&network, logits_of(&network, reference.memory));
	printf("\nargmax:   class %u (NPU), class %u (CPU)\n", npu_class,
	       cpu_class);
	if (bit_exact)
		printf("bit-exact: yes (NPU == CPU optimized == CPU reference: all %zu layer outputs and the logits, %u run%s)\n",
		       network.layer_count, options.runs,
		       options.runs == 1 ? "" : "s");
	else
		printf("bit-exact: no (%u of %u NPU runs differ from the CPU reference; CPU optimized vs reference: %" PRIu64 " bytes differ)\n",
		       mismatched_runs, options.runs, cpu_differences);
	exit_code = bit_exact ? 0 : EXIT_MISMATCH;
	goto out;

fail:
	fprintf(stderr, "enpu-demo: %s\n", *error ? error : strerror(-status));
	exit_code = EXIT_MISMATCH;
out:
	host_run_release(&reference);
	host_run_release(&optimized);
	demo_cpu_plan_release(&plan);
	demo_npu_close(&npu);
	demo_network_release(&network);
	enpu_cpu_context_destroy(cpu);
	return exit_code;
}
