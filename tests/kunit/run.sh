#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit tier: our sources and their suites linked into a UML kernel
# built from Debian's linux-source-6.1, run with the tree's kunit.py.
#
#   run.sh OUTDIR [--config FRAGMENT]... [--include DIR]... [--filter GLOB]
#          -- SOURCE.c...
#
# SOURCE.c are repository paths (the code under test and the suites, from
# KUNIT_SOURCES, tests/kunit/kunit.mk); FRAGMENTs are Kconfig fragments
# added to tests/kunit/kunitconfig (KUNIT_CONFIGS); DIRs are extra include
# directories besides those of the sources and uapi/ (KUNIT_INCLUDES).
# Prints kunit.py's report, then "kunit: N passed, N failed"; exits non-zero
# on any failed, crashed or missing test.
#
# How our files get in: $ENPU_CACHE/kunit-<key>/src is an overlay of the
# source tree (symlinks to every top-level entry and to every entry of
# drivers/, real copies of drivers/Kconfig and drivers/Makefile with one
# line appended for drivers/enpu/, and a real copy of tools/testing/kunit,
# which finds its tree through its own real path). drivers/enpu/ holds
# tests/kunit/Kconfig, a Makefile generated from SOURCE.c and symlinks to
# this checkout's kernel-side files. The UML build lives in
# $ENPU_CACHE/kunit-<key>/build, keyed on the source version, the compiler,
# the merged kunitconfig, tests/kunit/Kconfig and RECIPE, and is shared by every
# checkout: each run holds kunit-<key>.lock from the overlay to the report,
# points drivers/enpu at its own files and drops that directory's objects,
# so only our few files (and the link) are rebuilt, never another
# checkout's objects reused. The first build of a key takes a few minutes.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
CACHE=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}
KSRC=${ENPU_KSRC:-$CACHE/linux-source-6.1}
JOBS=${ENPU_KERNEL_JOBS:-2}
# Every kernel-side room, mirrored into drivers/enpu/ so that any of their
# headers resolves; only SOURCE.c are compiled.
ROOMS=(uapi kernel firmware-loader scheduler tests/kunit tests/firmware tests/sched)

die() { echo "kunit: $*" >&2; echo "kunit: 0 passed, 1 failed"; exit 1; }

[ $# -ge 1 ] || die "usage: run.sh OUTDIR [--config F]... [--include D]... [--filter G] -- SOURCE.c..."
OUT=$1
shift
FRAGMENTS=()
INCLUDES=()
FILTER=
while [ $# -gt 0 ]; do
	case $1 in
	--config) FRAGMENTS+=("$2"); shift 2 ;;
	--include) INCLUDES+=("$2"); shift 2 ;;
	--filter) FILTER=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown option $1" ;;
	esac
done
SOURCES=("$@")
[ ${#SOURCES[@]} -gt 0 ] || die "no sources"
for f in "${SOURCES[@]}"; do
	[[ $f == *.c ]] && [ -f "$REPO/$f" ] || die "$f is not a C file of the repository"
done

[ -f "$KSRC/tools/testing/kunit/kunit.py" ] || die "$KSRC missing (run tools/deps.sh)"
srcver=$(cat "$CACHE/linux-source-6.1.version" 2>/dev/null) ||
	die "$CACHE/linux-source-6.1.version missing (run tools/deps.sh)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
KUNITCONFIG=$OUT/kunitconfig
cat "$REPO/tests/kunit/kunitconfig" ${FRAGMENTS[@]+"${FRAGMENTS[@]/#/$REPO/}"} \
	>"$KUNITCONFIG"

# Bump when a change here changes what is built (the overlay's layout).
RECIPE=1
key=$({
	echo "source $srcver recipe $RECIPE"
	gcc --version | head -n 1
	sha256sum <"$KUNITCONFIG"
	sha256sum <"$REPO/tests/kunit/Kconfig"
} | sha256sum | cut -c1-16)
BASE=$CACHE/kunit-$key
OVERLAY=$BASE/src
BUILD=$BASE/build
mkdir -p "$CACHE"
exec 9>"$BASE.lock"
if ! flock -n 9; then
	echo "kunit: another run holds $BASE.lock; waiting" >&2
	flock 9
fi

# The overlay, made once per key (under the lock, completed by a rename).
if [ ! -f "$OVERLAY/.complete" ]; then
	rm -rf "$OVERLAY" "$OVERLAY.tmp"
	mkdir -p "$OVERLAY.tmp/drivers" "$OVERLAY.tmp/tools/testing"
	for e in "$KSRC"/* "$KSRC"/.[!.]*; do
		name=${e##*/}
		case $name in drivers | tools) ;; *) ln -s "$e" "$OVERLAY.tmp/$name" ;; esac
	done
	for e in "$KSRC"/drivers/*; do
		name=${e##*/}
		case $name in Kconfig | Makefile) ;; *) ln -s "$e" "$OVERLAY.tmp/drivers/$name" ;; esac
	done
	for e in "$KSRC"/tools/*; do
		[ "${e##*/}" = testing ] || ln -s "$e" "$OVERLAY.tmp/tools/${e##*/}"
	done
	for e in "$KSRC"/tools/testing/*; do
		[ "${e##*/}" = kunit ] || ln -s "$e" "$OVERLAY.tmp/tools/testing/${e##*/}"
	done
	cp -r "$KSRC/tools/testing/kunit" "$OVERLAY.tmp/tools/testing/kunit"
	cp "$KSRC/drivers/Makefile" "$KSRC/drivers/Kconfig" "$OVERLAY.tmp/drivers/"
	echo 'obj-$(CONFIG_ENPU_KUNIT) += enpu/' >>"$OVERLAY.tmp/drivers/Makefile"
	# drivers/Kconfig ends with "endmenu"; ours goes inside the menu.
	sed -i '$ d' "$OVERLAY.tmp/drivers/Kconfig"
	tail -n 1 "$KSRC/drivers/Kconfig" | grep -qx endmenu ||
		die "drivers/Kconfig of $KSRC does not end with endmenu"
	printf 'source "drivers/enpu/Kconfig"\n\nendmenu\n' >>"$OVERLAY.tmp/drivers/Kconfig"
	touch "$OVERLAY.tmp/.complete"
	mv "$OVERLAY.tmp" "$OVERLAY"
fi

# drivers/enpu: this checkout's files.
ENPU=$OVERLAY/drivers/enpu
rm -rf "$ENPU"
mkdir -p "$ENPU"
cp "$REPO/tests/kunit/Kconfig" "$ENPU/Kconfig"
(cd "$REPO" && find "${ROOMS[@]}" -maxdepth 1 -type f -name '*.[ch]' 2>/dev/null) |
	while IFS= read -r f; do
		mkdir -p "$ENPU/$(dirname "$f")"
		ln -s "$REPO/$f" "$ENPU/$f"
	done
dirs=(uapi)
for f in "${SOURCES[@]}"; do dirs+=("$(dirname "$f")"); done
dirs+=(${INCLUDES[@]+"${INCLUDES[@]}"})
{
	echo "# Generated by tests/kunit/run.sh for $REPO; do not edit."
	echo "obj-\$(CONFIG_ENPU_KUNIT) += enpu_kunit.o"
	printf 'enpu_kunit-y +='
	printf ' %s' "${SOURCES[@]/%.c/.o}"
	echo
	# uapi/enpu_accel.h includes "drm.h" as in-tree uapi headers do.
	printf 'ccflags-y += -idirafter $(srctree)/include/uapi/drm'
	for d in $(printf '%s\n' "${dirs[@]}" | sort -u); do
		printf ' -I$(srctree)/drivers/enpu/%s' "$d"
	done
	echo
} >"$ENPU/Makefile"
# Objects from another checkout's sources must never be reused.
rm -rf "$BUILD/drivers/enpu"
mkdir -p "$BUILD"

LOG=$OUT/kunit.log
args=(run --build_dir="$BUILD" --kunitconfig="$KUNITCONFIG" --jobs="$JOBS")
[ -n "$FILTER" ] && args+=("$FILTER")
start=$(date +%s)
status=0
nice -n 10 python3 "$OVERLAY/tools/testing/kunit/kunit.py" "${args[@]}" \
	>"$LOG" 2>&1 || status=$?
elapsed=$(($(date +%s) - start))
# The build's progress is long; the report starts at the test output.
sed -n '/^\[[0-9:]*\] =/,$p' "$LOG"
[ "$status" = 0 ] || [ -s "$LOG" ] || die "kunit.py failed with status $status"

summary=$(sed -n 's/.*Testing complete\. Ran [0-9]* tests: //p' "$LOG" | tail -n 1)
if [ -z "$summary" ]; then
	tail -n 40 "$LOG"
	die "kunit.py ended without a result (status $status; log $LOG)"
fi
# "passed: 40, failed: 2, crashed: 1, skipped: 3, errors: 1"; zeros are left out.
count() {
	local n
	n=$(sed -n "s/.*\\b$1: \\([0-9]*\\).*/\\1/p" <<<"$summary")
	echo "${n:-0}"
}
passed=$(count passed)
failed=$(($(count failed) + $(count crashed) + $(count errors)))
[ "$status" = 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "kunit: ran in ${elapsed} s (build dir $BUILD)"
echo "kunit: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
