// The ceiling without Python: the same workloads in plain JS WebGPU (raw WGSL), on its own device.
// Used by bench/suite.mjs in the Chromium page and in Node + Dawn. Timing: bench/timing.mjs.
import {timeRounds} from "./timing.mjs";

const MATMUL = `
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> dims: vec4<u32>;
var<workgroup> As: array<array<f32, 64>, 16>;
var<workgroup> Bs: array<array<f32, 64>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = dims.x; let N = dims.y; let K = dims.z;
  let row0 = wg.y * 64u; let col0 = wg.x * 64u;
  var acc: array<array<f32, 4>, 4>;
  let tid = lid.y * 16u + lid.x;
  for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {
    for (var i = 0u; i < 4u; i = i + 1u) {
      let idx = tid + i * 256u;
      let r = idx / 16u; let c = idx % 16u;
      As[c][r] = A[(row0 + r) * K + k0 + c];
      let kr = idx / 64u; let cc = idx % 64u;
      Bs[kr][cc] = B[(k0 + kr) * N + col0 + cc];
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk = kk + 1u) {
      var a: array<f32, 4>; var b: array<f32, 4>;
      for (var i = 0u; i < 4u; i = i + 1u) { a[i] = As[kk][lid.y * 4u + i]; b[i] = Bs[kk][lid.x * 4u + i]; }
      for (var i = 0u; i < 4u; i = i + 1u) { for (var j = 0u; j < 4u; j = j + 1u) { acc[i][j] = fma(a[i], b[j], acc[i][j]); } }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i = i + 1u) { for (var j = 0u; j < 4u; j = j + 1u) {
    C[(row0 + lid.y * 4u + i) * N + col0 + lid.x * 4u + j] = acc[i][j]; } }
}`;

const EW = (expr) => `
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> Y: array<f32>;
@group(0) @binding(2) var<storage, read_write> Z: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let i = g.y * nw.x * 256u + g.x;
  if (i < arrayLength(&Z)) { Z[i] = ${expr}; }
}`;

const SUM = `
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> P: array<f32>;
var<workgroup> s: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>, @builtin(local_invocation_index) l: u32) {
  let n = arrayLength(&X);
  var acc = 0.0;
  for (var i = wg.x * 256u + l; i < n; i = i + nw.x * 256u) { acc = acc + X[i]; }
  s[l] = acc;
  workgroupBarrier();
  for (var k = 128u; k > 0u; k = k >> 1u) { if (l < k) { s[l] = s[l] + s[l + k]; } workgroupBarrier(); }
  if (l == 0u) { P[wg.x] = s[0]; }
}`;

export async function runRaw(cfg, gpu = globalThis.navigator.gpu) {
  const adapter = await gpu.requestAdapter({powerPreference: "high-performance"});
  const device = await adapter.requestDevice({requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize}});
  const U = GPUBufferUsage;
  const buf = (bytes, usage = U.STORAGE | U.COPY_SRC | U.COPY_DST) => device.createBuffer({size: bytes, usage});
  const pipe = (code) => device.createComputePipeline({layout: "auto",
    compute: {module: device.createShaderModule({code}), entryPoint: "main"}});
  const bind = (p, bufs) => device.createBindGroup({layout: p.getBindGroupLayout(0),
    entries: bufs.map((b, i) => ({binding: i, resource: {buffer: b}}))});
  const wait = () => device.queue.onSubmittedWorkDone();
  const now = () => performance.now();
  // reps dispatches of (pipeline, bindgroup, groups) in one pass, submitted once, in timed rounds:
  // {ms (per rep, the median round), ms_min, ms_max}
  const timeDispatch = (items, reps) => {
    const once = async (r) => {
      const enc = device.createCommandEncoder();
      const p = enc.beginComputePass();
      for (let i = 0; i < r; i++) {
        const [pl, bg, gx, gy] = items[i % items.length];
        p.setPipeline(pl); p.setBindGroup(0, bg); p.dispatchWorkgroups(gx, gy || 1);
      }
      p.end(); device.queue.submit([enc.finish()]); await wait();
    };
    return timeRounds(cfg, once, reps);
  };
  const groups2d = (n) => { const g = Math.ceil(n / 256); const gx = Math.min(g, 65535); return [gx, Math.ceil(g / gx)]; };
  const res = {};

  // matmul (shapes are multiples of 64)
  const mm = pipe(MATMUL);
  res.matmul = [];
  for (const [m, k, n] of cfg.matmul) {
    if (m % 64 || n % 64 || k % 16) { res.matmul.push({shape: `${m}x${k}x${n}`, error: "not a multiple of 64"}); continue; }
    const A = buf(m * k * 4), B = buf(k * n * 4), C = buf(m * n * 4);
    const D = device.createBuffer({size: 16, usage: U.UNIFORM | U.COPY_DST});
    device.queue.writeBuffer(D, 0, new Uint32Array([m, n, k, 0]));
    const flops = 2 * m * n * k;
    const reps = Math.max(1, Math.min(cfg.max_reps || 20, Math.floor(cfg.matmul_flop_budget / flops)));
    const t = await timeDispatch([[mm, bind(mm, [A, B, C, D]), n / 64, m / 64]], reps);
    res.matmul.push({shape: `${m}x${k}x${n}`, ...t, gflops: flops / t.ms / 1e6, reps});
    for (const b of [A, B, C, D]) b.destroy();
  }

  // dispatch-bound chain: n_ops dependent elementwise dispatches in one pass (ping-pong buffers)
  const add = pipe(EW("X[i] + Y[i]"));
  res.chain = [];
  for (const numel of cfg.chain_sizes) {
    const X = buf(numel * 4), Y = buf(numel * 4), Z = buf(numel * 4);
    const [gx, gy] = groups2d(numel);
    const items = [[add, bind(add, [X, Y, Z]), gx, gy], [add, bind(add, [Z, Y, X]), gx, gy]];
    const t = await timeDispatch(items, cfg.chain_ops);
    res.chain.push({numel, us_per_op: t.ms * 1e3, us_per_op_min: t.ms_min * 1e3, us_per_op_max: t.ms_max * 1e3});
    for (const b of [X, Y, Z]) b.destroy();
  }

  // bandwidth: add (read 2, write 1), sum (two-level), copy (copyBufferToBuffer)
  const sum = pipe(SUM);
  res.bandwidth = [];
  for (const numel of cfg.bw_sizes) {
    const X = buf(numel * 4), Y = buf(numel * 4), Z = buf(numel * 4), P = buf(1024 * 4);
    const reps = Math.max(2, Math.min(cfg.max_reps || 20, Math.floor(cfg.bw_byte_budget / (12 * numel))));
    const [gx, gy] = groups2d(numel);
    let t = await timeDispatch([[add, bind(add, [X, Y, Z]), gx, gy]], reps);
    res.bandwidth.push({op: "add", numel, ...t, gbps: 12 * numel / t.ms / 1e6});
    t = await timeDispatch([[sum, bind(sum, [X, P]), 1024, 1]], reps);
    res.bandwidth.push({op: "sum", numel, ...t, gbps: 4 * numel / t.ms / 1e6});
    const copy = async (r) => { const e = device.createCommandEncoder(); for (let i = 0; i < r; i++) e.copyBufferToBuffer(X, 0, Z, 0, numel * 4); device.queue.submit([e.finish()]); await wait(); };
    t = await timeRounds(cfg, copy, reps);
    res.bandwidth.push({op: "copy (copyBufferToBuffer)", numel, ...t, gbps: 8 * numel / t.ms / 1e6});
    for (const b of [X, Y, Z, P]) b.destroy();
  }

  // host <-> GPU
  res.transfer = [];
  for (const mb of cfg.transfer_mb) {
    const bytes = mb << 20, host = new Uint8Array(bytes);
    const X = buf(bytes), R = buf(bytes, U.MAP_READ | U.COPY_DST);
    const reps = cfg.transfer_reps || 3;
    const up = async () => { device.queue.writeBuffer(X, 0, host); await wait(); };
    const down = async () => { const e = device.createCommandEncoder(); e.copyBufferToBuffer(X, 0, R, 0, bytes); device.queue.submit([e.finish()]); await R.mapAsync(GPUMapMode.READ); new Uint8Array(R.getMappedRange()).slice(0); R.unmap(); };
    await up(); await cfg.heat(); let t0 = now(); for (let i = 0; i < reps; i++) await up(); const tu = (now() - t0) / reps;
    await down(); t0 = now(); for (let i = 0; i < reps; i++) await down(); const td = (now() - t0) / reps;
    res.transfer.push({mb, upload_ms: tu, upload_gbps: bytes / tu / 1e6, download_ms: td, download_gbps: bytes / td / 1e6});
    X.destroy(); R.destroy();
  }

  // one small kernel + 4-byte readback round trip (what .item() after an op costs)
  {
    const X = buf(4096), P = buf(4096), R = buf(16, U.MAP_READ | U.COPY_DST);
    const bg = bind(sum, [X, P]);
    const once = async () => { const e = device.createCommandEncoder(); const p = e.beginComputePass(); p.setPipeline(sum); p.setBindGroup(0, bg); p.dispatchWorkgroups(1); p.end(); e.copyBufferToBuffer(P, 0, R, 0, 16); device.queue.submit([e.finish()]); await R.mapAsync(GPUMapMode.READ); new Float32Array(R.getMappedRange()).slice(0); R.unmap(); };
    await once(); await cfg.heat(); const reps = cfg.item_reps || 50; const t0 = now(); for (let i = 0; i < reps; i++) await once();
    res.item = {us_sum_then_item: (now() - t0) / reps * 1e3};
    // the 4-byte copy + mapAsync alone (what .item() of a ready value costs)
    const read = async () => { const e = device.createCommandEncoder(); e.copyBufferToBuffer(P, 0, R, 0, 16); device.queue.submit([e.finish()]); await R.mapAsync(GPUMapMode.READ); new Float32Array(R.getMappedRange()).slice(0); R.unmap(); };
    await read(); const t1 = now(); for (let i = 0; i < reps; i++) await read();
    res.item.us_item = (now() - t1) / reps * 1e3;
  }
  device.destroy();
  return res;
}
