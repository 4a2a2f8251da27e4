// Checks and times the tensor-core matmul (webtorch/wgsl/matmul_subgroup_matrix.wgsl: f16 inputs, or
// float32 ones rounded ("medium") or split ("high") to f16, f32 accumulation) in plain JS WebGPU on
// Node + Dawn with subgroup matrices turned on. The kernels come from webtorch (bench/tc_kernels.py):
//   python bench/tc_kernels.py KERNELS.json '[[TM, TN, WM, WN, BK], ...]'
//   source .gpu/gpu-env.sh; node bench/matmul_tc.mjs check|time OUT.json KERNELS.json
// Prints the adapter's subgroup-matrix configs, checks every tile config against a CPU reference
// (row- and column-major B, f32 and f16 C; exact for f16-exact values, the error bound of each
// float32 precision for full-mantissa ones), or times them (TFLOP/s per shape in OUT.json). Check
// and time in separate processes, as bench/matmul_tune.mjs says why; check one config (TC_CONFIG=name)
// and input kind (TC_KINDS=f16|medium|high) per process, as dawn.node (npm webgpu 0.6.2, Node 26)
// aborted after about 16 readbacks.
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import {fileURLToPath} from "url";

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const [mode, outPath, kernelsPath] = process.argv.slice(2);
const {create, globals} = require(process.env.DAWN_NODE);
Object.assign(globalThis, globals);
const gpu = create(["enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia"]);
const kernels = JSON.parse(fs.readFileSync(kernelsPath, "utf8"));

const adapter = await gpu.requestAdapter({powerPreference: "high-performance"});
const info = adapter.info;
const smc = [...(info.subgroupMatrixConfigs || [])].map((c) => ({component: c.componentType, result: c.resultComponentType,
                                                                M: c.M, N: c.N, K: c.K}));
const out = {adapter: {vendor: info.vendor, device: info.device, description: info.description,
  subgroupMinSize: info.subgroupMinSize, subgroupMaxSize: info.subgroupMaxSize}, configs: smc,
  features: [...adapter.features], checks: [], results: []};
console.log(JSON.stringify(out));
const cfg = smc.find((c) => c.component === "f16" && c.result === "f32");
if (!cfg) { fs.writeFileSync(outPath, JSON.stringify(out, null, 1)); console.log("no f16->f32 config"); process.exit(0); }
const L = adapter.limits;
const device = await adapter.requestDevice({
  requiredFeatures: ["shader-f16", "subgroups", "chromium-experimental-subgroup-matrix"],
  requiredLimits: {maxStorageBufferBindingSize: L.maxStorageBufferBindingSize, maxBufferSize: L.maxBufferSize,
                   maxComputeWorkgroupStorageSize: L.maxComputeWorkgroupStorageSize,
                   maxComputeInvocationsPerWorkgroup: L.maxComputeInvocationsPerWorkgroup}});
device.addEventListener("uncapturederror", (e) => console.log("uncaptured: " + e.error.message));
if (kernels.fragment.join() !== [cfg.M, cfg.N, cfg.K].join() || kernels.subgroup !== info.subgroupMaxSize)
  throw new Error(`kernels made for fragment ${kernels.fragment}, subgroup ${kernels.subgroup}`);
const configs = kernels.configs.map((c) => ({...c, pipes: {}}));
async function pipe(c, kind, outType, bCol) {
  const key = `${kind}:${outType}:${bCol ? "bT" : "b"}`;
  if (c.pipes[key] !== undefined) return c.pipes[key];
  device.pushErrorScope("validation");
  const module = device.createShaderModule({code: c.sources[key]});
  const p = device.createComputePipeline({layout: "auto", compute: {module, entryPoint: "main"}});
  const err = await device.popErrorScope();
  if (err) console.log(`${c.name} ${key}: ${err.message}`);
  return (c.pipes[key] = err ? null : p);
}

const U = GPUBufferUsage;
const keep = [];
const buf = (bytes, usage = U.STORAGE | U.COPY_SRC | U.COPY_DST) => device.createBuffer({size: Math.ceil(bytes / 4) * 4, usage});
function params(m, k, n, nb, bCol) {
  // [M, N, K, batch rank, a offset, a_sm, a_sk, b offset, b_sk, b_sn, batch sizes, a/b batch strides]
  const p = [m, n, k, nb > 1 ? 1 : 0, 0, k, 1, 0, bCol ? 1 : n, bCol ? k : 1];
  if (nb > 1) p.push(nb, m * k, k * n);
  const P = buf(p.length * 4), words = new Uint32Array(p);
  keep.push(words); device.queue.writeBuffer(P, 0, words);
  return P;
}
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
const toHalf = (v) => {  // exact for the values used here (k/8, |k| <= 16, normal or zero)
  f32[0] = v; const x = u32[0], s = (x >>> 16) & 0x8000, e = (x >>> 23) & 0xff;
  return e === 0 ? s : s | ((e - 112) << 10) | ((x >>> 13) & 0x3ff);
};
const fromHalf = (h) => {
  const s = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  return e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15);
};
// values: k/8 (|k| <= 16, exact in f16: every kind's result is exact) or full-mantissa floats (for
// the float32 kinds' error bounds); h: what is uploaded (halves for "f16", float32 otherwise)
const randInputs = (len, kind, exact) => {
  const v = new Float32Array(len), h = kind === "f16" ? new Uint16Array(len + (len & 1)) : v;
  for (let i = 0; i < len; i++) {
    v[i] = exact ? Math.round(Math.random() * 32 - 16) / 8 : (Math.random() * 4 - 2);
    if (kind === "f16") h[i] = toHalf(v[i]);
  }
  keep.push(h); return {v, h}; };
// the largest |error| allowed, relative to sum over k of |a||b|, for full-mantissa inputs:
// "medium" rounds both inputs to f16 (2^-11 each), "high" drops lo*lo and rounds lo (~3 x 2^-22),
// plus f32 accumulation in both
const BOUND = {medium: 2 ** -9, high: 2 ** -19};
const bindAll = (p, bufs) => device.createBindGroup({layout: p.getBindGroupLayout(0),
  entries: bufs.map((b, i) => ({binding: i, resource: {buffer: b}}))});

for (const c of configs) {
  if (mode === "check" && process.env.TC_CONFIG && c.name !== process.env.TC_CONFIG) continue;
  console.log(`check ${c.name}`);
  const cases = [];
  for (const kind of (process.env.TC_KINDS || "f16,medium,high").split(",")) {
    for (const [outType, bCol] of [["f32", false], ["f32", true], ["f16", false]]) cases.push([kind, outType, bCol, true]);
    if (kind !== "f16") cases.push([kind, "f32", false, false], [kind, "f32", true, false]);
  }
  for (const [m, k, n, nb] of mode !== "check" ? [] : [[c.bm, c.bk, c.bn, 1], [2 * c.bm, 3 * c.bk, 3 * c.bn, 2]]) {
    for (const [kind, outType, bCol, exact] of cases) {
      const p = await pipe(c, kind, outType, bCol);
      if (!p) continue;
      const A = randInputs(nb * m * k, kind, exact), B = randInputs(nb * k * n, kind, exact);
      const ref = new Float64Array(nb * m * n), mag = new Float64Array(nb * m * n);
      for (let z = 0; z < nb; z++) for (let i = 0; i < m; i++) for (let kk = 0; kk < k; kk++) {
        const av = A.v[z * m * k + i * k + kk];
        for (let j = 0; j < n; j++) {
          const bv = bCol ? B.v[z * k * n + j * k + kk] : B.v[z * k * n + kk * n + j];
          ref[z * m * n + i * n + j] += av * bv;
          mag[z * m * n + i * n + j] += Math.abs(av * bv);
        }
      }
      const esize = outType === "f32" ? 4 : 2;
      const Ab = buf(A.h.byteLength), Bb = buf(B.h.byteLength), C = buf(ref.length * esize), P = params(m, k, n, nb, bCol);
      const R = buf(ref.length * esize, U.MAP_READ | U.COPY_DST);
      device.queue.writeBuffer(Ab, 0, A.h); device.queue.writeBuffer(Bb, 0, B.h);
      const enc = device.createCommandEncoder(), pass = enc.beginComputePass();
      pass.setPipeline(p); pass.setBindGroup(0, bindAll(p, [P, C, Ab, Bb]));
      pass.dispatchWorkgroups(n / c.bn, m / c.bm, nb); pass.end();
      enc.copyBufferToBuffer(C, 0, R, 0, Math.ceil(ref.length * esize / 4) * 4);
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();  // map only idle buffers: dawn.node crashed mapping while busy
      await R.mapAsync(GPUMapMode.READ);
      const raw = R.getMappedRange();
      const got = outType === "f32" ? new Float32Array(raw).slice(0) : Array.from(new Uint16Array(raw), fromHalf);
      R.unmap();
      let err = 0;
      for (let i = 0; i < ref.length; i++) {
        const scale = !exact ? mag[i] : outType === "f16" ? Math.max(1, Math.abs(ref[i]) * 2 ** -10) : 1;
        err = Math.max(err, Math.abs(got[i] - ref[i]) / scale);
      }
      // k/8 products sum exactly in f32; full-mantissa ones within the kind's bound
      const ok = !exact ? err <= BOUND[kind] : outType === "f32" ? err === 0 : err <= 1;
      out.checks.push({config: c.name, kind, shape: `${nb}x${m}x${k}x${n}`, out: outType, bCol, exact, maxErr: err, ok});
      if (!ok) { console.log(`${c.name} WRONG ${kind} ${outType} bCol=${bCol} exact=${exact} ${nb}x${m}x${k}x${n}: ${err}`); c.wrong = true; }
      for (const x of [Ab, Bb, C, P, R]) x.destroy();
    }
  }
}
console.log(JSON.stringify(out.checks.filter((x) => !x.ok)));

const shapes = [[1024, 1024, 1024, false, "f16"], [2048, 2048, 2048, false, "f16"], [4096, 4096, 4096, false, "f16"],
                [8192, 8192, 8192, false, "f16"], [4096, 4096, 4096, true, "f16"], [4096, 384, 1536, true, "f16"],
                [4096, 4096, 4096, false, "medium"], [4096, 4096, 4096, false, "high"]];
// TC_SHAPES=4096: only the 4096^3 rows (a quick tile sweep)
for (const [m, k, n, bCol, kind] of mode !== "time" ? [] : shapes.filter(
  ([m, k, n]) => !process.env.TC_SHAPES || [m, k, n].join("x") === Array(3).fill(process.env.TC_SHAPES).join("x"))) {
  // f16 inputs give f16 C (float16 matmul); float32 inputs ("medium", "high") f32 C
  const row = {shape: `${m}x${k}x${n}${bCol ? "_bT" : ""}`, kind};
  const esize = kind === "f16" ? 2 : 4;
  const A = buf(m * k * esize), B = buf(k * n * esize), C = buf(m * n * esize), P = params(m, k, n, 1, bCol);
  const flops = 2 * m * n * k;
  for (const c of configs) {
    if (c.wrong || m % c.bm || n % c.bn || k % c.bk) continue;
    const p = await pipe(c, kind, kind === "f16" ? "f16" : "f32", bCol);
    if (!p) continue;
    const bg = bindAll(p, [P, C, A, B]);
    const once = async (reps) => {
      const enc = device.createCommandEncoder(), pass = enc.beginComputePass();
      for (let r = 0; r < reps; r++) { pass.setPipeline(p); pass.setBindGroup(0, bg); pass.dispatchWorkgroups(n / c.bn, m / c.bm, 1); }
      pass.end(); device.queue.submit([enc.finish()]); await device.queue.onSubmittedWorkDone();
    };
    const reps = Math.max(5, Math.min(200, Math.round(2e12 / flops)));
    await once(2);
    const times = [];
    for (let t = 0; t < 3; t++) { const t0 = performance.now(); await once(reps); times.push((performance.now() - t0) / reps); }
    row[c.name] = +(flops / Math.min(...times) / 1e9).toFixed(1);  // TFLOP/s
  }
  console.log(JSON.stringify(row));
  out.results.push(row);
  for (const x of [A, B, C, P]) x.destroy();
}
fs.writeFileSync(outPath, JSON.stringify(out, null, 1));
process.exit(0);
