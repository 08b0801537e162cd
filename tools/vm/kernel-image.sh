#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prints the kernel file QEMU should boot for a vmlinuz:
#
#   kernel-image.sh VMLINUZ CACHEDIR
#
# Under TCG, SeaBIOS plus the decompressor of a Debian bzImage take
# about as long as the whole kernel boot. The Debian kernel has CONFIG_PVH,
# so QEMU can enter the uncompressed ELF directly; we unpack it once into
# CACHEDIR and fall back to the bzImage if that does not work.
set -euo pipefail

VMLINUZ=$1 CACHEDIR=$2
OUT=$CACHEDIR/$(basename "$VMLINUZ" | sed 's/^vmlinuz/vmlinux/').pvh

if [ -f "$OUT" ] && [ "$OUT" -nt "$VMLINUZ" ]; then
	echo "$OUT"
	exit 0
fi

# The payload is the first compressed stream in the bzImage: xz (Debian's
# 6.1) or zstd (6.12).
unpack_with() {
	local magic=$1 offset
	shift
	offset=$(LC_ALL=C grep -obUaP "$magic" "$VMLINUZ" | head -n 1 | cut -d: -f1)
	[ -n "$offset" ] || return 1
	# The stream is followed by the bzImage trailer, which the
	# decompressor reports as garbage after a complete stream; the ELF
	# check below is what counts.
	tail -c +$((offset + 1)) "$VMLINUZ" | "$@" >"$OUT_TMP" 2>/dev/null || true
	[ "$(head -c 4 "$OUT_TMP" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]
}

unpack() {
	OUT_TMP=$1
	unpack_with '\xfd7zXZ\x00' xz -dcq || unpack_with '\x28\xb5\x2f\xfd' zstd -dcq ||
		return 1
	# XEN_ELFNOTE_PHYS32_ENTRY (18) is the PVH entry point QEMU looks for.
	readelf -n "$1" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'
}

mkdir -p "$CACHEDIR"
tmp=$(mktemp "$OUT.XXXXXX")
chmod 644 "$tmp"
trap 'rm -f "$tmp"' EXIT
if unpack "$tmp"; then
	mv "$tmp" "$OUT"
	echo "$OUT"
else
	echo "vm: cannot unpack a PVH kernel from $VMLINUZ; booting the bzImage (slower)" >&2
	echo "$VMLINUZ"
fi
