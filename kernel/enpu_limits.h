/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Limits on what a user can make the driver hold: jobs per context, per
 * file and per device, contexts per file and per device. Each limit is a
 * module parameter (enpu_limits.c, documented in docs/jobs.md "Limits"),
 * read when a unit is taken, so changing one at run time applies to the
 * next submit. A count against a limit is a struct enpu_quota; the
 * scheduler's per-context queue limit is the context's job quota.
 */
#ifndef ENPU_LIMITS_H
#define ENPU_LIMITS_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

/**
 * enum enpu_limit - the limits, each a module parameter of the same name
 * @ENPU_LIMIT_JOBS_PER_CONTEXT: max_jobs_per_context, jobs submitted to
 *	one context whose fence has not signalled; SUBMIT -EAGAIN.
 * @ENPU_LIMIT_JOBS_PER_FILE: max_jobs_per_file, the same over every
 *	context of one open file; SUBMIT -EAGAIN.
 * @ENPU_LIMIT_JOBS: max_jobs, the same over the whole device; SUBMIT
 *	-EAGAIN.
 * @ENPU_LIMIT_CONTEXTS_PER_FILE: max_contexts_per_file, contexts one open
 *	file created and did not destroy (context 0 not counted);
 *	CONTEXT_CREATE -EMFILE.
 * @ENPU_LIMIT_CONTEXTS: max_contexts, created contexts over the whole
 *	device, counted until their last job is freed; CONTEXT_CREATE
 *	-ENOSPC.
 * @ENPU_LIMIT_COUNT: number of limits.
 */
enum enpu_limit {
	ENPU_LIMIT_JOBS_PER_CONTEXT,
	ENPU_LIMIT_JOBS_PER_FILE,
	ENPU_LIMIT_JOBS,
	ENPU_LIMIT_CONTEXTS_PER_FILE,
	ENPU_LIMIT_CONTEXTS,
	ENPU_LIMIT_COUNT,
};

unsigned int enpu_limit(enum enpu_limit limit);
const char *enpu_limit_name(enum enpu_limit limit);

/**
 * struct enpu_quota - units held against one limit
 * @used: units held now.
 */
struct enpu_quota {
	atomic_t used;
};

/**
 * enpu_quota_take() - take one unit unless @limit are held already
 * @quota: the count.
 * @limit: its current limit.
 *
 * Any context.
 *
 * Return: true if the unit was taken, false if the quota is full.
 */
static inline bool enpu_quota_take(struct enpu_quota *quota,
				   unsigned int limit)
{
	int used = atomic_read(&quota->used);

	do {
		if ((unsigned int)used >= limit)
			return false;
	} while (!atomic_try_cmpxchg(&quota->used, &used, used + 1));
	return true;
}

/**
 * enpu_quota_give() - give back a unit taken with enpu_quota_take()
 * @quota: the count.
 *
 * Any context.
 */
static inline void enpu_quota_give(struct enpu_quota *quota)
{
	atomic_dec(&quota->used);
}

/**
 * enpu_quota_used() - units held now
 * @quota: the count.
 *
 * Return: the count, for debug messages and debugfs.
 */
static inline unsigned int enpu_quota_used(struct enpu_quota *quota)
{
	return atomic_read(&quota->used);
}

#endif /* ENPU_LIMITS_H */
