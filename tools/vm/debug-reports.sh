#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Finds the debug kernel's reports in one finished run of tools/vm/run:
#
#   debug-reports.sh RUNDIR
#
# Reads RUNDIR/dmesg (the guest's whole kernel log, written at power-off),
# RUNDIR/kmemleak (kmemleak's suspects after the final scan) and
# RUNDIR/debug-state (taint, lockdep state, failures of the final module
# removal; all three written by tools/vm/guest-init). Prints one line per
# finding and exits 1 if there is any, 0 if the run was clean.
#
# A finding is: a KASAN, UBSAN, lockdep, slab-debug, debug-objects,
# DMA-API (a WARN, or its tracking running out of memory), hung-task or
# RCU-stall report, any WARN(), BUG() or Oops; a
# kmemleak suspect; a taint flag that only a report sets (B bad page,
# D oops, L soft lockup, M machine check, W warning); lockdep having turned
# itself off; the driver failing to unload; a log that does not start at
# boot (the ring buffer wrapped, so reports may be lost). Deliberately
# injected faults (failslab, fail_page_alloc: "FAULT_INJECTION: forcing a
# failure") print stack traces that are not findings.
set -euo pipefail

RUNDIR=$1
DMESG=$RUNDIR/dmesg
STATE=$RUNDIR/debug-state
LEAKS=$RUNDIR/kmemleak
found=0

report() {
	echo "$*"
	found=1
}

if [ ! -s "$DMESG" ]; then
	report "no kernel log: $DMESG is missing or empty"
elif ! head -n 1 "$DMESG" | grep -qE '^\[ *0\.0+\] '; then
	report "the kernel log does not start at boot (ring buffer wrapped?): $DMESG"
fi

# The report headers the kernel's checkers print, after the timestamp.
PATTERNS='(BUG: |BUG [^ ]+ \((Not t|T)ainted|kernel BUG at |WARNING: |(rcu: )?INFO: |UBSAN: |ODEBUG: |DMA-API: debugging out of memory|Oops: |general protection fault|Kernel panic|list_(add|del) corruption|kmemleak: [0-9]+ new suspected)'
if [ -f "$DMESG" ]; then
	while IFS= read -r line; do
		report "dmesg: $line"
	done < <(grep -E "^\[ *[0-9]+\.[0-9]+\] $PATTERNS" "$DMESG" | head -n 50)
fi

if [ -s "$LEAKS" ]; then
	n=$(grep -c '^unreferenced object' "$LEAKS" || true)
	report "kmemleak: $n unreferenced object(s), first:"
	sed -n '1,/^$/p' "$LEAKS" | head -n 20 | sed 's/^/kmemleak:   /'
fi

if [ ! -f "$STATE" ]; then
	report "no $STATE: the guest did not finish its checks"
else
	while IFS= read -r line; do
		case $line in
		taint=*)
			taint=${line#taint=}
			# B=5 bad page (KASAN, slab), D=7 oops, L=14 soft lockup,
			# M=4 machine check, W=9 warning. O and E (our
			# out-of-tree, unsigned module) are expected.
			bad=$((taint & (1 << 4 | 1 << 5 | 1 << 7 | 1 << 9 | 1 << 14)))
			[ "$bad" = 0 ] || report "kernel tainted: $taint (report flags $bad)"
			;;
		debug_locks=*)
			[ "${line#debug_locks=}" = 1 ] ||
				report "lockdep is off (debug_locks=${line#debug_locks=}): it reported or overflowed"
			;;
		*) report "guest: $line" ;;
		esac
	done <"$STATE"
fi

exit "$found"
