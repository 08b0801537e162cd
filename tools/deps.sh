#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs everything ENPU needs on a Debian 12 machine and fills the cache
# outside the work tree ($ENPU_CACHE, default ~/.cache/enpu):
#
#   kernel.mk                    ENPU_KVER := 6.1.0-N-amd64, the default kernel
#   kernel-pins.mk               the others: ENPU_KVER_6.12 := 6.12.N+deb12-amd64,
#                                ENPU_KVER_6.12-rt := 6.12.N+deb12-rt-amd64
#                                (a file of its own, so that an older checkout
#                                sharing the cache, whose deps.sh rewrites
#                                kernel.mk, cannot drop these pins)
#   image-<kver>/                each one's linux-image package, unpacked
#                                (vmlinuz for QEMU, /lib/modules for drm.ko,
#                                vgem.ko, 9p, ...)
#   headers-<kver>/              6.12 and 6.12-rt headers, unpacked with their
#                                -common and linux-kbuild packages (KDIR is
#                                headers-<kver>/usr/src/linux-headers-<kver>);
#                                the 6.1 headers are installed by apt
#   linux-source-6.1/            Debian's linux-source-6.1, unpacked
#                                (kselftest_harness.h, checkpatch.pl, UML,
#                                the debug kernel)
#   digits.csv.gz                the UCI handwritten digits as scikit-learn
#                                ships them (make demo trains on them),
#                                taken from the python3-sklearn package
#                                without installing it
#
# Debian's archive moves, so each ABI is chosen at install time: the newest
# ABI of the series (6.1.0-N, 6.12.N+deb12) for which both the headers and
# the image package of the flavour (amd64, rt-amd64) exist. Once pinned, a
# choice is kept while its headers and image are there, so a second run
# does no network work and takes about a second. Idempotent; safe to run at
# any time, also by several users at once (a lock serialises the cache).
#
# `deps.sh plot` installs gnuplot (gnuplot-nox) for make bench-thermal.
# `deps.sh bench` also installs what only the benchmarks need: oneDNN
# (libdnnl-dev) and Node.js with npm for ONNX Runtime's npm package, unless a
# node/npm is already on PATH.
#
# `deps.sh --pick-abi ABI_REGEX FLAVOUR` only prints the ABI the rule above
# picks from the package lists apt already has (no update, no install, no
# cache), e.g. `--pick-abi '6\.12\.[0-9]+\+deb12' rt-amd64`; exit 1 when
# there is no pair. tests/rig/deps-pick-test.sh checks the rule with it.
set -euo pipefail

CACHE=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}
mkdir -p "$CACHE"

PACKAGES=(
	build-essential bc flex bison patch libelf-dev libssl-dev pkg-config
	kmod cpio xz-utils zstd busybox-static qemu-system-x86
	libdrm-dev sparse linux-source-6.1 shellcheck seabios
	libonnx-dev libonnx-testdata protobuf-c-compiler libprotobuf-c-dev
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
	pahole dkms groff-base abigail-tools
	tmux trace-cmd python3
)

log() { printf 'deps: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

APT_UPDATED=
apt_update_once() {
	[ -n "$APT_UPDATED" ] && return 0
	log "apt-get update"
	as_root apt-get update -qq -o DPkg::Lock::Timeout=600
	APT_UPDATED=1
}

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

install_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return 0
	apt_update_once
	log "installing:" $missing
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=600 --no-install-recommends $missing >/dev/null
}

# The newest ABI of a series for which both linux-headers-<abi>-<flavour> and
# linux-image-<abi>-<flavour> can be installed (pkgnames also lists names
# that only appear in dependencies, hence the `apt-cache show` check).
#   pick_abi ABI_REGEX FLAVOUR      e.g. pick_abi '6\.1\.0-[0-9]+' amd64
pick_abi() {
	apt_update_once
	local regex=$1 flavour=$2 headers images abi
	headers=$(apt-cache pkgnames linux-headers- |
		sed -En "s/^linux-headers-($regex)-$flavour\$/\1/p" | sort -u)
	images=$(apt-cache pkgnames linux-image- |
		sed -En "s/^linux-image-($regex)-$flavour\$/\1/p" | sort -u)
	for abi in $(comm -12 <(echo "$headers") <(echo "$images") | sort -rV); do
		if apt-cache show --no-all-versions "linux-headers-$abi-$flavour" \
			"linux-image-$abi-$flavour" >/dev/null 2>&1; then
			echo "$abi"
			return 0
		fi
	done
}

# Unpacks the .deb files of packages $3... into directory $1 (atomically:
# built beside it, renamed when complete). $2 names what is fetched, for
# the log.
unpack_packages() {
	local dest=$1 what=$2 tmp deb
	shift 2
	apt_update_once
	tmp=$(mktemp -d "$CACHE/download.XXXXXX")
	log "downloading $what"
	(cd "$tmp" && apt-get download -qq "$@") >"$tmp/download.log" 2>&1 ||
		{ cat "$tmp/download.log" >&2; rm -rf "$tmp"; log "cannot download $*"; exit 1; }
	mkdir "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	rm -rf "$dest.old"
	[ -e "$dest" ] && mv "$dest" "$dest.old"
	mv "$tmp/root" "$dest"
	rm -rf "$tmp" "$dest.old"
}

# The linux-image package of KVER, unpacked to $CACHE/image-KVER (vmlinuz
# for QEMU, /lib/modules for the initramfs).
fetch_image() {
	local kver=$1
	[ -f "$CACHE/image-$kver/boot/vmlinuz-$kver" ] && return 0
	unpack_packages "$CACHE/image-$kver" "linux-image-$kver" "linux-image-$kver"
}

# The headers of KVER unpacked (not installed) to $CACHE/headers-KVER, with
# the -common and linux-kbuild packages they need. From 6.12 on, Debian's
# headers packages depend on the image package, so installing them would
# install (and make bootable) a second kernel on the host. The one absolute
# path in the tree, the top Makefile's include of the -common tree, is
# pointed into the cache.
fetch_headers() {
	local kver=$1 root deps
	root=$CACHE/headers-$kver
	[ -f "$root/.complete" ] && return 0
	apt_update_once
	deps=$(apt-cache show --no-all-versions "linux-headers-$kver" |
		sed -n 's/^Depends: //p' | tr ',' '\n' |
		sed -En 's/^ *(linux-(headers-[^ ]*-common[^ ]*|kbuild-[^ ]*)).*/\1/p')
	# shellcheck disable=SC2086 # one package name per word
	unpack_packages "$root" "linux-headers-$kver" "linux-headers-$kver" $deps
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$kver/Makefile"
	[ -d "$root/usr/src/linux-headers-$kver/scripts/" ] ||
		{ log "headers-$kver: scripts/ missing (linux-kbuild not unpacked)"; exit 1; }
	touch "$root/.complete"
}

if [ "${1:-}" = --pick-abi ]; then
	[ $# -eq 3 ] || { log "usage: deps.sh --pick-abi ABI_REGEX FLAVOUR"; exit 2; }
	APT_UPDATED=1
	abi=$(pick_abi "$2" "$3")
	[ -n "$abi" ] || exit 1
	echo "$abi"
	exit 0
fi

# Reads `NAME := value` from the cache's kernel.mk or kernel-pins.mk.
pinned() {
	# Either file may not exist yet.
	sed -n "s/^$1 := //p" "$CACHE/kernel.mk" "$CACHE/kernel-pins.mk" 2>/dev/null ||
		true
}

# exec'd lock: two `make check` runs on a fresh machine must not unpack
# into the same directories at once.
exec 8>"$CACHE/deps.lock"
flock 8

install_packages "${PACKAGES[@]}"

# `deps.sh plot`: a plotting tool for make bench-thermal's PNG.
if [ "${1:-}" = plot ]; then
	command -v gnuplot >/dev/null || install_packages gnuplot-nox
fi

if [ "${1:-}" = bench ]; then
	install_packages libdnnl-dev
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		install_packages nodejs npm
	fi
fi

# 6.1, the default kernel: headers installed by apt (the module's default
# KDIR is /usr/src/linux-headers-<kver>), image unpacked in the cache.
KVER=$(pinned ENPU_KVER)
if [ -z "$KVER" ] || [ ! -d "/usr/src/linux-headers-$KVER" ]; then
	apt_update_once # here: pick_abi runs in a subshell
	abi=$(pick_abi '6\.1\.0-[0-9]+' amd64)
	[ -n "$abi" ] || { log "no linux-headers/linux-image 6.1 pair in the archive"; exit 1; }
	KVER=$abi-amd64
	log "pinning kernel $KVER"
fi
install_packages "linux-headers-$KVER"
fetch_image "$KVER"

# 6.12 LTS and its PREEMPT_RT flavour (Debian 12's security archive):
# headers and image both unpacked in the cache. Each pin is kept while its
# unpacked headers and image are there.
# Sets PINNED.
pin_cached_pair() {
	local name=$1 flavour=$2 kver abi
	kver=$(pinned "$name")
	if [ -z "$kver" ] || [ ! -f "$CACHE/headers-$kver/.complete" ] ||
		[ ! -f "$CACHE/image-$kver/boot/vmlinuz-$kver" ]; then
		apt_update_once # here: pick_abi runs in a subshell
		abi=$(pick_abi '6\.12\.[0-9]+\+deb12' "$flavour")
		[ -n "$abi" ] ||
			{ log "no linux-headers/linux-image 6.12 $flavour pair in the archive"; exit 1; }
		kver=$abi-$flavour
		log "pinning kernel $kver"
	fi
	fetch_headers "$kver"
	fetch_image "$kver"
	PINNED=$kver
}
pin_cached_pair ENPU_KVER_6.12 amd64
KVER_6_12=$PINNED
pin_cached_pair ENPU_KVER_6.12-rt rt-amd64
KVER_6_12_RT=$PINNED

# The unpacked source is keyed on the package version, so an upgrade of
# linux-source-6.1 unpacks it again.
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1)
if [ "$(cat "$CACHE/linux-source-6.1.version" 2>/dev/null)" != "$SRCVER" ]; then
	log "unpacking linux-source-6.1 $SRCVER"
	tmp=$(mktemp -d "$CACHE/source.XXXXXX")
	tar -C "$tmp" -xf /usr/src/linux-source-6.1.tar.xz
	rm -rf "$CACHE/linux-source-6.1.old"
	[ -e "$CACHE/linux-source-6.1" ] &&
		mv "$CACHE/linux-source-6.1" "$CACHE/linux-source-6.1.old"
	mv "$tmp/linux-source-6.1" "$CACHE/linux-source-6.1"
	rm -rf "$tmp" "$CACHE/linux-source-6.1.old"
	echo "$SRCVER" >"$CACHE/linux-source-6.1.version"
fi

DIGITS="$CACHE/digits.csv.gz"
if [ ! -s "$DIGITS" ]; then
	apt_update_once
	tmp_digits=$(mktemp -d)
	log "downloading python3-sklearn for its digits data set"
	(cd "$tmp_digits" && apt-get download -qq python3-sklearn >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp_digits"/python3-sklearn_*.deb |
		tar -xO --wildcards '*/sklearn/datasets/data/digits.csv.gz' \
		>"$DIGITS.tmp"
	rm -rf "$tmp_digits"
	mv "$DIGITS.tmp" "$DIGITS"
fi

# Written last, so an interrupted run is redone by the next make.
{
	echo "ENPU_KVER_6.12 := $KVER_6_12"
	echo "ENPU_KVER_6.12-rt := $KVER_6_12_RT"
} >"$CACHE/kernel-pins.mk.tmp"
mv "$CACHE/kernel-pins.mk.tmp" "$CACHE/kernel-pins.mk"
echo "ENPU_KVER := $KVER" >"$CACHE/kernel.mk.tmp"
mv "$CACHE/kernel.mk.tmp" "$CACHE/kernel.mk"
touch "$CACHE/kernel-pins.mk" "$CACHE/kernel.mk"
