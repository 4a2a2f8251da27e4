// The peers on the same workloads: tfjs-backend-webgpu and onnxruntime-web (WebGPU EP).
// Each gets its library object from the caller (a page's <script>/import, or Node's loader).
// Timing closes with the library's own device: queue.onSubmittedWorkDone() after its work is flushed.

const now = () => performance.now();

// ---------------------------------------------------------------- tfjs-backend-webgpu
export async function runTfjs(cfg, tf) {
  await tf.setBackend("webgpu");
  await tf.ready();
  const be = tf.backend();
  const sync = async () => { be.submitQueue(); await be.device.queue.onSubmittedWorkDone(); };
  const res = {version: tf.version_core};
  // The last result of each loop is read (one element) so that the work cannot be skipped.
  const readOne = async (t) => { const v = tf.slice(tf.reshape(t, [-1]), [0], [1]); await v.data(); tf.dispose(v); };
  const timed = async (fn, reps) => {
    let last = fn(); await readOne(last); tf.dispose(last);
    const t0 = now();
    for (let i = 0; i < reps; i++) { if (i) tf.dispose(last); last = fn(); }
    await readOne(last);
    const ms = (now() - t0) / reps;
    tf.dispose(last);
    return ms;
  };
  res.matmul = [];
  for (const [m, k, n] of cfg.matmul) {
    const a = tf.fill([m, k], 0.5), b = tf.fill([k, n], 0.25);
    const flops = 2 * m * n * k;
    const reps = Math.max(1, Math.min(cfg.max_reps || 20, Math.floor(cfg.matmul_flop_budget / flops)));
    const ms = await timed(() => tf.matMul(a, b), reps);
    res.matmul.push({shape: `${m}x${k}x${n}`, ms, gflops: flops / ms / 1e6, reps});
    tf.dispose([a, b]);
  }
  res.chain = [];
  for (const numel of cfg.chain_sizes) {
    const x = tf.fill([numel], 1.0);
    const run = () => { let y = x; for (let i = 0; i < cfg.chain_ops / 2; i++) { const y1 = tf.add(y, 1.0); if (y !== x) y.dispose(); y = tf.mul(y1, 0.5); y1.dispose(); } return y; };
    let y = run(); await readOne(y); y.dispose();
    const t0 = now(); y = run(); await readOne(y); const ms = now() - t0; y.dispose();
    res.chain.push({numel, us_per_op: ms * 1e3 / cfg.chain_ops});
    x.dispose();
  }
  res.bandwidth = [];
  for (const numel of cfg.bw_sizes) {
    const a = tf.fill([numel], 1.0), b = tf.fill([numel], 2.0), a2 = tf.reshape(a, [-1, cfg.softmax_row || 1024]);
    const reps = Math.max(2, Math.min(cfg.max_reps || 20, Math.floor(cfg.bw_byte_budget / (12 * numel))));
    for (const [op, fn, per] of [["add", () => tf.add(a, b), 12], ["sum", () => tf.sum(a), 4],
                                 ["softmax", () => tf.softmax(a2), 8]]) {
      const ms = await timed(fn, reps);
      res.bandwidth.push({op, numel, ms, gbps: per * numel / ms / 1e6});
    }
    tf.dispose([a, b, a2]);
  }
  res.transfer = [];
  for (const mb of cfg.transfer_mb) {
    const numel = mb << 18, host = new Float32Array(numel);
    const x = tf.tensor1d(host); await x.data();
    const reps = cfg.transfer_reps || 3;
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
    await once(); const reps = cfg.item_reps || 50; const t0 = now();
    for (let i = 0; i < reps; i++) await once();
    res.item = {us_sum_then_item: (now() - t0) / reps * 1e3};
    x.dispose();
  }
  return res;
}

// ---------------------------------------------------------------- onnxruntime-web (WebGPU EP)
// A minimal ONNX protobuf writer: one-node graphs with float inputs of fixed shapes.
function onnxModel(opType, inputs, outputShape, attrs = []) {
  const varint = (n) => { const o = []; n = BigInt.asUintN(64, BigInt(n)); do { let b = Number(n & 0x7fn); n >>= 7n; if (n) b |= 0x80; o.push(b); } while (n); return o; };
  const key = (f, w) => varint((f << 3) | w);
  const bytes = (f, arr) => [...key(f, 2), ...varint(arr.length), ...arr];
  const str = (f, s) => bytes(f, [...new TextEncoder().encode(s)]);
  const int = (f, v) => [...key(f, 0), ...varint(v)];
  const valueInfo = (name, shape) => {
    const dims = shape.flatMap((d) => bytes(1, int(1, d)));
    const tensorType = [...int(1, 1), ...bytes(2, dims)];
    return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
  };
  const node = [...inputs.flatMap(([n]) => str(1, n)), ...str(2, "y"), ...str(4, opType),
                ...attrs.flatMap(([name, v]) => bytes(5, [...str(1, name), ...int(3, v), ...int(20, 2)]))];
  const graph = [...bytes(1, node), ...str(2, "g"), ...inputs.flatMap(([n, s]) => bytes(11, valueInfo(n, s))),
                 ...bytes(12, valueInfo("y", outputShape))];
  const model = [...int(1, 8), ...bytes(7, graph), ...bytes(8, [...str(1, ""), ...int(2, 17)])];
  return new Uint8Array(model);
}

export async function runOrt(cfg, ort) {
  ort.env.wasm.numThreads = 1;
  const res = {version: ort.env.versions && ort.env.versions.web};
  const make = async (op, inputs, outShape, attrs) => ort.InferenceSession.create(onnxModel(op, inputs, outShape, attrs),
    {executionProviders: ["webgpu"], preferredOutputLocation: "gpu-buffer"});
  // Inputs live on ORT's own device: each is the GPU output of an Identity session.
  const idSessions = [];
  const gpuInput = async (dims, value) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const s = await make("Identity", [["x", dims]], dims);
    idSessions.push(s);
    return (await s.run({x: new ort.Tensor("float32", new Float32Array(n).fill(value), dims)})).y;
  };
  let device = null;
  const timed = async (session, feeds, reps) => {
    device = device || await ort.env.webgpu.device;
    const drop = (o) => { for (const k in o) o[k].dispose(); };
    drop(await session.run(feeds)); await device.queue.onSubmittedWorkDone();
    const t0 = now();
    for (let i = 0; i < reps; i++) drop(await session.run(feeds));
    await device.queue.onSubmittedWorkDone();
    return (now() - t0) / reps;
  };
  res.matmul = [];
  for (const [m, k, n] of cfg.matmul) {
    const s = await make("MatMul", [["a", [m, k]], ["b", [k, n]]], [m, n]);
    const feeds = {a: await gpuInput([m, k], 0.5), b: await gpuInput([k, n], 0.25)};
    const flops = 2 * m * n * k;
    const reps = Math.max(1, Math.min(cfg.max_reps || 20, Math.floor(cfg.matmul_flop_budget / flops)));
    const ms = await timed(s, feeds, reps);
    res.matmul.push({shape: `${m}x${k}x${n}`, ms, gflops: flops / ms / 1e6, reps});
    await s.release();
  }
  // one Add per session.run: ORT's eager-op cost
  res.chain = [];
  for (const numel of cfg.chain_sizes) {
    const s = await make("Add", [["a", [numel]], ["b", [numel]]], [numel]);
    const feeds = {a: await gpuInput([numel], 1), b: await gpuInput([numel], 2)};
    const reps = Math.min(cfg.chain_ops, 200);
    const ms = await timed(s, feeds, reps);
    res.chain.push({numel, us_per_op: ms * 1e3, note: "one session.run of one Add per op"});
    await s.release();
  }
  res.bandwidth = [];
  for (const numel of cfg.bw_sizes) {
    const reps = Math.max(2, Math.min(cfg.max_reps || 20, Math.floor(cfg.bw_byte_budget / (12 * numel))));
    const row = cfg.softmax_row || 1024;
    for (const [op, ins, out, per, attrs] of [
      ["add", [["a", [numel]], ["b", [numel]]], [numel], 12, []],
      ["sum", [["a", [numel]]], [1], 4, [["keepdims", 1]]],
      ["softmax", [["a", [numel / row, row]]], [numel / row, row], 8, [["axis", -1]]]]) {
      const s = await make(op === "add" ? "Add" : op === "sum" ? "ReduceSum" : "Softmax", ins, out, attrs);
      const feeds = {};
      for (const [n, d] of ins) feeds[n] = await gpuInput(d, 1);
      const ms = await timed(s, feeds, reps);
      res.bandwidth.push({op, numel, ms, gbps: per * numel / ms / 1e6});
      await s.release();
    }
  }
  return res;
}
