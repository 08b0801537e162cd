// SPDX-License-Identifier: MIT
/*
 * Convolution (dense, grouped, depthwise) on every ISA path, at 1 and 2
 * threads, against enpu_cpu_conv2d_reference() byte for byte, including
 * the bytes between output pixels that must stay untouched; inputs end at
 * an inaccessible page, so an over-read faults. The reference itself is
 * checked against hand-computed outputs.
 */
#include "test_cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum fill { FILL_RANDOM, FILL_MIN, FILL_MAX };

struct conv_case {
	size_t batch, height, width, cin, cout, groups;
	size_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
	enum enpu_cpu_dtype in_type, out_type;
	int32_t in_zp, out_zp;
	int per_channel, relu, bias;
	size_t in_pad, out_pad;      /* extra elements per pixel */
	enum fill fill;
	/* Output channel 0 (per tensor: every channel) requantized with
	 * shift 32, below the AVX-512 high-dword path (requant_avx512.h). */
	int shift_32;
	/*
	 * Scales near 1 (2^-1 to 2^-3): scaled accumulators far outside
	 * int16, so a kernel that narrows before it clamps must saturate.
	 */
	int large_scales;
};

static void describe(const struct conv_case *c, char *text, size_t size)
{
	snprintf(text, size,
		 "N=%zu %zux%zux%zu -> %zu g=%zu k=%zux%zu s=%zux%zu d=%zux%zu pads=%zu,%zu,%zu,%zu in=%d out=%d zp=%d/%d",
		 c->batch, c->height, c->width, c->cin, c->cout, c->groups,
		 c->kh, c->kw, c->sh, c->sw, c->dh, c->dw, c->pt, c->pl, c->pb,
		 c->pr, c->in_type, c->out_type, c->in_zp, c->out_zp);
}

static struct enpu_cpu_conv_shape shape_of(const struct conv_case *c)
{
	return (struct enpu_cpu_conv_shape){
		.input_channels = c->cin, .output_channels = c->cout,
		.groups = c->groups, .kernel_height = c->kh,
		.kernel_width = c->kw, .stride_height = c->sh,
		.stride_width = c->sw, .dilation_height = c->dh,
		.dilation_width = c->dw, .pad_top = c->pt, .pad_left = c->pl,
		.pad_bottom = c->pb, .pad_right = c->pr,
	};
}

/*
 * What one case's paths run and name in a failure; as in test_gemm.c,
 * once with weights packed by the context's first ISA, once with weights
 * packed by each path's own.
 */
struct conv_path {
	struct test_state *s;
	const struct enpu_cpu_conv_args *args;
	size_t elem, ops;
	const char *text;
	const struct enpu_cpu_conv_shape *shape;  /* non-NULL: pack per path */
	const int8_t *weights;
	const int32_t *bias;
};

static int conv_run(enpu_cpu_context *ctx, const void *argument)
{
	const struct conv_path *p = argument;
	struct enpu_cpu_conv_args args = *p->args;
	enpu_cpu_conv_weights *w = NULL;
	int err;

	if (!p->shape)
		return enpu_cpu_conv2d(ctx, p->args);
	err = enpu_cpu_conv_weights_pack(ctx, p->shape, p->weights, p->bias,
					 &w);
	if (err)
		return err;
	args.weights = w;
	err = enpu_cpu_conv2d(ctx, &args);
	enpu_cpu_conv_weights_destroy(w);
	return err;
}

static void conv_report(enpu_cpu_context *ctx, const void *argument,
			const struct test_path_difference *d)
{
	const struct conv_path *p = argument;

	CHECK(p->s, 0,
	      "%s (weights packed %s), %u threads, %s: err=%d (%s), first differing byte %zu (pixel %zu channel %zu) got 0x%02x expected 0x%02x",
	      d->path, p->shape ? "by this path" : "once", d->threads,
	      p->text, d->err,
	      d->err ? enpu_cpu_context_error(ctx) : "", d->at,
	      d->at / p->elem / p->ops, d->at / p->elem % p->ops, d->got,
	      d->expected);
}

static int run_case(struct test_state *s, enpu_cpu_context *ctx,
		    const struct conv_case *c, uint64_t seed)
{
	struct enpu_cpu_conv_shape shape = shape_of(c);
	uint64_t rng = seed | 1;
	size_t ips = c->cin + c->in_pad, ops = c->cout + c->out_pad;
	size_t in_bytes = c->batch * c->height * c->width * ips;
	size_t cin_g = c->cin / c->groups, taps = c->kh * c->kw;
	size_t w_count = c->cout * cin_g * taps, oh = 0, ow = 0, out_bytes = 0;
	size_t elem = c->out_type == ENPU_CPU_INT32 ? 4 : 1;
	uint8_t *input = test_guarded_alloc(in_bytes);
	int8_t *weights = malloc(w_count);
	int32_t *bias = malloc(c->cout * sizeof(int32_t));
	int32_t *mult = malloc(c->cout * sizeof(int32_t));
	int32_t *shift = malloc(c->cout * sizeof(int32_t));
	uint8_t *expected = NULL, *got = NULL;
	enpu_cpu_conv_weights *packed = NULL;
	struct enpu_cpu_requant rq;
	struct enpu_cpu_conv_args args;
	int32_t lo = c->out_type == ENPU_CPU_INT8 ? -128 : 0;
	int32_t hi = c->out_type == ENPU_CPU_INT8 ? 127 : 255;
	char text[256];
	int ok = 0, err;

	describe(c, text, sizeof(text));
	if (!input || !weights || !bias || !mult || !shift) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	err = enpu_cpu_conv_output_size(ctx, &shape, c->height, c->width, &oh,
					&ow);
	if (err) {
		CHECK(s, 0, "%s: output size: %s", text,
		      enpu_cpu_context_error(ctx));
		goto out;
	}
	out_bytes = (c->batch * oh * ow * ops - c->out_pad) * elem;
	expected = malloc(out_bytes);
	got = test_guarded_alloc(out_bytes);
	if (!expected || !got) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < in_bytes; i++) {
		int is_signed = c->in_type == ENPU_CPU_INT8;

		input[i] = c->fill == FILL_MIN ? (is_signed ? 0x80 : 0) :
			   c->fill == FILL_MAX ? (is_signed ? 0x7f : 0xff) :
			   (uint8_t)test_random(&rng);
	}
	for (size_t i = 0; i < w_count; i++)
		weights[i] = c->fill == FILL_MIN ? -128 :
			     c->fill == FILL_MAX ? 127 :
			     (int8_t)test_random(&rng);
	for (size_t o = 0; o < c->cout; o++) {
		double scale = (0.3 + (double)(test_random(&rng) % 1000) / 1000.0) /
			       (128.0 * (double)(cin_g * taps + 16));

		bias[o] = (int32_t)(test_random(&rng) % 20001) - 10000;
		if (c->large_scales) {
			mult[o] = 0x7fffffff - (int32_t)o;
			shift[o] = 32 + (int32_t)(o % 3);
			continue;
		}
		if (enpu_requant_from_scale(scale, &mult[o], &shift[o])) {
			CHECK(s, 0, "scale %g rejected", scale);
			goto out;
		}
		if (c->shift_32 && o == 0) {
			shift[o] = 32;
			mult[o] = (int32_t)(scale * 4294967296.0);
		}
	}
	rq = (struct enpu_cpu_requant){
		.multiplier = mult, .shift = shift,
		.per_channel = c->per_channel, .zero_point = c->out_zp,
		.min = c->relu ? c->out_zp : lo, .max = hi,
	};
	args = (struct enpu_cpu_conv_args){
		.batch = c->batch, .input_height = c->height,
		.input_width = c->width, .input = input,
		.input_pixel_stride = ips, .input_type = c->in_type,
		.input_zero_point = c->in_zp, .output = expected,
		.output_pixel_stride = ops, .output_type = c->out_type,
		.requant = &rq,
	};
	memset(expected, 0x5a, out_bytes);
	err = enpu_cpu_conv2d_reference(ctx, &args, &shape, weights,
					c->bias ? bias : NULL);
	if (err) {
		CHECK(s, 0, "%s: reference: %s", text,
		      enpu_cpu_context_error(ctx));
		goto out;
	}
	err = enpu_cpu_conv_weights_pack(ctx, &shape, weights,
					 c->bias ? bias : NULL, &packed);
	if (err) {
		CHECK(s, 0, "%s: pack: %s", text, enpu_cpu_context_error(ctx));
		goto out;
	}
	args.weights = packed;
	args.output = got;
	{
		struct conv_path p = { s, &args, elem, ops, text, NULL, NULL,
				       NULL };
		struct test_output_check check = { conv_run, conv_report, &p,
						   got, expected, out_bytes };

		if (test_each_path_output(ctx, &check))
			goto out;
		p.shape = &shape;
		p.weights = weights;
		p.bias = c->bias ? bias : NULL;
		if (test_each_path_output(ctx, &check))
			goto out;
	}
	ok = 1;
out:
	enpu_cpu_conv_weights_destroy(packed);
	test_guarded_free(input, in_bytes);
	test_guarded_free(got, out_bytes);
	free(expected);
	free(weights);
	free(bias);
	free(mult);
	free(shift);
	return ok;
}

static enpu_cpu_context *make_context(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	int err = enpu_cpu_context_create(1, &ctx);

	CHECK(s, err == 0, "context create: %d", err);
	return ctx;
}

/*
 * A case with the common defaults: uint8 in and out, stride and dilation 1.
 * Cases override defaults by naming the field again, which is the point.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
#define CONV(...) ((struct conv_case){ .batch = 1, .groups = 1, .sh = 1,  \
	.sw = 1, .dh = 1, .dw = 1, .in_type = ENPU_CPU_UINT8,               \
	.out_type = ENPU_CPU_UINT8, .in_zp = 117, .out_zp = 121,            \
	.per_channel = 1, .bias = 1, __VA_ARGS__ })

static void test_conv_paths_match_reference_on_edge_shapes(struct test_state *s)
{
	const struct conv_case cases[] = {
		/* 1x1: the direct GEMM, then strided and padded ones. */
		CONV(.height = 7, .width = 9, .cin = 16, .cout = 24, .kh = 1, .kw = 1),
		CONV(.height = 7, .width = 9, .cin = 13, .cout = 24, .kh = 1, .kw = 1),
		CONV(.height = 8, .width = 9, .cin = 16, .cout = 40, .kh = 1, .kw = 1, .sh = 2, .sw = 2),
		CONV(.height = 5, .width = 5, .cin = 7, .cout = 3, .kh = 1, .kw = 1, .pt = 1, .pr = 2),
		/* 3x3 with padding on all sides, odd sizes, stride 2. */
		CONV(.height = 11, .width = 13, .cin = 8, .cout = 33, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 12, .width = 12, .cin = 3, .cout = 32, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 0, .pl = 0, .pb = 1, .pr = 1),
		CONV(.height = 9, .width = 6, .cin = 5, .cout = 17, .kh = 3, .kw = 2, .sh = 2, .sw = 1, .pt = 2, .pl = 0, .pb = 1, .pr = 1),
		/* 5x5, 7x7, dilation. */
		CONV(.height = 10, .width = 9, .cin = 6, .cout = 20, .kh = 5, .kw = 5, .pt = 2, .pl = 2, .pb = 2, .pr = 2),
		CONV(.height = 15, .width = 14, .cin = 3, .cout = 64, .kh = 7, .kw = 7, .sh = 2, .sw = 2, .pt = 3, .pl = 3, .pb = 3, .pr = 3),
		CONV(.height = 9, .width = 11, .cin = 12, .cout = 16, .kh = 3, .kw = 3, .dh = 2, .dw = 3, .pt = 2, .pl = 3, .pb = 2, .pr = 3),
		/* Groups, batch, int8, int32 output, pixel strides. */
		CONV(.height = 6, .width = 7, .cin = 12, .cout = 18, .groups = 3, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 6, .width = 6, .cin = 10, .cout = 4, .groups = 2, .kh = 1, .kw = 1),
		CONV(.batch = 3, .height = 5, .width = 4, .cin = 9, .cout = 35, .kh = 3, .kw = 3, .pt = 1, .pb = 1),
		CONV(.batch = 2, .height = 6, .width = 5, .cin = 16, .cout = 50, .kh = 1, .kw = 1, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT8, .in_zp = -3, .out_zp = 5),
		CONV(.height = 6, .width = 5, .cin = 11, .cout = 19, .kh = 3, .kw = 3, .pl = 1, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT32, .in_zp = 7),
		CONV(.height = 5, .width = 5, .cin = 8, .cout = 8, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_pad = 5, .out_pad = 3),
		CONV(.height = 4, .width = 4, .cin = 16, .cout = 16, .kh = 1, .kw = 1, .in_pad = 16, .out_pad = 7, .per_channel = 0, .relu = 1),
		/* Depthwise: 3x3 s1/s2, 5x5, 7x7, dilation, odd channel counts. */
		CONV(.height = 9, .width = 10, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 11, .width = 11, .cin = 144, .cout = 144, .groups = 144, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 0, .pl = 0, .pb = 1, .pr = 1),
		CONV(.height = 7, .width = 6, .cin = 17, .cout = 17, .groups = 17, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT8, .in_zp = 0, .out_zp = -9),
		CONV(.height = 9, .width = 8, .cin = 5, .cout = 5, .groups = 5, .kh = 5, .kw = 5, .pt = 2, .pl = 2, .pb = 2, .pr = 2),
		CONV(.height = 13, .width = 12, .cin = 70, .cout = 70, .groups = 70, .kh = 7, .kw = 7, .sh = 2, .sw = 2, .pt = 3, .pl = 2, .pb = 3, .pr = 4),
		CONV(.height = 8, .width = 9, .cin = 24, .cout = 24, .groups = 24, .kh = 3, .kw = 3, .dh = 2, .dw = 2, .pt = 2, .pl = 2, .pb = 2, .pr = 2, .out_type = ENPU_CPU_INT32),
		CONV(.batch = 2, .height = 3, .width = 3, .cin = 200, .cout = 200, .groups = 200, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_pad = 9, .out_pad = 1, .per_channel = 0, .relu = 1),
		CONV(.height = 1, .width = 1, .cin = 3, .cout = 3, .groups = 3, .kh = 1, .kw = 1),
		CONV(.height = 4, .width = 40, .cin = 2, .cout = 2, .groups = 2, .kh = 23, .kw = 24, .pt = 10, .pl = 12, .pb = 10, .pr = 12),
		/*
		 * Depthwise by flat rows (dwconv.c: up to 32 channels,
		 * stride_width 1, kernel_width <= 4, 8-bit output, pixels
		 * back to back): both sides of each, dilation, rows shorter
		 * than 64 bytes and not a multiple of them, the period of
		 * odd channel counts (lcm with 64), per-tensor requant.
		 */
		CONV(.height = 9, .width = 11, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 4, .pt = 1, .pl = 2, .pb = 1, .pr = 1),
		CONV(.height = 9, .width = 11, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 5, .pt = 1, .pl = 2, .pb = 1, .pr = 2),
		CONV(.height = 9, .width = 11, .cin = 24, .cout = 24, .groups = 24, .kh = 3, .kw = 3, .sh = 2, .sw = 1, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 9, .width = 11, .cin = 24, .cout = 24, .groups = 24, .kh = 3, .kw = 3, .sh = 1, .sw = 2, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 10, .width = 12, .cin = 7, .cout = 7, .groups = 7, .kh = 2, .kw = 3, .dh = 2, .dw = 3, .pt = 2, .pl = 3, .pb = 0, .pr = 3, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT8, .in_zp = -7, .out_zp = 4),
		CONV(.height = 5, .width = 3, .cin = 5, .cout = 5, .groups = 5, .kh = 5, .kw = 1, .pt = 2, .pb = 2, .per_channel = 0),
		CONV(.batch = 2, .height = 6, .width = 7, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_pad = 3),
		CONV(.batch = 2, .height = 6, .width = 7, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .out_pad = 1),
		CONV(.height = 40, .width = 60, .cin = 32, .cout = 32, .groups = 32, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .relu = 1),
		/* Depthwise with channel multiplier 2: the grouped GEMM path. */
		CONV(.height = 6, .width = 6, .cin = 8, .cout = 16, .groups = 8, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		/* As many groups as outputs, two inputs each: not depthwise. */
		CONV(.height = 5, .width = 6, .cin = 16, .cout = 8, .groups = 8, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
	};
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(cases); i++)
		if (!run_case(s, ctx, &cases[i], 100 + i))
			break;
	enpu_cpu_context_destroy(ctx);
}

/*
 * Depthwise by flat rows (up to 32 channels, dwconv_avx512_vnni.c): row
 * lengths of 1-140 pixels over 3, 5, 31 and 32 channels, so that the 64-byte
 * steps meet the row's ends (and its interior, loaded without masks) at
 * every alignment; kernel width 3 and 4, left padding 0-2, int8 input
 * (flipped) and output, a channel with shift 32 (the rows' other
 * requantization form), per tensor and per channel. Inputs and outputs
 * end at guard pages.
 */
static void test_depthwise_flat_rows_edges(struct test_state *s)
{
	static const size_t channels[] = { 3, 5, 31, 32 };
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 7000;

	for (size_t w = 1; ctx && w <= 140; w++) {
		for (size_t i = 0; i < ARRAY_SIZE(channels); i++) {
			size_t v = (w + i) % 4, kw = 3 + (w % 2);
			size_t pl = w % 3 < kw ? w % 3 : 0;
			struct conv_case c = CONV(.height = 3, .width = w,
				.cin = channels[i], .cout = channels[i],
				.groups = channels[i], .kh = 3, .kw = kw,
				.pt = 1, .pb = 1, .pl = pl,
				.pr = kw - 1 - pl,
				.in_type = v & 1 ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
				.out_type = v & 2 ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
				.in_zp = v & 1 ? -5 : 9,
				.out_zp = v & 2 ? -7 : 13,
				.per_channel = (int)(w % 5 != 0),
				.shift_32 = (int)(w % 3 == 1));

			if (!run_case(s, ctx, &c, seed++))
				goto out;
		}
	}
out:
	enpu_cpu_context_destroy(ctx);
}

static void test_conv_paths_match_reference_at_extreme_values(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);

	for (int f = FILL_MIN; ctx && f <= FILL_MAX; f++) {
		for (int t = 0; t < 2; t++) {
			enum enpu_cpu_dtype type = t ? ENPU_CPU_INT8 : ENPU_CPU_UINT8;
			int32_t zps[2] = { t ? -128 : 0, t ? 127 : 255 };

			for (int z = 0; z < 2; z++) {
				struct conv_case dense = CONV(.height = 6, .width = 7,
					.cin = 9, .cout = 20, .kh = 3, .kw = 3,
					.pt = 1, .pl = 1, .pb = 1, .pr = 1,
					.in_type = type, .out_type = type,
					.in_zp = zps[z], .out_zp = zps[1 - z],
					.fill = (enum fill)f);
				struct conv_case depthwise = dense;

				depthwise.cin = depthwise.cout = depthwise.groups = 35;
				if (!run_case(s, ctx, &dense, 300 + f * 4 + t * 2 + z) ||
				    !run_case(s, ctx, &depthwise, 400 + f * 4 + t * 2 + z))
					goto out;
				dense.large_scales = depthwise.large_scales = 1;
				if (!run_case(s, ctx, &dense, 500 + f * 4 + t * 2 + z) ||
				    !run_case(s, ctx, &depthwise, 600 + f * 4 + t * 2 + z))
					goto out;
			}
		}
	}
out:
	enpu_cpu_context_destroy(ctx);
}

static size_t pick(uint64_t *rng, size_t lo, size_t hi)
{
	return lo + (size_t)(test_random(rng) % (hi - lo + 1));
}

/*
 * Depthwise rows of every length 1-9 (so each count of pixels left after
 * groups of 4, and rows the stack pointer chunk cuts), channel counts on
 * both sides of the 16- and 64-channel blocks, with and without padding,
 * stride 1 and 2, both input types and int32 output: the microkernels' edge
 * cases, each against the reference.
 */
static void test_depthwise_edges_match_reference(struct test_state *s)
{
	static const size_t channels[] = { 1, 3, 15, 16, 17, 31, 32, 33, 63,
					   64, 65, 144 };
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 5000;

	for (size_t w = 1; ctx && w <= 9; w++) {
		for (size_t i = 0; i < ARRAY_SIZE(channels); i++) {
			for (int v = 0; v < 4; v++) {
				size_t pad = v & 1, stride = v & 2 ? 2 : 1;
				struct conv_case c = CONV(.height = 3 + v,
					.width = w + 2 - 2 * pad,
					.cin = channels[i], .cout = channels[i],
					.groups = channels[i], .kh = 3, .kw = 3,
					.sh = stride, .sw = stride,
					.pt = pad, .pl = pad, .pb = pad, .pr = pad,
					.in_type = v == 1 ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
					.out_type = v == 3 ? ENPU_CPU_INT32 :
						    ENPU_CPU_UINT8,
					.in_zp = v == 1 ? -3 : 7,
					.out_zp = v == 3 ? 0 : 11,
					.per_channel = (int)(w & 1));

				if (!run_case(s, ctx, &c, seed++))
					goto out;
			}
		}
	}
out:
	enpu_cpu_context_destroy(ctx);
}

/*
 * Wide rows (conv.c: a dense convolution over 1-7 input channels that are
 * not a multiple of 4, window width above 1, dilation_width 1, at most 16
 * kernel rows, read one piece per kernel row): both sides of each of those
 * conditions, windows that reach into the left and right padding (and an
 * image narrower than the kernel, where no window lies inside), strides
 * 1-3, odd widths, pixels apart (input_pixel_stride > channels: every
 * window copied), batches, int8 input, int32 output, and rows longer than
 * the 128 pixels whose pointers a block builds at a time. The input ends
 * at an inaccessible page, so a piece read past it faults.
 */
static void test_wide_rows_edges_match_reference(struct test_state *s)
{
	const struct conv_case cases[] = {
		/* MobileNet's first layer at a reduced size, and its edges. */
		CONV(.height = 30, .width = 29, .cin = 3, .cout = 32, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_zp = 3),
		CONV(.height = 5, .width = 150, .cin = 3, .cout = 32, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 9, .width = 11, .cin = 3, .cout = 17, .kh = 3, .kw = 3, .sh = 2, .sw = 3, .pt = 0, .pl = 2, .pb = 2, .pr = 2),
		/* Channels 1, 2, 5, 7 (wide), 4 and 8 (per tap: multiples of 4). */
		CONV(.height = 8, .width = 9, .cin = 1, .cout = 16, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 7, .width = 7, .cin = 2, .cout = 40, .kh = 5, .kw = 5, .sh = 2, .sw = 2, .pt = 2, .pl = 2, .pb = 2, .pr = 2),
		CONV(.height = 6, .width = 13, .cin = 5, .cout = 9, .kh = 2, .kw = 4, .pt = 0, .pl = 3, .pb = 1, .pr = 0),
		CONV(.height = 7, .width = 8, .cin = 7, .cout = 33, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 7, .width = 8, .cin = 4, .cout = 33, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 7, .width = 8, .cin = 8, .cout = 33, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		/* Window width 1 (per tap) and 2; dilation_width 2 (per tap)
		 * with dilation_height 2 (wide). */
		CONV(.height = 6, .width = 5, .cin = 3, .cout = 8, .kh = 3, .kw = 1, .pt = 1, .pb = 1),
		CONV(.height = 6, .width = 5, .cin = 3, .cout = 8, .kh = 1, .kw = 2, .pr = 1),
		CONV(.height = 9, .width = 9, .cin = 3, .cout = 16, .kh = 3, .kw = 3, .dh = 1, .dw = 2, .pt = 1, .pl = 2, .pb = 1, .pr = 2),
		CONV(.height = 9, .width = 9, .cin = 3, .cout = 16, .kh = 3, .kw = 3, .dh = 2, .dw = 1, .pt = 2, .pl = 1, .pb = 2, .pr = 1),
		/* 16 kernel rows (wide) and 17 (per tap). */
		CONV(.height = 18, .width = 6, .cin = 3, .cout = 16, .kh = 16, .kw = 3, .pt = 1, .pl = 1, .pb = 0, .pr = 1),
		CONV(.height = 18, .width = 6, .cin = 3, .cout = 16, .kh = 17, .kw = 3, .pt = 1, .pl = 1, .pb = 0, .pr = 1),
		/* Groups: 3 groups of 1 channel are not one group of 3. */
		CONV(.height = 6, .width = 7, .cin = 3, .cout = 6, .groups = 3, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		/* No window inside: the image narrower than the kernel. */
		CONV(.height = 4, .width = 2, .cin = 3, .cout = 16, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1),
		CONV(.height = 3, .width = 1, .cin = 1, .cout = 5, .kh = 2, .kw = 3, .pl = 1, .pr = 1),
		/* Pixels apart, batches, int8 in, int32 and int8 out. */
		CONV(.height = 7, .width = 9, .cin = 3, .cout = 20, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_pad = 1, .out_pad = 2),
		CONV(.batch = 3, .height = 5, .width = 47, .cin = 3, .cout = 32, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT8, .in_zp = -5, .out_zp = 3),
		CONV(.height = 6, .width = 6, .cin = 6, .cout = 24, .kh = 3, .kw = 3, .pl = 1, .pr = 1, .in_type = ENPU_CPU_INT8, .out_type = ENPU_CPU_INT32, .in_zp = 9),
		CONV(.height = 5, .width = 5, .cin = 3, .cout = 32, .kh = 3, .kw = 3, .pt = 1, .pl = 1, .pb = 1, .pr = 1, .per_channel = 0, .relu = 1, .bias = 0),
	};
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(cases); i++)
		if (!run_case(s, ctx, &cases[i], 7000 + i))
			break;
	enpu_cpu_context_destroy(ctx);
}

static void test_conv_paths_match_reference_on_random_shapes(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; ctx && i < 80; i++) {
		struct conv_case c = CONV(.batch = pick(&rng, 1, 2));
		int depthwise = i % 3 == 0;
		size_t g;

		c.kh = pick(&rng, 1, 5);
		c.kw = i % 4 ? c.kh : pick(&rng, 1, 5);
		c.sh = pick(&rng, 1, 2);
		c.sw = i % 5 ? c.sh : pick(&rng, 1, 3);
		c.dh = i % 6 ? 1 : pick(&rng, 1, 3);
		c.dw = i % 7 ? c.dh : pick(&rng, 1, 2);
		c.pt = pick(&rng, 0, c.kh - 1);
		c.pl = pick(&rng, 0, c.kw - 1);
		c.pb = pick(&rng, 0, c.kh - 1);
		c.pr = pick(&rng, 0, c.kw - 1);
		c.height = pick(&rng, c.dh * (c.kh - 1) + 1, 14);
		c.width = pick(&rng, c.dw * (c.kw - 1) + 1, 14);
		if (depthwise) {
			c.cin = c.cout = c.groups = pick(&rng, 2, 100);
		} else {
			g = pick(&rng, 1, 3);
			c.groups = g;
			c.cin = g * pick(&rng, 1, 20);
			c.cout = g * pick(&rng, 1, 40);
		}
		c.in_type = test_random(&rng) & 1 ? ENPU_CPU_INT8 : ENPU_CPU_UINT8;
		c.out_type = test_random(&rng) % 5 == 0 ? ENPU_CPU_INT32 :
			     test_random(&rng) & 1 ? ENPU_CPU_INT8 : ENPU_CPU_UINT8;
		c.in_zp = c.in_type == ENPU_CPU_INT8 ?
			  (int32_t)pick(&rng, 0, 255) - 128 : (int32_t)pick(&rng, 0, 255);
		c.out_zp = c.out_type == ENPU_CPU_INT8 ?
			   (int32_t)pick(&rng, 0, 255) - 128 : (int32_t)pick(&rng, 0, 255);
		if (c.out_type == ENPU_CPU_INT32)
			c.out_zp = 0;
		c.per_channel = (int)(test_random(&rng) & 1);
		c.relu = i % 4 == 1;
		c.bias = i % 8 != 3;
		c.in_pad = i % 9 == 4 ? pick(&rng, 1, 5) : 0;
		c.out_pad = i % 10 == 5 ? pick(&rng, 1, 5) : 0;
		if (!run_case(s, ctx, &c, 1000 + (uint64_t)i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Hand-computed: a 3x3 image holding 1..9, a 3x3 kernel of ones, padding 1,
 * input zero point 1, int32 output. Padding reads as the zero point and
 * adds nothing; the centre sees all nine pixels, sum(0..8) = 36, the top
 * left corner four of them (0 + 1 + 3 + 4 = 8), the top edge six
 * (0 + 1 + 2 + 3 + 4 + 5 = 15), the bottom right corner 4 + 5 + 7 + 8 = 24;
 * the bias 100 comes on top. The depthwise version (2 channels, second channel
 * holding 10 * value with weights of 2) is checked the same way.
 */
static void test_conv_reference_matches_hand_computed_values(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_conv_shape shape = {
		.input_channels = 1, .output_channels = 1, .groups = 1,
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
	};
	uint8_t image[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint8_t image2[18];
	int8_t ones[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	int8_t dw_weights[18];
	int32_t bias[2] = { 100, -7 };
	int32_t out[9], out2[18];
	const int32_t expect[9] = { 108, 115, 112, 121, 136, 127, 120, 133, 124 };
	struct enpu_cpu_conv_args args = {
		.batch = 1, .input_height = 3, .input_width = 3, .input = image,
		.input_type = ENPU_CPU_UINT8, .input_zero_point = 1,
		.output = out, .output_type = ENPU_CPU_INT32,
	};
	/* Stride 2 keeps only the corners. */
	const int32_t expect_corners[4] = { 108, 112, 120, 124 };
	int32_t corners[4];

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_conv2d_reference(ctx, &args, &shape, ones, bias) == 0,
	      "%s", enpu_cpu_context_error(ctx));
	for (int i = 0; i < 9; i++)
		CHECK(s, out[i] == expect[i], "pixel %d: %d, expected %d", i,
		      out[i], expect[i]);

	shape.stride_height = shape.stride_width = 2;
	args.output = corners;
	CHECK(s, enpu_cpu_conv2d_reference(ctx, &args, &shape, ones, bias) == 0,
	      "%s", enpu_cpu_context_error(ctx));
	for (int i = 0; i < 4; i++)
		CHECK(s, corners[i] == expect_corners[i],
		      "stride 2 corner %d: %d, expected %d", i, corners[i],
		      expect_corners[i]);

	shape.stride_height = shape.stride_width = 1;
	shape.input_channels = shape.output_channels = shape.groups = 2;
	for (int i = 0; i < 9; i++) {
		image2[2 * i] = image[i];
		image2[2 * i + 1] = (uint8_t)(10 * image[i]);
		dw_weights[i] = 1;
		dw_weights[9 + i] = 2;
	}
	args.input = image2;
	args.input_zero_point = 0;
	args.output = out2;
	CHECK(s, enpu_cpu_conv2d_reference(ctx, &args, &shape, dw_weights, bias) == 0,
	      "%s", enpu_cpu_context_error(ctx));
	/* Centre: channel 0 sums 1..9 = 45, channel 1 = 2 * 10 * 45 = 900. */
	CHECK(s, out2[8] == 145, "depthwise centre channel 0: %d", out2[8]);
	CHECK(s, out2[9] == 893, "depthwise centre channel 1: %d", out2[9]);
	/* Corner (0,0): 1+2+4+5 = 12; channel 1: 2 * 120 = 240. */
	CHECK(s, out2[0] == 112, "depthwise corner channel 0: %d", out2[0]);
	CHECK(s, out2[1] == 233, "depthwise corner channel 1: %d", out2[1]);
	enpu_cpu_context_destroy(ctx);
}

static void test_conv_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_conv_shape shape = {
		.input_channels = 4, .output_channels = 6, .groups = 1,
		.kernel_height = 3, .kernel_width = 3, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
	};
	int8_t weights[4 * 6 * 9] = { 0 };
	uint8_t input[5 * 5 * 4] = { 0 }, output[5 * 5 * 6];
	int32_t mult[6] = { 1 << 30 }, shift[6] = { 31 };
	struct enpu_cpu_requant rq = {
		.multiplier = mult, .shift = shift, .min = 0, .max = 255,
	};
	enpu_cpu_conv_weights *w = NULL;
	struct enpu_cpu_conv_shape bad;
	struct enpu_cpu_conv_args args;
	size_t oh, ow;

	if (!ctx)
		return;
	bad = shape;
	bad.groups = 4;
	CHECK(s, enpu_cpu_conv_weights_pack(ctx, &bad, weights, NULL, &w) == -EINVAL,
	      "groups not dividing the output channels accepted");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "groups=4"),
	      "message: %s", enpu_cpu_context_error(ctx));
	bad = shape;
	bad.stride_width = 0;
	CHECK(s, enpu_cpu_conv_weights_pack(ctx, &bad, weights, NULL, &w) == -EINVAL,
	      "stride 0 accepted");
	bad = shape;
	bad.kernel_height = 0;
	CHECK(s, enpu_cpu_conv_weights_pack(ctx, &bad, weights, NULL, &w) == -EINVAL,
	      "kernel 0 accepted");
	CHECK(s, enpu_cpu_conv_weights_pack(ctx, &shape, NULL, NULL, &w) == -EINVAL,
	      "NULL weights accepted");
	bad = shape;
	bad.input_channels = 8192;
	bad.kernel_height = bad.kernel_width = 3;
	CHECK(s, enpu_cpu_conv_weights_pack(ctx, &bad, weights, NULL, &w) == -EINVAL,
	      "K over the limit accepted");
	CHECK(s, enpu_cpu_conv_output_size(ctx, &shape, 2, 5, &oh, &ow) == -EINVAL,
	      "kernel larger than the input accepted");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "does not fit"),
	      "message: %s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_conv_output_size(ctx, &shape, 5, 5, &oh, &ow) == 0 &&
	      oh == 3 && ow == 3, "5x5 with 3x3: %zux%zu", oh, ow);

	if (enpu_cpu_conv_weights_pack(ctx, &shape, weights, NULL, &w)) {
		CHECK(s, 0, "pack: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	args = (struct enpu_cpu_conv_args){
		.batch = 1, .input_height = 5, .input_width = 5, .input = input,
		.input_type = ENPU_CPU_UINT8, .weights = w, .output = output,
		.output_type = ENPU_CPU_UINT8, .requant = &rq,
	};
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == 0, "good call failed: %s",
	      enpu_cpu_context_error(ctx));
	args.input_zero_point = 256;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "zero point 256 accepted");
	args.input_zero_point = 0;
	args.input_pixel_stride = 3;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "pixel stride 3 < 4 accepted");
	args.input_pixel_stride = 0;
	args.batch = 0;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "batch 0 accepted");
	args.batch = 1;
	args.requant = NULL;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "8-bit output without requant accepted");
	args.requant = &rq;
	rq.min = 10;
	rq.max = 5;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "empty clamp accepted");
	rq.min = 0;
	rq.max = 255;
	args.input = NULL;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "NULL input accepted");
	args.input = input;
	args.weights = NULL;
	CHECK(s, enpu_cpu_conv2d(ctx, &args) == -EINVAL, "NULL weights accepted");
out:
	enpu_cpu_conv_weights_destroy(w);
	enpu_cpu_context_destroy(ctx);
}

/* ONNX's output extent: (in + pads - dilated kernel) / stride + 1. */
static size_t onnx_extent(size_t in, size_t pads, size_t kernel,
			  size_t dilation, size_t stride)
{
	return (in + pads - (kernel - 1) * dilation - 1) / stride + 1;
}

/*
 * Each rule of the int8 convolution's shape check from both sides, one
 * field at a time, through enpu_cpu_conv_output_size() on a 2^24 x 2^24
 * input (nothing is allocated): 0 (pads: allowed), the bound (the ONNX
 * output size) and one past it (-EINVAL with that rule's message, so one
 * rule cannot stand in for another); whole shapes with groups dividing
 * only the input or only the output channels, and the dilated kernel
 * fitting the padded input exactly or by one too few; each NULL alone.
 */
static void test_conv_shape_bounds_field_by_field(struct test_state *s)
{
#define AT(f) offsetof(struct enpu_cpu_conv_shape, f)
	/* Fields each rule bounds; the input's are its height and width. */
	static const struct {
		const char *rule;
		size_t limit, count, at[4];
		int input;
	} rules[] = {
		{ "channel counts", ENPU_CPU_SIZE_LIMIT, 2,
		  { AT(input_channels), AT(output_channels) }, 0 },
		{ "conv: kernel", ENPU_CPU_MAX_KERNEL, 2,
		  { AT(kernel_height), AT(kernel_width) }, 0 },
		{ "conv: stride", ENPU_CPU_SIZE_LIMIT, 4,
		  { AT(stride_height), AT(stride_width), AT(dilation_height),
		    AT(dilation_width) }, 0 },
		{ "padding too large", ENPU_CPU_SIZE_LIMIT, 4,
		  { AT(pad_top), AT(pad_left), AT(pad_bottom), AT(pad_right) },
		  0 },
		{ "conv: input", ENPU_CPU_SIZE_LIMIT, 2, { 0, 1 }, 1 },
	};
#undef AT
	/* want: the output side (square), 0 for refused by @rule. */
	static const struct {
		size_t cin, cout, groups, kernel, dilation, pad, in, want;
		const char *rule;
	} shapes[] = {
		{ 2, 3, 2, 1, 1, 0, 4, 0, "does not divide" },
		{ 3, 2, 2, 1, 1, 0, 4, 0, "does not divide" },
		{ 6, 6, 0, 1, 1, 0, 4, 0, "does not divide" },
		{ 4, 6, 2, 1, 1, 0, 4, 4, NULL }, { 6, 6, 6, 1, 1, 0, 4, 4, NULL },
		{ 1, 1, 1, 3, 1, 0, 3, 1, NULL }, { 1, 1, 1, 3, 1, 1, 2, 1, NULL },
		{ 1, 1, 1, 3, 1, 0, 2, 0, "does not fit" },
		{ 1, 1, 1, 3, 2, 0, 5, 1, NULL }, { 1, 1, 1, 3, 2, 1, 4, 1, NULL },
		{ 1, 1, 1, 3, 2, 0, 4, 0, "does not fit" },
	};
	const struct enpu_cpu_conv_shape base = {
		.input_channels = 1, .output_channels = 1, .groups = 1,
		.kernel_height = 1, .kernel_width = 1, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
	};
	enpu_cpu_context *ctx = make_context(s);
	size_t oh, ow;

	for (size_t r = 0; ctx && r < ARRAY_SIZE(rules); r++)
	for (size_t f = 0; f < rules[r].count; f++)
	for (size_t v = 0; v < 3; v++) {
		struct enpu_cpu_conv_shape sh = base;
		size_t in[2] = { ENPU_CPU_SIZE_LIMIT, ENPU_CPU_SIZE_LIMIT };
		size_t value = v == 0 ? 0 : v == 1 ? rules[r].limit :
			       rules[r].limit + 1;
		/* pads may be 0 */
		int accept = v == 1 || (v == 0 && r == 3);
		size_t want_h, want_w;
		int err;

		if (rules[r].input)
			in[rules[r].at[f]] = value;
		else
			*(size_t *)((char *)&sh + rules[r].at[f]) = value;
		oh = 0;
		ow = 0;
		err = enpu_cpu_conv_output_size(ctx, &sh, in[0], in[1], &oh,
						&ow);
		if (!accept) {
			CHECK(s, err == -EINVAL &&
			      strstr(enpu_cpu_context_error(ctx), rules[r].rule),
			      "rule '%s' field %zu = %zu: err %d, '%s'",
			      rules[r].rule, f, value, err,
			      enpu_cpu_context_error(ctx));
			continue;
		}
		want_h = onnx_extent(in[0], sh.pad_top + sh.pad_bottom,
				     sh.kernel_height, sh.dilation_height,
				     sh.stride_height);
		want_w = onnx_extent(in[1], sh.pad_left + sh.pad_right,
				     sh.kernel_width, sh.dilation_width,
				     sh.stride_width);
		CHECK(s, !err && oh == want_h && ow == want_w,
		      "rule '%s' field %zu = %zu: %d (%s), %zux%zu, want %zux%zu",
		      rules[r].rule, f, value, err, enpu_cpu_context_error(ctx),
		      oh, ow, want_h, want_w);
	}
	for (size_t i = 0; ctx && i < ARRAY_SIZE(shapes); i++) {
		struct enpu_cpu_conv_shape sh = base;
		int err;

		sh.input_channels = shapes[i].cin;
		sh.output_channels = shapes[i].cout;
		sh.groups = shapes[i].groups;
		sh.kernel_height = shapes[i].kernel;
		sh.kernel_width = shapes[i].kernel;
		sh.dilation_height = shapes[i].dilation;
		sh.dilation_width = shapes[i].dilation;
		sh.pad_bottom = shapes[i].pad;
		sh.pad_right = shapes[i].pad;
		oh = 0;
		ow = 0;
		err = enpu_cpu_conv_output_size(ctx, &sh, shapes[i].in,
						shapes[i].in, &oh, &ow);
		if (shapes[i].want)
			CHECK(s, !err && oh == shapes[i].want &&
			      ow == shapes[i].want, "shape %zu: %d (%s), %zux%zu",
			      i, err, enpu_cpu_context_error(ctx), oh, ow);
		else
			CHECK(s, err == -EINVAL &&
			      strstr(enpu_cpu_context_error(ctx), shapes[i].rule),
			      "shape %zu: err %d, %s", i, err,
			      enpu_cpu_context_error(ctx));
	}
	/* Each pointer alone (0: the shape, which says so). */
	for (int null = 0; ctx && null < 4; null++) {
		size_t *h = null == 1 ? NULL : &oh, *w = null == 2 ? NULL : &ow;

		CHECK(s, enpu_cpu_conv_output_size(null == 3 ? NULL : ctx,
						   null ? &base : NULL, 4, 4, h,
						   w) == -EINVAL,
		      "NULL argument %d accepted", null);
		if (!null)
			CHECK(s, strstr(enpu_cpu_context_error(ctx),
					"shape is NULL"), "NULL shape: %s",
			      enpu_cpu_context_error(ctx));
	}
	enpu_cpu_context_destroy(ctx);
}

const struct test_case conv_tests[] = {
	{ "conv_reference_matches_hand_computed_values",
	  test_conv_reference_matches_hand_computed_values },
	{ "conv_paths_match_reference_on_edge_shapes",
	  test_conv_paths_match_reference_on_edge_shapes },
	{ "conv_paths_match_reference_at_extreme_values",
	  test_conv_paths_match_reference_at_extreme_values },
	{ "conv_paths_match_reference_on_random_shapes",
	  test_conv_paths_match_reference_on_random_shapes },
	{ "depthwise_edges_match_reference",
	  test_depthwise_edges_match_reference },
	{ "wide_rows_edges_match_reference",
	  test_wide_rows_edges_match_reference },
	{ "depthwise_flat_rows_edges", test_depthwise_flat_rows_edges },
	{ "conv_rejects_bad_arguments", test_conv_rejects_bad_arguments },
	{ "conv_shape_bounds_field_by_field",
	  test_conv_shape_bounds_field_by_field },
	{ NULL, NULL },
};
