// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider as a worker process for the model tests and
// benchmarks (model_io.h): loads MODEL with THREADS intra-op threads
// (graph optimizations "all", sequential execution), reads its inputs
// from INPUT_DIR/inputs.txt and input_<i>.bin, prints "ready", then
// answers each stdin line:
//   run                 one inference; prints its wall time in ms
//   dump DIR PREFIX     writes the last outputs as DIR/PREFIX_<o>.bin
//                       (float32, graph output order); prints "ok"
// and exits at end of input. Errors go to stdout as "error: ..." lines.
// Usage: node ort_worker.js MODEL INPUT_DIR THREADS
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

async function main() {
  const [model, dir, threads] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = {};
  fs.readFileSync(path.join(dir, 'inputs.txt'), 'utf8').trim().split('\n')
    .forEach((line, i) => {
      const [name, type, rank, ...dims] = line.split(' ');
      const raw = fs.readFileSync(path.join(dir, `input_${i}.bin`));
      const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
      const data = type === 'float32' ? new Float32Array(buf) : new BigInt64Array(buf);
      feeds[name] = new ort.Tensor(type, data, dims.slice(0, Number(rank)).map(Number));
    });
  let last = await session.run(feeds);
  console.log('ready');
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, outDir, prefix] = line.split(' ');
    if (cmd === 'run') {
      const start = process.hrtime.bigint();
      last = await session.run(feeds);
      console.log(Number(process.hrtime.bigint() - start) / 1e6);
    } else if (cmd === 'dump') {
      session.outputNames.forEach((name, o) => {
        const d = last[name].data;
        const f = d instanceof Float32Array ? d : Float32Array.from(d, Number);
        fs.writeFileSync(path.join(outDir, `${prefix}_${o}.bin`),
          Buffer.from(f.buffer, f.byteOffset, f.byteLength));
      });
      console.log('ok');
    }
  }
  await session.release();
}

main().catch((e) => { console.log(`error: ${(e.message || e).split('\n')[0]}`); process.exit(1); });
