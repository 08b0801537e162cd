// SPDX-License-Identifier: GPL-2.0
/*
 * The execution engine: runs the current job tile by tile, with
 * preemption points, the context-save area and the preemption cost model
 * of interface 1.4 (docs/hw/vnpu.md, "Interface 1.4: preemption").
 *
 * A job without a save area runs each command as one tile, exactly as
 * before 1.4. A job with one has every command cut into tiles of at most
 * W = bound - POINT cycles (the bound in cycles at the nominal clock),
 * each a contiguous range of the command's units (layer output elements
 * in NHWC order, DMA bytes, NOP cycles) — never smaller than one unit —
 * and pays POINT cycles at every boundary between two tiles: that is a
 * preemption point. A PREEMPT request for the running job takes effect at
 * the next point: SAVE cycles later the header is in the save area and
 * the job completes as PREEMPTED. Resubmitted with the same descriptor,
 * it pays RESTORE cycles and continues with the saved tile; the results
 * are those of an uninterrupted run because every tile's effect is
 * complete when it ends and tiles never read what an earlier tile of
 * their own command wrote (cmdstream_plan() keeps in-place layers whole).
 *
 * Device time inside one device_advance() is exact: when a job stops in
 * the middle of the time being advanced, the next job starts at that
 * instant (engine_advance() finishes it and starts the next through
 * queues_step()), so host scheduling delays never show up as device
 * idle time in the preemption figures.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "layer.h"
#include "shm_access.h"
#include "vnpu.h"

typedef unsigned __int128 u128;

static uint64_t tile_budget_cycles(const struct vnpu *v)
{
	uint64_t bound = (uint64_t)v->cfg.preempt_bound_ns *
			 opp_khz(VNPU_OPP_COUNT - 1) / 1000000u;

	return bound > VNPU_POINT_CYCLES + 1 ? bound - VNPU_POINT_CYCLES : 1;
}

uint64_t engine_now_ns(const struct vnpu *v)
{
	uint32_t khz = opp_khz(v->opp);

	if (!v->in_advance)
		return v->device_ns;
	return v->device_ns + (uint64_t)((v->advance_used + khz - 1) / khz);
}

static uint64_t fnv1a(const uint8_t *p, uint32_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The tile plan of the command at job->offset. */
static void plan_command(const struct vnpu *v, struct vnpu_job *job)
{
	u128 n;

	cmdstream_plan(job, job->offset, &job->cmd_cycles, &job->units);
	job->tiles = 1;
	if (job->save_addr) {
		uint64_t w = tile_budget_cycles(v);

		n = ((u128)job->cmd_cycles + w - 1) / w;
		if (n > job->units)
			n = job->units;
		if (n > 1)
			job->tiles = (uint64_t)n;
	}
	job->tile = 0;
	job->in_tile = false;
}

static uint64_t unit_start(const struct vnpu_job *job, uint64_t k)
{
	return (uint64_t)((u128)k * job->units / job->tiles);
}

static uint64_t tile_cycles(const struct vnpu_job *job, uint64_t k)
{
	return (uint64_t)((u128)(k + 1) * job->cmd_cycles / job->tiles -
			  (u128)k * job->cmd_cycles / job->tiles);
}

static bool last_tile_of_job(const struct vnpu_job *job)
{
	return job->tile + 1 == job->tiles &&
	       job->offset + cmdstream_command_size(job, job->offset) >=
	       job->stream_size;
}

static uint64_t point_cycles(const struct vnpu_job *job)
{
	return job->save_addr && !last_tile_of_job(job) ? VNPU_POINT_CYCLES : 0;
}

/* Work from tile @k of the current command to the end of the job. */
static work_units remaining_work(const struct vnpu *v, struct vnpu_job *job)
{
	struct vnpu_job walk = *job;
	u128 cycles = 0, tiles = 0;

	walk.layer = NULL;
	while (walk.offset < walk.stream_size) {
		cycles += (u128)walk.cmd_cycles -
			  (u128)walk.tile * walk.cmd_cycles / walk.tiles;
		tiles += walk.tiles - walk.tile;
		walk.offset += cmdstream_command_size(&walk, walk.offset);
		if (walk.offset < walk.stream_size)
			plan_command(v, &walk);
	}
	if (job->save_addr && tiles > 1)
		cycles += (tiles - 1) * VNPU_POINT_CYCLES;
	return (work_units)cycles * UNITS_PER_CYCLE;
}

static uint8_t *save_area(const struct vnpu *v, const struct vnpu_job *job)
{
	return v->ram.base + job->save_addr;
}

/* Finds the tile of the current command that starts at unit @done. */
static bool find_tile(struct vnpu_job *job, uint64_t done)
{
	uint64_t k = (uint64_t)((u128)done * job->tiles / job->units);
	int i;

	if (done >= job->units)
		return false;
	for (i = 0; i < 2 && k < job->tiles; i++, k++) {
		if (unit_start(job, k) == done) {
			job->tile = k;
			return true;
		}
	}
	return false;
}

/* Is @offset the start of a command of the (validated) stream? */
static bool command_boundary(const struct vnpu_job *job, uint32_t offset)
{
	uint32_t at = 0;

	while (at < offset)
		at += cmdstream_command_size(job, at);
	return at == offset && offset < job->stream_size;
}

/* Names what a refused save area holds, against the job it was given. */
static uint32_t save_refused(struct vnpu *v, const struct vnpu_job *job,
			     const uint8_t *sa)
{
	vnpu_log(v, "job tag=0x%llx: save area refused: magic 0x%x version %u tag 0x%llx stream %u/%u hash %s offset %u units %llu",
		 (unsigned long long)job->tag,
		 le32_get(sa + ENPU_SAVE_OFF_MAGIC),
		 le32_get(sa + ENPU_SAVE_OFF_VERSION),
		 (unsigned long long)le64_get(sa + ENPU_SAVE_OFF_TAG),
		 le32_get(sa + ENPU_SAVE_OFF_STREAM_SIZE), job->stream_size,
		 le64_get(sa + ENPU_SAVE_OFF_STREAM_HASH) == job->stream_hash ?
		 "same" : "differs",
		 le32_get(sa + ENPU_SAVE_OFF_CMD_OFFSET),
		 (unsigned long long)le64_get(sa + ENPU_SAVE_OFF_UNITS_DONE));
	return ENPU_CQE_INFO_SAVE_AREA;
}

/*
 * Sets the job up to run: from the start, or from its save area. Returns
 * CMDSTREAM_OK, or the INFO with which the job completes at once with
 * *@status (a save area whose header does not describe this job).
 */
uint32_t engine_start(struct vnpu *v, uint32_t *status)
{
	struct vnpu_job *job = &v->job;
	const uint8_t *sa;
	uint32_t offset;
	uint64_t done;

	job->stream_hash = fnv1a(job->stream, job->stream_size);
	job->phase = JOB_RUN;
	job->offset = 0;
	job->run_cycles = 0;
	job->status = ENPU_JOB_STATUS_OK;
	job->info = 0;
	if (job->stream_size)
		plan_command(v, job);
	if (!job->save_addr ||
	    !le32_get(save_area(v, job) + ENPU_SAVE_OFF_MAGIC)) {
		job->left = job->stream_size ? remaining_work(v, job) : 0;
		return CMDSTREAM_OK;
	}
	sa = save_area(v, job);
	offset = le32_get(sa + ENPU_SAVE_OFF_CMD_OFFSET);
	done = le64_get(sa + ENPU_SAVE_OFF_UNITS_DONE);
	*status = ENPU_JOB_STATUS_INVALID;
	if (le32_get(sa + ENPU_SAVE_OFF_MAGIC) != ENPU_SAVE_MAGIC ||
	    le32_get(sa + ENPU_SAVE_OFF_VERSION) != ENPU_SAVE_VERSION ||
	    le64_get(sa + ENPU_SAVE_OFF_TAG) != job->tag ||
	    le32_get(sa + ENPU_SAVE_OFF_STREAM_SIZE) != job->stream_size ||
	    le64_get(sa + ENPU_SAVE_OFF_STREAM_HASH) != job->stream_hash ||
	    le32_get(sa + ENPU_SAVE_OFF_RESERVED) ||
	    !command_boundary(job, offset))
		return save_refused(v, job, sa);
	job->offset = offset;
	plan_command(v, job);
	if (!find_tile(job, done))
		return save_refused(v, job, sa);
	job->preemptions = le32_get(sa + ENPU_SAVE_OFF_PREEMPTIONS);
	job->phase = JOB_RESTORE;
	job->phase_left = (work_units)VNPU_RESTORE_CYCLES * UNITS_PER_CYCLE;
	job->left = job->phase_left + remaining_work(v, job);
	v->pstats.resumes++;
	vnpu_log(v, "job tag=0x%llx resumes at offset %u unit %llu",
		 (unsigned long long)job->tag, offset,
		 (unsigned long long)done);
	return CMDSTREAM_OK;
}

static void stats_sample(uint64_t *ring, uint32_t *count, uint64_t value)
{
	ring[*count % VNPU_PREEMPT_SAMPLES] = value;
	(*count)++;
}

static void save_write(struct vnpu *v)
{
	struct vnpu_job *job = &v->job;
	uint8_t *sa = save_area(v, job);
	uint64_t now = engine_now_ns(v);

	job->preemptions++;
	le32_put(sa + ENPU_SAVE_OFF_VERSION, ENPU_SAVE_VERSION);
	le64_put(sa + ENPU_SAVE_OFF_TAG, job->tag);
	le32_put(sa + ENPU_SAVE_OFF_CMD_OFFSET, job->offset);
	le32_put(sa + ENPU_SAVE_OFF_STREAM_SIZE, job->stream_size);
	le64_put(sa + ENPU_SAVE_OFF_UNITS_DONE, unit_start(job, job->tile));
	le64_put(sa + ENPU_SAVE_OFF_STREAM_HASH, job->stream_hash);
	le32_put(sa + ENPU_SAVE_OFF_PREEMPTIONS, job->preemptions);
	le32_put(sa + ENPU_SAVE_OFF_RESERVED, 0);
	le64_put(sa + ENPU_SAVE_OFF_REQUEST_NS, job->preempt_request_ns);
	le64_put(sa + ENPU_SAVE_OFF_SAVED_NS, now);
	/* MAGIC last: a header with MAGIC set is complete. */
	__atomic_store_n((uint32_t *)(sa + ENPU_SAVE_OFF_MAGIC),
			 ENPU_SAVE_MAGIC, __ATOMIC_RELEASE);
	job->run_cycles = add_sat(job->run_cycles, VNPU_SAVE_CYCLES);
	job->status = ENPU_JOB_STATUS_PREEMPTED;
	job->info = job->offset;
	job->stopped = true;
	job->preempt_pending = false;
	v->perf_preemptions++;
	v->pstats.saves++;
	v->pstats.save_cycles += VNPU_SAVE_CYCLES;
	stats_sample(v->pstats.to_saved, &v->pstats.saved_count,
		     now - job->preempt_request_ns);
	v->pstats.await_start = true;
	v->pstats.await_request_ns = job->preempt_request_ns;
	layer_state_free(job->layer);
	job->layer = NULL;
}

static void stop(struct vnpu_job *job, uint32_t status, uint32_t info)
{
	job->status = status;
	job->info = info;
	job->stopped = true;
	job->left = 0;
}

/* The current tile's time is spent: its effect, then the next tile. */
static void tile_done(struct vnpu *v, struct cmdstream_counters *counters)
{
	struct vnpu_job *job = &v->job;
	uint64_t point = point_cycles(job), t0 = monotonic_ns();
	uint32_t status;

	status = cmdstream_perform(job, &v->ram, v->layers,
				   unit_start(job, job->tile),
				   unit_start(job, job->tile + 1), counters);
	v->pstats.host_ns += monotonic_ns() - t0;
	job->in_tile = false;
	if (status != ENPU_JOB_STATUS_OK) {
		if (status == LAYER_HOST_TROUBLE)
			job->host_trouble = true;
		stop(job, status, job->offset);
		return;
	}
	job->run_cycles = add_sat(job->run_cycles,
				  add_sat(tile_cycles(job, job->tile), point));
	if (point) {
		v->pstats.points++;
		v->pstats.point_cycles += point;
	}
	if (++job->tile == job->tiles) {
		layer_state_free(job->layer);
		job->layer = NULL;
		job->offset += cmdstream_command_size(job, job->offset);
		if (job->offset >= job->stream_size) {
			stop(job, ENPU_JOB_STATUS_OK, 0);
			return;
		}
		plan_command(v, job);
	}
	if (job->preempt_pending) {
		job->phase = JOB_SAVE;
		job->phase_left = (work_units)VNPU_SAVE_CYCLES *
				  UNITS_PER_CYCLE;
	}
}

/* Runs the current job for at most @budget work units; returns those
 * used. Steps that need no work (0-cycle NOPs) run even with no budget. */
static work_units engine_run(struct vnpu *v, work_units budget,
			     struct cmdstream_counters *counters)
{
	struct vnpu_job *job = &v->job;
	work_units used = 0;

	while (job->active && !job->stopped) {
		work_units *need = job->phase == JOB_RUN ? &job->tile_left :
				   &job->phase_left;

		if (job->phase == JOB_RUN && !job->in_tile) {
			if (job->offset >= job->stream_size) {
				stop(job, ENPU_JOB_STATUS_OK, 0);
				break;
			}
			job->tile_left = (work_units)add_sat(
				tile_cycles(job, job->tile),
				point_cycles(job)) * UNITS_PER_CYCLE;
			job->in_tile = true;
		}
		if (*need > budget - used) {
			*need -= budget - used;
			if (job->phase != JOB_SAVE)
				job->left -= budget - used;
			v->advance_used += budget - used;
			used = budget;
			break;
		}
		used += *need;
		v->advance_used += *need;
		if (job->phase != JOB_SAVE)
			job->left -= *need;
		*need = 0;
		switch (job->phase) {
		case JOB_RESTORE:
			job->run_cycles = add_sat(job->run_cycles,
						  VNPU_RESTORE_CYCLES);
			v->pstats.restore_cycles += VNPU_RESTORE_CYCLES;
			job->phase = JOB_RUN;
			break;
		case JOB_RUN:
			tile_done(v, counters);
			break;
		case JOB_SAVE:
			save_write(v);
			break;
		}
		if (job->host_trouble)
			break;
	}
	return used;
}

static void counters_load(const struct vnpu *v, struct cmdstream_counters *c)
{
	c->dma_bytes = v->perf_dma_bytes;
	c->macs = v->perf_macs;
}

static void counters_store(struct vnpu *v, const struct cmdstream_counters *c)
{
	v->perf_dma_bytes = c->dma_bytes;
	v->perf_macs = c->macs;
}

/* The steps of a just-started job that take no time (0-cycle commands),
 * so that such a job completes in the turn it started in. */
void engine_run_instant(struct vnpu *v)
{
	struct cmdstream_counters c;

	counters_load(v, &c);
	engine_run(v, 0, &c);
	counters_store(v, &c);
}

/*
 * Advances the engine by @budget work units of device time (called by
 * device_advance()): the current job runs; when it stops with budget
 * left, it is completed and the next job starts at that instant.
 * Returns the units the engine was busy (PERF_CYCLES and PERF_BUSY_NS
 * are counted here).
 */
work_units engine_advance(struct vnpu *v, work_units budget)
{
	uint32_t khz = opp_khz(v->opp);
	struct cmdstream_counters c;
	work_units used = 0;

	v->in_advance = true;
	v->advance_used = 0;
	while (used < budget) {
		work_units step;

		if (!v->job.active || v->job.stopped) {
			queues_step(v);
			if (!v->job.active || v->job.stopped)
				break;
		}
		counters_load(v, &c);
		step = engine_run(v, budget - used, &c);
		counters_store(v, &c);
		used += step;
		/* Counted before the completion is published, so a driver
		 * that sees the completion sees the counters too. */
		v->perf_units += step;
		v->perf_busy_ns += (uint64_t)((step + khz - 1) / khz);
		if (v->job.host_trouble)
			break;
		/* Idle time between jobs does not exist here: the loop goes
		 * on with the next job at the instant this one stopped. */
	}
	v->in_advance = false;
	return used;
}

/* Work until the running job stops: its end, or with a preemption
 * request pending the next point plus the save. */
work_units engine_work_to_stop(const struct vnpu_job *job)
{
	work_units save = (work_units)VNPU_SAVE_CYCLES * UNITS_PER_CYCLE;

	if (!job->active || job->stopped)
		return 0;
	if (!job->preempt_pending)
		return job->left;
	switch (job->phase) {
	case JOB_SAVE:
		return job->phase_left;
	case JOB_RESTORE:
		/* Restore, then at least one tile: the end is close enough. */
		return job->phase_left + save;
	default:
		return job->tile_left + (last_tile_of_job(job) ? 0 : save);
	}
}

/*
 * A PREEMPT request for queue @queue and the context whose save area is
 * @area (0: whatever job of the queue runs): the running job stops at its
 * next preemption point if it is that context's and is not being saved
 * already, and that context's descriptors of the queue not started yet
 * are returned unstarted (queues.c). Returns whether a running job will
 * stop.
 */
bool engine_preempt(struct vnpu *v, uint32_t queue, uint64_t area)
{
	struct vnpu_job *job = &v->job;
	bool running = job->active && !job->stopped && job->queue == queue &&
		       job->save_addr && (!area || job->save_addr == area);

	if (!running) {
		if (area)
			v->bounce_area[queue] = area;
		else
			v->pstats.ignored++;
		return false;
	}
	v->bounce_area[queue] = job->save_addr;
	if (job->phase == JOB_SAVE || job->preempt_pending)
		return true;
	job->preempt_pending = true;
	job->preempt_request_ns = engine_now_ns(v);
	return true;
}

/* A job stops for good (not preempted): clear its save area so that the
 * context's next job starts from the beginning. */
void engine_job_end(struct vnpu *v)
{
	struct vnpu_job *job = &v->job;

	if (job->save_addr && job->status != ENPU_JOB_STATUS_PREEMPTED &&
	    job->phase != JOB_RESTORE)
		le32_put(save_area(v, job) + ENPU_SAVE_OFF_MAGIC, 0);
	layer_state_free(job->layer);
	job->layer = NULL;
}

/* A job started: the end of a preemption's "request -> next start". */
void engine_job_started(struct vnpu *v)
{
	if (!v->pstats.await_start)
		return;
	v->pstats.await_start = false;
	stats_sample(v->pstats.to_start, &v->pstats.start_count,
		     engine_now_ns(v) - v->pstats.await_request_ns);
}

void engine_stats_reset(struct vnpu *v)
{
	memset(&v->pstats, 0, sizeof(v->pstats));
	v->pstats.busy_ns_base = v->perf_busy_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* p50, p99 and max of the kept samples (ceil-rank percentiles). */
static void percentiles(const uint64_t *ring, uint32_t count, uint64_t out[3])
{
	uint32_t n = count < VNPU_PREEMPT_SAMPLES ? count : VNPU_PREEMPT_SAMPLES;
	uint64_t sorted[VNPU_PREEMPT_SAMPLES];

	out[0] = out[1] = out[2] = 0;
	if (!n)
		return;
	memcpy(sorted, ring, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	out[0] = sorted[(n * 50 + 99) / 100 - 1];
	out[1] = sorted[(n * 99 + 99) / 100 - 1];
	out[2] = sorted[n - 1];
}

int engine_stats_preempt(const struct vnpu *v, char *buf, size_t size)
{
	const struct vnpu_preempt_stats *s = &v->pstats;
	uint64_t saved[3], start[3];

	percentiles(s->to_saved, s->saved_count, saved);
	percentiles(s->to_start, s->start_count, start);
	return snprintf(buf, size,
			"saves=%llu resumes=%llu bounced=%llu saved_p50_ns=%llu saved_p99_ns=%llu saved_max_ns=%llu start_p50_ns=%llu start_p99_ns=%llu start_max_ns=%llu",
			(unsigned long long)s->saves,
			(unsigned long long)s->resumes,
			(unsigned long long)s->bounced,
			(unsigned long long)saved[0],
			(unsigned long long)saved[1],
			(unsigned long long)saved[2],
			(unsigned long long)start[0],
			(unsigned long long)start[1],
			(unsigned long long)start[2]);
}

/* A job of queue @q completed (not PREEMPTED); its descriptor was seen at
 * device time @seen_ns. */
void engine_job_latency(struct vnpu *v, uint32_t q, uint64_t seen_ns)
{
	stats_sample(v->pstats.to_done[q], &v->pstats.done_count[q],
		     engine_now_ns(v) - seen_ns);
}

int engine_stats_queue(const struct vnpu *v, uint32_t q, char *buf,
		       size_t size)
{
	uint64_t done[3];

	percentiles(v->pstats.to_done[q], v->pstats.done_count[q], done);
	return snprintf(buf, size,
			"queue=%u jobs=%u p50_ns=%llu p99_ns=%llu max_ns=%llu",
			q, v->pstats.done_count[q],
			(unsigned long long)done[0],
			(unsigned long long)done[1],
			(unsigned long long)done[2]);
}

int engine_stats_cost(const struct vnpu *v, char *buf, size_t size)
{
	const struct vnpu_preempt_stats *s = &v->pstats;

	return snprintf(buf, size,
			"busy_ns=%llu points=%llu point_cycles=%llu save_cycles=%llu restore_cycles=%llu host_ns=%llu bound_ns=%u",
			(unsigned long long)(v->perf_busy_ns - s->busy_ns_base),
			(unsigned long long)s->points,
			(unsigned long long)s->point_cycles,
			(unsigned long long)s->save_cycles,
			(unsigned long long)s->restore_cycles,
			(unsigned long long)s->host_ns,
			v->cfg.preempt_bound_ns);
}
