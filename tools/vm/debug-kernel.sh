#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds (once) and prints the directory of the debug kernel that
# `tools/vm/run --kernel debug` boots and `make check-debug` tests:
#
#   debug-kernel.sh [--print-key | --if-cached]
#
# Debian's linux-source-6.1 (unpacked by tools/deps.sh) configured with the
# tree's x86_64_defconfig + kvm_guest.config + tools/vm/debug.config (KASAN,
# lockdep, kmemleak, slab debugging, fault injection, DRM/vgem/udmabuf),
# with the fixes in tools/vm/debug-patches/*.patch applied (each says why).
# The result lives in $ENPU_CACHE/kernel-debug-<key>/, where the key hashes
# every input: the fragment, the patches, this script's RECIPE number, the
# source package version and the compiler. Layout (the same as an unpacked Debian image, plus a KDIR):
#
#   kver                          kernel release (uname -r)
#   image/boot/vmlinuz-<kver>     the bzImage QEMU boots (not through PVH:
#                                 QEMU's PVH entry into a KASAN kernel
#                                 resets the machine before the console)
#   image/lib/modules/<kver>/     modules (drm, vgem, ...) for the initramfs
#   build/                        KDIR for out-of-tree modules (M=...); object
#                                 files removed, headers/scripts/symvers kept
#   config, build.log, build-seconds
#
# The patches go to a copy of the source made of hard links
# (kernel-debug-<key>.src, next to it; the build/ KDIR points there), each
# patched file a new inode, so the shared linux-source-6.1 that the UML
# kunit build and checkpatch read stays as Debian ships it.
#
# The build runs in kernel-debug-<key>.tmp (resumed if a previous build was
# interrupted) under an flock on kernel-debug-<key>.lock and is renamed into
# place only when complete, so a concurrent reader never sees half a kernel
# and two builders of one key never interleave. --print-key prints the
# directory without building; --if-cached prints it only if it exists
# (exit 1 otherwise). Nice'd, -j$ENPU_KERNEL_JOBS (default 2).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
CACHE=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}
SRC=${ENPU_KSRC:-$CACHE/linux-source-6.1}
FRAGMENT=$HERE/debug.config
PATCHES=("$HERE"/debug-patches/*.patch)
[ -e "${PATCHES[0]}" ] || PATCHES=()
JOBS=${ENPU_KERNEL_JOBS:-2}

log() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ -f "$SRC/Makefile" ] || die "$SRC missing (run tools/deps.sh)"
srcver=$(cat "$CACHE/linux-source-6.1.version" 2>/dev/null) ||
	die "$CACHE/linux-source-6.1.version missing (run tools/deps.sh)"

# Bump when a change to this script changes what it builds (not for
# comments or messages, which would cost everyone a 20-minute rebuild).
RECIPE=3
key=$({
	echo "source $srcver recipe $RECIPE"
	gcc --version | head -n 1
	# The option lines only: comments do not change the kernel.
	grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$FRAGMENT"
	# The hunks only (from the first '--- ' on): a patch's description
	# does not change the kernel either.
	for patch in ${PATCHES[@]+"${PATCHES[@]}"}; do
		echo "patch $(basename "$patch")"
		sed -n '/^--- /,$p' "$patch"
	done
} | sha256sum | cut -c1-16)
OUT=$CACHE/kernel-debug-$key

case ${1:-} in
--print-key) echo "$OUT"; exit 0 ;;
--if-cached) [ -f "$OUT/kver" ] && { echo "$OUT"; exit 0; }; exit 1 ;;
'') ;;
*) die "usage: debug-kernel.sh [--print-key | --if-cached]" ;;
esac

if [ -f "$OUT/kver" ]; then
	echo "$OUT"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$OUT.lock"
if ! flock -n 9; then
	log "another build of $OUT is running; waiting for it"
	flock 9
fi
# The other builder may have finished while we waited.
if [ -f "$OUT/kver" ]; then
	echo "$OUT"
	exit 0
fi

TMP=$OUT.tmp
BUILD=$TMP/build
mkdir -p "$BUILD"
start=$(date +%s)
log "building into $TMP (log: $TMP/build.log); about 20 minutes on 2 idle cores"

# The patched source (made again if a previous build died while making
# it; renamed into place only when every patch applied).
KSRC=$SRC
if [ "${#PATCHES[@]}" -gt 0 ]; then
	KSRC=$OUT.src
	if [ ! -f "$KSRC/Makefile" ]; then
		rm -rf "$KSRC.tmp"
		cp -al "$SRC" "$KSRC.tmp"
		# patch(1) writes each file it changes anew (a new inode), so
		# the links to the shared source break exactly there
		# (tests/rig/debug-patch-test.sh checks it).
		for patch in "${PATCHES[@]}"; do
			patch -s -p1 -d "$KSRC.tmp" --no-backup-if-mismatch <"$patch" >>"$TMP/build.log" 2>&1 ||
				die "$(basename "$patch") does not apply to linux-source $srcver (see $TMP/build.log)"
		done
		mv "$KSRC.tmp" "$KSRC"
	fi
fi

kmake() {
	nice -n 10 make -C "$KSRC" O="$BUILD" -j"$JOBS" "$@" >>"$TMP/build.log" 2>&1 ||
		{ tail -n 40 "$TMP/build.log" >&2; die "make $* failed (see $TMP/build.log)"; }
}

# The configuration is rebuilt from its inputs every time (cheap), so a
# resumed build can only continue the same configuration.
cp "$FRAGMENT" "$TMP/debug.config"
kmake x86_64_defconfig
(cd "$BUILD" && KCONFIG_CONFIG=.config "$KSRC/scripts/kconfig/merge_config.sh" \
	-m -O "$BUILD" .config "$KSRC/kernel/configs/kvm_guest.config" \
	"$TMP/debug.config") >>"$TMP/build.log" 2>&1 ||
	die "merge_config.sh failed (see $TMP/build.log)"
kmake olddefconfig

# Every line of the fragment must have survived olddefconfig.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	'# CONFIG_'*' is not set') want=$line ;;
	*) continue ;;
	esac
	name=${want#\# }
	name=${name%%[= ]*}
	if [[ $want == \#* ]]; then
		grep -q "^$name=[ym]" "$BUILD/.config" || continue
		have=$(grep "^$name=" "$BUILD/.config")
	else
		grep -qxF "$want" "$BUILD/.config" && continue
		have=$(grep -E "^(# )?${name}[= ]" "$BUILD/.config" || echo "$name absent")
	fi
	log "config: wanted '$want', got '$have'"
	missing=1
done <"$FRAGMENT"
[ "$missing" = 0 ] || die "tools/vm/debug.config was not applied as written"

kmake bzImage modules
kver=$(make -s -C "$KSRC" O="$BUILD" kernelrelease 2>/dev/null | tail -n 1)
[ -n "$kver" ] || die "cannot read the kernel release"

rm -rf "$TMP/image"
mkdir -p "$TMP/image/boot"
kmake INSTALL_MOD_PATH="$TMP/image" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod \
	modules_install
rm -f "$TMP/image/lib/modules/$kver/build" "$TMP/image/lib/modules/$kver/source"
cp "$BUILD/arch/x86/boot/bzImage" "$TMP/image/boot/vmlinuz-$kver"
cp "$BUILD/.config" "$TMP/config"
cp "$BUILD/.config" "$TMP/image/boot/config-$kver"

# Out-of-tree modules need the configuration, generated headers, host
# tools (modpost, objtool) and Module.symvers, not the kernel's objects.
find "$BUILD" \( -name '*.o' -o -name '*.ko' -o -name '*.a' -o -name '*.mod.c' \) \
	-not -path "$BUILD/scripts/*" -not -path "$BUILD/tools/*" -delete
rm -f "$BUILD/vmlinux" "$BUILD/vmlinux.o" "$BUILD/arch/x86/boot/compressed/vmlinux"
echo $(($(date +%s) - start)) >"$TMP/build-seconds"
echo "$kver" >"$TMP/kver"

rm -rf "$OUT"
mv "$TMP" "$OUT"
log "built $kver in $(cat "$OUT/build-seconds") s: $OUT"
echo "$OUT"
