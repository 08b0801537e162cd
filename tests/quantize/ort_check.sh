#!/bin/bash
# Optional cross-check of test-quantize's QDQ models with ONNX Runtime
# (tests/quantize/ort_check.js). Skips with a message when node or the
# onnxruntime-node package (installed by `make bench-cpu`) is missing.
set -euo pipefail
work=${1:?usage: ort_check.sh WORKDIR}
npm_dir=${ENPU_CACHE:-$HOME/.cache/enpu}/npm
if ! command -v node >/dev/null; then
	echo "ort-check: skipped: node is not installed"
	exit 0
fi
if [ ! -d "$npm_dir/node_modules/onnxruntime-node" ]; then
	echo "ort-check: skipped: no onnxruntime-node in $npm_dir (make bench-cpu installs it)"
	exit 0
fi
NODE_PATH=$npm_dir/node_modules exec node "$(dirname "$0")/ort_check.js" "$work"
