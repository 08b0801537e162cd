# SPDX-License-Identifier: GPL-2.0
#
# The VM rig (tools/vm/run): nothing to build, the initramfs is made and
# cached on demand by the rig itself. Its own tests are in tests/rig/.

VM_HOST_SCRIPTS := tools/vm/run tools/vm/initramfs.sh tools/vm/kernel-image.sh \
	tools/vm/kernel.sh tools/vm/build-module.sh tools/vm/debug-kernel.sh \
	tools/vm/debug-reports.sh tests/rig/debug-reports-test.sh \
	tests/install/install-test.sh tests/install/man-test.sh \
	tests/rig/deps-pick-test.sh tests/rig/debug-patch-test.sh
VM_GUEST_SCRIPTS := tools/vm/guest-init tools/vm/demo.sh \
	tests/install/vm-install-test.sh

.PHONY: vm-check-scripts vm-shell

# The guest scripts run under busybox ash and dash, hence plain sh.
vm-check-scripts:
	@command -v shellcheck >/dev/null || \
		{ echo "vm-check-scripts: shellcheck missing (run tools/deps.sh)"; exit 1; }
	shellcheck -S warning $(VM_HOST_SCRIPTS)
	shellcheck -S warning -s sh $(VM_GUEST_SCRIPTS)

BUILD_CHECKS += vm-check-scripts

# Interactive shell in the VM with enpu.ko loaded.
vm-shell: all
	tools/vm/run shell
