// SPDX-License-Identifier: MIT
/*
 * Elementwise add, mul and clamp on every ISA path, at 1 and 2 threads,
 * against the reference byte for byte, over broadcasting patterns (same
 * shape, scalar, per channel in NHWC and in NCHW, two-sided, transposed
 * strides); inputs end at an inaccessible page. The fixed-point rules are
 * checked by hand and against float arithmetic (within 1).
 */
#include "test_cpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum pattern {
	SAME, SCALAR_B, CHANNEL_NHWC, CHANNEL_NCHW, TWO_SIDED, TRANSPOSED,
	PATTERNS,
};

static size_t elements(size_t dims, const size_t *shape)
{
	size_t n = 1;

	for (size_t d = 0; d < dims; d++)
		n *= shape[d];
	return n;
}

/* Bytes an input needs: 1 + the largest offset its strides reach. */
static size_t extent(size_t dims, const size_t *shape, const size_t *strides)
{
	size_t last = 0;

	for (size_t d = 0; d < dims; d++)
		last += (shape[d] - 1) * strides[d];
	return last + 1;
}

/* What one add or mul case's paths run and name in a failure. */
struct eltwise_path {
	struct test_state *s;
	const struct enpu_cpu_eltwise_args *base, *args;
	int mul;
};

static int eltwise_run(enpu_cpu_context *ctx, const void *argument)
{
	const struct eltwise_path *p = argument;

	return p->mul ? enpu_cpu_mul(ctx, p->args) : enpu_cpu_add(ctx, p->args);
}

static void eltwise_report(enpu_cpu_context *ctx, const void *argument,
			   const struct test_path_difference *d)
{
	const struct eltwise_path *p = argument;

	(void)ctx;
	CHECK(p->s, 0,
	      "%s, %u threads, %s, %zu dims, type %d: err=%d, element %zu got 0x%02x expected 0x%02x",
	      d->path, d->threads, p->mul ? "mul" : "add", p->base->dims,
	      p->base->params->type, d->err, d->at, d->got, d->expected);
}

static int run_case(struct test_state *s, enpu_cpu_context *ctx,
		    const struct enpu_cpu_eltwise_args *base, int mul,
		    uint64_t seed)
{
	uint64_t rng = seed | 1;
	size_t a_bytes = extent(base->dims, base->shape, base->a_strides);
	size_t b_bytes = extent(base->dims, base->shape, base->b_strides);
	size_t out_bytes = elements(base->dims, base->shape);
	uint8_t *a = test_guarded_alloc(a_bytes);
	uint8_t *b = test_guarded_alloc(b_bytes);
	uint8_t *expected = malloc(out_bytes);
	uint8_t *got = test_guarded_alloc(out_bytes);
	struct enpu_cpu_eltwise_args args = *base;
	int ok = 0, err;

	if (!a || !b || !expected || !got) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < a_bytes; i++)
		a[i] = (uint8_t)test_random(&rng);
	for (size_t i = 0; i < b_bytes; i++)
		b[i] = (uint8_t)test_random(&rng);
	args.a = a;
	args.b = b;
	args.output = expected;
	err = mul ? enpu_cpu_mul_reference(ctx, &args) :
		    enpu_cpu_add_reference(ctx, &args);
	if (err) {
		CHECK(s, 0, "reference: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	args.output = got;
	{
		struct eltwise_path p = { s, base, &args, mul };
		struct test_output_check check = { eltwise_run, eltwise_report,
						   &p, got, expected, out_bytes };

		if (test_each_path_output(ctx, &check))
			goto out;
	}
	ok = 1;
out:
	test_guarded_free(a, a_bytes);
	test_guarded_free(b, b_bytes);
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

static double pick_scale(uint64_t *rng)
{
	return 0.001 * (double)pick(rng, 1, 4000);
}

/* Fills args->shape and the strides of one broadcasting pattern (4-D). */
static int make_pattern(enpu_cpu_context *ctx, enum pattern p, uint64_t *rng,
			struct enpu_cpu_eltwise_args *args)
{
	size_t n = pick(rng, 1, 2), c = pick(rng, 1, 70);
	size_t h = pick(rng, 1, 9), w = pick(rng, 1, 9);
	size_t full[4], b_shape[4];
	size_t b_dims = 4;

	if (p == SAME && pick(rng, 0, 3) == 0)
		c = pick(rng, 20000, 40000);   /* several chunks in one run */
	full[0] = n;
	full[1] = h;
	full[2] = w;
	full[3] = c;
	args->dims = 4;
	memcpy(args->shape, full, sizeof(full));
	memcpy(b_shape, full, sizeof(full));
	switch (p) {
	case SAME:
		break;
	case SCALAR_B:
		b_dims = 0;
		break;
	case CHANNEL_NHWC:      /* [N,H,W,C] + [C] */
		b_dims = 1;
		b_shape[0] = c;
		break;
	case CHANNEL_NCHW:      /* NCHW order: [N,C,H,W] + [C,1,1] */
		args->shape[1] = c;
		args->shape[2] = h;
		args->shape[3] = w;
		b_dims = 3;
		b_shape[0] = c;
		b_shape[1] = 1;
		b_shape[2] = 1;
		break;
	case TWO_SIDED:         /* [N,1,W,C] + [H,1,C] */
		b_dims = 3;
		b_shape[0] = h;
		b_shape[1] = 1;
		b_shape[2] = c;
		break;
	default:
		break;
	}
	if (p == TRANSPOSED) {
		/* a read as if stored [C][N][H][W]: inner stride is not 1. */
		args->a_strides[3] = n * h * w;
		args->a_strides[0] = h * w;
		args->a_strides[1] = w;
		args->a_strides[2] = 1;
		return enpu_cpu_broadcast_strides(ctx, 4, args->shape, 4, full,
						  args->b_strides);
	}
	if (p == TWO_SIDED) {
		size_t a_shape[4] = { n, 1, w, c };

		if (enpu_cpu_broadcast_strides(ctx, 4, args->shape, 4, a_shape,
					       args->a_strides))
			return -EINVAL;
	} else if (enpu_cpu_broadcast_strides(ctx, 4, args->shape, 4,
					      args->shape, args->a_strides)) {
		return -EINVAL;
	}
	return enpu_cpu_broadcast_strides(ctx, 4, args->shape, b_dims, b_shape,
					  args->b_strides);
}

static void test_eltwise_paths_match_reference_on_broadcast_patterns(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x2545f491u;

	for (int i = 0; ctx && i < 96; i++) {
		struct enpu_cpu_eltwise_args args = { 0 };
		struct enpu_cpu_eltwise_params params;
		int is_signed = (int)(test_random(&rng) & 1);
		int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
		int mul = i % 2;
		struct enpu_cpu_eltwise_quant q = {
			.type = is_signed ? ENPU_CPU_INT8 : ENPU_CPU_UINT8,
			.a_scale = pick_scale(&rng),
			.a_zero_point = (int32_t)pick(&rng, 0, 255) + lo,
			.b_scale = pick_scale(&rng),
			.b_zero_point = (int32_t)pick(&rng, 0, 255) + lo,
			.output_scale = pick_scale(&rng) * (mul ? 0.05 : 1.0),
			.output_zero_point = (int32_t)pick(&rng, 0, 255) + lo,
			.min = lo, .max = hi,
		};

		if (i % 16 == 5) {
			/* Extreme zero points and a fused ReLU. */
			q.a_zero_point = hi;
			q.b_zero_point = lo;
			q.output_zero_point = lo;
			q.min = lo + 3;
		}
		if ((mul ? enpu_cpu_mul_params(ctx, &q, &params) :
			   enpu_cpu_add_params(ctx, &q, &params))) {
			CHECK(s, 0, "params: %s", enpu_cpu_context_error(ctx));
			break;
		}
		args.params = &params;
		if (make_pattern(ctx, (enum pattern)(i / 2 % PATTERNS), &rng, &args)) {
			CHECK(s, 0, "pattern: %s", enpu_cpu_context_error(ctx));
			break;
		}
		if (!run_case(s, ctx, &args, mul, 3000 + (uint64_t)i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Hand-computed add: a = 3 (scale 0.5) + b = 0 is 1.5 -> 2 (ties up);
 * a = -3 (int8) is -1.5 -> -1; a = 10 (0.5) + b = 20 (0.25) = 10.
 * Mul: 3 * 0.5 times 5 * 0.2, over 0.1, is 15; with zero points 1 and 2:
 * (3 - 1) * 0.5 * (5 - 2) * 0.2 / 0.1 = 6, plus output zero point 7 = 13.
 */
static void test_eltwise_rules_match_hand_computed_values(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_eltwise_quant q = {
		.type = ENPU_CPU_INT8, .a_scale = 0.5, .b_scale = 0.25,
		.output_scale = 1.0, .min = -128, .max = 127,
	};
	struct enpu_cpu_eltwise_params p;
	int8_t a[3] = { 3, -3, 10 }, b[3] = { 0, 0, 20 }, out[3];
	struct enpu_cpu_eltwise_args args = {
		.dims = 1, .shape = { 3 }, .a = a, .a_strides = { 1 }, .b = b,
		.b_strides = { 1 }, .output = out, .params = &p,
	};

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_add_params(ctx, &q, &p) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_add_reference(ctx, &args) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 2 && out[1] == -1 && out[2] == 10, "add: %d %d %d",
	      out[0], out[1], out[2]);
	q = (struct enpu_cpu_eltwise_quant){
		.type = ENPU_CPU_INT8, .a_scale = 0.5, .b_scale = 0.2,
		.output_scale = 0.1, .min = -128, .max = 127,
	};
	a[0] = 3;
	b[0] = 5;
	args.shape[0] = 1;
	CHECK(s, enpu_cpu_mul_params(ctx, &q, &p) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_mul_reference(ctx, &args) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 15, "mul: %d", out[0]);
	q.a_zero_point = 1;
	q.b_zero_point = 2;
	q.output_zero_point = 7;
	CHECK(s, enpu_cpu_mul_params(ctx, &q, &p) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_mul_reference(ctx, &args) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 13, "mul with zero points: %d", out[0]);
	enpu_cpu_context_destroy(ctx);
}

/* One element through the reference; -1000 if it fails. */
static int32_t one_element(enpu_cpu_context *ctx,
			   const struct enpu_cpu_eltwise_params *p, int mul,
			   int32_t a, int32_t b)
{
	uint8_t x = (uint8_t)a, y = (uint8_t)b, out;
	struct enpu_cpu_eltwise_args args = {
		.dims = 1, .shape = { 1 }, .a = &x, .a_strides = { 1 },
		.b = &y, .b_strides = { 1 }, .output = &out, .params = p,
	};

	if (mul ? enpu_cpu_mul_reference(ctx, &args) :
		  enpu_cpu_add_reference(ctx, &args))
		return -1000;
	return out;
}

/* QLinearAdd / QLinearMul in float, rounded: the fixed point is within 1. */
static void test_eltwise_rules_stay_within_one_of_float(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 77;
	int worst = 0;

	for (int i = 0; ctx && i < 2000; i++) {
		struct enpu_cpu_eltwise_quant q = {
			.type = ENPU_CPU_UINT8, .a_scale = pick_scale(&rng),
			.a_zero_point = (int32_t)pick(&rng, 0, 255),
			.b_scale = pick_scale(&rng),
			.b_zero_point = (int32_t)pick(&rng, 0, 255),
			.output_scale = pick_scale(&rng),
			.output_zero_point = (int32_t)pick(&rng, 0, 255),
			.min = 0, .max = 255,
		};
		struct enpu_cpu_eltwise_params p;
		int32_t a = (int32_t)pick(&rng, 0, 255), b = (int32_t)pick(&rng, 0, 255);
		double real;
		int32_t got, want;

		if (enpu_cpu_add_params(ctx, &q, &p))
			continue;
		real = (q.a_scale * (a - q.a_zero_point) +
			q.b_scale * (b - q.b_zero_point)) / q.output_scale;
		want = (int32_t)fmin(255, fmax(0, nearbyint(real) + q.output_zero_point));
		got = one_element(ctx, &p, 0, a, b);
		if (abs(got - want) > worst)
			worst = abs(got - want);
		if (enpu_cpu_mul_params(ctx, &q, &p))
			continue;
		real = q.a_scale * (a - q.a_zero_point) * q.b_scale *
		       (b - q.b_zero_point) / q.output_scale;
		want = (int32_t)fmin(255, fmax(0, nearbyint(real) + q.output_zero_point));
		got = one_element(ctx, &p, 1, a, b);
		if (abs(got - want) > worst)
			worst = abs(got - want);
	}
	CHECK(s, worst <= 1, "fixed point off by %d from float", worst);
	enpu_cpu_context_destroy(ctx);
}

/* One clamp case on one kernel path; every path runs, failed or not. */
struct clamp_path {
	struct test_state *s;
	enum enpu_cpu_dtype type;
	const uint8_t *in, *expected;
	uint8_t *got;
	size_t count;
	int32_t min, max;
};

static void clamp_path(enpu_cpu_context *ctx, void *argument,
		       const char *path, unsigned int threads)
{
	struct clamp_path *p = argument;

	memset(p->got, 0x5a, p->count);
	CHECK(p->s, enpu_cpu_clamp(ctx, p->type, p->in, p->got, p->count,
				   p->min, p->max) == 0 &&
	      test_first_difference(p->got, p->expected, p->count) == p->count,
	      "%s, %u threads, %zu elements [%d, %d]", path, threads,
	      p->count, p->min, p->max);
}

static void test_clamp_paths_match_reference(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 4242;

	for (int i = 0; ctx && i < 24; i++) {
		size_t count = i % 3 ? pick(&rng, 1, 300) : pick(&rng, 16000, 70000);
		int is_signed = i % 2;
		enum enpu_cpu_dtype type = is_signed ? ENPU_CPU_INT8 : ENPU_CPU_UINT8;
		int32_t lo = is_signed ? -128 : 0;
		int32_t min = lo + (int32_t)pick(&rng, 0, 120);
		int32_t max = min + (int32_t)pick(&rng, 0, 135);
		uint8_t *in = test_guarded_alloc(count);
		uint8_t *expected = malloc(count), *got = test_guarded_alloc(count);

		if (!in || !expected || !got) {
			CHECK(s, 0, "out of memory");
		} else {
			for (size_t j = 0; j < count; j++)
				in[j] = (uint8_t)test_random(&rng);
			CHECK(s, enpu_cpu_clamp_reference(ctx, type, in, expected,
							  count, min, max) == 0,
			      "%s", enpu_cpu_context_error(ctx));
			test_each_path(ctx, clamp_path,
				       &(struct clamp_path){ s, type, in,
							     expected, got,
							     count, min, max });
		}
		test_guarded_free(in, count);
		test_guarded_free(got, count);
		free(expected);
	}
	if (ctx) {
		int8_t v[4] = { -100, -1, 0, 100 };

		CHECK(s, enpu_cpu_clamp(ctx, ENPU_CPU_INT8, v, v, 4, -5, 6) == 0,
		      "in place: %s", enpu_cpu_context_error(ctx));
		CHECK(s, v[0] == -5 && v[1] == -1 && v[2] == 0 && v[3] == 6,
		      "clamp in place: %d %d %d %d", v[0], v[1], v[2], v[3]);
		CHECK(s, enpu_cpu_clamp(ctx, ENPU_CPU_UINT8, v, v, 4, 10, 5) == -EINVAL,
		      "empty clamp accepted");
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The strides enpu_cpu_broadcast_strides() gives, element by element: an
 * input dimension equal to the output's steps by the product of the input
 * extents inside it, an extent of 1 (given or missing on the left) steps 0.
 */
static void test_broadcast_strides_are_exact(struct test_state *s)
{
	static const struct {
		size_t dims;
		size_t shape[4];
		size_t strides[4];
	} cases[] = {
		{ 4, { 2, 3, 4, 5 }, { 60, 20, 5, 1 } },
		{ 3, { 3, 1, 5 }, { 0, 5, 0, 1 } },
		{ 4, { 2, 1, 1, 1 }, { 1, 0, 0, 0 } },
		{ 1, { 5 }, { 0, 0, 0, 1 } },
		{ 2, { 4, 5 }, { 0, 0, 5, 1 } },
		{ 4, { 1, 3, 4, 1 }, { 0, 4, 1, 0 } },
		{ 0, { 0 }, { 0, 0, 0, 0 } },
	};
	static const size_t shape[4] = { 2, 3, 4, 5 };
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(cases); i++) {
		size_t got[4] = { 99, 99, 99, 99 };
		int err = enpu_cpu_broadcast_strides(ctx, 4, shape, cases[i].dims,
						     cases[i].shape, got);

		CHECK(s, err == 0, "case %zu: %s", i, enpu_cpu_context_error(ctx));
		CHECK(s, !memcmp(got, cases[i].strides, sizeof(got)),
		      "case %zu: strides %zu %zu %zu %zu", i, got[0], got[1],
		      got[2], got[3]);
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Both inputs stepping 0 over the same dimension (each output row the
 * same sum): the kernels must still write every row. Leading extents of
 * 1 and a last dimension longer than a vector are included.
 */
static void test_eltwise_both_inputs_broadcast_along_one_dimension(struct test_state *s)
{
	static const struct {
		size_t dims, shape[3], a_strides[3], b_strides[3];
	} cases[] = {
		{ 2, { 3, 4 }, { 0, 1 }, { 0, 1 } },
		{ 3, { 1, 5, 37 }, { 0, 0, 1 }, { 0, 0, 1 } },
		{ 3, { 4, 3, 2 }, { 0, 2, 1 }, { 0, 2, 1 } },
		{ 3, { 2, 6, 3 }, { 3, 0, 1 }, { 0, 0, 1 } },
	};
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_eltwise_quant q = {
		.type = ENPU_CPU_UINT8, .a_scale = 0.5, .b_scale = 0.25,
		.output_scale = 0.5, .a_zero_point = 3, .b_zero_point = 7,
		.output_zero_point = 11, .min = 0, .max = 255,
	};
	struct enpu_cpu_eltwise_params p;

	if (!ctx)
		return;
	for (int mul = 0; mul < 2; mul++) {
		if (mul)
			q.output_scale = 0.05;
		CHECK(s, (mul ? enpu_cpu_mul_params(ctx, &q, &p) :
				enpu_cpu_add_params(ctx, &q, &p)) == 0,
		      "%s", enpu_cpu_context_error(ctx));
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			struct enpu_cpu_eltwise_args args = {
				.dims = cases[i].dims, .params = &p,
			};

			memcpy(args.shape, cases[i].shape, sizeof(cases[i].shape));
			memcpy(args.a_strides, cases[i].a_strides,
			       sizeof(cases[i].a_strides));
			memcpy(args.b_strides, cases[i].b_strides,
			       sizeof(cases[i].b_strides));
			if (!run_case(s, ctx, &args, mul, 7000 + i))
				break;
		}
	}
	enpu_cpu_context_destroy(ctx);
}

static void test_eltwise_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	struct enpu_cpu_eltwise_quant q = {
		.type = ENPU_CPU_UINT8, .a_scale = 1, .b_scale = 1,
		.output_scale = 1, .min = 0, .max = 255,
	};
	struct enpu_cpu_eltwise_params p;
	size_t shape[2] = { 3, 4 }, bad[1] = { 3 }, strides[2];
	uint8_t a[12] = { 0 }, out[12];
	struct enpu_cpu_eltwise_args args = {
		.dims = 2, .shape = { 3, 4 }, .a = a, .a_strides = { 4, 1 },
		.b = a, .b_strides = { 4, 1 }, .output = out, .params = &p,
	};

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_add_params(ctx, &q, &p) == 0, "%s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_add(ctx, &args) == 0, "good call: %s", enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_broadcast_strides(ctx, 2, shape, 1, bad, strides) == -EINVAL,
	      "[3] broadcast to [3, 4] accepted");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "does not match"), "message: %s",
	      enpu_cpu_context_error(ctx));
	q.output_scale = 1e-9;
	CHECK(s, enpu_cpu_add_params(ctx, &q, &p) == -EINVAL, "ratio 1e9 accepted");
	q.output_scale = 0;
	CHECK(s, enpu_cpu_mul_params(ctx, &q, &p) == -EINVAL, "scale 0 accepted");
	q.output_scale = 1;
	q.a_zero_point = 256;
	CHECK(s, enpu_cpu_add_params(ctx, &q, &p) == -EINVAL, "zero point 256 accepted");
	q.a_zero_point = 0;
	CHECK(s, enpu_cpu_add_params(ctx, &q, &p) == 0, "%s", enpu_cpu_context_error(ctx));
	args.dims = 0;
	CHECK(s, enpu_cpu_add(ctx, &args) == -EINVAL, "0 dims accepted");
	args.dims = 7;
	CHECK(s, enpu_cpu_mul(ctx, &args) == -EINVAL, "7 dims accepted");
	args.dims = 2;
	args.b = NULL;
	CHECK(s, enpu_cpu_add(ctx, &args) == -EINVAL, "NULL input accepted");
	args.b = a;
	/* Every dimension's extent and strides are checked, the first too. */
	{
		static const struct {
			size_t dim, extent, stride;
			const char *message;
		} cases[] = {
			{ 0, 0, 4, "dimension 0: extent 0" },
			{ 1, 0, 1, "dimension 1: extent 0" },
			{ 0, ((size_t)1 << 40) + 1, 4, "dimension 0: extent" },
			{ 0, 3, ((size_t)1 << 40) + 1, "dimension 0: extent 3 or "
			  "strides 1099511627777" },
			{ 1, 4, ((size_t)1 << 40) + 1, "dimension 1: extent 4 or "
			  "strides 1099511627777" },
			/* 2^21 x 2^20 elements: each fine, the product not. */
			{ 0, (size_t)1 << 21, 0, "more than 2^40 elements" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			struct enpu_cpu_eltwise_args bad_args = args;
			size_t d = cases[i].dim;

			bad_args.shape[d] = cases[i].extent;
			bad_args.a_strides[d] = cases[i].stride;
			if (i == ARRAY_SIZE(cases) - 1)
				bad_args.shape[1] = (size_t)1 << 20;
			CHECK(s, enpu_cpu_add(ctx, &bad_args) == -EINVAL &&
			      strstr(enpu_cpu_context_error(ctx),
				     cases[i].message),
			      "case %zu: %s", i, enpu_cpu_context_error(ctx));
		}
	}
	/* The parameter helpers refuse missing arguments. */
	CHECK(s, enpu_cpu_add_params(NULL, &q, &p) == -EINVAL &&
	      enpu_cpu_add_params(ctx, &q, NULL) == -EINVAL,
	      "add params without a context or output");
	CHECK(s, enpu_cpu_mul_params(NULL, &q, &p) == -EINVAL &&
	      enpu_cpu_mul_params(ctx, &q, NULL) == -EINVAL,
	      "mul params without a context or output");
	enpu_cpu_context_destroy(ctx);
}

const struct test_case eltwise_tests[] = {
	{ "eltwise_rules_match_hand_computed_values",
	  test_eltwise_rules_match_hand_computed_values },
	{ "eltwise_rules_stay_within_one_of_float",
	  test_eltwise_rules_stay_within_one_of_float },
	{ "eltwise_paths_match_reference_on_broadcast_patterns",
	  test_eltwise_paths_match_reference_on_broadcast_patterns },
	{ "clamp_paths_match_reference", test_clamp_paths_match_reference },
	{ "eltwise_rejects_bad_arguments", test_eltwise_rejects_bad_arguments },
	{ "broadcast_strides_are_exact", test_broadcast_strides_are_exact },
	{ "eltwise_both_inputs_broadcast_along_one_dimension",
	  test_eltwise_both_inputs_broadcast_along_one_dimension },
	{ NULL, NULL },
};
