// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider on the GEMM benchmark shapes: one
// QLinearMatMul (u8 A x s8 B with per-column B scales -> u8 Y: ORT's CPU
// kernel for u8 A only produces u8) per model.
// No onnx package is available, so the ModelProto is encoded here by hand
// (protobuf wire format, field numbers from onnx.proto). Prints lines
//   ort M N K threads seconds_per_call
// for gemm-bench --ort. Needs onnxruntime-node on NODE_PATH.
'use strict';

const ort = require('onnxruntime-node');

const SHAPES = [
  [1024, 1024, 1024], [256, 256, 256], [49, 1280, 320], [1, 1000, 1280],
  [3136, 24, 144], [3136, 144, 24], [12544, 32, 27],
];
const THREADS = [1, 2];
const FLOAT = 1, UINT8 = 2, INT8 = 3;

// --- protobuf encoding ---------------------------------------------------
function varint(value) {
  const out = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field, data) =>
  Buffer.concat([key(field, 2), varint(data.length), Buffer.from(data)]);
const str = (field, s) => bytes(field, Buffer.from(s, 'utf8'));
const msg = (field, ...parts) => bytes(field, Buffer.concat(parts));

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9.
function tensor(field, name, type, dims, raw) {
  return msg(field, ...dims.map((d) => int(1, d)), int(2, type),
             str(8, name), bytes(9, raw));
}
// ValueInfoProto { name = 1, type = 2 { tensor_type = 1 { elem_type = 1,
// shape = 2 { dim = 1 { dim_value = 1 } } } } }.
function valueInfo(field, name, type, dims) {
  const shape = msg(2, ...dims.map((d) => msg(1, int(1, d))));
  return msg(field, str(1, name), msg(2, msg(1, int(1, type), shape)));
}
// NodeProto: input = 1, output = 2, name = 3, op_type = 4.
function node(inputs, outputs, name, op) {
  return msg(1, ...inputs.map((i) => str(1, i)),
             ...outputs.map((o) => str(2, o)), str(3, name), str(4, op));
}
function floats(values) {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b;
}

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
  // ModelProto: ir_version = 1, producer_name = 2, graph = 7,
  // opset_import = 8 { domain = 1, version = 2 }.
  return Buffer.concat([int(1, 8), str(2, 'enpu-bench'), bytes(7, graph),
                        msg(8, str(1, ''), int(2, 13))]);
}

async function timeRuns(session, feeds, minSeconds, batches) {
  for (let i = 0; i < 3; i++) await session.run(feeds);
  let best = Infinity;
  for (let b = 0; b < batches; b++) {
    const start = process.hrtime.bigint();
    let calls = 0, elapsed = 0;
    do {
      await session.run(feeds);
      calls++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    } while (elapsed < minSeconds);
    best = Math.min(best, elapsed / calls);
  }
  return best;
}

async function main() {
  const minSeconds = Number(process.env.ENPU_BENCH_SECONDS || 0.2);
  for (const [m, n, k] of SHAPES) {
    const model = qlinearMatMulModel(m, n, k);
    const a = new Uint8Array(m * k);
    for (let i = 0; i < a.length; i++) a[i] = (Math.imul(i, 2654435761) >>> 13) & 0xff;
    const feeds = { a: new ort.Tensor('uint8', a, [m, k]) };
    for (const threads of THREADS) {
      const session = await ort.InferenceSession.create(model, {
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
