#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where everything about one VM kernel lives, as shell assignments:
#
#   kernel.sh NAME       NAME: 6.1 (default; "stock" is an alias), 6.12,
#                        6.12-rt, debug
#
#   ENPU_VM_KERNEL=...   the canonical NAME
#   ENPU_VM_KVER=...     its release (uname -r in the guest)
#   ENPU_VM_KIMAGE=...   unpacked image: boot/, lib/modules/<kver>/
#   ENPU_VM_VMLINUZ=...  the kernel file in that image (a bzImage)
#   ENPU_VM_PVH=0|1      whether the rig may unpack it and enter the ELF
#                        through PVH (tools/vm/kernel-image.sh)
#   ENPU_VM_KDIR=...     the tree enpu.ko is built against
#   ENPU_VM_KO=...       that enpu.ko, relative to the repository: enpu.ko
#                        for 6.1 (`make module`), build/kmod/NAME/enpu.ko
#                        otherwise (`make module-NAME`, tools/vm/kernels.mk)
#
# Pins come from $ENPU_CACHE/kernel.mk and kernel-pins.mk (tools/deps.sh); the debug kernel's
# directory from tools/vm/debug-kernel.sh, which is not built here: the
# script fails with a hint when it is missing. Exit 2 for an unknown NAME.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
CACHE=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}
NAME=${1:-6.1}

pinned() {
	# Either file may not exist yet.
	sed -n "s/^$1 := //p" "$CACHE/kernel.mk" "$CACHE/kernel-pins.mk" 2>/dev/null ||
		true
}

PVH=1
case $NAME in
stock | 6.1)
	NAME=6.1
	KVER=${ENPU_KVER:-$(pinned ENPU_KVER)}
	KIMAGE=${ENPU_KIMAGE:-$CACHE/image-$KVER}
	VMLINUZ=$KIMAGE/boot/vmlinuz-$KVER
	KDIR=/usr/src/linux-headers-$KVER
	KO=enpu.ko
	;;
6.12 | 6.12-rt)
	KVER=$(pinned "ENPU_KVER_$NAME")
	KIMAGE=$CACHE/image-$KVER
	VMLINUZ=$KIMAGE/boot/vmlinuz-$KVER
	KDIR=$CACHE/headers-$KVER/usr/src/linux-headers-$KVER
	KO=build/kmod/$NAME/enpu.ko
	;;
debug)
	DIR=$(bash "$HERE/debug-kernel.sh" --if-cached) || {
		echo "vm: the debug kernel is not built; 'make debug-kernel' builds it" \
			"(about 20 minutes on 2 idle cores, cached in $CACHE)" >&2
		exit 1
	}
	KVER=$(cat "$DIR/kver")
	KIMAGE=$DIR/image
	# Its bzImage: QEMU's PVH entry into this KASAN kernel's ELF resets
	# the machine before the first console line, so it boots the slower
	# way, through SeaBIOS and the decompressor.
	VMLINUZ=$KIMAGE/boot/vmlinuz-$KVER
	PVH=0
	KDIR=$DIR/build
	KO=build/kmod/debug/enpu.ko
	;;
*)
	echo "vm: unknown kernel '$NAME' (6.1, 6.12, 6.12-rt or debug)" >&2
	exit 2
	;;
esac

if [ -z "$KVER" ]; then
	echo "vm: no pin for kernel $NAME in $CACHE/kernel*.mk (run tools/deps.sh)" >&2
	exit 1
fi

printf 'ENPU_VM_KERNEL=%q\nENPU_VM_KVER=%q\nENPU_VM_KIMAGE=%q\n' "$NAME" "$KVER" "$KIMAGE"
printf 'ENPU_VM_VMLINUZ=%q\nENPU_VM_KDIR=%q\nENPU_VM_KO=%q\n' "$VMLINUZ" "$KDIR" "$KO"
printf 'ENPU_VM_PVH=%q\n' "$PVH"
