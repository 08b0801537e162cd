// SPDX-License-Identifier: MIT
/* Every kernel path of this machine at 1 and 2 threads; see test_cpu.h. */
#include "test_cpu.h"
#include "thread_pool.h"

#include <string.h>

void test_each_path(enpu_cpu_context *ctx, test_path_function run,
		    void *argument)
{
	static const unsigned int thread_counts[] = { 1, 2 };

	for (int isa = ENPU_CPU_ISA_SCALAR; isa < ENPU_CPU_ISA_COUNT; isa++) {
		if (!enpu_cpu_isa_supported((enum enpu_cpu_isa)isa))
			continue;
		enpu_cpu_context_set_isa(ctx, (enum enpu_cpu_isa)isa);
		for (size_t t = 0; t < ARRAY_SIZE(thread_counts); t++) {
			enpu_cpu_context_set_thread_count(ctx, thread_counts[t]);
			/*
			 * Every region of two or more tasks shared, however
			 * small: the test shapes are mostly under the grain
			 * rule's threshold, which would run them on the
			 * caller alone (thread_pool_grain_* test the rule).
			 */
			enpu_cpu_context_set_split_ns(ctx, 0);
			run(ctx, argument,
			    enpu_cpu_isa_name((enum enpu_cpu_isa)isa),
			    thread_counts[t]);
		}
	}
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
	enpu_cpu_context_set_split_ns(ctx, ENPU_THREAD_POOL_SPLIT_NS);
}

size_t test_first_difference(const uint8_t *got, const uint8_t *expected,
			     size_t size)
{
	size_t at = 0;

	while (at < size && got[at] == expected[at])
		at++;
	return at;
}

struct output_paths {
	const struct test_output_check *check;
	int failed;
};

static void output_path(enpu_cpu_context *ctx, void *argument,
			const char *path, unsigned int threads)
{
	struct output_paths *o = argument;
	const struct test_output_check *c = o->check;
	struct test_path_difference d = { .path = path, .threads = threads };

	if (o->failed)
		return;
	memset(c->got, 0x5a, c->size);
	d.err = c->run(ctx, c->argument);
	d.at = test_first_difference(c->got, c->expected, c->size);
	if (!d.err && d.at == c->size)
		return;
	if (d.at < c->size) {
		d.got = c->got[d.at];
		d.expected = c->expected[d.at];
	}
	c->report(ctx, c->argument, &d);
	o->failed = 1;
}

int test_each_path_output(enpu_cpu_context *ctx,
			  const struct test_output_check *check)
{
	struct output_paths o = { check, 0 };

	test_each_path(ctx, output_path, &o);
	return o.failed ? -1 : 0;
}
