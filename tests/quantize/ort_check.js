// SPDX-License-Identifier: MIT
//
// Cross-check of enpu-quantize's QDQ models with ONNX Runtime's CPU
// provider: each quantized model that test-quantize wrote must load and
// run in ORT, and its outputs must be within the test's tolerance (2 % of
// the float output range; 5 % for the percentile model) of the float model's, on inputs drawn from 90 %
// of the calibration range. Usage: node ort_check.js WORKDIR (needs
// onnxruntime-node on NODE_PATH). Prints "N passed, N failed".
'use strict';

const ort = require('onnxruntime-node');
const path = require('path');

const TOLERANCE = 0.02;
const CASES = [
  // float model, quantized model, input dims, calibration range, tolerance
  ['cnn.onnx', 'cnn_q.onnx', [1, 3, 8, 8], 1, TOLERANCE],
  ['res.onnx', 'res_q.onnx', [1, 4, 6, 6], 1, TOLERANCE],
  ['mm.onnx', 'mm_q.onnx', [4, 16], 2, TOLERANCE],
  ['mm.onnx', 'mm_qt.onnx', [4, 16], 2, TOLERANCE],
  // 99.9th percentile of uniform data clips its own tails on purpose.
  ['mm.onnx', 'mm_pct.onnx', [4, 16], 1, 0.05],
  ['mm11.onnx', 'mm11_q.onnx', [4, 16], 2, TOLERANCE],
];

let seed = 7;
function uniform(lo, hi) {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return lo + (hi - lo) * (seed >>> 8) / (1 << 24);
}

async function runOne(dir, [fname, qname, dims, range]) {
  const opts = { intraOpNumThreads: 1 };
  const f = await ort.InferenceSession.create(path.join(dir, fname), opts);
  const q = await ort.InferenceSession.create(path.join(dir, qname), opts);
  const n = dims.reduce((a, b) => a * b, 1);
  let worst = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let t = 0; t < 8; t++) {
    const x = new Float32Array(n).map(() => uniform(-0.9 * range, 0.9 * range));
    const feed = { [f.inputNames[0]]: new ort.Tensor('float32', x, dims) };
    const yf = (await f.run(feed))[f.outputNames[0]].data;
    const yq = (await q.run(feed))[q.outputNames[0]].data;
    if (yf.length !== yq.length) throw new Error('output sizes differ');
    for (let i = 0; i < yf.length; i++) {
      worst = Math.max(worst, Math.abs(yf[i] - yq[i]));
      lo = Math.min(lo, yf[i]);
      hi = Math.max(hi, yf[i]);
    }
  }
  return hi > lo ? worst / (hi - lo) : worst;
}

async function main() {
  const dir = process.argv[2];
  let passed = 0;
  let failed = 0;
  for (const c of CASES) {
    try {
      const err = await runOne(dir, c);
      const ok = err <= c[4];
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${c[1]}: ORT worst error ` +
                  `${err.toFixed(4)} of the output range`);
      if (ok) passed++; else failed++;
    } catch (e) {
      console.log(`FAIL ${c[1]}: ${e.message}`);
      failed++;
    }
  }
  console.log(`ort-check: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main();
