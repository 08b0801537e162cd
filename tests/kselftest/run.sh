#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the ENPU kselftests inside the VM (tools/vm/run -- <repo>/tests/
# kselftest/run.sh). Prints each binary's TAP output, then a final line
# "N passed, N failed" counting test cases; exits 1 if any test failed or
# a binary died without its totals line. An argument runs only the binaries
# whose names contain it.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BIN_DIR=$REPO/build/tests/kselftest
# The module test reloads the driver, so it runs last.
TESTS=(enpu_device_test enpu_param_test enpu_debugfs_test enpu_bo_test
	enpu_submit_test enpu_prime_test enpu_dynamic_import_test
	enpu_layers_test
	enpu_layer_validation_test enpu_context_test enpu_job_wait_test
	enpu_limits_test
	enpu_completion_test enpu_recovery_test enpu_faults_test enpu_failslab_test
	enpu_watchdog_test
	enpu_fdinfo_test enpu_lifetime_test enpu_sched_test enpu_thermal_test
	enpu_node_test enpu_fw_boot_test
	enpu_module_test)
FILTER=${1:-}

passed=0
failed=0
skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for test in "${TESTS[@]}"; do
	[ -n "$FILTER" ] && [[ $test != *"$FILTER"* ]] && continue
	echo "# ===== $test"
	if [ ! -x "$BIN_DIR/$test" ]; then
		echo "# $BIN_DIR/$test missing (run make on the host)"
		failed=$((failed + 1))
		continue
	fi
	"$BIN_DIR/$test" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	totals=$(sed -n 's/^# Totals: \(.*\)$/\1/p' "$log" | tail -n 1)
	if [ -z "$totals" ]; then
		echo "# $test exited with status $status and no totals line"
		failed=$((failed + 1))
		continue
	fi
	# "pass:N fail:N xfail:N xpass:N skip:N error:N"
	declare -A count=()
	for field in $totals; do
		count[${field%%:*}]=${field#*:}
	done
	passed=$((passed + count[pass] + count[xfail]))
	failed=$((failed + count[fail] + count[xpass] + count[error]))
	skipped=$((skipped + count[skip]))
	if [ "$status" -ne 0 ] && [ $((count[fail] + count[error])) -eq 0 ]; then
		echo "# $test exited with status $status despite no failed test"
		failed=$((failed + 1))
	fi
	unset count
done

[ "$skipped" -gt 0 ] && echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
