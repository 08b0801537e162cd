#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (vm-test-install): loads the enpu.ko that `dkms build` made
# from the installed module source, then runs the installed enpu-info with
# nothing of the build tree on its library path.
#
#   vm-install-test.sh DKMS_ENPU_KO STAGING_ROOT
# Ends with "N passed, N failed".
ko=$1 root=$2
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# The rig was told not to load the driver: whatever enpu runs below is
# the one insmod loads here.
if grep -q '^enpu ' /proc/modules; then
	bad "enpu was loaded before the test"
fi
for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
	modprobe "$dep" || bad "modprobe $dep"
done
if insmod "$ko"; then
	ok "the DKMS-built enpu.ko loads"
else
	bad "insmod $ko"
fi

out=$(env -u LD_LIBRARY_PATH LD_DEBUG=libs "$root/usr/bin/enpu-info" 2>"/tmp/ld.log")
status=$?
if [ "$status" = 0 ] && echo "$out" | grep -q '^  node: *\(render\|accel\)$'; then
	ok "installed enpu-info finds and opens the device"
else
	echo "$out"
	bad "installed enpu-info (status $status)"
fi
lib=$(sed -n 's/.*calling init: \(.*libenpu\.so\.0\)$/\1/p' /tmp/ld.log | head -n 1)
case $lib in
"$root"/*) ok "libenpu came from the staging root ($lib)" ;;
*) bad "libenpu came from '$lib', not $root" ;;
esac
rmmod enpu || bad "rmmod enpu"

echo "vm-test-install: $pass passed, $fail failed"
[ "$fail" = 0 ]
