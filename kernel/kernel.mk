# SPDX-License-Identifier: GPL-2.0
#
# The kernel module: `make module` builds ./enpu.ko with W=1 through Kbuild
# (./Kbuild), after the compile probes (kernel/conftest/) have produced
# build/kernel/enpu_conftest.h for $(KDIR). `make check-kernel-build` is the
# build tier: W=1 with warnings as errors, sparse, checkpatch --strict.

ENPU_CONFTEST_SRCS := $(sort $(wildcard kernel/conftest/*.c))
ENPU_CONFTEST_H := $(B)/kernel/enpu_conftest.h
ENPU_CONFTEST_KDIR := $(B)/kernel/conftest.kdir
ENPU_KERNEL_LOG := $(B)/kernel/logs

# Every C file and header checkpatch must accept. Headers shared with
# userspace (uapi, the register map, the firmware format) cannot use BIT()
# or u32, which userspace lacks, so only those two checks are waived there.
ENPU_SHARED_HEADERS = $(sort $(wildcard uapi/*.h) kernel/enpu_regs.h \
	firmware-loader/enpu_fw_format.h)
ENPU_CHECKPATCH_FILES = $(filter-out $(ENPU_SHARED_HEADERS),$(sort $(shell \
	find kernel scheduler firmware-loader tests/kselftest/exporter -name '*.[ch]' -not -name '*.mod.c')))
ENPU_CHECKPATCH := $(ENPU_KSRC)/scripts/checkpatch.pl

.PHONY: module check-kernel-build check-kernel-w1 check-kernel-sparse \
	check-kernel-checkpatch enpu-kernel-force

# Re-probe when the kernel tree changes, not on every build.
$(ENPU_CONFTEST_KDIR): enpu-kernel-force | $(B)/kernel/
	@echo '$(KDIR)' | cmp -s - $@ || echo '$(KDIR)' >$@

$(ENPU_CONFTEST_H): $(ENPU_CONFTEST_SRCS) kernel/conftest/run.sh \
		$(ENPU_CONFTEST_KDIR)
	bash kernel/conftest/run.sh $(KDIR) $(B)/kernel/conftest $@ \
		$(ENPU_CONFTEST_SRCS)
	@touch $@

module: $(ENPU_CONFTEST_H)
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# Changing KCFLAGS changes every object's command line, so Kbuild rebuilds
# them all: the check sees every warning, not only those of stale files.
check-kernel-w1: $(ENPU_CONFTEST_H) | $(ENPU_KERNEL_LOG)/
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 KCFLAGS=-Werror modules \
		>$(ENPU_KERNEL_LOG)/w1.log 2>&1 || \
		{ cat $(ENPU_KERNEL_LOG)/w1.log; exit 1; }
	@if grep -i 'warning' $(ENPU_KERNEL_LOG)/w1.log; then \
		echo "check-kernel-w1: warnings above"; exit 1; fi
	@echo "check-kernel-w1: W=1 build clean"

# C=2 runs sparse on every file; only reports in our sources count (the
# kernel's own headers are not ours to fix).
check-kernel-sparse: $(ENPU_CONFTEST_H) | $(ENPU_KERNEL_LOG)/
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules \
		>$(ENPU_KERNEL_LOG)/sparse.log 2>&1 || \
		{ cat $(ENPU_KERNEL_LOG)/sparse.log; exit 1; }
	@if grep -E '^($(CURDIR)/)?(kernel|firmware-loader|uapi|scheduler)/[^:]*:[0-9]+:[0-9]+: (warning|error)' \
		$(ENPU_KERNEL_LOG)/sparse.log; then \
		echo "check-kernel-sparse: sparse reports above"; exit 1; fi
	@echo "check-kernel-sparse: no sparse reports in our files"

check-kernel-checkpatch:
	@test -f $(ENPU_CHECKPATCH) || \
		{ echo "checkpatch.pl not found at $(ENPU_CHECKPATCH)"; exit 1; }
	perl $(ENPU_CHECKPATCH) --strict --no-tree --terse --show-types \
		--no-summary -f $(ENPU_CHECKPATCH_FILES)
	perl $(ENPU_CHECKPATCH) --strict --no-tree --terse --show-types \
		--no-summary --ignore BIT_MACRO,PREFER_KERNEL_TYPES \
		-f $(ENPU_SHARED_HEADERS)
	@echo "check-kernel-checkpatch: $(words $(ENPU_CHECKPATCH_FILES) $(ENPU_SHARED_HEADERS)) files clean"

# Sequential: the W=1 and sparse passes rebuild the same objects.
check-kernel-build:
	$(MAKE) check-kernel-checkpatch
	$(MAKE) check-kernel-w1
	$(MAKE) check-kernel-sparse
	$(MAKE) module

BUILD_CHECKS += check-kernel-build
CLEAN_FILES += enpu.ko
