#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install DESTDIR=... PREFIX=/usr` into a scratch root, from both
# sides: every file of tests/install/expected-files.txt is laid out and no
# other (the module source is checked against ./Kbuild's object list
# instead, as the kernel and scheduler rooms add files), the firmware is
# the build's, the pkg-config files build and run programs against the
# installed libraries only, and `make uninstall` leaves no file behind.
#
#   install-test.sh BUILD_DIR VERSION LIBENPU_VERSION
# Ends with "N passed, N failed".
set -uo pipefail

B=$1 VERSION=$2 LIBVERSION=$3
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(pwd)/$B/tests/install
ROOT=$WORK/root
SRC=usr/src/enpu-$VERSION
pass=0 fail=0

ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

rm -rf "$ROOT" "$WORK/root2"
mkdir -p "$WORK"
if ! make --no-print-directory -s install DESTDIR="$ROOT" PREFIX=/usr \
	>"$WORK/install.log" 2>&1; then
	cat "$WORK/install.log"
	bad "make install"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok "make install DESTDIR=$ROOT PREFIX=/usr"

echo "installed files (outside /$SRC):"
(cd "$ROOT" && find . \( -type f -o -type l \) -not -path "./$SRC/*" |
	sed 's|^\./||' | sort) >"$WORK/files.txt"
sed 's/^/  /' "$WORK/files.txt"
check "the installed files are exactly expected-files.txt" \
	diff -u <(sed "s/@LIBENPU_VERSION@/$LIBVERSION/g" "$DIR/expected-files.txt" | sort) \
	"$WORK/files.txt"

missing=0
# enpu.ko's objects; the kselftests' exporter module (tests/) is not installed.
for c in $(grep -o '[a-z/-]*/[a-z0-9_]*\.o' Kbuild | grep -v '^tests/' |
	sed 's/\.o$/.c/'); do
	[ -f "$ROOT/$SRC/$c" ] || { echo "  missing $SRC/$c"; missing=1; }
done
for f in Kbuild Makefile dkms.conf kernel/conftest/run.sh uapi/enpu_accel.h; do
	[ -f "$ROOT/$SRC/$f" ] || { echo "  missing $SRC/$f"; missing=1; }
done
check "module source: every object of ./Kbuild, the probes, Makefile, dkms.conf" \
	test "$missing" = 0
check "module source: no test code (the kselftests' exporter)" \
	test ! -e "$ROOT/$SRC/tests"
check "dkms.conf names version $VERSION" \
	grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$ROOT/$SRC/dkms.conf"
check "the firmware is the build's image" \
	cmp "$B/firmware/enpu/enpu-fw-v1.bin" "$ROOT/lib/firmware/enpu/enpu-fw-v1.bin"
check "the udev rule gives the render group the accel and render nodes" \
	test "$(grep -c 'DRIVERS=="enpu", GROUP="render", MODE="0660"' \
		"$ROOT/lib/udev/rules.d/70-enpu.rules")" = 2

# The libraries installed at a prefix of their own (no DESTDIR: the .pc
# files name the prefix), and programs built with nothing but pkg-config.
PFX=$WORK/prefix
rm -rf "$PFX"
make --no-print-directory -s install-libenpu install-runtime PREFIX="$PFX" \
	DESTDIR= >"$WORK/prefix.log" 2>&1 || cat "$WORK/prefix.log"
pc() { PKG_CONFIG_PATH=$PFX/lib/pkgconfig pkg-config "$@"; }
pc_into_prefix() {
	local p
	for p in libenpu enpu-rt; do
		pc --cflags "$p" | grep -q -- "-I$PFX/include" &&
			pc --libs "$p" | grep -q -- "-L$PFX/lib" || return 1
	done
}
check "pkg-config: libenpu and enpu-rt name the install prefix" pc_into_prefix
# The runtime's archives link the shared libenpu (its NPU backend), which
# a prefix outside the loader's path needs an rpath for, as libenpu's own
# consumer below does.
check "a program built with pkg-config enpu-rt only runs ONNX's Relu test" \
	bash -c 'cc -std=c11 -Wall -Wextra -Werror "$1" -o "$2" $3 -Wl,-rpath,"$4" &&
		test "$("$2" /usr/share/libonnx-testdata/data/node/test_relu/model.onnx)" = "relu ok" &&
		ldd "$2" | grep -q "libenpu.so.0 => $4/libenpu.so.0"' \
	_ "$DIR/rt_consumer.c" "$WORK/rt_consumer" "$(pc --cflags --libs enpu-rt)" \
	"$PFX/lib"
static_has_libdrm() { pc --static --libs enpu-rt | grep -q -- -ldrm; }
check "pkg-config --static enpu-rt adds libdrm (libenpu.a's dependency)" \
	static_has_libdrm

check "a program built with pkg-config libenpu only runs on the installed libenpu" \
	bash -c 'cc -std=c11 -Wall -Wextra -Werror "$1" -o "$2" $3 -Wl,-rpath,"$4" &&
		test "$("$2")" = "1.2.3 dvfs" &&
		ldd "$2" | grep -q "libenpu.so.0 => $4/libenpu.so.0"' \
	_ tests/unit/install_consumer.c "$WORK/consumer" "$(pc --cflags --libs libenpu)" \
	"$PFX/lib"
check "installed tools find the installed libenpu (\$ORIGIN/../lib)" \
	bash -c 'ldd "$1/usr/bin/enpu-info" | grep -q "libenpu.so.0 => $1/usr/bin/../lib/libenpu.so.0"' \
	_ "$ROOT"
check "man pages are installed for every tool" \
	bash -c 'for t in "$1"/usr/bin/*; do test -f "$1/usr/share/man/man1/${t##*/}.1" || exit 1; done' \
	_ "$ROOT"

# Uninstall from a second root, so the first stays for the VM test.
make --no-print-directory -s install DESTDIR="$WORK/root2" PREFIX=/usr \
	>"$WORK/install2.log" 2>&1 &&
	make --no-print-directory -s uninstall DESTDIR="$WORK/root2" PREFIX=/usr \
	>"$WORK/uninstall.log" 2>&1
left=$(cd "$WORK/root2" && find . \( -type f -o -type l \) | sed 's|^\./||')
[ -n "$left" ] && echo "left behind:" && echo "$left" | sed 's/^/  /'
check "make uninstall removes every installed file" test -z "$left"
check "make uninstall removes ENPU's own directories" \
	bash -c '! test -e "$1/lib/firmware/enpu" && ! test -e "$1/usr/include/enpu" &&
		! test -e "$1/usr/share/doc/enpu" && ! test -e "$1/usr/src/enpu-$2"' \
	_ "$WORK/root2" "$VERSION"

echo "test-install: $pass passed, $fail failed"
[ "$fail" = 0 ]
