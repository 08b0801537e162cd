# SPDX-License-Identifier: GPL-2.0
#
# The VM kernels (tools/vm/README.md, "Kernels"): which one the VM targets
# boot, enpu.ko for each, the debug kernel and `make check-debug`.
#
# KERNEL=6.1|6.12|6.12-rt|debug picks the kernel of every VM target in one
# place: it is exported as ENPU_VM_KERNEL, which tools/vm/run reads as its
# default --kernel, and `all` then builds enpu.ko for that kernel too. So
# `make vm-test-kselftest KERNEL=6.12`, `make demo KERNEL=6.12-rt` or a
# benchmark target written as `bench-x: all` + `tools/vm/run -- ...` run on
# the chosen kernel with no further plumbing.

KERNEL ?= 6.1
ENPU_VM_KERNELS := 6.1 6.12 6.12-rt debug
ifeq ($(filter $(KERNEL),$(ENPU_VM_KERNELS) stock),)
$(error KERNEL must be one of $(ENPU_VM_KERNELS), not '$(KERNEL)')
endif
export ENPU_VM_KERNEL := $(KERNEL)

# The 6.12 pins (tools/deps.sh); remade, like kernel.mk, when deps.sh changes.
include $(ENPU_CACHE)/kernel-pins.mk
$(ENPU_CACHE)/kernel-pins.mk: tools/deps.sh
	bash tools/deps.sh

# Kernel trees enpu.ko is built against (tools/deps.sh pins the Debian ones;
# the debug kernel's directory is keyed on its inputs, computed only when
# used).
KDIR_6.1 = $(KDIR)
KDIR_6.12 = $(ENPU_CACHE)/headers-$(ENPU_KVER_6.12)/usr/src/linux-headers-$(ENPU_KVER_6.12)
KDIR_6.12-rt = $(ENPU_CACHE)/headers-$(ENPU_KVER_6.12-rt)/usr/src/linux-headers-$(ENPU_KVER_6.12-rt)
ENPU_DEBUG_KERNEL_DIR = $(shell bash tools/vm/debug-kernel.sh --print-key)
KDIR_debug = $(ENPU_DEBUG_KERNEL_DIR)/build

# enpu.ko for each kernel: the default kernel's is ./enpu.ko (`make
# module`, kernel/kernel.mk); the others are built in a shadow tree under
# build/kmod/<kernel>/ (tools/vm/build-module.sh), W=1 with -Werror, after
# the compile probes have run against that kernel.
.PHONY: module-6.1
module-6.1: module

ENPU_KMOD_PROBES := $(sort $(wildcard kernel/conftest/*.c))

define ENPU_KMOD_RULES
.PHONY: module-$(1) enpu-kmod-kdir-$(1)
$(B)/kmod/$(1)/kdir: enpu-kernel-force
	@mkdir -p $$(@D)
	@echo '$$(KDIR_$(1))' | cmp -s - $$@ || echo '$$(KDIR_$(1))' >$$@

$(B)/kmod/$(1)/build/kernel/enpu_conftest.h: $(ENPU_KMOD_PROBES) \
		kernel/conftest/run.sh $(B)/kmod/$(1)/kdir
	@mkdir -p $$(@D)
	bash kernel/conftest/run.sh $$(KDIR_$(1)) $(B)/kmod/$(1)/conftest $$@ \
		$(ENPU_KMOD_PROBES)
	@touch $$@

module-$(1): $(B)/kmod/$(1)/build/kernel/enpu_conftest.h
	+bash tools/vm/build-module.sh $$(KDIR_$(1)) $(B)/kmod/$(1)
endef
$(foreach k,6.12 6.12-rt debug,$(eval $(call ENPU_KMOD_RULES,$(k))))

# The debug module needs the debug kernel first.
$(B)/kmod/debug/kdir: | debug-kernel

ifneq ($(filter-out 6.1 stock,$(KERNEL)),)
ALL_TARGETS += module-$(KERNEL)
endif

# The debug kernel (tools/vm/debug-kernel.sh): built once per set of inputs
# into $(ENPU_CACHE)/kernel-debug-<key>, ~20 min on 2 idle cores.
.PHONY: debug-kernel check-debug
debug-kernel:
	bash tools/vm/debug-kernel.sh

# The whole VM tier on the debug kernel; tools/vm/run fails any run in
# which the kernel's checkers reported something (tools/vm/debug-reports.sh).
# vm-test-6.12 is left out: it boots 6.12 whatever KERNEL says.
CHECK_DEBUG_TESTS = $(filter-out vm-test-6.12,$(VM_TESTS))
check-debug: debug-kernel
	@mkdir -p $(B)
	@set -o pipefail; $(MAKE) --no-print-directory $(CHECK_DEBUG_TESTS) \
		KERNEL=debug 2>&1 | tee $(B)/check-debug.log
	@awk '/^[^ ]*:? *[0-9]+ passed, [0-9]+ failed/ { \
	  for (i = 1; i <= NF; i++) { if ($$(i+1) ~ /^passed/) p += $$i; \
	  if ($$(i+1) ~ /^failed/) f += $$i } } \
	  END { printf "check-debug: %d passed, %d failed\n", p, f; exit f != 0 }' \
		$(B)/check-debug.log

# The build tier on 6.12: W=1 with -Werror and sparse against Debian's
# 6.12 headers too (6.1 is check-kernel-build's). The VM tier's module-6.12
# then has nothing left to build.
.PHONY: check-kernel-build-6.12
check-kernel-build-6.12: $(B)/kmod/6.12/build/kernel/enpu_conftest.h
	+bash tools/vm/build-module.sh $(KDIR_6.12) $(B)/kmod/6.12 sparse
BUILD_CHECKS += check-kernel-build-6.12

# The VM tier on 6.12 in `make check`: the kselftests (both device
# configurations) and the demo. The rig's own tests run once, on the
# default kernel; they boot 6.12 and 6.12-rt too (boots_kernel_*).
# `make check-vm-6.12` is the whole VM tier on 6.12. Times: top README.
.PHONY: vm-test-6.12 check-vm-6.12
vm-test-6.12: all
	$(MAKE) --no-print-directory vm-test-kselftest vm-test-demo KERNEL=6.12
VM_TESTS += vm-test-6.12

check-vm-6.12:
	$(MAKE) --no-print-directory check-vm KERNEL=6.12
