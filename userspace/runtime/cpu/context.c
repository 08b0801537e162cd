// SPDX-License-Identifier: MIT
/*
 * The CPU runtime context: thread pool, chosen instruction set, last error.
 */
#include "context_internal.h"
#include "enpu_cpu_float.h"
#include "cpu_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const isa_names[ENPU_CPU_ISA_COUNT] = {
	[ENPU_CPU_ISA_AUTO] = "auto",
	[ENPU_CPU_ISA_SCALAR] = "scalar",
	[ENPU_CPU_ISA_AVX2] = "avx2",
	[ENPU_CPU_ISA_AVX512_VNNI] = "avx512vnni",
	[ENPU_CPU_ISA_NEON] = "neon",
	[ENPU_CPU_ISA_NEON_DOTPROD] = "neondot",
	[ENPU_CPU_ISA_NEON_I8MM] = "neoni8mm",
};

const char *enpu_cpu_isa_name(enum enpu_cpu_isa isa)
{
	if ((unsigned int)isa >= ENPU_CPU_ISA_COUNT)
		return "unknown";
	return isa_names[isa];
}

int enpu_cpu_isa_from_name(const char *name, enum enpu_cpu_isa *isa)
{
	if (!name || !isa)
		return -EINVAL;
	for (int i = 0; i < ENPU_CPU_ISA_COUNT; i++) {
		if (!strcmp(name, isa_names[i])) {
			*isa = (enum enpu_cpu_isa)i;
			return 0;
		}
	}
	return -EINVAL;
}

int enpu_cpu_fail(enpu_cpu_context *context, int err, const char *fmt, ...)
{
	va_list args;

	if (context) {
		va_start(args, fmt);
		vsnprintf(context->error, sizeof(context->error), fmt, args);
		va_end(args);
	}
	return err;
}

static enum enpu_cpu_isa best_isa(void)
{
	if (enpu_cpu_detect_isa_support(ENPU_CPU_ISA_NEON_I8MM))
		return ENPU_CPU_ISA_NEON_I8MM;
	if (enpu_cpu_detect_isa_support(ENPU_CPU_ISA_NEON_DOTPROD))
		return ENPU_CPU_ISA_NEON_DOTPROD;
	if (enpu_cpu_detect_isa_support(ENPU_CPU_ISA_NEON))
		return ENPU_CPU_ISA_NEON;
	if (enpu_cpu_detect_isa_support(ENPU_CPU_ISA_AVX512_VNNI))
		return ENPU_CPU_ISA_AVX512_VNNI;
	if (enpu_cpu_detect_isa_support(ENPU_CPU_ISA_AVX2))
		return ENPU_CPU_ISA_AVX2;
	return ENPU_CPU_ISA_SCALAR;
}

int enpu_cpu_context_set_isa(enpu_cpu_context *context, enum enpu_cpu_isa isa)
{
	if (!context)
		return -EINVAL;
	if ((unsigned int)isa >= ENPU_CPU_ISA_COUNT)
		return enpu_cpu_fail(context, -EINVAL,
				     "cpu context: unknown isa %d", (int)isa);
	if (isa == ENPU_CPU_ISA_AUTO)
		isa = best_isa();
	if (!enpu_cpu_detect_isa_support(isa))
		return enpu_cpu_fail(context, -ENOTSUP,
				     "cpu context: isa %s not supported by this CPU/OS",
				     enpu_cpu_isa_name(isa));
	context->isa = isa;
	enpu_cpu_kernels_select(isa, &context->kernels);
	return 0;
}

int enpu_cpu_context_create(unsigned int thread_count,
			    enpu_cpu_context **out)
{
	enpu_cpu_context *context;
	enum enpu_cpu_isa isa = ENPU_CPU_ISA_AUTO;
	const char *forced = getenv("ENPU_CPU_ISA");
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (forced && *forced && enpu_cpu_isa_from_name(forced, &isa)) {
		fprintf(stderr, "enpu cpu: ENPU_CPU_ISA=%s is not one of auto, scalar, avx2, avx512vnni, neon, neondot, neoni8mm\n",
			forced);
		return -EINVAL;
	}
	context = calloc(1, sizeof(*context));
	if (!context)
		return -ENOMEM;
	err = enpu_cpu_context_set_isa(context, isa);
	if (err) {
		fprintf(stderr, "enpu cpu: %s\n", context->error);
		free(context);
		return err;
	}
	err = enpu_thread_pool_create(thread_count, &context->pool);
	if (err) {
		fprintf(stderr, "enpu cpu: cannot create a pool of %u threads: %s\n",
			thread_count, strerror(-err));
		free(context);
		return err;
	}
	context->split_ns = ENPU_THREAD_POOL_SPLIT_NS;
	*out = context;
	return 0;
}

void enpu_cpu_context_destroy(enpu_cpu_context *context)
{
	if (!context)
		return;
	enpu_thread_pool_destroy(context->pool);
	free(context);
}

int enpu_cpu_context_set_thread_count(enpu_cpu_context *context,
				      unsigned int thread_count)
{
	struct enpu_thread_pool *pool;
	int err;

	if (!context)
		return -EINVAL;
	if (thread_count == enpu_thread_pool_thread_count(context->pool))
		return 0;
	err = enpu_thread_pool_create(thread_count, &pool);
	if (err)
		return enpu_cpu_fail(context, err,
				     "cpu context: cannot create a pool of %u threads",
				     thread_count);
	enpu_thread_pool_destroy(context->pool);
	context->pool = pool;
	enpu_thread_pool_set_split_ns(pool, context->split_ns);
	return 0;
}

unsigned int enpu_cpu_context_thread_count(const enpu_cpu_context *context)
{
	return enpu_thread_pool_thread_count(context->pool);
}

enum enpu_cpu_isa enpu_cpu_context_isa(const enpu_cpu_context *context)
{
	return context->isa;
}

const char *enpu_cpu_context_error(const enpu_cpu_context *context)
{
	return context ? context->error : "no context";
}

void enpu_cpu_parallel_for(enpu_cpu_context *context, size_t task_count,
			   enpu_cpu_task_function function, void *argument)
{
	enpu_thread_pool_parallel_for(context->pool, task_count, function,
				      argument);
}

void enpu_cpu_context_set_split_ns(enpu_cpu_context *context,
				   uint64_t split_ns)
{
	context->split_ns = split_ns;
	enpu_thread_pool_set_split_ns(context->pool, split_ns);
}

void enpu_cpu_parallel_for_work(enpu_cpu_context *context, size_t task_count,
				uint64_t bytes, uint64_t flops,
				enpu_cpu_task_function function,
				void *argument)
{
	enpu_thread_pool_parallel_for_work(context->pool, task_count,
					   enpu_thread_pool_work_ns(bytes,
								    flops),
					   function, argument);
}

const struct enpu_fmath_kernels *enpu_cpu_fmath(const enpu_cpu_context *context)
{
	return context->kernels.fmath;
}
