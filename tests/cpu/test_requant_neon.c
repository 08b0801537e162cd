// SPDX-License-Identifier: MIT
/*
 * The NEON requantization (requant_neon.h) lane by lane against
 * enpu_requantize(): the hand-computed vectors (ties, negatives, extremes)
 * with a different case in every lane, and random accumulators,
 * multipliers, shifts, zero points and clamps. Only on aarch64; the suite
 * is empty elsewhere (the kernel tests still cover the other paths).
 */
#include "test_cpu.h"

#if defined(__aarch64__)
#include "requant_neon.h"

/* Lanes may differ in multiplier and shift, not in zero point or clamp. */
static void check_lanes(struct test_state *s, const int32_t acc[4],
			const int32_t multiplier[4], const int32_t shift[4],
			int32_t zero_point, int32_t qmin, int32_t qmax,
			const char *why)
{
	int32_t neg[4], got[4];

	for (int i = 0; i < 4; i++)
		neg[i] = -shift[i];
	vst1q_s32(got, enpu_requantize_neon(vld1q_s32(acc), vld1q_s32(multiplier),
					    vld1q_s32(neg), zero_point, qmin,
					    qmax));
	for (int i = 0; i < 4; i++) {
		int32_t want = enpu_requantize(acc[i], multiplier[i], shift[i],
					       zero_point, qmin, qmax);

		CHECK(s, got[i] == want,
		      "%s: lane %d acc %d mult %d shift %d zp %d [%d, %d]: got %d, want %d",
		      why, i, acc[i], multiplier[i], shift[i], zero_point, qmin,
		      qmax, got[i], want);
	}
}

static void test_neon_requantize_matches_vectors(struct test_state *s)
{
	for (size_t i = 0; i < requant_vector_count; i++) {
		const struct requant_vector *v = &requant_vectors[i];

		for (int lane = 0; lane < 4; lane++) {
			int32_t acc[4], multiplier[4], shift[4];

			/* The vector in @lane, its neighbours in the others. */
			for (int j = 0; j < 4; j++) {
				const struct requant_vector *o = &requant_vectors[
					(i + (size_t)j) % requant_vector_count];

				acc[j] = o->acc;
				multiplier[j] = o->multiplier;
				shift[j] = o->shift;
			}
			acc[lane] = v->acc;
			multiplier[lane] = v->multiplier;
			shift[lane] = v->shift;
			check_lanes(s, acc, multiplier, shift, v->zero_point,
				    v->qmin, v->qmax, v->why);
		}
	}
}

static int32_t pick_acc(uint64_t *rng)
{
	static const int32_t edges[] = {
		INT32_MIN, INT32_MIN + 1, -65537, -1, 0, 1, 65535, INT32_MAX,
	};
	uint64_t r = test_random(rng);

	switch (r % 4) {
	case 0:
		return edges[(r >> 8) % ARRAY_SIZE(edges)];
	case 1:
		return (int32_t)(r >> 40) - (1 << 23);   /* small, both signs */
	default:
		return (int32_t)(uint32_t)(r >> 32);
	}
}

static void test_neon_requantize_matches_random(struct test_state *s)
{
	uint64_t rng = 0x6e656f6e72657175ULL;

	for (int iteration = 0; iteration < 50000 && !s->failures; iteration++) {
		int32_t acc[4], multiplier[4], shift[4];
		uint64_t r = test_random(&rng);
		int is_unsigned = r & 1;
		int32_t lo = is_unsigned ? 0 : -128, hi = is_unsigned ? 255 : 127;
		int32_t zero_point = lo + (int32_t)((r >> 8) % 256);
		int32_t qmin = lo + (int32_t)((r >> 16) % 64);
		int32_t qmax = hi - (int32_t)((r >> 24) % 64);

		for (int j = 0; j < 4; j++) {
			uint64_t m = test_random(&rng);

			acc[j] = pick_acc(&rng);
			/* Half the multipliers near 2^31, where products peak. */
			multiplier[j] = m & 1 ? INT32_MAX - (int32_t)((m >> 8) % 1024) :
				       (int32_t)((m >> 33) & 0x7fffffff);
			shift[j] = ENPU_REQUANT_SHIFT_MIN +
				   (int32_t)((m >> 20) % (ENPU_REQUANT_SHIFT_MAX -
							  ENPU_REQUANT_SHIFT_MIN + 1));
		}
		check_lanes(s, acc, multiplier, shift, zero_point, qmin, qmax,
			    "random");
	}
}

const struct test_case requant_neon_tests[] = {
	{ "neon_requantize_matches_vectors", test_neon_requantize_matches_vectors },
	{ "neon_requantize_matches_random", test_neon_requantize_matches_random },
	{ NULL, NULL },
};
#else
const struct test_case requant_neon_tests[] = {
	{ NULL, NULL },
};
#endif
