// Times candidate f32 matmul kernels (the matmul_vec4.wgsl template with its tile constants) in plain
// JS WebGPU on Node + Dawn, or checks them against a CPU reference. Used to choose gpu.matmul's tiles:
//   source .gpu/gpu-env.sh; node bench/matmul_tune.mjs check|time OUT.json '[[16, 8, 8, 2, 4], [8, 16, 4, 2, 4]]'
// (a config is gpu._VEC4_TILES's [WX, WY, TM, TN4, BK4], optionally with a sixth item: another template
// file to try).
// Check and time in separate processes: after a mapAsync readback, dawn.node (npm webgpu 0.6.2)
// crashed with mutex errors once submits took over ~10 ms.
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import {fileURLToPath} from "url";

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const [mode, outPath, spec] = process.argv.slice(2);
const {create, globals} = require(process.env.DAWN_NODE);
Object.assign(globalThis, globals);
const gpu = create([]);
const read = (f) => fs.readFileSync(path.join(root, f), "utf8");
// string.Template's rules: $$ is $, ${name} and $name are substitutions
const fill = (src, subs) => src.replace(/\$(?:\$|\{(\w+)\}|(\w+))/g, (m, a, b) => {
  if (m === "$$") return "$";
  const v = subs[a ?? b];
  if (v === undefined) throw new Error(`template needs ${a ?? b}`);
  return String(v);
});
// C's store (matmul_store_vec4.wgsl) and batch offsets beside the kernel
const batch = read("webtorch/wgsl/matmul_store_vec4.wgsl") + read("webtorch/wgsl/matmul_batch.wgsl");

const configs = [];
for (const [wx, wy, tm, tn4, bk4, file = "webtorch/wgsl/matmul_vec4.wgsl"] of JSON.parse(spec)) {
  const bm = wy * tm, bn4 = wx * tn4;
  if ((bm * bk4) % (wx * wy) || (4 * bk4 * bn4) % (wx * wy)) throw new Error(`${[wx, wy, tm, tn4, bk4]}: partial vec4 loads`);
  configs.push({name: `${bm}x${4 * bn4}_k${4 * bk4}_w${wx}x${wy}${file.includes("/wgsl/") ? "" : "_" + path.basename(file, ".wgsl")}`,
    bm, bn: 4 * bn4, smem: (bm * bk4 + 4 * bk4 * bn4) * 16,
    src: batch + fill(read(file), {WX: wx, WY: wy, TM: tm, TN4: tn4, BK4: bk4, B_T: false})});
}

const adapter = await gpu.requestAdapter({powerPreference: "high-performance"});
const L = adapter.limits;
const device = await adapter.requestDevice({requiredLimits: {
  maxStorageBufferBindingSize: L.maxStorageBufferBindingSize, maxBufferSize: L.maxBufferSize,
  maxComputeWorkgroupStorageSize: L.maxComputeWorkgroupStorageSize}});
const out = {adapter: {...adapter.info}, limits: {wgStorage: L.maxComputeWorkgroupStorageSize,
  invocations: L.maxComputeInvocationsPerWorkgroup}, features: [...adapter.features], results: []};
console.log(JSON.stringify(out));
const U = GPUBufferUsage;
const buf = (bytes, usage = U.STORAGE | U.COPY_SRC | U.COPY_DST) => device.createBuffer({size: bytes, usage});
const wait = () => device.queue.onSubmittedWorkDone();

for (const c of configs) {
  if (c.smem > L.maxComputeWorkgroupStorageSize) { c.skip = true; continue; }
  device.pushErrorScope("validation");
  const module = device.createShaderModule({code: c.src});
  c.pipe = device.createComputePipeline({layout: "auto", compute: {module, entryPoint: "main"}});
  const err = await device.popErrorScope();
  if (err) { console.log(`${c.name}: ${err.message}`); c.skip = true; }
}

// dawn.node may read a writeBuffer source after the call returns: keep every source array alive
const keep = [];
function params(m, k, n, nb) {
  const p = [m, n, k, nb > 1 ? 1 : 0, 0, k, 1, 0, n, 1];
  if (nb > 1) p.push(nb, m * k, k * n);
  const P = buf(p.length * 4);
  const words = new Uint32Array(p);
  keep.push(words);
  device.queue.writeBuffer(P, 0, words);
  return P;
}
const bindAll = (c, bufs) => device.createBindGroup({layout: c.pipe.getBindGroupLayout(0),
  entries: bufs.map((b, i) => ({binding: i, resource: {buffer: b}}))});
const grid = (c, m, n, nb) => [Math.ceil(n / c.bn), Math.ceil(m / c.bm), nb];

// correctness: odd M, partial tiles in every direction, a batch
const rand = (len) => { const x = new Float32Array(len); for (let i = 0; i < len; i++) x[i] = Math.random() * 2 - 1; keep.push(x); return x; };
for (const [m, k, n, nb] of mode !== "check" ? [] : [[67, 36, 132, 1], [128, 64, 128, 1], [200, 100, 76, 3], [33, 260, 4, 2]]) {
  const a = rand(nb * m * k), b = rand(nb * k * n);
  const ref = new Float64Array(nb * m * n);
  for (let z = 0; z < nb; z++) for (let i = 0; i < m; i++) for (let kk = 0; kk < k; kk++) {
    const av = a[z * m * k + i * k + kk];
    for (let j = 0; j < n; j++) ref[z * m * n + i * n + j] += av * b[z * k * n + kk * n + j];
  }
  const A = buf(a.byteLength), B = buf(b.byteLength), C = buf(ref.length * 4), P = params(m, k, n, nb);
  const R = buf(ref.length * 4, U.MAP_READ | U.COPY_DST);
  device.queue.writeBuffer(A, 0, a); device.queue.writeBuffer(B, 0, b);
  for (const c of configs) {
    if (c.skip) continue;
    const enc = device.createCommandEncoder();
    enc.clearBuffer(C);
    const pass = enc.beginComputePass();
    pass.setPipeline(c.pipe); pass.setBindGroup(0, bindAll(c, [P, C, A, B])); pass.dispatchWorkgroups(...grid(c, m, n, nb)); pass.end();
    enc.copyBufferToBuffer(C, 0, R, 0, ref.length * 4);
    device.queue.submit([enc.finish()]);
    await R.mapAsync(GPUMapMode.READ);
    const got = new Float32Array(R.getMappedRange()).slice(0); R.unmap();
    let err = 0;
    for (let i = 0; i < ref.length; i++) err = Math.max(err, Math.abs(got[i] - ref[i]));
    if (!(err < 1e-3 * Math.sqrt(k))) { console.log(`${c.name} WRONG at ${m}x${k}x${n}x${nb}: max err ${err}`); c.skip = true; }
  }
  for (const x of [A, B, C, P, R]) x.destroy();
}

const shapes = [[128, 128, 128], [256, 256, 256], [512, 512, 512], [1024, 1024, 1024], [2048, 2048, 2048],
  [4096, 4096, 4096], [4096, 384, 1536], [4096, 1536, 384]];
for (const [m, k, n] of mode !== "time" ? [] : shapes) {
  const A = buf(m * k * 4), B = buf(k * n * 4), C = buf(m * n * 4), P = params(m, k, n, 1);
  device.queue.writeBuffer(A, 0, rand(m * k)); device.queue.writeBuffer(B, 0, rand(k * n));
  const flops = 2 * m * n * k;
  const row = {shape: `${m}x${k}x${n}`};
  for (const c of configs) {
    if (c.skip) continue;
    const bg = bindAll(c, [P, C, A, B]), g = grid(c, m, n, 1);
    const once = async (reps) => {
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      for (let r = 0; r < reps; r++) { pass.setPipeline(c.pipe); pass.setBindGroup(0, bg); pass.dispatchWorkgroups(...g); }
      pass.end(); device.queue.submit([enc.finish()]); await wait();
    };
    const reps = Math.max(5, Math.min(200, Math.round(3e11 / flops)));
    await once(2);
    const times = [];
    for (let t = 0; t < 3; t++) { const t0 = performance.now(); await once(reps); times.push((performance.now() - t0) / reps); }
    const ms = Math.min(...times);
    row[c.name] = +(flops / ms / 1e6).toFixed(0);  // GFLOP/s
  }
  console.log(JSON.stringify(row));
  out.results.push(row);
  for (const x of [A, B, C, P]) x.destroy();
}
fs.writeFileSync(outPath, JSON.stringify(out, null, 1));
process.exit(0);
