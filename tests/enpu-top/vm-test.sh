#!/bin/bash
# SPDX-License-Identifier: MIT
#
# enpu-top in the VM (tools/vm/run -- tests/enpu-top/vm-test.sh): while
# enpu-top-load runs NOP jobs, `enpu-top --once` must list that process
# with device time and a non-zero NPU share, and the device with a
# utilization from its own counters; then enpu-top runs interactively in
# a tmux session: the pane must show the same, and 'q' must end it.
# Ends with "N passed, N failed".
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
TOP=$REPO/build/bin/enpu-top
LOAD=$REPO/build/tests/enpu-top/enpu-top-load
passed=0
failed=0
load_pid=

pass() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "not ok - $1"; failed=$((failed + 1)); }
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
	tmux -L enpu-top kill-server 2>/dev/null
}
trap cleanup EXIT

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# The VM has bash and busybox but no awk: fields are split by read.
check_report() { # name report
	local name=$1 report=$2 pid share time found=
	while read -r pid _ _ share _ time _; do
		[ "$pid" = "$load_pid" ] || continue
		found=1
		# NPU% "12.3", device time "4.567890" (seconds): both > 0.
		if [[ $share =~ ^[0-9]+\.[0-9]$ && $share != 0.0 &&
			$time =~ ^[0-9]+\.[0-9]+$ && ! $time =~ ^0\.0+$ ]]; then
			pass "$name: enpu-top-load (pid $load_pid) has NPU% $share and device time $time s"
		else
			fail "$name: pid $load_pid shows NPU% '$share', device time '$time'"
		fi
	done <<<"$report"
	[ -n "$found" ] || { fail "$name: no line for pid $load_pid"; echo "$report" | sed 's/^/# /'; }
	if grep -Eq 'utilization +[0-9.]+ % \(device busy time' <<<"$report"; then
		pass "$name: device utilization from its busy-time counter"
	else
		fail "$name: no device utilization from the device's counter"
		echo "$report" | sed 's/^/# /'
	fi
}

exec 3< <("$LOAD" 30)
load_pid=$!
if read -r -t 60 ready <&3 && [ "$ready" = running ]; then
	pass "enpu-top-load runs jobs"
else
	fail "enpu-top-load did not start"
fi

report=$("$TOP" --once --interval 500)
status=$?
if [ $status -eq 0 ]; then
	pass "enpu-top --once exits 0"
else
	fail "enpu-top --once exit status $status"
fi
echo "$report" | sed 's/^/# /'
check_report "--once" "$report"

# Interactive, in a terminal: tmux gives it one and lets us read the pane.
export TERM=xterm-256color
if tmux -L enpu-top -f /dev/null new-session -d -s top -x 150 -y 40 \
	"$TOP --interval 300"; then
	sleep 2
	pane=$(tmux -L enpu-top capture-pane -p -t top)
	echo "$pane" | sed 's/^/# tmux: /'
	if grep -q '^enpu-top: 1 device' <<<"$pane"; then
		pass "tmux: the pane shows the report"
	else
		fail "tmux: no report in the pane"
	fi
	check_report "tmux" "$pane"
	tmux -L enpu-top send-keys -t top q
	for _ in $(seq 50); do
		tmux -L enpu-top has-session -t top 2>/dev/null || break
		sleep 0.1
	done
	if tmux -L enpu-top has-session -t top 2>/dev/null; then
		fail "tmux: 'q' did not end enpu-top"
	else
		pass "tmux: 'q' ends enpu-top"
	fi
else
	fail "tmux: cannot start a session"
fi

kill "$load_pid" 2>/dev/null
wait "$load_pid" 2>/dev/null
load_pid=
echo "enpu-top-vm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
