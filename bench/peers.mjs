// The peers on the same workloads: tfjs-backend-webgpu and onnxruntime-web (WebGPU EP).
// Each gets its library object from the caller (a page's <script>/import, or Node's loader).
// Timing closes with the library's own device: queue.onSubmittedWorkDone() after its work is flushed;
// rounds and warm-up as every framework's (bench/timing.mjs).
import {timeRounds} from "./timing.mjs";

const now = () => performance.now();

// ---------------------------------------------------------------- tfjs-backend-webgpu
export async function runTfjs(cfg, tf) {
  await tf.setBackend("webgpu");
  await tf.ready();
  const be = tf.backend();
  // The open compute pass ends first: finishing its command encoder under it invalidates the whole buffer.
  const sync = async () => { be.endComputePassEncoder(); be.submitQueue(); await be.device.queue.onSubmittedWorkDone(); };
  const res = {version: tf.version_core};
  // The last result of each loop is read (one element) so that the work cannot be skipped.
  const readOne = async (t) => { const v = tf.slice(tf.reshape(t, [-1]), [0], [1]); await v.data(); tf.dispose(v); };
  // {ms per call (the median round), ms_min, ms_max}
  const timed = (fn, reps) => timeRounds(cfg, async (r) => {
    let last;
    for (let i = 0; i < r; i++) { if (i) tf.dispose(last); last = fn(); }
    await readOne(last);
    tf.dispose(last);
  }, reps);
  res.matmul = [];
  for (const [m, k, n] of cfg.matmul) {
    const a = tf.fill([m, k], 0.5), b = tf.fill([k, n], 0.25);
    const flops = 2 * m * n * k;
    const reps = Math.max(1, Math.min(cfg.max_reps || 20, Math.floor(cfg.matmul_flop_budget / flops)));
    const t = await timed(() => tf.matMul(a, b), reps);
    res.matmul.push({shape: `${m}x${k}x${n}`, ...t, gflops: flops / t.ms / 1e6, reps});
    tf.dispose([a, b]);
  }
  res.chain = [];
  for (const numel of cfg.chain_sizes) {
    const x = tf.fill([numel], 1.0);
    const run = () => { let y = x; for (let i = 0; i < cfg.chain_ops / 2; i++) { const y1 = tf.add(y, 1.0); if (y !== x) y.dispose(); y = tf.mul(y1, 0.5); y1.dispose(); } return y; };
    const t = await timeRounds(cfg, async () => { const y = run(); await readOne(y); y.dispose(); }, 1);
    res.chain.push({numel, us_per_op: t.ms * 1e3 / cfg.chain_ops});
    x.dispose();
  }
  res.bandwidth = [];
  for (const numel of cfg.bw_sizes) {
    const a = tf.fill([numel], 1.0), b = tf.fill([numel], 2.0), a2 = tf.reshape(a, [-1, cfg.softmax_row || 1024]);
    const reps = Math.max(2, Math.min(cfg.max_reps || 20, Math.floor(cfg.bw_byte_budget / (12 * numel))));
    for (const [op, fn, per] of [["add", () => tf.add(a, b), 12], ["sum", () => tf.sum(a), 4],
                                 ["softmax", () => tf.softmax(a2), 8]]) {
      const t = await timed(fn, reps);
      res.bandwidth.push({op, numel, ...t, gbps: per * numel / t.ms / 1e6});
    }
    tf.dispose([a, b, a2]);
  }
  res.transfer = [];
  for (const mb of cfg.transfer_mb) {
    const numel = mb << 18, host = new Float32Array(numel);
    const x = tf.tensor1d(host); await x.data();
    const reps = cfg.transfer_reps || 3;
    await cfg.heat();
    let t0 = now();
    for (let i = 0; i < reps; i++) { const t = tf.tensor1d(host); tf.add(t, 0).dispose(); await sync(); t.dispose(); }
    const tu = (now() - t0) / reps;
    t0 = now();
    for (let i = 0; i < reps; i++) { const y = tf.add(x, 0); await y.data(); y.dispose(); }
    const td = (now() - t0) / reps;
    res.transfer.push({mb, upload_ms: tu, upload_gbps: numel * 4 / tu / 1e6, download_ms: td, download_gbps: numel * 4 / td / 1e6,
                       note: "upload includes one add (tfjs uploads lazily); download includes one add"});
    x.dispose();
  }
  {
    const x = tf.fill([1024], 1.0);
    const once = async () => { const s = tf.sum(x); await s.data(); s.dispose(); };
    await once(); await cfg.heat(); const reps = cfg.item_reps || 50; const t0 = now();
    for (let i = 0; i < reps; i++) await once();
    res.item = {us_sum_then_item: (now() - t0) / reps * 1e3};
    x.dispose();
  }
  res.models = [];
  const models = tfjsModels(cfg, tf);
  for (const [name, fn] of models.steps) res.models.push({name, ...await timed(fn, cfg.model_reps || 5)});
  models.dispose();
  return res;
}

// tfjs-core's script bundles register no gradients (the union package @tensorflow/tfjs imports tfjs-core's
// register_all_gradients); these are tfjs-core's own gradient definitions (src/gradients/*_grad.ts) for
// the kernels the two training steps differentiate.
function registerTfjsGradients(tf) {
  const run = (kernel, inputs, attrs) => tf.engine().runKernel(kernel, inputs, attrs);
  const reduceTo = (g, shape) => {  // a broadcast input's gradient: summed back to its shape
    const axes = tf.broadcast_util.getReductionAxes(shape, g.shape);
    return tf.reshape(axes.length ? tf.sum(g, axes) : g, shape);
  };
  const grads = {
    BatchMatMul: [["a", "b"], (dy, [a, b], {transposeA, transposeB}) => {
      if (transposeA || transposeB) throw new Error("the training steps multiply untransposed operands");
      return {a: () => tf.matMul(dy, b, false, true), b: () => tf.matMul(a, dy, true, false)};
    }],
    Add: [["a", "b"], (dy, [a, b]) => ({a: () => reduceTo(dy, a.shape), b: () => reduceTo(dy, b.shape)})],
    RealDiv: [["a", "b"], (dy, [a, b]) => ({
      a: () => reduceTo(tf.div(dy, b), a.shape),
      b: () => tf.neg(tf.div(reduceTo(tf.mul(dy, a), b.shape), tf.square(b)))})],
    Relu: [["x"], (dy, [x]) => ({x: () => tf.mul(dy, tf.cast(tf.step(x), "float32"))})],
    Reshape: [["x"], (dy, [x]) => ({x: () => tf.reshape(dy, x.shape)})],
    Sum: [["x"], (dy, [x], {axis}) => {
      const shape = x.shape.slice();
      for (const a of tf.util.parseAxisParam(axis, x.shape)) shape[a] = 1;
      return {x: () => tf.mul(tf.reshape(dy, shape), tf.ones(x.shape, "float32"))};
    }],
    Conv2D: [["x", "filter"], (dy, [x, filter], {strides, pad, dataFormat}) => ({
      x: () => run("Conv2DBackpropInput", {dy, filter}, {strides, pad, dataFormat, inputShape: x.shape}),
      filter: () => run("Conv2DBackpropFilter", {x, dy}, {strides, pad, dataFormat, filterShape: filter.shape})})],
    MaxPool: [["x"], (dy, [x, y], {filterSize, strides, pad}) => ({
      x: () => run("MaxPoolGrad", {dy, input: x, output: y}, {filterSize, strides, pad})}), [true]],
  };
  for (const [kernelName, [inputsToSave, gradFunc, outputsToSave]] of Object.entries(grads)) {
    if (!tf.getGradient(kernelName)) tf.registerGradient({kernelName, inputsToSave, outputsToSave, gradFunc});
  }
}

// bench/workloads.py `models` in tf ops, the same names and shapes: the Transformer encoder layer forward
// (post-norm, ReLU, layer norm through tf.moments, one in-projection split in three) and Adam training
// steps (loss, gradients, update: optimizer.minimize) of the MLP and the CNN, the CNN in NHWC (tfjs's
// layout; webtorch's is NCHW), all labels class 0 as there. Each step returns a tensor for timed().
function tfjsModels(cfg, tf) {
  registerTfjsGradients(tf);
  const rand = (shape) => tf.randomNormal(shape, 0, 0.02);
  const [b, t, d, h] = cfg.encoder, dh = d / h, f = 4 * d, n = cfg.train_batch;
  const e = {wi: rand([d, 3 * d]), bi: tf.zeros([3 * d]), wo: rand([d, d]), bo: tf.zeros([d]), w1: rand([d, f]),
             b1: tf.zeros([f]), w2: rand([f, d]), b2: tf.zeros([d]), g1: tf.ones([d]), c1: tf.zeros([d]),
             g2: tf.ones([d]), c2: tf.zeros([d]), x: tf.fill([b, t, d], 0.1)};
  const linear = (v, w, bias) => tf.add(tf.matMul(v, w), bias);
  const norm = (v, g, c) => {
    const {mean, variance} = tf.moments(v, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(v, mean), tf.rsqrt(tf.add(variance, 1e-5))), g), c);
  };
  const heads = (v) => tf.transpose(tf.reshape(v, [b, t, h, dh]), [0, 2, 1, 3]);
  const encoder = () => tf.tidy(() => {
    const x = tf.reshape(e.x, [b * t, d]);
    const [q, k, v] = tf.split(linear(x, e.wi, e.bi), 3, 1).map(heads);
    const p = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)));
    const o = tf.reshape(tf.transpose(tf.matMul(p, v), [0, 2, 1, 3]), [b * t, d]);
    const y = norm(tf.add(x, linear(o, e.wo, e.bo)), e.g1, e.c1);
    return tf.reshape(norm(tf.add(y, linear(tf.relu(linear(y, e.w1, e.b1)), e.w2, e.b2)), e.g2, e.c2), [b, t, d]);
  });
  const labels = tf.tidy(() => tf.cast(tf.oneHot(tf.zeros([n], "int32"), 10), "float32"));
  const params = (shapes) => shapes.map((s, i) => tf.variable(tf.tidy(() => i % 2 ? tf.zeros(s) : rand(s))));
  const mlp = params([[784, 256], [256], [256, 10], [10]]);
  const cnn = params([[3, 3, 1, 8], [8], [8 * 14 * 14, 10], [10]]);
  const mlpX = tf.fill([n, 784], 0.5), cnnX = tf.fill([n, 28, 28, 1], 0.5);
  const mlpForward = () => linear(tf.relu(linear(mlpX, mlp[0], mlp[1])), mlp[2], mlp[3]);
  const cnnForward = () => linear(tf.reshape(tf.maxPool(tf.relu(tf.add(tf.conv2d(cnnX, cnn[0], 1, "same"), cnn[1])),
                                                        2, 2, "valid"), [n, -1]), cnn[2], cnn[3]);
  const optimizers = [];
  const train = (forward, vars) => {
    const opt = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);  // torch.optim.Adam's defaults
    optimizers.push(opt);
    return () => opt.minimize(() => tf.losses.softmaxCrossEntropy(labels, forward()), true, vars);
  };
  return {
    steps: [[`encoder layer forward ${b}x${t}x${d}`, encoder],
            [`MLP 784-256-10 training step, batch ${n}`, train(mlpForward, mlp)],
            [`CNN conv8-pool-linear training step, batch ${n}`, train(cnnForward, cnn)]],
    dispose: () => { tf.dispose([...Object.values(e), labels, mlp, cnn, mlpX, cnnX]); optimizers.forEach((o) => o.dispose()); },
  };
}

// ---------------------------------------------------------------- onnxruntime-web (WebGPU EP)
// A minimal ONNX protobuf writer (no onnx package, nothing downloaded): graphs of float tensors with
// fixed shapes, weights as initializers. Each helper returns the bytes of one protobuf field.
const cat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) { out.set(p, i); i += p.length; }
  return out;
};
const varint = (n) => {
  const o = []; n = BigInt.asUintN(64, BigInt(n));
  do { let b = Number(n & 0x7fn); n >>= 7n; if (n) b |= 0x80; o.push(b); } while (n);
  return Uint8Array.from(o);
};
const pbInt = (f, v) => cat([varint(f << 3), varint(v)]);
const pbBytes = (f, body) => cat([varint((f << 3) | 2), varint(body.length), body]);
const pbStr = (f, s) => pbBytes(f, new TextEncoder().encode(s));
const pbFloat = (f, v) => cat([varint((f << 3) | 5), new Uint8Array(Float32Array.of(v).buffer)]);
// GraphProto.node; attribute values: an integer (INT), another number (FLOAT) or an array of integers (INTS)
const onnxNode = (op, ins, outs, attrs = {}) => pbBytes(1, cat([
  ...ins.map((n) => pbStr(1, n)), ...outs.map((n) => pbStr(2, n)), pbStr(4, op),
  ...Object.entries(attrs).map(([name, v]) => pbBytes(5, cat([pbStr(1, name),
    ...(Array.isArray(v) ? [...v.map((x) => pbInt(8, x)), pbInt(20, 7)] :
      Number.isInteger(v) ? [pbInt(3, v), pbInt(20, 2)] : [pbFloat(2, v), pbInt(20, 1)])])))]));
// GraphProto.initializer from a Float32Array, BigInt64Array or Uint16Array (float16 bits; raw little-endian data)
const onnxInit = (name, dims, data) => pbBytes(5, cat([
  ...dims.map((d) => pbInt(1, d)), pbInt(2, data instanceof BigInt64Array ? 7 : data instanceof Uint16Array ? 10 : 1),
  pbStr(8, name),
  pbBytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength))]));
// ValueInfoProto of a tensor: elemType 1 float, 7 int64, 10 float16
const onnxValue = (f, name, shape, elemType = 1) => pbBytes(f, cat([pbStr(1, name), pbBytes(2, pbBytes(1, cat([
  pbInt(1, elemType), pbBytes(2, cat(shape.map((d) => pbBytes(1, pbInt(1, d)))))])))]));
// ir_version 8, opset 17 (the first with LayerNormalization)
const onnxModel = ({nodes, inputs, outputs, inits = []}) => cat([pbInt(1, 8), pbBytes(7, cat([
  ...nodes, pbStr(2, "g"), ...inits, ...inputs.map(([n, s, type]) => onnxValue(11, n, s, type)),
  ...outputs.map(([n, s, type]) => onnxValue(12, n, s, type))])), pbBytes(8, cat([pbStr(1, ""), pbInt(2, 17)]))]);
const onnxOp = (op, inputs, outputShape, attrs, outputType) =>
  onnxModel({nodes: [onnxNode(op, inputs.map(([n]) => n), ["y"], attrs)], inputs,
             outputs: [["y", outputShape, outputType]]});
// The float16 bits of a number in half's normal range (or 0), rounded to nearest even.
const halfBits = (v) => {
  if (v === 0) return 0;
  const u = new Uint32Array(Float32Array.of(v).buffer)[0];
  const h = ((u >>> 16) & 0x8000) | ((((u >>> 23) & 0xff) - 112) << 10) | ((u & 0x7fffff) >>> 13), rest = u & 0x1fff;
  return rest > 0x1000 || (rest === 0x1000 && (h & 1)) ? h + 1 : h;
};

// torch.nn.TransformerEncoderLayer(d, h, dim_feedforward=4d, dropout=0, batch_first=True) forward, post-norm,
// ReLU, as an ONNX export would have it: one in-projection MatMul split in three, LayerNormalization.
// Weights are constants (the timing does not depend on their values). half: weights, input and output in
// float16 (as a model.half() export has them).
function encoderModel(b, t, d, h, half = false) {
  const dh = d / h, f = 4 * d, nodes = [], inits = [];
  let k = 0;
  const op = (type, ins, attrs) => { const out = `t${k++}`; nodes.push(onnxNode(type, ins, [out], attrs)); return out; };
  const weight = (name, dims, v) => {
    const n = dims.reduce((a, c) => a * c, 1);
    inits.push(onnxInit(name, dims, half ? new Uint16Array(n).fill(halfBits(v)) : new Float32Array(n).fill(v)));
    return name;
  };
  const shape = (name, dims) => { inits.push(onnxInit(name, [dims.length], BigInt64Array.from(dims, BigInt))); return name; };
  const linear = (x, din, dout, name) => op("Add", [op("MatMul", [x, weight(`${name}.w`, [din, dout], 0.02)]),
                                                   weight(`${name}.b`, [dout], 0)]);
  const norm = (x, name) => op("LayerNormalization", [x, weight(`${name}.g`, [d], 1), weight(`${name}.b`, [d], 0)],
                               {axis: -1});
  nodes.push(onnxNode("Split", [linear("x", d, 3 * d, "in_proj"), shape("split", [d, d, d])], ["q", "k", "v"], {axis: 2}));
  const bthd = shape("bthd", [b, t, h, dh]);
  const heads = (x, perm) => op("Transpose", [op("Reshape", [x, bthd])], {perm});
  const scores = op("Mul", [op("MatMul", [heads("q", [0, 2, 1, 3]), heads("k", [0, 2, 3, 1])]),
                            weight("scale", [], 1 / Math.sqrt(dh))]);
  const att = op("MatMul", [op("Softmax", [scores], {axis: -1}), heads("v", [0, 2, 1, 3])]);
  const o = op("Reshape", [op("Transpose", [att], {perm: [0, 2, 1, 3]}), shape("btd", [b, t, d])]);
  const y = norm(op("Add", ["x", linear(o, d, d, "out_proj")]), "norm1");
  const z = norm(op("Add", [y, linear(op("Relu", [linear(y, d, f, "linear1")]), f, d, "linear2")]), "norm2");
  const type = half ? 10 : 1;
  return onnxModel({nodes, inits, inputs: [["x", [b, t, d], type]], outputs: [[z, [b, t, d], type]]});
}

// The tensors of a safetensors file (an ArrayBuffer): {name: {dims, data}} (float32 and int64 only).
export function readSafetensors(buffer) {
  const headerLength = Number(new DataView(buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, headerLength)));
  const out = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const {dtype, shape, data_offsets: [begin, end]} = entry;
    const Kind = {F32: Float32Array, I64: BigInt64Array}[dtype];
    if (!Kind) throw new Error(`safetensors: ${name} is ${dtype}`);
    // copied out: the typed array needs an aligned offset
    out[name] = {dims: shape, data: new Kind(buffer.slice(8 + headerLength + begin, 8 + headerLength + end))};
  }
  return out;
}

// all-MiniLM-L6-v2 (BertModel, web/examples/minilm.py) forward at (b, t) tokens as torch.onnx.export writes
// it: Gather embeddings, MatMul by each Linear's transposed weight then Add its bias, the attention mask
// added to the scores as (1 - mask) * -1e9, GELU through Erf; inputs input_ids, attention_mask (int64 [b, t]),
// output the last hidden states. w: the checkpoint's tensors (readSafetensors).
export function minilmModel(b, t, w, layers = 6, heads = 12) {
  const nodes = [], inits = [];
  const d = w["embeddings.word_embeddings.weight"].dims[1], dh = d / heads;
  let k = 0;
  const op = (type, ins, attrs) => { const out = `t${k++}`; nodes.push(onnxNode(type, ins, [out], attrs)); return out; };
  const init = (name, dims, data) => { inits.push(onnxInit(name, dims, data)); return name; };
  const param = (name) => init(name, w[name].dims, w[name].data);
  const scalar = (name, v) => init(name, [], Float32Array.of(v));
  const ints = (name, dims, values) => init(name, dims, BigInt64Array.from(values, BigInt));
  const transposed = (name) => {  // (out, in) -> (in, out)
    const [o, i] = w[name].dims, src = w[name].data, dst = new Float32Array(o * i);
    for (let r = 0; r < o; r++) for (let c = 0; c < i; c++) dst[c * o + r] = src[r * i + c];
    return init(name + ".T", [i, o], dst);
  };
  const linear = (x, name) => op("Add", [op("MatMul", [x, transposed(`${name}.weight`)]), param(`${name}.bias`)]);
  const norm = (x, name) => op("LayerNormalization", [x, param(`${name}.weight`), param(`${name}.bias`)],
                               {axis: -1, epsilon: 1e-12});
  const e = "embeddings";
  const positions = ints("positions", [t], Array.from({length: t}, (_, i) => i));
  const tokenTypes = ints("token_types", [b, t], new Array(b * t).fill(0));
  let x = norm(op("Add", [op("Add", [op("Gather", [param(`${e}.word_embeddings.weight`), "input_ids"]),
                                      op("Gather", [param(`${e}.token_type_embeddings.weight`), tokenTypes])]),
                          op("Gather", [param(`${e}.position_embeddings.weight`), positions])]), `${e}.LayerNorm`);
  const mask = op("Reshape", [op("Mul", [op("Sub", [scalar("one", 1), op("Cast", ["attention_mask"], {to: 1})]),
                                         scalar("neg", -1e9)]), ints("b11t", [4], [b, 1, 1, t])]);
  const bthd = ints("bthd", [4], [b, t, heads, dh]), btd = ints("btd", [3], [b, t, d]);
  const scale = scalar("scale", 1 / Math.sqrt(dh)), half = scalar("half", 0.5), sqrt2 = scalar("sqrt2", Math.SQRT2);
  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}`;
    const headsOf = (name, perm) => op("Transpose", [op("Reshape", [linear(x, `${p}.attention.self.${name}`), bthd])],
                                       {perm});
    const scores = op("Add", [op("Mul", [op("MatMul", [headsOf("query", [0, 2, 1, 3]), headsOf("key", [0, 2, 3, 1])]),
                                         scale]), mask]);
    const context = op("MatMul", [op("Softmax", [scores], {axis: -1}), headsOf("value", [0, 2, 1, 3])]);
    const merged = op("Reshape", [op("Transpose", [context], {perm: [0, 2, 1, 3]}), btd]);
    const a = norm(op("Add", [linear(merged, `${p}.attention.output.dense`), x]), `${p}.attention.output.LayerNorm`);
    const h = linear(a, `${p}.intermediate.dense`);
    const gelu = op("Mul", [op("Mul", [h, half]), op("Add", [scalar(`one${l}`, 1), op("Erf", [op("Div", [h, sqrt2])])])]);
    x = norm(op("Add", [linear(gelu, `${p}.output.dense`), a]), `${p}.output.LayerNorm`);
  }
  return onnxModel({nodes, inits, inputs: [["input_ids", [b, t], 7], ["attention_mask", [b, t], 7]],
                    outputs: [[x, [b, t, d]]]});
}

// inputs: {weights (model.safetensors' ArrayBuffer), sections (bench/workloads.py's names; all when absent)}
export async function runOrt(cfg, ort, inputs = {}) {
  const want = (section) => !inputs.sections || inputs.sections.includes(section);
  ort.env.wasm.numThreads = 1;
  const res = {version: ort.env.versions && ort.env.versions.web};
  const session = (bytes) => ort.InferenceSession.create(bytes, {executionProviders: ["webgpu"],
                                                                  preferredOutputLocation: "gpu-buffer"});
  const make = (op, inputs, outShape, attrs, outType) => session(onnxOp(op, inputs, outShape, attrs, outType));
  // Inputs live on ORT's own device: each is the GPU output of an Identity session.
  const idSessions = [];
  const gpuInput = async (dims, value, half = false) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const s = await make("Identity", [["x", dims, half ? 10 : 1]], dims, {}, half ? 10 : 1);
    idSessions.push(s);
    const data = half ? new Uint16Array(n).fill(halfBits(value)) : new Float32Array(n).fill(value);
    return (await s.run({x: new ort.Tensor(half ? "float16" : "float32", data, dims)})).y;
  };
  let device = null;
  // {ms per run (the median round), ms_min, ms_max}
  const timed = async (session, feeds, reps) => {
    device = device || await ort.env.webgpu.device;
    const drop = (o) => { for (const k in o) o[k].dispose(); };
    return timeRounds(cfg, async (r) => {
      for (let i = 0; i < r; i++) drop(await session.run(feeds));
      await device.queue.onSubmittedWorkDone();
    }, reps);
  };
  res.matmul = [];
  for (const [m, k, n] of want("matmul") ? cfg.matmul : []) {
    const s = await make("MatMul", [["a", [m, k]], ["b", [k, n]]], [m, n]);
    const feeds = {a: await gpuInput([m, k], 0.5), b: await gpuInput([k, n], 0.25)};
    const flops = 2 * m * n * k;
    const reps = Math.max(1, Math.min(cfg.max_reps || 20, Math.floor(cfg.matmul_flop_budget / flops)));
    const t = await timed(s, feeds, reps);
    res.matmul.push({shape: `${m}x${k}x${n}`, ...t, gflops: flops / t.ms / 1e6, reps});
    await s.release();
  }
  // one Add per session.run: ORT's eager-op cost
  res.chain = [];
  for (const numel of want("chain") ? cfg.chain_sizes : []) {
    const s = await make("Add", [["a", [numel]], ["b", [numel]]], [numel]);
    const feeds = {a: await gpuInput([numel], 1), b: await gpuInput([numel], 2)};
    const reps = Math.min(cfg.chain_ops, 200);
    const t = await timed(s, feeds, reps);
    res.chain.push({numel, us_per_op: t.ms * 1e3, note: "one session.run of one Add per op"});
    await s.release();
  }
  res.bandwidth = [];
  for (const numel of want("bandwidth") ? cfg.bw_sizes : []) {
    const reps = Math.max(2, Math.min(cfg.max_reps || 20, Math.floor(cfg.bw_byte_budget / (12 * numel))));
    const row = cfg.softmax_row || 1024;
    for (const [op, ins, out, per, attrs] of [
      ["add", [["a", [numel]], ["b", [numel]]], [numel], 12, {}],
      ["sum", [["a", [numel]]], [1], 4, {keepdims: 1}],
      ["softmax", [["a", [numel / row, row]]], [numel / row, row], 8, {axis: -1}]]) {
      const s = await make(op === "add" ? "Add" : op === "sum" ? "ReduceSum" : "Softmax", ins, out, attrs);
      const feeds = {};
      for (const [n, d] of ins) feeds[n] = await gpuInput(d, 1);
      const t = await timed(s, feeds, reps);
      res.bandwidth.push({op, numel, ...t, gbps: per * numel / t.ms / 1e6});
      await s.release();
    }
  }
  // The model rows webtorch shares (names as in bench/workloads.py); ORT-web has no training API.
  if (want("models")) {
    const [b, t, d, h] = cfg.encoder;
    const s = await session(encoderModel(b, t, d, h));
    res.models = [{name: `encoder layer forward ${b}x${t}x${d}`,
                   ...await timed(s, {x: await gpuInput([b, t, d], 0.1)}, cfg.model_reps || 5)}];
    await s.release();
    if (device.features.has("shader-f16")) {  // the float16 model, where ORT's device has f16 shaders
      const s16 = await session(encoderModel(b, t, d, h, true));
      res.models.push({name: `encoder layer forward ${b}x${t}x${d}, float16`,
                       ...await timed(s16, {x: await gpuInput([b, t, d], 0.1, true)}, cfg.model_reps || 5)});
      await s16.release();
    }
  }
  // MiniLM-L6 at webtorch's sizes and token ids (bench/workloads.py minilm), from the weights it loads
  if (inputs.weights && want("minilm")) {
    const w = readSafetensors(inputs.weights);
    res.minilm = [];
    for (const [b, t] of cfg.minilm) {
      // the hidden states come back to the CPU: ORT submits its queued dispatches only when an output is read
      const s = await ort.InferenceSession.create(minilmModel(b, t, w), {executionProviders: ["webgpu"]});
      const ids = BigInt64Array.from({length: b * t}, (_, i) => BigInt((101 + 37 * i) % 30522));
      const feeds = {input_ids: new ort.Tensor("int64", ids, [b, t]),
                     attention_mask: new ort.Tensor("int64", new BigInt64Array(b * t).fill(1n), [b, t])};
      const timing = await timeRounds({...cfg, rounds: cfg.minilm_rounds || 1}, async (r) => {
        for (let i = 0; i < r; i++) await s.run(feeds);
      }, cfg.minilm_reps || 1);
      res.minilm.push({name: `MiniLM-L6 forward ${b}x${t} tokens`, ...timing,
                       note: "token ids uploaded and the hidden states read back in each run"});
      await s.release();
    }
  }
  return res;
}
