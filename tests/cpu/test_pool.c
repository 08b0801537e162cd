// SPDX-License-Identifier: MIT
/*
 * Max, average and global average pooling on every ISA path, at 1 and 2
 * threads, against the reference byte for byte (including the bytes
 * between output pixels); inputs end at an inaccessible page. The
 * reference and the ONNX output-size rules are checked by hand.
 */
#include "test_cpu.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum kind { MAX, AVERAGE, GLOBAL };

struct pool_case {
	enum kind kind;
	size_t batch, height, width, channels;
	struct enpu_cpu_pool_shape shape;
	enum enpu_cpu_dtype type;
	int32_t in_zp, out_zp;
	double scale;
	int relu;
	size_t in_pad, out_pad;
};

static int call(enpu_cpu_context *ctx, const struct pool_case *c,
		const struct enpu_cpu_pool_args *args, int reference)
{
	switch (c->kind) {
	case MAX:
		return reference ? enpu_cpu_max_pool_reference(ctx, &c->shape, args) :
				   enpu_cpu_max_pool(ctx, &c->shape, args);
	case AVERAGE:
		return reference ? enpu_cpu_average_pool_reference(ctx, &c->shape, args) :
				   enpu_cpu_average_pool(ctx, &c->shape, args);
	default:
		return reference ? enpu_cpu_global_average_pool_reference(ctx, args) :
				   enpu_cpu_global_average_pool(ctx, args);
	}
}

/* What one case's paths run and name in a failure. */
struct pool_path {
	struct test_state *s;
	const struct pool_case *c;
	const struct enpu_cpu_pool_args *args;
};

static int pool_run(enpu_cpu_context *ctx, const void *argument)
{
	const struct pool_path *p = argument;

	return call(ctx, p->c, p->args, 0);
}

static void pool_report(enpu_cpu_context *ctx, const void *argument,
			const struct test_path_difference *d)
{
	const struct pool_path *p = argument;
	const struct pool_case *c = p->c;
	size_t ops = c->channels + c->out_pad;

	(void)ctx;
	CHECK(p->s, 0,
	      "%s, %u threads, kind %d N=%zu %zux%zux%zu k=%zux%zu s=%zux%zu d=%zux%zu pads=%zu,%zu,%zu,%zu ceil=%d incl=%d type=%d: err=%d, byte %zu (pixel %zu channel %zu) got 0x%02x expected 0x%02x",
	      d->path, d->threads, c->kind, c->batch, c->height, c->width,
	      c->channels, c->shape.kernel_height, c->shape.kernel_width,
	      c->shape.stride_height, c->shape.stride_width,
	      c->shape.dilation_height, c->shape.dilation_width,
	      c->shape.pad_top, c->shape.pad_left, c->shape.pad_bottom,
	      c->shape.pad_right, c->shape.ceil_mode,
	      c->shape.count_include_pad, c->type, d->err, d->at,
	      d->at / ops, d->at % ops, d->got, d->expected);
}

static int run_case(struct test_state *s, enpu_cpu_context *ctx,
		    const struct pool_case *c, uint64_t seed)
{
	uint64_t rng = seed | 1;
	size_t ips = c->channels + c->in_pad, ops = c->channels + c->out_pad;
	size_t in_bytes = c->batch * c->height * c->width * ips;
	size_t oh = 1, ow = 1, out_bytes = 0;
	uint8_t *input = test_guarded_alloc(in_bytes);
	uint8_t *expected = NULL, *got = NULL;
	int32_t lo = c->type == ENPU_CPU_INT8 ? -128 : 0;
	int32_t hi = c->type == ENPU_CPU_INT8 ? 127 : 255;
	struct enpu_cpu_pool_args args;
	int ok = 0, err;

	if (!input) {
		CHECK(s, 0, "out of memory");
		return 0;
	}
	if (c->kind != GLOBAL &&
	    enpu_cpu_pool_output_size(ctx, &c->shape, c->height, c->width, &oh, &ow)) {
		CHECK(s, 0, "output size: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	out_bytes = c->batch * oh * ow * ops - c->out_pad;
	expected = malloc(out_bytes);
	got = test_guarded_alloc(out_bytes);
	if (!expected || !got) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < in_bytes; i++)
		input[i] = (uint8_t)test_random(&rng);
	args = (struct enpu_cpu_pool_args){
		.batch = c->batch, .input_height = c->height,
		.input_width = c->width, .channels = c->channels,
		.type = c->type, .input = input, .input_pixel_stride = ips,
		.output = expected, .output_pixel_stride = ops,
		.input_zero_point = c->in_zp, .scale = c->scale,
		.output_zero_point = c->out_zp,
		.min = c->relu ? c->out_zp : lo, .max = hi,
	};
	memset(expected, 0x5a, out_bytes);
	err = call(ctx, c, &args, 1);
	if (err) {
		CHECK(s, 0, "kind %d: reference: %s", c->kind,
		      enpu_cpu_context_error(ctx));
		goto out;
	}
	args.output = got;
	{
		struct pool_path p = { s, c, &args };
		struct test_output_check check = { pool_run, pool_report, &p,
						   got, expected, out_bytes };

		if (test_each_path_output(ctx, &check))
			goto out;
	}
	ok = 1;
out:
	test_guarded_free(input, in_bytes);
	test_guarded_free(got, out_bytes);
	free(expected);
	return ok;
}

static enpu_cpu_context *make_context(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	int err = enpu_cpu_context_create(1, &ctx);

	CHECK(s, err == 0, "context create: %d", err);
	return ctx;
}

static size_t pick(uint64_t *rng, size_t lo, size_t hi)
{
	return lo + (size_t)(test_random(rng) % (hi - lo + 1));
}

static void test_pool_paths_match_reference_on_random_shapes(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x5bd1e995u;

	for (int i = 0; ctx && i < 120; i++) {
		struct pool_case c = { .kind = (enum kind)(i % 3) };
		struct enpu_cpu_pool_shape *p = &c.shape;
		int is_signed = (int)(test_random(&rng) & 1);

		c.batch = pick(&rng, 1, 2);
		c.channels = i % 7 == 0 ? pick(&rng, 100, 300) : pick(&rng, 1, 80);
		p->kernel_height = pick(&rng, 1, 4);
		p->kernel_width = i % 4 ? p->kernel_height : pick(&rng, 1, 5);
		p->stride_height = pick(&rng, 1, 3);
		p->stride_width = i % 5 ? p->stride_height : pick(&rng, 1, 3);
		p->dilation_height = i % 6 ? 1 : pick(&rng, 1, 2);
		p->dilation_width = i % 6 ? 1 : pick(&rng, 1, 2);
		p->pad_top = pick(&rng, 0, p->kernel_height - 1);
		p->pad_left = pick(&rng, 0, p->kernel_width - 1);
		p->pad_bottom = pick(&rng, 0, p->kernel_height - 1);
		p->pad_right = pick(&rng, 0, p->kernel_width - 1);
		p->ceil_mode = i % 2;
		p->count_include_pad = (i / 2) % 2;
		c.height = pick(&rng, p->dilation_height * (p->kernel_height - 1) + 1, 13);
		c.width = pick(&rng, p->dilation_width * (p->kernel_width - 1) + 1, 13);
		c.type = is_signed ? ENPU_CPU_INT8 : ENPU_CPU_UINT8;
		c.in_zp = (int32_t)pick(&rng, 0, 255) - (is_signed ? 128 : 0);
		c.out_zp = (int32_t)pick(&rng, 0, 255) - (is_signed ? 128 : 0);
		c.scale = 0.05 + (double)pick(&rng, 0, 4000) / 1000.0;
		c.relu = i % 8 == 3;
		c.in_pad = i % 9 == 2 ? pick(&rng, 1, 4) : 0;
		c.out_pad = i % 10 == 7 ? pick(&rng, 1, 4) : 0;
		if (!run_case(s, ctx, &c, 500 + (uint64_t)i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

static void test_pool_paths_match_reference_at_extreme_zero_points(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);

	for (int k = 0; ctx && k < 3; k++) {
		for (int t = 0; t < 2; t++) {
			for (int z = 0; z < 2; z++) {
				struct pool_case c = {
					.kind = (enum kind)k, .batch = 2,
					.height = 7, .width = 9, .channels = 77,
					.shape = { .kernel_height = 3, .kernel_width = 3,
						   .stride_height = 2, .stride_width = 2,
						   .dilation_height = 1, .dilation_width = 1,
						   .pad_top = 1, .pad_left = 1,
						   .pad_bottom = 1, .pad_right = 1,
						   .ceil_mode = 1 },
					.type = t ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
					.in_zp = t ? (z ? 127 : -128) : (z ? 255 : 0),
					.out_zp = t ? (z ? -128 : 127) : (z ? 0 : 255),
					.scale = z ? 0.01 : 3.5,
				};

				if (!run_case(s, ctx, &c, 900 + (uint64_t)(k * 4 + t * 2 + z)))
					goto out;
			}
		}
	}
	/* A global pool over a large image. */
	{
		struct pool_case c = {
			.kind = GLOBAL, .batch = 1, .height = 56, .width = 56,
			.channels = 144, .type = ENPU_CPU_UINT8, .in_zp = 3,
			.out_zp = 250, .scale = 1.7,
		};

		run_case(s, ctx, &c, 999);
	}
	/*
	 * Regression (issue 11): the runtime passes a global pool's spatial
	 * axes as one row, 1 x H*W; 1600 (a 40x40 squeeze-excite) and 5000
	 * pixels used to fail the windowed pools' 1..1024 kernel bound.
	 */
	for (int w = 0; w < 2; w++) {
		struct pool_case c = {
			.kind = GLOBAL, .batch = 2, .height = 1,
			.width = w ? 5000 : 1600, .channels = 19,
			.type = w ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
			.in_zp = w ? -3 : 7, .out_zp = 11, .scale = 0.9,
		};

		if (!run_case(s, ctx, &c, 1000 + (uint64_t)w))
			break;
	}
out:
	enpu_cpu_context_destroy(ctx);
}

/*
 * Hand-computed: a 2x2 image [1 2; 3 4], kernel 2x2, stride 1, padding 1
 * on every side, so a 3x3 output. Max takes the largest input pixel in the
 * window; average without count_include_pad divides by the input pixels
 * (corner: 1/1 = 1, top edge: (1+2)/2 = 1.5 -> 2, centre: 10/4 = 2.5 -> 3:
 * ties round up), with count_include_pad by 4 (corner 0.25 -> 0, top edge
 * 0.75 -> 1, centre 3).
 */
static void test_pool_reference_matches_hand_computed_values(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint8_t image[4] = { 1, 2, 3, 4 }, out[9];
	struct enpu_cpu_pool_shape shape = {
		.kernel_height = 2, .kernel_width = 2, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
		.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
	};
	struct enpu_cpu_pool_args args = {
		.batch = 1, .input_height = 2, .input_width = 2, .channels = 1,
		.type = ENPU_CPU_UINT8, .input = image, .output = out,
		.scale = 1.0, .min = 0, .max = 255,
	};
	const uint8_t max_expected[9] = { 1, 2, 2, 3, 4, 4, 3, 4, 4 };
	const uint8_t average_expected[9] = { 1, 2, 2, 2, 3, 3, 3, 4, 4 };
	const uint8_t including_pad[9] = { 0, 1, 1, 1, 3, 2, 1, 2, 1 };
	size_t oh, ow;

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_max_pool_reference(ctx, &shape, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, !memcmp(out, max_expected, 9), "max: %u %u %u / %u %u %u / %u %u %u",
	      out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8]);
	CHECK(s, enpu_cpu_average_pool_reference(ctx, &shape, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, !memcmp(out, average_expected, 9), "average: %u %u %u / %u %u %u / %u %u %u",
	      out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8]);
	shape.count_include_pad = 1;
	CHECK(s, enpu_cpu_average_pool_reference(ctx, &shape, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, !memcmp(out, including_pad, 9), "count_include_pad: %u %u %u / %u %u %u / %u %u %u",
	      out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8]);
	CHECK(s, enpu_cpu_global_average_pool_reference(ctx, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 3, "global average of 1..4: %u", out[0]);
	/* Scale 0.5 and output zero point 100: 2.5 * 0.5 = 1.25 -> 101. */
	args.scale = 0.5;
	args.output_zero_point = 100;
	CHECK(s, enpu_cpu_global_average_pool_reference(ctx, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 101, "global average, scale 0.5: %u", out[0]);
	/* 1 x 1600 pixels, each 3 above the zero point 5: the mean is 3. */
	{
		uint8_t *row = malloc(1600);

		if (row) {
			struct enpu_cpu_pool_args wide = {
				.batch = 1, .input_height = 1, .input_width = 1600,
				.channels = 1, .type = ENPU_CPU_UINT8, .input = row,
				.output = out, .input_zero_point = 5, .scale = 1.0,
				.min = 0, .max = 255,
			};

			memset(row, 8, 1600);
			CHECK(s, enpu_cpu_global_average_pool_reference(ctx, &wide) == 0 &&
			      out[0] == 3, "1x1600 reference: %u %s", out[0],
			      enpu_cpu_context_error(ctx));
			out[0] = 0;
			CHECK(s, enpu_cpu_global_average_pool(ctx, &wide) == 0 &&
			      out[0] == 3, "1x1600: %u %s", out[0],
			      enpu_cpu_context_error(ctx));
			free(row);
		}
	}

	/* ONNX sizes: 4 with kernel 3 stride 2 is 1 floor, 2 ceil. */
	shape = (struct enpu_cpu_pool_shape){
		.kernel_height = 3, .kernel_width = 3, .stride_height = 2,
		.stride_width = 2, .dilation_height = 1, .dilation_width = 1,
	};
	CHECK(s, enpu_cpu_pool_output_size(ctx, &shape, 4, 4, &oh, &ow) == 0 &&
	      oh == 1 && ow == 1, "floor: %zux%zu", oh, ow);
	shape.ceil_mode = 1;
	CHECK(s, enpu_cpu_pool_output_size(ctx, &shape, 4, 4, &oh, &ow) == 0 &&
	      oh == 2 && ow == 2, "ceil: %zux%zu", oh, ow);
	/*
	 * 5 with kernel 2, stride 3, end pad 1: ceil gives 3 windows, but the
	 * third would start at 6, past the input and its leading pad: dropped.
	 */
	shape = (struct enpu_cpu_pool_shape){
		.kernel_height = 2, .kernel_width = 2, .stride_height = 3,
		.stride_width = 3, .dilation_height = 1, .dilation_width = 1,
		.pad_bottom = 1, .pad_right = 1, .ceil_mode = 1,
	};
	CHECK(s, enpu_cpu_pool_output_size(ctx, &shape, 5, 5, &oh, &ow) == 0 &&
	      oh == 2 && ow == 2, "ceil, dropped window: %zux%zu", oh, ow);
	enpu_cpu_context_destroy(ctx);
}

static void test_pool_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint8_t image[16] = { 0 }, out[16];
	struct enpu_cpu_pool_shape shape = {
		.kernel_height = 2, .kernel_width = 2, .stride_height = 2,
		.stride_width = 2, .dilation_height = 1, .dilation_width = 1,
	};
	struct enpu_cpu_pool_args args = {
		.batch = 1, .input_height = 4, .input_width = 4, .channels = 1,
		.type = ENPU_CPU_UINT8, .input = image, .output = out,
		.scale = 1.0, .min = 0, .max = 255,
	};

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_average_pool(ctx, &shape, &args) == 0, "good call: %s",
	      enpu_cpu_context_error(ctx));
	shape.pad_top = 2;
	CHECK(s, enpu_cpu_max_pool(ctx, &shape, &args) == -EINVAL, "pad >= kernel accepted");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "pads"), "message: %s",
	      enpu_cpu_context_error(ctx));
	shape.pad_top = 0;
	shape.stride_height = 0;
	CHECK(s, enpu_cpu_max_pool(ctx, &shape, &args) == -EINVAL, "stride 0 accepted");
	shape.stride_height = 2;
	args.scale = -1.0;
	CHECK(s, enpu_cpu_average_pool(ctx, &shape, &args) == -EINVAL, "negative scale accepted");
	args.scale = 1e12;
	CHECK(s, enpu_cpu_average_pool(ctx, &shape, &args) == -EINVAL, "huge scale accepted");
	args.scale = 1.0;
	args.type = ENPU_CPU_INT32;
	CHECK(s, enpu_cpu_max_pool(ctx, &shape, &args) == -EINVAL, "int32 accepted");
	args.type = ENPU_CPU_UINT8;
	args.min = 200;
	args.max = 100;
	CHECK(s, enpu_cpu_average_pool(ctx, &shape, &args) == -EINVAL, "empty clamp accepted");
	args.min = 0;
	args.max = 255;
	args.input_height = 1;
	CHECK(s, enpu_cpu_max_pool(ctx, &shape, &args) == -EINVAL, "kernel larger than input accepted");
	args.input_height = 4;
	args.output = NULL;
	CHECK(s, enpu_cpu_global_average_pool(ctx, &args) == -EINVAL, "NULL output accepted");
	/* Global pools: any image up to 2^24 pixels, nothing beyond. */
	{
		uint8_t one = 0;

		args.output = &one;
		args.input_height = 1;
		args.input_width = ((size_t)1 << 24) + 1;
		CHECK(s, enpu_cpu_global_average_pool(ctx, &args) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "pixels"),
		      "2^24 + 1 pixels accepted: %s", enpu_cpu_context_error(ctx));
		args.input_width = 0;
		CHECK(s, enpu_cpu_global_average_pool_reference(ctx, &args) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "pixels"),
		      "0 pixels accepted: %s", enpu_cpu_context_error(ctx));
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Each bound of enpu_cpu_pool_output_size() from both sides, one field at
 * a time, on a 2^24 x 2^24 input (nothing is allocated): at the bound the
 * ONNX output size, one past it (or 0) -EINVAL with the rule's message.
 */
static void test_pool_output_size_bounds_field_by_field(struct test_state *s)
{
	enum { KERNEL, STEP, PAD, INPUT };
	static const struct {
		const char *name;
		size_t offset;
		int rule;
	} fields[] = {
#define FIELD(f, rule) { #f, offsetof(struct enpu_cpu_pool_shape, f), rule }
		FIELD(kernel_height, KERNEL), FIELD(kernel_width, KERNEL),
		FIELD(stride_height, STEP), FIELD(stride_width, STEP),
		FIELD(dilation_height, STEP), FIELD(dilation_width, STEP),
		FIELD(pad_top, PAD), FIELD(pad_left, PAD),
		FIELD(pad_bottom, PAD), FIELD(pad_right, PAD),
		{ "input_height", 0, INPUT }, { "input_width", 1, INPUT },
#undef FIELD
	};
	static const char *const messages[] = {
		"pool: kernel", "pool: stride", "pool: pads", "pool: input",
	};
	const size_t big = ENPU_CPU_SIZE_LIMIT;
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_pool_shape one = {
		.kernel_height = 1, .kernel_width = 1, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
	};
	size_t h = 0, w = 0;

	/* Each pointer argument alone, then a shape that is fine. */
	CHECK(s, enpu_cpu_pool_output_size(NULL, &one, 4, 4, &h, &w) == -EINVAL &&
	      enpu_cpu_pool_output_size(ctx, &one, 4, 4, NULL, &w) == -EINVAL &&
	      enpu_cpu_pool_output_size(ctx, &one, 4, 4, &h, NULL) == -EINVAL,
	      "a NULL context or output size accepted");
	CHECK(s, ctx && enpu_cpu_pool_output_size(ctx, NULL, 4, 4, &h, &w) == -EINVAL &&
	      strstr(enpu_cpu_context_error(ctx), "shape is NULL"),
	      "NULL shape: %s", ctx ? enpu_cpu_context_error(ctx) : "");
	CHECK(s, ctx && enpu_cpu_pool_output_size(ctx, &one, 4, 5, &h, &w) == 0 &&
	      h == 4 && w == 5, "1x1 pool of 4x5: %zux%zu", h, w);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(fields); i++) {
		int rule = fields[i].rule;
		/*
		 * Kernel 3x3 where pads are tried (a pad of 2 allowed, 3
		 * not), else 1x1 so that any dilation fits.
		 */
		size_t side = rule == PAD ? 3 : 1;
		size_t limit = rule == KERNEL ? ENPU_CPU_MAX_KERNEL :
			       rule == PAD ? 2 : big;

		for (size_t v = 0; v < 3; v++) {
			struct enpu_cpu_pool_shape sh = {
				.kernel_height = side, .kernel_width = side,
				.stride_height = 1, .stride_width = 1,
				.dilation_height = 1, .dilation_width = 1,
			};
			size_t in[2] = { big, big }, value, oh = 0, ow = 0;
			size_t want_h, want_w, span_h, span_w;
			int err, accept;

			/* 0 (allowed for pads only), the bound, one past. */
			value = v == 0 ? 0 : v == 1 ? limit : limit + 1;
			accept = v == 1 || (v == 0 && rule == PAD);
			if (rule == INPUT)
				in[fields[i].offset] = value;
			else
				*(size_t *)((char *)&sh + fields[i].offset) = value;
			err = enpu_cpu_pool_output_size(ctx, &sh, in[0], in[1],
							&oh, &ow);
			if (!accept) {
				CHECK(s, err == -EINVAL &&
				      strstr(enpu_cpu_context_error(ctx),
					     messages[rule]),
				      "%s = %zu: err %d, %s", fields[i].name,
				      value, err, enpu_cpu_context_error(ctx));
				continue;
			}
			span_h = sh.dilation_height * (sh.kernel_height - 1) + 1;
			span_w = sh.dilation_width * (sh.kernel_width - 1) + 1;
			want_h = (in[0] + sh.pad_top + sh.pad_bottom - span_h) /
				 sh.stride_height + 1;
			want_w = (in[1] + sh.pad_left + sh.pad_right - span_w) /
				 sh.stride_width + 1;
			CHECK(s, err == 0 && oh == want_h && ow == want_w,
			      "%s = %zu: err %d (%s), %zux%zu, want %zux%zu",
			      fields[i].name, value, err,
			      enpu_cpu_context_error(ctx), oh, ow, want_h,
			      want_w);
		}
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Which arguments each pool reads, asserted rule by rule: average pooling
 * checks its input and output zero points (each bound from both sides,
 * for both types), max pooling reads neither, nor the scale or the clamp,
 * and returns the plain maximum whatever they hold.
 */
static void test_pool_zero_point_rules(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint8_t image[4] = { 9, 200, 3, 7 }, out[1] = { 0 };
	struct enpu_cpu_pool_shape shape = {
		.kernel_height = 2, .kernel_width = 2, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
	};
	static const struct {
		enum enpu_cpu_dtype type;
		int32_t zero_point;
		int ok;
	} zps[] = {
		{ ENPU_CPU_UINT8, 0, 1 }, { ENPU_CPU_UINT8, 255, 1 },
		{ ENPU_CPU_UINT8, -1, 0 }, { ENPU_CPU_UINT8, 256, 0 },
		{ ENPU_CPU_INT8, -128, 1 }, { ENPU_CPU_INT8, 127, 1 },
		{ ENPU_CPU_INT8, -129, 0 }, { ENPU_CPU_INT8, 128, 0 },
	};

	for (size_t i = 0; ctx && i < ARRAY_SIZE(zps); i++) {
		for (int side = 0; side < 2; side++) {
			struct enpu_cpu_pool_args args = {
				.batch = 1, .input_height = 2, .input_width = 2,
				.channels = 1, .type = zps[i].type,
				.input = image, .output = out, .scale = 1.0,
				.min = zps[i].type == ENPU_CPU_INT8 ? -128 : 0,
				.max = zps[i].type == ENPU_CPU_INT8 ? 127 : 255,
			};
			char want[64];
			int err;

			if (side)
				args.output_zero_point = zps[i].zero_point;
			else
				args.input_zero_point = zps[i].zero_point;
			err = enpu_cpu_average_pool(ctx, &shape, &args);
			snprintf(want, sizeof(want), "%s zero point %d",
				 side ? "output" : "input", zps[i].zero_point);
			CHECK(s, zps[i].ok ? err == 0 :
			      err == -EINVAL &&
			      strstr(enpu_cpu_context_error(ctx), want),
			      "type %d %s: err %d, %s", zps[i].type, want, err,
			      enpu_cpu_context_error(ctx));
		}
	}
	if (ctx) {
		struct enpu_cpu_pool_args args = {
			.batch = 1, .input_height = 2, .input_width = 2,
			.channels = 1, .type = ENPU_CPU_UINT8, .input = image,
			.output = out, .input_zero_point = 300,
			.output_zero_point = -5, .scale = 0, .min = 250,
			.max = 10,
		};

		CHECK(s, enpu_cpu_max_pool(ctx, &shape, &args) == 0 &&
		      out[0] == 200, "max pool with unused fields set: %s, %u",
		      enpu_cpu_context_error(ctx), out[0]);
		CHECK(s, enpu_cpu_average_pool(ctx, &shape, &args) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "input zero point 300"),
		      "average pool: %s", enpu_cpu_context_error(ctx));
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Windows of more taps than the kernels' on-stack pointer array (512):
 * exactly 512 (16x32), one row more (17x32), and 40x40 = 1600, max and
 * average, padded and not, against the reference on every path.
 */
static void test_pool_windows_beyond_the_stack_array(struct test_state *s)
{
	static const size_t windows[][2] = { { 16, 32 }, { 17, 32 }, { 40, 40 } };
	enpu_cpu_context *ctx = make_context(s);

	for (size_t w = 0; ctx && w < ARRAY_SIZE(windows); w++) {
		for (int k = 0; k < 2; k++) {
			size_t kh = windows[w][0], kw = windows[w][1];
			size_t pad = k;
			struct pool_case c = {
				.kind = k ? AVERAGE : MAX, .batch = 1,
				.height = kh + 1, .width = kw + 2, .channels = 17,
				.shape = { .kernel_height = kh, .kernel_width = kw,
					   .stride_height = 1, .stride_width = 1,
					   .dilation_height = 1, .dilation_width = 1,
					   .pad_top = pad, .pad_left = pad,
					   .pad_bottom = pad, .pad_right = pad },
				.type = k ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
				.in_zp = k ? -5 : 9, .out_zp = k ? 3 : 0,
				.scale = 1.0,
			};

			if (!run_case(s, ctx, &c, 1100 + (uint64_t)(w * 2 + k)))
				goto out;
		}
	}
out:
	enpu_cpu_context_destroy(ctx);
}

const struct test_case pool_tests[] = {
	{ "pool_reference_matches_hand_computed_values",
	  test_pool_reference_matches_hand_computed_values },
	{ "pool_paths_match_reference_on_random_shapes",
	  test_pool_paths_match_reference_on_random_shapes },
	{ "pool_paths_match_reference_at_extreme_zero_points",
	  test_pool_paths_match_reference_at_extreme_zero_points },
	{ "pool_rejects_bad_arguments", test_pool_rejects_bad_arguments },
	{ "pool_zero_point_rules", test_pool_zero_point_rules },
	{ "pool_output_size_bounds_field_by_field",
	  test_pool_output_size_bounds_field_by_field },
	{ "pool_windows_beyond_the_stack_array",
	  test_pool_windows_beyond_the_stack_array },
	{ NULL, NULL },
};
