// SPDX-License-Identifier: GPL-2.0
/*
 * Interface 1.4 seen from a driver: PREEMPT(q), preemption points, the
 * context-save area and its cost model (docs/hw/vnpu.md, "Interface 1.4").
 *
 * These tests run on their own vnpu, started with a small preemption
 * bound (PT_BOUND_US) so that modest layers have many tiles. The central
 * one runs a job of every layer type (and DMA) twice from the same guest
 * RAM: once without a save area (each command in one go, what the layer
 * tests check against the CPU reference), once with one, preempted at
 * random instants and resubmitted until it completes; all of guest RAM
 * but the save area must then be identical.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu_cmd.h"
#include "vnpu.h"
#include "vnpu_check.h"
#include "vnpu_rig.h"

#define PT_BOUND_US	2
#define PT_STREAM	0x020000u
#define PT_TABLE	0x030000u
#define PT_SG		0x040000u
#define PT_SG_END	0x0f0000u
#define PT_SAVE		0x0f0000u
#define PT_SAVE2	0x0f2000u
#define PT_ARENA	0x200000u
#define PT_ARENA_END	0xf00000u
#define PT_MAX_BOS	8
#define SAVE_SIZE	4096u
#define RW		(ENPU_BO_ACCESS_READ | ENPU_BO_ACCESS_WRITE)

struct prng {
	uint64_t s;
};

static uint32_t prnd(struct prng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return (uint32_t)(g->s >> 16);
}

static struct {
	uint32_t count;
	uint64_t sg, arena;
} pl;

static uint32_t preempt_seq[ENPU_MAX_QUEUES];
static uint8_t *snapshot, *reference;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Random bytes in the whole arena, no BOs yet. */
static void layout_reset(struct rig *r, struct prng *g)
{
	pl.count = 0;
	pl.sg = PT_SG;
	pl.arena = PT_ARENA;
	for (uint64_t i = PT_ARENA; i < PT_ARENA_END; i += 4)
		put32(r->ram + i, prnd(g));
}

/* A BO of @size bytes in segments of 256..16384 bytes with small gaps;
 * returns its index. */
static uint32_t bo_add(struct rig *r, struct prng *g, uint32_t access,
		       uint64_t size)
{
	uint8_t *t = r->ram + PT_TABLE + (uint64_t)pl.count * ENPU_BO_ENTRY_SIZE;
	uint64_t left = size, sg = pl.sg;
	uint32_t n = 0;

	while (left) {
		uint64_t len = 256 + prnd(g) % 16129;

		if (len > left)
			len = left;
		pl.arena += prnd(g) % 64;
		put64(r->ram + pl.sg + ENPU_SG_ADDR, pl.arena);
		put64(r->ram + pl.sg + ENPU_SG_LEN, len);
		pl.sg += ENPU_SG_ENTRY_SIZE;
		pl.arena += len;
		left -= len;
		n++;
		if (pl.arena > PT_ARENA_END || pl.sg > PT_SG_END)
			abort();	/* a test asked for too much */
	}
	put64(t + ENPU_BO_SG_ADDR, sg);
	put32(t + ENPU_BO_SG_COUNT, n);
	put32(t + ENPU_BO_ACCESS, access);
	put64(t + ENPU_BO_SIZE, size);
	put64(t + ENPU_BO_RESERVED, 0);
	return pl.count++;
}

/* PREEMPT(q) for the context whose save area is @area. */
static uint32_t post_preempt(struct rig *r, unsigned int q, uint64_t area)
{
	wr(r, ENPU_REG_SQ_PREEMPT_AREA_LO(q), (uint32_t)area);
	wr(r, ENPU_REG_SQ_PREEMPT_AREA_HI(q), (uint32_t)(area >> 32));
	wr(r, ENPU_REG_SQ_PREEMPT_SEQ(q), ++preempt_seq[q]);
	ring(r, ENPU_DB_QUEUE);
	return preempt_seq[q];
}

/* Has the device acknowledged request @seq of queue @q? 1 s at most. */
static bool acked(struct rig *r, unsigned int q, uint32_t seq)
{
	for (int ms = 0; rd(r, ENPU_REG_SQ_PREEMPT_ACK(q)) != seq && ms < 1000;
	     ms++)
		sleep_ms(1);
	return rd(r, ENPU_REG_SQ_PREEMPT_ACK(q)) == seq;
}

static void submit_job(struct rig *r, unsigned int q, uint32_t len,
		       uint64_t tag, uint64_t save)
{
	submit_saved(r, q, PT_STREAM, len, tag, PT_TABLE, pl.count, save,
		     save ? SAVE_SIZE : 0, 0);
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint32_t nop(uint8_t *p, uint32_t cycles)
{
	struct enpu_cmd_nop c = { { ENPU_CMD_NOP, 0, sizeof(c) }, cycles, 0 };

	memcpy(p, &c, sizeof(c));
	return sizeof(c);
}

/* The device's model, from its registers. */
struct model {
	uint64_t bound_cycles, tile, point, save, restore;
	uint32_t bound_ns;
};

static struct model model_of(struct rig *r)
{
	struct model m;

	m.bound_ns = rd(r, ENPU_REG_PREEMPT_BOUND_NS);
	m.point = rd(r, ENPU_REG_PREEMPT_POINT_CYCLES);
	m.save = rd(r, ENPU_REG_PREEMPT_SAVE_CYCLES);
	m.restore = rd(r, ENPU_REG_PREEMPT_RESTORE_CYCLES);
	/* The nominal clock is the highest OPP. */
	m.bound_cycles = (uint64_t)m.bound_ns *
			 rd(r, ENPU_REG_OPP_KHZ(rd(r, ENPU_REG_OPP_COUNT) - 1)) /
			 1000000;
	m.tile = m.bound_cycles - m.point;
	return m;
}

static uint64_t tiles_of(const struct model *m, uint64_t cycles,
			 uint64_t units)
{
	uint64_t n = (cycles + m->tile - 1) / m->tile;

	if (n > units)
		n = units;
	return n ? n : 1;
}

static void preempt_registers_describe_the_model(struct rig *r)
{
	struct model m = model_of(r);

	CHECK(rd(r, ENPU_REG_CAPS) & ENPU_CAP_PREEMPT, "no CAP_PREEMPT");
	CHECK(rd(r, ENPU_REG_CTX_SAVE_SIZE) == SAVE_SIZE, "save size %u",
	      rd(r, ENPU_REG_CTX_SAVE_SIZE));
	CHECK(m.bound_ns == PT_BOUND_US * 1000, "bound %u ns (started with %u us)",
	      m.bound_ns, PT_BOUND_US);
	CHECK(m.point == 128 && m.save == 1024 && m.restore == 1024,
	      "costs point %llu save %llu restore %llu",
	      (unsigned long long)m.point, (unsigned long long)m.save,
	      (unsigned long long)m.restore);
	CHECK(rd(r, ENPU_REG_PERF_PREEMPTIONS) == 0, "preemptions before any");
}

/* The save header fields, as the device wrote them. */
struct header {
	uint32_t magic, version, offset, stream_size, preemptions, reserved;
	uint64_t tag, done, hash, request_ns, saved_ns;
};

static struct header header_at(struct rig *r, uint64_t at)
{
	const uint8_t *p = r->ram + at;

	return (struct header){
		.magic = get32(p + ENPU_SAVE_OFF_MAGIC),
		.version = get32(p + ENPU_SAVE_OFF_VERSION),
		.tag = get64(p + ENPU_SAVE_OFF_TAG),
		.offset = get32(p + ENPU_SAVE_OFF_CMD_OFFSET),
		.stream_size = get32(p + ENPU_SAVE_OFF_STREAM_SIZE),
		.done = get64(p + ENPU_SAVE_OFF_UNITS_DONE),
		.hash = get64(p + ENPU_SAVE_OFF_STREAM_HASH),
		.preemptions = get32(p + ENPU_SAVE_OFF_PREEMPTIONS),
		.reserved = get32(p + ENPU_SAVE_OFF_RESERVED),
		.request_ns = get64(p + ENPU_SAVE_OFF_REQUEST_NS),
		.saved_ns = get64(p + ENPU_SAVE_OFF_SAVED_NS),
	};
}

/*
 * A long NOP is preempted and resumed: the header describes where it
 * stopped (a tile boundary), the save came within the bound, and the two
 * runs' cycles add up to the NOP, its points, one save and one restore.
 */
static void nop_job_is_preempted_and_resumed(struct rig *r)
{
	const uint64_t cycles = 20000000;	/* 20 ms at 1 GHz */
	struct model m = model_of(r);
	uint64_t n = tiles_of(&m, cycles, cycles), k, c1;
	uint32_t jobs = rd(r, ENPU_REG_PERF_JOBS_DONE), seq;
	char reply[256];
	struct header h;
	struct cqe c;

	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
	pl.count = 0;
	nop(r->ram + PT_STREAM, cycles);
	/*
	 * Device time runs with wall time: at speed 1 a host stall of 17 ms
	 * between the doorbell and the request (a loaded machine) let the
	 * 20 ms NOP end before the request was seen (status OK, no save).
	 * At speed 0.01 the NOP takes 2 s; what is checked below is device
	 * time, which the speed does not change.
	 */
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0, "speed");
	submit_job(r, 0, 16, 0x100, PT_SAVE);
	sleep_ms(3);
	seq = post_preempt(r, 0, PT_SAVE);
	CHECK(wait_cqe(r, &c, 2000), "no completion");
	CHECK(c.tag == 0x100 && c.queue == 0 &&
	      c.status == ENPU_JOB_STATUS_PREEMPTED && c.info == 0,
	      "tag %#llx queue %u status %u info %u",
	      (unsigned long long)c.tag, c.queue, c.status, c.info);
	CHECK(rd(r, ENPU_REG_SQ_PREEMPT_ACK(0)) == seq, "ack %u, seq %u",
	      rd(r, ENPU_REG_SQ_PREEMPT_ACK(0)), seq);
	h = header_at(r, PT_SAVE);
	CHECK(h.magic == ENPU_SAVE_MAGIC && h.version == ENPU_SAVE_VERSION &&
	      h.tag == 0x100 && h.offset == 0 && h.stream_size == 16 &&
	      h.preemptions == 1 && !h.reserved,
	      "header magic %#x version %u tag %#llx offset %u size %u count %u",
	      h.magic, h.version, (unsigned long long)h.tag, h.offset,
	      h.stream_size, h.preemptions);
	k = h.done * n / cycles;
	if (k * cycles / n != h.done)
		k++;
	CHECK(k > 0 && k < n && k * cycles / n == h.done,
	      "units done %llu is not a tile start (%llu tiles)",
	      (unsigned long long)h.done, (unsigned long long)n);
	CHECK(h.saved_ns - h.request_ns >= m.save &&
	      h.saved_ns - h.request_ns <= m.bound_ns + m.save,
	      "request -> saved %llu ns, bound %u + save",
	      (unsigned long long)(h.saved_ns - h.request_ns), m.bound_ns);
	c1 = k * cycles / n + k * m.point + m.save;
	CHECK(c.cycles == c1, "first run %llu cycles, want %llu",
	      (unsigned long long)c.cycles, (unsigned long long)c1);
	CHECK(rd(r, ENPU_REG_PERF_PREEMPTIONS) == 1 &&
	      rd(r, ENPU_REG_PERF_JOBS_DONE) == jobs,
	      "preemptions %u, jobs done %u (was %u)",
	      rd(r, ENPU_REG_PERF_PREEMPTIONS), rd(r, ENPU_REG_PERF_JOBS_DONE),
	      jobs);

	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	submit_job(r, 0, 16, 0x100, PT_SAVE);
	CHECK(wait_cqe(r, &c, 5000) && c.tag == 0x100 &&
	      c.status == ENPU_JOB_STATUS_OK, "resumed run: status %u",
	      c.status);
	CHECK(c1 + c.cycles == cycles + (n - 1) * m.point + m.save + m.restore,
	      "runs %llu + %llu cycles, want %llu", (unsigned long long)c1,
	      (unsigned long long)c.cycles,
	      (unsigned long long)(cycles + (n - 1) * m.point + m.save +
				   m.restore));
	CHECK(get32(r->ram + PT_SAVE) == 0, "save area not cleared at the end");
	CHECK(rd(r, ENPU_REG_PERF_JOBS_DONE) == jobs + 1, "jobs done");
}

static void expect_ok_unpreempted(struct rig *r, uint64_t tag, uint64_t want,
				  const char *what)
{
	struct cqe c;

	CHECK(wait_cqe(r, &c, 5000) && c.tag == tag &&
	      c.status == ENPU_JOB_STATUS_OK && c.cycles == want,
	      "%s: status %u cycles %llu, want OK with %llu", what, c.status,
	      (unsigned long long)c.cycles, (unsigned long long)want);
}

/* Requests for another job, another queue, a job without save area, or
 * posted before the job started are dropped (and acknowledged). */
static void requests_that_do_not_apply_are_dropped(struct rig *r)
{
	const uint64_t cycles = 5000000;
	struct model m = model_of(r);
	uint64_t full = cycles + (tiles_of(&m, cycles, cycles) - 1) * m.point;
	uint32_t seq, data = 7;
	char reply[256];
	struct cqe c;

	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
	pl.count = 0;
	nop(r->ram + PT_STREAM, cycles);
	/* Each job's 5 ms of device time take 50 ms: the requests below land
	 * while it runs even when the host stalls this thread. */
	CHECK(ctl(r, "speed 0.1", reply, sizeof(reply)) == 0, "speed");

	submit_job(r, 0, 16, 0x200, PT_SAVE);
	sleep_ms(1);
	seq = post_preempt(r, 0, PT_SAVE2);
	expect_ok_unpreempted(r, 0x200, full, "other context");
	/* The device acknowledges when it looks at the request, which on a
	 * loaded host may come after the job's completion (the doorbell and
	 * the job's end handled in one turn): wait for it, 1 s at most. */
	CHECK(acked(r, 0, seq), "ack of a dropped one");

	submit_job(r, 0, 16, 0x202, PT_SAVE);
	sleep_ms(1);
	post_preempt(r, 1, PT_SAVE);
	expect_ok_unpreempted(r, 0x202, full, "other queue");

	/* No save area: no points are paid either. */
	submit_job(r, 0, 16, 0x203, 0);
	sleep_ms(1);
	post_preempt(r, 0, PT_SAVE);
	expect_ok_unpreempted(r, 0x203, cycles, "no save area");

	/* The job goes in only once the device has taken the request: on a
	 * loaded host 2 ms were not enough, and the device saw the request
	 * and the doorbell in one turn and preempted the job. */
	seq = post_preempt(r, 2, PT_SAVE);
	CHECK(acked(r, 2, seq), "ack of a request before the job");
	submit_job(r, 2, 16, 0x204, PT_SAVE);
	expect_ok_unpreempted(r, 0x204, full, "request before the job");

	/* The mailbox form answers whether it hit; area 0 is any job. */
	CHECK(mbox(r, ENPU_MBOX_PREEMPT, 0, 0, 0, &data, 1000) ==
	      ENPU_ERR_NONE && data == 0, "mailbox PREEMPT, idle: data %u",
	      data);
	/* The request goes in once the device has taken the job (SQ_HEAD
	 * moved), at speed 0.01 so that it still runs then: 1 ms after the
	 * doorbell, at load, the device had not started it yet (data 0). */
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0, "speed");
	seq = rd(r, ENPU_REG_SQ_HEAD(3));
	submit_job(r, 3, 16, 0x205, PT_SAVE);
	for (int ms = 0; rd(r, ENPU_REG_SQ_HEAD(3)) == seq && ms < 1000; ms++)
		sleep_ms(1);
	CHECK(mbox(r, ENPU_MBOX_PREEMPT, 3, 0, 0, &data, 1000) ==
	      ENPU_ERR_NONE && data == 1, "mailbox PREEMPT, running: data %u",
	      data);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x205 &&
	      c.status == ENPU_JOB_STATUS_PREEMPTED, "mailbox: status %u",
	      c.status);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
}

/*
 * PREEMPT names a context: its running job is saved, its descriptors of
 * that queue not started yet come back as NOT_STARTED (no cycles, save
 * area untouched), and another context's job behind them runs. With
 * none of them running they come back at once.
 */
static void unstarted_jobs_of_the_context_come_back(struct rig *r)
{
	/* Unstarted ones come back when the request is taken, before the
	 * save of the running one. */
	static const uint64_t submit_order[] = { 0x800, 0x801, 0x802, 0x803 };
	static const uint64_t order[] = { 0x801, 0x802, 0x800, 0x803 };
	char reply[256];
	uint64_t busy;
	struct cqe c;
	int i;

	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
	memset(r->ram + PT_SAVE2, 0, SAVE_SIZE);
	pl.count = 0;
	nop(r->ram + PT_STREAM, 10000000);
	/* 10 ms of device time take 1 s: a loaded host that stalls this
	 * thread or the device's cannot let the running job end before the
	 * request is seen (at speed 1 it did, completion 0 was 0x800). */
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0, "speed");
	busy = rig_busy_ns(r);
	for (i = 0; i < 3; i++)
		submit_job(r, 0, 16, submit_order[i], PT_SAVE);
	submit_job(r, 0, 16, submit_order[3], PT_SAVE2);
	CHECK(rig_wait_busy_past(r, busy, 5000), "0x800 never started");
	post_preempt(r, 0, PT_SAVE);
	for (i = 0; i < 4; i++) {
		if (!wait_cqe(r, &c, 5000)) {
			CHECK(0, "completion %d missing", i);
			return;
		}
		CHECK(c.tag == order[i], "completion %d is %#llx", i,
		      (unsigned long long)c.tag);
		if (i == 2)
			CHECK(c.status == ENPU_JOB_STATUS_PREEMPTED && c.info == 0 &&
			      c.cycles > 0, "running one: status %u info %#x",
			      c.status, c.info);
		else if (i < 2)
			CHECK(c.status == ENPU_JOB_STATUS_PREEMPTED &&
			      c.info == ENPU_CQE_INFO_NOT_STARTED && !c.cycles,
			      "queued one: status %u info %#x cycles %llu",
			      c.status, c.info, (unsigned long long)c.cycles);
		else
			CHECK(c.status == ENPU_JOB_STATUS_OK,
			      "other context: status %u", c.status);
	}
	CHECK(header_at(r, PT_SAVE).tag == submit_order[0] &&
	      header_at(r, PT_SAVE).magic == ENPU_SAVE_MAGIC,
	      "the save is the running job's");

	/* Nothing of the context runs (queue 3 does): back at once. At speed
	 * 0.01 the queue 3 job (10 ms of device time) takes 1 s, so that a
	 * loaded host stalling this thread cannot let it finish before the
	 * request is seen. */
	busy = rig_busy_ns(r);
	submit_job(r, 3, 16, 0x810, PT_SAVE2);
	CHECK(rig_wait_busy_past(r, busy, 5000), "0x810 never started");
	submit_job(r, 1, 16, 0x811, PT_SAVE);
	submit_job(r, 1, 16, 0x812, PT_SAVE);
	post_preempt(r, 1, PT_SAVE);
	for (i = 0; i < 2; i++)
		CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x811u + i &&
		      c.status == ENPU_JOB_STATUS_PREEMPTED &&
		      c.info == ENPU_CQE_INFO_NOT_STARTED,
		      "idle context: %#llx status %u info %#x",
		      (unsigned long long)c.tag, c.status, c.info);
	CHECK(wait_cqe(r, &c, 5000) && c.tag == 0x810 &&
	      c.status == ENPU_JOB_STATUS_OK, "queue 3 job: status %u",
	      c.status);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	/* Resume the saved one so the area is clean for the next test. */
	submit_job(r, 0, 16, submit_order[0], PT_SAVE);
	CHECK(wait_cqe(r, &c, 5000) && c.status == ENPU_JOB_STATUS_OK,
	      "resume: status %u", c.status);
}

/* One descriptor or save-area fault: the job completes at once with
 * @status / @info, runs nothing, and the save area is left as it was. */
static void expect_refused(struct rig *r, uint64_t save, uint32_t save_size,
			   uint32_t status, uint32_t info, uint32_t rule,
			   const char *what)
{
	uint8_t before[ENPU_SAVE_HEADER_SIZE];
	struct cqe c;

	if (save + ENPU_SAVE_HEADER_SIZE <= RIG_RAM_SIZE)
		memcpy(before, r->ram + save, sizeof(before));
	submit_saved(r, 0, PT_STREAM, 16, 0x300, PT_TABLE, 0, save, save_size,
		     0);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x300 && c.status == status &&
	      c.info == info && c.cycles == 0,
	      "%s: status %u info %#x cycles %llu, want %u %#x", what,
	      c.status, c.info, (unsigned long long)c.cycles, status, info);
	CHECK(rig_job_rule(r, 0x300) == rule, "%s: rule %u, want %u", what,
	      rig_job_rule(r, 0x300), rule);
	if (save + ENPU_SAVE_HEADER_SIZE <= RIG_RAM_SIZE)
		CHECK(!memcmp(before, r->ram + save, sizeof(before)),
		      "%s: save area changed", what);
}

static void save_area_faults_are_reported(struct rig *r)
{
	const uint64_t cycles = 1000000;
	uint8_t *h = r->ram + PT_SAVE;
	char reply[256];
	struct cqe c;

	pl.count = 0;
	nop(r->ram + PT_STREAM, cycles);
	expect_refused(r, PT_SAVE, SAVE_SIZE - 1, ENPU_JOB_STATUS_INVALID,
		       ENPU_CQE_INFO_DESCRIPTOR, VNPU_RULE_DESC_SAVE_SIZE,
		       "save area too small");
	expect_refused(r, RIG_RAM_SIZE - SAVE_SIZE + 8, SAVE_SIZE,
		       ENPU_JOB_STATUS_DMA_FAULT, ENPU_CQE_INFO_DESCRIPTOR,
		       VNPU_RULE_SAVE_RANGE, "save area past guest RAM");

	/* A real save of this job, then one field broken at a time. */
	memset(h, 0, SAVE_SIZE);
	/* 1 ms of device time in 100 ms: a stalled host still finds the
	 * job running when it posts the request. */
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0, "speed");
	submit_saved(r, 0, PT_STREAM, 16, 0x300, PT_TABLE, 0, PT_SAVE,
		     SAVE_SIZE, 0);
	sleep_us(300);
	post_preempt(r, 0, PT_SAVE);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_PREEMPTED,
	      "setup preemption: status %u", c.status);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	{
		uint8_t good[ENPU_SAVE_HEADER_SIZE];
		static const struct {
			uint32_t off, size;
			uint64_t value;
			const char *what;
		} bad[] = {
			{ ENPU_SAVE_OFF_MAGIC, 4, 0x12345678, "magic" },
			{ ENPU_SAVE_OFF_VERSION, 4, 2, "version" },
			{ ENPU_SAVE_OFF_TAG, 8, 0x301, "tag" },
			{ ENPU_SAVE_OFF_STREAM_SIZE, 4, 24, "stream size" },
			{ ENPU_SAVE_OFF_STREAM_HASH, 8, 1, "stream hash" },
			{ ENPU_SAVE_OFF_CMD_OFFSET, 4, 8, "offset inside a command" },
			{ ENPU_SAVE_OFF_CMD_OFFSET, 4, 16, "offset at the end" },
			{ ENPU_SAVE_OFF_UNITS_DONE, 8, cycles, "units done = all" },
			{ ENPU_SAVE_OFF_UNITS_DONE, 8, 1, "units done not a tile start" },
			{ ENPU_SAVE_OFF_RESERVED, 4, 1, "reserved" },
		};

		memcpy(good, h, sizeof(good));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memcpy(h, good, sizeof(good));
			if (bad[i].size == 4)
				put32(h + bad[i].off, (uint32_t)bad[i].value);
			else
				put64(h + bad[i].off, bad[i].value);
			expect_refused(r, PT_SAVE, SAVE_SIZE,
				       ENPU_JOB_STATUS_INVALID,
				       ENPU_CQE_INFO_SAVE_AREA,
				       VNPU_RULE_SAVE_STATE, bad[i].what);
		}
		/* The good header still resumes. */
		memcpy(h, good, sizeof(good));
		submit_saved(r, 0, PT_STREAM, 16, 0x300, PT_TABLE, 0, PT_SAVE,
			     SAVE_SIZE, 0);
		CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_OK,
		      "good header: status %u", c.status);
	}
}

/*
 * PREEMPT of a LOW job with a REALTIME job queued in the same doorbell:
 * the LOW job's completion (PREEMPTED) comes first, the REALTIME job
 * starts at the instant of the save, and the LOW job resumes after it.
 */
static void higher_queue_starts_at_the_save(struct rig *r)
{
	struct model m = model_of(r);
	char reply[256];
	unsigned long long saves, start_max, run;
	struct cqe c;

	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
	pl.count = 0;
	nop(r->ram + PT_STREAM, 20000000);
	CHECK(ctl(r, "stats-reset", reply, sizeof(reply)) == 0, "stats-reset");
	/* Device time runs with wall time: at speed 0.001 a host stall
	 * between the descriptor's doorbell and the request's (a loaded
	 * machine) adds 1 ns of device time per ms, not 1 us, to the
	 * REALTIME job's visible -> done figure checked below. */
	CHECK(ctl(r, "speed 0.001", reply, sizeof(reply)) == 0, "speed");
	/* Idle after the reset: the wait below waits for something. */
	CHECK(!rig_wait_busy_past(r, 0, 20), "busy with nothing submitted");
	submit_job(r, 0, 16, 0x400, PT_SAVE);
	CHECK(rig_wait_busy_past(r, 0, 5000), "0x400 never started");
	/* The REALTIME descriptor, then the request. */
	memcpy(r->ram + PT_STREAM + 64, r->ram + PT_STREAM, 16);
	put32(r->ram + PT_STREAM + 64 + 8, 200000);
	submit_saved(r, 3, PT_STREAM + 64, 16, 0x401, 0, 0, PT_SAVE2,
		     SAVE_SIZE, 0);
	post_preempt(r, 0, PT_SAVE);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x400 &&
	      c.status == ENPU_JOB_STATUS_PREEMPTED, "first: tag %#llx status %u",
	      (unsigned long long)c.tag, c.status);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x401 &&
	      c.status == ENPU_JOB_STATUS_OK, "second: tag %#llx status %u",
	      (unsigned long long)c.tag, c.status);
	CHECK(ctl(r, "preempt-stats", reply, sizeof(reply)) == 0 &&
	      sscanf(reply, "ok saves=%llu %*s %*s %*s %*s %*s %*s %*s start_max_ns=%llu",
		     &saves, &start_max) == 2,
	      "preempt-stats: %s", reply);
	CHECK(saves == 1 && start_max >= m.save &&
	      start_max <= m.bound_ns + m.save,
	      "request -> REALTIME start %llu ns (bound %u + save %llu)",
	      start_max, m.bound_ns, (unsigned long long)m.save);
	/* Its latency, visible -> done: the wait for the save, then its run
	 * (200000 cycles and its own points, at 1 GHz). */
	run = 200000 + (tiles_of(&m, 200000, 200000) - 1) * m.point;
	CHECK(ctl(r, "queue-stats 3", reply, sizeof(reply)) == 0 &&
	      sscanf(reply, "ok queue=3 jobs=%llu %*s %*s max_ns=%llu",
		     &saves, &start_max) == 2,
	      "queue-stats 3: %s", reply);
	CHECK(saves == 1 && start_max >= run + m.save &&
	      start_max <= run + m.save + m.bound_ns,
	      "REALTIME visible -> done %llu ns (run %llu + save %llu + bound %u)",
	      start_max, (unsigned long long)run,
	      (unsigned long long)m.save, m.bound_ns);
	CHECK(ctl(r, "queue-stats 0", reply, sizeof(reply)) == 0 &&
	      strstr(reply, " jobs=0 "),
	      "a PREEMPTED job is not a sample yet: %s", reply);
	CHECK(ctl(r, "queue-stats 4", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error", 5), "queue-stats 4: %s", reply);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	submit_job(r, 0, 16, 0x400, PT_SAVE);
	CHECK(wait_cqe(r, &c, 5000) && c.tag == 0x400 &&
	      c.status == ENPU_JOB_STATUS_OK, "resume: status %u", c.status);
	CHECK(ctl(r, "queue-stats 0", reply, sizeof(reply)) == 0 &&
	      strstr(reply, " jobs=1 "), "resumed and done: %s", reply);
}

/* Random requests over a long job of mixed commands: every save within
 * the bound (+ the restore when the request met a job still restoring);
 * at the lowest OPP the bound stretches by the clock ratio. */
static void preemption_latency_is_bounded(struct rig *r)
{
	struct prng g = { 0x5eed };
	uint32_t len = 0, khz_max, khz_min, saves = 0;
	struct enpu_cmd_dma_fill fill = {
		.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(fill) },
		.dst = { 0, 0, 0 }, .size = 400000, .value = 0x3c,
	};
	struct model m = model_of(r);
	char reply[256];
	struct cqe c;
	int opp;

	khz_max = rd(r, ENPU_REG_OPP_KHZ(rd(r, ENPU_REG_OPP_COUNT) - 1));
	khz_min = rd(r, ENPU_REG_OPP_KHZ(0));
	layout_reset(r, &g);
	bo_add(r, &g, RW, 400000);
	len += nop(r->ram + PT_STREAM + len, 3000000);
	memcpy(r->ram + PT_STREAM + len, &fill, sizeof(fill));
	len += sizeof(fill);
	len += nop(r->ram + PT_STREAM + len, 7);
	len += nop(r->ram + PT_STREAM + len, 2000000);
	/* 5 ms of device time take 100 ms (500 ms at the lowest OPP). */
	CHECK(ctl(r, "speed 0.05", reply, sizeof(reply)) == 0, "speed");
	for (opp = 1; opp >= 0; opp--) {
		uint32_t tries = 0;

		uint32_t khz = opp ? khz_max : khz_min;
		uint64_t slack = (m.bound_cycles + m.save + m.restore) *
				 1000000 / khz;

		CHECK(mbox(r, ENPU_MBOX_SET_OPP, opp ? 4 : 0, 0, 0, NULL, 1000) ==
		      ENPU_ERR_NONE, "OPP");
		memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
		submit_job(r, 0, len, 0x500 + opp, PT_SAVE);
		for (;;) {
			struct header h;

			sleep_us(prnd(&g) % 400);
			/* 30 requests per OPP, then let it finish. */
			if (++tries <= 30)
				post_preempt(r, 0, PT_SAVE);
			if (!wait_cqe(r, &c, 5000) || c.tag != 0x500u + opp) {
				CHECK(0, "no completion");
				break;
			}
			if (c.status != ENPU_JOB_STATUS_PREEMPTED) {
				CHECK(c.status == ENPU_JOB_STATUS_OK,
				      "status %u", c.status);
				break;
			}
			h = header_at(r, PT_SAVE);
			CHECK(h.saved_ns - h.request_ns <= slack,
			      "OPP %d: request -> saved %llu ns > %llu", opp,
			      (unsigned long long)(h.saved_ns - h.request_ns),
			      (unsigned long long)slack);
			saves++;
			submit_job(r, 0, len, 0x500 + opp, PT_SAVE);
		}
	}
	CHECK(saves >= 40, "only %u preemptions of 60 requests", saves);
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 4, 0, 0, NULL, 1000) == ENPU_ERR_NONE,
	      "OPP back");
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed back");
}

/* ---- bit-exact resume ---- */

static struct enpu_tensor_desc td(uint32_t bo, uint64_t off, uint32_t h,
				  uint32_t w, uint32_t c, uint8_t dtype,
				  int32_t zp)
{
	return (struct enpu_tensor_desc){ .buf = { bo, 0, off }, .batch = 1,
		.height = h, .width = w, .channels = c, .dtype = dtype,
		.zero_point = zp };
}

static const struct enpu_requant_desc RQ_U8 = {
	{ ENPU_BUF_NONE, 0, 0 }, 1 << 30, 40, 0, 255 };
static const struct enpu_requant_desc RQ_S8 = {
	{ ENPU_BUF_NONE, 0, 0 }, 1 << 30, 40, -128, 127 };

enum pt_kind {
	PT_CONV, PT_DEPTHWISE, PT_FC, PT_ADD, PT_MUL, PT_MAXPOOL, PT_AVGPOOL,
	PT_COPY, PT_DMA, PT_IN_PLACE, PT_KINDS,
};

static const char *const kind_names[PT_KINDS] = {
	"conv2d", "depthwise", "fully_connected", "add", "mul", "max_pool",
	"avg_pool", "copy", "dma", "in-place add",
};

/* Two commands of one kind (so layer boundaries are met too), on
 * random data; returns the stream length. */
static uint32_t build_job(struct rig *r, struct prng *g, enum pt_kind kind)
{
	uint8_t *s = r->ram + PT_STREAM;
	uint32_t len = 0, in, out, wts;

	layout_reset(r, g);
	for (int i = 0; i < 2; i++) {
		switch (kind) {
		case PT_CONV:
		case PT_DEPTHWISE: {
			bool dw = kind == PT_DEPTHWISE;
			uint32_t h = dw ? 48 : 30, c = dw ? 64 : 24;
			struct enpu_cmd_conv2d k = {
				.hdr = { dw ? ENPU_CMD_DEPTHWISE_CONV2D :
					 ENPU_CMD_CONV2D, 0, sizeof(k) },
				.kernel_height = 3, .kernel_width = 3,
				.stride_height = 1, .stride_width = 1,
				.dilation_height = 1, .dilation_width = 1,
				.pad_top = 1, .pad_left = 1, .pad_bottom = 1,
				.pad_right = 1, .groups = dw ? c : 1,
				.requant = RQ_U8,
			};

			in = bo_add(r, g, ENPU_BO_ACCESS_READ, h * h * c);
			wts = bo_add(r, g, ENPU_BO_ACCESS_READ,
				     c * (dw ? 1 : c) * 9 + c * 4);
			out = bo_add(r, g, ENPU_BO_ACCESS_WRITE, h * h * c);
			k.input = td(in, 0, h, h, c, ENPU_DTYPE_UINT8, 100);
			k.output = td(out, 0, h, h, c, ENPU_DTYPE_UINT8, 3);
			k.weights = (struct enpu_buf_ref){ wts, 0, 0 };
			k.bias = (struct enpu_buf_ref){
				wts, 0, (uint64_t)c * (dw ? 1 : c) * 9 };
			memcpy(s + len, &k, sizeof(k));
			len += sizeof(k);
			break;
		}
		case PT_FC: {
			uint32_t m = 12, kk = 700, n = 400;
			struct enpu_cmd_fc f = {
				.hdr = { ENPU_CMD_FULLY_CONNECTED, 0, sizeof(f) },
				.requant = RQ_S8,
			};

			in = bo_add(r, g, ENPU_BO_ACCESS_READ, m * kk);
			wts = bo_add(r, g, ENPU_BO_ACCESS_READ, n * kk + n * 4);
			out = bo_add(r, g, ENPU_BO_ACCESS_WRITE, m * n);
			f.input = td(in, 0, 1, m, kk, ENPU_DTYPE_INT8, -3);
			f.output = td(out, 0, 1, m, n, ENPU_DTYPE_INT8, 5);
			f.weights = (struct enpu_buf_ref){ wts, 0, 0 };
			f.bias = (struct enpu_buf_ref){ wts, 0,
							(uint64_t)n * kk };
			memcpy(s + len, &f, sizeof(f));
			len += sizeof(f);
			break;
		}
		case PT_ADD:
		case PT_MUL:
		case PT_IN_PLACE: {
			uint32_t h = 40, c = 40;
			struct enpu_cmd_eltwise e = {
				.hdr = { kind == PT_MUL ? ENPU_CMD_MUL :
					 ENPU_CMD_ADD, 0, sizeof(e) },
				.min = 0, .max = 255,
			};
			uint32_t b;

			in = bo_add(r, g, RW, h * h * c);
			b = bo_add(r, g, ENPU_BO_ACCESS_READ, h * c);
			out = kind == PT_IN_PLACE ? in :
			      bo_add(r, g, ENPU_BO_ACCESS_WRITE, h * h * c);
			e.a = td(in, 0, h, h, c, ENPU_DTYPE_UINT8, 7);
			/* b broadcasts along the height. */
			e.b = td(b, 0, 1, h, c, ENPU_DTYPE_UINT8, 200);
			e.output = td(out, 0, h, h, c, ENPU_DTYPE_UINT8, 9);
			if (kind == PT_MUL) {
				e.left_shift = 3;
				e.multiplier = 1 << 30;
				e.shift = 40;
			} else {
				e.a_multiplier = 1 << 20;
				e.b_multiplier = 1 << 19;
				e.add_shift = 21;
			}
			memcpy(s + len, &e, sizeof(e));
			len += sizeof(e);
			break;
		}
		case PT_MAXPOOL:
		case PT_AVGPOOL: {
			uint32_t h = 48, c = 48;
			bool avg = kind == PT_AVGPOOL;
			struct enpu_cmd_pool p = {
				.hdr = { avg ? ENPU_CMD_AVG_POOL :
					 ENPU_CMD_MAX_POOL, 0, sizeof(p) },
				.params = { ENPU_BUF_NONE, 0, 0 },
				.kernel_height = 3, .kernel_width = 3,
				.stride_height = 1, .stride_width = 1,
				.dilation_height = 1, .dilation_width = 1,
				.pad_top = 1, .pad_left = 1, .pad_bottom = 1,
				.pad_right = 1, .min = -128, .max = 127,
			};

			in = bo_add(r, g, ENPU_BO_ACCESS_READ, h * h * c);
			out = bo_add(r, g, ENPU_BO_ACCESS_WRITE, h * h * c);
			p.input = td(in, 0, h, h, c, ENPU_DTYPE_INT8, 0);
			p.output = td(out, 0, h, h, c, ENPU_DTYPE_INT8, 0);
			if (avg) {
				p.input.zero_point = -5;
				p.output.zero_point = 4;
				p.multiplier = 1 << 30;
				p.shift = 40;
				p.left_shift = 2;
			}
			memcpy(s + len, &p, sizeof(p));
			len += sizeof(p);
			break;
		}
		case PT_COPY: {
			uint32_t h = 50, c = 40;
			struct enpu_cmd_copy k = {
				.hdr = { ENPU_CMD_COPY, 0, sizeof(k) },
			};

			in = bo_add(r, g, ENPU_BO_ACCESS_READ, h * h * c * 4);
			out = bo_add(r, g, ENPU_BO_ACCESS_WRITE,
				     h * h * (c + 3) * 4);
			k.input = td(in, 0, h, h, c, ENPU_DTYPE_INT32, 0);
			k.output = td(out, 0, h, h, c, ENPU_DTYPE_INT32, 0);
			k.output.pixel_stride = c + 3;
			memcpy(s + len, &k, sizeof(k));
			len += sizeof(k);
			break;
		}
		default: {
			struct enpu_cmd_dma_copy cp = {
				.hdr = { ENPU_CMD_DMA_COPY, 0, sizeof(cp) },
				.size = 300001,
			};
			struct enpu_cmd_dma_fill f = {
				.hdr = { ENPU_CMD_DMA_FILL, 0, sizeof(f) },
				.size = 500003, .value = 0xa5,
			};

			in = bo_add(r, g, ENPU_BO_ACCESS_READ, cp.size);
			out = bo_add(r, g, RW, f.size);
			cp.src = (struct enpu_buf_ref){ in, 0, 0 };
			cp.dst = (struct enpu_buf_ref){ out, 0, 7 };
			f.dst = (struct enpu_buf_ref){ out, 0, 0 };
			memcpy(s + len, i ? (void *)&cp : (void *)&f,
			       i ? sizeof(cp) : sizeof(f));
			len += i ? sizeof(cp) : sizeof(f);
			break;
		}
		}
	}
	return len;
}

static bool ram_matches_reference(struct rig *r, const char *what)
{
	uint64_t i;

	/* The save area is the one place a preempted run may differ. */
	memcpy(reference + PT_SAVE, r->ram + PT_SAVE, SAVE_SIZE);
	if (!memcmp(reference, r->ram, RIG_RAM_SIZE))
		return true;
	for (i = 0; i < RIG_RAM_SIZE && reference[i] == r->ram[i]; i++)
		;
	CHECK(0, "%s: guest RAM differs first at %#llx: %#x, uninterrupted %#x",
	      what, (unsigned long long)i, r->ram[i], reference[i]);
	return false;
}

/*
 * Runs the job in PT_STREAM without a save area into @reference, then
 * puts guest RAM back as it was before (save area cleared) for the
 * preempted run. Returns false if the uninterrupted run failed.
 */
static bool run_reference(struct rig *r, uint32_t len, uint64_t tag,
			  const char *what)
{
	struct cqe c;

	memcpy(snapshot, r->ram, RIG_RAM_SIZE);
	submit_job(r, 0, len, tag, 0);
	if (!wait_cqe(r, &c, 60000) || c.status != ENPU_JOB_STATUS_OK) {
		CHECK(0, "%s: uninterrupted run: status %u info %#x", what,
		      c.status, c.info);
		return false;
	}
	memcpy(reference, r->ram, RIG_RAM_SIZE);
	memcpy(r->ram, snapshot, RIG_RAM_SIZE);
	memset(r->ram + PT_SAVE, 0, SAVE_SIZE);
	return true;
}

/* One job of @kind run uninterrupted, then from the same RAM preempted
 * at random instants until done; the two results must be identical. */
static void preempt_one_job(struct rig *r, struct prng *g, enum pt_kind kind,
			    uint32_t *saves, uint32_t *inside)
{
	uint32_t len = build_job(r, g, kind);
	uint64_t tag = 0x600 + kind;
	struct cqe c;

	if (!run_reference(r, len, tag, kind_names[kind]))
		return;
	submit_job(r, 0, len, tag, PT_SAVE);
	for (;;) {
		struct header h;

		sleep_us(prnd(g) % 20000);
		post_preempt(r, 0, PT_SAVE);
		if (!wait_cqe(r, &c, 60000) || c.tag != tag) {
			CHECK(0, "%s: no completion", kind_names[kind]);
			return;
		}
		if (c.status != ENPU_JOB_STATUS_PREEMPTED)
			break;
		h = header_at(r, PT_SAVE);
		(*saves)++;
		if (h.done)
			(*inside)++;
		if (kind == PT_IN_PLACE)
			CHECK(!h.done, "in-place layer saved inside it, at unit %llu",
			      (unsigned long long)h.done);
		submit_job(r, 0, len, tag, PT_SAVE);
	}
	CHECK(c.status == ENPU_JOB_STATUS_OK, "%s: status %u info %#x",
	      kind_names[kind], c.status, c.info);
	ram_matches_reference(r, kind_names[kind]);
}

/*
 * Every layer type, DMA and an in-place layer: preempted at random
 * instants until done, the result is bit-identical to an uninterrupted
 * run from the same guest RAM.
 */
static void preempted_jobs_resume_bit_exact(struct rig *r)
{
	struct prng g = { 0x1234567 };
	char reply[256];

	snapshot = malloc(RIG_RAM_SIZE);
	reference = malloc(RIG_RAM_SIZE);
	if (!snapshot || !reference) {
		CHECK(0, "no memory for the RAM images");
		goto out;
	}
	/*
	 * Slow enough that random requests land inside layers even when the
	 * host is busy (a layer takes ~100 ms, a save and a restore 40 ms);
	 * a job that still saw too few goes again with new data.
	 */
	CHECK(ctl(r, "speed 0.00005", reply, sizeof(reply)) == 0, "speed");
	for (int kind = 0; kind < PT_KINDS; kind++) {
		uint32_t saves = 0, inside = 0, want = kind == PT_IN_PLACE ? 1 : 3;

		for (int attempt = 0; attempt < 3 && (saves < want ||
		     (kind != PT_IN_PLACE && inside < 2)); attempt++)
			preempt_one_job(r, &g, kind, &saves, &inside);
		/* An in-place layer stops only at its boundary: one point. */
		CHECK(saves >= want, "%s: only %u preemptions",
		      kind_names[kind], saves);
		if (kind != PT_IN_PLACE)
			CHECK(inside >= 2, "%s: only %u preemptions inside a command",
			      kind_names[kind], inside);
		printf("    %s: %u preemptions, %u inside a command\n",
		       kind_names[kind], saves, inside);
	}
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed back");
out:
	free(snapshot);
	free(reference);
}

/* A RESET leaves the save area alone: the job re-run after recovery
 * resumes from its last save, and the result is still exact. */
static void reset_keeps_the_last_save(struct rig *r)
{
	struct prng g = { 0xabc };
	uint32_t len;
	char reply[256];
	uint64_t busy;
	struct cqe c;

	snapshot = malloc(RIG_RAM_SIZE);
	reference = malloc(RIG_RAM_SIZE);
	if (!snapshot || !reference) {
		CHECK(0, "no memory for the RAM images");
		goto out;
	}
	CHECK(ctl(r, "speed 0.0002", reply, sizeof(reply)) == 0, "speed");
	len = build_job(r, &g, PT_CONV);
	if (!run_reference(r, len, 0x700, "reset"))
		goto slow;
	busy = rig_busy_ns(r);
	submit_job(r, 0, len, 0x700, PT_SAVE);
	CHECK(rig_wait_busy_past(r, busy, 5000), "0x700 never started");
	post_preempt(r, 0, PT_SAVE);
	CHECK(wait_cqe(r, &c, 30000) && c.status == ENPU_JOB_STATUS_PREEMPTED,
	      "preempt: status %u", c.status);
	/* Resume, then reset in the middle of the resumed run. */
	busy = rig_busy_ns(r);
	submit_job(r, 0, len, 0x700, PT_SAVE);
	CHECK(rig_wait_busy_past(r, busy, 5000), "the resumed 0x700 never ran");
	/* SQ_PREEMPT_SEQ keeps counting: RESET voids what it holds. */
	CHECK(recover(r), "reset and boot");
	CHECK(get32(r->ram + PT_SAVE) == ENPU_SAVE_MAGIC, "save lost by reset");
	submit_job(r, 0, len, 0x700, PT_SAVE);
	CHECK(wait_cqe(r, &c, 30000) && c.status == ENPU_JOB_STATUS_OK,
	      "re-run after reset: status %u", c.status);
	ram_matches_reference(r, "re-run after reset");
slow:
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed back");
out:
	free(snapshot);
	free(reference);
}

static const struct test tests[] = {
#define T(fn) { #fn, fn }
	T(preempt_registers_describe_the_model),
	T(nop_job_is_preempted_and_resumed),
	T(requests_that_do_not_apply_are_dropped),
	T(unstarted_jobs_of_the_context_come_back),
	T(save_area_faults_are_reported),
	T(higher_queue_starts_at_the_save),
	T(preemption_latency_is_bounded),
	T(preempted_jobs_resume_bit_exact),
	T(reset_keeps_the_last_save),
#undef T
};

/* Runs the preemption tests on a vnpu of their own; returns 0 if it
 * could not even start (counted as one failure by the caller). */
int run_preempt_tests(const char *vnpu, unsigned int *passed,
		      unsigned int *failed)
{
	static const char *const extra[] = { "--preempt-bound-us", "2", NULL };
	struct rig r;

	if (rig_start_with(&r, vnpu, "1", extra) || rig_connect(&r) ||
	    !recover(&r)) {
		rig_destroy(&r);
		return 0;
	}
	run_tests(&r, tests, sizeof(tests) / sizeof(tests[0]), passed, failed);
	if (*failed)
		setenv("VNPU_TEST_KEEP_LOG", "1", 0);
	rig_destroy(&r);
	return 1;
}
