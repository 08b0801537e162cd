#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How tools/vm/debug-kernel.sh applies tools/vm/debug-patches/*.patch,
# without building a kernel: a copy of the script, its own fragment and
# patches, and a made-up "source" whose Makefile fails at once, so each run
# stops at `make x86_64_defconfig`, after the patched copy was made. The
# rules: the cache key follows the patches' hunks but not their
# descriptions; the patched copy is hard links but for the patched files;
# the shared source is left as it was; a patch that does not apply stops
# the build with its name.
#
#   debug-patch-test.sh
# Ends with "debug-patch: N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }

VM=$WORK/vm SRC=$WORK/src CACHE=$WORK/cache
mkdir -p "$VM/debug-patches" "$SRC/lib" "$CACHE"
cp "$REPO/tools/vm/debug-kernel.sh" "$VM/"
echo 'CONFIG_ENPU_TEST_OPTION=y' >"$VM/debug.config"
echo '1.2.3-test' >"$CACHE/linux-source-6.1.version"
printf '.DEFAULT:\n\t@echo no kernel here >&2; false\n' >"$SRC/Makefile"
printf 'int a(void)\n{\n\treturn 1;\n}\n' >"$SRC/lib/a.c"
printf 'int b(void)\n{\n\treturn 2;\n}\n' >"$SRC/lib/b.c"

# patch FILE DESCRIPTION NEW-RETURN-LINE: a patch of lib/a.c.
write_patch() {
	{
		echo "$2"
		echo
		echo '--- a/lib/a.c'
		echo '+++ b/lib/a.c'
		echo '@@ -1,4 +1,4 @@'
		echo ' int a(void)'
		echo ' {'
		echo '-	return 1;'
		echo "+	$3"
		echo ' }'
	} >"$1"
}

run() { ENPU_CACHE=$CACHE ENPU_KSRC=$SRC bash "$VM/debug-kernel.sh" "$@"; }

P=$VM/debug-patches/0001-a-returns-more.patch
write_patch "$P" "lib: a() returns more" 'return 10;'
key1=$(run --print-key)
write_patch "$P" "lib: a() returns more, said otherwise" 'return 10;'
key2=$(run --print-key)
write_patch "$P" "lib: a() returns more" 'return 11;'
key3=$(run --print-key)
mv "$P" "$WORK/aside.patch"
key0=$(run --print-key)
mv "$WORK/aside.patch" "$P"
write_patch "$P" "lib: a() returns more" 'return 10;'

# check NAME WHY CONDITION...
check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else bad "$name" "$why"; fi
}
check key_ignores_the_description "$key1 != $key2" [ "$key1" = "$key2" ]
check key_follows_the_hunks "a changed hunk kept $key1" [ "$key1" != "$key3" ]
check key_follows_the_set_of_patches "no patch gave $key0 too" [ "$key1" != "$key0" ]

out=$(run 2>&1)
status=$?
PSRC=$key1.src
if [ "$status" = 0 ]; then
	bad build_stops_at_make "status 0"
elif ! grep -q 'make x86_64_defconfig failed' <<<"$out"; then
	bad build_stops_at_make "$out"
else
	ok build_stops_at_make
fi
if ! grep -q 'return 10;' "$PSRC/lib/a.c" 2>/dev/null; then
	bad patched_copy_is_patched "$(cat "$PSRC/lib/a.c" 2>&1)"
else
	ok patched_copy_is_patched
fi
if ! grep -q 'return 1;' "$SRC/lib/a.c"; then
	bad shared_source_is_untouched "$(cat "$SRC/lib/a.c")"
elif [ "$(stat -c %i "$SRC/lib/a.c")" = "$(stat -c %i "$PSRC/lib/a.c" 2>/dev/null)" ]; then
	bad shared_source_is_untouched "lib/a.c is one inode in both trees"
else
	ok shared_source_is_untouched
fi
check unpatched_files_are_links "lib/b.c was copied" \
	[ "$(stat -c %i "$SRC/lib/b.c")" = "$(stat -c %i "$PSRC/lib/b.c" 2>/dev/null)" ]

write_patch "$P" "lib: a() from another version" 'return 12;'
sed -i 's/^-	return 1;/-	return 5;/' "$P"
out=$(run 2>&1)
status=$?
PSRC=$(run --print-key).src
if [ "$status" = 0 ] || ! grep -q '0001-a-returns-more.patch does not apply' <<<"$out"; then
	bad stale_patch_stops_the_build "status $status: $out"
elif [ -e "$PSRC" ]; then
	bad stale_patch_stops_the_build "$PSRC left behind"
else
	ok stale_patch_stops_the_build
fi

echo "debug-patch: $pass passed, $fail failed"
[ "$fail" = 0 ]
