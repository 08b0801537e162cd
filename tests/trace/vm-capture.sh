#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Captures a trace of the enpu tracepoints in the VM (tools/vm/run --
# tests/trace/vm-capture.sh OUTDIR): through tracefs while
# enpu-trace-load runs (OUTDIR/tracefs.txt, the text of
# /sys/kernel/tracing/trace), and, where trace-cmd is installed, once more
# with the recipe of docs/observability.md (OUTDIR/trace-cmd.txt, the
# text of `trace-cmd report`). The host converts and checks them.
set -eu

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
LOAD=$REPO/build/tests/trace/enpu-trace-load
OUT=$1
T=/sys/kernel/tracing

mkdir -p "$OUT"
rm -f "$OUT"/tracefs.txt "$OUT"/trace-cmd.txt "$OUT"/trace.dat
mountpoint -q $T || mount -t tracefs nodev $T
[ -d $T/events/enpu ] || { echo "no enpu events in $T/events" >&2; exit 1; }

echo 0 >$T/tracing_on
echo >$T/trace
echo 4096 >$T/buffer_size_kb
echo 1 >$T/events/enpu/enable
echo 1 >$T/tracing_on
"$LOAD"
echo 0 >$T/tracing_on
echo 0 >$T/events/enpu/enable
cat $T/trace >"$OUT/tracefs.txt"
echo "tracefs: $(grep -c ' enpu_job_' "$OUT/tracefs.txt") enpu events"

if command -v trace-cmd >/dev/null; then
	trace-cmd record -q -e enpu -o "$OUT/trace.dat" "$LOAD" >/dev/null
	trace-cmd report -i "$OUT/trace.dat" >"$OUT/trace-cmd.txt"
	echo "trace-cmd: $(grep -c ' enpu_job_' "$OUT/trace-cmd.txt") enpu events"
else
	echo "trace-cmd: not installed, skipped"
fi
