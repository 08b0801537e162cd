#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs in the VM (make vm-test-npu): each model of $1 (written by
# test-npu --write-models) through the real driver on "npu,cpu" next to
# "cpu", outputs compared element by element (enpu-run --compare, exit 3
# on any difference), with its plan; then again from the compiled-
# partition cache, which must hit. Prints "vm-npu: N passed, N failed".
set -u
models=$1
cache=$(mktemp -d /tmp/enpu-rt-cache.XXXXXX)
passed=0
failed=0

check() {
	what=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "ok   $what"
	else
		failed=$((failed + 1))
		echo "FAIL $what"
	fi
}

# $1 model, $2 log: partitions on the NPU, no difference from the CPU.
npu_run() {
	enpu-run "$1" --backends npu,cpu --random 3 --compare cpu --plan \
		--cache-dir "$cache" --iterations 2 --no-cost >"$2" 2>&1
	status=$?
	cat "$2"
	[ "$status" = 0 ] && grep -q "partition [0-9]* (npu)" "$2"
}

for model in "$models"/*.onnx; do
	name=$(basename "$model" .onnx)
	check "$name: npu,cpu equals cpu" npu_run "$model" "/tmp/$name.log"
	check "$name: second load from the cache" sh -c \
		"enpu-run '$model' --backends npu,cpu --random 3 --no-cost \
		 --cache-dir '$cache' | tee /tmp/$name.cached.log | \
		 grep -q 'from cache'"
done
rm -rf "$cache"
echo "vm-npu: $passed passed, $failed failed"
[ "$failed" = 0 ]
