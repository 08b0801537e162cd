// SPDX-License-Identifier: MIT
/*
 * The requantization rule on hand-computed cases: ties, negative values,
 * saturation, the extremes of multiplier and shift, and the float scale to
 * (multiplier, shift) conversion.
 */
#include "test_cpu.h"

#include <errno.h>
#include <math.h>

#define Q30 (1 << 30)
#define QMAX 2147483647

const struct requant_vector requant_vectors[] = {
	{ 1, Q30, 31, 0, -128, 127, 1, "+0.5 rounds up" },
	{ -1, Q30, 31, 0, -128, 127, 0, "-0.5 rounds up to 0" },
	{ 3, Q30, 31, 0, -128, 127, 2, "+1.5 rounds up" },
	{ -3, Q30, 31, 0, -128, 127, -1, "-1.5 rounds up to -1" },
	{ 5, Q30, 32, 0, -128, 127, 1, "+1.25 rounds down" },
	{ -5, Q30, 32, 0, -128, 127, -1, "-1.25 rounds to -1" },
	{ 7, Q30, 32, 0, -128, 127, 2, "+1.75 rounds up" },
	{ -7, Q30, 32, 0, -128, 127, -2, "-1.75 rounds to -2" },
	{ 6, Q30, 32, 0, -128, 127, 2, "+1.5 tie up" },
	{ -6, Q30, 32, 0, -128, 127, -1, "-1.5 tie up" },
	{ 1000, 1518500250, 31, 0, -128, 127, 127, "707.1 saturates int8" },
	{ 1000, 1518500250, 31, 0, -1000000, 1000000, 707, "1000 * 0.70710678" },
	{ -1000, 1518500250, 31, 0, -1000000, 1000000, -707, "-707.1" },
	{ 1000, Q30, 31, 0, -128, 127, 127, "500 saturates high" },
	{ -1000, Q30, 31, 0, -128, 127, -128, "-500 saturates low" },
	{ -300, Q30, 31, 128, 0, 255, 0, "-150 + 128 clamps to uint8 0" },
	{ 200, Q30, 31, 128, 0, 255, 228, "100 + 128" },
	{ 300, Q30, 31, 128, 0, 255, 255, "150 + 128 clamps to 255" },
	{ 100, Q30, 31, -128, -128, 127, -78, "50 - 128" },
	{ 20, Q30, 31, 0, 0, 6, 6, "ReLU6-style clamp" },
	{ -20, Q30, 31, 0, 0, 6, 0, "ReLU clamp" },
	{ 0, QMAX, 31, 5, -128, 127, 5, "zero maps to the zero point" },
	{ 12345, 0, 31, 7, -128, 127, 7, "zero multiplier" },
	{ INT32_MIN, QMAX, 31, 0, INT32_MIN, QMAX, -2147483647,
	  "most negative product" },
	{ QMAX, QMAX, 31, 0, INT32_MIN, QMAX, 2147483646,
	  "most positive product" },
	{ QMAX, QMAX, 62, 0, -128, 127, 1, "largest shift, ~0.4999..+1" },
	{ INT32_MIN, QMAX, 62, 0, -128, 127, -1, "largest shift, ~-1" },
	{ Q30, Q30, 61, 0, -128, 127, 1, "+0.5 at shift 61" },
	{ -Q30, Q30, 61, 0, -128, 127, 0, "-0.5 at shift 61" },
	{ INT32_MIN, Q30, 31, 0, INT32_MIN, QMAX, -1073741824, "-2^31 / 2" },
	{ INT32_MIN, QMAX, 31, 127, -128, 127, -128, "huge negative + zp" },
};

const size_t requant_vector_count = ARRAY_SIZE(requant_vectors);

static void test_requantize_matches_hand_computed_vectors(struct test_state *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(requant_vectors); i++) {
		const struct requant_vector *v = &requant_vectors[i];
		int32_t got = enpu_requantize(v->acc, v->multiplier, v->shift,
					      v->zero_point, v->qmin, v->qmax);

		CHECK(s, got == v->expected,
		      "vector %zu (%s): acc=%d m=%d s=%d -> %d, expected %d",
		      i, v->why, v->acc, v->multiplier, v->shift, got,
		      v->expected);
	}
}

/* The rule equals round-half-up of the exact rational acc * m / 2^s. */
static void test_requantize_equals_exact_rounding(struct test_state *s)
{
	uint64_t rng = 0x1234567;

	for (int i = 0; i < 200000; i++) {
		int32_t acc = (int32_t)test_random(&rng);
		int32_t m = (int32_t)(test_random(&rng) & 0x7fffffff);
		int32_t sh = 31 + (int32_t)(test_random(&rng) % 32);
		__int128 p = (__int128)acc * m;
		__int128 d = (__int128)1 << sh;
		/* floor((2p + d) / 2d) computed with exact 128-bit math. */
		__int128 num = 2 * p + d, den = 2 * d;
		__int128 q = num / den;
		int32_t got;

		if ((num % den != 0) && ((num < 0) != (den < 0)))
			q--;
		if (q < INT32_MIN)
			q = INT32_MIN;
		if (q > INT32_MAX)
			q = INT32_MAX;
		got = enpu_requantize(acc, m, sh, 0, INT32_MIN, INT32_MAX);
		if (got != (int32_t)q) {
			CHECK(s, got == (int32_t)q,
			      "acc=%d m=%d s=%d -> %d, exact %d", acc, m, sh,
			      got, (int32_t)q);
			return;
		}
	}
}

struct scale_vector {
	double scale;
	int err;
	int32_t multiplier, shift;
};

static void test_scale_converts_to_multiplier_and_shift(struct test_state *s)
{
	static const struct scale_vector vectors[] = {
		{ 0.5, 0, 1 << 30, 31 },
		{ 0.25, 0, 1 << 30, 32 },
		{ 0.75, 0, 1610612736, 31 },
		{ 1.0 / 3.0, 0, 1431655765, 32 },
		{ 1.0 - 0x1p-40, 0, 2147483647, 31 },
		{ 0x1p-40, 0, 1 << 22, 62 },
		{ 0x1p-32, 0, 1 << 30, 62 },
		{ 0x1p-70, -ERANGE, 0, 0 },
		{ 1.0, -EINVAL, 0, 0 },
		{ 2.5, -EINVAL, 0, 0 },
		{ 0.0, -EINVAL, 0, 0 },
		{ -0.5, -EINVAL, 0, 0 },
		{ NAN, -EINVAL, 0, 0 },
		{ INFINITY, -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		int32_t m = -1, sh = -1;
		int err = enpu_requant_from_scale(vectors[i].scale, &m, &sh);

		CHECK(s, err == vectors[i].err, "scale %g: err %d, expected %d",
		      vectors[i].scale, err, vectors[i].err);
		if (err || vectors[i].err)
			continue;
		CHECK(s, m == vectors[i].multiplier && sh == vectors[i].shift,
		      "scale %a: (%d, %d), expected (%d, %d)", vectors[i].scale,
		      m, sh, vectors[i].multiplier, vectors[i].shift);
	}
}

/* A converted scale reproduces float rounding within one unit. */
static void test_scale_conversion_is_accurate(struct test_state *s)
{
	uint64_t rng = 99;

	for (int i = 0; i < 2000; i++) {
		double scale = ldexp(0.5 + (double)(test_random(&rng) % 1000000) /
				     2000000.0, -(int)(test_random(&rng) % 30));
		int32_t m, sh, acc = (int32_t)(test_random(&rng) % 2000001) -
				     1000000;
		double want;
		int32_t got;

		if (enpu_requant_from_scale(scale, &m, &sh)) {
			CHECK(s, 0, "scale %g rejected", scale);
			return;
		}
		want = floor(acc * scale + 0.5);
		got = enpu_requantize(acc, m, sh, 0, INT32_MIN, INT32_MAX);
		CHECK(s, fabs(got - want) <= 1.0, "acc %d scale %g: %d vs %g",
		      acc, scale, got, want);
	}
}

const struct test_case requant_tests[] = {
	{ "requantize_matches_hand_computed_vectors",
	  test_requantize_matches_hand_computed_vectors },
	{ "requantize_equals_exact_rounding",
	  test_requantize_equals_exact_rounding },
	{ "scale_converts_to_multiplier_and_shift",
	  test_scale_converts_to_multiplier_and_shift },
	{ "scale_conversion_is_accurate", test_scale_conversion_is_accurate },
	{ NULL, NULL },
};
