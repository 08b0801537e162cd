/* SPDX-License-Identifier: MIT */
/*
 * The context object: its thread pool, instruction set and the kernel
 * table chosen with it (kernels.h). Kept apart from cpu_internal.h so the
 * kernel families' headers can be included without the table.
 */
#ifndef ENPU_CPU_CONTEXT_INTERNAL_H
#define ENPU_CPU_CONTEXT_INTERNAL_H

#include "cpu_internal.h"
#include "kernels.h"

struct enpu_cpu_context {
	struct enpu_thread_pool *pool;
	uint64_t split_ns;              /* kept across pool changes */
	enum enpu_cpu_isa isa;
	struct enpu_cpu_kernels kernels;	/* chosen with isa */
	char error[256];
};

#endif /* ENPU_CPU_CONTEXT_INTERNAL_H */
