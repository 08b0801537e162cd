// SPDX-License-Identifier: GPL-2.0
/*
 * Interface 1.1 seen from a driver: BO tables, scatter-gather lists and the
 * DMA_COPY / DMA_FILL commands (docs/hw/vnpu.md, "Interface 1.1").
 *
 * The BOs are deliberately scattered: segments on out-of-order pages of
 * the RAM file, some not page aligned, of odd lengths. Every test keeps a
 * model of the whole guest RAM, applies to it what the job should do, byte
 * by byte through its own address resolution, and compares all 16 MiB
 * afterwards, so a byte written outside the ranges, or a command that ran
 * when it should not have, is caught.
 */
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
#include "vnpu.h"
#include "vnpu_check.h"
#include "vnpu_rig.h"

#define TABLE_ADDR	0x300000u	/* BO table; 4096 entries fit */
#define SG_BASE		0x340000u
#define SG_ADDR(i)	(SG_BASE + (uint64_t)(i) * 0x100u)
#define DMA_STREAM	0x380000u
#define DATA_BASE	0x400000u
#define DATA_SIZE	0x200000u
#define BIG_BASE	0x600000u	/* the timing test's 2 MiB */
#define PAGE(n)		(DATA_BASE + (uint64_t)(n) * 0x1000u)
#define MAX_SEGS	8
#define NO_BOS		5
#define FIRST_FILL_LEN	((uint32_t)sizeof(struct enpu_cmd_dma_fill))

struct seg {
	uint64_t addr, len;
};

struct bo_desc {
	uint32_t access;
	uint64_t size;
	uint32_t nseg;
	struct seg seg[MAX_SEGS];
	uint32_t sg_count;	/* as written to the table (normally nseg) */
	uint64_t sg_addr;	/* 0: SG_ADDR(index) */
	uint64_t reserved;
};

#define R ENPU_BO_ACCESS_READ
#define W ENPU_BO_ACCESS_WRITE

/* 0 src, 1 dst, 2 scratch (rw), 3 read-only, 4 write-only. */
static const struct bo_desc good_bos[NO_BOS] = {
	{ R, 9192, 3, { { PAGE(20), 4096 }, { PAGE(3), 4096 },
			{ PAGE(11) + 512, 1000 } }, 3, 0, 0 },
	{ W, 10000, 3, { { PAGE(7) + 100, 3000 }, { PAGE(1), 5000 },
			 { PAGE(15), 2000 } }, 3, 0, 0 },
	{ R | W, 8192, 2, { { PAGE(30), 4096 }, { PAGE(25), 4096 } }, 2, 0, 0 },
	{ R, 4096, 1, { { PAGE(40), 4096 } }, 1, 0, 0 },
	{ W, 4096, 1, { { PAGE(41), 4096 } }, 1, 0, 0 },
};

/* What guest RAM should hold; static, so a test cannot run without it. */
static uint8_t model[RIG_RAM_SIZE];

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t rd64(struct rig *r, uint32_t lo_offset)
{
	uint32_t hi, lo;

	do {
		hi = rd(r, lo_offset + 4);
		lo = rd(r, lo_offset);
	} while (rd(r, lo_offset + 4) != hi);
	return (uint64_t)hi << 32 | lo;
}

static void write_bo_table(struct rig *r, const struct bo_desc *bos,
			   uint32_t count)
{
	uint32_t i, j;

	for (i = 0; i < count; i++) {
		uint8_t *entry = r->ram + TABLE_ADDR + (uint64_t)i * ENPU_BO_ENTRY_SIZE;
		uint64_t sg = bos[i].sg_addr ? bos[i].sg_addr : SG_ADDR(i);

		put64(entry + ENPU_BO_SG_ADDR, sg);
		put32(entry + ENPU_BO_SG_COUNT, bos[i].sg_count);
		put32(entry + ENPU_BO_ACCESS, bos[i].access);
		put64(entry + ENPU_BO_SIZE, bos[i].size);
		put64(entry + ENPU_BO_RESERVED, bos[i].reserved);
		if (sg + (uint64_t)bos[i].nseg * ENPU_SG_ENTRY_SIZE > RIG_RAM_SIZE)
			continue;
		for (j = 0; j < bos[i].nseg; j++) {
			uint8_t *s = r->ram + sg + (uint64_t)j * ENPU_SG_ENTRY_SIZE;

			put64(s + ENPU_SG_ADDR, bos[i].seg[j].addr);
			put64(s + ENPU_SG_LEN, bos[i].seg[j].len);
		}
	}
}

/* Background pattern of the data pages; @seed varies it between tests. */
static void scribble(struct rig *r, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < DATA_SIZE; i++)
		r->ram[DATA_BASE + i] = (uint8_t)((i * 131u + seed * 17u + 7u) ^ (i >> 11));
}

static void snapshot(struct rig *r)
{
	memcpy(model, r->ram, RIG_RAM_SIZE);
}

/* The test's own address resolution, one byte at a time. */
static uint64_t bo_byte(const struct bo_desc *bo, uint64_t offset)
{
	uint32_t i;

	for (i = 0; i < bo->nseg; i++) {
		if (offset < bo->seg[i].len)
			return bo->seg[i].addr + offset;
		offset -= bo->seg[i].len;
	}
	abort();	/* a bug in the test itself */
}

static void model_copy(const struct bo_desc *src, uint64_t src_offset,
		       const struct bo_desc *dst, uint64_t dst_offset,
		       uint64_t size)
{
	uint64_t i;

	for (i = 0; i < size; i++)
		model[bo_byte(dst, dst_offset + i)] =
			model[bo_byte(src, src_offset + i)];
}

static void model_fill(const struct bo_desc *dst, uint64_t offset,
		       uint64_t size, uint8_t value)
{
	uint64_t i;

	for (i = 0; i < size; i++)
		model[bo_byte(dst, offset + i)] = value;
}

static void check_ram_matches_model(struct rig *r, const char *what)
{
	uint64_t i;

	if (!memcmp(model, r->ram, RIG_RAM_SIZE))
		return;
	for (i = 0; i < RIG_RAM_SIZE && model[i] == r->ram[i]; i++)
		;
	CHECK(0, "%s: guest RAM differs first at %#llx: %#x, expected %#x", what,
	      (unsigned long long)i, r->ram[i], model[i]);
}

static uint32_t copy_cmd(uint8_t *p, uint32_t src_bo, uint64_t src_offset,
			 uint32_t dst_bo, uint64_t dst_offset, uint64_t size)
{
	struct enpu_cmd_dma_copy cmd = {
		.hdr = { .opcode = ENPU_CMD_DMA_COPY, .size = sizeof(cmd) },
		.src = { .bo_index = src_bo, .offset = src_offset },
		.dst = { .bo_index = dst_bo, .offset = dst_offset },
		.size = size,
	};

	memcpy(p, &cmd, sizeof(cmd));
	return sizeof(cmd);
}

static uint32_t fill_cmd(uint8_t *p, uint32_t bo, uint64_t offset,
			 uint64_t size, uint32_t value)
{
	struct enpu_cmd_dma_fill cmd = {
		.hdr = { .opcode = ENPU_CMD_DMA_FILL, .size = sizeof(cmd) },
		.dst = { .bo_index = bo, .offset = offset },
		.size = size,
		.value = value,
	};

	memcpy(p, &cmd, sizeof(cmd));
	return sizeof(cmd);
}

static uint32_t nop_cmd(uint8_t *p, uint32_t cycles)
{
	struct enpu_cmd_nop cmd = {
		.hdr = { .opcode = ENPU_CMD_NOP, .size = sizeof(cmd) },
		.cycles = cycles,
	};

	memcpy(p, &cmd, sizeof(cmd));
	return sizeof(cmd);
}

static bool run_job(struct rig *r, uint32_t len, uint64_t table,
		    uint32_t count, uint64_t tag, struct cqe *c)
{
	submit_with_bos(r, 0, DMA_STREAM, len, tag, table, count);
	if (!wait_cqe(r, c, 5000))
		return false;
	return c->tag == tag;
}

/* A fresh table of the five BOs and fresh data pages. */
static void setup(struct rig *r, unsigned int seed)
{
	write_bo_table(r, good_bos, NO_BOS);
	scribble(r, seed);
}

/* --- tests --- */

static void dma_copy_moves_bytes_across_scattered_segments(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	uint64_t bytes;
	uint32_t len;
	struct cqe c;

	setup(r, 1);
	/* src starts inside segment 0 and ends in segment 2; dst starts in
	 * segment 0 (at an odd page offset) and ends in segment 2. */
	len = copy_cmd(s, 0, 100, 1, 50, 8800);
	snapshot(r);
	model_copy(&good_bos[0], 100, &good_bos[1], 50, 8800);
	bytes = rd64(r, ENPU_REG_PERF_DMA_BYTES_LO);
	CHECK(run_job(r, len, TABLE_ADDR, NO_BOS, 0x1100, &c), "no completion");
	CHECK(c.status == ENPU_JOB_STATUS_OK && c.info == 0, "status %u info %#x",
	      c.status, c.info);
	CHECK(c.cycles == 8800 / 32, "cycles %llu", (unsigned long long)c.cycles);
	check_ram_matches_model(r, "copy 8800");
	CHECK(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes == len + 2 * 8800,
	      "PERF_DMA_BYTES moved by %llu, expected stream %u + 2 x 8800",
	      (unsigned long long)(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes), len);

	/* The whole source, ending exactly at the end of dst's SIZE, which
	 * equals the sum of its segments. */
	scribble(r, 2);
	len = copy_cmd(s, 0, 0, 1, 808, 9192);
	snapshot(r);
	model_copy(&good_bos[0], 0, &good_bos[1], 808, 9192);
	CHECK(run_job(r, len, TABLE_ADDR, NO_BOS, 0x1101, &c) &&
	      c.status == ENPU_JOB_STATUS_OK, "status %u", c.status);
	CHECK(c.cycles == 9192 / 32, "cycles %llu", (unsigned long long)c.cycles);
	check_ram_matches_model(r, "copy of the whole BO");

	/* read-only source to write-only destination: exactly the bits needed */
	scribble(r, 3);
	len = copy_cmd(s, 3, 1, 4, 4000, 96);
	snapshot(r);
	model_copy(&good_bos[3], 1, &good_bos[4], 4000, 96);
	CHECK(run_job(r, len, TABLE_ADDR, NO_BOS, 0x1102, &c) &&
	      c.status == ENPU_JOB_STATUS_OK, "READ to WRITE: status %u", c.status);
	check_ram_matches_model(r, "read-only to write-only");
}

static void dma_fill_writes_exactly_its_range(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	uint64_t bytes;
	uint32_t len = 0;
	struct cqe c;

	setup(r, 4);
	len += fill_cmd(s + len, 1, 2990, 20, 0x5a);	/* across segments 0/1 */
	len += fill_cmd(s + len, 1, 9999, 1, 0xa5);	/* the last byte */
	len += fill_cmd(s + len, 2, 0, 8192, 0x3c);	/* a whole BO */
	len += fill_cmd(s + len, 1, 7990, 64, 0);	/* value 0, 2 cycles */
	snapshot(r);
	model_fill(&good_bos[1], 2990, 20, 0x5a);
	model_fill(&good_bos[1], 9999, 1, 0xa5);
	model_fill(&good_bos[2], 0, 8192, 0x3c);
	model_fill(&good_bos[1], 7990, 64, 0);
	bytes = rd64(r, ENPU_REG_PERF_DMA_BYTES_LO);
	CHECK(run_job(r, len, TABLE_ADDR, NO_BOS, 0x1200, &c) &&
	      c.status == ENPU_JOB_STATUS_OK, "status %u info %#x", c.status, c.info);
	CHECK(c.cycles == 1 + 1 + 256 + 2, "cycles %llu: max(1, size / 32) each",
	      (unsigned long long)c.cycles);
	check_ram_matches_model(r, "fills");
	CHECK(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes == len + 20 + 1 + 8192 + 64,
	      "PERF_DMA_BYTES moved by %llu",
	      (unsigned long long)(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes));
}

static void dma_commands_run_in_stream_order(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	uint32_t len = 0;
	struct cqe c;

	setup(r, 5);
	len += fill_cmd(s + len, 2, 0, 8192, 0x11);
	len += copy_cmd(s + len, 2, 4000, 1, 0, 300);	/* src crosses 4096 */
	len += fill_cmd(s + len, 2, 4000, 300, 0x22);
	len += copy_cmd(s + len, 2, 4000, 2, 6000, 300);	/* same BO, apart */
	len += copy_cmd(s + len, 2, 0, 2, 300, 300);	/* same BO, adjacent */
	snapshot(r);
	model_fill(&good_bos[2], 0, 8192, 0x11);
	model_copy(&good_bos[2], 4000, &good_bos[1], 0, 300);
	model_fill(&good_bos[2], 4000, 300, 0x22);
	model_copy(&good_bos[2], 4000, &good_bos[2], 6000, 300);
	model_copy(&good_bos[2], 0, &good_bos[2], 300, 300);
	CHECK(run_job(r, len, TABLE_ADDR, NO_BOS, 0x1300, &c) &&
	      c.status == ENPU_JOB_STATUS_OK, "status %u info %#x", c.status, c.info);
	check_ram_matches_model(r, "ordered commands");
	CHECK(r->ram[PAGE(7) + 100] == 0x11 && r->ram[PAGE(25) + 6000 - 4096] == 0x22,
	      "order not respected");
}

static void bo_table_errors_fault_before_any_command(struct rig *r)
{
	static const struct {
		const char *what;
		uint64_t table;
		uint32_t count;
		int bo;		/* which BO to damage, -1 none */
		int how;
		uint32_t rule;
	} cases[] = {
		{ "BO_COUNT 4097", TABLE_ADDR, 4097, -1, 0, VNPU_RULE_BO_COUNT },
		{ "table past the end of RAM", RIG_RAM_SIZE - 64, NO_BOS, -1, 0,
		  VNPU_RULE_BO_TABLE_RANGE },
		{ "table far outside RAM", 1ull << 50, NO_BOS, -1, 0,
		  VNPU_RULE_BO_TABLE_RANGE },
		{ "table address wraps", UINT64_MAX - 31, NO_BOS, -1, 0,
		  VNPU_RULE_BO_TABLE_RANGE },
		{ "SG list past the end of RAM", TABLE_ADDR, NO_BOS, 2, 1,
		  VNPU_RULE_SG_LIST_RANGE },
		{ "SG_COUNT 0", TABLE_ADDR, NO_BOS, 3, 2, VNPU_RULE_SG_COUNT },
		{ "segment LEN 0", TABLE_ADDR, NO_BOS, 0, 3,
		  VNPU_RULE_SG_SEGMENT_EMPTY },
		{ "SIZE above the segments", TABLE_ADDR, NO_BOS, 1, 4,
		  VNPU_RULE_SG_SHORT },
		{ "reserved not 0", TABLE_ADDR, NO_BOS, 2, 5,
		  VNPU_RULE_BO_RESERVED },
		{ "segment outside RAM", TABLE_ADDR, NO_BOS, 3, 6,
		  VNPU_RULE_SG_SEGMENT_RANGE },
		{ "segment address wraps", TABLE_ADDR, NO_BOS, 3, 7,
		  VNPU_RULE_SG_SEGMENT_RANGE },
		{ "unknown ACCESS bit", TABLE_ADDR, NO_BOS, 3, 8,
		  VNPU_RULE_BO_ACCESS },
	};
	uint8_t *s = r->ram + DMA_STREAM;
	struct bo_desc bos[NO_BOS];
	uint64_t bytes;
	uint32_t len;
	unsigned int i;
	struct cqe c;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bo_desc *bo = cases[i].bo >= 0 ? &bos[cases[i].bo] : NULL;

		memcpy(bos, good_bos, sizeof(bos));
		switch (cases[i].how) {
		case 1:
			bo->sg_addr = RIG_RAM_SIZE - 16;
			break;
		case 2:
			bo->sg_count = 0;
			break;
		case 3:
			bo->seg[1].len = 0;
			bo->size = 5096;	/* still covered: only LEN is wrong */
			break;
		case 4:
			bo->size++;
			break;
		case 5:
			bo->reserved = 1ull << 63;
			break;
		case 6:
			bo->seg[0].addr = RIG_RAM_SIZE - 100;
			break;
		case 7:
			bo->seg[0].addr = UINT64_MAX - 10;
			break;
		case 8:
			bo->access |= 4;
			break;
		}
		write_bo_table(r, bos, NO_BOS);
		scribble(r, 10 + i);
		/* a good command first: it must not run */
		len = fill_cmd(s, 4, 0, 4096, 0x99);
		snapshot(r);
		bytes = rd64(r, ENPU_REG_PERF_DMA_BYTES_LO);
		CHECK(run_job(r, len, cases[i].table, cases[i].count, 0x1400 + i, &c),
		      "%s: no completion", cases[i].what);
		CHECK(c.status == ENPU_JOB_STATUS_DMA_FAULT &&
		      c.info == ENPU_CQE_INFO_DESCRIPTOR && c.cycles == 0,
		      "%s: status %u info %#x cycles %llu", cases[i].what, c.status,
		      c.info, (unsigned long long)c.cycles);
		CHECK(rig_job_rule(r, 0x1400 + i) == cases[i].rule,
		      "%s: rule %u, want %u", cases[i].what,
		      rig_job_rule(r, 0x1400 + i), cases[i].rule);
		check_ram_matches_model(r, cases[i].what);
		CHECK(rd64(r, ENPU_REG_PERF_DMA_BYTES_LO) - bytes == len,
		      "%s: DMA bytes counted for a job that did not run", cases[i].what);
	}
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "device survived");
}

static void bo_count_limits_are_exact(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	static struct bo_desc many[4096];
	uint32_t i, len;
	struct cqe c;

	/* 4096 BOs, all on one list: the largest table the spec allows. */
	for (i = 0; i < 4096; i++) {
		many[i] = good_bos[4];
		many[i].sg_addr = SG_ADDR(0);
	}
	write_bo_table(r, many, 4096);
	scribble(r, 30);
	len = fill_cmd(s, 4095, 10, 100, 0x42);
	snapshot(r);
	model_fill(&good_bos[4], 10, 100, 0x42);
	CHECK(run_job(r, len, TABLE_ADDR, 4096, 0x1500, &c) &&
	      c.status == ENPU_JOB_STATUS_OK, "4096 BOs: status %u info %#x",
	      c.status, c.info);
	check_ram_matches_model(r, "4096 BOs");

	/* no BOs: a NOP job is fine, a reference faults at its command */
	len = nop_cmd(s, 10);
	CHECK(run_job(r, len, 0, 0, 0x1501, &c) && c.status == ENPU_JOB_STATUS_OK &&
	      c.cycles == 10, "no BOs, NOP: status %u", c.status);
	len += fill_cmd(s + len, 0, 0, 1, 1);
	snapshot(r);
	CHECK(run_job(r, len, 0, 0, 0x1502, &c) &&
	      c.status == ENPU_JOB_STATUS_DMA_FAULT && c.info == 16 &&
	      rig_job_rule(r, 0x1502) == ENPU_RULE_REF_BO_INDEX,
	      "no BOs, fill: status %u info %#x", c.status, c.info);
	check_ram_matches_model(r, "fill without BOs");
}

/* Builds the stream "good fill; bad command" and checks the job fails at
 * the bad command (offset 40) with nothing written. */
static void expect_rejected(struct rig *r, const char *what, uint32_t bad_len,
			    uint32_t want_status, uint32_t want_rule,
			    uint64_t tag)
{
	struct cqe c;

	CHECK(run_job(r, FIRST_FILL_LEN + bad_len, TABLE_ADDR, NO_BOS, tag, &c),
	      "%s: no completion", what);
	CHECK(c.status == want_status && c.info == FIRST_FILL_LEN && c.cycles == 0,
	      "%s: status %u info %#x cycles %llu, want status %u info %u", what,
	      c.status, c.info, (unsigned long long)c.cycles, want_status,
	      FIRST_FILL_LEN);
	CHECK(rig_job_rule(r, tag) == want_rule, "%s: rule %u, want %u", what,
	      rig_job_rule(r, tag), want_rule);
	check_ram_matches_model(r, what);
}

static uint8_t *start_stream(struct rig *r, unsigned int seed)
{
	uint8_t *s = r->ram + DMA_STREAM;

	setup(r, seed);
	memset(s, 0, 256);
	fill_cmd(s, 4, 0, 4096, 0x99);
	return s + FIRST_FILL_LEN;
}

static void malformed_dma_commands_are_invalid_at_their_offset(struct rig *r)
{
	const uint32_t inv = ENPU_JOB_STATUS_INVALID;
	uint8_t *b;
	uint32_t n;

#define CASE(what, rule, build) do {					\
		b = start_stream(r, 40);				\
		n = build;						\
		snapshot(r);						\
		expect_rejected(r, what, n, inv, ENPU_RULE_##rule,	\
				0x1600 + __LINE__);			\
	} while (0)

	CASE("copy of 56 bytes", COMMAND_SIZE,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b + 4, 56), 56));
	CASE("copy of 40 bytes", COMMAND_SIZE,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b + 4, 40), 40));
	CASE("fill of 48 bytes", COMMAND_SIZE,
	     (fill_cmd(b, 1, 0, 8, 1), put32(b + 4, 48), 48));
	CASE("fill of 32 bytes", COMMAND_SIZE,
	     (fill_cmd(b, 1, 0, 8, 1), put32(b + 4, 32), 32));
	CASE("copy header flags", HEADER_FLAGS,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b, 1 | 1u << 16), 48));
	CASE("copy header flag bit 15", HEADER_FLAGS,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b, 1 | 1u << 31), 48));
	CASE("copy src.reserved", REF_RESERVED,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b + 12, 1), 48));
	CASE("copy dst.reserved", REF_RESERVED,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b + 28, 1), 48));
	CASE("copy size 0", REF_EMPTY, copy_cmd(b, 0, 0, 1, 0, 0));
	CASE("fill size 0", REF_EMPTY, fill_cmd(b, 1, 0, 0, 1));
	CASE("fill value 0x100", FILL_VALUE, fill_cmd(b, 1, 0, 8, 0x100));
	CASE("fill value bit 31", FILL_VALUE, fill_cmd(b, 1, 0, 8, 0x80000000u));
	CASE("fill dst.reserved", REF_RESERVED,
	     (fill_cmd(b, 1, 0, 8, 1), put32(b + 12, 1), 40));
	CASE("fill reserved", FILL_RESERVED,
	     (fill_cmd(b, 1, 0, 8, 1), put32(b + 36, 1), 40));
	CASE("opcode 12", OPCODE, (copy_cmd(b, 0, 0, 1, 0, 8),
				     put32(b, ENPU_CMD_DEQUANTIZE + 1), 48));
	CASE("opcode 3 (CONV2D) of 48 bytes", COMMAND_SIZE,
	     (copy_cmd(b, 0, 0, 1, 0, 8), put32(b, 3), 48));
	CASE("overlapping copy in one BO", DMA_OVERLAP, copy_cmd(b, 2, 0, 2, 100, 200));
	CASE("copy onto itself", DMA_OVERLAP, copy_cmd(b, 2, 50, 2, 50, 10));
	CASE("overlap by one byte", DMA_OVERLAP, copy_cmd(b, 2, 1000, 2, 1199, 200));
	/* a bad reference in the malformed command does not change the
	 * verdict: shape comes first */
	CASE("size 0 and a bad BO", REF_EMPTY, copy_cmd(b, 9, 0, 1, 0, 0));
	/* a well-sized copy cut short by the end of the stream */
	CASE("copy cut at 40 of 48 bytes", PAST_STREAM_END,
	     (copy_cmd(b, 0, 0, 1, 0, 8), 40));
#undef CASE
}

static void dma_reference_violations_fault_at_their_offset(struct rig *r)
{
	const uint32_t dma = ENPU_JOB_STATUS_DMA_FAULT;
	uint8_t *b;
	uint32_t n;

#define CASE(what, rule, build) do {					\
		b = start_stream(r, 50);				\
		n = build;						\
		snapshot(r);						\
		expect_rejected(r, what, n, dma, ENPU_RULE_##rule,	\
				0x1700 + __LINE__);			\
	} while (0)

	CASE("src bo_index == BO_COUNT", REF_BO_INDEX, copy_cmd(b, NO_BOS, 0, 1, 0, 8));
	CASE("dst bo_index 0xffffffff", REF_BO_INDEX,
	     copy_cmd(b, 0, 0, 0xffffffffu, 0, 8));
	CASE("fill bo_index == BO_COUNT", REF_BO_INDEX, fill_cmd(b, NO_BOS, 0, 8, 1));
	CASE("src range past SIZE", REF_RANGE, copy_cmd(b, 0, 9000, 1, 0, 193));
	CASE("dst range past SIZE", REF_RANGE, copy_cmd(b, 0, 0, 1, 9901, 100));
	CASE("fill at SIZE", REF_RANGE, fill_cmd(b, 2, 8192, 1, 1));
	CASE("fill far past SIZE", REF_RANGE, fill_cmd(b, 2, 1ull << 40, 1, 1));
	CASE("src offset + size overflows", REF_RANGE,
	     copy_cmd(b, 0, UINT64_MAX - 10, 1, 0, 100));
	CASE("dst offset + size overflows", REF_RANGE,
	     copy_cmd(b, 0, 0, 1, 16, UINT64_MAX - 8));
	CASE("fill offset + size overflows", REF_RANGE, fill_cmd(b, 2, UINT64_MAX, 2, 1));
	CASE("fill of 2^64 - 1 bytes", REF_RANGE, fill_cmd(b, 2, 0, UINT64_MAX, 1));
	CASE("copy from a write-only BO", REF_READ_ACCESS, copy_cmd(b, 4, 0, 1, 0, 8));
	CASE("copy into a read-only BO", REF_WRITE_ACCESS, copy_cmd(b, 0, 0, 3, 0, 8));
	CASE("copy into the READ-only src BO", REF_WRITE_ACCESS,
	     copy_cmd(b, 3, 0, 0, 0, 8));
	CASE("fill into a read-only BO", REF_WRITE_ACCESS, fill_cmd(b, 3, 0, 8, 1));
	/* references are checked before the same-BO overlap rule */
	CASE("overlap with a range past SIZE", REF_RANGE,
	     copy_cmd(b, 2, 8000, 2, 8100, 200));
#undef CASE
}

static void dma_time_is_32_bytes_per_cycle(struct rig *r)
{
	struct bo_desc big = { W, 2u << 20, 1, { { BIG_BASE, 2u << 20 } }, 1, 0, 0 };
	uint8_t *s = r->ram + DMA_STREAM;
	char reply[256];
	uint64_t start;
	uint32_t len;
	struct cqe c;
	long ms;

	write_bo_table(r, &big, 1);
	len = fill_cmd(s, 0, 0, 2u << 20, 0xee);
	snapshot(r);
	model_fill(&big, 0, 2u << 20, 0xee);
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 0, 0, 0, NULL, 1000) == 0, "OPP 0");
	/* 65536 cycles at 200 MHz = 327.68 us of device time, 32.8 ms of
	 * wall time at speed 0.01 */
	CHECK(ctl(r, "speed 0.01", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "ok", 2), "speed: %s", reply);
	drain_vectors(r);
	start = now_ms();
	submit_with_bos(r, 0, DMA_STREAM, len, 0x1800, TABLE_ADDR, 1);
	CHECK(wait_vector(r, ENPU_VEC_JOB_DONE, 5000), "no job-done vector");
	ms = (long)(now_ms() - start);
	CHECK(wait_cqe(r, &c, 100) && c.status == ENPU_JOB_STATUS_OK &&
	      c.cycles == 65536, "status %u cycles %llu", c.status,
	      (unsigned long long)c.cycles);
	CHECK(ms >= 31 && ms < 2000, "2 MiB fill took %ld ms, expected ~33", ms);
	check_ram_matches_model(r, "2 MiB fill");
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 4, 0, 0, NULL, 1000) == 0, "OPP 4");
	drain_vectors(r);
}

static void reset_mid_job_keeps_only_finished_commands(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	uint32_t len = 0;
	uint64_t deadline;

	setup(r, 60);
	len += fill_cmd(s + len, 2, 0, 4096, 0x61);
	len += nop_cmd(s + len, 2000000000u);	/* 2 s at 1 GHz */
	len += fill_cmd(s + len, 2, 4096, 4096, 0x62);
	snapshot(r);
	model_fill(&good_bos[2], 0, 4096, 0x61);
	submit_with_bos(r, 0, DMA_STREAM, len, 0x1900, TABLE_ADDR, NO_BOS);
	deadline = now_ms() + 1000;
	while (r->ram[PAGE(30) + 4095] != 0x61 && now_ms() < deadline)
		sleep_ms(1);
	CHECK(r->ram[PAGE(30) + 4095] == 0x61, "first fill never landed");
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) == 0, "reset");
	sleep_ms(20);
	check_ram_matches_model(r, "after reset mid-job");
	CHECK(rd(r, ENPU_REG_CQ_TAIL) == 0, "the aborted job published a completion");
	driver_reset_rings(r);
	CHECK(recover(r), "reboot after reset");
}

static void list_rewritten_mid_job_faults_at_that_command(struct rig *r)
{
	uint8_t *s = r->ram + DMA_STREAM;
	uint32_t len = 0;
	uint64_t deadline;
	struct cqe c;

	setup(r, 70);
	len += nop_cmd(s + len, 200000000u);	/* 200 ms at 1 GHz */
	len += copy_cmd(s + len, 0, 0, 1, 0, 100);
	submit_with_bos(r, 0, DMA_STREAM, len, 0x1a00, TABLE_ADDR, NO_BOS);
	deadline = now_ms() + 1000;
	while (rd(r, ENPU_REG_SQ_HEAD(0)) != r->sq_tail[0] && now_ms() < deadline)
		sleep_ms(1);
	/* the job was accepted (and, 20 ms later, surely validated); now
	 * point dst's first segment outside RAM */
	sleep_ms(20);
	put64(r->ram + SG_ADDR(1) + ENPU_SG_ADDR, RIG_RAM_SIZE - 10);
	snapshot(r);
	CHECK(wait_cqe(r, &c, 3000) && c.tag == 0x1a00, "no completion");
	CHECK(c.status == ENPU_JOB_STATUS_DMA_FAULT && c.info == 16 && c.cycles == 0,
	      "status %u info %#x cycles %llu", c.status, c.info,
	      (unsigned long long)c.cycles);
	/* the checks passed: the fault came from the DMA itself */
	CHECK(rig_job_rule(r, 0x1a00) == ENPU_RULE_NONE, "rule %u",
	      rig_job_rule(r, 0x1a00));
	check_ram_matches_model(r, "copy through a broken list");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "device survived");
}

#define T(fn) { #fn, fn }
const struct test dma_tests[] = {
	T(dma_copy_moves_bytes_across_scattered_segments),
	T(dma_fill_writes_exactly_its_range),
	T(dma_commands_run_in_stream_order),
	T(bo_table_errors_fault_before_any_command),
	T(bo_count_limits_are_exact),
	T(malformed_dma_commands_are_invalid_at_their_offset),
	T(dma_reference_violations_fault_at_their_offset),
	T(dma_time_is_32_bytes_per_cycle),
	T(reset_mid_job_keeps_only_finished_commands),
	T(list_rewritten_mid_job_faults_at_that_command),
};
#undef T
const size_t dma_test_count = sizeof(dma_tests) / sizeof(dma_tests[0]);
