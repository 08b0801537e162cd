// SPDX-License-Identifier: MIT
/*
 * Argument rules of the GEMM, float GEMM, element-wise and float
 * convolution entry points, each at its bound and one past it, asserting
 * which rule refused (a later rule's message at the bound: nothing is
 * allocated or computed); and the kernel table: every ISA level this CPU
 * runs has a kernel of its own in every family. Cases that mutants of
 * userspace/runtime/cpu survived (tools/mutation/README.md).
 */
#include "test_cpu.h"

#include <errno.h>
#include <string.h>

#include "enpu_cpu_float.h"
#include "kernels.h"

static enpu_cpu_context *make_context(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	int err = enpu_cpu_context_create(1, &ctx);

	CHECK(s, err == 0, "context create: %d", err);
	return ctx;
}

/* @err is -EINVAL and the context's message names @rule. */
static void expect_rule(struct test_state *s, enpu_cpu_context *ctx, int err,
			const char *rule, const char *what)
{
	CHECK(s, err == -EINVAL && strstr(enpu_cpu_context_error(ctx), rule),
	      "%s: err %d, '%s' lacks '%s'", what, err,
	      enpu_cpu_context_error(ctx), rule);
}

/*
 * int8 GEMM weights: N of 2^30 passes the size rule and meets the ldb
 * rule (ldb one short), 2^30 + 1 is too large; K likewise at
 * ENPU_CPU_GEMM_MAX_K. B is never read: a rule refuses first.
 */
static void test_gemm_pack_bounds(struct test_state *s)
{
	const size_t big = (size_t)1 << 30;
	enpu_cpu_context *ctx = make_context(s);
	enpu_cpu_gemm_weights *w = NULL;
	int8_t b = 0;

	if (!ctx)
		return;
	expect_rule(s, ctx, enpu_cpu_gemm_weights_pack(ctx, 1, big, &b, big - 1,
						       NULL, &w),
		    "smaller than N", "N = 2^30, ldb one short");
	expect_rule(s, ctx, enpu_cpu_gemm_weights_pack(ctx, 1, big + 1, &b,
						       big + 1, NULL, &w),
		    "too large", "N = 2^30 + 1");
	expect_rule(s, ctx, enpu_cpu_gemm_weights_pack(ctx, ENPU_CPU_GEMM_MAX_K,
						       4, &b, 3, NULL, &w),
		    "smaller than N", "K at the limit, ldb one short");
	expect_rule(s, ctx, enpu_cpu_gemm_weights_pack(ctx,
						       ENPU_CPU_GEMM_MAX_K + 1,
						       4, &b, 4, NULL, &w),
		    "exceeds", "K one past the limit");
	CHECK(s, !w, "weights returned for a refused shape");
	enpu_cpu_context_destroy(ctx);
}

/*
 * Float GEMM packing: each way of being invalid alone (NULL B, K or N 0
 * or past 2^31, ldb one short of N, or of K when B is transposed) is
 * -EINVAL with the packing rule's message, never an attempt to pack; the
 * same ldb, one larger, packs.
 */
static void test_sgemm_pack_rules(struct test_state *s)
{
	const size_t over = ((size_t)1 << 31) + 1;
	static const float b[9];
	const struct {
		size_t k, n, ldb;
		int transposed;
		const float *b;
		int ok;
	} cases[] = {
		{ 1, 1, 1, 0, NULL, 0 }, { 0, 1, 1, 0, b, 0 },
		{ 1, 0, 1, 0, b, 0 }, { over, 1, 1, 0, b, 0 },
		{ 1, over, over, 0, b, 0 }, { 2, 3, 2, 0, b, 0 },
		{ 2, 3, 3, 0, b, 1 }, { 3, 2, 2, 1, b, 0 }, { 3, 2, 3, 1, b, 1 },
	};
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(cases); i++) {
		enpu_cpu_sgemm_weights *w = NULL;
		int err = enpu_cpu_sgemm_weights_pack(ctx, cases[i].k, cases[i].n,
						      cases[i].b, cases[i].ldb,
						      cases[i].transposed, &w);

		if (cases[i].ok)
			CHECK(s, err == 0 && w, "case %zu: %s", i,
			      enpu_cpu_context_error(ctx));
		else
			expect_rule(s, ctx, err, "is invalid", "sgemm pack case");
		enpu_cpu_sgemm_weights_destroy(w);
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Float GEMM sizes: m, n, k at 2^31 pass the size rule and meet the next
 * one (A missing), one more is outside the range.
 */
static void test_sgemm_size_bounds(struct test_state *s)
{
	const size_t limit = (size_t)1 << 31;
	enpu_cpu_context *ctx = make_context(s);
	float c = 0;

	for (int field = 0; ctx && field < 3; field++) {
		for (size_t extra = 0; extra < 2; extra++) {
			struct enpu_cpu_sgemm_args a = {
				.m = 1, .n = 1, .k = 1, .lda = 1, .c = &c,
				.ldc = 1,
			};
			size_t *v = field == 0 ? &a.m : field == 1 ? &a.n : &a.k;

			*v = limit + extra;
			a.lda = a.k;
			a.ldc = a.n;
			expect_rule(s, ctx, enpu_cpu_sgemm(ctx, &a),
				    extra ? "outside 1..2^31" : "A or C missing",
				    field == 0 ? "m" : field == 1 ? "n" : "k");
		}
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Element-wise: 2^40 elements in all pass the count rule (and meet the
 * NULL output), one row more is too many.
 */
static void test_eltwise_element_count_bound(struct test_state *s)
{
	const struct enpu_cpu_eltwise_params params = {
		.type = ENPU_CPU_UINT8, .max = 255,
	};
	enpu_cpu_context *ctx = make_context(s);
	uint8_t a = 0, b = 0;

	for (size_t extra = 0; ctx && extra < 2; extra++) {
		struct enpu_cpu_eltwise_args args = {
			.dims = 2, .shape = { ((size_t)1 << 20) + extra,
					      (size_t)1 << 20 },
			.a = &a, .b = &b, .params = &params,
		};

		expect_rule(s, ctx, enpu_cpu_add(ctx, &args),
			    extra ? "more than 2^40 elements" :
			    "an input or the output is NULL",
			    extra ? "2^40 + 2^20 elements" : "2^40 elements");
	}
	enpu_cpu_context_destroy(ctx);
}

/* The float convolution and its reference refuse each NULL buffer alone. */
static void test_fconv_null_buffers(struct test_state *s)
{
	const struct enpu_cpu_fconv_shape sh = {
		.batch = 1, .in_channels = 1, .height = 2, .width = 2,
		.out_channels = 1, .group = 1, .kernel_height = 1,
		.kernel_width = 1, .stride_height = 1, .stride_width = 1,
		.dilation_height = 1, .dilation_width = 1,
	};
	enpu_cpu_context *ctx = make_context(s);
	float x[4] = { 1, 2, 3, 4 }, w = 2, y[4];

	for (int null = 0; ctx && null < 4; null++) {
		const float *xp = null == 1 ? NULL : x, *wp = null == 2 ? NULL : &w;
		float *yp = null == 3 ? NULL : y;
		int err = enpu_cpu_conv2d_f32_reference(ctx, &sh, xp, wp, NULL,
							NULL, yp);
		int fast;

		if (!null) {
			CHECK(s, err == 0 && y[3] == 8, "reference: %d, y[3] %g",
			      err, y[3]);
			continue;
		}
		expect_rule(s, ctx, err, "is NULL", "reference, one NULL");
		fast = enpu_cpu_conv2d_f32(ctx, &sh, xp, wp, NULL, NULL, yp);
		expect_rule(s, ctx, fast, "is NULL", "conv2d_f32, one NULL");
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Each vector ISA level this CPU runs has its own kernel in every family
 * (none left at the portable one, which would only be slower); the NEON
 * levels differ in their GEMM.
 */
static void test_kernel_table(struct test_state *s)
{
	struct enpu_cpu_kernels portable, k;
	const struct enpu_gemm_kernel_info *gemm[ENPU_CPU_ISA_COUNT] = { 0 };

	enpu_cpu_kernels_select(ENPU_CPU_ISA_SCALAR, &portable);
	for (int isa = ENPU_CPU_ISA_SCALAR + 1; isa < ENPU_CPU_ISA_COUNT; isa++) {
		const char *name = enpu_cpu_isa_name((enum enpu_cpu_isa)isa);

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_kernels_select((enum enpu_cpu_isa)isa, &k);
		CHECK(s, k.gemm != portable.gemm, "%s: portable gemm", name);
		CHECK(s, k.dwconv != portable.dwconv, "%s: portable dwconv", name);
		CHECK(s, k.max_pool != portable.max_pool &&
		      k.average_pool != portable.average_pool,
		      "%s: a portable pool", name);
		CHECK(s, k.add != portable.add && k.mul != portable.mul &&
		      k.clamp != portable.clamp, "%s: a portable eltwise", name);
		CHECK(s, k.sgemm != portable.sgemm, "%s: portable sgemm", name);
		CHECK(s, k.fdwconv != portable.fdwconv, "%s: portable fdwconv",
		      name);
		CHECK(s, k.fmath != portable.fmath, "%s: portable fmath", name);
		gemm[isa] = k.gemm;
		for (int lower = ENPU_CPU_ISA_SCALAR + 1; lower < isa; lower++)
			CHECK(s, gemm[lower] != k.gemm, "%s: the gemm of %s",
			      name, enpu_cpu_isa_name((enum enpu_cpu_isa)lower));
	}
}

const struct test_case limits_tests[] = {
	{ "gemm_pack_bounds", test_gemm_pack_bounds },
	{ "sgemm_pack_rules", test_sgemm_pack_rules },
	{ "sgemm_size_bounds", test_sgemm_size_bounds },
	{ "eltwise_element_count_bound", test_eltwise_element_count_bound },
	{ "fconv_null_buffers", test_fconv_null_buffers },
	{ "kernel_table", test_kernel_table },
	{ NULL, NULL },
};
