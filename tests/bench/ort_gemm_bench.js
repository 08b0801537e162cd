// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider on the GEMM benchmark shapes: one
// QLinearMatMul (u8 A x s8 B with per-column B scales -> u8 Y: ORT's CPU
// kernel for u8 A only produces u8) per model.
// The ModelProto is encoded by hand with onnx_proto.js (no onnx package is
// available). Prints lines
//   ort M N K threads seconds_per_call
// for gemm-bench --ort. Needs onnxruntime-node on NODE_PATH.
'use strict';

const ort = require('onnxruntime-node');

const SHAPES = [
  [1024, 1024, 1024], [256, 256, 256], [49, 1280, 320], [1, 1000, 1280],
  [3136, 24, 144], [3136, 144, 24], [12544, 32, 27],
];
const THREADS = [1, 2];
const { FLOAT, UINT8, INT8, str, tensor, valueInfo, node, floats, model,
        timeRuns } = require('./onnx_proto');

function qlinearMatMulModel(m, n, k) {
  const b = Buffer.alloc(k * n);
  for (let i = 0; i < k * n; i++) b[i] = (Math.imul(i, 2246822519) >>> 17) & 0xff;
  const bScale = [];
  for (let i = 0; i < n; i++) bScale.push(0.01 * (1 + (i % 7) / 8));
  const graph = Buffer.concat([
    node(['a', 'a_scale', 'a_zero_point', 'b', 'b_scale', 'b_zero_point',
          'y_scale', 'y_zero_point'], ['y'], 'gemm', 'QLinearMatMul'),
    str(2, 'gemm_bench'),
    tensor(5, 'a_scale', FLOAT, [], floats([0.02])),
    tensor(5, 'a_zero_point', UINT8, [], Buffer.from([128])),
    tensor(5, 'b', INT8, [k, n], b),
    tensor(5, 'b_scale', FLOAT, [n], floats(bScale)),
    tensor(5, 'b_zero_point', INT8, [n], Buffer.alloc(n)),
    tensor(5, 'y_scale', FLOAT, [], floats([0.0002 * k])),
    tensor(5, 'y_zero_point', UINT8, [], Buffer.from([131])),
    valueInfo(11, 'a', UINT8, [m, k]),
    valueInfo(12, 'y', UINT8, [m, n]),
  ]);
  return model(graph, 13);
}

async function main() {
  const minSeconds = Number(process.env.ENPU_BENCH_SECONDS || 0.2);
  for (const [m, n, k] of SHAPES) {
    const bytes = qlinearMatMulModel(m, n, k);
    const a = new Uint8Array(m * k);
    for (let i = 0; i < a.length; i++) a[i] = (Math.imul(i, 2654435761) >>> 13) & 0xff;
    const feeds = { a: new ort.Tensor('uint8', a, [m, k]) };
    for (const threads of THREADS) {
      const session = await ort.InferenceSession.create(bytes, {
        intraOpNumThreads: threads, interOpNumThreads: 1,
        executionMode: 'sequential', graphOptimizationLevel: 'all',
      });
      const seconds = await timeRuns(session, feeds, minSeconds, 5);
      console.log(`ort ${m} ${n} ${k} ${threads} ${seconds}`);
      await session.release();
    }
  }
}

main().catch((e) => { console.error(`ort_gemm_bench: ${e.stack || e}`); process.exit(1); });
