#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs everything ENPU needs on a Debian 12 machine and fills the cache
# outside the work tree ($ENPU_CACHE, default ~/.cache/enpu):
#
#   kernel.mk                    ENPU_KVER := <abi>-amd64, the pinned pair
#   image-<kver>/                the unpacked linux-image package of that ABI
#                                (vmlinuz for QEMU, /lib/modules for drm.ko,
#                                vgem.ko, 9p, ...)
#   linux-source-6.1/            Debian's linux-source-6.1, unpacked
#                                (kselftest_harness.h, checkpatch.pl, UML)
#
# Debian's archive moves, so the ABI is chosen at install time: the newest
# 6.1.0-N for which both linux-headers-6.1.0-N-amd64 and
# linux-image-6.1.0-N-amd64 exist. Once pinned, the choice is kept while
# its headers stay installed, so a second run does no network work and takes
# seconds. Idempotent; safe to run at any time.
#
# `deps.sh bench` also installs what only the benchmarks need: oneDNN
# (libdnnl-dev) and Node.js with npm for ONNX Runtime's npm package, unless a
# node/npm is already on PATH.
set -euo pipefail

CACHE=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}
mkdir -p "$CACHE"

PACKAGES=(
	build-essential bc flex bison libelf-dev libssl-dev pkg-config
	kmod cpio xz-utils zstd busybox-static qemu-system-x86
	libdrm-dev sparse linux-source-6.1 shellcheck seabios
	libonnx-dev libonnx-testdata protobuf-c-compiler libprotobuf-c-dev
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
)

log() { printf 'deps: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

APT_UPDATED=
apt_update_once() {
	[ -n "$APT_UPDATED" ] && return 0
	log "apt-get update"
	as_root apt-get update -qq
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
		--no-install-recommends $missing >/dev/null
}

# Newest N with both headers and image in the archive.
pick_abi() {
	apt_update_once
	local headers images
	headers=$(apt-cache pkgnames linux-headers-6.1.0- |
		sed -n 's/^linux-headers-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' | sort -u)
	images=$(apt-cache pkgnames linux-image-6.1.0- |
		sed -n 's/^linux-image-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' | sort -u)
	comm -12 <(echo "$headers") <(echo "$images") | sort -V | tail -n 1
}

install_packages "${PACKAGES[@]}"

if [ "${1:-}" = bench ]; then
	install_packages libdnnl-dev
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		install_packages nodejs npm
	fi
fi

KVER=
if [ -f "$CACHE/kernel.mk" ]; then
	KVER=$(sed -n 's/^ENPU_KVER := //p' "$CACHE/kernel.mk")
fi
if [ -z "$KVER" ] || [ ! -d "/usr/src/linux-headers-$KVER" ]; then
	abi=$(pick_abi)
	[ -n "$abi" ] || { log "no linux-headers/linux-image 6.1 pair in the archive"; exit 1; }
	KVER=$abi-amd64
	log "pinning kernel $KVER"
fi
install_packages "linux-headers-$KVER"

IMAGE="$CACHE/image-$KVER"
if [ ! -f "$IMAGE/boot/vmlinuz-$KVER" ]; then
	apt_update_once
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	log "downloading linux-image-$KVER"
	(cd "$tmp" && apt-get download -qq "linux-image-$KVER" >/dev/null)
	rm -rf "$IMAGE.tmp"
	dpkg-deb -x "$tmp"/linux-image-"$KVER"_*.deb "$IMAGE.tmp"
	rm -rf "$IMAGE"
	mv "$IMAGE.tmp" "$IMAGE"
fi

# The unpacked source is keyed on the package version, so an upgrade of
# linux-source-6.1 unpacks it again.
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1)
if [ "$(cat "$CACHE/linux-source-6.1.version" 2>/dev/null)" != "$SRCVER" ]; then
	log "unpacking linux-source-6.1 $SRCVER"
	rm -rf "$CACHE/linux-source-6.1"
	tar -C "$CACHE" -xf /usr/src/linux-source-6.1.tar.xz
	echo "$SRCVER" >"$CACHE/linux-source-6.1.version"
fi

# Written last, so an interrupted run is redone by the next make.
echo "ENPU_KVER := $KVER" >"$CACHE/kernel.mk.tmp"
mv "$CACHE/kernel.mk.tmp" "$CACHE/kernel.mk"
touch "$CACHE/kernel.mk"
