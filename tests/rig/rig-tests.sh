#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the VM rig (tools/vm/run): exit status plumbing,
# argument quoting, the guest environment, timeouts, signals, leftover
# processes, initramfs caching, the kernel choice (--kernel / KERNEL=) and,
# on the debug kernel, that every kind of checker report fails the run.
# Each test boots the VM with --no-modprobe, so the rig is tested apart
# from the driver. They run on the kernel make chose (ENPU_VM_KERNEL).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
RUN=$REPO/tools/vm/run
OUT=$REPO/build/tests/rig
mkdir -p "$OUT"
cd "$REPO" || exit 1

PASSED=0
FAILED=0
RUN_DIRS=()
KERNEL=${ENPU_VM_KERNEL:-6.1}
[ "$KERNEL" = stock ] && KERNEL=6.1
# The debug kernel boots and runs several times slower (tools/vm/run
# scales its timeouts by the same factor).
SLOW=1
[ "$KERNEL" = debug ] && SLOW=${ENPU_VM_DEBUG_SLOWDOWN:-4}

pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL $1: $2"
	[ -f "$OUT/last.log" ] && sed 's/^/     | /' "$OUT/last.log" | tail -n 15
}

# vm ARGS... : runs the rig, leaving its status in $STATUS, its run
# directory in $RUNDIR and its wall time (ms) in $ELAPSED_MS.
vm() {
	local start end
	rm -f "$OUT/rundir"
	start=$(date +%s%N)
	ENPU_VM_RUNDIR_FILE=$OUT/rundir "$RUN" "$@" >"$OUT/last.log" 2>&1
	STATUS=$?
	end=$(date +%s%N)
	ELAPSED_MS=$(((end - start) / 1000000))
	RUNDIR=$(cat "$OUT/rundir" 2>/dev/null || true)
	[ -n "$RUNDIR" ] && RUN_DIRS+=("$RUNDIR")
	return 0
}

# A PID recorded by a run must no longer be a qemu or vnpu process (the
# number itself may have been reused by something else).
leftover_processes() {
	local dir=$1 name pid cmd
	for name in qemu vnpu relay; do
		[ -f "$dir/$name.pid" ] || continue
		pid=$(cat "$dir/$name.pid")
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
		case $cmd in
		*qemu-system*|*vnpu*|*fault-relay*) echo "$name pid $pid still running: $cmd" ;;
		esac
	done
}

# The rig's own cost: wall time outside the guest's uptime at power-down
# (QEMU and vnpu start, initramfs, teardown). The guest's boot itself is
# the kernel's and the machine's speed, not the rig's (a debug boot took
# 170 s of guest uptime at load 14), so only the rest has a budget.
test_true_exits_zero() {
	local up_ms overhead
	vm --no-modprobe -- true
	up_ms=$(sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*reboot: Power down.*/\1\2/p' \
		"$RUNDIR/serial.log" 2>/dev/null | tail -n 1)
	overhead=$((ELAPSED_MS - 10#${up_ms:-0}))
	if [ "$STATUS" -ne 0 ]; then
		fail true_exits_zero "status $STATUS"
	elif [ -z "$up_ms" ]; then
		fail true_exits_zero "no 'reboot: Power down' in the serial log"
	elif grep -qs 'booting once more' "$OUT/last.log"; then
		pass "true_exits_zero (${ELAPSED_MS} ms wall, a boot retried: no budget)"
	elif [ "$overhead" -gt $((30000 * SLOW)) ]; then
		fail true_exits_zero "rig overhead ${overhead} ms (wall ${ELAPSED_MS} - guest ${up_ms}), budget $((30000 * SLOW)) ms"
	else
		pass "true_exits_zero (${ELAPSED_MS} ms wall, ${overhead} ms outside the guest)"
	fi
}

test_false_exits_nonzero() {
	vm --no-modprobe -- false
	[ "$STATUS" -eq 1 ] && pass false_exits_nonzero ||
		fail false_exits_nonzero "status $STATUS, want 1"
}

test_exit_status_passes_through() {
	vm --no-modprobe -- sh -c 'exit 7'
	[ "$STATUS" -eq 7 ] && pass exit_status_passes_through ||
		fail exit_status_passes_through "status $STATUS, want 7"
}

test_arguments_arrive_intact() {
	local args=('a b' "it's \"quoted\"" '$HOME `x` \n' '*' '' '  lead')
	local got="$OUT/args.guest" want="$OUT/args.host"
	rm -f "$got"
	printf '[%s]\n' "${args[@]}" >"$want"
	vm --no-modprobe -- sh -c 'out=$1; shift; printf "[%s]\n" "$@" >"$out"' \
		sh "$got" "${args[@]}"
	if [ "$STATUS" -ne 0 ]; then
		fail arguments_arrive_intact "status $STATUS"
	elif ! cmp -s "$want" "$got"; then
		fail arguments_arrive_intact "$(diff "$want" "$got" 2>&1 | head -n 5)"
	else
		pass arguments_arrive_intact
	fi
}

# The guest runs host binaries from /usr (bash, kmod via /sbin/modprobe),
# sees the repository at the host path as its cwd, has PATH and
# LD_LIBRARY_PATH pointing into build/, the facts file, and the ivshmem
# device the vnpu serves.
test_guest_environment() {
	local report=$OUT/env.guest
	rm -f "$report"
	# shellcheck disable=SC2016 # expanded by the guest's shell
	vm --no-modprobe --kernel-arg enpu-rig-test=1 -- /bin/bash -c '
		exec >"$1"
		echo "cwd=$(pwd)"
		grep -qw enpu-rig-test=1 /proc/cmdline && echo kernel_arg=ok
		echo "repo_file=$(test -f "$PWD/tools/vm/run" && echo yes)"
		echo "kmod=$(/sbin/modprobe --version | head -n 1)"
		echo "bash=$BASH_VERSION"
		case ":$PATH:" in *":$(pwd)/build/bin:"*) echo path=ok ;; esac
		case ":$LD_LIBRARY_PATH:" in *":$(pwd)/build/lib:"*) echo ldpath=ok ;; esac
		test -f "$ENPU_VNPU_FACTS" && echo facts=ok
		grep -q "^debugfs /sys/kernel/debug debugfs " /proc/mounts && echo debugfs=ok
		for d in /sys/bus/pci/devices/*; do
			[ "$(cat $d/vendor):$(cat $d/device)" = 0x1af4:0x1110 ] && echo ivshmem=ok
		done
		echo "modules=$(ls /lib/modules/$(uname -r)/modules.dep)"
	' guest-env "$report"
	local want
	want="cwd=$REPO
kernel_arg=ok
repo_file=yes
kmod=$(kmod --version | head -n 1)
bash=$(bash -c 'echo $BASH_VERSION')
path=ok
ldpath=ok
facts=ok
debugfs=ok
ivshmem=ok
modules=/lib/modules/$(sed -n 's/^kver=//p' "$RUNDIR/info" 2>/dev/null)/modules.dep"
	if [ "$STATUS" -ne 0 ]; then
		fail guest_environment "status $STATUS"
	elif [ "$(cat "$report" 2>/dev/null)" != "$want" ]; then
		fail guest_environment "$(diff <(echo "$want") "$report" 2>&1 | head -n 8)"
	else
		pass guest_environment
	fi
}

test_timeout_kills_quickly() {
	ENPU_VM_DEBUG_SLOWDOWN=1 vm --no-modprobe --timeout 2 -- sleep 100
	if [ "$STATUS" -ne 124 ]; then
		fail timeout_kills_quickly "status $STATUS, want 124"
	elif [ "$ELAPSED_MS" -gt $((10000 * SLOW)) ]; then
		fail timeout_kills_quickly "took ${ELAPSED_MS} ms"
	elif ! grep -q 'timeout after 2 s' "$OUT/last.log"; then
		fail timeout_kills_quickly "no 'timeout after 2 s' message"
	else
		pass "timeout_kills_quickly (${ELAPSED_MS} ms)"
	fi
}

# A panic once the guest's init runs is the run's failure, never retried.
test_kernel_panic_is_reported() {
	vm --no-modprobe -- sh -c 'echo c >/proc/sysrq-trigger'
	[ "$STATUS" -eq 125 ] && grep -q 'vm: kernel panic' "$OUT/last.log" &&
		! grep -q 'booting once more' "$OUT/last.log" &&
		pass kernel_panic_is_reported ||
		fail kernel_panic_is_reported "status $STATUS, want 125, a message and no second boot"
}

# A kernel that dies before init (here: no init to run) is booted once
# more, and only once; the second panic is reported.
test_boot_panic_is_booted_once_more() {
	local boots
	# A retry that stalls is booted once more too (its own retry, within
	# the 60 s boot timeout); only the panic's retries are counted. 60 s
	# (240 s on the debug kernel), not 20: a debug boot at load 15-25
	# took longer than 80 s to reach its panic, which the rig then took
	# for a stall (check-debug of 2026-12-03).
	ENPU_VM_BOOT_TIMEOUT=60 vm --no-modprobe --timeout 180 \
		--kernel-arg rdinit=/nonexistent \
		--kernel-arg init=/nonexistent -- true
	boots=$(grep -c 'panicked while booting.*booting once more' "$OUT/last.log")
	[ "$STATUS" -eq 125 ] && [ "$boots" -eq 1 ] &&
		grep -q 'vm: kernel panic' "$OUT/last.log" &&
		pass boot_panic_is_booted_once_more ||
		fail boot_panic_is_booted_once_more "status $STATUS, $boots retries; want 125 after exactly one"
}

# rdinit=/bin/sh: busybox's shell waits on the console for ever and the
# guest's init never prints ENPU_VM_INIT, the way a stalled boot looks.
test_boot_stall_is_booted_once_more() {
	local boots
	ENPU_VM_BOOT_TIMEOUT=10 vm --no-modprobe --timeout 300 \
		--kernel-arg rdinit=/bin/sh -- true
	boots=$(grep -c 'did not start within.*booting once more' "$OUT/last.log")
	if ! { [ "$STATUS" -eq 125 ] && [ "$boots" -eq 1 ] &&
		grep -q 'did not start within [0-9]* s, twice' "$OUT/last.log"; }; then
		fail boot_stall_is_booted_once_more "status $STATUS, $boots retries; want 125 after exactly one"
		return
	fi
	# What the kernel logged before the stall, from the guest's RAM: this
	# boot's command line first (quiet kept it off the console), then the
	# dozens of lines any boot logs within its first guest second.
	local log=$RUNDIR/boot-log.txt
	if ! head -n 1 "$log" 2>/dev/null | grep -qE "^Command line: .*enpu_run=${RUNDIR##*/}( |\$)"; then
		fail boot_stall_is_booted_once_more "no boot-log.txt starting with this run's command line in $RUNDIR"
	elif [ "$(wc -l <"$log")" -lt 20 ]; then
		fail boot_stall_is_booted_once_more "boot-log.txt has $(wc -l <"$log") lines, want >= 20"
	elif grep -q 'Command line: ' "$RUNDIR/serial.log"; then
		fail boot_stall_is_booted_once_more "the command line reached the console: not a quiet boot"
	else
		pass "boot_stall_is_booted_once_more ($(wc -l <"$log") lines of kernel log from the guest's RAM)"
	fi
}

test_unknown_kernel_refused() {
	vm --kernel 5.10 -- true
	[ "$STATUS" -eq 125 ] && grep -q "unknown kernel '5.10'" "$OUT/last.log" &&
		pass unknown_kernel_refused ||
		fail unknown_kernel_refused "status $STATUS"
}

# The guest runs the release tools/vm/kernel.sh names for the kernel, and
# is told which one it is (tests assert per-kernel behaviour with it).
boots_kernel() {
	local name=$1 want got
	shift
	want="$(bash tools/vm/kernel.sh "$name" | sed -n 's/^ENPU_VM_KVER=//p') $name"
	rm -f "$OUT/kernel.guest"
	# shellcheck disable=SC2016 # expanded by the guest's shell
	vm "$@" --no-modprobe -- sh -c 'echo "$(uname -r) $ENPU_VM_KERNEL" >"$1"' \
		sh "$OUT/kernel.guest"
	got=$(cat "$OUT/kernel.guest" 2>/dev/null)
	if [ "$STATUS" -ne 0 ]; then
		fail "boots_kernel_$name" "status $STATUS"
	elif [ "$got" != "$want" ]; then
		fail "boots_kernel_$name" "guest says '$got', want '$want'"
	elif ! grep -qx "kernel_name=$name" "$RUNDIR/info"; then
		fail "boots_kernel_$name" "info says $(grep kernel_name "$RUNDIR/info")"
	else
		pass "boots_kernel_$name"
	fi
}

test_kernels_boot() {
	local k
	# The one make chose comes from the environment, not the option.
	boots_kernel "$KERNEL"
	for k in 6.1 6.12 6.12-rt; do
		[ "$k" = "$KERNEL" ] || boots_kernel "$k" --kernel "$k"
	done
}

# On the debug kernel: a clean run passes (test_true_exits_zero), and each
# provoked report fails the run with 125, named in debug-reports.
provoke() {
	local name=$1 pattern=$2
	shift 2
	vm --no-modprobe -- sh -c "$*"
	if [ "$STATUS" -ne 125 ]; then
		fail "debug_kernel_hears_$name" "status $STATUS, want 125"
	elif ! grep -qE -- "$pattern" "$RUNDIR/debug-reports" 2>/dev/null; then
		fail "debug_kernel_hears_$name" "'$pattern' not in $RUNDIR/debug-reports"
	elif ! grep -q 'debug kernel reported problems' "$OUT/last.log"; then
		fail "debug_kernel_hears_$name" "the rig did not say why it failed"
	else
		pass "debug_kernel_hears_$name"
	fi
}

test_debug_kernel_hears_reports() {
	local lkdtm='modprobe lkdtm && echo'
	local direct=/sys/kernel/debug/provoke-crash/DIRECT
	provoke warn 'dmesg: .*WARNING: CPU' "$lkdtm WARNING >$direct"
	provoke kasan 'dmesg: .*BUG: KASAN: (slab-)?use-after-free' \
		"$lkdtm READ_AFTER_FREE >$direct"
	provoke slab_double_free 'dmesg: .*(BUG: KASAN: double-free|BUG kmalloc)' \
		"$lkdtm SLAB_FREE_DOUBLE >$direct"
	provoke list_corruption 'dmesg: .*list_add corruption' \
		"$lkdtm CORRUPT_LIST_ADD >$direct"
	provoke kmemleak 'kmemleak: [0-9]+ unreferenced object' 'modprobe kmemleak_test'
	provoke ubsan 'dmesg: .*UBSAN: array-index-out-of-bounds' \
		"$lkdtm ARRAY_BOUNDS >$direct"
}

test_bad_option_refused() {
	vm --smp zero -- true
	[ "$STATUS" -ne 0 ] && grep -q -- '--smp must be' "$OUT/last.log" &&
		pass bad_option_refused || fail bad_option_refused "status $STATUS"
	vm --kernel-arg 'a b' -- true
	[ "$STATUS" -ne 0 ] && grep -q -- '--kernel-arg .* must be' "$OUT/last.log" &&
		pass bad_kernel_arg_refused || fail bad_kernel_arg_refused "status $STATUS"
}

# A signal to the rig ends the VM, the vnpu, the RAM file and the sockets,
# and keeps the logs. SIGINT needs its default disposition restored: a
# background job of a script starts with it ignored. With a third
# argument the first boot fails before init (no init to run, as in
# boot_panic_is_booted_once_more) and the signal reaches the retry: the
# test follows the run directory the rig names for each boot. A panic,
# not a stall, so the retry keeps the whole boot timeout however slow
# the machine is.
signal_stops_everything() {
	local sig=$1 want=$2 retried=${3:-} name pid i dir ramfile control
	local started='' boot=120 dirs=() left=''
	name=sig${sig}_${retried:+after_a_retried_boot_}stops_everything
	rm -f "$OUT/rundir"
	ENPU_VM_BOOT_TIMEOUT=$boot \
		ENPU_VM_FIRST_BOOT_KERNEL_ARGS=${retried:+"rdinit=/nonexistent init=/nonexistent"} \
		ENPU_VM_RUNDIR_FILE=$OUT/rundir env --default-signal=INT \
		"$RUN" --no-modprobe -- sh -c 'echo guest-started; sleep 100' \
		>"$OUT/last.log" 2>&1 &
	pid=$!
	# Signal only once the guest runs the command, the usual moment for
	# a Ctrl-C. The rig gives a guest two boots of $boot s (times the
	# debug slowdown) to start: a boot that stalls is booted once more in
	# a new run directory. Waiting for one boot only is how the debug tier
	# failed on 2026-12-03, when a first boot printed nothing for 480 s.
	for ((i = 0; i < (2 * boot * SLOW + 60) * 10; i++)); do
		dir=$(cat "$OUT/rundir" 2>/dev/null || true)
		if [ -n "$dir" ] && [[ " ${dirs[*]} " != *" $dir "* ]]; then
			dirs+=("$dir")
			RUN_DIRS+=("$dir")
		fi
		[ -n "$dir" ] && grep -qs guest-started "$dir/serial.log" &&
			started=1 && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	STATUS=$?
	for i in ${dirs[@]+"${dirs[@]}"}; do
		left+=$(leftover_processes "$i")
	done
	ramfile=$(sed -n 's/^ram=//p' "$dir/info" 2>/dev/null)
	control=$(sed -n 's/^control=//p' "$dir/info" 2>/dev/null)
	if [ -z "$started" ]; then
		fail "$name" "the guest did not start in ${#dirs[@]} boot(s) (rig status $STATUS)"
	elif [ -n "$retried" ] && { [ "${#dirs[@]}" -ne 2 ] ||
		! grep -q 'panicked while booting.*booting once more' "$OUT/last.log"; }; then
		fail "$name" "${#dirs[@]} run directories, want the panicked boot's and its retry's"
	elif [ "$STATUS" -ne "$want" ]; then
		fail "$name" "status $STATUS, want $want"
	elif [ -n "$left" ]; then
		fail "$name" "$left"
	elif [ -z "$ramfile" ] || [ -e "$ramfile" ]; then
		fail "$name" "RAM file '$ramfile' left behind"
	elif [ -z "$control" ] || [ -e "$(dirname "$control")" ]; then
		fail "$name" "socket directory of '$control' left behind"
	elif ! grep -qs guest-started "$dir/serial.log"; then
		fail "$name" "serial.log was not kept"
	else
		pass "$name"
	fi
}

test_second_run_reuses_initramfs() {
	local first second inode_before inode_after
	vm --no-modprobe -- true
	first=$(sed -n 's/^initramfs=//p' "$RUNDIR/info" 2>/dev/null)
	inode_before=$(stat -c '%i %Y' "$first" 2>/dev/null)
	vm --no-modprobe -- true
	second=$(sed -n 's/^initramfs=//p' "$RUNDIR/info" 2>/dev/null)
	inode_after=$(stat -c '%i %Y' "$second" 2>/dev/null)
	if [ "$STATUS" -ne 0 ]; then
		fail second_run_reuses_initramfs "status $STATUS"
	elif [ -z "$first" ] || [ "$first" != "$second" ] ||
		[ "$inode_before" != "$inode_after" ]; then
		fail second_run_reuses_initramfs "'$first' ($inode_before) then '$second' ($inode_after)"
	elif ! grep -qx 'initramfs_state=cached' "$RUNDIR/info"; then
		fail second_run_reuses_initramfs "second run says $(grep initramfs_state "$RUNDIR/info")"
	else
		pass second_run_reuses_initramfs
	fi
}

# The guest side of the relay contract (tools/vm/README.md): request.<n>
# written through a .tmp rename, reply.<n> appears with the vnpu's answer.
test_fault_relay_reaches_the_control_socket() {
	# shellcheck disable=SC2016 # expanded by the guest's shell
	local script='
		[ -d "$ENPU_VNPU_RELAY" ] || { echo "no relay dir"; exit 2; }
		ask() {
			echo "$2" >"$ENPU_VNPU_RELAY/request.$1.tmp"
			mv "$ENPU_VNPU_RELAY/request.$1.tmp" "$ENPU_VNPU_RELAY/request.$1"
			i=0
			while [ ! -f "$ENPU_VNPU_RELAY/reply.$1" ]; do
				i=$((i + 1)); [ $i -lt 500 ] || { echo "no reply.$1"; exit 3; }
				sleep 0.02
			done
			cat "$ENPU_VNPU_RELAY/reply.$1"
		}
		ask 1 status; ask 2 "no-such-command"; ask 3 "speed 2"'
	local want_status='^ok state=[A-Z_]+ heartbeat=[0-9]+ '
	vm --no-modprobe --fault-relay -- sh -c "$script"
	if [ "$STATUS" -ne 0 ]; then
		fail fault_relay_reaches_the_control_socket "status $STATUS"
	elif ! grep -qE "$want_status" "$OUT/last.log" ||
		! grep -q '^error unknown command' "$OUT/last.log" ||
		! grep -q '^ok speed=2' "$OUT/last.log"; then
		fail fault_relay_reaches_the_control_socket "replies missing"
	elif [ ! -f "$RUNDIR/relay/reply.3" ] || [ -e "$RUNDIR/relay/reply.3.tmp" ]; then
		fail fault_relay_reaches_the_control_socket "reply files not renamed into place"
	else
		pass fault_relay_reaches_the_control_socket
	fi
}

test_no_relay_without_the_option() {
	# shellcheck disable=SC2016 # expanded by the guest's shell
	vm --no-modprobe -- sh -c '[ -z "${ENPU_VNPU_RELAY:-}" ]'
	if [ "$STATUS" -ne 0 ]; then
		fail no_relay_without_the_option "ENPU_VNPU_RELAY set (status $STATUS)"
	elif [ -e "$RUNDIR/relay" ] || [ -e "$RUNDIR/relay.pid" ]; then
		fail no_relay_without_the_option "relay started anyway"
	else
		pass no_relay_without_the_option
	fi
}

test_no_process_left_behind() {
	local dir left=
	for dir in "${RUN_DIRS[@]}"; do
		left+=$(leftover_processes "$dir")
	done
	[ -z "$left" ] && pass "no_process_left_behind (${#RUN_DIRS[@]} runs)" ||
		fail no_process_left_behind "$left"
}

test_unknown_kernel_refused
test_bad_option_refused
test_kernels_boot
test_true_exits_zero
test_false_exits_nonzero
test_exit_status_passes_through
test_arguments_arrive_intact
test_guest_environment
test_timeout_kills_quickly
test_kernel_panic_is_reported
test_boot_panic_is_booted_once_more
test_boot_stall_is_booted_once_more
signal_stops_everything TERM 143
signal_stops_everything INT 130
signal_stops_everything TERM 143 retried
test_second_run_reuses_initramfs
test_fault_relay_reaches_the_control_socket
test_no_relay_without_the_option
[ "$KERNEL" = debug ] && test_debug_kernel_hears_reports
test_no_process_left_behind

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
