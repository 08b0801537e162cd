// SPDX-License-Identifier: GPL-2.0
/*
 * How fast the vnpu computes layers on the host, next to the device time
 * the timing model charges for them (docs/hw/vnpu.md, "Timing": cycles =
 * max(MACs / MACS_PER_CYCLE, bytes / 32) at the clock of the top OPP).
 * If host time stays below device time, a job's pace is set by the model
 * at --speed 1; the ratio says by how much it does not.
 *
 * The layers are those of the MobileNetV2-shaped network of tests/rt
 * (224x224, width 1.0: 52 convolutions, 10 residual adds, the global
 * average pool and the 1280 -> 1000 classifier), each a real command
 * checked by layer_check(), with operands in BOs of shuffled 4 KiB pages
 * as the driver's shmem BOs are. Host time is the best of several runs
 * of layer_run() (FAST mode, one host thread), and one run of the ORACLE
 * mode for comparison.
 *
 *   vnpu-layer-bench [--runs N] [--oracle] [--threads N] [--layer TEXT]
 *
 * --threads: FAST's host threads (the vnpu's --layer-threads; default 1).
 * --layer: only the layers whose name contains TEXT (for a profiler).
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu_cmd.h"
#include "enpu_cpu.h"
#include "guest_model.h"
#include "layer.h"

#define RAM_SIZE	(160u << 20)
#define SG_BYTES	(1u << 20)
#define PAGE		4096u

/* A layer of the network: enough to build its command. */
struct spec {
	char name[48];
	enum { CONV, ADD, POOL, FC } kind;
	uint32_t size, cin, cout, kernel, stride;
	bool dw, relu;
};

struct bench_layer {
	union {
		struct enpu_cmd_conv2d conv;
		struct enpu_cmd_fc fc;
		struct enpu_cmd_eltwise eltwise;
		struct enpu_cmd_pool pool;
	} cmd;
	uint32_t size;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void tensor(struct enpu_tensor_desc *t, uint32_t bo, uint32_t h,
		   uint32_t w, uint32_t c, int32_t zp)
{
	memset(t, 0, sizeof(*t));
	t->buf.bo_index = bo;
	t->batch = 1;
	t->height = h;
	t->width = w;
	t->channels = c;
	t->dtype = ENPU_DTYPE_UINT8;
	t->zero_point = zp;
}

static uint32_t page_bo(struct guest_model *m, uint64_t size)
{
	return guest_model_bo(m, size, PAGE, PAGE, 0);
}

/* A per-channel requant table with plausible values. */
static uint32_t requant_table(struct guest_model *m, uint32_t channels)
{
	struct enpu_requant_param *p = calloc(channels, sizeof(*p));
	uint32_t bo = page_bo(m, (uint64_t)channels * sizeof(*p));

	for (uint32_t i = 0; i < channels; i++) {
		p[i].multiplier = 1 << 30 | (int32_t)guest_model_pick(m, 0, 1 << 20);
		p[i].shift = 40;
	}
	guest_model_write(m, bo, 0, p, (uint64_t)channels * sizeof(*p));
	free(p);
	return bo;
}

static void conv(struct guest_model *m, struct bench_layer *b,
		 uint32_t size, uint32_t cin, uint32_t cout, uint32_t kernel,
		 uint32_t stride, bool dw, bool relu)
{
	struct enpu_cmd_conv2d *c = &b->cmd.conv;
	uint32_t pad = kernel / 2, out = (size + 2 * pad - kernel) / stride + 1;

	memset(b, 0, sizeof(*b));
	b->size = sizeof(*c);
	c->hdr.opcode = dw ? ENPU_CMD_DEPTHWISE_CONV2D : ENPU_CMD_CONV2D;
	c->hdr.size = sizeof(*c);
	tensor(&c->input, page_bo(m, (uint64_t)size * size * cin), size, size,
	       cin, 3);
	tensor(&c->output, page_bo(m, (uint64_t)out * out * cout), out, out,
	       cout, 0);
	c->weights.bo_index = page_bo(m, (uint64_t)cout * (dw ? 1 : cin) *
				      kernel * kernel);
	c->bias.bo_index = page_bo(m, (uint64_t)cout * 4);
	c->requant.per_channel.bo_index = requant_table(m, cout);
	c->requant.min = 0;
	c->requant.max = relu ? 235 : 255;
	c->kernel_height = c->kernel_width = kernel;
	c->stride_height = c->stride_width = stride;
	c->dilation_height = c->dilation_width = 1;
	c->pad_top = c->pad_left = c->pad_bottom = c->pad_right = pad;
	c->groups = dw ? cin : 1;
}

static void add(struct guest_model *m, struct bench_layer *b, uint32_t size,
		uint32_t channels)
{
	struct enpu_cmd_eltwise *e = &b->cmd.eltwise;
	uint64_t bytes = (uint64_t)size * size * channels;

	memset(b, 0, sizeof(*b));
	b->size = sizeof(*e);
	e->hdr.opcode = ENPU_CMD_ADD;
	e->hdr.size = sizeof(*e);
	tensor(&e->a, page_bo(m, bytes), size, size, channels, 5);
	tensor(&e->b, page_bo(m, bytes), size, size, channels, 7);
	tensor(&e->output, page_bo(m, bytes), size, size, channels, 4);
	e->a_multiplier = 1 << 19;
	e->b_multiplier = 3 << 18;
	e->add_shift = 20;
	e->min = 0;
	e->max = 255;
}

static void pool(struct guest_model *m, struct bench_layer *b, uint32_t size,
		 uint32_t channels)
{
	struct enpu_cmd_pool *p = &b->cmd.pool;

	memset(b, 0, sizeof(*b));
	b->size = sizeof(*p);
	p->hdr.opcode = ENPU_CMD_AVG_POOL;
	p->hdr.size = sizeof(*p);
	tensor(&p->input, page_bo(m, (uint64_t)size * size * channels), size,
	       size, channels, 0);
	tensor(&p->output, page_bo(m, channels), 1, 1, channels, 0);
	p->params.bo_index = ENPU_BUF_NONE;
	p->kernel_height = p->kernel_width = size;
	p->stride_height = p->stride_width = 1;
	p->dilation_height = p->dilation_width = 1;
	p->multiplier = 1 << 30;
	p->shift = 40;
	p->max = 255;
}

static void fc(struct guest_model *m, struct bench_layer *b, uint32_t k,
	       uint32_t n)
{
	struct enpu_cmd_fc *f = &b->cmd.fc;

	memset(b, 0, sizeof(*b));
	b->size = sizeof(*f);
	f->hdr.opcode = ENPU_CMD_FULLY_CONNECTED;
	f->hdr.size = sizeof(*f);
	tensor(&f->input, page_bo(m, k), 1, 1, k, 0);
	tensor(&f->output, page_bo(m, n), 1, 1, n, 0);
	f->weights.bo_index = page_bo(m, (uint64_t)k * n);
	f->bias.bo_index = page_bo(m, (uint64_t)n * 4);
	f->requant.per_channel.bo_index = requant_table(m, n);
	f->requant.max = 255;
}

static void instantiate(struct guest_model *m, const struct spec *s,
			struct bench_layer *b)
{
	guest_model_forget(m);
	switch (s->kind) {
	case CONV:
		conv(m, b, s->size, s->cin, s->cout, s->kernel, s->stride,
		     s->dw, s->relu);
		break;
	case ADD:
		add(m, b, s->size, s->cout);
		break;
	case POOL:
		pool(m, b, s->size, s->cin);
		break;
	case FC:
		fc(m, b, s->cin, s->cout);
		break;
	}
}

static struct spec *next(struct spec *specs, unsigned int *count,
			 const char *name)
{
	struct spec *s = &specs[(*count)++];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static void conv_spec(struct spec *specs, unsigned int *count,
		      const char *name, uint32_t size, uint32_t cin,
		      uint32_t cout, uint32_t kernel, uint32_t stride, bool dw,
		      bool relu)
{
	struct spec *s = next(specs, count, name);

	s->kind = CONV;
	s->size = size;
	s->cin = cin;
	s->cout = cout;
	s->kernel = kernel;
	s->stride = stride;
	s->dw = dw;
	s->relu = relu;
}

/* The network's layers in order (tests/rt/mobilenet_model.c's shape). */
static unsigned int build(struct spec *specs)
{
	static const int blocks[7][4] = {
		{ 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 },
		{ 6, 64, 4, 2 }, { 6, 96, 3, 1 }, { 6, 160, 3, 2 },
		{ 6, 320, 1, 1 },
	};
	uint32_t size = 224, channels = 32;
	unsigned int count = 0;
	struct spec *s;
	char name[48];

	conv_spec(specs, &count, "stem 3x3/2", size, 3, 32, 3, 2, false,
		  true);
	size = 112;
	for (int b = 0; b < 7; b++)
		for (int i = 0; i < blocks[b][2]; i++) {
			uint32_t stride = i ? 1 : (uint32_t)blocks[b][3];
			uint32_t hidden = channels * (uint32_t)blocks[b][0];
			uint32_t out = (uint32_t)blocks[b][1];

			if (blocks[b][0] != 1) {
				snprintf(name, sizeof(name), "b%d.%d expand",
					 b, i);
				conv_spec(specs, &count, name, size, channels,
					  hidden, 1, 1, false, true);
			}
			snprintf(name, sizeof(name), "b%d.%d dw 3x3/%u", b, i,
				 stride);
			conv_spec(specs, &count, name, size, hidden, hidden, 3,
				  stride, true, true);
			size = (size + 2 - 3) / stride + 1;
			snprintf(name, sizeof(name), "b%d.%d project", b, i);
			conv_spec(specs, &count, name, size, hidden, out, 1, 1,
				  false, false);
			if (stride == 1 && channels == out) {
				snprintf(name, sizeof(name), "b%d.%d add", b, i);
				s = next(specs, &count, name);
				s->kind = ADD;
				s->size = size;
				s->cout = out;
			}
			channels = out;
		}
	conv_spec(specs, &count, "head 1x1", size, channels, 1280, 1, 1,
		  false, true);
	s = next(specs, &count, "global avg pool");
	s->kind = POOL;
	s->size = size;
	s->cin = 1280;
	s = next(specs, &count, "fc 1280->1000");
	s->kind = FC;
	s->cin = 1280;
	s->cout = 1000;
	return count;
}

/* Best host time of @runs runs of the layer, ns; 0 on failure. */
static uint64_t time_layer(const struct layer_engine *e,
			   struct guest_model *m, const struct layer *l,
			   unsigned int runs)
{
	uint64_t best = 0;

	for (unsigned int r = 0; r < runs; r++) {
		uint64_t start = now_ns(), took;

		if (layer_run(e, l, &m->job, &m->ram) != ENPU_JOB_STATUS_OK)
			return 0;
		took = now_ns() - start;
		if (!best || took < best)
			best = took;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "oracle", no_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "layer", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	static struct spec specs[128];
	struct bench_layer layer;
	struct layer_engine fast, oracle;
	struct guest_model m;
	unsigned int runs = 5, count, worst_at = 0, threads = 1;
	uint32_t khz = opp_khz(VNPU_OPP_COUNT - 1);
	double conv_host = 0, conv_device = 0, all_host = 0, all_device = 0;
	double worst = 0, oracle_host = 0;
	bool with_oracle = false;
	const char *only = NULL;
	int opt;

	/*
	 * Every layer allocates host scratch of up to a few MiB; glibc would
	 * mmap each such block afresh and fault in every page, each time.
	 * Keep freed memory in the heap instead.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'r')
			runs = (unsigned int)atoi(optarg);
		else if (opt == 'o')
			with_oracle = true;
		else if (opt == 't' && atoi(optarg) > 0)
			threads = (unsigned int)atoi(optarg);
		else if (opt == 'l')
			only = optarg;
		else
			return 2;
	}
	if (runs < 1)
		runs = 1;
	if (guest_model_init(&m, RAM_SIZE, SG_BYTES) ||
	    layer_engine_init(&fast, LAYER_MODE_FAST, threads) ||
	    layer_engine_init(&oracle, LAYER_MODE_ORACLE, 1)) {
		fprintf(stderr, "vnpu-layer-bench: setup failed\n");
		return 1;
	}
	printf("vnpu layer execution on the host vs modeled device time\n"
	       "device: %u MACs/cycle, 32 bytes/cycle, %u MHz (top OPP), "
	       "--speed 1; host: FAST mode (%s kernels), %u thread%s, best of "
	       "%u%s\n\n", VNPU_MACS_PER_CYCLE, khz / 1000,
	       enpu_cpu_isa_name(enpu_cpu_context_isa(fast.cpu)), threads,
	       threads == 1 ? "" : "s", runs,
	       with_oracle ? "; ORACLE once" : "");
	printf("%-18s %-16s %10s %10s %10s %8s%s\n", "layer", "output",
	       "MACs", "device us", "host us", "host/dev",
	       with_oracle ? "  oracle us" : "");
	guest_model_reset(&m, 1);
	count = build(specs);
	for (unsigned int i = 0; i < count; i++) {
		struct bench_layer *b = &layer;
		const uint8_t *cmd = (const uint8_t *)&b->cmd;
		struct layer_cost cost;
		struct layer l;
		uint64_t host, slow = 0;
		double device_us, host_us, ratio;
		char shape[32];

		if (only && !strstr(specs[i].name, only))
			continue;
		instantiate(&m, &specs[i], b);
		if (layer_check(&m.job, cmd, b->size, &(uint32_t){ 0 }) != ENPU_JOB_STATUS_OK) {
			fprintf(stderr, "%s: the device refuses the command\n",
				specs[i].name);
			return 1;
		}
		layer_decode(cmd, &l);
		layer_cost(&l, &cost);
		host = time_layer(&fast, &m, &l, runs);
		if (with_oracle)
			slow = time_layer(&oracle, &m, &l, 1);
		if (!host || (with_oracle && !slow)) {
			fprintf(stderr, "%s: the layer failed\n",
				specs[i].name);
			return 1;
		}
		device_us = (double)cost.cycles * 1000.0 / khz;
		host_us = (double)host / 1000.0;
		ratio = host_us / device_us;
		snprintf(shape, sizeof(shape), "%ux%ux%u", l.out.h, l.out.w,
			 l.out.c);
		printf("%-18s %-16s %10llu %10.1f %10.1f %8.2f", specs[i].name,
		       shape, (unsigned long long)cost.macs, device_us, host_us,
		       ratio);
		if (with_oracle)
			printf(" %11.1f", (double)slow / 1000.0);
		printf("\n");
		all_host += host_us;
		all_device += device_us;
		oracle_host += (double)slow / 1000.0;
		if (specs[i].kind == CONV) {
			conv_host += host_us;
			conv_device += device_us;
			if (ratio > worst) {
				worst = ratio;
				worst_at = i;
			}
		}
	}
	printf("\nconvolutions: host %.0f us, device %.0f us, ratio %.2f; "
	       "worst conv %.2f (%s)\n", conv_host, conv_device,
	       conv_host / conv_device, worst, specs[worst_at].name);
	printf("whole network: host %.0f us, device %.0f us, ratio %.2f",
	       all_host, all_device, all_host / all_device);
	if (with_oracle)
		printf("; oracle %.0f us (%.0fx the FAST mode)", oracle_host,
		       oracle_host / all_host);
	printf("\n");
	layer_engine_destroy(&fast);
	layer_engine_destroy(&oracle);
	guest_model_destroy(&m);
	return 0;
}
