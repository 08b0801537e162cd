// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs probes of the interrupt paths: a NOP job through the
 * submission ring and the job-done interrupt, and a mailbox PING.
 */
#include <stdio.h>
#include <string.h>

#include "enpu_selftest.h"
#include "kselftest_harness.h"

#define NOP_READS 3

FIXTURE(debugfs)
{
	char dir[300];
};

FIXTURE_SETUP(debugfs)
{
	int status = enpu_debugfs_dir(sizeof(self->dir), self->dir);

	ASSERT_EQ(0, status)
		TH_LOG("no ENPU directory under /sys/kernel/debug/{accel,dri}: %s",
		       strerror(-status));
}

FIXTURE_TEARDOWN(debugfs)
{
}

TEST_F(debugfs, each_nop_job_completes_with_one_interrupt)
{
	long long previous_irqs = -1;

	for (int i = 0; i < NOP_READS; i++) {
		long long status, latency, irqs;
		char text[256];

		ASSERT_EQ(0, enpu_debugfs_read(self->dir, "nop", sizeof(text),
					       text));
		ASSERT_EQ(0, enpu_text_value(text, "status", &status))
			TH_LOG("nop said '%s'", text);
		ASSERT_EQ(0, enpu_text_value(text, "latency_ns", &latency))
			TH_LOG("nop said '%s'", text);
		ASSERT_EQ(0, enpu_text_value(text, "irqs", &irqs))
			TH_LOG("nop said '%s'", text);
		EXPECT_EQ(0, status) TH_LOG("nop said '%s'", text);
		EXPECT_LT(0, latency);
		EXPECT_LT(0, irqs);
		if (previous_irqs >= 0) {
			EXPECT_EQ(previous_irqs + 1, irqs)
				TH_LOG("read %d: '%s'", i, text);
		}
		previous_irqs = irqs;
	}
}

TEST_F(debugfs, mailbox_ping_round_trips)
{
	long long latency;
	char text[256];

	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, enpu_debugfs_read(self->dir, "ping", sizeof(text),
					       text));
		ASSERT_EQ(0, enpu_text_value(text, "latency_ns", &latency))
			TH_LOG("ping said '%s'", text);
		EXPECT_LT(0, latency);
	}
}

TEST_F(debugfs, register_dump_is_readable)
{
	char text[16384];

	ASSERT_EQ(0, enpu_debugfs_read(self->dir, "regs", sizeof(text), text));
	EXPECT_LT((size_t)0, strlen(text));
}

TEST_HARNESS_MAIN
