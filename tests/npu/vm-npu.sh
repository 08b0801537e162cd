#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs in the VM (make vm-test-npu): each model of $1 (written by
# test-npu --write-models) through the real driver on "npu,cpu" next to
# "cpu", outputs compared element by element (enpu-run --compare, exit 3
# on any difference), with its plan; then again from the compiled-
# partition cache, which must hit. Then: a model the NPU takes nothing of
# (all on the CPU, --strict refuses naming its nodes), a model too large
# for single commands (tiled), the input bound as a vgem (and udmabuf)
# dma-buf (no copy at the seams, outputs those of the input in host
# memory), no BO_WAIT per run, and double-buffered runs (--pipeline, each
# frame equal to the sequential run). Prints "vm-npu: N passed, N failed".
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

# $1 model, $2 log, the rest extra options: partitions on the NPU, no
# difference from the CPU.
npu_run() {
	model=$1
	log=$2
	shift 2
	enpu-run "$model" --backends npu,cpu --random 3 --compare cpu --plan \
		--cache-dir "$cache" --iterations 2 --no-cost "$@" >"$log" 2>&1
	status=$?
	cat "$log"
	[ "$status" = 0 ] && grep -q "partition [0-9]* (npu)" "$log"
}

# $1 log: every NPU partition line reports 0 bytes copied at its seams.
no_copies() {
	grep "partition [0-9]* (npu)" "$1" | grep -q . &&
		! grep "partition [0-9]* (npu)" "$1" |
			grep -v ", 0 bytes copied at seams"
}

# $1 log: the NPU partition line reports more than $2 commands.
commands_over() {
	n=$(sed -n 's/.*partition [0-9]* (npu).* \([0-9][0-9]*\) commands.*/\1/p' \
		"$1" | head -n 1)
	echo "  NPU commands: ${n:-none}"
	[ -n "$n" ] && [ "$n" -gt "$2" ]
}

cpu_only() {
	enpu-run "$1" --backends npu,cpu --random 3 --plan --no-cost \
		>/tmp/cpu-only.log 2>&1
	status=$?
	cat /tmp/cpu-only.log
	[ "$status" = 0 ] && ! grep -q "partition [0-9]* (npu)" /tmp/cpu-only.log &&
		grep -q "no NPU command for Sigmoid" /tmp/cpu-only.log
}

strict_refuses() {
	enpu-run "$1" --backends npu,cpu --random 3 --strict --no-cost \
		>/tmp/strict.log 2>&1
	status=$?
	cat /tmp/strict.log
	[ "$status" != 0 ] && grep -q "strict: .* would not run on npu" \
		/tmp/strict.log && grep -q "Sigmoid" /tmp/strict.log
}

for model in "$models"/*.onnx; do
	name=$(basename "$model" .onnx)
	[ "$name" = cpu-only ] && continue
	check "$name: npu,cpu equals cpu" npu_run "$model" "/tmp/$name.log"
	check "$name: second load from the cache" sh -c \
		"enpu-run '$model' --backends npu,cpu --random 3 --no-cost \
		 --cache-dir '$cache' | tee /tmp/$name.cached.log | \
		 grep -q 'from cache'"
done

# enpu-run asks for device time (enpu_rt_options_set_device_time()); a
# session that does not gets 0 and the line has no "device".
check "mixed-ops: enpu-run reports the NPU partition's device time" \
	grep -q "partition [0-9]* (npu): host [0-9.]* ms, device [0-9.]* ms" \
	/tmp/mixed-ops.log
check "cpu-only: every node on the CPU, with the NPU's reason" \
	cpu_only "$models/cpu-only.onnx"
check "cpu-only: --strict refuses, naming the nodes" \
	strict_refuses "$models/cpu-only.onnx"
check "large-tiles: layers cut into many commands" \
	commands_over /tmp/large-tiles.log 8

# mixed-ops reads its uint8 input on the NPU: from host memory the input
# is staged (copied), from a dma-buf it is imported (0 bytes), and the
# outputs are the host-memory run's bit for bit (enpu-run --input-buffer
# runs both ways, exit 3 on a difference). udmabuf only where the kernel
# has it (6.12; Debian's 6.1 is built without CONFIG_UDMABUF).
check "mixed-ops: a host-memory input is copied at the seam" sh -c \
	"grep 'partition [0-9]* (npu)' /tmp/mixed-ops.log | \
	 grep -v ', 0 bytes copied at seams' | grep -q ."
kinds=vgem
if [ -e /dev/udmabuf ]; then
	kinds="vgem udmabuf"
else
	echo "skip mixed-ops: a udmabuf input (no /dev/udmabuf in $(uname -r))"
fi
# $1 exporter: mixed-ops equals the CPU and the host-memory input's run.
buffer_run() {
	npu_run "$models/mixed-ops.onnx" "/tmp/mixed-ops.$1.log" \
		--input-buffer "$1" &&
		grep -q "outputs equal the host-memory input's run" \
			"/tmp/mixed-ops.$1.log"
}
for kind in $kinds; do
	check "mixed-ops: a $kind dma-buf input equals cpu and host memory" \
		buffer_run "$kind"
	check "mixed-ops: a $kind dma-buf input is not copied" \
		no_copies "/tmp/mixed-ops.$kind.log"
done

# $1 model: enpu-run's runs reach the driver's BO_WAIT not once (a
# kprobe on the ioctl's handler, counted in kprobe_profile): the job's
# out-syncobj, which the backend waits for anyway, already orders the
# CPU's reads of its outputs. A kprobe, not the function tracer: the
# debug kernel has kprobe events but no FUNCTION_TRACER (writing
# set_ftrace_filter failed there, check-debug of 2026-12-03).
no_bo_waits() {
	t=/sys/kernel/tracing
	probe=enpu_probe/bo_wait
	[ -e $t/kprobe_events ] || mount -t tracefs tracefs $t || return 1
	echo "p:$probe enpu_gem_wait_ioctl" >>$t/kprobe_events || return 1
	echo 1 >$t/events/$probe/enable || return 1
	npu_run "$1" /tmp/bo-wait.log
	status=$?
	n=
	while read -r name hits _; do
		[ "$name" = bo_wait ] && n=$hits
	done <$t/kprobe_profile
	[ -n "$n" ] || cat $t/kprobe_profile
	echo 0 >$t/events/$probe/enable
	echo "-:$probe" >>$t/kprobe_events
	echo "  BO_WAIT ioctls in enpu-run's runs: ${n:-no count}"
	[ "$status" = 0 ] && [ "$n" = 0 ]
}
check "mixed-ops: no BO_WAIT after the job's fence" \
	no_bo_waits "$models/mixed-ops.onnx"
check "mobilenet-96: double-buffered frames equal the sequential run" sh -c \
	"enpu-run '$models/mobilenet-96.onnx' --backends npu,cpu --random 3 \
	 --no-cost --cache-dir '$cache' --iterations 4 --pipeline \
	 >/tmp/pipeline.log 2>&1; s=\$?; cat /tmp/pipeline.log; [ \$s = 0 ] && \
	 grep -q 'pipelined outputs equal the sequential run' /tmp/pipeline.log"
rm -rf "$cache"
echo "vm-npu: $passed passed, $failed failed"
[ "$failed" = 0 ]
