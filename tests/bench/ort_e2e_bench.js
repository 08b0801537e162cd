// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider on the end-to-end model written by
// `e2e-bench --write-model` (the int8 MobileNetV2-shaped QDQ model):
// graph optimizations "all" (so ORT fuses the QDQ groups into its own
// quantized kernels and NHWC layout), intra-op threads as given, the same
// input values as e2e-bench (mobilenet_input(): xorshift64* uniform in
// [-1, 1], reproduced here). Prints, per thread count,
//   ort_e2e threads median_ms best_ms
// and with --dump FILE writes the logits of the run as float32 LE for the
// cross-check against the ENPU runtime.
// Usage: node ort_e2e_bench.js MODEL [--threads 1,2] [--runs N]
//        [--warmup N] [--dump FILE]
'use strict';

const fs = require('fs');
const ort = require('onnxruntime-node');

function input(count, seed) {
  const mask = (1n << 64n) - 1n;
  let s = 0x2545f4914f6cdd1dn ^ BigInt(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    s ^= s >> 12n;
    s ^= (s << 25n) & mask;
    s ^= s >> 27n;
    const u32 = Number(((s * 2685821657736338717n) & mask) >> 32n);
    out[i] = Math.fround(2.0 * (u32 / 4294967296.0) - 1.0);
  }
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const model = args[0];
  let threads = [1, 2], runs = 50, warmup = 5, dump = null;
  for (let i = 1; i < args.length; i += 2) {
    if (args[i] === '--threads') threads = args[i + 1].split(',').map(Number);
    else if (args[i] === '--runs') runs = Number(args[i + 1]);
    else if (args[i] === '--warmup') warmup = Number(args[i + 1]);
    else if (args[i] === '--dump') dump = args[i + 1];
    else throw new Error(`unknown option ${args[i]}`);
  }
  for (const t of threads) {
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: t, interOpNumThreads: 1,
      executionMode: 'sequential', graphOptimizationLevel: 'all',
    });
    const name = session.inputNames[0];
    const dims = [1, 3, 224, 224];
    const meta = session.inputMetadata && session.inputMetadata[0];
    if (meta && meta.shape) meta.shape.forEach((d, i) => { if (typeof d === 'number') dims[i] = d; });
    const count = dims.reduce((a, b) => a * b, 1);
    const feeds = { [name]: new ort.Tensor('float32', input(count, 1), dims) };
    let out;
    for (let i = 0; i < warmup; i++) out = await session.run(feeds);
    const times = [];
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint();
      out = await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    const median = runs % 2 ? times[(runs - 1) / 2] :
      (times[runs / 2 - 1] + times[runs / 2]) / 2;
    console.log(`ort_e2e ${t} ${median} ${times[0]}`);
    if (dump) {
      const logits = out[session.outputNames[0]].data;
      fs.writeFileSync(dump, Buffer.from(logits.buffer, logits.byteOffset, logits.byteLength));
      dump = null;
    }
    await session.release();
  }
}

main().catch((e) => { console.error(`ort_e2e_bench: ${e.stack || e}`); process.exit(1); });
