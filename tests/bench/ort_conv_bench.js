// SPDX-License-Identifier: MIT
//
// ONNX Runtime's CPU provider on the convolution benchmark layers: one
// QLinearConv per model (u8 NCHW input with zero point 128, s8 weights
// with per-output-channel scales, s32 bias, u8 output with zero point 131).
// The layer list must match conv_bench.c (same order). Prints lines
//   ort_conv layer_index threads seconds_per_call
// for conv-bench --ort. Needs onnxruntime-node on NODE_PATH.
'use strict';

const ort = require('onnxruntime-node');
const p = require('./onnx_proto');

// [H, W, Cin, Cout, groups, kernel, stride, pad], as in conv_bench.c.
const LAYERS = [
  [224, 224, 3, 32, 1, 3, 2, 1], [112, 112, 32, 32, 32, 3, 1, 1],
  [112, 112, 32, 16, 1, 1, 1, 0], [56, 56, 24, 144, 1, 1, 1, 0],
  [56, 56, 144, 144, 144, 3, 2, 1], [28, 28, 32, 192, 1, 1, 1, 0],
  [28, 28, 192, 192, 192, 3, 1, 1], [14, 14, 96, 576, 1, 1, 1, 0],
  [14, 14, 576, 576, 576, 3, 1, 1], [7, 7, 160, 960, 1, 1, 1, 0],
  [7, 7, 960, 960, 960, 3, 1, 1], [7, 7, 960, 160, 1, 1, 1, 0],
];
const THREADS = [1, 2];

function qlinearConvModel([h, w, cin, cout, groups, k, stride, pad]) {
  const cinG = cin / groups;
  const oh = Math.floor((h + 2 * pad - k) / stride) + 1;
  const ow = Math.floor((w + 2 * pad - k) / stride) + 1;
  const weights = Buffer.alloc(cout * cinG * k * k);
  for (let i = 0; i < weights.length; i++) {
    weights[i] = (Math.imul(i, 2246822519) >>> 17) & 0xff;
  }
  const wScale = [];
  for (let i = 0; i < cout; i++) wScale.push(0.01 * (1 + (i % 7) / 8));
  const graph = Buffer.concat([
    p.node(['x', 'x_scale', 'x_zero_point', 'w', 'w_scale', 'w_zero_point',
            'y_scale', 'y_zero_point', 'bias'], ['y'], 'conv', 'QLinearConv',
           p.intAttribute('group', groups),
           p.intsAttribute('kernel_shape', [k, k]),
           p.intsAttribute('pads', [pad, pad, pad, pad]),
           p.intsAttribute('strides', [stride, stride]),
           p.intsAttribute('dilations', [1, 1])),
    p.str(2, 'conv_bench'),
    p.tensor(5, 'x_scale', p.FLOAT, [], p.floats([0.02])),
    p.tensor(5, 'x_zero_point', p.UINT8, [], Buffer.from([128])),
    p.tensor(5, 'w', p.INT8, [cout, cinG, k, k], weights),
    p.tensor(5, 'w_scale', p.FLOAT, [cout], p.floats(wScale)),
    p.tensor(5, 'w_zero_point', p.INT8, [cout], Buffer.alloc(cout)),
    p.tensor(5, 'y_scale', p.FLOAT, [], p.floats([0.0002 * cinG * k * k])),
    p.tensor(5, 'y_zero_point', p.UINT8, [], Buffer.from([131])),
    p.tensor(5, 'bias', p.INT32, [cout], p.int32s(new Array(cout).fill(0))),
    p.valueInfo(11, 'x', p.UINT8, [1, cin, h, w]),
    p.valueInfo(12, 'y', p.UINT8, [1, cout, oh, ow]),
  ]);
  return p.model(graph, 13);
}

async function main() {
  const minSeconds = Number(process.env.ENPU_BENCH_SECONDS || 0.2);
  for (let index = 0; index < LAYERS.length; index++) {
    const [h, w, cin] = LAYERS[index];
    const model = qlinearConvModel(LAYERS[index]);
    const x = new Uint8Array(h * w * cin);
    for (let i = 0; i < x.length; i++) x[i] = (Math.imul(i, 2654435761) >>> 13) & 0xff;
    const feeds = { x: new ort.Tensor('uint8', x, [1, cin, h, w]) };
    for (const threads of THREADS) {
      const session = await ort.InferenceSession.create(model, {
        intraOpNumThreads: threads, interOpNumThreads: 1,
        executionMode: 'sequential', graphOptimizationLevel: 'all',
      });
      const seconds = await p.timeRuns(session, feeds, minSeconds, 5);
      console.log(`ort_conv ${index} ${threads} ${seconds}`);
      await session.release();
    }
  }
}

main().catch((e) => { console.error(`ort_conv_bench: ${e.stack || e}`); process.exit(1); });
