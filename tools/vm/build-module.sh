#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds enpu.ko for another kernel than the default one, out of the
# source tree:
#
#   build-module.sh KDIR OUTDIR [sparse]
#
# Kbuild of 6.1 and 6.12 writes an external module's objects next to its
# sources (M=), so building the same sources for two kernels in place would
# have them overwrite each other. OUTDIR gets a shadow tree instead: a
# symlink for every kernel-side source (Kbuild, and the .c/.h/Kbuild/
# Makefile files of kernel/, firmware-loader/, scheduler/, uapi/ and
# tests/kselftest/exporter/, the kselftests' dma-buf exporter), next
# to which Kbuild writes its objects; the compile probes' header must
# already be in OUTDIR/build/kernel/enpu_conftest.h (tools/vm/kernels.mk).
# The module is built with W=1 and -Werror, and any warning (compiler or
# modpost) fails it, like `make check-kernel-w1` for the default kernel.
# With "sparse", sparse (C=2) then checks every file, and any report in
# our sources fails.
set -euo pipefail

KDIR=$1 OUT=$2 MODE=${3:-}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
ROOMS=(kernel firmware-loader scheduler uapi tests/kselftest/exporter)

[ -f "$KDIR/Makefile" ] || { echo "build-module: no kernel tree at $KDIR (run tools/deps.sh)" >&2; exit 1; }
[ -f "$OUT/build/kernel/enpu_conftest.h" ] ||
	{ echo "build-module: $OUT/build/kernel/enpu_conftest.h missing" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)

# Sources removed from the repository leave dangling links behind.
for room in "${ROOMS[@]}"; do
	[ -d "$OUT/$room" ] && find "$OUT/$room" -xtype l -delete
done
ln -sfn "$REPO/Kbuild" "$OUT/Kbuild"
(cd "$REPO" && find "${ROOMS[@]}" -type f \( -name '*.[ch]' -o -name Kbuild \
	-o -name Makefile \) -not -name '*.mod.c' -not -path 'kernel/conftest/*') |
	while IFS= read -r f; do
		mkdir -p "$OUT/$(dirname "$f")"
		[ "$(readlink "$OUT/$f" 2>/dev/null)" = "$REPO/$f" ] ||
			ln -sfn "$REPO/$f" "$OUT/$f"
	done

log=$OUT/w1.log
make -C "$KDIR" M="$OUT" W=1 KCFLAGS=-Werror modules >"$log" 2>&1 ||
	{ cat "$log" >&2; echo "build-module: building against $KDIR failed" >&2; exit 1; }
# Compiler and modpost warnings; make's own (jobserver notes) are not the
# module's.
if grep -i 'warning' "$log" | grep -v '^make\(\[[0-9]*\]\)\?: ' >&2; then
	echo "build-module: warnings above ($log)" >&2
	exit 1
fi
echo "build-module: $OUT/enpu.ko built against $KDIR, W=1 clean"

if [ "$MODE" = sparse ]; then
	log=$OUT/sparse.log
	make -C "$KDIR" M="$OUT" W=1 KCFLAGS=-Werror C=2 modules >"$log" 2>&1 ||
		{ cat "$log" >&2; echo "build-module: sparse run failed" >&2; exit 1; }
	if grep -E "^($OUT/)?(kernel|firmware-loader|uapi|scheduler|tests/kselftest/exporter)/[^:]*:[0-9]+:[0-9]+: (warning|error)" "$log" >&2; then
		echo "build-module: sparse reports above ($log)" >&2
		exit 1
	fi
	echo "build-module: no sparse reports in our files against $KDIR"
fi
