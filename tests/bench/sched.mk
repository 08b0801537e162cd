# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/sched: `make bench-sched` boots the VM (with the fault relay:
# the bench sets the vnpu speed and reads its preemption statistics) and
# runs build/tests/bench/sched-bench, which prints the scheduler's figures
# (tests/bench/sched/README.md). Not part of `make check`. Like every VM
# target it runs on the kernel KERNEL= names (6.1, 6.12, 6.12-rt, debug).

BENCH_SCHED_DIR := tests/bench/sched
BENCH_SCHED_BIN := $(B)/tests/bench/sched-bench
# Slow enough that modeled device time, not the vnpu's host compute or
# TCG's software overhead, sets the pace (the bench prints both).
BENCH_SCHED_SPEED ?= 0.1
BENCH_SCHED_JOBS ?= 10000
BENCH_SCHED_LOW_JOBS ?= 60
BENCH_SCHED_PARTS ?= 123

ALL_TARGETS += $(BENCH_SCHED_BIN)

# The relay client and debugfs readers are the kselftests' helpers
# (defined by tests/kselftest/kselftest.mk, read after this file).
.SECONDEXPANSION:
$(BENCH_SCHED_BIN): $(BENCH_SCHED_DIR)/sched_bench.c $(LIBENPU_HEADERS) \
		$$(KSELFTEST_HELPER_OBJECTS) $(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -I$(KSELFTEST_DIR) -o $@ $< \
		$(KSELFTEST_HELPER_OBJECTS) $(LIBENPU_LDFLAGS) -pthread \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: bench-sched
bench-sched: all
	tools/vm/run --timeout 1800 --fault-relay \
		-- $(CURDIR)/$(BENCH_SCHED_BIN) --speed $(BENCH_SCHED_SPEED) \
		--jobs $(BENCH_SCHED_JOBS) --low-jobs $(BENCH_SCHED_LOW_JOBS) \
		--parts $(BENCH_SCHED_PARTS)
