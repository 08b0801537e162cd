// SPDX-License-Identifier: GPL-2.0
/*
 * Interface 1.2 seen from a driver: the network-layer commands
 * (docs/hw/vnpu.md "Interface 1.2", uapi/enpu_cmd.h "Network layers").
 *
 * Every layer runs on random shapes and quantization parameters and must
 * match the CPU reference kernels of userspace/runtime/cpu bit for bit
 * (the device has its own implementation; the reference is the spec).
 * Tensors live in BOs cut into many small segments of odd lengths, listed
 * out of address order, so every operand straddles segment boundaries.
 * As in vnpu_dma_test.c, each job is checked against a model of all of
 * guest RAM: the output's channels must hold the reference's bytes and
 * nothing else may change (the gaps of a strided output included).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "enpu_cpu.h"
#include "enpu_cmd_rule.h"
#include "vnpu_check.h"
#include "vnpu_rig.h"

#define L_TABLE		0x800000u
#define L_SG		0x810000u
#define L_SG_END	0x880000u
#define L_STREAM	0x880000u
#define L_ARENA		0x900000u
#define L_ARENA_END	0xf00000u
#define L_MAX_BOS	8
#define L_MAX_SEGS	40000

struct seg {
	uint64_t addr, len;
};

struct bo {
	uint32_t access;
	uint64_t size;
	uint32_t first, nseg;	/* into layout.segs */
	uint64_t sg_addr;
};

struct layout {
	struct bo bo[L_MAX_BOS];
	uint32_t count;
	uint64_t arena, sg;
	uint32_t nsegs;
	struct seg segs[L_MAX_SEGS];
};

struct rng {
	uint64_t s;
};

/* Static: big, and a test cannot run without them. */
static struct layout lay;
static uint8_t model[RIG_RAM_SIZE];

static uint32_t rnd(struct rng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return (uint32_t)(g->s >> 16);
}

/* Uniform in lo..hi. */
static uint32_t pick(struct rng *g, uint32_t lo, uint32_t hi)
{
	return lo + rnd(g) % (hi - lo + 1);
}

static double pick_log(struct rng *g, double lo, double hi)
{
	double t = (double)rnd(g) / 4294967296.0 * 65536.0;

	t = t - floor(t);
	return exp(log(lo) + (log(hi) - log(lo)) * t);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t rd64(struct rig *r, uint32_t lo_offset)
{
	uint32_t hi, lo;

	do {
		hi = rd(r, lo_offset + 4);
		lo = rd(r, lo_offset);
	} while (rd(r, lo_offset + 4) != hi);
	return (uint64_t)hi << 32 | lo;
}

static void layout_reset(struct rig *r, struct rng *g)
{
	memset(&lay, 0, sizeof(lay));
	lay.arena = L_ARENA;
	lay.sg = L_SG;
	/* Fresh random bytes everywhere a BO may land. */
	for (uint64_t i = L_ARENA; i < L_ARENA_END; i += 4) {
		uint32_t v = rnd(g);

		memcpy(r->ram + i, &v, 4);
	}
}

/*
 * A BO of @size bytes in segments of 1..@max_seg bytes at increasing
 * addresses with small gaps, listed in shuffled order. Returns its index.
 */
static uint32_t bo_new(struct rig *r, struct rng *g, uint32_t access,
		       uint64_t size, uint32_t max_seg)
{
	struct bo *bo = &lay.bo[lay.count];
	uint64_t left = size ? size : 1;

	bo->access = access;
	bo->size = size;
	bo->first = lay.nsegs;
	while (left) {
		uint64_t len = pick(g, 1, max_seg);
		struct seg *s = &lay.segs[lay.nsegs++];

		if (len > left)
			len = left;
		lay.arena += pick(g, 0, 40);
		s->addr = lay.arena;
		s->len = len;
		lay.arena += len;
		left -= len;
		if (lay.arena > L_ARENA_END || lay.nsegs >= L_MAX_SEGS)
			abort();	/* a test asked for too much */
	}
	bo->nseg = lay.nsegs - bo->first;
	for (uint32_t i = bo->nseg; i > 1; i--) {
		uint32_t j = rnd(g) % i;
		struct seg t = lay.segs[bo->first + i - 1];

		lay.segs[bo->first + i - 1] = lay.segs[bo->first + j];
		lay.segs[bo->first + j] = t;
	}
	bo->sg_addr = lay.sg;
	lay.sg += (uint64_t)bo->nseg * ENPU_SG_ENTRY_SIZE;
	if (lay.sg > L_SG_END)
		abort();
	for (uint32_t i = 0; i < bo->nseg; i++) {
		uint8_t *e = r->ram + bo->sg_addr + (uint64_t)i * ENPU_SG_ENTRY_SIZE;

		put64(e + ENPU_SG_ADDR, lay.segs[bo->first + i].addr);
		put64(e + ENPU_SG_LEN, lay.segs[bo->first + i].len);
	}
	{
		uint8_t *t = r->ram + L_TABLE + (uint64_t)lay.count * ENPU_BO_ENTRY_SIZE;

		put64(t + ENPU_BO_SG_ADDR, bo->sg_addr);
		put32(t + ENPU_BO_SG_COUNT, bo->nseg);
		put32(t + ENPU_BO_ACCESS, access);
		put64(t + ENPU_BO_SIZE, size);
		put64(t + ENPU_BO_RESERVED, 0);
	}
	return lay.count++;
}

/* Copies between host memory and a BO as laid out in @mem (guest RAM or
 * the model), walking the segments in list order. */
static void bo_io(uint8_t *mem, uint32_t index, uint64_t offset, void *host,
		  uint64_t len, bool to_bo)
{
	const struct bo *bo = &lay.bo[index];
	uint8_t *h = host;

	for (uint32_t i = 0; i < bo->nseg && len; i++) {
		const struct seg *s = &lay.segs[bo->first + i];
		uint64_t n;

		if (offset >= s->len) {
			offset -= s->len;
			continue;
		}
		n = s->len - offset < len ? s->len - offset : len;
		if (to_bo)
			memcpy(mem + s->addr + offset, h, n);
		else
			memcpy(h, mem + s->addr + offset, n);
		h += n;
		len -= n;
		offset = 0;
	}
	if (len)
		abort();
}

static void check_ram_matches_model(struct rig *r, const char *what)
{
	uint64_t i;

	if (!memcmp(model, r->ram, RIG_RAM_SIZE))
		return;
	for (i = 0; i < RIG_RAM_SIZE && model[i] == r->ram[i]; i++)
		;
	CHECK(0, "%s: guest RAM differs first at %#llx: %#x, expected %#x",
	      what, (unsigned long long)i, r->ram[i], model[i]);
}

static bool run_job(struct rig *r, uint32_t len, uint64_t tag, struct cqe *c)
{
	submit_with_bos(r, 0, L_STREAM, len, tag, L_TABLE, lay.count);
	if (!wait_cqe(r, c, 20000))
		return false;
	return c->tag == tag;
}

/* ---- tensors ---- */

struct tensor {
	uint32_t bo;
	uint64_t offset;
	uint32_t n, h, w, c, ps;
	uint8_t dtype;
	int32_t zp;
};

static uint32_t esize(uint8_t dtype)
{
	return dtype == ENPU_DTYPE_INT32 ? 4 : 1;
}

static uint64_t pixels(const struct tensor *t)
{
	return (uint64_t)t->n * t->h * t->w;
}

static uint64_t extent(const struct tensor *t)
{
	return ((pixels(t) - 1) * t->ps + t->c) * esize(t->dtype);
}

static enum enpu_cpu_dtype cpu_type(uint8_t dtype)
{
	return dtype == ENPU_DTYPE_UINT8 ? ENPU_CPU_UINT8 :
	       dtype == ENPU_DTYPE_INT8 ? ENPU_CPU_INT8 : ENPU_CPU_INT32;
}

static struct enpu_tensor_desc desc(const struct tensor *t, bool stride_zero)
{
	return (struct enpu_tensor_desc){
		.buf = { .bo_index = t->bo, .offset = t->offset },
		.batch = t->n, .height = t->h, .width = t->w, .channels = t->c,
		.pixel_stride = stride_zero && t->ps == t->c ? 0 : t->ps,
		.dtype = t->dtype, .zero_point = t->zp,
	};
}

static int32_t random_zp(struct rng *g, uint8_t dtype)
{
	if (dtype == ENPU_DTYPE_INT32)
		return 0;
	return dtype == ENPU_DTYPE_UINT8 ? (int32_t)pick(g, 0, 255) :
					   (int32_t)pick(g, 0, 255) - 128;
}

static void type_range(uint8_t dtype, int32_t *lo, int32_t *hi)
{
	*lo = dtype == ENPU_DTYPE_INT8 ? -128 : 0;
	*hi = dtype == ENPU_DTYPE_INT8 ? 127 : 255;
}

/* A random pixel stride: often dense, sometimes a channel slice. */
static uint32_t random_ps(struct rng *g, uint32_t c)
{
	return pick(g, 0, 2) ? c : c + pick(g, 1, 9);
}

/* Reads the tensor's whole extent (gaps included) from guest RAM. */
static uint8_t *extent_read(struct rig *r, const struct tensor *t)
{
	uint8_t *p = malloc(extent(t) + 4);

	bo_io(r->ram, t->bo, t->offset, p, extent(t), false);
	return p;
}

/* Random requantization: per-tensor or per-channel, into @m/@s. */
static void random_requant(struct rng *g, uint32_t channels, int per_channel,
			   int32_t *m, int32_t *s)
{
	for (uint32_t i = 0; i < (per_channel ? channels : 1); i++)
		if (enpu_requant_from_scale(pick_log(g, 1e-5, 0.9), &m[i], &s[i]))
			abort();
}

static void random_clamp(struct rng *g, uint8_t dtype, int32_t *min,
			 int32_t *max)
{
	type_range(dtype, min, max);
	if (pick(g, 0, 2) == 0) {
		int32_t a = *min + (int32_t)pick(g, 0, 100);
		int32_t b = *max - (int32_t)pick(g, 0, 100);

		*min = a < b ? a : b;
		*max = a < b ? b : a;
	}
}

/* ---- CONV2D / DEPTHWISE_CONV2D ---- */

struct conv_case {
	struct tensor in, out;
	struct enpu_cpu_conv_shape shape;
	int8_t *weights;
	int32_t *bias;
	int32_t m[256], s[256];
	int per_channel;
	int32_t min, max;
	uint32_t wbo, bbo, tbo;
	uint64_t woff, boff, toff;
};

static void conv_random(struct rig *r, struct rng *g, struct conv_case *k,
			bool depthwise)
{
	struct enpu_cpu_conv_shape *s = &k->shape;
	uint32_t groups, cin_g, cout_g, span_h, span_w, data_bo;
	size_t oh, ow;
	uint64_t wcount, at = 0, in_off, out_off;
	uint32_t io_bo;

	memset(k, 0, sizeof(*k));
	groups = depthwise ? pick(g, 1, 24) : (pick(g, 0, 2) ? 1 : pick(g, 2, 4));
	cin_g = depthwise ? 1 : pick(g, 1, 12);
	cout_g = depthwise ? 1 : pick(g, 1, 10);
	s->groups = groups;
	s->input_channels = (size_t)groups * cin_g;
	s->output_channels = (size_t)groups * cout_g;
	s->kernel_height = pick(g, 1, 5);
	s->kernel_width = pick(g, 1, 5);
	s->stride_height = pick(g, 1, 3);
	s->stride_width = pick(g, 1, 3);
	s->dilation_height = pick(g, 0, 3) ? 1 : pick(g, 2, 3);
	s->dilation_width = pick(g, 0, 3) ? 1 : pick(g, 2, 3);
	s->pad_top = pick(g, 0, 3);
	s->pad_left = pick(g, 0, 3);
	s->pad_bottom = pick(g, 0, 3);
	s->pad_right = pick(g, 0, 3);
	span_h = (uint32_t)(s->dilation_height * (s->kernel_height - 1) + 1);
	span_w = (uint32_t)(s->dilation_width * (s->kernel_width - 1) + 1);

	k->in.n = pick(g, 1, 2);
	k->in.h = pick(g, 1, 4) + (span_h > s->pad_top + s->pad_bottom ?
				   span_h - (uint32_t)(s->pad_top + s->pad_bottom) : 0);
	k->in.w = pick(g, 1, 4) + (span_w > s->pad_left + s->pad_right ?
				   span_w - (uint32_t)(s->pad_left + s->pad_right) : 0);
	k->in.c = (uint32_t)s->input_channels;
	k->in.ps = random_ps(g, k->in.c);
	k->in.dtype = (uint8_t)pick(g, 0, 1);
	k->in.zp = random_zp(g, k->in.dtype);
	oh = (k->in.h + s->pad_top + s->pad_bottom - span_h) / s->stride_height + 1;
	ow = (k->in.w + s->pad_left + s->pad_right - span_w) / s->stride_width + 1;
	k->out.n = k->in.n;
	k->out.h = (uint32_t)oh;
	k->out.w = (uint32_t)ow;
	k->out.c = (uint32_t)s->output_channels;
	k->out.ps = random_ps(g, k->out.c);
	k->out.dtype = (uint8_t)pick(g, 0, 2);
	k->out.zp = random_zp(g, k->out.dtype);
	k->per_channel = k->out.dtype != ENPU_DTYPE_INT32 && pick(g, 0, 1);
	if (k->out.dtype != ENPU_DTYPE_INT32) {
		random_requant(g, k->out.c, k->per_channel, k->m, k->s);
		random_clamp(g, k->out.dtype, &k->min, &k->max);
	}

	wcount = (uint64_t)k->out.c * cin_g * s->kernel_height * s->kernel_width;
	k->weights = malloc(wcount);
	for (uint64_t i = 0; i < wcount; i++)
		k->weights[i] = (int8_t)pick(g, 0, 255);
	if (pick(g, 0, 3)) {
		k->bias = malloc(k->out.c * 4);
		for (uint32_t i = 0; i < k->out.c; i++)
			k->bias[i] = (int32_t)rnd(g) % 200000;
	}

	/* Input and output share one RW BO at odd offsets; weights, bias and
	 * the table share a read-only one. */
	in_off = pick(g, 0, 50);
	out_off = in_off + extent(&k->in) + pick(g, 0, 50);
	io_bo = bo_new(r, g, ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE,
		       out_off + (uint64_t)((pixels(&k->out) - 1) * k->out.ps +
					   k->out.c) * esize(k->out.dtype) + 7,
		       pick(g, 0, 1) ? 97 : 1500);
	k->in.bo = k->out.bo = io_bo;
	k->in.offset = in_off;
	k->out.offset = out_off;
	data_bo = bo_new(r, g, ENPU_BO_ACCESS_READ, wcount + 4 * 256 + 8 * 256 + 64,
			 pick(g, 0, 1) ? 61 : 700);
	k->wbo = k->bbo = k->tbo = data_bo;
	k->woff = pick(g, 0, 9);
	at = k->woff + wcount;
	bo_io(r->ram, data_bo, k->woff, k->weights, wcount, true);
	k->boff = at + pick(g, 0, 9);
	if (k->bias)
		bo_io(r->ram, data_bo, k->boff, k->bias, k->out.c * 4, true);
	k->toff = k->boff + k->out.c * 4 + pick(g, 0, 9);
	if (k->per_channel)
		for (uint32_t i = 0; i < k->out.c; i++) {
			struct enpu_requant_param p = { k->m[i], k->s[i] };

			bo_io(r->ram, data_bo, k->toff + i * 8, &p, 8, true);
		}
	(void)at;
}

static uint32_t conv_cmd(uint8_t *p, const struct conv_case *k, bool depthwise)
{
	const struct enpu_cpu_conv_shape *s = &k->shape;
	struct enpu_cmd_conv2d c = {
		.hdr = { .opcode = depthwise ? ENPU_CMD_DEPTHWISE_CONV2D :
					       ENPU_CMD_CONV2D,
			 .size = sizeof(c) },
		.input = desc(&k->in, true),
		.output = desc(&k->out, false),
		.weights = { .bo_index = k->wbo, .offset = k->woff },
		.bias = { .bo_index = k->bias ? k->bbo : ENPU_BUF_NONE,
			  .offset = k->bias ? k->boff : 0 },
		.kernel_height = (uint32_t)s->kernel_height,
		.kernel_width = (uint32_t)s->kernel_width,
		.stride_height = (uint32_t)s->stride_height,
		.stride_width = (uint32_t)s->stride_width,
		.dilation_height = (uint32_t)s->dilation_height,
		.dilation_width = (uint32_t)s->dilation_width,
		.pad_top = (uint32_t)s->pad_top,
		.pad_left = (uint32_t)s->pad_left,
		.pad_bottom = (uint32_t)s->pad_bottom,
		.pad_right = (uint32_t)s->pad_right,
		.groups = (uint32_t)s->groups,
	};

	c.requant.per_channel.bo_index = ENPU_BUF_NONE;
	if (k->out.dtype != ENPU_DTYPE_INT32) {
		c.requant.min = k->min;
		c.requant.max = k->max;
		if (k->per_channel) {
			c.requant.per_channel.bo_index = k->tbo;
			c.requant.per_channel.offset = k->toff;
		} else {
			c.requant.multiplier = k->m[0];
			c.requant.shift = k->s[0];
		}
	}
	memcpy(p, &c, sizeof(c));
	return sizeof(c);
}

/* Applies the reference to the model's copy of the output extent. */
static bool conv_expect(struct rig *r, enpu_cpu_context *ctx,
			const struct conv_case *k)
{
	uint8_t *in = extent_read(r, &k->in), *out;
	struct enpu_cpu_requant rq = {
		.multiplier = k->m, .shift = k->s, .per_channel = k->per_channel,
		.zero_point = k->out.zp, .min = k->min, .max = k->max,
	};
	struct enpu_cpu_conv_args a = {
		.batch = k->in.n, .input_height = k->in.h,
		.input_width = k->in.w, .input = in,
		.input_pixel_stride = k->in.ps,
		.input_type = cpu_type(k->in.dtype),
		.input_zero_point = k->in.zp,
		.output_pixel_stride = k->out.ps,
		.output_type = cpu_type(k->out.dtype),
		.requant = k->out.dtype == ENPU_DTYPE_INT32 ? NULL : &rq,
	};
	int err;

	out = malloc(extent(&k->out) + 4);
	bo_io(model, k->out.bo, k->out.offset, out, extent(&k->out), false);
	a.output = out;
	err = enpu_cpu_conv2d_reference(ctx, &a, &k->shape, k->weights, k->bias);
	CHECK(!err, "conv reference: %s", enpu_cpu_context_error(ctx));
	bo_io(model, k->out.bo, k->out.offset, out, extent(&k->out), true);
	free(in);
	free(out);
	return !err;
}

static void conv_free(struct conv_case *k)
{
	free(k->weights);
	free(k->bias);
}

static enpu_cpu_context *cpu_context(void)
{
	enpu_cpu_context *ctx = NULL;

	if (enpu_cpu_context_create(1, &ctx))
		return NULL;
	return ctx;
}

static void conv_layers_match_reference(struct rig *r, bool depthwise,
					unsigned int seed, unsigned int rounds)
{
	enpu_cpu_context *ctx = cpu_context();
	struct rng g = { 0x9e3779b97f4a7c15ull ^ seed };
	static struct conv_case k;
	uint64_t macs0, bytes0;
	struct cqe c;
	char what[96];

	CHECK(ctx, "CPU context");
	if (!ctx)
		return;
	for (unsigned int i = 0; i < rounds; i++) {
		uint32_t len;

		layout_reset(r, &g);
		conv_random(r, &g, &k, depthwise);
		len = conv_cmd(r->ram + L_STREAM, &k, depthwise);
		memcpy(model, r->ram, RIG_RAM_SIZE);
		snprintf(what, sizeof(what),
			 "%s %u: %ux%ux%ux%u k%zux%zu s%zu,%zu d%zu,%zu g%zu -> %u type %u%s",
			 depthwise ? "depthwise" : "conv", i, k.in.n, k.in.h,
			 k.in.w, k.in.c, k.shape.kernel_height,
			 k.shape.kernel_width, k.shape.stride_height,
			 k.shape.stride_width, k.shape.dilation_height,
			 k.shape.dilation_width, k.shape.groups, k.out.c,
			 k.out.dtype, k.per_channel ? " per-channel" : "");
		if (conv_expect(r, ctx, &k)) {
			macs0 = rd64(r, ENPU_REG_PERF_MACS_LO);
			bytes0 = rd64(r, ENPU_REG_PERF_DMA_BYTES_LO);
			CHECK(run_job(r, len, 0x3000 + i, &c), "%s: no completion", what);
			CHECK(c.status == ENPU_JOB_STATUS_OK, "%s: status %u info %#x",
			      what, c.status, c.info);
			check_ram_matches_model(r, what);
			{
				uint64_t taps = k.shape.kernel_height *
						k.shape.kernel_width *
						(k.in.c / k.shape.groups);
				uint64_t macs = pixels(&k.out) * k.out.c * taps;
				uint64_t bytes = pixels(&k.in) * k.in.c +
					pixels(&k.out) * k.out.c * esize(k.out.dtype) +
					taps * k.out.c + (k.bias ? 4 * k.out.c : 0) +
					(k.per_channel ? 8 * k.out.c : 0);
				uint64_t cyc = (macs + 1023) / 1024 > (bytes + 31) / 32 ?
					       (macs + 1023) / 1024 : (bytes + 31) / 32;

				CHECK(c.cycles == cyc, "%s: cycles %llu, want %llu",
				      what, (unsigned long long)c.cycles,
				      (unsigned long long)cyc);
				CHECK(rd64(r, ENPU_REG_PERF_MACS_LO) - macs0 == macs,
				      "%s: PERF_MACS moved by %llu, want %llu", what,
				      (unsigned long long)(rd64(r, ENPU_REG_PERF_MACS_LO) - macs0),
				      (unsigned long long)macs);
				CHECK(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes0 ==
				      bytes + len, "%s: PERF_DMA_BYTES moved by %llu, want %llu",
				      what,
				      (unsigned long long)(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes0),
				      (unsigned long long)(bytes + len));
			}
		}
		conv_free(&k);
	}
	enpu_cpu_context_destroy(ctx);
}

static void conv2d_matches_reference_on_random_shapes(struct rig *r)
{
	conv_layers_match_reference(r, false, 1, 40);
}

static void depthwise_conv2d_matches_reference_on_random_shapes(struct rig *r)
{
	conv_layers_match_reference(r, true, 2, 30);
}

/* ---- FULLY_CONNECTED ---- */

static void fully_connected_matches_gemm_reference(struct rig *r)
{
	enpu_cpu_context *ctx = cpu_context();
	struct rng g = { 0x1234567ull };
	struct cqe c;
	char what[80];

	CHECK(ctx, "CPU context");
	for (unsigned int i = 0; ctx && i < 30; i++) {
		struct tensor in = { 0 }, out = { 0 };
		uint32_t rows = pick(&g, 1, 9), k = pick(&g, 1, i < 3 ? 2000 : 70);
		uint32_t n = pick(&g, 1, 40), len, io, data;
		int8_t *w = malloc((size_t)n * k), *b = malloc((size_t)n * k);
		int32_t bias[40], m[40], s[40], min = 0, max = 0;
		int per_channel = pick(&g, 0, 1), has_bias = pick(&g, 0, 3) != 0;
		uint8_t *a, *o;
		struct enpu_cpu_requant rq;
		struct enpu_cpu_gemm_args args;
		struct enpu_cmd_fc cmd;

		layout_reset(r, &g);
		in = (struct tensor){ .n = 1, .h = 1, .w = rows, .c = k,
				      .ps = random_ps(&g, k),
				      .dtype = (uint8_t)pick(&g, 0, 1) };
		in.zp = random_zp(&g, in.dtype);
		out = (struct tensor){ .n = 1, .h = 1, .w = rows, .c = n,
				       .ps = random_ps(&g, n),
				       .dtype = (uint8_t)pick(&g, 0, 2) };
		out.zp = random_zp(&g, out.dtype);
		if (out.dtype == ENPU_DTYPE_INT32)
			per_channel = 0;
		else {
			random_requant(&g, n, per_channel, m, s);
			random_clamp(&g, out.dtype, &min, &max);
		}
		for (uint32_t j = 0; j < n * k; j++)
			w[j] = (int8_t)pick(&g, 0, 255);
		for (uint32_t j = 0; j < n; j++)
			bias[j] = (int32_t)rnd(&g) % 100000;
		/* B[k][n] for the reference: the device's [N][K] transposed. */
		for (uint32_t x = 0; x < n; x++)
			for (uint32_t y = 0; y < k; y++)
				b[(size_t)y * n + x] = w[(size_t)x * k + y];
		io = bo_new(r, &g, ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE,
			    extent(&in) + extent(&out) + 40, 300);
		in.bo = out.bo = io;
		in.offset = pick(&g, 0, 19);
		out.offset = in.offset + extent(&in) + pick(&g, 0, 19);
		data = bo_new(r, &g, ENPU_BO_ACCESS_READ, (uint64_t)n * k + 40 * 12 + 8,
			      pick(&g, 33, 900));
		bo_io(r->ram, data, 3, w, (uint64_t)n * k, true);
		bo_io(r->ram, data, 3 + (uint64_t)n * k, bias, 4 * n, true);
		for (uint32_t j = 0; per_channel && j < n; j++) {
			struct enpu_requant_param p = { m[j], s[j] };

			bo_io(r->ram, data, 3 + (uint64_t)n * k + 4 * n + 8 * j, &p, 8, true);
		}
		memset(&cmd, 0, sizeof(cmd));
		cmd.hdr = (struct enpu_cmd_header){ ENPU_CMD_FULLY_CONNECTED, 0,
						    sizeof(cmd) };
		cmd.input = desc(&in, true);
		cmd.output = desc(&out, false);
		cmd.weights = (struct enpu_buf_ref){ data, 0, 3 };
		cmd.bias = has_bias ? (struct enpu_buf_ref){ data, 0, 3 + (uint64_t)n * k } :
				      (struct enpu_buf_ref){ ENPU_BUF_NONE, 0, 0 };
		cmd.requant.per_channel.bo_index = per_channel ? data : ENPU_BUF_NONE;
		cmd.requant.per_channel.offset = per_channel ? 3 + (uint64_t)n * k + 4 * n : 0;
		if (out.dtype != ENPU_DTYPE_INT32) {
			cmd.requant.multiplier = per_channel ? 0 : m[0];
			cmd.requant.shift = per_channel ? 0 : s[0];
			cmd.requant.min = min;
			cmd.requant.max = max;
		}
		memcpy(r->ram + L_STREAM, &cmd, sizeof(cmd));
		len = sizeof(cmd);
		memcpy(model, r->ram, RIG_RAM_SIZE);

		a = extent_read(r, &in);
		o = malloc(extent(&out) + 4);
		bo_io(model, out.bo, out.offset, o, extent(&out), false);
		rq = (struct enpu_cpu_requant){ m, s, per_channel, out.zp, min, max };
		args = (struct enpu_cpu_gemm_args){
			.m = rows, .a = a, .lda = in.ps, .a_type = cpu_type(in.dtype),
			.a_zero_point = in.zp, .c = o, .ldc = out.ps,
			.c_type = cpu_type(out.dtype),
			.requant = out.dtype == ENPU_DTYPE_INT32 ? NULL : &rq,
		};
		snprintf(what, sizeof(what), "fc %u: %ux%u -> %u type %u%s", i, rows,
			 k, n, out.dtype, per_channel ? " per-channel" : "");
		CHECK(!enpu_cpu_gemm_reference(ctx, &args, b, n,
					       has_bias ? bias : NULL, k, n),
		      "%s: reference: %s", what, enpu_cpu_context_error(ctx));
		bo_io(model, out.bo, out.offset, o, extent(&out), true);
		CHECK(run_job(r, len, 0x3100 + i, &c) && c.status == ENPU_JOB_STATUS_OK,
		      "%s: status %u info %#x", what, c.status, c.info);
		check_ram_matches_model(r, what);
		free(a);
		free(o);
		free(w);
		free(b);
	}
	enpu_cpu_context_destroy(ctx);
}

/* ---- ADD / MUL ---- */

static size_t stride_or_zero(uint32_t dim, size_t stride)
{
	return dim == 1 ? 0 : stride;
}

static void eltwise_matches_reference(struct rig *r, bool add)
{
	enpu_cpu_context *ctx = cpu_context();
	struct rng g = { add ? 0xadd5eedull : 0x3a175eedull };
	struct cqe c;
	char what[96];

	CHECK(ctx, "CPU context");
	for (unsigned int i = 0; ctx && i < 40; i++) {
		uint32_t od[4], ad[4], bd[4], len, io;
		struct enpu_cpu_eltwise_quant q;
		struct enpu_cpu_eltwise_params p;
		struct enpu_cpu_eltwise_args args;
		struct tensor a, b, o;
		struct enpu_cmd_eltwise cmd;
		uint8_t *ab, *bb, *dense, *ob;
		uint8_t dtype = (uint8_t)pick(&g, 0, 1);
		int err;

		layout_reset(r, &g);
		od[0] = pick(&g, 1, 2);
		od[1] = pick(&g, 1, 6);
		od[2] = pick(&g, 1, 6);
		od[3] = pick(&g, 1, 20);
		for (int d = 0; d < 4; d++) {
			ad[d] = pick(&g, 0, 3) ? od[d] : 1;
			bd[d] = pick(&g, 0, 2) ? od[d] : 1;
			if (ad[d] != od[d] && bd[d] != od[d])
				ad[d] = od[d];
		}
		a = (struct tensor){ 0, 0, ad[0], ad[1], ad[2], ad[3],
				     random_ps(&g, ad[3]), dtype, random_zp(&g, dtype) };
		b = (struct tensor){ 0, 0, bd[0], bd[1], bd[2], bd[3],
				     random_ps(&g, bd[3]), dtype, random_zp(&g, dtype) };
		o = (struct tensor){ 0, 0, od[0], od[1], od[2], od[3],
				     random_ps(&g, od[3]), dtype, random_zp(&g, dtype) };
		q = (struct enpu_cpu_eltwise_quant){
			.type = cpu_type(dtype),
			.a_scale = pick_log(&g, 1e-3, 1), .a_zero_point = a.zp,
			.b_scale = pick_log(&g, 1e-3, 1), .b_zero_point = b.zp,
			.output_scale = pick_log(&g, add ? 1e-3 : 1e-4, 1),
			.output_zero_point = o.zp,
		};
		random_clamp(&g, dtype, &q.min, &q.max);
		err = add ? enpu_cpu_add_params(ctx, &q, &p) :
			    enpu_cpu_mul_params(ctx, &q, &p);
		CHECK(!err, "params: %s", enpu_cpu_context_error(ctx));
		if (err)
			continue;
		io = bo_new(r, &g, ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE,
			    extent(&a) + extent(&b) + extent(&o) + 30, pick(&g, 20, 800));
		a.bo = b.bo = o.bo = io;
		a.offset = pick(&g, 0, 9);
		b.offset = a.offset + extent(&a) + pick(&g, 0, 9);
		o.offset = b.offset + extent(&b) + pick(&g, 0, 9);
		memset(&cmd, 0, sizeof(cmd));
		cmd.hdr = (struct enpu_cmd_header){ add ? ENPU_CMD_ADD : ENPU_CMD_MUL,
						    0, sizeof(cmd) };
		cmd.a = desc(&a, true);
		cmd.b = desc(&b, true);
		cmd.output = desc(&o, true);
		cmd.a_multiplier = p.a_multiplier;
		cmd.b_multiplier = p.b_multiplier;
		cmd.add_shift = p.add_shift;
		cmd.left_shift = p.left_shift;
		cmd.multiplier = p.multiplier;
		cmd.shift = p.shift;
		cmd.min = p.min;
		cmd.max = p.max;
		memcpy(r->ram + L_STREAM, &cmd, sizeof(cmd));
		len = sizeof(cmd);
		memcpy(model, r->ram, RIG_RAM_SIZE);

		ab = extent_read(r, &a);
		bb = extent_read(r, &b);
		dense = malloc(pixels(&o) * o.c);
		args = (struct enpu_cpu_eltwise_args){ .dims = 4, .a = ab, .b = bb,
						       .output = dense, .params = &p };
		for (int d = 0; d < 4; d++)
			args.shape[d] = od[d];
		args.a_strides[3] = stride_or_zero(ad[3], 1);
		args.a_strides[2] = stride_or_zero(ad[2], a.ps);
		args.a_strides[1] = stride_or_zero(ad[1], (size_t)a.ps * ad[2]);
		args.a_strides[0] = stride_or_zero(ad[0], (size_t)a.ps * ad[2] * ad[1]);
		args.b_strides[3] = stride_or_zero(bd[3], 1);
		args.b_strides[2] = stride_or_zero(bd[2], b.ps);
		args.b_strides[1] = stride_or_zero(bd[1], (size_t)b.ps * bd[2]);
		args.b_strides[0] = stride_or_zero(bd[0], (size_t)b.ps * bd[2] * bd[1]);
		err = add ? enpu_cpu_add_reference(ctx, &args) :
			    enpu_cpu_mul_reference(ctx, &args);
		CHECK(!err, "reference: %s", enpu_cpu_context_error(ctx));
		ob = malloc(extent(&o));
		bo_io(model, o.bo, o.offset, ob, extent(&o), false);
		for (uint64_t px = 0; px < pixels(&o); px++)
			memcpy(ob + px * o.ps, dense + px * o.c, o.c);
		bo_io(model, o.bo, o.offset, ob, extent(&o), true);
		snprintf(what, sizeof(what), "%s %u: a %ux%ux%ux%u b %ux%ux%ux%u -> %ux%ux%ux%u",
			 add ? "add" : "mul", i, ad[0], ad[1], ad[2], ad[3], bd[0],
			 bd[1], bd[2], bd[3], od[0], od[1], od[2], od[3]);
		CHECK(run_job(r, len, 0x3200 + i, &c) && c.status == ENPU_JOB_STATUS_OK &&
		      c.cycles == (pixels(&a) * a.c + pixels(&b) * b.c +
				   pixels(&o) * o.c + 31) / 32,
		      "%s: status %u info %#x cycles %llu", what, c.status, c.info,
		      (unsigned long long)c.cycles);
		check_ram_matches_model(r, what);
		free(ab);
		free(bb);
		free(dense);
		free(ob);
	}
	enpu_cpu_context_destroy(ctx);
}

static void add_matches_reference_with_broadcasting(struct rig *r)
{
	eltwise_matches_reference(r, true);
}

static void mul_matches_reference_with_broadcasting(struct rig *r)
{
	eltwise_matches_reference(r, false);
}

/* ---- MAX_POOL / AVG_POOL ---- */

/* The CPU kernels' own rule for one divisor (enpu_cpu.h, average pooling). */
static int pool_param(double scale, uint32_t count, struct enpu_pool_param *p)
{
	p->reserved = 0;
	return enpu_cpu_average_pool_params(scale, count, &p->left_shift,
					    &p->multiplier, &p->shift);
}

static void pool_matches_reference(struct rig *r, bool average, bool table)
{
	enpu_cpu_context *ctx = cpu_context();
	struct rng g = { average ? (table ? 0xa1ull : 0xa2ull) : 0xa3ull };
	struct cqe c;
	char what[128];

	CHECK(ctx, "CPU context");
	for (unsigned int i = 0; ctx && i < 40; i++) {
		struct enpu_cpu_pool_shape s = { 0 };
		struct enpu_cpu_pool_args args;
		struct enpu_cmd_pool cmd;
		struct tensor in, out;
		struct enpu_pool_param uniform = { 0 };
		size_t oh, ow;
		uint32_t io, pbo = ENPU_BUF_NONE, len, taps;
		uint8_t *ib, *ob, dtype = (uint8_t)pick(&g, 0, 1);
		double scale = pick_log(&g, 0.05, 4);
		bool global = average && !table && i % 4 == 0;
		int err;

		layout_reset(r, &g);
		s.kernel_height = pick(&g, 1, 4);
		s.kernel_width = pick(&g, 1, 4);
		s.stride_height = pick(&g, 1, 3);
		s.stride_width = pick(&g, 1, 3);
		s.dilation_height = pick(&g, 0, 3) ? 1 : 2;
		s.dilation_width = pick(&g, 0, 3) ? 1 : 2;
		if (!average || table) {
			s.pad_top = pick(&g, 0, (uint32_t)s.kernel_height - 1);
			s.pad_left = pick(&g, 0, (uint32_t)s.kernel_width - 1);
			s.pad_bottom = pick(&g, 0, (uint32_t)s.kernel_height - 1);
			s.pad_right = pick(&g, 0, (uint32_t)s.kernel_width - 1);
			s.ceil_mode = (int)pick(&g, 0, 1);
			s.count_include_pad = average && pick(&g, 0, 1);
		}
		in = (struct tensor){ 0, 0, pick(&g, 1, 2), 0, 0, pick(&g, 1, 16), 0,
				      dtype, random_zp(&g, dtype) };
		in.h = (uint32_t)(s.dilation_height * (s.kernel_height - 1) + 1) +
		       pick(&g, 0, 6);
		in.w = (uint32_t)(s.dilation_width * (s.kernel_width - 1) + 1) +
		       pick(&g, 0, 6);
		if (global) {
			s.kernel_height = in.h;
			s.kernel_width = in.w;
			s.dilation_height = s.dilation_width = 1;
		}
		in.ps = random_ps(&g, in.c);
		err = enpu_cpu_pool_output_size(ctx, &s, in.h, in.w, &oh, &ow);
		CHECK(!err, "output size: %s", enpu_cpu_context_error(ctx));
		out = (struct tensor){ 0, 0, in.n, (uint32_t)oh, (uint32_t)ow, in.c,
				       random_ps(&g, in.c), dtype,
				       average ? random_zp(&g, dtype) : in.zp };
		taps = (uint32_t)(s.kernel_height * s.kernel_width);
		io = bo_new(r, &g, ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE,
			    extent(&in) + extent(&out) + 20, pick(&g, 10, 600));
		in.bo = out.bo = io;
		in.offset = pick(&g, 0, 9);
		out.offset = in.offset + extent(&in) + pick(&g, 0, 9);
		memset(&cmd, 0, sizeof(cmd));
		cmd.hdr = (struct enpu_cmd_header){ average ? ENPU_CMD_AVG_POOL :
							      ENPU_CMD_MAX_POOL,
						    0, sizeof(cmd) };
		cmd.input = desc(&in, true);
		cmd.output = desc(&out, false);
		cmd.params.bo_index = ENPU_BUF_NONE;
		cmd.kernel_height = (uint32_t)s.kernel_height;
		cmd.kernel_width = (uint32_t)s.kernel_width;
		cmd.stride_height = (uint32_t)s.stride_height;
		cmd.stride_width = (uint32_t)s.stride_width;
		cmd.dilation_height = (uint32_t)s.dilation_height;
		cmd.dilation_width = (uint32_t)s.dilation_width;
		cmd.pad_top = (uint32_t)s.pad_top;
		cmd.pad_left = (uint32_t)s.pad_left;
		cmd.pad_bottom = (uint32_t)s.pad_bottom;
		cmd.pad_right = (uint32_t)s.pad_right;
		cmd.flags = (s.ceil_mode ? ENPU_POOL_CEIL_MODE : 0) |
			    (s.count_include_pad ? ENPU_POOL_COUNT_INCLUDE_PAD : 0);
		type_range(dtype, &cmd.min, &cmd.max);
		args = (struct enpu_cpu_pool_args){
			.batch = in.n, .input_height = in.h, .input_width = in.w,
			.channels = in.c, .type = cpu_type(dtype),
			.input_pixel_stride = in.ps, .output_pixel_stride = out.ps,
			.input_zero_point = in.zp, .scale = scale,
			.output_zero_point = out.zp, .min = cmd.min, .max = cmd.max,
		};
		if (average) {
			random_clamp(&g, dtype, &cmd.min, &cmd.max);
			args.min = cmd.min;
			args.max = cmd.max;
		}
		if (average && table) {
			pbo = bo_new(r, &g, ENPU_BO_ACCESS_READ, 16 * taps + 5, 23);
			for (uint32_t t = 0; t < taps; t++) {
				struct enpu_pool_param p;

				CHECK(!pool_param(scale, t + 1, &p), "pool param");
				bo_io(r->ram, pbo, 5 + 16 * t, &p, 16, true);
			}
			cmd.params = (struct enpu_buf_ref){ pbo, 0, 5 };
		} else if (average) {
			/* No padding, floor mode: every window has all taps. */
			CHECK(!pool_param(scale, taps, &uniform), "pool param");
			cmd.multiplier = uniform.multiplier;
			cmd.shift = uniform.shift;
			cmd.left_shift = uniform.left_shift;
		}
		memcpy(r->ram + L_STREAM, &cmd, sizeof(cmd));
		len = sizeof(cmd);
		memcpy(model, r->ram, RIG_RAM_SIZE);
		ib = extent_read(r, &in);
		ob = malloc(extent(&out));
		bo_io(model, out.bo, out.offset, ob, extent(&out), false);
		args.input = ib;
		args.output = ob;
		err = average ? enpu_cpu_average_pool_reference(ctx, &s, &args) :
				enpu_cpu_max_pool_reference(ctx, &s, &args);
		CHECK(!err, "reference: %s", enpu_cpu_context_error(ctx));
		bo_io(model, out.bo, out.offset, ob, extent(&out), true);
		snprintf(what, sizeof(what),
			 "%s pool %u: %ux%ux%ux%u k%zux%zu s%zu,%zu d%zu,%zu p%zu,%zu,%zu,%zu%s%s%s",
			 average ? "avg" : "max", i, in.n, in.h, in.w, in.c,
			 s.kernel_height, s.kernel_width, s.stride_height,
			 s.stride_width, s.dilation_height, s.dilation_width,
			 s.pad_top, s.pad_left, s.pad_bottom, s.pad_right,
			 s.ceil_mode ? " ceil" : "",
			 s.count_include_pad ? " include-pad" : "",
			 global ? " global" : "");
		CHECK(run_job(r, len, 0x3300 + i, &c) && c.status == ENPU_JOB_STATUS_OK,
		      "%s: status %u info %#x", what, c.status, c.info);
		check_ram_matches_model(r, what);
		free(ib);
		free(ob);
	}
	enpu_cpu_context_destroy(ctx);
}

static void max_pool_matches_reference(struct rig *r)
{
	pool_matches_reference(r, false, false);
}

static void avg_pool_with_table_matches_reference(struct rig *r)
{
	pool_matches_reference(r, true, true);
}

static void avg_pool_with_one_param_matches_reference(struct rig *r)
{
	pool_matches_reference(r, true, false);
}

/* ---- COPY ---- */

static void copy_moves_elements_between_strides(struct rig *r)
{
	struct rng g = { 0xc0b1ull };
	struct cqe c;
	char what[64];

	for (unsigned int i = 0; i < 20; i++) {
		uint8_t dtype = (uint8_t)pick(&g, 0, 2);
		struct tensor in = { 0, 0, pick(&g, 1, 2), pick(&g, 1, 5),
				     pick(&g, 1, 5), pick(&g, 1, 12), 0, dtype, 0 };
		struct tensor out = in;
		struct enpu_cmd_copy cmd;
		uint32_t es = esize(dtype), ibo, obo;
		uint8_t *ib, *ob;

		layout_reset(r, &g);
		in.zp = out.zp = random_zp(&g, dtype);
		in.ps = random_ps(&g, in.c);
		out.ps = random_ps(&g, out.c);
		ibo = bo_new(r, &g, ENPU_BO_ACCESS_READ, extent(&in) + 9, 50);
		obo = bo_new(r, &g, ENPU_BO_ACCESS_WRITE, extent(&out) + 9, 77);
		in.bo = ibo;
		out.bo = obo;
		in.offset = pick(&g, 0, 9);
		out.offset = pick(&g, 0, 9);
		memset(&cmd, 0, sizeof(cmd));
		cmd.hdr = (struct enpu_cmd_header){ ENPU_CMD_COPY, 0, sizeof(cmd) };
		cmd.input = desc(&in, false);
		cmd.output = desc(&out, true);
		memcpy(r->ram + L_STREAM, &cmd, sizeof(cmd));
		memcpy(model, r->ram, RIG_RAM_SIZE);
		ib = extent_read(r, &in);
		ob = malloc(extent(&out));
		bo_io(model, obo, out.offset, ob, extent(&out), false);
		for (uint64_t px = 0; px < pixels(&in); px++)
			memcpy(ob + px * out.ps * es, ib + px * in.ps * es,
			       (size_t)in.c * es);
		bo_io(model, obo, out.offset, ob, extent(&out), true);
		snprintf(what, sizeof(what), "copy %u type %u ps %u -> %u", i, dtype,
			 in.ps, out.ps);
		CHECK(run_job(r, sizeof(cmd), 0x3400 + i, &c) &&
		      c.status == ENPU_JOB_STATUS_OK &&
		      c.cycles == (2 * pixels(&in) * in.c * es + 31) / 32,
		      "%s: status %u info %#x cycles %llu", what, c.status, c.info,
		      (unsigned long long)c.cycles);
		check_ram_matches_model(r, what);
		free(ib);
		free(ob);
	}
}

/* ---- checks before the first command ---- */

#define V_IN	0	/* read-only: inputs, weights, bias, tables */
#define V_OUT	1	/* read-write */
#define V_WO	2	/* write-only: the good fill */
#define FILL_LEN ((uint32_t)sizeof(struct enpu_cmd_dma_fill))
#define INV ENPU_JOB_STATUS_INVALID
#define DMA ENPU_JOB_STATUS_DMA_FAULT

static void validation_layout(struct rig *r, unsigned int seed)
{
	struct rng g = { 0x77ull + seed };

	layout_reset(r, &g);
	bo_new(r, &g, ENPU_BO_ACCESS_READ, 8192, 300);
	bo_new(r, &g, ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE, 8192, 300);
	bo_new(r, &g, ENPU_BO_ACCESS_WRITE, 4096, 300);
}

static struct enpu_tensor_desc vt(uint32_t bo, uint64_t off, uint32_t n,
				  uint32_t h, uint32_t w, uint32_t c, uint8_t dtype)
{
	return (struct enpu_tensor_desc){ .buf = { bo, 0, off }, .batch = n,
		.height = h, .width = w, .channels = c, .dtype = dtype };
}

/* 1x5x5x4 uint8 -> 3x3 kernel -> 1x3x3x6 uint8; per-tensor requant. */
static struct enpu_cmd_conv2d base_conv(void)
{
	struct enpu_cmd_conv2d c = {
		.hdr = { ENPU_CMD_CONV2D, 0, sizeof(c) },
		.input = vt(V_IN, 0, 1, 5, 5, 4, ENPU_DTYPE_UINT8),
		.output = vt(V_OUT, 0, 1, 3, 3, 6, ENPU_DTYPE_UINT8),
		.weights = { V_IN, 0, 1024 },
		.bias = { V_IN, 0, 2048 },
		.requant = { { ENPU_BUF_NONE, 0, 0 }, 1 << 30, 40, 0, 255 },
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.groups = 1,
	};
	return c;
}

static struct enpu_cmd_fc base_fc(void)
{
	struct enpu_cmd_fc f = {
		.hdr = { ENPU_CMD_FULLY_CONNECTED, 0, sizeof(f) },
		.input = vt(V_IN, 0, 1, 1, 3, 16, ENPU_DTYPE_INT8),
		.output = vt(V_OUT, 0, 1, 1, 3, 8, ENPU_DTYPE_INT8),
		.weights = { V_IN, 0, 1024 },
		.bias = { ENPU_BUF_NONE, 0, 0 },
		.requant = { { ENPU_BUF_NONE, 0, 0 }, 1 << 30, 40, -128, 127 },
	};
	return f;
}

static struct enpu_cmd_eltwise base_add(void)
{
	struct enpu_cmd_eltwise e = {
		.hdr = { ENPU_CMD_ADD, 0, sizeof(e) },
		.a = vt(V_IN, 0, 1, 4, 4, 8, ENPU_DTYPE_UINT8),
		.b = vt(V_IN, 512, 1, 1, 1, 8, ENPU_DTYPE_UINT8),
		.output = vt(V_OUT, 0, 1, 4, 4, 8, ENPU_DTYPE_UINT8),
		.a_multiplier = 1 << 20, .b_multiplier = 1 << 19, .add_shift = 21,
		.min = 0, .max = 255,
	};
	return e;
}

static struct enpu_cmd_eltwise base_mul(void)
{
	struct enpu_cmd_eltwise e = base_add();

	e.hdr.opcode = ENPU_CMD_MUL;
	e.a_multiplier = e.b_multiplier = e.add_shift = 0;
	e.left_shift = 3;
	e.multiplier = 1 << 30;
	e.shift = 40;
	return e;
}

/* 1x6x6x4 int8, 3x3 stride 2 pad 1 -> 3x3. */
static struct enpu_cmd_pool base_pool(bool average)
{
	struct enpu_cmd_pool p = {
		.hdr = { average ? ENPU_CMD_AVG_POOL : ENPU_CMD_MAX_POOL, 0,
			 sizeof(p) },
		.input = vt(V_IN, 0, 1, 6, 6, 4, ENPU_DTYPE_INT8),
		.output = vt(V_OUT, 0, 1, 3, 3, 4, ENPU_DTYPE_INT8),
		.params = { ENPU_BUF_NONE, 0, 0 },
		.kernel_height = 3, .kernel_width = 3, .stride_height = 2,
		.stride_width = 2, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
		.min = -128, .max = 127,
	};
	if (average) {
		p.multiplier = 1 << 30;
		p.shift = 40;
		p.left_shift = 2;
	}
	return p;
}

static struct enpu_cmd_copy base_copy(void)
{
	struct enpu_cmd_copy c = {
		.hdr = { ENPU_CMD_COPY, 0, sizeof(c) },
		.input = vt(V_IN, 0, 1, 2, 3, 5, ENPU_DTYPE_INT32),
		.output = vt(V_OUT, 0, 1, 2, 3, 5, ENPU_DTYPE_INT32),
	};
	c.output.pixel_stride = 9;
	return c;
}

/* "good fill; @cmd": the job fails at offset 40 and nothing runs. */
static void expect_bad(struct rig *r, const char *what, const void *cmd,
		       uint32_t size, uint32_t want, uint32_t want_rule,
		       int line)
{
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.dst = { V_WO, 0, 0 }, .size = 4096, .value = 0x5a,
	};
	struct cqe c;

	memcpy(r->ram + L_STREAM, &fill, sizeof(fill));
	memcpy(r->ram + L_STREAM + FILL_LEN, cmd, size);
	memcpy(model, r->ram, RIG_RAM_SIZE);
	CHECK(run_job(r, FILL_LEN + size, 0x4000 + (uint64_t)line, &c),
	      "%s: no completion", what);
	CHECK(c.status == want && c.info == FILL_LEN && c.cycles == 0,
	      "line %d, %s: status %u info %#x cycles %llu, want status %u info %u",
	      line, what, c.status, c.info, (unsigned long long)c.cycles, want,
	      FILL_LEN);
	check_ram_matches_model(r, what);
	CHECK(rig_job_rule(r, 0x4000 + (uint64_t)line) == want_rule,
	      "line %d, %s: rule %s, want %s", line, what,
	      enpu_cmd_rule_name(rig_job_rule(r, 0x4000 + (uint64_t)line)),
	      enpu_cmd_rule_name(want_rule));
}

/* @rule: the enum enpu_cmd_rule the device must name (without ENPU_RULE_). */
#define BAD(base, what, want, rule, stmt) do {				\
		__typeof__(base) x = base;				\
		stmt;							\
		expect_bad(r, what, &x, sizeof(x), want, ENPU_RULE_##rule, \
			   __LINE__);					\
	} while (0)

static void base_commands_are_valid(struct rig *r)
{
	const struct enpu_cmd_conv2d conv = base_conv();
	const struct enpu_cmd_fc fc = base_fc();
	const struct enpu_cmd_eltwise add = base_add(), mul = base_mul();
	const struct enpu_cmd_pool maxp = base_pool(false), avgp = base_pool(true);
	const struct enpu_cmd_copy copy = base_copy();
	uint8_t *s = r->ram + L_STREAM;
	uint32_t len = 0;
	struct cqe c;

	validation_layout(r, 0);
	memcpy(s + len, &conv, sizeof(conv)), len += sizeof(conv);
	memcpy(s + len, &fc, sizeof(fc)), len += sizeof(fc);
	memcpy(s + len, &add, sizeof(add)), len += sizeof(add);
	memcpy(s + len, &mul, sizeof(mul)), len += sizeof(mul);
	memcpy(s + len, &maxp, sizeof(maxp)), len += sizeof(maxp);
	memcpy(s + len, &avgp, sizeof(avgp)), len += sizeof(avgp);
	memcpy(s + len, &copy, sizeof(copy)), len += sizeof(copy);
	CHECK(run_job(r, len, 0x3f00, &c) && c.status == ENPU_JOB_STATUS_OK,
	      "the base commands of the negative tests must be valid: status %u info %#x",
	      c.status, c.info);
}

static void malformed_conv_is_invalid_at_its_offset(struct rig *r)
{
	struct enpu_cmd_conv2d b = base_conv();

	validation_layout(r, 1);
	BAD(b, "size 8 short", INV, COMMAND_SIZE, x.hdr.size -= 8);
	BAD(b, "header flags", INV, HEADER_FLAGS, x.hdr.flags = 1);
	BAD(b, "reserved", INV, CONV_RESERVED, x.reserved = 1);
	BAD(b, "input.buf.reserved", INV, REF_RESERVED, x.input.buf.reserved = 1);
	BAD(b, "output reserved0", INV, TENSOR_RESERVED, x.output.reserved0[2] = 1);
	BAD(b, "input reserved1", INV, TENSOR_RESERVED, x.input.reserved1 = 1);
	BAD(b, "weights.reserved", INV, REF_RESERVED, x.weights.reserved = 1);
	BAD(b, "bias.reserved", INV, REF_RESERVED, x.bias.reserved = 1);
	BAD(b, "per_channel.reserved", INV, REF_RESERVED, x.requant.per_channel.reserved = 1);
	BAD(b, "batch 0", INV, TENSOR_DIM, x.input.batch = 0);
	BAD(b, "height 0", INV, TENSOR_DIM, x.input.height = 0);
	BAD(b, "channels 0", INV, TENSOR_DIM, x.output.channels = 0);
	BAD(b, "pixel_stride below channels", INV, TENSOR_STRIDE, x.input.pixel_stride = 3);
	BAD(b, "input dtype INT32", INV, INPUT_INT32, x.input.dtype = ENPU_DTYPE_INT32);
	BAD(b, "dtype 4", INV, TENSOR_DTYPE, x.output.dtype = ENPU_DTYPE_FLOAT32 + 1);
	BAD(b, "output dtype FLOAT32", INV, OUTPUT_INT32, x.output.dtype = ENPU_DTYPE_FLOAT32);
	BAD(b, "uint8 zero point 256", INV, TENSOR_ZERO_POINT, x.input.zero_point = 256);
	BAD(b, "uint8 zero point -1", INV, TENSOR_ZERO_POINT, x.output.zero_point = -1);
	BAD(b, "int8 zero point 128", INV, TENSOR_ZERO_POINT,
	    (x.input.dtype = ENPU_DTYPE_INT8, x.input.zero_point = 128));
	BAD(b, "int32 zero point 1", INV, TENSOR_ZERO_POINT,
	    (x.output.dtype = ENPU_DTYPE_INT32, x.output.zero_point = 1,
	     memset(&x.requant, 0, sizeof(x.requant)),
	     x.requant.per_channel.bo_index = ENPU_BUF_NONE));
	BAD(b, "int32 output with a multiplier", INV, REQUANT_INT32,
	    (x.output.dtype = ENPU_DTYPE_INT32, x.requant.min = 0, x.requant.max = 0,
	     x.requant.shift = 0));
	BAD(b, "int32 output with a clamp", INV, REQUANT_INT32,
	    (x.output.dtype = ENPU_DTYPE_INT32, x.requant.multiplier = 0,
	     x.requant.shift = 0, x.requant.min = 0, x.requant.max = 1));
	BAD(b, "int32 output with a table", INV, REQUANT_INT32,
	    (x.output.dtype = ENPU_DTYPE_INT32, memset(&x.requant, 0, sizeof(x.requant)),
	     x.requant.per_channel.bo_index = V_IN));
	BAD(b, "multiplier negative", INV, REQUANT_MULTIPLIER, x.requant.multiplier = -1);
	BAD(b, "shift 30", INV, REQUANT_SHIFT, x.requant.shift = 30);
	BAD(b, "shift 63", INV, REQUANT_SHIFT, x.requant.shift = 63);
	BAD(b, "per-channel with a multiplier", INV, REQUANT_TABLE_FIELDS,
	    (x.requant.per_channel.bo_index = V_IN, x.requant.shift = 0));
	BAD(b, "per-channel with a shift", INV, REQUANT_TABLE_FIELDS,
	    (x.requant.per_channel.bo_index = V_IN, x.requant.multiplier = 0));
	BAD(b, "min above max", INV, CLAMP_ORDER, (x.requant.min = 10, x.requant.max = 9));
	BAD(b, "max 256", INV, CLAMP_RANGE, x.requant.max = 256);
	BAD(b, "min -1 for uint8", INV, CLAMP_RANGE, x.requant.min = -1);
	BAD(b, "kernel_height 0", INV, CONV_KERNEL, x.kernel_height = 0);
	BAD(b, "kernel_width 256", INV, CONV_KERNEL, x.kernel_width = 256);
	BAD(b, "stride 0", INV, CONV_STRIDE, x.stride_height = 0);
	BAD(b, "stride 256", INV, CONV_STRIDE, x.stride_width = 256);
	BAD(b, "dilation 0", INV, CONV_DILATION, x.dilation_width = 0);
	BAD(b, "dilation 256", INV, CONV_DILATION, x.dilation_height = 256);
	BAD(b, "pad 256", INV, CONV_PAD, (x.pad_top = 256));
	BAD(b, "groups 0", INV, CONV_GROUPS, x.groups = 0);
	BAD(b, "groups 3 of 4 in", INV, CONV_GROUPS, x.groups = 3);
	BAD(b, "groups 4 of 6 out", INV, CONV_GROUPS, x.groups = 4);
	BAD(b, "batch differs", INV, CONV_BATCH, x.output.batch = 2);
	BAD(b, "output height off by one", INV, CONV_OUTPUT_SIZE, x.output.height = 4);
	BAD(b, "output width off by one", INV, CONV_OUTPUT_SIZE, x.output.width = 2);
	BAD(b, "kernel larger than the input", INV, TENSOR_DIM,
	    (x.kernel_height = 6, x.output.height = 0));
	BAD(b, "kernel larger, output 1", INV, WINDOW,
	    (x.kernel_height = 6, x.output.height = 1));
	BAD(b, "depthwise with groups 1", INV, DEPTHWISE_GROUPS, x.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D);
	BAD(b, "depthwise in 4 out 6 groups 2", INV, DEPTHWISE_GROUPS,
	    (x.hdr.opcode = ENPU_CMD_DEPTHWISE_CONV2D, x.groups = 2));
	BAD(b, "opcode 13", INV, OPCODE, x.hdr.opcode = ENPU_CMD_DEQUANTIZE + 1);
	/* shape before extents: a bad BO does not change the verdict */
	BAD(b, "bad shape and bad BO", INV, CONV_GROUPS, (x.groups = 0, x.weights.bo_index = 9));
}

static void malformed_other_layers_are_invalid_at_their_offset(struct rig *r)
{
	struct enpu_cmd_fc f = base_fc();
	struct enpu_cmd_eltwise a = base_add(), m = base_mul();
	struct enpu_cmd_pool mp = base_pool(false), ap = base_pool(true);
	struct enpu_cmd_copy c = base_copy();

	validation_layout(r, 2);
	BAD(f, "fc size", INV, PAST_STREAM_END, x.hdr.size += 8);
	BAD(f, "fc batch 2", INV, FC_BATCH, (x.input.batch = 2, x.output.batch = 2));
	BAD(f, "fc height 2", INV, FC_BATCH, (x.input.height = 2, x.output.height = 2));
	BAD(f, "fc K 65537", INV, FC_K, x.input.channels = 65537);
	BAD(f, "fc rows differ", INV, FC_ROWS, x.output.width = 4);
	BAD(f, "fc weights.reserved", INV, REF_RESERVED, x.weights.reserved = 1);
	BAD(f, "fc shift 0", INV, REQUANT_SHIFT, x.requant.shift = 0);
	BAD(f, "fc int8 clamp 128", INV, CLAMP_RANGE, x.requant.max = 128);

	BAD(a, "add size", INV, COMMAND_SIZE, x.hdr.size -= 8);
	BAD(a, "add b type differs", INV, ELTWISE_TYPES, x.b.dtype = ENPU_DTYPE_INT8);
	BAD(a, "add output type differs", INV, ELTWISE_TYPES, x.output.dtype = ENPU_DTYPE_INT8);
	BAD(a, "add int32", INV, INPUT_INT32, (x.a.dtype = x.b.dtype = x.output.dtype =
				  ENPU_DTYPE_INT32, x.min = x.max = 0));
	BAD(a, "add b dimension 2 of 4", INV, ELTWISE_BROADCAST, x.b.height = 2);
	BAD(a, "add output not the max", INV, ELTWISE_OUTPUT_DIM, (x.a.width = 1));
	BAD(a, "add output above both", INV, ELTWISE_OUTPUT_DIM,
	    (x.output.channels = 16, x.a.channels = 1, x.b.channels = 1));
	BAD(a, "add a_multiplier 2^21", INV, ADD_MULTIPLIER, x.a_multiplier = 1 << 21);
	BAD(a, "add b_multiplier -1", INV, ADD_MULTIPLIER, x.b_multiplier = -1);
	BAD(a, "add shift 0", INV, ADD_SHIFT, x.add_shift = 0);
	BAD(a, "add shift 32", INV, ADD_SHIFT, x.add_shift = 32);
	BAD(a, "add with left_shift", INV, ADD_MUL_FIELDS, x.left_shift = 1);
	BAD(a, "add with multiplier", INV, ADD_MUL_FIELDS, x.multiplier = 1);
	BAD(a, "add with shift", INV, ADD_MUL_FIELDS, x.shift = 31);
	BAD(a, "add clamp reversed", INV, CLAMP_ORDER, (x.min = 5, x.max = 4));
	BAD(a, "add a zero point 300", INV, TENSOR_ZERO_POINT, x.a.zero_point = 300);
	BAD(m, "mul left_shift 16", INV, MUL_LEFT_SHIFT, x.left_shift = 16);
	BAD(m, "mul shift 30", INV, MUL_SHIFT, x.shift = 30);
	BAD(m, "mul multiplier -5", INV, MUL_MULTIPLIER, x.multiplier = -5);
	BAD(m, "mul with a_multiplier", INV, MUL_ADD_FIELDS, x.a_multiplier = 1);
	BAD(m, "mul with add_shift", INV, MUL_ADD_FIELDS, x.add_shift = 1);

	BAD(mp, "pool size", INV, COMMAND_SIZE, x.hdr.size -= 8);
	BAD(mp, "pool reserved", INV, POOL_RESERVED, x.reserved = 1);
	BAD(mp, "pool reserved2", INV, POOL_RESERVED, x.reserved2 = 1);
	BAD(mp, "pool params.reserved", INV, REF_RESERVED, x.params.reserved = 1);
	BAD(mp, "max pool with params", INV, MAX_POOL_TABLE, x.params.bo_index = V_IN);
	BAD(mp, "max pool with a multiplier", INV, MAX_POOL_REQUANT, x.multiplier = 1);
	BAD(mp, "max pool min not the type's", INV, MAX_POOL_CLAMP, x.min = -127);
	BAD(mp, "max pool max not the type's", INV, MAX_POOL_CLAMP, x.max = 126);
	BAD(mp, "max pool count_include_pad", INV, POOL_INCLUDE_PAD,
	    x.flags = ENPU_POOL_COUNT_INCLUDE_PAD);
	BAD(mp, "pool unknown flag", INV, POOL_FLAGS, x.flags = 4);
	BAD(mp, "pool type differs", INV, POOL_TYPE, x.output.dtype = ENPU_DTYPE_UINT8);
	BAD(mp, "pool int32", INV, INPUT_INT32, (x.input.dtype = x.output.dtype = ENPU_DTYPE_INT32,
				    x.min = x.max = 0, x.input.zero_point = 0));
	BAD(mp, "pool channels differ", INV, POOL_BATCH_CHANNELS, x.output.channels = 3);
	BAD(mp, "pool batch differs", INV, POOL_BATCH_CHANNELS, x.output.batch = 2);
	BAD(mp, "pool kernel 0", INV, POOL_KERNEL, x.kernel_width = 0);
	BAD(mp, "pool kernel 65536", INV, POOL_KERNEL, x.kernel_height = 65536);
	BAD(mp, "pool stride 256", INV, POOL_STRIDE, x.stride_height = 256);
	BAD(mp, "pool dilation 0", INV, POOL_DILATION, x.dilation_width = 0);
	BAD(mp, "pool pad equal to the kernel", INV, POOL_PAD, x.pad_bottom = 3);
	BAD(mp, "pool output height", INV, POOL_OUTPUT_SIZE, x.output.height = 2);
	/* 8 rows: floor gives 4, ceil 5 */
	BAD(mp, "pool ceil size without CEIL_MODE", INV, POOL_OUTPUT_SIZE,
	    (x.input.height = 8, x.output.height = 5));
	BAD(mp, "pool floor size with CEIL_MODE", INV, POOL_OUTPUT_SIZE,
	    (x.input.height = 8, x.output.height = 4,
	     x.flags = ENPU_POOL_CEIL_MODE));
	BAD(ap, "avg pool shift 63", INV, AVG_POOL_SHIFT, x.shift = 63);
	BAD(ap, "avg pool left_shift 31", INV, AVG_POOL_LEFT_SHIFT, x.left_shift = 31);
	BAD(ap, "avg pool multiplier -1", INV, AVG_POOL_MULTIPLIER, x.multiplier = -1);
	BAD(ap, "avg pool table with a multiplier", INV, AVG_POOL_TABLE_FIELDS,
	    (x.params.bo_index = V_IN, x.shift = 0, x.left_shift = 0));
	BAD(ap, "avg pool clamp 128", INV, CLAMP_RANGE, x.max = 128);

	BAD(c, "copy size", INV, PAST_STREAM_END, x.hdr.size += 8);
	BAD(c, "copy type differs", INV, COPY_TYPE, x.output.dtype = ENPU_DTYPE_UINT8);
	BAD(c, "copy channels differ", INV, COPY_SHAPE, x.output.channels = 4);
	BAD(c, "copy zero point differs", INV, COPY_TYPE,
	    (x.input.dtype = x.output.dtype = ENPU_DTYPE_INT8,
	     x.output.zero_point = 1));
	BAD(c, "copy int32 zero point", INV, TENSOR_ZERO_POINT,
	    (x.input.zero_point = x.output.zero_point = 3));
	BAD(c, "copy output pixel_stride 4", INV, TENSOR_STRIDE, x.output.pixel_stride = 4);
}

static void layer_extents_fault_at_their_offset(struct rig *r)
{
	struct enpu_cmd_conv2d cv = base_conv();
	struct enpu_cmd_fc f = base_fc();
	struct enpu_cmd_eltwise a = base_add();
	struct enpu_cmd_pool ap = base_pool(true);
	struct enpu_cmd_copy c = base_copy();

	validation_layout(r, 3);
	/* input 100 bytes: ends exactly at 8192 from 8092 */
	BAD(cv, "input one byte past SIZE", DMA, REF_RANGE, x.input.buf.offset = 8093);
	BAD(cv, "input BO index 3", DMA, REF_BO_INDEX, x.input.buf.bo_index = 3);
	BAD(cv, "input BO NONE", DMA, REF_BO_INDEX, x.input.buf.bo_index = ENPU_BUF_NONE);
	BAD(cv, "output into a read-only BO", DMA, REF_WRITE_ACCESS, x.output.buf.bo_index = V_IN);
	BAD(cv, "input from a write-only BO", DMA, REF_READ_ACCESS, x.input.buf.bo_index = V_WO);
	BAD(cv, "output past SIZE through pixel_stride", DMA, REF_RANGE,
	    x.output.pixel_stride = 1100);
	BAD(cv, "output extent overflows", DMA, REF_RANGE,
	    (x.output.pixel_stride = 0xffffffffu, x.output.batch = 0x7fffffff,
	     x.input.batch = 0x7fffffff));
	BAD(cv, "int32 output past SIZE", DMA, REF_RANGE,
	    (x.output.dtype = ENPU_DTYPE_INT32, memset(&x.requant, 0, sizeof(x.requant)),
	     x.requant.per_channel.bo_index = ENPU_BUF_NONE,
	     x.output.buf.offset = 8192 - 4 * 54 + 1));
	BAD(cv, "weights past SIZE", DMA, REF_RANGE, x.weights.offset = 8192 - 216 + 1);
	BAD(cv, "weights offset wraps", DMA, REF_RANGE, x.weights.offset = UINT64_MAX - 100);
	BAD(cv, "weights NONE", DMA, REF_BO_INDEX, x.weights.bo_index = ENPU_BUF_NONE);
	BAD(cv, "bias past SIZE", DMA, REF_RANGE, x.bias.offset = 8192 - 23);
	BAD(cv, "bias in a write-only BO", DMA, REF_READ_ACCESS, x.bias.bo_index = V_WO);
	BAD(cv, "per-channel table past SIZE", DMA, REF_RANGE,
	    (x.requant.per_channel = (struct enpu_buf_ref){ V_IN, 0, 8192 - 47 },
	     x.requant.multiplier = 0, x.requant.shift = 0));
	BAD(cv, "per-channel table in a write-only BO", DMA, REF_READ_ACCESS,
	    (x.requant.per_channel = (struct enpu_buf_ref){ V_WO, 0, 0 },
	     x.requant.multiplier = 0, x.requant.shift = 0));
	BAD(f, "fc weights past SIZE", DMA, REF_RANGE, x.weights.offset = 8192 - 127);
	BAD(f, "fc input pixel_stride past SIZE", DMA, REF_RANGE,
	    (x.input.pixel_stride = 4089));
	BAD(a, "add b past SIZE", DMA, REF_RANGE, x.b.buf.offset = 8192 - 7);
	BAD(a, "add b BO index 3", DMA, REF_BO_INDEX, x.b.buf.bo_index = 3);
	BAD(ap, "avg pool table past SIZE", DMA, REF_RANGE,
	    (x.params = (struct enpu_buf_ref){ V_IN, 0, 8192 - 143 },
	     x.multiplier = 0, x.shift = 0, x.left_shift = 0));
	BAD(c, "copy output past SIZE", DMA, REF_RANGE, x.output.buf.offset = 8192 - 199);
}

/* ---- checks when the command runs ---- */

static void bad_parameter_tables_fail_when_the_layer_runs(struct rig *r)
{
	struct enpu_cmd_conv2d good = base_conv(), bad = base_conv();
	struct enpu_cmd_pool pool = base_pool(true);
	enpu_cpu_context *ctx = cpu_context();
	struct rng g = { 0x5151ull };
	static const struct { int32_t m, s; } conv_bad[] = {
		{ -1, 40 }, { 1 << 30, 30 }, { 1 << 30, 63 }, { INT32_MIN, 31 },
	};
	static const struct enpu_pool_param pool_bad[] = {
		{ -1, 40, 0, 0 }, { 1, 30, 0, 0 }, { 1, 63, 0, 0 },
		{ 1, 40, 31, 0 }, { 1, 40, -1, 0 }, { 1, 40, 0, 1 },
	};
	uint8_t *s = r->ram + L_STREAM, *expected;
	struct cqe c;
	char what[64];

	CHECK(ctx, "CPU context");
	if (!ctx)
		return;
	validation_layout(r, 4);
	bad.output.buf.offset = 4096;
	bad.requant.per_channel = (struct enpu_buf_ref){ V_IN, 0, 4000 };
	bad.requant.multiplier = bad.requant.shift = 0;
	pool.output.buf.offset = 4096;
	pool.params = (struct enpu_buf_ref){ V_IN, 0, 5000 };
	pool.multiplier = pool.shift = pool.left_shift = 0;
	for (unsigned int i = 0; i < 10; i++) {
		bool is_pool = i >= 4;
		uint32_t len = 0;
		struct enpu_requant_param t[6];
		struct enpu_pool_param pt[9];
		int32_t m = 1 << 30, sh = 40;
		struct enpu_cpu_requant rq = { &m, &sh, 0, 0, 0, 255 };
		struct enpu_cpu_conv_shape shape = { 4, 6, 1, 3, 3, 1, 1, 1, 1,
						     0, 0, 0, 0 };
		int8_t w[216];
		int32_t bias[6];
		uint8_t in[100];
		struct enpu_cpu_conv_args args = {
			.batch = 1, .input_height = 5, .input_width = 5,
			.input = in, .input_type = ENPU_CPU_UINT8,
			.requant = &rq, .output_type = ENPU_CPU_UINT8,
		};

		for (unsigned int j = 0; j < 6; j++)
			t[j] = (struct enpu_requant_param){ 1 << 29, 35 + (int32_t)j };
		for (unsigned int j = 0; j < 9; j++)
			pt[j] = (struct enpu_pool_param){ 1 << 29, 35, 1, 0 };
		/* the last entry is the bad one: every entry is checked */
		if (is_pool)
			pt[8] = pool_bad[i - 4];
		else
			t[5] = (struct enpu_requant_param){ conv_bad[i].m, conv_bad[i].s };
		bo_io(r->ram, V_IN, 4000, t, sizeof(t), true);
		bo_io(r->ram, V_IN, 5000, pt, sizeof(pt), true);
		for (unsigned int j = 0; j < 100; j++)
			r->ram[L_ARENA + j * 3] = (uint8_t)rnd(&g);
		memcpy(s + len, &good, sizeof(good)), len += sizeof(good);
		if (is_pool)
			memcpy(s + len, &pool, sizeof(pool)), len += sizeof(pool);
		else
			memcpy(s + len, &bad, sizeof(bad)), len += sizeof(bad);
		memcpy(model, r->ram, RIG_RAM_SIZE);
		/* the first conv's output is written; the failing layer's not */
		bo_io(r->ram, V_IN, 0, in, 100, false);
		bo_io(r->ram, V_IN, 1024, w, 216, false);
		bo_io(r->ram, V_IN, 2048, bias, 24, false);
		expected = malloc(54);
		args.output = expected;
		CHECK(!enpu_cpu_conv2d_reference(ctx, &args, &shape, w, bias),
		      "reference: %s", enpu_cpu_context_error(ctx));
		bo_io(model, V_OUT, 0, expected, 54, true);
		free(expected);
		snprintf(what, sizeof(what), "%s table case %u",
			 is_pool ? "pool" : "per-channel", i);
		CHECK(run_job(r, len, 0x4800 + i, &c), "%s: no completion", what);
		CHECK(c.status == ENPU_JOB_STATUS_INVALID &&
		      c.info == sizeof(good) && c.cycles == 0,
		      "%s: status %u info %#x cycles %llu", what, c.status, c.info,
		      (unsigned long long)c.cycles);
		/* the stream passed every check: the table failed at run time */
		CHECK(rig_job_rule(r, 0x4800 + i) == ENPU_RULE_NONE,
		      "%s: rule %u, want none (a run-time failure)", what,
		      rig_job_rule(r, 0x4800 + i));
		check_ram_matches_model(r, what);
	}
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "device survived");
	enpu_cpu_context_destroy(ctx);
}

/* ---- timing ---- */

static void layer_cycles_are_the_larger_of_macs_and_bytes(struct rig *r)
{
	struct enpu_cmd_conv2d cv = base_conv();
	struct enpu_cmd_eltwise add = base_add();
	uint64_t macs0, bytes0;
	struct cqe c;

	validation_layout(r, 5);
	/* conv: 54 outputs x 36 taps = 1944 MACs = 2 cycles; bytes 100 + 54
	 * + 216 + 24 = 394 = 13 cycles */
	memcpy(r->ram + L_STREAM, &cv, sizeof(cv));
	macs0 = rd64(r, ENPU_REG_PERF_MACS_LO);
	bytes0 = rd64(r, ENPU_REG_PERF_DMA_BYTES_LO);
	CHECK(run_job(r, sizeof(cv), 0x4900, &c) && c.status == 0 && c.cycles == 13,
	      "conv: status %u cycles %llu, want 13", c.status,
	      (unsigned long long)c.cycles);
	CHECK(rd64(r, ENPU_REG_PERF_MACS_LO) - macs0 == 1944, "PERF_MACS %llu",
	      (unsigned long long)(rd64(r, ENPU_REG_PERF_MACS_LO) - macs0));
	CHECK(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes0 == 394 + sizeof(cv),
	      "PERF_DMA_BYTES %llu",
	      (unsigned long long)(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes0));
	/* add with b broadcast: 128 + 8 + 128 bytes = 9 cycles, no MACs */
	memcpy(r->ram + L_STREAM, &add, sizeof(add));
	macs0 = rd64(r, ENPU_REG_PERF_MACS_LO);
	CHECK(run_job(r, sizeof(add), 0x4901, &c) && c.status == 0 && c.cycles == 9,
	      "add: status %u cycles %llu, want 9", c.status,
	      (unsigned long long)c.cycles);
	CHECK(rd64(r, ENPU_REG_PERF_MACS_LO) == macs0, "add counted MACs");
}

static void big_conv_takes_its_device_time(struct rig *r)
{
	/* 1x32x32x64 -> 3x3 -> 1x30x30x64: 33177600 MACs = 32400 cycles
	 * (bytes: 65536 + 57600 + 36864 = 4938 cycles); at 200 MHz that is
	 * 162 us of device time, 16.2 ms of wall time at speed 0.01. */
	struct enpu_cmd_conv2d cv = base_conv();
	struct rng g = { 0xb16ull };
	char reply[128];
	uint64_t start;
	struct cqe c;
	long ms;

	layout_reset(r, &g);
	bo_new(r, &g, ENPU_BO_ACCESS_READ, 65536 + 36864, 4096);
	bo_new(r, &g, ENPU_BO_ACCESS_WRITE, 57600, 4096);
	cv.input = vt(0, 0, 1, 32, 32, 64, ENPU_DTYPE_UINT8);
	cv.output = vt(1, 0, 1, 30, 30, 64, ENPU_DTYPE_UINT8);
	cv.weights = (struct enpu_buf_ref){ 0, 0, 65536 };
	cv.bias.bo_index = ENPU_BUF_NONE;
	cv.bias.offset = 0;
	memcpy(r->ram + L_STREAM, &cv, sizeof(cv));
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 0, 0, 0, NULL, 1000) == 0, "OPP 0");
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0, "speed");
	start = now_ms();
	CHECK(run_job(r, sizeof(cv), 0x4a00, &c) && c.status == 0 &&
	      c.cycles == 32400, "status %u cycles %llu", c.status,
	      (unsigned long long)c.cycles);
	ms = (long)(now_ms() - start);
	CHECK(ms >= 15 && ms < 3000, "took %ld ms, expected ~16", ms);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 4, 0, 0, NULL, 1000) == 0, "OPP 4");
	drain_vectors(r);
}

#define T(fn) { #fn, fn }
const struct test layer_tests[] = {
	T(conv2d_matches_reference_on_random_shapes),
	T(depthwise_conv2d_matches_reference_on_random_shapes),
	T(fully_connected_matches_gemm_reference),
	T(add_matches_reference_with_broadcasting),
	T(mul_matches_reference_with_broadcasting),
	T(max_pool_matches_reference),
	T(avg_pool_with_table_matches_reference),
	T(avg_pool_with_one_param_matches_reference),
	T(copy_moves_elements_between_strides),
	T(base_commands_are_valid),
	T(malformed_conv_is_invalid_at_its_offset),
	T(malformed_other_layers_are_invalid_at_their_offset),
	T(layer_extents_fault_at_their_offset),
	T(bad_parameter_tables_fail_when_the_layer_runs),
	T(layer_cycles_are_the_larger_of_macs_and_bytes),
	T(big_conv_takes_its_device_time),
};
#undef T
const size_t layer_test_count = sizeof(layer_tests) / sizeof(layer_tests[0]);
