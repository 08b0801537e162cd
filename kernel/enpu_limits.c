// SPDX-License-Identifier: GPL-2.0
/*
 * The limits of enpu_limits.h as module parameters. Defaults: a context
 * may have 64 jobs in flight (a quarter of one 256-entry ring), a file
 * 256, the device 1024 (every ring full); a file may hold 64 contexts
 * besides context 0, the device 1024. Every one can be changed by root
 * at run time (/sys/module/enpu/parameters/) or at load time.
 */
#include <linux/compiler.h>
#include <linux/moduleparam.h>

#include "enpu_limits.h"

static unsigned int max_jobs_per_context = 64;
module_param(max_jobs_per_context, uint, 0644);
MODULE_PARM_DESC(max_jobs_per_context,
		 "jobs of one context whose fence has not signalled; more is SUBMIT -EAGAIN");

static unsigned int max_jobs_per_file = 256;
module_param(max_jobs_per_file, uint, 0644);
MODULE_PARM_DESC(max_jobs_per_file,
		 "jobs of one open file whose fence has not signalled; more is SUBMIT -EAGAIN");

static unsigned int max_jobs = 1024;
module_param(max_jobs, uint, 0644);
MODULE_PARM_DESC(max_jobs,
		 "jobs of the whole device whose fence has not signalled; more is SUBMIT -EAGAIN");

static unsigned int max_contexts_per_file = 64;
module_param(max_contexts_per_file, uint, 0644);
MODULE_PARM_DESC(max_contexts_per_file,
		 "contexts one open file may create (context 0 not counted); more is CONTEXT_CREATE -EMFILE");

static unsigned int max_contexts = 1024;
module_param(max_contexts, uint, 0644);
MODULE_PARM_DESC(max_contexts,
		 "created contexts of the whole device until their last job is freed; more is CONTEXT_CREATE -ENOSPC");

static unsigned int *const enpu_limit_values[ENPU_LIMIT_COUNT] = {
	[ENPU_LIMIT_JOBS_PER_CONTEXT] = &max_jobs_per_context,
	[ENPU_LIMIT_JOBS_PER_FILE] = &max_jobs_per_file,
	[ENPU_LIMIT_JOBS] = &max_jobs,
	[ENPU_LIMIT_CONTEXTS_PER_FILE] = &max_contexts_per_file,
	[ENPU_LIMIT_CONTEXTS] = &max_contexts,
};

static const char *const enpu_limit_names[ENPU_LIMIT_COUNT] = {
	[ENPU_LIMIT_JOBS_PER_CONTEXT] = "max_jobs_per_context",
	[ENPU_LIMIT_JOBS_PER_FILE] = "max_jobs_per_file",
	[ENPU_LIMIT_JOBS] = "max_jobs",
	[ENPU_LIMIT_CONTEXTS_PER_FILE] = "max_contexts_per_file",
	[ENPU_LIMIT_CONTEXTS] = "max_contexts",
};

/**
 * enpu_limit() - the current value of a limit
 * @limit: which one.
 *
 * Return: the module parameter's value.
 */
unsigned int enpu_limit(enum enpu_limit limit)
{
	return READ_ONCE(*enpu_limit_values[limit]);
}

/**
 * enpu_limit_name() - the module parameter behind a limit
 * @limit: which one.
 *
 * Return: its name, for debug messages.
 */
const char *enpu_limit_name(enum enpu_limit limit)
{
	return enpu_limit_names[limit];
}
