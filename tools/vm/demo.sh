#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (`make demo`): shows what the driver sees. For now
# that is the device as reported by enpu-info; later steps add a model.
set -u

echo "== ivshmem devices (1af4:1110) =="
found=0
for dev in /sys/bus/pci/devices/*; do
	[ "$(cat "$dev/vendor")" = 0x1af4 ] && [ "$(cat "$dev/device")" = 0x1110 ] ||
		continue
	found=1
	driver=none
	[ -L "$dev/driver" ] && driver=$(basename "$(readlink "$dev/driver")")
	echo "${dev##*/} driver=$driver"
done
[ "$found" = 1 ] || { echo "demo: no ivshmem device in the guest" >&2; exit 1; }

if command -v enpu-info >/dev/null 2>&1; then
	echo "== enpu-info =="
	exec enpu-info
fi

echo "demo: enpu-info is not built yet (build/bin/enpu-info)" >&2
echo "== DRM nodes =="
ls -l /dev/dri 2>/dev/null || echo "no /dev/dri"
[ -d /sys/bus/pci/drivers/enpu ] || { echo "demo: enpu driver not loaded" >&2; exit 1; }
