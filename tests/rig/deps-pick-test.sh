#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel pin rule of tools/deps.sh ("the newest ABI of the series for
# which both the headers and the image package of the flavour exist"),
# through `deps.sh --pick-abi`, against package lists made up here: an
# apt-cache stub on PATH answers `pkgnames` from them and `show` only for
# the packages marked installable (pkgnames also lists names that only
# appear in dependencies). The real archive is what deps.sh meets on a
# fresh machine; these cases are the ones it has to get right there.
#
#   deps-pick-test.sh
# Ends with "deps-pick: N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin" "$WORK/cache"
pass=0 fail=0

cat >"$WORK/bin/apt-cache" <<'STUB'
#!/bin/bash
# pkgnames PREFIX: every listed name with that prefix; show PKG...: 0 only
# if every PKG is installable.
case $1 in
pkgnames) grep "^$2" "$STUB_LISTS/names" || true ;;
show)
	shift
	[ "${1:-}" = --no-all-versions ] && shift
	for p in "$@"; do grep -qx "$p" "$STUB_LISTS/installable" || exit 100; done ;;
*) exit 100 ;;
esac
STUB
chmod +x "$WORK/bin/apt-cache"

# case NAME WANT REGEX FLAVOUR PACKAGE...: PACKAGE is installable unless it
# ends in "!" (a name apt only knows from a dependency).
case_() {
	local name=$1 want=$2 regex=$3 flavour=$4 got status p
	shift 4
	: >"$WORK/names"
	: >"$WORK/installable"
	for p in "$@"; do
		echo "${p%!}" >>"$WORK/names"
		[ "${p%!}" = "$p" ] && echo "$p" >>"$WORK/installable"
	done
	got=$(PATH=$WORK/bin:$PATH STUB_LISTS=$WORK ENPU_CACHE=$WORK/cache \
		bash "$REPO/tools/deps.sh" --pick-abi "$regex" "$flavour" 2>&1)
	status=$?
	[ "$want" = none ] && { [ "$status" = 1 ] && [ -z "$got" ] && got=none; }
	if [ "$got" = "$want" ]; then
		echo "ok   $name: $got"
		pass=$((pass + 1))
	else
		echo "FAIL $name: want $want, got '$got' (exit $status)"
		fail=$((fail + 1))
	fi
}

V61='6\.1\.0-[0-9]+'
V612='6\.12\.[0-9]+\+deb12'

case_ "newest pair, by version not text (10 above 9)" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-9-amd64 linux-image-6.1.0-9-amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64
case_ "an image without its headers is not a pair" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64 \
	linux-image-6.1.0-11-amd64
case_ "headers without their image are not a pair" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64 \
	linux-headers-6.1.0-11-amd64
case_ "a name known only from a dependency is skipped" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64 \
	linux-headers-6.1.0-11-amd64! linux-image-6.1.0-11-amd64
case_ "other flavours (rt, cloud) do not count for amd64" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64 \
	linux-headers-6.1.0-12-rt-amd64 linux-image-6.1.0-12-rt-amd64 \
	linux-headers-6.1.0-12-cloud-amd64 linux-image-6.1.0-12-cloud-amd64
case_ "another series (6.10) does not count for 6.1" 6.1.0-10 "$V61" amd64 \
	linux-headers-6.1.0-10-amd64 linux-image-6.1.0-10-amd64 \
	linux-headers-6.10.0-1-amd64 linux-image-6.10.0-1-amd64
case_ "6.12: newest stable release, 117 above 99" 6.12.117+deb12 "$V612" amd64 \
	linux-headers-6.12.99+deb12-amd64 linux-image-6.12.99+deb12-amd64 \
	linux-headers-6.12.117+deb12-amd64 linux-image-6.12.117+deb12-amd64
case_ "6.12-rt is pinned on its own pairs" 6.12.99+deb12 "$V612" rt-amd64 \
	linux-headers-6.12.99+deb12-rt-amd64 linux-image-6.12.99+deb12-rt-amd64 \
	linux-headers-6.12.117+deb12-amd64 linux-image-6.12.117+deb12-amd64 \
	linux-image-6.12.117+deb12-rt-amd64
case_ "no pair at all: nothing is pinned (exit 1)" none "$V612" rt-amd64 \
	linux-headers-6.12.117+deb12-amd64 linux-image-6.12.117+deb12-rt-amd64

echo "deps-pick: $pass passed, $fail failed"
[ "$fail" = 0 ]
