// SPDX-License-Identifier: MIT
/* Every kernel path of this machine at 1 and 2 threads; see test_cpu.h. */
#include "test_cpu.h"

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
			run(ctx, argument,
			    enpu_cpu_isa_name((enum enpu_cpu_isa)isa),
			    thread_counts[t]);
		}
	}
	enpu_cpu_context_set_isa(ctx, ENPU_CPU_ISA_AUTO);
	enpu_cpu_context_set_thread_count(ctx, 1);
}
