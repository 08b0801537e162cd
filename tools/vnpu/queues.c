// SPDX-License-Identifier: GPL-2.0
/*
 * Submission queues and the completion ring. One job executes at a time.
 * Arbitration: the non-empty queue with the highest SQ_PRIORITY wins;
 * among equal priorities the scan starts after the queue served last,
 * which gives round robin.
 *
 * A finished job's completion waits in pending_cqe while the completion
 * ring is full; nothing new starts until it is published (retried on every
 * doorbell and clock tick, since the driver frees space by moving CQ_HEAD
 * without ringing).
 *
 * The device looks at the rings and at PREEMPT requests when it handles
 * events (queues_run(), from device_settle()): that is the instant a new
 * descriptor or request becomes visible. Between two such instants the
 * engine may finish a job and start the next one without a host event
 * (queues_step() from engine_advance()), but only among descriptors that
 * were visible already, so no job ever starts before it was submitted.
 */
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "layer.h"
#include "shm_access.h"
#include "vnpu.h"

#define CQ_RING_INFO 0xffffffffu	/* ERROR_INFO for a bad CQ_HEAD */
#define QUEUES_BATCH 4096		/* jobs per settle, then yield */

static void job_release(struct vnpu_job *job)
{
	layer_state_free(job->layer);
	free(job->stream);
	free(job->bos);
	memset(job, 0, sizeof(*job));
}

static bool cq_publish(struct vnpu *v, struct vnpu_cqe *cqe)
{
	uint32_t head = shm_read32(v->shm, ENPU_REG_CQ_HEAD);
	uint32_t used = v->cq_tail - head;
	uint8_t *slot;

	if (used > ENPU_CQ_ENTRIES) {
		regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_RING, CQ_RING_INFO);
		device_raise_vector(v, ENPU_VEC_ERROR);
		return false;
	}
	if (used == ENPU_CQ_ENTRIES)
		return false;
	if (v->corrupt_next_cqe) {
		v->corrupt_next_cqe = false;
		cqe->tag = ~cqe->tag;
		vnpu_log(v, "fault: completion carries corrupted tag 0x%llx",
			 (unsigned long long)cqe->tag);
	}
	slot = v->shm + ENPU_CQ_OFFSET +
	       (size_t)(v->cq_tail % ENPU_CQ_ENTRIES) * ENPU_CQE_SIZE;
	memset(slot, 0, ENPU_CQE_SIZE);
	le64_put(slot + ENPU_CQE_TAG, cqe->tag);
	le32_put(slot + ENPU_CQE_QUEUE, cqe->queue);
	le32_put(slot + ENPU_CQE_STATUS, cqe->status);
	le64_put(slot + ENPU_CQE_CYCLES, cqe->cycles);
	le32_put(slot + ENPU_CQE_INFO, cqe->info);
	v->cq_tail++;
	shm_write32(v->shm, ENPU_REG_CQ_TAIL, v->cq_tail);
	device_raise_vector(v, ENPU_VEC_JOB_DONE);
	return true;
}

static void job_finish(struct vnpu *v, uint32_t status, uint32_t info)
{
	struct vnpu_job *job = &v->job;

	bool ran = status == ENPU_JOB_STATUS_OK ||
		   status == ENPU_JOB_STATUS_PREEMPTED;

	v->pending_cqe = (struct vnpu_cqe){
		.tag = job->tag,
		.queue = job->queue,
		.status = status,
		.cycles = ran ? job->run_cycles : 0,
		.info = info,
	};
	if (status != ENPU_JOB_STATUS_PREEMPTED)
		engine_job_latency(v, job->queue, job->seen_ns);
	if (!ran)
		vnpu_log(v, "job tag=0x%llx queue=%u failed: status=%u info=0x%x rule=%u %s",
			 (unsigned long long)job->tag, job->queue, status, info,
			 job->rule, vnpu_rule_name(job->rule));
	engine_job_end(v);
	job_release(job);
	if (status != ENPU_JOB_STATUS_PREEMPTED)
		v->perf_jobs_done++;
	regs_publish_perf(v);
	v->cqe_pending = true;
}

/* Returns the queue to serve, -1 if none has work, -2 on a ring error. */
static int pick_queue(struct vnpu *v)
{
	uint32_t nq = v->cfg.num_queues, best_priority = 0, i;
	int best = -1;

	for (i = 0; i < nq; i++) {
		uint32_t q = (v->rr_next + i) % nq;
		uint32_t pending = v->sq_visible[q] - v->sq_head[q];
		uint32_t priority;

		if (!pending)
			continue;
		priority = shm_read32(v->shm, ENPU_REG_SQ_PRIORITY(q));
		if (best < 0 || priority > best_priority) {
			best = (int)q;
			best_priority = priority;
		}
	}
	return best;
}

/* Host trouble, not the guest's fault: report it as a device error
 * rather than blame the job. */
static bool job_start_no_memory(struct vnpu *v, const char *what,
				uint32_t amount)
{
	vnpu_log(v, "out of memory fetching %s (%u)", what, amount);
	regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_BAD_JOB, amount);
	device_raise_vector(v, ENPU_VEC_ERROR);
	job_release(&v->job);
	return false;
}

/*
 * Fetches and checks a descriptor, its stream and its BO table. Failures
 * are reported in this order: descriptor fields (INVALID, INFO =
 * DESCRIPTOR), stream outside RAM (DMA_FAULT, INFO = 0), BO table
 * (DMA_FAULT, INFO = DESCRIPTOR), then the stream's commands in order.
 */
static bool job_start(struct vnpu *v)
{
	struct vnpu_job *job = &v->job;
	uint8_t desc[ENPU_JOB_DESC_SIZE];
	uint64_t addr, bo_table_addr, save_addr, seen_ns;
	uint32_t size, flags, bad, status, bo_count, save_size;
	int q = pick_queue(v);

	if (q < 0)
		return false;
	/* The acquire read of SQ_TAIL in look_at_rings orders this copy. */
	memcpy(desc, v->shm + ENPU_SQ_OFFSET((uint32_t)q) +
		     (size_t)(v->sq_head[q] % ENPU_SQ_ENTRIES) * ENPU_JOB_DESC_SIZE,
	       sizeof(desc));
	seen_ns = v->sq_seen_ns[q][v->sq_head[q] % ENPU_SQ_ENTRIES];
	v->sq_head[q]++;
	shm_write32(v->shm, ENPU_REG_SQ_HEAD(q), v->sq_head[q]);
	v->rr_next = ((uint32_t)q + 1) % v->cfg.num_queues;

	memset(job, 0, sizeof(*job));
	job->active = true;
	job->queue = (uint32_t)q;
	job->seen_ns = seen_ns;
	job->tag = le64_get(desc + ENPU_JOB_TAG);
	addr = le64_get(desc + ENPU_JOB_CMD_ADDR);
	size = le32_get(desc + ENPU_JOB_CMD_SIZE);
	flags = le32_get(desc + ENPU_JOB_FLAGS);
	bo_table_addr = le64_get(desc + ENPU_JOB_BO_TABLE_ADDR);
	bo_count = le32_get(desc + ENPU_JOB_BO_COUNT);
	save_addr = le64_get(desc + ENPU_JOB_CTX_SAVE_ADDR);
	save_size = le32_get(desc + ENPU_JOB_CTX_SAVE_SIZE);
	engine_job_started(v);

	if (flags || size > ENPU_CMD_MAX_STREAM ||
	    (save_addr && save_size < VNPU_CTX_SAVE_SIZE)) {
		job->rule = flags ? VNPU_RULE_DESC_FLAGS :
			    size > ENPU_CMD_MAX_STREAM ?
			    VNPU_RULE_DESC_STREAM_SIZE : VNPU_RULE_DESC_SAVE_SIZE;
		job_finish(v, ENPU_JOB_STATUS_INVALID, ENPU_CQE_INFO_DESCRIPTOR);
		return true;
	}
	if (!guest_ram_range_ok(&v->ram, addr, size)) {
		job->rule = VNPU_RULE_STREAM_RANGE;
		job_finish(v, ENPU_JOB_STATUS_DMA_FAULT, 0);
		return true;
	}
	if (size) {
		job->stream = malloc(size);
		if (!job->stream)
			return job_start_no_memory(v, "a stream", size);
		guest_ram_read(&v->ram, addr, job->stream, size);
		v->perf_dma_bytes += size;
	}
	job->stream_size = size;
	switch (bo_table_load(&v->ram, bo_table_addr, bo_count, &job->bos,
			      &job->rule)) {
	case BO_TABLE_OK:
		break;
	case BO_TABLE_FAULT:
		job_finish(v, ENPU_JOB_STATUS_DMA_FAULT, ENPU_CQE_INFO_DESCRIPTOR);
		return true;
	case BO_TABLE_NO_MEMORY:
		return job_start_no_memory(v, "a BO table", bo_count);
	}
	job->bo_count = bo_count;
	if (save_addr && !guest_ram_range_ok(&v->ram, save_addr, save_size)) {
		job->rule = VNPU_RULE_SAVE_RANGE;
		job_finish(v, ENPU_JOB_STATUS_DMA_FAULT, ENPU_CQE_INFO_DESCRIPTOR);
		return true;
	}
	bad = cmdstream_validate(job, &status);
	if (bad != CMDSTREAM_OK) {
		job_finish(v, status, bad);
		return true;
	}
	job->save_addr = save_addr;
	bad = engine_start(v, &status);
	if (bad != CMDSTREAM_OK) {
		/* A save area that does not describe this job is left alone. */
		job->save_addr = 0;
		job->rule = VNPU_RULE_SAVE_STATE;
		job_finish(v, status, bad);
		return true;
	}
	engine_run_instant(v);
	return true;
}

/* Looks at every PREEMPT request the driver posted since the last look;
 * returns whether there was one. */
static bool scan_preempt_requests(struct vnpu *v)
{
	bool taken = false;
	uint32_t q;

	for (q = 0; q < v->cfg.num_queues; q++) {
		uint32_t seq = shm_read32(v->shm, ENPU_REG_SQ_PREEMPT_SEQ(q));
		uint32_t lo, hi;

		if (seq == v->preempt_seen[q])
			continue;
		/* The acquire read of SEQ orders these; a driver writing a
		 * new tag meanwhile bumps SEQ again, which the next look
		 * sees. */
		lo = shm_read32(v->shm, ENPU_REG_SQ_PREEMPT_AREA_LO(q));
		hi = shm_read32(v->shm, ENPU_REG_SQ_PREEMPT_AREA_HI(q));
		v->preempt_seen[q] = seq;
		shm_write32(v->shm, ENPU_REG_SQ_PREEMPT_ACK(q), seq);
		taken = true;
		if (lo || hi)
			engine_preempt(v, q, (uint64_t)hi << 32 | lo);
	}
	return taken;
}

/* Takes note of the descriptors the driver published; false on a ring
 * error (the device is then in ERROR). */
static bool look_at_rings(struct vnpu *v)
{
	uint32_t q;

	for (q = 0; q < v->cfg.num_queues; q++) {
		uint32_t tail = shm_read32(v->shm, ENPU_REG_SQ_TAIL(q));

		if (tail - v->sq_head[q] > ENPU_SQ_ENTRIES) {
			regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_RING, q);
			device_raise_vector(v, ENPU_VEC_ERROR);
			return false;
		}
		/* The instant a descriptor becomes visible (queue-stats); a
		 * tail moved back publishes nothing new. */
		if (tail - v->sq_visible[q] > ENPU_SQ_ENTRIES)
			v->sq_visible[q] = tail;
		for (; v->sq_visible[q] != tail; v->sq_visible[q]++)
			v->sq_seen_ns[q][v->sq_visible[q] % ENPU_SQ_ENTRIES] =
				engine_now_ns(v);
	}
	return true;
}

uint32_t queues_preempt_mailbox(struct vnpu *v, const uint32_t arg[4],
				uint32_t *data)
{
	uint64_t area = (uint64_t)arg[2] << 32 | arg[1];

	if (arg[0] >= v->cfg.num_queues || arg[3])
		return ENPU_ERR_BAD_ARGUMENT;
	/* The descriptors posted before the request bounce (queues_run()). */
	if (v->status == ENPU_STATUS_READY && !v->hung)
		look_at_rings(v);
	*data = engine_preempt(v, arg[0], area);
	return ENPU_ERR_NONE;
}

/*
 * After a PREEMPT request for a context: its descriptors at the head of
 * the queue (as visible) that have not started are returned as PREEMPTED
 * with INFO = ENPU_CQE_INFO_NOT_STARTED and no cycles, in ring order, up to
 * the first descriptor of another save area (or an empty queue), which
 * ends the bounce. A full completion ring only delays it.
 */
static void bounce_unstarted(struct vnpu *v)
{
	uint32_t q;

	for (q = 0; q < v->cfg.num_queues; q++) {
		while (v->bounce_area[q]) {
			const uint8_t *desc;
			struct vnpu_cqe cqe;

			if (v->sq_visible[q] == v->sq_head[q]) {
				v->bounce_area[q] = 0;
				break;
			}
			desc = v->shm + ENPU_SQ_OFFSET(q) +
			       (size_t)(v->sq_head[q] % ENPU_SQ_ENTRIES) *
			       ENPU_JOB_DESC_SIZE;
			if (le64_get(desc + ENPU_JOB_CTX_SAVE_ADDR) !=
			    v->bounce_area[q]) {
				v->bounce_area[q] = 0;
				break;
			}
			cqe = (struct vnpu_cqe){
				.tag = le64_get(desc + ENPU_JOB_TAG),
				.queue = q,
				.status = ENPU_JOB_STATUS_PREEMPTED,
				.info = ENPU_CQE_INFO_NOT_STARTED,
			};
			if (!cq_publish(v, &cqe))
				return;
			v->sq_head[q]++;
			shm_write32(v->shm, ENPU_REG_SQ_HEAD(q), v->sq_head[q]);
			v->pstats.bounced++;
		}
	}
}

/* Completes a stopped job and starts the next visible one, repeatedly. */
void queues_step(struct vnpu *v)
{
	unsigned int batch;

	for (batch = 0; batch < QUEUES_BATCH; batch++) {
		if (v->cqe_pending) {
			if (!cq_publish(v, &v->pending_cqe))
				return;
			v->cqe_pending = false;
		}
		if (v->status != ENPU_STATUS_READY || v->hung)
			return;
		bounce_unstarted(v);
		if (v->job.active) {
			if (!v->job.stopped)
				return;
			job_finish(v, v->job.status, v->job.info);
			continue;
		}
		if (!job_start(v))
			return;
	}
}

void queues_run(struct vnpu *v)
{
	if (v->status == ENPU_STATUS_READY && !v->hung &&
	    !look_at_rings(v))
		return;
	/* Jobs first: a request may name a job started in this very look. */
	queues_step(v);
	/*
	 * The driver writes a queue's descriptors and SQ_TAIL before the
	 * PREEMPT request that must bounce them, but not necessarily before
	 * the look above (it may top a queue up, then ask for a preemption,
	 * while this thread runs). Looking again after the request's acquire
	 * read of SEQ sees them: a bounce that ended at a queue that only
	 * looked empty would start them later on the preempted job's save
	 * area, which the device refuses (INVALID, the area left as it was,
	 * so every later job of the context too).
	 */
	if (scan_preempt_requests(v) && v->status == ENPU_STATUS_READY &&
	    !v->hung && !look_at_rings(v))
		return;
	if (!v->cqe_pending && v->status == ENPU_STATUS_READY && !v->hung)
		bounce_unstarted(v);
}

/* At exit: the running job's host memory. */
void queues_release(struct vnpu *v)
{
	job_release(&v->job);
}

/* RESET: the running job and any unpublished completion are dropped; the
 * driver knows what it had in flight and resubmits. */
void queues_abort(struct vnpu *v)
{
	uint32_t q;

	if (v->job.active)
		vnpu_log(v, "reset aborts job tag=0x%llx on queue %u",
			 (unsigned long long)v->job.tag, v->job.queue);
	/* A save area keeps its last save: a re-run resumes from there. */
	job_release(&v->job);
	v->cqe_pending = false;
	v->pstats.await_start = false;
	for (q = 0; q < ENPU_MAX_QUEUES; q++) {
		v->sq_head[q] = 0;
		v->sq_visible[q] = 0;
		shm_write32(v->shm, ENPU_REG_SQ_HEAD(q), 0);
		/* Requests posted before the reset are void. */
		v->bounce_area[q] = 0;
		v->preempt_seen[q] = shm_read32(v->shm,
						ENPU_REG_SQ_PREEMPT_SEQ(q));
		shm_write32(v->shm, ENPU_REG_SQ_PREEMPT_ACK(q),
			    v->preempt_seen[q]);
	}
	v->cq_tail = 0;
	shm_write32(v->shm, ENPU_REG_CQ_TAIL, 0);
	v->rr_next = 0;
}
