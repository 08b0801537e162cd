// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider on the published models: for each model of
// the manifest, reads WORK/<name>/inputs.txt and input_<i>.bin (written by
// `model-check inputs`), runs CACHE/<name>.onnx and, when present,
// WORK/<name>/int8.onnx, and writes every output as raw float32 to
// WORK/<name>/ort_<o>.bin and ort_int8_<o>.bin, in graph output order.
// A model ORT cannot run is reported and skipped (model-check then fails
// it for the missing reference).
// Usage: node ort_models.js MANIFEST CACHE WORK
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function runOne(file, dir, prefix) {
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1, interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  const lines = fs.readFileSync(path.join(dir, 'inputs.txt'), 'utf8')
    .trim().split('\n');
  lines.forEach((line, i) => {
    const [name, type, rank, ...dims] = line.split(' ');
    const raw = fs.readFileSync(path.join(dir, `input_${i}.bin`));
    const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    const data = type === 'float32' ? new Float32Array(buf) : new BigInt64Array(buf);
    feeds[name] = new ort.Tensor(type, data, dims.slice(0, Number(rank)).map(Number));
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, o) => {
    const d = out[name].data;
    const f = d instanceof Float32Array ? d : Float32Array.from(d, Number);
    fs.writeFileSync(path.join(dir, `${prefix}_${o}.bin`),
      Buffer.from(f.buffer, f.byteOffset, f.byteLength));
  });
  await session.release();
}

async function main() {
  const [manifest, cache, work] = process.argv.slice(2);
  for (const line of fs.readFileSync(manifest, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const name = line.split(/\s+/)[0];
    const dir = path.join(work, name);
    try {
      await runOne(path.join(cache, `${name}.onnx`), dir, 'ort');
      const q = path.join(dir, 'int8.onnx');
      if (fs.existsSync(q)) await runOne(q, dir, 'ort_int8');
      console.log(`ort ${name}: ok`);
    } catch (e) {
      console.log(`ort ${name}: ${e.message.split('\n')[0]}`);
    }
  }
}

main().catch((e) => { console.error(`ort_models: ${e.stack || e}`); process.exit(1); });
