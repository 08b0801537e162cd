#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds (or reuses) the guest initramfs and prints "built PATH" or
# "cached PATH".
#
#   initramfs.sh REPO KVER KIMAGE [ENPU_KO]
#
# ENPU_KO defaults to REPO/enpu.ko (the module for the default kernel).
# The image holds only what cannot come over 9p: busybox for the first
# second of boot, the kernel modules of the pinned image plus enpu.ko, the
# firmware, and /etc files the host's glibc wants. Everything else (kmod,
# libc, our binaries) is read from the host at run time, so rebuilding a
# program never rebuilds the initramfs. The file name is a hash of every
# input, so an unchanged tree reuses the last image and a changed enpu.ko
# or firmware makes a new one.
set -euo pipefail

REPO=$1 KVER=$2 KIMAGE=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODROOT=$KIMAGE/lib/modules/$KVER
CACHEDIR=$REPO/build/vm/initramfs
ENPU_KO=${4:-$REPO/enpu.ko}
FWDIR=$REPO/build/firmware/enpu
BUSYBOX=/usr/bin/busybox
LDCACHE=/etc/ld.so.cache

# The 9p stack is loaded by busybox insmod before /usr exists; drm, its
# shmem helper and vgem are there for modprobe enpu and for tests that
# compare against a known-good DRM driver.
EARLY_MODULES=(virtio_pci 9pnet_virtio 9p)
LATE_MODULES=(drm drm_shmem_helper vgem)
# Only the debug kernel has these: lkdtm and kmemleak-test provoke reports
# on purpose, so tests/rig can check that each checker is heard.
# governor_simpleondemand: enpu's devfreq governor, a module on Debian's
# kernels (built in on the debug kernel), loaded by devfreq on demand.
OPTIONAL_MODULES=(lkdtm kmemleak_test governor_simpleondemand)

die() { printf 'vm: initramfs: %s\n' "$*" >&2; exit 1; }

[ -d "$MODROOT/kernel" ] || die "no modules in $MODROOT (run tools/deps.sh)"
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing (install busybox-static)"
command -v depmod >/dev/null || [ -x /usr/sbin/depmod ] ||
	die "depmod missing (install kmod)"

STAGE=
ENPU_KO_DIR=
trap 'rm -rf "$STAGE" "$ENPU_KO_DIR" "${OUT:-}.tmp.$$"' EXIT

# `make -j2 check` may relink enpu.ko while a VM test starts: hash and
# install one private copy so both see the same bytes, and refuse a copy
# that is not a whole module.
if [ -f "$ENPU_KO" ]; then
	ENPU_KO_DIR=$(mktemp -d /tmp/enpu-initramfs.XXXXXX)
	cp "$ENPU_KO" "$ENPU_KO_DIR/enpu.ko"
	/usr/sbin/modinfo -F vermagic "$ENPU_KO_DIR/enpu.ko" | grep -q "^$KVER " ||
		die "$ENPU_KO is not a module for $KVER (or is being rebuilt)"
	ENPU_KO=$ENPU_KO_DIR/enpu.ko
fi

# Debian's 6.12 modules are xz-compressed; busybox insmod cannot load
# those, so the image holds them decompressed (dest_rel drops the suffix).
declare -A MODPATH=()
while IFS= read -r rel; do
	name=${rel##*/}
	name=${name%.ko*}
	MODPATH[${name//-/_}]=$rel
done < <(cd "$MODROOT" && find kernel -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst')
dest_rel() {
	local rel=${1%.xz}
	echo "${rel%.zst}"
}

# Deps-first order, so the list doubles as an insmod sequence.
declare -A SEEN=()
ORDERED=()
visit() {
	local name=${1//-/_} rel dep deps
	[ -n "${SEEN[$name]:-}" ] && return 0
	SEEN[$name]=1
	if [ "$name" = enpu ]; then
		rel=extra/enpu.ko
		deps=$(/usr/sbin/modinfo -F depends "$ENPU_KO")
	else
		rel=${MODPATH[$name]:-}
		if [ -z "$rel" ]; then
			grep -q "/$name.ko\$" "$MODROOT/modules.builtin" ||
				die "module $name is neither in $MODROOT nor built in"
			return 0
		fi
		deps=$(/usr/sbin/modinfo -F depends "$MODROOT/$rel")
	fi
	local IFS=,
	for dep in $deps; do
		[ -n "$dep" ] && visit "$dep"
	done
	ORDERED+=("$rel")
}

for m in "${EARLY_MODULES[@]}"; do visit "$m"; done
EARLY=("${ORDERED[@]}")
for m in "${LATE_MODULES[@]}"; do visit "$m"; done
for m in "${OPTIONAL_MODULES[@]}"; do
	[ -z "${MODPATH[$m]:-}" ] || visit "$m"
done
[ -n "$ENPU_KO_DIR" ] && visit enpu

FIRMWARE=()
if [ -d "$FWDIR" ]; then
	while IFS= read -r f; do FIRMWARE+=("$f"); done \
		< <(cd "$FWDIR" && find . -type f | sort)
fi

# Contents, not timestamps: a `make module` that produces the same enpu.ko
# keeps the cached image.
hash=$({
	echo "kver $KVER"
	sha256sum "$HERE/initramfs.sh" "$HERE/guest-init" "$BUSYBOX" "$LDCACHE"
	for rel in "${ORDERED[@]}"; do
		if [ "$rel" = extra/enpu.ko ]; then
			echo "$rel $(sha256sum <"$ENPU_KO")"
		else
			echo "$rel $(sha256sum <"$MODROOT/$rel")"
		fi
	done
	for f in "${FIRMWARE[@]}"; do
		echo "fw $f $(sha256sum <"$FWDIR/$f")"
	done
} | sha256sum | cut -c1-16)

OUT=$CACHEDIR/initramfs-$hash.cpio
if [ -f "$OUT" ]; then
	echo "cached $OUT"
	exit 0
fi

mkdir -p "$CACHEDIR"
STAGE=$(mktemp -d "$CACHEDIR/stage.XXXXXX")

(
	cd "$STAGE"
	mkdir -p bin dev etc proc sys tmp run mnt root usr \
		"lib/modules/$KVER/extra" lib/firmware/enpu
	cp "$BUSYBOX" bin/busybox
	for applet in $("$BUSYBOX" --list); do
		[ -e "bin/$applet" ] || ln -s busybox "bin/$applet"
	done
	cp "$HERE/guest-init" init
	chmod 755 init

	for rel in "${ORDERED[@]}"; do
		dest=lib/modules/$KVER/$(dest_rel "$rel")
		mkdir -p "$(dirname "$dest")"
		case $rel in
		extra/enpu.ko) cp "$ENPU_KO" "$dest" ;;
		*.xz) xz -dc "$MODROOT/$rel" >"$dest" ;;
		*.zst) zstd -qdc "$MODROOT/$rel" >"$dest" ;;
		*) cp "$MODROOT/$rel" "$dest" ;;
		esac
	done
	cp "$MODROOT"/modules.builtin "$MODROOT"/modules.builtin.modinfo \
		"$MODROOT"/modules.order "lib/modules/$KVER/"
	/usr/sbin/depmod -b "$STAGE" "$KVER"
	for rel in "${EARLY[@]}"; do dest_rel "$rel"; done >etc/early-modules

	for f in "${FIRMWARE[@]}"; do
		mkdir -p "lib/firmware/enpu/$(dirname "$f")"
		cp "$FWDIR/$f" "lib/firmware/enpu/$f"
	done

	# /lib stays a real directory (modules, firmware); the loader and
	# libraries come from the host's /usr.
	ln -s /usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu
	ln -s usr/lib64 lib64
	cp "$LDCACHE" etc/ld.so.cache
	echo 'root:x:0:0:root:/root:/bin/bash' >etc/passwd
	echo 'root:x:0:' >etc/group
	echo 'enpu-vm' >etc/hostname

	find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 >"$OUT.tmp.$$"
)
mv "$OUT.tmp.$$" "$OUT"

# Keep the newest few images; an old hash is never reused once its inputs
# changed.
ls -1t "$CACHEDIR"/initramfs-*.cpio 2>/dev/null | tail -n +5 |
	while IFS= read -r old; do rm -f "$old"; done
echo "built $OUT"
