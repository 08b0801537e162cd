// SPDX-License-Identifier: MIT
/*
 * Byte lookup (enpu_cpu_lookup: QLinearConcat's requantization) on every
 * ISA path at 1 and 2 threads against the reference, byte for byte, over
 * row lengths on both sides of the vector widths, strided rows whose gaps
 * must stay untouched (a channel slice of an NHWC tensor), and inputs and
 * outputs that end at an inaccessible page.
 */
#include "test_cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The gap bytes between rows keep this value. */
#define UNTOUCHED 0x5a

struct lookup_case {
	struct test_state *s;
	struct enpu_cpu_lookup_args args;
	const uint8_t *expected;
	size_t bytes, gap;
};

static void run_path(enpu_cpu_context *ctx, void *argument, const char *path,
		     unsigned int threads)
{
	struct lookup_case *c = argument;
	struct test_state *s = c->s;

	memset(c->args.output, UNTOUCHED, c->bytes);
	CHECK(s, enpu_cpu_lookup(ctx, &c->args) == 0 &&
	      !memcmp(c->args.output, c->expected, c->bytes),
	      "%s, %u threads, %zu rows of %zu bytes, gap %zu", path, threads,
	      c->args.rows, c->args.row_bytes, c->gap);
}

static int run_case(struct test_state *s, enpu_cpu_context *ctx,
		    const uint8_t *table, size_t rows, size_t row_bytes,
		    size_t gap, uint64_t *rng)
{
	size_t stride = row_bytes + gap;
	size_t bytes = (rows - 1) * stride + row_bytes;
	uint8_t *in = test_guarded_alloc(bytes);
	uint8_t *got = test_guarded_alloc(bytes);
	uint8_t *expected = malloc(bytes);
	struct enpu_cpu_lookup_args args = {
		.table = table, .input = in, .input_stride = stride,
		.output_stride = stride, .rows = rows, .row_bytes = row_bytes,
	};
	int ok = 0;

	if (!in || !got || !expected) {
		CHECK(s, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		in[i] = (uint8_t)test_random(rng);
	memset(expected, UNTOUCHED, bytes);
	args.output = expected;
	CHECK(s, enpu_cpu_lookup_reference(ctx, &args) == 0, "reference: %s",
	      enpu_cpu_context_error(ctx));
	{
		struct lookup_case c = { s, args, expected, bytes, gap };

		c.args.output = got;
		test_each_path(ctx, run_path, &c);
	}
	ok = 1;
out:
	test_guarded_free(in, bytes);
	test_guarded_free(got, bytes);
	free(expected);
	return ok;
}

static void test_lookup_paths_match_reference(struct test_state *s)
{
	static const size_t lengths[] = { 1, 3, 15, 16, 17, 32, 48, 63, 64, 65,
					  127, 200 };
	static const size_t row_counts[] = { 1, 7, 3000 };
	enpu_cpu_context *ctx = NULL;
	uint64_t rng = 7777;
	uint8_t table[256];

	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "context create");
	if (!ctx)
		return;
	/* Random entries, repeats allowed: any byte map. */
	for (int v = 0; v < 256; v++)
		table[v] = (uint8_t)test_random(&rng);
	for (size_t l = 0; l < ARRAY_SIZE(lengths); l++)
		for (size_t r = 0; r < ARRAY_SIZE(row_counts); r++)
			for (size_t gap = 0; gap <= 21; gap += 21)
				if (!run_case(s, ctx, table, row_counts[r],
					      lengths[l], gap, &rng))
					goto out;
out:
	enpu_cpu_context_destroy(ctx);
}

/* The reference against the definition, by hand: a row, then the next. */
static void test_lookup_reference_by_hand(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	uint8_t table[256], in[7] = { 0, 1, 255, 9, 9, 128, 127 }, out[7];
	struct enpu_cpu_lookup_args args = {
		.table = table, .input = in, .input_stride = 4, .output = out,
		.output_stride = 4, .rows = 2, .row_bytes = 3,
	};

	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "context create");
	if (!ctx)
		return;
	for (int v = 0; v < 256; v++)
		table[v] = (uint8_t)(255 - v);
	memset(out, UNTOUCHED, sizeof(out));
	CHECK(s, enpu_cpu_lookup_reference(ctx, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, out[0] == 255 && out[1] == 254 && out[2] == 0 &&
	      out[3] == UNTOUCHED && out[4] == 246 && out[5] == 127 &&
	      out[6] == 128, "%d %d %d %d %d %d %d", out[0], out[1], out[2],
	      out[3], out[4], out[5], out[6]);
	enpu_cpu_context_destroy(ctx);
}

static void test_lookup_rejects_bad_arguments(struct test_state *s)
{
	enpu_cpu_context *ctx = NULL;
	uint8_t table[256] = { 0 }, in[8] = { 0 }, out[8];
	struct enpu_cpu_lookup_args args = {
		.table = table, .input = in, .input_stride = 4, .output = out,
		.output_stride = 4, .rows = 2, .row_bytes = 4,
	}, bad;

	CHECK(s, enpu_cpu_context_create(1, &ctx) == 0, "context create");
	if (!ctx)
		return;
	CHECK(s, enpu_cpu_lookup(ctx, &args) == 0, "%s",
	      enpu_cpu_context_error(ctx));
	CHECK(s, enpu_cpu_lookup(NULL, &args) == -EINVAL &&
	      enpu_cpu_lookup(ctx, NULL) == -EINVAL, "NULL context or args");
	bad = args;
	bad.table = NULL;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == -EINVAL, "NULL table accepted");
	bad = args;
	bad.input_stride = 3;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == -EINVAL,
	      "input rows overlapping accepted");
	bad = args;
	bad.output_stride = 3;
	CHECK(s, enpu_cpu_lookup_reference(ctx, &bad) == -EINVAL,
	      "output rows overlapping accepted by the reference");
	/* One row has no next row to overlap: any stride will do. */
	bad = args;
	bad.rows = 1;
	bad.input_stride = bad.output_stride = 0;
	for (int i = 0; i < 4; i++) {
		table[i + 1] = (uint8_t)(0x10 + i);
		in[i] = (uint8_t)(i + 1);
	}
	memset(out, 0, sizeof(out));
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == 0 && out[0] == 0x10 &&
	      out[3] == 0x13 && out[4] == 0, "one row at stride 0: %s",
	      enpu_cpu_context_error(ctx));
	/* 2^40 bytes in all is the limit: at it the size rule passes and
	 * the NULL input is what is refused, one byte more and the size. */
	bad = args;
	bad.input = NULL;
	bad.rows = 2;
	bad.row_bytes = bad.input_stride = bad.output_stride = (size_t)1 << 39;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == -EINVAL &&
	      strstr(enpu_cpu_context_error(ctx), "NULL"),
	      "2 rows of 2^39 bytes: %s", enpu_cpu_context_error(ctx));
	bad.row_bytes++;
	bad.input_stride = bad.output_stride = bad.row_bytes;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == -EINVAL &&
	      strstr(enpu_cpu_context_error(ctx), "do not fit"),
	      "2 rows of 2^39 + 1 bytes: %s", enpu_cpu_context_error(ctx));
	bad = args;
	bad.rows = (size_t)1 << 41;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == -EINVAL, "2^41 rows accepted");
	bad = args;
	bad.rows = 0;
	bad.table = NULL;
	CHECK(s, enpu_cpu_lookup(ctx, &bad) == 0, "no rows: nothing to do");
	enpu_cpu_context_destroy(ctx);
}

const struct test_case lookup_tests[] = {
	{ "lookup_paths_match_reference", test_lookup_paths_match_reference },
	{ "lookup_reference_by_hand", test_lookup_reference_by_hand },
	{ "lookup_rejects_bad_arguments", test_lookup_rejects_bad_arguments },
	{ NULL, NULL },
};
