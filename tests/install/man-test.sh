#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages against the programs and the library they describe:
# every installed program has docs/man/<name>.1, and each page names
# exactly the options the program's own usage text lists (both ways, so a
# new option without a page entry and a page entry for a removed option
# both fail); libenpu.3 names every function enpu.h exports; groff -ww
# renders every page without a warning.
#
#   man-test.sh MAN_DIR HEADER PROGRAM...
# Ends with "test-man: N passed, N failed".
set -uo pipefail

MAN=$1 HEADER=$2
shift 2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# Long options in text, one per line, sorted.
options() { grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }

for program in "$@"; do
	name=${program##*/}
	page=$MAN/$name.1
	if [ ! -f "$page" ]; then
		bad "no $page for $program"
		continue
	fi
	ok
	# Usage goes to stdout or stderr, with status 0 or 2; only the text
	# matters. --help is itself an option some programs list.
	usage=$(timeout 10 "$program" --help 2>&1 | options)
	[ -n "$usage" ] || { bad "$name --help lists no options"; continue; }
	documented=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" | options)
	missing=$(comm -23 <(echo "$usage") <(echo "$documented"))
	stale=$(comm -13 <(echo "$usage") <(echo "$documented"))
	if [ -n "$missing" ]; then
		bad "$page does not describe $(echo "$missing" | tr "\n" " ") ($name --help lists them)"
	else
		ok
	fi
	if [ -n "$stale" ]; then
		bad "$page describes $(echo "$stale" | tr "\n" " "), which $name --help does not list"
	else
		ok
	fi
done

for f in $(sed -n 's/^ENPU_PUBLIC [^(]*[ *]\(enpu_[a-z0-9_]*\)(.*/\1/p' "$HEADER"); do
	if grep -q "fB$f\\\\fR" "$MAN/libenpu.3"; then ok; else bad "libenpu.3 does not name $f"; fi
done

for page in "$MAN"/*.[13]; do
	out=$(groff -man -ww -z "$page" 2>&1)
	if [ -z "$out" ]; then ok; else bad "$page: $out"; fi
done

echo "test-man: $pass passed, $fail failed"
[ "$fail" = 0 ]
