#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# enpu-fwpack: packs deterministically, accepts its own images, rejects
# damaged ones. Usage: fwpack-test.sh ENPU_FWPACK BUILT_IMAGE
set -u
fwpack=$1
built=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

expect() {	# expect NAME WANTED_STATUS CMD...
	local name=$1 want=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	cp "$tmp/out" "$tmp/out.last"
	cp "$tmp/err" "$tmp/err.last"
	if [ "$got" -eq "$want" ]; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name: exit $got, wanted $want"
		cat "$tmp/err"
	fi
}

# has NAME FILE PATTERN: the last command's stdout/stderr contains PATTERN
has() {
	if grep -q -- "$3" "$tmp/$2.last"; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1: no '$3' in:"
		cat "$tmp/$2.last"
	fi
}

printf 'some firmware payload\n' >"$tmp/payload"
expect "packs a payload" 0 "$fwpack" --fw-version 2.3.4 "$tmp/payload" "$tmp/a.bin"
expect "packs it again" 0 "$fwpack" --fw-version 2.3.4 "$tmp/payload" "$tmp/b.bin"
expect "packing is deterministic" 0 cmp "$tmp/a.bin" "$tmp/b.bin"
expect "image is header + payload" 0 test "$(stat -c %s "$tmp/a.bin")" -eq 102
expect "checks its own image" 0 "$fwpack" --check "$tmp/a.bin"
has "prints the version" out 'fw_version:     2.3.4 (0x00020304)'
has "default api version is 1" out 'api_version:    1$'
expect "api version option" 0 "$fwpack" --fw-version 1.0.0 --api-version 7 "$tmp/payload" "$tmp/c.bin"
expect "api version recorded" 0 bash -c "'$fwpack' --check '$tmp/c.bin' | grep -q 'api_version:    7\$'"
expect "built firmware is valid" 0 "$fwpack" --check "$built"
expect "built firmware is 1.2.0, api 1" 0 bash -c \
	"'$fwpack' --check '$built' | grep -q 'fw_version:     1.2.0' && '$fwpack' --check '$built' | grep -q 'api_version:    1\$'"

cp "$tmp/a.bin" "$tmp/flip.bin"
printf 'X' | dd of="$tmp/flip.bin" bs=1 seek=90 conv=notrunc status=none
expect "rejects a changed payload" 1 "$fwpack" --check "$tmp/flip.bin"
has "names the digest" err 'SHA-256'
head -c 101 "$tmp/a.bin" >"$tmp/short.bin"
expect "rejects a truncated image" 1 "$fwpack" --check "$tmp/short.bin"
cp "$tmp/a.bin" "$tmp/magic.bin"
printf 'X' | dd of="$tmp/magic.bin" bs=1 seek=0 conv=notrunc status=none
expect "rejects a bad magic" 1 "$fwpack" --check "$tmp/magic.bin"
has "names the magic" err 'magic'
expect "rejects an empty file" 1 "$fwpack" --check /dev/null
expect "rejects a missing file" 1 "$fwpack" --check "$tmp/none.bin"
expect "rejects version 256.0.0" 2 "$fwpack" --fw-version 256.0.0 "$tmp/payload" "$tmp/d.bin"
expect "rejects version 1.2" 2 "$fwpack" --fw-version 1.2 "$tmp/payload" "$tmp/d.bin"
expect "needs a version" 2 "$fwpack" "$tmp/payload" "$tmp/d.bin"
expect "no output on bad arguments" 1 test -e "$tmp/d.bin"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
