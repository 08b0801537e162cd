// SPDX-License-Identifier: MIT
/*
 * Float kernels on every ISA path this machine runs, at 1 and 2 threads:
 * the GEMM (packed, in place and transposed B; bias per row, per column
 * or none; clamp; tails in every direction) and the NCHW convolution
 * (dense, grouped, depthwise; strides, dilations, pads) against their
 * double-precision references, within a bound derived from the sum of
 * |products| (so a wrong element cannot hide in rounding); NaN through
 * the fused clamp; the vector math rows against libm (3e-7 relative;
 * Gelu's far left tail 5e-6, the float rounding of x^2 inside exp); the
 * QuantizeLinear
 * rows bit-exact with the scalar definition. Inputs end at an
 * inaccessible page where the kernels read them in place.
 */
#include "test_cpu.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "thread_pool.h"
#include "enpu_cpu_float.h"
#include "fmath_internal.h"
#include "kernels.h"

static const unsigned int thread_counts[] = { 1, 2 };

static float frand(uint64_t *rng)
{
	return (float)((double)(test_random(rng) >> 11) / 9007199254740992.0 *
		       2.0 - 1.0);
}

static void fill(float *x, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		x[i] = frand(rng);
}

/* |got - want| within 1e-5 * (sum |a||b|) + 1e-6 (float rounding of K). */
static int close_enough(float got, float want, double magnitude)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	return fabs((double)got - want) <= 2e-6 * magnitude + 1e-6;
}

struct gemm_case {
	size_t m, n, k;
	int mode;		/* 0 packed, 1 in place, 2 transposed */
	int bias;		/* 0 none, 1 per column, 2 per row */
	int clamp;
};

static int run_gemm_case(struct test_state *s, enpu_cpu_context *ctx,
			 const struct gemm_case *c, uint64_t seed)
{
	uint64_t rng = seed | 1;
	size_t lda = c->k + (seed % 3), ldb = (c->mode == 2 ? c->k : c->n) +
		     (seed % 2), ldc = c->n + 1;
	size_t a_len = c->m * lda, b_len = (c->mode == 2 ? c->n : c->k) * ldb;
	float *a = test_guarded_alloc(a_len * sizeof(float));
	float *b = test_guarded_alloc(b_len * sizeof(float));
	float *bias = malloc((c->m > c->n ? c->m : c->n) * sizeof(float));
	float *want = malloc(c->m * ldc * sizeof(float));
	float *got = malloc(c->m * ldc * sizeof(float));
	double *mag = malloc(c->m * c->n * sizeof(double));
	const float clamp[2] = { -0.25f, 0.5f };
	struct enpu_cpu_sgemm_args args;
	int ok = 0;

	if (!a || !b || !bias || !want || !got || !mag) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	fill(a, a_len, &rng);
	fill(b, b_len, &rng);
	fill(bias, c->m > c->n ? c->m : c->n, &rng);
	for (size_t i = 0; i < c->m; i++)
		for (size_t j = 0; j < c->n; j++) {
			double sum = 0;

			for (size_t kk = 0; kk < c->k; kk++)
				sum += fabs(a[i * lda + kk] * (c->mode == 2 ?
					b[j * ldb + kk] : b[kk * ldb + j]));
			mag[i * c->n + j] = sum + 1;
		}
	args = (struct enpu_cpu_sgemm_args){
		.m = c->m, .n = c->n, .k = c->k, .a = a, .lda = lda,
		.b = b, .ldb = ldb, .b_transposed = c->mode == 2,
		.bias = c->bias ? bias : NULL, .bias_per_row = c->bias == 2,
		.clamp = c->clamp ? clamp : NULL, .c = want, .ldc = ldc,
	};
	if (enpu_cpu_sgemm_reference(ctx, &args)) {
		CHECK(s, 0, "reference: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		enpu_cpu_sgemm_weights *w = NULL;

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
		if (c->mode == 0 &&
		    enpu_cpu_sgemm_weights_pack(ctx, c->k, c->n, b, ldb, 0, &w)) {
			CHECK(s, 0, "pack: %s", enpu_cpu_context_error(ctx));
			goto out;
		}
		for (size_t t = 0; t < ARRAY_SIZE(thread_counts); t++) {
			struct enpu_cpu_sgemm_args run = args;

			enpu_cpu_context_set_thread_count(ctx, thread_counts[t]);
			run.c = got;
			run.weights = w;
			if (w)
				run.b = NULL;
			memset(got, 0x7f, c->m * ldc * sizeof(float));
			if (enpu_cpu_sgemm(ctx, &run)) {
				CHECK(s, 0, "%s: %s", enpu_cpu_isa_name(isa),
				      enpu_cpu_context_error(ctx));
				enpu_cpu_sgemm_weights_destroy(w);
				goto out;
			}
			for (size_t i = 0; i < c->m; i++)
				for (size_t j = 0; j < c->n; j++)
					if (!close_enough(got[i * ldc + j],
							  want[i * ldc + j],
							  mag[i * c->n + j])) {
						CHECK(s, 0, "%s %u threads m%zu n%zu k%zu mode %d bias %d clamp %d: [%zu][%zu] %g vs %g",
						      enpu_cpu_isa_name(isa),
						      thread_counts[t], c->m, c->n,
						      c->k, c->mode, c->bias,
						      c->clamp, i, j,
						      got[i * ldc + j],
						      want[i * ldc + j]);
						enpu_cpu_sgemm_weights_destroy(w);
						goto out;
					}
			/* C's padding column is never written. */
			for (size_t i = 0; i < c->m; i++)
				if (memcmp(&got[i * ldc + c->n], "\x7f\x7f\x7f\x7f", 4)) {
					CHECK(s, 0, "%s wrote past n", enpu_cpu_isa_name(isa));
					enpu_cpu_sgemm_weights_destroy(w);
					goto out;
				}
		}
		enpu_cpu_sgemm_weights_destroy(w);
	}
	ok = 1;
out:
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
	test_guarded_free(a, a_len * sizeof(float));
	test_guarded_free(b, b_len * sizeof(float));
	free(bias);
	free(want);
	free(got);
	free(mag);
	return ok;
}

static enpu_cpu_context *make_context(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;

	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "context");
	/* 2-thread passes share every region, as test_each_path() does */
	if (ctx)
		enpu_cpu_context_set_split_ns(ctx, 0);
	return ctx;
}

static void test_sgemm_paths_match_reference(struct test_state *s)
{
	static const size_t dims[] = { 1, 2, 5, 7, 8, 15, 16, 17, 31, 33, 64 };
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (int i = 0; ctx && i < 90; i++) {
		struct gemm_case c = {
			.m = dims[test_random(&rng) % ARRAY_SIZE(dims)],
			.n = dims[test_random(&rng) % ARRAY_SIZE(dims)],
			.k = dims[test_random(&rng) % ARRAY_SIZE(dims)],
			.mode = i % 3, .bias = (i / 3) % 3, .clamp = i % 4 == 1,
		};

		if (!run_gemm_case(s, ctx, &c, 100 + (uint64_t)i))
			break;
	}
	/*
	 * Sizes that split into several tasks and chunks; n = 680 ends in a
	 * tail panel of 8 columns, which the wide kernel takes with the
	 * panel before it in the last chunk only.
	 */
	for (int mode = 0; ctx && mode < 6; mode++) {
		struct gemm_case big = { 150, mode < 3 ? 700 : 680, 300,
					 mode % 3, 2, 1 };

		if (!run_gemm_case(s, ctx, &big, 7 + (uint64_t)mode))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The last 1 or 2 columns past a multiple of 16 (sgemm.c: the AVX-512
 * kernel's column kernel takes them; N = 49 is a 7x7 plane): n on both
 * sides of that rule (n % 16 of 0 to 3) and of the 16-column tail panel,
 * in every B mode, bias per row, per column and none, the clamp; m
 * leaving partial groups of the column kernel's 4 rows and k its
 * partial 16-float vector; then through the convolution's B sources
 * (the unfolding at stride 2, the input in place for 1x1) at 7x7.
 */
/*
 * The same convolution with its weights packed once
 * (enpu_cpu_fconv_weights_pack()) must give @got's bits: the packing is
 * the one each call makes without it. Packed against another output
 * channel count it must be refused, not run.
 */
static int packed_same_bits(struct test_state *s, enpu_cpu_context *ctx,
			    const struct enpu_cpu_fconv_shape *sh,
			    const float *x, const float *w, const float *bias,
			    const float *clamp, const float *got, size_t y_len)
{
	enpu_cpu_fconv_weights *packed = NULL, *other = NULL;
	struct enpu_cpu_fconv_shape wider = *sh;
	float *again = malloc(y_len * sizeof(float));
	int ok = 0;

	wider.out_channels += sh->group;
	if (!again || enpu_cpu_fconv_weights_pack(ctx, sh, w, &packed) ||
	    enpu_cpu_conv2d_f32_packed(ctx, sh, x, w, packed, bias, clamp,
				       again)) {
		CHECK(s, 0, "packed: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	ok = !memcmp(again, got, y_len * sizeof(float));
	CHECK(s, ok, "%s C%zu M%zu g%zu %zux%zu k%zux%zu: weights packed once give other bits",
	      enpu_cpu_isa_name(enpu_cpu_context_isa(ctx)), sh->in_channels,
	      sh->out_channels, sh->group, sh->height, sh->width,
	      sh->kernel_height, sh->kernel_width);
	/*
	 * w is only read up to sh's channels: the pack of wider reads more.
	 * Where one group more packs nothing (64 output channels per group
	 * leave the in-place path that 63 take), one group fewer is the
	 * other count.
	 */
	if (ok && packed) {
		float *w2 = calloc((wider.out_channels * sh->in_channels /
				    sh->group) * sh->kernel_height *
				   sh->kernel_width, sizeof(float));

		ok = w2 && !enpu_cpu_fconv_weights_pack(ctx, &wider, w2,
							  &other);
		if (ok && !other && sh->out_channels > sh->group) {
			wider.out_channels = sh->out_channels - sh->group;
			ok = !enpu_cpu_fconv_weights_pack(ctx, &wider, w2,
							  &other);
		}
		ok = ok && other &&
		     enpu_cpu_conv2d_f32_packed(ctx, sh, x, w, other, bias,
						clamp, again) == -EINVAL;
		CHECK(s, ok, "weights packed for M%zu ran a conv of M%zu",
		      wider.out_channels, sh->out_channels);
		free(w2);
	}
out:
	enpu_cpu_fconv_weights_destroy(packed);
	enpu_cpu_fconv_weights_destroy(other);
	free(again);
	return ok;
}

static int run_conv_case(struct test_state *s, enpu_cpu_context *ctx,
			 const struct enpu_cpu_fconv_shape *sh, int clamp,
			 uint64_t seed);

static void test_sgemm_thin_columns(struct test_state *s)
{
	static const size_t ns[] = { 16, 17, 18, 19, 32, 33, 34, 35, 48, 49,
				     50, 51 };
	static const size_t ms[] = { 1, 3, 4, 5, 9 };
	static const size_t ks[] = { 1, 15, 16, 17, 40 };
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(ns) * 3; i++) {
		struct gemm_case c = {
			.m = ms[i % ARRAY_SIZE(ms)], .n = ns[i / 3],
			.k = ks[i % ARRAY_SIZE(ks)], .mode = (int)(i % 3),
			.bias = (int)(i / 2 % 3), .clamp = (int)(i % 2),
		};

		if (!run_gemm_case(s, ctx, &c, 1100 + (uint64_t)i))
			break;
	}
	{
		/* C, H, W, M, kernel, stride, pad: 49 and 50 output pixels */
		static const size_t conv[][7] = {
			{ 5, 14, 14, 70, 3, 2, 1 }, { 17, 7, 7, 9, 1, 1, 0 },
			{ 40, 7, 7, 66, 1, 1, 0 }, { 3, 5, 10, 64, 1, 1, 0 },
			{ 2, 10, 20, 65, 3, 2, 1 },
		};

		for (size_t i = 0; ctx && i < ARRAY_SIZE(conv); i++) {
			size_t kk = conv[i][4], st = conv[i][5], pd = conv[i][6];
			struct enpu_cpu_fconv_shape sh = {
				1 + i % 2, conv[i][0], conv[i][1], conv[i][2],
				conv[i][3], 1, kk, kk, st, st, 1, 1, pd, pd, pd, pd,
			};

			if (!run_conv_case(s, ctx, &sh, (int)(i & 1), 1200 + i))
				break;
		}
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Each tall kernel (where the ISA has them) against the indirect
 * microkernel on the same rows, bit for bit: its block of rows of A
 * packed k-major (rows past mr zero, as fconv.c pads a last block)
 * against A row-major in blocks of the microkernel's rows, B rows by
 * offset into a band (taps of a 3x3 window over a padded input, k = 9
 * per channel, odd k, even and odd k for the two-step loop), full and
 * partial panels, every mr from 1 to the block's rows, bias per row or
 * none, the clamp; rows past mr must stay untouched.
 */
static void test_sgemm_tall_same_bits(struct test_state *s)
{
	static const size_t ks[] = { 1, 2, 9, 37, 288 };
	static const size_t nrs[] = { 32, 20, 16, 5 };
	const float clamp[2] = { -0.25f, 0.5f };
	uint64_t rng = 0x2545f491u;
	int ran = 0;

	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		struct enpu_cpu_kernels kernels;
		const struct enpu_sgemm_kernel_info *kn;

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_kernels_select((enum enpu_cpu_isa)isa, &kernels);
		kn = kernels.sgemm;
		for (size_t t = 0; t < ENPU_SGEMM_TALLS && kn->talls[t].kernel;
		     t++)
		for (size_t i = 0; i < 20; i++) {
			size_t rows = kn->talls[t].rows;
			size_t k = ks[i % 5], nr = nrs[i / 5];
			size_t mr = 1 + (i * 7 + t) % rows;
			size_t wp = 40, band_len = (k + 2) * wp + kn->nr, ldc = 48;
			float *a = malloc(rows * k * sizeof(float));
			float *packed = malloc(rows * k * sizeof(float));
			float *band = malloc(band_len * sizeof(float));
			float *bias = malloc(rows * sizeof(float));
			float *one = calloc(rows * ldc, sizeof(float));
			float *two = calloc(rows * ldc, sizeof(float));
			ptrdiff_t *offsets = malloc(k * sizeof(*offsets));
			const float *cl = i % 3 ? clamp : NULL;
			const float *b = i & 1 ? bias : NULL;

			/* Every mr once at the longest k as well. */
			if (i == 19)
				mr = rows;
			if (!a || !packed || !band || !bias || !one || !two ||
			    !offsets) {
				CHECK(s, 0, "out of memory");
			} else {
				fill(a, rows * k, &rng);
				fill(band, band_len, &rng);
				fill(bias, rows, &rng);
				for (size_t kk = 0; kk < k; kk++) {
					offsets[kk] = (ptrdiff_t)(kk / 3 * wp +
								  kk % 3);
					for (size_t r = 0; r < rows; r++)
						packed[kk * rows + r] = r < mr ?
							a[r * k + kk] : 0.0f;
				}
				kn->talls[t].kernel(mr, nr, k, packed, band + 1,
						    offsets, one, ldc, b, cl);
				for (size_t m0 = 0; m0 < mr; m0 += kn->mr)
					kn->indirect(mr - m0 < kn->mr ? mr - m0 :
						     kn->mr, nr, k, a + m0 * k, k,
						     band + 1, offsets,
						     two + m0 * ldc, ldc,
						     b ? b + m0 : NULL, 1, cl);
				CHECK(s, !memcmp(one, two,
						 rows * ldc * sizeof(float)),
				      "%s: %zu-row kernel, mr %zu k %zu nr %zu bias %d clamp %d: the bits differ",
				      enpu_cpu_isa_name((enum enpu_cpu_isa)isa),
				      rows, mr, k, nr, !!b, !!cl);
				ran++;
			}
			free(a);
			free(packed);
			free(band);
			free(bias);
			free(one);
			free(two);
			free(offsets);
		}
	}
	CHECK(s, ran || !enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX512_VNNI),
	      "AVX-512 runs here but has no tall kernels");
}

/*
 * A full panel and a tail of at most 16 columns run in one pass where the
 * kernel has a wide twin (sgemm_internal.h; AVX-512: 8 x 48): the same
 * sums in the same order as the panel and the tail run apart, so C of
 * one call over n = 32 + t columns must equal, bit for bit, C of two
 * calls over columns [0, 32) and [32, 32 + t) (each too narrow for the
 * wide kernel), with B in place and packed, bias per row and per column,
 * the clamp, m leaving a partial row block, at 1 and 2 threads.
 */
static void test_sgemm_wide_tail_same_bits(struct test_state *s)
{
	static const size_t ms[] = { 2, 8, 9, 23 }, ks[] = { 1, 7, 40 };
	static const size_t tails[] = { 3, 8, 15, 16 };
	const float clamp[2] = { -0.25f, 0.5f };
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x5bd1e995u;
	int failed = 0;

	for (size_t i = 0; ctx && !failed && i < 48; i++) {
		size_t m = ms[i % 4], k = ks[i / 4 % 3], n = 32 + tails[i / 12];
		int packed = (int)(i & 1), per_row = (int)(i / 2 % 2);
		float *a = malloc(m * k * sizeof(float));
		float *b = malloc(k * n * sizeof(float));
		float *bias = malloc((m > n ? m : n) * sizeof(float));
		float *one = malloc(m * n * sizeof(float));
		float *two = malloc(m * n * sizeof(float));

		if (!a || !b || !bias || !one || !two) {
			CHECK(s, 0, "out of memory");
			failed = 1;
		}
		for (int isa = ENPU_CPU_ISA_SCALAR; !failed &&
		     isa < ENPU_CPU_ISA_COUNT; isa++) {
			if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
				continue;
			enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
			fill(a, m * k, &rng);
			fill(b, k * n, &rng);
			fill(bias, m > n ? m : n, &rng);
			for (size_t t = 0; !failed &&
			     t < ARRAY_SIZE(thread_counts); t++) {
				/* whole, then left 32 and right tail */
				static const size_t col0[3] = { 0, 0, 32 };
				size_t cols[3] = { n, 32, n - 32 };
				unsigned int threads = thread_counts[t];

				enpu_cpu_context_set_thread_count(ctx, threads);
				for (int part = 0; !failed && part < 3; part++) {
					enpu_cpu_sgemm_weights *w = NULL;
					size_t nc = cols[part];
					struct enpu_cpu_sgemm_args run = {
						.m = m, .n = nc, .k = k,
						.a = a, .lda = k,
						.b = b + col0[part], .ldb = n,
						.bias = bias + (per_row ? 0 :
								col0[part]),
						.bias_per_row = per_row,
						.clamp = i % 3 ? clamp : NULL,
						.c = (part ? two : one) +
						     col0[part],
						.ldc = n,
					};

					if (packed &&
					    enpu_cpu_sgemm_weights_pack(ctx, k, nc,
									run.b, n,
									0, &w)) {
						CHECK(s, 0, "pack: %s",
						      enpu_cpu_context_error(ctx));
						failed = 1;
						break;
					}
					if (w) {
						run.weights = w;
						run.b = NULL;
					}
					if (enpu_cpu_sgemm(ctx, &run)) {
						CHECK(s, 0, "%s: %s",
						      enpu_cpu_isa_name(isa),
						      enpu_cpu_context_error(ctx));
						failed = 1;
					}
					enpu_cpu_sgemm_weights_destroy(w);
				}
				for (size_t e = 0; !failed && e < m * n; e++)
					if (memcmp(&one[e], &two[e],
						   sizeof(float))) {
						CHECK(s, 0, "%s %u threads m%zu n%zu k%zu packed %d bias per row %d: [%zu][%zu] %a in one call, %a in two",
						      enpu_cpu_isa_name(isa),
						      threads, m, n, k,
						      packed, per_row, e / n,
						      e % n, one[e], two[e]);
						failed = 1;
					}
			}
		}
		free(a);
		free(b);
		free(bias);
		free(one);
		free(two);
	}
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
	enpu_cpu_context_destroy(ctx);
}

static void test_sgemm_clamp_keeps_nan(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	float a[4] = { NAN, 1, -1, 2 }, b[2] = { 1, 1 }, c[4];
	const float relu[2] = { 0, INFINITY };
	struct enpu_cpu_sgemm_args args = {
		.m = 4, .n = 1, .k = 1, .a = a, .lda = 1, .b = b, .ldb = 1,
		.clamp = relu, .c = c, .ldc = 1,
	};

	for (int isa = ENPU_CPU_ISA_SCALAR; ctx && isa < ENPU_CPU_ISA_COUNT;
	     isa++) {
		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
		CHECK(s, enpu_cpu_sgemm(ctx, &args) == 0, "%s",
		      enpu_cpu_context_error(ctx));
		CHECK(s, isnan(c[0]) && c[1] == 1 && c[2] == 0 && c[3] == 2,
		      "%s: %g %g %g %g", enpu_cpu_isa_name(isa), c[0], c[1],
		      c[2], c[3]);
	}
	enpu_cpu_context_destroy(ctx);
}

static void test_sgemm_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	enpu_cpu_sgemm_weights *w = NULL;
	float a[4] = { 0 }, b[4] = { 0 }, c[4], b3x2[6] = { 0 };
	struct enpu_cpu_sgemm_args args = {
		.m = 2, .n = 2, .k = 2, .a = a, .lda = 2, .b = b, .ldb = 2,
		.c = c, .ldc = 2,
	};

	if (!ctx)
		return;
	CHECK(s, enpu_cpu_sgemm(ctx, &args) == 0, "good call: %s",
	      enpu_cpu_context_error(ctx));
	args.lda = 1;
	CHECK(s, enpu_cpu_sgemm(ctx, &args) == -EINVAL, "lda < k accepted");
	args.lda = 2;
	args.ldb = 1;
	CHECK(s, enpu_cpu_sgemm(ctx, &args) == -EINVAL, "ldb < n accepted");
	args.ldb = 2;
	args.k = 0;
	CHECK(s, enpu_cpu_sgemm(ctx, &args) == -EINVAL, "k = 0 accepted");
	args.k = 2;
	CHECK(s, enpu_cpu_sgemm_weights_pack(ctx, 3, 2, b3x2, 2, 0, &w) == 0,
	      "pack");
	args.weights = w;
	CHECK(s, enpu_cpu_sgemm(ctx, &args) == -EINVAL &&
	      strstr(enpu_cpu_context_error(ctx), "packed B is 3x2"),
	      "weights of another shape: %s", enpu_cpu_context_error(ctx));
	enpu_cpu_sgemm_weights_destroy(w);
	w = NULL;
	if (enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX2) &&
	    enpu_cpu_isa_supported(ENPU_CPU_ISA_AVX512_VNNI)) {
		enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AVX2);
		enpu_cpu_sgemm_weights_pack(ctx, 2, 2, b, 2, 0, &w);
		enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AVX512_VNNI);
		args.weights = w;
		CHECK(s, enpu_cpu_sgemm(ctx, &args) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "another kernel"),
		      "weights of another ISA: %s", enpu_cpu_context_error(ctx));
		enpu_cpu_sgemm_weights_destroy(w);
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * Sets @ctx to the @i-th path this machine runs (each supported ISA at
 * each of thread_counts) and says which; 0 past the last.
 */
static int use_path(enpu_cpu_context *ctx, size_t i, int *isa,
		    unsigned int *threads)
{
	size_t first = 0;

	for (int a = ENPU_CPU_ISA_SCALAR; a < ENPU_CPU_ISA_COUNT; a++) {
		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)a))
			continue;
		if (i - first < ARRAY_SIZE(thread_counts)) {
			*isa = a;
			*threads = thread_counts[i - first];
			enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)a);
			enpu_cpu_context_set_thread_count(ctx, *threads);
			return 1;
		}
		first += ARRAY_SIZE(thread_counts);
	}
	return 0;
}

static int run_conv_case(struct test_state *s, enpu_cpu_context *ctx,
			 const struct enpu_cpu_fconv_shape *sh, int clamp,
			 uint64_t seed)
{
	uint64_t rng = seed | 1;
	size_t oh, ow, cg = sh->in_channels / sh->group;
	size_t x_len = sh->batch * sh->in_channels * sh->height * sh->width;
	size_t w_len = sh->out_channels * cg * sh->kernel_height * sh->kernel_width;
	size_t y_len;
	float *x = test_guarded_alloc(x_len * sizeof(float));
	float *w = malloc(w_len * sizeof(float));
	float *bias = malloc(sh->out_channels * sizeof(float));
	float *want = NULL, *got = NULL;
	const float relu6[2] = { 0, 6 };
	double magnitude;
	unsigned int threads;
	size_t path = 0;
	int ok = 0, isa;

	if (!x || !w || !bias ||
	    enpu_cpu_fconv_output_size(ctx, sh, &oh, &ow)) {
		CHECK(s, 0, "setup: %s", enpu_cpu_context_error(ctx));
		goto out;
	}
	y_len = sh->batch * sh->out_channels * oh * ow;
	want = malloc(y_len * sizeof(float));
	got = malloc(y_len * sizeof(float));
	if (!want || !got)
		goto out;
	fill(x, x_len, &rng);
	fill(w, w_len, &rng);
	fill(bias, sh->out_channels, &rng);
	magnitude = (double)(cg * sh->kernel_height * sh->kernel_width) + 1;
	enpu_cpu_conv2d_f32_reference(ctx, sh, x, w, bias,
				      clamp ? relu6 : NULL, want);
	while (use_path(ctx, path++, &isa, &threads)) {
		/* A path that skips an output element leaves NaN. */
		for (size_t i = 0; i < y_len; i++)
			got[i] = NAN;
		if (enpu_cpu_conv2d_f32(ctx, sh, x, w, bias,
					clamp ? relu6 : NULL, got)) {
			CHECK(s, 0, "%s", enpu_cpu_context_error(ctx));
			goto out;
		}
		if (!packed_same_bits(s, ctx, sh, x, w, bias,
				      clamp ? relu6 : NULL, got, y_len))
			goto out;
		for (size_t i = 0; i < y_len; i++)
			if (!close_enough(got[i], want[i], magnitude)) {
				CHECK(s, 0, "%s %u threads C%zu M%zu g%zu %zux%zu k%zux%zu s%zu,%zu d%zu,%zu p%zu,%zu,%zu,%zu: [%zu] %g vs %g",
				      enpu_cpu_isa_name(isa), threads,
				      sh->in_channels, sh->out_channels,
				      sh->group, sh->height, sh->width,
				      sh->kernel_height, sh->kernel_width,
				      sh->stride_height, sh->stride_width,
				      sh->dilation_height,
				      sh->dilation_width, sh->pad_top,
				      sh->pad_left, sh->pad_bottom,
				      sh->pad_right, i, got[i], want[i]);
				goto out;
			}
	}
	/* The scalar path at least, at every thread count. */
	ok = path > ARRAY_SIZE(thread_counts);
	CHECK(s, ok, "%zu paths ran", path - 1);
out:
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
	test_guarded_free(x, x_len * sizeof(float));
	free(w);
	free(bias);
	free(want);
	free(got);
	return ok;
}

static size_t pick(uint64_t *rng, size_t lo, size_t hi)
{
	return lo + (size_t)(test_random(rng) % (hi - lo + 1));
}

static void test_fconv_paths_match_reference(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 0x1234567;

	for (int i = 0; ctx && i < 60; i++) {
		struct enpu_cpu_fconv_shape sh = { 0 };
		int kind = i % 4;	/* dense, pointwise, grouped, depthwise */

		sh.batch = pick(&rng, 1, 2);
		sh.group = kind == 2 ? pick(&rng, 2, 3) : 1;
		sh.in_channels = sh.group * pick(&rng, 1, 9);
		sh.out_channels = sh.group * pick(&rng, 1, 20);
		if (kind == 3) {
			sh.in_channels = sh.out_channels = sh.group =
				pick(&rng, 2, 20);
		}
		sh.kernel_height = kind == 1 ? 1 : pick(&rng, 1, 5);
		sh.kernel_width = kind == 1 ? 1 : pick(&rng, 1, 5);
		sh.stride_height = kind == 1 ? 1 : pick(&rng, 1, 3);
		sh.stride_width = kind == 1 ? 1 : pick(&rng, 1, 3);
		sh.dilation_height = kind == 1 || i % 5 ? 1 : 2;
		sh.dilation_width = sh.dilation_height;
		if (kind != 1) {
			sh.pad_top = pick(&rng, 0, sh.kernel_height - 1);
			sh.pad_left = pick(&rng, 0, sh.kernel_width - 1);
			sh.pad_bottom = pick(&rng, 0, sh.kernel_height - 1);
			sh.pad_right = pick(&rng, 0, sh.kernel_width - 1);
		}
		sh.height = pick(&rng, sh.dilation_height * (sh.kernel_height - 1) + 1, 17);
		sh.width = pick(&rng, sh.dilation_width * (sh.kernel_width - 1) + 1,
				i % 7 ? 19 : 600);
		if (!run_conv_case(s, ctx, &sh, i % 3 == 0, 300 + (uint64_t)i))
			break;
	}
	/*
	 * The shapes with their own paths: MobileNet's 3x3 depthwise
	 * (stride 1 and 2, odd and even sizes, asymmetric pads), and stride
	 * 1 with many output channels on narrow rows (unfolded, not read in
	 * place).
	 */
	{
		static const size_t dw[][6] = {	/* C, H, W, stride, pad, pad_end */
			{ 32, 112, 112, 1, 1, 1 }, { 96, 15, 17, 2, 1, 1 },
			{ 16, 14, 14, 2, 0, 1 }, { 24, 7, 9, 1, 1, 1 },
			{ 8, 5, 600, 2, 1, 0 },
		};

		for (size_t i = 0; ctx && i < ARRAY_SIZE(dw); i++) {
			struct enpu_cpu_fconv_shape sh = {
				1, dw[i][0], dw[i][1], dw[i][2], dw[i][0], dw[i][0],
				3, 3, dw[i][3], dw[i][3], 1, 1, dw[i][4], dw[i][4],
				dw[i][5], dw[i][5],
			};

			if (!run_conv_case(s, ctx, &sh, (int)(i & 1), 900 + i))
				break;
		}
	}
	{
		struct enpu_cpu_fconv_shape sh = {
			2, 20, 9, 11, 70, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
		};

		if (ctx)
			run_conv_case(s, ctx, &sh, 1, 950);
	}
	/*
	 * Stride 1 with 64 or more output channels reads in place where the
	 * output rows fill 7/8 of the panels (fconv.c reads_in_place()):
	 * widths on both sides of that for panels of 8 (scalar), 16 (AVX2,
	 * NEON) and 32 (AVX-512) columns, i.e. 6/7, 13/14, 27/28 and 55/56;
	 * 70 channels leave a partial row block, padding on one side only.
	 */
	{
		static const size_t widths[] = { 6, 7, 13, 14, 27, 28, 55, 56 };

		for (size_t i = 0; ctx && i < ARRAY_SIZE(widths); i++) {
			struct enpu_cpu_fconv_shape sh = {
				1 + i % 2, 3, 3, widths[i], i % 3 ? 70 : 64, 1,
				3, 3, 1, 1, 1, 1, 1, 1, 0, 1,
			};

			if (!run_conv_case(s, ctx, &sh, (int)(i & 1), 960 + i))
				break;
		}
	}
	/*
	 * Output channels in blocks for the tall kernels (fconv.c
	 * plan_blocks(): 14, 12 and 8 rows, a last block padded with zero
	 * rows): every count of a group from 1 to 30, counts around the
	 * exact planning's limit of 128 (above it blocks of 14 first), in
	 * groups of 1 and 2, rows that fill the panels so that all read in
	 * place.
	 */
	{
		static const size_t more[] = { 41, 64, 70, 127, 128, 129, 142,
					       271 };

		for (size_t i = 0; ctx && i < 30 + ARRAY_SIZE(more); i++) {
			size_t mg = i < 30 ? i + 1 : more[i - 30];
			size_t group = 1 + i % 2;
			struct enpu_cpu_fconv_shape sh = {
				1, 3 * group, 3, 32, mg * group, group,
				3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
			};

			if (!run_conv_case(s, ctx, &sh, (int)(i % 3 == 0),
					   2000 + i))
				break;
		}
	}
	/*
	 * Read in place band by band (fconv.c band_rows()): a band holds
	 * the output rows whose input rows (plus the kernel's span) fit in
	 * 512 KiB. 8 channels of 4094 + 2 padded floats are 128 KiB a row,
	 * so four rows fit: bands of 2 output rows; 4095 + 2 are just over
	 * (three rows: bands of 1). 13 output rows: at 1 thread the fit
	 * limits the band, not the share of the rows (4), and the last
	 * band of 2 rows is partial; 9 output channels leave a partial row
	 * block.
	 */
	{
		static const size_t widths[] = { 4094, 4095 };

		for (size_t i = 0; ctx && i < ARRAY_SIZE(widths); i++) {
			struct enpu_cpu_fconv_shape sh = {
				1, 8, 13, widths[i], 9, 1,
				3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
			};

			if (!run_conv_case(s, ctx, &sh, (int)(i & 1), 980 + i))
				break;
		}
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The AVX-512 depthwise 3x3 stride 1 by shifted rows (fdwconv_avx512.c
 * dw3x3_s1_shifted()) runs when the left padding is exactly 1 and the
 * output is no wider than the input (right padding 0 or 1); each other
 * ISA runs the same shapes through its own kernel. Widths around the
 * 16-lane vectors (1, 15-17, 31-33, 47-49: the shifted-in lanes from
 * the neighbouring vectors, the masked last one), heights around the
 * 8-row bands (1, 2, 8, 9, 17) with top and bottom padding 0-2, and the
 * other side of every condition: left padding 0 and 2, right padding 2
 * (output one wider than the input), stride 2, dilation 2.
 */
static void test_fdwconv_3x3_stride1_edges(struct test_state *s)
{
	static const size_t widths[] = { 1, 15, 16, 17, 31, 32, 33, 47, 49 };
	static const size_t heights[] = { 1, 2, 8, 9, 17 };
	/* pad top, left, bottom, right; stride; dilation */
	static const size_t geometry[][6] = {
		{ 1, 1, 1, 1, 1, 1 }, { 0, 1, 0, 0, 1, 1 },
		{ 2, 1, 2, 1, 1, 1 }, { 1, 1, 1, 0, 1, 1 },
		{ 1, 0, 1, 1, 1, 1 }, { 1, 2, 1, 1, 1, 1 },
		{ 1, 1, 1, 2, 1, 1 }, { 1, 1, 1, 1, 2, 1 },
		{ 2, 1, 2, 1, 1, 2 },
	};
	size_t cases = ARRAY_SIZE(geometry) * ARRAY_SIZE(widths) *
		       ARRAY_SIZE(heights);
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 1100;

	for (size_t i = 0; ctx && i < cases; i++) {
		size_t hi = i % ARRAY_SIZE(heights);
		size_t wi = i / ARRAY_SIZE(heights) % ARRAY_SIZE(widths);
		size_t g = i / ARRAY_SIZE(heights) / ARRAY_SIZE(widths);
		size_t d = geometry[g][5], span = 2 * d + 1;
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + (seed & 1), .in_channels = 3,
			.out_channels = 3, .group = 3,
			.height = heights[hi], .width = widths[wi],
			.kernel_height = 3, .kernel_width = 3,
			.stride_height = geometry[g][4],
			.stride_width = geometry[g][4],
			.dilation_height = d, .dilation_width = d,
			.pad_top = geometry[g][0], .pad_left = geometry[g][1],
			.pad_bottom = geometry[g][2],
			.pad_right = geometry[g][3],
		};

		/* Geometries where the kernel does not fit are not convs. */
		if (sh.height + sh.pad_top + sh.pad_bottom < span ||
		    sh.width + sh.pad_left + sh.pad_right < span)
			continue;
		int clamp = seed % 3 == 0;

		if (!run_conv_case(s, ctx, &sh, clamp, seed++))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The AVX2 depthwise 3x3 at stride 2 (fdwconv_avx2.c: 8 output columns
 * per vector read in place, masked loads where a vector reaches into the
 * padding or past the row, the even / odd split and its lane reorder, a
 * masked store of the last partial vector); stride 1 and every other ISA
 * run the same shapes through their own kernels. Output widths
 * around the 8-lane vectors (1, 7-9, 15-17, 23-25) at both strides, the
 * input widths under them at stride 2 odd and even; pads 0, 1 and 2 on
 * each side; heights 1-5 and 9 (8-row bands, padding rows above and
 * below); and the other side of its conditions: stride 2x1 and 1x2,
 * dilation 2, a 3x2 kernel (the generic kernel). Every ISA at 1 and 2
 * threads against the double reference.
 */
static void test_fdwconv_3x3_8_lane_edges(struct test_state *s)
{
	static const size_t out_widths[] = { 1, 7, 8, 9, 15, 16, 17, 23, 24,
					     25 };
	/* pad top, left, bottom, right; stride h, w; dilation; kernel w */
	static const size_t geometry[][8] = {
		{ 1, 1, 1, 1, 1, 1, 1, 3 }, { 0, 0, 0, 0, 1, 1, 1, 3 },
		{ 2, 2, 2, 2, 1, 1, 1, 3 }, { 0, 1, 2, 0, 1, 1, 1, 3 },
		{ 1, 1, 1, 1, 2, 2, 1, 3 }, { 0, 0, 0, 0, 2, 2, 1, 3 },
		{ 1, 0, 0, 1, 2, 2, 1, 3 }, { 2, 2, 1, 2, 2, 2, 1, 3 },
		{ 1, 1, 1, 1, 2, 1, 1, 3 }, { 1, 1, 1, 1, 1, 2, 1, 3 },
		{ 2, 2, 2, 2, 1, 1, 2, 3 }, { 1, 1, 1, 1, 2, 2, 1, 2 },
	};
	static const size_t heights[] = { 1, 2, 3, 4, 5, 9 };
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 2100;

	for (size_t g = 0; ctx && g < ARRAY_SIZE(geometry); g++)
	for (size_t i = 0; i < ARRAY_SIZE(out_widths) * 2; i++) {
		const size_t *e = geometry[g];
		size_t d = e[6], kw = e[7];
		size_t span_w = d * (kw - 1) + 1, span_h = 2 * d + 1;
		size_t pads_w = e[1] + e[3], pads_h = e[0] + e[2];
		/* The input width of that output width, + 1 every other. */
		size_t need = (out_widths[i / 2] - 1) * e[5] + span_w;
		size_t width = need > pads_w ? need - pads_w + (i & 1) * (e[5] - 1) : 1;
		size_t height = heights[(g + i) % ARRAY_SIZE(heights)];
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + (seed & 1), .in_channels = 5,
			.out_channels = 5, .group = 5,
			.height = height, .width = width,
			.kernel_height = 3, .kernel_width = kw,
			.stride_height = e[4], .stride_width = e[5],
			.dilation_height = d, .dilation_width = d,
			.pad_top = e[0], .pad_left = e[1],
			.pad_bottom = e[2], .pad_right = e[3],
		};

		if (height + pads_h < span_h || width + pads_w < span_w)
			continue;
		if (!run_conv_case(s, ctx, &sh, seed % 3 == 0, seed)) {
			enpu_cpu_context_destroy(ctx);
			return;
		}
		seed++;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The blocked depthwise kernel (fdwconv_blocked_avx2.c; fconv.c
 * uses_blocked_dw()): channels 1, 7, 8, 9, 17 around its blocks of 8;
 * planes 1x1 to 28x28 and both sides of the 28-a-side limit (28x29 and
 * 29x28 take the per-plane kernel); strides 1 and 2 with every pad 0 or
 * 1 on each side, odd and even sizes (a stride-2 window reaching the
 * zero ring past the end); and the other side of its other conditions:
 * pad 2, stride 2x1, dilation 2. Every ISA at 1 and 2 threads against
 * the double reference.
 */
static void test_fdwconv_blocked_small_planes(struct test_state *s)
{
	static const size_t channels[] = { 1, 7, 8, 9, 17 };
	static const size_t sizes[][2] = {
		{ 1, 1 }, { 3, 7 }, { 7, 7 }, { 8, 9 }, { 14, 14 }, { 15, 13 },
		{ 28, 28 }, { 28, 29 }, { 29, 28 },
	};
	/* pad top, left, bottom, right; stride h, w; dilation */
	static const size_t geometry[][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 }, { 0, 0, 0, 0, 1, 1, 1 },
		{ 1, 0, 0, 1, 1, 1, 1 }, { 1, 1, 1, 1, 2, 2, 1 },
		{ 0, 0, 1, 1, 2, 2, 1 }, { 0, 0, 0, 0, 2, 2, 1 },
		{ 2, 1, 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 2, 1, 1 },
		{ 2, 2, 2, 2, 1, 1, 2 },
	};
	enpu_cpu_context *ctx = make_context(s);
	uint64_t seed = 2600;

	for (size_t g = 0; ctx && g < ARRAY_SIZE(geometry); g++)
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const size_t *e = geometry[g];
		size_t c = channels[(g + i) % ARRAY_SIZE(channels)];
		size_t span = 2 * e[6] + 1;
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + (seed & 1), .in_channels = c,
			.out_channels = c, .group = c,
			.height = sizes[i][0], .width = sizes[i][1],
			.kernel_height = 3, .kernel_width = 3,
			.stride_height = e[4], .stride_width = e[5],
			.dilation_height = e[6], .dilation_width = e[6],
			.pad_top = e[0], .pad_left = e[1],
			.pad_bottom = e[2], .pad_right = e[3],
		};

		seed++;
		if (sh.height + e[0] + e[2] < span ||
		    sh.width + e[1] + e[3] < span)
			continue;
		if (!run_conv_case(s, ctx, &sh, seed % 3 == 0, seed))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The few-taps stride-2 convolution (fconv_taps_avx512.c; fconv.c
 * uses_few_taps()): MobileNet's first layer 3->32 3x3/2 with pads 0/1 on
 * either side, odd and even sizes; 32 taps (2 x 4x4) and 33 (11 x 1x3,
 * the GEMM path); 1x5 and 5x2 kernels; output widths 1, 15-17, 32, 33
 * around the 16-column strips; output channels 1, 15-17, 33 around the
 * 16-channel blocks; heights around the 4-row bands; and the other side
 * of the other conditions: stride 1, stride 2x1, dilation 2, two groups.
 * Every ISA at 1 and 2 threads against the double reference.
 */
static void test_fconv_few_taps_stride2(struct test_state *s)
{
	/* C, M, group, H, W, kh, kw, stride h, w, dilation, pads t l b r */
	static const size_t cases[][14] = {
		{ 3, 32, 1, 224, 224, 3, 3, 2, 2, 1, 0, 0, 1, 1 },
		{ 3, 32, 1, 33, 35, 3, 3, 2, 2, 1, 1, 1, 1, 1 },
		{ 3, 17, 1, 9, 31, 3, 3, 2, 2, 1, 1, 0, 0, 1 },
		{ 2, 16, 1, 10, 64, 4, 4, 2, 2, 1, 1, 2, 2, 1 },
		{ 11, 5, 1, 8, 30, 1, 3, 2, 2, 1, 0, 1, 0, 1 },
		{ 3, 20, 1, 12, 40, 1, 5, 2, 2, 1, 0, 2, 0, 2 },
		{ 2, 9, 1, 21, 18, 5, 2, 2, 2, 1, 2, 0, 2, 1 },
		{ 1, 1, 1, 3, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1 },
		{ 1, 15, 1, 7, 33, 5, 5, 2, 2, 1, 2, 2, 2, 2 },
		{ 3, 33, 1, 17, 66, 3, 3, 2, 2, 1, 1, 1, 1, 1 },
		{ 3, 16, 1, 18, 63, 3, 3, 2, 2, 1, 0, 1, 0, 0 },
		{ 3, 32, 1, 19, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1 },
		{ 3, 32, 1, 19, 21, 3, 3, 2, 1, 1, 1, 1, 1, 1 },
		{ 3, 32, 1, 19, 21, 3, 3, 2, 2, 2, 2, 2, 2, 2 },
		{ 4, 8, 2, 19, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1 },
	};
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(cases); i++) {
		const size_t *c = cases[i];
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + i % 2, .in_channels = c[0],
			.out_channels = c[1], .group = c[2], .height = c[3],
			.width = c[4], .kernel_height = c[5],
			.kernel_width = c[6], .stride_height = c[7],
			.stride_width = c[8], .dilation_height = c[9],
			.dilation_width = c[9], .pad_top = c[10],
			.pad_left = c[11], .pad_bottom = c[12],
			.pad_right = c[13],
		};

		if (!run_conv_case(s, ctx, &sh, (int)(i % 3 == 1), 1300 + i))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

/* A tall kernel of straight loops (sgemm_internal.h), TALL_ROWS rows. */
#define TALL_ROWS 8

static void tall_loops(size_t mr, size_t nr, size_t k, const float *a_packed,
		       const float *b, const ptrdiff_t *b_offsets, float *c,
		       size_t ldc, const float *bias, const float *clamp)
{
	for (size_t r = 0; r < mr; r++)
		for (size_t j = 0; j < nr; j++) {
			float acc = bias ? bias[r] : 0.0f;

			for (size_t kk = 0; kk < k; kk++)
				acc += a_packed[kk * TALL_ROWS + r] *
				       b[b_offsets[kk] + (ptrdiff_t)j];
			if (clamp) {
				acc = acc < clamp[0] ? clamp[0] : acc;
				acc = acc > clamp[1] ? clamp[1] : acc;
			}
			c[r * ldc + j] = acc;
		}
}

/* Output widths relative to the kernel's NR (3x3, pad 1: ow = W). */
enum { W_FILLS = 1000, W_FILLS_LESS, W_NARROW };

static size_t case_width(size_t w, size_t nr)
{
	switch (w) {
	case W_FILLS:
		return nr * 7 / 8;	/* 8 ow >= 7 lanes */
	case W_FILLS_LESS:
		return nr * 7 / 8 - 1;
	case W_NARROW:
		return nr / 2 - 1;
	default:
		return w;
	}
}

/*
 * One shape on @ctx as it is set: packs exactly when @want (and not at
 * all without tall kernels), and where it packs, the packing is what
 * runs: the same bits with w all NaN as the unpacked call with the real
 * w, both within rounding of the reference.
 */
static int packs_as_expected(struct test_state *s, enpu_cpu_context *ctx,
			     const struct enpu_cpu_fconv_shape *sh, int want,
			     const char *what)
{
	size_t oh, ow, cg = sh->in_channels / sh->group;
	size_t x_len = sh->in_channels * sh->height * sh->width;
	size_t w_len = sh->out_channels * cg * sh->kernel_height *
		       sh->kernel_width, y_len = 0;
	float *x = malloc(x_len * sizeof(float));
	float *w = malloc(w_len * sizeof(float));
	float *nan_w = malloc(w_len * sizeof(float));
	float *one = NULL, *two = NULL, *ref = NULL;
	enpu_cpu_fconv_weights *packed = NULL;
	uint64_t rng = 1400 + sh->out_channels * 31 + sh->width;
	int ok = x && w && nan_w &&
		 !enpu_cpu_fconv_output_size(ctx, sh, &oh, &ow);

	if (ok) {
		y_len = sh->out_channels * oh * ow;
		one = malloc(y_len * sizeof(float));
		two = malloc(y_len * sizeof(float));
		ref = malloc(y_len * sizeof(float));
		ok = one && two && ref;
	}
	CHECK(s, ok, "setup");
	if (!ok)
		goto out;
	fill(x, x_len, &rng);
	fill(w, w_len, &rng);
	for (size_t i = 0; i < w_len; i++)
		nan_w[i] = NAN;
	if (enpu_cpu_fconv_weights_pack(ctx, sh, w, &packed)) {
		CHECK(s, 0, "pack: %s", enpu_cpu_context_error(ctx));
		ok = 0;
		goto out;
	}
	ok = !packed == !want;
	CHECK(s, ok, "%s, C%zu M%zu g%zu %zux%zu k%zu s%zu,%zu p%zu: %s", what,
	      sh->in_channels, sh->out_channels, sh->group, sh->height,
	      sh->width, sh->kernel_height, sh->stride_height,
	      sh->stride_width, sh->pad_top,
	      packed ? "packed for a path that does not read it" :
	      "not packed for the in-place path");
	if (!ok || !packed)
		goto out;
	ok = !enpu_cpu_conv2d_f32(ctx, sh, x, w, NULL, NULL, one) &&
	     !enpu_cpu_conv2d_f32_packed(ctx, sh, x, nan_w, packed, NULL, NULL,
					 two) &&
	     !enpu_cpu_conv2d_f32_reference(ctx, sh, x, w, NULL, NULL, ref) &&
	     !memcmp(one, two, y_len * sizeof(float));
	for (size_t i = 0; ok && i < y_len; i++)
		ok = close_enough(one[i], ref[i], (double)w_len / sh->out_channels + 1);
	CHECK(s, ok, "%s, C%zu M%zu %zux%zu: the packing is not what runs", what,
	      sh->in_channels, sh->out_channels, sh->height, sh->width);
out:
	enpu_cpu_fconv_weights_destroy(packed);
	free(x);
	free(w);
	free(nan_w);
	free(one);
	free(two);
	free(ref);
	return ok;
}

/*
 * enpu_cpu_fconv_weights_pack() packs only where the in-place path will
 * read the packing (fconv.c runs_direct()) and the ISA has tall kernels:
 * shapes on both sides of each condition (stride 1 / 2 / 1x2 / 2x1, few
 * taps or not, 1x1 unpadded / padded, depthwise, grouped, 63 / 64 output
 * channels per group on a narrow row, rows filling 7/8 of a panel or one
 * column less). Every ISA here with its own table (no tall kernels: must
 * pack nothing), then with a tall kernel of straight loops put into a
 * copy of its table, so the rule is checked on every machine.
 */
static void test_fconv_packs_only_for_the_in_place_path(struct test_state *s)
{
	/* C, M, group, H, W, kernel, stride h, w, pad, in place */
	static const size_t cases[][10] = {
		{ 8, 16, 1, 12, 20, 3, 1, 1, 1, 1 },
		{ 8, 16, 1, 12, 20, 3, 2, 2, 1, 0 },
		{ 8, 16, 1, 12, 20, 3, 1, 2, 1, 0 },
		{ 8, 16, 1, 12, 20, 3, 2, 1, 1, 0 },
		{ 3, 16, 1, 12, 20, 3, 2, 2, 1, 0 },	/* few taps */
		{ 3, 16, 1, 12, 20, 3, 1, 1, 1, 1 },
		{ 8, 16, 1, 12, 20, 1, 1, 1, 0, 0 },	/* 1x1: input as B */
		{ 8, 16, 1, 12, 20, 1, 1, 1, 1, 1 },
		{ 8, 64, 1, 6, W_FILLS_LESS, 3, 1, 1, 1, 0 },
		{ 8, 64, 1, 6, W_FILLS, 3, 1, 1, 1, 1 },
		{ 8, 63, 1, 6, W_NARROW, 3, 1, 1, 1, 1 },
		{ 8, 64, 1, 6, W_NARROW, 3, 1, 1, 1, 0 },
		{ 8, 8, 8, 12, 20, 3, 1, 1, 1, 0 },	/* depthwise */
		{ 8, 16, 2, 12, 20, 3, 1, 1, 1, 1 },
		{ 8, 128, 2, 6, W_NARROW, 3, 1, 1, 1, 0 },
		{ 8, 126, 2, 6, W_NARROW, 3, 1, 1, 1, 1 },
	};
	enpu_cpu_context *ctx = make_context(s);
	int ok = ctx != NULL;

	for (int isa = ENPU_CPU_ISA_SCALAR; ok && isa < ENPU_CPU_ISA_COUNT;
	     isa++) {
		struct enpu_sgemm_kernel_info tall;
		const struct enpu_sgemm_kernel_info *own;

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
		own = ctx->kernels.sgemm;
		tall = *own;
		memset(tall.talls, 0, sizeof(tall.talls));
		tall.talls[0] = (struct enpu_sgemm_tall){ tall_loops,
							  TALL_ROWS, 1 };
		for (size_t i = 0; ok && i < ARRAY_SIZE(cases); i++) {
			const size_t *c = cases[i];
			struct enpu_cpu_fconv_shape sh = {
				.batch = 1, .in_channels = c[0],
				.out_channels = c[1], .group = c[2],
				.height = c[3], .width = case_width(c[4],
								    own->nr),
				.kernel_height = c[5], .kernel_width = c[5],
				.stride_height = c[6], .stride_width = c[7],
				.dilation_height = 1, .dilation_width = 1,
				.pad_top = c[8], .pad_left = c[8],
				.pad_bottom = c[8], .pad_right = c[8],
			};
			int talls = own->talls[0].kernel != NULL;

			ctx->kernels.sgemm = own;
			ok = packs_as_expected(s, ctx, &sh, talls && (int)c[9],
					       enpu_cpu_isa_name(isa));
			ctx->kernels.sgemm = &tall;
			if (ok)
				ok = packs_as_expected(s, ctx, &sh, (int)c[9],
						       "tall loops");
			ctx->kernels.sgemm = own;
		}
	}
	/* Each shape on every path against the reference. */
	for (size_t i = 0; ok && i < ARRAY_SIZE(cases); i++) {
		const size_t *c = cases[i];
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + i % 2, .in_channels = c[0],
			.out_channels = c[1], .group = c[2], .height = c[3],
			.width = case_width(c[4], 32), .kernel_height = c[5],
			.kernel_width = c[5], .stride_height = c[6],
			.stride_width = c[7], .dilation_height = 1,
			.dilation_width = 1, .pad_top = c[8], .pad_left = c[8],
			.pad_bottom = c[8], .pad_right = c[8],
		};

		ok = run_conv_case(s, ctx, &sh, (int)(i & 1), 1400 + i);
	}
	if (ctx)
		enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_destroy(ctx);
}

/* Max pooling against straight loops, every ISA, 1 and 2 threads. */
/*
 * Each bound of the float convolution and max pool shapes from both
 * sides, one field at a time, through enpu_cpu_fconv_output_size() on a
 * 2^24 x 2^24 input (nothing is allocated): 0 (pads: allowed), the bound
 * (the ONNX output size) and one past it (-EINVAL, "a size is 0 or out of
 * range"); then the kernel fitting the padded input exactly or not, and
 * the max pool's NULL buffers.
 */
static void test_fconv_shape_bounds_field_by_field(struct test_state *s)
{
	static const struct {
		const char *name;
		size_t offset, limit;
	} fields[] = {
#define FIELD(f, limit) { #f, offsetof(struct enpu_cpu_fconv_shape, f), limit }
		FIELD(batch, ENPU_CPU_SIZE_LIMIT),
		FIELD(in_channels, ENPU_CPU_SIZE_LIMIT),
		FIELD(height, ENPU_CPU_SIZE_LIMIT),
		FIELD(width, ENPU_CPU_SIZE_LIMIT),
		FIELD(out_channels, ENPU_CPU_SIZE_LIMIT),
		FIELD(kernel_height, ENPU_CPU_FCONV_MAX_KERNEL),
		FIELD(kernel_width, ENPU_CPU_FCONV_MAX_KERNEL),
		FIELD(stride_height, ENPU_CPU_SIZE_LIMIT),
		FIELD(stride_width, ENPU_CPU_SIZE_LIMIT),
		FIELD(dilation_height, ENPU_CPU_FCONV_MAX_KERNEL),
		FIELD(dilation_width, ENPU_CPU_FCONV_MAX_KERNEL),
		FIELD(pad_top, ENPU_CPU_SIZE_LIMIT),
		FIELD(pad_left, ENPU_CPU_SIZE_LIMIT),
		FIELD(pad_bottom, ENPU_CPU_SIZE_LIMIT),
		FIELD(pad_right, ENPU_CPU_SIZE_LIMIT),
		FIELD(group, 1),
#undef FIELD
	};
	/* height, kernel, dilation, pad_top: does the kernel fit? */
	static const size_t fits[][5] = {
		{ 3, 3, 1, 0, 1 }, { 2, 3, 1, 0, 0 }, { 2, 3, 1, 1, 1 },
		{ 5, 3, 2, 0, 1 }, { 4, 3, 2, 0, 0 }, { 4, 3, 2, 1, 1 },
	};
	const struct enpu_cpu_fconv_shape base = {
		.batch = 1, .in_channels = 1, .out_channels = 1, .group = 1,
		.height = ENPU_CPU_SIZE_LIMIT, .width = ENPU_CPU_SIZE_LIMIT,
		.kernel_height = 1, .kernel_width = 1, .stride_height = 1,
		.stride_width = 1, .dilation_height = 1, .dilation_width = 1,
	};
	enpu_cpu_context *ctx = make_context(s);

	for (size_t i = 0; ctx && i < ARRAY_SIZE(fields); i++) {
		int is_pad = !strncmp(fields[i].name, "pad_", 4);

		for (size_t v = 0; v < 3; v++) {
			struct enpu_cpu_fconv_shape sh = base;
			size_t value = v == 0 ? 0 : v == 1 ? fields[i].limit :
				       fields[i].limit + 1;
			int accept = v == 1 || (v == 0 && is_pad);
			size_t oh = 0, ow = 0, want_h, want_w;
			int err;

			*(size_t *)((char *)&sh + fields[i].offset) = value;
			err = enpu_cpu_fconv_output_size(ctx, &sh, &oh, &ow);
			if (!accept) {
				/* group 2 of one channel: the split rule. */
				const char *rule = v == 2 && !is_pad &&
						   fields[i].limit == 1 ?
						   "do not split" :
						   "a size is 0 or out of range";

				CHECK(s, err == -EINVAL &&
				      strstr(enpu_cpu_context_error(ctx), rule),
				      "%s = %zu: err %d, %s", fields[i].name,
				      value, err, enpu_cpu_context_error(ctx));
				continue;
			}
			want_h = (sh.height + sh.pad_top + sh.pad_bottom -
				  sh.dilation_height * (sh.kernel_height - 1) - 1) /
				 sh.stride_height + 1;
			want_w = (sh.width + sh.pad_left + sh.pad_right -
				  sh.dilation_width * (sh.kernel_width - 1) - 1) /
				 sh.stride_width + 1;
			CHECK(s, err == 0 && oh == want_h && ow == want_w,
			      "%s = %zu: err %d (%s), %zux%zu, want %zux%zu",
			      fields[i].name, value, err,
			      enpu_cpu_context_error(ctx), oh, ow, want_h,
			      want_w);
		}
	}
	for (size_t i = 0; ctx && i < ARRAY_SIZE(fits); i++) {
		struct enpu_cpu_fconv_shape sh = base;
		size_t oh = 0, ow = 0;
		int err;

		sh.height = sh.width = fits[i][0];
		sh.kernel_height = sh.kernel_width = fits[i][1];
		sh.dilation_height = sh.dilation_width = fits[i][2];
		sh.pad_top = sh.pad_left = fits[i][3];
		err = enpu_cpu_fconv_output_size(ctx, &sh, &oh, &ow);
		CHECK(s, fits[i][4] ? err == 0 && oh == 1 && ow == 1 :
		      err == -EINVAL && strstr(enpu_cpu_context_error(ctx),
					      "does not fit"),
		      "fit case %zu: err %d, %zux%zu, %s", i, err, oh, ow,
		      enpu_cpu_context_error(ctx));
	}
	if (ctx) {
		size_t oh, ow;

		CHECK(s, enpu_cpu_fconv_output_size(NULL, &base, &oh, &ow) == -EINVAL &&
		      enpu_cpu_fconv_output_size(ctx, &base, NULL, &ow) == -EINVAL &&
		      enpu_cpu_fconv_output_size(ctx, &base, &oh, NULL) == -EINVAL,
		      "a NULL context or output size accepted");
		CHECK(s, enpu_cpu_fconv_output_size(ctx, NULL, &oh, &ow) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "shape is NULL"),
		      "NULL shape: %s", enpu_cpu_context_error(ctx));
	}
	if (ctx) {
		struct enpu_cpu_fconv_shape sh = base;
		float x[4] = { 0 }, y[4];

		sh.height = sh.width = 2;
		CHECK(s, enpu_cpu_max_pool_f32(ctx, &sh, x, y) == 0, "%s",
		      enpu_cpu_context_error(ctx));
		CHECK(s, enpu_cpu_max_pool_f32(ctx, &sh, NULL, y) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "NULL"),
		      "NULL input: %s", enpu_cpu_context_error(ctx));
		CHECK(s, enpu_cpu_max_pool_f32(ctx, &sh, x, NULL) == -EINVAL &&
		      strstr(enpu_cpu_context_error(ctx), "NULL"),
		      "NULL output: %s", enpu_cpu_context_error(ctx));
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * One max pool against straight loops (NaN inputs skipped, a window of
 * padding only -FLT_MAX), every ISA at 1 and 2 threads, bit for bit;
 * the output is NaN before every run so a skipped element shows. Every
 * nan_every-th input is NaN (0: none). 0 when it could not run.
 */
static int run_pool_case(struct test_state *s, enpu_cpu_context *ctx,
			 const struct enpu_cpu_fconv_shape *sh,
			 size_t nan_every, uint64_t *rng)
{
	size_t oh, ow, xn, yn;
	float *x, *want, *got;
	unsigned int threads;
	size_t path = 0;
	int ok = 1, isa;

	if (enpu_cpu_fconv_output_size(ctx, sh, &oh, &ow))
		return 0;
	xn = sh->batch * sh->in_channels * sh->height * sh->width;
	yn = sh->batch * sh->in_channels * oh * ow;
	x = malloc(xn * sizeof(float));
	want = malloc(yn * sizeof(float));
	got = malloc(yn * sizeof(float));
	if (!x || !want || !got) {
		free(x);
		free(want);
		free(got);
		return 0;
	}
	fill(x, xn, rng);
	for (size_t i = 0; nan_every && i < xn; i += nan_every)
		x[i] = NAN;
	for (size_t p = 0; p < sh->batch * sh->in_channels; p++)
	for (size_t oy = 0; oy < oh; oy++)
	for (size_t ox = 0; ox < ow; ox++) {
		float best = -FLT_MAX;

		for (size_t ky = 0; ky < sh->kernel_height; ky++)
		for (size_t kx = 0; kx < sh->kernel_width; kx++) {
			ptrdiff_t iy = (ptrdiff_t)(oy * sh->stride_height +
				ky * sh->dilation_height) - (ptrdiff_t)sh->pad_top;
			ptrdiff_t ix = (ptrdiff_t)(ox * sh->stride_width +
				kx * sh->dilation_width) - (ptrdiff_t)sh->pad_left;

			if (iy >= 0 && iy < (ptrdiff_t)sh->height && ix >= 0 &&
			    ix < (ptrdiff_t)sh->width &&
			    x[(p * sh->height + (size_t)iy) * sh->width + (size_t)ix] > best)
				best = x[(p * sh->height + (size_t)iy) *
					 sh->width + (size_t)ix];
		}
		want[(p * oh + oy) * ow + ox] = best;
	}
	while (use_path(ctx, path++, &isa, &threads)) {
		/* A path that skips an output element leaves NaN. */
		for (size_t i = 0; i < yn; i++)
			got[i] = NAN;
		if (enpu_cpu_max_pool_f32(ctx, sh, x, got) == 0 &&
		    !memcmp(got, want, yn * sizeof(float)))
			continue;
		ok = 0;
		CHECK(s, 0, "%s %u threads C%zu %zux%zu k%zux%zu s%zu,%zu d%zu p%zu,%zu,%zu,%zu: %s",
		      enpu_cpu_isa_name(isa), threads, sh->in_channels,
		      sh->height, sh->width, sh->kernel_height,
		      sh->kernel_width, sh->stride_height, sh->stride_width,
		      sh->dilation_height, sh->pad_top, sh->pad_left,
		      sh->pad_bottom, sh->pad_right,
		      enpu_cpu_context_error(ctx));
	}
	CHECK(s, path > ARRAY_SIZE(thread_counts), "%zu paths ran", path - 1);
	ok = ok && path > ARRAY_SIZE(thread_counts);
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
	free(x);
	free(want);
	free(got);
	return ok;
}

static void test_max_pool_matches_loops(struct test_state *s)
{
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 77;

	for (int i = 0; ctx && i < 30; i++) {
		struct enpu_cpu_fconv_shape sh = { 0 };

		sh.batch = pick(&rng, 1, 2);
		sh.in_channels = sh.out_channels = pick(&rng, 1, 5);
		sh.group = 1;
		sh.kernel_height = pick(&rng, 1, 3);
		sh.kernel_width = pick(&rng, 1, 3);
		sh.stride_height = pick(&rng, 1, 3);
		sh.stride_width = pick(&rng, 1, 3);
		sh.dilation_height = sh.dilation_width = i % 4 ? 1 : 2;
		sh.pad_top = pick(&rng, 0, sh.kernel_height - 1);
		sh.pad_left = pick(&rng, 0, sh.kernel_width - 1);
		sh.pad_bottom = sh.pad_top;
		sh.pad_right = sh.pad_left;
		sh.height = pick(&rng, 6, 20);
		sh.width = pick(&rng, 6, i % 5 ? 20 : 700);
		run_pool_case(s, ctx, &sh, 0, &rng);
	}
	enpu_cpu_context_destroy(ctx);
}

/*
 * The AVX-512 2x2 stride-2 max pool (fdwconv_avx512.c max2x2_s2()):
 * input widths around its 32-column loads (2, 3, 31-35, 63-65: the
 * second load partial or empty, an odd last column unused) and heights
 * (2, 3, 17: an odd last row unused; the 8-row bands), with NaN inputs
 * (skipped, as the loops do), and the other side of its conditions:
 * top or left padding, stride 1, 3x3 at stride 2, dilation 2.
 */
static void test_max_pool_2x2_stride2_edges(struct test_state *s)
{
	static const size_t widths[] = { 2, 3, 31, 32, 33, 34, 35, 63, 64, 65 };
	static const size_t heights[] = { 2, 3, 17 };
	/* kernel, stride, dilation, pad top, left, bottom, right */
	static const size_t geometry[][7] = {
		{ 2, 2, 1, 0, 0, 0, 0 }, { 2, 2, 1, 0, 0, 1, 1 },
		{ 2, 2, 1, 1, 0, 0, 0 }, { 2, 2, 1, 0, 1, 0, 0 },
		{ 2, 1, 1, 0, 0, 0, 0 }, { 3, 2, 1, 0, 0, 0, 0 },
		{ 2, 2, 2, 0, 0, 0, 0 },
	};
	size_t cases = ARRAY_SIZE(geometry) * ARRAY_SIZE(widths) *
		       ARRAY_SIZE(heights);
	enpu_cpu_context *ctx = make_context(s);
	uint64_t rng = 1400;

	for (size_t i = 0; ctx && i < cases; i++) {
		const size_t *g = geometry[i / ARRAY_SIZE(heights) /
					   ARRAY_SIZE(widths)];
		struct enpu_cpu_fconv_shape sh = {
			.batch = 1 + i % 2, .in_channels = 3,
			.out_channels = 3, .group = 1,
			.height = heights[i % ARRAY_SIZE(heights)],
			.width = widths[i / ARRAY_SIZE(heights) %
					ARRAY_SIZE(widths)],
			.kernel_height = g[0], .kernel_width = g[0],
			.stride_height = g[1], .stride_width = g[1],
			.dilation_height = g[2], .dilation_width = g[2],
			.pad_top = g[3], .pad_left = g[4],
			.pad_bottom = g[5], .pad_right = g[6],
		};
		size_t span = g[2] * (g[0] - 1) + 1;

		/* Geometries where the window does not fit are not pools. */
		if (sh.height + sh.pad_top + sh.pad_bottom < span ||
		    sh.width + sh.pad_left + sh.pad_right < span)
			continue;
		if (!run_pool_case(s, ctx, &sh, 7 + i % 5, &rng))
			break;
	}
	enpu_cpu_context_destroy(ctx);
}

static const struct enpu_fmath_kernels *fmath_of(int isa)
{
#if defined(__x86_64__)
	return isa == ENPU_CPU_ISA_AVX512_VNNI ? &enpu_fmath_avx512 :
	       isa == ENPU_CPU_ISA_AVX2 ? &enpu_fmath_avx2 : &enpu_fmath_scalar;
#elif defined(__aarch64__)
	return isa >= ENPU_CPU_ISA_NEON ? &enpu_fmath_neon : &enpu_fmath_scalar;
#else
	(void)isa;
	return &enpu_fmath_scalar;
#endif
}

/*
 * The row reductions (across lanes as a tree) and softmax's exp pass on
 * every ISA, for every length around the vector widths (tails, one lane,
 * a whole vector plus one): max exact, sums against double, NaN and
 * -inf carried.
 */
static void test_fmath_reductions(struct test_state *s)
{
	uint64_t rng = 11;

	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		const struct enpu_fmath_kernels *f;

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		f = fmath_of(isa);
		for (size_t n = 1; n <= 70; n++) {
			float x[70], y[70], max = -INFINITY, got;
			double sum = 0, abs_sum = 0, esum = 0;

			for (size_t i = 0; i < n; i++) {
				x[i] = 20.0f * frand(&rng);
				max = x[i] > max ? x[i] : max;
			}
			/* The row's max anywhere, also in the tail. */
			x[n * 5 / 7] = max = max + 1.0f;
			for (size_t i = 0; i < n; i++) {
				sum += x[i];
				abs_sum += fabs(x[i]);
				/* The kernel's exp argument is a float. */
				esum += exp((double)(x[i] - max));
			}
			got = f->max(n, x);
			CHECK(s, got == max, "%s max n=%zu: %g vs %g",
			      enpu_cpu_isa_name(isa), n, got, max);
			got = f->sum(n, x);
			CHECK(s, fabs(got - sum) <= 1e-6 * abs_sum,
			      "%s sum n=%zu: %.9g vs %.9g",
			      enpu_cpu_isa_name(isa), n, got, sum);
			got = f->exp_shift_sum(n, x, max, y);
			CHECK(s, fabs(got - esum) <= 1e-6 * esum,
			      "%s exp_shift_sum n=%zu: %.9g vs %.9g",
			      enpu_cpu_isa_name(isa), n, got, esum);
			for (size_t i = 0; i < n; i++) {
				double want = exp((double)(x[i] - max));

				if (fabs(y[i] - want) > 3e-7 * want + 1e-38) {
					CHECK(s, 0, "%s exp_shift_sum n=%zu "
					      "y[%zu] = %.9g vs %.9g",
					      enpu_cpu_isa_name(isa), n, i, y[i],
					      want);
					break;
				}
			}
			x[n - 1] = -INFINITY;
			f->exp_shift_sum(n, x, max, y);
			CHECK(s, y[n - 1] == 0.0f || n - 1 == n * 5 / 7,
			      "%s exp(-inf - max) = %g", enpu_cpu_isa_name(isa),
			      y[n - 1]);
			x[n / 2] = NAN;
			got = f->max(n, x);
			CHECK(s, isnan(got), "%s max n=%zu with a NaN: %g",
			      enpu_cpu_isa_name(isa), n, got);
			CHECK(s, isnan(f->sum(n, x)), "%s sum n=%zu with a NaN",
			      enpu_cpu_isa_name(isa), n);
		}
	}
}

/*
 * lerp_pairs (Resize's 2x columns) on every ISA at every length to 40
 * (vector bodies and tails), bit for bit against its formula, and not
 * one element written past y[2n - 1].
 */
static void lerp_pairs_case(struct test_state *s, int isa)
{
	static const float w[4] = { 0.25f, 0.75f, 0.625f, 0.375f };
	uint64_t rng = 5;
	float a[40], b[40], c[40], d[40], y[82];

	fill(a, 40, &rng);
	fill(b, 40, &rng);
	fill(c, 40, &rng);
	fill(d, 40, &rng);
	for (size_t n = 0; n <= 40; n++) {
		int bad = 0;

		for (size_t i = 0; i < 82; i++)
			y[i] = -7.0f;
		fmath_of(isa)->lerp_pairs(n, a, b, c, d, w, y);
		for (size_t m = 0; m < n; m++)
			bad |= y[2 * m] != (0.0f + w[0] * a[m]) + w[1] * b[m] ||
			       y[2 * m + 1] != (0.0f + w[2] * c[m]) +
					       w[3] * d[m];
		for (size_t i = 2 * n; i < 82; i++)
			bad |= y[i] != -7.0f;
		CHECK(s, !bad, "%s lerp_pairs n=%zu",
		      enpu_cpu_isa_name((enum enpu_cpu_isa)isa), n);
	}
}

/*
 * axpy: y + w * x rounded twice (a multiply, then an add), the vector
 * loop and its tails, nothing written past n. A fused multiply-add
 * would differ in the last bit for most of these values.
 */
static void axpy_case(struct test_state *s, int isa)
{
	const float w = 0.3f;
	uint64_t rng = 11;
	float x[70], y0[70], y[72];

	fill(x, 70, &rng);
	fill(y0, 70, &rng);
	for (size_t n = 0; n <= 70; n++) {
		int bad = 0;

		memcpy(y, y0, sizeof(y0));
		y[70] = y[71] = -7.0f;
		fmath_of(isa)->axpy(n, w, x, y);
		for (size_t i = 0; i < 70; i++) {
			float p = w * x[i];

			bad |= y[i] != (i < n ? y0[i] + p : y0[i]);
		}
		bad |= y[70] != -7.0f || y[71] != -7.0f;
		CHECK(s, !bad, "%s axpy n=%zu",
		      enpu_cpu_isa_name((enum enpu_cpu_isa)isa), n);
	}
}

/* Resize's two row kernels (lerp_pairs, axpy), every ISA, bit for bit. */
static void test_fmath_resize_rows(struct test_state *s)
{
	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		lerp_pairs_case(s, isa);
		axpy_case(s, isa);
	}
}

/* What a vector math row should give for @x: libm in double. */
static double fmath_want(int op, double x)
{
	switch (op) {
	case ENPU_FEXP: return exp(x);
	case ENPU_FSIGMOID: return 1 / (1 + exp(-x));
	case ENPU_FTANH: return tanh(x);
	case ENPU_FERF: return erf(x);
	/* The ONNX formula: Gelu(-inf) = -inf * 0 = NaN. */
	case ENPU_FGELU: return 0.5 * x * erfc(-x / sqrt(2));
	default: return sqrt(x);
	}
}

/*
 * Runs row @op of @f over @n values and checks each against libm
 * (3e-7 relative, Gelu 5e-6); returns 1 if every one passed.
 */
static int fmath_row_matches(struct test_state *s, const char *isa_name,
			     const struct enpu_fmath_kernels *f, int op,
			     size_t n, const float *x, float *y)
{
	f->unary[op](n, x, y);
	for (size_t i = 0; i < n; i++) {
		double want = (float)fmath_want(op, x[i]); /* overflow to inf */

		CHECK(s, (isnan(want) && isnan(y[i])) || y[i] == want ||
		      fabs(y[i] - want) <= (op == ENPU_FGELU ? 5e-6 : 3e-7) *
		      fabs(want) + 1e-30, "%s op %d x=%g: %.9g vs %.9g",
		      isa_name, op, x[i], y[i], want);
		if (s->failures)
			return 0;
	}
	return 1;
}

/*
 * The vector math rows against libm, every ISA: the probes (edges,
 * overflow, infinities, NaN), then a sweep of [-6, 6] in steps of 1/512,
 * where every polynomial (and the fused multiply-adds of their Horner
 * chains) is in use: erf's two branches meet at 0.5, exp reduces by
 * ln 2 / 2.
 */
static void test_fmath_rows(struct test_state *s)
{
	static const float probes[] = {
		0.0f, -0.0f, 1e-6f, -1e-6f, 0.3f, -0.49f, 0.5f, 0.51f, 1.0f,
		-2.5f, 3.7f, 9.0f, -9.2f, 20.0f, -30.0f, 87.0f, -87.0f, 89.0f,
		-104.0f, INFINITY, -INFINITY, NAN,
	};
	const size_t n = ARRAY_SIZE(probes), sweep = 12 * 512 + 1;
	float y[ARRAY_SIZE(probes)], *sx = malloc(sweep * sizeof(float));
	float *sy = malloc(sweep * sizeof(float));

	CHECK(s, sx && sy, "out of memory");
	for (size_t i = 0; sx && sy && i < sweep; i++)
		sx[i] = -6.0f + (float)i / 512.0f;
	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT &&
	     sx && sy; isa++) {
		const char *name = enpu_cpu_isa_name((enum enpu_cpu_isa)isa);
		const struct enpu_fmath_kernels *f = NULL;

		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
#if defined(__x86_64__)
		f = isa == ENPU_CPU_ISA_AVX512_VNNI ? &enpu_fmath_avx512 :
		    isa == ENPU_CPU_ISA_AVX2 ? &enpu_fmath_avx2 :
		    &enpu_fmath_scalar;
#elif defined(__aarch64__)
		f = isa >= ENPU_CPU_ISA_NEON ? &enpu_fmath_neon :
		    &enpu_fmath_scalar;
#else
		f = &enpu_fmath_scalar;
#endif
		for (int op = 0; op < ENPU_FUNARY_COUNT; op++)
			if (!fmath_row_matches(s, name, f, op, n, probes, y) ||
			    !fmath_row_matches(s, name, f, op, sweep, sx, sy))
				break;
		/* QuantizeLinear rows: ties to even, saturation, NaN -> 0. */
		{
			static const float xs[] = {
				0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.0f, -300.0f,
				126.5f, -128.5f, NAN, INFINITY, 3.49999f,
			};
			/* Three copies: the vector loop and its tail at
			 * every width. */
			float x3[3 * ARRAY_SIZE(xs)];
			uint8_t q[ARRAY_SIZE(x3)];

			for (size_t i = 0; i < ARRAY_SIZE(x3); i++)
				x3[i] = xs[i % ARRAY_SIZE(xs)];
			for (int is_signed = 0; is_signed < 2; is_signed++)
				for (int zp = -3; zp <= 3; zp += 3) {
					int32_t z = is_signed ? zp : zp + 10;

					f->quantize(ARRAY_SIZE(x3), x3, 0.5f, z,
						    is_signed, q);
					for (size_t i = 0; i < ARRAY_SIZE(x3); i++) {
						float v = x3[i] / 0.5f;
						double r = isnan(v) ? 0 : nearbyintf(v) + z;
						int32_t lo = is_signed ? -128 : 0;
						int32_t hi = is_signed ? 127 : 255;
						int32_t want = r < lo ? lo : r > hi ? hi :
							       (int32_t)r;
						int32_t got = is_signed ? (int8_t)q[i] : q[i];

						if (isnan(v))
							want = 0;
						CHECK(s, got == want,
						      "%s quantize %g zp %d signed %d: %d vs %d",
						      enpu_cpu_isa_name(isa), x3[i], z,
						      is_signed, got, want);
					}
				}
		}
	}
	free(sx);
	free(sy);
}

/*
 * The grain rule changes who runs a GEMM's tasks, never the result: the
 * smallest k whose estimate reaches ENPU_THREAD_POOL_SPLIT_NS for a
 * 64 x 96 product, and the k one below, at the default threshold on 2
 * threads (the first counted shared, the second small), give the bits
 * of 1 thread.
 */
static void test_sgemm_same_bits_both_sides_of_the_grain(struct test_state *s)
{
	const size_t m = 64, n = 96;
	enpu_cpu_context *one = NULL, *two = NULL;
	size_t k = 1;
	float *a = NULL, *b = NULL, *c1 = NULL, *c2 = NULL;
	uint64_t rng = 0x2545f4914f6cdd1dull;

	while (enpu_thread_pool_work_ns(4 * (m * k + k * n + m * n),
					2 * m * n * k) < ENPU_THREAD_POOL_SPLIT_NS)
		k++;
	a = malloc(m * k * sizeof(float));
	b = malloc(k * n * sizeof(float));
	c1 = malloc(m * n * sizeof(float));
	c2 = malloc(m * n * sizeof(float));
	if (!a || !b || !c1 || !c2 || enpu_cpu_context_create(1, &one) ||
	    enpu_cpu_context_create(2, &two)) {
		CHECK(s, 0, "setup");
		goto out;
	}
	fill(a, m * k, &rng);
	fill(b, k * n, &rng);
	for (size_t kk = k - 1; kk <= k; kk++) {
		struct enpu_cpu_sgemm_args args = {
			.m = m, .n = n, .k = kk, .a = a, .lda = kk, .b = b,
			.ldb = n, .ldc = n,
		};
		struct enpu_thread_pool_stats before, after;

		args.c = c1;
		CHECK(s, enpu_cpu_sgemm(one, &args) == 0, "1 thread k%zu", kk);
		args.c = c2;
		enpu_thread_pool_stats(two->pool, &before);
		CHECK(s, enpu_cpu_sgemm(two, &args) == 0, "2 threads k%zu", kk);
		enpu_thread_pool_stats(two->pool, &after);
		CHECK(s, !memcmp(c1, c2, m * n * sizeof(float)),
		      "k%zu: 2 threads give other bits than 1", kk);
		CHECK(s, kk == k ? after.shared == before.shared + 1 :
				   after.small == before.small + 1,
		      "k%zu: not counted %s", kk, kk == k ? "shared" : "small");
	}
out:
	enpu_cpu_context_destroy(one);
	enpu_cpu_context_destroy(two);
	free(a);
	free(b);
	free(c1);
	free(c2);
}

const struct test_case float_tests[] = {
	{ "sgemm_same_bits_both_sides_of_the_grain",
	  test_sgemm_same_bits_both_sides_of_the_grain },
	{ "sgemm_paths_match_reference", test_sgemm_paths_match_reference },
	{ "sgemm_clamp_keeps_nan", test_sgemm_clamp_keeps_nan },
	{ "sgemm_rejects_bad_arguments", test_sgemm_rejects_bad_arguments },
	{ "fconv_paths_match_reference", test_fconv_paths_match_reference },
	{ "fdwconv_3x3_stride1_edges", test_fdwconv_3x3_stride1_edges },
	{ "fdwconv_3x3_8_lane_edges", test_fdwconv_3x3_8_lane_edges },
	{ "fdwconv_blocked_small_planes", test_fdwconv_blocked_small_planes },
	{ "fconv_few_taps_stride2", test_fconv_few_taps_stride2 },
	{ "fconv_packs_only_for_the_in_place_path",
	  test_fconv_packs_only_for_the_in_place_path },
	{ "sgemm_thin_columns", test_sgemm_thin_columns },
	{ "sgemm_wide_tail_same_bits", test_sgemm_wide_tail_same_bits },
	{ "sgemm_tall_same_bits", test_sgemm_tall_same_bits },
	{ "max_pool_matches_loops", test_max_pool_matches_loops },
	{ "max_pool_2x2_stride2_edges", test_max_pool_2x2_stride2_edges },
	{ "fconv_shape_bounds_field_by_field",
	  test_fconv_shape_bounds_field_by_field },
	{ "fmath_rows_match_libm", test_fmath_rows },
	{ "fmath_reductions_match_double", test_fmath_reductions },
	{ "fmath_resize_rows_match_formula", test_fmath_resize_rows },
	{ NULL, NULL },
};
