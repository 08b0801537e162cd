# SPDX-License-Identifier: GPL-2.0
#
# enpu-stress: the seeded random-ioctl program (tests/stress/README.md).
# `make stress` runs a long round in the VM with fault injection;
# `vm-test-stress`, a short round, is part of check-vm.

STRESS_BIN := $(B)/bin/enpu-stress
STRESS_OPS ?= 20000
STRESS_THREADS ?= 4
STRESS_PROCS ?= 2
STRESS_SEED ?= $(shell date +%s)
STRESS_VM_ARGS = --fault-relay $(ENPU_SLAB_POISON_ARG)
# `make stress` runs on the debug kernel (KASAN, lockdep, kmemleak, fault
# injection; tools/vm/README.md) unless KERNEL= names another one;
# vm-test-stress runs on whichever kernel check-vm does.
STRESS_KERNEL := $(if $(filter command line environment,$(origin KERNEL)),$(KERNEL),debug)

ALL_TARGETS += $(STRESS_BIN)

$(STRESS_BIN): tests/stress/enpu_stress.c $(KSELFTEST_HELPER_OBJECTS) \
		$(B)/lib/libenpu.so tests/kselftest/enpu_selftest.h \
		tests/kselftest/enpu_buffers.h tests/kselftest/enpu_jobs.h \
		tests/kselftest/enpu_kreports.h
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -Itests/kselftest -o $@ $< \
		$(KSELFTEST_HELPER_OBJECTS) $(LIBENPU_LDFLAGS) -pthread \
		-Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: stress stress-run vm-test-stress
stress:
	@$(MAKE) --no-print-directory stress-run KERNEL=$(STRESS_KERNEL) \
		STRESS_SEED=$(STRESS_SEED)
stress-run: all
	tools/vm/run $(STRESS_VM_ARGS) --timeout 3600 -- $(CURDIR)/$(STRESS_BIN) \
		--seed $(STRESS_SEED) --ops $(STRESS_OPS) \
		--threads $(STRESS_THREADS) --procs $(STRESS_PROCS) --faults

# A short round: every ioctl, 2 processes x 2 threads, faults on.
VM_TESTS += vm-test-stress
vm-test-stress: all
	@if tools/vm/run $(STRESS_VM_ARGS) --timeout 900 -- \
		$(CURDIR)/$(STRESS_BIN) --seed $(STRESS_SEED) --ops 1500 \
		--threads 2 --procs 2 --faults; then \
		echo "enpu-stress: 1 passed, 0 failed"; \
	else echo "enpu-stress: 0 passed, 1 failed"; exit 1; fi
