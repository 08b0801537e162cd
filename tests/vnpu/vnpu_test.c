// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the vnpu, written as the device specification
 * (docs/hw/vnpu.md) seen from a driver. One vnpu runs for the whole
 * sequence; each test leaves the device READY with vectors enabled and
 * the rings empty, unless it says otherwise.
 *
 *   vnpu-test --vnpu build/bin/vnpu --firmware build/firmware/enpu/enpu-fw-v1.bin
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
#include "enpu_fw_format.h"
#include "vnpu.h"
#include "vnpu_check.h"
#include "vnpu_rig.h"

#define FW_ADDR		0x100000u
#define STREAM_ADDR	0x200000u
#define IMAGE_MAX	(64u << 10)
#define ALL_VECTORS	0xfu
#define FW_V120		0x010200u
#define FW_LOG_SIZE	0x10000u

static const char *vnpu_path;
static const char *firmware_path;
int test_failures;

/* --- helpers that build guest memory contents --- */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t nop(uint8_t *p, uint32_t cycles)
{
	struct enpu_cmd_nop cmd = {
		.hdr = { .opcode = ENPU_CMD_NOP, .size = sizeof(cmd) },
		.cycles = cycles,
	};

	memcpy(p, &cmd, sizeof(cmd));
	return sizeof(cmd);
}

/* A firmware image at RAM offset FW_ADDR; returns its size. */
static uint32_t place_image(struct rig *r, uint32_t payload_size,
			    uint32_t api, uint32_t fw_version)
{
	uint8_t *img = r->ram + FW_ADDR;
	unsigned int len = 0;
	uint32_t i;

	memset(img, 0, 80);
	for (i = 0; i < payload_size; i++)
		img[80 + i] = (uint8_t)(i * 7 + 3);
	put32(img + 0, ENPU_FW_MAGIC);
	put32(img + 4, ENPU_FW_FORMAT_VERSION);
	put32(img + 8, 80);
	put32(img + 12, api);
	put32(img + 16, fw_version);
	put32(img + 20, payload_size);
	EVP_Digest(img + 80, payload_size, img + 24, &len, EVP_sha256(), NULL);
	return 80 + payload_size;
}

static uint32_t place_file(struct rig *r, const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(r->ram + FW_ADDR, 1, IMAGE_MAX, f);
	fclose(f);
	return (uint32_t)n;
}

static int boot(struct rig *r, uint64_t addr, uint32_t size, uint32_t *data)
{
	return mbox(r, ENPU_MBOX_BOOT, (uint32_t)addr, (uint32_t)(addr >> 32),
		    size, data, 2000);
}

/* Reset + boot the good image + enable vectors, as the driver would. */
bool recover(struct rig *r)
{
	uint32_t size;

	if (mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) != ENPU_ERR_NONE)
		return false;
	driver_reset_rings(r);
	size = place_image(r, 4096, 1, FW_V120);
	if (boot(r, FW_ADDR, size, NULL) != ENPU_ERR_NONE)
		return false;
	if (mbox(r, ENPU_MBOX_SET_IRQ_MASK, ALL_VECTORS, 0, 0, NULL, 1000))
		return false;
	drain_vectors(r);
	return rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY;
}

static bool read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

/* 64-bit counter: hi, lo, hi again until hi is stable. */
static uint64_t rd64(struct rig *r, uint32_t lo_offset)
{
	uint32_t hi, lo;

	do {
		hi = rd(r, lo_offset + 4);
		lo = rd(r, lo_offset);
	} while (rd(r, lo_offset + 4) != hi);
	return (uint64_t)hi << 32 | lo;
}

static long status_field(const char *reply, const char *key)
{
	const char *p = strstr(reply, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* --- tests --- */

static void handshake_is_what_qemu_expects(struct rig *r)
{
	int i;

	CHECK(r->handshake[0] == 0, "protocol version %lld", (long long)r->handshake[0]);
	CHECK(r->handshake[1] == 1, "client id %lld", (long long)r->handshake[1]);
	CHECK(r->handshake[2] == -1, "shm message %lld", (long long)r->handshake[2]);
	for (i = 0; i < ENPU_NUM_VECTORS; i++) {
		CHECK(r->handshake[3 + i] == ENPU_VNPU_PEER_ID,
		      "peer message %d names %lld", i, (long long)r->handshake[3 + i]);
		CHECK(r->handshake[3 + ENPU_NUM_VECTORS + i] == 1,
		      "own vector %d names %lld", i,
		      (long long)r->handshake[3 + ENPU_NUM_VECTORS + i]);
	}
	CHECK(r->handshake_fd_ok, "fds attached to the wrong messages");
	CHECK(r->shm_size == ENPU_BAR2_SIZE, "BAR2 is %llu bytes",
	      (unsigned long long)r->shm_size);
	CHECK((r->shm_size & (r->shm_size - 1)) == 0, "BAR2 size not a power of two");
}

static void identification_registers_describe_an_enpu(struct rig *r)
{
	uint32_t i, n;

	CHECK(rd(r, ENPU_REG_SIGNATURE) == ENPU_SIGNATURE, "signature %#x",
	      rd(r, ENPU_REG_SIGNATURE));
	CHECK(rd(r, ENPU_REG_HW_VERSION) == 0x10007, "hw version %#x, want 1.7",
	      rd(r, ENPU_REG_HW_VERSION));
	/* 1.3: one heartbeat tick is 1 ms of wall time at speed 1. */
	CHECK(rd(r, ENPU_REG_HEARTBEAT_PERIOD_US) == 1000,
	      "heartbeat period %u us", rd(r, ENPU_REG_HEARTBEAT_PERIOD_US));
	CHECK(rd(r, ENPU_REG_DEVICE_ID) == 1, "device id %u", rd(r, ENPU_REG_DEVICE_ID));
	CHECK(rd(r, ENPU_REG_NUM_QUEUES) == 4, "queues %u", rd(r, ENPU_REG_NUM_QUEUES));
	CHECK(rd(r, ENPU_REG_SQ_ENTRIES) == ENPU_SQ_ENTRIES, "sq entries");
	CHECK(rd(r, ENPU_REG_CQ_ENTRIES) == ENPU_CQ_ENTRIES, "cq entries");
	CHECK(rd(r, ENPU_REG_SRAM_KB) > 0, "sram");
	CHECK(rd(r, ENPU_REG_MACS_PER_CYCLE) > 0, "macs per cycle");
	CHECK(rd(r, ENPU_REG_CAPS) & ENPU_CAP_PREEMPT, "PREEMPT not advertised");
	CHECK(rd(r, ENPU_REG_CAPS) & ENPU_CAP_DMA_COPY, "DMA_COPY not advertised");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status %u",
	      rd(r, ENPU_REG_STATUS));
	n = rd(r, ENPU_REG_OPP_COUNT);
	CHECK(n == 5, "OPP count %u", n);
	for (i = 0; i < n && i < ENPU_MAX_OPPS; i++) {
		CHECK(rd(r, ENPU_REG_OPP_KHZ(i)) == 200000 * (i + 1),
		      "OPP %u is %u kHz", i, rd(r, ENPU_REG_OPP_KHZ(i)));
		if (i)
			CHECK(rd(r, ENPU_REG_OPP_MW(i)) > rd(r, ENPU_REG_OPP_MW(i - 1)),
			      "OPP power not rising at %u", i);
	}
	CHECK(rd(r, ENPU_REG_TEMP_MC) >= 30000 && rd(r, ENPU_REG_TEMP_MC) < 50000,
	      "idle temperature %u mC", rd(r, ENPU_REG_TEMP_MC));
	CHECK(rd(r, ENPU_REG_TEMP_CRIT_MC) == 105000, "critical %u",
	      rd(r, ENPU_REG_TEMP_CRIT_MC));
}

static void facts_file_matches_registers(struct rig *r)
{
	char facts[1024], want[128];

	CHECK(read_file(r->facts_path, facts, sizeof(facts)), "no facts file");
	snprintf(want, sizeof(want), "device_id=%u\n", rd(r, ENPU_REG_DEVICE_ID));
	CHECK(strstr(facts, want), "missing %s", want);
	CHECK(strstr(facts, "hw_version=65543\n"), "hw_version 1.7");
	CHECK(strstr(facts, "num_queues=4\n"), "num_queues");
	CHECK(strstr(facts, "clock_min_khz=200000\n"), "clock_min_khz");
	CHECK(strstr(facts, "clock_max_khz=1000000\n"), "clock_max_khz");
	snprintf(want, sizeof(want), "caps=%u\n", rd(r, ENPU_REG_CAPS));
	CHECK(strstr(facts, want), "missing %s", want);
	snprintf(want, sizeof(want), "sram_size=%u\n", rd(r, ENPU_REG_SRAM_KB) * 1024);
	CHECK(strstr(facts, want), "missing %s", want);
	snprintf(want, sizeof(want), "macs_per_cycle=%u\n",
		 rd(r, ENPU_REG_MACS_PER_CYCLE));
	CHECK(strstr(facts, want), "missing %s", want);
	CHECK(!strstr(facts, "fw_version"), "fw_version before any boot");
}

static void ping_is_answered_with_vectors_masked(struct rig *r)
{
	drain_vectors(r);
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 1000) == ENPU_ERR_NONE, "ping");
	CHECK(!wait_vector(r, ENPU_VEC_MAILBOX, 50), "vector 3 raised while masked");
}

static void mailbox_rejects_bad_commands_and_arguments(struct rig *r)
{
	CHECK(mbox(r, 99, 0, 0, 0, NULL, 1000) == ENPU_ERR_BAD_COMMAND, "cmd 99");
	CHECK(mbox(r, 0, 0, 0, 0, NULL, 1000) == ENPU_ERR_BAD_COMMAND, "cmd 0");
	CHECK(mbox(r, ENPU_MBOX_PREEMPT, 4, 0, 0, NULL, 1000) ==
	      ENPU_ERR_BAD_ARGUMENT, "PREEMPT of queue 4");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 5, 0, 0, NULL, 1000) == ENPU_ERR_BAD_ARGUMENT,
	      "OPP 5");
	CHECK(mbox(r, ENPU_MBOX_SET_IRQ_MASK, 0x10, 0, 0, NULL, 1000) ==
	      ENPU_ERR_BAD_ARGUMENT, "mask bit 4");
}

static void jobs_wait_until_firmware_runs(struct rig *r)
{
	struct cqe c;

	nop(r->ram + STREAM_ADDR, 10);
	submit(r, 0, STREAM_ADDR, 16, 0, 1);
	CHECK(!wait_cqe(r, &c, 50), "a job completed in WAIT_FW");
	CHECK(rd(r, ENPU_REG_SQ_HEAD(0)) == 0, "descriptor consumed in WAIT_FW");
	/* RESET restarts every ring at 0, dropping the queued job. */
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) == ENPU_ERR_NONE, "reset");
	driver_reset_rings(r);
	CHECK(rd(r, ENPU_REG_RESET_COUNT) == 1, "reset count %u",
	      rd(r, ENPU_REG_RESET_COUNT));
}

static void boot_rejects_corrupt_digest(struct rig *r)
{
	uint32_t size = place_image(r, 1000, 1, FW_V120);

	r->ram[FW_ADDR + 80 + 500] ^= 1;
	CHECK(boot(r, FW_ADDR, size, NULL) == ENPU_ERR_FW_DIGEST, "flipped payload bit");
	size = place_image(r, 1000, 1, FW_V120);
	r->ram[FW_ADDR + 24] ^= 0x80;
	CHECK(boot(r, FW_ADDR, size, NULL) == ENPU_ERR_FW_DIGEST, "flipped digest bit");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status %u",
	      rd(r, ENPU_REG_STATUS));
}

static void boot_rejects_bad_header_fields(struct rig *r)
{
	static const struct {
		const char *what;
		uint32_t offset, value;
	} cases[] = {
		{ "magic", 0, 0x57464e46 },
		{ "format_version", 4, 2 },
		{ "header_size", 8, 84 },
		{ "payload_size larger than the image", 20, 1001 },
		{ "payload_size smaller than the image", 20, 999 },
		{ "payload_size over the limit", 20, ENPU_FW_MAX_PAYLOAD + 1 },
		{ "reserved[0]", 56, 1 },
		{ "reserved[5]", 76, 0x80000000u },
	};
	uint32_t size;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size = place_image(r, 1000, 1, FW_V120);
		put32(r->ram + FW_ADDR + cases[i].offset, cases[i].value);
		CHECK(boot(r, FW_ADDR, size, NULL) == ENPU_ERR_FW_FORMAT, "%s",
		      cases[i].what);
	}
	size = place_image(r, 1000, 1, FW_V120);
	CHECK(boot(r, FW_ADDR, 79, NULL) == ENPU_ERR_FW_FORMAT, "size below header");
	CHECK(boot(r, FW_ADDR, size - 1, NULL) == ENPU_ERR_FW_FORMAT, "truncated");
	size = place_image(r, 1000, 2, FW_V120);
	CHECK(boot(r, FW_ADDR, size, NULL) == ENPU_ERR_FW_API, "api 2");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status %u",
	      rd(r, ENPU_REG_STATUS));
}

static void boot_outside_guest_ram_is_a_dma_fault(struct rig *r)
{
	uint32_t size = place_image(r, 1000, 1, FW_V120);

	CHECK(boot(r, RIG_RAM_SIZE, size, NULL) == ENPU_ERR_DMA_FAULT, "at end");
	CHECK(boot(r, RIG_RAM_SIZE - 100, size, NULL) == ENPU_ERR_DMA_FAULT,
	      "straddling the end");
	CHECK(boot(r, 1ull << 40, size, NULL) == ENPU_ERR_DMA_FAULT, "1 TiB");
	CHECK(boot(r, UINT64_MAX - 10, size, NULL) == ENPU_ERR_DMA_FAULT,
	      "wrapping address");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status");
}

static void boot_of_the_built_image_reaches_ready(struct rig *r)
{
	uint32_t size = place_file(r, firmware_path), data = 0;
	static char log[FW_LOG_SIZE + 1];
	char facts[1024];

	CHECK(size > 80, "cannot read %s", firmware_path);
	CHECK(boot(r, FW_ADDR, size, &data) == ENPU_ERR_NONE, "boot");
	CHECK(data == FW_V120, "result data %#x", data);
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_FW_VERSION) == FW_V120, "fw version %#x",
	      rd(r, ENPU_REG_FW_VERSION));
	CHECK(rd(r, ENPU_REG_FW_API_VERSION) == 1, "fw api");
	CHECK(read_file(r->facts_path, facts, sizeof(facts)), "facts");
	CHECK(strstr(facts, "fw_version=66048\n"), "facts fw_version");
	CHECK(strstr(facts, "fw_api_version=1\n"), "facts fw_api_version");
	CHECK(strstr(facts, "device_id=1\n"), "facts lost the static lines");
	memcpy(log, r->shm + ENPU_FW_LOG_OFFSET, FW_LOG_SIZE);
	log[FW_LOG_SIZE] = '\0';
	CHECK(strstr(log, "firmware 1.2.0 (API 1) running"), "firmware log: %s", log);
	CHECK(boot(r, FW_ADDR, size, NULL) == ENPU_ERR_BAD_STATE, "boot while READY");
}

static void heartbeat_advances_with_device_time(struct rig *r)
{
	uint64_t start = now_ms(), elapsed;
	uint32_t a = rd(r, ENPU_REG_HEARTBEAT), moved;

	/* At speed 1 the heartbeat is a millisecond counter: it must move,
	 * and never faster than wall time. No lower rate bound, so a loaded
	 * machine cannot make this flake. */
	while (rd(r, ENPU_REG_HEARTBEAT) - a < 50 && now_ms() - start < 3000)
		sleep_ms(5);
	moved = rd(r, ENPU_REG_HEARTBEAT) - a;
	elapsed = now_ms() - start;
	CHECK(moved >= 50, "heartbeat moved %u in %llu ms", moved,
	      (unsigned long long)elapsed);
	CHECK(moved <= elapsed + 5, "heartbeat moved %u in %llu ms", moved,
	      (unsigned long long)elapsed);
}

static void irq_mask_enables_vectors(struct rig *r)
{
	drain_vectors(r);
	CHECK(mbox(r, ENPU_MBOX_SET_IRQ_MASK, ALL_VECTORS, 0, 0, NULL, 1000) == 0,
	      "set mask");
	CHECK(wait_vector(r, ENPU_VEC_MAILBOX, 1000), "no vector 3 for SET_IRQ_MASK");
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 1000) == 0, "ping");
	CHECK(wait_vector(r, ENPU_VEC_MAILBOX, 1000), "no vector 3 for PING");
}

static void nop_job_completes_with_tag_and_vector(struct rig *r)
{
	uint32_t jobs = rd(r, ENPU_REG_PERF_JOBS_DONE);
	uint8_t *s = r->ram + STREAM_ADDR;
	uint32_t len = 0;
	struct cqe c;

	len += nop(s + len, 1000);
	len += nop(s + len, 0);
	len += nop(s + len, 2345);
	drain_vectors(r);
	submit(r, 1, STREAM_ADDR, len, 0, 0x1122334455667788ull);
	CHECK(wait_vector(r, ENPU_VEC_JOB_DONE, 2000), "no job-done vector");
	CHECK(wait_cqe(r, &c, 100), "no completion entry");
	CHECK(c.tag == 0x1122334455667788ull, "tag %#llx", (unsigned long long)c.tag);
	CHECK(c.queue == 1, "queue %u", c.queue);
	CHECK(c.status == ENPU_JOB_STATUS_OK, "status %u", c.status);
	CHECK(c.cycles == 3345, "cycles %llu", (unsigned long long)c.cycles);
	CHECK(c.info == 0, "info %u", c.info);
	CHECK(rd(r, ENPU_REG_SQ_HEAD(1)) == r->sq_tail[1], "SQ_HEAD %u",
	      rd(r, ENPU_REG_SQ_HEAD(1)));
	CHECK(rd(r, ENPU_REG_PERF_JOBS_DONE) == jobs + 1, "jobs done");
	CHECK(rd(r, ENPU_REG_PERF_CYCLES_LO) >= 3345, "perf cycles");
	CHECK(rd(r, ENPU_REG_PERF_DMA_BYTES_LO) >= len, "perf dma bytes");
}

static void malformed_streams_are_invalid_at_the_bad_offset(struct rig *r)
{
	struct stream_case {
		const char *what;
		uint32_t len, want_status, want_info, want_rule;
	} cases[10];
	uint8_t *s;
	uint32_t len;
	struct cqe c;
	unsigned int i, n = 0;

#define STREAM(i) (r->ram + STREAM_ADDR + 0x1000 * (i))
	/* unknown opcode after one good command */
	s = STREAM(n); len = nop(s, 5); len += nop(s + len, 5);
	put32(s + 16, (ENPU_CMD_DEQUANTIZE + 1) | 0 << 16);
	cases[n++] = (struct stream_case){ "unknown opcode", len, ENPU_JOB_STATUS_INVALID, 16,
					   ENPU_RULE_OPCODE };
	/* size not a multiple of 8 */
	s = STREAM(n); len = nop(s, 5); len += nop(s + len, 5);
	put32(s + 16 + 4, 12);
	cases[n++] = (struct stream_case){ "size 12", len, ENPU_JOB_STATUS_INVALID, 16,
					   ENPU_RULE_HEADER_SIZE };
	/* command runs past the end of the stream */
	s = STREAM(n); len = nop(s, 5); len += nop(s + len, 5);
	put32(s + 16 + 4, 24);
	cases[n++] = (struct stream_case){ "past the end", len, ENPU_JOB_STATUS_INVALID, 16,
					   ENPU_RULE_PAST_STREAM_END };
	/* reserved field set */
	s = STREAM(n); len = nop(s, 5);
	put32(s + 12, 1);
	cases[n++] = (struct stream_case){ "reserved", len, ENPU_JOB_STATUS_INVALID, 0,
					   ENPU_RULE_NOP_RESERVED };
	/* header flags set on the third command */
	s = STREAM(n); len = nop(s, 5); len += nop(s + len, 5); len += nop(s + len, 5);
	put32(s + 32, ENPU_CMD_NOP | 1u << 16);
	cases[n++] = (struct stream_case){ "flags", len, ENPU_JOB_STATUS_INVALID, 32,
					   ENPU_RULE_HEADER_FLAGS };
	/* 4 trailing bytes: a header that does not fit */
	s = STREAM(n); len = nop(s, 5); len += nop(s + len, 5); len += 4;
	cases[n++] = (struct stream_case){ "trailing bytes", len, ENPU_JOB_STATUS_INVALID, 32,
					   ENPU_RULE_PAST_STREAM_END };
	/* size 0 would loop forever if accepted */
	s = STREAM(n); len = nop(s, 5);
	put32(s + 4, 0);
	cases[n++] = (struct stream_case){ "size 0", len, ENPU_JOB_STATUS_INVALID, 0,
					   ENPU_RULE_HEADER_SIZE };
	/* a NOP must be exactly 16 bytes */
	s = STREAM(n); len = nop(s, 5); put32(s + 4, 8); len = 8;
	cases[n++] = (struct stream_case){ "short NOP", len, ENPU_JOB_STATUS_INVALID, 0,
					   ENPU_RULE_COMMAND_SIZE };
	/* an empty stream is a valid job that does nothing */
	cases[n++] = (struct stream_case){ "empty stream", 0, ENPU_JOB_STATUS_OK, 0,
					   RIG_NO_RULE };

	for (i = 0; i < n; i++) {
		submit(r, 2, STREAM_ADDR + 0x1000 * i, cases[i].len, 0, 0x500 + i);
		CHECK(wait_cqe(r, &c, 2000), "%s: no completion", cases[i].what);
		CHECK(c.tag == 0x500 + i, "%s: tag %#llx", cases[i].what,
		      (unsigned long long)c.tag);
		CHECK(c.status == cases[i].want_status, "%s: status %u",
		      cases[i].what, c.status);
		CHECK(c.info == cases[i].want_info, "%s: info %u, want %u",
		      cases[i].what, c.info, cases[i].want_info);
		CHECK(rig_job_rule(r, 0x500 + i) == cases[i].want_rule,
		      "%s: rule %u, want %u", cases[i].what,
		      rig_job_rule(r, 0x500 + i), cases[i].want_rule);
	}
#undef STREAM

	/* descriptor-level failures */
	nop(r->ram + STREAM_ADDR, 5);
	submit(r, 0, STREAM_ADDR, 16, 1, 0x600);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_INVALID &&
	      c.info == ENPU_CQE_INFO_DESCRIPTOR &&
	      rig_job_rule(r, 0x600) == VNPU_RULE_DESC_FLAGS,
	      "job flags: status %u info %#x rule %u", c.status, c.info,
	      rig_job_rule(r, 0x600));
	submit(r, 0, STREAM_ADDR, 16, 1u << 31, 0x604);	/* the highest flag */
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_INVALID &&
	      c.info == ENPU_CQE_INFO_DESCRIPTOR &&
	      rig_job_rule(r, 0x604) == VNPU_RULE_DESC_FLAGS,
	      "job flag bit 31: status %u rule %u", c.status,
	      rig_job_rule(r, 0x604));
	submit(r, 0, STREAM_ADDR, ENPU_CMD_MAX_STREAM, 0, 0x605);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x605 &&
	      rig_job_rule(r, 0x605) != VNPU_RULE_DESC_STREAM_SIZE,
	      "a stream of the largest size is not a descriptor error: "
	      "status %u info %#x", c.status, c.info);
	submit(r, 0, STREAM_ADDR, UINT32_MAX, 0, 0x606);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_INVALID &&
	      c.info == ENPU_CQE_INFO_DESCRIPTOR &&
	      rig_job_rule(r, 0x606) == VNPU_RULE_DESC_STREAM_SIZE,
	      "huge stream: status %u rule %u", c.status, rig_job_rule(r, 0x606));
	submit(r, 0, STREAM_ADDR, ENPU_CMD_MAX_STREAM + 8, 0, 0x601);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_INVALID &&
	      c.info == ENPU_CQE_INFO_DESCRIPTOR &&
	      rig_job_rule(r, 0x601) == VNPU_RULE_DESC_STREAM_SIZE,
	      "oversized stream: status %u", c.status);
	submit(r, 0, RIG_RAM_SIZE - 8, 16, 0, 0x602);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_DMA_FAULT &&
	      rig_job_rule(r, 0x602) == VNPU_RULE_STREAM_RANGE,
	      "stream past guest RAM: status %u", c.status);
	submit(r, 0, 1ull << 50, 16, 0, 0x603);
	CHECK(wait_cqe(r, &c, 2000) && c.status == ENPU_JOB_STATUS_DMA_FAULT &&
	      c.tag == 0x603 && rig_job_rule(r, 0x603) == VNPU_RULE_STREAM_RANGE,
	      "stream far outside guest RAM: status %u", c.status);
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "device survived");
}

/* Submits one NOP job of @cycles and returns the wall ms until its vector. */
static long timed_job(struct rig *r, uint32_t cycles, uint64_t tag)
{
	uint64_t start;
	struct cqe c;
	long ms;

	nop(r->ram + STREAM_ADDR, cycles);
	drain_vectors(r);
	start = now_ms();
	submit(r, 0, STREAM_ADDR, 16, 0, tag);
	if (!wait_vector(r, ENPU_VEC_JOB_DONE, 10000))
		return -1;
	ms = (long)(now_ms() - start);
	if (!wait_cqe(r, &c, 100) || c.tag != tag || c.cycles != cycles)
		return -1;
	return ms;
}

static void job_time_is_cycles_over_clock_over_speed(struct rig *r)
{
	char reply[256];
	long ms;

	drain_vectors(r);
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 0, 0, 0, NULL, 1000) == 0, "OPP 0");
	CHECK(rd(r, ENPU_REG_OPP_CURRENT) == 0, "OPP_CURRENT");
	CHECK(wait_vector(r, ENPU_VEC_EVENT, 1000), "no vector 2 for an OPP change");
	/* 20e6 cycles at 200 MHz = 100 ms at speed 1 */
	ms = timed_job(r, 20000000, 0x700);
	CHECK(ms >= 95 && ms < 2000, "job took %ld ms, expected ~100", ms);
	/* 400e6 cycles at 200 MHz = 2 s of device time, 100 ms at speed 20 */
	CHECK(ctl(r, "speed 20", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "ok", 2), "speed: %s", reply);
	CHECK(rd(r, ENPU_REG_HEARTBEAT_PERIOD_US) == 50,
	      "heartbeat period %u us at speed 20",
	      rd(r, ENPU_REG_HEARTBEAT_PERIOD_US));
	ms = timed_job(r, 400000000, 0x701);
	CHECK(ms >= 95 && ms < 1500, "job took %ld ms, expected ~100", ms);
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed 1");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 4, 0, 0, NULL, 1000) == 0, "OPP 4");
	/* 100e6 cycles at 1 GHz = 100 ms */
	ms = timed_job(r, 100000000, 0x702);
	CHECK(ms >= 95 && ms < 2000, "job took %ld ms, expected ~100", ms);
}

static void queues_are_served_by_priority_then_round_robin(struct rig *r)
{
	uint64_t order[7];
	unsigned int i, n = 0;
	struct cqe c;

	wr(r, ENPU_REG_SQ_PRIORITY(0), 1);
	wr(r, ENPU_REG_SQ_PRIORITY(1), 5);
	wr(r, ENPU_REG_SQ_PRIORITY(2), 3);
	wr(r, ENPU_REG_SQ_PRIORITY(3), 3);
	/* a 200 ms blocker so that everything below is queued together */
	nop(r->ram + STREAM_ADDR, 200000000);
	nop(r->ram + STREAM_ADDR + 16, 1000);
	submit(r, 0, STREAM_ADDR, 16, 0, 0x800);
	for (i = 0; i < 400 && rd(r, ENPU_REG_SQ_HEAD(0)) != r->sq_tail[0]; i++)
		sleep_ms(5);
	CHECK(rd(r, ENPU_REG_SQ_HEAD(0)) == r->sq_tail[0], "blocker not started");
	submit(r, 0, STREAM_ADDR + 16, 16, 0, 0xa0);
	submit(r, 2, STREAM_ADDR + 16, 16, 0, 0xc0);
	submit(r, 3, STREAM_ADDR + 16, 16, 0, 0xd0);
	submit(r, 2, STREAM_ADDR + 16, 16, 0, 0xc1);
	submit(r, 3, STREAM_ADDR + 16, 16, 0, 0xd1);
	submit(r, 1, STREAM_ADDR + 16, 16, 0, 0xb0);
	submit(r, 1, STREAM_ADDR + 16, 16, 0, 0xb1);
	CHECK(wait_cqe(r, &c, 2000) && c.tag == 0x800, "blocker first");
	for (i = 0; i < 7; i++) {
		if (!wait_cqe(r, &c, 2000))
			break;
		order[n++] = c.tag;
	}
	CHECK(n == 7, "only %u completions", n);
	if (n == 7) {
		CHECK(order[0] == 0xb0 && order[1] == 0xb1, "priority 5 first: %#llx %#llx",
		      (unsigned long long)order[0], (unsigned long long)order[1]);
		/* queues 2 and 3 alternate */
		CHECK((order[2] >> 4) != (order[3] >> 4) && (order[3] >> 4) != (order[4] >> 4) &&
		      (order[4] >> 4) != (order[5] >> 4), "no round robin: %#llx %#llx %#llx %#llx",
		      (unsigned long long)order[2], (unsigned long long)order[3],
		      (unsigned long long)order[4], (unsigned long long)order[5]);
		CHECK((order[2] & 0xf) == 0 && (order[5] & 0xf) == 1, "FIFO within a queue");
		CHECK(order[6] == 0xa0, "priority 1 last: %#llx", (unsigned long long)order[6]);
	}
	for (i = 0; i < 4; i++)
		wr(r, ENPU_REG_SQ_PRIORITY(i), 0);
}

static void busy_device_heats_up_and_counts_work(struct rig *r)
{
	uint32_t t0 = rd(r, ENPU_REG_TEMP_MC), t1;
	uint8_t *s = r->ram + STREAM_ADDR;
	uint64_t busy, deadline;
	uint32_t len = 0;
	char reply[256];
	struct cqe c;
	int i;

	/* 4 x 3e9 cycles at 1 GHz = 12 s of device time (6 time constants),
	 * 120 ms of wall time at speed 100. A second copy keeps the device
	 * busy while the temperature is read, so a slow reader cannot see
	 * it cooling already. */
	for (i = 0; i < 4; i++)
		len += nop(s + len, 3000000000u);
	drain_vectors(r);
	CHECK(ctl(r, "speed 100", reply, sizeof(reply)) == 0, "speed");
	submit(r, 0, STREAM_ADDR, len, 0, 0x900);
	submit(r, 0, STREAM_ADDR, len, 0, 0x901);
	/* The hottest reading while the jobs run: a single read after the
	 * first one's completion would depend on how soon the host schedules
	 * the vnpu again (a stall there is idle device time at speed 100, and
	 * one over the first job's end leaves the device idle until the
	 * second starts), so both jobs' 24 s of device time are watched. */
	t1 = 0;
	deadline = now_ms() + 10000;
	while (rd(r, ENPU_REG_CQ_TAIL) - r->cq_head < 2 && now_ms() < deadline) {
		uint32_t t = rd(r, ENPU_REG_TEMP_MC);

		t1 = t > t1 ? t : t1;
		sleep_ms(1);
	}
	CHECK(wait_cqe(r, &c, 5000) && c.status == 0 && c.cycles == 12000000000ull,
	      "long job: status %u cycles %llu", c.status, (unsigned long long)c.cycles);
	CHECK(t1 > 85000 && t1 < 95000, "temperature %u -> %u mC under full load", t0, t1);
	CHECK(wait_vector(r, ENPU_VEC_EVENT, 100), "no vector 2 for the 85 degC trip");
	CHECK(wait_cqe(r, &c, 5000) && c.tag == 0x901, "second long job");
	busy = rd64(r, ENPU_REG_PERF_BUSY_NS_LO);
	CHECK(busy >= 24000000000ull, "busy ns %llu", (unsigned long long)busy);
	CHECK(rd64(r, ENPU_REG_PERF_CYCLES_LO) >= 24000000000ull, "perf cycles");
	/* idle: cools back towards ambient */
	deadline = now_ms() + 3000;
	while (rd(r, ENPU_REG_TEMP_MC) >= 45000 && now_ms() < deadline)
		sleep_ms(5);
	CHECK(rd(r, ENPU_REG_TEMP_MC) < 45000, "did not cool: %u mC",
	      rd(r, ENPU_REG_TEMP_MC));
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed");
	drain_vectors(r);
}

static void control_status_reports_the_device(struct rig *r)
{
	char reply[256];

	CHECK(ctl(r, "status", reply, sizeof(reply)) == 0, "no reply");
	CHECK(!strncmp(reply, "ok state=READY heartbeat=", 25), "reply: %s", reply);
	CHECK(status_field(reply, "jobs=") == (long)rd(r, ENPU_REG_PERF_JOBS_DONE),
	      "jobs in %s", reply);
	CHECK(status_field(reply, "opp=") == 4, "opp in %s", reply);
	CHECK(status_field(reply, "temp_mc=") > 30000, "temp in %s", reply);
	CHECK(ctl(r, "bogus", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error", 5), "unknown command: %s", reply);
	CHECK(ctl(r, "speed -1", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error", 5), "negative speed: %s", reply);
	CHECK(ctl(r, "lose-irq x", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error", 5), "bad count: %s", reply);
}

static void lost_interrupt_still_writes_the_completion(struct rig *r)
{
	char reply[256];
	struct cqe c;

	CHECK(ctl(r, "lose-irq 1", reply, sizeof(reply)) == 0 &&
	      !strcmp(reply, "ok lose-irq=1"), "reply %s", reply);
	nop(r->ram + STREAM_ADDR, 100);
	drain_vectors(r);
	submit(r, 0, STREAM_ADDR, 16, 0, 0xa00);
	CHECK(!wait_vector(r, ENPU_VEC_JOB_DONE, 100), "interrupt was not lost");
	CHECK(wait_cqe(r, &c, 100) && c.tag == 0xa00, "entry missing");
	submit(r, 0, STREAM_ADDR, 16, 0, 0xa01);
	CHECK(wait_vector(r, ENPU_VEC_JOB_DONE, 1000), "next interrupt lost too");
	CHECK(wait_cqe(r, &c, 100) && c.tag == 0xa01, "second entry");
}

static void corrupt_completion_carries_an_unknown_tag(struct rig *r)
{
	char reply[256];
	struct cqe c;

	CHECK(ctl(r, "corrupt-completion", reply, sizeof(reply)) == 0, "ctl");
	nop(r->ram + STREAM_ADDR, 100);
	submit(r, 0, STREAM_ADDR, 16, 0, 0xb00);
	CHECK(wait_cqe(r, &c, 1000) && c.tag != 0xb00, "tag %#llx",
	      (unsigned long long)c.tag);
	submit(r, 0, STREAM_ADDR, 16, 0, 0xb01);
	CHECK(wait_cqe(r, &c, 1000) && c.tag == 0xb01, "only one is corrupted");
}

static void injected_error_raises_vector_and_reset_recovers(struct rig *r)
{
	char reply[256];
	struct cqe c;
	uint32_t resets = rd(r, ENPU_REG_RESET_COUNT);

	drain_vectors(r);
	CHECK(ctl(r, "error-irq", reply, sizeof(reply)) == 0, "ctl");
	CHECK(wait_vector(r, ENPU_VEC_ERROR, 1000), "no vector 1");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_ERROR, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_ERROR_CODE) == ENPU_ERR_INJECTED, "code %u",
	      rd(r, ENPU_REG_ERROR_CODE));
	nop(r->ram + STREAM_ADDR, 100);
	submit(r, 0, STREAM_ADDR, 16, 0, 0xc00);
	CHECK(!wait_cqe(r, &c, 50), "a job ran in ERROR");
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 1000) == 0, "ping in ERROR");
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) == 0, "reset");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "after reset %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_RESET_COUNT) == resets + 1, "reset count");
	CHECK(rd(r, ENPU_REG_SQ_HEAD(0)) == 0 && rd(r, ENPU_REG_CQ_TAIL) == 0,
	      "rings not restarted");
	CHECK(recover(r), "reboot after reset");
	submit(r, 0, STREAM_ADDR, 16, 0, 0xc01);
	CHECK(wait_cqe(r, &c, 1000) && c.tag == 0xc01 && c.status == 0,
	      "job after recovery");
}

static void hang_stops_heartbeat_until_reset(struct rig *r)
{
	uint32_t hb1, hb2, seq;
	char reply[256];
	struct cqe c;

	drain_vectors(r);
	nop(r->ram + STREAM_ADDR, 2000000000);	/* 2 s, will not finish */
	submit(r, 0, STREAM_ADDR, 16, 0, 0xd00);
	sleep_ms(5);
	CHECK(ctl(r, "hang", reply, sizeof(reply)) == 0, "ctl");
	hb1 = rd(r, ENPU_REG_HEARTBEAT);
	sleep_ms(100);
	hb2 = rd(r, ENPU_REG_HEARTBEAT);
	CHECK(hb1 == hb2, "heartbeat moved %u -> %u while hung", hb1, hb2);
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_HUNG, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(!wait_cqe(r, &c, 1), "the job finished while hung");
	CHECK(!wait_vector(r, ENPU_VEC_ERROR, 1), "a hang is silent");
	seq = rd(r, ENPU_REG_CMD_DONE_SEQ);
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 50) == -1, "hung device answered PING");
	CHECK(rd(r, ENPU_REG_CMD_DONE_SEQ) == seq, "done seq moved");
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) == 0, "RESET while hung");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status after reset %u",
	      rd(r, ENPU_REG_STATUS));
	driver_reset_rings(r);
	CHECK(recover(r), "reboot");
	hb1 = rd(r, ENPU_REG_HEARTBEAT);
	for (int i = 0; i < 400 && rd(r, ENPU_REG_HEARTBEAT) == hb1; i++)
		sleep_ms(5);
	CHECK(rd(r, ENPU_REG_HEARTBEAT) > hb1, "heartbeat did not restart");
}

/*
 * A muted mailbox answers nothing, RESET included, while the device clock
 * runs; the last command rung is answered when the mute ends. A stalled
 * device (the host did not run it) answers nothing and its clock stands
 * still. The driver tells the two apart by the clock.
 */
static void muted_mailbox_and_stalled_device(struct rig *r)
{
	uint64_t t0, before, after;
	char reply[256];

	CHECK(ctl(r, "mute-mailbox 0", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error mute-mailbox needs", 24), "reply %s", reply);
	CHECK(ctl(r, "stall 60001", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error stall needs", 17), "reply %s", reply);

	CHECK(ctl(r, "mute-mailbox 1000", reply, sizeof(reply)) == 0 &&
	      !strcmp(reply, "ok mute-mailbox=1000"), "reply %s", reply);
	before = rd64(r, ENPU_REG_PERF_DEVICE_NS_LO);
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 150) == -1,
	      "a muted device answered RESET");
	after = rd64(r, ENPU_REG_PERF_DEVICE_NS_LO);
	CHECK(after - before >= 100000000u,
	      "device clock moved %llu ns in 150 ms of mute",
	      (unsigned long long)(after - before));
	t0 = now_ms();
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 2000) == 0,
	      "no answer after the mute");
	CHECK(now_ms() - t0 >= 500, "answered %llu ms after, inside the mute",
	      (unsigned long long)(now_ms() - t0));

	CHECK(ctl(r, "stall 400", reply, sizeof(reply)) == 0 &&
	      !strcmp(reply, "ok stall=400"), "reply %s", reply);
	sleep_ms(20);
	before = rd64(r, ENPU_REG_PERF_DEVICE_NS_LO);
	t0 = now_ms();
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 150) == -1,
	      "a stalled device answered PING");
	CHECK(rd64(r, ENPU_REG_PERF_DEVICE_NS_LO) == before,
	      "device clock moved while stalled");
	CHECK(mbox(r, ENPU_MBOX_PING, 0, 0, 0, NULL, 2000) == 0,
	      "no answer after the stall");
	CHECK(now_ms() - t0 >= 300, "answered %llu ms after, inside the stall",
	      (unsigned long long)(now_ms() - t0));
	CHECK(rd64(r, ENPU_REG_PERF_DEVICE_NS_LO) > before,
	      "device clock did not catch up");
}

static void thermal_spike_crosses_trips_and_critical_halts(struct rig *r)
{
	uint64_t deadline;
	char reply[256];

	drain_vectors(r);
	CHECK(ctl(r, "thermal-spike 50000", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "ok temp_mc=", 11), "reply %s", reply);
	CHECK(wait_vector(r, ENPU_VEC_EVENT, 1000), "no vector 2 above 85 degC");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "halted below critical");
	CHECK(ctl(r, "thermal-spike 30000", reply, sizeof(reply)) == 0, "ctl");
	CHECK(wait_vector(r, ENPU_VEC_ERROR, 1000), "no vector 1 above critical");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_ERROR, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_ERROR_CODE) == ENPU_ERR_THERMAL, "code %u",
	      rd(r, ENPU_REG_ERROR_CODE));
	CHECK(ctl(r, "speed 100", reply, sizeof(reply)) == 0, "speed");
	deadline = now_ms() + 3000;
	while (rd(r, ENPU_REG_TEMP_MC) > 60000 && now_ms() < deadline)
		sleep_ms(5);
	CHECK(rd(r, ENPU_REG_TEMP_MC) <= 60000, "no cooling: %u", rd(r, ENPU_REG_TEMP_MC));
	CHECK(ctl(r, "speed 1", reply, sizeof(reply)) == 0, "speed");
	CHECK(recover(r), "reboot after cooling");
}

static void ring_overflow_is_an_error(struct rig *r)
{
	drain_vectors(r);
	wr(r, ENPU_REG_SQ_TAIL(3), r->sq_tail[3] + ENPU_SQ_ENTRIES + 1);
	ring(r, ENPU_DB_QUEUE);
	CHECK(wait_vector(r, ENPU_VEC_ERROR, 1000), "no vector 1");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_ERROR, "status");
	CHECK(rd(r, ENPU_REG_ERROR_CODE) == ENPU_ERR_RING &&
	      rd(r, ENPU_REG_ERROR_INFO) == 3, "code %u info %u",
	      rd(r, ENPU_REG_ERROR_CODE), rd(r, ENPU_REG_ERROR_INFO));
	CHECK(recover(r), "recover");
}

static void exits_cleanly_when_the_client_disconnects(struct rig *r)
{
	rig_disconnect(r);
	CHECK(rig_wait_exit(r, 3000) == 0, "vnpu did not exit 0");
	CHECK(access(r->socket_path, F_OK) && access(r->control_path, F_OK),
	      "sockets left behind");
}

static void exits_cleanly_on_sigterm(struct rig *unused)
{
	struct rig r;

	(void)unused;
	if (rig_start(&r, vnpu_path, "1")) {
		CHECK(0, "start");
		rig_destroy(&r);
		return;
	}
	CHECK(rig_connect(&r) == 0, "connect");
	kill(r.pid, SIGTERM);
	CHECK(rig_wait_exit(&r, 3000) == 0, "exit status after SIGTERM");
	CHECK(access(r.socket_path, F_OK) && access(r.control_path, F_OK),
	      "sockets left behind");
	rig_destroy(&r);
}

static const struct test tests[] = {
#define T(fn) { #fn, fn }
	T(handshake_is_what_qemu_expects),
	T(identification_registers_describe_an_enpu),
	T(facts_file_matches_registers),
	T(ping_is_answered_with_vectors_masked),
	T(mailbox_rejects_bad_commands_and_arguments),
	T(jobs_wait_until_firmware_runs),
	T(boot_rejects_corrupt_digest),
	T(boot_rejects_bad_header_fields),
	T(boot_outside_guest_ram_is_a_dma_fault),
	T(boot_of_the_built_image_reaches_ready),
	T(heartbeat_advances_with_device_time),
	T(irq_mask_enables_vectors),
	T(nop_job_completes_with_tag_and_vector),
	T(malformed_streams_are_invalid_at_the_bad_offset),
	T(job_time_is_cycles_over_clock_over_speed),
	T(queues_are_served_by_priority_then_round_robin),
	T(busy_device_heats_up_and_counts_work),
	T(control_status_reports_the_device),
	T(lost_interrupt_still_writes_the_completion),
	T(corrupt_completion_carries_an_unknown_tag),
	T(injected_error_raises_vector_and_reset_recovers),
	T(hang_stops_heartbeat_until_reset),
	T(muted_mailbox_and_stalled_device),
	T(thermal_spike_crosses_trips_and_critical_halts),
	T(ring_overflow_is_an_error),
};

/* After the DMA tests: these end the shared vnpu. */
static const struct test closing_tests[] = {
	T(exits_cleanly_when_the_client_disconnects),
	T(exits_cleanly_on_sigterm),
#undef T
};

void run_tests(struct rig *r, const struct test *list, size_t count,
	       unsigned int *passed, unsigned int *failed)
{
	size_t i;

	for (i = 0; i < count; i++) {
		test_failures = 0;
		list[i].run(r);
		if (test_failures) {
			(*failed)++;
			printf("FAIL %s\n", list[i].name);
		} else {
			(*passed)++;
			printf("ok   %s\n", list[i].name);
		}
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "vnpu", required_argument, NULL, 'v' },
		{ "firmware", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int passed = 0, failed = 0;
	struct rig r;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'v')
			vnpu_path = optarg;
		else if (opt == 'f')
			firmware_path = optarg;
		else
			return 2;
	}
	if (!vnpu_path || !firmware_path) {
		fprintf(stderr, "usage: vnpu-test --vnpu PATH --firmware PATH\n");
		return 2;
	}
	if (rig_start(&r, vnpu_path, "1") || rig_connect(&r)) {
		rig_destroy(&r);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	run_tests(&r, tests, sizeof(tests) / sizeof(tests[0]), &passed, &failed);
	run_tests(&r, dma_tests, dma_test_count, &passed, &failed);
	run_tests(&r, layer_tests, layer_test_count, &passed, &failed);
	run_tests(&r, thermal_tests, thermal_test_count, &passed, &failed);
	run_tests(&r, closing_tests, sizeof(closing_tests) / sizeof(closing_tests[0]),
		  &passed, &failed);
	if (!run_preempt_tests(vnpu_path, &passed, &failed)) {
		printf("FAIL preemption tests: their vnpu did not start\n");
		failed++;
	}
	if (failed)
		setenv("VNPU_TEST_KEEP_LOG", "1", 0);
	rig_destroy(&r);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
