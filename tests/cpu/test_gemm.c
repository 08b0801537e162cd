// SPDX-License-Identifier: MIT
/*
 * Every GEMM path the machine can run, at 1 and 2 threads, against
 * enpu_cpu_gemm_reference(), byte for byte, including the bytes between
 * rows of C that must stay untouched.
 */
#include "test_cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fill {
	FILL_RANDOM,
	FILL_MIN,      /* lowest value of the type */
	FILL_MAX,      /* highest value of the type */
};

enum scales {
	SCALES_TYPICAL,   /* outputs spread over the 8-bit range */
	SCALES_RANDOM,    /* any multiplier, any shift */
	SCALES_EXTREME,   /* largest multiplier, smallest and largest shift */
	/* Around the AVX-512 high-dword path's bound (shift >= 33,
	 * requant_avx512.h): large multipliers, shifts 33 and 38 ... */
	SCALES_SHIFT_33,
	/* ... and the same with column 17 (the second panel) at 32. */
	SCALES_SHIFT_32_AT_17,
};

struct gemm_case {
	size_t m, k, n;
	enum enpu_cpu_dtype a_type, c_type;
	int32_t a_zero_point, c_zero_point;
	int per_channel;
	int relu6;          /* clamp to [zp, zp + 6] like a fused ReLU6 */
	enum scales scales;
	enum fill a_fill, b_fill;
	size_t lda_pad, ldc_pad;
	int bias;
};

static void fill_bytes(uint64_t *rng, void *buffer, size_t size,
		       enum fill fill, int is_signed)
{
	uint8_t *p = buffer;

	for (size_t i = 0; i < size; i++) {
		if (fill == FILL_MIN)
			p[i] = is_signed ? 0x80 : 0;
		else if (fill == FILL_MAX)
			p[i] = is_signed ? 0x7f : 0xff;
		else
			p[i] = (uint8_t)test_random(rng);
	}
}

/*
 * What one case's paths run and name in a failure. Each case runs twice:
 * with weights packed once by the context's first ISA (every path reads
 * that packing), and with weights packed by each path's own ISA, which
 * is what a context gets in use and where a kernel may have asked for a
 * layout of its own (AVX2: the int16 copy, cpu_internal.h).
 */
struct gemm_path {
	struct test_state *s;
	const struct gemm_case *gc;
	const struct enpu_cpu_gemm_args *args;
	size_t elem, ldc;
	const int8_t *b;          /* non-NULL: pack B per path */
	const int32_t *bias;
};

static int gemm_run(enpu_cpu_context *ctx, const void *argument)
{
	const struct gemm_path *p = argument;
	struct enpu_cpu_gemm_args args = *p->args;
	enpu_cpu_gemm_weights *w = NULL;
	int err;

	if (!p->b)
		return enpu_cpu_gemm(ctx, p->args);
	err = enpu_cpu_gemm_weights_pack(ctx, p->gc->k, p->gc->n, p->b,
					 p->gc->n, p->bias, &w);
	if (err)
		return err;
	args.weights = w;
	err = enpu_cpu_gemm(ctx, &args);
	enpu_cpu_gemm_weights_destroy(w);
	return err;
}

static void gemm_report(enpu_cpu_context *ctx, const void *argument,
			const struct test_path_difference *d)
{
	const struct gemm_path *p = argument;
	const struct gemm_case *gc = p->gc;

	(void)ctx;
	CHECK(p->s, 0,
	      "%s (weights packed %s), %u threads, M=%zu K=%zu N=%zu a=%d c=%d za=%d zc=%d: err=%d, first differing byte %zu (row %zu col %zu) got 0x%02x expected 0x%02x",
	      d->path, p->b ? "by this path" : "once", d->threads, gc->m,
	      gc->k, gc->n, gc->a_type,
	      gc->c_type, gc->a_zero_point, gc->c_zero_point, d->err, d->at,
	      d->at / p->elem / p->ldc, d->at / p->elem % p->ldc, d->got,
	      d->expected);
}

static int run_case(struct test_state *s, enpu_cpu_context *ctx,
		    const struct gemm_case *gc, uint64_t seed)
{
	uint64_t rng = seed | 1;
	size_t lda = gc->k + gc->lda_pad, ldc = gc->n + gc->ldc_pad;
	size_t elem = gc->c_type == ENPU_CPU_INT32 ? 4 : 1;
	size_t c_bytes = (gc->m ? (gc->m - 1) * ldc + gc->n : 0) * elem;
	uint8_t *a = malloc(gc->m * lda + 1);
	int8_t *b = malloc(gc->k * gc->n);
	int32_t *bias = malloc(gc->n * sizeof(int32_t));
	int32_t *mult = malloc(gc->n * sizeof(int32_t));
	int32_t *shift = malloc(gc->n * sizeof(int32_t));
	uint8_t *expected = malloc(c_bytes + 1);
	uint8_t *got = malloc(c_bytes + 1);
	enpu_cpu_gemm_weights *w = NULL;
	struct enpu_cpu_requant rq;
	struct enpu_cpu_gemm_args args;
	int lo = gc->c_type == ENPU_CPU_INT8 ? -128 : 0;
	int hi = gc->c_type == ENPU_CPU_INT8 ? 127 : 255;
	int ok = 1, err;

	if (!a || !b || !bias || !mult || !shift || !expected || !got) {
		CHECK(s, 0, "out of memory");
		ok = 0;
		goto out;
	}
	fill_bytes(&rng, a, gc->m * lda, gc->a_fill,
		   gc->a_type == ENPU_CPU_INT8);
	fill_bytes(&rng, b, gc->k * gc->n, gc->b_fill, 1);
	for (size_t i = 0; i < gc->n; i++) {
		bias[i] = gc->bias ? (int32_t)(test_random(&rng) % 200001) -
				     100000 : 0;
		switch (gc->scales) {
		case SCALES_TYPICAL: {
			/* |acc| ~ 128 * 64 * sqrt(K): aim at +-64 output. */
			double scale = (0.3 + (double)(test_random(&rng) % 1000) /
					1000.0) / (128.0 * (double)(gc->k + 16));

			if (enpu_requant_from_scale(scale, &mult[i], &shift[i])) {
				CHECK(s, 0, "scale %g rejected", scale);
				ok = 0;
				goto out;
			}
			break;
		}
		case SCALES_RANDOM:
			mult[i] = (int32_t)(test_random(&rng) & 0x7fffffff);
			shift[i] = 31 + (int32_t)(test_random(&rng) % 32);
			break;
		case SCALES_EXTREME:
			mult[i] = i % 3 == 2 ? 0 : 0x7fffffff;
			shift[i] = i % 2 ? 62 : 31;
			break;
		case SCALES_SHIFT_33:
		case SCALES_SHIFT_32_AT_17: {
			/* Even columns spread over the 8-bit range (rounding
			 * matters), odd ones far beyond int16 (saturation). */
			double scale = (0.3 + (double)(test_random(&rng) % 1000) /
					1000.0) / (128.0 * (double)(gc->k + 16));

			shift[i] = i % 3 ? 38 : 33;
			if (gc->scales == SCALES_SHIFT_32_AT_17 && i == 17)
				shift[i] = 32;
			mult[i] = i % 2 ? (int32_t)(0x40000000u |
					   (test_random(&rng) & 0x3fffffff)) :
				  (int32_t)(scale * (double)((int64_t)1 << shift[i]));
			break;
		}
		}
	}
	rq = (struct enpu_cpu_requant){
		.multiplier = mult,
		.shift = shift,
		.per_channel = gc->per_channel,
		.zero_point = gc->c_zero_point,
		.min = gc->relu6 ? gc->c_zero_point : lo,
		.max = gc->relu6 ? (gc->c_zero_point + 6 > hi ? hi :
				    gc->c_zero_point + 6) : hi,
	};
	args = (struct enpu_cpu_gemm_args){
		.m = gc->m, .a = a, .lda = lda, .a_type = gc->a_type,
		.a_zero_point = gc->a_zero_point, .c = expected, .ldc = ldc,
		.c_type = gc->c_type, .requant = &rq,
	};
	memset(expected, 0x5a, c_bytes + 1);
	err = enpu_cpu_gemm_reference(ctx, &args, b, gc->n,
				      gc->bias ? bias : NULL, gc->k, gc->n);
	if (err) {
		CHECK(s, err == 0, "reference failed: %s",
		      enpu_cpu_context_error(ctx));
		ok = 0;
		goto out;
	}
	err = enpu_cpu_gemm_weights_pack(ctx, gc->k, gc->n, b, gc->n,
					 gc->bias ? bias : NULL, &w);
	if (err) {
		CHECK(s, err == 0, "pack failed: %s", enpu_cpu_context_error(ctx));
		ok = 0;
		goto out;
	}
	args.weights = w;
	args.c = got;
	{
		/* One byte past C too: a kernel must not write beyond it. */
		struct gemm_path p = { s, gc, &args, elem, ldc, NULL, NULL };
		struct test_output_check check = { gemm_run, gemm_report, &p,
						   got, expected, c_bytes + 1 };

		if (test_each_path_output(ctx, &check))
			ok = 0;
		p.b = b;
		p.bias = gc->bias ? bias : NULL;
		if (ok && test_each_path_output(ctx, &check))
			ok = 0;
	}
out:
	enpu_cpu_gemm_weights_destroy(w);
	free(a);
	free(b);
	free(bias);
	free(mult);
	free(shift);
	free(expected);
	free(got);
	return ok;
}

static enpu_cpu_context *make_context(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	int err = enpu_cpu_context_create(1, &ctx);

	CHECK(s, err == 0, "context create: %d", err);
	return ctx;
}

static void test_gemm_paths_match_reference_on_edge_shapes(struct test_state *s)
{
	static const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 1, 1, 16 }, { 1, 4, 1 }, { 2, 3, 5 },
		{ 7, 13, 17 }, { 8, 32, 32 }, { 9, 33, 33 }, { 4, 16, 16 },
		{ 5, 17, 15 }, { 17, 3, 31 }, { 3, 4099, 47 }, { 31, 257, 48 },
		{ 64, 64, 64 }, { 127, 129, 131 }, { 1, 1280, 1000 },
		{ 49, 320, 1280 }, { 97, 27, 32 }, { 200, 144, 24 },
		{ 11, 1, 97 }, { 2, 2, 65 },
	};
	enpu_cpu_context *ctx = make_context(s);

	if (!ctx)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++) {
		struct gemm_case gc = {
			.m = shapes[i][0], .k = shapes[i][1], .n = shapes[i][2],
			.a_type = ENPU_CPU_UINT8, .c_type = ENPU_CPU_INT8,
			.a_zero_point = 128, .c_zero_point = -3,
			.per_channel = 1, .scales = SCALES_TYPICAL, .bias = 1,
			.lda_pad = i % 3, .ldc_pad = i % 5,
		};

		if (!run_case(s, ctx, &gc, 1000 + i))
			break;
		gc.a_type = ENPU_CPU_INT8;
		gc.a_zero_point = -7;
		gc.c_type = ENPU_CPU_UINT8;
		gc.c_zero_point = 120;
		if (!run_case(s, ctx, &gc, 2000 + i))
			break;
		gc.c_type = ENPU_CPU_INT32;
		if (!run_case(s, ctx, &gc, 3000 + i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The AVX-512 8-bit epilogue of two panels (columns 17-32 of a tile) on
 * the high-dword path: every row count, column masks, int8 and uint8
 * with extreme zero points and a fused clamp, outputs beyond int16
 * before the clamp (shift 33 with large multipliers), per tensor and
 * per channel, and a second panel with one shift of 32 (not taken).
 */
static void test_gemm_two_panel_epilogue_edges(struct test_state *s)
{
	static const size_t shapes[][3] = {
		{ 1, 4, 18 }, { 2, 5, 31 }, { 3, 36, 32 }, { 4, 16, 33 },
		{ 5, 7, 48 }, { 7, 24, 63 }, { 8, 32, 32 }, { 9, 12, 20 },
		{ 15, 64, 96 }, { 33, 3, 144 },
	};
	static const struct {
		enum enpu_cpu_dtype c_type;
		int32_t zc;
		int relu6;
	} outputs[] = {
		{ ENPU_CPU_UINT8, 0, 0 }, { ENPU_CPU_UINT8, 255, 0 },
		{ ENPU_CPU_UINT8, 17, 1 }, { ENPU_CPU_INT8, -128, 0 },
		{ ENPU_CPU_INT8, 127, 0 }, { ENPU_CPU_INT8, -5, 1 },
	};
	static const enum scales scales[] = {
		SCALES_SHIFT_33, SCALES_SHIFT_32_AT_17, SCALES_TYPICAL,
	};
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 9000;

	if (!ctx)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++)
		for (size_t o = 0; o < ARRAY_SIZE(outputs); o++)
			for (size_t c = 0; c < ARRAY_SIZE(scales); c++) {
				struct gemm_case gc = {
					.m = shapes[i][0], .k = shapes[i][1],
					.n = shapes[i][2],
					.a_type = (i + o) % 2 ? ENPU_CPU_INT8 :
								ENPU_CPU_UINT8,
					.a_zero_point = (i + o) % 2 ? -3 : 140,
					.c_type = outputs[o].c_type,
					.c_zero_point = outputs[o].zc,
					.relu6 = outputs[o].relu6,
					.per_channel = (int)((i + c) % 2) ||
						       scales[c] == SCALES_SHIFT_32_AT_17,
					.scales = scales[c], .bias = 1,
					.lda_pad = o % 3, .ldc_pad = i % 4,
				};

				if (!run_case(s, ctx, &gc, seed++))
					goto out;
			}
out:
	enpu_cpu_context_destroy(ctx);
}

static void test_gemm_paths_match_reference_on_random_shapes(struct test_state *s)
{
	static const enum enpu_cpu_dtype c_types[] = {
		ENPU_CPU_UINT8, ENPU_CPU_INT8, ENPU_CPU_INT32,
	};
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 77;

	if (!ctx)
		return;
	for (int i = 0; i < 80; i++) {
		struct gemm_case gc = { 0 };
		int c_signed;

		gc.m = 1 + test_random(&rng) % (i % 4 ? 40 : 300);
		gc.k = 1 + test_random(&rng) % (i % 5 ? 150 : 2000);
		gc.n = 1 + test_random(&rng) % (i % 3 ? 70 : 260);
		gc.a_type = test_random(&rng) % 2 ? ENPU_CPU_UINT8 : ENPU_CPU_INT8;
		gc.c_type = c_types[test_random(&rng) % 3];
		c_signed = gc.c_type == ENPU_CPU_INT8;
		gc.a_zero_point = (int32_t)(test_random(&rng) % 256) -
				  (gc.a_type == ENPU_CPU_INT8 ? 128 : 0);
		gc.c_zero_point = (int32_t)(test_random(&rng) % 256) -
				  (c_signed ? 128 : 0);
		gc.per_channel = (int)(test_random(&rng) % 2);
		gc.relu6 = test_random(&rng) % 4 == 0;
		gc.scales = test_random(&rng) % 3 ? SCALES_TYPICAL : SCALES_RANDOM;
		gc.lda_pad = test_random(&rng) % 9;
		gc.ldc_pad = test_random(&rng) % 9;
		gc.bias = (int)(test_random(&rng) % 2);
		if (!run_case(s, ctx, &gc, 5000 + (uint64_t)i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

static void test_gemm_paths_match_reference_at_extreme_zero_points(struct test_state *s)
{
	static const struct {
		enum enpu_cpu_dtype a_type;
		int32_t za;
		enum fill a_fill, b_fill;
	} extremes[] = {
		{ ENPU_CPU_UINT8, 0, FILL_MAX, FILL_MIN },
		{ ENPU_CPU_UINT8, 255, FILL_MIN, FILL_MIN },
		{ ENPU_CPU_UINT8, 255, FILL_MIN, FILL_MAX },
		{ ENPU_CPU_INT8, -128, FILL_MAX, FILL_MIN },
		{ ENPU_CPU_INT8, 127, FILL_MIN, FILL_MIN },
		{ ENPU_CPU_UINT8, 0, FILL_RANDOM, FILL_RANDOM },
	};
	static const struct {
		enum enpu_cpu_dtype c_type;
		int32_t zc;
	} outputs[] = {
		{ ENPU_CPU_UINT8, 0 }, { ENPU_CPU_UINT8, 255 },
		{ ENPU_CPU_INT8, -128 }, { ENPU_CPU_INT8, 127 },
		{ ENPU_CPU_INT32, 0 },
	};
	enpu_cpu_context *ctx = make_context(s);

	if (!ctx)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(extremes); i++) {
		for (size_t o = 0; o < ARRAY_SIZE(outputs); o++) {
			struct gemm_case gc = {
				.m = 13, .k = 301, .n = 37,
				.a_type = extremes[i].a_type,
				.a_zero_point = extremes[i].za,
				.a_fill = extremes[i].a_fill,
				.b_fill = extremes[i].b_fill,
				.c_type = outputs[o].c_type,
				.c_zero_point = outputs[o].zc,
				.per_channel = 1, .bias = 1,
				.scales = o % 2 ? SCALES_EXTREME : SCALES_RANDOM,
			};

			if (!run_case(s, ctx, &gc, 7000 + i * 10 + o))
				goto out;
		}
	}
out:
	enpu_cpu_context_destroy(ctx);
}

/*
 * K at its limit with the largest |A - za| * |B|: the sum of products is
 * 255 * 128 * 65536 = 2139095040, just below 2^31, and a bias pushes it
 * past: int32 wraps the same way on every path. Three rows (a whole tile
 * of the AVX2 kernel) and weights packed by each path, so every kernel
 * that has a layout of its own reads it.
 */
static void test_gemm_large_k_accumulates_exactly_and_wraps_with_bias(struct test_state *s)
{
	const size_t k = ENPU_CPU_GEMM_MAX_K, n = 3;
	enpu_cpu_context *ctx = make_context(s);
	uint8_t *a = calloc(3, k);
	int8_t *b = malloc(k * n);
	int32_t bias[3] = { 0, 1 << 30, -5 };
	int32_t c[3][3];
	enpu_cpu_gemm_weights *w = NULL;
	struct enpu_cpu_gemm_args args = {
		.m = 3, .a = a, .lda = k, .a_type = ENPU_CPU_UINT8,
		.a_zero_point = 255, .c = c, .ldc = n,
		.c_type = ENPU_CPU_INT32,
	};

	if (!ctx || !a || !b) {
		CHECK(s, 0, "setup failed");
		goto out;
	}
	memset(b, 0x80, k * n);
	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
		if (enpu_cpu_gemm_weights_pack(ctx, k, n, b, n, bias, &w)) {
			CHECK(s, 0, "pack: %s", enpu_cpu_context_error(ctx));
			goto out;
		}
		args.weights = w;
		memset(c, 0, sizeof(c));
		CHECK(s, enpu_cpu_gemm(ctx, &args) == 0, "gemm failed");
		for (int m = 0; m < 3; m++) {
			CHECK(s, c[m][0] == 2139095040, "%s: %d",
			      enpu_cpu_isa_name((enum enpu_cpu_isa)isa), c[m][0]);
			CHECK(s, c[m][1] == (int32_t)(2139095040u + (1u << 30)),
			      "%s: wrapped %d",
			      enpu_cpu_isa_name((enum enpu_cpu_isa)isa), c[m][1]);
			CHECK(s, c[m][2] == 2139095035, "%s: %d",
			      enpu_cpu_isa_name((enum enpu_cpu_isa)isa), c[m][2]);
		}
		enpu_cpu_gemm_weights_destroy(w);
		w = NULL;
	}
out:
	enpu_cpu_gemm_weights_destroy(w);
	enpu_cpu_context_destroy(ctx);
	free(a);
	free(b);
}

static void test_gemm_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint8_t a[64] = { 0 };
	int8_t b[64] = { 0 };
	uint8_t c[64];
	int32_t mult[8] = { 1 << 30 }, shift[8] = { 31 };
	enpu_cpu_gemm_weights *w = NULL;
	struct enpu_cpu_requant rq = {
		.multiplier = mult, .shift = shift, .zero_point = 0,
		.min = -128, .max = 127,
	};
	struct enpu_cpu_gemm_args good = {
		.m = 2, .a = a, .lda = 8, .a_type = ENPU_CPU_UINT8,
		.c = c, .ldc = 8, .c_type = ENPU_CPU_INT8, .requant = &rq,
	};
	struct enpu_cpu_gemm_args bad;
	struct enpu_cpu_requant bad_rq;

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_gemm_weights_pack(ctx, 0, 8, b, 8, NULL, &w) == -EINVAL,
	      "K=0 accepted");
	CHECK(s, enpu_cpu_gemm_weights_pack(ctx, 8, 8, NULL, 8, NULL, &w) == -EINVAL,
	      "NULL B accepted");
	CHECK(s, enpu_cpu_gemm_weights_pack(ctx, 8, 8, b, 4, NULL, &w) == -EINVAL,
	      "ldb < N accepted");
	CHECK(s, enpu_cpu_gemm_weights_pack(ctx, ENPU_CPU_GEMM_MAX_K + 1, 1, b, 1,
					    NULL, &w) == -EINVAL,
	      "K over the limit accepted");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "K=") != NULL,
	      "error message does not name K: '%s'", enpu_cpu_context_error(ctx));
	if (enpu_cpu_gemm_weights_pack(ctx, 8, 8, b, 8, NULL, &w)) {
		CHECK(s, 0, "pack: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	good.weights = w;
	CHECK(s, enpu_cpu_gemm(ctx, &good) == 0, "good args rejected: %s",
	      enpu_cpu_context_error(ctx));

#define EXPECT_REJECTED(change, what)                                     \
	do {                                                              \
		bad = good;                                               \
		bad_rq = rq;                                              \
		bad.requant = &bad_rq;                                    \
		change;                                                   \
		CHECK(s, enpu_cpu_gemm(ctx, &bad) == -EINVAL,             \
		      "%s accepted", what);                               \
	} while (0)

	EXPECT_REJECTED(bad.weights = NULL, "NULL weights");
	EXPECT_REJECTED(bad.a = NULL, "NULL A");
	EXPECT_REJECTED(bad.c = NULL, "NULL C");
	EXPECT_REJECTED(bad.lda = 7, "lda < K");
	EXPECT_REJECTED(bad.ldc = 7, "ldc < N");
	EXPECT_REJECTED(bad.a_zero_point = 256, "uint8 zero point 256");
	EXPECT_REJECTED(bad.a_zero_point = -1, "uint8 zero point -1");
	EXPECT_REJECTED((bad.a_type = ENPU_CPU_INT8, bad.a_zero_point = 128),
			"int8 zero point 128");
	EXPECT_REJECTED(bad.a_type = ENPU_CPU_INT32, "int32 A");
	EXPECT_REJECTED(bad.c_type = (enum enpu_cpu_dtype)99, "unknown C type");
	EXPECT_REJECTED(bad.requant = NULL, "missing requant");
	EXPECT_REJECTED(bad_rq.zero_point = 128, "int8 output zero point 128");
	EXPECT_REJECTED(bad_rq.min = -129, "clamp below int8");
	EXPECT_REJECTED((bad_rq.min = 5, bad_rq.max = 4), "empty clamp");
	EXPECT_REJECTED(bad_rq.shift = (int32_t[]){ 30 }, "shift 30");
	EXPECT_REJECTED(bad_rq.shift = (int32_t[]){ 63 }, "shift 63");
	EXPECT_REJECTED(bad_rq.multiplier = (int32_t[]){ -1 },
			"negative multiplier");
	EXPECT_REJECTED(bad_rq.multiplier = NULL, "NULL multiplier");
	EXPECT_REJECTED((bad_rq.per_channel = 1,
			 bad_rq.shift = (int32_t[]){ 31, 31, 31, 31, 31, 31, 31, 70 }),
			"bad shift on the last channel");
	CHECK(s, strstr(enpu_cpu_context_error(ctx), "channel 7") != NULL,
	      "error message does not name the channel: '%s'",
	      enpu_cpu_context_error(ctx));
	bad = good;
	bad.m = 0;
	bad.a = NULL;
	bad.c = NULL;
	CHECK(s, enpu_cpu_gemm(ctx, &bad) == 0, "M=0 is not a no-op");
out:
	enpu_cpu_gemm_weights_destroy(w);
	enpu_cpu_context_destroy(ctx);
}

const struct test_case gemm_tests[] = {
	{ "gemm_paths_match_reference_on_edge_shapes",
	  test_gemm_paths_match_reference_on_edge_shapes },
	{ "gemm_paths_match_reference_on_random_shapes",
	  test_gemm_paths_match_reference_on_random_shapes },
	{ "gemm_two_panel_epilogue_edges", test_gemm_two_panel_epilogue_edges },
	{ "gemm_paths_match_reference_at_extreme_zero_points",
	  test_gemm_paths_match_reference_at_extreme_zero_points },
	{ "gemm_large_k_accumulates_exactly_and_wraps_with_bias",
	  test_gemm_large_k_accumulates_exactly_and_wraps_with_bias },
	{ "gemm_rejects_bad_arguments", test_gemm_rejects_bad_arguments },
	{ NULL, NULL },
};
