#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (`make demo`): shows what the driver sees (the
# ivshmem device and enpu-info), then runs enpu-demo: a trained int8 CNN
# classifying held-out handwritten digits through the runtime, on the NPU
# through the driver with the rest on the CPU, checked bit for bit
# against the CPU and for accuracy against the float model. Arguments go
# to enpu-demo. The exit status is enpu-demo's, or 1 when a step before
# it failed.
set -u

echo "== ivshmem devices (1af4:1110) =="
found=0
for dev in /sys/bus/pci/devices/*; do
	if [ "$(cat "$dev/vendor")" != 0x1af4 ] ||
		[ "$(cat "$dev/device")" != 0x1110 ]; then
		continue
	fi
	found=1
	driver=none
	if [ -L "$dev/driver" ]; then
		driver=$(basename "$(readlink "$dev/driver")")
	fi
	echo "${dev##*/} driver=$driver"
done
[ "$found" = 1 ] || { echo "demo: no ivshmem device in the guest" >&2; exit 1; }

for tool in enpu-info enpu-demo; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "demo: $tool is not built (build/bin/$tool; run make)" >&2; exit 1; }
done

echo "== enpu-info =="
enpu-info || { echo "demo: enpu-info failed (status $?)" >&2; exit 1; }

echo "== enpu-demo =="
enpu-demo "$@"
status=$?
[ "$status" = 0 ] || echo "demo: enpu-demo failed (status $status)" >&2
exit "$status"
