# SPDX-License-Identifier: GPL-2.0
#
# Top-level build. `make` builds everything; `make check` runs the tests CI
# runs; `make demo` boots the VM and runs a model through the driver.
# Each room adds its own rules through an included fragment (*.mk); the
# kernel module is built by Kbuild (see ./Kbuild).

SHELL := /bin/bash
# Plain `make` builds everything: the first rule below would otherwise be
# the kernel-pin file's.
.DEFAULT_GOAL := all

ENPU_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/enpu
export ENPU_CACHE

# tools/deps.sh installs packages and pins the kernel headers/image pair in
# $(ENPU_CACHE)/kernel.mk (ENPU_KVER). Make remakes the file if it is missing,
# which runs the deps script on a fresh machine.
include $(ENPU_CACHE)/kernel.mk
$(ENPU_CACHE)/kernel.mk: tools/deps.sh
	bash tools/deps.sh

KDIR ?= /usr/src/linux-headers-$(ENPU_KVER)
ENPU_KSRC ?= $(ENPU_CACHE)/linux-source-6.1
ENPU_KIMAGE ?= $(ENPU_CACHE)/image-$(ENPU_KVER)
export KDIR ENPU_KVER ENPU_KSRC ENPU_KIMAGE

B := build
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
USER_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Iuapi \
	$(shell pkg-config --cflags libdrm)
LIBDRM_LIBS = $(shell pkg-config --libs libdrm)

# Fragments append to these: files `make` builds, and phony targets that
# make up each test tier.
ALL_TARGETS :=
HOST_TESTS :=
BUILD_CHECKS :=
VM_TESTS :=
CLEAN_FILES :=
# The KUnit tier (tests/kunit/kunit.mk): sources linked into the UML kernel,
# Kconfig fragments and include directories they need.
KUNIT_SOURCES :=
KUNIT_CONFIGS :=
KUNIT_INCLUDES :=
# libFuzzer targets: NAME here, a phony fuzz-NAME in the fragment
# (tests/fuzz/fuzz.mk runs them all with `make fuzz`).
FUZZ_TARGETS :=

.PHONY: all module check check-host check-kunit check-build check-vm demo clean deps \
	install uninstall
all:

# One fragment per room or program; each owns the rules for its directory.
include $(sort $(wildcard userspace/*/*.mk))
include $(sort $(wildcard tools/*/*.mk))
include $(sort $(wildcard firmware-loader/*.mk))
include $(sort $(wildcard kernel/*.mk))
include $(sort $(wildcard tests/*/*.mk))
include $(sort $(wildcard examples/*/*.mk))

all: module $(ALL_TARGETS)

deps:
	bash tools/deps.sh

# check-host: userspace unit tests; check-kunit: KUnit suites in a UML
# kernel; check-build: module W=1, sparse, checkpatch; check-vm: kselftests
# in QEMU against the vnpu.
check-host: $(HOST_TESTS)
check-build: $(BUILD_CHECKS)
check-vm: $(VM_TESTS)
# The tiers run one after another: check-build relinks enpu.ko with extra
# checkers, and the VM tier must not pick up a module mid-relink. Every test
# runner ends with "N passed, N failed"; the last line adds them up.
check:
	@mkdir -p $(B)
	@set -o pipefail; { $(MAKE) --no-print-directory check-host && \
	  $(MAKE) --no-print-directory check-kunit && \
	  $(MAKE) --no-print-directory check-build && \
	  $(MAKE) --no-print-directory check-vm; } 2>&1 | tee $(B)/check.log
	@awk '/^[^ ]*:? *[0-9]+ passed, [0-9]+ failed/ { \
	  for (i = 1; i <= NF; i++) { if ($$(i+1) ~ /^passed/) p += $$i; \
	  if ($$(i+1) ~ /^failed/) f += $$i } } \
	  END { printf "%d passed, %d failed\n", p, f; exit f != 0 }' $(B)/check.log

demo: all
	tools/vm/run -- $(CURDIR)/tools/vm/demo.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(B) $(CLEAN_FILES)

$(B)/%/:
	mkdir -p $@
.PRECIOUS: $(B)/%/
