#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of tools/vm/debug-reports.sh, the debug kernel's report scan:
# one synthetic run directory per kind of report (the header lines as the
# 6.1 kernel prints them), each of which must be found and named, and the
# look-alikes that must not be (injected faults, driver messages, our own
# out-of-tree taint). The VM half, which provokes real reports in the
# debug kernel, is in rig-tests.sh.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
SCAN=$REPO/tools/vm/debug-reports.sh
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: $2"; }

BOOT='[    0.000000] Linux version 6.1.192-enpu-debug (root@host) #1 SMP PREEMPT_DYNAMIC
[    0.000000] Command line: console=ttyS0 panic=-1 quiet loglevel=4
[    2.123456] enpu 0000:00:03.0: firmware 1.2.0 (API 1) booted
[    3.000000] FAULT_INJECTION: forcing a failure.
[    3.000000] name failslab, interval 1, probability 100, space 0, times 1
[    3.000001] CPU: 1 PID: 77 Comm: enpu_bo_test Tainted: G           O      6.1.192-enpu-debug #1
[    3.000002] Call Trace:
[    3.000003]  <TASK>
[    3.000004]  dump_stack_lvl+0x5b/0x77
[    3.000005]  should_fail_ex.cold+0x5/0xa
[    3.100000] enpu 0000:00:03.0: job 12 hung: WARNING text inside a driver message
[    3.200000] enpu_bo_test: page allocation failure: order:0, mode:0x40dc0
[    3.300000] DMA-API: preallocated 65536 debug entries
[    3.300001] DMA-API: debugging enabled by kernel config
[    3.400000] kmemleak: Kernel memory leak detector initialized (mem pool available: 11545)
'

# mkrun NAME DMESG_EXTRA TAINT DEBUG_LOCKS [KMEMLEAK] : a run directory.
mkrun() {
	local dir=$WORK/$1
	mkdir -p "$dir"
	printf '%s%s' "$BOOT" "$2" >"$dir/dmesg"
	printf 'taint=%s\ndebug_locks=%s\n' "$3" "$4" >"$dir/debug-state"
	printf '%s' "${5:-}" >"$dir/kmemleak"
	echo "$dir"
}

# expect NAME DIR STATUS [PATTERN]: the scan's status, and PATTERN in what
# it printed.
expect() {
	local name=$1 dir=$2 want=$3 pattern=${4:-} out status
	out=$(bash "$SCAN" "$dir" 2>&1)
	status=$?
	if [ "$status" != "$want" ]; then
		fail "$name" "status $status, want $want; output: $(head -n 3 <<<"$out")"
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; then
		fail "$name" "output does not name '$pattern': $(head -n 3 <<<"$out")"
	elif [ "$want" = 0 ] && [ -n "$out" ]; then
		fail "$name" "clean run printed: $(head -n 3 <<<"$out")"
	else
		pass "$name"
	fi
}

O_E=$((1 << 12 | 1 << 13))

expect clean_run_with_injected_faults_passes "$(mkrun clean '' $O_E 1)" 0

# Each checker's report header, as printed by 6.1.
declare -A REPORTS=(
	[kasan]='[   10.1] BUG: KASAN: slab-use-after-free in enpu_context_create_ioctl+0x1b4/0x2a0 [enpu]'
	[lockdep_circular]='[   10.1] WARNING: possible circular locking dependency detected'
	[lockdep_recursive]='[   10.1] WARNING: possible recursive locking detected'
	[lockdep_irq_inversion]='[   10.1] WARNING: inconsistent lock state'
	[lockdep_nonstatic_key]='[   10.1] INFO: trying to register non-static key.'
	[atomic_sleep]='[   10.1] BUG: sleeping function called from invalid context at mm/slab.h:712'
	[scheduling_while_atomic]='[   10.1] BUG: scheduling while atomic: enpu_submit_t/88/0x00000002'
	[slab_poison]='[   10.1] BUG kmalloc-192 (Tainted: G    B      O      ): Poison overwritten'
	[slab_redzone]='[   10.1] BUG kmalloc-64 (Not tainted): Right Redzone overwritten'
	[warn]='[   10.1] WARNING: CPU: 0 PID: 91 at kernel/enpu_job.c:310 enpu_job_free+0x44/0x50 [enpu]'
	[bug_on]='[   10.1] kernel BUG at kernel/enpu_queue.c:120!'
	[ubsan]='[   10.1] UBSAN: array-index-out-of-bounds in kernel/enpu_queue.c:88:14'
	[debugobjects]='[   10.1] ODEBUG: free active (active state 0) object type: hrtimer hint: enpu_watchdog+0x0/0x90 [enpu]'
	[dma_api]='[   10.1] WARNING: CPU: 1 PID: 120 at kernel/dma/debug.c:973 dma_debug_device_change+0x1d1/0x250'
	[dma_api_out_of_memory]='[   10.1] DMA-API: debugging out of memory - disabling'
	[hung_task]='[  250.1] INFO: task enpu_submit_t:93 blocked for more than 120 seconds.'
	[rcu_stall]='[   60.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	[list_corruption]='[   10.1] list_add corruption. prev->next should be next (ffff888003a1c0d8), but was 0000000000000000.'
	[oops]='[   10.1] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP KASAN'
	[kmemleak_message]='[   10.1] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
)
for kind in "${!REPORTS[@]}"; do
	line=${REPORTS[$kind]}
	# The scan must quote the header it found.
	header=${line#*] }
	expect "finds_$kind" "$(mkrun "$kind" "$line"$'\n' $O_E 1)" 1 \
		"dmesg: .*$(sed 's/[][\\.*^$()+?{}|]/\\&/g' <<<"${header:0:30}")"
done

expect finds_kmemleak_suspects "$(mkrun leak '' $O_E 1 'unreferenced object 0xffff888004c1e000 (size 64):
  comm "enpu_context_t", pid 101, jiffies 4294940000 (age 12.3s)
  backtrace:
    [<ffffffffc0a01234>] enpu_context_create_ioctl+0x80/0x2a0 [enpu]
')" 1 'kmemleak: 1 unreferenced object'

expect finds_warning_taint_without_a_log_line "$(mkrun taint_w '' $((O_E | 1 << 9)) 1)" 1 \
	'kernel tainted: .*report flags 512'
expect finds_bad_page_taint "$(mkrun taint_b '' $((O_E | 1 << 5)) 1)" 1 'report flags 32'
expect finds_lockdep_turned_off "$(mkrun locks_off '' $O_E 0)" 1 'lockdep is off'

dir=$(mkrun unload '' $O_E 1)
echo 'modprobe -r enpu failed after the command (status 1)' >>"$dir/debug-state"
expect finds_failed_unload "$dir" 1 'guest: modprobe -r enpu failed'

dir=$(mkrun wrapped '' $O_E 1)
sed -i 1,2d "$dir/dmesg"
expect finds_wrapped_log "$dir" 1 'does not start at boot'

dir=$(mkrun no_state '' $O_E 1)
rm "$dir/debug-state"
expect finds_missing_guest_checks "$dir" 1 'did not finish its checks'

dir=$(mkrun no_dmesg '' $O_E 1)
rm "$dir/dmesg"
expect finds_missing_log "$dir" 1 'no kernel log'

echo "debug-reports: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
