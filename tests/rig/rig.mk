# SPDX-License-Identifier: GPL-2.0
#
# Tests of the VM rig itself (tools/vm/run). They boot with --no-modprobe,
# so they need the vnpu but not a working driver; `all` is a prerequisite so
# that enpu.ko and the firmware are not rebuilt under a running test.

.PHONY: vm-test-rig

vm-test-rig: all
	bash tests/rig/rig-tests.sh

VM_TESTS += vm-test-rig

# The debug kernel's report scan, on synthetic logs (host tier).
.PHONY: test-debug-reports
test-debug-reports:
	bash tests/rig/debug-reports-test.sh
HOST_TESTS += test-debug-reports

# tools/deps.sh's kernel pin rule, on made-up package lists (host tier).
.PHONY: test-deps-pick
test-deps-pick:
	bash tests/rig/deps-pick-test.sh
HOST_TESTS += test-deps-pick

# How debug-kernel.sh applies tools/vm/debug-patches (host tier, no build).
.PHONY: test-debug-patch
test-debug-patch:
	bash tests/rig/debug-patch-test.sh
HOST_TESTS += test-debug-patch
