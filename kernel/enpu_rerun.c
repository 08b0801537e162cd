// SPDX-License-Identifier: GPL-2.0
/*
 * Is it safe to run a job again from its first command? Recovery runs
 * again the jobs a reset dropped (enpu_sched_requeue_after_reset()), and a
 * job the device had started, or even finished with its completion lost,
 * may have written some of its outputs already. Running it again gives
 * the result of one uninterrupted run exactly when no command reads
 * memory that the job itself overwrites later (or in the same command:
 * a layer in place): then every byte the job reads is either untouched
 * by it, or written by an earlier command of the job before it is read,
 * which a rerun writes again first.
 *
 * So a job is re-runnable unless some range it writes overlaps a range it
 * read in the same or an earlier command, where that read is not wholly
 * inside one dense range an earlier command wrote (a scratch buffer
 * reused layer after layer is fine). Strided writes (pixel_stride gaps)
 * do not count as covering, and a union of several writes is not
 * looked for: the answer errs towards "not safe", which only costs
 * -EIO instead of a rerun after a reset the job did not cause.
 *
 * The check runs in recovery, on the validated stream kept in the job
 * buffer, never on the submit path; it is quadratic in the number of
 * ranges, which is bounded by ENPU_RERUN_MAX_REFS (a stream with more is
 * not analysed and not re-run).
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "enpu_regs.h"
#include "enpu_rerun.h"

struct enpu_rerun_scan {
	struct enpu_validate_ref *refs;
	u32 count;
	bool overflow;
};

static void enpu_rerun_collect(void *priv, const struct enpu_validate_ref *ref)
{
	struct enpu_rerun_scan *scan = priv;

	if (scan->count == ENPU_RERUN_MAX_REFS) {
		scan->overflow = true;
		return;
	}
	scan->refs[scan->count++] = *ref;
}

static bool enpu_rerun_overlap(const struct enpu_validate_ref *a,
			       const struct enpu_validate_ref *b)
{
	return a->bo_index == b->bo_index && a->start < b->end &&
	       b->start < a->end;
}

/* @read lies inside one dense range written before its command. */
static bool enpu_rerun_covered(const struct enpu_rerun_scan *scan,
			       const struct enpu_validate_ref *read)
{
	u32 i;

	for (i = 0; i < scan->count; i++) {
		const struct enpu_validate_ref *w = &scan->refs[i];

		if (w->cmd_offset >= read->cmd_offset)
			break;
		if (w->access == ENPU_BO_ACCESS_WRITE && w->dense &&
		    w->bo_index == read->bo_index && w->start <= read->start &&
		    read->end <= w->end)
			return true;
	}
	return false;
}

static bool enpu_rerun_hazard(const struct enpu_rerun_scan *scan)
{
	u32 i, j;

	for (i = 0; i < scan->count; i++) {
		const struct enpu_validate_ref *w = &scan->refs[i];

		if (w->access != ENPU_BO_ACCESS_WRITE)
			continue;
		for (j = 0; j < scan->count; j++) {
			const struct enpu_validate_ref *r = &scan->refs[j];

			if (r->cmd_offset > w->cmd_offset)
				break;
			if (r->access == ENPU_BO_ACCESS_READ &&
			    enpu_rerun_overlap(r, w) &&
			    !enpu_rerun_covered(scan, r))
				return true;
		}
	}
	return false;
}

/**
 * enpu_rerun_safe() - would running this job again give the same result?
 * @stream: the job's command stream, already validated (kernel memory).
 * @size: its length.
 * @bos: what the validator knows of the job's BOs.
 * @bo_count: entries in @bos.
 *
 * Sleeps (allocates). Errs towards false (see above).
 *
 * Return: true if the job may run again from its first command.
 */
bool enpu_rerun_safe(const void *stream, u32 size,
		     const struct enpu_validate_bo *bos, u32 bo_count)
{
	struct enpu_rerun_scan scan = { };
	u32 bad_offset, rule;
	bool safe;

	if (!size || !bo_count)
		return true;
	scan.refs = kvmalloc_array(ENPU_RERUN_MAX_REFS, sizeof(*scan.refs),
				   GFP_KERNEL);
	if (!scan.refs)
		return false;
	safe = !enpu_validate_stream_refs(stream, size, bos, bo_count,
					  &bad_offset, &rule,
					  enpu_rerun_collect, &scan) &&
	       !scan.overflow && !enpu_rerun_hazard(&scan);
	kvfree(scan.refs);
	return safe;
}
