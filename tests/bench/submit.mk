# tests/bench/submit: `make bench-submit` boots the VM and measures the
# NOP-job round trip (SUBMIT ioctl -> waiter woken on the out-syncobj)
# against the raw device round trip (debugfs ping) of the same boot. Not
# part of `make check`. Sources in tests/bench/submit/ so that bench.mk's
# *.c wildcard does not pick them up.

BENCH_SUBMIT_DIR := tests/bench/submit
BENCH_SUBMIT_BIN := $(B)/tests/bench/submit-bench
BENCH_SUBMIT_JOBS ?= 10000
# Fast enough that device time is nothing next to the software path.
BENCH_SUBMIT_SPEED ?= 1000

ALL_TARGETS += $(BENCH_SUBMIT_BIN)

# The debugfs readers are the kselftests' helpers (defined by
# tests/kselftest/kselftest.mk, read after this file).
.SECONDEXPANSION:
$(BENCH_SUBMIT_BIN): $(BENCH_SUBMIT_DIR)/submit_bench.c $(LIBENPU_HEADERS) \
		$$(KSELFTEST_HELPER_OBJECTS) $(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -I$(KSELFTEST_DIR) -o $@ $< \
		$(KSELFTEST_HELPER_OBJECTS) $(LIBENPU_LDFLAGS) -pthread \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: bench-submit
bench-submit: all
	tools/vm/run --timeout 900 \
		--vnpu-arg --speed --vnpu-arg $(BENCH_SUBMIT_SPEED) \
		-- $(CURDIR)/$(BENCH_SUBMIT_BIN) \
		--jobs $(BENCH_SUBMIT_JOBS) --pings $(BENCH_SUBMIT_JOBS)
