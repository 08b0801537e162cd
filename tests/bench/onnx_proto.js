// SPDX-License-Identifier: MIT
//
// Just enough protobuf wire format to write ONNX ModelProto bytes by hand
// (no onnx package is available); field numbers from onnx.proto.
'use strict';

const FLOAT = 1, UINT8 = 2, INT8 = 3, INT32 = 6;

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
// AttributeProto: name = 1, i = 3, ints = 8, type = 20 (INT = 2, INTS = 7).
function intAttribute(name, value) {
  return msg(5, str(1, name), int(3, value), int(20, 2));
}
function intsAttribute(name, values) {
  return msg(5, str(1, name), ...values.map((v) => int(8, v)), int(20, 7));
}
// NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5.
function node(inputs, outputs, name, op, ...attributes) {
  return msg(1, ...inputs.map((i) => str(1, i)),
             ...outputs.map((o) => str(2, o)), str(3, name), str(4, op),
             ...attributes);
}
function floats(values) {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b;
}
function int32s(values) {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeInt32LE(v, i * 4));
  return b;
}
// ModelProto: ir_version = 1, producer_name = 2, graph = 7,
// opset_import = 8 { domain = 1, version = 2 }.
function model(graph, opset) {
  return Buffer.concat([int(1, 8), str(2, 'enpu-bench'), bytes(7, graph),
                        msg(8, str(1, ''), int(2, opset))]);
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

module.exports = {
  FLOAT, UINT8, INT8, INT32, str, tensor, valueInfo, intAttribute,
  intsAttribute, node, floats, int32s, model, timeRuns,
};
