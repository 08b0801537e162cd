# SPDX-License-Identifier: MIT
#
# tests/bench/thermal: `make bench-thermal` boots the VM with the vnpu in a
# hot ambient and runs a periodic frame workload with a deadline twice,
# runtime thermal hooks off then on, >= 60 s of device time each; writes
# build/bench/thermal/thermal.csv and thermal.png and prints both runs'
# deadline-miss rate and throughput (tests/bench/thermal/README.md).
# Not part of `make check`: about 10 minutes of wall time at the default
# speed (tests/bench/thermal/README.md).

BENCH_THERMAL_DIR := tests/bench/thermal
BENCH_THERMAL_BIN := $(B)/tests/bench/thermal-bench
BENCH_THERMAL_OUT := $(B)/bench/thermal
BENCH_THERMAL_AMBIENT_MC ?= 50000
BENCH_THERMAL_SECONDS ?= 60
# The vnpu at a quarter of real time: the TCG guest's submit and wake-up
# paths are tens of times slower than silicon's, and a quarter-speed
# device puts them back in proportion to its jobs (README).
BENCH_THERMAL_SPEED ?= 0.25
BENCH_THERMAL_CONTROL_SECONDS ?= 20

ALL_TARGETS += $(BENCH_THERMAL_BIN)

$(BENCH_THERMAL_BIN): $(BENCH_THERMAL_DIR)/thermal_bench.c $(THERMAL_CORE_SRCS) \
		$(THERMAL_HEADERS) $(LIBENPU_HEADERS) $(B)/lib/libenpu.so \
		$(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) $(THERMAL_CFLAGS) \
		$(RUNTIME_CPU_CFLAGS) -o $@ $< $(THERMAL_CORE_SRCS) \
		$(LIBENPU_LDFLAGS) $(RUNTIME_CPU_LDFLAGS) \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: bench-thermal
bench-thermal: all
	bash tools/deps.sh plot
	bash $(BENCH_THERMAL_DIR)/run.sh $(CURDIR)/$(BENCH_THERMAL_BIN) \
		$(CURDIR)/$(BENCH_THERMAL_OUT) $(BENCH_THERMAL_AMBIENT_MC) \
		$(BENCH_THERMAL_SECONDS) $(BENCH_THERMAL_SPEED) \
		$(BENCH_THERMAL_CONTROL_SECONDS)
